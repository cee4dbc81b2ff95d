"""Cahoots (cooperative)'s batched engine: ``num_envs`` games in lockstep in numba kernels.

Imported only by ``cahoots_envs.vector`` (it imports numba). The rules are those of
``rules.py`` and the observation that of ``encoder.py``, entry for entry; the differential tests
in ``tests/games/cahoots_coop/test_vector.py`` replay reference games through it step by step.

State of one game, packed into a few rows:

- ``_state`` (``int32[N, 20]``): the seat to move, the start player, plays made, the next card
  of the draw pile and its end (indices into ``_cards``), goals turned up from the goal deck, the
  number of goals in the game, goals completed, cards in the hands, the four pile tops, the four
  visible goals (-1 for an empty place), whether the game is over and won, and whether the
  observation row shows a nonzero `play_completes` entry;
- ``_bits`` (``int64[N, 15]``): the completed goals, the goals the latest resolution completed,
  the cards on the piles, and per seat (4 slots each) its hand, the cards it has played and the
  goals its plays completed. A card set is one word: bit ``k`` for a first card of kind ``k``,
  bit ``32 + k`` for the second copy; a goal set has bit ``g`` for goal ``g``;
- ``_cards`` (``uint8[N, 56]``) and ``_goals`` (``uint8[N, 50]``): the deal (each hand, the four
  piles, the draw pile top first; the goal deck top first), read by ``game(i)``;
- ``_history`` (``uint16[N, 52]``): each play's action, the card it covered (bits 7–11) and
  whether it completed a goal (bit 12): the observation's play window and ``game(i)`` read it.

Goals are looked up in one table over the 31,465 multisets of four kinds (``goal_ranks.py``:
``goals.py``'s ``evaluate``, ranked by the combinatorial number system), small enough to stay in
cache.

The step kernel applies every game's action and patches the observation of the seat to move in
place: it clears what the mover's view wrote (hand, plays it could make, the play window, who
played and completed what, all relative to the observer), updates what every seat sees alike
(the changed pile top, cards played, draw pile, goals) and writes the next mover's view; a game
given action -1 is left as it is. A game that ends is left over until the deal kernel has written
its final scores and every seat's final observation; it is then dealt again from its own stream.
The helpers are plain ``njit`` functions, not ``inline="always"``: that compiles in two thirds of
the time and runs as fast.

A deal can end the game before its first decision (every goal met by the starting piles, or a
start player without a legal card). A scripted deal that does so is reported by ``reset`` as a
finished game (``done``, its deal's reward in ``rewards``, final scores and observations) and the
game is dealt again from its stream. A game the engine deals itself never starts over: such a
deal is dealt again at once, uncounted (there is no decision to play), and ``redeals[i]`` counts
them: about one deal in 500 with the default options, each leaving the start player without a
legal card (no four tops meet more than 10 goals, so only ``num_goals`` of 10 or fewer can be
won at the deal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

from cahoots_envs.core.batched import BatchedEngine
from cahoots_envs.core.game import Game
from cahoots_envs.core.numba_kernels import lowest_bit_index, next_u64, popcount64, randint, shuffle
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.games.cahoots_coop.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_coop.bot_batched import best_plays, scratch
from cahoots_envs.games.cahoots_coop.encoder import (
    GOAL_FEATURES,
    GOAL_WIDTH,
    MAX_DRAW_PILE,
    PLAY_FIELD_OFFSETS,
    PLAY_WIDTH,
    PLAYS_PER_SEAT,
)
from cahoots_envs.games.cahoots_coop.goal_ranks import RANK_WEIGHTS, goal_table, rank4
from cahoots_envs.games.cahoots_coop.rules import (
    COPIES,
    DECK_SIZE,
    GOAL_INDEX,
    GOALS,
    HAND_SIZE,
    KINDS,
    MATCHES,
    NUM_GOAL_CARDS,
    PILES,
    card_str,
    goals_in_game,
    parse_card,
)

__all__ = ["Engine"]

MAXP = 4  # seat slots per per-seat field (the most players)
MAX_PLAYS = DECK_SIZE - PILES  # 52

# _state columns
S_CUR, S_START, S_TURNS, S_DPOS, S_DEND, S_GPOS, S_G, S_NDONE, S_CIH = range(9)
S_TOP = 9  # 4 pile tops
S_VIS = 13  # 4 visible goals (-1: empty place)
S_OVER, S_WON = 17, 18
S_COMPLETES = 19  # 1 while the row shows a play that would complete a goal (`play_completes`)
S_WIDTH = 20

# _bits columns
B_COMPLETED, B_LAST, B_PLAYED = 0, 1, 2
B_HAND, B_PLAYED_BY, B_COMPLETED_BY = 3, 3 + MAXP, 3 + 2 * MAXP  # MAXP slots each
B_WIDTH = 3 + 3 * MAXP

# _history entry: action | covered << 7 | completed-a-goal << 12
H_COVERED_SHIFT, H_DONE_BIT = 7, 1 << 12

# _params entries: the game's shape, then the layout's offsets in ``SEGMENTS`` order
# (``other_hands`` is absent with one player: its offset is -1 and nothing reads it)
P_N, P_OPEN, P_DISJ, P_POINTS, P_GOALS = range(5)
SEGMENTS = (
    "hand", "other_hands", "hand_sizes", "tops", "played", "draw_pile", "my_plays",
    "play_completes", "goals", "completed", "goal_counts", "to_move", "rules", "plays",
    "played_by", "completed_by", "last_completed",
)
P_OFF = 5
(O_HAND, O_OTHER, O_SIZES, O_TOPS, O_PLAYED, O_DRAW, O_MYPLAYS, O_COMPLETES, O_GOALS,
 O_COMPLETED, O_COUNTS, O_TOMOVE, O_RULES, O_PLAYS, O_PLAYED_BY, O_COMPLETED_BY, O_LAST) = range(
    P_OFF, P_OFF + len(SEGMENTS))
P_WIDTH = P_OFF + len(SEGMENTS)

# offsets within one slot of the `plays` window
F_CARD = PLAY_FIELD_OFFSETS["card"]
F_PILE = PLAY_FIELD_OFFSETS["pile"]
F_COVERED = PLAY_FIELD_OFFSETS["covered"]
F_DONE = PLAY_FIELD_OFFSETS["completed"]
PLAY_ROW = PLAYS_PER_SEAT * PLAY_WIDTH  # one seat's row of the window

LOW32 = (1 << 32) - 1
CARD_INDEX = {card_str(k): k for k in range(KINDS)}  # a card's kind by its name in deal records
MATCH_TABLE = np.array(MATCHES, np.int64)  # kinds a card may be played on (colour or number)


# ---- bit helpers ------------------------------------------------------------------------------
@numba.njit(cache=True)
def _add_card(w: np.int64, k: int) -> np.int64:
    """Card set ``w`` with one more card of kind ``k`` (the second copy goes to bit 32 + k)."""
    one = np.int64(1)
    if (w >> k) & one:
        return w | (one << (k + 32))
    return w | (one << k)


@numba.njit(cache=True)
def _remove_card(w: np.int64, k: int) -> np.int64:
    """Card set ``w`` with one card of kind ``k`` fewer."""
    one = np.int64(1)
    if (w >> (k + 32)) & one:
        return w & ~(one << (k + 32))
    return w & ~(one << k)


@numba.njit(cache=True)
def _set_bits(row: np.ndarray, off: int, x: np.int64, value: float) -> None:
    """``row[off + b] = value`` for every set bit ``b`` of ``x``."""
    while x != 0:
        row[off + lowest_bit_index(np.uint64(x))] = value
        x &= x - 1


# ---- rules --------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _resolve(st: np.ndarray, goals: np.ndarray, i: int, table: np.ndarray,
             rw: np.ndarray) -> tuple[int, np.int64, int]:
    """§1.5 step 3 / A4: complete every visible goal the tops satisfy, refill each place from the
    goal deck (places in order), repeat until nothing changes. Returns (goals completed, their
    bit mask, bit mask of the places that changed)."""
    sat = table[rank4(np.int64(st[i, S_TOP]), np.int64(st[i, S_TOP + 1]),
                      np.int64(st[i, S_TOP + 2]), np.int64(st[i, S_TOP + 3]), rw)]
    count = 0
    done = np.int64(0)
    changed = 0
    if sat == 0:
        return count, done, changed
    hit = True
    while hit:
        hit = False
        for slot in range(PILES):  # a place refilled in this round is checked in the next
            g = st[i, S_VIS + slot]
            if g >= 0 and (sat >> g) & 1:
                hit = True
                count += 1
                done |= np.int64(1) << g
                changed |= 1 << slot
                pos = st[i, S_GPOS]
                if pos < st[i, S_G]:
                    st[i, S_VIS + slot] = goals[i, pos]
                    st[i, S_GPOS] = pos + 1
                else:
                    st[i, S_VIS + slot] = -1
    return count, done, changed


@numba.njit(cache=True)
def _check_end(st: np.ndarray, bt: np.ndarray, i: int, match: np.ndarray) -> None:
    """§1.6: won when every goal is completed; lost when every card is played, or when the seat
    to move has no legal play."""
    if st[i, S_NDONE] == st[i, S_G]:
        st[i, S_OVER] = 1
        st[i, S_WON] = 1
        return
    if st[i, S_CIH] == 0:
        st[i, S_OVER] = 1
        return
    fits = (match[st[i, S_TOP]] | match[st[i, S_TOP + 1]] | match[st[i, S_TOP + 2]]
            | match[st[i, S_TOP + 3]])
    if bt[i, B_HAND + st[i, S_CUR]] & LOW32 & fits == 0:
        st[i, S_OVER] = 1


@numba.njit(cache=True)
def _deal(st: np.ndarray, cards: np.ndarray, goals: np.ndarray, rng: np.ndarray, i: int,
          params: np.ndarray) -> None:
    """A new deal from game ``i``'s stream (§1.4): shuffled cards (hands, piles, the rest the
    draw pile), the goal deck and the start player."""
    row = cards[i]
    for j in range(DECK_SIZE):
        row[j] = j // COPIES
    shuffle(row, rng, i)
    grow = goals[i]
    for j in range(NUM_GOAL_CARDS):
        grow[j] = j
    shuffle(grow, rng, i)
    st[i, S_G] = params[P_GOALS]
    st[i, S_DEND] = DECK_SIZE
    st[i, S_START] = randint(rng, i, params[P_N])


@numba.njit(cache=True)
def _setup(st: np.ndarray, bt: np.ndarray, cards: np.ndarray, goals: np.ndarray, i: int,
           params: np.ndarray, match: np.ndarray, table: np.ndarray, rw: np.ndarray) -> None:
    """The game from its deal (``_cards``, ``_goals``, the start player, the draw pile's end
    and the number of goals): hands, piles, four goals face up, setup's goal resolution and the
    end check (§1.4, §1.6)."""
    n = params[P_N]
    for s in range(MAXP):
        w = np.int64(0)
        if s < n:
            for j in range(HAND_SIZE):
                w = _add_card(w, np.int64(cards[i, s * HAND_SIZE + j]))
        bt[i, B_HAND + s] = w
        bt[i, B_PLAYED_BY + s] = 0
        bt[i, B_COMPLETED_BY + s] = 0
    played = np.int64(0)
    for p in range(PILES):
        k = np.int64(cards[i, n * HAND_SIZE + p])
        st[i, S_TOP + p] = k
        played = _add_card(played, k)
    bt[i, B_PLAYED] = played
    st[i, S_DPOS] = n * HAND_SIZE + PILES
    st[i, S_CIH] = n * HAND_SIZE
    st[i, S_TURNS] = 0
    g = st[i, S_G]
    for slot in range(PILES):
        st[i, S_VIS + slot] = goals[i, slot] if slot < g else -1
    st[i, S_GPOS] = min(PILES, g)
    count, done, _ = _resolve(st, goals, i, table, rw)
    st[i, S_NDONE] = count
    bt[i, B_COMPLETED] = done
    bt[i, B_LAST] = done
    st[i, S_CUR] = st[i, S_START]
    st[i, S_OVER] = 0
    st[i, S_WON] = 0
    _check_end(st, bt, i, match)


# ---- observation ----------------------------------------------------------------------------
@numba.njit(cache=True)
def _write_goal(row: np.ndarray, off: int, g: int, gf: np.ndarray) -> None:
    """One place of the `goals` segment: goal ``g``'s features, or zeros when ``g < 0``."""
    if g < 0:
        for f in range(GOAL_WIDTH):
            row[off + f] = 0.0
    else:
        for f in range(GOAL_WIDTH):
            row[off + f] = gf[g, f]


@numba.njit(cache=True)
def _write_counts(row: np.ndarray, st: np.ndarray, i: int, params: np.ndarray) -> None:
    """`goal_counts` and `draw_pile`."""
    at = params[O_COUNTS]
    g = st[i, S_G]
    row[at] = st[i, S_NDONE] / NUM_GOAL_CARDS
    row[at + 1] = (g - st[i, S_NDONE]) / NUM_GOAL_CARDS
    row[at + 2] = (g - st[i, S_GPOS]) / NUM_GOAL_CARDS
    row[at + 3] = g / NUM_GOAL_CARDS
    row[params[O_DRAW]] = (st[i, S_DEND] - st[i, S_DPOS]) / MAX_DRAW_PILE


@numba.njit(cache=True)
def _write_shared(row: np.ndarray, st: np.ndarray, bt: np.ndarray, i: int, seat: int,
                  params: np.ndarray, gf: np.ndarray) -> None:
    """Into a zeroed row: what every seat sees alike (tops, cards played, draw pile, goals,
    completed goals and counts, rule flags, the latest completions) and `to_move` for ``seat``."""
    n = params[P_N]
    tops = params[O_TOPS]
    for p in range(PILES):
        row[tops + p * KINDS + st[i, S_TOP + p]] = 1.0
    played = bt[i, B_PLAYED]
    _set_bits(row, params[O_PLAYED], played & LOW32, 1.0)
    _set_bits(row, params[O_PLAYED], played >> 32, 2.0)
    for slot in range(PILES):
        g = st[i, S_VIS + slot]
        if g >= 0:
            _write_goal(row, params[O_GOALS] + slot * GOAL_WIDTH, g, gf)
    _set_bits(row, params[O_COMPLETED], bt[i, B_COMPLETED], 1.0)
    _write_counts(row, st, i, params)
    tm = params[O_TOMOVE]
    if st[i, S_OVER] == 0:
        row[tm + (st[i, S_CUR] - seat) % n] = 1.0
    row[params[O_RULES]] = params[P_OPEN]
    row[params[O_RULES] + 1] = params[P_DISJ]
    _set_bits(row, params[O_LAST], bt[i, B_LAST], 1.0)


@numba.njit(cache=True)
def _clear_seat(row: np.ndarray, mrow: np.ndarray, st: np.ndarray, bt: np.ndarray, i: int,
                seat: int, params: np.ndarray, match: np.ndarray) -> None:
    """Zero what ``_write_seat`` wrote for ``seat`` while the state is still the one it was
    written from (`hand_sizes` excepted: every write sets all of it): the dense segments whole,
    the mostly empty ones entry by entry."""
    n = params[P_N]
    row[params[O_HAND] : params[O_HAND] + KINDS] = 0.0
    if params[P_OPEN]:
        row[params[O_OTHER] : params[O_OTHER] + (n - 1) * KINDS] = 0.0
    once = bt[i, B_HAND + seat] & LOW32
    plays_at, completes_at = params[O_MYPLAYS], params[O_COMPLETES]
    completes = st[i, S_COMPLETES] != 0
    for p in range(PILES):
        legal = once & match[st[i, S_TOP + p]]
        while legal != 0:
            a = lowest_bit_index(np.uint64(legal)) * PILES + p
            legal &= legal - 1
            row[plays_at + a] = 0.0
            mrow[a] = 0
            if completes:
                row[completes_at + a] = 0.0
    if st[i, S_TURNS]:
        row[params[O_PLAYS] : params[O_PLAYS] + n * PLAY_ROW] = 0.0
        row[params[O_PLAYED_BY] : params[O_PLAYED_BY] + n * KINDS] = 0.0
    for s in range(n):
        rel = s - seat
        if rel < 0:
            rel += n
        _set_bits(row, params[O_COMPLETED_BY] + rel * NUM_GOAL_CARDS, bt[i, B_COMPLETED_BY + s],
                  0.0)


@numba.njit(cache=True)
def _write_seat(row: np.ndarray, mrow: np.ndarray, st: np.ndarray, bt: np.ndarray,
                hist: np.ndarray, i: int, seat: int, params: np.ndarray, match: np.ndarray,
                table: np.ndarray, rw: np.ndarray) -> None:
    """Into a row cleared there: what depends on the observer ``seat``: its hand, the other
    hands (open hands), hand sizes, the plays it could make and what they would complete, the
    play window, who played and completed what (rows relative to ``seat``); and the mask
    ``mrow`` (its legal actions). Seats and rows wrap by a comparison rather than ``%`` (an
    integer division, which costs more than most of the rest)."""
    n = params[P_N]
    hand = bt[i, B_HAND + seat]
    once = hand & LOW32
    _set_bits(row, params[O_HAND], once, 1.0)
    _set_bits(row, params[O_HAND], hand >> 32, 2.0)
    sizes = params[O_SIZES]
    s = seat
    for rel in range(n):  # s = (seat + rel) % n
        other = bt[i, B_HAND + s]
        row[sizes + rel] = popcount64(other)
        if rel and params[P_OPEN]:
            at = params[O_OTHER] + (rel - 1) * KINDS
            _set_bits(row, at, other & LOW32, 1.0)
            _set_bits(row, at, other >> 32, 2.0)
        s += 1
        if s == n:
            s = 0
    # my_plays / play_completes: each distinct kind of the hand on each pile it fits, and how
    # many visible goals that play completes (mostly none: S_COMPLETES says whether any does)
    t0, t1 = np.int64(st[i, S_TOP]), np.int64(st[i, S_TOP + 1])
    t2, t3 = np.int64(st[i, S_TOP + 2]), np.int64(st[i, S_TOP + 3])
    visible = np.int64(0)  # the visible goals
    for slot in range(PILES):
        g = st[i, S_VIS + slot]
        if g >= 0:
            visible |= np.int64(1) << g
    st[i, S_COMPLETES] = 0
    plays_at, completes_at = params[O_MYPLAYS], params[O_COMPLETES]
    for p in range(PILES):
        legal = once & match[st[i, S_TOP + p]]
        while legal != 0:
            k = lowest_bit_index(np.uint64(legal))
            legal &= legal - 1
            a = k * PILES + p
            row[plays_at + a] = 1.0
            mrow[a] = 1
            if p == 0:
                r = rank4(k, t1, t2, t3, rw)
            elif p == 1:
                r = rank4(t0, k, t2, t3, rw)
            elif p == 2:
                r = rank4(t0, t1, k, t3, rw)
            else:
                r = rank4(t0, t1, t2, k, rw)
            hits = popcount64(table[r] & visible)
            if hits:
                row[completes_at + a] = hits / PILES
                st[i, S_COMPLETES] = 1
    # the play window: play j back (j = 1..2n) is seat (start + turns - j) % n's latest (j <= n)
    # or previous play, in the row of that seat relative to ``seat``
    turns = st[i, S_TURNS]
    window = params[O_PLAYS]
    rel = ((st[i, S_START] + turns - 1) % n - seat) % n if turns else 0
    for j in range(1, min(turns, PLAYS_PER_SEAT * n) + 1):
        e = np.int64(hist[i, turns - j])
        at = window + rel * PLAY_ROW + (0 if j <= n else PLAY_WIDTH)
        rel -= 1
        if rel < 0:
            rel = n - 1
        a = e & 127
        row[at] = 1.0
        row[at + F_CARD + (a >> 2)] = 1.0
        row[at + F_PILE + (a & 3)] = 1.0
        row[at + F_COVERED + ((e >> H_COVERED_SHIFT) & 31)] = 1.0
        if e & H_DONE_BIT:
            row[at + F_DONE] = 1.0
    for s in range(n):
        rel = s - seat
        if rel < 0:
            rel += n
        w = bt[i, B_PLAYED_BY + s]
        at = params[O_PLAYED_BY] + rel * KINDS
        _set_bits(row, at, w & LOW32, 1.0)
        _set_bits(row, at, w >> 32, 2.0)
        _set_bits(row, params[O_COMPLETED_BY] + rel * NUM_GOAL_CARDS, bt[i, B_COMPLETED_BY + s],
                  1.0)


# ---- kernels ----------------------------------------------------------------------------------
@numba.njit(cache=True)
def _play(st: np.ndarray, bt: np.ndarray, cards: np.ndarray, goals: np.ndarray,
          hist: np.ndarray, i: int, a: np.int64, n: int, match: np.ndarray, table: np.ndarray,
          rw: np.ndarray) -> tuple[int, np.int64, int, np.int64, np.int64]:
    """Game ``i``'s seat to move plays ``a`` (§1.5), the turn passes and the end is checked
    (§1.6). Returns (goals completed, their bit mask, bit mask of the goal places that changed,
    the card covered, the goals the previous play completed)."""
    cur = np.int64(st[i, S_CUR])
    kind = a >> 2
    pile = a & 3
    # §1.5 effect 1: the card covers the top; 2: draw back to 4 while the draw pile lasts
    hand = _remove_card(bt[i, B_HAND + cur], kind)
    pos = st[i, S_DPOS]
    if pos < st[i, S_DEND]:
        hand = _add_card(hand, np.int64(cards[i, pos]))
        st[i, S_DPOS] = pos + 1
    else:
        st[i, S_CIH] -= 1
    bt[i, B_HAND + cur] = hand
    bt[i, B_PLAYED] = _add_card(bt[i, B_PLAYED], kind)
    bt[i, B_PLAYED_BY + cur] = _add_card(bt[i, B_PLAYED_BY + cur], kind)
    covered = np.int64(st[i, S_TOP + pile])
    st[i, S_TOP + pile] = kind
    # effect 3: goal resolution
    count, completed, changed = _resolve(st, goals, i, table, rw)
    last = bt[i, B_LAST]
    bt[i, B_LAST] = completed
    entry = a | (covered << H_COVERED_SHIFT)
    if count:
        st[i, S_NDONE] += count
        bt[i, B_COMPLETED] |= completed
        bt[i, B_COMPLETED_BY + cur] |= completed
        entry |= H_DONE_BIT
    hist[i, st[i, S_TURNS]] = entry
    st[i, S_TURNS] += 1
    st[i, S_CUR] = cur + 1 if cur + 1 < n else 0
    _check_end(st, bt, i, match)
    return count, completed, changed, covered, last


@numba.njit(cache=True)
def _step_kernel(actions: np.ndarray, st: np.ndarray, bt: np.ndarray, cards: np.ndarray,
                 goals: np.ndarray, hist: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                 to_move: np.ndarray, rewards: np.ndarray, done: np.ndarray,
                 deal_rewards: np.ndarray, params: np.ndarray, match: np.ndarray,
                 table: np.ndarray, rw: np.ndarray, gf: np.ndarray) -> int:
    """Play ``actions[i]`` in every game (none where it is negative), patch the mover's
    observation and mask; games that end are marked ``done`` and left over (``_deal_kernel``
    deals them again). Returns how many ended."""
    n = params[P_N]
    points = params[P_POINTS] != 0
    ended = 0
    for i in range(actions.shape[0]):
        for s in range(n):
            rewards[i, s] = 0.0
            deal_rewards[i, s] = 0.0
        done[i] = False
        a = actions[i]
        if a < 0:
            continue
        row = obs[i]
        mrow = mask[i]
        _clear_seat(row, mrow, st, bt, i, np.int64(st[i, S_CUR]), params, match)
        kind = a >> 2
        pile = a & 3
        count, completed, changed, covered, last = _play(st, bt, cards, goals, hist, i, a, n,
                                                         match, table, rw)
        played = bt[i, B_PLAYED]
        nxt = np.int64(st[i, S_CUR])
        over = st[i, S_OVER] != 0
        reward = float(count) if points else (1.0 if over and st[i, S_WON] else 0.0)
        if reward != 0.0:
            for s in range(n):
                rewards[i, s] = reward
        if over:
            done[i] = True
            ended += 1
            continue
        # what every seat sees alike
        tops = params[O_TOPS] + pile * KINDS
        row[tops + covered] = 0.0
        row[tops + kind] = 1.0
        row[params[O_PLAYED] + kind] = 1.0 + ((played >> (kind + 32)) & 1)
        if count:
            for slot in range(PILES):
                if changed >> slot & 1:
                    _write_goal(row, params[O_GOALS] + slot * GOAL_WIDTH, st[i, S_VIS + slot],
                                gf)
            _set_bits(row, params[O_COMPLETED], completed, 1.0)
        _write_counts(row, st, i, params)
        _set_bits(row, params[O_LAST], last, 0.0)
        _set_bits(row, params[O_LAST], completed, 1.0)
        _write_seat(row, mrow, st, bt, hist, i, nxt, params, match, table, rw)
        to_move[i] = nxt
    return ended


@numba.njit(cache=True)
def _read_state(st: np.ndarray, bt: np.ndarray, i: int, n: int, open_hands: bool,
                match: np.ndarray, legal: np.ndarray, hand: np.ndarray, others: np.ndarray,
                tops: np.ndarray, played: np.ndarray) -> tuple[int, Any, Any, Any, Any]:
    """What the heuristic bot reads from the observation of game ``i``'s seat to move
    (``bot_batched.read_row``), from the state: its hand, the other hands (the next seat first;
    with open hands only: the rows stay zero otherwise), the tops and the cards played into the
    arrays, its legal plays (ascending) into ``legal``. Returns (legal plays, the visible goals'
    bit mask, the next hand's size, goals left, cards in the draw pile)."""
    cur = st[i, S_CUR]
    h = bt[i, B_HAND + cur]
    w = bt[i, B_PLAYED]
    for p in range(PILES):
        tops[p] = st[i, S_TOP + p]
    nl = 0
    for k in range(KINDS):
        hand[k] = ((h >> k) & 1) + ((h >> (k + 32)) & 1)
        played[k] = ((w >> k) & 1) + ((w >> (k + 32)) & 1)
        if hand[k]:
            for p in range(PILES):
                if (match[k] >> tops[p]) & 1:
                    legal[nl] = k * PILES + p
                    nl += 1
    s = cur + 1 if cur + 1 < n else 0
    next_size = popcount64(np.uint64(bt[i, B_HAND + s]))
    if open_hands:
        for r in range(n - 1):  # the seat r + 1 places after the mover
            o = bt[i, B_HAND + s]
            for k in range(KINDS):
                others[r, k] = ((o >> k) & 1) + ((o >> (k + 32)) & 1)
            s = s + 1 if s + 1 < n else 0
    visible = np.int64(0)
    for slot in range(PILES):
        g = st[i, S_VIS + slot]
        if g >= 0:
            visible |= np.int64(1) << g
    return (nl, visible, next_size, st[i, S_G] - st[i, S_NDONE],
            st[i, S_DEND] - st[i, S_DPOS])


@numba.njit(cache=True)
def _play_out(first: np.ndarray, st: np.ndarray, bt: np.ndarray, cards: np.ndarray,
              goals: np.ndarray, hist: np.ndarray, rng: np.ndarray, params: np.ndarray,
              match: np.ndarray, table: np.ndarray, rw: np.ndarray, out: np.ndarray) -> int:
    """Game ``g`` (every ``g < len(first)``) plays ``first[g]``, then the heuristic bot's
    moves (``bot_batched.best_plays`` on what the mover's observation shows, read from the
    state; a tie drawn from the game's own stream, a forced move taken without a draw) to the
    end; ``out[g]``: the final reward (every seat's alike: cooperative), as ``_step_kernel``
    pays it. The games are left as they end (not dealt again). Returns -1, or the first game
    the bot found no move in (not one the engine leaves going)."""
    n = params[P_N]
    open_hands = params[P_OPEN] != 0
    points = params[P_POINTS] != 0
    legal, hand, others, tops, played, unseen, weight, completes, new_tops = scratch(n)
    moves = np.zeros(legal.shape[0], np.int64)
    for g in range(first.shape[0]):
        a = first[g]
        while True:
            count, _, _, _, _ = _play(st, bt, cards, goals, hist, g, a, n, match, table, rw)
            if st[g, S_OVER] != 0:
                out[g] = float(count) if points else (1.0 if st[g, S_WON] else 0.0)
                break
            nl, visible, next_size, goals_left, draw_pile = _read_state(
                st, bt, g, n, open_hands, match, legal, hand, others, tops, played)
            if nl == 1:
                a = legal[0]
                continue
            k = best_plays(legal, nl, moves, n, open_hands, hand, others, tops, played, visible,
                           next_size, goals_left, draw_pile, table, rw, unseen, weight,
                           completes, new_tops) if nl > 1 else 0
            if k <= 0:
                return g
            a = moves[0] if k == 1 else moves[randint(rng, g, k)]
    return -1


DEAL_STREAM, DEAL_SCRIPTED, DEAL_FINISHED = 0, 1, 2  # the modes of ``_deal_kernel``


@numba.njit(cache=True)
def _deal_kernel(mode: int, st: np.ndarray, bt: np.ndarray, cards: np.ndarray, goals: np.ndarray,
                 hist: np.ndarray, rng: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                 to_move: np.ndarray, rewards: np.ndarray, done: np.ndarray,
                 deal_rewards: np.ndarray, final_scores: np.ndarray, final_obs: np.ndarray,
                 redeals: np.ndarray, scratch: np.ndarray, params: np.ndarray, match: np.ndarray,
                 table: np.ndarray, rw: np.ndarray, gf: np.ndarray) -> int:
    """Deal games and write their outputs. ``DEAL_STREAM``: every game, from its stream.
    ``DEAL_SCRIPTED``: every game from the deal stored in it; one over at its deal is marked
    ``done``, with its deal's reward, and left over. ``DEAL_FINISHED``: each game ``done``
    (over), in order: its final scores (every seat: the goals completed) and every seat's final
    observation into row ``r`` of ``final_scores`` / ``final_obs``, then a new deal from its
    stream (``scratch``: a mask row the final observations write). A deal from a stream that
    ends the game at once is dealt again (``redeals``). Returns how many games are left over."""
    n = params[P_N]
    ended = 0
    r = 0
    for i in range(st.shape[0]):
        if mode == DEAL_FINISHED:
            if not done[i]:
                continue
            for s in range(n):
                final_scores[r, s] = st[i, S_NDONE]
                frow = final_obs[r, s]
                frow[:] = 0.0
                _write_shared(frow, st, bt, i, s, params, gf)
                _write_seat(frow, scratch, st, bt, hist, i, s, params, match, table, rw)
            r += 1
        else:
            for s in range(n):
                rewards[i, s] = 0.0
            done[i] = False
        if mode == DEAL_SCRIPTED:
            _setup(st, bt, cards, goals, i, params, match, table, rw)
            if st[i, S_OVER]:
                done[i] = True
                ended += 1
                paid = st[i, S_NDONE] if params[P_POINTS] else st[i, S_WON]
                for s in range(n):
                    rewards[i, s] = paid
                    deal_rewards[i, s] = 0.0
                continue
        else:
            _deal(st, cards, goals, rng, i, params)
            _setup(st, bt, cards, goals, i, params, match, table, rw)
            while st[i, S_OVER]:
                redeals[i] += 1
                _deal(st, cards, goals, rng, i, params)
                _setup(st, bt, cards, goals, i, params, match, table, rw)
        # the new game's outputs: the mover's observation and mask, and what the deal pays
        row = obs[i]
        row[:] = 0.0
        mrow = mask[i]
        mrow[:] = 0
        cur = np.int64(st[i, S_CUR])
        _write_shared(row, st, bt, i, cur, params, gf)
        _write_seat(row, mrow, st, bt, hist, i, cur, params, match, table, rw)
        to_move[i] = cur
        paid = st[i, S_NDONE] if params[P_POINTS] else 0
        for s in range(n):
            deal_rewards[i, s] = paid
    return ended


@numba.njit(cache=True)
def _next_seed(rng: np.ndarray, i: int) -> np.int64:
    """63 bits of game ``i``'s stream (seeds the generator that completes a partial deal)."""
    return np.int64(next_u64(rng, i) >> np.uint64(1))


# ---- the engine -------------------------------------------------------------------------------
class Engine(BatchedEngine):
    """Cahoots (cooperative), ``num_envs`` games in lockstep (see the module docstring). Every
    option of the AEC env is played: 1–4 players, ``difficulty``, ``num_goals``,
    ``multicolour_mode``, ``open_hands`` and both reward modes; but table talk (``talk``): the
    engine refuses it (``ValueError``), and search rolls out on the reference game then."""

    SEGMENTS = SEGMENTS
    ROW_ARRAYS = ("_state", "_bits", "_cards", "_goals", "_history", "redeals", "rng_state")
    PLAY_OUT_READS_OBSERVATIONS = False  # its bot twin reads the state, not these rows

    def __init__(self, spec: GameSpec, options: dict[str, Any], num_envs: int) -> None:
        if options.get("talk", "none") != "none":  # before the layout check (talk adds segments)
            self.spec, self.options = spec, dict(options)
            raise self.unsupported_option(
                "talk", "'none' (table talk is not available for this option on the batched "
                "engine)")
        super().__init__(spec, options, num_envs)  # checks SEGMENTS against the layout
        n, p = self.num_envs, self.num_players
        mode = options["multicolour_mode"]
        params = np.zeros(P_WIDTH, np.int64)
        params[P_N] = p
        params[P_OPEN] = int(bool(options["open_hands"]))
        params[P_DISJ] = int(mode == "disjunctive")
        params[P_POINTS] = int(self.reward_mode == "points")
        params[P_GOALS] = goals_in_game(options)
        params[P_OFF:] = self.segment_offsets
        self._params = params
        self._table = goal_table(mode)
        self._scratch = np.zeros(self.num_actions, np.int8)
        self._state = np.zeros((n, S_WIDTH), np.int32)
        self._bits = np.zeros((n, B_WIDTH), np.int64)
        self._cards = np.zeros((n, DECK_SIZE), np.uint8)
        self._goals = np.zeros((n, NUM_GOAL_CARDS), np.uint8)
        self._history = np.zeros((n, MAX_PLAYS), np.uint16)
        self.redeals = np.zeros(n, np.int64)  # auto deals over at the deal, dealt again
        self.rng_state = np.zeros(n, np.uint64)

    def absent_segments(self) -> frozenset[str]:
        """One player has no other hands: the layout has no ``other_hands`` then."""
        return frozenset({"other_hands"}) if self.num_players == 1 else frozenset()

    # ---- lifecycle --------------------------------------------------------------------------
    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        if rng_state.shape != (self.num_envs,) or rng_state.dtype != np.uint64:
            raise ValueError(f"rng_state must be uint64[{self.num_envs}], got "
                             f"{rng_state.dtype}{list(rng_state.shape)}")
        loaded = None
        if deals is not None:
            per_game = self.check_deals(deals)  # raises before anything changes
            loaded = [self._load(per_game[i], rng_state, i) for i in range(self.num_envs)]
        self.rng_state = rng_state
        if loaded is not None:
            for i, (start, cards, goals) in enumerate(loaded):
                self._cards[i, : len(cards)] = cards
                self._goals[i, : len(goals)] = goals
                self._state[i, S_START] = start
                self._state[i, S_DEND] = len(cards)
                self._state[i, S_G] = len(goals)
        self.final_buffers(0)
        self._finish(self._deals(DEAL_STREAM if loaded is None else DEAL_SCRIPTED))
        self._dealt = True

    def step(self, actions: np.ndarray) -> None:
        if not self._dealt:
            raise RuntimeError("call reset() before step()")
        ended = _step_kernel(
            actions, self._state, self._bits, self._cards, self._goals, self._history, self.obs,
            self.mask, self.to_move, self.rewards, self.done, self.deal_rewards, self._params,
            MATCH_TABLE, self._table, RANK_WEIGHTS, GOAL_FEATURES)
        self._finish(ended)

    def _finish(self, ended: int) -> None:
        self.final_buffers(ended)
        if ended:
            self._deals(DEAL_FINISHED)

    def _deals(self, mode: int) -> int:
        return int(_deal_kernel(
            mode, self._state, self._bits, self._cards, self._goals, self._history,
            self.rng_state, self.obs, self.mask, self.to_move, self.rewards, self.done,
            self.deal_rewards, self.final_scores, self.final_obs, self.redeals, self._scratch,
            self._params,
            MATCH_TABLE, self._table, RANK_WEIGHTS, GOAL_FEATURES))

    def _load(self, per_hand: list[dict[str, Any]], rng_state: np.ndarray,
              i: int) -> tuple[int, list[int], list[int]]:
        """Game ``i``'s scripted deal, completed (keys left out drawn from a generator seeded
        from game ``i``'s stream) through the reference rules: (start player, the cards as
        ``_cards`` holds them, the goal deck top first). A whole deal on a ``trusted`` engine
        (search's worlds) is read as the reference game records it (each hand sorted), with
        no game built."""
        seed = int(_next_seed(rng_state, i))
        deal = per_hand[0]
        if self.trusted and all(key in deal for key in self.rules.DEAL_KEYS):
            cards = [k for hand in deal["hands"] for k in sorted(CARD_INDEX[c] for c in hand)]
            cards += [CARD_INDEX[c] for c in deal["piles"]]
            cards += [CARD_INDEX[c] for c in deal["draw_pile"]]
            return int(deal["start_player"]), cards, [GOAL_INDEX[g] for g in deal["goals"]]
        game = self.new_game(per_hand, seed=seed)
        record = game.deals[0]
        cards = [parse_card(c) for hand in record["hands"] for c in hand]
        cards += [parse_card(c) for c in record["piles"]]
        cards += [parse_card(c) for c in record["draw_pile"]]
        goals = [GOAL_INDEX[g] for g in record["goals"]]
        return int(record["start_player"]), cards, goals

    def play_out(self, policy: Any, actions: np.ndarray, seats: np.ndarray,
                 value: Callable[[Any, int], float], starts: Sequence[Game],
                 ) -> np.ndarray | None:
        """The heuristic bot (``bot.HeuristicPolicy`` of these options, without talk) in one
        kernel call (``_play_out``, a game at a time to its end: a one-hand game, so ``value``
        is not needed; every seat's final reward is the same, so ``seats`` neither), reading
        what it would read from the mover's observation straight from the state, its ties
        drawn from each game's own stream (no chance event follows the deal) instead of the
        bot's generator; None for any other policy."""
        if type(policy) is not HeuristicPolicy or policy.num_players != self.num_players or \
                policy.talk != "none":
            return None
        out = np.empty(len(actions))
        stuck = _play_out(np.ascontiguousarray(actions, np.int64), self._state, self._bits,
                          self._cards, self._goals, self._history, self.rng_state, self._params,
                          MATCH_TABLE, self._table, RANK_WEIGHTS, out)
        if stuck >= 0:
            raise RuntimeError(f"cahoots_coop batched engine: the heuristic kernel found no "
                               f"move in game {stuck}")
        return out

    # ---- one game ------------------------------------------------------------------------------
    def deal_of(self, i: int) -> dict[str, Any]:
        """Game ``i``'s deal in the scripted-deal format (every key given)."""
        n = self.num_players
        st = self._state[i]
        cards = self._cards[i].tolist()
        hands = [sorted(cards[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(n)]
        return {
            "start_player": int(st[S_START]),
            "hands": [[card_str(k) for k in hand] for hand in hands],
            "piles": [card_str(k) for k in cards[n * HAND_SIZE : n * HAND_SIZE + PILES]],
            "draw_pile": [card_str(k) for k in cards[n * HAND_SIZE + PILES : int(st[S_DEND])]],
            "goals": [GOALS[g].id for g in self._goals[i, : int(st[S_G])].tolist()],
        }

    def game(self, i: int) -> Game:
        if not self._dealt:
            raise RuntimeError("call reset() before game(i)")
        turns = int(self._state[i, S_TURNS])
        actions = (self._history[i, :turns] & 127).tolist()
        return self.replay([self.deal_of(i)], actions)

    def memory_per_game(self) -> float:
        """Bytes of game state per game: the per-game arrays (the goal table and the offsets are
        shared by every game and every engine of the same ``multicolour_mode``)."""
        per_game = (self._state, self._bits, self._cards, self._goals, self._history,
                    self.redeals, self.rng_state)
        return sum(a.nbytes for a in per_game) / self.num_envs
