"""Shared parametrisation: every registered env x every player count x declared test variants.

The test game ``high_card`` (``tests/plugin_game/``, a package of its own that imports only
``cahoots_envs.core``) is registered here through the public API, as a third-party game would
be, so the shared suite runs it like the built-in games."""

from __future__ import annotations

from typing import Any

import pytest

import cahoots_envs
from cahoots_envs.registry import GAMES
from tests.plugin_game.spec import SPEC as HIGH_CARD

if HIGH_CARD.name not in GAMES:
    cahoots_envs.register_game(HIGH_CARD)


# libraries' own folders, which they make in the system temp folder unless told otherwise
LIBRARY_FOLDERS = {
    # Stable-Baselines3's logger folder for every learn() whose model has no logger set
    # (configure() with no folder): else SB3-<date> in the system temp folder
    "SB3_LOGDIR": "sb3_logs",
    # torch's compiler cache, made at an optimizer's first step (which imports torch._dynamo):
    # else torchinductor_<user> in the system temp folder
    "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
}


@pytest.fixture(autouse=True, scope="session")
def library_folders_under_pytests_temp(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Tests (and the training runs they start in subprocesses, which inherit the variables)
    make the libraries' folders only under pytest's temporary folders
    (``tests/test_training.py::test_library_folders_stay_under_pytests_temp``)."""
    import os

    before = {name: os.environ.get(name) for name in LIBRARY_FOLDERS}
    for name, folder in LIBRARY_FOLDERS.items():
        os.environ[name] = str(tmp_path_factory.mktemp(folder))
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def game_class(game: str) -> Any:
    return cahoots_envs.game_spec(game).rules


def env_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for game in GAMES:
        cls = game_class(game)
        for n in cls.PLAYER_COUNTS:
            cases.append((game, {"num_players": n}))
        for variant in cls.TEST_VARIANTS:
            cases.append((game, dict(variant)))
    return cases


def options_id(options: dict[str, Any], sep: str = "-", empty: str = "") -> str:
    """A test id for ``options``: ``key=value`` joined by ``sep`` (``empty`` for no options)."""
    return sep.join(f"{k}={v}" for k, v in options.items()) or empty


def variant_id(options: dict[str, Any]) -> str:
    """A test id for a game variant: ``key=value`` joined by commas."""
    return options_id(options, sep=",")


def env_options(game: str, **options: Any) -> dict[str, Any]:
    """Every option of a ``game`` env made with ``options`` (the defaults filled in)."""
    return dict(cahoots_envs.make_raw(game, **options).options)


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    game, opts = case
    return game + "-" + options_id(opts)


CASES = env_cases()


@pytest.fixture(params=CASES, ids=[case_id(c) for c in CASES])
def case(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param


def make_env(game: str, protected: bool = True, **options: Any) -> Any:
    return cahoots_envs.make(game, **options) if protected else cahoots_envs.make_raw(game, **options)


__all__ = ["CASES", "HIGH_CARD", "cahoots_envs", "case_id", "env_options", "game_class", "make_env",
           "options_id", "variant_id"]
