"""Cahoots (competitive)'s batched engine against the reference rules.

Differential checks (``tests/vector_checks.py``: scripted deals, the AEC env in lockstep) for
every player count, test variant and the option values they leave out; games the engine deals
itself played over several episodes against reference games rebuilt with ``game(i)``, which is
how ``point_split='random'`` is checked (its random split of the point cards is chance after the
deal: the reference replays the engine's draws); forced decisions, partial and malformed
scripted deals, per-game streams. ``-m slow`` replays tens of thousands of games.
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
from cahoots_envs.core.numba_kernels import randint, seed_states
from cahoots_envs.games.cahoots_tricks.batched import Engine
from cahoots_envs.games.cahoots_tricks.rules import NUM_TYPES, PLAY_BASE, TRICKS, CahootsTricks
from tests.conftest import options_id
from tests.vector_checks import (
    check_against_reference,
    check_bad_deals_change_nothing,
    check_final_row,
    check_row,
    check_same_game,
    check_streams_per_game,
    engine_for,
    game_mask,
    observe_game,
    paid_by,
)

ENV = "cahoots_tricks-v1"
SPEC = cahoots_envs.game_spec(ENV)
# every variant whose games are fixed by their deals and actions, and the option values the test
# variants leave out (4 players with an even three-way split, in both scorings and reward modes)
CASES = (
    [{"num_players": n} for n in CahootsTricks.PLAYER_COUNTS]
    + [dict(v) for v in CahootsTricks.TEST_VARIANTS
       if not CahootsTricks.chance_after_deal(SPEC.resolve_options(dict(v)))]
    + [{"three_way_split": "even", "reward_mode": "points"},
       {"scoring": "face_value", "three_way_split": "even", "reward_mode": "points"}]
)
# chance after the deal: the random split of the point cards
RANDOM_SPLITS = [dict(v) for v in CahootsTricks.TEST_VARIANTS
                 if CahootsTricks.chance_after_deal(SPEC.resolve_options(dict(v)))]
RANDOM_SPLITS_3P = {"num_players": 3, "scoring": "face_value", "point_split": "random",
                    "reward_mode": "points"}


_engine = partial(engine_for, SPEC, Engine)
_observe = partial(observe_game, SPEC)
_mask = partial(game_mask, SPEC)


class _EngineSplits:
    """A reference game's generator for ``point_split='random'``: each permutation the way the
    engine draws it (Fisher-Yates from game ``i``'s stream), from ``snapshot['state']``, the
    streams as they were before the step being replayed."""

    def __init__(self, snapshot: dict[str, np.ndarray], i: int) -> None:
        self.snapshot, self.i = snapshot, i

    def permutation(self, k: int) -> np.ndarray:
        perm = np.arange(k)
        for j in range(k - 1, 0, -1):
            r = int(randint(self.snapshot["state"], self.i, j + 1))
            perm[j], perm[r] = perm[r], perm[j]
        return perm


_same_game = partial(check_same_game, observe=_observe)


def _own_deals(options: dict[str, Any], num: int, steps: int, seed: int) -> int:
    """Games the engine deals itself, every episode, against reference games rebuilt with
    ``game(i)`` at each deal and played alongside (a tenth of the games skipped each step);
    every output compared at every step. Returns the number of games that finished."""
    resolved = SPEC.resolve_options(options)
    rule = RewardRule.of(CahootsTricks, resolved)
    engine = _engine(options, num)
    engine.reset(seed_states(seed, num), None)
    snapshot = {"state": engine.rng_state.copy()}

    def rebuilt(i: int) -> CahootsTricks:
        game = engine.game(i)
        assert game.history == [] and not game.is_over
        game.rng = _EngineSplits(snapshot, i)  # type: ignore[attr-defined]
        return game  # type: ignore[return-value]

    games = [rebuilt(i) for i in range(num)]
    rng = np.random.default_rng(seed)
    finished = 0
    for step in range(steps):
        for i, game in enumerate(games):
            check_row(engine, i, game, _observe, _mask)
            if i % 7 == 0 and step % 25 == 3:
                _same_game(engine, i, game)
        actions = vector.random_legal_actions(engine.mask, rng)
        actions[rng.random(num) < 0.1] = -1
        snapshot["state"] = engine.rng_state.copy()
        before_obs = engine.obs.copy()
        engine.step(actions)
        assert engine.final_scores.shape[0] == int(engine.done.sum())
        for i, game in enumerate(games):
            if actions[i] < 0:
                assert not engine.done[i] and not engine.rewards[i].any()
                np.testing.assert_array_equal(engine.obs[i], before_obs[i])
                continue
            paid = paid_by(rule, game, actions[i])
            np.testing.assert_allclose(engine.rewards[i], paid, rtol=0, atol=1e-6)
            assert engine.done[i] == game.is_over
            if game.is_over:
                check_final_row(engine, i, game, partial(_observe, game))
                finished += 1
                games[i] = rebuilt(i)
    return finished


def _scripted_lockstep(options: dict[str, Any], deals: list[Any], seed: int = 0,
                       first: bool = False) -> list[CahootsTricks]:
    """Play complete scripted ``deals`` through the engine and reference games side by side to
    their end (random legal actions, or the lowest legal one with ``first``), comparing the
    seat to move, observation, mask, rewards and the final rows. Returns the finished games."""
    resolved = SPEC.resolve_options(options)
    rule = RewardRule.of(CahootsTricks, resolved)
    engine = _engine(options, len(deals))
    engine.reset(seed_states(seed, len(deals)), copy.deepcopy(deals))
    games = [CahootsTricks(resolved, np.random.default_rng(0), copy.deepcopy(d)) for d in deals]
    rng = np.random.default_rng(seed)
    live = np.ones(len(deals), bool)
    while live.any():
        for i in np.flatnonzero(live):
            game = games[i]
            check_row(engine, i, game, _observe, _mask)
        actions = (np.argmax(engine.mask, axis=1) if first
                   else vector.random_legal_actions(engine.mask, rng))
        engine.step(actions)
        for i in np.flatnonzero(live):
            game = games[i]
            paid = paid_by(rule, game, actions[i])
            np.testing.assert_allclose(engine.rewards[i], paid, rtol=0, atol=1e-6)
            assert engine.done[i] == game.is_over
            if game.is_over:
                check_final_row(engine, i, game, partial(_observe, game))
                live[i] = False
    return games


# ---- differential checks ----------------------------------------------------------------------
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_matches_the_reference(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=10, seed=7)
    assert report.decisions > 10 * 100 and report.game_checks > 0


def test_matches_the_reference_with_the_lowest_legal_action() -> None:
    report = check_against_reference(ENV, {"scoring": "face_value"}, games=4, seed=3,
                                     policy="first")
    assert report.decisions > 4 * 100


@pytest.mark.parametrize("options", [*RANDOM_SPLITS, RANDOM_SPLITS_3P], ids=options_id)
def test_random_point_splits_replay_through_the_reference(options: dict[str, Any]) -> None:
    assert CahootsTricks.chance_after_deal(SPEC.resolve_options(options))
    assert _own_deals(options, num=12, steps=260, seed=5) >= 12


def test_dealt_games_match_rebuilt_reference_games_over_several_episodes() -> None:
    assert _own_deals({"num_players": 3, "reward_mode": "points"}, num=10, steps=200,
                      seed=2) >= 10


# ---- game-specific edge cases -----------------------------------------------------------------
def test_forced_decisions_are_made_for_the_player() -> None:
    # seat 0 holds six pairs and every seat plays its lowest card: besides the last card of each
    # hand in trick 11 (4 plays, always forced), some hands come down to one pair, whose first
    # card is a forced play too; forced decisions are not in the history
    pairs = ["5S", "5S", "6S", "6S", "7S", "7S", "5H", "5H", "6H", "6H", "7H", "7H"]
    rest = CahootsTricks.full_deck({})
    for card in pairs:
        rest.remove(card)
    deal = {"start_player": 0, "identities": [["S", "H", "R"], ["C", "H", "U"], ["C", "D", "R"],
                                              ["S", "D", "U"]],
            "hands": [pairs, rest[:12], rest[12:24], rest[24:36]]}
    (game,) = _scripted_lockstep({}, [deal], first=True)
    plays = [a for a in game.history if a < PLAY_BASE + NUM_TYPES]
    assert len(plays) < TRICKS * 2 * 4 - 4


def test_partial_deals_are_completed_from_each_games_stream() -> None:
    identities = [["S", "D", "U"], ["C", "D", "R"], ["S", "H", "R"]]
    reserve = ["5S", "7S", "5H", "7H", "5D", "7D", "5C", "7C", "5U", "7U", "5R", "7R"]
    deals: list[Any] = [{"identities": identities}, {"reserve": reserve, "start_player": 2}, {}]
    options = {"num_players": 3}
    engine = _engine(options, 3)
    engine.reset(seed_states(4, 3), copy.deepcopy(deals))
    full = [engine.game(i).deals[0] for i in range(3)]
    assert full[0]["identities"] == identities
    assert full[1]["reserve"] == reserve and full[1]["start_player"] == 2
    # the same streams complete them the same way, the other games' deals differ
    again = _engine(options, 3)
    again.reset(seed_states(4, 3), copy.deepcopy(deals))
    assert [again.game(i).deals[0] for i in range(3)] == full
    assert len({str(d["hands"]) for d in full}) == 3
    # a whole-game deal (a list of one hand's deal) is taken too
    assert len(_scripted_lockstep(options, [[d] for d in full], seed=1)) == 3


def test_bad_deals_name_the_game_and_change_nothing() -> None:
    engine = _engine({}, 3)
    engine.reset(seed_states(0, 3), None)
    good = {"start_player": 1}
    bad = [
        ({"hands": [["4S"] * 12] * 4}, "game 1: .*4S dealt 2 times"),
        ({"hands": [["4S"]] * 4}, "game 1: .*seat 0 has 1 cards"),
        ({"identities": [["S", "H", "R"]] * 4}, "game 1: .*dealt twice"),
        ({"reserve": ["5S"]}, "game 1: .*reserve is only for 3 players"),
        ({"start_player": 4}, "game 1: .*start_player must be a seat 0..3"),
        ({"dealer": 0}, "game 1: .*unknown deal key"),
        ([good, good], "game 1: .*1 to 1 hands"),
    ]
    check_bad_deals_change_nothing(engine, good, bad)
    with pytest.raises(ValueError, match="rng_state must be a writeable uint64 array"):
        engine.reset(np.zeros(2, np.uint64), None)
    with pytest.raises(ValueError, match="game index"):
        engine.game(3)


def test_streams_are_per_game_and_reproducible() -> None:
    check_streams_per_game(lambda n: _engine({}, n), 2 * TRICKS * 20)


def test_memory_per_game() -> None:
    for players in CahootsTricks.PLAYER_COUNTS:
        assert _engine({"num_players": players}, 64).memory_per_game() <= 2048


def test_game_i_renders_and_names_actions() -> None:
    vec = vector.make(ENV, num_envs=2, seed=1)
    out = vec.reset()
    action = int(np.flatnonzero(out.mask[1])[0])
    assert vec.action_to_str(1, action) == vec.game(1).action_to_str(action) == (
        "play " + vec.game(1).action_to_str(action).split()[1])
    assert "trick 1/11" in vec.render(1)


# ---- long runs ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_matches_the_reference_long(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=2500, seed=1234)
    assert report.decisions > 2500 * 100


@pytest.mark.slow
@pytest.mark.parametrize("options", [*RANDOM_SPLITS, RANDOM_SPLITS_3P,
                                     {"reward_mode": "points"}], ids=options_id)
def test_dealt_games_match_the_reference_long(options: dict[str, Any]) -> None:
    assert _own_deals(options, num=200, steps=2000, seed=99) >= 200 * 8
