"""Cahoots (cooperative) as text: the spectator table, one seat's view, narration, examples.

The seat view shows the seat's own hand (every hand with ``open_hands``) and what is public
(§1.7): the piles, the visible and completed goals, the last play, and the sizes of the draw
pile, the goal deck and the hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cahoots_envs.core.text import count_cards, who, wrap
from cahoots_envs.games.cahoots_coop.rules import (
    COLOUR_NAMES,
    COLOURS,
    PILES,
    card_str,
    signal_str,
)

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

# (the talk decisions list their moves when asked: say nothing, wish pile 2, aim SUM_15 with
# talk='spanish'; avoid pile 2, have pile 2, can complete SUM_15 with talk='dutch')
MOVE_EXAMPLES = ("play 5G on 2 (piles 0-3, left to right)",)
# the notation's words, which ``cahoots play`` reads to help with a mistyped move: every word a
# move begins with and its kind ("cards": the cards it names follow; "hand": several cards of
# one's own hand follow; "word": a move of fixed words), and the other words that are not cards
VERBS = {"play": "cards", "say": "word", "wish": "word", "aim": "word", "avoid": "word",
         "have": "word", "can": "word"}
NOT_CARDS = ("ON",)  # play 5G on 2

__all__ = [
    "MOVE_EXAMPLES", "NOT_CARDS", "VERBS", "final_summary", "headline", "latest_signals",
    "narrate", "piles_line", "public_action", "render", "seat_view", "summarise_moves",
]


def _cards(kinds: list[int]) -> str:
    return " ".join(card_str(k) for k in kinds) or "-"


def headline(game: CahootsCoop) -> str:
    """The first line of every table: the turn and who plays, or how the game ended."""
    if game.is_over:
        result = "won" if game.won else (
            f"lost: player_{game.loser} has no legal play" if game.loser >= 0 else
            "lost: every card has been played")
        return f"Cahoots (cooperative) — game over, {result}"
    if game.talking:
        return (f"Cahoots (cooperative) — turn {game.turns}, player_{game.current_player} to "
                "talk (after the play)")
    return f"Cahoots (cooperative) — turn {game.turns + 1}, player_{game.current_player} to play"


def latest_signals(game: CahootsCoop) -> list[tuple[int, int, str]]:
    """Each seat's latest talk decision, oldest first: (seat, the turn it followed, notation)."""
    latest: dict[int, tuple[int, int, str]] = {}
    for seat, turn, word, target in game.signals:
        latest[seat] = (seat, turn, signal_str(game.talk, word, target))
    return sorted(latest.values(), key=lambda row: row[1])


def _talk_lines(game: CahootsCoop, seat: int | None) -> list[str]:
    """The talk line (with talk on): each seat's latest signal and the turn it followed."""
    if game.talk == "none":
        return []
    said = "; ".join(f"{who(s, seat) if seat is not None else f'player_{s}'} {text} "
                     f"(turn {turn})" for s, turn, text in latest_signals(game))
    return wrap(f"talk ({game.talk}): ", said or "nothing said yet")


def piles_line(game: CahootsCoop) -> str:
    """The four pile tops with the number of cards in each pile."""
    return "piles:   " + "   ".join(
        f"{p}: {card_str(game.tops[p])} ({len(game.piles[p])})" for p in range(PILES))


def render(game: CahootsCoop) -> str:
    """A table in the notation (spectator view: every hand, the draw pile and goal deck shown)."""
    goals = game.goal_cards
    lines = [
        headline(game),
        (f"goals: {len(game.completed)} of {game.num_goals} completed "
         f"({game.completed_at_setup} at setup), {len(game.goal_deck)} in the goal deck"),
        piles_line(game),
    ]
    for slot, goal in enumerate(game.visible):
        if goal >= 0:
            lines.append(f"goal {slot}: {goals[goal].id} — {goals[goal].text}")
    if game.last_play is not None:
        seat, kind, pile = game.last_play
        done = ", ".join(goals[g].id for g in game.last_completed)
        lines.append(f"last play: player_{seat} play {card_str(kind)} on {pile}"
                     + (f"; completed {done}" if done else ""))
    lines.extend(_talk_lines(game, None))
    for s in range(game.num_players):
        mark = "*" if s == game.current_player else " "
        lines.append(f"player_{s}{mark} hand: {_cards(game.hands[s])}")
    lines.append(f"draw pile ({len(game.draw_pile)}, top first): {_cards(game.draw_pile[::-1])}")
    if game.box:
        lines.append(f"out of the game: {_cards(game.box)}")
    lines.append("goal deck (top first): " + (" ".join(goals[g].id for g in game.goal_deck[::-1]) or "-"))
    if game.completed:
        lines.append("completed: " + " ".join(goals[g].id for g in game.completed))
    names = ", ".join(f"{c} {name}" for c, name in zip(COLOURS, COLOUR_NAMES))
    lines.append(f"(cards: number 1-7 + colour {names})")
    return "\n".join(lines)


def seat_view(game: CahootsCoop, seat: int) -> str:
    """Everything ``seat`` may see now (others' hands by size, unless hands are open)."""
    goals = game.goal_cards
    n = game.num_players
    lines = [
        headline(game),
        (f"goals: {len(game.completed)} of {game.num_goals} completed, {len(game.goal_deck)} in the "
        f"goal deck; draw pile {len(game.draw_pile)}"),
        piles_line(game),
    ]
    for goal in game.visible:
        if goal >= 0:
            lines.extend(wrap(f"goal: {goals[goal].id} — ", goals[goal].text))
    if game.last_play is not None:
        s, kind, pile = game.last_play
        done = ", ".join(goals[g].id for g in game.last_completed)
        lines.extend(wrap("last play: ", f"player_{s} play {card_str(kind)} on {pile}"
                          + (f"; completed {done}" if done else "")))
    lines.extend(_talk_lines(game, seat))
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        if s == seat or game.open_hands:
            hand = " ".join(card_str(k) for k in game.hands[s]) or "-"
        else:
            hand = count_cards(len(game.hands[s]))
        lines.append(f"{mark} {who(s, seat):<15} {hand}")
    if game.completed:
        lines.extend(wrap("completed: ", " ".join(goals[g].id for g in game.completed)))
    lines.append(f"(cards: 1-7 + colour {' '.join(COLOURS)}; play on a top of the same colour "
                 "or number)")
    return "\n".join(lines)


def public_action(game: CahootsCoop, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes: every play is public."""
    return game.action_to_str(action)


def narrate(before: CahootsCoop, after: CahootsCoop) -> list[str]:
    """Lines on what a step completed: the goals the play completed."""
    done = after.last_completed
    if done and after.turns != before.turns:
        return ["  -> goal completed: " + ", ".join(after.goal_cards[g].id for g in done)]
    return []


def final_summary(game: CahootsCoop, seat: int | None = None) -> str:
    """Whether the team won, and how many goals it completed (the starting piles' too)."""
    result = "The team WINS" if game.won else "The team loses"
    setup = game.completed_at_setup
    return (f"{result}: {len(game.completed)} of {game.num_goals} goals completed"
            + (f" ({setup} by the starting piles)." if setup else "."))


def summarise_moves(verb: str, moves: list[str]) -> str | None:
    """How a long move list sums up the legal ``moves`` of ``verb``: the shared form for all."""
    return None
