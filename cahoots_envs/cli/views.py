"""What one seat may see, as text for an 80-column terminal (terminal play, ``cahoots play``).

One renderer per game reads the engine state but shows only that seat's own hand and the public
information of the rules' information model, in the notation of CONTRACT §6. Tests check each
one the way the shared leak test checks observations: re-dealing every card the seat cannot see
(``game.resample_hidden(seat, rng)``) must leave its view text unchanged.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from cahoots_envs.core.cards import bits

WIDTH = 80


def _wrap(label: str, text: str, width: int = WIDTH) -> list[str]:
    """``label`` then ``text`` wrapped under itself (hanging indent)."""
    return textwrap.wrap(
        text or "-", width=width, initial_indent=label, subsequent_indent=" " * len(label),
        break_on_hyphens=False,
    ) or [label.rstrip()]


def _wrap_items(label: str, items: list[str], sep: str = ", ", width: int = WIDTH) -> list[str]:
    """Like ``_wrap`` but never breaks inside an item."""
    lines: list[str] = []
    line = label
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else "")
        if line.strip() and len(line) + len(piece) > width and line != label:
            lines.append(line.rstrip())
            line = " " * len(label)
        line += piece + (" " if i < len(items) - 1 else "")
    lines.append(line.rstrip())
    return lines


def _fit(lines: list[str], width: int = WIDTH) -> str:
    """Wrap any line still wider than ``width`` (a safety net for long names)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width=width, subsequent_indent="    ",
                                     break_on_hyphens=False))
    return "\n".join(out)


def _count(cards: int) -> str:
    return f"{cards} card" if cards == 1 else f"{cards} cards"


def _who(seat: int, you: int) -> str:
    return f"player_{seat}" + (" (you)" if seat == you else "")


# ---- Kansas City ---------------------------------------------------------------------------------
def view_kansas_city(game: Any, seat: int) -> str:
    from cahoots_envs.games.kansas_city.encoder import headline
    from cahoots_envs.games.kansas_city.rules import (
        RANK_MASKS,
        SUITS,
        TRICK_LIMIT,
        card_str,
        ranks_of,
    )

    n = game.num_players
    lines = [headline(game), f"{'':2}{'seat':<15}{'score':>5}{'tricks':>7}{'4s':>3}  cards (others: ranks)"]
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        trumps = " ".join(f"{r + 1}T" for r in bits(ranks_of(game.upgraded[s])))
        if s == seat:
            cards = " ".join(card_str(c) for c in bits(game.hands[s]))
        else:
            held = game.hands[s] | game.pending_pass[s]
            cards = " ".join(
                str(r + 1) for r in range(8) for _ in range((held & RANK_MASKS[r]).bit_count())
            )
        if trumps:
            cards = f"{cards} | {trumps}" if cards else trumps
        prefix = f"{mark} {_who(s, seat):<15}{game.scores[s]:>5g}{game.tricks_won[s]:>7}" \
                 f"{game.fours_captured[s]:>3}  "
        lines.extend(_wrap(prefix, cards))
    own_up = game.upgraded[seat]
    if own_up:
        lines.append("your trumps: " + ", ".join(
            f"{(c & 7) + 1}T (was {card_str(c)})" for c in bits(own_up)))
    if game.trick:
        plays = ", ".join(
            f"player_{s} {(c & 7) + 1}T" if t else f"player_{s} {card_str(c)}"
            for s, c, t in game.trick
        )
        lines.extend(_wrap_items("trick: ", plays.split(", ")))
    played = game.played
    if played or any(game.trumps_played):
        per_suit = [
            f"{SUITS[s]}:" + ("".join(str(r + 1) for r in range(8) if played >> (s * 8 + r) & 1) or "-")
            for s in range(7)
        ]
        lines.extend(_wrap_items("played: ", per_suit, sep=" "))
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
    if game.set_aside >= 0:
        lines.append(f"set aside: {card_str(game.set_aside)}")
    if game.hand_scores:
        lines.append("hand scores: " + " | ".join(" ".join(map(str, h)) for h in game.hand_scores))
    limit = TRICK_LIMIT[n]
    lines.append(f"(scoring: 5 a trick up to {limit}, 5 for {limit + 1}, 0 beyond; 2 a 4; "
                 "cards: 1-8 + A-G)")
    return "\n".join(lines)


# ---- Texas Euchre --------------------------------------------------------------------------------
def view_texas_euchre(game: Any, seat: int) -> str:
    from cahoots_envs.games.texas_euchre.rules import card_str

    def cards(mask: int) -> str:
        return " ".join(card_str(c) for c in bits(mask)) or "-"

    from cahoots_envs.games.texas_euchre.encoder import headline

    n = game.num_players
    lines = [headline(game)]
    lines.append(f"{'':2}{'seat':<15}{'score':>5}{'stake':>6}{'tricks':>7}  hand")
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        if s == seat:
            hand = cards(game.hands[s])
        else:
            hand = _count(game.hands[s].bit_count())
        if s == game.thrower:
            hand += " (thrown down)"
        prefix = f"{mark} {_who(s, seat):<15}{game.scores[s]:>5}{game.stake_points[s]:>6}" \
                 f"{game.tricks_won[s]:>7}  "
        lines.extend(_wrap(prefix, hand))
    for s in range(n):
        if game.stakes[s]:
            lines.extend(_wrap(f"stake of player_{s}: ", cards(game.stakes[s])))
    if game.trick:
        lines.extend(_wrap_items("trick: ", [f"player_{s} {card_str(c)}" for s, c in game.trick]))
    if game.played:
        lines.extend(_wrap("played this round: ", cards(game.played)))
    if game.round_points:
        recent = game.round_points[-6:]
        more = "... | " if len(game.round_points) > len(recent) else ""
        lines.extend(_wrap("round points: ", more + " | ".join(" ".join(map(str, p)) for p in recent)))
    rule = "lowest" if game.reverse else "highest"
    lines.append(f"(points are bad; the {rule} rank wins a trick, ties go to the later card)")
    return "\n".join(lines)


# ---- Cahoots (competitive) -----------------------------------------------------------------------
def view_cahoots_tricks(game: Any, seat: int) -> str:
    from cahoots_envs.games.cahoots_tricks.rules import (
        PHASE_KEEP_KILL,
        SUITS,
        card_str,
        zone_types,
    )

    def cards(zone: int) -> str:
        return " ".join(card_str(t) for t in zone_types(zone)) or "-"

    from cahoots_envs.games.cahoots_tricks.encoder import headline

    n = game.num_players
    lines = [headline(game), f"{'':2}{'seat':<15}{'score':>6} {'identity':<9}hand"]
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        ident = "".join(SUITS[k] for k in range(len(SUITS)) if game.identity_suits[s] >> k & 1)
        if s == seat:
            hand = cards(game.hands[s])
        else:
            size = game.hands[s].bit_count()
            hand = _count(size) + (f", known: {cards(game.known[s])}" if game.known[s] else "")
        lines.extend(_wrap(f"{mark} {_who(s, seat):<15}{game.scores[s]:>6.4g} {ident:<9}", hand))
    if game.trick:
        lines.extend(_wrap_items("trick: ", [f"player_{s} {card_str(t)}" for s, t in game.trick]))
        totals = " ".join(f"{SUITS[k]}={game.suit_totals[k]}" for k in range(len(SUITS)))
        won, winners = game.leaders()
        lead = "".join(SUITS[k] for k in range(len(SUITS)) if won >> k & 1) or "-"
        scoring = ", ".join(f"player_{w}" for w in winners) or "-"
        lines.extend(_wrap("suit totals: ", f"{totals}; leading {lead}, scoring {scoring}"))
    picks = [
        f"player_{s} kept {card_str(game.kept_now[s]) if game.kept_now[s] >= 0 else '-'}"
        f" killed {card_str(game.killed_now[s]) if game.killed_now[s] >= 0 else '-'}"
        for s in range(n)
        if game.kept_now[s] >= 0 or game.killed_now[s] >= 0
    ]
    if picks and not game.is_over:
        lines.extend(_wrap_items("picks: ", picks, sep="; "))
    if game.trick_pool and game.phase == PHASE_KEEP_KILL:
        lines.extend(_wrap("left to pick: ", cards(game.trick_pool)))
    if game.point_pool:
        lines.extend(_wrap("point cards to draft: ", cards(game.point_pool)))
    if game.last_result:
        lines.extend(_wrap("last trick: ", game.last_result))
    if game.killed:
        lines.extend(_wrap("killed: ", cards(game.killed)))
    if n == 3:
        lines.append(f"reserve: {len(game.reserve)} face down; drawn {cards(game.reserve_drawn)}")
    lines.append("(cards: value 4-8 + suit S spades H hearts D diamonds C clubs U cups R stars)")
    return "\n".join(lines)


# ---- Cahoots (cooperative) -----------------------------------------------------------------------
def view_cahoots_coop(game: Any, seat: int) -> str:
    from cahoots_envs.games.cahoots_coop.encoder import headline, piles_line
    from cahoots_envs.games.cahoots_coop.rules import COLOURS, card_str

    goals = game.goal_cards
    n = game.num_players
    lines = [
        headline(game),
        (f"goals: {len(game.completed)} of {game.num_goals} completed, {len(game.goal_deck)} in the "
        f"goal deck; draw pile {len(game.draw_pile)}"),
        piles_line(game),
    ]
    for slot, goal in enumerate(game.visible):
        if goal >= 0:
            lines.extend(_wrap(f"goal: {goals[goal].id} — ", goals[goal].text))
    if game.last_play is not None:
        s, kind, pile = game.last_play
        done = ", ".join(goals[g].id for g in game.last_completed)
        lines.extend(_wrap("last play: ", f"player_{s} play {card_str(kind)} on {pile}"
                           + (f"; completed {done}" if done else "")))
    for s in range(n):
        mark = ">" if s == game.current_player else " "
        if s == seat or game.open_hands:
            hand = " ".join(card_str(k) for k in game.hands[s]) or "-"
        else:
            hand = _count(len(game.hands[s]))
        lines.append(f"{mark} {_who(s, seat):<15} {hand}")
    if game.completed:
        lines.extend(_wrap("completed: ", " ".join(goals[g].id for g in game.completed)))
    lines.append(f"(cards: 1-7 + colour {' '.join(COLOURS)}; play on a top of the same colour "
                 "or number)")
    return "\n".join(lines)


def public_action(game: Any, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes (before it is applied): in Kansas
    City a pass is secret and an upgraded card's face is never shown, only its rank."""
    text = game.action_to_str(action)
    if game.NAME == "kansas_city" and game.current_player != viewer:
        verb, _, card = text.partition(" ")
        if verb == "pass":
            return "pass 3 cards"
        if verb == "upgrade":
            return f"upgrade a card to {card[0]}T"
    return text


VIEWS: dict[str, Callable[[Any, int], str]] = {
    "kansas_city": view_kansas_city,
    "texas_euchre": view_texas_euchre,
    "cahoots_tricks": view_cahoots_tricks,
    "cahoots_coop": view_cahoots_coop,
}


def seat_view(game: Any, seat: int) -> str:
    """Everything ``seat`` may see now, as text at most 80 columns wide."""
    try:
        view = VIEWS[game.NAME]
    except KeyError:
        raise ValueError(f"no terminal view for {game.NAME}") from None
    return _fit(view(game, seat).split("\n"))
