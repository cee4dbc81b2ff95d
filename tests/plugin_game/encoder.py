"""High Card observation: the declared layout and the encoder.

The encoder reads only what the observing seat may know: its own hand, the current trick, the
cards played this hand, tricks and scores, the hand number, who leads and who is to move. The
other hands and the stock never enter it. Seats are relative: row 0 is the observer, then the
others clockwise.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cahoots_envs.core.cards import write_bits
from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.core.spec import env_id_of

from .rules import DECK_SIZE, HAND_SIZE, MAX_HANDS, HighCard

ENV_ID = env_id_of(HighCard)  # the spec's id: cahoots_envs/<NAME>-v<VERSION>
CARD_DOC = "index `suit*6 + rank-1`, suits R G B, ranks 1..6"
SCORE_SCALE = float(HAND_SIZE * MAX_HANDS)  # the most points a game can give


@cache
def build_layout(num_players: int) -> Layout:
    n = num_players
    return Layout(
        ENV_ID,
        (
            Segment("hand", DECK_SIZE, f"own hand, one bit per card, {CARD_DOC}"),
            Segment("trick", n * DECK_SIZE, "current trick: the card each relative seat played "
                    "(rows: you, then the others clockwise)", shape=(n, DECK_SIZE)),
            Segment("played", DECK_SIZE, "cards played this hand (finished tricks and the current "
                    "one)"),
            Segment("tricks_won", n, f"tricks taken this hand per relative seat / {HAND_SIZE}"),
            Segment("scores", n, f"total score per relative seat / {SCORE_SCALE:g} (the most a "
                    f"game of {MAX_HANDS} hands gives)"),
            Segment("hand_number", MAX_HANDS, "the hand being played, 1..5 (one-hot)"),
            Segment("num_hands", MAX_HANDS, "hands in the game, option `hands` 1..5 (one-hot)"),
            Segment("leader", n, "relative seat that leads or led the current trick (one-hot; "
                    "all zero when the game is over)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is "
                    "over)"),
        ),
    )


def encode(game: HighCard, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation into the zeroed buffer ``out``."""
    n = game.num_players
    layout = build_layout(n)
    o = layout.offsets
    write_bits(out, o["hand"], game.hands[seat])
    for s, card in game.trick:
        out[o["trick"] + ((s - seat) % n) * DECK_SIZE + card] = 1.0
    write_bits(out, o["played"], game.played())
    for rel in range(n):
        s = (seat + rel) % n
        out[o["tricks_won"] + rel] = game.tricks_won[s] / HAND_SIZE
        out[o["scores"] + rel] = game.scores[s] / SCORE_SCALE
    out[o["hand_number"] + game.hand_index] = 1.0
    out[o["num_hands"] + game.num_hands - 1] = 1.0
    if not game.is_over:
        leader = game.trick[0][0] if game.trick else game.current_player
        out[o["leader"] + (leader - seat) % n] = 1.0
        out[o["to_move"] + (game.current_player - seat) % n] = 1.0
