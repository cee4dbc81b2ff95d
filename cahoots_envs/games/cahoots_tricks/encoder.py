"""Cahoots (competitive) observation encoder, its declared layout, and the ansi render.

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
    HAND_SIZE,
    NUM_TYPES,
    PHASE_KEEP_KILL,
    PHASES,
    SUITS,
    TRICKS,
    card_str,
    zone_types,
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
    return Layout(
        ENV_ID,
        (
            Segment("hand", NUM_TYPES, f"own hand, {CARD_DOC}", high=2),
            Segment("identities", n * NUM_SUITS, "suits on each identity card (S H D C U R), "
                    "rows: you, then the others clockwise", shape=(n, NUM_SUITS)),
            Segment("trick_plays", n * 2 * NUM_TYPES, "current trick: per relative seat, the card "
                    "it played in lap 1 and in lap 2 (one-hot by card)", shape=(n, 2, NUM_TYPES)),
            Segment("suit_totals", NUM_SUITS, "running total of each suit in the trick / 48"),
            Segment("winning_suits", NUM_SUITS, "suits with the highest total so far (the "
                    "winning suits once the trick is played out)"),
            Segment("scoring_winners", n, "relative seats with the most winning suits on their "
                    "identity card: who would score if the trick ended now"),
            Segment("trick_pool", NUM_TYPES, f"trick cards not yet picked in keep/kill, {CARD_DOC}",
                    high=2),
            Segment("trick_picks", n * 2 * NUM_TYPES, "this trick's keep/kill picks (public): per "
                    "relative seat, the card kept and the card killed", shape=(n, 2, NUM_TYPES)),
            Segment("point_pool", NUM_TYPES, f"point cards still to draft (face-value draft), "
                    f"{CARD_DOC}", high=2),
            Segment("played", NUM_TYPES, "times each card was played this game (kept cards "
                    "can be played again)", high=2 * TRICKS),
            Segment("killed", NUM_TYPES, f"cards killed this game, {CARD_DOC}", high=2),
            Segment("reserve_drawn", NUM_TYPES, "reserve cards added to point cards "
                    "(3 players)", high=1),
            Segment("kept", n * NUM_TYPES, "times each relative seat kept each card this game",
                    high=TRICKS, shape=(n, NUM_TYPES)),
            Segment("known_hands", n * NUM_TYPES, "cards each relative seat kept and has not "
                    "played since: publicly known to be in its hand", high=2, shape=(n, NUM_TYPES)),
            Segment("unseen", NUM_TYPES, "cards in the other hands that you cannot see "
                    "(not known from keeps)", high=2),
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
    return dict(build_layout(n).offsets)


def _add_counts(out: np.ndarray, offset: int, zone: int, sign: float = 1.0) -> None:
    while zone:
        low = zone & -zone
        out[offset + ((low.bit_length() - 1) >> 1)] += sign
        zone ^= low


def encode(game: CahootsTricks, seat: int, out: np.ndarray) -> None:
    n = game.num_players
    o = _offsets(n)
    _add_counts(out, o["hand"], game.hands[seat])
    ident, kept, known, sizes, scores = (
        o["identities"], o["kept"], o["known_hands"], o["hand_sizes"], o["scores"]
    )
    unseen = o["unseen"]
    scale = GAME_POINTS[game.face_value]
    for rel in range(n):
        s = (seat + rel) % n
        suits = game.identity_suits[s]
        for k in range(NUM_SUITS):
            if suits >> k & 1:
                out[ident + rel * NUM_SUITS + k] = 1
        row = game.kept_count[s]
        base = kept + rel * NUM_TYPES
        for t in range(NUM_TYPES):
            if row[t]:
                out[base + t] = row[t]
        _add_counts(out, known + rel * NUM_TYPES, game.known[s])
        out[sizes + rel] = game.hands[s].bit_count() / HAND_SIZE
        out[scores + rel] = game.scores[s] / scale
        if rel:
            _add_counts(out, unseen, game.hands[s])
            _add_counts(out, unseen, game.known[s], -1.0)
    if game.trick:
        tp = o["trick_plays"]
        for i, (s, t) in enumerate(game.trick):
            lap = 0 if i < n else 1
            out[tp + ((s - seat) % n * 2 + lap) * NUM_TYPES + t] = 1
        st = o["suit_totals"]
        for k in range(NUM_SUITS):
            out[st + k] = game.suit_totals[k] / SUIT_TOTAL_SCALE
        if game.phase == PHASE_KEEP_KILL or game.winners:
            won, winners = game.winning_suits, game.winners
        else:
            won, winners = game.leaders()
        for k in range(NUM_SUITS):
            if won >> k & 1:
                out[o["winning_suits"] + k] = 1
        for w in winners:
            out[o["scoring_winners"] + (w - seat) % n] = 1
    _add_counts(out, o["trick_pool"], game.trick_pool)
    picks = o["trick_picks"]
    for s in range(n):
        rel = (s - seat) % n
        if game.kept_now[s] >= 0:
            out[picks + rel * 2 * NUM_TYPES + game.kept_now[s]] = 1
        if game.killed_now[s] >= 0:
            out[picks + (rel * 2 + 1) * NUM_TYPES + game.killed_now[s]] = 1
    _add_counts(out, o["point_pool"], game.point_pool)
    played = o["played"]
    for t in range(NUM_TYPES):
        if game.played_count[t]:
            out[played + t] = game.played_count[t]
    _add_counts(out, o["killed"], game.killed)
    _add_counts(out, o["reserve_drawn"], game.reserve_drawn)
    out[o["trick_number"] + game.trick_number - 1] = 1
    out[o["start_player"] + (game.start_player - seat) % n] = 1
    out[o["phase"] + PHASES.index(game.phase)] = 1
    if game.phase == PHASE_KEEP_KILL and not game.is_over:
        out[o["keep_kill_pass"] + game.keep_kill_pass - 1] = 1
    if not game.is_over:
        out[o["to_move"] + (game.current_player - seat) % n] = 1


def _cards(zone: int) -> str:
    return " ".join(card_str(t) for t in zone_types(zone)) or "-"


def render(game: CahootsTricks) -> str:
    """A table in the notation (spectator view: every hand is shown)."""
    n = game.num_players
    if game.is_over:
        head = f"Cahoots — game over after {TRICKS} tricks"
    else:
        head = (
            f"Cahoots — trick {game.trick_number} of {TRICKS}, phase {game.phase}"
            + (f" (pass {game.keep_kill_pass})" if game.phase == PHASE_KEEP_KILL else "")
            + f", start player player_{game.start_player}"
        )
    lines = [head, f"{'seat':<10} {'score':>6} identity  hand"]
    for s in range(n):
        mark = "*" if s == game.current_player else " "
        ident = "".join(SUITS[k] for k in range(NUM_SUITS) if game.identity_suits[s] >> k & 1)
        lines.append(f"player_{s}{mark:<2}{game.scores[s]:>6.4g} {ident:<9} {_cards(game.hands[s])}")
    if game.trick:
        lines.append("trick: " + ", ".join(f"player_{s} {card_str(t)}" for s, t in game.trick))
        lines.append(
            "suit totals: " + " ".join(f"{SUITS[k]}={game.suit_totals[k]}" for k in range(NUM_SUITS))
        )
    picks = [
        f"player_{s} keep {card_str(game.kept_now[s]) if game.kept_now[s] >= 0 else '-'}"
        f" kill {card_str(game.killed_now[s]) if game.killed_now[s] >= 0 else '-'}"
        for s in range(n)
        if game.kept_now[s] >= 0 or game.killed_now[s] >= 0
    ]
    if picks and not game.is_over:
        lines.append("picks: " + "; ".join(picks))
    if game.point_pool:
        lines.append(f"point cards to draft: {_cards(game.point_pool)}")
    if game.last_result:
        lines.append(f"last trick {game.last_result}")
    if n == 3:
        lines.append(f"reserve: {len(game.reserve)} face down; drawn {_cards(game.reserve_drawn)}")
    lines.append("(cards: value 4-8 + suit S spades, H hearts, D diamonds, C clubs, U cups, R stars)")
    return "\n".join(lines)
