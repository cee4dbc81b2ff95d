"""The heuristic bot of ``bot.py`` over a batch of observations in one numba kernel.

``best_sets`` rates every row's legal actions exactly as ``HeuristicPolicy._scores`` does, in the
same floating-point types and order of operations (the observation is float32, the scores
float64), and returns per row the moves ``HeuristicPolicy.best_actions`` gives, ascending. The
bot breaks those ties with its seeded generator; ``HeuristicPolicy.act_batch`` draws from it row
by row, in row order, as ``act`` would, so a batch decides exactly what the row loop decides.

Card types are ``suit * 5 + value - 4`` (``rules.py``); the observation segments the bot reads
are located once in Python (``kernel_offsets``) and passed as ints. Rows the reference bot
cannot rate are reported by a negative count (``NO_LEGAL``, ``MIXED_VERBS``, ``NO_IDENTITY``)
instead of a decision.
"""

from __future__ import annotations

import numba
import numpy as np

from cahoots_envs.core.layout import Layout
from cahoots_envs.games.cahoots_tricks.rules import (
    KEEP_BASE,
    KILL_BASE,
    NUM_ACTIONS,
    SUITS,
    TAKE_BASE,
    TRICKS,
)

NUM_SUITS = len(SUITS)
FORCED = 0  # a row's count when it has one legal action: taken as it is, with no draw
# a row's count when the reference bot raises instead of deciding, and what is wrong
NO_LEGAL = -1
MIXED_VERBS = -2
NO_IDENTITY = -3
PROBLEMS = {
    NO_LEGAL: "the action mask has no legal action",
    MIXED_VERBS: "the action mask allows actions of two phases (play, keep/kill, draft); a "
    "decision's legal actions are all of one phase",
    NO_IDENTITY: "the observation shows no suit on the seat's own identity card",
}

_F48 = np.float32(48.0)  # suit_totals hold the totals / 48
_EPS32 = np.float32(1e-9)  # ``share``'s tolerance, taken in float32 like the reference's


def kernel_offsets(layout: Layout) -> tuple[int, int, int, int]:
    """Where the segments the bot reads start: identities, suit_totals, scoring_winners, and
    the entry of trick_number that marks the last trick."""
    o = layout.offsets
    return (o["identities"], o["suit_totals"], o["scoring_winners"],
            o["trick_number"] + TRICKS - 1)


# ---- the play rule ------------------------------------------------------------------------
@numba.njit(cache=True)
def _share(after: np.ndarray, ident: np.ndarray, n: int, counts: np.ndarray) -> float:
    """``HeuristicPolicy.share``: my (relative seat 0) points if the trick ended with the suit
    totals ``after``: the players with the most winning suits on their identity card split 4.
    ``counts`` (float32 ``[n]``) is scratch space."""
    best = after[0]
    for k in range(1, NUM_SUITS):
        best = max(best, after[k])
    if best <= 0:
        return 0.0
    # float32, as numpy 2 takes a float32 scalar minus a float (totals are 0 or >= 4, where
    # 1e-9 is far below float32's resolution: ``after >= best`` in effect, in any numpy)
    threshold = best - _EPS32
    top = np.float32(0.0)
    # the winning suits on each seat's identity card
    for r in range(n):
        c = np.float32(0.0)
        for k in range(NUM_SUITS):
            if after[k] >= threshold:
                c += ident[r, k]
        counts[r] = c
        if r == 0 or c > top:
            top = c
    if counts[0] < top:
        return 0.0
    ties = 0
    for r in range(n):
        if counts[r] == top:
            ties += 1
    return 4.0 / ties


@numba.njit(cache=True)
def _play_score(t: int, totals: np.ndarray, ident: np.ndarray, mine: np.ndarray, n: int,
                after: np.ndarray, counts: np.ndarray) -> float:
    """Play rule: the share of the trick if it ended after playing card ``t``, plus half the
    margin (clipped to ±16, / 16) of my best suit over the best suit not mine, less 0.3 × the
    card's cost (value / 8, × 0.4 off my suits). ``after`` (float32 ``[6]``) and ``counts``
    (float32 ``[n]``) are scratch space."""
    s, value = t // 5, t % 5 + 4
    for k in range(NUM_SUITS):
        after[k] = totals[k]
    after[s] = np.float32(np.float64(after[s]) + value)
    share = _share(after, ident, n, counts)
    has_theirs = False
    theirs = np.float32(0.0)
    ours = np.float32(0.0)
    has_ours = False
    for k in range(NUM_SUITS):
        if mine[k]:
            if not has_ours or after[k] > ours:
                ours = after[k]
            has_ours = True
        else:
            if not has_theirs or after[k] > theirs:
                theirs = after[k]
            has_theirs = True
    diff = np.float32(ours - theirs)
    if diff < -16:
        diff = np.float32(-16.0)
    elif diff > 16:
        diff = np.float32(16.0)
    margin = np.float64(diff) / 16.0
    cost = value / 8.0 * (1.0 if mine[s] else 0.4)
    return share + 0.5 * margin - 0.3 * cost


# ---- the keep/kill rule -------------------------------------------------------------------
@numba.njit(cache=True)
def _pick_score(a: int, mine: np.ndarray, private: np.ndarray, last_trick: bool,
                my_share: float, face_value: bool) -> float:
    """Keep/kill rule: a keep is worth the card's value × 1.5 on my private suit, × 1 on my
    other suits, × 0.3 elsewhere (0 in the last trick, whose kept cards are discarded); a kill
    its value × 0.8 off my suits, plus (face value) value × my share of the trick × 1.5."""
    keep = a < KILL_BASE
    t = a - KEEP_BASE if keep else a - KILL_BASE
    s = t // 5
    value = float(t % 5 + 4)
    if keep:
        if last_trick:
            return 0.0
        return value * (1.5 if private[s] else 1.0 if mine[s] else 0.3)
    score = 0.0 if mine[s] else value * 0.8
    if face_value:
        score += value * my_share * 1.5
    return score


# ---- the kernel ---------------------------------------------------------------------------
@numba.njit(cache=True)
def best_sets(obs: np.ndarray, masks: np.ndarray, n: int, face_value: bool, at_ident: int,
              at_totals: int, at_winners: int, at_last_trick: int,
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``obs`` (float32 ``[N, obs]``) and ``masks`` (int8 ``[N, 120]``, nonzero =
    legal): ``counts[i]``, how many moves the bot rates best (or a negative code of
    ``PROBLEMS``), and ``moves[i, :counts[i]]``, those moves ascending, one of which ``act``
    draws (``best_row``)."""
    rows = obs.shape[0]
    counts = np.zeros(rows, np.int64)
    moves = np.zeros((rows, NUM_ACTIONS), np.int64)
    legal, scores, ident, totals, after, counts_now, mine, private = scratch(n)
    for i in range(rows):
        counts[i] = best_row(obs[i], masks[i], moves[i], n, face_value, at_ident, at_totals,
                             at_winners, at_last_trick, legal, scores, ident, totals, after,
                             counts_now, mine, private)
    return counts, moves


@numba.njit(cache=True)
def scratch(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray, np.ndarray, np.ndarray]:
    """The scratch arrays of ``best_row``, allocated once for many rows."""
    return (np.zeros(NUM_ACTIONS, np.int64), np.zeros(NUM_ACTIONS, np.float64),
            np.zeros((n, NUM_SUITS), np.float32), np.zeros(NUM_SUITS, np.float32),
            np.zeros(NUM_SUITS, np.float32), np.zeros(n, np.float32),
            np.zeros(NUM_SUITS, np.bool_), np.zeros(NUM_SUITS, np.bool_))


@numba.njit(cache=True)
def best_row(row: np.ndarray, mrow: np.ndarray, moves: np.ndarray, n: int, face_value: bool,
             at_ident: int, at_totals: int, at_winners: int, at_last_trick: int,
             legal: np.ndarray, scores: np.ndarray, ident: np.ndarray, totals: np.ndarray,
             after: np.ndarray, counts_now: np.ndarray, mine: np.ndarray,
             private: np.ndarray) -> int:
    """One row of ``best_sets``: how many moves the bot rates best (a negative code of
    ``PROBLEMS`` where ``act`` would raise), those moves ascending into ``moves``. A row with
    one legal action is, as in ``act``, not rated: ``FORCED``, the action in ``moves[0]``. The
    arrays after ``at_last_trick`` are ``scratch(n)``."""
    nl = 0
    for a in range(NUM_ACTIONS):
        if mrow[a] != 0:
            legal[nl] = a
            nl += 1
    if nl == 0:
        return NO_LEGAL
    if nl == 1:  # a forced move is taken without rating it (and without a draw)
        moves[0] = legal[0]
        return FORCED
    # the phase is read off the lowest legal action, as ``_scores`` does
    first, last = legal[0], legal[nl - 1]
    if first < KEEP_BASE and last >= KEEP_BASE or first < TAKE_BASE <= last:
        return MIXED_VERBS
    # identity cards: mine = the suits on my card; private = mine and on no other card
    any_mine = False
    for k in range(NUM_SUITS):
        owners = np.float32(0.0)
        for r in range(n):
            ident[r, k] = row[at_ident + r * NUM_SUITS + k]
            owners += ident[r, k]
        mine[k] = ident[0, k] > 0.5
        private[k] = mine[k] and owners < 1.5
        any_mine = any_mine or mine[k]
    if first >= TAKE_BASE:
        # draft rule: the highest point card
        for j in range(nl):
            scores[j] = float((legal[j] - TAKE_BASE) % 5 + 4)
    elif first < KEEP_BASE:
        # play rule
        if not any_mine:
            return NO_IDENTITY
        for k in range(NUM_SUITS):
            totals[k] = row[at_totals + k] * _F48
        for j in range(nl):
            scores[j] = _play_score(legal[j], totals, ident, mine, n, after, counts_now)
    else:
        # keep/kill rule: my share of the trick if I am a scoring winner
        last_trick = row[at_last_trick] > 0.5
        my_share = 0.0
        if row[at_winners] > 0.5:
            winners = np.float32(0.0)
            for r in range(n):
                winners += row[at_winners + r]
            my_share = 1.0 / max(1.0, np.float64(winners))
        for j in range(nl):
            scores[j] = _pick_score(legal[j], mine, private, last_trick, my_share, face_value)
    # ``_best``: every move within 1e-9 of the best score, ascending
    best = scores[0]
    for j in range(1, nl):
        best = max(best, scores[j])
    c = 0
    for j in range(nl):
        if scores[j] >= best - 1e-9:
            moves[c] = legal[j]
            c += 1
    return c
