"""Cahoots (cooperative) observation encoder and its declared layout.

The encoder reads only what the observing seat may know (§1.7): its own hand (every hand with
``open_hands``), the piles (tops and every covered card), the visible and completed goals, the
sizes of the draw pile, the goal deck and the hands. Each visible goal is described by its
parameters (family, colours, target, shapes) as well as its id, so a policy can generalise across
goals. The draw pile's order, the other hands and which goals are in the goal deck never appear.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cahoots_envs.core.layout import Layout, Segment
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
)

if TYPE_CHECKING:
    from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

ENV_ID = "cahoots_envs/cahoots_coop-v0"
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


@cache
def build_layout(n: int) -> Layout:
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
    ]
    return Layout(ENV_ID, tuple(segments))


@cache
def _offsets(n: int) -> dict[str, int]:
    return dict(build_layout(n).offsets)


def encode(game: CahootsCoop, seat: int, out: np.ndarray) -> None:
    n = game.num_players
    o = _offsets(n)
    base = o["hand"]
    for k in game.hands[seat]:
        out[base + k] += 1
    hs = o["hand_sizes"]
    for rel in range(n):
        s = (seat + rel) % n
        out[hs + rel] = len(game.hands[s])
        if rel and game.open_hands:
            base = o["other_hands"] + (rel - 1) * KINDS
            for k in game.hands[s]:
                out[base + k] += 1
    t = o["tops"]
    for p, k in enumerate(game.tops):
        out[t + p * KINDS + k] = 1
    played = o["played"]
    out[played : played + KINDS] = game.played
    _encode_plays(game, seat, out, o["my_plays"], o["play_completes"])
    out[o["draw_pile"]] = len(game.draw_pile) / MAX_DRAW_PILE
    g = o["goals"]
    for slot, goal in enumerate(game.visible):
        if goal >= 0:
            out[g + slot * GOAL_WIDTH : g + (slot + 1) * GOAL_WIDTH] = GOAL_FEATURES[goal]
    c = o["completed"]
    for goal in game.completed:
        out[c + goal] = 1
    gc = o["goal_counts"]
    out[gc] = len(game.completed) / NUM_GOAL_CARDS
    out[gc + 1] = game.goals_left / NUM_GOAL_CARDS
    out[gc + 2] = len(game.goal_deck) / NUM_GOAL_CARDS
    out[gc + 3] = game.num_goals / NUM_GOAL_CARDS
    if not game.is_over:
        out[o["to_move"] + (game.current_player - seat) % n] = 1
    r = o["rules"]
    out[r] = float(game.open_hands)
    out[r + 1] = float(game.mode == "disjunctive")


def _encode_plays(game: CahootsCoop, seat: int, out: np.ndarray, plays: int, completes: int) -> None:
    """What each play of the seat's own cards would do now: a strong team player sees at a
    glance which plays complete a goal (computed from its hand, the tops and the visible goals)."""
    visible = 0
    for goal in game.visible:
        if goal >= 0:
            visible |= 1 << goal
    tops = list(game.tops)
    table = game.satisfied
    previous = -1
    for k in game.hands[seat]:
        if k == previous:
            continue
        previous = k
        matches = MATCHES[k]
        for pile in range(PILES):
            if not matches >> tops[pile] & 1:
                continue
            action = k * PILES + pile
            out[plays + action] = 1
            t = tops[:]
            t[pile] = k
            done = table[((t[0] * KINDS + t[1]) * KINDS + t[2]) * KINDS + t[3]] & visible
            if done:
                out[completes + action] = done.bit_count() / PILES
