"""Game logs: deals recorded in the scripted-deal format, record -> replay round trips, and
replays that refuse a log the env no longer agrees with."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.gamelog import (
    GameLog,
    GameRecorder,
    ReplayError,
    replay_log,
)
from cahoots_envs.registry import GAMES
from tests.conftest import CASES, case_id, game_class


def _random_game(env_id: str, seed: int, deal: dict | None = None, **options: Any) -> GameRecorder:
    env = cahoots_envs.make(env_id, **options)
    rec = GameRecorder(env, players=["random"] * len(env.possible_agents))
    rec.reset(seed=seed, deal=deal)
    rng = np.random.default_rng(seed)
    while not rec.done:
        mask = env.observe(env.agent_selection)["action_mask"]
        rec.step(int(rng.choice(np.flatnonzero(mask))))
    return rec


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_exported_deal_recreates_the_deal(case: tuple[str, dict[str, Any]]) -> None:
    """reset(seed) then export; a reset from that deal (another seed) shows the same table."""
    game, options = case
    options = {k: v for k, v in options.items() if k != "reward_mode"}
    for seed in range(6):
        a = cahoots_envs.make_raw(game, render_mode="ansi", **options)
        a.reset(seed=seed)
        deal = a.game.deals[0]
        json.dumps(deal)  # plain JSON
        b = cahoots_envs.make_raw(game, render_mode="ansi", **options)
        b.reset(seed=seed + 500, options={"deal": deal})
        assert b.render() == a.render()
        assert b.game.deals == [deal]


def test_coop_goal_order_is_rebuilt_when_setup_completes_goals() -> None:
    """Setup completes goals the starting piles meet and refills the row; the recorded goal
    order (the goal deck as dealt) must make setup end in the very same state."""
    hits = 0
    for seed in range(300):
        a = cahoots_envs.make_raw("cahoots_coop", render_mode="ansi", num_players=2)
        a.reset(seed=seed)
        if not a.game.completed_at_setup:
            continue
        hits += 1
        b = cahoots_envs.make_raw("cahoots_coop", render_mode="ansi", num_players=2)
        b.reset(seed=1, options={"deal": a.game.deals[0]})
        assert (b.game.visible, b.game.completed, b.game.goal_deck) == (
            a.game.visible, a.game.completed, a.game.goal_deck)
        if hits >= 10:
            break
    assert hits >= 3


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("scripted", [False, True], ids=["seeded", "scripted"])
def test_record_then_replay_gives_the_same_scores(game: str, scripted: bool) -> None:
    cls = game_class(game)
    for n in cls.PLAYER_COUNTS[:2]:
        options: dict[str, Any] = {"num_players": n}
        if game == "texas_euchre":
            options["target_score"] = 40
        deal = None
        if scripted:
            t = cahoots_envs.make_raw(game, **options)
            t.reset(seed=99)
            deal = t.game.deals[0]
        rec = _random_game(game, seed=11 + n, deal=deal, **options)
        text = rec.log.to_jsonl()
        lines = text.splitlines()
        assert json.loads(lines[0])["type"] == "header"
        assert json.loads(lines[-1])["type"] == "end"
        header = json.loads(lines[0])
        assert header["env_id"] == f"cahoots_envs/{game}-v0" and header["env_version"] == 0
        assert header["scripted"] is scripted and header["deal"] is not None
        assert all(set(json.loads(x)) >= {"seat", "action"} for x in lines if '"action"' in x)
        result = replay_log(GameLog.from_lines(lines))
        assert result.complete
        assert result.scores == [float(s) for s in rec.game.scores]
        assert result.turns == len(rec.log.actions)


def test_multi_hand_logs_carry_every_hand_deal(tmp_path) -> None:
    rec = _random_game("kansas_city", seed=5, hands=3)
    deals = [e for e in rec.log.events if e["type"] == "deal"]
    assert [d["hand"] for d in deals] == [1, 2]
    path = rec.save(tmp_path / "kc.jsonl")
    assert replay_log(path).complete


def test_recorder_draws_a_seed_when_none_is_given() -> None:
    env = cahoots_envs.make("cahoots_coop", num_goals=3)
    rec = GameRecorder(env)
    rec.reset()
    assert isinstance(rec.log.header["seed"], int)


def _tampered(rec: GameRecorder, edit) -> GameLog:
    log = GameLog.from_lines(rec.log.to_jsonl().splitlines())
    edit(log)
    return log


def test_replay_names_an_illegal_action() -> None:
    rec = _random_game("kansas_city", seed=3, hands=1)

    def edit(log: GameLog) -> None:
        log.actions[20]["action"] = "play 9Z"

    with pytest.raises(ReplayError, match="turn 20: player_.*not legal"):
        replay_log(_tampered(rec, edit))


def test_replay_names_the_wrong_seat() -> None:
    rec = _random_game("cahoots_tricks", seed=3)

    def edit(log: GameLog) -> None:
        a = log.actions[5]
        a["seat"] = (a["seat"] + 1) % 4

    with pytest.raises(ReplayError, match="turn 5: the log has player_"):
        replay_log(_tampered(rec, edit))


def test_replay_checks_final_scores_and_deal() -> None:
    rec = _random_game("texas_euchre", seed=3, target_score=30)

    def scores(log: GameLog) -> None:
        log.end["scores"][0] += 1

    with pytest.raises(ReplayError, match="final scores differ"):
        replay_log(_tampered(rec, scores))

    def deal(log: GameLog) -> None:
        log.header["seed"] += 1

    with pytest.raises(ReplayError, match="no longer deals the logged deal"):
        replay_log(_tampered(rec, deal))


def test_partial_replay_and_bad_files(tmp_path) -> None:
    rec = _random_game("cahoots_coop", seed=8, num_goals=5)
    result = replay_log(GameLog.from_lines(rec.log.to_jsonl().splitlines()), stop_after=3)
    assert result.turns == 3 and not result.complete
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "action"}\n')
    with pytest.raises(ValueError, match="not a cahoots-envs game log"):
        GameLog.load(bad)
    bad.write_text("not json\n")
    with pytest.raises(ValueError, match="not JSON"):
        GameLog.load(bad)


def test_replay_refuses_a_log_that_left_out_a_hand() -> None:
    """The recorder logs every entry of ``game.deals``; a log without one no longer replays."""
    rec = _random_game("kansas_city", seed=4, hands=3)
    assert [e["hand"] for e in rec.log.events if e["type"] == "deal"] == [1, 2]
    assert [e["deal"] for e in rec.log.events if e["type"] == "deal"] == rec.game.deals[1:]

    def drop(log: GameLog) -> None:
        log.events = [e for e in log.events if not (e["type"] == "deal" and e["hand"] == 2)]

    with pytest.raises(ReplayError, match="the env has dealt hand 2, which the log does not have"):
        replay_log(_tampered(rec, drop))
