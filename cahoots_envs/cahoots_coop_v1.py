"""Cahoots, cooperative goal cards (``cahoots_envs/cahoots_coop-v1``)."""

from cahoots_envs.games.cahoots_coop import env as _page
from cahoots_envs.games.cahoots_coop.env import env, parallel_env, raw_env

__doc__ = _page.__doc__
__all__ = ["env", "parallel_env", "raw_env"]
