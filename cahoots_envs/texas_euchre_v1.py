"""Texas Euchre (``cahoots_envs/texas_euchre-v1``)."""

from cahoots_envs.games.texas_euchre import env as _page
from cahoots_envs.games.texas_euchre.env import env, parallel_env, raw_env

__doc__ = _page.__doc__
__all__ = ["env", "parallel_env", "raw_env"]
