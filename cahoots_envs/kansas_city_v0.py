"""Retired: ``kansas_city-v0`` is now ``cahoots_envs.kansas_city_v1`` (the v1 observation holds every
public fact). Calling anything here raises ``RetiredEnvError`` saying what changed."""

from cahoots_envs.registry import retired_module

env, raw_env, __getattr__ = retired_module(__name__)
