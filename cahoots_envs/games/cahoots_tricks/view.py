"""Cahoots (competitive) as plain data for the browser view (``View.table``): what one seat may
see, the same facts as ``text.seat_view`` (its own hand; of the others the hand size and the
cards publicly kept into it; identity cards, the trick with who played which card, suit totals
and who leads, the keep/kill picks, the cards left to pick, the point cards to draft, the last
trick's result, the killed cards, the reserve cards drawn, scores). The referee's table
(``seat=None``) shows every hand.

Keys (besides ``kind``, ``viewer``, ``phase``, ``headline``, ``legend``, ``seats``):

- ``seats[i]``: ``seat``, ``name``, ``you``, ``to_move``, ``score``, ``identity`` (suit letters),
  ``hand`` (cards or None), ``hand_count``, ``known`` (cards publicly known in the hand),
  ``start`` (bool: the start player).
- ``trick_number``, ``tricks``, ``keep_kill_pass`` (or None).
- ``trick``: ``[{"seat", "card"}]``; ``suit_totals``: ``{suit: total}``; ``leading``: suit
  letters; ``scoring``: seats.
- ``picks``: ``[{"seat", "kept", "killed"}]`` (a card or None each); ``left_to_pick``,
  ``point_pool``, ``killed``, ``reserve_drawn``: cards; ``reserve_count``: face-down reserve
  cards (None without a reserve); ``last_result``: text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cahoots_envs.games.cahoots_tricks.rules import (
    PHASE_KEEP_KILL,
    SUITS,
    TRICKS,
    card_str,
    zone_types,
)
from cahoots_envs.games.cahoots_tricks.text import headline

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_tricks.rules import CahootsTricks

SUIT_NAMES = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"),
              "C": ("clubs", "♣"), "U": ("cups", "U"), "R": ("stars", "★")}
LEGEND = {s: {"name": SUIT_NAMES[s][0], "symbol": SUIT_NAMES[s][1]} for s in SUITS}


def _cards(zone: int) -> list[str]:
    return [card_str(t) for t in zone_types(zone)]


def _card(t: int) -> str | None:
    return card_str(t) if t >= 0 else None


def table(game: CahootsTricks, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the referee's table, every hand)."""
    n = game.num_players
    seats = []
    for s in range(n):
        shown = seat is None or s == seat
        seats.append({
            "seat": s, "name": f"player_{s}", "you": s == seat,
            "to_move": not game.is_over and s == game.current_player,
            "score": float(game.scores[s]), "start": s == game.start_player,
            "identity": [SUITS[k] for k in range(len(SUITS)) if game.identity_suits[s] >> k & 1],
            "hand": _cards(game.hands[s]) if shown else None,
            "hand_count": len(zone_types(game.hands[s])) if shown else game.hands[s].bit_count(),
            "known": _cards(game.known[s]),
        })
    won, winners = game.leaders() if game.trick else (0, [])
    picks = [{"seat": s, "kept": _card(game.kept_now[s]), "killed": _card(game.killed_now[s])}
             for s in range(n) if game.kept_now[s] >= 0 or game.killed_now[s] >= 0]
    keep_kill = game.phase == PHASE_KEEP_KILL
    return {
        "kind": "cahoots_tricks", "viewer": seat, "phase": game.phase,
        "headline": headline(game), "legend": LEGEND, "seats": seats,
        "trick_number": game.trick_number, "tricks": TRICKS,
        "keep_kill_pass": game.keep_kill_pass if keep_kill else None,
        "trick": [{"seat": s, "card": card_str(t)} for s, t in game.trick],
        "suit_totals": {SUITS[k]: int(game.suit_totals[k]) for k in range(len(SUITS))},
        "leading": [SUITS[k] for k in range(len(SUITS)) if won >> k & 1],
        "scoring": [int(w) for w in winners],
        "picks": picks if not game.is_over else [],
        "left_to_pick": _cards(game.trick_pool) if keep_kill else [],
        "point_pool": _cards(game.point_pool),
        "killed": _cards(game.killed),
        "reserve_count": len(game.reserve) if n == 3 else None,
        "reserve_drawn": _cards(game.reserve_drawn) if n == 3 else [],
        "last_result": game.last_result,
    }


# the table's layout, as the browser's web/static/games/cahoots_tricks.js declares it (image
# frames, core/frame.py, draw from it)
LAYOUT: dict[str, Any] = {
    "seatStats": [{"key": "score", "label": "Score"}],
    "seatFlags": [{"key": "start", "label": "start player", "mark": "⚑ start"}],
    "seatExtras": [
        {"key": "identity", "label": "Identity", "type": "identity"},
        {"key": "known", "label": "Known in hand", "type": "cards", "hideEmpty": True},
    ],
    "info": [
        {"key": "trick_number", "label": "Trick", "of": "tricks"},
        {"key": "keep_kill_pass", "label": "Keep/kill pass"},
        {"key": "reserve_count", "label": "Reserve (face down)"},
    ],
    "center": [
        {"key": "trick", "label": "Trick", "type": "plays"},
        {"key": "suit_totals", "label": "Suit totals (▲ leading)", "type": "totals",
         "leading": "leading"},
        {"key": "scoring", "label": "Scoring seats", "type": "seats"},
        {"key": "picks", "label": "Keep / kill picks", "type": "picks", "hideEmpty": True},
        {"key": "left_to_pick", "label": "Left to pick", "type": "cards", "hideEmpty": True},
        {"key": "point_pool", "label": "Point cards to draft", "type": "cards", "hideEmpty": True},
        {"key": "killed", "label": "Killed", "type": "cards"},
        {"key": "reserve_drawn", "label": "Reserve drawn", "type": "cards", "hideEmpty": True},
        {"key": "last_result", "label": "Last trick", "type": "text"},
    ],
}
