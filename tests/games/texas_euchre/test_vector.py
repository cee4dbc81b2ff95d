"""Texas Euchre's batched engine against the reference rules.

Differential checks (``tests/vector_checks.py``: whole-game scripted deals, the AEC env in
lockstep) for every player count, test variant and the option values they leave out, with
random play and with policies that reach the trick phase and the empty-pile throw down often;
games the engine deals itself, over several rounds and episodes, against reference games rebuilt
with ``game(i)`` (each new round's deal read back from the engine); two-deck hands with both
copies of a card; partial, shortened and malformed scripted deals; games longer than the kernel's
history row; per-game streams. ``-m slow`` replays tens of thousands of games.
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
from cahoots_envs.core.game import zero_sum_outcome
from cahoots_envs.core.numba_kernels import seed_states
from cahoots_envs.games.texas_euchre.batched import (
    HISTORY,
    S_LAST_PTS,
    S_RANK,
    S_SCORES,
    S_STAKE_PTS,
    S_THROWER,
    S_TWON,
    S_WIDTH,
    Engine,
    _close_round,
)
from cahoots_envs.games.texas_euchre.rules import (
    DECKS,
    HAND_SIZE,
    TexasEuchre,
    game_winners,
    score_round,
    update_tiebreak,
)
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

ENV = "texas_euchre-v1"
SPEC = cahoots_envs.game_spec(ENV)
# every player count, the test variants, and the option values they leave out
CASES = (
    [{"num_players": n} for n in TexasEuchre.PLAYER_COUNTS]
    + [dict(v) for v in TexasEuchre.TEST_VARIANTS]
    + [{"num_players": 5, "face_card_values": "tens_ace_high", "reward_mode": "points"},
       {"num_players": 6, "empty_deck_throw_down": True, "target_score": 150}]
)


_engine = partial(engine_for, SPEC, Engine)
_observe = partial(observe_game, SPEC)
_mask = partial(game_mask, SPEC)


# ---- policies that reach the rarer parts of a round ---------------------------------------------
def _throws(env: Any, rng: np.random.Generator) -> int:
    """Throw down half the time it is allowed, else discard one or two cards (long draw piles,
    many trick phases, games of several rounds)."""
    legal = env.legal_actions()
    throw = env.game.throw_action
    if throw in legal and rng.random() < 0.5:
        return int(throw)
    small = [a for a in legal if a < throw and a.bit_count() <= 2] or legal
    return int(small[int(rng.integers(len(small)))])


def _holds(env: Any, rng: np.random.Generator) -> int:
    """Discard one card a turn and never throw down while the pile lasts: the deck runs out in
    the draw phase (FAQ 7), and with ``empty_deck_throw_down`` the empty-pile turns follow."""
    legal = env.legal_actions()
    game = env.game
    if game.draw_pile or game.phase == "play":
        ones = [a for a in legal if a < game.throw_action and a.bit_count() == 1] or legal
        return int(ones[int(rng.integers(len(ones)))])
    return int(legal[int(rng.integers(len(legal)))])


def _choose(engine: Engine, rng: np.random.Generator, throw_rate: float) -> np.ndarray:
    """Random legal actions from the engine's mask, throwing down at ``throw_rate`` where it
    is allowed."""
    actions = vector.random_legal_actions(engine.mask, rng)
    throw = 1 << engine.hand_size
    may = (engine.mask[:, throw] == 1) & (rng.random(engine.num_envs) < throw_rate)
    actions[may] = throw
    return actions


# ---- lockstep against reference games -----------------------------------------------------------
_same_game = partial(check_same_game, observe=_observe)


def _alongside(engine: Engine, games: list[TexasEuchre | None], steps: int, seed: int,
               throw_rate: float = 0.0, skip_rate: float = 0.1, rebuild: bool = True) -> int:
    """Step ``engine`` with random legal actions next to the reference ``games`` (None: not
    compared) for ``steps`` steps or until no game is compared, checking every output exactly.
    A new round's deal is read back from the engine (``deals_of``, what ``game(i)`` replays)
    into the reference game (``script_round``); with ``rebuild`` a finished game is followed
    into its next episode through ``engine.game(i)``. Returns the number of finished games
    compared."""
    options = engine.options
    rule = RewardRule.of(TexasEuchre, options)
    rng = np.random.default_rng(seed)
    finished = 0
    for step in range(steps):
        if not any(g is not None for g in games):
            break
        for i, game in enumerate(games):
            if game is None:
                continue
            check_row(engine, i, game, _observe, _mask)
            if i % 5 == 0 and step % 40 == 7:
                _same_game(engine, i, game)
        actions = _choose(engine, rng, throw_rate)
        actions[rng.random(engine.num_envs) < skip_rate] = -1
        before_obs = engine.obs.copy()
        engine.step(actions)
        assert engine.final_scores.shape[0] == int(engine.done.sum())
        for i, game in enumerate(games):
            if game is None:
                continue
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
                games[i] = _fresh(engine, i) if rebuild else None
            elif game.hand_index > hand:
                game.script_round(engine.deals_of(i)[-1])
    return finished


def _fresh(engine: Engine, i: int) -> TexasEuchre:
    """Game ``i`` as the engine has just dealt it."""
    game = engine.game(i)
    assert isinstance(game, TexasEuchre)
    assert game.history == [] and not game.is_over and len(game.deals) == 1
    return game


# ---- differential checks ------------------------------------------------------------------------
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_matches_the_reference(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=10, seed=7)
    assert report.decisions > 10 * 20 and report.game_checks > 0


@pytest.mark.parametrize("options", [{}, {"num_players": 6, "reward_mode": "points"},
                                     {"num_players": 3, "reverse": True}], ids=options_id)
def test_matches_the_reference_with_trick_phases(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=6, seed=11, policy=_throws)
    assert report.decisions > 6 * 60


@pytest.mark.parametrize("options", [{"num_players": 3, "empty_deck_throw_down": True},
                                     {"num_players": 4}], ids=options_id)
def test_matches_the_reference_when_the_deck_runs_out(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=8, seed=5, policy=_holds)
    assert report.decisions > 8 * 30


def test_matches_the_reference_with_the_lowest_legal_action() -> None:
    report = check_against_reference(ENV, {"num_players": 5}, games=4, seed=3, policy="first")
    assert report.decisions > 4 * 30


@pytest.mark.parametrize("options", [{}, {"num_players": 6, "reverse": True,
                                          "reward_mode": "points", "target_score": 90}],
                         ids=options_id)
def test_dealt_games_match_rebuilt_reference_games(options: dict[str, Any]) -> None:
    # the engine's own deals, round after round and episode after episode
    engine = _engine(options, 8)
    engine.reset(seed_states(2, 8), None)
    games: list[TexasEuchre | None] = [_fresh(engine, i) for i in range(8)]
    assert _alongside(engine, games, steps=200, seed=2, throw_rate=0.3) >= 8


# ---- game-specific edge cases -------------------------------------------------------------------
def test_round_scoring_and_the_faq6_tie_break_match_the_reference() -> None:
    # random games rarely end tied on the lowest total with different round histories, so the
    # kernel's scoring (§3.2.4, §3.6, FAQ 7) and its FAQ 6 rank are checked on made-up rounds
    # with small numbers (many ties) against rules.score_round, update_tiebreak, game_winners
    rng = np.random.default_rng(8)
    broken = 0
    for _ in range(600):
        n = int(rng.integers(3, 7))
        h = HAND_SIZE[n]
        reverse, exhausted, points_mode = (bool(x) for x in rng.integers(0, 2, 3))
        history = [[int(x) for x in rng.integers(0, 3, n)] for _ in range(int(rng.integers(4)))]
        rank = [0] * n
        for pts in history:
            rank = update_tiebreak(rank, pts)
        scores = [sum(col) for col in zip(*history)] if history else [0] * n
        tricks = np.bincount(rng.integers(0, n, h), minlength=n).tolist()
        if rng.random() < 0.2:
            tricks = [0] * n
            tricks[int(rng.integers(n))] = h  # someone took every trick
        stakes = [int(x) for x in rng.integers(0, 3, n)]
        thrower = -1 if exhausted else int(rng.integers(n))
        target = int(rng.integers(1, 9))
        st = np.zeros(S_WIDTH, np.int32)
        st[S_TWON:S_TWON + n] = [0] * n if exhausted else tricks
        st[S_STAKE_PTS:S_STAKE_PTS + n] = stakes
        st[S_SCORES:S_SCORES + n] = scores
        st[S_RANK:S_RANK + n] = rank
        st[S_THROWER] = thrower
        config = np.array([n, h, DECKS[n], target, 0, int(reverse), int(points_mode), HISTORY])
        rw = np.zeros(n, np.float32)
        over = _close_round(st, rw, config, exhausted)
        points = stakes if exhausted else score_round(stakes, tricks, thrower, reverse)
        totals = [a + b for a, b in zip(scores, points)]
        assert st[S_LAST_PTS:S_LAST_PTS + n].tolist() == points
        assert st[S_RANK:S_RANK + n].tolist() == update_tiebreak(rank, points)
        assert st[S_SCORES:S_SCORES + n].tolist() == totals
        assert over == (max(totals) >= target)
        if points_mode:
            expected = [-float(p) for p in points]
        elif over:
            won = game_winners(totals, [*history, points])
            expected = zero_sum_outcome([1.0 if s in won else 0.0 for s in range(n)])
            lowest = [s for s in range(n) if totals[s] == min(totals)]
            broken += len(won) < len(lowest)
        else:
            expected = [0.0] * n
        np.testing.assert_array_equal(rw, np.array(expected, np.float32))
    assert broken >= 20  # ties for the lowest total that FAQ 6 broke


def test_two_decks_with_both_copies_in_hand() -> None:
    # 6 players, two decks: seat 0 holds AS twice, KS twice and 2C twice; the discards take the
    # first copy first and the plays take either copy alike
    deck = TexasEuchre.full_deck({"num_players": 6})
    hand = ["2C", "2C", "KS", "KS", "AS", "AS", "9D"]
    for card in hand:
        deck.remove(card)
    hands = [hand] + [deck[7 * s:7 * s + 7] for s in range(5)]
    deals = [{"dealer": d, "hands": hands, "draw_pile": deck[35:]} for d in range(5, -1, -1)]
    options = SPEC.resolve_options({"num_players": 6, "target_score": 200})
    engine = _engine(options, 6)
    engine.reset(seed_states(1, 6), copy.deepcopy(deals))
    games: list[TexasEuchre | None] = [
        TexasEuchre(options, np.random.default_rng(0), copy.deepcopy(d)) for d in deals]
    _alongside(engine, games, steps=200, seed=1, throw_rate=0.4, rebuild=False)
    game = TexasEuchre(options, np.random.default_rng(0), copy.deepcopy(deals[0]))
    engine = _engine(options, 1)
    engine.reset(seed_states(0, 1), [copy.deepcopy(deals[0])])
    while game.current_player != 0:  # to seat 0's first turn
        action = game.legal_actions()[0]
        game.apply(action)
        engine.step(np.array([action]))
    # hand positions: 0-1 2C 2C, 2 9D, 3-4 KS KS, 5-6 AS AS; one copy is its first position
    assert engine.mask[0, 0b0000001] == 1 and engine.mask[0, 0b0000010] == 0
    assert engine.mask[0, 0b0000011] == 1 and engine.mask[0, 0b0000100] == 1
    assert engine.mask[0, 0b0001000] == 1 and engine.mask[0, 0b0010000] == 0
    assert engine.mask[0, 0b1100000] == 1 and engine.mask[0, 0b1000000] == 0
    np.testing.assert_array_equal(engine.mask[0], _mask(game))
    assert engine.obs[0, 0] == 2 and engine.obs[0, 51] == 2  # 2C and AS, twice each


def test_partial_deals_are_completed_from_each_games_stream() -> None:
    options = {"num_players": 4}
    ref = TexasEuchre(SPEC.resolve_options(options), np.random.default_rng(3), None).deals[0]
    deals: list[Any] = [{"dealer": 2}, {"hands": ref["hands"]}, {"draw_pile": ref["draw_pile"]},
                        [{"dealer": 1, "hands": ref["hands"]}, {"dealer": 2}], {}]
    engine = _engine(options, 5)
    engine.reset(seed_states(4, 5), copy.deepcopy(deals))
    full = [engine.game(i).deals[0] for i in range(5)]
    assert full[0]["dealer"] == 2
    assert full[1]["hands"] == ref["hands"] and full[2]["draw_pile"] == ref["draw_pile"]
    assert full[3]["dealer"] == 1 and full[3]["hands"] == ref["hands"]
    for deal in full:  # every card once
        cards = [c for h in deal["hands"] for c in h] + deal["draw_pile"]
        assert sorted(cards) == TexasEuchre.full_deck(options)
    # the same streams complete them the same way; the other games' deals differ
    again = _engine(options, 5)
    again.reset(seed_states(4, 5), copy.deepcopy(deals))
    assert [again.game(i).deals[0] for i in range(5)] == full
    assert len({str(d["hands"]) for d in full}) == 4  # games 1 and 3 share the hands
    # the engine's completed games are the reference games of their deals
    games: list[TexasEuchre | None] = [_fresh(engine, i) for i in range(5)]
    _alongside(engine, games, steps=150, seed=4, throw_rate=0.3, rebuild=False)


def test_scripted_rounds_then_the_games_own_deals() -> None:
    # a whole-game deal with fewer rounds than the game: later rounds come from the stream
    options = SPEC.resolve_options({"num_players": 3, "target_score": 250})
    first = [TexasEuchre(options, np.random.default_rng(s), None).deals[0] for s in range(4)]
    deals = [[first[i], {"dealer": (first[i]["dealer"] + 1) % 3}] for i in range(4)]
    engine = _engine(options, 4)
    engine.reset(seed_states(9, 4), copy.deepcopy(deals))
    games: list[TexasEuchre | None] = [
        TexasEuchre(options, np.random.default_rng(0), [copy.deepcopy(first[i])])
        for i in range(4)]
    rounds = [1] * 4
    rng = np.random.default_rng(9)
    for step in range(120):
        actions = _choose(engine, rng, 0.3)
        engine.step(actions)
        for i in range(4):
            if engine.done[i] or games[i] is None:
                games[i] = None
                continue
            if step % 3:
                continue
            game = engine.game(i)
            np.testing.assert_array_equal(engine.obs[i], _observe(game, game.current_player))
            np.testing.assert_array_equal(engine.mask[i], _mask(game))
            assert game.deals[0] == first[i]
            rounds[i] = max(rounds[i], len(game.deals))
    assert max(rounds) >= 3


def test_games_longer_than_the_history_row() -> None:
    # target 10000: games of many rounds, whose actions outgrow the kernel's history row
    engine = _engine({"num_players": 3, "target_score": 10_000}, 3)
    engine.reset(seed_states(6, 3), None)
    games: list[TexasEuchre | None] = [_fresh(engine, i) for i in range(3)]
    _alongside(engine, games, steps=HISTORY + 40, seed=6, skip_rate=0.0, rebuild=False)
    assert sorted(engine._spilled) == [0, 1, 2]
    for i, game in enumerate(games):
        assert game is not None and len(game.history) == HISTORY + 40
        _same_game(engine, i, game)
    # memory: the spilled actions are counted, and dropped with the finished game
    assert engine.memory_per_game() > _engine({"num_players": 4}, 4).memory_per_game()


def test_bad_deals_name_the_game_and_change_nothing() -> None:
    engine = _engine({}, 3)
    engine.reset(seed_states(0, 3), None)
    good = {"dealer": 1}
    ref = TexasEuchre(SPEC.resolve_options({}), np.random.default_rng(0), None).deals[0]
    hands = copy.deepcopy(ref["hands"])
    hands[1][0] = hands[0][0]
    bad = [
        ({"hands": hands}, "game 1: .*dealt more often than the deck has it"),
        ({"hands": [h[:4] for h in ref["hands"]]}, "game 1: .*seat 0 has 4 cards"),
        ({"draw_pile": ref["draw_pile"][:5]}, "game 1: .*draw_pile has 5 cards"),
        ({"hands": [["1X"] * 5] * 4}, "game 1: .*unknown Texas Euchre card"),
        ({"dealer": 4}, "game 1: .*dealer must be a seat 0..3"),
        ({"start_player": 0}, "game 1: .*unknown deal key"),
        ([good, {"dealer": 3}], "game 1: .*dealer must be seat 2"),
        ([], "game 1: a deal is a dict"),
    ]
    check_bad_deals_change_nothing(engine, good, bad)
    with pytest.raises(ValueError, match="one scripted deal per game: 3, got 2"):
        engine.reset(seed_states(1, 3), [good, good])
    with pytest.raises(ValueError, match="rng_state must be a writeable uint64 array"):
        engine.reset(np.zeros(2, np.uint64), None)
    with pytest.raises(ValueError, match="game index"):
        engine.game(3)


def test_streams_are_per_game_and_reproducible() -> None:
    check_streams_per_game(lambda n: _engine({}, n), 300)


def test_memory_per_game() -> None:
    for players in TexasEuchre.PLAYER_COUNTS:
        engine = _engine({"num_players": players}, 64)
        engine.reset(seed_states(0, 64), None)
        assert engine.memory_per_game() <= 2048
        assert engine.mask.shape[1] == (1 << HAND_SIZE[players]) + 1 + 52


def test_game_i_renders_and_names_actions() -> None:
    vec = vector.make(ENV, num_envs=2, seed=1)
    out = vec.reset()
    action = int(np.flatnonzero(out.mask[1])[0])
    assert vec.action_to_str(1, action) == vec.game(1).action_to_str(action)
    assert vec.action_to_str(1, action).startswith("discard ")
    table = vec.render(1)
    assert table.startswith("Texas Euchre — round 1, first turn")
    for seat, hand in enumerate(vec.game(1).deals[0]["hands"]):
        assert f"player_{seat}" in table and " ".join(hand) in table


# ---- long runs ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_matches_the_reference_long(options: dict[str, Any]) -> None:
    report = check_against_reference(ENV, options, games=1500, seed=1234)
    assert report.decisions > 1500 * 20


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_matches_the_reference_with_trick_phases_long(options: dict[str, Any]) -> None:
    policy = _holds if options.get("empty_deck_throw_down") else _throws
    report = check_against_reference(ENV, options, games=800, seed=4321, policy=policy)
    assert report.decisions > 800 * 40


@pytest.mark.slow
@pytest.mark.parametrize("options", CASES, ids=options_id)
def test_dealt_games_match_rebuilt_reference_games_long(options: dict[str, Any]) -> None:
    engine = _engine(options, 100)
    engine.reset(seed_states(99, 100), None)
    games: list[TexasEuchre | None] = [_fresh(engine, i) for i in range(100)]
    assert _alongside(engine, games, steps=1500, seed=99, throw_rate=0.3) >= 100 * 5
