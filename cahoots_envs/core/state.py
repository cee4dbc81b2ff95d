"""The global state: one seat-independent vector holding what every seat sees, for centralised
critics (CTDE, e.g. MAPPO) and anything else that wants the table as a whole.

The state is built from the observation layout, so it holds every public fact the observations
hold, every seat's private facts (all hands) and the counts of hidden piles, and nothing any seat
cannot see: in particular no order of future chance events (draw pile, goal deck, reserve), which
no observation carries (the leak tests check that). A game declares, per segment of its
observation, one of three kinds (``games/<game>/state.py``):

- ``PUBLIC``: the same entries in every seat's observation; stored once.
- ``SEATS``: the same facts in every observation, in rows (or one-hot entries) by *relative*
  seat along the first axis; stored once as seat 0 sees it, so the rows are absolute seats
  0..n-1.
- ``PRIVATE`` (everything else, e.g. the own hand): stored once per seat, one row per absolute
  seat, each row as that seat sees it.

``observation_from_state(state, seat)`` rebuilds any seat's observation from the state alone:
the proof, checked on random games of every env, that an observation carries nothing the state
lacks. A declaration that is wrong (a segment called public that differs between seats) fails
that check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cahoots_envs.core.layout import OBS_DTYPE, Layout, Segment
from cahoots_envs.core.text import short_repr

if TYPE_CHECKING:
    from cahoots_envs.core.game import Game

PUBLIC = "public"
SEATS = "seats"
PRIVATE = "private"
KINDS = (PUBLIC, SEATS, PRIVATE)
KIND_DOC = {
    PUBLIC: "public",
    SEATS: "public, rows by absolute seat",
    PRIVATE: "private, one row per absolute seat",
}


@dataclass(frozen=True)
class StateLayout:
    """The global state's layout for one set of options (see the module docstring)."""

    observation: Layout
    num_players: int
    kinds: dict[str, str]
    layout: Layout = field(init=False)

    def __post_init__(self) -> None:
        n = self.num_players
        unknown = set(self.kinds) - {s.name for s in self.observation.segments}
        if unknown:
            raise ValueError(f"state declaration names segment(s) {sorted(unknown)} that the "
                             f"observation of {self.observation.env_id} lacks")
        segments = []
        for seg in self.observation.segments:
            kind = self.kinds.get(seg.name, PUBLIC)
            if kind not in KINDS:
                raise ValueError(f"segment {seg.name}: kind {kind!r} is not one of {KINDS}")
            shape = seg.shape or (seg.size,)
            if kind == SEATS and shape[0] != n:
                raise ValueError(f"segment {seg.name} of shape {shape} has no seat axis of "
                                 f"{n} rows, so it cannot be of kind {SEATS!r}")
            if kind == PRIVATE:
                segments.append(Segment(seg.name, n * seg.size, seg.doc, seg.high, seg.low,
                                        (n, *shape)))
            else:
                segments.append(Segment(seg.name, seg.size, seg.doc, seg.high, seg.low,
                                        seg.shape))
        object.__setattr__(self, "layout", Layout(self.observation.env_id + "#state",
                                                  tuple(segments)))

    @property
    def size(self) -> int:
        return self.layout.size

    def kind(self, name: str) -> str:
        return self.kinds.get(name, PUBLIC)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.layout.bounds()

    def encode(self, game: Game, out: np.ndarray) -> np.ndarray:
        """Write ``game``'s state into ``out`` (zeroed first): every seat's observation, each
        segment stored as its kind says."""
        n = self.num_players
        obs = np.zeros((n, self.observation.size), OBS_DTYPE)
        for seat in range(n):
            game.encode(seat, obs[seat])
        out[:] = 0
        for seg in self.observation.segments:
            src = self.observation.slice(seg.name)
            dst = self.layout.slice(seg.name)
            if self.kind(seg.name) == PRIVATE:
                out[dst] = obs[:, src].reshape(-1)
            else:
                out[dst] = obs[0, src]
        return out

    def observation_from_state(self, state: np.ndarray, seat: int) -> np.ndarray:
        """``seat``'s observation, rebuilt from the state alone. ``state``: one state as
        ``env.state()`` gives it, a numeric numpy array of shape ``(size,)``; ``seat``: an int
        ``0..num_players-1``. Anything else raises a one-line ``ValueError`` saying what is
        expected."""
        n = self.num_players
        if (isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer))
                or not 0 <= seat < n):
            raise ValueError(f"seat {short_repr(seat)} is not a seat of a {n}-player game: "
                             f"an int 0..{n - 1}")
        expected = (f"a numeric numpy array of shape ({self.size},), as env.state() of "
                    f"{self.observation.env_id} at {n} players gives")
        if not isinstance(state, np.ndarray):
            raise ValueError(  # noqa: TRY004 (a bad argument value, as every other here)
                f"state must be {expected}; got {type(state).__name__} {short_repr(state)}")
        if state.dtype == np.bool_ or state.dtype.kind not in "fiu":
            raise ValueError(f"state must be {expected}; got dtype {state.dtype}")
        if state.shape != (self.size,):
            raise ValueError(f"state must be {expected}; got shape {state.shape}")
        seat = int(seat)
        out = np.zeros(self.observation.size, OBS_DTYPE)
        for seg in self.observation.segments:
            src = state[self.layout.slice(seg.name)]
            dst = self.observation.slice(seg.name)
            kind = self.kind(seg.name)
            if kind == PRIVATE:
                out[dst] = src.reshape(n, seg.size)[seat]
            elif kind == SEATS:
                rows = src.reshape(n, -1)
                out[dst] = np.roll(rows, -seat, axis=0).reshape(-1)
            else:
                out[dst] = src
        return out

    def markdown_table(self) -> str:
        """The state's index table for the docs (indices inclusive), with each entry's kind."""
        rows = ["| index | name | shape | range | kind | meaning |", "|---|---|---|---|---|---|"]
        for seg in self.layout.segments:
            start = self.layout.offsets[seg.name]
            span = f"{start}" if seg.size == 1 else f"{start}–{start + seg.size - 1}"
            shape = "×".join(map(str, seg.shape)) if seg.shape else str(seg.size)
            rows.append(f"| {span} | `{seg.name}` | {shape} | {seg.low:g}–{seg.high:g} | "
                        f"{KIND_DOC[self.kind(seg.name)]} | {seg.doc} |")
        return "\n".join(rows)


_CACHE: dict[tuple[str, int, tuple[tuple[str, Any], ...]], StateLayout] = {}


def state_layout(declaration: Any, observation: Layout, options: Mapping[str, Any]) -> StateLayout:
    """The ``StateLayout`` of a game for ``options``, from its declaration (an object with
    ``state_kinds(options) -> {segment: kind}``, e.g. the module ``games/<game>/state.py``)."""
    key = (observation.fingerprint(), id(declaration),
           tuple(sorted((k, repr(v)) for k, v in options.items())))
    found = _CACHE.get(key)
    if found is None:
        kinds = dict(declaration.state_kinds(options))
        found = _CACHE[key] = StateLayout(observation, int(options["num_players"]), kinds)
    return found
