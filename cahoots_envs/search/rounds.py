"""Searches in rounds on the batched engine: many positions' searches at once.

``PositionSearch`` is one position's search in progress (its worlds drawn so far, their values
per candidate move, the verdict); ``run_searches`` runs any number of them to their verdicts in
rounds, each round's worlds of every unfinished search rolled out together
(``EngineRollouts.values_many``). Labelling (``label.py``) and ``SearchPolicy.act_infosets``
(``policy.py``) both search here; ``judge`` is the verdict every search path shares.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from cahoots_envs.search.engine import EngineRollouts, Job
from cahoots_envs.search.infoset import Infoset

LABEL_ROWS = 8192  # rows (worlds x moves, over positions) of one lockstep batch


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a search runs (where it was on; back on
    after, errors included). A search makes many short-lived objects (worlds, their histories
    and records), nearly all freed as they go by reference counting, and each collection the
    allocations trigger walks every long-lived object (the world samplers' caches): about a
    fifth of one game's labelling time, measured (docs/lab/search_engine_cost.md). What the collector would
    have found is found at its next run. Also a decorator (``@gc_paused()``)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _madvise_switch() -> Any:
    """numpy's switch for asking the kernel for huge pages under its large arrays
    (``_set_madvise_hugepage``: numpy >= 1.20, the one behind ``NUMPY_MADVISE_HUGEPAGE``), or
    None where this numpy has none."""
    core = getattr(np, "_core", None)  # numpy 2; numpy 1 names it np.core
    if core is None:
        core = getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


@contextmanager
def huge_pages_off() -> Iterator[None]:
    """numpy's huge-page advice off while a search runs (as it was after, errors included).
    A search allocates arrays of megabytes again and again (engines for each batch size,
    gathered rows); with the advice on, every first touch of one faults in a 2 MB page that the
    kernel zeroes whole: on a machine with huge pages free, system time was about a third of a
    label's CPU time in one game, measured (docs/lab/search_engine_cost.md). Results do not change: only how
    memory is paged. Where the advice is off already (a caller's choice, or a search running in
    another thread) it is left as it is, as ``gc_paused`` leaves the collector. Also a
    decorator (``@huge_pages_off()``)."""
    switch = _madvise_switch()
    if switch is None or not switch(False):
        yield
        return
    try:
        yield
    finally:
        switch(True)


def judge(values: np.ndarray, b: int, gate: float, most: int,
          weights: np.ndarray | None = None) -> tuple[bool, int, bool]:
    """The search's verdict on ``values[world, move]`` with the blueprint's move at index
    ``b``: ``(done, best, confident)``. ``best`` is the other move with the highest mean paired
    gain over the blueprint's; ``confident`` when that gain exceeds ``gate`` standard errors
    (the search then plays ``best``, else the blueprint's move); ``done`` when confident, when
    no other move could still beat the blueprint's (hopeless), or at ``most`` worlds.

    With ``weights`` (one per world, >= 0, not all 0: the ``belief`` setting's) the means are
    weighted, and a gain's standard error is its weighted standard deviation (reliability
    weights' unbiased variance) over the square root of the weights' effective sample size
    ``(sum w)^2 / sum w^2`` (infinite below two worlds' worth): equal weights give the
    unweighted verdict exactly."""
    n_worlds, n_moves = values.shape
    diffs = values - values[:, b : b + 1]
    if weights is None:
        mean = diffs.mean(axis=0)
        se = diffs.std(axis=0, ddof=1) / math.sqrt(n_worlds) if n_worlds > 1 else \
            np.full(n_moves, np.inf)
    else:
        w = np.asarray(weights, np.float64)
        w = w / w.sum()
        mean = w @ diffs
        squares = float(w @ w)  # 1 / the effective sample size
        if squares <= 0.5:  # at least two worlds' worth of weight
            variance = (w @ (diffs - mean) ** 2) / (1.0 - squares)
            se = np.sqrt(variance * squares)
        else:  # nearly one world holds the weight: no standard error to trust
            se = np.full(n_moves, np.inf)
    mean[b] = -np.inf
    best = int(np.argmax(mean))
    confident = bool(mean[best] > 0 and mean[best] > gate * se[best])
    others = np.arange(n_moves) != b
    hopeless = bool(np.all(mean[others] + gate * se[others] <= 0))
    return confident or hopeless or n_worlds >= most, best, confident


class PositionSearch:
    """One position's search in progress: ``legal`` (default: the information set's legal
    moves; a search bot's narrowed candidates where it narrows) searched around the blueprint's
    move with decision seed ``seed``, from ``target`` worlds up to ``most``."""

    def __init__(self, infoset: Infoset, blueprint_move: int, seed: int, most: int,
                 target: int, legal: list[int] | None = None) -> None:
        self.infoset = infoset
        self.legal = infoset.legal if legal is None else list(legal)  # the moves searched
        self.b = self.legal.index(blueprint_move)
        self.seed = seed
        self.most = most
        self.target = target
        self.values: list[np.ndarray] = []
        self.worlds = 0
        self.done = False
        self.best = self.b
        self.confident = False

    def next_worlds(self) -> Job:
        first = self.worlds
        worlds = [self.infoset.sample(np.random.default_rng([self.seed, k]))
                  for k in range(first, self.target)]
        return Job(worlds, first, self.legal, self.infoset.seat, self.seed)

    def add(self, values: np.ndarray, gate: float) -> None:
        self.values.append(values)
        self.worlds += len(values)
        if self.worlds < self.target:
            return
        done, best, confident = judge(np.concatenate(self.values), self.b, gate, self.most)
        self.best, self.confident = best, confident
        if done:
            self.done = True
        else:
            self.target = min(2 * self.worlds, self.most)


@gc_paused()
@huge_pages_off()
def run_searches(engine: EngineRollouts, searches: list[PositionSearch], policy: Any,
                 gate: float, seed: int) -> None:
    """Rounds until every search is done: each round, every unfinished search's next worlds,
    in batches of at most ``LABEL_ROWS`` rows, rolled out by ``policy`` (its ties drawn per
    batch from generators seeded by ``seed``). ``SearchPolicy.act_infosets`` runs its searches
    here too."""
    saved = getattr(policy, "rng", None)
    batch_number = 0
    try:
        while True:
            going = [x for x in searches if not x.done]
            if not going:
                return
            jobs = [(x, x.next_worlds()) for x in going]
            start = 0
            while start < len(jobs):
                rows, end = 0, start
                while end < len(jobs) and (end == start or rows + len(jobs[end][1].worlds) *
                                           len(jobs[end][1].legal) <= LABEL_ROWS):
                    rows += len(jobs[end][1].worlds) * len(jobs[end][1].legal)
                    end += 1
                if isinstance(saved, np.random.Generator):  # the bots' ties, per batch
                    policy.rng = np.random.default_rng([seed, batch_number, 2])
                batch_number += 1
                values = engine.values_many([job for _, job in jobs[start:end]], policy)
                for (search, _), v in zip(jobs[start:end], values):
                    search.add(v, gate)
                start = end
    finally:
        if isinstance(saved, np.random.Generator):
            policy.rng = saved
