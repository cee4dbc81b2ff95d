"""The goals four pile tops satisfy, looked up by the tops' multiset rank (numba).

Goals are predicates on the multiset of the four tops, so one table over the 31,465 multisets
of four kinds (``goals.py``'s ``evaluate``, ranked by the combinatorial number system) answers
every lookup; it is small enough to stay in cache. The batched engine (``batched.py``) and the
heuristic bot's kernel (``bot_batched.py``) both read it.
"""

from __future__ import annotations

from functools import cache
from math import comb

import numba
import numpy as np

from cahoots_envs.games.cahoots_coop.goals import evaluate, multisets
from cahoots_envs.games.cahoots_coop.rules import GOALS, KINDS, NUMBERS, PILES

__all__ = ["RANK_WEIGHTS", "goal_table", "rank4"]


def _rank_weights() -> np.ndarray:
    """``w[j, v] = C(v + j, j + 1)``: a sorted multiset ``a <= b <= c <= d`` of kinds has rank
    ``w[0, a] + w[1, b] + w[2, c] + w[3, d]`` in 0..31464 (the combinatorial number system of
    the 4-subsets ``a < b+1 < c+2 < d+3`` of 31 values)."""
    return np.array([[comb(v + j, j + 1) for v in range(KINDS)] for j in range(PILES)], np.int64)


RANK_WEIGHTS = _rank_weights()


@cache
def goal_table(mode: str) -> np.ndarray:
    """By multiset rank, the bit mask of the goals (bit ``g`` = goal ``g`` of §1.9) that four
    tops forming that multiset satisfy under ``multicolour_mode=mode``, from ``goals.evaluate``
    (the predicates of the reference rules)."""
    rows = multisets()
    colours, numbers = rows // NUMBERS, rows % NUMBERS + 1
    masks = np.zeros(len(rows), np.int64)
    for g, goal in enumerate(GOALS):
        masks[evaluate(goal, colours, numbers, mode)] |= np.int64(1) << g
    ranks = RANK_WEIGHTS[np.arange(PILES), rows].sum(axis=1)
    table = np.zeros(len(rows), np.int64)
    table[ranks] = masks
    return table


@numba.njit(cache=True)
def rank4(a: np.int64, b: np.int64, c: np.int64, d: np.int64, rw: np.ndarray) -> np.int64:
    """The multiset rank of four kinds in any order (a sorting network, then ``RANK_WEIGHTS``)."""
    if a > b:
        a, b = b, a
    if c > d:
        c, d = d, c
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return rw[0, a] + rw[1, b] + rw[2, c] + rw[3, d]
