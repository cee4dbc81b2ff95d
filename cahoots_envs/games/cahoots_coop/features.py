"""Per-play features of Cahoots (cooperative) computed from an observation, for networks that
score each play (``policies/scoring.py``'s computed features; registered in the spec's
``extras["play_features"]``).

``lookahead(observations, num_players, num_actions)`` gives, for every observation and every
play ``a = kind * 4 + pile``, what the play would leave on the table: the terms the team bot
(``bot.py``) weighs, read from the observation alone (the env's observation and version stay as
they are; these are computed inside the policy). ``LOOKAHEAD_FEATURES`` names them, in order:

- ``completes``: visible goals the play completes at once, / 4;
- ``wins``: 1 if the play completes the last goals of the game;
- ``reach_0`` .. ``reach_3``: for each goal slot whose goal the play leaves showing, how reachable
  it is in one legal play afterwards: ``1 - exp(-w / 1.5)``, where ``w`` weighs the card kinds that
  would complete it by who may hold them (unseen copies, and half of each copy left in the own
  hand: the bot's hidden-hand weights); 0 for an empty slot or a goal the play completes;
- ``reach``: their sum / 4;
- ``strand``: the chance that the next player holds no legal card on the tops afterwards,
  ``(dead / unseen) ** their hand size`` (dead: unseen copies that fit no top);
- ``dead``: ``dead / unseen`` itself;
- ``weight_0`` .. ``weight_3``: each slot's ``w`` / 8.

The team bot's score of a play is ``100 * 4 * completes + 10 * 4 * reach - 200 * strand`` (plus
its signal terms with table talk, which these features leave out): a linear read of the features
picks among the bot's best plays (tested). With numba installed they are computed in one
compiled call a batch (``features_kernel.py``, the same features; this module's numpy code is
the reference and the path without it). Entries of talk actions and of plays whose card is not
in the hand are zeros (the mask removes those moves; the compiled path skips them). With open
hands or one player the bot weighs the visible hands too; these features keep the hidden-hand
weights.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType
from typing import Any

import numpy as np

from cahoots_envs.core.policy import optional_kernel
from cahoots_envs.games.cahoots_coop.bot_weights import OWN_HAND, REACH_SCALE
from cahoots_envs.games.cahoots_coop.encoder import (
    GOAL_FIELD_OFFSETS,
    PLACE,
    build_layout,
)
from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES, satisfied_table
from cahoots_envs.games.cahoots_coop.rules import GOALS, MATCHES, NUM_GOAL_CARDS

LOOKAHEAD_FEATURES = ("completes", "wins", "reach_0", "reach_1", "reach_2", "reach_3", "reach",
                      "strand", "dead", "weight_0", "weight_1", "weight_2", "weight_3")
PLAYS = KINDS * PILES


@cache
def _tables() -> np.ndarray:
    """The satisfied-goal bit masks by tops code: row 0 ``union``, row 1 ``disjunctive``."""
    return np.array([satisfied_table(GOALS, mode) for mode in ("union", "disjunctive")], np.int64)


@cache
def _completers() -> np.ndarray:
    """``completers[mode, triple, goal]``: bit k set where a card of kind k with the three tops
    coded ``triple`` (``(a*28 + b)*28 + c``, any order) satisfies ``goal`` (the tables are
    symmetric in the piles' order)."""
    tables = _tables()
    triples = np.arange(KINDS**3)
    goals = np.arange(NUM_GOAL_CARDS)
    out = np.zeros((2, KINDS**3, NUM_GOAL_CARDS), np.int64)
    for mode in range(2):
        for k in range(KINDS):
            out[mode] |= (tables[mode][k * KINDS**3 + triples][:, None] >> goals & 1) << k
    return out


@cache
def _play_geometry() -> tuple[np.ndarray, np.ndarray]:
    kinds = np.arange(PLAYS) // PILES
    piles = np.arange(PLAYS) % PILES
    return kinds, piles


def _load_kernel() -> ModuleType:
    """The numba twin of these inner loops (``features_kernel.py``), for core.policy.optional_kernel."""
    from cahoots_envs.games.cahoots_coop import features_kernel  # imports numba

    return features_kernel


def lookahead(observations: np.ndarray, num_players: int, num_actions: int) -> np.ndarray:
    """``float32[N, num_actions, len(LOOKAHEAD_FEATURES)]`` for ``observations`` of shape
    ``(N, size)`` of a ``num_players`` game (module docstring); actions past the 112 plays (talk)
    get zeros."""
    obs = np.asarray(observations, np.float32)
    if obs.ndim != 2:
        raise ValueError(f"observations must be (N, size), got shape {obs.shape}")
    layout = build_layout(num_players)
    if obs.shape[1] < layout.size or num_actions < PLAYS:
        raise ValueError(f"observations of {obs.shape[1]} entries and {num_actions} actions do "
                         f"not fit the {num_players}-player layout ({layout.size} entries, "
                         f"{PLAYS} plays)")
    o = layout.offsets
    kernel = optional_kernel(_load_kernel)
    if kernel is not None:
        out = np.zeros((len(obs), num_actions, len(LOOKAHEAD_FEATURES)), np.float32)
        offsets = np.array([o["hand"], o["played"], o.get("other_hands", 0), o["tops"],
                            o["goals"], o["rules"], o["hand_sizes"], o["goal_counts"]], np.int64)
        kernel.lookahead_rows(
            np.ascontiguousarray(obs), offsets, num_players, KINDS, PILES, NUM_GOAL_CARDS,
            layout.segment("goals").size // PILES, GOAL_FIELD_OFFSETS["id"], _tables(),
            _completers(), np.asarray(MATCHES, np.int64), np.asarray(PLACE, np.int64),
            OWN_HAND, REACH_SCALE, out)
        return out
    return _lookahead_numpy(obs, layout, num_players, num_actions)


def _lookahead_numpy(obs: np.ndarray, layout: Any, num_players: int,
                     num_actions: int) -> np.ndarray:
    """``lookahead`` in numpy: the reference (and the path without numba)."""
    o = layout.offsets
    n_rows = len(obs)

    def seg(name: str, size: int) -> np.ndarray:
        return obs[:, o[name] : o[name] + size]

    hand = np.rint(seg("hand", KINDS)).astype(np.int64)
    played = np.rint(seg("played", KINDS)).astype(np.int64)
    unseen = np.maximum(2 - hand - played, 0)  # (N, K)
    if num_players > 1:
        others = np.rint(seg("other_hands", (num_players - 1) * KINDS)).astype(np.int64)
        unseen = np.maximum(unseen - others.reshape(n_rows, num_players - 1, KINDS).sum(1), 0)
    tops = seg("tops", PILES * KINDS).reshape(n_rows, PILES, KINDS).argmax(-1)  # (N, P)
    goals = obs[:, o["goals"] : o["goals"] + layout.segment("goals").size].reshape(n_rows, PILES, -1)
    present = goals[:, :, 0] > 0.5  # (N, slots)
    at = GOAL_FIELD_OFFSETS["id"]
    gid = np.where(present, goals[:, :, at : at + NUM_GOAL_CARDS].argmax(-1), 0)  # (N, slots)
    rules = seg("rules", 2)
    tables = _tables()
    mode = (rules[:, 1] > 0.5).astype(np.int64)  # each row's table: 0 union, 1 disjunctive
    sizes = np.rint(seg("hand_sizes", num_players)).astype(np.int64)
    next_size = sizes[:, 1 % num_players]
    goals_left = np.rint(seg("goal_counts", 2)[:, 1] * NUM_GOAL_CARDS).astype(np.int64)

    kinds, piles = _play_geometry()
    place = np.asarray(PLACE, np.int64)
    new_tops = np.repeat(tops[:, None, :], PLAYS, axis=1)  # (N, A, P)
    new_tops[:, np.arange(PLAYS), piles] = kinds
    code = (new_tops * place).sum(-1)  # (N, A)
    satisfied = tables[mode[:, None], code]  # (N, A)
    done = (satisfied[:, :, None] >> gid[:, None, :] & 1).astype(np.bool_) & present[:, None, :]
    count = done.sum(-1)  # (N, A)
    wins = (count > 0) & (done | ~present[:, None, :]).all(-1) & (goals_left[:, None] <= count)

    # the kinds that complete each goal left in one legal play: per pile q, the kinds that
    # satisfy it with the other three tops and fit the top on q, as bit sets
    matches = np.asarray(MATCHES, np.int64)
    completers = _completers()
    kind_bits = np.arange(KINDS)
    kinds_for = np.zeros((n_rows, PLAYS, PILES), np.int64)  # (N, A, slots)
    alive = np.zeros((n_rows, PLAYS), np.int64)  # the kinds that fit some top afterwards
    for q in range(PILES):
        a, b, c = (p for p in range(PILES) if p != q)
        triple = (new_tops[:, :, a] * KINDS + new_tops[:, :, b]) * KINDS + new_tops[:, :, c]
        fit = matches[new_tops[:, :, q]]  # (N, A): MATCHES is symmetric
        kinds_for |= completers[mode[:, None, None], triple[:, :, None], gid[:, None, :]] \
            & fit[:, :, None]
        alive |= fit
    left = present[:, None, :] & ~done  # (N, A, slots)
    my_hand = np.repeat(hand[:, None, :], PLAYS, axis=1)
    my_hand[:, np.arange(PLAYS), kinds] -= 1
    weight = unseen[:, None, :] + OWN_HAND * np.maximum(my_hand, 0)  # (N, A, K)
    bits = (kinds_for[..., None] >> kind_bits & 1).astype(np.float64)  # (N, A, slots, K)
    w_all = np.where(left, np.einsum("nask,nak->nas", bits, weight), 0.0)
    reach = np.where(w_all > 0, 1.0 - np.exp(-w_all / REACH_SCALE), 0.0)

    dead_kinds = (alive[..., None] >> kind_bits & 1) == 0  # (N, A, K)
    dead = (unseen[:, None, :] * dead_kinds).sum(-1)  # (N, A)
    total = unseen.sum(-1)[:, None]  # (N, 1)
    share = np.where(total > 0, dead / np.maximum(total, 1), 0.0)
    strand = np.where((total > 0) & (next_size[:, None] > 0), share ** next_size[:, None], 0.0)

    out = np.zeros((n_rows, num_actions, len(LOOKAHEAD_FEATURES)), np.float32)
    out[:, :PLAYS, 0] = count / 4.0
    out[:, :PLAYS, 1] = wins
    out[:, :PLAYS, 2:6] = reach
    out[:, :PLAYS, 6] = reach.sum(-1) / 4.0
    out[:, :PLAYS, 7] = strand
    out[:, :PLAYS, 8] = share
    out[:, :PLAYS, 9:13] = w_all / 8.0
    out[:, :PLAYS] *= (hand[:, kinds] > 0)[:, :, None]  # plays of cards not in the hand: zeros
    return out
