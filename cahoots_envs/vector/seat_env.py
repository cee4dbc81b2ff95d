"""Retired path: ``BatchedSeatVecEnv`` moved to ``cahoots_envs.training.batched_seat_env``.

It is a training env (it builds on ``cahoots_envs.training``'s opponent pool and SB3's VecEnv),
and ``cahoots_envs.vector`` ranks below ``training``: nothing in ``vector`` imports upward. This
module names the new path instead of importing it.
"""

from __future__ import annotations

NEW_PATH = "cahoots_envs.training.batched_seat_env"


def __getattr__(name: str) -> object:
    if name.startswith("__"):  # the import machinery's own look-ups (__path__, ...)
        raise AttributeError(name)
    raise ImportError(f"cahoots_envs.vector.seat_env.{name} moved: use "
                      f"from {NEW_PATH} import {name}", name=name)
