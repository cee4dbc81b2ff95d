"""Declared observation layouts.

A layout is a list of named segments. It gives each game's encoder named views into one flat
observation buffer, the observation space's bounds, a fingerprint that saved policies record
(so a policy trained on another layout is refused), and the index table of the docs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

OBS_DTYPE = np.float32


@dataclass(frozen=True)
class Segment:
    """``size`` consecutive entries of the observation; ``shape`` (optional) is how the
    view reshapes them, e.g. ``(num_players, 8)`` for one row per relative seat."""

    name: str
    size: int
    doc: str
    high: float = 1.0
    low: float = 0.0
    shape: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.shape is not None and int(np.prod(self.shape)) != self.size:
            raise ValueError(f"segment {self.name}: shape {self.shape} does not hold {self.size}")


@dataclass(frozen=True)
class Layout:
    """An ordered set of segments; ``offsets[name]`` is where a segment starts."""

    env_id: str
    segments: tuple[Segment, ...]
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        offsets, at = {}, 0
        for seg in self.segments:
            if seg.name in offsets:
                raise ValueError(f"duplicate segment {seg.name}")
            offsets[seg.name] = at
            at += seg.size
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "size", at)

    def segment(self, name: str) -> Segment:
        for seg in self.segments:
            if seg.name == name:
                return seg
        raise KeyError(f"no segment {name!r}; segments: {[s.name for s in self.segments]}")

    def slice(self, name: str) -> slice:
        start = self.offsets[name]
        return slice(start, start + self.segment(name).size)

    def views(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into one observation (or a batch of them: the last axis is the layout)."""
        out = {}
        for seg in self.segments:
            start = self.offsets[seg.name]
            view = observation[..., start : start + seg.size]
            if seg.shape is not None:
                view = view.reshape(observation.shape[:-1] + seg.shape)
            out[seg.name] = view
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.concatenate([np.full(s.size, s.low, OBS_DTYPE) for s in self.segments])
        high = np.concatenate([np.full(s.size, s.high, OBS_DTYPE) for s in self.segments])
        return low, high

    def fingerprint(self) -> str:
        """A short hash of the env id and every segment's name, size, shape and bounds."""
        desc = [self.env_id] + [[s.name, s.size, list(s.shape or ()), s.low, s.high]
                                for s in self.segments]
        return hashlib.sha256(json.dumps(desc).encode()).hexdigest()[:16]

    def markdown_table(self) -> str:
        """The observation index table of the docs (indices are inclusive)."""
        rows = ["| index | name | shape | range | meaning |", "|---|---|---|---|---|"]
        for seg in self.segments:
            start = self.offsets[seg.name]
            span = f"{start}" if seg.size == 1 else f"{start}–{start + seg.size - 1}"
            shape = "×".join(map(str, seg.shape)) if seg.shape else str(seg.size)
            rng = f"{seg.low:g}–{seg.high:g}"
            rows.append(f"| {span} | `{seg.name}` | {shape} | {rng} | {seg.doc} |")
        return "\n".join(rows)
