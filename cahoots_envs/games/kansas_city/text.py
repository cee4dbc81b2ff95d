"""Kansas City as text: the spectator table, one seat's view, narration and move examples.

The seat view shows the seat's own cards and, of the others, only what is public (§4.5): the
rank profile of each hand (card backs), trump ranks, face-up plays, known voids, the last trick,
the set-aside card, tricks and 4s, scores, the seat's own passes and the ranks of the others'
passes. An upgraded card appears by rank only, never by its printed face; a pass made by another
seat is announced without its cards. With ``card_backs='hidden'`` the others' hands show only
their size, and the ranks of passes between others are not shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cahoots_envs.core.cards import bits
from cahoots_envs.core.text import (
    default_final_summary,
    hand_end_lines,
    trick_taken_lines,
    who,
    wrap,
    wrap_items,
)
from cahoots_envs.games.kansas_city.rules import (
    RANK_MASKS,
    SUITS,
    TRICK_LIMIT,
    card_str,
    ranks_of,
)

if TYPE_CHECKING:
    from cahoots_envs.games.kansas_city.rules import KansasCity

MOVE_EXAMPLES = ("pass 3A 5B 8G", "play 5B", "play 4T", "upgrade 5B", "no upgrade")
# the notation's words, which ``cahoots play`` reads to help with a mistyped move: every word a
# move begins with and its kind ("cards": the cards it names follow; "hand": several cards of
# one's own hand follow; "word": a move of fixed words), and the other words that are not cards
VERBS = {"pass": "hand", "play": "cards", "upgrade": "cards", "no": "word"}
NOT_CARDS: tuple[str, ...] = ()

__all__ = [
    "MOVE_EXAMPLES", "NOT_CARDS", "VERBS", "final_summary", "headline", "narrate", "public_action",
    "render", "seat_view", "summarise_moves",
]


def headline(game: KansasCity) -> str:
    """The first line of every table: hand, trick, phase and dealer, or the end of the game."""
    if game.is_over:
        plural = "s" if game.hands_total > 1 else ""
        return f"Kansas City — game over after {game.hands_total} hand{plural}"
    return (
        f"Kansas City — hand {game.hand_number + 1}/{game.hands_total}, trick "
        f"{min(game.tricks_played + 1, game.hand_size)}/{game.hand_size}, {game.phase} phase, "
        f"dealer player_{game.dealer}"
    )


def _hand_text(game: KansasCity, seat: int) -> str:
    cards = [card_str(c) for c in bits(game.hands[seat] | game.pending_pass[seat])]
    trumps = [f"{(c & 7) + 1}T" for c in bits(game.upgraded[seat])]
    return " ".join(cards + trumps)


def render(game: KansasCity) -> str:
    """A table in the notation (spectator view: hands shown, upgraded faces never shown)."""
    n = game.num_players
    lines = [headline(game), f"{'seat':<10} {'score':>5} {'tricks':>6} {'4s':>3}  hand"]
    for s in range(n):
        mark = "*" if s == game.current_player else " "
        lines.append(
            f"player_{s}{mark:<2}{game.scores[s]:>5g} {game.tricks_won[s]:>6} "
            f"{game.fours_captured[s]:>3}  {_hand_text(game, s)}"
        )
    if game.trick:
        plays = ", ".join(
            f"player_{s}: {(c & 7) + 1}T" if t else f"player_{s}: {card_str(c)}" for s, c, t in game.trick
        )
        lines.append(f"trick: {plays}")
    if game.set_aside >= 0:
        lines.append(f"set aside: {card_str(game.set_aside)}")
    if game.hand_scores:
        lines.append("hand scores: " + " | ".join(" ".join(map(str, h)) for h in game.hand_scores))
    suits = "".join(SUITS)
    lines.append(f"(cards: rank 1-8 + suit {suits}; T = upgraded trump)")
    return "\n".join(lines)


def seat_view(game: KansasCity, seat: int) -> str:
    """Everything ``seat`` may see now (others' hands by rank only)."""
    n = game.num_players
    others = "count" if game.hidden_backs else "ranks"
    lines = [headline(game),
             f"{'':2}{'seat':<15}{'score':>5}{'tricks':>7}{'4s':>3}  cards (others: {others})"]
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        trumps = " ".join(f"{r + 1}T" for r in bits(ranks_of(game.upgraded[s])))
        if s == seat:
            cards = " ".join(card_str(c) for c in bits(game.hands[s]))
        elif game.hidden_backs:
            size = (game.hands[s] | game.pending_pass[s]).bit_count()
            cards = f"{size} card{'s' if size != 1 else ''}" if size else ""
        else:
            held = game.hands[s] | game.pending_pass[s]
            cards = " ".join(
                str(r + 1) for r in range(8) for _ in range((held & RANK_MASKS[r]).bit_count())
            )
        if trumps:
            cards = f"{cards} | {trumps}" if cards else trumps
        prefix = f"{mark} {who(s, seat):<15}{game.scores[s]:>5g}{game.tricks_won[s]:>7}" \
                 f"{game.fours_captured[s]:>3}  "
        lines.extend(wrap(prefix, cards))
    own_up = game.upgraded[seat]
    if own_up:
        lines.append("your trumps: " + ", ".join(
            f"{(c & 7) + 1}T (was {card_str(c)})" for c in bits(own_up)))
    if game.trick:
        plays = ", ".join(
            f"player_{s} {(c & 7) + 1}T" if t else f"player_{s} {card_str(c)}"
            for s, c, t in game.trick
        )
        lines.extend(wrap_items("trick: ", plays.split(", ")))
    if game.last_trick:
        last = [f"player_{s} {_play_text(c, t)}" for s, c, t in game.last_trick]
        last[-1] += f"; won by player_{game.last_winner}"
        lines.extend(wrap_items("last trick: ", last))
    voids = [f"{who(s, seat)} " + "".join(SUITS[x] for x in bits(game.voids[s]))
             for s in range(n) if game.voids[s]]
    if voids:
        lines.extend(wrap_items("known voids: ", voids))
    played = game.played
    if played or any(game.trumps_played):
        per_suit = [
            f"{SUITS[s]}:" + ("".join(str(r + 1) for r in range(8) if played >> (s * 8 + r) & 1) or "-")
            for s in range(7)
        ]
        lines.extend(wrap_items("played: ", per_suit, sep=" "))
        trumps_played = " ".join(
            f"{r + 1}T" + (f"x{k}" if k > 1 else "") for r, k in enumerate(game.trumps_played) if k
        )
        if trumps_played:
            lines.append("trumps played: " + trumps_played)
    mine = game.passed[seat] | game.pending_pass[seat]
    if mine:
        text = "you passed " + " ".join(card_str(c) for c in bits(mine))
        if game.received[seat]:
            text += "; received " + " ".join(card_str(c) for c in bits(game.received[seat]))
        lines.append(text)
    # the backs of the others' passes (your right neighbour's are the cards you received)
    passes = [
        f"player_{s} " + " ".join(str(r + 1) for r in range(8)
                                  for _ in range((game.passed[s] & RANK_MASKS[r]).bit_count()))
        for s in range(n) if s != seat and game.passed[s]
    ]
    if passes and not game.hidden_backs:
        lines.extend(wrap_items("ranks passed: ", passes))
    if game.set_aside >= 0:
        lines.append(f"set aside: {card_str(game.set_aside)}")
    if game.hand_scores:
        lines.append("hand scores: " + " | ".join(" ".join(map(str, h)) for h in game.hand_scores))
    limit = TRICK_LIMIT[n]
    lines.append(f"(scoring: 5 a trick up to {limit}, 5 for {limit + 1}, 0 beyond; 2 a 4; "
                 "cards: 1-8 + A-G)")
    return "\n".join(lines)


def _play_text(card: int, is_trump: bool) -> str:
    return f"{(card & 7) + 1}T" if is_trump else card_str(card)


def public_action(game: KansasCity, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes (before it is applied): a pass is
    secret and an upgraded card's face is never shown, only its rank."""
    text = game.action_to_str(action)
    if game.current_player != viewer:
        verb, _, card = text.partition(" ")
        if verb == "pass":
            return "pass 3 cards"
        if verb == "upgrade":
            return f"upgrade a card to {card[0]}T"
    return text


def narrate(before: KansasCity, after: KansasCity) -> list[str]:
    """Lines on what a step completed: a trick taken, a hand scored."""
    return (trick_taken_lines(before.tricks_won, after.tricks_won)
            + hand_end_lines(before.hand_scores, after.hand_scores, "hand"))


def final_summary(game: KansasCity, seat: int | None = None) -> str:
    """Final scores and who won."""
    return default_final_summary(game, seat)


def summarise_moves(verb: str, moves: list[str]) -> str | None:
    """How a long move list sums up the legal ``moves`` of ``verb``: a pass names 3 cards."""
    if verb == "pass":
        return f"pass <3 cards of your hand> ({len(moves)} ways, e.g. {moves[0]})"
    return None
