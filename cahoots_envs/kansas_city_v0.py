"""Kansas City: The Trick-Taking Game (``cahoots_envs/kansas_city-v0``); see ``help(env)``'s module
``cahoots_envs.games.kansas_city.env`` for the full doc page."""

from cahoots_envs.games.kansas_city.env import __doc__ as __doc__  # noqa: F401
from cahoots_envs.games.kansas_city.env import env, raw_env

__all__ = ["env", "raw_env"]
