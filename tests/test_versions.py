"""Env versions: the v1 ids are current; every way of asking for a v0 env says what to use
instead and what changed; v0 policies are refused; v0 game logs still replay (their rules are
the rules of v1)."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pettingzoo
import pytest

import cahoots_envs
from cahoots_envs import IncompatiblePolicyError, RetiredEnvError
from cahoots_envs.gamelog import GameLog, replay_log
from cahoots_envs.registry import builtin_games

# the built-in games past their first version (a game added at v0 has nothing retired yet)
GAMES = [spec.name for spec in builtin_games() if spec.version >= 1]
FIXTURES = Path(__file__).parent / "fixtures"


def test_every_game_of_the_v0_fixtures_is_past_v0() -> None:
    """The games released at v0 (their v0 game logs are fixtures) are still past it: none of
    them leaves the version tests below by going back to v0."""
    headers = [GameLog.load(p).header for p in sorted((FIXTURES / "gamelogs").glob("*.jsonl"))]
    v0 = {h["env_id"].split("/")[-1].removesuffix("-v0") for h in headers
          if h.get("env_version") == 0}
    assert v0 and v0 <= set(GAMES), (v0, GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_builtin_games_are_v1(game: str) -> None:
    spec = cahoots_envs.game_spec(game)
    assert spec.version == 1 and spec.env_id == f"cahoots_envs/{game}-v1"
    assert 1 in spec.rules.VERSION_NOTES and spec.rules.REPLAYS_FROM == 0
    assert spec.layout(spec.resolve_options({})).env_id == spec.env_id
    env = importlib.import_module(f"cahoots_envs.{game}_v1").env()
    assert env.metadata["name"] == f"{game}_v1"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("how", ["make", "make_raw", "prefixed", "pettingzoo", "module",
                                 "module_raw", "game_spec"])
def test_v0_is_refused_with_what_to_use(game: str, how: str) -> None:
    calls = {
        "make": lambda: cahoots_envs.make(f"{game}-v0"),
        "make_raw": lambda: cahoots_envs.make_raw(f"{game}-v0"),
        "prefixed": lambda: cahoots_envs.make(f"cahoots_envs/{game}-v0", num_players=3),
        "pettingzoo": lambda: pettingzoo.make("aec", f"cahoots_envs/{game}-v0"),
        "module": lambda: importlib.import_module(f"cahoots_envs.{game}_v0").env(),
        "module_raw": lambda: importlib.import_module(f"cahoots_envs.{game}_v0").raw_env(),
        "game_spec": lambda: cahoots_envs.game_spec(f"{game}_v0"),
    }
    with pytest.raises(RetiredEnvError) as info:
        calls[how]()
    message = str(info.value)
    assert f"use {game}-v1" in message
    assert cahoots_envs.game_spec(game).rules.VERSION_NOTES[1] in message
    assert "game logs still replay" in message


def test_v0_module_attributes_say_it_is_retired() -> None:
    module = importlib.import_module("cahoots_envs.kansas_city_v0")
    with pytest.raises(AttributeError, match="use kansas_city-v1"):
        module.parallel_env  # noqa: B018
    assert "kansas_city_v1" in (module.__doc__ or "")


def test_a_future_version_is_unknown_not_retired() -> None:
    with pytest.raises(ValueError, match="unknown env") as info:
        cahoots_envs.make("kansas_city-v7")
    assert not isinstance(info.value, RetiredEnvError)


def test_a_v0_policy_is_refused_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "te.safetensors"
    shutil.copy(FIXTURES / "policies" / "texas_euchre_v0.safetensors", path)
    before = path.read_bytes()
    with pytest.raises(IncompatiblePolicyError, match="texas_euchre-v0, a retired version") as a:
        cahoots_envs.load_policy(str(path), "texas_euchre-v1")
    assert "use texas_euchre-v1" in str(a.value)
    with pytest.raises(IncompatiblePolicyError, match="retired env version") as b:
        cahoots_envs.load_policy(str(path))  # plays the env it was trained on: retired
    assert "retrained" in str(b.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("game", GAMES)
def test_v0_logs_replay_on_v1(game: str) -> None:
    logs = sorted((FIXTURES / "gamelogs").glob(f"{game}_*.jsonl"))
    assert logs
    log = GameLog.load(logs[0])
    assert log.header["env_id"] == f"cahoots_envs/{game}-v0" and log.header["env_version"] == 0
    result = replay_log(log)
    assert result.complete and result.env.game_cls.VERSION == 1
