"""Cahoots (cooperative)'s batched engine against the reference rules.

Differential checks (``tests/vector_checks.py``) for every player count and test variant, plus
the game's own edge cases: deals over before the first decision (won by the starting piles, or a
start player without a legal card), a short scripted draw pile, partial scripted deals, games the
engine deals itself played over several episodes against rebuilt reference games, seeding, and
malformed deals. ``-m slow`` replays tens of thousands of games.
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
from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.numba_kernels import seed_states
from cahoots_envs.games.cahoots_coop.batched import RANK_WEIGHTS, Engine, goal_table
from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES, satisfied_table
from cahoots_envs.games.cahoots_coop.rules import GOALS, CahootsCoop
from tests.vector_checks import (
    check_against_reference,
    check_bad_deals_change_nothing,
    check_final_row,
    engine_for,
    paid_by,
)

ENV = "cahoots_coop-v1"
CASES = (
    [{"num_players": n} for n in CahootsCoop.PLAYER_COUNTS]
    # (the engine refuses table talk: tests/games/cahoots_coop/test_talk.py)
    + [dict(v) for v in CahootsCoop.TEST_VARIANTS if "talk" not in v]
    # the option values the cases above leave out
    + [{"num_players": 1, "difficulty": "beginner", "open_hands": True, "reward_mode": "points"},
       {"num_players": 3, "difficulty": "expert", "multicolour_mode": "disjunctive"},
       {"num_players": 4, "num_goals": 1, "reward_mode": "points"}]
)

# the starting piles 1G 2G 3G 4G satisfy SAME_COLOUR (all four tops one colour) and
# ALL_BELOW_4 fails (4G); no card of 5O 6O 7P 5V fits on them (another colour, numbers 5-7)
GREEN_PILES = ["1G", "2G", "3G", "4G"]
NO_FIT = ["5O", "6O", "7P", "5V"]


_engine = partial(engine_for, cahoots_envs.game_spec(ENV), Engine)


def _complete(deal: dict[str, Any], options: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """A partial scripted deal with every key filled in (by the AEC env, from ``seed``)."""
    env = cahoots_envs.make_raw(ENV, **options)
    env.reset(seed=seed, options={"deal": copy.deepcopy(deal)})
    return copy.deepcopy(env.game.deals)


def _observe(env: Any, seat: int) -> np.ndarray:
    return np.asarray(env.observe(env.possible_agents[seat])["observation"], OBS_DTYPE)


def _paid(env: Any) -> np.ndarray:
    return np.array([env.rewards[a] for a in env.possible_agents], np.float32)


def _lockstep(options: dict[str, Any], deals: list[Any], seed: int = 0) -> int:
    """Play complete scripted ``deals`` through the engine and raw AEC envs side by side to the
    end of every game (random legal actions), comparing every output at every step; a game over
    at its deal is checked at reset. Returns the decisions compared."""
    engine = _engine(options, len(deals))
    engine.reset(seed_states(seed, len(deals)), copy.deepcopy(deals))
    envs = []
    for deal in deals:
        env = cahoots_envs.make_raw(ENV, **options)
        env.reset(options={"deal": copy.deepcopy(deal)})
        envs.append(env)
    rng = np.random.default_rng(seed)
    live = np.ones(len(deals), bool)
    decisions = 0

    def compare(i: int) -> None:
        env = envs[i]
        if env.game.is_over:
            check_final_row(engine, i, env.game, lambda seat: _observe(env, seat))
            live[i] = False
            return
        assert not engine.done[i]
        seat = env.game.current_player
        assert engine.to_move[i] == seat
        np.testing.assert_array_equal(engine.obs[i], _observe(env, seat))
        np.testing.assert_array_equal(engine.mask[i], env.action_mask())

    for i, env in enumerate(envs):
        paid = _paid(env)
        np.testing.assert_array_equal(engine.rewards[i] if env.game.is_over
                                      else engine.deal_rewards[i], paid)
        compare(i)
    while live.any():
        actions = np.array([
            rng.choice(envs[i].legal_actions()) if live[i]
            else rng.choice(np.flatnonzero(engine.mask[i])) for i in range(len(deals))])
        engine.step(actions)
        for k in np.flatnonzero(live).tolist():
            envs[k].step(int(actions[k]))
            decisions += 1
            np.testing.assert_array_equal(engine.rewards[k], _paid(envs[k]))
            compare(k)
    return decisions


# ---- differential checks ----------------------------------------------------------------------
@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_matches_the_reference(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=16, seed=11)
    assert report.decisions > 16 * 10 and report.game_checks > 0


@pytest.mark.parametrize("mode", ["union", "disjunctive"])
def test_the_goal_table_is_the_references(mode: str) -> None:
    """The engine's goal table by multiset rank says what the reference rules' table says for
    every ordered choice of four tops."""
    reference = np.array(satisfied_table(GOALS, mode), np.int64)
    tops = np.indices((KINDS,) * PILES).reshape(PILES, -1).T  # in the reference's index order
    ranks = RANK_WEIGHTS[np.arange(PILES), np.sort(tops, axis=1)].sum(axis=1)
    np.testing.assert_array_equal(goal_table(mode)[ranks], reference)


def test_deals_over_at_the_deal_are_reported_at_reset() -> None:
    won = {"start_player": 1, "piles": GREEN_PILES, "goals": ["SAME_COLOUR"]}
    lost = {"start_player": 0, "hands": [NO_FIT, ["1O", "2O", "3O", "4O"]], "piles": GREEN_PILES,
            "goals": ["SUM_22", "ALL_BELOW_4"]}
    # SAME_COLOUR met at setup, then SUM_22 is turned up and not met: a deal that pays 1 point
    paying = {"start_player": 0, "piles": GREEN_PILES, "goals": ["SAME_COLOUR", "SUM_22"]}
    deals = [won, lost, paying, {}, won]
    for reward_mode in ("win", "points"):
        options = {"num_players": 2, "reward_mode": reward_mode}
        complete = [_complete(deal, options, seed) for seed, deal in enumerate(deals)]
        engine = _engine(options, len(deals))
        engine.reset(seed_states(3, len(deals)), copy.deepcopy(complete))
        assert engine.done.tolist() == [True, True, False, False, True]
        # won at the deal: 1 in either mode (one goal met at setup); lost: nothing
        assert engine.rewards.tolist() == [[1, 1], [0, 0], [0, 0], [0, 0], [1, 1]]
        assert engine.deal_rewards[2].tolist() == ([1, 1] if reward_mode == "points" else [0, 0])
        # the games over at the deal were dealt again from their streams, with a decision
        assert engine.mask[engine.done].any(axis=1).all()
        assert _lockstep(options, complete, seed=5) > 0


def test_a_short_draw_pile_runs_out_of_cards() -> None:
    # two cards in the draw pile, the other 44 out of the game: every card is played
    # (§1.6 loss 2) unless a seat cannot play first
    deal = {"start_player": 2, "draw_pile": ["1P", "7V"], "goals": ["SUM_8", "RUN_OF_4",
                                                                       "ALL_EVEN", "THREE_PINK"]}
    options = {"num_players": 3}
    deals = [_complete(deal, options, seed) for seed in range(24)]
    assert _lockstep(options, deals, seed=2) > 24 * 4
    engine = _engine({"num_players": 3}, 1)
    engine.reset(seed_states(0, 1), [deal])
    assert engine.game(0).deals[0]["draw_pile"] == ["1P", "7V"]


def test_partial_deals_are_completed_from_each_games_stream() -> None:
    deals = [{"goals": ["SUM_15", "FOUR_COLOURS"], "start_player": 0}, {"piles": GREEN_PILES},
             {"hands": [NO_FIT[:3] + ["7G"]]}]
    engine = _engine({"num_players": 1}, 3)
    engine.reset(seed_states(4, 3), copy.deepcopy(deals))
    full = [engine.game(i).deals for i in range(3)]
    assert full[0][0]["goals"] == ["SUM_15", "FOUR_COLOURS"] and full[0][0]["start_player"] == 0
    assert full[1][0]["piles"] == GREEN_PILES
    assert sorted(full[2][0]["hands"][0]) == sorted(NO_FIT[:3] + ["7G"])
    # the same streams complete them the same way; the completed deals replay through the AEC env
    again = _engine({"num_players": 1}, 3)
    again.reset(seed_states(4, 3), copy.deepcopy(deals))
    assert [again.game(i).deals for i in range(3)] == full
    assert _lockstep({"num_players": 1}, [d for (d,) in full]) > 0


@pytest.mark.parametrize("options", [{"num_players": 3}, {"num_players": 2, "open_hands": True,
                                                          "reward_mode": "points"}])
def test_dealt_games_match_rebuilt_reference_games_over_several_episodes(
        options: dict[str, Any]) -> None:
    """Games the engine deals itself (every episode of every game), against reference games
    rebuilt from their deals with ``game(i)`` and played alongside."""
    num, steps = 16, 110
    spec = cahoots_envs.game_spec(ENV)
    rule = RewardRule.of(CahootsCoop, spec.resolve_options(options))
    engine = _engine(options, num)
    engine.reset(seed_states(9, num), None)
    games = [engine.game(i) for i in range(num)]
    rng = np.random.default_rng(1)
    finished = 0

    def observe(game: Game, seat: int) -> np.ndarray:
        out = np.zeros(engine.obs_size, OBS_DTYPE)
        game.encode(seat, out)
        return out

    for _ in range(steps):
        for i, game in enumerate(games):
            assert engine.to_move[i] == game.current_player
            np.testing.assert_array_equal(engine.obs[i], observe(game, game.current_player))
            assert np.flatnonzero(engine.mask[i]).tolist() == game.legal_actions()
        actions = np.array([rng.choice(game.legal_actions()) for game in games])
        engine.step(actions)
        for i, game in enumerate(games):
            np.testing.assert_array_equal(engine.rewards[i], paid_by(rule, game, actions[i]))
            assert engine.done[i] == game.is_over
            if game.is_over:
                check_final_row(engine, i, game, lambda seat, g=game: observe(g, seat))
                finished += 1
                games[i] = engine.game(i)
                np.testing.assert_array_equal(engine.deal_rewards[i], rule.values(games[i]))
            else:
                assert not engine.deal_rewards[i].any()
    assert finished > num


def test_streams_are_per_game_and_reproducible() -> None:
    small, large = _engine({}, 4), _engine({}, 9)
    small.reset(seed_states(21, 4), None)
    large.reset(seed_states(21, 9), None)
    assert [small.game(i).deals for i in range(4)] == [large.game(i).deals for i in range(4)]
    np.testing.assert_array_equal(small.obs, large.obs[:4])
    first = [large.game(i).deals for i in range(9)]
    large.reset(large.rng_state, None)  # the streams go on: new deals
    assert [large.game(i).deals for i in range(9)] != first


def test_deals_over_at_the_deal_are_dealt_again() -> None:
    # one goal: about one deal in twenty is won by the starting piles
    vec = vector.make(ENV, num_envs=64, seed=0, num_goals=1)
    out = vec.reset()
    assert out.mask.any(axis=1).all() and not out.done.any()
    rng = np.random.default_rng(0)
    wins = 0
    for _ in range(40):
        out = vec.step(vector.random_legal_actions(out.mask, rng))
        wins += int(out.rewards[:, 0].sum())
        assert out.mask.any(axis=1).all()
    assert isinstance(vec.engine, Engine)
    assert vec.engine.redeals.sum() > 0 and wins > 0


def test_bad_deals_name_the_game_and_change_nothing() -> None:
    engine = _engine({"num_players": 2}, 3)
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"rng_state must be uint64\[3\]"):
        engine.reset(np.zeros(2, np.uint64), None)
    engine.reset(seed_states(0, 3), None)
    good = {"piles": GREEN_PILES}
    bad = [
        ({"hands": [NO_FIT, NO_FIT], "piles": ["5O", "1G", "2G", "3G"]},
         "game 1: .*5O appears 3 times"),
        ({"goals": ["SUM_99"]}, "game 1: .*unknown goal"),
        ({"piles": GREEN_PILES[:3]}, "game 1: .*piles has 3 cards"),
        ({"start_player": 2}, "game 1: .*start_player must be a seat 0..1"),
        ({"dealer": 0}, "game 1: .*unknown deal key"),
        ([good, good], "game 1: .*1 to 1 hands"),
    ]
    check_bad_deals_change_nothing(engine, good, bad)


def test_memory_per_game() -> None:
    for players in (1, 4):
        engine = _engine({"num_players": players}, 64)
        assert engine.memory_per_game() <= 2048


def test_game_i_renders_and_names_actions() -> None:
    vec = vector.make(ENV, num_envs=2, seed=1)
    out = vec.reset()
    action = int(np.flatnonzero(out.mask[1])[0])
    assert vec.action_to_str(1, action) == vec.game(1).action_to_str(action)
    assert "draw pile" in vec.render(1).lower()


# ---- long runs ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_matches_the_reference_long(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=2500, seed=1234)
    assert report.decisions > 2500 * 10
