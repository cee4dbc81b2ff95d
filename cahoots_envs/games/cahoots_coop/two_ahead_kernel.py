"""The cooperative game's ``two_ahead`` features (``two_ahead.py``'s ``NEXT_FEATURES``) in one
numba call per batch.

``two_ahead.next_features`` calls ``next_rows`` when numba is installed; ``two_ahead.py``'s numpy
code stays the reference and the kernel gives the same features (the same counts; the chances
through the same float64 products, so equal to about 1e-7 after the cast to float32:
``tests/test_two_ahead.py`` compares them). This module imports numba: only ``two_ahead.py``
imports it, lazily.
"""

from __future__ import annotations

import numba
import numpy as np

from cahoots_envs.games.cahoots_coop.features_kernel import mark_done, play_tops, read_table

__all__ = ["next_rows"]


@numba.njit(cache=True)
def _no_hit(c: int, total: int, draws: int) -> float:
    """``C(total - c, draws) / C(total, draws)`` as ``two_ahead.no_hit``: 1 where total is 0."""
    draws = min(draws, total)
    out = 1.0
    for i in range(draws):
        out *= max(total - c - i, 0) / max(total - i, 1)
    return out


@numba.njit(cache=True)
def next_rows(obs: np.ndarray, offsets: np.ndarray, num_players: int, kinds: int, piles: int,
              num_goals: int, goal_width: int, id_at: int, tables: np.ndarray,
              matches: np.ndarray, place: np.ndarray, out: np.ndarray) -> None:
    """``two_ahead.NEXT_FEATURES`` of every row of ``obs`` (float32) into ``out`` (float32,
    zeros on entry, ``[rows, actions, 8]``; two or more players). ``offsets``: the layout's
    ``hand``, ``played``, ``other_hands``, ``tops``, ``goals``, ``rules``, ``hand_sizes`` and
    ``goal_counts``."""
    o_hand, o_played, o_others, o_tops = offsets[0], offsets[1], offsets[2], offsets[3]
    o_goals, o_rules, o_sizes, o_counts = offsets[4], offsets[5], offsets[6], offsets[7]
    hand = np.empty(kinds, np.int64)
    unseen = np.empty(kinds, np.int64)
    next_pool = np.empty(kinds, np.int64)
    team_pool = np.empty(kinds, np.int64)
    tops = np.empty(piles, np.int64)
    new_tops = np.empty(piles, np.int64)
    present = np.empty(piles, np.bool_)
    gid = np.empty(piles, np.int64)
    done = np.empty(piles, np.bool_)
    left = np.empty(piles, np.bool_)
    gain = np.empty(kinds, np.int64)
    alive = np.empty(kinds, np.bool_)
    for i in range(obs.shape[0]):
        row = obs[i]
        open_hands = row[o_rules] > 0.5
        mode = 1 if row[o_rules + 1] > 0.5 else 0
        all_unseen = 0
        next_total = 0
        team_total = 0
        for k in range(kinds):
            hand[k] = int(np.rint(row[o_hand + k]))
            seen = 0
            first = 0
            for j in range(num_players - 1):
                v = int(np.rint(row[o_others + j * kinds + k]))
                seen += v
                if j == 0:
                    first = v
            u = max(max(2 - hand[k] - int(np.rint(row[o_played + k])), 0) - seen, 0)
            unseen[k] = u
            next_pool[k] = first if open_hands else u
            team_pool[k] = seen if open_hands else u
            all_unseen += u
            next_total += next_pool[k]
            team_total += team_pool[k]
        next_size = int(np.rint(row[o_sizes + 1]))
        team_size = 0
        for j in range(1, num_players):
            team_size += int(np.rint(row[o_sizes + j]))
        read_table(row, o_tops, o_goals, kinds, piles, goal_width, id_at, num_goals, tops,
                   present, gid)
        goals_left = int(np.rint(row[o_counts + 1] * np.float32(num_goals)))
        for a in range(kinds * piles):
            kind, pile = a // piles, a % piles
            if hand[kind] <= 0:
                continue  # not in the hand: no such play (its entries stay zero)
            code = play_tops(kind, pile, tops, place, new_tops)
            n_done = mark_done(tables[mode, code], present, gid, done)
            n_left = 0
            for s in range(piles):
                left[s] = present[s] and not done[s]
                n_left += left[s]
            deck_after = goals_left - n_done - n_left
            for k in range(kinds):
                gain[k] = 0
                alive[k] = False
                for q in range(piles):
                    if not (matches[new_tops[q]] >> k) & 1:
                        continue
                    alive[k] = True
                    sat = tables[mode, code + (k - new_tops[q]) * place[q]]
                    hits = 0
                    for s in range(piles):
                        if left[s] and (sat >> gid[s]) & 1:
                            hits += 1
                    gain[k] = max(gain[k], hits)
            c1 = c2 = c3 = c4 = c_win = c_alive = c_team = c_unseen = 0
            for k in range(kinds):
                g = gain[k]
                if g >= 1:
                    c1 += next_pool[k]
                    c_team += team_pool[k]
                    c_unseen += unseen[k]
                    if g == n_left and deck_after <= 0:
                        c_win += next_pool[k]
                if g >= 2:
                    c2 += next_pool[k]
                if g >= 3:
                    c3 += next_pool[k]
                if g >= 4:
                    c4 += next_pool[k]
                if alive[k]:
                    c_alive += next_pool[k]
            f = out[i, a]
            p1 = 1.0 - _no_hit(c1, next_total, next_size)
            p2 = 1.0 - _no_hit(c2, next_total, next_size)
            p3 = 1.0 - _no_hit(c3, next_total, next_size)
            p4 = 1.0 - _no_hit(c4, next_total, next_size)
            f[0] = p1
            f[1] = p2
            f[2] = (p1 + p2 + p3 + p4) / 4.0
            f[3] = 1.0 - _no_hit(c_win, next_total, next_size)
            if next_total > 0 and next_size > 0:
                f[4] = min(next_size, next_total) * c_alive / next_total / 4.0
                f[5] = _no_hit(c_alive, next_total, next_size)
            f[6] = 1.0 - _no_hit(c_team, team_total, team_size)
            f[7] = c_unseen / all_unseen if all_unseen > 0 else 0.0
