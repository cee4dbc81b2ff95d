"""Cahoots tricks' ``tactics`` features (``features.py``) in one numba call per batch.

``features.tactics`` calls ``tactics_rows`` when numba is installed; ``features.py``'s numpy code
stays the reference and the path without numba. The kernel does the same float64 operations in
the same order and casts to float32 at the end, so it gives the numpy features **bit for bit**
(``tests/games/cahoots_tricks/test_features.py`` compares them): a network trained on either
path is the same network. It visits each card of each row once, where the numpy code builds
``(rows, cards, suits)`` arrays. This module imports numba: only ``features.py`` imports it,
lazily.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["tactics_rows"]

SUITS = 6
VALUES = 5


@numba.njit(cache=True)
def _shares(after: np.ndarray, ident: np.ndarray, n: int, shares: np.ndarray) -> None:
    """Every seat's points / 4 if the trick ended with suit totals ``after`` (``_shares``)."""
    best = after[0]
    for k in range(1, SUITS):
        best = max(best, after[k])
    top = -1.0
    for r in range(n):
        m = 0.0
        if best > 0:
            for k in range(SUITS):
                if after[k] >= best - 1e-6:
                    m += ident[r, k]
        shares[r] = m
        top = max(top, m)
    count = 0
    for r in range(n):
        if shares[r] >= top - 1e-9:
            count += 1
    for r in range(n):
        winner = shares[r] >= top - 1e-9 and top > 0
        shares[r] = 1.0 / max(count, 1) if winner else 0.0


@numba.njit(cache=True)
def tactics_rows(obs: np.ndarray, n: int, o_identities: int, o_totals: int, o_unseen: int,
                 o_last_trick: int, o_winners: int, out: np.ndarray) -> None:
    """``out[i, a, :]`` = ``features.tactics`` of row ``i`` (``out`` zeroed, (N, 120, 17))."""
    ident = np.zeros((n, SUITS))
    after = np.zeros(SUITS)
    shares = np.zeros(n)
    owners = np.zeros(SUITS)
    mine = np.zeros(SUITS, np.bool_)
    private = np.zeros(SUITS, np.bool_)
    totals = np.zeros(SUITS)
    unseen_suit = np.zeros(SUITS)
    types = SUITS * VALUES
    for i in range(obs.shape[0]):
        row = obs[i]
        for r in range(n):
            for k in range(SUITS):
                ident[r, k] = np.float64(row[o_identities + r * SUITS + k])
        for k in range(SUITS):
            owners[k] = 0.0
            for r in range(n):
                owners[k] += ident[r, k]
            mine[k] = ident[0, k] > 0.5
            private[k] = mine[k] and owners[k] < 1.5
            totals[k] = np.rint(np.float64(row[o_totals + k]) * 48.0)
            unseen_suit[k] = 0.0
            for v in range(VALUES):
                unseen_suit[k] += np.float64(row[o_unseen + k * VALUES + v]) * (v + 4)
        last_trick = row[o_last_trick] > 0.5
        won = 0.0
        for r in range(n):
            won += np.float64(row[o_winners + r])
        my_share = 1.0 / max(won, 1.0) if row[o_winners] > 0.5 else 0.0
        for t in range(types):
            s = t // VALUES
            value = np.float64(t % VALUES + 4)
            card_mine = mine[s]
            cost = value / 8.0 * (1.0 if card_mine else 0.4)
            for k in range(SUITS):
                after[k] = totals[k]
            after[s] += value
            _shares(after, ident, n, shares)
            theirs = -np.inf
            ours = -np.inf
            other = -np.inf
            for k in range(SUITS):
                if mine[k]:
                    ours = max(ours, after[k])
                else:
                    theirs = max(theirs, after[k])
                if k != s:
                    other = max(other, after[k])
            margin = min(max(ours - theirs, -16.0), 16.0) / 16.0
            lead = min(max(after[s] - other, -16.0), 16.0) / 16.0
            their_share = 0.0
            for r in range(1, n):
                their_share = max(their_share, shares[r])
            weight = 1.5 if private[s] else (1.0 if card_mine else 0.3)
            keep_worth = (0.0 if last_trick else value * weight) / 12.0
            kill_worth = (0.0 if card_mine else 0.8 * value) / 8.0
            kill_share = value / 8.0 * my_share
            for verb in range(4):
                f = out[i, verb * types + t]
                f[verb] = 1.0
                f[4] = value / 8.0
                f[5] = 1.0 if card_mine else 0.0
                f[6] = 1.0 if private[s] else 0.0
                f[7] = owners[s] / 2.0
                f[13] = unseen_suit[s] / 48.0
            f = out[i, t]
            f[8] = shares[0]
            f[9] = their_share
            f[10] = margin
            f[11] = cost
            f[12] = lead
            out[i, types + t, 14] = keep_worth
            out[i, 2 * types + t, 15] = kill_worth
            out[i, 2 * types + t, 16] = kill_share
