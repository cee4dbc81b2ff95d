"""Cahoots (competitive)'s global state: the kind of each observation segment (see
``core/state.py``).

Private (one row per seat): the hand and the cards that seat has not seen. By absolute seat:
known cards in hand, keeps, plays, kills, identities, the trick's plays and picks, scoring
winners, the last trick, hand sizes, scores, the start player and the seat to move. The rest
(the pools, killed cards, the reserve cards drawn, suit totals, the trick number, phase) is the
same for every seat. The reserve's order is in no observation, so not in the state either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cahoots_envs.core.state import PRIVATE, SEATS

_SEATS = ("known_hands", "kept", "played_by", "killed_by", "identities", "trick_plays",
          "scoring_winners", "trick_picks", "last_trick_plays", "last_trick_picks",
          "last_trick_scoring_winners", "last_trick_points", "hand_sizes", "scores",
          "start_player", "to_move")


def state_kinds(options: Mapping[str, Any]) -> dict[str, str]:
    return dict.fromkeys(("hand", "unseen"), PRIVATE) | dict.fromkeys(_SEATS, SEATS)


def undrawn_piles(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The game's attributes holding cards still to be drawn, in an order no seat knows: the
    reserve of identity cards, which only the three-player game has."""
    return ("reserve",) if options["num_players"] == 3 else ()
