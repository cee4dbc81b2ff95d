"""Uploaded game logs in the browser view (``Replay``), bounded in bytes. No web library here.

A replay keeps what it needs to rebuild any position, not every position: the actions, the
game at every ``KEYFRAME_EVERY``-th position (a keyframe), and the moves as each viewer saw
them packed into one string per viewer. Position ``k`` is the keyframe at or before it, cloned,
with the actions since applied (at most ``KEYFRAME_EVERY - 1``: a few milliseconds). A replay
reports its size (``nbytes``: the keyframes' pickled size, the packed texts and the actions),
which the server's byte caps count (``sessions.py``): about 400 KiB for an 880-move Kansas
City game, where a clone of the game at every position took 8.5 MiB.
"""

from __future__ import annotations

import pickle
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cahoots_envs.core.game import Game
from cahoots_envs.gamelog import GameLog, ReplayError, replay_env, replay_log
from cahoots_envs.web.tables import (
    Event,
    WebError,
    legal_parts,
    make_event,
    probabilities,
    result_of,
    seen_move,
    table_of,
    text_of,
)

MAX_REPLAY_TURNS = 5000  # actions a replay may hold (a real game: a few hundred)
KEYFRAME_EVERY = 32  # a position is rebuilt from the keyframe before it with < 32 actions
_MOVE, _NOTE = "\x1e", "\x1f"  # separators in the packed texts (never in a move's words)


@dataclass
class Seen:
    """The moves of a replay as each viewer saw them, packed: per viewer (the referee first,
    then each seat) one string of the move texts, and one of each move's notes."""

    seats: bytes
    texts: dict[int | None, str]
    notes: str

    @classmethod
    def pack(cls, events: list[Any], viewers: list[int | None]) -> Seen:
        return cls(bytes(e.seat for e in events),
                   {v: _MOVE.join(e.seen[v] for e in events) for v in viewers},
                   _MOVE.join(_NOTE.join(e.notes) for e in events))

    @property
    def nbytes(self) -> int:
        return len(self.seats) + len(self.notes) + sum(len(t) for t in self.texts.values())

    def shown(self, k: int, viewer: int | None) -> list[dict[str, Any]]:
        """The first ``k`` moves as ``viewer`` saw them (``Event.shown``'s fields)."""
        if k == 0:
            return []
        texts = self.texts[viewer].split(_MOVE, k)[:k]
        notes = self.notes.split(_MOVE, k)[:k]
        return [{"i": i, "turn": i, "seat": self.seats[i], "text": texts[i],
                 "notes": notes[i].split(_NOTE) if notes[i] else []} for i in range(k)]


def _new_id() -> str:
    return f"r_{secrets.token_urlsafe(12)}"


@dataclass
class Replay:
    """An uploaded log, checked as ``cahoots replay`` checks it: its header, its actions, a
    keyframe every ``KEYFRAME_EVERY`` positions and the moves as each viewer saw them."""

    header: dict[str, Any]
    keyframes: list[Game]
    actions: list[int]
    seen: Seen
    summary: str
    complete: bool
    options: dict[str, Any]
    load_policy: Callable[[str, int], Any | None]
    nbytes: int = 0
    id: str = field(default_factory=_new_id)
    touched: float = field(default_factory=time.monotonic)
    thinking: None = None

    def close(self) -> None:
        """Nothing runs for a replay."""

    @property
    def game(self) -> Game:
        return self.keyframes[0]

    @property
    def env_id(self) -> str:
        spec: Any = self.keyframes[0].face
        return str(spec.env_id)

    @property
    def positions(self) -> int:
        return len(self.actions) + 1

    def at(self, k: int) -> Game:
        """The game at position ``k`` (before the ``k``-th action), rebuilt from its keyframe."""
        game = self.keyframes[k // KEYFRAME_EVERY].clone()
        for action in self.actions[k - k % KEYFRAME_EVERY: k]:
            game.apply(action)
        return game

    def describe(self) -> dict[str, Any]:
        game = self.keyframes[0]
        spec: Any = game.face
        header = self.header
        return {"id": self.id, "game": spec.name, "env_id": header["env_id"],
                "players": game.num_players,
                "names": list(header.get("players") or [f"player_{s}" for s in
                                                        range(game.num_players)]),
                "options": dict(header.get("options", {})), "positions": self.positions,
                "turns": len(self.actions), "complete": self.complete, "summary": self.summary,
                "bytes": self.nbytes}

    def position(self, k: int, view: str | None) -> dict[str, Any]:
        if not 0 <= k < self.positions:
            raise WebError(404, f"position {k} is not in this log (0 to {self.positions - 1})")
        n = self.keyframes[0].num_players
        if view in (None, "", "referee"):
            seat = None
        elif view.isdigit() and int(view) < n:
            seat = int(view)
        else:
            raise WebError(400, f"view must be 'referee' or a seat from 0 to {n - 1}, got {view!r}")
        game = self.at(k)
        to_move = None if game.is_over else int(game.current_player)
        nxt = None
        if k < len(self.actions):
            nxt = {"seat": to_move, "text": seen_move(game, self.actions[k], seat)}
        shows_mover = to_move is not None and seat in (None, to_move)
        probs = None
        if shows_mover and to_move is not None:
            probs = self._probabilities(game, to_move)
        return {
            "id": self.id, "k": k, "positions": self.positions,
            "view": "referee" if seat is None else seat, "to_move": to_move,
            "over": bool(game.is_over), "turn": k, "phase": str(game.phase),
            "table": table_of(game, seat), "text": text_of(game, seat), "next": nxt,
            "legal": legal_parts(game) if shows_mover else None,
            "events": self.seen.shown(k, seat),
            "result": result_of(game, seat), "probabilities": probs,
        }

    def _probabilities(self, game: Game, seat: int) -> dict[str, Any] | None:
        names = self.header.get("players") or []
        name = names[seat] if seat < len(names) and isinstance(names[seat], str) else None
        if name is None:
            return None
        policy = self.load_policy(name, seat)
        moves = probabilities(policy, game, seat, self.options) if policy is not None else None
        if moves is None:
            return None
        return {"policy": name, "seat": seat, "moves": moves}


def load_replay(text: str, load_policy: Callable[[str, int], Any | None]) -> Replay:
    """Check and replay an uploaded log (``WebError`` 400 with the text ``cahoots replay``
    prints after its name), keeping its actions, keyframes and packed moves."""
    try:
        log = GameLog.from_lines(text.splitlines(keepends=True), "upload")
    except ValueError as e:  # ReplayError included: not a well-formed log
        raise WebError(400, str(e)) from None
    if len(log.actions) > MAX_REPLAY_TURNS:
        raise WebError(400, f"the log has {len(log.actions)} actions, more than the browser view "
                       f"replays ({MAX_REPLAY_TURNS})")
    try:
        result = replay_log(log, partial=True)
    except ReplayError as e:
        raise WebError(400, f"FAILED: {e}") from None
    env = replay_env(log, render_mode=None)
    keyframes = [env.game.clone()]
    actions: list[int] = []
    events: list[Event] = []
    for record in log.actions[: result.turns]:
        before = env.game.clone()
        action = int(env.str_to_action(record["action"]))
        env.step(action)
        events.append(make_event(before, action, env.game, len(events)))
        actions.append(action)
        if len(actions) % KEYFRAME_EVERY == 0:
            keyframes.append(env.game.clone())
    if result.complete:
        summary = f"replay OK: {result.turns} actions, every one legal; final scores match"
    elif result.abandoned:
        summary = f"replay OK: the game was abandoned at turn {result.turns}"
    else:
        summary = f"partial replay: {result.turns} actions, every one legal; the log has no end record"
    seen = Seen.pack(events, [None, *range(keyframes[0].num_players)])
    header = dict(log.header)
    header.pop("deal", None)  # the keyframes hold the deals
    replay = Replay(header=header, keyframes=keyframes, actions=actions, seen=seen,
                    summary=summary, complete=result.complete, options=dict(env.options),
                    load_policy=load_policy)
    # a game's objects take about 2.5 times its pickled size (measured: 12 KiB a Kansas City
    # keyframe, 4.8 KiB pickled), an action id in a list 36 bytes; the count errs high
    replay.nbytes = (3 * sum(len(pickle.dumps(g, pickle.HIGHEST_PROTOCOL)) for g in keyframes)
                     + seen.nbytes + 36 * len(actions) + 2 * len(repr(header)) + 4096)
    return replay
