"""Cahoots (competitive) observation encoder and its declared layout.

The encoder reads only what the observing seat may know (A6): its own hand, and everything that
is public — identity cards, the cards played with who played them, every keep/kill pick (the
cards are taken openly, only the status is face down), point cards, the reserve cards added to
point cards, scores, hand sizes. Other hands appear only through what was publicly kept into
them and not played since (``known_hands``) and as the count of unseen cards per type. The
reserve's order never appears. The leak test in ``tests/`` checks this on random games.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.games.cahoots_tricks.rules import (
    EVEN_BITS,
    HAND_SIZE,
    IDENTITY_MASKS,
    NUM_TYPES,
    PHASE_KEEP_KILL,
    PHASES,
    SUITS,
    TRICKS,
)

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_tricks.rules import CahootsTricks

ENV_ID = "cahoots_envs/cahoots_tricks-v0"
CARD_DOC = "count per card, index `suit*5 + value-4`, suits S H D C U R"
NUM_SUITS = len(SUITS)
SUIT_TOTAL_SCALE = 48.0  # all eight cards of one suit add up to 48 (§2.1)
GAME_POINTS = {False: 44.0, True: 288.0}  # points handed out in a game: cards / face value


@cache
def build_layout(n: int) -> Layout:
    # the count-by-card blocks come first and in this order: encode() writes them in two slices
    return Layout(
        ENV_ID,
        (
            Segment("hand", NUM_TYPES, f"own hand, {CARD_DOC}", high=2),
            Segment("trick_pool", NUM_TYPES, f"trick cards not yet picked in keep/kill, {CARD_DOC}",
                    high=2),
            Segment("point_pool", NUM_TYPES, f"point cards still to draft (face-value draft), "
                    f"{CARD_DOC}", high=2),
            Segment("killed", NUM_TYPES, f"cards killed this game, {CARD_DOC}", high=2),
            Segment("reserve_drawn", NUM_TYPES, "reserve cards added to point cards "
                    "(3 players)", high=1),
            Segment("unseen", NUM_TYPES, "cards in the other hands that you cannot see "
                    "(not known from keeps)", high=2),
            Segment("known_hands", n * NUM_TYPES, "cards each relative seat kept and has not "
                    "played since: publicly known to be in its hand; rows: you, then the others "
                    "clockwise", high=2, shape=(n, NUM_TYPES)),
            Segment("played", NUM_TYPES, "times each card was played this game (kept cards "
                    "can be played again)", high=2 * TRICKS),
            Segment("kept", n * NUM_TYPES, "times each relative seat kept each card this game",
                    high=TRICKS, shape=(n, NUM_TYPES)),
            Segment("identities", n * NUM_SUITS, "suits on each relative seat's identity card "
                    "(S H D C U R)", shape=(n, NUM_SUITS)),
            Segment("trick_plays", n * 2 * NUM_TYPES, "current trick: per relative seat, the card "
                    "it played in lap 1 and in lap 2 (one-hot by card)", shape=(n, 2, NUM_TYPES)),
            Segment("suit_totals", NUM_SUITS, "running total of each suit in the trick / 48"),
            Segment("winning_suits", NUM_SUITS, "suits with the highest total so far (the "
                    "winning suits once the trick is played out)"),
            Segment("scoring_winners", n, "relative seats with the most winning suits on their "
                    "identity card: who would score if the trick ended now"),
            Segment("trick_picks", n * 2 * NUM_TYPES, "this trick's keep/kill picks (public): per "
                    "relative seat, the card kept and the card killed", shape=(n, 2, NUM_TYPES)),
            Segment("hand_sizes", n, "cards in hand per relative seat / 12"),
            Segment("scores", n, "score per relative seat / the game's points "
                    "(44; 288 with face value)"),
            Segment("trick_number", TRICKS, "the current trick, 1–11 (one-hot)"),
            Segment("start_player", n, "relative seat of the start player (one-hot)"),
            Segment("phase", len(PHASES), "decision phase: play, keep_kill, draft (one-hot)"),
            Segment("keep_kill_pass", 2, "keep/kill pass 1 or 2 (one-hot, during keep/kill)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
        ),
    )


@cache
def _offsets(n: int) -> dict[str, int]:
    offsets = dict(build_layout(n).offsets)
    # encode() writes hand .. known_hands and played .. kept as two contiguous slices
    assert offsets["known_hands"] == 6 * NUM_TYPES and offsets["kept"] == offsets["played"] + NUM_TYPES
    return offsets


# byte -> its four 2-bit fields as numbers (a zone's per-type counts in binary, see _binary)
FIELDS_OF_BYTE = np.array(
    [[(b >> (2 * k)) & 3 for k in range(4)] for b in range(256)], np.float32
)


def _binary(zone: int) -> int:
    """Each type's 2-bit field as a binary count 0..2 (zones hold counts in unary)."""
    return (zone & EVEN_BITS) + ((zone >> 1) & EVEN_BITS)


@cache
def _identity_rows(identities: tuple[int, ...], seat: int) -> np.ndarray:
    n = len(identities)
    rows = np.zeros((n, NUM_SUITS), np.float32)
    for rel in range(n):
        mask = IDENTITY_MASKS[identities[(seat + rel) % n]]
        for k in range(NUM_SUITS):
            rows[rel, k] = mask >> k & 1
    return rows.ravel()


def encode(game: CahootsTricks, seat: int, out: np.ndarray) -> None:
    n = game.num_players
    o = _offsets(n)
    order = [(seat + rel) % n for rel in range(n)]
    # the count blocks hand .. known_hands: per-type binary counts, converted in one go; the
    # unseen cards are the other hands less what is known of them (no field ever borrows)
    known = [_binary(game.known[s]) for s in order]
    unseen = sum(_binary(game.hands[s]) for s in order[1:]) - sum(known[1:])
    zones = [_binary(game.hands[seat]), _binary(game.trick_pool), _binary(game.point_pool),
             _binary(game.killed), _binary(game.reserve_drawn), unseen] + known
    raw = np.frombuffer(b"".join(z.to_bytes(8, "little") for z in zones), np.uint8)
    counts = FIELDS_OF_BYTE[raw].reshape(len(zones), 32)[:, :NUM_TYPES]
    out[: len(zones) * NUM_TYPES] = counts.ravel()
    # played and kept tallies: one byte per type each
    tallies = [game.played_tally] + [game.kept_tally[s] for s in order]
    start = o["played"]
    out[start : start + (n + 1) * NUM_TYPES] = np.frombuffer(
        b"".join(t.to_bytes(NUM_TYPES, "little") for t in tallies), np.uint8
    )
    out[o["identities"] : o["identities"] + n * NUM_SUITS] = _identity_rows(tuple(game.identities), seat)
    out[o["hand_sizes"] : o["hand_sizes"] + n] = [game.hands[s].bit_count() / HAND_SIZE for s in order]
    scale = GAME_POINTS[game.face_value]
    out[o["scores"] : o["scores"] + n] = [game.scores[s] / scale for s in order]
    if game.trick:
        tp = o["trick_plays"]
        for i, (s, t) in enumerate(game.trick):
            lap = 0 if i < n else 1
            out[tp + ((s - seat) % n * 2 + lap) * NUM_TYPES + t] = 1
        st = o["suit_totals"]
        out[st : st + NUM_SUITS] = [total / SUIT_TOTAL_SCALE for total in game.suit_totals]
        if game.phase == PHASE_KEEP_KILL or game.winners:
            won, winners = game.winning_suits, game.winners
        else:
            won, winners = game.leaders()
        for k in range(NUM_SUITS):
            if won >> k & 1:
                out[o["winning_suits"] + k] = 1
        for w in winners:
            out[o["scoring_winners"] + (w - seat) % n] = 1
    picks = o["trick_picks"]
    for rel, s in enumerate(order):
        if game.kept_now[s] >= 0:
            out[picks + rel * 2 * NUM_TYPES + game.kept_now[s]] = 1
        if game.killed_now[s] >= 0:
            out[picks + (rel * 2 + 1) * NUM_TYPES + game.killed_now[s]] = 1
    out[o["trick_number"] + game.trick_number - 1] = 1
    out[o["start_player"] + (game.start_player - seat) % n] = 1
    out[o["phase"] + PHASES.index(game.phase)] = 1
    if game.phase == PHASE_KEEP_KILL and not game.is_over:
        out[o["keep_kill_pass"] + game.keep_kill_pass - 1] = 1
    if not game.is_over:
        out[o["to_move"] + (game.current_player - seat) % n] = 1
