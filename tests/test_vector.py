"""The batched-engine framework (``cahoots_envs.vector``): errors, seeding, ``game(i)``, buffers,
the message without numba, the batched seat env.

The framework is checked through a small batched engine of the test game High Card
(``tests/plugin_game``), written here the way a third-party game writes one (a numba kernel
over all games, the shared helpers of ``core/numba_kernels.py``) and registered through the
public API with a ``batched`` member: it is also what ``tests/vector_checks.py`` is checked with.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numba
import numpy as np
import pytest

import cahoots_envs
from cahoots_envs import vector
from cahoots_envs.core.batched import BatchedEngine
from cahoots_envs.core.game import Game, parse_deals
from cahoots_envs.core.numba_kernels import (
    lowest_bit_index,
    next_u64,
    nth_set_bit,
    popcount64,
    randint,
    seed_states,
    shuffle,
)
from cahoots_envs.errors import EnvNotResetError, IllegalActionError, NotAvailableError
from cahoots_envs.vector.engine import engine_class
from tests.plugin_game import rules as hc
from tests.plugin_game.spec import SPEC as HIGH_CARD
from tests.vector_checks import check_against_reference

# ---- a batched engine of High Card -------------------------------------------------------------
# state columns: hands (3), trick card per seat (3, -1 none), trick length, trick leader, seat to
# move, taken cards, tricks won this hand (3), scores (3), hand index, first leader, tricks
# played this hand, over, actions this episode, playing a scripted deal
HAND, TRICK, TLEN, LEAD, CUR, TAKEN, WON, SCORE = 0, 3, 6, 7, 8, 9, 10, 13
HIDX, FIRST, TPLAYED, OVER, NACT, SCRIPTED = 16, 17, 18, 19, 20, 21
COLUMNS = 22
MAX_ACTIONS = hc.MAX_HANDS * 3 * hc.HAND_SIZE
SUIT_BITS = (1 << hc.RANKS) - 1


@numba.njit(cache=True)
def _deal_hand(st: np.ndarray, i: int, rng: np.ndarray, scripts: np.ndarray,
               nscript: np.ndarray, dlog: np.ndarray, n: int, leader: int) -> None:
    k = st[i, HIDX]
    if st[i, SCRIPTED] == 1 and k < nscript[i] and scripts[i, k, 1] >= 0:
        for s in range(n):
            st[i, HAND + s] = scripts[i, k, 1 + s]
    else:
        deck = np.arange(hc.DECK_SIZE)
        shuffle(deck, rng, i)
        for s in range(n):
            m = 0
            for c in range(hc.HAND_SIZE):
                m |= 1 << deck[s * hc.HAND_SIZE + c]
            st[i, HAND + s] = m
    for s in range(3):
        st[i, TRICK + s] = -1
        st[i, WON + s] = 0
    st[i, TLEN] = 0
    st[i, LEAD] = leader
    st[i, CUR] = leader
    st[i, TAKEN] = 0
    st[i, TPLAYED] = 0
    dlog[i, k, 0] = leader
    for s in range(n):
        dlog[i, k, 1 + s] = st[i, HAND + s]


@numba.njit(cache=True)
def _new_game(st: np.ndarray, i: int, rng: np.ndarray, scripts: np.ndarray,
              nscript: np.ndarray, dlog: np.ndarray, n: int, scripted: int) -> None:
    st[i, :] = 0
    st[i, SCRIPTED] = scripted
    if scripted == 1 and nscript[i] > 0 and scripts[i, 0, 0] >= 0:
        leader = scripts[i, 0, 0]
    else:
        leader = randint(rng, i, n)
    st[i, FIRST] = leader
    _deal_hand(st, i, rng, scripts, nscript, dlog, n, leader)


@numba.njit(cache=True)
def _encode(st: np.ndarray, i: int, seat: int, n: int, num_hands: int, off: np.ndarray,
            out: np.ndarray) -> None:
    out[:] = 0.0
    hand = st[i, HAND + seat]
    played = st[i, TAKEN]
    for s in range(n):
        c = st[i, TRICK + s]
        if c >= 0:
            out[off[1] + ((s - seat) % n) * hc.DECK_SIZE + c] = 1.0
            played |= 1 << c
    for c in range(hc.DECK_SIZE):
        if (hand >> c) & 1:
            out[off[0] + c] = 1.0
        if (played >> c) & 1:
            out[off[2] + c] = 1.0
    for rel in range(n):
        s = (seat + rel) % n
        out[off[3] + rel] = st[i, WON + s] / hc.HAND_SIZE
        out[off[4] + rel] = st[i, SCORE + s] / (hc.HAND_SIZE * hc.MAX_HANDS)
    out[off[5] + st[i, HIDX]] = 1.0
    out[off[6] + num_hands - 1] = 1.0
    if st[i, OVER] == 0:
        out[off[7] + (st[i, LEAD] - seat) % n] = 1.0
        out[off[8] + (st[i, CUR] - seat) % n] = 1.0


@numba.njit(cache=True)
def _legal(st: np.ndarray, i: int) -> int:
    hand = st[i, HAND + st[i, CUR]]
    if st[i, TLEN] > 0:
        led = st[i, TRICK + st[i, LEAD]] // hc.RANKS
        follow = hand & (SUIT_BITS << (hc.RANKS * led))
        if follow != 0:
            return follow
    return hand


@numba.njit(cache=True)
def _observe(st: np.ndarray, i: int, n: int, num_hands: int, off: np.ndarray, obs: np.ndarray,
             mask: np.ndarray, to_move: np.ndarray) -> None:
    _encode(st, i, st[i, CUR], n, num_hands, off, obs[i])
    legal = _legal(st, i)
    for c in range(hc.DECK_SIZE):
        mask[i, c] = (legal >> c) & 1
    to_move[i] = st[i, CUR]


@numba.njit(cache=True)
def _apply_all(st: np.ndarray, hist: np.ndarray, actions: np.ndarray, n: int, num_hands: int,
               points: bool, rng: np.ndarray, scripts: np.ndarray, nscript: np.ndarray,
               dlog: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
    for i in range(st.shape[0]):
        rewards[i, :] = 0.0
        done[i] = False
        a = actions[i]
        if a < 0:
            continue
        seat = st[i, CUR]
        hist[i, st[i, NACT]] = a
        st[i, NACT] += 1
        st[i, HAND + seat] &= ~(1 << a)
        st[i, TRICK + seat] = a
        st[i, TLEN] += 1
        if st[i, TLEN] < n:
            st[i, CUR] = (seat + 1) % n
            continue
        lead = st[i, LEAD]
        led = st[i, TRICK + lead] // hc.RANKS
        winner, best = lead, st[i, TRICK + lead]
        for s in range(n):
            c = st[i, TRICK + s]
            if c // hc.RANKS == led and c > best:
                winner, best = s, c
        st[i, WON + winner] += 1
        st[i, SCORE + winner] += 1
        if points:
            rewards[i, winner] = 1.0
        for s in range(n):
            st[i, TAKEN] |= 1 << st[i, TRICK + s]
            st[i, TRICK + s] = -1
        st[i, TLEN] = 0
        st[i, TPLAYED] += 1
        if st[i, TPLAYED] < hc.HAND_SIZE:
            st[i, LEAD] = winner
            st[i, CUR] = winner
            continue
        if st[i, HIDX] + 1 == num_hands:
            st[i, OVER] = 1
            done[i] = True
            if not points:
                best_score, k = -1, 0
                for s in range(n):
                    if st[i, SCORE + s] > best_score:
                        best_score, k = st[i, SCORE + s], 1
                    elif st[i, SCORE + s] == best_score:
                        k += 1
                if k < n:
                    for s in range(n):
                        rewards[i, s] = 1.0 / k if st[i, SCORE + s] == best_score else -1.0 / (n - k)
            continue
        st[i, HIDX] += 1
        st[i, FIRST] = (st[i, FIRST] + 1) % n  # each hand's first leader: one seat on
        _deal_hand(st, i, rng, scripts, nscript, dlog, n, st[i, FIRST])


@numba.njit(cache=True)
def _finish_all(st: np.ndarray, actions: np.ndarray, n: int, num_hands: int, off: np.ndarray,
                rng: np.ndarray, scripts: np.ndarray, nscript: np.ndarray, dlog: np.ndarray,
                done: np.ndarray, final_scores: np.ndarray, final_obs: np.ndarray,
                obs: np.ndarray, mask: np.ndarray, to_move: np.ndarray) -> None:
    j = 0
    for i in range(st.shape[0]):
        if done[i]:
            for s in range(n):
                final_scores[j, s] = st[i, SCORE + s]
                _encode(st, i, s, n, num_hands, off, final_obs[j, s])
            j += 1
            _new_game(st, i, rng, scripts, nscript, dlog, n, 0)
        if actions[i] >= 0:
            _observe(st, i, n, num_hands, off, obs, mask, to_move)


@numba.njit(cache=True)
def _reset_all(st: np.ndarray, n: int, num_hands: int, off: np.ndarray, rng: np.ndarray,
               scripts: np.ndarray, nscript: np.ndarray, dlog: np.ndarray, obs: np.ndarray,
               mask: np.ndarray, to_move: np.ndarray) -> None:
    for i in range(st.shape[0]):
        _new_game(st, i, rng, scripts, nscript, dlog, n, 1 if nscript[i] > 0 else 0)
        _observe(st, i, n, num_hands, off, obs, mask, to_move)


class HighCardEngine(BatchedEngine):
    """High Card's batched engine (every option, 2 or 3 players)."""

    SEGMENTS = ("hand", "trick", "played", "tricks_won", "scores", "hand_number", "num_hands",
                "leader", "to_move")

    def __init__(self, spec: Any, options: dict[str, Any], num_envs: int) -> None:
        super().__init__(spec, options, num_envs)
        n = num_envs
        self.num_hands = int(options["hands"])
        offsets = spec.layout(options).offsets
        self.offsets = np.array([offsets[s] for s in self.SEGMENTS], np.int64)
        self.state = np.zeros((n, COLUMNS), np.int64)
        self.hist = np.zeros((n, MAX_ACTIONS), np.int8)
        self.dlog = np.zeros((n, hc.MAX_HANDS, 4), np.int64)
        self.scripts = np.full((n, hc.MAX_HANDS, 4), -1, np.int64)
        self.nscript = np.zeros(n, np.int64)
        self.rng = np.zeros(n, np.uint64)
        self._all = np.zeros(n, np.int64)

    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        p = self.num_players
        self.scripts[:] = -1
        self.nscript[:] = 0
        if deals is not None:
            for i, per_hand in enumerate(self.check_deals(deals)):
                parsed = parse_deals(per_hand, self.num_hands, lambda d: hc.parse_deal(d, p), p,
                                     "start_player")
                for k, (start, hands) in enumerate(parsed):
                    self.scripts[i, k, 0] = -1 if start is None else start
                    if hands is not None:
                        self.scripts[i, k, 1:1 + p] = hands
                self.nscript[i] = len(parsed)
        self.rng = rng_state
        _reset_all(self.state, p, self.num_hands, self.offsets, self.rng, self.scripts,
                   self.nscript, self.dlog, self.obs, self.mask, self.to_move)
        self.rewards[:] = 0.0
        self.deal_rewards[:] = 0.0
        self.done[:] = False
        self.final_buffers(0)

    def step(self, actions: np.ndarray) -> None:
        p = self.num_players
        _apply_all(self.state, self.hist, actions, p, self.num_hands,
                   self.reward_mode == "points", self.rng, self.scripts, self.nscript, self.dlog,
                   self.rewards, self.done)
        scores, final_obs = self.final_buffers(int(np.count_nonzero(self.done)))
        _finish_all(self.state, actions, p, self.num_hands, self.offsets, self.rng, self.scripts,
                    self.nscript, self.dlog, self.done, scores, final_obs, self.obs, self.mask,
                    self.to_move)

    def game(self, i: int) -> Game:
        p = self.num_players
        hands_dealt = int(self.state[i, HIDX]) + 1
        deal = [hc.deal_record(int(self.dlog[i, k, 0]), [int(m) for m in self.dlog[i, k, 1:1 + p]])
                for k in range(hands_dealt)]
        return self.replay(deal, self.hist[i, : self.state[i, NACT]].tolist())


# ---- registration --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def high_card() -> Iterator[str]:
    """High Card registered with its batched engine for this module (then as it was)."""
    # the "module:Class" form, with this module's own name (as pytest imported it)
    spec = dataclasses.replace(HIGH_CARD, batched=f"{__name__}:HighCardEngine")
    assert engine_class(spec) is HighCardEngine
    cahoots_envs.register_game(spec, replace=True)
    yield "high_card-v0"
    cahoots_envs.register_game(HIGH_CARD, replace=True)


def _play(vec: vector.VectorGames, steps: int, seed: int) -> list[np.ndarray]:
    """Random legal play for ``steps`` steps; copies of every output."""
    rng = np.random.default_rng(seed)
    out = vec.reset()
    trace = [out.obs.copy(), out.mask.copy()]
    for _ in range(steps):
        out = vec.step(vector.random_legal_actions(out.mask, rng))
        trace += [out.obs.copy(), out.mask.copy(), out.rewards.copy(), out.finished.copy(),
                  out.final_obs.copy(), out.final_scores.copy()]
    return trace


# ---- the shared numba helpers ----------------------------------------------------------------
@numba.njit(cache=True)
def _draws(state: np.ndarray, k: int, count: int) -> np.ndarray:
    out = np.zeros(count, np.int64)
    for j in range(count):
        out[j] = randint(state, 0, k)
    return out


@numba.njit(cache=True)
def _bits(x: np.uint64, n: int) -> tuple[int, int, int]:
    return popcount64(x), lowest_bit_index(x), nth_set_bit(x, n)


@numba.njit(cache=True)
def _shuffled(state: np.ndarray, i: int, size: int) -> np.ndarray:
    arr = np.arange(size)
    shuffle(arr, state, i)
    return arr


@numba.njit(cache=True)
def _raw(state: np.ndarray, i: int) -> np.uint64:
    return next_u64(state, i)


def test_seed_states_are_reproducible_and_prefix_stable() -> None:
    a = seed_states(7, 8)
    assert a.dtype == np.uint64 and a.shape == (8,)
    assert np.array_equal(a, seed_states(7, 8))
    assert np.array_equal(seed_states(7, 3), a[:3])  # game i's stream does not depend on N
    assert not np.array_equal(seed_states(8, 8), a)
    assert len(set(a.tolist())) == 8
    assert not np.array_equal(seed_states(None, 4), seed_states(None, 4))
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match="non-negative int or None"):
            seed_states(bad, 2)  # type: ignore[arg-type]


def test_randint_is_uniform_and_streams_are_per_game() -> None:
    state = seed_states(1, 2)
    draws = _draws(state, 7, 70_000)
    counts = np.bincount(draws, minlength=7)
    assert draws.min() == 0 and draws.max() == 6
    # chi-square, 6 degrees of freedom: 22.5 is the 0.999 quantile
    assert ((counts - 10_000) ** 2 / 10_000).sum() < 22.5
    assert state[1] == seed_states(1, 2)[1]  # game 1's stream untouched by game 0's draws
    assert np.array_equal(_draws(seed_states(3, 1), 1, 5), np.zeros(5, np.int64))
    twin = seed_states(1, 2)
    assert _raw(twin, 0) == _raw(seed_states(1, 2), 0)


def test_bit_helpers() -> None:
    for x in (0, 1, 0b101100, 2**63, 2**64 - 1, 0x8000_0000_0001):
        v = np.uint64(x)
        bits = [b for b in range(64) if x >> b & 1]
        pop, low, second = _bits(v, 1)
        assert pop == len(bits)
        assert low == (bits[0] if bits else -1)
        assert second == (bits[1] if len(bits) > 1 else -1)


def test_shuffle_is_a_permutation_and_varies() -> None:
    state = seed_states(5, 3)
    seen = set()
    for _ in range(20):
        arr = _shuffled(state, 2, 10)
        assert sorted(arr.tolist()) == list(range(10))
        seen.add(tuple(arr.tolist()))
    assert len(seen) > 15


# ---- differential check of the test engine (it also checks vector_checks itself) -----------
@pytest.mark.parametrize("options", [{"num_players": 2}, {"num_players": 3},
                                     {"hands": 3, "reward_mode": "points"},
                                     {"hands": 5, "num_players": 3}])
def test_high_card_engine_matches_the_reference(high_card: str, options: dict[str, Any]) -> None:
    report = check_against_reference(high_card, options, games=40, seed=3)
    assert report.games == 40 and report.game_checks > 0
    assert report.decisions >= 40 * hc.HAND_SIZE * options.get("hands", 1)


def test_the_check_finds_a_wrong_engine(high_card: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """vector_checks fails an engine whose observation, reward or skip is wrong."""
    real_step = HighCardEngine.step

    def bad_reward(self: HighCardEngine, actions: np.ndarray) -> None:
        real_step(self, actions)
        self.rewards[self.done, 0] += 0.5

    monkeypatch.setattr(HighCardEngine, "step", bad_reward)
    with pytest.raises(AssertionError, match="rewards differs"):
        check_against_reference(high_card, {}, games=5, seed=1)

    def bad_obs(self: HighCardEngine, actions: np.ndarray) -> None:
        real_step(self, actions)
        self.obs[:, -1] += 1.0

    monkeypatch.setattr(HighCardEngine, "step", bad_obs)
    with pytest.raises(AssertionError, match="observation of seat"):
        check_against_reference(high_card, {}, games=5, seed=1)

    def no_skip(self: HighCardEngine, actions: np.ndarray) -> None:
        real_step(self, np.where(actions < 0, np.argmax(self.mask, axis=1), actions))

    monkeypatch.setattr(HighCardEngine, "step", no_skip)
    with pytest.raises(AssertionError, match="differs"):
        check_against_reference(high_card, {}, games=5, seed=1, skip_rate=0.5)


# ---- make, errors ----------------------------------------------------------------------------
def test_make_and_spaces(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=6, seed=0, num_players=3, hands=2)
    assert (vec.num_envs, vec.num_players, vec.num_actions) == (6, 3, hc.DECK_SIZE)
    env = cahoots_envs.make_raw(high_card, num_players=3, hands=2)
    assert vec.obs_size == env.layout.size
    assert vec.single_observation_space == env.observation_space("player_0")
    assert vec.single_action_space == env.action_space("player_0")
    out = vec.reset()
    assert out.obs.shape == (6, vec.obs_size) and out.obs.dtype == np.float32
    assert out.mask.shape == (6, hc.DECK_SIZE) and out.mask.dtype == np.int8
    assert out.rewards.shape == (6, 3) and out.to_move.dtype == np.int64
    assert out.done is out.terminated and not out.done.any() and out.finished.size == 0
    assert vec.observation_space["observation"].contains(out.obs)
    assert vec.action_space.contains(vector.random_legal_actions(out.mask,
                                                                 np.random.default_rng(0)))
    assert "high_card" in repr(vec)


def test_make_errors(high_card: str) -> None:
    with pytest.raises(NotAvailableError, match=r"^batched is not available for high_card \(no batched engine\); cahoots_envs.vector plays "):
        _no_engine_make()
    with pytest.raises(ValueError, match="unknown option"):
        vector.make(high_card, num_envs=2, colour="red")
    with pytest.raises(ValueError, match="num_players"):
        vector.make(high_card, num_envs=2, num_players=7)
    with pytest.raises(ValueError, match="num_envs must be an int >= 1"):
        vector.make(high_card, num_envs=0)
    with pytest.raises(ValueError, match="non-negative int or None"):
        vector.make(high_card, num_envs=2, seed=-3)
    with pytest.raises(ValueError, match="game options only"):
        vector.make(high_card, num_envs=2, render_mode="ansi")
    vec = vector.make(high_card, num_envs=2)
    with pytest.raises(EnvNotResetError, match="reset"):
        vec.step(np.zeros(2, np.int64))
    with pytest.raises(EnvNotResetError, match="reset"):
        vec.game(0)


def _no_engine_make() -> None:
    """``vector.make`` of a game without a batched engine (High Card as first registered)."""
    spec = dataclasses.replace(HIGH_CARD, batched=None)
    cahoots_envs.register_game(spec, replace=True)
    try:
        vector.make("high_card-v0", num_envs=2)
    finally:
        cahoots_envs.register_game(dataclasses.replace(HIGH_CARD, batched=HighCardEngine),
                                   replace=True)


def test_a_bad_engine_member_is_named() -> None:
    spec = dataclasses.replace(HIGH_CARD, batched="tests.plugin_game.rules")
    with pytest.raises(TypeError, match="must name a module whose Engine subclasses"):
        engine_class(spec)


def test_illegal_actions_raise_and_change_nothing(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=5, seed=2, num_players=3)
    out = vec.reset()
    before = [a.copy() for a in (out.to_move, out.obs, out.mask)]
    legal = vector.random_legal_actions(out.mask, np.random.default_rng(0))
    illegal = int(np.flatnonzero(out.mask[3] == 0)[0])
    bad = legal.copy()
    bad[3] = illegal
    with pytest.raises(IllegalActionError, match=rf"game 3: seat \d cannot play action {illegal} "
                       r"\('play .*'\); no game changed; legal: "):
        vec.step(bad)
    bad[1] = 99
    bad[3] = legal[3]
    with pytest.raises(IllegalActionError, match=r"game 1: .*action 99 \(out of range 0..17\)"):
        vec.step(bad)
    bad[1], bad[4] = -1, 18
    with pytest.raises(IllegalActionError, match=r"game 1: .*action -1 .*\(and 1 other games\)"):
        vec.step(bad)
    for wrong in (legal[:4], legal.astype(np.float64), legal.astype(bool), legal.reshape(5, 1),
                  "12345", None):
        with pytest.raises(IllegalActionError, match=r"an int array of shape \(5,\)"):
            vec.step(wrong)
    for a, b in zip(before, (out.to_move, out.obs, out.mask)):
        assert np.array_equal(a, b)
    assert not vec.engine.state[:, NACT].any()  # High Card keeps no history: the engine's count
    out = vec.step(legal.tolist())  # a list of ints is fine
    assert (vec.engine.state[:, NACT] == 1).all()
    assert all(vec.game(i).trick == [(int(before[0][i]), int(legal[i]))] for i in range(5))


def test_bad_deals_raise_naming_the_game_and_change_nothing(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=3, seed=1)
    out = vec.reset()
    before = out.obs.copy()
    good = {"start_player": 1, "hands": [["1R", "2R", "3R", "4R"], ["1G", "2G", "3G", "4G"]]}
    twice = {"hands": [["1R", "2R", "3R", "4R"], ["1R", "2G", "3G", "4G"]]}
    with pytest.raises(ValueError, match=r"game 2: .*1R is dealt twice"):
        vec.reset(deals=[good, good, twice])
    with pytest.raises(ValueError, match=r"game 1: deal of hand 1: unknown deal key\(s\) \['x'\]"):
        vec.reset(deals=[good, {"x": 1}, good])
    with pytest.raises(ValueError, match="one scripted deal per game: 3, got 2"):
        vec.reset(deals=[good, good])
    with pytest.raises(ValueError, match="a list of 3 scripted deals"):
        vec.reset(deals=good)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="game 0: a deal is a dict"):
        vec.reset(deals=["1R 2R", good, good])
    assert np.array_equal(out.obs, before)
    out = vec.reset(deals=[good, [good], good])
    for i in range(3):
        g = vec.game(i)
        assert g.deals == [good] and g.current_player == 1 == out.to_move[i]


def test_whole_game_deals_script_every_hand(high_card: str) -> None:
    deals = [{"start_player": 0, "hands": [["1R", "2R", "3R", "4R"], ["1G", "2G", "3G", "4G"]]},
             {"hands": [["5R", "6R", "5G", "6G"], ["1B", "2B", "3B", "4B"]]}]
    vec = vector.make(high_card, num_envs=2, seed=0, hands=2)
    out = vec.reset(deals=[deals, deals[0]])
    rng = np.random.default_rng(0)
    while len(vec.game(0).deals) < 2:
        out = vec.step(vector.random_legal_actions(out.mask, rng))
    assert vec.game(0).deals[1] == {"start_player": 1, **deals[1]}
    assert vec.game(1).deals[0] == deals[0]


# ---- seeding, buffers, game(i) ---------------------------------------------------------------
def test_seeded_batches_are_reproducible(high_card: str) -> None:
    a = _play(vector.make(high_card, num_envs=8, seed=11, num_players=3), 40, seed=0)
    b = _play(vector.make(high_card, num_envs=8, seed=11, num_players=3), 40, seed=0)
    c = _play(vector.make(high_card, num_envs=8, seed=12, num_players=3), 40, seed=0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a[:2], c[:2]))
    # game i of a seeded batch is the same game whatever num_envs is
    small = vector.make(high_card, num_envs=3, seed=11, num_players=3).reset()
    assert np.array_equal(small.obs, a[0][:3])
    # reset(seed=...) restarts the streams; reset() continues them
    vec = vector.make(high_card, num_envs=8, num_players=3)
    assert np.array_equal(vec.reset(seed=11).obs, a[0])
    assert not np.array_equal(vec.reset().obs, a[0])
    assert np.array_equal(vec.reset(seed=11).obs, a[0])


def test_buffers_are_reused_in_place(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=4, seed=0)
    first = vec.reset()
    obs = first.obs
    kept = obs.copy()
    second = vec.step(vector.random_legal_actions(first.mask, np.random.default_rng(0)))
    assert second.obs is obs and second.mask is first.mask and second.rewards is first.rewards
    assert not np.array_equal(obs, kept)  # the next step overwrote the first observation


def test_finished_games_are_reported_and_dealt_again(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=16, seed=4, num_players=2)
    rng = np.random.default_rng(1)
    out = vec.reset()
    totals = np.zeros((16, 2))
    finished = 0
    for step in range(hc.HAND_SIZE * 2):
        before = [vec.game(i) for i in range(16)]
        actions = vector.random_legal_actions(out.mask, rng)
        out = vec.step(actions)
        totals += out.rewards
        assert out.finished.tolist() == np.flatnonzero(out.terminated).tolist()
        assert out.final_scores.shape == (out.finished.size, 2)
        assert out.final_obs.shape == (out.finished.size, 2, vec.obs_size)
        for j, i in enumerate(out.finished):
            finished += 1
            ref = before[i]
            ref.apply(int(actions[i]))
            assert ref.is_over
            assert out.final_scores[j].tolist() == [float(s) for s in ref.scores]
            assert totals[i].tolist() == ref.outcome()
            for seat in range(2):
                expected = np.zeros(vec.obs_size, np.float32)
                ref.encode(seat, expected)
                assert np.array_equal(out.final_obs[j, seat], expected)
            totals[i] = 0
            assert vec.engine.state[i, NACT] == 0 and not vec.game(i).is_over
    assert finished == 16 and step == hc.HAND_SIZE * 2 - 1


def test_game_i_and_action_to_str(high_card: str) -> None:
    vec = vector.make(high_card, num_envs=3, seed=5, num_players=3)
    out = vec.reset()
    g = vec.game(2)
    assert isinstance(g, hc.HighCard) and g.current_player == out.to_move[2]
    assert vec.render(2) == g.render()
    a = int(np.flatnonzero(out.mask[2])[0])
    assert vec.action_to_str(2, a) == g.action_to_str(a) == f"play {hc.card_str(a)}"
    g.apply(a)  # a copy: the batch is unchanged
    assert vec.game(2).trick == [] and g.trick == [(int(out.to_move[2]), a)]
    for bad in (3, -1, 1.0, "0"):
        with pytest.raises(IndexError, match=r"game index .* is not in 0..2"):
            vec.game(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"is not an action id 0..17"):
        vec.action_to_str(0, 18)
    assert vec.memory_per_game() > 0


def test_random_legal_actions_are_legal_and_uniform() -> None:
    rng = np.random.default_rng(0)
    mask = (rng.random((2000, 40)) < 0.2).astype(np.int8)
    mask[np.arange(2000), rng.integers(40, size=2000)] = 1
    picks = vector.random_legal_actions(mask, rng)
    assert mask[np.arange(2000), picks].all()
    row = np.zeros((30_000, 5), np.int8)
    row[:, [0, 2, 4]] = 1
    counts = np.bincount(vector.random_legal_actions(row, rng), minlength=5)
    assert counts[1] == counts[3] == 0
    assert np.all(np.abs(counts[[0, 2, 4]] - 10_000) < 400)


# ---- without numba -----------------------------------------------------------------------------
def test_without_numba_make_names_the_extra(high_card: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # what an absent package looks like
    with pytest.raises(ImportError) as info:
        vector.make(high_card, num_envs=2)
    message = str(info.value)
    assert "\n" not in message and 'pip install "cahoots-envs[fast]"' in message


def test_cahoots_envs_and_the_aec_envs_never_import_numba() -> None:
    code = ("import sys, cahoots_envs; from cahoots_envs import vector; "
            "import cahoots_envs.core.batched, cahoots_envs.vector.engine; "
            "env = cahoots_envs.make('kansas_city-v1'); env.reset(seed=0); "
            "env.step(int(env.action_mask().argmax())); print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_the_former_homes_re_export_the_engine_base_and_helpers() -> None:
    """``vector.engine`` and ``vector._numba`` still name what moved to ``core`` (the same
    objects), for code that imports them from there."""
    from cahoots_envs.core import batched, numba_kernels
    from cahoots_envs.vector import _numba, engine

    assert engine.BatchedEngine is batched.BatchedEngine
    for name in numba_kernels.__all__:
        assert getattr(_numba, name) is getattr(numba_kernels, name), name


# ---- the batched seat env ----------------------------------------------------------------------
class FirstLegal:
    """A deterministic opponent (the lowest legal action) that counts its batches."""

    name = "first"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.batches.append(len(observations))
        return np.argmax(action_masks, axis=1).astype(np.int64)


@pytest.mark.parametrize("options", [{"num_players": 3, "hands": 2},
                                     {"num_players": 2, "reward_mode": "points"}])
def test_seat_env_matches_a_reference_replay(high_card: str, options: dict[str, Any]) -> None:
    """Every step, replayed on reference games (the learner's action, then the deterministic
    opponents), gives the same observations, masks, rewards, ends and terminal observations."""
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    opponent = FirstLegal()
    # three players: two policy objects, one per opponent seat (each acts for its own games)
    seating = [opponent, FirstLegal()] if options["num_players"] == 3 else opponent
    venv = BatchedSeatVecEnv(high_card, 12, options=options, opponents=seating, seed=3)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    points = options.get("reward_mode") == "points"
    finished = 0
    for _ in range(40):
        masks = venv.action_masks()
        games = [venv.vec.game(i) for i in range(12)]
        seats = venv.learner.copy()
        for i, g in enumerate(games):
            assert g.current_player == seats[i]
            expected = np.zeros(venv.vec.obs_size, np.float32)
            g.encode(int(seats[i]), expected)
            assert np.array_equal(obs[i], expected)
            assert np.flatnonzero(masks[i]).tolist() == sorted(g.legal_actions())
        actions = vector.random_legal_actions(masks.astype(np.int8), rng)
        obs, rewards, dones, infos = venv.step(actions)
        for i, g in enumerate(games):
            seat = int(seats[i])
            before = g.scores[seat]
            g.apply(int(actions[i]))
            while not g.is_over and g.current_player != seat:
                g.apply(int(min(g.legal_actions())))
            assert bool(dones[i]) == g.is_over
            paid = g.scores[seat] - before if points else (g.outcome()[seat] if g.is_over else 0)
            assert rewards[i] == pytest.approx(paid)
            if g.is_over:
                finished += 1
                terminal = np.zeros(venv.vec.obs_size, np.float32)
                g.encode(seat, terminal)
                assert np.array_equal(infos[i]["terminal_observation"], terminal)
                assert infos[i]["learner_seat"] == seat and infos[i]["opponents"] == \
                    ["first"] * (g.num_players - 1)
                assert infos[i]["score"] == g.scores[seat]
                if not points:
                    assert infos[i]["outcome"] == g.outcome()[seat]
            else:
                assert infos[i] == {}
    assert finished >= 12
    assert max(opponent.batches) > 1  # opponents act for many games in one call


def test_seat_env_is_reproducible(high_card: str) -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    def run() -> list[np.ndarray]:
        venv = BatchedSeatVecEnv(high_card, 6, options={"num_players": 3}, opponents="random",
                                 seed=9)
        out = [venv.reset()]
        rng = np.random.default_rng(1)
        for _ in range(15):
            obs, rewards, dones, _ = venv.step(
                vector.random_legal_actions(venv.action_masks().astype(np.int8), rng))
            out += [obs, rewards, dones, venv.learner.copy()]
        return out

    assert all(np.array_equal(a, b) for a, b in zip(run(), run()))


def test_seat_env_refuses_search_bots_and_catches_illegal_opponents(high_card: str) -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    class Searcher(FirstLegal):
        name = "searcher"
        needs_infoset = True

    with pytest.raises(ValueError, match="'searcher' is a search bot.*SeatVecEnv"):
        BatchedSeatVecEnv(high_card, 2, opponents=Searcher())

    class Cheat(FirstLegal):
        def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
            return np.argmin(action_masks, axis=1).astype(np.int64)

    venv = BatchedSeatVecEnv(high_card, 2, options={"num_players": 3}, opponents=Cheat(),
                             learner_seat=2, seed=0)
    with pytest.raises(IllegalActionError, match=r"opponent 'first' in seat \d of game \d chose "
                       "illegal action"):
        venv.reset()
    venv = BatchedSeatVecEnv(high_card, 2, opponents=FirstLegal(), seed=0)
    venv.reset()
    bad = np.argmin(venv.action_masks(), axis=1)
    with pytest.raises(ValueError, match="illegal in game 0 .*action masks"):
        venv.step(bad)


def test_seat_env_trains_with_maskable_ppo(high_card: str) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

    venv = BatchedSeatVecEnv(high_card, 16, options={"num_players": 2}, opponents="heuristic",
                             seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert model.num_timesteps >= 256
    after = list(model.policy.parameters())
    assert any(not (a == b).all() for a, b in zip(after, before))  # the updates ran


def test_random_legal_actions_refuses_a_row_without_legal_actions() -> None:
    mask = np.ones((3, 4), np.int8)
    mask[1] = 0
    with pytest.raises(ValueError, match="row 1 of the mask has no legal action"):
        vector.random_legal_actions(mask, np.random.default_rng(0))
    assert vector.random_legal_actions(mask[[0, 2]].astype(bool),
                                       np.random.default_rng(0)).shape == (2,)


def test_seat_env_draws_opponents_from_the_pool_by_weight(high_card: str) -> None:
    pytest.importorskip("stable_baselines3")
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
    from cahoots_envs.training.pool import OpponentPool

    pool = OpponentPool()
    a, b, never = FirstLegal(), FirstLegal(), FirstLegal()
    pool.add("a", "a", a, 3.0)
    pool.add("b", "b", b, 1.0)
    pool.add("never", "never", never, 0.0)
    venv = BatchedSeatVecEnv(high_card, 400, options={"num_players": 3}, opponents=pool, seed=0)
    venv.reset()
    seats = venv.seat_name[np.arange(400)[:, None], (venv.learner[:, None] + [1, 2]) % 3]
    drawn = [venv.names[k] for k in seats.ravel().tolist()]
    assert set(drawn) == {"a", "b"}
    assert 0.7 < drawn.count("a") / len(drawn) < 0.8
    assert a.batches and b.batches and not never.batches
    assert set(venv.learner.tolist()) == {0, 1, 2}
