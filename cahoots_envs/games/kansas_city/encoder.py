"""Kansas City observation encoder and its declared layout.

The encoder reads only what the observing seat may know (§4.5): its own cards, every hand's
rank profile (card backs), trump ranks, face-up plays, the set-aside card, tricks and 4s, scores
and its own passes; since v1 also the public history of the hand per seat (known voids, face
cards and trump ranks played, ranks passed, hand sizes), the last completed trick with its leader
and winner, and who leads next. An upgraded card appears by rank only, never by its printed face,
except in its owner's ``own_upgraded`` and ``played`` segments. With ``card_backs='hidden'`` the
others' ranks in hand and the ranks of passes between others are left out (all zero). The leak
test in ``tests/`` checks this on random games."""

from __future__ import annotations

from functools import cache

import numpy as np

from cahoots_envs.core.cards import write_bitfield
from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.core.spec import env_id_of
from cahoots_envs.games.kansas_city.rules import (
    DECK_SIZE,
    HAND_SIZE,
    MAX_HANDS,
    PHASE_PASS,
    PHASE_UPGRADE,
    PHASES,
    RANK_MASKS,
    RANKS,
    KansasCity,
    ranks_of,
)

ENV_ID = env_id_of(KansasCity)  # the spec's id: cahoots_envs/<NAME>-v<VERSION>
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
                    "rows: you, then the others clockwise (with `card_backs='hidden'` the others' "
                    "rows are zero)", high=7, shape=(n, RANKS)),
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
            Segment("phase", len(PHASES), "decision phase: pass, play, upgrade (one-hot; all zero "
                    "when the game is over)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
            Segment("passed", DECK_SIZE, "the cards you passed this hand (once chosen)"),
            Segment("received", DECK_SIZE, "the cards you received this hand (after the exchange)"),
            Segment("set_aside", DECK_SIZE, "the public set-aside card (5 players only)"),
            # v1: the public history of the hand, per relative seat, and who leads next
            Segment("voids", n * 7, "1 if that player is known to lack the suit A–G for the rest "
                    "of the hand: it failed to follow it this hand (K9); rows relative as above",
                    shape=(n, 7)),
            Segment("played_by", n * DECK_SIZE, "face-up cards each player played into completed "
                    f"tricks this hand, {CARD_DOC}; rows relative as above", shape=(n, DECK_SIZE)),
            Segment("trumps_played_by", n * RANKS, "upgraded trumps each player played into "
                    "completed tricks this hand, count per rank 1–8; rows relative as above",
                    high=7, shape=(n, RANKS)),
            Segment("passed_ranks", n * RANKS, "cards of each rank 1–8 each player passed this "
                    "hand (public backs; yours once chosen, the others' after the exchange; with "
                    "`card_backs='hidden'` only yours and your right neighbour's, whose cards you "
                    "received); rows relative as above", high=3, shape=(n, RANKS)),
            Segment("hand_size", n, "cards in each hand, upgraded trumps not counted; rows "
                    "relative as above", high=h),
            Segment("last_trick", n * (DECK_SIZE + RANKS), "the last completed trick (this hand's, "
                    "or the previous hand's until the first trick of this one is completed; all "
                    "zero before any): per relative seat the face card (56) or trump rank (8) it "
                    "played", shape=(n, DECK_SIZE + RANKS)),
            Segment("last_trick_leader", n, "relative seat that led the last completed trick "
                    "(one-hot)"),
            Segment("last_trick_winner", n, "relative seat that won the last completed trick "
                    "(one-hot)"),
            Segment("next_leader", n, "relative seat that leads the trick in progress or, in the "
                    "pass phase, the upgrade step and between tricks, the next trick (one-hot; all "
                    "zero when the game is over)"),
            Segment("hidden_backs", 1, "1 if `card_backs='hidden'` (the others' ranks in hand "
                    "and their passes are not shown)"),
        ),
    )


@cache
def _offsets(n: int) -> dict[str, int]:
    return dict(build_layout(n).offsets)


_SHIFTS = np.arange(RANKS, dtype=np.uint64)
_LANES = np.full(RANKS, 0x0101010101010101, dtype=np.uint64)  # one bit per suit byte
_TOP_BYTE = np.uint64(56)
_RANK_COLUMNS = np.array(RANK_MASKS, dtype=np.uint64)


def rank_counts_by_multiplying(masks: list[int]) -> np.ndarray:
    """Cards of each rank in each card set, shape ``(len(masks), 8)``: for rank r, shift the
    rank-r column (bit r of each suit byte) to bit 0 of each byte; multiplying by ``_LANES``
    sums the 7 bytes into the top byte (at most 7, no carry)."""
    column = np.array(masks, dtype=np.uint64)[:, None] >> _SHIFTS
    column &= _LANES
    column *= _LANES
    column >>= _TOP_BYTE
    return column


def rank_counts_by_popcount(masks: list[int]) -> np.ndarray:
    """The same, by counting the bits of each rank column (numpy 2's ``bitwise_count``)."""
    return np.bitwise_count(np.array(masks, dtype=np.uint64)[:, None] & _RANK_COLUMNS)  # type: ignore[no-any-return]


# the faster where numpy has it (numpy >= 2.0)
rank_counts = rank_counts_by_popcount if hasattr(np, "bitwise_count") else rank_counts_by_multiplying


def encode(game: KansasCity, seat: int, out: np.ndarray) -> None:
    """All 0/1 entries are ORed into one int at their offsets and unpacked at once; the few
    counts are written as slices afterwards."""
    n = game.num_players
    o = _offsets(n)
    hands, upgraded, pending, passed = game.hands, game.upgraded, game.pending_pass, game.passed
    hidden = game.hidden_backs
    field = hands[seat] << o["hand"] | upgraded[seat] << o["own_upgraded"]
    field |= (game.played | game.own_trumps_played[seat]) << o["played"]
    field |= (passed[seat] | pending[seat]) << o["passed"]
    field |= game.received[seat] << o["received"]
    if game.set_aside >= 0:
        field |= 1 << (o["set_aside"] + game.set_aside)
    tr, vo, pb = o["trump_ranks"], o["voids"], o["played_by"]
    own_trumps, voids, played_by = game.own_trumps_played, game.voids, game.played_by
    # card sets counted by rank: the hands shown, then the trumps played, then the passes shown
    counted = [0] * (3 * n)
    sizes = [0] * n
    for rel in range(n):
        s = (seat + rel) % n
        held = hands[s] | pending[s]
        sizes[rel] = held.bit_count()
        shown_pass = passed[s]
        if rel == 0:
            shown_pass |= pending[s]
        elif hidden:
            held = 0
            if rel != n - 1:  # the right neighbour passed to you: you know its cards
                shown_pass = 0
        counted[rel] = held
        counted[n + rel] = own_trumps[s]
        counted[2 * n + rel] = shown_pass
        field |= (ranks_of(upgraded[s]) << (tr + rel * RANKS) | voids[s] << (vo + rel * 7)
                  | played_by[s] << (pb + rel * DECK_SIZE))
    width = DECK_SIZE + RANKS
    if game.trick:
        t = o["trick"]
        for s, card, is_trump in game.trick:
            rel = (s - seat) % n
            field |= 1 << (t + rel * width + (DECK_SIZE + (card & 7) if is_trump else card))
        field |= 1 << (o["trick_leader"] + (game.trick[0][0] - seat) % n)
    if game.last_trick:
        t = o["last_trick"]
        for s, card, is_trump in game.last_trick:
            rel = (s - seat) % n
            field |= 1 << (t + rel * width + (DECK_SIZE + (card & 7) if is_trump else card))
        field |= 1 << (o["last_trick_leader"] + (game.last_trick[0][0] - seat) % n)
        field |= 1 << (o["last_trick_winner"] + (game.last_winner - seat) % n)
    field |= 1 << (o["hand_number"] + min(game.hand_number, game.hands_total - 1))
    field |= 1 << (o["hands_total"] + game.hands_total - 1)
    field |= 1 << (o["dealer"] + (game.dealer - seat) % n)
    if not game.is_over:
        phase = game.phase
        field |= 1 << (o["phase"] + PHASES.index(phase))
        field |= 1 << (o["to_move"] + (game.current_player - seat) % n)
        if phase == PHASE_UPGRADE:
            leader = game.trick_leader_next
        elif phase == PHASE_PASS:
            leader = (game.dealer + 1) % n
        else:
            leader = game.trick[0][0] if game.trick else game.current_player
        field |= 1 << (o["next_leader"] + (leader - seat) % n)
    if hidden:
        field |= 1 << o["hidden_backs"]
    write_bitfield(out, field)
    counts = rank_counts(counted)
    hr = o["hand_ranks"]
    out[hr : hr + n * RANKS] = counts[:n].ravel()
    # trumps_played_by, passed_ranks and hand_size are adjacent segments
    tpb = o["trumps_played_by"]
    out[tpb : tpb + 2 * n * RANKS] = counts[n:].ravel()
    hs = o["hand_size"]
    out[hs : hs + n] = sizes
    tp = o["trumps_played"]
    out[tp : tp + RANKS] = game.trumps_played
    # tricks_won, fours_captured and scores are adjacent segments: one write
    tricks, fours, scores = game.tricks_won, game.fours_captured, game.scores
    order = [(seat + rel) % n for rel in range(n)]
    tw = o["tricks_won"]
    out[tw : tw + 3 * n] = (
        [tricks[s] for s in order] + [fours[s] for s in order] + [scores[s] / 100.0 for s in order]
    )
