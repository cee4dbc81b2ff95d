"""Per-play features of Cahoots (cooperative) that look two plays ahead: for every play, what the
NEXT player could do on the table it leaves, read from the acting seat's observation alone.

``two_ahead(observations, num_players, num_actions)`` gives ``lookahead``'s 13 features
(``features.py``) followed by the 8 of ``NEXT_FEATURES``, so a network that reads them starts
as one that reads ``lookahead`` when the 8 new input columns are zero. After a play ``a`` the
tops are known and so are the goals it leaves showing (the goals it completes are replaced by
cards nobody has seen; these features look at the goals left). For each card kind ``k`` the
next player might hold, ``gain_k`` is the most of those goals one legal play of ``k`` completes
(over the piles ``k`` fits). The next player's hand is hidden: it is ``h`` cards (their hand
size, public) drawn from the cards the acting seat has not seen (the ``unseen`` count per kind
that ``lookahead`` uses); the chance that they hold at least one card of a set of kinds with
``c`` unseen copies among ``U`` is hypergeometric, ``1 - C(U - c, h) / C(U, h)``. With open
hands the next player's cards are in the observation, and the same formula with their hand as
the pool (``U = h``) gives 0 or 1. The features, in order:

- ``next_any``: the chance that the next player holds a card that completes a goal left;
- ``next_two``: ... a card that completes two or more at once;
- ``next_gain``: the expected most goals one of their cards completes, / 4;
- ``next_win``: ... a card that completes the last goals of the game (the goals left are all
  that remain: the goal deck would be empty after the play);
- ``next_legal``: the expected number of their cards that fit some top afterwards, / 4;
- ``next_stuck``: the chance that none of their cards fits a top (the exact form of
  ``lookahead``'s ``strand``);
- ``team_any``: the chance that some other player (all hands but the acting seat's) holds a
  card that completes a goal left;
- ``completer_share``: the unseen copies that complete a goal left / all unseen copies.

Entries of talk actions, of plays whose card is not in the hand, and every entry in a
one-player game (there is no other player) are zeros. With numba installed the 8 new features
are computed in one compiled call a batch (``two_ahead_kernel.py``); this module's numpy code is
the reference and the path without numba.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from cahoots_envs.core.policy import optional_kernel
from cahoots_envs.games.cahoots_coop import features
from cahoots_envs.games.cahoots_coop.encoder import GOAL_FIELD_OFFSETS, PLACE, build_layout
from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES
from cahoots_envs.games.cahoots_coop.rules import MATCHES, NUM_GOAL_CARDS

NEXT_FEATURES = ("next_any", "next_two", "next_gain", "next_win", "next_legal", "next_stuck",
                 "team_any", "completer_share")
TWO_AHEAD_FEATURES = features.LOOKAHEAD_FEATURES + NEXT_FEATURES
PLAYS = KINDS * PILES


def _load_kernel() -> ModuleType:
    """The numba twin of ``_next_numpy`` (``two_ahead_kernel.py``), for optional_kernel."""
    from cahoots_envs.games.cahoots_coop import two_ahead_kernel  # imports numba

    return two_ahead_kernel


def two_ahead(observations: np.ndarray, num_players: int, num_actions: int) -> np.ndarray:
    """``float32[N, num_actions, len(TWO_AHEAD_FEATURES)]`` for ``observations`` of shape
    ``(N, size)`` of a ``num_players`` game (module docstring)."""
    near = features.lookahead(observations, num_players, num_actions)  # checks the shapes
    obs = np.asarray(observations, np.float32)
    return np.concatenate([near, next_features(obs, num_players, num_actions)], axis=-1)


def next_features(obs: np.ndarray, num_players: int, num_actions: int) -> np.ndarray:
    """The ``NEXT_FEATURES`` alone, ``float32[N, num_actions, 8]``."""
    layout = build_layout(num_players)
    kernel = optional_kernel(_load_kernel)
    if kernel is None:
        return _next_numpy(obs, layout, num_players, num_actions)
    o = layout.offsets
    out = np.zeros((len(obs), num_actions, len(NEXT_FEATURES)), np.float32)
    if num_players < 2:
        return out
    offsets = np.array([o["hand"], o["played"], o["other_hands"], o["tops"], o["goals"],
                        o["rules"], o["hand_sizes"], o["goal_counts"]], np.int64)
    kernel.next_rows(np.ascontiguousarray(obs), offsets, num_players, KINDS, PILES,
                     NUM_GOAL_CARDS, layout.segment("goals").size // PILES,
                     GOAL_FIELD_OFFSETS["id"], features._tables(),
                     np.asarray(MATCHES, np.int64), np.asarray(PLACE, np.int64), out)
    return out


def no_hit(c: np.ndarray, total: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The chance that ``draws`` cards drawn from ``total`` (without replacement) miss all ``c``
    marked ones, ``C(total - c, draws) / C(total, draws)``; 1 where ``total`` is 0."""
    c, total, draws = np.broadcast_arrays(np.asarray(c, np.float64),
                                          np.asarray(total, np.float64),
                                          np.asarray(draws, np.float64))
    draws = np.minimum(draws, total)
    out = np.ones(c.shape)
    for i in range(int(draws.max(initial=0))):
        step = np.where(i < draws, np.maximum(total - c - i, 0.0) / np.maximum(total - i, 1.0),
                        1.0)
        out = out * step
    return out


def _next_numpy(obs: np.ndarray, layout: Any, num_players: int, num_actions: int) -> np.ndarray:
    """``NEXT_FEATURES`` in numpy: the reference (and the path without numba)."""
    n_rows = len(obs)
    out = np.zeros((n_rows, num_actions, len(NEXT_FEATURES)), np.float32)
    if num_players < 2 or n_rows == 0:
        return out
    o = layout.offsets

    def seg(name: str, size: int) -> np.ndarray:
        return obs[:, o[name] : o[name] + size]

    hand = np.rint(seg("hand", KINDS)).astype(np.int64)
    played = np.rint(seg("played", KINDS)).astype(np.int64)
    others = np.rint(seg("other_hands", (num_players - 1) * KINDS)).astype(np.int64)
    others = others.reshape(n_rows, num_players - 1, KINDS)
    unseen = np.maximum(np.maximum(2 - hand - played, 0) - others.sum(1), 0)  # (N, K)
    open_hands = seg("rules", 2)[:, 0] > 0.5
    mode = (seg("rules", 2)[:, 1] > 0.5).astype(np.int64)
    sizes = np.rint(seg("hand_sizes", num_players)).astype(np.int64)
    # the pools: the next player's hand, and all the others' hands (counts per kind)
    next_pool = np.where(open_hands[:, None], others[:, 0], unseen)
    team_pool = np.where(open_hands[:, None], others.sum(1), unseen)
    next_size, team_size = sizes[:, 1], sizes[:, 1:].sum(1)

    tops = seg("tops", PILES * KINDS).reshape(n_rows, PILES, KINDS).argmax(-1)
    goals = seg("goals", layout.segment("goals").size).reshape(n_rows, PILES, -1)
    present = goals[:, :, 0] > 0.5
    at = GOAL_FIELD_OFFSETS["id"]
    gid = np.where(present, goals[:, :, at : at + NUM_GOAL_CARDS].argmax(-1), 0)
    goals_left = np.rint(seg("goal_counts", 2)[:, 1] * NUM_GOAL_CARDS).astype(np.int64)
    tables = features._tables()
    place = np.asarray(PLACE, np.int64)
    matches = np.asarray(MATCHES, np.int64)

    kinds, piles = np.arange(PLAYS) // PILES, np.arange(PLAYS) % PILES
    new_tops = np.repeat(tops[:, None, :], PLAYS, axis=1)  # (N, A, P)
    new_tops[:, np.arange(PLAYS), piles] = kinds
    code = (new_tops * place).sum(-1)  # (N, A)
    satisfied = tables[mode[:, None], code]
    done = (satisfied[:, :, None] >> gid[:, None, :] & 1).astype(np.bool_) & present[:, None, :]
    left = present[:, None, :] & ~done  # (N, A, slots): the goals the play leaves showing
    n_left = left.sum(-1)
    deck_after = goals_left[:, None] - done.sum(-1) - n_left  # goals still to turn up

    # gain[n, a, k]: the most goals left that a card of kind k completes in one legal play
    k = np.arange(KINDS)
    gain = np.zeros((n_rows, PLAYS, KINDS), np.int64)
    alive = np.zeros((n_rows, PLAYS, KINDS), np.bool_)
    for q in range(PILES):
        fit = (matches[new_tops[:, :, q]][..., None] >> k & 1).astype(np.bool_)  # (N, A, K)
        c2 = code[..., None] + (k - new_tops[:, :, q][..., None]) * place[q]  # (N, A, K)
        sat = tables[mode[:, None, None], c2]
        hits = ((sat[..., None] >> gid[:, None, None, :] & 1).astype(np.bool_)
                & left[:, :, None, :]).sum(-1)
        gain = np.maximum(gain, np.where(fit, hits, 0))
        alive |= fit
    win = (gain >= 1) & (gain == n_left[..., None]) & (deck_after[..., None] <= 0)

    def chance(pool: np.ndarray, marked: np.ndarray, draws: np.ndarray) -> np.ndarray:
        c = (pool[:, None, :] * marked).sum(-1)  # (N, A)
        total = pool.sum(-1)[:, None]
        return 1.0 - no_hit(c, total, draws[:, None])

    nxt = [chance(next_pool, gain >= g, next_size) for g in (1, 2, 3, 4)]
    total = next_pool.sum(-1)[:, None].astype(np.float64)
    legal_copies = (next_pool[:, None, :] * alive).sum(-1)
    has = (total > 0) & (next_size[:, None] > 0)
    f = out[:, :PLAYS]
    f[..., 0] = nxt[0]
    f[..., 1] = nxt[1]
    f[..., 2] = sum(nxt) / 4.0
    f[..., 3] = chance(next_pool, win, next_size)
    f[..., 4] = np.where(has, np.minimum(next_size[:, None], total) * legal_copies
                         / np.maximum(total, 1.0), 0.0) / 4.0
    f[..., 5] = np.where(has, 1.0 - chance(next_pool, alive, next_size), 0.0)
    f[..., 6] = chance(team_pool, gain >= 1, team_size)
    all_unseen = unseen.sum(-1)[:, None].astype(np.float64)
    f[..., 7] = np.where(all_unseen > 0, (unseen[:, None, :] * (gain >= 1)).sum(-1)
                         / np.maximum(all_unseen, 1.0), 0.0)
    f *= (hand[:, kinds] > 0)[:, :, None]  # plays of cards not in the hand: zeros
    return out
