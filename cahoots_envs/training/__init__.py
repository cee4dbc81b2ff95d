"""Training: the single-seat env, its vectorised twin, opponent pools, configs and self-play.

``SeatEnv`` and ``OpponentPool`` need only gymnasium; ``SeatVecEnv`` and the training script
need the ``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml, ...).
"""

# the built-in algorithms and their config sections are registered with the package, so a
# config naming one loads through training.config.load_config alone (numpy only, no torch)
from cahoots_envs.training import algorithms as _algorithms  # noqa: F401
from cahoots_envs.training.pool import OpponentPool, PoolEntry
from cahoots_envs.training.seat_env import SeatEnv

__all__ = ["OpponentPool", "PoolEntry", "SeatEnv", "SeatVecEnv"]


def __getattr__(name: str):  # the VecEnv imports stable-baselines3, so load it on first use
    if name == "SeatVecEnv":
        from cahoots_envs.training.vec_env import SeatVecEnv

        return SeatVecEnv
    raise AttributeError(name)
