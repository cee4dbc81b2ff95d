"""Kansas City observation encoder and its declared layout.

The encoder reads only what the observing seat may know (§4.5): its own cards, every hand's
rank profile (card backs), trump ranks, face-up plays, the set-aside card, tricks and 4s, scores
and its own passes. An upgraded card appears by rank only, never by its printed face, except in
its owner's ``own_upgraded`` segment. The leak test in ``tests/`` checks this on random games.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.cards import write_bitfield
from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.games.kansas_city.rules import (
    DECK_SIZE,
    HAND_SIZE,
    MAX_HANDS,
    PHASES,
    RANKS,
    ranks_of,
)

if TYPE_CHECKING:
    from cahoots_envs.games.kansas_city.rules import KansasCity

ENV_ID = "cahoots_envs/kansas_city-v0"
CARD_DOC = "one-hot by card, index `suit*8 + rank-1`, suits A–G"


@cache
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
            Segment("played", DECK_SIZE, "cards played this hand whose face you know: every face-up "
                    f"card and your own upgraded ones, {CARD_DOC}"),
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


@cache
def _offsets(n: int) -> dict[str, int]:
    return dict(build_layout(n).offsets)


def encode(game: KansasCity, seat: int, out: np.ndarray) -> None:
    """All 0/1 entries are ORed into one int at their offsets and unpacked at once; the few
    counts are written as slices afterwards."""
    n = game.num_players
    o = _offsets(n)
    hands, upgraded = game.hands, game.upgraded
    field = hands[seat] << o["hand"] | upgraded[seat] << o["own_upgraded"]
    field |= (game.played | game.own_trumps_played[seat]) << o["played"]
    field |= (game.passed[seat] | game.pending_pass[seat]) << o["passed"]
    field |= game.received[seat] << o["received"]
    if game.set_aside >= 0:
        field |= 1 << (o["set_aside"] + game.set_aside)
    tr = o["trump_ranks"]
    held_all = 0  # every hand's cards side by side, to count ranks in one numpy pass
    for rel in range(n):
        s = (seat + rel) % n
        held_all |= (hands[s] | game.pending_pass[s]) << (rel * DECK_SIZE)
        field |= ranks_of(upgraded[s]) << (tr + rel * RANKS)
    if game.trick:
        width = DECK_SIZE + RANKS
        t = o["trick"]
        for s, card, is_trump in game.trick:
            rel = (s - seat) % n
            field |= 1 << (t + rel * width + (DECK_SIZE + (card & 7) if is_trump else card))
        field |= 1 << (o["trick_leader"] + (game.trick[0][0] - seat) % n)
    field |= 1 << (o["hand_number"] + min(game.hand_number, game.hands_total - 1))
    field |= 1 << (o["hands_total"] + game.hands_total - 1)
    field |= 1 << (o["dealer"] + (game.dealer - seat) % n)
    field |= 1 << (o["phase"] + PHASES.index(game.phase))
    if not game.is_over:
        field |= 1 << (o["to_move"] + (game.current_player - seat) % n)
    write_bitfield(out, field)
    hr = o["hand_ranks"]
    held_bits = np.unpackbits(
        np.frombuffer(held_all.to_bytes(n * 7, "little"), dtype=np.uint8), bitorder="little"
    )
    out[hr : hr + n * RANKS] = held_bits.reshape(n, 7, RANKS).sum(axis=1).ravel()
    tp = o["trumps_played"]
    out[tp : tp + RANKS] = game.trumps_played
    # tricks_won, fours_captured and scores are adjacent segments: one write
    tricks, fours, scores = game.tricks_won, game.fours_captured, game.scores
    order = [(seat + rel) % n for rel in range(n)]
    tw = o["tricks_won"]
    out[tw : tw + 3 * n] = (
        [tricks[s] for s in order] + [fours[s] for s in order] + [scores[s] / 100.0 for s in order]
    )
