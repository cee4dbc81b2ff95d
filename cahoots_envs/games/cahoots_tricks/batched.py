"""The batched engine of Cahoots (competitive): ``num_envs`` games in lockstep in one numba kernel.

The rules are those of ``rules.py`` (the reference) and the observation that of ``encoder.py``,
entry for entry; ``tests/games/cahoots_tricks/test_vector.py`` checks both at every step. Every option
of the AEC env is played, ``point_split='random'`` included: its random split of the point cards
is drawn from the game's own stream and recorded, so that ``game(i)`` replays it.

State of one game (about 1.2 KB with 4 players), one row in each of three arrays:

- ``zones`` (``uint64[N, 16]``): the hands, the cards each hand is publicly known to hold (kept
  and not played since), the hands as dealt, the trick pool, the point pool, the killed cards
  and the reserve cards drawn, each a zone of ``rules.py`` (card type ``t`` owns bits ``2t`` and
  ``2t + 1``, its count in unary);
- ``ints`` (``int32[N, S_SIZE]``): the scalars (trick, phase, start player, seat to move, ...),
  the trick in progress with its keep/kill picks and scoring winners, the last completed trick,
  the scores in thirds of a point and the deal's identity cards and start player;
- ``tallies`` (``uint8[N, ...]``): the public counts the encoder copies as they are (``played``,
  ``kept``, ``played_by``, ``killed_by``), the random point splits, the reserve as dealt and
  the actions chosen since the deal (what ``game(i)`` replays).

The kernel plays the action of every game, then every forced decision after it (a decision with
one legal action is made for the player, as ``CahootsTricks.apply`` does), and rewrites the
observation row and mask of the seat to move. The games that ended are left for a second call
of the same kernel, which writes each seat's final observation and deals them again from their
own stream. A game never ends at its deal (all 11 tricks are played), so ``deal_rewards`` stay
zero. The helpers are compiled once each and inlined by LLVM: inlining them with numba's own
``inline="always"`` made the cold compile last minutes instead of seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numba
import numpy as np

from cahoots_envs.core.batched import BatchedEngine
from cahoots_envs.core.game import Game
from cahoots_envs.core.numba_kernels import (
    lowest_bit_index,
    next_u64,
    popcount64,
    randint,
    split_outcome,
)
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.games.cahoots_tricks.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_tricks.bot_batched import FORCED, best_row, kernel_offsets, scratch
from cahoots_envs.games.cahoots_tricks.encoder import (
    FIELDS_OF_BYTE,
    GAME_POINTS,
    SUIT_TOTAL_SCALE,
    TRICK_THIRDS,
)
from cahoots_envs.games.cahoots_tricks.rules import (
    EVEN_BITS,
    HAND_SIZE,
    IDENTITY_CARDS,
    IDENTITY_MASKS,
    KEEP_BASE,
    KILL_BASE,
    NUM_ACTIONS,
    NUM_TYPES,
    PLAY_BASE,
    POINTS_PER_TRICK,
    RESERVE_TYPES,
    TAKE_BASE,
    TRICKS,
    card_str,
    deck_counts,
    zone_types,
)

# ---- the packed state ---------------------------------------------------------------------
MAXP = 4  # the most seats: per-seat fields always take MAXP slots

# ``ints`` columns
S_START = 0  # start player of the current trick
S_TRICKNUM = 1  # 1..11
S_CUR = 2  # seat to move, -1 once over
S_PHASE = 3  # 0 play, 1 keep/kill, 2 draft
S_PICKS = 4  # keep/kill picks (or draft picks) made this trick
S_NTRICK = 5  # cards played to the trick
S_WSUITS = 6  # winning suits (a mask; set at the resolution)
S_NWIN = 7  # scoring winners (0 until the trick is resolved)
S_OVER = 8
S_NKILL = 9  # kills this trick
S_NACT = 10  # actions chosen since the deal
S_RES = 11  # reserve cards drawn
S_LAST = 12  # 1 once a trick has been completed
S_LSTART = 13  # the last completed trick's start player
S_LWSUITS = 14
S_LNWIN = 15
S_DSTART = 16  # the deal's start player
S_NSPLIT = 17  # random point splits drawn since the deal
S_WIN = 18  # scoring winners, clockwise from the start player
S_DRAFT = S_WIN + MAXP  # who gets each of the 4 point cards (the snake order, §2.5)
S_TRICK = S_DRAFT + 4  # the trick's cards in play order
S_KEPT = S_TRICK + 2 * MAXP  # per seat, the card it kept this trick (-1: none yet)
S_KILLED = S_KEPT + MAXP  # per seat, the card it killed this trick
S_CARDS = S_KILLED + MAXP  # the trick's point cards: the kills in order, then the reserve card
S_TOT = S_CARDS + 4  # suit totals of the trick
S_TH = S_TOT + 6  # scores in thirds of a point
S_THB = S_TH + MAXP  # scores in thirds when the trick began
S_IDENT = S_THB + MAXP  # identity card (0..3) per seat
S_IMASK = S_IDENT + MAXP  # its suits
S_LPLAY = S_IMASK + MAXP  # the last completed trick: its cards in play order
S_LKEPT = S_LPLAY + 2 * MAXP
S_LKILLED = S_LKEPT + MAXP
S_LWIN = S_LKILLED + MAXP
S_LPTS = S_LWIN + MAXP  # the points (thirds) each seat got from it
S_TMASK = S_LPTS + MAXP  # per row of ``tallies``' counts, the types counted there (a mask)
S_SIZE = S_TMASK + 1 + 3 * MAXP

# ``zones`` columns
Z_HAND = 0
Z_KNOWN = MAXP
Z_DEALT = 2 * MAXP
Z_TPOOL = 3 * MAXP
Z_PPOOL = Z_TPOOL + 1
Z_KILLED = Z_TPOOL + 2
Z_RDRAWN = Z_TPOOL + 3
Z_SIZE = Z_TPOOL + 4

# ``tallies`` columns: the counts as rules.py keeps them in rows of 30 (played; per seat kept,
# played_by, killed_by), then one byte per trick for its random split, the reserve, the log
RES_SIZE = len(RESERVE_TYPES)  # 12
T_KEPT = NUM_TYPES
T_PLAYED_BY = T_KEPT + MAXP * NUM_TYPES
T_KILLED_BY = T_PLAYED_BY + MAXP * NUM_TYPES
T_SPLIT = T_KILLED_BY + MAXP * NUM_TYPES
T_RES = T_SPLIT + TRICKS
T_LOG = T_RES + RES_SIZE
NO_SPLIT = 255  # a split byte: no random split in that trick

# observation segments in the layout's order; the kernel's parameters hold their offsets
SEGMENTS = (
    "hand", "trick_pool", "point_pool", "killed", "reserve_drawn", "unseen", "known_hands",
    "played", "kept", "played_by", "killed_by", "identities", "trick_plays", "suit_totals",
    "winning_suits", "scoring_winners", "trick_picks", "last_trick_plays", "last_trick_picks",
    "last_trick_winning_suits", "last_trick_scoring_winners", "last_trick_points", "hand_sizes",
    "scores", "trick_number", "start_player", "phase", "keep_kill_pass", "to_move",
)
# the kernel's parameters (int64): the options, then the segment offsets
P_N, P_FACE, P_DRAFT, P_EVEN, P_POINTS = range(5)
P_OFF = 5
(O_HAND, O_TPOOL, O_PPOOL, O_KILLED, O_RDRAWN, O_UNSEEN, O_KNOWN, O_PLAYED, O_KEPT, O_PLAYED_BY,
 O_KILLED_BY, O_IDENT, O_TPLAYS, O_TOTALS, O_WSUITS, O_WINNERS, O_TPICKS, O_LPLAYS, O_LPICKS,
 O_LWSUITS, O_LWINNERS, O_LPOINTS, O_HSIZES, O_SCORES, O_TRICKNUM, O_START, O_PHASE, O_KKPASS,
 O_TOMOVE) = range(P_OFF, P_OFF + len(SEGMENTS))
P_SIZE = P_OFF + len(SEGMENTS)

MODE_RESET, MODE_STEP, MODE_FINISH = 0, 1, 2

_E = np.uint64(EVEN_BITS)
_Z0 = np.uint64(0)
_Z1 = np.uint64(1)
_BYTE = np.uint64(255)
_EIGHT = np.uint64(8)
_FIELDS = FIELDS_OF_BYTE  # byte -> the counts of its four 2-bit fields (a constant to numba)
_IMASKS = np.array(IDENTITY_MASKS, np.int64)
_RESERVE = np.array(RESERVE_TYPES, np.int64)


# ---- bits and zones (the shared helpers are inlined once, into these) ---------------------
@numba.njit(cache=True, error_model="numpy")
def _low(z: np.uint64) -> int:
    return int(lowest_bit_index(z))


@numba.njit(cache=True, error_model="numpy")
def _count(z: np.uint64) -> int:
    return int(popcount64(z))


@numba.njit(cache=True, error_model="numpy")
def _rand(rng: np.ndarray, g: int, k: int) -> int:
    return int(randint(rng, g, k))


@numba.njit(cache=True, error_model="numpy")
def _add(zone: np.uint64, t: int) -> np.uint64:
    low = _Z1 << np.uint64(2 * t)
    if zone & low:
        return zone | (low << _Z1)
    return zone | low


@numba.njit(cache=True, error_model="numpy")
def _remove(zone: np.uint64, t: int) -> np.uint64:
    """Remove one card of type ``t`` (which must be in ``zone``)."""
    high = _Z1 << np.uint64(2 * t + 1)
    if zone & high:
        return zone ^ high
    return zone ^ (high >> _Z1)


@numba.njit(cache=True, error_model="numpy")
def _single(zone: np.uint64) -> int:
    """The one card type in ``zone``, or -1 if it holds none or several."""
    z = zone & _E
    if z == _Z0 or z & (z - _Z1) != _Z0:
        return -1
    return _low(z) >> 1


@numba.njit(cache=True, error_model="numpy")
def _put_few(out: np.ndarray, at: int, zone: np.uint64) -> None:
    """``_put_counts`` for a zone of few cards, where ``out`` is zero: only its types."""
    z = zone & _E
    while z != _Z0:
        b = _low(z)
        out[at + (b >> 1)] = 1.0 + np.float32((zone >> np.uint64(b + 1)) & _Z1)
        z &= z - _Z1


@numba.njit(cache=True, error_model="numpy")
def _put_tally(out: np.ndarray, at: int, tl: np.ndarray, row: int, types: int) -> None:
    """Row ``row`` of the tallies to ``out[at : at + 30]`` (zero there): the types counted in
    it (``types``, a mask) only."""
    m = np.uint64(types)
    base = row * NUM_TYPES
    while m != _Z0:
        t = _low(m)
        out[at + t] = tl[base + t]
        m &= m - _Z1


@numba.njit(cache=True, error_model="numpy")
def _tally(st: np.ndarray, tl: np.ndarray, row: int, t: int) -> None:
    """Count one card of type ``t`` in row ``row`` of the tallies."""
    tl[row * NUM_TYPES + t] += 1
    st[S_TMASK + row] |= 1 << t


@numba.njit(cache=True, error_model="numpy")
def _put_counts(out: np.ndarray, at: int, zone: np.uint64) -> None:
    """Write the count of every type in ``zone`` to ``out[at : at + 30]``, a byte (4 types) at
    a time through the encoder's table (unary and binary 2-bit counts read alike)."""
    z = zone
    for j in range(7):
        b = np.int64(z & _BYTE)
        at4 = at + 4 * j
        out[at4] = _FIELDS[b, 0]
        out[at4 + 1] = _FIELDS[b, 1]
        out[at4 + 2] = _FIELDS[b, 2]
        out[at4 + 3] = _FIELDS[b, 3]
        z >>= _EIGHT
    b = np.int64(z & _BYTE)
    out[at + 28] = _FIELDS[b, 0]
    out[at + 29] = _FIELDS[b, 1]


# ---- the rules, on one game's rows ``zn``, ``st``, ``tl`` -----------------------------------
@numba.njit(cache=True, error_model="numpy")
def _leaders(st: np.ndarray, n: int) -> tuple[int, int]:
    """(winning suits, number of scoring winners) of the suit totals so far, the winners
    clockwise from the start player in ``st[S_WIN : S_WIN + count]`` (§2.3 Phase 2; before the
    resolution those slots are free, so the encoder uses them too)."""
    best = 0
    for k in range(6):
        best = max(best, st[S_TOT + k])
    if best == 0:
        return 0, 0
    won = 0
    for k in range(6):
        if st[S_TOT + k] == best:
            won |= 1 << k
    seat = st[S_START]
    most = 0
    count = 0
    for _ in range(n):
        m = _count(np.uint64(st[S_IMASK + seat] & won))
        if m > most:
            most = m
            count = 0
        if m == most:
            st[S_WIN + count] = seat
            count += 1
        seat += 1
        if seat == n:
            seat = 0
    return won, count


@numba.njit(cache=True, error_model="numpy")
def _new_trick(zn: np.ndarray, st: np.ndarray) -> None:
    st[S_NTRICK] = 0
    for k in range(6):
        st[S_TOT + k] = 0
    zn[Z_TPOOL] = _Z0
    zn[Z_PPOOL] = _Z0
    for s in range(MAXP):
        st[S_KEPT + s] = -1
        st[S_KILLED + s] = -1
    st[S_NKILL] = 0
    st[S_WSUITS] = 0
    st[S_NWIN] = 0
    st[S_PICKS] = 0
    st[S_PHASE] = 0
    st[S_CUR] = st[S_START]


@numba.njit(cache=True, error_model="numpy")
def _end_trick(zn: np.ndarray, st: np.ndarray, n: int) -> None:
    """§2.3 Next trick: the trick becomes the last completed one; the game ends when a hand
    holds fewer than 2 cards, else the start marker moves left."""
    for k in range(2 * n):
        st[S_LPLAY + k] = st[S_TRICK + k]
    for s in range(n):
        st[S_LKEPT + s] = st[S_KEPT + s]
        st[S_LKILLED + s] = st[S_KILLED + s]
        st[S_LPTS + s] = st[S_TH + s] - st[S_THB + s]
        st[S_THB + s] = st[S_TH + s]
    for k in range(MAXP):
        st[S_LWIN + k] = st[S_WIN + k]
    st[S_LNWIN] = st[S_NWIN]
    st[S_LWSUITS] = st[S_WSUITS]
    st[S_LSTART] = st[S_START]
    st[S_LAST] = 1
    for s in range(n):
        if _count(zn[Z_HAND + s]) < 2:
            st[S_OVER] = 1
            st[S_CUR] = -1
            st[S_PHASE] = 0
            return
    st[S_TRICKNUM] += 1
    st[S_START] = (st[S_START] + 1) % n
    _new_trick(zn, st)


@numba.njit(cache=True, error_model="numpy")
def _score_trick(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, n: int, p: np.ndarray,
                 rng: np.ndarray, g: int) -> None:
    """Kept cards go to their owners' hands (discarded after the last trick); the killed cards
    and, with 3 players, the top reserve card are the trick's 4 point cards, shared by the
    scoring winners (``CahootsTricks.score_trick``)."""
    last = False
    for s in range(n):
        if zn[Z_HAND + s] == _Z0:
            last = True
    for s in range(n):
        t = np.int64(st[S_KEPT + s])
        _tally(st, tl, np.int64(1 + s), t)
        if not last:
            zn[Z_HAND + s] = _add(zn[Z_HAND + s], t)
            zn[Z_KNOWN + s] = _add(zn[Z_KNOWN + s], t)
    for k in range(st[S_NKILL]):
        zn[Z_KILLED] = _add(zn[Z_KILLED], np.int64(st[S_CARDS + k]))
    if n == 3:
        top = np.int64(tl[T_RES + st[S_RES]])
        st[S_RES] += 1
        zn[Z_RDRAWN] = _add(zn[Z_RDRAWN], top)
        st[S_CARDS + 3] = top
    nwin = st[S_NWIN]
    for i in range(POINTS_PER_TRICK):  # the snake order W1 .. Wk, Wk .. W1, ... (§2.5, A3)
        j = i % (2 * nwin)
        st[S_DRAFT + i] = st[S_WIN + (j if j < nwin else 2 * nwin - 1 - j)]
    face = p[P_FACE] != 0
    split = T_SPLIT + st[S_TRICKNUM] - 1
    tl[split] = NO_SPLIT
    if nwin == 3 and p[P_EVEN] != 0:
        # A3 alternative: a third of the trick's points each
        worth = 0
        for i in range(POINTS_PER_TRICK):
            worth += st[S_CARDS + i] % 5 + 4 if face else 1
        for k in range(3):
            st[S_TH + st[S_WIN + k]] += worth
    elif face and p[P_DRAFT] != 0 and nwin > 1:
        # §2.5: the winners draft the point cards in snake order
        pool = _Z0
        for i in range(POINTS_PER_TRICK):
            pool = _add(pool, np.int64(st[S_CARDS + i]))
        zn[Z_PPOOL] = pool
        st[S_PICKS] = 0
        st[S_PHASE] = 2
        st[S_CUR] = st[S_DRAFT]
        return
    else:
        if face and nwin > 1:
            # point_split='random': the cards in a uniformly random order, new card i being
            # old card perm[i] as in the reference; perm is recorded for game(i)
            perm = 0b11100100  # 0, 1, 2, 3 in 2-bit fields
            for j in range(3, 0, -1):
                k = _rand(rng, g, j + 1)
                a = perm >> (2 * j) & 3
                b = perm >> (2 * k) & 3
                perm ^= (a ^ b) << (2 * j) | (a ^ b) << (2 * k)
            c0 = st[S_CARDS + (perm & 3)]
            c1 = st[S_CARDS + (perm >> 2 & 3)]
            c2 = st[S_CARDS + (perm >> 4 & 3)]
            c3 = st[S_CARDS + (perm >> 6 & 3)]
            st[S_CARDS] = c0
            st[S_CARDS + 1] = c1
            st[S_CARDS + 2] = c2
            st[S_CARDS + 3] = c3
            tl[split] = perm
            st[S_NSPLIT] += 1
        for i in range(POINTS_PER_TRICK):
            st[S_TH + st[S_DRAFT + i]] += 3 * (st[S_CARDS + i] % 5 + 4 if face else 1)
    _end_trick(zn, st, n)


@numba.njit(cache=True, error_model="numpy")
def _apply(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, a: int, n: int, p: np.ndarray,
           rng: np.ndarray, g: int) -> None:
    """One legal action of the seat to move (``CahootsTricks._apply_one``)."""
    seat = st[S_CUR]
    phase = st[S_PHASE]
    if phase == 0:
        # §2.3 Phase 1: any card from hand, face up
        t = a - PLAY_BASE
        zn[Z_HAND + seat] = _remove(zn[Z_HAND + seat], t)
        if zn[Z_KNOWN + seat] >> np.uint64(2 * t) & _Z1:
            zn[Z_KNOWN + seat] = _remove(zn[Z_KNOWN + seat], t)
        k = st[S_NTRICK]
        st[S_TRICK + k] = t
        st[S_NTRICK] = k + 1
        st[S_TOT + t // 5] += t % 5 + 4
        _tally(st, tl, np.int64(0), t)
        _tally(st, tl, np.int64(1 + MAXP + seat), t)
        zn[Z_TPOOL] = _add(zn[Z_TPOOL], t)
        if k + 1 == 2 * n:
            # Phase 2: the resolution; keep/kill starts with the start player
            won, count = _leaders(st, n)
            st[S_WSUITS] = won
            st[S_NWIN] = count
            st[S_PHASE] = 1
            st[S_PICKS] = 0
            st[S_CUR] = st[S_START]
        else:
            st[S_CUR] = seat + 1 if seat + 1 < n else 0
    elif phase == 1:
        # Phase 3: take one remaining trick card and keep or kill it
        if a < KILL_BASE:
            t = a - KEEP_BASE
            st[S_KEPT + seat] = t
        else:
            t = a - KILL_BASE
            st[S_KILLED + seat] = t
            st[S_CARDS + st[S_NKILL]] = t
            st[S_NKILL] += 1
            _tally(st, tl, np.int64(1 + 2 * MAXP + seat), t)
        zn[Z_TPOOL] = _remove(zn[Z_TPOOL], t)
        picks = st[S_PICKS] + 1
        st[S_PICKS] = picks
        if picks == 2 * n:
            _score_trick(zn, st, tl, n, p, rng, g)
        else:
            st[S_CUR] = (st[S_START] + picks) % n
    else:
        # §2.5 draft: take one point card; it scores its value
        t = a - TAKE_BASE
        zn[Z_PPOOL] = _remove(zn[Z_PPOOL], t)
        st[S_TH + seat] += 3 * (t % 5 + 4)
        picks = st[S_PICKS] + 1
        st[S_PICKS] = picks
        if picks == POINTS_PER_TRICK:
            _end_trick(zn, st, n)
        else:
            st[S_CUR] = st[S_DRAFT + picks]


@numba.njit(cache=True, error_model="numpy")
def _forced(zn: np.ndarray, st: np.ndarray, n: int) -> int:
    """The only legal action of the seat to move, or -1 if it has a real choice."""
    phase = st[S_PHASE]
    if phase == 0:
        t = _single(zn[Z_HAND + st[S_CUR]])
        return -1 if t < 0 else PLAY_BASE + t
    if phase == 1:
        if st[S_PICKS] < n:
            return -1
        t = _single(zn[Z_TPOOL])
        if t < 0:
            return -1
        return (KILL_BASE if st[S_KILLED + st[S_CUR]] < 0 else KEEP_BASE) + t
    t = _single(zn[Z_PPOOL])
    return -1 if t < 0 else TAKE_BASE + t


@numba.njit(cache=True, error_model="numpy")
def _write_mask(zn: np.ndarray, st: np.ndarray, n: int, out: np.ndarray) -> None:
    """The legal actions of the seat to move (``CahootsTricks.legal_actions``)."""
    for j in range(NUM_ACTIONS):
        out[j] = 0
    phase = st[S_PHASE]
    both = False
    if phase == 0:
        z = zn[Z_HAND + st[S_CUR]] & _E
        base = PLAY_BASE
    elif phase == 1:
        z = zn[Z_TPOOL] & _E
        if st[S_PICKS] < n:
            both = True
            base = KEEP_BASE
        elif st[S_KILLED + st[S_CUR]] < 0:
            base = KILL_BASE
        else:
            base = KEEP_BASE
    else:
        z = zn[Z_PPOOL] & _E
        base = TAKE_BASE
    while z != _Z0:
        t = _low(z) >> 1
        out[base + t] = 1
        if both:
            out[KILL_BASE + t] = 1
        z &= z - _Z1


# ---- the observation ----------------------------------------------------------------------
@numba.njit(cache=True)
def _put_identities(out: np.ndarray, st: np.ndarray, seat: int, n: int, p: np.ndarray) -> None:
    """Every seat's identity suits, turned so that ``seat``'s come first (identities)."""
    for s in range(n):
        rel = s - seat
        if rel < 0:
            rel += n
        suits = st[S_IMASK + s]
        at = p[O_IDENT] + rel * 6
        for k in range(6):
            out[at + k] = suits >> k & 1


@numba.njit(cache=True, error_model="numpy")
def _put_scoring(out: np.ndarray, st: np.ndarray, seat: int, n: int, p: np.ndarray) -> int:
    """The trick in progress's suit totals and scoring winners (``seat``'s view), every entry
    written (zeros before its first play); returns its winning suits (0 before)."""
    at_totals, at_winners = p[O_TOTALS], p[O_WINNERS]
    for r in range(n):
        out[at_winners + r] = 0.0
    if st[S_NTRICK] == 0:
        for k in range(6):
            out[at_totals + k] = 0.0
        return 0
    for k in range(6):
        out[at_totals + k] = st[S_TOT + k] / SUIT_TOTAL_SCALE
    if st[S_PHASE] == 1 or st[S_NWIN] > 0:
        won = np.int64(st[S_WSUITS])
        count = np.int64(st[S_NWIN])
    else:
        won, count = _leaders(st, n)
    for k in range(count):
        rel = st[S_WIN + k] - seat
        out[at_winners + (rel + n if rel < 0 else rel)] = 1.0
    return won


@numba.njit(cache=True, error_model="numpy")
def _encode(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, seat: int, n: int, p: np.ndarray,
            out: np.ndarray) -> None:
    """``seat``'s observation into the row ``out`` (``encoder.encode``, entry for entry)."""
    for j in range(out.shape[0]):
        out[j] = 0.0
    _put_few(out, p[O_HAND], zn[Z_HAND + seat])
    _put_few(out, p[O_TPOOL], zn[Z_TPOOL])
    _put_few(out, p[O_PPOOL], zn[Z_PPOOL])
    _put_counts(out, p[O_KILLED], zn[Z_KILLED])
    _put_few(out, p[O_RDRAWN], zn[Z_RDRAWN])
    # unseen: the other hands less what is known of them, as binary counts per 2-bit field
    # (no field borrows or carries)
    unseen = _Z0
    for s in range(n):
        if s != seat:
            h = zn[Z_HAND + s]
            k = zn[Z_KNOWN + s]
            unseen += (h & _E) + ((h >> _Z1) & _E) - (k & _E) - ((k >> _Z1) & _E)
    _put_counts(out, p[O_UNSEEN], unseen)
    _put_tally(out, p[O_PLAYED], tl, np.int64(0), st[S_TMASK])
    face = p[P_FACE] != 0
    scale = 288.0 if face else 44.0
    for s in range(n):
        # the per-seat rows, turned so that the observer's comes first
        rel = s - seat
        if rel < 0:
            rel += n
        _put_few(out, p[O_KNOWN] + rel * NUM_TYPES, zn[Z_KNOWN + s])
        r = 1 + s
        _put_tally(out, p[O_KEPT] + rel * NUM_TYPES, tl, r, st[S_TMASK + r])
        r = 1 + MAXP + s
        _put_tally(out, p[O_PLAYED_BY] + rel * NUM_TYPES, tl, r, st[S_TMASK + r])
        r = 1 + 2 * MAXP + s
        _put_tally(out, p[O_KILLED_BY] + rel * NUM_TYPES, tl, r, st[S_TMASK + r])
        out[p[O_HSIZES] + rel] = _count(zn[Z_HAND + s]) / HAND_SIZE
        out[p[O_SCORES] + rel] = (st[S_TH + s] / 3) / scale
    # the trick in progress: plays by seat and lap, keep/kill picks
    start = st[S_START]
    ntrick = st[S_NTRICK]
    at = p[O_TPLAYS]
    rel = start - seat
    if rel < 0:
        rel += n
    for i in range(ntrick):
        lap = 1 if i >= n else 0
        out[at + (rel * 2 + lap) * NUM_TYPES + st[S_TRICK + i]] = 1.0
        rel += 1
        if rel == n:
            rel = 0
    at = p[O_TPICKS]
    for s in range(n):
        rel = s - seat
        if rel < 0:
            rel += n
        t = st[S_KEPT + s]
        if t >= 0:
            out[at + rel * 2 * NUM_TYPES + t] = 1.0
        t = st[S_KILLED + s]
        if t >= 0:
            out[at + (rel * 2 + 1) * NUM_TYPES + t] = 1.0
    phase = st[S_PHASE]
    _put_identities(out, st, seat, n, p)
    won = _put_scoring(out, st, seat, n, p)
    at = p[O_WSUITS]
    for k in range(6):
        out[at + k] = won >> k & 1
    out[p[O_TRICKNUM] + st[S_TRICKNUM] - 1] = 1.0
    rel = start - seat
    out[p[O_START] + (rel + n if rel < 0 else rel)] = 1.0
    if st[S_OVER] == 0:
        out[p[O_PHASE] + phase] = 1.0
        if phase == 1:
            out[p[O_KKPASS] + (0 if st[S_PICKS] < n else 1)] = 1.0
        rel = st[S_CUR] - seat
        out[p[O_TOMOVE] + (rel + n if rel < 0 else rel)] = 1.0
    if st[S_LAST] != 0:
        at = p[O_LPLAYS]
        rel = st[S_LSTART] - seat
        if rel < 0:
            rel += n
        for i in range(2 * n):
            lap = 1 if i >= n else 0
            out[at + (rel * 2 + lap) * NUM_TYPES + st[S_LPLAY + i]] = 1.0
            rel += 1
            if rel == n:
                rel = 0
        at = p[O_LPICKS]
        points = p[O_LPOINTS]
        most = 96.0 if face else 12.0
        for s in range(n):
            rel = s - seat
            if rel < 0:
                rel += n
            out[at + rel * 2 * NUM_TYPES + st[S_LKEPT + s]] = 1.0
            out[at + (rel * 2 + 1) * NUM_TYPES + st[S_LKILLED + s]] = 1.0
            out[points + rel] = st[S_LPTS + s] / most
        won = st[S_LWSUITS]
        at = p[O_LWSUITS]
        for k in range(6):
            out[at + k] = won >> k & 1
        at = p[O_LWINNERS]
        for k in range(st[S_LNWIN]):
            rel = st[S_LWIN + k] - seat
            out[at + (rel + n if rel < 0 else rel)] = 1.0


# ---- dealing ------------------------------------------------------------------------------
@numba.njit(cache=True, error_model="numpy")
def _deal(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, n: int, rng: np.ndarray, g: int,
          deck: np.ndarray, scratch: np.ndarray) -> None:
    """A random deal from game ``g``'s stream (§2.2): the identity cards, 12 cards a hand, the
    reserve (3 players) and the start player. Its fields only: ``_start`` sets the rest."""
    for k in range(4):
        scratch[k] = k
    for j in range(3, 0, -1):
        k = _rand(rng, g, j + 1)
        scratch[j], scratch[k] = scratch[k], scratch[j]
    for s in range(n):
        st[S_IDENT + s] = scratch[s]
    size = deck.shape[0]
    for k in range(size):
        scratch[k] = deck[k]
    for j in range(size - 1, 0, -1):
        k = _rand(rng, g, j + 1)
        scratch[j], scratch[k] = scratch[k], scratch[j]
    for s in range(n):
        hand = _Z0
        for k in range(s * HAND_SIZE, (s + 1) * HAND_SIZE):
            hand = _add(hand, scratch[k])
        zn[Z_DEALT + s] = hand
    if n == 3:
        for k in range(RES_SIZE):
            scratch[k] = _RESERVE[k]
        for j in range(RES_SIZE - 1, 0, -1):
            k = _rand(rng, g, j + 1)
            scratch[j], scratch[k] = scratch[k], scratch[j]
        for k in range(RES_SIZE):
            tl[T_RES + k] = scratch[k]
    st[S_DSTART] = _rand(rng, g, n)


@numba.njit(cache=True, error_model="numpy")
def _start(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, n: int) -> None:
    """The game at the start of its deal (whose fields are written already)."""
    for s in range(n):
        zn[Z_HAND + s] = zn[Z_DEALT + s]
        zn[Z_KNOWN + s] = _Z0
        st[S_IMASK + s] = _IMASKS[st[S_IDENT + s]]
        st[S_TH + s] = 0
        st[S_THB + s] = 0
    zn[Z_KILLED] = _Z0
    zn[Z_RDRAWN] = _Z0
    for k in range(T_RES):  # the tallies and the split record
        tl[k] = 0
    for k in range(1 + 3 * MAXP):
        st[S_TMASK + k] = 0
    st[S_START] = st[S_DSTART]
    st[S_TRICKNUM] = 1
    st[S_OVER] = 0
    st[S_NACT] = 0
    st[S_RES] = 0
    st[S_LAST] = 0
    st[S_NSPLIT] = 0
    _new_trick(zn, st)


# ---- the kernel ---------------------------------------------------------------------------
@numba.njit(cache=True, error_model="numpy")
def _step_game(zn: np.ndarray, st: np.ndarray, tl: np.ndarray, a: int, n: int, p: np.ndarray,
               rng: np.ndarray, g: int, rw: np.ndarray) -> bool:
    """Game ``g`` plays ``a`` and the forced decisions after it; its rewards into ``rw``
    (zeroed by the caller); True when the game ended."""
    nact = st[S_NACT]
    tl[T_LOG + nact] = a
    st[S_NACT] = nact + 1
    before0 = st[S_TH]
    before1 = st[S_TH + 1]
    before2 = st[S_TH + 2]
    before3 = st[S_TH + 3]
    _apply(zn, st, tl, a, n, p, rng, g)
    while st[S_OVER] == 0:
        forced = _forced(zn, st, n)
        if forced < 0:
            break
        _apply(zn, st, tl, forced, n, p, rng, g)
    if p[P_POINTS] != 0:
        # points: each seat's change of score
        for s in range(n):
            before = (before0 if s == 0 else before1 if s == 1 else before2 if s == 2
                      else before3)
            if st[S_TH + s] != before:
                rw[s] = st[S_TH + s] / 3 - before / 3
    elif st[S_OVER] != 0:  # win: the winners (best score, ties share) split +1
        split_outcome(st, S_TH, n, rw)
    return st[S_OVER] != 0


@numba.njit(cache=True)
def _encode_for_bot(zn: np.ndarray, st: np.ndarray, seat: int, n: int, p: np.ndarray,
                    out: np.ndarray) -> None:
    """The entries of ``seat``'s observation that the heuristic bot reads (``best_row``: the
    identities, suit totals and scoring winners of the first ``n`` seats, and the last entry
    of trick_number) written into ``out`` as ``_encode`` writes them; the others are left as
    they were. A rollout asks the bot at every move, and the whole observation costs several
    times what the bot itself does."""
    _put_identities(out, st, seat, n, p)
    _put_scoring(out, st, seat, n, p)
    out[p[O_TRICKNUM] + TRICKS - 1] = 1.0 if st[S_TRICKNUM] == TRICKS else 0.0


@numba.njit(cache=True)
def _play_out(first: np.ndarray, seats: np.ndarray, zones: np.ndarray, ints: np.ndarray,
              tallies: np.ndarray, rng: np.ndarray, p: np.ndarray, obs: np.ndarray,
              mask: np.ndarray, face_value: bool, at_ident: int, at_totals: int,
              at_winners: int, at_last_trick: int, out: np.ndarray) -> int:
    """Game ``g`` (every ``g < len(first)``) plays ``first[g]``, then the heuristic bot's
    moves (``bot_batched.best_row`` on the entries of the observation it reads, written after
    each move by ``_encode_for_bot``; a tie drawn from the game's own stream) to the end;
    ``out[g]``: seat ``seats[g]``'s final reward. The games are left as they end (not dealt
    again; their observation rows hold only the bot's entries). Returns -1, or the first game where the bot's
    kernel found a problem (a row ``act`` would raise on: not one the engine writes)."""
    n = p[P_N]
    rw = np.zeros(n, np.float32)
    moves = np.zeros(NUM_ACTIONS, np.int64)
    legal, scores, ident, totals, after, counts_now, mine, private = scratch(n)
    for g in range(first.shape[0]):
        # the game's rows, taken once (numba counts references on every view it makes)
        zn, st, tl, ob, mk = zones[g], ints[g], tallies[g], obs[g], mask[g]
        a = first[g]
        while True:
            rw[:] = 0.0
            if _step_game(zn, st, tl, a, n, p, rng, g, rw):
                out[g] = rw[seats[g]]
                break
            _encode_for_bot(zn, st, np.int64(st[S_CUR]), n, p, ob)
            _write_mask(zn, st, n, mk)
            k = best_row(ob, mk, moves, n, face_value, at_ident, at_totals, at_winners,
                         at_last_trick, legal, scores, ident, totals, after, counts_now, mine,
                         private)
            if k < 0:
                return g
            a = moves[0] if k == FORCED else moves[randint(rng, g, k)]
    return -1


@numba.njit(cache=True, error_model="numpy")
def _kernel(mode: int, zones: np.ndarray, ints: np.ndarray, tallies: np.ndarray,
            rng: np.ndarray, actions: np.ndarray, select: np.ndarray, p: np.ndarray,
            deck: np.ndarray, obs: np.ndarray, mask: np.ndarray, to_move: np.ndarray,
            rewards: np.ndarray, done: np.ndarray, final_scores: np.ndarray,
            final_obs: np.ndarray) -> int:
    """Every game of the batch, in one of three modes:

    - ``MODE_RESET``: deal every game (``select[g]``: its deal fields are written already);
    - ``MODE_STEP``: play ``actions[g]`` (negative: skip the game, its rows stay) and the forced
      decisions after it; rewards and ``done``; returns how many games ended (left over);
    - ``MODE_FINISH``: for the games that ended (``select``), in increasing game index, the
      scores and every seat's final observation; then deal them again from their stream.

    The observation and mask of the seat to move are rewritten in every game dealt or moved."""
    n = p[P_N]
    scratch = np.empty(64, np.int64)
    finished = 0
    for g in range(zones.shape[0]):
        zn = zones[g]
        st = ints[g]
        tl = tallies[g]
        if mode == MODE_STEP:
            a = actions[g]
            for s in range(n):
                rewards[g, s] = 0.0
            done[g] = False
            if a < 0:
                continue
            if _step_game(zn, st, tl, a, n, p, rng, g, rewards[g]):
                done[g] = True
                finished += 1
                continue
        else:
            if mode == MODE_FINISH:
                if not select[g]:
                    continue
                for s in range(n):
                    final_scores[finished, s] = st[S_TH + s] / 3
                    _encode(zn, st, tl, s, n, p, final_obs[finished, s])
                finished += 1
            if mode == MODE_FINISH or not select[g]:
                _deal(zn, st, tl, n, rng, g, deck, scratch)
            _start(zn, st, tl, n)
        seat = np.int64(st[S_CUR])
        to_move[g] = seat
        _encode(zn, st, tl, seat, n, p, obs[g])
        _write_mask(zn, st, n, mask[g])
    return finished


# ---- the engine ---------------------------------------------------------------------------
class ReplayedSplits:
    """Stands in for a game's generator while ``game(i)`` replays it: the only chance after the
    deal is the random split of the point cards (``point_split='random'``), and
    ``permutation(4)`` gives the recorded ``splits`` in order."""

    def __init__(self, splits: Sequence[np.ndarray]) -> None:
        self.splits = splits
        self.used = 0

    def permutation(self, k: int) -> np.ndarray:
        if k != POINTS_PER_TRICK or self.used >= len(self.splits):
            raise RuntimeError(f"no recorded point split left to replay (asked for a permutation "
                               f"of {k} after {self.used} of {len(self.splits)})")
        self.used += 1
        return self.splits[self.used - 1]


@numba.njit(cache=True)
def _replay_kernel(history: np.ndarray, zones: np.ndarray, ints: np.ndarray,
                   tallies: np.ndarray, rng: np.ndarray, select: np.ndarray, params: np.ndarray,
                   deck: np.ndarray, obs: np.ndarray, mask: np.ndarray, to_move: np.ndarray,
                   rewards: np.ndarray, done: np.ndarray, final_scores: np.ndarray,
                   final_obs: np.ndarray) -> tuple[int, int]:
    """``MODE_STEP`` on ``history[0]``, ``history[1]``, ... until the rows run out or a step
    ends a game (the caller finishes those, then goes on); returns the steps taken and the
    games that last step ended."""
    for t in range(history.shape[0]):
        finished = _kernel(MODE_STEP, zones, ints, tallies, rng, history[t], select, params,
                           deck, obs, mask, to_move, rewards, done, final_scores, final_obs)
        if finished:
            return t + 1, finished
    return history.shape[0], 0


class Engine(BatchedEngine):
    """Cahoots (competitive) in lockstep: every player count and option of the AEC env."""

    SEGMENTS = SEGMENTS
    ROW_ARRAYS = ("zones", "ints", "tallies", "rng_state", "_select")
    PLAY_OUT_READS_OBSERVATIONS = False  # its bot twin writes the rows it reads

    def __init__(self, spec: GameSpec, options: dict[str, Any], num_envs: int) -> None:
        super().__init__(spec, options, num_envs)  # checks SEGMENTS against the layout
        n = self.num_players
        if n not in (3, 4):
            raise self.unsupported_option("num_players", "3 or 4")
        face = options["scoring"] == "face_value"
        if GAME_POINTS[face] != (288.0 if face else 44.0) or TRICK_THIRDS[face] != (
                96.0 if face else 12.0):
            raise RuntimeError(f"{spec.env_id}: the encoder's scales changed; update batched.py")
        self._params = np.array(
            [n, face, options["point_split"] == "draft", options["three_way_split"] == "even",
             self.reward_mode == "points"] + list(self.segment_offsets),
            np.int64)
        self._max_actions = int(self.rules.max_game_length(options))
        self.zones = np.zeros((num_envs, Z_SIZE), np.uint64)
        self.ints = np.zeros((num_envs, S_SIZE), np.int32)
        self.tallies = np.zeros((num_envs, T_LOG + self._max_actions), np.uint8)
        self.rng_state = np.zeros(num_envs, np.uint64)
        self._select = np.zeros(num_envs, np.bool_)
        counts = deck_counts(n)
        self._deck = np.array([t for t in range(NUM_TYPES) for _ in range(counts[t])], np.int64)
        self._no_actions = np.zeros(0, np.int64)
        self._parser: Any = self.new_game(None)  # its _parse_deal reads a trusted deal

    def _run(self, mode: int, actions: np.ndarray, select: np.ndarray) -> int:
        return int(_kernel(mode, self.zones, self.ints, self.tallies, self.rng_state, actions,
                           select, self._params, self._deck, self.obs, self.mask, self.to_move,
                           self.rewards, self.done, self.final_scores, self.final_obs))

    # ---- lifecycle ----------------------------------------------------------------------
    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        if not (isinstance(rng_state, np.ndarray) and rng_state.dtype == np.uint64
                and rng_state.shape == (self.num_envs,) and rng_state.flags.c_contiguous
                and rng_state.flags.writeable):
            raise ValueError(f"rng_state must be a writeable uint64 array of shape "
                             f"({self.num_envs},), got {getattr(rng_state, 'dtype', '')}"
                             f"{list(getattr(rng_state, 'shape', ()))} "
                             f"({type(rng_state).__name__})")
        parsed = None if deals is None else self.check_deals(deals)
        self.rng_state = rng_state  # kept and advanced: each game's stream goes on from it
        self._select[:] = parsed is not None
        if parsed is not None:
            for i, deal in enumerate(parsed):
                if self.trusted and not self._partial(deal[0]):  # no game built to deal it
                    # the world sampler's records carry their parse (``rules.ParsedDeal``)
                    fields = getattr(deal[0], "fields", None)
                    self._write_fields(i, *(fields or self._parser._parse_deal(deal[0])))
                    continue
                # keys a scripted deal leaves out are drawn from the game's own stream
                seed = int(next_u64(self.rng_state, i)) if self._partial(deal[0]) else 0
                self._write_deal(i, self.new_game(deal, seed))
        self.rewards[:] = 0
        self.done[:] = False
        self.final_buffers(0)
        self._run(MODE_RESET, self._no_actions, self._select)

    def _partial(self, deal: dict[str, Any]) -> bool:
        """Whether a scripted deal leaves out a key that the game draws at random."""
        keys = set(self.rules.DEAL_KEYS) - ({"reserve"} if self.num_players == 4 else set())
        return not keys <= set(deal)

    def _write_deal(self, i: int, game: Game) -> None:
        """Game ``i``'s deal fields from the reference game ``game``, as dealt."""
        dealt = cast(Any, game)
        self._write_fields(i, dealt.start_player, dealt.identities, dealt.hands, dealt.reserve)

    def _write_fields(self, i: int, start: int, identities: list[int], hands: list[int],
                      reserve: list[int] | None) -> None:
        """Game ``i``'s deal fields: the start player, the identity cards, the hands (zones)
        and, with 3 players, the reserve (top first)."""
        n = self.num_players
        self.ints[i, S_DSTART] = start
        self.ints[i, S_IDENT : S_IDENT + n] = identities
        self.zones[i, Z_DEALT : Z_DEALT + n] = np.array(hands, np.uint64)
        if n == 3 and reserve is not None:
            self.tallies[i, T_RES : T_RES + RES_SIZE] = reserve

    def step(self, actions: np.ndarray) -> None:
        acts = np.ascontiguousarray(actions, np.int64)
        self.final_buffers(0)
        finished = self._run(MODE_STEP, acts, self._select)
        if finished:
            self.final_buffers(finished)
            self._run(MODE_FINISH, acts, self.done)

    def step_histories(self, history: np.ndarray) -> None:
        """``step`` for each row of ``history``, the rows between two games' ends in one
        kernel call (``_replay_kernel``)."""
        history = np.ascontiguousarray(history, np.int64)
        self.final_buffers(0)
        t = 0
        while t < len(history):
            steps, finished = _replay_kernel(
                history[t:], self.zones, self.ints, self.tallies, self.rng_state, self._select,
                self._params, self._deck, self.obs, self.mask, self.to_move, self.rewards,
                self.done, self.final_scores, self.final_obs)
            t += steps
            if finished:
                self.final_buffers(finished)
                self._run(MODE_FINISH, history[t - 1], self.done)

    def play_out(self, policy: Any, actions: np.ndarray, seats: np.ndarray,
                 value: Callable[[Any, int], float], starts: Sequence[Game],
                 ) -> np.ndarray | None:
        """The heuristic bot (``bot.HeuristicPolicy`` of these options) in one kernel call
        (``_play_out``, a game at a time to its end; a one-hand game, so ``value`` is not
        needed), its ties drawn from each game's own stream (no chance follows the deal where
        search uses the engine) instead of the bot's generator; None for any other policy."""
        if type(policy) is not HeuristicPolicy or policy.num_players != self.num_players or \
                policy.layout.size != self.obs_size or \
                policy.face_value != (self.options["scoring"] == "face_value"):
            return None
        out = np.empty(len(actions))
        stuck = _play_out(np.ascontiguousarray(actions, np.int64),
                          np.ascontiguousarray(seats, np.int64), self.zones, self.ints,
                          self.tallies, self.rng_state, self._params, self.obs, self.mask,
                          policy.face_value, *kernel_offsets(policy.layout), out)
        if stuck >= 0:
            raise RuntimeError(f"cahoots_tricks batched engine: the heuristic kernel cannot "
                               f"rate game {stuck}'s move")
        return out

    def replay_problem(self) -> str | None:
        if self.options["scoring"] == "face_value" and self.options["point_split"] == "random":
            return ("point_split='random' splits point cards at random during the hand, and a "
                    "replay draws those splits anew")
        return None

    # ---- one game as a reference game -----------------------------------------------------
    def deal_of(self, i: int) -> dict[str, Any]:
        """Game ``i``'s current deal in the scripted-deal format (its ``game.deals[0]``)."""
        n = self.num_players
        record: dict[str, Any] = {
            "start_player": int(self.ints[i, S_DSTART]),
            "identities": [list(IDENTITY_CARDS[k]) for k in self.ints[i, S_IDENT : S_IDENT + n]],
            "hands": [[card_str(t) for t in zone_types(int(z))]
                      for z in self.zones[i, Z_DEALT : Z_DEALT + n]],
        }
        if n == 3:
            record["reserve"] = [card_str(int(t)) for t in self.tallies[i, T_RES : T_RES + RES_SIZE]]
        return record

    def actions_of(self, i: int) -> list[int]:
        """The actions chosen in game ``i`` since its deal (its ``history``)."""
        return [int(a) for a in self.tallies[i, T_LOG : T_LOG + int(self.ints[i, S_NACT])]]

    def splits_of(self, i: int) -> list[np.ndarray]:
        """The random point splits drawn in game ``i`` since its deal, in order, each as the
        ``rng.permutation(4)`` of the reference (``point_split='random'``)."""
        out: list[np.ndarray] = []
        for code in self.tallies[i, T_SPLIT : T_SPLIT + TRICKS]:
            if len(out) == int(self.ints[i, S_NSPLIT]):
                break
            if code != NO_SPLIT:
                out.append(np.array([(int(code) >> (2 * k)) & 3 for k in range(4)], np.int64))
        return out

    def game(self, i: int) -> Game:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not (
                0 <= i < self.num_envs):
            raise ValueError(f"game index must be an int 0..{self.num_envs - 1}, got {i!r}")
        i = int(i)
        replayed = ReplayedSplits(self.splits_of(i))
        game = self.rules(self.options, cast(Any, replayed), self.deal_of(i))
        for a in self.actions_of(i):
            game.apply(a)
        # later random splits of the rebuilt game come from a generator of its own
        cast(Any, game).rng = np.random.default_rng(int(self.rng_state[i]))
        return game
