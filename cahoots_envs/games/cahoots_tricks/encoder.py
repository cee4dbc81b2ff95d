"""Cahoots (competitive) observation encoder and its declared layout.

The encoder reads only what the observing seat may know (A6): its own hand, and everything that
is public — identity cards, the cards played with who played them, every keep/kill pick (the
cards are taken openly, only the status is face down), point cards, the reserve cards added to
point cards, scores, hand sizes. Other hands appear only through what was publicly kept into
them and not played since (``known_hands``) and as the count of unseen cards per type. The
reserve's order never appears. The leak test in ``tests/`` checks this on random games.

v1 adds every seat's plays and kills over the game (``played_by``, ``killed_by``) and the last
completed trick (``last_trick_*``); see the doc page (env.py) for the rationale.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.core.spec import env_id_of
from cahoots_envs.games.cahoots_tricks.rules import (
    EVEN_BITS,
    HAND_SIZE,
    IDENTITY_MASKS,
    NUM_TYPES,
    PHASE_KEEP_KILL,
    PHASE_PLAY,
    PHASES,
    SUITS,
    TRICKS,
    CahootsTricks,
)

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_tricks.rules import CompletedTrick

ENV_ID = env_id_of(CahootsTricks)  # the spec's id: cahoots_envs/<NAME>-v<VERSION>
CARD_DOC = "count per card, index `suit*5 + value-4`, suits S H D C U R"
NUM_SUITS = len(SUITS)
SUIT_TOTAL_SCALE = 48.0  # all eight cards of one suit add up to 48 (§2.1)
GAME_POINTS = {False: 44.0, True: 288.0}  # points handed out in a game: cards / face value
# the most points one trick gives one seat, in thirds: 4 cards, worth 4 or up to 4 × 8
TRICK_THIRDS = {False: 3.0 * 4, True: 3.0 * 32}


@cache
def build_layout(n: int) -> Layout:
    # the count-by-card blocks come first and in this order, and some segments must stay
    # adjacent: encode() writes them as slices (_offsets checks it)
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
            Segment("played_by", n * NUM_TYPES, "times each relative seat played each card this "
                    "game (0–22: 2 plays a trick, 11 tricks)", high=2 * TRICKS,
                    shape=(n, NUM_TYPES)),
            Segment("killed_by", n * NUM_TYPES, "cards each relative seat killed this game (a "
                    "killed card leaves play, so 0–2 copies)", high=2, shape=(n, NUM_TYPES)),
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
            Segment("last_trick_plays", n * 2 * NUM_TYPES, "last completed trick: per relative "
                    "seat, the card it played in lap 1 and in lap 2 (one-hot by card; all zero "
                    "before the first trick ends)", shape=(n, 2, NUM_TYPES)),
            Segment("last_trick_picks", n * 2 * NUM_TYPES, "last completed trick's keep/kill "
                    "picks: per relative seat, the card kept and the card killed (one-hot)",
                    shape=(n, 2, NUM_TYPES)),
            Segment("last_trick_winning_suits", NUM_SUITS, "the last completed trick's winning "
                    "suits (S H D C U R)"),
            Segment("last_trick_scoring_winners", n, "relative seats that scored the last "
                    "completed trick"),
            Segment("last_trick_points", n, "points each relative seat got from the last "
                    "completed trick / the most a trick can give (4; 32 with face value)"),
            Segment("hand_sizes", n, "cards in hand per relative seat / 12"),
            Segment("scores", n, "score per relative seat / the game's points "
                    "(44; 288 with face value)"),
            Segment("trick_number", TRICKS, "the current trick, 1–11 (one-hot)"),
            Segment("start_player", n, "relative seat of the start player (one-hot)"),
            Segment("phase", len(PHASES), "decision phase: play, keep_kill, draft (one-hot; all "
                    "zero when the game is over)"),
            Segment("keep_kill_pass", 2, "keep/kill pass 1 or 2 (one-hot, during keep/kill)"),
            Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
        ),
    )


@cache
def _offsets(n: int) -> dict[str, int]:
    offsets = dict(build_layout(n).offsets)
    # encode() writes hand .. known_hands, played .. killed_by and last_trick_plays ..
    # last_trick_points as contiguous slices
    assert offsets["known_hands"] == 6 * NUM_TYPES and offsets["kept"] == offsets["played"] + NUM_TYPES
    assert offsets["killed_by"] == offsets["played"] + (1 + 2 * n) * NUM_TYPES
    names = [seg.name for seg in build_layout(n).segments]
    at = names.index("last_trick_plays")
    assert names[at : at + 6] == ["last_trick_plays", "last_trick_picks", "last_trick_winning_suits",
                                  "last_trick_scoring_winners", "last_trick_points", "hand_sizes"]
    return offsets


# a type's 2-bit field -> its count: zones hold counts in unary (01 one, 11 two), `unseen` is
# computed in binary (01 one, 10 two); the two never clash
COUNT_OF_FIELD = (0, 1, 2, 2)
# byte -> the counts of its four 2-bit fields
FIELDS_OF_BYTE = np.array(
    [[COUNT_OF_FIELD[(b >> (2 * k)) & 3] for k in range(4)] for b in range(256)], np.float32
)


@cache
def _identity_rows(identities: tuple[int, ...], seat: int) -> np.ndarray:
    n = len(identities)
    rows = np.zeros((n, NUM_SUITS), np.float32)
    for rel in range(n):
        mask = IDENTITY_MASKS[identities[(seat + rel) % n]]
        for k in range(NUM_SUITS):
            rows[rel, k] = mask >> k & 1
    return rows.ravel()


def _trick_ones(
    trick: Sequence[tuple[int, int]], kept: Sequence[int], killed: Sequence[int], seat: int,
    n: int, plays_at: int, picks_at: int,
) -> list[int]:
    """Where one trick's plays (per relative seat and lap) and keep/kill picks put a 1."""
    ones = [plays_at + ((s - seat) % n * 2 + (i >= n)) * NUM_TYPES + t
            for i, (s, t) in enumerate(trick)]
    for s in range(n):
        row = picks_at + (s - seat) % n * 2 * NUM_TYPES
        if kept[s] >= 0:
            ones.append(row + kept[s])
        if killed[s] >= 0:
            ones.append(row + NUM_TYPES + killed[s])
    return ones


@lru_cache(maxsize=512)
def _last_trick(last: CompletedTrick, face_value: bool) -> np.ndarray:
    """The segments last_trick_plays .. last_trick_points (adjacent) as seat 0 sees them;
    ``_turn`` gives the order in which another seat sees them. Cached by the identity of
    ``last`` (which is never changed), so made once per trick."""
    n = len(last.kept)
    o = _offsets(n)
    at = o["last_trick_plays"]
    block = np.zeros(o["hand_sizes"] - at, np.float32)
    ones = _trick_ones(last.plays, last.kept, last.killed, 0, n, 0, o["last_trick_picks"] - at)
    ones += [o["last_trick_winning_suits"] - at + k for k in range(NUM_SUITS)
             if last.winning_suits >> k & 1]
    ones += [o["last_trick_scoring_winners"] - at + w for w in last.winners]
    block[ones] = 1
    lp = o["last_trick_points"] - at
    block[lp : lp + n] = [points / TRICK_THIRDS[face_value] for points in last.points]
    block.flags.writeable = False
    return block


@cache
def _turn(n: int, seat: int) -> np.ndarray:
    """Where each entry of ``seat``'s last_trick_plays .. last_trick_points comes from in
    seat 0's: the per-seat rows turned so that ``seat``'s comes first."""
    o = _offsets(n)
    at = o["last_trick_plays"]
    index = np.arange(o["hand_sizes"] - at)
    row = 2 * NUM_TYPES
    for name, width in (("last_trick_plays", row), ("last_trick_picks", row),
                        ("last_trick_scoring_winners", 1), ("last_trick_points", 1)):
        start = o[name] - at
        for rel in range(n):
            src = start + (seat + rel) % n * width
            index[start + rel * width : start + (rel + 1) * width] = np.arange(src, src + width)
    return index


@lru_cache(maxsize=2048)
def _last_trick_seen(last: CompletedTrick, seat: int, face_value: bool) -> np.ndarray:
    """last_trick_plays .. last_trick_points as ``seat`` sees them (cached, as above: a slice
    copy per observation instead of building them again)."""
    block = _last_trick(last, face_value)[_turn(len(last.kept), seat)]
    block.flags.writeable = False
    return block


def encode(game: CahootsTricks, seat: int, out: np.ndarray) -> None:
    n = game.num_players
    o = _offsets(n)
    order = [(seat + rel) % n for rel in range(n)]
    # the count blocks hand .. known_hands, converted in one go; the unseen cards are the other
    # hands less what is known of them, as binary counts (no field ever borrows or carries)
    hands, known = game.hands, game.known
    unseen = 0
    for s in order[1:]:
        h, k = hands[s], known[s]
        unseen += (h & EVEN_BITS) + (h >> 1 & EVEN_BITS) - (k & EVEN_BITS) - (k >> 1 & EVEN_BITS)
    zones = [hands[seat], game.trick_pool, game.point_pool, game.killed, game.reserve_drawn,
             unseen] + [known[s] for s in order]
    raw = np.frombuffer(b"".join(z.to_bytes(8, "little") for z in zones), np.uint8)
    counts = FIELDS_OF_BYTE[raw].reshape(len(zones), 32)[:, :NUM_TYPES]
    out[: len(zones) * NUM_TYPES] = counts.ravel()
    # the tallies played, kept, played_by, killed_by: one byte per type, copied as they are,
    # the per-seat rows turned so that the observer's row comes first
    rows = game.tallies.to_bytes(NUM_TYPES * (3 * n + 1), "little")
    a, cut = NUM_TYPES, NUM_TYPES * seat
    b, c = a + NUM_TYPES * n, a + 2 * NUM_TYPES * n
    start = o["played"]
    out[start : start + (3 * n + 1) * NUM_TYPES] = np.frombuffer(
        rows[:a] + rows[a + cut : b] + rows[a : a + cut] + rows[b + cut : c] + rows[b : b + cut]
        + rows[c + cut :] + rows[c : c + cut],
        np.uint8,
    )
    out[o["identities"] : o["identities"] + n * NUM_SUITS] = _identity_rows(tuple(game.identities), seat)
    out[o["hand_sizes"] : o["hand_sizes"] + n] = [game.hands[s].bit_count() / HAND_SIZE for s in order]
    scale = GAME_POINTS[game.face_value]
    out[o["scores"] : o["scores"] + n] = [game.scores[s] / scale for s in order]
    # the 0/1 entries: their indices are gathered and written at once
    if game.phase == PHASE_PLAY and not game.is_over:  # no keep/kill picks yet
        tp = o["trick_plays"]
        ones = [tp + ((s - seat) % n * 2 + (i >= n)) * NUM_TYPES + t
                for i, (s, t) in enumerate(game.trick)]
    else:
        ones = _trick_ones(game.trick, game.kept_now, game.killed_now, seat, n,
                           o["trick_plays"], o["trick_picks"])
    if game.trick:
        st = o["suit_totals"]
        out[st : st + NUM_SUITS] = [total / SUIT_TOTAL_SCALE for total in game.suit_totals]
        if game.phase == PHASE_KEEP_KILL or game.winners:
            won, winners = game.winning_suits, game.winners
        else:
            won, winners = game.leaders()
        ones += [o["winning_suits"] + k for k in range(NUM_SUITS) if won >> k & 1]
        ones += [o["scoring_winners"] + (w - seat) % n for w in winners]
    ones.append(o["trick_number"] + game.trick_number - 1)
    ones.append(o["start_player"] + (game.start_player - seat) % n)
    if not game.is_over:
        phase = game.phase
        ones.append(o["phase"] + PHASES.index(phase))
        if phase == PHASE_KEEP_KILL:
            ones.append(o["keep_kill_pass"] + game.keep_kill_pass - 1)
        ones.append(o["to_move"] + (game.current_player - seat) % n)
    out[ones] = 1
    if game.last_trick is not None:
        out[o["last_trick_plays"] : o["hand_sizes"]] = _last_trick_seen(
            game.last_trick, seat, game.face_value)
