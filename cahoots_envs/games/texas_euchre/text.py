"""Texas Euchre as text: the spectator table, one seat's view, narration and move examples.

The seat view shows the seat's own hand and what is public (A8): every stake (the face-up
discards), the size of the other hands, who threw down, the current trick, the cards played this
round, tricks, stakes, scores and the round points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cahoots_envs.core.cards import bits
from cahoots_envs.core.text import (
    count_cards,
    default_final_summary,
    hand_end_lines,
    trick_taken_lines,
    who,
    wrap,
    wrap_items,
)
from cahoots_envs.games.texas_euchre.rules import card_str

if TYPE_CHECKING:
    from cahoots_envs.games.texas_euchre.rules import TexasEuchre

MOVE_EXAMPLES = ("discard 2C", "discard 5H 7H", "discard none", "throw down", "play AC")
# the notation's words, which ``cahoots play`` reads to help with a mistyped move: every word a
# move begins with and its kind ("cards": the cards it names follow; "hand": several cards of
# one's own hand follow; "word": a move of fixed words), and the other words that are not cards
VERBS = {"discard": "hand", "throw": "word", "play": "cards"}
NOT_CARDS = ("NONE", "DOWN")

__all__ = [
    "MOVE_EXAMPLES", "NOT_CARDS", "VERBS", "final_summary", "headline", "narrate", "public_action",
    "render", "seat_view", "summarise_moves",
]


def _cards(mask: int) -> str:
    return " ".join(card_str(c) for c in bits(mask)) or "-"


def headline(game: TexasEuchre) -> str:
    """The first line of every table: round, phase, dealer, pile and target, or the winners."""
    variant = "Reverse Texas Euchre" if game.reverse else "Texas Euchre"
    if game.is_over:
        won = ", ".join(f"player_{s}" for s in game.winners())
        return f"{variant} — game over after {game.round_number} rounds; won by {won}"
    return (
        f"{variant} — round {game.round_number + 1}, {game.phase.replace('_', ' ')}, "
        f"dealer player_{game.dealer}, draw pile {len(game.draw_pile)}, to {game.target_score}"
    )


def render(game: TexasEuchre) -> str:
    """A table in the notation (spectator view: every hand shown, the draw pile's size only)."""
    n = game.num_players
    lines = [headline(game), f"{'seat':<10} {'score':>5} {'stake':>5} {'tricks':>6}  hand | stake cards"]
    for s in range(n):
        mark = "*" if s == game.current_player else " "
        thrown = " (thrown down)" if s == game.thrower else ""
        lines.append(
            f"player_{s}{mark:<2}{game.scores[s]:>5} {game.stake_points[s]:>5} "
            f"{game.tricks_won[s]:>6}  {_cards(game.hands[s])}{thrown} | {_cards(game.stakes[s])}"
        )
    if game.trick:
        lines.append("trick: " + ", ".join(f"player_{s}: {card_str(c)}" for s, c in game.trick))
    if game.round_points:
        recent = game.round_points[-8:]
        more = "... | " if len(game.round_points) > len(recent) else ""
        lines.append("round points: " + more + " | ".join(" ".join(map(str, p)) for p in recent))
    lines.append("(cards: rank 2-10 J Q K A + suit C D H S)")
    return "\n".join(lines)


def seat_view(game: TexasEuchre, seat: int) -> str:
    """Everything ``seat`` may see now (others' hands by size only)."""
    n = game.num_players
    lines = [headline(game)]
    lines.append(f"{'':2}{'seat':<15}{'score':>5}{'stake':>6}{'tricks':>7}  hand")
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        if s == seat:
            hand = _cards(game.hands[s])
        else:
            hand = count_cards(game.hands[s].bit_count())
        if s == game.thrower:
            hand += " (thrown down)"
        prefix = f"{mark} {who(s, seat):<15}{game.scores[s]:>5}{game.stake_points[s]:>6}" \
                 f"{game.tricks_won[s]:>7}  "
        lines.extend(wrap(prefix, hand))
    for s in range(n):
        if game.stakes[s]:
            lines.extend(wrap(f"stake of player_{s}: ", _cards(game.stakes[s])))
    if game.trick:
        lines.extend(wrap_items("trick: ", [f"player_{s} {card_str(c)}" for s, c in game.trick]))
    if game.played:
        lines.extend(wrap("played this round: ", _cards(game.played)))
    if game.round_points:
        recent = game.round_points[-6:]
        more = "... | " if len(game.round_points) > len(recent) else ""
        lines.extend(wrap("round points: ", more + " | ".join(" ".join(map(str, p)) for p in recent)))
    rule = "lowest" if game.reverse else "highest"
    lines.append(f"(points are bad; the {rule} rank wins a trick, ties go to the later card)")
    return "\n".join(lines)


def public_action(game: TexasEuchre, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes: every move is public."""
    return game.action_to_str(action)


def narrate(before: TexasEuchre, after: TexasEuchre) -> list[str]:
    """Lines on what a step completed: a trick taken, a round scored."""
    return (trick_taken_lines(before.tricks_won, after.tricks_won)
            + hand_end_lines(before.round_points, after.round_points, "round"))


def final_summary(game: TexasEuchre, seat: int | None = None) -> str:
    """Final scores and who won."""
    return default_final_summary(game, seat)


def summarise_moves(verb: str, moves: list[str]) -> str | None:
    """How a long move list sums up the legal ``moves`` of ``verb``: how many cards a discard
    names (``discard none`` aside)."""
    if verb == "discard":
        sizes = sorted({len(m.split()) - 1 for m in moves if m != "discard none"})
        return (f"discard <{sizes[0]}-{sizes[-1]} cards of your hand> "
                f"({len(moves)} ways, e.g. {moves[-1]})")
    return None
