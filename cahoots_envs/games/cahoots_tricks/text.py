"""Cahoots (competitive) as text: the spectator table, one seat's view, narration, examples.

The seat view shows the seat's own hand and what is public (A6): identity cards, the trick with
who played which card, suit totals, every keep/kill pick, point cards, the reserve cards drawn,
scores, hand sizes and the cards publicly kept into other hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cahoots_envs.core.text import count_cards, default_final_summary, who, wrap, wrap_items
from cahoots_envs.games.cahoots_tricks.rules import (
    PHASE_KEEP_KILL,
    SUITS,
    TRICKS,
    card_str,
    zone_types,
)

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_tricks.rules import CahootsTricks

MOVE_EXAMPLES = ("play 8S", "keep 8S", "kill 5C", "take 6S")
# the notation's words, which ``cahoots play`` reads to help with a mistyped move: every word a
# move begins with and its kind ("cards": the cards it names follow; "hand": several cards of
# one's own hand follow; "word": a move of fixed words), and the other words that are not cards
VERBS = {"play": "cards", "keep": "cards", "kill": "cards", "take": "cards"}
NOT_CARDS: tuple[str, ...] = ()

__all__ = [
    "MOVE_EXAMPLES", "NOT_CARDS", "VERBS", "final_summary", "headline", "narrate", "public_action",
    "render", "seat_view", "summarise_moves",
]

NUM_SUITS = len(SUITS)


def _cards(zone: int) -> str:
    return " ".join(card_str(t) for t in zone_types(zone)) or "-"


def headline(game: CahootsTricks) -> str:
    """The first line of every table: trick, phase and start player, or the end of the game."""
    if game.is_over:
        return f"Cahoots — game over after {TRICKS} tricks"
    return (
        f"Cahoots — trick {game.trick_number}/{TRICKS}, {game.phase.replace('_', '/')} phase"
        + (f" (pass {game.keep_kill_pass})" if game.phase == PHASE_KEEP_KILL else "")
        + f", start player player_{game.start_player}"
    )


def render(game: CahootsTricks) -> str:
    """A table in the notation (spectator view: every hand is shown)."""
    n = game.num_players
    lines = [headline(game), f"{'seat':<10} {'score':>6} identity  hand"]
    for s in range(n):
        mark = "*" if s == game.current_player else " "
        ident = "".join(SUITS[k] for k in range(NUM_SUITS) if game.identity_suits[s] >> k & 1)
        lines.append(f"player_{s}{mark:<2}{game.scores[s]:>6.4g} {ident:<9} {_cards(game.hands[s])}")
    if game.trick:
        lines.append("trick: " + ", ".join(f"player_{s} {card_str(t)}" for s, t in game.trick))
        lines.append(
            "suit totals: " + " ".join(f"{SUITS[k]}={game.suit_totals[k]}" for k in range(NUM_SUITS))
        )
    picks = [
        f"player_{s} keep {card_str(game.kept_now[s]) if game.kept_now[s] >= 0 else '-'}"
        f" kill {card_str(game.killed_now[s]) if game.killed_now[s] >= 0 else '-'}"
        for s in range(n)
        if game.kept_now[s] >= 0 or game.killed_now[s] >= 0
    ]
    if picks and not game.is_over:
        lines.append("picks: " + "; ".join(picks))
    if game.point_pool:
        lines.append(f"point cards to draft: {_cards(game.point_pool)}")
    if game.last_result:
        lines.append(f"last trick {game.last_result}")
    if n == 3:
        lines.append(f"reserve: {len(game.reserve)} face down; drawn {_cards(game.reserve_drawn)}")
    lines.append("(cards: value 4-8 + suit S spades, H hearts, D diamonds, C clubs, U cups, R stars)")
    return "\n".join(lines)


def seat_view(game: CahootsTricks, seat: int) -> str:
    """Everything ``seat`` may see now (others' hands by size and publicly kept cards)."""
    n = game.num_players
    lines = [headline(game), f"{'':2}{'seat':<15}{'score':>6} {'identity':<9}hand"]
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        ident = "".join(SUITS[k] for k in range(NUM_SUITS) if game.identity_suits[s] >> k & 1)
        if s == seat:
            hand = _cards(game.hands[s])
        else:
            size = game.hands[s].bit_count()
            hand = count_cards(size) + (f", known: {_cards(game.known[s])}" if game.known[s] else "")
        lines.extend(wrap(f"{mark} {who(s, seat):<15}{game.scores[s]:>6.4g} {ident:<9}", hand))
    if game.trick:
        lines.extend(wrap_items("trick: ", [f"player_{s} {card_str(t)}" for s, t in game.trick]))
        totals = " ".join(f"{SUITS[k]}={game.suit_totals[k]}" for k in range(NUM_SUITS))
        won, winners = game.leaders()
        lead = "".join(SUITS[k] for k in range(NUM_SUITS) if won >> k & 1) or "-"
        scoring = ", ".join(f"player_{w}" for w in winners) or "-"
        lines.extend(wrap("suit totals: ", f"{totals}; leading {lead}, scoring {scoring}"))
    picks = [
        f"player_{s} kept {card_str(game.kept_now[s]) if game.kept_now[s] >= 0 else '-'}"
        f" killed {card_str(game.killed_now[s]) if game.killed_now[s] >= 0 else '-'}"
        for s in range(n)
        if game.kept_now[s] >= 0 or game.killed_now[s] >= 0
    ]
    if picks and not game.is_over:
        lines.extend(wrap_items("picks: ", picks, sep="; "))
    if game.trick_pool and game.phase == PHASE_KEEP_KILL:
        lines.extend(wrap("left to pick: ", _cards(game.trick_pool)))
    if game.point_pool:
        lines.extend(wrap("point cards to draft: ", _cards(game.point_pool)))
    if game.last_result:
        lines.extend(wrap("last trick: ", game.last_result))
    if game.killed:
        lines.extend(wrap("killed: ", _cards(game.killed)))
    if n == 3:
        lines.append(f"reserve: {len(game.reserve)} face down; drawn {_cards(game.reserve_drawn)}")
    lines.append("(cards: value 4-8 + suit S spades H hearts D diamonds C clubs U cups R stars)")
    return "\n".join(lines)


def public_action(game: CahootsTricks, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes: every move is public."""
    return game.action_to_str(action)


def narrate(before: CahootsTricks, after: CahootsTricks) -> list[str]:
    """Lines on what a step completed: a trick's result (who won it, who scores)."""
    result = after.last_result
    if result and (result != before.last_result or before.trick_number != after.trick_number):
        return [f"  -> trick {result}"]
    return []


def final_summary(game: CahootsTricks, seat: int | None = None) -> str:
    """Final scores and who won."""
    return default_final_summary(game, seat)


def summarise_moves(verb: str, moves: list[str]) -> str | None:
    """How a long move list sums up the legal ``moves`` of ``verb``: the shared form for all."""
    return None
