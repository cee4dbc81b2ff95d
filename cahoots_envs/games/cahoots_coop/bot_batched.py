"""The heuristic bot of ``bot.py`` over a batch of observations in one numba kernel.

``best_sets`` rates every row's plays exactly as ``HeuristicPolicy._best_plays`` does without
table talk (complete goals now, keep goals reachable, do not strand the next player), in the
same floating-point operations and order (float64 scores; ``exp`` and ``pow`` from the C
library, as Python's ``math`` takes them), and returns per row the moves
``HeuristicPolicy.best_actions`` gives: the only legal move, the first play that wins at once,
or every play of the best score, ascending. The bot breaks those ties with its seeded
generator; ``HeuristicPolicy.act_batch`` draws from it row by row, in row order, as ``act``
would, so a batch decides exactly what the row loop decides.

The rating itself, ``best_plays``, reads plain counts (hands, tops, cards played, visible goals,
hand sizes): ``read_row`` takes them from an observation row, and the batched engine's
``play_out`` (``batched.py``) from its game state, so a rollout decides each ply without
writing an observation. Goals are looked up by the tops' multiset rank (``goal_ranks.py``).
Rows the kernel does not rate are reported by a negative count (``NO_LEGAL``, ``TALK``)
instead of a decision.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from cahoots_envs.core.layout import Layout
from cahoots_envs.core.numba_kernels import popcount64
from cahoots_envs.games.cahoots_coop.bot_weights import COMPLETE_NOW, OWN_HAND, REACH_SCALE, STRAND
from cahoots_envs.games.cahoots_coop.encoder import GOAL_FIELD_OFFSETS, GOAL_WIDTH, MAX_DRAW_PILE
from cahoots_envs.games.cahoots_coop.goal_ranks import RANK_WEIGHTS, goal_table, rank4
from cahoots_envs.games.cahoots_coop.rules import (
    COPIES,
    KINDS,
    MATCHES,
    NUM_GOAL_CARDS,
    PILES,
    TALK_BASE,
)

MATCH_TABLE = np.array(MATCHES, np.int64)  # the tops each kind may go on (colour or number)
FORCED = 0  # a row's count when it has one legal action: taken as it is, with no draw
# a row's count when the kernel does not decide it, and why
NO_LEGAL = -1
TALK = -2
PROBLEMS = {
    NO_LEGAL: "the action mask has no legal action",
    TALK: "the action mask allows a talk action; the compiled bot decides plays only "
    "(talk='none')",
}
_ID_AT = GOAL_FIELD_OFFSETS["id"]  # the goal's id, one-hot, within a goal slot
_EPS = 1e-9  # the bot's tolerance for equal scores


def kernel_args(layout: Layout) -> tuple[Any, ...]:
    """``best_sets``' arguments after ``n`` for observations of ``layout``: where the segments
    the bot reads start (hand, other_hands (-1 with one player), hand_sizes, tops, played,
    draw_pile, goals, goal_counts, rules), the goal tables of both multicolour modes and the
    rank weights."""
    o = layout.offsets
    offsets = tuple(o.get(name, -1) for name in (
        "hand", "other_hands", "hand_sizes", "tops", "played", "draw_pile", "goals",
        "goal_counts", "rules"))
    tables = np.stack([goal_table(mode) for mode in ("union", "disjunctive")])
    return (*offsets, tables, RANK_WEIGHTS)


@numba.njit(cache=True)
def scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The scratch arrays of ``best_plays`` and ``read_row`` (allocated once for many rows):
    legal moves, hand, other hands (rows: the next seat first), tops, cards played, unseen
    cards, weights, the goals each kind completes, the tops after a play."""
    return (np.zeros(TALK_BASE, np.int64), np.zeros(KINDS, np.int64),
            np.zeros((max(n - 1, 1), KINDS), np.int64), np.zeros(PILES, np.int64),
            np.zeros(KINDS, np.int64), np.zeros(KINDS, np.int64), np.zeros(KINDS, np.float64),
            np.zeros(KINDS, np.int64), np.zeros(PILES, np.int64))


# ---- the rating ---------------------------------------------------------------------------
@numba.njit(cache=True)
def _reach(new_tops: np.ndarray, goals: np.int64, weight: np.ndarray, table: np.ndarray,
           rw: np.ndarray, completes: np.ndarray) -> float:
    """``HeuristicPolicy._reach``: how many of ``goals`` are within one legal play of
    completion on ``new_tops``, each counted by 10 (1 - exp(-w / REACH_SCALE)), w the weight of
    the kinds that would complete it (summed in ascending kind order)."""
    if goals == 0:
        return 0.0
    for k in range(KINDS):
        completes[k] = 0
    t0, t1, t2, t3 = new_tops[0], new_tops[1], new_tops[2], new_tops[3]
    for p in range(PILES):
        t = new_tops[p]
        for k in range(KINDS):
            if (MATCH_TABLE[k] >> t) & 1 and weight[k] > 0:
                if p == 0:
                    r = rank4(np.int64(k), t1, t2, t3, rw)
                elif p == 1:
                    r = rank4(t0, np.int64(k), t2, t3, rw)
                elif p == 2:
                    r = rank4(t0, t1, np.int64(k), t3, rw)
                else:
                    r = rank4(t0, t1, t2, np.int64(k), rw)
                completes[k] |= table[r] & goals
    total = 0.0
    g = goals
    while g != 0:
        low = g & -g
        g ^= low
        w = 0.0
        for k in range(KINDS):
            if completes[k] & low:
                w += weight[k]
        if w != 0.0:
            total += 10.0 * (1.0 - math.exp(-w / REACH_SCALE))
    return total


@numba.njit(cache=True)
def best_plays(legal: np.ndarray, nl: int, moves: np.ndarray, n: int, open_hands: bool,
               hand: np.ndarray, others: np.ndarray, tops: np.ndarray, played: np.ndarray,
               visible: np.int64, next_size: int, goals_left: int, draw_pile: int,
               table: np.ndarray, rw: np.ndarray, unseen: np.ndarray, weight: np.ndarray,
               completes: np.ndarray, new_tops: np.ndarray) -> int:
    """``HeuristicPolicy._best_plays`` without talk: the plays ``legal[:nl]`` (ascending)
    rated; the best into ``moves`` (ascending), their count returned. ``others`` holds the
    other hands (the next seat first) with open hands, zeros otherwise; ``table`` is the goal
    table of the game's ``multicolour_mode``; the arrays after ``rw`` are scratch space."""
    total = 0
    for k in range(KINDS):
        u = COPIES - hand[k] - played[k]
        for r in range(n - 1):
            u -= others[r, k]
        unseen[k] = u
        total += u
    # the next hand is known: your own (after the play) with one player, the next seat's with
    # open hands
    known = n == 1 or open_hands
    may_draw = n == 1 and draw_pile > 0
    best_score = -np.inf
    c = 0
    for j in range(nl):
        action = legal[j]
        kind, pile = action // PILES, action % PILES
        for p in range(PILES):
            new_tops[p] = tops[p]
        new_tops[pile] = kind
        done = table[rank4(new_tops[0], new_tops[1], new_tops[2], new_tops[3], rw)] & visible
        count = popcount64(np.uint64(done))
        score = COMPLETE_NOW * count
        if done != 0 and done == visible and goals_left <= count:
            moves[0] = action  # the last goals: the game is won
            return 1
        # the weights of the kinds, in the bot's order of operations
        for k in range(KINDS):
            mine = hand[k] - 1 if k == kind else hand[k]
            if known:
                w = 0.3 * unseen[k]
                w += 3.0 * (mine if n == 1 else others[0, k])
            else:
                w = float(unseen[k])
            if n > 1:
                if open_hands:
                    for r in range(1, n - 1):
                        w += others[r, k]
                w += OWN_HAND * mine
            weight[k] = w
        score += _reach(new_tops, visible & ~done, weight, table, rw, completes)
        # strand risk: the next player holding no legal card on the new tops
        top_mask = np.int64(0)
        for p in range(PILES):
            top_mask |= np.int64(1) << new_tops[p]
        dead = 0
        for k in range(KINDS):
            if MATCH_TABLE[k] & top_mask == 0:
                dead += unseen[k]
        risk = 0.0
        if known:
            saved = False
            for k in range(KINDS):
                held = (hand[k] - 1 if k == kind else hand[k]) if n == 1 else others[0, k]
                if held != 0 and MATCH_TABLE[k] & top_mask != 0:
                    saved = True
                    break
            if not saved:
                # with one player, the card drawn after this play may still save the turn
                risk = STRAND * (dead / total if may_draw and total != 0 else 1.0)
        elif next_size != 0 and total > 0:
            risk = STRAND * math.pow(dead / total, float(next_size))
        score -= risk
        if score > best_score + _EPS:
            best_score = score
            moves[0] = action
            c = 1
        elif score > best_score - _EPS:
            moves[c] = action
            c += 1
    return c


# ---- reading an observation ----------------------------------------------------------------
@numba.njit(cache=True)
def _count(x: np.float32) -> int:
    """A count the observation holds as a float (``np.rint`` of it, as the bot reads it)."""
    return round(np.float64(x))


@numba.njit(cache=True)
def read_row(row: np.ndarray, n: int, at_hand: int, at_other: int, at_sizes: int, at_tops: int,
             at_played: int, at_draw: int, at_goals: int, at_counts: int, at_rules: int,
             hand: np.ndarray, others: np.ndarray, tops: np.ndarray, played: np.ndarray,
             ) -> tuple[bool, bool, np.int64, int, int, int]:
    """``HeuristicPolicy._read`` of one observation row: the hand, other hands (zeros unless
    open), tops and cards played into the arrays; returns (open hands, disjunctive
    multicolour mode, the visible goals' bit mask, the next hand's size, goals left, cards in
    the draw pile)."""
    rules = at_rules
    open_hands = row[rules] > 0.5
    for k in range(KINDS):
        hand[k] = _count(row[at_hand + k])
        played[k] = _count(row[at_played + k])
    for r in range(n - 1):
        for k in range(KINDS):
            others[r, k] = _count(row[at_other + r * KINDS + k]) if open_hands else 0
    for p in range(PILES):
        at = at_tops + p * KINDS
        best = 0
        for k in range(1, KINDS):  # argmax: the first of the highest
            if row[at + k] > row[at + best]:
                best = k
        tops[p] = best
    visible = np.int64(0)
    for slot in range(PILES):
        at = at_goals + slot * GOAL_WIDTH
        if row[at] > 0.5:
            best = 0
            for g in range(1, NUM_GOAL_CARDS):
                if row[at + _ID_AT + g] > row[at + _ID_AT + best]:
                    best = g
            visible |= np.int64(1) << best
    next_size = _count(row[at_sizes + 1 % n])
    goals_left = round(np.float64(row[at_counts + 1]) * NUM_GOAL_CARDS)
    draw_pile = round(np.float64(row[at_draw]) * MAX_DRAW_PILE)
    return open_hands, row[rules + 1] > 0.5, visible, next_size, goals_left, draw_pile


@numba.njit(cache=True)
def legal_of(mrow: np.ndarray, legal: np.ndarray) -> int:
    """The legal actions of a mask row, ascending, into ``legal``; their count, or ``TALK``
    when a talk action is among them."""
    nl = 0
    for a in range(mrow.shape[0]):
        if mrow[a] != 0:
            if a >= TALK_BASE:
                return TALK
            legal[nl] = a
            nl += 1
    return nl


# ---- the kernel ---------------------------------------------------------------------------
@numba.njit(cache=True)
def best_sets(obs: np.ndarray, masks: np.ndarray, n: int, at_hand: int, at_other: int,
              at_sizes: int, at_tops: int, at_played: int, at_draw: int, at_goals: int,
              at_counts: int, at_rules: int, tables: np.ndarray, rw: np.ndarray,
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``obs`` (float32 ``[N, obs]``) and ``masks`` (int8 ``[N, actions]``,
    nonzero = legal): ``counts[i]``, how many moves the bot rates best (``FORCED`` for a row
    with one legal action, which is not rated, or a negative code of ``PROBLEMS``), and
    ``moves[i, :max(counts[i], 1)]``, those moves ascending. ``tables``: the goal tables of
    the ``union`` and ``disjunctive`` modes (rows 0 and 1; the observation says which)."""
    rows = obs.shape[0]
    counts = np.zeros(rows, np.int64)
    moves = np.zeros((rows, TALK_BASE), np.int64)
    legal, hand, others, tops, played, unseen, weight, completes, new_tops = scratch(n)
    for i in range(rows):
        nl = legal_of(masks[i], legal)
        if nl <= 1:
            if nl == 1:
                moves[i, 0] = legal[0]
            counts[i] = FORCED if nl == 1 else NO_LEGAL if nl == 0 else nl
            continue
        open_hands, disjunctive, visible, next_size, goals_left, draw_pile = read_row(
            obs[i], n, at_hand, at_other, at_sizes, at_tops, at_played, at_draw, at_goals,
            at_counts, at_rules, hand, others, tops, played)
        counts[i] = best_plays(legal, nl, moves[i], n, open_hands, hand, others, tops, played,
                               visible, next_size, goals_left, draw_pile,
                               tables[1 if disjunctive else 0], rw, unseen, weight, completes,
                               new_tops)
    return counts, moves
