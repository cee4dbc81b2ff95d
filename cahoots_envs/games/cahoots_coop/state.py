"""Cahoots (cooperative)'s global state: the kind of each observation segment (see
``core/state.py``).

Private (one row per seat): the hand, that seat's own plays and what they would complete, and
the other hands as that seat sees them (all of them with open hands). By absolute seat: hand
sizes, the seat to move, plays, who played and completed what, and (with talk) each seat's
signals; `talk_phase` is the same for every seat. The rest (pile tops, cards
played, the draw pile's size, the goals in view and their counts, the rule cards) is the same
for every seat. The goal deck's and the draw pile's order are in no observation, so not in the
state either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cahoots_envs.core.state import PRIVATE, SEATS
from cahoots_envs.games.cahoots_coop.encoder import layout_for_options

_PRIVATE = ("hand", "my_plays", "play_completes", "other_hands")
_SEATS = ("hand_sizes", "to_move", "plays", "played_by", "completed_by", "signals")


def state_kinds(options: Mapping[str, Any]) -> dict[str, str]:
    kinds = dict.fromkeys(_PRIVATE, PRIVATE) | dict.fromkeys(_SEATS, SEATS)
    present = {segment.name for segment in layout_for_options(options).segments}
    return {name: kind for name, kind in kinds.items() if name in present}  # solo: no others


def undrawn_piles(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The game's attributes holding cards still to be drawn, in an order no seat knows: the draw
    pile and the goal deck."""
    return ("draw_pile", "goal_deck")
