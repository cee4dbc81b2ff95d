"""``EnvInfo`` and ``env_info`` live in ``cahoots_envs.envinfo`` (one rank above the registry,
so that search, below policies, can use them); this path re-exports them."""

from cahoots_envs.envinfo import EnvInfo, env_info

__all__ = ["EnvInfo", "env_info"]
