"""High Card as text: headline, spectator table, one seat's view, narration, final summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cahoots_envs.core.text import (
    count_cards,
    default_final_summary,
    fit,
    hand_end_lines,
    who,
    wrap,
    wrap_items,
)

from .rules import HAND_SIZE, card_str, cards_str

if TYPE_CHECKING:
    from .rules import HighCard

MOVE_EXAMPLES = ("play 5R",)
# the notation's words, which ``cahoots play`` reads to help with a mistyped move: every word a
# move begins with and its kind ("cards": the cards it names follow; "hand": several cards of
# one's own hand follow; "word": a move of fixed words), and the other words that are not cards
VERBS = {"play": "cards"}
NOT_CARDS: tuple[str, ...] = ()
LEGEND = "(cards: rank 1-6 + suit R G B; follow suit; the highest of the led suit wins)"


def headline(game: HighCard) -> str:
    """The first line of every table: hand, trick and seat to move, or the winners."""
    if game.is_over:
        outcome = game.outcome()
        won = [f"player_{s}" for s in range(game.num_players) if outcome[s] > 0]
        result = f"won by {', '.join(won)}" if won else "a tie"
        return f"High Card — game over after {game.num_hands} hand(s); {result}"
    return (f"High Card — hand {game.hand_index + 1} of {game.num_hands}, trick "
            f"{game.tricks_played + 1} of {HAND_SIZE}, player_{game.current_player} to play")


def _trick_items(trick: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> list[str]:
    return [f"player_{s} {card_str(c)}" for s, c in trick]


def render(game: HighCard) -> str:
    """The spectator table: every hand and the stock shown."""
    lines = [headline(game), f"{'seat':<10} {'score':>5} {'tricks':>6}  hand"]
    for s in range(game.num_players):
        mark = "*" if s == game.current_player else " "
        lines.append(f"player_{s}{mark:<2}{game.scores[s]:>5} {game.tricks_won[s]:>6}  "
                     f"{cards_str(game.hands[s])}")
    lines.append(f"stock (face down): {cards_str(game.stock)}")
    if game.trick:
        lines.append("trick: " + ", ".join(_trick_items(game.trick)))
    if game.last_trick:
        lines.append("last trick: " + ", ".join(_trick_items(game.last_trick))
                     + f" -> player_{game.last_winner}")
    if game.hand_scores:
        lines.append("hand tricks: " + " | ".join(" ".join(map(str, h)) for h in game.hand_scores))
    lines.append(LEGEND)
    return "\n".join(lines)


def seat_view(game: HighCard, seat: int) -> str:
    """What ``seat`` may see, at most 80 columns: its own hand, the others' hand sizes and the
    public play (never the stock or another hand)."""
    lines = [headline(game), f"{'':2}{'seat':<15}{'score':>5}{'tricks':>7}  hand"]
    for s in range(game.num_players):
        mark = ">" if s == game.current_player else " "
        hand = cards_str(game.hands[s]) if s == seat else count_cards(game.hands[s].bit_count())
        lines.extend(wrap(f"{mark} {who(s, seat):<15}{game.scores[s]:>5}"
                          f"{game.tricks_won[s]:>7}  ", hand))
    if game.trick:
        lines.extend(wrap_items("trick: ", _trick_items(game.trick)))
    if game.last_trick:
        lines.extend(wrap_items("last trick: ", _trick_items(game.last_trick)
                                + [f"won by {who(game.last_winner, seat)}"]))
    if game.taken:
        lines.extend(wrap("played this hand: ", cards_str(game.taken)))
    if game.hand_scores:
        lines.extend(wrap("hand tricks: ", " | ".join(" ".join(map(str, h))
                                                      for h in game.hand_scores)))
    lines.append(LEGEND)
    return fit(lines)


def public_action(game: HighCard, action: int, viewer: int) -> str:
    """Every play is public."""
    return game.action_to_str(action)


def narrate(before: HighCard, after: HighCard) -> list[str]:
    """Lines on what a step completed: a trick, a hand."""
    out: list[str] = []
    if after.tricks_done > before.tricks_done:
        out.append(f"  -> player_{after.last_winner} takes the trick")
    return out + hand_end_lines(before.hand_scores, after.hand_scores)


def final_summary(game: HighCard, seat: int | None = None) -> str:
    return default_final_summary(game, seat)


def summarise_moves(verb: str, moves: list[str]) -> str | None:
    """How a long move list sums up the legal ``moves`` of ``verb``: the shared form for all."""
    return None
