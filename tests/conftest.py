"""Shared parametrisation: every registered env x every player count x declared test variants."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import cahoots_envs
from cahoots_envs.registry import GAMES


def game_class(game: str) -> Any:
    module = importlib.import_module(f"cahoots_envs.{game}_v{GAMES[game]}")
    return module.raw_env().game_cls


def env_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for game in GAMES:
        cls = game_class(game)
        for n in cls.PLAYER_COUNTS:
            cases.append((game, {"num_players": n}))
        for variant in cls.TEST_VARIANTS:
            cases.append((game, dict(variant)))
    return cases


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    game, opts = case
    return game + "-" + "-".join(f"{k}={v}" for k, v in opts.items())


CASES = env_cases()


@pytest.fixture(params=CASES, ids=[case_id(c) for c in CASES])
def case(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param


def make_env(game: str, protected: bool = True, **options: Any) -> Any:
    module = importlib.import_module(f"cahoots_envs.{game}_v{GAMES[game]}")
    return module.env(**options) if protected else module.raw_env(**options)


__all__ = ["CASES", "cahoots_envs", "case_id", "game_class", "make_env"]
