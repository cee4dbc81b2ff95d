"""Per-move features of Cahoots (competitive) computed from an observation, for networks that
score each move (``policies/scoring.py``'s computed features; registered in the spec's
``extras["play_features"]``).

``tactics(observations, num_players, num_actions)`` gives, for every observation and every action
``a = verb * 30 + card`` (verbs play, keep, kill, take), what the move would do in the heuristic
bot's terms (``bot.py``) and a few more, read from the observation alone (the env's observation and
version stay as they are: these are computed inside the policy). ``TACTICS_FEATURES`` names them,
in order:

- ``play``, ``keep``, ``kill``, ``take``: the verb, one-hot;
- ``value``: the card's value / 8;
- ``mine``, ``private``: the card's suit is on my identity card; it is on mine alone;
- ``owners``: how many seats' identity cards show the suit / 2;
- plays only (0 for the other verbs):
  - ``share``: my points / 4 if the trick ended with this card played (the bot's ``share``);
  - ``their_share``: the most points / 4 another seat would get then;
  - ``margin``: my best suit's total minus the best total of a suit not mine afterwards, clipped
    to ±16, / 16 (the bot's margin);
  - ``cost``: value / 8, times 0.4 when the suit is not mine (the bot's cost);
  - ``lead``: the card's suit total afterwards minus the best other suit's, clipped to ±16, / 16;
- ``unseen``: the values of the card's suit that I cannot see (in the other hands) / 48;
- keep/kill only: ``keep_worth``: the bot's keep score / 12 (value × 1.5 private, × 1 mine,
  × 0.3 otherwise; 0 in the last trick, whose kept cards are discarded); ``kill_worth``: the bot's
  kill score / 8 (0.8 × value when the suit is not mine); ``kill_share``: value / 8 × my share of
  the trick's point cards (what a kill scores me in the face-value variant).

The bot's score of a move is ``4 share + 0.5 margin - 0.3 cost`` for plays, ``12 keep_worth + 8
kill_worth`` for keep/kill (plus ``12 kill_share`` with face-value scoring) and ``8 value`` for
the draft: a linear read of the features picks among the bot's best moves (tested). Entries of
moves that are not legal are computed all the same (the mask removes them). With numba
installed they are computed in one compiled call a batch (``features_kernel.py``, the same
features bit for bit); this module's numpy code is the reference and the path without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import ModuleType

import numpy as np

from cahoots_envs.core.policy import optional_kernel
from cahoots_envs.games.cahoots_tricks.encoder import NUM_SUITS, build_layout
from cahoots_envs.games.cahoots_tricks.rules import NUM_TYPES, TRICKS, TYPE_SUIT, TYPE_VALUE

TACTICS_FEATURES = ("play", "keep", "kill", "take", "value", "mine", "private", "owners",
                    "share", "their_share", "margin", "cost", "lead", "unseen", "keep_worth",
                    "kill_worth", "kill_share")
VERBS = 4
SUIT_TOTAL_SCALE = 48.0


@cache
def _cards() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per card type: its suit, its value, and its suit one-hot times its value (30, 6)."""
    suit = np.asarray(TYPE_SUIT, np.int64)
    value = np.asarray(TYPE_VALUE, np.float64)
    added = np.zeros((NUM_TYPES, NUM_SUITS))
    added[np.arange(NUM_TYPES), suit] = value
    return suit, value, added


def _shares(after: np.ndarray, identities: np.ndarray) -> np.ndarray:
    """Every seat's points / 4 if the trick ended with suit totals ``after`` (N, C, 6), given the
    seats' identity rows (N, n, 6): the seats with the most winning suits split the 4 points
    (``HeuristicPolicy.share`` for every seat). (N, C, n)."""
    best = after.max(-1, keepdims=True)
    won = (after >= best - 1e-6) & (best > 0)
    m = np.einsum("nrs,ncs->ncr", identities, won.astype(np.float64))
    top = m.max(-1, keepdims=True)
    winners = m >= top - 1e-9
    return np.where(winners & (top > 0), 1.0 / np.maximum(winners.sum(-1, keepdims=True), 1), 0.0)


def _load_kernel() -> ModuleType:
    """The numba twin of these inner loops (``features_kernel.py``), for core.policy.optional_kernel."""
    from cahoots_envs.games.cahoots_tricks import features_kernel  # imports numba

    return features_kernel


def tactics(observations: np.ndarray, num_players: int, num_actions: int) -> np.ndarray:
    """``float32[N, num_actions, len(TACTICS_FEATURES)]`` for ``observations`` of shape
    ``(N, size)`` of a ``num_players`` game (module docstring)."""
    obs = np.asarray(observations, np.float32)
    if obs.ndim != 2:
        raise ValueError(f"observations must be (N, size), got shape {obs.shape}")
    layout = build_layout(num_players)
    if obs.shape[1] < layout.size or num_actions != VERBS * NUM_TYPES:
        raise ValueError(f"observations of {obs.shape[1]} entries and {num_actions} actions do "
                         f"not fit the {num_players}-player layout ({layout.size} entries, "
                         f"{VERBS * NUM_TYPES} actions)")
    o = layout.offsets
    kernel = optional_kernel(_load_kernel)
    if kernel is not None:
        out = np.zeros((len(obs), num_actions, len(TACTICS_FEATURES)), np.float32)
        kernel.tactics_rows(np.ascontiguousarray(obs), num_players, o["identities"],
                            o["suit_totals"], o["unseen"], o["trick_number"] + TRICKS - 1,
                            o["scoring_winners"], out)
        return out
    return _tactics_numpy(obs, o, num_players, num_actions)


def _tactics_numpy(obs: np.ndarray, o: Mapping[str, int], num_players: int,
                   num_actions: int) -> np.ndarray:
    """``tactics`` in numpy: the reference (and the path without numba)."""
    n = num_players

    def seg(name: str, size: int) -> np.ndarray:
        return obs[:, o[name] : o[name] + size].astype(np.float64)

    rows = len(obs)
    identities = seg("identities", n * NUM_SUITS).reshape(rows, n, NUM_SUITS)
    mine = identities[:, 0] > 0.5  # (N, 6)
    owners = identities.sum(1)  # (N, 6)
    private = mine & (owners < 1.5)
    totals = np.rint(seg("suit_totals", NUM_SUITS) * SUIT_TOTAL_SCALE)  # (N, 6)
    unseen = seg("unseen", NUM_TYPES)
    suit, value, added = _cards()
    unseen_suit = (unseen * value).reshape(rows, NUM_SUITS, 5).sum(-1)  # (N, 6)

    # plays: the trick's totals with each card added
    after = totals[:, None, :] + added[None]  # (N, 30, 6)
    shares = _shares(after, identities)  # (N, 30, n)
    not_mine = ~mine[:, None, :]
    theirs = np.where(not_mine, after, -np.inf).max(-1)  # (N, 30)
    ours = np.where(~not_mine, after, -np.inf).max(-1)
    margin = np.clip(ours - theirs, -16, 16) / 16.0
    others = after.copy()
    others[:, np.arange(NUM_TYPES), suit] = -np.inf
    lead = np.clip(after[:, np.arange(NUM_TYPES), suit] - others.max(-1), -16, 16) / 16.0
    card_mine = mine[:, suit]  # (N, 30)
    card_private = private[:, suit]
    cost = value / 8.0 * np.where(card_mine, 1.0, 0.4)

    # keep/kill
    last_trick = obs[:, o["trick_number"] + TRICKS - 1] > 0.5  # (N,)
    winners = seg("scoring_winners", n)
    my_share = np.where(winners[:, 0] > 0.5, 1.0 / np.maximum(winners.sum(-1), 1.0), 0.0)
    keep_weight = np.where(card_private, 1.5, np.where(card_mine, 1.0, 0.3))
    keep_worth = np.where(last_trick[:, None], 0.0, value * keep_weight) / 12.0
    kill_worth = np.where(card_mine, 0.0, 0.8 * value) / 8.0
    kill_share = value / 8.0 * my_share[:, None]

    out = np.zeros((rows, num_actions, len(TACTICS_FEATURES)), np.float32)
    for verb in range(VERBS):
        block = out[:, verb * NUM_TYPES : (verb + 1) * NUM_TYPES]
        block[..., verb] = 1.0
        block[..., 4] = value / 8.0
        block[..., 5] = card_mine
        block[..., 6] = card_private
        block[..., 7] = owners[:, suit] / 2.0
        block[..., 13] = unseen_suit[:, suit] / SUIT_TOTAL_SCALE
    play = out[:, :NUM_TYPES]
    play[..., 8] = shares[..., 0]
    play[..., 9] = shares[..., 1:].max(-1) if n > 1 else 0.0
    play[..., 10] = margin
    play[..., 11] = cost
    play[..., 12] = lead
    for verb in (1, 2):
        block = out[:, verb * NUM_TYPES : (verb + 1) * NUM_TYPES]
        block[..., 14] = keep_worth if verb == 1 else 0.0
        block[..., 15] = kill_worth if verb == 2 else 0.0
        block[..., 16] = kill_share if verb == 2 else 0.0
    return out
