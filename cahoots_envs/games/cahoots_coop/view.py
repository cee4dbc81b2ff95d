"""Cahoots (cooperative) as plain data for the browser view (``View.table``): what one seat may
see, the same facts as ``text.seat_view`` (its own hand, every hand with ``open_hands``; the
piles, the visible and completed goals, the last play, the sizes of the draw pile, the goal deck
and the hands). The referee's table (``seat=None``) shows every hand, the draw pile and the goal
deck in order.

Keys (besides ``kind``, ``viewer``, ``phase``, ``headline``, ``legend``, ``seats``):

- ``seats[i]``: ``seat``, ``name``, ``you``, ``to_move``, ``score`` (the team's), ``hand``
  (cards or None), ``hand_count``.
- ``piles``: ``[{"pile": i, "top": card, "count": n}]`` (a move's ``target`` is the pile index
  as a string); ``goals``: the visible goal cards ``[{"slot", "id", "family", "text"}]``;
  ``completed``: goal ids; ``num_goals``, ``goal_deck`` (its size), ``draw_pile`` (its size),
  ``last_play``: ``{"seat", "card", "pile", "completed": [goal ids]}`` or None; ``won``
  (bool, at the end); ``talk`` (the option) and ``signals``: each seat's latest talk decision,
  oldest first, ``[{"seat", "turn", "text"}]`` (``turn``: the play it followed; empty without
  talk). The referee's table adds ``draw_order`` (top first) and ``goal_order``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cahoots_envs.games.cahoots_coop.rules import COLOUR_NAMES, COLOURS, PILES, card_str
from cahoots_envs.games.cahoots_coop.text import headline, latest_signals

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

SYMBOLS = ("▲", "●", "♥", "★")  # a shape per colour, so that colour is never the only mark
LEGEND = {c: {"name": name, "symbol": SYMBOLS[i]}
          for i, (c, name) in enumerate(zip(COLOURS, COLOUR_NAMES))}


def table(game: CahootsCoop, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the referee's table, every hand)."""
    goals = game.goal_cards
    seats = []
    for s in range(game.num_players):
        shown = seat is None or s == seat or bool(game.open_hands)
        seats.append({
            "seat": s, "name": f"player_{s}", "you": s == seat,
            "to_move": not game.is_over and s == game.current_player,
            "score": float(game.scores[s]),
            "hand": [card_str(k) for k in game.hands[s]] if shown else None,
            "hand_count": len(game.hands[s]),
        })
    last = None
    if game.last_play is not None:
        who, kind, pile = game.last_play
        last = {"seat": int(who), "card": card_str(kind), "pile": int(pile),
                "completed": [goals[g].id for g in game.last_completed]}
    view: dict[str, Any] = {
        "kind": "cahoots_coop", "viewer": seat, "phase": game.phase,
        "headline": headline(game), "legend": LEGEND, "seats": seats,
        "piles": [{"pile": p, "top": card_str(game.tops[p]), "count": len(game.piles[p])}
                  for p in range(PILES)],
        "goals": [{"slot": i, "id": goals[g].id, "family": goals[g].family,
                   "text": goals[g].text} for i, g in enumerate(game.visible) if g >= 0],
        "completed": [goals[g].id for g in game.completed],
        "num_goals": game.num_goals, "goal_deck": len(game.goal_deck),
        "draw_pile": len(game.draw_pile), "last_play": last,
        "won": bool(game.won) if game.is_over else None,
        "talk": game.talk,
        "signals": [{"seat": s, "turn": turn, "text": text}
                    for s, turn, text in latest_signals(game)],
    }
    if seat is None:
        view["draw_order"] = [card_str(k) for k in game.draw_pile[::-1]]
        view["goal_order"] = [goals[g].id for g in game.goal_deck[::-1]]
    return view


# the table's layout, as the browser's web/static/games/cahoots_coop.js declares it (image
# frames, core/frame.py, draw from it)
LAYOUT: dict[str, Any] = {
    "seatStats": [{"key": "score", "label": "Team score"}],
    "seatFlags": [],
    "seatExtras": [],
    "info": [
        {"key": "num_goals", "label": "Goals in the game"},
        {"key": "goal_deck", "label": "Goal deck"},
        {"key": "draw_pile", "label": "Draw pile"},
        {"key": "won", "label": "Won", "format": "flag"},
        {"key": "talk", "label": "Table talk"},
    ],
    "center": [
        {"key": "piles", "label": "Piles", "type": "piles", "index": "pile"},
        {"key": "goals", "label": "Goals", "type": "goals"},
        {"key": "completed", "label": "Completed goals", "type": "ids"},
        {"key": "last_play", "label": "Last play", "type": "lastplay"},
        {"key": "signals", "label": "Signals (each seat's latest)", "type": "signals",
         "hideEmpty": True},
        {"key": "draw_order", "label": "Draw pile, top first (referee)", "type": "cards"},
        {"key": "goal_order", "label": "Goal deck, top first (referee)", "type": "ids"},
    ],
}
