"""Opponent pools: weighted groups of policies that seat environments draw opponents from.

Each group (``random``, ``heuristic``, ``snapshots``, ``latest``, or any name) has a weight; a
draw picks a non-empty group in proportion to its weight, then one of its policies uniformly.
Snapshots are frozen copies of the learner added on a schedule (the oldest dropped past
``max_snapshots``); ``latest`` is the learner itself, refreshed in place before each rollout.
``build_pool`` makes a training run's pool from its config's ``pool`` section, ``add_snapshot``
adds a frozen copy of the learner to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cahoots_envs.core.policy import BasePolicy, Policy
from cahoots_envs.policies.loading import load_policy
from cahoots_envs.training.run import available_opponents

if TYPE_CHECKING:
    from cahoots_envs.training.config import TrainConfig


@dataclass
class PoolEntry:
    name: str
    policy: Policy
    group: str


@dataclass
class OpponentPool:
    """``weights`` maps group name to weight; groups without entries are never drawn."""

    weights: dict[str, float] = field(default_factory=dict)
    max_snapshots: int = 10
    groups: dict[str, list[PoolEntry]] = field(default_factory=dict)

    def add(self, group: str, name: str, policy: Policy, weight: float | None = None) -> PoolEntry:
        if weight is not None:
            self.weights[group] = float(weight)
        self.weights.setdefault(group, 1.0)
        entry = PoolEntry(name, policy, group)
        entries = self.groups.setdefault(group, [])
        entries.append(entry)
        if group == "snapshots" and len(entries) > self.max_snapshots:
            entries.pop(0)
        return entry

    def set_only(self, group: str, name: str, policy: Policy) -> PoolEntry:
        """Replace a group's entries with one policy (e.g. ``latest``)."""
        self.groups[group] = []
        return self.add(group, name, policy)

    def entries(self) -> list[PoolEntry]:
        return [e for group in self.groups.values() for e in group]

    def sample(self, rng: np.random.Generator) -> PoolEntry:
        live = [(g, w) for g, w in self.weights.items() if w > 0 and self.groups.get(g)]
        if not live:
            raise ValueError(f"opponent pool has no policy to draw (weights {self.weights}, "
                             f"groups {[g for g, e in self.groups.items() if e]})")
        weights = np.array([w for _, w in live], np.float64)
        group = live[int(rng.choice(len(live), p=weights / weights.sum()))][0]
        entries = self.groups[group]
        return entries[int(rng.integers(len(entries)))]

    def describe(self) -> dict[str, Any]:
        return {g: {"weight": self.weights.get(g, 0.0), "policies": [e.name for e in es]}
                for g, es in self.groups.items()}

    @classmethod
    def single(cls, policy: Policy, name: str = "opponent") -> OpponentPool:
        pool = cls()
        pool.add("fixed", name, policy)
        return pool

    @classmethod
    def from_specs(cls, env_id: str, options: Mapping[str, Any] | None,
                   weights: Mapping[str, float], seed: int | None = None) -> OpponentPool:
        """A pool of spec-named policies (``random``, ``heuristic``, ``zoo:...``, paths), each its
        own group, weighted as given."""
        pool = cls()
        for i, (spec, weight) in enumerate(weights.items()):
            if weight <= 0:
                continue
            policy = load_policy(spec, env_id, options,
                                 seed=None if seed is None else seed + 1000 * (i + 1))
            pool.add(spec, spec, policy, weight)
        return pool


class SnapshotRotation(BasePolicy):
    """The pool's snapshots as one opponent that plays one snapshot at a time: ``draw`` picks the
    snapshot (uniformly, seeded) that plays every seat this opponent holds until the next draw.
    Training draws at each rollout's start, so all snapshot seats of all games act in one
    batched forward pass per round instead of one small pass per snapshot."""

    name = "snapshots"

    def __init__(self, max_snapshots: int = 10, seed: int | None = None) -> None:
        self.max_snapshots = max_snapshots
        self.snapshots: list[tuple[str, Policy]] = []
        self.active: Policy | None = None
        self.active_name = ""
        self.draw_rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self.snapshots)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.snapshots]

    def add(self, name: str, policy: Policy) -> None:
        """Add a snapshot (the oldest dropped past ``max_snapshots``); the first one plays at once."""
        self.snapshots.append((name, policy))
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)
        if self.active is None:
            self.active_name, self.active = self.snapshots[-1]

    def draw(self) -> None:
        """Pick the snapshot that plays until the next draw."""
        if self.snapshots:
            self.active_name, self.active = self.snapshots[
                int(self.draw_rng.integers(len(self.snapshots)))]

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if self.active is None:
            raise ValueError("no snapshot to play yet: add() one first")
        return self.active.act_batch(observations, action_masks)


def build_pool(config: TrainConfig) -> OpponentPool:
    """The pool of a training config: its ``pool`` section's weights (the bots the game lacks
    left out), the snapshot and latest groups weighted, still empty."""
    p = config.pool
    pool = OpponentPool(max_snapshots=p.max_snapshots)
    weights = {"random": p.random, "heuristic": p.heuristic, **p.policies}
    specs = available_opponents(config, [s for s, w in weights.items() if w > 0])
    for i, spec in enumerate(specs):
        policy = load_policy(spec, config.env_id, config.env_options, seed=config.seed + 101 * (i + 1))
        pool.add(spec, spec, policy, weights[spec])
    pool.weights["snapshots"] = p.snapshots
    pool.weights["latest"] = p.latest
    return pool


def add_snapshot(pool: OpponentPool, rotation: SnapshotRotation | None, snap: Policy) -> None:
    """A frozen copy of the learner joins the pool: into the rotation (``snapshot_draw:
    rollout``, one pool entry playing one snapshot at a time) or as its own entry (``seat``)."""
    if rotation is None:
        pool.add("snapshots", snap.name, snap)  # type: ignore[attr-defined]
        return
    rotation.add(snap.name, snap)  # type: ignore[attr-defined]
    if not pool.groups.get("snapshots"):
        pool.add("snapshots", "snapshots", rotation)


def snapshot_names(pool: OpponentPool, rotation: SnapshotRotation | None) -> list[str]:
    if rotation is not None:
        return rotation.names
    return [e.name for e in pool.groups.get("snapshots", [])]
