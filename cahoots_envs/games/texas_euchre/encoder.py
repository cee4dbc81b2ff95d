"""Texas Euchre observation encoder and its declared layout.

The encoder reads only what the observing seat may know (A8): its own hand, every stake (the
face-up discards) and each seat's latest discard, the draw pile's size, who threw down and when,
the current and the last completed trick, the cards each seat played this round, tricks, scores,
the last round's points, the FAQ 6 tie-break rank and the target. Other hands, the thrower's
face-down hand and the order of the draw pile never enter it. Cards are counted by face (0–2: with two decks both
copies of a face look alike). The leak test in ``tests/`` checks this on random games.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.core.spec import env_id_of
from cahoots_envs.games.texas_euchre.rules import FACES, HAND_SIZE, PHASES, TexasEuchre

ENV_ID = env_id_of(TexasEuchre)  # the spec's id: cahoots_envs/<NAME>-v<VERSION>
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
            Segment("played_by", n * FACES, "cards each relative seat played to tricks this round, "
                    "count by card (2 with two decks)", high=2, shape=(n, FACES)),
            Segment("last_discard", n * FACES, "cards each relative seat discarded on its latest "
                    "draw turn this round, count by card (a row of zeros before its first turn "
                    "and after `discard none`; a throw down keeps the turn before)", high=2,
                    shape=(n, FACES)),
            Segment("last_trick", n * FACES, "last completed trick: the card each relative seat "
                    "played (a round's final trick stays until the next trick phase begins)",
                    shape=(n, FACES)),
            Segment("last_trick_leader", n, "relative seat that led the last completed trick "
                    "(one-hot)"),
            Segment("last_trick_winner", n, "relative seat that took the last completed trick "
                    "(one-hot)"),
            Segment("tricks_won", n, "tricks taken this round per relative seat", high=h),
            Segment("scores", n, f"cumulative score / target score per relative seat (clipped at "
                    f"{SCORE_CLIP:g}; at least 1 only once the game is over)", high=SCORE_CLIP),
            Segment("last_round_points", n, "points each relative seat took in the last finished "
                    "round / 100 (0 in the first round; at most 2 × 832 points)", high=20),
            Segment("tiebreak_rank", n, "FAQ 6 tie-break rank per relative seat / (players − 1): "
                    "how many seats rank strictly better on the round points read from the "
                    "latest round back (fewer points in the latest round where they differ is "
                    "better); of the seats tied for the lowest score the lowest rank wins, equal "
                    "ranks share"),
            Segment("target_score", 1, "the target score / 1000", high=10),
            Segment("reverse", 1, "1 in Reverse Texas Euchre (lowest card takes the trick)"),
        ),
    )


@cache
def _offsets(n: int) -> dict[str, int]:
    """Every segment's start as a bit position of the encoding int (two bits per entry), and
    per relative seat the start of its card rows; checks the neighbours written as one slice."""
    o = build_layout(n).offsets
    for a, b, gap in [("stake_points", "draw_pile_size", n), ("tricks_won", "scores", n),
                      ("scores", "last_round_points", n), ("last_round_points", "tiebreak_rank", n),
                      ("tiebreak_rank", "target_score", n)]:
        if o[b] - o[a] != gap:
            raise AssertionError(f"layout: {b} must follow {a}")
    return {name: 2 * start for name, start in o.items()}


@cache
def _rows(n: int) -> list[tuple[int, int, int, int]]:
    """Per relative seat the bit positions of its rows in stakes, played_by and last_discard,
    and of its first_turn_done entry."""
    o = _offsets(n)
    step = 2 * FACES
    return [(o["stakes"] + step * rel, o["played_by"] + step * rel, o["last_discard"] + step * rel,
             o["first_turn_done"] + 2 * rel) for rel in range(n)]


def encode(game: TexasEuchre, seat: int, out: np.ndarray) -> None:
    """Every entry gets two bits of one Python int: a 0/1 entry sets the first, a card set ORs
    its card-id mask in (card id = 2 × face + copy, so both copies of a face land on the two
    bits of its entry). One unpack and one pairwise sum write every count and flag at once (one
    C-level pass instead of hundreds of numpy item assignments); the scalars are written as
    slices."""
    n = game.num_players
    o = _offsets(n)
    order = [(seat + rel) % n for rel in range(n)]
    bits = 0
    if game.thrower >= 0:
        bits |= 1 << (o["thrower"] + 2 * ((game.thrower - seat) % n))
        # the final lap runs clockwise from the thrower's left and ends at the seat to move
        fl, cp = o["final_lap_due"], game.current_player
        for k in range(game.final_lap_left):
            bits |= 1 << (fl + 2 * ((cp + k - seat) % n))
    bits |= 1 << (o["dealer"] + 2 * ((game.dealer - seat) % n))
    if not game.is_over:
        bits |= 1 << (o["phase"] + 2 * PHASES.index(game.phase))
        bits |= 1 << (o["to_move"] + 2 * ((game.current_player - seat) % n))
    trick = game.trick
    if trick:
        t = o["trick"]
        for s, card in trick:
            bits |= 1 << (t + 2 * FACES * ((s - seat) % n) + (card & ~1))
        bits |= 1 << (o["trick_leader"] + 2 * ((trick[0][0] - seat) % n))
    last = game.last_trick
    if last:
        bits |= 1 << (o["last_trick_leader"] + 2 * ((last[0][0] - seat) % n))
        bits |= 1 << (o["last_trick_winner"] + 2 * ((game.last_trick_winner - seat) % n))
    if game.reverse:
        bits |= 1 << o["reverse"]
    stakes, played_by, last_discard = game.stakes, game.played_by, game.last_discard
    public, first = game.played, game.had_first_turn
    rows = _rows(n)
    for rel, s in enumerate(order):
        st, pb, ld, ft = rows[rel]
        public |= stakes[s]
        bits |= stakes[s] << st | played_by[s] << pb | last_discard[s] << ld | (first >> s & 1) << ft
    lt = o["last_trick"]
    for s, card in last:
        bits |= 1 << (lt + 2 * FACES * ((s - seat) % n) + card)
    bits |= game.hands[seat] << o["hand"] | game.played << o["played"] | public << o["seen"]
    size = out.shape[0]
    raw = np.frombuffer(bits.to_bytes(size // 4 + 1, "little"), np.uint8)
    unpacked = np.unpackbits(raw, count=2 * size, bitorder="little")
    out[:] = unpacked[0::2] + unpacked[1::2]
    sp = o["stake_points"] >> 1  # stake_points and draw_pile_size are adjacent
    points = game.stake_points
    out[sp : sp + n + 1] = [points[s] / 100.0 for s in order] + [len(game.draw_pile) / 100.0]
    out[o["draw_turns"] >> 1] = game.draw_turns / TURN_SCALE
    if game.thrower >= 0:
        out[o["throw_turn"] >> 1] = game.throw_turn / TURN_SCALE
    # tricks_won, scores, last_round_points, tiebreak_rank and target_score are adjacent
    target = game.target_score
    tricks, scores, rank = game.tricks_won, game.scores, game.tiebreak_rank
    last_points = game.round_points[-1] if game.round_points else [0] * n
    tw = o["tricks_won"] >> 1
    out[tw : tw + 4 * n + 1] = (
        [tricks[s] for s in order]
        + [min(scores[s] / target, SCORE_CLIP) for s in order]
        + [last_points[s] / 100.0 for s in order]
        + [rank[s] / (n - 1) for s in order]
        + [min(target / 1000.0, 10.0)]
    )
