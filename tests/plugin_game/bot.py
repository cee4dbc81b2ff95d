"""A rule-based High Card player.

- **Following**: when it can beat the table, win with the lowest winning card if it plays last;
  earlier in the trick, with the winning card the players still to come are least likely to
  beat. When it cannot win, play the lowest legal card (by rank; among equal ranks, the card
  worth least as a later lead).
- **Leading**: lead the card most likely to take the trick (a sure winner if it holds one: no
  unseen card of its suit is higher), the lowest such card.

The chance that a card survives the players still to come treats each of them as holding a
random part of the unseen cards and, when it holds the suit, playing any card of it. It reads
only its own observation, through the layout's named views, and its action mask.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import comb
from typing import Any

import numpy as np

from cahoots_envs.core.policy import BasePolicy

from .encoder import build_layout
from .rules import DECK_SIZE, HAND_SIZE, RANKS


def _rank(card: int) -> int:
    return card % RANKS


def survives(card: int, unseen: list[int], held: int) -> float:
    """P(one player holding ``held`` random cards of ``unseen``, playing any card of the suit
    when it has one, does not beat ``card``)."""
    suit = card // RANKS
    pool = len(unseen)
    in_suit = [u for u in unseen if u // RANKS == suit]
    m = len(in_suit)
    if m == 0 or held <= 0 or pool == 0:
        return 1.0
    higher = sum(u > card for u in in_suit)
    held = min(held, pool)
    void = comb(pool - m, held) / comb(pool, held)  # holds none of the suit
    # holding some: the card played is uniform over the suit's unseen cards
    return void + (1.0 - void) * (1.0 - higher / m)


class HeuristicPolicy(BasePolicy):
    name = "heuristic"

    def __init__(self, options: Mapping[str, Any], seed: int | None = None) -> None:
        self.num_players = int(options["num_players"])
        self.layout = build_layout(self.num_players)
        self.rng = np.random.default_rng(seed)  # ties are broken by card order, not at random

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = self.layout.views(observation)
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        n = self.num_players
        seen = (v["hand"] > 0.5) | (v["played"] > 0.5)
        unseen = [c for c in range(DECK_SIZE) if not seen[c]]
        tricks_played = round(float(v["tricks_won"].sum()) * HAND_SIZE)
        held = HAND_SIZE - tricks_played  # cards in hand of a player yet to play to this trick
        table = [(rel, int(np.flatnonzero(row)[0])) for rel, row in enumerate(v["trick"])
                 if row.any()]
        to_come = n - 1 - len(table)

        def chance(card: int) -> float:
            """Rough chance that ``card`` is not beaten by the players still to come."""
            return round(survives(card, unseen, held) ** to_come, 9)

        by_rank = sorted(legal, key=lambda c: (_rank(c), c))
        if not table:
            return max(by_rank, key=lambda c: (chance(c), -_rank(c)))
        leader_rel = int(np.argmax(v["leader"]))
        led = dict(table)[leader_rel] // RANKS
        best = max(c for _, c in table if c // RANKS == led)
        beating = [c for c in by_rank if c // RANKS == led and c > best]
        if beating:
            if to_come == 0:
                return beating[0]
            return max(beating, key=lambda c: (chance(c), -_rank(c)))
        # cannot win: keep the cards that make good leads later
        lead_value = {c: round(survives(c, unseen, held - 1) ** (n - 1), 9) for c in legal}
        return min(by_rank, key=lambda c: (_rank(c), lead_value[c]))
