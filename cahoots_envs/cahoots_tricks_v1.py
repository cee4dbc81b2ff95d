"""Cahoots, competitive trick-taking (``cahoots_envs/cahoots_tricks-v1``)."""

from cahoots_envs.games.cahoots_tricks import env as _page
from cahoots_envs.games.cahoots_tricks.env import env, parallel_env, raw_env

__doc__ = _page.__doc__
__all__ = ["env", "parallel_env", "raw_env"]
