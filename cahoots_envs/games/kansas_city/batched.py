"""Kansas City's batched engine: ``num_envs`` games in lockstep in numba kernels.

Imported only by ``cahoots_envs.vector`` (it imports numba). The rules are those of
``rules.py`` and the observation that of ``encoder.py``, entry for entry; the differential tests
in ``tests/games/kansas_city/test_vector.py`` replay reference games through it step by step.

State of one game, packed into a few rows:

- ``_masks`` (``uint64[N, 25]``): per seat (5 slots each, seats beyond ``num_players`` unused)
  the hand, the upgraded trumps held, the 3 cards passed (chosen, then passed once exchanged),
  the upgraded trumps played into completed tricks and the face cards played into them;
- ``_state`` (``int32[N, 46]``): the scalars of the hand (dealer, hand number, phase, seat to
  move, passes chosen, tricks played, upgrade-step position, next leader, set-aside card, the
  current trick's size and leader, the last trick's leader and winner, plays and upgrades so
  far, the scripted first dealer) and per seat the card in the current and the last trick, the
  known voids, tricks won, 4s captured and the score;
- ``_deals`` (``uint64[N, hands, players]``): every hand of the episode as dealt (before the
  pass), read by ``game(i)``; a scripted hand is stored there at ``reset`` (``_script`` says
  which hands are scripted, or which set-aside card a hand without scripted hands keeps);
- ``_history`` (``uint8[N, hands * plays]``) and ``_passes`` (``uint16[N, hands, players]``):
  the episode's plays and upgrades, a byte each, and its passes, for ``game(i)``.

One kernel (``_kernel``) loops over all games: at a step it applies every game's action and
writes the observation and mask of the seat to move into the output rows (every entry of the
observation is written, card sets a byte at a time, so no row is zeroed first); a game that ends
is left over for a second call that writes its final scores and every seat's final observation,
then deals it again from its own stream. The helpers are plain ``njit`` functions with 1-d
rows and unsigned indices (which keep the loops vectorised); ``inline="always"`` made the
compile several times slower for little gain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numba
import numpy as np

from cahoots_envs.core.batched import BatchedEngine, once_per_record
from cahoots_envs.core.cards import bits
from cahoots_envs.core.game import Game, parse_deals
from cahoots_envs.core.numba_kernels import (
    lowest_bit_index,
    popcount64,
    randint,
    shuffle,
    split_outcome,
)
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.text import short_repr
from cahoots_envs.games.kansas_city import search
from cahoots_envs.games.kansas_city.bot import HeuristicPolicy
from cahoots_envs.games.kansas_city.bot_batched import (
    FALLBACK,
    decide_row,
    kernel_params,
    pick_play,
    pick_upgrade,
)
from cahoots_envs.games.kansas_city.rules import (
    CARD_BACKS,
    DECK_SIZE,
    HAND_SIZE,
    MAX_HANDS,
    PASS_COMBOS,
    RANK_MASKS,
    RANKS,
    TRICK_LIMIT,
    card_str,
    hands_in_game,
)
from cahoots_envs.games.kansas_city.search import _NODES_W, HAND_SPREAD

__all__ = ["Engine"]

# _masks columns: 5 slots each (one per seat, for the most players)
M_HAND, M_UPG, M_PASS, M_OWNTP, M_PLAYEDBY = 0, 5, 10, 15, 20
M_WIDTH = 25

# _state columns
S_DEALER, S_HANDNO, S_PHASE, S_CUR, S_PASSES, S_TRICKS, S_UQ, S_LEADNEXT = 0, 1, 2, 3, 4, 5, 6, 7
S_SETASIDE, S_TRICKN, S_TRICKLEAD, S_LTLEAD, S_LTWIN, S_HLEN, S_SCDEALER = 8, 9, 10, 11, 12, 13, 14
# per seat: card in the current trick and in the last trick (card id, +64 when played as a
# trump, -1 none), voids (7 bits), tricks won, 4s captured, score
S_TC, S_LTC, S_VOIDS, S_TWON, S_FOURS, S_SCORES = 16, 21, 26, 31, 36, 41
S_WIDTH = 46

PH_PASS, PH_PLAY, PH_UPGRADE, PH_OVER = 0, 1, 2, 3
TRUMP_CODE = 64
UPGRADE_CODE = 64  # _history: a play is its action - play_base (0..63), an upgrade 64..120

# _script values per hand: a set-aside card 0..55 (hands dealt around it), or these
SCRIPT_RANDOM, SCRIPT_HANDS = -1, -2

# _params entries: the game's shape, then the layout's offsets in ``SEGMENTS`` order
(P_N, P_HS, P_H, P_PB, P_TB, P_UB, P_NU, P_HIDDEN, P_POINTS, P_NA, P_OBS, P_LIMIT) = range(12)
SEGMENTS = (
    "hand", "own_upgraded", "hand_ranks", "trump_ranks", "trick", "trick_leader", "played",
    "trumps_played", "tricks_won", "fours_captured", "scores", "hand_number", "hands_total",
    "dealer", "phase", "to_move", "passed", "received", "set_aside", "voids", "played_by",
    "trumps_played_by", "passed_ranks", "hand_size", "last_trick", "last_trick_leader",
    "last_trick_winner", "next_leader", "hidden_backs",
)
P_OFF = 12
(O_HAND, O_OWNUP, O_HR, O_TR, O_TRICK, O_TL, O_PLAYED, O_TP, O_TW, O_FC, O_SC, O_HN, O_HT,
 O_DEALER, O_PHASE, O_TOMOVE, O_PASSED, O_RECV, O_SETASIDE, O_VOIDS, O_PB, O_TPB, O_PR, O_HSIZE,
 O_LT, O_LTL, O_LTW, O_NL, O_HIDDEN) = range(P_OFF, P_OFF + len(SEGMENTS))

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
U16 = np.uint64(16)
U32 = np.uint64(32)
UFF = np.uint64(0xFF)
LANES = np.uint64(0x01010101010101)  # bit 0 of each of the 7 suit bytes
SUIT_BYTE = np.uint64(0xFF)
RANK_COLUMNS = np.array(RANK_MASKS, dtype=np.uint64)
FOURS_MASK = np.uint64(RANK_MASKS[3])
FULL_DECK_MASK = np.uint64((1 << DECK_SIZE) - 1)
# pass action -> the 3 hand positions it passes, per hand size (a table shared by every engine)
COMBOS = {size: np.array(combos, np.int8) for size, combos in PASS_COMBOS.items()}
# BYTE_BITS[b, j]: bit j of byte b, as the float an observation holds
BYTE_BITS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], np.float32)


# ---- helpers (compiled once each; LLVM inlines them into the kernel) -------------------------
@numba.njit(cache=True)
def _ranks_of(x: np.uint64) -> np.uint64:
    """The 8-bit mask of the ranks in card set ``x`` (the 7 suit bytes folded)."""
    x |= x >> U32
    x |= x >> U16
    x |= x >> U8
    return x & UFF


@numba.njit(cache=True)
def _set_bits(row: np.ndarray, off: int, x: np.uint64) -> None:
    """``row[off + b] = 1`` for every set bit ``b`` of ``x``."""
    while x != U0:
        row[off + lowest_bit_index(x)] = 1
        x &= x - U1


@numba.njit(cache=True)
def _put_counts(row: np.ndarray, off: int, x: np.uint64) -> None:
    """``row[off + r]`` = the cards of rank ``r + 1`` in card set ``x``, for the 8 ranks."""
    o = np.uint64(off)  # unsigned indices: no wraparound check, so the loops vectorise
    for r in range(RANKS):
        row[o + np.uint64(r)] = popcount64(x & RANK_COLUMNS[r])


@numba.njit(cache=True)
def _put_bits(row: np.ndarray, off: int, x: np.uint64, size: int) -> None:
    """The low ``size`` bytes of ``x`` as 0/1 into ``row[off : off + 8 * size]``."""
    for k in range(size):
        byte = (x >> np.uint64(8 * k)) & UFF
        o = np.uint64(off + 8 * k)
        for j in range(8):
            row[o + np.uint64(j)] = BYTE_BITS[byte, j]


@numba.njit(cache=True)
def _zero(row: np.ndarray, off: int, size: int) -> None:
    for k in range(size):
        row[np.uint64(off + k)] = 0


@numba.njit(cache=True)
def _rel(s: int, seat: int, n: int) -> int:
    """Seat ``s`` relative to ``seat`` (``(s - seat) % n`` without a division)."""
    r = s - seat
    return r + n if r < 0 else r


@numba.njit(cache=True, inline="always")
def _blocked_cards(ms: np.ndarray, n: int) -> np.uint64:
    """Every card of a rank held as an unplayed upgraded trump (§4.3, K2, K3)."""
    up = U0
    for s in range(n):
        up |= ms[M_UPG + s]
    return _ranks_of(up) * LANES


# ---- transitions (one game: ``st``, ``ms``, ``dl``, ``sc`` are its rows) ---------------------
@numba.njit(cache=True)
def _start_hand(st: np.ndarray, ms: np.ndarray, dl: np.ndarray, sc: np.ndarray,
                rng: np.ndarray, i: int, deck: np.ndarray, dealer: int, p: np.ndarray) -> None:
    """§4.2: deal hand ``st[S_HANDNO]``, scripted or from game ``i``'s stream."""
    n = p[P_N]
    hs = p[P_HS]
    h = st[S_HANDNO]
    how = sc[h]
    set_aside = -1
    if how == SCRIPT_HANDS:
        dealt = U0
        for s in range(n):
            ms[M_HAND + s] = dl[h, s]
            dealt |= dl[h, s]
        if n == 5:
            set_aside = int(lowest_bit_index(~dealt & FULL_DECK_MASK))
    else:
        size = 0
        for c in range(DECK_SIZE):
            if c != how:
                deck[size] = c
                size += 1
        shuffle(deck[:size], rng, i)
        for s in range(n):
            hand = U0
            for k in range(s * hs, (s + 1) * hs):
                hand |= U1 << np.uint64(deck[k])
            ms[M_HAND + s] = hand
            dl[h, s] = hand
        if how >= 0:
            set_aside = how
        elif n == 5:
            set_aside = deck[size - 1]
    for s in range(n):
        ms[M_UPG + s] = U0
        ms[M_PASS + s] = U0
        ms[M_OWNTP + s] = U0
        ms[M_PLAYEDBY + s] = U0
        st[S_TC + s] = -1
        st[S_VOIDS + s] = 0
        st[S_TWON + s] = 0
        st[S_FOURS + s] = 0
    first = dealer + 1 if dealer + 1 < n else 0
    st[S_DEALER] = dealer
    st[S_SETASIDE] = set_aside
    st[S_PHASE] = PH_PASS
    st[S_PASSES] = 0
    st[S_TRICKS] = 0
    st[S_TRICKN] = 0
    st[S_TRICKLEAD] = -1
    st[S_UQ] = 0
    st[S_LEADNEXT] = first
    st[S_CUR] = first


@numba.njit(cache=True)
def _new_game(st: np.ndarray, ms: np.ndarray, dl: np.ndarray, sc: np.ndarray, rng: np.ndarray,
              i: int, deck: np.ndarray, p: np.ndarray) -> None:
    """A new episode: the first dealer scripted or drawn (K8), then hand 1."""
    n = p[P_N]
    for s in range(n):
        st[S_SCORES + s] = 0
        st[S_LTC + s] = -1
    st[S_HANDNO] = 0
    st[S_LTLEAD] = -1
    st[S_LTWIN] = -1
    st[S_HLEN] = 0
    dealer = st[S_SCDEALER]
    if dealer < 0:
        dealer = randint(rng, i, n)
    _start_hand(st, ms, dl, sc, rng, i, deck, dealer, p)


@numba.njit(cache=True, inline="always")
def _next_upgrader(st: np.ndarray, ms: np.ndarray, n: int) -> None:
    """The next loser, clockwise from the winner's left, with a card it may upgrade; a seat
    whose only choice would be 'no upgrade' is skipped. After the last one the winner leads."""
    winner = st[S_LEADNEXT]
    k = st[S_UQ]
    if k < n:
        blocked = _blocked_cards(ms, n)
        while k < n:
            seat = winner + k
            if seat >= n:
                seat -= n
            k += 1
            if ms[M_HAND + seat] & ~blocked != U0:
                st[S_UQ] = k
                st[S_CUR] = seat
                return
    st[S_UQ] = n
    st[S_PHASE] = PH_PLAY
    st[S_CUR] = winner


@numba.njit(cache=True, inline="always")
def _end_trick(st: np.ndarray, ms: np.ndarray, dl: np.ndarray, sc: np.ndarray, rng: np.ndarray,
               i: int, deck: np.ndarray, rw: np.ndarray, p: np.ndarray, deal: bool) -> bool:
    """The trick is complete: highest trump, else highest card of the led suit, takes it; then
    the upgrade step, or the scoring of the hand (§4.4) and the next deal (``deal``; else the
    game is left between hands, its hand number moved on: a search rollout stops there). True
    when the game ended (its rewards are in ``rw``)."""
    n = p[P_N]
    led = st[S_TC + st[S_TRICKLEAD]]
    led_suit = -1 if led >= TRUMP_CODE else led >> 3
    best_trump, best_face, winner_trump, winner_face = -1, -1, -1, -1
    cards = U0
    for s in range(n):
        code = st[S_TC + s]
        rank = code & 7
        if code >= TRUMP_CODE:
            bit = U1 << np.uint64(code - TRUMP_CODE)
            ms[M_OWNTP + s] |= bit
            if rank > best_trump:
                best_trump = rank
                winner_trump = s
        else:
            bit = U1 << np.uint64(code)
            ms[M_PLAYEDBY + s] |= bit
            if code >> 3 == led_suit and rank > best_face:
                best_face = rank
                winner_face = s
        cards |= bit
        st[S_LTC + s] = code
        st[S_TC + s] = -1
    winner = winner_trump if winner_trump >= 0 else winner_face
    st[S_LTLEAD] = st[S_TRICKLEAD]
    st[S_LTWIN] = winner
    st[S_TWON + winner] += 1
    st[S_FOURS + winner] += popcount64(cards & FOURS_MASK)  # K6: upgraded 4s count
    st[S_TRICKN] = 0
    st[S_TRICKLEAD] = -1
    tricks = st[S_TRICKS] + 1
    st[S_TRICKS] = tricks
    if tricks < p[P_HS]:
        st[S_LEADNEXT] = winner
        st[S_UQ] = 1
        st[S_PHASE] = PH_UPGRADE
        _next_upgrader(st, ms, n)
        return False
    # §4.4: 5 points a trick up to the limit, one over scores 5, more score 0; 2 per 4
    limit = p[P_LIMIT]
    points_mode = p[P_POINTS] != 0
    for s in range(n):
        won = st[S_TWON + s]
        if won <= limit:
            points = 5 * won
        elif won == limit + 1:
            points = 5
        else:
            points = 0
        points += 2 * st[S_FOURS + s]
        st[S_SCORES + s] += points
        if points_mode:
            rw[s] = points
    h = st[S_HANDNO] + 1
    st[S_HANDNO] = h
    if h < p[P_H]:  # K8: the deal rotates clockwise
        if deal:
            _start_hand(st, ms, dl, sc, rng, i, deck, (st[S_DEALER] + 1) % n, p)
        return False
    st[S_PHASE] = PH_OVER
    st[S_CUR] = -1
    if not points_mode:  # zero_sum_outcome: the best (ties share) split +1, the others -1
        split_outcome(st, S_SCORES, n, rw)
    return True


@numba.njit(cache=True, inline="always")
def _apply(st: np.ndarray, ms: np.ndarray, dl: np.ndarray, sc: np.ndarray, hist: np.ndarray,
           passes: np.ndarray, rng: np.ndarray, i: int, deck: np.ndarray, combos: np.ndarray,
           rw: np.ndarray, a: int, p: np.ndarray, deal: bool = True) -> bool:
    """Play legal action ``a`` (``rules.KansasCity.apply``); True when the game ended. The
    action is recorded for ``game(i)``: a pass in ``passes[hand, k]``, a play or upgrade as a
    byte in ``hist`` (see ``Engine.actions``). ``deal``: whether a hand's end deals the next
    (``_end_trick``)."""
    n = p[P_N]
    seat = st[S_CUR]
    phase = st[S_PHASE]
    if phase != PH_PASS:
        hist[st[S_HLEN]] = a - p[P_PB] if phase == PH_PLAY else a - p[P_UB] + UPGRADE_CODE
        st[S_HLEN] += 1
    if phase == PH_PLAY:
        if a >= p[P_TB]:
            rank = a - p[P_TB]
            # a player holds at most one trump per rank (K3), so the rank names the card
            card = rank + lowest_bit_index((ms[M_UPG + seat] >> np.uint64(rank)) & LANES)
            ms[M_UPG + seat] &= ~(U1 << np.uint64(card))
            code = card + TRUMP_CODE
        else:
            code = a - p[P_PB]
            ms[M_HAND + seat] &= ~(U1 << np.uint64(code))
        if st[S_TRICKN] == 0:
            st[S_TRICKLEAD] = seat
        else:
            led = st[S_TC + st[S_TRICKLEAD]]
            if led < TRUMP_CODE and (code >= TRUMP_CODE or code >> 3 != led >> 3):
                st[S_VOIDS + seat] |= 1 << (led >> 3)  # failed to follow: void (K9)
        st[S_TC + seat] = code
        st[S_TRICKN] += 1
        if st[S_TRICKN] == n:
            return _end_trick(st, ms, dl, sc, rng, i, deck, rw, p, deal)
        st[S_CUR] = seat + 1 if seat + 1 < n else 0
        return False
    if phase == PH_UPGRADE:
        if a != p[P_NU]:
            bit = U1 << np.uint64(a - p[P_UB])
            ms[M_HAND + seat] &= ~bit
            ms[M_UPG + seat] |= bit
        _next_upgrader(st, ms, n)
        return False
    # pass (§4.2, K7): a 3-subset of hand positions; the cards change hands once all have chosen
    passes[st[S_HANDNO], st[S_PASSES]] = a
    x = ms[M_HAND + seat]
    chosen = U0
    pos = 0
    j = 0
    while j < 3:
        low = x & (U0 - x)
        if pos == combos[a, j]:
            chosen |= low
            j += 1
        x ^= low
        pos += 1
    ms[M_HAND + seat] &= ~chosen
    ms[M_PASS + seat] = chosen
    st[S_PASSES] += 1
    if st[S_PASSES] < n:
        st[S_CUR] = seat + 1 if seat + 1 < n else 0
        return False
    for giver in range(n):
        ms[M_HAND + (giver + 1) % n] |= ms[M_PASS + giver]
    st[S_PHASE] = PH_PLAY
    st[S_CUR] = st[S_LEADNEXT]  # the dealer's left leads (K8)
    return False


# ---- outputs ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _write_obs(row: np.ndarray, st: np.ndarray, ms: np.ndarray, seat: int,
               p: np.ndarray) -> None:
    """``seat``'s observation into ``row``: ``encoder.encode``, entry for entry. Every entry of
    the row is written (no zeroing first): card sets byte by byte from ``BYTE_BITS``, counts
    rank by rank, one-hot segments cleared then set."""
    n = p[P_N]
    phase = st[S_PHASE]
    in_pass = phase == PH_PASS
    hidden = p[P_HIDDEN] != 0
    last = st[S_LTLEAD] >= 0
    _put_bits(row, p[O_HAND], ms[M_HAND + seat], 7)
    _put_bits(row, p[O_OWNUP], ms[M_UPG + seat], 7)
    played = U0
    trumps = U0
    o_trick = p[O_TRICK]
    o_last = p[O_LT]
    s = seat
    for rel in range(n):
        chosen = ms[M_PASS + s]
        held = ms[M_HAND + s]
        if in_pass:
            held |= chosen
        row[p[O_HSIZE] + rel] = popcount64(held)
        _put_counts(row, p[O_HR] + rel * RANKS, held if rel == 0 or not hidden else U0)
        _put_bits(row, p[O_TR] + rel * RANKS, _ranks_of(ms[M_UPG + s]), 1)
        voids = st[S_VOIDS + s]
        o = np.uint64(p[O_VOIDS] + rel * 7)
        for j in range(7):
            row[o + np.uint64(j)] = BYTE_BITS[voids, j]
        faces = ms[M_PLAYEDBY + s]
        played |= faces
        _put_bits(row, p[O_PB] + rel * DECK_SIZE, faces, 7)
        own = ms[M_OWNTP + s]
        trumps |= own
        _put_counts(row, p[O_TPB] + rel * RANKS, own)
        # passes: yours once chosen, the others' after the exchange (hidden backs: only the
        # right neighbour's, whose cards you received)
        shown = rel == 0 or (not in_pass and (not hidden or rel == n - 1))
        _put_counts(row, p[O_PR] + rel * RANKS, chosen if shown else U0)
        row[p[O_TW] + rel] = st[S_TWON + s]
        row[p[O_FC] + rel] = st[S_FOURS + s]
        row[p[O_SC] + rel] = st[S_SCORES + s] / 100.0
        _zero(row, o_trick, DECK_SIZE + RANKS)
        code = st[S_TC + s]
        if code >= 0:
            row[o_trick + (DECK_SIZE + (code & 7) if code >= TRUMP_CODE else code)] = 1
        _zero(row, o_last, DECK_SIZE + RANKS)
        if last:
            code = st[S_LTC + s]
            row[o_last + (DECK_SIZE + (code & 7) if code >= TRUMP_CODE else code)] = 1
        o_trick += DECK_SIZE + RANKS
        o_last += DECK_SIZE + RANKS
        s = s + 1 if s + 1 < n else 0
    _put_bits(row, p[O_PLAYED], played | ms[M_OWNTP + seat], 7)
    _put_counts(row, p[O_TP], trumps)
    _zero(row, p[O_TL], n)
    if st[S_TRICKN] > 0:
        row[p[O_TL] + _rel(st[S_TRICKLEAD], seat, n)] = 1
    _zero(row, p[O_LTL], n)
    _zero(row, p[O_LTW], n)
    if last:
        row[p[O_LTL] + _rel(st[S_LTLEAD], seat, n)] = 1
        row[p[O_LTW] + _rel(st[S_LTWIN], seat, n)] = 1
    _zero(row, p[O_HN], MAX_HANDS)
    row[p[O_HN] + min(st[S_HANDNO], p[P_H] - 1)] = 1
    _zero(row, p[O_HT], MAX_HANDS)
    row[p[O_HT] + p[P_H] - 1] = 1
    _zero(row, p[O_DEALER], n)
    row[p[O_DEALER] + _rel(st[S_DEALER], seat, n)] = 1
    _zero(row, p[O_PHASE], 3)
    _zero(row, p[O_TOMOVE], n)
    _zero(row, p[O_NL], n)
    if phase != PH_OVER:
        cur = st[S_CUR]
        row[p[O_PHASE] + phase] = 1
        row[p[O_TOMOVE] + _rel(cur, seat, n)] = 1
        if phase == PH_PLAY:
            leader = st[S_TRICKLEAD] if st[S_TRICKN] > 0 else cur
        else:  # the pass phase: the dealer's left; the upgrade step: the trick's winner
            leader = st[S_LEADNEXT]
        row[p[O_NL] + _rel(leader, seat, n)] = 1
    _put_bits(row, p[O_PASSED], ms[M_PASS + seat], 7)
    _put_bits(row, p[O_RECV], U0 if in_pass else ms[M_PASS + _rel(seat - 1, 0, n)], 7)
    set_aside = st[S_SETASIDE]
    _put_bits(row, p[O_SETASIDE], U0 if set_aside < 0 else U1 << np.uint64(set_aside), 7)
    row[p[O_HIDDEN]] = 1 if hidden else 0


@numba.njit(cache=True)
def _write_bot_view(row: np.ndarray, st: np.ndarray, ms: np.ndarray, seat: int,
                    p: np.ndarray) -> None:
    """The part of ``_write_obs`` that the heuristic bot reads (``bot_batched``: the hand, the
    trick, its leader, the tricks won and the phase), the rest of ``row`` left as it was."""
    n = p[P_N]
    _put_bits(row, p[O_HAND], ms[M_HAND + seat], 7)
    o_trick = p[O_TRICK]
    s = seat
    for rel in range(n):
        row[p[O_TW] + rel] = st[S_TWON + s]
        _zero(row, o_trick, DECK_SIZE + RANKS)
        code = st[S_TC + s]
        if code >= 0:
            row[o_trick + (DECK_SIZE + (code & 7) if code >= TRUMP_CODE else code)] = 1
        o_trick += DECK_SIZE + RANKS
        s = s + 1 if s + 1 < n else 0
    _zero(row, p[O_TL], n)
    if st[S_TRICKN] > 0:
        row[p[O_TL] + _rel(st[S_TRICKLEAD], seat, n)] = 1
    _zero(row, p[O_PHASE], 3)
    if st[S_PHASE] != PH_OVER:
        row[p[O_PHASE] + st[S_PHASE]] = 1


@numba.njit(cache=True)
def _write_mask(mrow: np.ndarray, st: np.ndarray, ms: np.ndarray, p: np.ndarray) -> None:
    """The legal actions of the seat to move (``rules.KansasCity.legal_actions``)."""
    mrow[:] = 0
    phase = st[S_PHASE]
    if phase == PH_PASS:
        mrow[: p[P_PB]] = 1
        return
    seat = st[S_CUR]
    hand = ms[M_HAND + seat]
    if phase == PH_UPGRADE:
        _set_bits(mrow, p[P_UB], hand & ~_blocked_cards(ms, p[P_N]))
        mrow[p[P_NU]] = 1
        return
    faces, trumps = _legal_plays(st, ms, seat)
    _set_bits(mrow, p[P_PB], faces)
    _set_bits(mrow, p[P_TB], trumps)


@numba.njit(cache=True, inline="always")
def _legal_plays(st: np.ndarray, ms: np.ndarray, seat: int) -> tuple[np.uint64, np.uint64]:
    """The face cards (ids as bits) and trump ranks (as bits) ``seat`` may play now (§4.3,
    K9): follow the led suit; an upgraded card is trump only."""
    hand = ms[M_HAND + seat]
    trumps = _ranks_of(ms[M_UPG + seat])
    faces = hand
    if st[S_TRICKN] > 0:
        led = st[S_TC + st[S_TRICKLEAD]]
        if led >= TRUMP_CODE:
            if trumps != U0:
                faces = U0
        else:
            follow = hand & (SUIT_BYTE << np.uint64((led >> 3) * 8))
            if follow != U0:
                faces = follow
                trumps = U0
    return faces, trumps


@numba.njit(cache=True)
def _emit(i: int, state: np.ndarray, masks: np.ndarray, obs: np.ndarray, mask: np.ndarray,
          to_move: np.ndarray, p: np.ndarray) -> None:
    """Game ``i``'s outputs: the seat to move, its observation and its mask."""
    st = state[i]
    seat = st[S_CUR]
    to_move[i] = seat
    _write_obs(obs[i], st, masks[i], seat, p)
    _write_mask(mask[i], st, masks[i], p)


@numba.njit(cache=True)
def _deal_current(state: np.ndarray, masks: np.ndarray, deals: np.ndarray, script: np.ndarray,
                  rng: np.ndarray, hands: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                  to_move: np.ndarray, p: np.ndarray) -> None:
    """Game ``i`` (every game, its current hand just dealt) given ``hands[i]`` as that hand's
    script instead, the hand dealt again from it (``_start_hand``), and its outputs written
    (``Engine.deal_current``)."""
    deck = np.empty(DECK_SIZE, np.int64)
    for i in range(state.shape[0]):
        st = state[i]
        h = st[S_HANDNO]
        for s in range(hands.shape[1]):
            deals[i, h, s] = hands[i, s]
        script[i, h] = SCRIPT_HANDS
        _start_hand(st, masks[i], deals[i], script[i], rng, i, deck, st[S_DEALER], p)
        _emit(i, state, masks, obs, mask, to_move, p)


# ---- the kernel -------------------------------------------------------------------------------
MODE_RESET, MODE_STEP, MODE_FINISH = 0, 1, 2


@numba.njit(cache=True)
def _kernel(mode: int, actions: np.ndarray, games: np.ndarray, state: np.ndarray,
            masks: np.ndarray, deals: np.ndarray, script: np.ndarray, history: np.ndarray,
            passes: np.ndarray, rng: np.ndarray, combos: np.ndarray, obs: np.ndarray,
            mask: np.ndarray, to_move: np.ndarray, rewards: np.ndarray, done: np.ndarray,
            final_scores: np.ndarray, final_obs: np.ndarray, p: np.ndarray) -> int:
    """One call for every game. ``MODE_RESET``: deal every game. ``MODE_STEP``: play
    ``actions[i]`` in game ``i`` (a negative action leaves game ``i`` as it is) and write the
    outputs of the games still going; returns how many ended (they are left over, ``done``).
    ``MODE_FINISH``: for the ended games listed in ``games``, their final scores and every
    seat's final observation, then a new episode from the game's own stream."""
    deck = np.empty(DECK_SIZE, np.int64)
    n = p[P_N]
    finished = 0
    if mode == MODE_RESET:
        for i in range(state.shape[0]):
            _new_game(state[i], masks[i], deals[i], script[i], rng, i, deck, p)
            _emit(i, state, masks, obs, mask, to_move, p)
    elif mode == MODE_STEP:
        for i in range(state.shape[0]):
            rw = rewards[i]
            rw[:] = 0
            done[i] = False
            a = actions[i]
            if a < 0:
                continue
            if _apply(state[i], masks[i], deals[i], script[i], history[i], passes[i], rng, i,
                      deck, combos, rw, a, p):
                done[i] = True
                finished += 1
            else:
                _emit(i, state, masks, obs, mask, to_move, p)
    else:
        for k in range(games.shape[0]):
            i = games[k]
            st = state[i]
            for s in range(n):
                final_scores[k, s] = st[S_SCORES + s]
                _write_obs(final_obs[k, s], st, masks[i], np.int32(s), p)
            script[i, :] = SCRIPT_RANDOM
            st[S_SCDEALER] = -1
            _new_game(st, masks[i], deals[i], script[i], rng, i, deck, p)
            _emit(i, state, masks, obs, mask, to_move, p)
    return finished


_CARD_IDS = {card_str(c): c for c in range(DECK_SIZE)}
_VALUE_NODES = np.array(_NODES_W)  # (node, weight) rows of search.win_chance's sum


@numba.njit(cache=True)
def _boundary_value(st: np.ndarray, seat: int, n: int, hands: int, spread: float,
                    nodes: np.ndarray) -> float:
    """``search.value`` between hands for ``seat`` of the game whose ``_state`` row is ``st``:
    the same Gauss-Hermite sum as ``search.win_chance`` over the cumulative scores, the hands
    left being those still to deal."""
    mine = st[S_SCORES + seat]
    width = spread * math.sqrt(hands - st[S_HANDNO])
    total = 0.0
    for j in range(nodes.shape[0]):
        p = nodes[j, 1]
        for t in range(n):
            if t != seat:
                d = (mine - st[S_SCORES + t]) / width
                p *= 0.5 * (1.0 + math.erf((d + nodes[j, 0]) * 0.7071067811865476))
        total += p
    return total - (1.0 - total) / (n - 1)  # type: ignore[no-any-return]


@numba.njit(cache=True)
def _boundary_values(rows: np.ndarray, seats: np.ndarray, state: np.ndarray, n: int,
                     hands: int, spread: float, nodes: np.ndarray, out: np.ndarray) -> None:
    """``_boundary_value`` of seat ``seats[k]`` in game ``rows[k]``, into ``out[k]``."""
    for k in range(rows.shape[0]):
        out[k] = _boundary_value(state[rows[k]], seats[k], n, hands, spread, nodes)


@numba.njit(cache=True, inline="always")
def _suit_lengths(hand: np.uint64, lengths: np.ndarray) -> None:
    """The number of cards of each suit in ``hand`` into ``lengths``."""
    for suit in range(7):
        lengths[suit] = popcount64((hand >> np.uint64(suit * 8)) & SUIT_BYTE)


@numba.njit(cache=True, inline="always")
def _decide_state(st: np.ndarray, ms: np.ndarray, p: np.ndarray, lengths: np.ndarray) -> int:
    """The heuristic bot's move for the seat to move in a play or upgrade phase, read from the
    game's state row instead of an observation: ``bot_batched.decide_row`` on the observation
    ``_write_bot_view`` and ``_write_mask`` would write, the same rules and ties (the options
    in action order, a strictly better key replacing the best), with the card sets as bit masks
    (``tests/games/kansas_city/test_vector.py`` compares them on every decision of seeded
    games; the choices are ``bot_batched.pick_upgrade`` and ``pick_play`` for both, the legal
    plays ``_legal_plays`` as the mask writes them). ``lengths`` (``int64[7]``)
    is scratch. The pass phase is left to ``decide_row`` (returns ``FALLBACK``)."""
    phase = st[S_PHASE]
    seat = st[S_CUR]
    hand = ms[M_HAND + seat]
    won = st[S_TWON + seat]
    need = won < p[P_LIMIT]
    if phase == PH_UPGRADE:
        if not need:
            return p[P_NU]  # type: ignore[no-any-return]
        _suit_lengths(hand, lengths)
        return pick_upgrade(int(p[P_UB]), int(p[P_NU]), hand & ~_blocked_cards(ms, p[P_N]),
                            lengths)
    if phase != PH_PLAY:
        return FALLBACK
    faces, trumps = _legal_plays(st, ms, seat)
    leading = st[S_TRICKN] == 0
    led_suit = -1
    best_trump = -1
    best_led = -1
    has_four = False
    if not leading:
        led = st[S_TC + st[S_TRICKLEAD]]
        if led < TRUMP_CODE:
            led_suit = led >> 3
        # the trick so far (``bot_batched._trick_state`` on the written trick)
        for s in range(p[P_N]):
            code = st[S_TC + s]
            if code < 0:
                continue
            if code >= TRUMP_CODE:
                best_trump = max(best_trump, (code - TRUMP_CODE) & 7)
                has_four |= (code - TRUMP_CODE) & 7 == 3
            else:
                has_four |= code % 8 == 3
                if code >> 3 == led_suit:
                    best_led = max(best_led, code % 8)
    if leading and need:
        _suit_lengths(hand, lengths)
    want = need or (has_four and won == p[P_LIMIT])
    return pick_play(int(p[P_PB]), int(p[P_TB]), faces, trumps, need, want, leading, lengths,
                     led_suit, best_trump, best_led)


@numba.njit(cache=True)
def _play_out(first: np.ndarray, seats: np.ndarray, state: np.ndarray, masks: np.ndarray,
              deals: np.ndarray, script: np.ndarray, hist: np.ndarray, passes: np.ndarray,
              rng: np.ndarray, combos: np.ndarray, obs: np.ndarray, mask: np.ndarray,
              to_move: np.ndarray, p: np.ndarray, bot: np.ndarray, bot_combos: np.ndarray,
              spread: float, nodes: np.ndarray, out: np.ndarray) -> int:
    """Game ``i`` (every ``i < len(first)``) plays ``first[i]``, then the heuristic bot's moves
    (``bot_batched.decide_row`` on the observation written after each move) until its hand or
    its game ends; ``out[i]``: seat ``seats[i]``'s final reward (the game over, ``'win'``
    rewards: its outcome) or ``search.value`` between hands (``_boundary_value``). The games
    are left as they end (not dealt again, nor the next hand dealt: the value reads only the
    scores and the hand number; their ``obs`` rows hold only what the bot read, ``to_move`` is
    not written). Returns -1, or the first game where the bot's
    kernel left a row to the reference (``FALLBACK``: not an observation the engine writes)."""
    deck = np.empty(DECK_SIZE, np.int64)
    rw = np.zeros(p[P_N], np.float32)
    hand = np.empty(DECK_SIZE, np.int64)
    lengths = np.empty(7, np.int64)
    n = p[P_N]
    for i in range(first.shape[0]):
        # the game's rows, taken once: a view made at every move costs a fifth of the rollout
        st, ms, dl, sc, hs, ps = state[i], masks[i], deals[i], script[i], hist[i], passes[i]
        start = st[S_HANDNO]
        a = first[i]
        while True:
            rw[:] = 0
            if _apply(st, ms, dl, sc, hs, ps, rng, i, deck, combos, rw, a, p, False):
                out[i] = rw[seats[i]]
                break
            if st[S_HANDNO] != start:
                out[i] = _boundary_value(st, seats[i], n, p[P_H], spread, nodes)
                break
            a = _decide_state(st, ms, p, lengths)
            if a == FALLBACK:  # the pass phase: from the bot's view of the observation
                seat = st[S_CUR]
                _write_bot_view(obs[i], st, ms, seat, p)
                _write_mask(mask[i], st, ms, p)
                a = decide_row(obs[i], mask[i], bot, bot_combos, hand, lengths)
                if a == FALLBACK:
                    return i
    return -1


def _trusted_parse(deal: Mapping[str, Any]) -> tuple[int | None, list[int] | None, int | None]:
    """``KansasCity._parse_deal`` of a deal from a trusted source (``BatchedEngine.trusted``:
    the world sampler's, cards named as ``card_str`` names them): no checks, a lookup a card, or
    none where the record keeps its hands' masks (``rules.MaskedDeal``)."""
    hands = deal.get("hands")
    masks = getattr(deal, "masks", None)
    if masks is None and hands is not None:
        masks = [sum(1 << _CARD_IDS[c] for c in hand) for hand in hands]
    set_aside = deal.get("set_aside")
    return deal.get("dealer"), masks, None if set_aside is None else _CARD_IDS[set_aside]


@numba.njit(cache=True)
def _replay_kernel(history: np.ndarray, state: np.ndarray, masks: np.ndarray, deals: np.ndarray,
                   script: np.ndarray, hist: np.ndarray, passes: np.ndarray, rng: np.ndarray,
                   combos: np.ndarray, obs: np.ndarray, mask: np.ndarray, to_move: np.ndarray,
                   p: np.ndarray) -> int:
    """``history[t, i]`` played in game ``i`` for t in order, up to its first negative entry;
    the outputs written once at the end (rewards are not kept). Returns the first game whose
    history ended it (-1 when none did: then it is ``MODE_STEP`` called once per ``t``)."""
    deck = np.empty(DECK_SIZE, np.int64)
    rw = np.zeros(p[P_N], np.float32)
    for i in range(state.shape[0]):
        st, ms, dl, sc, hs, ps = state[i], masks[i], deals[i], script[i], hist[i], passes[i]
        for t in range(history.shape[0]):
            a = history[t, i]
            if a < 0:
                break
            if _apply(st, ms, dl, sc, hs, ps, rng, i, deck, combos, rw, a, p):
                return i
        _emit(i, state, masks, obs, mask, to_move, p)
    return -1


class Engine(BatchedEngine):
    """Kansas City games in lockstep (see the module docstring); every option of the AEC env:
    4 or 5 players, ``hands`` 1–10 or ``'per_player'``, both ``card_backs``, both reward
    modes."""

    SEGMENTS = SEGMENTS
    ROW_ARRAYS = ("_state", "_masks", "_deals", "_script", "_history", "_passes", "_rng")
    PLAY_OUT_READS_OBSERVATIONS = False  # its bot twin writes the rows it reads
    DEALS_CURRENT = True
    HAND_CHANCE = False  # the stream deals hands (and draws a first dealer), nothing else
    STREAM = "_rng"

    def __init__(self, spec: GameSpec, options: dict[str, Any], num_envs: int) -> None:
        super().__init__(spec, options, num_envs)  # checks SEGMENTS against the layout
        n = self.num_players
        if n not in HAND_SIZE:
            raise self.unsupported_option("num_players", "4 or 5")
        if options["card_backs"] not in CARD_BACKS:
            raise self.unsupported_option("card_backs", " or ".join(map(repr, CARD_BACKS)))
        hands = hands_in_game(options)
        if not 1 <= hands <= MAX_HANDS:
            raise self.unsupported_option("hands", f"1 to {MAX_HANDS} or 'per_player'")
        if self.reward_mode not in ("win", "points"):
            raise self.unsupported_option("reward_mode", "'win' or 'points'")
        self.hands_total = hands
        self.hand_size = hs = HAND_SIZE[n]
        pass_actions = len(PASS_COMBOS[hs])
        params = [0] * (P_OFF + len(SEGMENTS))
        params[P_N] = n
        params[P_HS] = hs
        params[P_H] = hands
        params[P_PB] = pass_actions
        params[P_TB] = pass_actions + DECK_SIZE
        params[P_UB] = pass_actions + DECK_SIZE + RANKS
        params[P_NU] = pass_actions + 2 * DECK_SIZE + RANKS
        params[P_HIDDEN] = int(options["card_backs"] == "hidden")
        params[P_POINTS] = int(self.reward_mode == "points")
        params[P_NA] = self.num_actions
        params[P_OBS] = self.obs_size
        params[P_LIMIT] = TRICK_LIMIT[n]
        params[P_OFF:] = self.segment_offsets
        if params[P_NU] + 1 != self.num_actions:
            raise RuntimeError("kansas_city batched engine: the action layout changed; update "
                               "batched.py")
        self._params = np.array(params, np.int64)
        size = self.num_envs
        self._state = np.zeros((size, S_WIDTH), np.int32)
        self._masks = np.zeros((size, M_WIDTH), np.uint64)
        self._deals = np.zeros((size, hands, n), np.uint64)
        self._script = np.full((size, hands), SCRIPT_RANDOM, np.int8)
        # the plays and upgrades of a game (a byte each), and its passes by hand and turn
        plays = n * hs + (n - 1) * (hs - 1)
        self._history = np.zeros((size, hands * plays), np.uint8)
        self._passes = np.zeros((size, hands, n), np.uint16)
        self._rng = np.zeros(size, np.uint64)
        self._none = np.zeros(0, np.int64)

    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        """Deal every game: hand by hand from ``deals[i]`` where given (every deal checked by
        the reference parser first; a hand it leaves out comes from the game's stream), else
        from game ``i``'s stream ``rng_state[i]``, which the engine keeps and advances."""
        size, n = self.num_envs, self.num_players
        if not (isinstance(rng_state, np.ndarray) and rng_state.dtype == np.uint64
                and rng_state.shape == (size,)):
            raise ValueError(f"rng_state must be a uint64 array of shape ({size},), got "
                             f"{getattr(rng_state, 'dtype', type(rng_state).__name__)} "
                             f"{getattr(rng_state, 'shape', '')}")
        script = np.full((size, self.hands_total), SCRIPT_RANDOM, np.int8)
        first_dealer = np.full(size, -1, np.int32)
        scripted = np.zeros((size, self.hands_total, n), np.uint64)
        if deals is not None:
            per_game = self.check_deals(deals)
            parser = once_per_record(_trusted_parse) if self.trusted else \
                self.new_game(None)._parse_deal  # type: ignore[attr-defined]
            for i, deal in enumerate(per_game):
                parsed = parse_deals(deal, self.hands_total, parser, n)
                if parsed[0][0] is not None:
                    first_dealer[i] = parsed[0][0]
                for h, (_, hands, set_aside) in enumerate(parsed):
                    if hands is not None:
                        script[i, h] = SCRIPT_HANDS
                        scripted[i, h] = hands
                    elif set_aside is not None:
                        script[i, h] = set_aside
        self._rng = rng_state
        self._script = script
        self._deals = scripted
        self._state[:] = 0
        self._state[:, S_SCDEALER] = first_dealer
        self._masks[:] = 0
        self.rewards[:] = 0.0
        self.deal_rewards[:] = 0.0
        self.done[:] = False
        self.final_buffers(0)
        self._run(MODE_RESET)
        self._dealt = True

    def deal_current(self, deals: Sequence[Mapping[str, Any]]) -> None:
        """``BatchedEngine.deal_current``: game ``i``'s current hand is dealt again, from
        ``deals[i]``'s hands as its script (``_start_hand``: each seat's cards, the card set
        aside at 5 players), its outputs written anew."""
        size, n = self.num_envs, self.num_players
        state = self._state
        self.check_deal_current(deals, (state[:, S_PHASE] == PH_PASS) & (state[:, S_PASSES] == 0),
                                "hand")
        hands = np.empty((size, n), np.uint64)
        for i, deal in enumerate(deals):
            dealer, masks, _ = _trusted_parse(deal)
            if masks is None or len(masks) != n or \
                    dealer is not None and dealer != state[i, S_DEALER]:
                raise ValueError(f"game {i}: deal_current takes the hands of the hand being "
                                 f"dealt, by its dealer {int(state[i, S_DEALER])}, got "
                                 f"{short_repr(dict(deal))}")
            hands[i] = masks
        _deal_current(state, self._masks, self._deals, self._script, self._rng, hands, self.obs,
                      self.mask, self.to_move, self._params)

    def step(self, actions: np.ndarray) -> None:
        """Play ``actions[i]`` (legal; -1 skips the game) in every game; games that end get
        their final scores and observations, then a new deal."""
        if not self._dealt:
            raise RuntimeError("kansas_city batched engine: call reset() before step()")
        finished = self._run(MODE_STEP, np.ascontiguousarray(actions, np.int64))
        self.final_buffers(finished)
        if finished:
            self._run(MODE_FINISH, games=np.flatnonzero(self.done))

    def step_histories(self, history: np.ndarray) -> None:
        """``step`` for each row of ``history`` in one kernel call (``_replay_kernel``)."""
        if not self._dealt:
            raise RuntimeError("kansas_city batched engine: call reset() before step()")
        self.rewards[:] = 0.0
        self.done[:] = False
        self.final_buffers(0)
        ended = _replay_kernel(np.ascontiguousarray(history, np.int64), self._state, self._masks,
                               self._deals, self._script, self._history, self._passes,
                               self._rng, COMBOS[self.hand_size], self.obs, self.mask,
                               self.to_move, self._params)
        if ended >= 0:
            raise ValueError(f"game {ended}: its history ends the game (step_histories plays "
                             f"games that go on)")

    def _run(self, mode: int, actions: np.ndarray | None = None,
             games: np.ndarray | None = None) -> int:
        none = self._none
        return int(_kernel(mode, none if actions is None else actions,
                           none if games is None else games, self._state, self._masks,
                           self._deals, self._script, self._history, self._passes, self._rng,
                           COMBOS[self.hand_size], self.obs, self.mask, self.to_move,
                           self.rewards, self.done, self.final_scores, self.final_obs,
                           self._params))

    def actions(self, i: int) -> list[int]:
        """Every action of game ``i``'s episode so far, in order: each hand's passes (from
        ``_passes``), then its plays and upgrades (from ``_history``, one byte each: a play is
        ``action - play_base``, an upgrade ``action - upgrade_base + 64``); a hand ends with its
        last play."""
        p = self._params
        n, per_hand = self.num_players, int(p[P_N] * p[P_HS])
        state = self._state[i]
        hand_number = int(state[S_HANDNO])

        def passes(h: int) -> list[int]:
            made = n if h < hand_number or state[S_PHASE] != PH_PASS else int(state[S_PASSES])
            return self._passes[i, h, :made].tolist()

        actions = passes(0)
        hand, played = 0, 0
        for code in self._history[i, : int(state[S_HLEN])].tolist():
            if code < UPGRADE_CODE:
                actions.append(int(p[P_PB]) + code)
                played += 1
            else:
                actions.append(int(p[P_UB]) + code - UPGRADE_CODE)
            if played == per_hand:
                hand, played = hand + 1, 0
                actions.extend(passes(hand))
        return actions

    def hands_dealt(self) -> np.ndarray:
        return self._state[:, S_HANDNO].astype(np.int64) + 1

    def boundary_state(self, i: int, start: Game) -> Any:
        """What ``search.value`` reads between hands: the cumulative scores and the hand
        number (the hand about to be played, counted from 0)."""
        st = self._state[i]
        n = self.num_players
        return SimpleNamespace(is_over=False, num_players=n, hands_total=self.hands_total,
                               hand_number=int(st[S_HANDNO]),
                               scores=[int(x) for x in st[S_SCORES : S_SCORES + n]])

    def boundary_values(self, rows: np.ndarray, seats: np.ndarray, starts: Sequence[Game],
                        value: Callable[[Any, int], float]) -> np.ndarray:
        """``search.value`` at the hand boundary in one kernel call (``_boundary_values``)."""
        if value is not search.value:
            return super().boundary_values(rows, seats, starts, value)
        out = np.empty(len(rows))
        n = self.num_players
        _boundary_values(np.asarray(rows, np.int64), np.asarray(seats, np.int64), self._state,
                         n, self.hands_total, HAND_SPREAD[n], _VALUE_NODES, out)
        return out

    def play_out(self, policy: Any, actions: np.ndarray, seats: np.ndarray,
                 value: Callable[[Any, int], float], starts: Sequence[Game],
                 ) -> np.ndarray | None:
        """The heuristic bot (``bot.HeuristicPolicy`` of these options) and ``search.value``
        in one kernel call (``_play_out``, a game at a time to its hand's end); None for any
        other policy or value."""
        if type(policy) is not HeuristicPolicy or value is not search.value or \
                policy.num_players != self.num_players or policy.layout.size != self.obs_size:
            return None
        if policy._kernel_params is None:
            policy._kernel_params = kernel_params(policy)
        bot, bot_combos = policy._kernel_params
        out = np.empty(len(actions))
        stuck = _play_out(np.ascontiguousarray(actions, np.int64),
                          np.ascontiguousarray(seats, np.int64), self._state, self._masks,
                          self._deals, self._script, self._history, self._passes, self._rng,
                          COMBOS[self.hand_size], self.obs, self.mask, self.to_move,
                          self._params, bot, bot_combos, HAND_SPREAD[self.num_players],
                          _VALUE_NODES, out)
        if stuck >= 0:
            raise RuntimeError(f"kansas_city batched engine: the heuristic kernel left game "
                               f"{stuck}'s move to the reference bot")
        return out

    def game(self, i: int) -> Game:
        """Game ``i`` rebuilt as a reference game: its deals so far replayed with ``actions``."""
        if not self._dealt:
            raise RuntimeError("kansas_city batched engine: call reset() before game(i)")
        if not 0 <= i < self.num_envs:
            raise ValueError(f"game index {i} is out of range 0..{self.num_envs - 1}")
        n = self.num_players
        state = self._state[i]
        hand_number = int(state[S_HANDNO])
        first_dealer = (int(state[S_DEALER]) - hand_number) % n
        deals = []
        for h in range(hand_number + 1):
            hands = [int(m) for m in self._deals[i, h]]
            record: dict[str, Any] = {
                "dealer": (first_dealer + h) % n,
                "hands": [[card_str(c) for c in bits(m)] for m in hands],
            }
            if n == 5:
                dealt = 0
                for m in hands:
                    dealt |= m
                missing = ((1 << DECK_SIZE) - 1) & ~dealt
                record["set_aside"] = card_str(missing.bit_length() - 1)
            deals.append(record)
        return self.replay(deals, self.actions(i))
