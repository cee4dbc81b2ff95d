"""Kansas City's batched engine against the reference rules.

Differential checks (``tests/vector_checks.py``: whole-game scripted deals, the AEC env in
lockstep, some games skipped each step) for every player count, test variant and the option
values they leave out, with random play and with a policy that upgrades and plays trumps
whenever it may (blocked ranks, trump leads, voids); games the engine deals itself, over several
hands and episodes, against reference games rebuilt with ``game(i)`` (each new hand's deal read
back from the engine), with the output buffers overwritten between steps; partial and malformed
scripted deals; per-game streams. ``-m slow`` replays tens of thousands of games.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs import vector
from cahoots_envs.core.driver import RewardRule
from cahoots_envs.core.numba_kernels import seed_states
from cahoots_envs.games.kansas_city.batched import Engine
from cahoots_envs.games.kansas_city.rules import KansasCity, card_str, parse_card
from tests.conftest import options_id
from tests.vector_checks import (
    check_against_reference,
    check_bad_deals_change_nothing,
    check_final_row,
    check_row,
    engine_for,
    game_mask,
    observe_game,
    paid_by,
)

ENV = "kansas_city-v1"
SPEC = cahoots_envs.game_spec(ENV)
# every player count, the test variants, and the option values they leave out
CASES = (
    [{"num_players": n} for n in KansasCity.PLAYER_COUNTS]
    + [dict(v) for v in KansasCity.TEST_VARIANTS]
    + [{"num_players": 4, "hands": 1, "card_backs": "hidden", "reward_mode": "points"}]
)
GAMES = {4: 14, 5: 12}  # games per case and player count in the default suite


def _ids(options: dict[str, Any]) -> str:
    return options_id(options, empty="default")


_engine = partial(engine_for, SPEC, Engine)
_observe = partial(observe_game, SPEC)
_mask = partial(game_mask, SPEC)


def _trumps(env: Any, rng: np.random.Generator) -> int:
    """Upgrade whenever allowed and play a trump whenever allowed (random among them), else a
    random legal action: many trumps, blocked ranks, trump leads and voids."""
    legal = env.legal_actions()
    game = env.game
    eager = [a for a in legal if game.trump_base <= a < game.no_upgrade]
    pool = eager or legal
    return int(pool[int(rng.integers(len(pool)))])


# ---- differential checks ------------------------------------------------------------------------
@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_matches_the_reference(options: dict[str, Any]) -> None:
    games = GAMES[options.get("num_players", 4)]
    report = check_against_reference(ENV, options, games=games, seed=17)
    assert report.decisions > games * 50 and report.game_checks > 0


@pytest.mark.parametrize("options", [{}, {"num_players": 5, "card_backs": "hidden"}], ids=_ids)
def test_matches_the_reference_with_eager_trumps(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=8, seed=5, policy=_trumps)
    assert report.decisions > 8 * 50


def test_matches_the_reference_with_the_lowest_legal_action() -> None:
    # the lowest id: always the first pass, the lowest card, and an upgrade whenever allowed
    report = check_against_reference(ENV, {"num_players": 5, "hands": 2}, games=8, seed=3,
                                     policy="first")
    assert report.decisions > 8 * 50


# ---- games the engine deals, against rebuilt reference games ------------------------------------
def _alongside(engine: Engine, games: list[KansasCity], steps: int, seed: int,
               skip_rate: float = 0.1) -> tuple[int, int]:
    """Step ``engine`` with random legal actions next to the reference ``games`` for ``steps``
    steps, checking every output exactly. The output buffers are overwritten with garbage
    before each step (the engine writes every entry of a row it moves). When a reference game
    reaches a new hand, the engine's deal of it is taken by rebuilding the game with
    ``game(i)``, which must agree with the reference game on everything before it; a finished
    game is followed into its next episode the same way. Returns (new hands, finished games)."""
    rule = RewardRule.of(KansasCity, engine.options)
    rng = np.random.default_rng(seed)
    hands = finished = 0
    for _ in range(steps):
        for i, game in enumerate(games):
            check_row(engine, i, game, _observe, _mask)
        actions = vector.random_legal_actions(engine.mask, rng)
        actions[rng.random(engine.num_envs) < skip_rate] = -1
        moved = actions >= 0
        before_obs = engine.obs.copy()
        engine.obs[moved] = 3.0
        engine.mask[moved] = 3
        engine.final_buffers(engine.num_envs)[1][:] = 3.0
        engine.step(actions)
        assert engine.final_scores.shape[0] == int(engine.done.sum())
        for i, game in enumerate(games):
            if actions[i] < 0:
                assert not engine.done[i] and not engine.rewards[i].any()
                np.testing.assert_array_equal(engine.obs[i], before_obs[i])
                continue
            hand = game.hand_index
            paid = paid_by(rule, game, actions[i])
            np.testing.assert_array_equal(engine.rewards[i], paid)
            assert engine.done[i] == game.is_over
            if game.is_over:
                check_final_row(engine, i, game, partial(_observe, game))
                finished += 1
                games[i] = _fresh(engine, i)
            elif game.hand_index > hand:
                rebuilt = engine.game(i)
                assert rebuilt.history == game.history and rebuilt.scores == game.scores
                assert rebuilt.deals[:-1] == game.deals[:-1]
                assert rebuilt.hand_scores == game.hand_scores
                assert rebuilt.last_trick == game.last_trick
                games[i] = rebuilt
                hands += 1
    return hands, finished


def _fresh(engine: Engine, i: int) -> KansasCity:
    """Game ``i`` as the engine has just dealt it."""
    game = engine.game(i)
    assert isinstance(game, KansasCity)
    assert game.history == [] and not game.is_over and len(game.deals) == 1
    return game


@pytest.mark.parametrize("options", [{"hands": 2}, {"num_players": 5, "hands": 2,
                                                     "reward_mode": "points"}], ids=_ids)
def test_dealt_games_match_rebuilt_reference_games(options: dict[str, Any]) -> None:
    engine = _engine(options, 8)
    engine.reset(seed_states(8, 8), None)
    games = [_fresh(engine, i) for i in range(8)]
    hands, finished = _alongside(engine, games, steps=240, seed=2)
    assert hands >= 8 and finished >= 8


def test_game_i_replays_every_decision() -> None:
    """``game(i)`` at every step of a few games: in the pass phase of later hands (passes made
    so far), in upgrade steps, after re-deals."""
    engine = _engine({"num_players": 5, "hands": 2}, 3)
    engine.reset(seed_states(4, 3), None)
    games = [_fresh(engine, i) for i in range(3)]
    rng = np.random.default_rng(6)
    for _ in range(230):
        actions = vector.random_legal_actions(engine.mask, rng)
        engine.step(actions)
        for i, game in enumerate(games):
            game.apply(int(actions[i]))
            if game.is_over:
                games[i] = _fresh(engine, i)
                continue
            rebuilt = engine.game(i)
            assert rebuilt.history == game.history
            assert rebuilt.phase == game.phase and rebuilt.current_player == game.current_player
            if rebuilt.deals[:-1] == game.deals[:-1] and rebuilt.deals != game.deals:
                games[i] = rebuilt  # a new hand: the engine's deal
            assert games[i].deals == rebuilt.deals
            np.testing.assert_array_equal(engine.obs[i], _observe(rebuilt,
                                                                  rebuilt.current_player))


# ---- scripted deals -----------------------------------------------------------------------------
def _cards(texts: str) -> list[str]:
    return texts.split()


def test_partial_deals_are_completed_from_each_games_stream() -> None:
    options = {"num_players": 5, "hands": 2}
    hands = [[card_str(c) for c in range(s * 11, (s + 1) * 11)] for s in range(5)]
    deals: list[Any] = [
        {"dealer": 3},  # hands from the stream
        {"set_aside": "4C"},  # hands dealt around the set-aside card, dealer from the stream
        {"dealer": 1, "hands": hands},  # the 56th card is set aside
        [{"set_aside": "8G"}, {"dealer": 2, "set_aside": "1A"}],  # hand 2 names the rotation
    ]
    engine = _engine(options, 4)
    engine.reset(seed_states(12, 4), copy.deepcopy(deals))
    first = [engine.game(i).deals[0] for i in range(4)]
    assert first[0]["dealer"] == 3
    assert first[1]["set_aside"] == "4C"
    assert first[2] == {"dealer": 1, "hands": hands, "set_aside": "8G"}
    assert first[3]["set_aside"] == "8G" and first[3]["dealer"] == 1
    for deal in first:
        dealt = [parse_card(c) for hand in deal["hands"] for c in hand]
        assert len(set(dealt)) == 55 and parse_card(deal["set_aside"]) not in dealt
    # the same streams complete them the same way
    again = _engine(options, 4)
    again.reset(seed_states(12, 4), copy.deepcopy(deals))
    assert [again.game(i).deals for i in range(4)] == [engine.game(i).deals for i in range(4)]
    np.testing.assert_array_equal(again.obs, engine.obs)
    # played on against reference games: game 3's second hand keeps its set-aside card
    games = [_fresh(engine, i) for i in range(4)]
    hands_seen, _ = _alongside(engine, games, steps=105, seed=1, skip_rate=0.0)
    assert hands_seen == 4
    second = engine.game(3).deals
    assert len(second) == 2 and second[1]["set_aside"] == "1A" and second[1]["dealer"] == 2


def test_scripted_hands_then_the_games_own_deals() -> None:
    """A one-hand script for a 3-hand game: hand 1 as scripted, hands 2 and 3 from the stream;
    the next episode is the engine's own."""
    env = cahoots_envs.make_raw(ENV)
    env.reset(seed=3)
    scripted = copy.deepcopy(env.game.deals[0])
    engine = _engine({}, 2)
    engine.reset(seed_states(0, 2), [scripted, [scripted]])
    assert engine.game(0).deals == [scripted] and engine.game(1).deals == [scripted]
    np.testing.assert_array_equal(engine.obs[0], engine.obs[1])
    games = [_fresh(engine, i) for i in range(2)]
    hands, finished = _alongside(engine, games, steps=320, seed=4, skip_rate=0.0)
    assert hands >= 4 and finished >= 1


def test_bad_deals_name_the_game_and_change_nothing() -> None:
    engine = _engine({}, 3)
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"rng_state must be a uint64 array of shape \(3,\)"):
        engine.reset(np.zeros(2, np.uint64), None)
    engine.reset(seed_states(0, 3), None)
    env = cahoots_envs.make_raw(ENV)
    env.reset(seed=1)
    good = copy.deepcopy(env.game.deals[0])
    twice = copy.deepcopy(good)
    twice["hands"][1][0] = twice["hands"][0][0]
    short = copy.deepcopy(good)
    short["hands"][2] = short["hands"][2][:13]
    bad = [
        (twice, "game 1: .*dealt twice"),
        (short, "game 1: .*seat 2 has 13 cards"),
        ({"set_aside": "1A"}, "game 1: .*set_aside is only for 5 players"),
        ({"dealer": 4}, "game 1: .*dealer must be a seat 0..3"),
        ({"hands": [_cards("1A 2A")] * 4}, "game 1: .*seat 0 has 2 cards"),
        ([{"dealer": 0}, {"dealer": 2}], "game 1: .*hand 2: dealer must be seat 1"),
        ([good] * 4, "game 1: .*1 to 3 hands"),
        ({"dealer": 0, "trump": "A"}, "game 1: .*unknown deal key"),
        ("deal", "game 1: a deal is a dict"),
    ]
    check_bad_deals_change_nothing(engine, good, bad)
    with pytest.raises(ValueError, match="one scripted deal per game: 3, got 2"):
        engine.reset(seed_states(1, 3), [good, good])


def test_streams_are_per_game_and_reproducible() -> None:
    small, large = _engine({}, 4), _engine({}, 9)
    state = seed_states(21, 9)
    small.reset(seed_states(21, 4), None)
    large.reset(state, None)  # the engine keeps the array and advances it
    assert [small.game(i).deals for i in range(4)] == [large.game(i).deals for i in range(4)]
    np.testing.assert_array_equal(small.obs, large.obs[:4])
    rng = np.random.default_rng(0)
    for _ in range(40):  # the same actions in the first 4 games: the same games
        actions = vector.random_legal_actions(large.mask, rng)
        small.step(actions[:4].copy())
        large.step(actions)
        np.testing.assert_array_equal(small.obs, large.obs[:4])
    first = [large.game(i).deals for i in range(9)]
    large.reset(state, None)  # the streams go on: new deals
    assert [large.game(i).deals for i in range(9)] != first


def test_memory_per_game() -> None:
    for options in ({}, {"num_players": 5, "hands": 10}, {"num_players": 4, "hands": 10}):
        engine = _engine(options, 64)
        assert engine.memory_per_game() <= 2048, options


def test_game_i_renders_and_names_actions() -> None:
    vec = vector.make(ENV, num_envs=2, seed=1, num_players=5)
    out = vec.reset()
    action = int(np.flatnonzero(out.mask[1])[5])
    assert vec.action_to_str(1, action) == vec.game(1).action_to_str(action)
    assert vec.action_to_str(1, action).startswith("pass ")
    assert "set aside" in vec.render(1).lower()


# ---- long runs ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_matches_the_reference_long(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=2000, seed=1234, game_checks=20)
    assert report.decisions > 2000 * 50


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_matches_the_reference_with_eager_trumps_long(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=1000, seed=99, policy=_trumps)
    assert report.decisions > 1000 * 50


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_dealt_games_match_rebuilt_reference_games_long(options: dict[str, Any]) -> None:
    engine = _engine(options, 64)
    engine.reset(seed_states(77, 64), None)
    games = [_fresh(engine, i) for i in range(64)]
    hands, finished = _alongside(engine, games, steps=2500, seed=3)
    assert finished >= 64 and (hands >= 64 or engine.hands_total == 1)


@pytest.mark.parametrize("options", CASES, ids=_ids)
def test_the_state_bot_makes_the_observation_bots_move(options: dict[str, Any]) -> None:
    """``_decide_state`` (the heuristic read from the state row, what ``play_out`` runs) picks
    what ``bot_batched.decide_row`` picks on the engine's observation and mask, at every play
    and upgrade decision of games mixing the bot's moves, eager trumps and random moves."""
    from cahoots_envs.games.kansas_city import batched
    from cahoots_envs.games.kansas_city.bot import HeuristicPolicy
    from cahoots_envs.games.kansas_city.bot_batched import DECK_SIZE, SUITS, kernel_params

    rows = 16
    env = _engine(options, rows)
    env.reset(seed_states(3, rows), None)
    resolved = SPEC.resolve_options(options)
    bot, combos = kernel_params(HeuristicPolicy(resolved))
    hand, lengths = np.empty(DECK_SIZE, np.int64), np.empty(SUITS, np.int64)
    rng = np.random.default_rng(0)
    compared = {batched.PH_PLAY: 0, batched.PH_UPGRADE: 0}
    for _ in range(400):
        actions = np.empty(rows, np.int64)
        for i in range(rows):
            st = env._state[i]
            expected = batched.decide_row(env.obs[i], env.mask[i], bot, combos, hand, lengths)
            phase = int(st[batched.S_PHASE])
            if phase in compared:
                assert batched._decide_state(st, env._masks[i], env._params, lengths) == expected
                compared[phase] += 1
            legal = np.flatnonzero(env.mask[i])
            eager = legal[(legal >= env._params[batched.P_TB]) & (legal < env._params[batched.P_NU])]
            kind = rng.integers(3)
            actions[i] = expected if kind == 0 else int(rng.choice(eager if kind == 1 and len(
                eager) else legal))
        env.step(actions)
    assert min(compared.values()) > 200
