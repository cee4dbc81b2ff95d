"""Texas Euchre as plain data for the browser view (``View.table``): what one seat may see, the
same facts as ``text.seat_view`` (its own hand; every stake, the face-up discards; the size of
the other hands, who threw down, the trick, the cards played this round, tricks, stakes, scores,
the round points, the draw pile's size). The referee's table (``seat=None``) shows every hand.

Keys (besides ``kind``, ``viewer``, ``phase``, ``headline``, ``legend``, ``seats``):

- ``seats[i]``: ``seat``, ``name``, ``you``, ``to_move``, ``score``, ``stake_points``,
  ``tricks``, ``hand`` (cards or None), ``hand_count``, ``stake`` (cards), ``thrown_down``,
  ``dealer`` (bools).
- ``round_number``, ``target_score``, ``reverse`` (the lowest rank wins a trick), ``draw_pile``
  (its size), ``trick``: ``[{"seat", "card"}]``, ``played``: the cards played this round,
  ``round_points``: a list per round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cahoots_envs.core.cards import bits
from cahoots_envs.games.texas_euchre.rules import card_str
from cahoots_envs.games.texas_euchre.text import headline

if TYPE_CHECKING:
    from cahoots_envs.games.texas_euchre.rules import TexasEuchre

LEGEND = {"C": {"name": "clubs", "symbol": "♣"}, "D": {"name": "diamonds", "symbol": "♦"},
          "H": {"name": "hearts", "symbol": "♥"}, "S": {"name": "spades", "symbol": "♠"}}


def _cards(mask: int) -> list[str]:
    return [card_str(c) for c in bits(mask)]


def table(game: TexasEuchre, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the referee's table, every hand)."""
    seats = [{
        "seat": s, "name": f"player_{s}", "you": s == seat,
        "to_move": not game.is_over and s == game.current_player,
        "score": float(game.scores[s]), "stake_points": int(game.stake_points[s]),
        "tricks": int(game.tricks_won[s]),
        "hand": _cards(game.hands[s]) if seat is None or s == seat else None,
        "hand_count": game.hands[s].bit_count(),
        "stake": _cards(game.stakes[s]),
        "thrown_down": s == game.thrower, "dealer": s == game.dealer,
    } for s in range(game.num_players)]
    return {
        "kind": "texas_euchre", "viewer": seat, "phase": game.phase,
        "headline": headline(game), "legend": LEGEND, "seats": seats,
        "round_number": game.round_number + (0 if game.is_over else 1),
        "target_score": game.target_score, "reverse": bool(game.reverse),
        "draw_pile": len(game.draw_pile),
        "trick": [{"seat": s, "card": card_str(c)} for s, c in game.trick],
        "played": _cards(game.played),
        "round_points": [[float(x) for x in p] for p in game.round_points],
    }


# the table's layout, as the browser's web/static/games/texas_euchre.js declares it (image
# frames, core/frame.py, draw from it)
LAYOUT: dict[str, Any] = {
    "seatStats": [{"key": "score", "label": "Score"},
                  {"key": "stake_points", "label": "Stake points"},
                  {"key": "tricks", "label": "Tricks"}],
    "seatFlags": [{"key": "dealer", "label": "dealer", "mark": "D · dealer"},
                  {"key": "thrown_down", "label": "threw down", "mark": "⤓ threw down"}],
    "seatExtras": [{"key": "stake", "label": "Stake", "type": "cards", "hideEmpty": True}],
    "info": [
        {"key": "round_number", "label": "Round"}, {"key": "target_score", "label": "Playing to"},
        {"key": "draw_pile", "label": "Draw pile"},
        {"key": "reverse", "label": "Lowest wins", "format": "flag"},
    ],
    "center": [
        {"key": "trick", "label": "Trick", "type": "plays"},
        {"key": "played", "label": "Played this round", "type": "cards"},
        {"key": "round_points", "label": "Round points", "type": "rows", "row": "round"},
    ],
}
