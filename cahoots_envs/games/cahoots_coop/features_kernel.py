"""The cooperative game's ``lookahead`` features (``features.py``) in one numba call per batch.

``features.lookahead`` calls ``lookahead_rows`` when numba is installed; ``features.py``'s numpy
code stays the reference, and the kernel gives the same features (the same integer counts and
bit sets; the reachabilities through the same float64 formulas, so equal to about 1e-7 after the
cast to float32: ``tests/games/cahoots_coop/test_features.py`` compares them). It visits each
play of each row once, where the numpy code builds ``(rows, plays, slots, kinds)`` arrays: about
20 times faster a row, measured (docs/lab/maskableppo_recipes.md). This module imports numba: only
``features.py`` imports it, lazily.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["lookahead_rows"]


@numba.njit(cache=True)
def _first_max(row: np.ndarray, off: int, size: int) -> int:
    """``argmax`` of ``row[off : off + size]`` (the first maximum, as numpy's)."""
    best = 0
    for k in range(1, size):
        if row[off + k] > row[off + best]:
            best = k
    return best


@numba.njit(cache=True)
def read_table(row: np.ndarray, o_tops: int, o_goals: int, kinds: int, piles: int,
               goal_width: int, id_at: int, num_goals: int, tops: np.ndarray,
               present: np.ndarray, gid: np.ndarray) -> None:
    """The tops' kinds and the visible goals (present, id) of one observation row, in place."""
    for p in range(piles):
        tops[p] = _first_max(row, o_tops + p * kinds, kinds)
        at = o_goals + p * goal_width
        present[p] = row[at] > 0.5
        gid[p] = _first_max(row, at + id_at, num_goals) if present[p] else 0


@numba.njit(cache=True)
def play_tops(kind: int, pile: int, tops: np.ndarray, place: np.ndarray,
              new_tops: np.ndarray) -> int:
    """The tops after a card of ``kind`` goes on ``pile`` (into ``new_tops``), and their code in
    the satisfied tables."""
    code = 0
    for p in range(tops.shape[0]):
        new_tops[p] = kind if p == pile else tops[p]
        code += new_tops[p] * place[p]
    return code


@numba.njit(cache=True)
def mark_done(satisfied: int, present: np.ndarray, gid: np.ndarray, done: np.ndarray) -> int:
    """Which visible goals the tops coded with ``satisfied`` bits complete (into ``done``), and
    how many."""
    count = 0
    for s in range(present.shape[0]):
        done[s] = present[s] and (satisfied >> gid[s]) & 1 == 1
        count += done[s]
    return count


@numba.njit(cache=True)
def lookahead_rows(obs: np.ndarray, offsets: np.ndarray, num_players: int, kinds: int,
                   piles: int, num_goals: int, goal_width: int, id_at: int, tables: np.ndarray,
                   completers: np.ndarray, matches: np.ndarray, place: np.ndarray,
                   own_hand: float, reach_scale: float, out: np.ndarray) -> None:
    """``features.lookahead`` of every row of ``obs`` (float32) into ``out`` (float32, zeros on
    entry, ``[rows, actions, 13]``). ``offsets``: the layout's ``hand``, ``played``,
    ``other_hands``, ``tops``, ``goals``, ``rules``, ``hand_sizes`` and ``goal_counts``."""
    o_hand, o_played, o_others, o_tops = offsets[0], offsets[1], offsets[2], offsets[3]
    o_goals, o_rules, o_sizes, o_counts = offsets[4], offsets[5], offsets[6], offsets[7]
    hand = np.empty(kinds, np.int64)
    unseen = np.empty(kinds, np.int64)
    tops = np.empty(piles, np.int64)
    new_tops = np.empty(piles, np.int64)
    present = np.empty(piles, np.bool_)
    gid = np.empty(piles, np.int64)
    done = np.empty(piles, np.bool_)
    kinds_for = np.empty(piles, np.int64)
    for i in range(obs.shape[0]):
        row = obs[i]
        total = 0
        for k in range(kinds):
            hand[k] = int(np.rint(row[o_hand + k]))
            left = 2 - hand[k] - int(np.rint(row[o_played + k]))
            left = max(left, 0)
            if num_players > 1:
                seen = 0
                for j in range(num_players - 1):
                    seen += int(np.rint(row[o_others + j * kinds + k]))
                left -= seen  # as the numpy code: clipped once more below
            unseen[k] = max(0, left)
            total += unseen[k]
        read_table(row, o_tops, o_goals, kinds, piles, goal_width, id_at, num_goals, tops,
                   present, gid)
        mode = 1 if row[o_rules + 1] > 0.5 else 0
        next_size = int(np.rint(row[o_sizes + 1 % num_players]))
        goals_left = int(np.rint(row[o_counts + 1] * np.float32(num_goals)))
        for a in range(kinds * piles):
            kind, pile = a // piles, a % piles
            if hand[kind] <= 0:
                continue  # not in the hand: no such play (its entries stay zero)
            code = play_tops(kind, pile, tops, place, new_tops)
            count = mark_done(tables[mode, code], present, gid, done)
            every = True
            for s in range(piles):
                if present[s] and not done[s]:
                    every = False
            alive = 0
            for s in range(piles):
                kinds_for[s] = 0
            for q in range(piles):
                triple = 0
                for p in range(piles):
                    if p != q:
                        triple = triple * kinds + new_tops[p]
                fit = matches[new_tops[q]]
                for s in range(piles):
                    kinds_for[s] |= completers[mode, triple, gid[s]] & fit
                alive |= fit
            f = out[i, a]
            f[0] = count / 4.0
            f[1] = 1.0 if count > 0 and every and goals_left <= count else 0.0
            reach_sum = 0.0
            for s in range(piles):
                w = 0.0
                if present[s] and not done[s]:
                    bits = kinds_for[s]
                    for k in range(kinds):
                        if bits >> k & 1:
                            mine = hand[k] - 1 if k == kind else hand[k]
                            w += unseen[k] + own_hand * max(0, mine)
                r = 1.0 - math.exp(-w / reach_scale) if w > 0 else 0.0
                f[2 + s] = r
                reach_sum += r
                f[9 + s] = w / 8.0
            f[6] = reach_sum / 4.0
            dead = 0
            for k in range(kinds):
                if not alive >> k & 1:
                    dead += unseen[k]
            share = dead / max(total, 1) if total > 0 else 0.0
            f[7] = share ** next_size if total > 0 and next_size > 0 else 0.0
            f[8] = share
