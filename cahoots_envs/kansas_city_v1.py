"""Kansas City: The Trick-Taking Game (``cahoots_envs/kansas_city-v1``)."""

from cahoots_envs.games.kansas_city import env as _page
from cahoots_envs.games.kansas_city.env import env, parallel_env, raw_env

__doc__ = _page.__doc__
__all__ = ["env", "parallel_env", "raw_env"]
