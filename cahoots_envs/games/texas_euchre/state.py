"""Texas Euchre's global state: the kind of each observation segment (see ``core/state.py``).

Private (one row per seat): the hand. By absolute seat: stakes and their points, the thrower,
turn flags, the seat to move, the dealer, the trick and its leader, cards played per seat, the
last discard, the last trick, tricks, scores, last round's points and tie-break ranks. The rest
(the draw pile's size, phase, cards played and seen, the target score) is the same for every
seat. The draw pile's order is in no observation, so not in the state either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cahoots_envs.core.state import PRIVATE, SEATS

_SEATS = ("stakes", "stake_points", "thrower", "first_turn_done", "final_lap_due", "to_move",
          "dealer", "trick", "trick_leader", "played_by", "last_discard", "last_trick",
          "last_trick_leader", "last_trick_winner", "tricks_won", "scores", "last_round_points",
          "tiebreak_rank")


def state_kinds(options: Mapping[str, Any]) -> dict[str, str]:
    return {"hand": PRIVATE} | dict.fromkeys(_SEATS, SEATS)


def undrawn_piles(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The game's attributes holding cards still to be drawn, in an order no seat knows: the
    draw pile."""
    return ("draw_pile",)
