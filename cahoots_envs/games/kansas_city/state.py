"""Kansas City's global state: the kind of each observation segment (see ``core/state.py``).

Private (one row per seat): the own cards (by face, upgraded ones too), the faces played that
only their owner knows, the cards passed and received and the passes' ranks as each seat knows
them; with ``card_backs='hidden'`` also the ranks in hand. By absolute seat: held ranks (ranked
backs), held trump ranks, the trick, tricks, 4s, scores, dealer, turn, voids, plays, hand sizes,
the last trick and who leads. The rest (trumps played, hand number, phase, the set-aside card) is
the same for every seat. Nothing shows the hands of later deals: they are dealt when reached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cahoots_envs.core.state import PRIVATE, SEATS

_PRIVATE = ("hand", "own_upgraded", "played", "passed", "received", "passed_ranks")
_SEATS = ("trump_ranks", "trick", "trick_leader", "tricks_won", "fours_captured", "scores",
          "dealer", "to_move", "voids", "played_by", "trumps_played_by", "hand_size",
          "last_trick", "last_trick_leader", "last_trick_winner", "next_leader")


def state_kinds(options: Mapping[str, Any]) -> dict[str, str]:
    kinds = dict.fromkeys(_PRIVATE, PRIVATE) | dict.fromkeys(_SEATS, SEATS)
    # ranked backs show every hand's ranks to everyone; hidden backs only the own row
    kinds["hand_ranks"] = PRIVATE if options["card_backs"] == "hidden" else SEATS
    return kinds


def undrawn_piles(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The game's attributes holding cards still to be drawn, in an order no seat knows: none
    (every card is dealt at the start of a hand)."""
    return ()
