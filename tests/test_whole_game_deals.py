"""Whole-game scripted deals (CONTRACT §7): a list of per-hand deals scripts every hand of a
multi-hand game (kansas_city, texas_euchre); ``game.deals`` records each hand as dealt, so a
seeded game's record replays it under any seed. Every hand's deal is checked at reset."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.gamelog import GameLog, GameRecorder, replay_log

MULTI_HAND = [
    ("kansas_city", {"num_players": 4}),
    ("kansas_city", {"num_players": 5, "hands": "per_player"}),
    ("texas_euchre", {"num_players": 3, "target_score": 300}),
    ("texas_euchre", {"num_players": 4, "target_score": 300}),
    ("texas_euchre", {"num_players": 6, "target_score": 300, "reverse": True}),
]
IDS = [f"{g}-{o['num_players']}p" for g, o in MULTI_HAND]


def _play(env: Any, seed: int, actions: list[int] | None = None) -> list[int]:
    """Play to the end: random legal actions, or the given ones; returns the actions taken."""
    rng = np.random.default_rng(seed)
    taken: list[int] = []
    game = env.game
    while not game.is_over:
        a = actions[len(taken)] if actions is not None else int(rng.choice(game.legal_actions()))
        env.step(a)
        taken.append(a)
    return taken


def _seeded(game: str, options: dict[str, Any], seed: int) -> tuple[Any, list[int]]:
    """A game played out at random from ``seed`` or the first later seed whose game lasts at
    least three hands."""
    while True:
        env = cahoots_envs.make_raw(game, **options)
        env.reset(seed=seed)
        actions = _play(env, seed)
        if len(env.game.deals) >= 3:
            return env, actions
        seed += 1


@pytest.mark.parametrize(("game", "options"), MULTI_HAND, ids=IDS)
def test_a_whole_game_deal_replays_the_game(game: str, options: dict[str, Any]) -> None:
    for seed in (0, 100, 200):
        env, actions = _seeded(game, options, seed)
        deals = env.game.deals
        assert len(deals) > 1 and env.game.hand_index == len(deals) - 1
        twin = cahoots_envs.make_raw(game, **options)
        twin.reset(seed=seed + 1000, options={"deal": copy.deepcopy(deals)})
        assert twin.game.deals == deals[:1]
        _play(twin, seed, actions)
        assert twin.game.deals == deals
        assert twin.game.scores == env.game.scores
        assert twin.game.outcome() == env.game.outcome()


@pytest.mark.parametrize(("game", "options"), MULTI_HAND, ids=IDS)
def test_hands_after_the_list_come_from_the_rng(game: str, options: dict[str, Any]) -> None:
    env, _ = _seeded(game, options, 4)
    first_two = env.game.deals[:2]
    twin = cahoots_envs.make_raw(game, **options)
    twin.reset(seed=4, options={"deal": first_two})
    rng = np.random.default_rng(5)
    while twin.game.hand_index < 2 and not twin.game.is_over:
        twin.step(int(rng.choice(twin.game.legal_actions())))
    assert twin.game.deals[:2] == first_two
    if twin.game.hand_index == 2:
        # the third hand is dealt by the RNG: a full deal of its own, in the rotation
        third = twin.game.deals[2]
        assert third["dealer"] == (first_two[0]["dealer"] + 2) % options["num_players"]
        assert len(third["hands"]) == options["num_players"]


@pytest.mark.parametrize(("game", "options"), MULTI_HAND, ids=IDS)
def test_a_single_deal_draws_from_the_rng_as_before(game: str, options: dict[str, Any]) -> None:
    """A dict, or no deal, deals exactly as before whole-game deals existed; a list of one
    deal is that dict."""
    a = cahoots_envs.make_raw(game, **options)
    a.reset(seed=9)
    full = a.game.deals[0]
    b = cahoots_envs.make_raw(game, **options)
    b.reset(seed=9, options={"deal": full})
    c = cahoots_envs.make_raw(game, **options)
    c.reset(seed=9, options={"deal": [full]})
    assert b.game.deals == c.game.deals == [full]
    assert b.game.rng.bit_generator.state == c.game.rng.bit_generator.state
    actions = _play(b, 9)
    _play(c, 9, actions)
    assert b.game.deals == c.game.deals and b.game.scores == c.game.scores


@pytest.mark.parametrize(("game", "options"), MULTI_HAND, ids=IDS)
def test_a_malformed_later_hand_is_refused_and_changes_nothing(
    game: str, options: dict[str, Any]
) -> None:
    env, _ = _seeded(game, options, 1)
    deals = copy.deepcopy(env.game.deals)
    played = cahoots_envs.make_raw(game, render_mode="ansi", **options)
    played.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        played.step(int(rng.choice(played.game.legal_actions())))
    before = (played.game, played.agent_selection, played.game.rng.bit_generator.state,
              played._rng.bit_generator.state, played.render())

    def refused(bad: list[dict[str, Any]], match: str) -> None:
        with pytest.raises(ValueError, match=match):
            played.reset(seed=None, options={"deal": bad})
        assert (played.game, played.agent_selection, played.game.rng.bit_generator.state,
                played._rng.bit_generator.state, played.render()) == before

    bad = copy.deepcopy(deals)
    bad[2]["hands"][0][0] = bad[2]["hands"][1][0]  # a card dealt twice
    refused(bad, r"^deal of hand 3: .*(twice|more often)")
    bad = copy.deepcopy(deals)
    bad[2]["hands"] = bad[2]["hands"][:-1]
    refused(bad, r"^deal of hand 3: hands must be a list of")
    bad = copy.deepcopy(deals)
    expected = bad[2]["dealer"]
    bad[2]["dealer"] = (expected + 1) % options["num_players"]
    refused(bad, rf"^deal of hand 3: dealer must be seat {expected}, got")
    bad = copy.deepcopy(deals)
    bad[1]["trump"] = "S"
    refused(bad, r"^deal of hand 2: unknown deal key")
    refused([deals[0], "not a deal"], r"list of such dicts")  # type: ignore[list-item]
    # the env still plays on
    played.step(int(rng.choice(played.game.legal_actions())))


def test_too_many_hands_are_refused() -> None:
    env = cahoots_envs.make_raw("kansas_city", num_players=4, hands=2)
    env.reset(seed=0)
    _play(env, 0)
    deals = env.game.deals
    assert len(deals) == 2
    fresh = cahoots_envs.make_raw("kansas_city", num_players=4, hands=2)
    with pytest.raises(ValueError, match="1 to 2 hands"):
        fresh.reset(seed=0, options={"deal": deals + [deals[0]]})
    with pytest.raises(ValueError, match="1 to 2 hands"):
        fresh.reset(seed=0, options={"deal": []})


def test_a_later_dealer_fixes_the_first_when_it_is_left_out() -> None:
    env, _ = _seeded("kansas_city", {"num_players": 4}, 2)
    deals = copy.deepcopy(env.game.deals)
    first_dealer = deals[0].pop("dealer")
    deals[1].pop("dealer")
    for seed in range(4):
        twin = cahoots_envs.make_raw("kansas_city", num_players=4)
        twin.reset(seed=seed, options={"deal": deals})
        assert twin.game.dealer == first_dealer
    deals[2]["dealer"] = (deals[2]["dealer"] + 1) % 4  # hand 3 alone: any dealer, rotated back
    twin = cahoots_envs.make_raw("kansas_city", num_players=4)
    twin.reset(seed=0, options={"deal": deals})
    assert twin.game.dealer == (first_dealer + 1) % 4


@pytest.mark.parametrize("game", ["cahoots_tricks", "cahoots_coop"])
def test_single_hand_games_take_a_list_of_one(game: str) -> None:
    a = cahoots_envs.make_raw(game)
    a.reset(seed=3)
    b = cahoots_envs.make_raw(game)
    b.reset(seed=11, options={"deal": [a.game.deals[0]]})
    assert b.game.deals == a.game.deals
    with pytest.raises(ValueError, match="1 to 1 hands"):
        b.reset(seed=11, options={"deal": [a.game.deals[0]] * 2})


def test_texas_euchre_script_round_replaces_the_rounds_record() -> None:
    env = cahoots_envs.make_raw("texas_euchre", num_players=3)
    env.reset(seed=0)
    game = env.game
    other = cahoots_envs.make_raw("texas_euchre", num_players=3)
    other.reset(seed=1)
    deal = other.game.deals[0] | {"dealer": game.dealer}
    game.script_round(deal)
    assert game.deals == [deal]


@pytest.mark.parametrize(("game", "options"), MULTI_HAND[:3], ids=IDS[:3])
def test_a_whole_game_reset_is_logged_and_replayed(game: str, options: dict[str, Any]) -> None:
    env, _ = _seeded(game, options, 6)
    deals = env.game.deals
    k = len(deals) - 1  # every hand but the last scripted
    rec = GameRecorder(cahoots_envs.make(game, **options))
    rec.reset(seed=77, deal=deals[:k])
    assert rec.log.header["script_hands"] == k and rec.log.header["scripted"] is True
    assert rec.log.header["deal"] == deals[0]
    rng = np.random.default_rng(6)
    while not rec.done:
        rec.step(int(rng.choice(rec.game.legal_actions())))
    logged = [e for e in rec.log.events if e["type"] == "deal"]
    assert [e["hand"] for e in logged] == list(range(1, len(rec.game.deals)))
    assert [e["deal"] for e in logged] == rec.game.deals[1:]
    result = replay_log(GameLog.from_lines(rec.log.to_jsonl().splitlines()))
    assert result.complete and result.scores == [float(s) for s in rec.game.scores]
    assert result.env.game.deals == rec.game.deals
