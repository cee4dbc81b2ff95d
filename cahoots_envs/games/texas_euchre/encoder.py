"""Texas Euchre observation encoder and its declared layout.

The encoder reads only what the observing seat may know (A8): its own hand, every stake (the
face-up discards), the draw pile's size, who threw down and when, the current trick, the cards
played this round, tricks, scores and the target. Other hands, the thrower's face-down hand and
the order of the draw pile never enter it. Cards are counted by face (0–2: with two decks both
copies of a face look alike). The leak test in ``tests/`` checks this on random games.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.games.texas_euchre.rules import FACES, HAND_SIZE, PHASES

if TYPE_CHECKING:
    from cahoots_envs.games.texas_euchre.rules import TexasEuchre

ENV_ID = "cahoots_envs/texas_euchre-v0"
CARD_DOC = "count by card (2 with two decks), index `rank*4 + suit`, ranks 2..A = 0..12, suits CDHS"
SCORE_CLIP = 2.0
TURN_SCALE = 100.0


@cache
def build_layout(n: int) -> Layout:
    h = HAND_SIZE[n]
    return Layout(
        ENV_ID,
        (
            Segment("hand", FACES, f"own hand, {CARD_DOC}", high=2),
            Segment("stakes", n * FACES, "face-up stake cards in front of each player (public); "
                    "rows: you, then the others clockwise", high=2, shape=(n, FACES)),
            Segment("stake_points", n, "stake total per relative seat in points / 100", high=10),
            Segment("draw_pile_size", 1, "cards left in the draw pile / 100"),
            Segment("thrower", n, "relative seat that threw down this round (one-hot; zero before)"),
            Segment("throw_turn", 1, "draw turns taken this round before the throw down / 100"),
            Segment("draw_turns", 1, "draw-phase turns taken this round (throw down included) / 100"),
            Segment("first_turn_done", n, "1 once that relative seat has taken its first turn"),
            Segment("final_lap_due", n, "1 while that relative seat still has its final-lap turn"),
            Segment("phase", len(PHASES), "decision phase: first_turn, draw, final_lap, play "
                    "(one-hot; all zero when the game is over)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
            Segment("dealer", n, "relative seat of the dealer (one-hot)"),
            Segment("trick", n * FACES, "current trick: the card each relative seat played",
                    shape=(n, FACES)),
            Segment("trick_leader", n, "relative seat that led the current trick (one-hot)"),
            Segment("played", FACES, f"cards played to tricks this round, {CARD_DOC}", high=2),
            Segment("seen", FACES, "every card seen face up this round (stakes and played cards), "
                    "count by card", high=2),
            Segment("tricks_won", n, "tricks taken this round per relative seat", high=h),
            Segment("scores", n, f"cumulative score / target score per relative seat (clipped at "
                    f"{SCORE_CLIP:g}; at least 1 only once the game is over)", high=SCORE_CLIP),
            Segment("target_score", 1, "the target score / 1000", high=10),
            Segment("reverse", 1, "1 in Reverse Texas Euchre (lowest card takes the trick)"),
        ),
    )


@cache
def _offsets(n: int) -> dict[str, int]:
    o = dict(build_layout(n).offsets)
    # encode() writes these neighbours as one slice each
    for a, b, gap in [("hand", "stakes", FACES), ("played", "seen", FACES),
                      ("stake_points", "draw_pile_size", n), ("tricks_won", "scores", n),
                      ("scores", "target_score", n)]:
        if o[b] - o[a] != gap:
            raise AssertionError(f"layout: {b} must follow {a}")
    return o


def encode(game: TexasEuchre, seat: int, out: np.ndarray) -> None:
    """The 0/1 entries and the card sets are ORed into one int and unpacked at once (one C-level
    pass instead of hundreds of numpy item assignments); the few scalars are written as slices."""
    n = game.num_players
    o = _offsets(n)
    order = [(seat + rel) % n for rel in range(n)]
    field = 0
    if game.thrower >= 0:
        field |= 1 << (o["thrower"] + (game.thrower - seat) % n)
        # the final lap runs clockwise from the thrower's left and ends at the seat to move
        fl, cp = o["final_lap_due"], game.current_player
        for k in range(game.final_lap_left):
            field |= 1 << (fl + (cp + k - seat) % n)
    ft = o["first_turn_done"]
    for rel, s in enumerate(order):
        if game.had_first_turn >> s & 1:
            field |= 1 << (ft + rel)
    field |= 1 << (o["dealer"] + (game.dealer - seat) % n)
    if not game.is_over:
        field |= 1 << (o["phase"] + PHASES.index(game.phase))
        field |= 1 << (o["to_move"] + (game.current_player - seat) % n)
    if game.trick:
        t = o["trick"]
        for s, card in game.trick:
            field |= 1 << (t + ((s - seat) % n) * FACES + (card >> 1))
        field |= 1 << (o["trick_leader"] + (game.trick[0][0] - seat) % n)
    if game.reverse:
        field |= 1 << o["reverse"]
    # the card sets follow the 0/1 field as card-id bits (two per face), so one unpack does
    # all: hand and stakes are adjacent segments, as are played and seen
    size = out.shape[0]
    width = 2 * FACES
    stakes = game.stakes
    cards = game.hands[seat]
    public = game.played
    for rel, s in enumerate(order):
        cards |= stakes[s] << (width * (rel + 1))
        public |= stakes[s]
    cards |= (game.played | public << width) << (width * (n + 1))
    nbits = size + width * (n + 3)
    raw = np.frombuffer((field | cards << size).to_bytes((nbits + 7) // 8, "little"), np.uint8)
    unpacked = np.unpackbits(raw, count=nbits, bitorder="little")
    out[:] = unpacked[:size]
    ids = unpacked[size:]
    counts = ids[0::2] + ids[1::2]  # first copy + second copy of each face
    h0, pl, split = o["hand"], o["played"], FACES * (n + 1)
    out[h0 : h0 + split] = counts[:split]
    out[pl : pl + 2 * FACES] = counts[split:]
    sp = o["stake_points"]  # stake_points and draw_pile_size are adjacent
    points = game.stake_points
    out[sp : sp + n + 1] = [points[s] / 100.0 for s in order] + [len(game.draw_pile) / 100.0]
    out[o["draw_turns"]] = game.draw_turns / TURN_SCALE
    if game.thrower >= 0:
        out[o["throw_turn"]] = game.throw_turn / TURN_SCALE
    # tricks_won, scores and target_score are adjacent
    target = game.target_score
    tricks, scores = game.tricks_won, game.scores
    tw = o["tricks_won"]
    out[tw : tw + 2 * n + 1] = (
        [tricks[s] for s in order]
        + [min(scores[s] / target, SCORE_CLIP) for s in order]
        + [min(target / 1000.0, 10.0)]
    )
