"""Cahoots goal cards: loaded from ``goals.json`` and evaluated on the four pile tops.

The printed list of 50 goals was not found (docs/rules/cahoots_coop.md §1.0, A1), so the
spec's own set of §1.9 lives in one data file; a different list in the same format can be loaded
with ``load_goals(path)``. Each goal is a predicate from one of five families with parameters:

- ``colour_count`` {colours, count}: exactly ``count`` tops are of the named colours (pooled);
- ``sum`` {colours, total}: the tops of the named colours add up to ``total`` (all four tops when
  ``colours`` is empty);
- ``ratio`` {colours: [X, Y], factor}: ``factor * sum(X) == sum(Y)``;
- ``numbers`` {numbers}: every top's number is one of ``numbers``;
- ``pattern`` {colour_shape, number_shape, consecutive}: the multiplicities of the tops' colours /
  numbers, largest first, are exactly the shape given; ``consecutive``: the numbers form a run.

Semantics (§1.9): counts and totals are exact; a goal naming colours also needs at least one
named colour showing (``present``). ``multicolour_mode="disjunctive"`` is the Dutch reading of
§1.10 A2: a goal naming several colours holds if it holds for any one of them alone (relational
``ratio`` goals mean the same under both readings).

Every predicate is position-independent, so the engine looks goals up in a table over the 31,465
multisets of four card kinds (``satisfied_table``), built once with numpy.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

COLOUR_NAMES = ("green", "orange", "pink", "purple")
NUMBERS = 7
KINDS = 4 * NUMBERS
PILES = 4
FAMILIES = ("colour_count", "sum", "ratio", "numbers", "pattern")
# the partitions of four piles, used for colour and number shapes
SHAPES = ((4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1))
MULTICOLOUR_MODES = ("union", "disjunctive")
DEFAULT_GOALS_FILE = Path(__file__).with_name("goals.json")


@dataclass(frozen=True)
class Goal:
    """One goal card: ``id`` (e.g. ``SUM_15``), ``family``, readable ``text`` and parameters."""

    id: str
    family: str
    text: str
    colours: tuple[int, ...] = ()  # colour indices 0..3 (green, orange, pink, purple)
    count: int = 0
    total: int = 0
    factor: int = 0
    numbers: tuple[int, ...] = ()
    colour_shape: tuple[int, ...] | None = None
    number_shape: tuple[int, ...] | None = None
    consecutive: bool = False


def _goal_from_record(record: dict[str, Any]) -> Goal:
    gid, family = record["id"], record["family"]
    if family not in FAMILIES:
        raise ValueError(f"goal {gid}: unknown family {family!r}; families: {', '.join(FAMILIES)}")
    params = dict(record.get("params", {}))
    try:
        colours = tuple(COLOUR_NAMES.index(c) for c in params.pop("colours", ()))
    except ValueError as err:
        raise ValueError(f"goal {gid}: colours must be among {COLOUR_NAMES}") from err
    shapes = {}
    for key in ("colour_shape", "number_shape"):
        shape = params.pop(key, None)
        if shape is not None:
            shape = tuple(shape)
            if shape not in SHAPES:
                raise ValueError(f"goal {gid}: {key} {list(shape)} is not a partition of 4")
        shapes[key] = shape
    goal = Goal(
        id=gid, family=family, text=record["text"], colours=colours,
        count=int(params.pop("count", 0)), total=int(params.pop("total", 0)),
        factor=int(params.pop("factor", 0)), numbers=tuple(params.pop("numbers", ())),
        consecutive=bool(params.pop("consecutive", False)), **shapes,
    )
    if params:
        raise ValueError(f"goal {gid}: unknown parameter(s) {sorted(params)}")
    if family == "ratio" and len(colours) != 2:
        raise ValueError(f"goal {gid}: a ratio goal names exactly two colours")
    return goal


@cache
def load_goals(path: str | Path = DEFAULT_GOALS_FILE) -> tuple[Goal, ...]:
    """The goal list of a goals file (by default the spec's 50 goals of §1.9)."""
    records = json.loads(Path(path).read_text())["goals"]
    goals = tuple(_goal_from_record(r) for r in records)
    ids = [g.id for g in goals]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate goal ids")
    return goals


# ---- evaluation on arrays of tops ---------------------------------------------------------

def _shape_of(values: np.ndarray, width: int) -> np.ndarray:
    """Per row, the multiplicities of ``values`` (M, 4) sorted largest first, as (M, 4)."""
    counts = np.zeros((values.shape[0], width), np.int64)
    for p in range(PILES):
        np.add.at(counts, (np.arange(values.shape[0]), values[:, p]), 1)
    return -np.sort(-counts, axis=1)[:, :PILES]


def _matches_shape(shape_rows: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    wanted = np.array(shape + (0,) * (PILES - len(shape)))
    return np.all(shape_rows == wanted, axis=1)


def evaluate(goal: Goal, colours: np.ndarray, numbers: np.ndarray, mode: str = "union") -> np.ndarray:
    """Whether ``goal`` holds for each row of tops: ``colours`` (M, 4) in 0..3, ``numbers``
    (M, 4) in 1..7. Returns a bool array (M,)."""
    family = goal.family
    if family == "ratio":
        # §1.10 A2: the same under both readings once vacuous matches (0 = 0) are excluded
        x, y = goal.colours
        in_x, in_y = colours == x, colours == y
        present = (in_x | in_y).any(axis=1)
        sum_x = (numbers * in_x).sum(axis=1)
        sum_y = (numbers * in_y).sum(axis=1)
        return present & (goal.factor * sum_x == sum_y)
    if family in ("colour_count", "sum") and goal.colours:
        groups = [goal.colours] if mode == "union" else [(c,) for c in goal.colours]
        result = np.zeros(colours.shape[0], bool)
        for group in groups:
            named = np.isin(colours, group)
            if family == "colour_count":
                result |= named.sum(axis=1) == goal.count
            else:
                result |= named.any(axis=1) & ((numbers * named).sum(axis=1) == goal.total)
        return result
    if family == "sum":
        return numbers.sum(axis=1) == goal.total
    if family == "numbers":
        return np.asarray(np.isin(numbers, goal.numbers).all(axis=1))
    if family == "pattern":
        result = np.ones(colours.shape[0], bool)
        if goal.colour_shape is not None:
            result &= _matches_shape(_shape_of(colours, 4), goal.colour_shape)
        if goal.number_shape is not None:
            result &= _matches_shape(_shape_of(numbers - 1, NUMBERS), goal.number_shape)
        if goal.consecutive:
            result &= (numbers.max(axis=1) - numbers.min(axis=1) == PILES - 1) & _matches_shape(
                _shape_of(numbers - 1, NUMBERS), (1, 1, 1, 1)
            )
        return result
    raise ValueError(f"goal {goal.id}: a {family} goal must name what it counts")


def goal_met(goal: Goal, tops: list[int] | tuple[int, ...], mode: str = "union") -> bool:
    """Whether ``goal`` holds for four top card kinds (kind = colour * 7 + number - 1)."""
    kinds = np.array([tops])
    return bool(evaluate(goal, kinds // NUMBERS, kinds % NUMBERS + 1, mode)[0])


@cache
def multisets() -> np.ndarray:
    """Every multiset of four card kinds, as sorted rows (31,465 × 4)."""
    return np.array(list(itertools.combinations_with_replacement(range(KINDS), PILES)), np.int64)


@cache
def satisfied_table(goals: tuple[Goal, ...], mode: str) -> list[int]:
    """Indexed by the tops' code ``((a*28 + b)*28 + c)*28 + d`` in any pile order: a bit mask of
    the goals (bit i = ``goals[i]``) the four tops satisfy."""
    rows = multisets()
    colours, numbers = rows // NUMBERS, rows % NUMBERS + 1
    masks = [0] * len(rows)
    for i, goal in enumerate(goals):
        bit = 1 << i
        for r in np.flatnonzero(evaluate(goal, colours, numbers, mode)).tolist():
            masks[r] |= bit
    # map every ordered 4-tuple to the index of its multiset
    ordered = np.indices((KINDS,) * PILES).reshape(PILES, -1).T
    ordered = np.sort(ordered, axis=1)
    index_of_code = np.zeros(KINDS**PILES, np.int64)
    index_of_code[_codes(rows)] = np.arange(len(rows))
    return [masks[i] for i in index_of_code[_codes(ordered)].tolist()]


def _codes(rows: np.ndarray) -> np.ndarray:
    return ((rows[:, 0] * KINDS + rows[:, 1]) * KINDS + rows[:, 2]) * KINDS + rows[:, 3]


def multiset_weights() -> np.ndarray:
    """How many of the C(56, 4) draws of four physical cards give each multiset (2 copies)."""
    rows = multisets()
    weights = np.ones(len(rows), np.int64)
    for k in range(KINDS):
        m = (rows == k).sum(axis=1)
        weights *= np.where(m == 0, 1, np.where(m == 1, 2, np.where(m == 2, 1, 0)))
    return weights
