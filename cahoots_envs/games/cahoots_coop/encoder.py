"""Cahoots (cooperative) observation encoder and its declared layout.

The encoder reads only what the observing seat may know (§1.7): its own hand (every hand with
``open_hands``), the piles (tops and every covered card), the visible and completed goals, the
sizes of the draw pile, the goal deck and the hands, and the public play history (each seat's
last two plays, every card each seat has played, the goals each seat completed). Each visible
goal is described by its parameters (family, colours, target, shapes) as well as its id, so a
policy can generalise across goals. The draw pile's order, the other hands and which goals are in
the goal deck never appear.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.core.spec import env_id_of
from cahoots_envs.games.cahoots_coop.goals import FAMILIES, SHAPES, Goal
from cahoots_envs.games.cahoots_coop.rules import (
    DECK_SIZE,
    GOALS,
    HAND_SIZE,
    KINDS,
    MATCHES,
    NUM_GOAL_CARDS,
    NUMBERS,
    PILES,
    VOCABULARIES,
    CahootsCoop,
)

ENV_ID = env_id_of(CahootsCoop)  # the spec's id: cahoots_envs/<NAME>-v<VERSION>
CARD_DOC = "index `colour*7 + number-1`, colours G, O, P, V"
MAX_DRAW_PILE = DECK_SIZE - PILES - HAND_SIZE  # 48, with one player

# the features of one visible goal: (name, width, meaning)
GOAL_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("present", 1, "1 if this slot holds a goal"),
    ("family", len(FAMILIES), "one-hot: " + ", ".join(FAMILIES)),
    ("colours", 4, "colours named by the goal (green, orange, pink, purple)"),
    ("ratio_first", 4, "`ratio`: the colour X of `factor * sum(X) == sum(Y)`"),
    ("count", 1, "`colour_count`: the exact number of piles / 4"),
    ("total", 1, "`sum`: the target total / 28"),
    ("factor", 1, "`ratio`: the factor / 2 (0.5 equal, 1 half)"),
    ("numbers", NUMBERS, "`numbers`: the allowed numbers 1–7"),
    ("colour_shape", len(SHAPES), "`pattern`: colour multiplicities one-hot: 4, 3+1, 2+2, 2+1+1, 1+1+1+1"),
    ("number_shape", len(SHAPES), "`pattern`: number multiplicities one-hot, as above"),
    ("consecutive", 1, "`pattern`: the numbers must form a run"),
    ("id", NUM_GOAL_CARDS, "the goal's id, one-hot in the order of §1.9"),
)
GOAL_WIDTH = sum(width for _, width, _ in GOAL_FIELDS)
GOAL_FIELD_OFFSETS: dict[str, int] = {}
_at = 0
for _name, _width, _ in GOAL_FIELDS:
    GOAL_FIELD_OFFSETS[_name] = _at
    _at += _width


def goal_features(goal: Goal, index: int) -> np.ndarray:
    """The ``GOAL_FIELDS`` vector of one goal card."""
    f = np.zeros(GOAL_WIDTH, np.float32)
    o = GOAL_FIELD_OFFSETS
    f[o["present"]] = 1
    f[o["family"] + FAMILIES.index(goal.family)] = 1
    for c in goal.colours:
        f[o["colours"] + c] = 1
    if goal.family == "ratio":
        f[o["ratio_first"] + goal.colours[0]] = 1
        f[o["factor"]] = goal.factor / 2
    f[o["count"]] = goal.count / 4
    f[o["total"]] = goal.total / 28
    for number in goal.numbers:
        f[o["numbers"] + number - 1] = 1
    if goal.colour_shape is not None:
        f[o["colour_shape"] + SHAPES.index(goal.colour_shape)] = 1
    if goal.number_shape is not None:
        f[o["number_shape"] + SHAPES.index(goal.number_shape)] = 1
    f[o["consecutive"]] = float(goal.consecutive)
    f[o["id"] + index] = 1
    return f


GOAL_FEATURES = np.stack([goal_features(g, i) for i, g in enumerate(GOALS)])


# the features of one play in the `plays` window: (name, width, meaning)
PLAY_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("present", 1, "1 if this slot holds a play"),
    ("card", KINDS, "the card played, one-hot by kind"),
    ("pile", PILES, "the pile it went on (0–3), one-hot"),
    ("covered", KINDS, "the card it covered (the pile's top before the play), one-hot by kind"),
    ("completed", 1, "1 if the play completed a goal (which: `completed_by`, `last_completed`)"),
)
PLAY_WIDTH = sum(width for _, width, _ in PLAY_FIELDS)
PLAY_FIELD_OFFSETS: dict[str, int] = {}
_at = 0
for _name, _width, _ in PLAY_FIELDS:
    PLAY_FIELD_OFFSETS[_name] = _at
    _at += _width
PLAYS_PER_SEAT = 2  # the window: each seat's last two plays, i.e. the last two laps
_CARD_AT = PLAY_FIELD_OFFSETS["card"]
_PILE_AT = PLAY_FIELD_OFFSETS["pile"]
_COVERED_AT = PLAY_FIELD_OFFSETS["covered"]
_COMPLETED_AT = PLAY_FIELD_OFFSETS["completed"]
# each goal's row as the bits of its 1 entries, and its one fraction (offset, value) if any
GOAL_BITS = [sum(1 << int(i) for i in np.flatnonzero(row == 1)) for row in GOAL_FEATURES]
GOAL_FRACTION: list[tuple[int, float] | None] = []
for _row in GOAL_FEATURES:
    _fractions = [(int(i), float(_row[i])) for i in np.flatnonzero((_row > 0) & (_row < 1))]
    assert len(_fractions) <= 1  # count, total or factor: one per goal family at most
    GOAL_FRACTION.append(_fractions[0] if _fractions else None)
# a play's bits within its `plays` slot by ``(kind * 4 + pile) * 28 + covered``: one that
# completed no goal, and one that did
PLAY_BITS = [
    1 | 1 << (_CARD_AT + k) | 1 << (_PILE_AT + p) | 1 << (_COVERED_AT + c)
    for k in range(KINDS) for p in range(PILES) for c in range(KINDS)
]
PLAY_BITS_DONE = [bits | 1 << _COMPLETED_AT for bits in PLAY_BITS]
# the index of the satisfied table is ``sum(tops[p] * PLACE[p])``
PLACE = (KINDS**3, KINDS**2, KINDS, 1)


# the features of one talk decision in the `signals` window: (name, width, meaning); the word's
# width is that of the vocabulary (say nothing first)
SIGNALS_PER_SEAT = 2  # the window: each seat's last two talk decisions, i.e. the last two laps
MAX_PLAYS = DECK_SIZE - PILES  # 52


def signal_fields(talk: str) -> tuple[tuple[str, int, str], ...]:
    words = ["say nothing"] + [word for word, _ in VOCABULARIES[talk]]
    return (
        ("present", 1, "1 if this slot holds a talk decision"),
        ("word", len(words), "one-hot: " + ", ".join(f"`{w}`" for w in words)),
        ("pile", PILES, "the pile it names (0–3), one-hot"),
        ("goal", NUM_GOAL_CARDS, "the goal it names, one-hot by id in the order of §1.9"),
        ("age", 1, f"plays made since it / {MAX_PLAYS}"),
    )


def signal_width(talk: str) -> int:
    return sum(width for _, width, _ in signal_fields(talk))


def layout_for_options(options: Mapping[str, Any]) -> Layout:
    """The layout under ``options``: ``build_layout`` with the talk segments when talk is on."""
    return build_layout(options["num_players"], options.get("talk", "none"))


@cache
def build_layout(n: int, talk: str = "none") -> Layout:
    segments = [Segment("hand", KINDS, f"own cards, count per kind (two copies), {CARD_DOC}", high=2)]
    if n > 1:
        segments.append(Segment(
            "other_hands", (n - 1) * KINDS, "with `open_hands`: the others' cards, count per "
            "kind, rows: the next player clockwise first (all zero when hands are hidden)",
            high=2, shape=(n - 1, KINDS),
        ))
    segments += [
        Segment("hand_sizes", n, "cards in each hand, rows: you, then the others clockwise",
                high=HAND_SIZE),
        Segment("tops", PILES * KINDS, "top card of piles 0–3, one-hot per pile by kind",
                shape=(PILES, KINDS)),
        Segment("played", KINDS, "every card on the piles (tops and covered), count per kind",
                high=2),
        Segment("draw_pile", 1, f"cards in the draw pile / {MAX_DRAW_PILE}"),
        Segment("my_plays", KINDS * PILES, "1 where a card of your hand may go on that pile now "
                "(indexed like the actions: `kind*4 + pile`), on your turn or not",
                shape=(KINDS, PILES)),
        Segment("play_completes", KINDS * PILES, "for each of those plays, the visible goals it "
                "would complete at once / 4 (before replacements are turned up)",
                shape=(KINDS, PILES)),
        Segment("goals", PILES * GOAL_WIDTH, f"the visible goals, {GOAL_WIDTH} features per "
                "slot (table below); all zero for an empty slot", shape=(PILES, GOAL_WIDTH)),
        Segment("completed", NUM_GOAL_CARDS, "goals completed so far (setup included), by id"),
        Segment("goal_counts", 4, f"goals completed, goals remaining, goals in the goal deck, "
                f"goals in the game; each / {NUM_GOAL_CARDS}"),
        Segment("to_move", n, "relative seat to move (one-hot; all zero when the game is over)"),
        Segment("rules", 2, "1 if `open_hands`; 1 if `multicolour_mode='disjunctive'`"),
        Segment("plays", n * PLAYS_PER_SEAT * PLAY_WIDTH, f"the last {PLAYS_PER_SEAT} plays of "
                f"each seat (the last {PLAYS_PER_SEAT} laps), rows: you, then the others "
                f"clockwise; per row its latest play first, {PLAY_WIDTH} features per play "
                "(table below); all zero for a play not yet made",
                shape=(n, PLAYS_PER_SEAT, PLAY_WIDTH)),
        Segment("played_by", n * KINDS, "every card each seat has played this game, count per "
                "kind, rows: you, then the others clockwise", high=2, shape=(n, KINDS)),
        Segment("completed_by", n * NUM_GOAL_CARDS, "the goals each seat's plays completed, by "
                "id, rows: you, then the others clockwise (goals met at setup are in no row)",
                shape=(n, NUM_GOAL_CARDS)),
        Segment("last_completed", NUM_GOAL_CARDS, "the goals the latest play completed, by id "
                "(before the first play: the goals met at setup)"),
    ]
    if talk != "none":  # after every segment of the game without talk, which keep their offsets
        width = signal_width(talk)
        segments += [
            Segment("talk_phase", 1, "1 while the seat to move makes its talk decision (after "
                    "its play); 0 when a card is to be played"),
            Segment("signals", n * SIGNALS_PER_SEAT * width, f"the last {SIGNALS_PER_SEAT} talk "
                    f"decisions of each seat, rows: you, then the others clockwise; per row "
                    f"its latest first, {width} features each (table below); all zero for one "
                    "not yet made", shape=(n, SIGNALS_PER_SEAT, width)),
        ]
    return Layout(ENV_ID, tuple(segments))


@cache
def _offsets(n: int) -> tuple[Any, ...]:
    """What ``encode`` needs for ``n`` players: the segment offsets, the layout's size and its
    size in bytes, and by observing seat: where each seat's `plays` row starts (relative to
    `plays`), and how to rotate the (seat, kind) and (seat, goal) bit sets to the observer."""
    layout = build_layout(n)
    o = layout.offsets
    assert o["hand"] == 0 and o["rules"] == o["to_move"] + n  # as `encode` assumes
    rows = [[(s - seat) % n * PLAYS_PER_SEAT * PLAY_WIDTH for s in range(n)] for seat in range(n)]
    rotations = [(seat * width, (1 << seat * width) - 1, (n - seat) * width)
                 for width in (KINDS, NUM_GOAL_CARDS) for seat in range(n)]
    return (*(o.get(name, -1) for name in (
        "hand", "other_hands", "hand_sizes", "tops", "played", "draw_pile", "my_plays",
        "play_completes", "goals", "completed", "goal_counts", "to_move", "plays", "played_by",
        "completed_by", "last_completed",
    )), layout.size, (layout.size + 7) // 8, rows, rotations[:n], rotations[n:])


def encode(game: CahootsCoop, seat: int, out: np.ndarray) -> None:
    """Every 0/1 entry is ORed into one int at its offset and unpacked at once (one C-level
    write of the whole buffer); the counts and fractions are written over it afterwards. The
    bits are gathered in a few small ints, one per run of adjacent segments, each shifted into
    place once (operations on the whole, long int cost more)."""
    n = game.num_players
    h, oh, hs, t, played, dp, mp, pc, g, c, gc, tm, pl, pb, cb, lc, size, nbytes, rows, kinds_rot, \
        goals_rot = _offsets(n)
    hands = game.hands
    t0, t1, t2, t3 = game.tops
    # `hand` .. `tops` (`hand` is at 0)
    head = 1 << (t + t0) | 1 << (t + KINDS + t1) | 1 << (t + 2 * KINDS + t2) \
        | 1 << (t + 3 * KINDS + t3)
    # `goals` .. `rules`, relative to `goals`
    visible = block = 0
    fractions: list[tuple[int, float]] = []
    for slot, goal in enumerate(game.visible):
        if goal >= 0:
            visible |= 1 << goal
            at = slot * GOAL_WIDTH
            block |= GOAL_BITS[goal] << at
            fraction = GOAL_FRACTION[goal]
            if fraction is not None:
                fractions.append((g + at + fraction[0], fraction[1]))
    completed = 0
    for goal in game.completed:
        completed |= 1 << goal
    flags = 0  # `to_move` and `rules`, relative to `to_move`
    if not game.is_over:
        flags = 1 << (game.current_player - seat) % n
    if game.open_hands:
        flags |= 1 << n
    if game.mode == "disjunctive":
        flags |= 2 << n
    block |= (completed | flags << (tm - c)) << (c - g)
    # own hand (the second card of a kind is written as 2 after the unpack); `my_plays`: where
    # each own card fits now; `play_completes`: how many visible goals each such play completes
    table = game.satisfied
    c0 = t1 * PLACE[1] + t2 * KINDS + t3  # the table index of the tops but pile p, for each p
    c1 = t0 * PLACE[0] + t2 * KINDS + t3
    c2 = t0 * PLACE[0] + t1 * PLACE[1] + t3
    c3 = t0 * PLACE[0] + t1 * PLACE[1] + t2 * KINDS
    fits = 0
    doubles: list[int] = []
    previous = -1
    for k in hands[seat]:
        if k == previous:
            doubles.append(h + k)
            continue
        previous = k
        head |= 1 << k
        matches = MATCHES[k]
        base = k * PILES
        if matches >> t0 & 1:
            fits |= 1 << base
            done = table[c0 + k * PLACE[0]] & visible
            if done:
                fractions.append((pc + base, done.bit_count() / PILES))
        if matches >> t1 & 1:
            fits |= 2 << base
            done = table[c1 + k * PLACE[1]] & visible
            if done:
                fractions.append((pc + base + 1, done.bit_count() / PILES))
        if matches >> t2 & 1:
            fits |= 4 << base
            done = table[c2 + k * KINDS] & visible
            if done:
                fractions.append((pc + base + 2, done.bit_count() / PILES))
        if matches >> t3 & 1:
            fits |= 8 << base
            done = table[c3 + k] & visible
            if done:
                fractions.append((pc + base + 3, done.bit_count() / PILES))
    # `plays` .. `last_completed`, relative to `plays`
    plays = game.plays
    if plays:
        tail = plays[-1][4] << (lc - pl)
        # plays go strictly clockwise, so the last n plays are each seat's latest, the n
        # before them each seat's previous one
        row = rows[seat]
        for s, kind, pile, covered, goals in plays[-n:]:
            tail |= (PLAY_BITS_DONE if goals else PLAY_BITS)[(kind * PILES + pile) * KINDS + covered] \
                << row[s]
        for s, kind, pile, covered, goals in plays[-PLAYS_PER_SEAT * n : -n]:
            tail |= (PLAY_BITS_DONE if goals else PLAY_BITS)[(kind * PILES + pile) * KINDS + covered] \
                << (row[s] + PLAY_WIDTH)
        # the (seat, kind) and (seat, goal) bit sets, rotated so that the observer's row is first
        width, low, back = kinds_rot[seat]
        bits = game.played_by
        twice = bits >> n * KINDS
        bits &= (1 << n * KINDS) - 1
        tail |= (bits >> width | (bits & low) << back) << (pb - pl)
        if twice:  # a seat's second card of a kind: written as 2 after the unpack
            bits = twice >> width | (twice & low) << back
            while bits:
                lowest = bits & -bits
                doubles.append(pb + lowest.bit_length() - 1)
                bits ^= lowest
        bits = game.completed_by
        if bits:
            width, low, back = goals_rot[seat]
            tail |= (bits >> width | (bits & low) << back) << (cb - pl)
    else:
        tail = 0
        for goal in game.last_completed:  # before the first play: the goals met at setup
            tail |= 1 << (lc - pl + goal)
    field = head | fits << mp | block << g | tail << pl
    # one unpack (positional arguments: numpy parses keywords slowly)
    unpacked = np.unpackbits(np.frombuffer(field.to_bytes(nbytes, "little"), np.uint8), 0, size, "little")
    if game.talk == "none":
        out[:] = unpacked
    else:
        out[:size] = unpacked
        out[size:] = 0
        encode_talk(game, seat, out, size)
    # counts and fractions over the unpacked bits
    for i in doubles:
        out[i] = 2
    for i, value in fractions:
        out[i] = value
    if game.open_hands and n > 1:
        for rel in range(1, n):
            base = oh + (rel - 1) * KINDS
            for k in hands[(seat + rel) % n]:
                out[base + k] += 1
    if game.cards_in_hands == n * HAND_SIZE:  # every hand is full
        out[hs : hs + n] = HAND_SIZE
    else:
        out[hs : hs + n] = [len(hands[(seat + rel) % n]) for rel in range(n)]
    out[played : played + KINDS] = game.played
    out[dp] = len(game.draw_pile) / MAX_DRAW_PILE
    out[gc : gc + 4] = [
        len(game.completed) / NUM_GOAL_CARDS, game.goals_left / NUM_GOAL_CARDS,
        len(game.goal_deck) / NUM_GOAL_CARDS, game.num_goals / NUM_GOAL_CARDS,
    ]


def encode_talk(game: CahootsCoop, seat: int, out: np.ndarray, at: int) -> None:
    """The talk segments, from ``at`` (the end of the layout without talk): `talk_phase`, then
    each seat's last ``SIGNALS_PER_SEAT`` talk decisions, latest first."""
    n = game.num_players
    width = signal_width(game.talk)
    words = 1 + len(VOCABULARIES[game.talk])
    out[at] = float(game.talking)
    base = at + 1
    seen = [0] * n
    turns = len(game.plays)
    for s, turn, word, target in reversed(game.signals):
        if seen[s] == SIGNALS_PER_SEAT:
            if all(count == SIGNALS_PER_SEAT for count in seen):
                break
            continue
        o = base + ((s - seat) % n * SIGNALS_PER_SEAT + seen[s]) * width
        seen[s] += 1
        out[o] = 1
        out[o + 1 + word] = 1
        if word:
            if VOCABULARIES[game.talk][word - 1][1] == "pile":
                out[o + 1 + words + target] = 1
            else:
                out[o + 1 + words + PILES + target] = 1
        out[o + width - 1] = (turns - turn) / MAX_PLAYS
