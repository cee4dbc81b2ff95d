"""Kansas City as plain data for the browser view (``View.table``): what one seat may see, the
same facts as ``text.seat_view`` (the seat's own cards; of the others only what is public: the
rank profile of each hand unless ``card_backs='hidden'``, trump ranks, face-up plays, known
voids, the last trick, the set-aside card, tricks, 4s, scores, the seat's own passes and the
ranks of the others' passes). An upgraded card shows by rank only (``"4T"``), never by its
printed face, except to its owner. The referee's table (``seat=None``) shows every hand as the
spectator table does.

Keys (besides ``kind``, ``viewer``, ``phase``, ``headline``, ``legend``, ``seats``):

- ``seats[i]``: ``seat``, ``name``, ``you``, ``to_move``, ``score``, ``tricks``, ``fours``,
  ``hand`` (cards, the seat's trumps last, or None), ``hand_count``, ``ranks`` (the ranks of a
  hidden hand, ascending, or None when backs are hidden or the hand is shown), ``trumps`` (the
  seat's upgraded trumps, ``"4T"``), ``voids`` (suit letters), ``dealer`` (bool).
- ``hand_number``, ``hands_total``, ``trick_number``, ``hand_size``, ``trick_limit``.
- ``trick``: ``[{"seat", "card"}]`` in play order; ``last_trick``: ``{"plays": [...],
  "winner"}`` or None.
- ``played``: ``{suit: [ranks]}``; ``trumps_played``: ``{"4T": count}``.
- ``upgrades``: the viewer's own ``[{"trump": "4T", "was": "4B"}]`` (empty for the referee).
- ``passed`` / ``received``: the viewer's own pass and what it received (cards); ``ranks_passed``:
  ``{seat: [ranks]}`` of the others' passes (absent with hidden backs; for the referee, every
  seat's passed cards); ``set_aside``: a card or None; ``hand_scores``: a list per hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cahoots_envs.core.cards import bits
from cahoots_envs.games.kansas_city.rules import RANK_MASKS, SUITS, TRICK_LIMIT, card_str, ranks_of
from cahoots_envs.games.kansas_city.text import headline

if TYPE_CHECKING:
    from cahoots_envs.games.kansas_city.rules import KansasCity

# a symbol per suit, so that colour is never the only mark; T is the trump suit
SYMBOLS = "♠♥♦♣★●▲"
LEGEND = {**{s: {"name": f"suit {s}", "symbol": SYMBOLS[i]} for i, s in enumerate(SUITS)},
          "T": {"name": "trump", "symbol": "✦"}}


def _rank_list(mask: int) -> list[int]:
    return [r + 1 for r in range(8) for _ in range((mask & RANK_MASKS[r]).bit_count())]


def _trick(plays: Any) -> list[dict[str, Any]]:
    return [{"seat": s, "card": f"{(c & 7) + 1}T" if t else card_str(c)} for s, c, t in plays]


def table(game: KansasCity, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the referee's table, every hand)."""
    n = game.num_players
    seats = []
    for s in range(n):
        trumps = [f"{r + 1}T" for r in bits(ranks_of(game.upgraded[s]))]
        held = game.hands[s] | game.pending_pass[s]
        shown = seat is None or s == seat
        own = game.hands[s] if s == seat else held
        seats.append({
            "seat": s, "name": f"player_{s}", "you": s == seat,
            "to_move": not game.is_over and s == game.current_player,
            "score": float(game.scores[s]), "tricks": int(game.tricks_won[s]),
            "fours": int(game.fours_captured[s]), "dealer": s == game.dealer,
            "hand": [card_str(c) for c in bits(own)] + trumps if shown else None,
            "hand_count": own.bit_count() if shown else held.bit_count(),
            "ranks": None if shown or game.hidden_backs else _rank_list(held),
            "trumps": trumps,
            "voids": [SUITS[x] for x in bits(game.voids[s])],
        })
    played = {SUITS[s]: [r + 1 for r in range(8) if game.played >> (s * 8 + r) & 1]
              for s in range(7)}
    view: dict[str, Any] = {
        "kind": "kansas_city", "viewer": seat, "phase": game.phase, "headline": headline(game),
        "legend": LEGEND, "seats": seats,
        "hand_number": min(game.hand_number + 1, game.hands_total), "hands_total": game.hands_total,
        "trick_number": min(game.tricks_played + 1, game.hand_size), "hand_size": game.hand_size,
        "trick_limit": TRICK_LIMIT[n],
        "trick": _trick(game.trick),
        "last_trick": ({"plays": _trick(game.last_trick), "winner": game.last_winner}
                       if game.last_trick else None),
        "played": played,
        "trumps_played": {f"{r + 1}T": k for r, k in enumerate(game.trumps_played) if k},
        "set_aside": card_str(game.set_aside) if game.set_aside >= 0 else None,
        "hand_scores": [[float(x) for x in h] for h in game.hand_scores],
    }
    if seat is None:
        view.update(upgrades=[], passed=[], received=[], ranks_passed={
            str(s): [card_str(c) for c in bits(game.passed[s] | game.pending_pass[s])]
            for s in range(n) if game.passed[s] | game.pending_pass[s]})
        return view
    view["upgrades"] = [{"trump": f"{(c & 7) + 1}T", "was": card_str(c)}
                        for c in bits(game.upgraded[seat])]
    view["passed"] = [card_str(c) for c in bits(game.passed[seat] | game.pending_pass[seat])]
    view["received"] = [card_str(c) for c in bits(game.received[seat])] if view["passed"] else []
    if not game.hidden_backs:
        view["ranks_passed"] = {str(s): _rank_list(game.passed[s])
                                for s in range(n) if s != seat and game.passed[s]}
    return view


# the table's layout, as the browser's web/static/games/kansas_city.js declares it (image frames,
# core/frame.py, draw from it), with the passes and trumps played hidden while empty (room)
LAYOUT: dict[str, Any] = {
    "seatStats": [{"key": "score", "label": "Score"}, {"key": "tricks", "label": "Tricks"},
                  {"key": "fours", "label": "4s taken"}],
    "seatFlags": [{"key": "dealer", "label": "dealer", "mark": "D · dealer"}],
    "seatExtras": [
        {"key": "ranks", "label": "Ranks held", "type": "ranks"},
        {"key": "trumps", "label": "Upgraded trumps", "type": "cards", "hideEmpty": True},
        {"key": "voids", "label": "Void in", "type": "suits", "hideEmpty": True},
    ],
    "info": [
        {"key": "hand_number", "label": "Hand", "of": "hands_total"},
        {"key": "trick_number", "label": "Trick", "of": "hand_size"},
        {"key": "trick_limit", "label": "Trick limit"},
    ],
    "center": [
        {"key": "trick", "label": "Trick", "type": "plays"},
        {"key": "last_trick", "label": "Last trick", "type": "plays", "path": "plays",
         "winner": "winner", "hideEmpty": True},
        {"key": "set_aside", "label": "Set-aside card", "type": "card", "hideEmpty": True},
        {"key": "upgrades", "label": "Your upgrades", "type": "swaps", "from": "was", "to": "trump",
         "hideEmpty": True},
        {"key": "passed", "label": "You passed", "type": "cards", "hideEmpty": True},
        {"key": "received", "label": "You received", "type": "cards", "hideEmpty": True},
        {"key": "ranks_passed", "label": "Passes (ranks)", "type": "seatmap", "hideEmpty": True},
        {"key": "played", "label": "Played (ranks by suit)", "type": "suitranks"},
        {"key": "trumps_played", "label": "Trumps played", "type": "counts", "hideEmpty": True},
        {"key": "hand_scores", "label": "Hand scores", "type": "rows", "row": "hand"},
    ],
}
