"""Kansas City observation encoder, its declared layout, and the ansi render.

The encoder reads only what the observing seat may know (§4.5): its own cards, every hand's
rank profile (card backs), trump ranks, face-up plays, the set-aside card, tricks and 4s, scores
and its own passes. An upgraded card appears by rank only, never by its printed face, except in
its owner's ``own_upgraded`` segment. The leak test in ``tests/`` checks this on random games.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.cards import bits, write_bits
from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.games.kansas_city.rules import (
    DECK_SIZE,
    HAND_SIZE,
    MAX_HANDS,
    PHASES,
    RANKS,
    SUITS,
    card_str,
    ranks_of,
)

if TYPE_CHECKING:
    from cahoots_envs.games.kansas_city.rules import KansasCity

ENV_ID = "cahoots_envs/kansas_city-v0"
CARD_DOC = "one-hot by card, index `suit*8 + rank-1`, suits A–G"


@lru_cache(maxsize=None)
def build_layout(n: int) -> Layout:
    h = HAND_SIZE[n]
    return Layout(
        ENV_ID,
        (
            Segment("hand", DECK_SIZE, f"own cards in hand (not upgraded), {CARD_DOC}"),
            Segment("own_upgraded", DECK_SIZE, "own upgraded trumps by printed face (private)"),
            Segment("hand_ranks", n * RANKS, "cards of each rank 1–8 in each hand (public backs), "
                    "rows: you, then the others clockwise", high=7, shape=(n, RANKS)),
            Segment("trump_ranks", n * RANKS, "1 if that player holds an unplayed trump of that rank, "
                    "rows relative as above", shape=(n, RANKS)),
            Segment("trick", n * (DECK_SIZE + RANKS), "current trick: per relative seat, the face card "
                    "played (56) or the trump rank played (8)", shape=(n, DECK_SIZE + RANKS)),
            Segment("trick_leader", n, "relative seat that led the current trick (one-hot)"),
            Segment("played", DECK_SIZE, f"face-up cards played this hand, {CARD_DOC}"),
            Segment("trumps_played", RANKS, "trumps played this hand, count per rank", high=7),
            Segment("tricks_won", n, "tricks won this hand per relative seat", high=h),
            Segment("fours_captured", n, "4s captured this hand per relative seat", high=7),
            Segment("scores", n, "cumulative score per relative seat / 100", high=10),
            Segment("hand_number", MAX_HANDS, "index of the current hand (one-hot)"),
            Segment("hands_total", MAX_HANDS, "hands in this game (one-hot at hands-1)"),
            Segment("dealer", n, "relative seat of the dealer (one-hot)"),
            Segment("phase", len(PHASES), "decision phase: pass, play, upgrade (one-hot)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
            Segment("passed", DECK_SIZE, "the cards you passed this hand (once chosen)"),
            Segment("received", DECK_SIZE, "the cards you received this hand (after the exchange)"),
            Segment("set_aside", DECK_SIZE, "the public set-aside card (5 players only)"),
        ),
    )


@lru_cache(maxsize=None)
def _offsets(n: int) -> dict[str, int]:
    return dict(build_layout(n).offsets)


def encode(game: KansasCity, seat: int, out: np.ndarray) -> None:
    n = game.num_players
    o = _offsets(n)
    write_bits(out, o["hand"], game.hands[seat])
    write_bits(out, o["own_upgraded"], game.upgraded[seat])
    hr, tr, tw, fc, sc = o["hand_ranks"], o["trump_ranks"], o["tricks_won"], o["fours_captured"], o["scores"]
    dealer_rel = (game.dealer - seat) % n
    for rel in range(n):
        s = (seat + rel) % n
        held = game.hands[s] | game.pending_pass[s]
        base = hr + rel * RANKS
        while held:
            low = held & -held
            out[base + ((low.bit_length() - 1) & 7)] += 1
            held ^= low
        write_bits(out, tr + rel * RANKS, ranks_of(game.upgraded[s]))
        out[tw + rel] = game.tricks_won[s]
        out[fc + rel] = game.fours_captured[s]
        out[sc + rel] = game.scores[s] / 100.0
    if game.trick:
        width = DECK_SIZE + RANKS
        t = o["trick"]
        for s, card, is_trump in game.trick:
            rel = (s - seat) % n
            out[t + rel * width + (DECK_SIZE + (card & 7) if is_trump else card)] = 1
        out[o["trick_leader"] + (game.trick[0][0] - seat) % n] = 1
    write_bits(out, o["played"], game.played)
    tp = o["trumps_played"]
    for r in range(RANKS):
        if game.trumps_played[r]:
            out[tp + r] = game.trumps_played[r]
    out[o["hand_number"] + min(game.hand_number, game.hands_total - 1)] = 1
    out[o["hands_total"] + game.hands_total - 1] = 1
    out[o["dealer"] + dealer_rel] = 1
    out[o["phase"] + PHASES.index(game.phase)] = 1
    if not game.is_over:
        out[o["to_move"] + (game.current_player - seat) % n] = 1
    write_bits(out, o["passed"], game.passed[seat] | game.pending_pass[seat])
    write_bits(out, o["received"], game.received[seat])
    if game.set_aside >= 0:
        out[o["set_aside"] + game.set_aside] = 1


def _hand_text(game: KansasCity, seat: int) -> str:
    cards = [card_str(c) for c in bits(game.hands[seat] | game.pending_pass[seat])]
    trumps = [f"{(c & 7) + 1}T" for c in bits(game.upgraded[seat])]
    return " ".join(cards + trumps)


def render(game: KansasCity) -> str:
    """A table in the notation (spectator view: hands shown, upgraded faces never shown)."""
    n = game.num_players
    if game.is_over:
        head = f"Kansas City — game over after {game.hands_total} hands"
    else:
        head = (
            f"Kansas City — hand {game.hand_number + 1} of {game.hands_total}, "
            f"trick {min(game.tricks_played + 1, game.hand_size)} of {game.hand_size}, "
            f"phase {game.phase}, dealer player_{game.dealer}"
        )
    lines = [head, f"{'seat':<10} {'score':>5} {'tricks':>6} {'4s':>3}  hand"]
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
