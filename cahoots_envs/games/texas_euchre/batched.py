"""Texas Euchre's batched engine: ``num_envs`` games in lockstep in numba kernels.

Imported only by ``cahoots_envs.vector`` (it imports numba). The rules are those of
``rules.py`` and the observation that of ``encoder.py``, entry for entry; the differential tests
in ``tests/games/texas_euchre/test_vector.py`` replay reference games through it step by step.

Cards are kept by face (``rank * 4 + suit``, 0..51). With two decks (6 players) the two copies
of a face play, score and show alike, so every card set is a multiset of faces held as two
52-bit words: ``lo`` (the faces held at least once) and ``hi`` (the faces held twice). The p-th
card of a sorted hand is then the p-th face of ``lo`` counted twice where ``hi`` has it, which
is the reference's order by card id. State of one game:

- ``_masks`` (``uint64[N, 53]``): per seat (6 slots each) the hand, the stake, the latest
  discard and the cards played to tricks this round (``lo`` and ``hi`` words each), then the
  cards played and the cards seen face up this round, and the generator state at which the
  episode's own deals began (read by ``game(i)``);
- ``_state`` (``int32[N, 60]``): the scalars of the round (seat to move, phase, dealer, thrower,
  turns, draw-pile position, the current and last trick's leader, the round number, the
  actions kept) and per seat the card in the current and the last trick, tricks, stake points,
  score, last round's points and the FAQ 6 tie-break rank;
- ``_deck`` (``uint8[N, 52 * decks]``): the round's deal by face, the hands (H cards per seat)
  then the draw pile top first;
- ``_history`` (``uint8[N, HISTORY]``): the episode's latest actions (every action id is below
  256); a full row is moved to a Python ``bytearray`` (``_spilled[i]``) after the step, so
  ``game(i)`` replays a game however long;
- ``_script`` (``uint8[N, rounds, 52 * decks]``): the scripted rounds of ``reset(deals=...)``
  (completed from the game's stream where a deal leaves a key out), with no rounds otherwise.

``_step_kernel`` applies every game's action and patches the observation and the mask of the
seat to move in place: a card row is rewritten only where its entries change (the rows of the
relative seats move with the observer, so a row goes from one seat's cards to the next one's),
the small segments are written whole, and a new round rewrites the row. A game that ends is left
over for ``_deal_kernel``, which writes its final scores and every seat's final observation and
deals it again from its own stream (a first dealer drawn, then one shuffle of the deck per
round); ``reset`` deals every game with it. A game never ends at its deal, so ``deal_rewards``
stay zero. ``game(i)`` rebuilds the episode's deals from its script and its stream
(``_from_stream`` draws what the kernels drew) and replays its actions through the reference
rules; its own later rounds are dealt from the reference game's generator, not the stream.

The kernels' helpers are plain ``njit`` functions, one signature each (never a literal
argument, which numba would compile again): LLVM inlines the small ones, and numba's own
``inline="always"`` would cost several times the compile time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from types import SimpleNamespace
from typing import Any, cast

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from cahoots_envs.core.batched import BatchedEngine, once_per_record
from cahoots_envs.core.game import Game, parse_deals
from cahoots_envs.core.numba_kernels import popcount64, randint, shuffle
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.text import short_repr
from cahoots_envs.games.texas_euchre import search
from cahoots_envs.games.texas_euchre.bot import HeuristicPolicy
from cahoots_envs.games.texas_euchre.bot_batched import FALLBACK, decide
from cahoots_envs.games.texas_euchre.encoder import SCORE_CLIP, TURN_SCALE
from cahoots_envs.games.texas_euchre.rules import (
    DECKS,
    FACE_VALUES,
    FACES,
    HAND_SIZE,
    TexasEuchre,
    _draw_legal,
    face_str,
    max_rounds,
)

__all__ = ["Engine"]

MAXP = 6  # seat slots per field (the most players)
HISTORY = 256  # actions kept in the kernel's history row before they move to ``_spilled``

# _masks columns: lo and hi words of each multiset of faces, one slot per seat
M_HAND_LO, M_HAND_HI, M_STAKE_LO, M_STAKE_HI = 0, 6, 12, 18
M_LD_LO, M_LD_HI, M_PB_LO, M_PB_HI = 24, 30, 36, 42
M_PLAYED_LO, M_PLAYED_HI, M_SEEN_LO, M_SEEN_HI, M_EP_RNG = 48, 49, 50, 51, 52
M_WIDTH = 53

# _state columns
S_CP, S_PHASE, S_DEALER, S_THROWER, S_THROW_TURN, S_DRAW_TURNS, S_HAD_FIRST = 0, 1, 2, 3, 4, 5, 6
S_FINAL_LEFT, S_DECLINES, S_TRICKS_PLAYED, S_TRICK_LEN, S_TRICK_LEADER = 7, 8, 9, 10, 11
S_LT_LEADER, S_LT_WINNER, S_ROUND, S_PILE_POS, S_HIST_LEN, S_SCRIPTED = 12, 13, 14, 15, 16, 17
# per seat: face in the current and the last trick (-1 none), tricks won, stake points, score,
# last round's points, tie-break rank
S_TRICK, S_LT, S_TWON, S_STAKE_PTS, S_SCORES, S_LAST_PTS, S_RANK = 18, 24, 30, 36, 42, 48, 54
S_WIDTH = 60

# phases, in the order of the observation's one-hot (rules.PHASES), then game over
PH_FIRST, PH_DRAW, PH_FINAL, PH_PLAY, PH_OVER = 0, 1, 2, 3, 4
# how an action ended the round (``_apply``)
ROUND_PLAYED, DECK_EXHAUSTED = 1, 2

# _config entries
C_N, C_H, C_D, C_TARGET, C_EDTD, C_REVERSE, C_POINTS, C_HIST = range(8)

# the layout's segments in order: their offsets go to the kernels as one array in this order
SEGMENTS = (
    "hand", "stakes", "stake_points", "draw_pile_size", "thrower", "throw_turn", "draw_turns",
    "first_turn_done", "final_lap_due", "phase", "to_move", "dealer", "trick", "trick_leader",
    "played", "seen", "played_by", "last_discard", "last_trick", "last_trick_leader",
    "last_trick_winner", "tricks_won", "scores", "last_round_points", "tiebreak_rank",
    "target_score", "reverse",
)
(O_HAND, O_STAKES, O_SP, O_PILE, O_THROWER, O_THROW_TURN, O_DRAW_TURNS, O_FIRST, O_FINAL,
 O_PHASE, O_TO_MOVE, O_DEALER, O_TRICK, O_TRICK_LEADER, O_PLAYED, O_SEEN, O_PB, O_LD, O_LT,
 O_LT_LEADER, O_LT_WINNER, O_TWON, O_SCORES, O_LAST_PTS, O_RANK, O_TARGET, O_REVERSE) = range(27)

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_CLIP = float(SCORE_CLIP)
_TURN = float(TURN_SCALE)


# ---- bit and multiset helpers ----------------------------------------------------------------
# Helpers take the 1-d rows of one game: ``st`` of ``_state``, ``mk`` of ``_masks``, ``dk`` of
# ``_deck``, ``sc`` of ``_script``, ``rw`` of ``rewards``.
@numba.njit(cache=True)
def _low(x: np.uint64) -> np.int64:
    """The index of the lowest set bit of a non-zero word (one instruction)."""
    return np.int64(trailing_zeros(x))  # type: ignore[call-arg]


@numba.njit(cache=True)
def _with(lo: np.uint64, hi: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The multiset (``lo``, ``hi``) with one more card of the face of bit ``b``."""
    if lo & b:
        return lo, hi | b
    return lo | b, hi


@numba.njit(cache=True)
def _without(lo: np.uint64, hi: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The multiset (``lo``, ``hi``) with one card of the face of bit ``b`` fewer."""
    if hi & b:
        return lo, hi & ~b
    return lo & ~b, hi


# ---- observation rows ------------------------------------------------------------------------
@numba.njit(cache=True)
def _write_row(row: np.ndarray, base: int, lo: np.uint64, hi: np.uint64) -> None:
    """Counts of a multiset into a zeroed row of 52 entries."""
    while lo:
        row[base + _low(lo)] = 1.0
        lo &= lo - _ONE
    while hi:
        row[base + _low(hi)] = 2.0
        hi &= hi - _ONE


@numba.njit(cache=True)
def _patch_row(row: np.ndarray, base: int, old_lo: np.uint64, old_hi: np.uint64,
               lo: np.uint64, hi: np.uint64) -> None:
    """A row of counts that shows the old multiset made to show the new one (changed entries
    only)."""
    d = (old_lo ^ lo) | (old_hi ^ hi)
    while d:
        f = _low(d)
        u = np.uint64(f)
        row[base + f] = np.float32(((lo >> u) & _ONE) + ((hi >> u) & _ONE))
        d &= d - _ONE


@numba.njit(cache=True)
def _write_small(row: np.ndarray, st: np.ndarray, seat: int, off: np.ndarray,
                 config: np.ndarray) -> None:
    """Every entry of the small segments (scalars and per-seat numbers) for observer ``seat``."""
    n, decks, target = config[C_N], config[C_D], config[C_TARGET]
    phase = st[S_PHASE]
    over = phase == PH_OVER
    cp = st[S_CP]
    thrower = st[S_THROWER]
    dealer = st[S_DEALER]
    first = st[S_HAD_FIRST]
    final_left = st[S_FINAL_LEFT]
    trick_leader = st[S_TRICK_LEADER] if st[S_TRICK_LEN] > 0 else -1
    lt_leader = st[S_LT_LEADER]
    lt_winner = st[S_LT_WINNER] if lt_leader >= 0 else -1
    o_sp, o_thrower, o_first, o_final = off[O_SP], off[O_THROWER], off[O_FIRST], off[O_FINAL]
    o_to_move, o_dealer, o_tl = off[O_TO_MOVE], off[O_DEALER], off[O_TRICK_LEADER]
    o_ltl, o_ltw, o_twon = off[O_LT_LEADER], off[O_LT_WINNER], off[O_TWON]
    o_scores, o_last, o_rank = off[O_SCORES], off[O_LAST_PTS], off[O_RANK]
    for r in range(n):
        s = seat + r
        if s >= n:
            s -= n
        row[o_sp + r] = st[S_STAKE_PTS + s] / 100.0
        row[o_thrower + r] = 1.0 if s == thrower else 0.0
        row[o_first + r] = 1.0 if (first >> s) & 1 else 0.0
        k = s - cp
        if k < 0:
            k += n
        row[o_final + r] = 1.0 if thrower >= 0 and k < final_left else 0.0
        row[o_to_move + r] = 1.0 if (s == cp and not over) else 0.0
        row[o_dealer + r] = 1.0 if s == dealer else 0.0
        row[o_tl + r] = 1.0 if s == trick_leader else 0.0
        row[o_ltl + r] = 1.0 if s == lt_leader else 0.0
        row[o_ltw + r] = 1.0 if s == lt_winner else 0.0
        row[o_twon + r] = st[S_TWON + s]
        row[o_scores + r] = min(st[S_SCORES + s] / target, _CLIP)
        row[o_last + r] = st[S_LAST_PTS + s] / 100.0
        row[o_rank + r] = st[S_RANK + s] / (n - 1)
    row[off[O_PILE]] = (FACES * decks - st[S_PILE_POS]) / 100.0
    row[off[O_DRAW_TURNS]] = st[S_DRAW_TURNS] / _TURN
    row[off[O_THROW_TURN]] = st[S_THROW_TURN] / _TURN if thrower >= 0 else 0.0
    o_phase = off[O_PHASE]
    for p in range(4):
        row[o_phase + p] = 1.0 if p == phase else 0.0


@numba.njit(cache=True)
def _encode(row: np.ndarray, st: np.ndarray, mk: np.ndarray, seat: int, off: np.ndarray,
            config: np.ndarray) -> None:
    """``seat``'s whole observation, written into ``row`` (as ``encoder.encode``)."""
    n = config[C_N]
    for j in range(row.shape[0]):
        row[j] = 0.0
    _write_row(row, off[O_HAND], mk[M_HAND_LO + seat], mk[M_HAND_HI + seat])
    o_st, o_pb, o_ld, o_tr, o_lt = off[O_STAKES], off[O_PB], off[O_LD], off[O_TRICK], off[O_LT]
    for r in range(n):
        s = seat + r
        if s >= n:
            s -= n
        at = FACES * r
        _write_row(row, o_st + at, mk[M_STAKE_LO + s], mk[M_STAKE_HI + s])
        _write_row(row, o_pb + at, mk[M_PB_LO + s], mk[M_PB_HI + s])
        _write_row(row, o_ld + at, mk[M_LD_LO + s], mk[M_LD_HI + s])
        if st[S_TRICK + s] >= 0:
            row[o_tr + at + st[S_TRICK + s]] = 1.0
        if st[S_LT + s] >= 0:
            row[o_lt + at + st[S_LT + s]] = 1.0
    _write_row(row, off[O_PLAYED], mk[M_PLAYED_LO], mk[M_PLAYED_HI])
    _write_row(row, off[O_SEEN], mk[M_SEEN_LO], mk[M_SEEN_HI])
    row[off[O_TARGET]] = min(config[C_TARGET] / 1000.0, 10.0)
    if config[C_REVERSE]:
        row[off[O_REVERSE]] = 1.0
    _write_small(row, st, seat, off, config)


# ---- the mask ---------------------------------------------------------------------------------
@numba.njit(cache=True)
def _draw_mask(mrow: np.ndarray, st: np.ndarray, mk: np.ndarray, config: np.ndarray,
               table: np.ndarray) -> None:
    """The draw-phase part of the mask (discards and throw down) of the seat to move: the row of
    ``_mask_table`` for its bounds on the number of cards; with two decks, less the discards
    that take a face's second copy without its first (the reference's one action per multiset
    of cards)."""
    h, decks = config[C_H], config[C_D]
    phase = st[S_PHASE]
    hi = min(h, FACES * decks - st[S_PILE_POS])
    lo = 0 if phase == PH_FINAL or hi == 0 else 1
    throw = 1 if phase == PH_DRAW else 0
    t = (lo * (h + 1) + hi) * 2 + throw
    for j in range(table.shape[1]):
        mrow[j] = table[t, j]
    if decks == 1:
        return
    # bit p where the p-th card of the sorted hand is a face's second copy
    hand = mk[M_HAND_LO + st[S_CP]]
    twice = mk[M_HAND_HI + st[S_CP]]
    dup = 0
    p = 0
    while hand:
        b = hand & (_ZERO - hand)
        hand ^= b
        if twice & b:
            dup |= 1 << (p + 1)
            p += 2
        else:
            p += 1
    if dup:
        for j in range(1 << h):
            if ((j & dup) >> 1) & ~j:
                mrow[j] = 0


@numba.njit(cache=True)
def _write_mask(mrow: np.ndarray, st: np.ndarray, mk: np.ndarray, config: np.ndarray,
                table: np.ndarray) -> None:
    """The whole mask row of the seat to move (all zero once the game is over)."""
    for j in range(mrow.shape[0]):
        mrow[j] = 0
    phase = st[S_PHASE]
    if phase == PH_OVER:
        return
    if phase == PH_PLAY:
        base = (1 << config[C_H]) + 1
        hand = mk[M_HAND_LO + st[S_CP]]
        while hand:
            mrow[base + _low(hand)] = 1
            hand &= hand - _ONE
        return
    _draw_mask(mrow, st, mk, config, table)


# ---- dealing ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _shuffled(row: np.ndarray, rng: np.ndarray, i: int, decks: int) -> None:
    """Shuffle ``row`` with game ``i``'s stream, first filled (``decks`` > 0) with every card of
    the game by face, each ``decks`` times: a round's deal, the hands then the draw pile top
    first."""
    if decks > 0:
        for j in range(row.shape[0]):
            row[j] = j // decks
    shuffle(row, rng, i)


@numba.njit(cache=True)
def _deal_current(state: np.ndarray, masks: np.ndarray, deck: np.ndarray, script: np.ndarray,
                  rng: np.ndarray, rows: np.ndarray, config: np.ndarray, off: np.ndarray,
                  table: np.ndarray, to_move: np.ndarray, obs: np.ndarray,
                  mask: np.ndarray) -> None:
    """Game ``i`` (every game, its current round just dealt) dealt ``rows[i]`` (hands then draw
    pile, by face) as that round's script instead, the round dealt again from it
    (``_start_round``), and its outputs written as ``_deal_kernel`` writes them
    (``Engine.deal_current``)."""
    for i in range(state.shape[0]):
        st = state[i]
        mk = masks[i]
        r = st[S_ROUND]
        for j in range(rows.shape[1]):
            script[i, r, j] = rows[i, j]
        _start_round(st, mk, deck[i], script[i], rng, i, config)
        seat = np.int64(st[S_CP])
        _encode(obs[i], st, mk, seat, off, config)
        _write_mask(mask[i], st, mk, config, table)
        to_move[i] = seat


@numba.njit(cache=True)
def _start_round(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, sc: np.ndarray,
                 rng: np.ndarray, i: int, config: np.ndarray) -> None:
    """§3.2.1: deal (the scripted round ``sc[round]``, or a shuffle of the deck) for the dealer
    set in ``st``; the last trick stays until the trick phase begins."""
    n = config[C_N]
    r = st[S_ROUND]
    if r < st[S_SCRIPTED]:
        for j in range(dk.shape[0]):
            dk[j] = sc[r, j]
    else:
        _shuffled(dk, rng, i, config[C_D])
    h = config[C_H]
    for s in range(n):
        lo = _ZERO
        hi = _ZERO
        for j in range(s * h, s * h + h):
            lo, hi = _with(lo, hi, _ONE << np.uint64(dk[j]))
        mk[M_HAND_LO + s] = lo
        mk[M_HAND_HI + s] = hi
        mk[M_STAKE_LO + s] = _ZERO
        mk[M_STAKE_HI + s] = _ZERO
        mk[M_LD_LO + s] = _ZERO
        mk[M_LD_HI + s] = _ZERO
        mk[M_PB_LO + s] = _ZERO
        mk[M_PB_HI + s] = _ZERO
        st[S_TRICK + s] = -1
        st[S_TWON + s] = 0
        st[S_STAKE_PTS + s] = 0
    mk[M_PLAYED_LO] = _ZERO
    mk[M_PLAYED_HI] = _ZERO
    mk[M_SEEN_LO] = _ZERO
    mk[M_SEEN_HI] = _ZERO
    st[S_PILE_POS] = n * h
    st[S_THROWER] = -1
    st[S_THROW_TURN] = -1
    st[S_DRAW_TURNS] = 0
    st[S_HAD_FIRST] = 0
    st[S_FINAL_LEFT] = 0
    st[S_DECLINES] = 0
    st[S_TRICKS_PLAYED] = 0
    st[S_TRICK_LEN] = 0
    st[S_TRICK_LEADER] = -1
    st[S_PHASE] = PH_FIRST
    st[S_CP] = st[S_DEALER] + 1 if st[S_DEALER] + 1 < n else 0


# ---- the rules ---------------------------------------------------------------------------------
@numba.njit(cache=True)
def _close_round(st: np.ndarray, rw: np.ndarray, config: np.ndarray, exhausted: bool) -> bool:
    """§3.2.4-6: score the round (FAQ 7: the stakes when the deck ran out; else §3.2.4, or
    §3.6's mirrored scoring), update the FAQ 6 rank, pay the rewards ``rw``; pass the deal
    left (the caller deals), unless someone reached the target (then True: the game is
    over)."""
    n, h, target = config[C_N], config[C_H], config[C_TARGET]
    reverse, points_mode = config[C_REVERSE] != 0, config[C_POINTS] != 0
    thrower = st[S_THROWER]
    t_min = h
    t_max = 0
    for s in range(n):
        t_min = min(t_min, st[S_TWON + s])
        t_max = max(t_max, st[S_TWON + s])
    all_tricks = not exhausted and not reverse and st[S_TWON + thrower] == h
    # the round's points go straight to the last round's points
    for s in range(n):
        t = st[S_TWON + s]
        stake = st[S_STAKE_PTS + s]
        if exhausted:
            points = stake
        elif all_tricks:  # the thrower took every trick: everyone else doubles
            points = 0 if s == thrower else 2 * stake
        elif reverse:
            if s == thrower:
                points = 2 * stake if t == t_max else (stake if t != t_min else 0)
            else:
                points = stake if t == t_max else 0
        elif s == thrower:
            points = 2 * stake if t == t_min else (stake if t != t_max else 0)
        else:
            points = stake if t == t_min else 0
        st[S_LAST_PTS + s] = points
    # FAQ 6 rank: the seats whose (points now, rank before) is smaller; 4 bits a seat
    ranks = 0
    for s in range(n):
        k = 0
        for t in range(n):
            if st[S_LAST_PTS + t] < st[S_LAST_PTS + s] or (
                    st[S_LAST_PTS + t] == st[S_LAST_PTS + s] and st[S_RANK + t] < st[S_RANK + s]):
                k += 1
        ranks |= k << (4 * s)
    top = 0
    for s in range(n):
        st[S_RANK + s] = (ranks >> (4 * s)) & 15
        st[S_SCORES + s] += st[S_LAST_PTS + s]
        top = max(top, st[S_SCORES + s])
        if points_mode:  # points are bad: minus the points taken
            rw[s] = -float(st[S_LAST_PTS + s])
    st[S_ROUND] += 1
    if top >= target:
        st[S_PHASE] = PH_OVER
        st[S_CP] = -1
        if not points_mode:
            # the lowest total wins; of the tied, the lowest FAQ 6 rank (equal ranks share)
            low = st[S_SCORES]
            for s in range(1, n):
                low = min(low, st[S_SCORES + s])
            best = n
            for s in range(n):
                if st[S_SCORES + s] == low:
                    best = min(best, st[S_RANK + s])
            k = 0
            for s in range(n):
                if st[S_SCORES + s] == low and st[S_RANK + s] == best:
                    k += 1
            if k < n:
                for s in range(n):
                    won = st[S_SCORES + s] == low and st[S_RANK + s] == best
                    rw[s] = 1.0 / k if won else -1.0 / (n - k)
        return True
    st[S_DEALER] = st[S_DEALER] + 1 if st[S_DEALER] + 1 < n else 0
    return False


@numba.njit(cache=True)
def _discard(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, values: np.ndarray, seat: int,
             subset: int) -> None:
    """§3.2.2: lay the chosen hand positions face up (the stake) and draw as many."""
    lo = mk[M_HAND_LO + seat]
    hi = mk[M_HAND_HI + seat]
    stake_lo = mk[M_STAKE_LO + seat]
    stake_hi = mk[M_STAKE_HI + seat]
    seen_lo = mk[M_SEEN_LO]
    seen_hi = mk[M_SEEN_HI]
    rest = lo
    chosen_lo = _ZERO
    chosen_hi = _ZERO
    points = 0
    p = 0
    while rest:
        f = _low(rest)
        b = _ONE << np.uint64(f)
        rest &= rest - _ONE
        if hi & b:
            count = ((subset >> p) & 1) + ((subset >> (p + 1)) & 1)
            p += 2
        else:
            count = (subset >> p) & 1
            p += 1
        for _ in range(count):
            points += values[f >> 2]
            chosen_lo, chosen_hi = _with(chosen_lo, chosen_hi, b)
            lo, hi = _without(lo, hi, b)
            stake_lo, stake_hi = _with(stake_lo, stake_hi, b)
            seen_lo, seen_hi = _with(seen_lo, seen_hi, b)
    pos = st[S_PILE_POS]
    for _ in range(popcount64(np.uint64(subset))):
        lo, hi = _with(lo, hi, _ONE << np.uint64(dk[pos]))
        pos += 1
    st[S_PILE_POS] = pos
    mk[M_HAND_LO + seat] = lo
    mk[M_HAND_HI + seat] = hi
    mk[M_STAKE_LO + seat] = stake_lo
    mk[M_STAKE_HI + seat] = stake_hi
    mk[M_SEEN_LO] = seen_lo
    mk[M_SEEN_HI] = seen_hi
    mk[M_LD_LO + seat] = chosen_lo
    mk[M_LD_HI + seat] = chosen_hi
    st[S_STAKE_PTS + seat] += points
    st[S_DRAW_TURNS] += 1


@numba.njit(cache=True)
def _play(st: np.ndarray, mk: np.ndarray, seat: int, f: int, config: np.ndarray) -> bool:
    """§3.2.3: play a card of face ``f`` (either copy plays alike); True when that completes
    the round's last trick."""
    n = config[C_N]
    b = _ONE << np.uint64(f)
    mk[M_HAND_LO + seat], mk[M_HAND_HI + seat] = _without(mk[M_HAND_LO + seat],
                                                          mk[M_HAND_HI + seat], b)
    mk[M_PLAYED_LO], mk[M_PLAYED_HI] = _with(mk[M_PLAYED_LO], mk[M_PLAYED_HI], b)
    mk[M_SEEN_LO], mk[M_SEEN_HI] = _with(mk[M_SEEN_LO], mk[M_SEEN_HI], b)
    mk[M_PB_LO + seat], mk[M_PB_HI + seat] = _with(mk[M_PB_LO + seat], mk[M_PB_HI + seat], b)
    st[S_TRICK + seat] = f
    if st[S_TRICK_LEN] == 0:
        st[S_TRICK_LEADER] = seat
    st[S_TRICK_LEN] += 1
    if st[S_TRICK_LEN] < n:
        st[S_CP] = seat + 1 if seat + 1 < n else 0
        return False
    # the highest rank takes the trick (reverse: the lowest); ties go to the last played
    reverse = config[C_REVERSE] != 0
    leader = st[S_TRICK_LEADER]
    winner = leader
    best = st[S_TRICK + leader] >> 2
    s = leader
    for _ in range(n - 1):
        s = s + 1 if s + 1 < n else 0
        r = st[S_TRICK + s] >> 2
        if (r <= best) if reverse else (r >= best):
            winner = s
            best = r
    st[S_TWON + winner] += 1
    st[S_TRICKS_PLAYED] += 1
    for s in range(n):
        st[S_LT + s] = st[S_TRICK + s]
        st[S_TRICK + s] = -1
    st[S_LT_LEADER] = leader
    st[S_LT_WINNER] = winner
    st[S_TRICK_LEN] = 0
    st[S_TRICK_LEADER] = -1
    st[S_CP] = winner
    return st[S_TRICKS_PLAYED] == config[C_H]


@numba.njit(cache=True)
def _apply(st: np.ndarray, mk: np.ndarray, dk: np.ndarray, values: np.ndarray, a: int,
           config: np.ndarray) -> int:
    """Play action ``a`` (``rules.TexasEuchre.apply``). Returns 0, or ``ROUND_PLAYED`` /
    ``DECK_EXHAUSTED`` when the round is over (then ``_close_round`` scores it)."""
    n, h = config[C_N], config[C_H]
    seat = np.int64(st[S_CP])
    throw_action = 1 << h
    nxt = seat + 1 if seat + 1 < n else 0
    if a > throw_action:
        return ROUND_PLAYED if _play(st, mk, seat, a - throw_action - 1, config) else 0
    if a == throw_action:
        # §3.2.2 (a): the hand freezes; everyone else has one last turn
        st[S_THROWER] = seat
        st[S_THROW_TURN] = st[S_DRAW_TURNS]
        st[S_DRAW_TURNS] += 1
        st[S_FINAL_LEFT] = n - 1
        st[S_PHASE] = PH_FINAL
        st[S_CP] = nxt
        return 0
    # a discard (§3.2.2)
    _discard(st, mk, dk, values, seat, a)
    if st[S_PHASE] == PH_FINAL:
        st[S_FINAL_LEFT] -= 1
        if st[S_FINAL_LEFT] > 0:
            st[S_CP] = nxt
            return 0
        # back at the thrower: the thrower leads; the last trick is old news
        st[S_PHASE] = PH_PLAY
        st[S_CP] = st[S_THROWER]
        st[S_LT_LEADER] = -1
        for s in range(n):
            st[S_LT + s] = -1
        return 0
    first = st[S_HAD_FIRST] | (1 << seat)
    st[S_HAD_FIRST] = first
    if st[S_PILE_POS] < dk.shape[0]:
        st[S_CP] = nxt
        st[S_PHASE] = PH_DRAW if (first >> nxt) & 1 else PH_FIRST
        return 0
    if a == 0:
        st[S_DECLINES] += 1
    if config[C_EDTD] and st[S_DECLINES] < n:
        # A3's alternative: the next player who has had a first turn may still throw down
        while not (first >> nxt) & 1 and st[S_DECLINES] < n - 1:
            st[S_DECLINES] += 1
            nxt = nxt + 1 if nxt + 1 < n else 0
        if (first >> nxt) & 1:
            st[S_CP] = nxt
            st[S_PHASE] = PH_DRAW
            return 0
    # FAQ 7: the deck ran out before anyone threw down: everyone takes their stake
    return DECK_EXHAUSTED


# ---- kernels ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _replay_kernel(history: np.ndarray, state: np.ndarray, masks: np.ndarray, deck: np.ndarray,
                   script: np.ndarray, hist: np.ndarray, rng: np.ndarray, config: np.ndarray,
                   values: np.ndarray, off: np.ndarray, table: np.ndarray, to_move: np.ndarray,
                   obs: np.ndarray, mask: np.ndarray, rewards: np.ndarray,
                   done: np.ndarray) -> tuple[int, int, int]:
    """``_step_kernel`` on ``history[0]``, ``history[1]``, ... until the rows run out or a step
    ends a game or fills a history row (the caller settles those, then goes on); returns the
    steps taken and that last step's counts."""
    over, full = 0, 0
    for t in range(history.shape[0]):
        over, full = _step_kernel(history[t], state, masks, deck, script, hist, rng, config,
                                  values, off, table, to_move, obs, mask, rewards, done)
        if over or full:
            return t + 1, over, full
    return history.shape[0], over, full


@numba.njit(cache=True)
def _play_out(first: np.ndarray, seats: np.ndarray, state: np.ndarray, masks: np.ndarray,
              deck: np.ndarray, script: np.ndarray, hist: np.ndarray, rng: np.ndarray,
              config: np.ndarray, values: np.ndarray, off: np.ndarray, table: np.ndarray,
              to_move: np.ndarray, obs: np.ndarray, mask: np.ndarray, mask_u8: np.ndarray,
              rewards: np.ndarray, done: np.ndarray, bot_n: int, hand_size: int,
              copies: np.ndarray, reverse: bool, out: np.ndarray, ended: np.ndarray) -> int:
    """Games ``0..len(first)-1`` play ``first``, then the heuristic bot's moves
    (``bot_batched.decide`` on every row a ply) in lockstep, all in this call, until each
    game's round or game ends: ``out[i]`` is seat ``seats[i]``'s final reward where the game
    ended, and ``ended[i]`` is set where the round ended first (its value is the caller's).
    The games are left as they end (not dealt again; a full history row is emptied, not
    spilled: rollout rows are not rebuilt as games). Returns -1, or the first game where the
    bot's kernel left a row to the reference (``FALLBACK``)."""
    rows = first.shape[0]
    actions = first.copy()
    start = np.empty(rows, np.int64)
    for i in range(rows):
        start[i] = state[i, S_ROUND]
    cap = config[C_HIST]
    while True:
        _, full = _step_kernel(actions, state, masks, deck, script, hist, rng, config, values,
                               off, table, to_move, obs, mask, rewards, done)
        live = 0
        for i in range(rows):
            if full and state[i, S_HIST_LEN] >= cap:
                state[i, S_HIST_LEN] = 0
            if actions[i] < 0:
                continue
            if done[i]:
                out[i] = rewards[i, seats[i]]
                actions[i] = -1
            elif state[i, S_ROUND] != start[i]:
                ended[i] = True
                actions[i] = -1
            else:
                live += 1
        if live == 0:
            return -1
        chosen = decide(obs[:rows], mask_u8[:rows], off[O_HAND], off[O_STAKES], off[O_PHASE],
                        off[O_TRICK], off[O_SEEN], bot_n, hand_size, copies, reverse)
        for i in range(rows):
            if actions[i] >= 0:
                if chosen[i] == FALLBACK:
                    return i
                actions[i] = chosen[i]


@numba.njit(cache=True)
def _step_kernel(actions: np.ndarray, state: np.ndarray, masks: np.ndarray, deck: np.ndarray,
                 script: np.ndarray, history: np.ndarray, rng: np.ndarray, config: np.ndarray,
                 values: np.ndarray, off: np.ndarray, table: np.ndarray, to_move: np.ndarray,
                 obs: np.ndarray, mask: np.ndarray, rewards: np.ndarray,
                 done: np.ndarray) -> tuple[int, int]:
    """Play ``actions[i]`` in every game (skipping games with a negative action) and patch the
    observation and mask of the seat to move. A game that ends is left over (``done``) for
    ``_deal_kernel``. Returns the number of games over and of full history rows."""
    n, cap = config[C_N], config[C_HIST]
    o_hand, o_st, o_pb, o_ld = off[O_HAND], off[O_STAKES], off[O_PB], off[O_LD]
    o_tr, o_lt, o_played, o_seen = off[O_TRICK], off[O_LT], off[O_PLAYED], off[O_SEEN]
    play_base = (1 << config[C_H]) + 1
    over_count = 0
    full = 0
    for i in range(actions.shape[0]):
        rw = rewards[i]
        for s in range(n):
            rw[s] = 0.0
        done[i] = False
        a = actions[i]
        if a < 0:
            continue
        st = state[i]
        mk = masks[i]
        k = st[S_HIST_LEN]
        history[i, k] = a
        st[S_HIST_LEN] = k + 1
        if k + 1 >= cap:
            full += 1
        actor = np.int64(st[S_CP])
        old_phase = st[S_PHASE]
        hand_lo, hand_hi = mk[M_HAND_LO + actor], mk[M_HAND_HI + actor]
        stake_lo, stake_hi = mk[M_STAKE_LO + actor], mk[M_STAKE_HI + actor]
        ld_lo, ld_hi = mk[M_LD_LO + actor], mk[M_LD_HI + actor]
        pb_lo, pb_hi = mk[M_PB_LO + actor], mk[M_PB_HI + actor]
        played_lo, played_hi = mk[M_PLAYED_LO], mk[M_PLAYED_HI]
        seen_lo, seen_hi = mk[M_SEEN_LO], mk[M_SEEN_HI]
        # the faces in the current and the last trick, + 1 (0: none), 6 bits a seat
        old_trick = 0
        old_last = 0
        for s in range(n):
            old_trick |= (st[S_TRICK + s] + 1) << (6 * s)
            old_last |= (st[S_LT + s] + 1) << (6 * s)
        ended = _apply(st, mk, deck[i], values, a, config)
        if ended:
            if _close_round(st, rw, config, ended == DECK_EXHAUSTED):
                done[i] = True
                over_count += 1
                continue
            _start_round(st, mk, deck[i], script[i], rng, i, config)
        seat = np.int64(st[S_CP])
        to_move[i] = seat
        row = obs[i]
        mrow = mask[i]
        if ended:
            _encode(row, st, mk, seat, off, config)
            _write_mask(mrow, st, mk, config, table)
            continue
        # the card rows of each relative seat: from the old observer's view to the new one's
        for r in range(n):
            so = actor + r
            if so >= n:
                so -= n
            sn = seat + r
            if sn >= n:
                sn -= n
            at = FACES * r
            if so == actor:
                _patch_row(row, o_st + at, stake_lo, stake_hi, mk[M_STAKE_LO + sn],
                           mk[M_STAKE_HI + sn])
                _patch_row(row, o_ld + at, ld_lo, ld_hi, mk[M_LD_LO + sn], mk[M_LD_HI + sn])
                _patch_row(row, o_pb + at, pb_lo, pb_hi, mk[M_PB_LO + sn], mk[M_PB_HI + sn])
            elif so != sn:
                _patch_row(row, o_st + at, mk[M_STAKE_LO + so], mk[M_STAKE_HI + so],
                           mk[M_STAKE_LO + sn], mk[M_STAKE_HI + sn])
                _patch_row(row, o_ld + at, mk[M_LD_LO + so], mk[M_LD_HI + so],
                           mk[M_LD_LO + sn], mk[M_LD_HI + sn])
                _patch_row(row, o_pb + at, mk[M_PB_LO + so], mk[M_PB_HI + so],
                           mk[M_PB_LO + sn], mk[M_PB_HI + sn])
            f = ((old_trick >> (6 * so)) & 63) - 1
            if f >= 0:
                row[o_tr + at + f] = 0.0
            if st[S_TRICK + sn] >= 0:
                row[o_tr + at + st[S_TRICK + sn]] = 1.0
            f = ((old_last >> (6 * so)) & 63) - 1
            if f >= 0:
                row[o_lt + at + f] = 0.0
            if st[S_LT + sn] >= 0:
                row[o_lt + at + st[S_LT + sn]] = 1.0
        _patch_row(row, o_hand, hand_lo, hand_hi, mk[M_HAND_LO + seat], mk[M_HAND_HI + seat])
        _patch_row(row, o_played, played_lo, played_hi, mk[M_PLAYED_LO], mk[M_PLAYED_HI])
        _patch_row(row, o_seen, seen_lo, seen_hi, mk[M_SEEN_LO], mk[M_SEEN_HI])
        _write_small(row, st, seat, off, config)
        if st[S_PHASE] == PH_PLAY:
            old = hand_lo
            if old_phase != PH_PLAY:
                for j in range(play_base):
                    mrow[j] = 0
                old = _ZERO
            new = mk[M_HAND_LO + seat]
            d = old ^ new
            while d:
                f = _low(d)
                mrow[play_base + f] = 1 if (new >> np.uint64(f)) & _ONE else 0
                d &= d - _ONE
        else:
            _draw_mask(mrow, st, mk, config, table)
    return over_count, full


@numba.njit(cache=True)
def _deal_kernel(games: np.ndarray, dealers: np.ndarray, scripted: np.ndarray,
                 state: np.ndarray, masks: np.ndarray, deck: np.ndarray, script: np.ndarray,
                 rng: np.ndarray, config: np.ndarray, off: np.ndarray, table: np.ndarray,
                 final_scores: np.ndarray, final_obs: np.ndarray, to_move: np.ndarray,
                 obs: np.ndarray, mask: np.ndarray) -> None:
    """A new game for each of ``games`` (increasing). Where ``final_scores`` has rows (games
    over), first the final scores and every seat's final observation. ``scripted[k]`` rounds
    of the new game come from ``script`` (the first dealer ``dealers[k]``); otherwise the
    first dealer is drawn from the game's stream (§3.2.5)."""
    n = config[C_N]
    for k in range(games.shape[0]):
        i = games[k]
        st = state[i]
        mk = masks[i]
        if final_scores.shape[0] > 0:
            for s in range(n):
                final_scores[k, s] = st[S_SCORES + s]
                _encode(final_obs[k, s], st, mk, s, off, config)
        mk[M_EP_RNG] = rng[i]
        st[S_SCRIPTED] = scripted[k]
        st[S_DEALER] = dealers[k] if scripted[k] > 0 else randint(rng, i, n)
        for s in range(n):
            st[S_LT + s] = -1
            st[S_SCORES + s] = 0
            st[S_LAST_PTS + s] = 0
            st[S_RANK + s] = 0
        st[S_LT_LEADER] = -1
        st[S_LT_WINNER] = -1
        st[S_ROUND] = 0
        st[S_HIST_LEN] = 0
        _start_round(st, mk, deck[i], script[i], rng, i, config)
        seat = np.int64(st[S_CP])
        _encode(obs[i], st, mk, seat, off, config)
        _write_mask(mask[i], st, mk, config, table)
        to_move[i] = seat


@numba.njit(cache=True)
def _from_stream(rng: np.ndarray, i: int, n: int, draw_dealer: bool, decks: int,
                 rows: np.ndarray) -> int:
    """What the kernels draw from game ``i``'s stream, for Python: a first dealer (when
    ``draw_dealer``, else -1), then each row of ``rows`` through ``_shuffled`` (rebuilding an
    episode's deals, completing a scripted deal)."""
    dealer = int(randint(rng, i, n)) if draw_dealer else -1
    for r in range(rows.shape[0]):
        _shuffled(rows[r], rng, i, decks)
    return dealer


# ---- tables ----------------------------------------------------------------------------------
@cache
def _mask_table(h: int) -> np.ndarray:
    """The draw-phase mask (discards and throw down) of a hand of ``h`` cards without two copies
    of a face, by (lowest k, highest k, throw down allowed): row ``(lo * (h + 1) + hi) * 2 +
    throw``. Built from the reference's own legal-action lists."""
    table = np.zeros((2 * (h + 1) * 2, (1 << h) + 1), np.int8)
    for lo in (0, 1):
        for hi in range(h + 1):
            for throw in (0, 1):
                table[(lo * (h + 1) + hi) * 2 + throw, _draw_legal(h, lo, hi, bool(throw), 0)] = 1
    table.setflags(write=False)
    return table


def _faces(mask: int) -> list[int]:
    """The faces of a card-id mask, sorted (a face twice where both copies are there)."""
    out = []
    while mask:
        low = mask & -mask
        out.append((low.bit_length() - 1) >> 1)
        mask ^= low
    return out


_FACE_IDS = {face_str(f): f for f in range(FACES)}


def _trusted_parse(deal: Mapping[str, Any]) -> tuple[int | None, list[list[int]] | None,
                                                    list[int] | None]:
    """A deal from a trusted source (``BatchedEngine.trusted``: the world sampler's, faces named
    as ``face_str`` names them) as faces, with no checks: ``(dealer, each hand's faces sorted,
    the draw pile's faces)``, read from the record's ``faces`` where it keeps them
    (``rules.FaceDeal``), else a lookup a card (``TexasEuchre._parse_deal`` gives card ids)."""
    faces = getattr(deal, "faces", None)
    if faces is not None:
        return deal.get("dealer"), faces[0], faces[1]
    hands = deal.get("hands")
    pile = deal.get("draw_pile")
    return (deal.get("dealer"),
            None if hands is None else [sorted(_FACE_IDS[c] for c in hand) for hand in hands],
            None if pile is None else [_FACE_IDS[c] for c in pile])


class Engine(BatchedEngine):
    """Texas Euchre's batched engine (see the module docstring). Every option of the AEC env is
    played: 3–6 players, ``target_score``, ``face_card_values``, ``empty_deck_throw_down``,
    ``reverse`` and both reward modes."""

    SEGMENTS = SEGMENTS
    ROW_ARRAYS = ("_state", "_masks", "_deck", "_history", "_script", "rng_state")
    DEALS_CURRENT = True
    HAND_CHANCE = False  # the stream deals hands (and draws a first dealer), nothing else

    def __init__(self, spec: GameSpec, options: dict[str, Any], num_envs: int) -> None:
        super().__init__(spec, options, num_envs)  # checks SEGMENTS against the layout
        p = self.num_players
        if self.num_actions > 256:
            raise RuntimeError("texas_euchre batched engine: action ids must fit _history (uint8)")
        self.hand_size = h = HAND_SIZE[p]
        self.decks = d = DECKS[p]
        self._config = np.array([p, h, d, int(options["target_score"]),
                                 int(bool(options["empty_deck_throw_down"])),
                                 int(bool(options["reverse"])),
                                 int(options["reward_mode"] == "points"), HISTORY], np.int64)
        self._values = np.array(FACE_VALUES[options["face_card_values"]], np.int64)
        self._off = np.array(self.segment_offsets, np.int64)
        self._table = _mask_table(h)
        n = self.num_envs
        self._state = np.zeros((n, S_WIDTH), np.int32)
        self._masks = np.zeros((n, M_WIDTH), np.uint64)
        self._deck = np.zeros((n, FACES * d), np.uint8)
        self._history = np.zeros((n, HISTORY), np.uint8)
        self._script = np.zeros((n, 0, FACES * d), np.uint8)
        self.rng_state = np.zeros(n, np.uint64)
        # per game: the episode's scripted rounds as deal records, and actions moved out of the
        # kernel's history row (both empty for most games)
        self._records: dict[int, list[dict[str, Any]]] = {}
        self._spilled: dict[int, bytearray] = {}
        self._parser = TexasEuchre(self.options, np.random.default_rng(0), None)
        self._max_rounds = max_rounds(self.options)

    # ---- reset and step ---------------------------------------------------------------------
    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        n = self.num_envs
        if not (isinstance(rng_state, np.ndarray) and rng_state.dtype == np.uint64
                and rng_state.shape == (n,) and rng_state.flags.c_contiguous
                and rng_state.flags.writeable):
            raise ValueError(f"rng_state must be a writeable uint64 array of shape ({n},), got "
                             f"{getattr(rng_state, 'dtype', type(rng_state).__name__)}"
                             f"{list(getattr(rng_state, 'shape', ()))}")
        per_game = self.check_deals(deals) if deals is not None else None
        self.rng_state = rng_state  # advanced in place: each game's stream goes on
        dealers = np.zeros(n, np.int64)
        scripted = np.zeros(n, np.int64)
        self._records = {}
        self._spilled = {}
        if per_game is None:
            self._script = np.zeros((n, 0, FACES * self.decks), np.uint8)
        else:
            parse = once_per_record(_trusted_parse) if self.trusted else self._parser._parse_deal
            parsed = [parse_deals(deal, self._max_rounds, parse, self.num_players)
                      for deal in per_game]
            self._script = np.zeros((n, max(len(x) for x in parsed), FACES * self.decks),
                                    np.uint8)
            for i, rounds in enumerate(parsed):
                given = per_game[i] if self.trusted else None
                dealers[i], scripted[i] = self._complete(i, rounds, given), len(rounds)
        self.final_buffers(0)
        self._deal(np.arange(n, dtype=np.int64), dealers, scripted)
        self.rewards[:] = 0.0
        self.done[:] = False
        self._dealt = True

    def _deal(self, games: np.ndarray, dealers: np.ndarray, scripted: np.ndarray) -> None:
        """Deal new games (``_deal_kernel``) after the final rows of the games over, if any."""
        _deal_kernel(games, dealers, scripted, self._state, self._masks, self._deck, self._script,
                     self.rng_state, self._config, self._off, self._table, self.final_scores,
                     self.final_obs, self.to_move, self.obs, self.mask)

    def _complete(self, i: int, rounds: list[tuple[Any, ...]],
                  given: list[dict[str, Any]] | None = None) -> int:
        """Store game ``i``'s scripted rounds in ``_script`` (a key left out is dealt from the
        game's stream, as the reference deals it from its generator) and as deal records (a
        whole round of ``given``, the deals of a trusted engine, as it was given); returns the
        first dealer."""
        p, h, d = self.num_players, self.hand_size, self.decks
        dealer = rounds[0][0]
        if dealer is None:
            dealer = int(_from_stream(self.rng_state, i, p, True, 0, np.zeros((0, 0), np.uint8)))
        records = []
        for k, (_, hands, pile) in enumerate(rounds):
            if given is not None:  # a trusted engine's rounds are faces (``_trusted_parse``)
                hand_faces, pile_faces = hands, pile
            else:  # card ids
                hand_faces = None if hands is None else [_faces(m) for m in hands]
                pile_faces = None if pile is None else [c >> 1 for c in pile]
            if hand_faces is None or pile_faces is None:
                left = [d] * FACES
                for faces in (hand_faces or []) + [pile_faces or []]:
                    for f in faces:
                        left[f] -= 1
                rest = np.array([[f for f in range(FACES) for _ in range(left[f])]], np.uint8)
                _from_stream(self.rng_state, i, p, False, 0, rest)
                cards = rest[0].tolist()
                if hand_faces is None:
                    hand_faces = [sorted(cards[s * h:(s + 1) * h]) for s in range(p)]
                    cards = cards[p * h:]
                if pile_faces is None:
                    pile_faces = cards
            row = [f for faces in hand_faces for f in faces] + pile_faces
            self._script[i, k] = row
            if given is not None and hands is not None and pile is not None:
                records.append({"dealer": (dealer + k) % p, **given[k]})
            else:
                records.append(self._record((dealer + k) % p, np.array(row, np.uint8)))
        self._records[i] = records
        return int(dealer)

    def _record(self, dealer: int, row: np.ndarray) -> dict[str, Any]:
        """A round's deal (hands then pile, by face) in the scripted-deal format."""
        p, h = self.num_players, self.hand_size
        faces = row.tolist()
        return {
            "dealer": int(dealer),
            "hands": [[face_str(f) for f in sorted(faces[s * h:(s + 1) * h])] for s in range(p)],
            "draw_pile": [face_str(f) for f in faces[p * h:]],
        }

    def deal_current(self, deals: Sequence[Mapping[str, Any]]) -> None:
        """``BatchedEngine.deal_current``: game ``i``'s current round becomes ``deals[i]``
        (the hands and the draw pile, as ``_start_round`` deals a scripted round, and the
        round's record for ``game(i)``), its outputs written anew."""
        size, h = self.num_envs, self.hand_size
        state = self._state
        self.check_deal_current(
            deals, (state[:, S_PHASE] == PH_FIRST) & (state[:, S_DRAW_TURNS] == 0), "round")
        width = FACES * self.decks
        rows = np.empty((size, width), np.uint8)
        records = []
        for i, deal in enumerate(deals):
            dealer, hands, pile = _trusted_parse(deal)
            row = [] if hands is None or pile is None or any(len(x) != h for x in hands) else \
                [f for hand in hands for f in hand] + list(pile)
            if len(row) != width or dealer is not None and dealer != state[i, S_DEALER]:
                raise ValueError(f"game {i}: deal_current takes the hands ({h} cards each) and "
                                 f"the draw pile of the round being dealt, by its dealer "
                                 f"{int(state[i, S_DEALER])}, got {short_repr(dict(deal))}")
            rows[i] = row
            records.append({"dealer": int(state[i, S_DEALER]), **deal})
        if (state[:, S_SCRIPTED] <= state[:, S_ROUND]).any():
            raise ValueError("deal_current: the copied games' scripted rounds do not reach their "
                             "current round")
        _deal_current(state, self._masks, self._deck, self._script, self.rng_state, rows,
                      self._config, self._off, self._table, self.to_move, self.obs, self.mask)
        for i, record in enumerate(records):
            r = int(state[i, S_ROUND])
            self._records[i] = [*self._records.get(i, [])[:r], record]

    def step(self, actions: np.ndarray) -> None:
        if not self._dealt:
            raise RuntimeError("reset() the engine before step()")
        acts = np.ascontiguousarray(actions, np.int64)
        self.final_buffers(0)
        over, full = _step_kernel(acts, self._state, self._masks, self._deck, self._script,
                                  self._history, self.rng_state, self._config, self._values,
                                  self._off, self._table, self.to_move, self.obs, self.mask,
                                  self.rewards, self.done)
        self._settle(over, full)

    def step_histories(self, history: np.ndarray) -> None:
        """``step`` for each row of ``history``, the rows between two games' ends or history
        spills in one kernel call (``_replay_kernel``)."""
        if not self._dealt:
            raise RuntimeError("reset() the engine before step()")
        history = np.ascontiguousarray(history, np.int64)
        self.final_buffers(0)
        t = 0
        while t < len(history):
            steps, over, full = _replay_kernel(
                history[t:], self._state, self._masks, self._deck, self._script, self._history,
                self.rng_state, self._config, self._values, self._off, self._table,
                self.to_move, self.obs, self.mask, self.rewards, self.done)
            self._settle(over, full)
            t += steps

    def _settle(self, over: int, full: int) -> None:
        """After a step kernel: deal the games that ended again, spill full history rows."""
        if over:
            ended = np.flatnonzero(self.done)
            self.final_buffers(len(ended))
            zeros = np.zeros(len(ended), np.int64)
            self._deal(ended, zeros, zeros)
            if self._records or self._spilled:
                for i in ended.tolist():
                    self._records.pop(i, None)
                    self._spilled.pop(i, None)
        if full:
            lengths = self._state[:, S_HIST_LEN]
            for i in np.flatnonzero(lengths >= HISTORY).tolist():
                self._spilled.setdefault(i, bytearray()).extend(self._history[i].tobytes())
                lengths[i] = 0

    # ---- rows for search ------------------------------------------------------------------
    def copy_rows(self, source: BatchedEngine, rows: np.ndarray,
                  observations: bool = True) -> None:
        """``BatchedEngine.copy_rows``, with the scripted rounds (``_script`` takes the
        source's number of rounds) and the Python-side records and spilled history."""
        assert isinstance(source, Engine)
        if self._script.shape[1] != source._script.shape[1]:
            self._script = np.zeros((self.num_envs, *source._script.shape[1:]), np.uint8)
        super().copy_rows(source, rows, observations)
        k = len(rows)
        order = rows.tolist()
        records, spilled = source._records, source._spilled
        # the games past the copied ones keep theirs; records are never changed in place,
        # spilled histories are extended in place (copied)
        self._records = {j: v for j, v in self._records.items() if j >= k}
        self._records.update({j: records[r] for j, r in enumerate(order) if r in records})
        self._spilled = {j: v for j, v in self._spilled.items() if j >= k}
        if spilled:
            self._spilled.update({j: bytearray(spilled[r]) for j, r in enumerate(order)
                                  if r in spilled})

    def hands_dealt(self) -> np.ndarray:
        return self._state[:, S_ROUND].astype(np.int64) + 1

    def play_out(self, policy: Any, actions: np.ndarray, seats: np.ndarray,
                 value: Callable[[Any, int], float], starts: Sequence[Game],
                 ) -> np.ndarray | None:
        """The heuristic bot (``bot.HeuristicPolicy`` of these options) in lockstep inside one
        kernel call (``_play_out``); the rows whose round ended are valued after it
        (``boundary_values``). None for any other policy."""
        if type(policy) is not HeuristicPolicy or policy.num_players != self.num_players or \
                policy.layout.size != self.obs_size or policy.reverse != bool(
                    self.options.get("reverse", False)):
            return None
        rows = len(actions)
        out = np.zeros(rows)
        ended = np.zeros(rows, np.bool_)
        stuck = _play_out(np.ascontiguousarray(actions, np.int64),
                          np.ascontiguousarray(seats, np.int64), self._state, self._masks,
                          self._deck, self._script, self._history, self.rng_state, self._config,
                          self._values, self._off, self._table, self.to_move, self.obs,
                          self.mask, self.mask.view(np.uint8), self.rewards, self.done,
                          self.num_players, self.hand_size,
                          np.full(1, policy.copies, self.obs.dtype), policy.reverse, out, ended)
        if stuck >= 0:
            raise RuntimeError(f"texas_euchre batched engine: the heuristic kernel left game "
                               f"{stuck}'s move to the reference bot")
        at = np.flatnonzero(ended)
        if at.size:
            out[at] = self.boundary_values(at, np.asarray(seats)[at],
                                           [starts[r] for r in at.tolist()], value)
        return out

    def boundary_state(self, i: int, start: Game) -> Any:
        """What ``search.value`` reads between rounds: the scores, the FAQ 6 tie-break ranks
        and every round's points (those before ``start``'s round, then the one just ended)."""
        st = self._state[i]
        n = self.num_players
        played = cast(Any, start).round_points
        last = [int(x) for x in st[S_LAST_PTS : S_LAST_PTS + n]]
        return SimpleNamespace(
            is_over=False, num_players=n, target_score=int(self._config[3]),
            round_points=[list(r) for r in played] + [last],
            scores=[int(x) for x in st[S_SCORES : S_SCORES + n]],
            tiebreak_rank=[int(x) for x in st[S_RANK : S_RANK + n]])

    def boundary_values(self, rows: np.ndarray, seats: np.ndarray, starts: Sequence[Game],
                        value: Callable[[Any, int], float]) -> np.ndarray:
        """``search.value`` between rounds for many rows at once
        (``search.values_between_rounds``, the rounds before each start game summed once per
        game)."""
        if value is not search.value or not len(rows):
            return super().boundary_values(rows, seats, starts, value)
        n = self.num_players
        rows = np.asarray(rows, np.int64)
        sums: dict[int, tuple[int, int, int]] = {}
        past = np.zeros((len(rows), 3))
        for k, start in enumerate(starts):
            key = id(start)
            if key not in sums:
                played = cast(Any, start).round_points
                sums[key] = (len(played), sum(sum(r) for r in played),
                             sum(x * x for r in played for x in r))
            past[k] = sums[key]
        st = self._state[rows]
        last = st[:, S_LAST_PTS : S_LAST_PTS + n].astype(np.float64)
        return search.values_between_rounds(
            np.asarray(seats, np.int64), st[:, S_SCORES : S_SCORES + n].astype(np.float64),
            st[:, S_RANK : S_RANK + n].astype(np.float64), past[:, 0] + 1,
            past[:, 1] + last.sum(axis=1), past[:, 2] + (last * last).sum(axis=1),
            int(self._config[3]))

    # ---- game(i) ------------------------------------------------------------------------------
    def deals_of(self, i: int) -> list[dict[str, Any]]:
        """Every round of game ``i``'s episode so far, in the scripted-deal format."""
        p = self.num_players
        rounds = int(self._state[i, S_ROUND]) + 1
        records = list(self._records.get(i, [])[:rounds])
        if len(records) < rounds:
            stream = np.array([self._masks[i, M_EP_RNG]], np.uint64)
            rows = np.zeros((rounds - len(records), FACES * self.decks), np.uint8)
            drawn = int(_from_stream(stream, 0, p, not records, self.decks, rows))
            dealer = records[0]["dealer"] if records else drawn
            for k, row in enumerate(rows, start=len(records)):
                records.append(self._record((dealer + k) % p, row))
        return records

    def actions_of(self, i: int) -> list[int]:
        """Every action of game ``i``'s episode so far."""
        kept = self._history[i, : int(self._state[i, S_HIST_LEN])]
        return list(self._spilled.get(i, b"")) + kept.tolist()

    def game(self, i: int) -> Game:
        if not self._dealt:
            raise RuntimeError("reset() the engine before game(i)")
        if not 0 <= i < self.num_envs:
            raise ValueError(f"game index {i} is out of range 0..{self.num_envs - 1}")
        return self.replay(self.deals_of(i), self.actions_of(i))

    def memory_per_game(self) -> float:
        spilled = sum(len(b) for b in self._spilled.values())
        return super().memory_per_game() + spilled / self.num_envs
