"""Env ids, ``make`` and ``list_envs``; registration into PettingZoo's own registry (CONTRACT §1)."""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Any

import pettingzoo

NAMESPACE = "cahoots_envs"

# game name -> version of every game of the contract; ``GAMES`` keeps those whose module exists
ALL_GAMES: dict[str, int] = {
    "kansas_city": 0,
    "texas_euchre": 0,
    "cahoots_tricks": 0,
    "cahoots_coop": 0,
}
GAMES: dict[str, int] = {
    g: v for g, v in ALL_GAMES.items()
    if importlib.util.find_spec(f"cahoots_envs.{g}_v{v}") is not None
}


def _module_name(game: str) -> str:
    return f"cahoots_envs.{game}_v{GAMES[game]}"


def list_envs() -> list[str]:
    """Every registered env id, e.g. ``cahoots_envs/kansas_city-v0``."""
    return [f"{NAMESPACE}/{g}-v{v}" for g, v in GAMES.items()]


def _resolve(env_id: str) -> str:
    name = env_id.split("/", 1)[1] if env_id.startswith(NAMESPACE + "/") else env_id
    game, _, version = name.partition("-v")
    game = game.removesuffix("_v0")
    if game not in GAMES or (version and version != str(GAMES[game])):
        raise ValueError(f"unknown env {env_id!r}; known envs: {', '.join(list_envs())}")
    return game


def make(env_id: str, **options: Any) -> Any:
    """The protected env (``env()``) for ``env_id``; the ``cahoots_envs/`` prefix is optional."""
    module = importlib.import_module(_module_name(_resolve(env_id)))
    return module.env(**options)


def make_raw(env_id: str, **options: Any) -> Any:
    """The bare env (``raw_env()``) for ``env_id``."""
    module = importlib.import_module(_module_name(_resolve(env_id)))
    return module.raw_env(**options)


def register_all() -> None:
    for env_id in list_envs():
        if env_id in pettingzoo.aec_registry:
            continue
        game = _resolve(env_id)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", env_id, entry_point=f"{_module_name(game)}:env")
