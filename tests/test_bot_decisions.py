"""The heuristic bots choose exactly as they did under the v0 observations: seeded all-bot games
recorded before the v1 layouts (``tests/fixtures/bot_decisions/``) are played again, and every
decision must be the recorded one. Every baseline in the docs rests on these bots."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import cahoots_envs

HERE = Path(__file__).parent / "fixtures" / "bot_decisions"
_spec = importlib.util.spec_from_file_location("record_bot_decisions", HERE / "record.py")
assert _spec is not None and _spec.loader is not None
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)

CASES = [(game, i, rec) for game in record.VARIANTS
         for i, rec in enumerate(json.loads((HERE / f"{game}.json").read_text())["games"])]


def test_every_game_and_variant_is_recorded() -> None:
    assert {game for game, _, _ in CASES} == set(record.VARIANTS)
    for game, variants in record.VARIANTS.items():
        recorded = [rec["options"] for g, _, rec in CASES if g == game]
        assert all(v in recorded for v in variants)


@pytest.mark.parametrize(("game", "index", "rec"), CASES,
                         ids=[f"{g}-{i}" for g, i, _ in CASES])
def test_bots_choose_as_recorded(game: str, index: int, rec: dict) -> None:
    version = f"v{cahoots_envs.game_spec(game).version}"
    record.play(game, rec["options"], rec["seed"], rec["actions"], version=version)


def test_a_changed_decision_is_caught() -> None:
    game, _, rec = CASES[0]
    actions = list(rec["actions"])
    actions[5] = -1
    with pytest.raises(AssertionError, match="decision 5"):
        record.play(game, rec["options"], rec["seed"], actions,
                    version=f"v{cahoots_envs.game_spec(game).version}")
