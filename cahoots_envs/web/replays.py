"""Uploaded game logs in the browser view (``Replay``), bounded in bytes. No web library here.

A replay keeps what it needs to rebuild any position, not every position: the actions, the
game at every ``KEYFRAME_EVERY``-th position (a keyframe), and the moves as each viewer saw
them packed into one string per viewer. Position ``k`` is the keyframe at or before it, cloned,
with the actions since applied (at most ``KEYFRAME_EVERY - 1``: a few milliseconds). A replay
reports its size (``nbytes``: the keyframes' pickled size, the packed texts and the actions),
which the server's byte caps count (``sessions.py``; ``replay_bytes``: every object it holds,
counted once): about 400 KiB for an 880-move Kansas City game, where a clone of the game at
every position took 8.5 MiB.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import secrets
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
    load_policy: Callable[[str, int], Any | None] | None
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
        policy = self.load_policy(name, seat) if self.load_policy is not None else None
        moves = probabilities(policy, game, seat, self.options) if policy is not None else None
        if moves is None:
            return None
        return {"policy": name, "seat": seat, "moves": moves}


def _deep_size(obj: Any, seen: set[int]) -> int:
    """The bytes ``obj`` holds with everything it reaches, each object once (``seen``: ids
    already counted or not to count); the small ints Python shares cost nothing."""
    if id(obj) in seen or (type(obj) is int and -5 <= obj <= 256) or obj is None \
            or isinstance(obj, (bool, type)):
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(_deep_size(k, seen) + _deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(_deep_size(x, seen) for x in obj)
    elif isinstance(obj, np.random.Generator):
        size += 1024  # its bit generator's state
    elif hasattr(obj, "__dict__") and not callable(obj):
        size += _deep_size(vars(obj), seen)
    return size


def _fresh(replay: Replay) -> Game:
    """A new game of the replay's game and options: what every game shares is its too."""
    spec: Any = replay.keyframes[0].face
    return spec.new_game(replay.options, np.random.default_rng(0))  # type: ignore[no-any-return]


def replay_bytes(replay: Replay) -> int:
    """What ``replay`` holds, counted high: its keyframes, actions, packed moves and header,
    each object once, but for what a game shares with every other game (the spec, cahoots_coop's 3.8 MB
    of goal tables: not the replay's)."""
    seen = {id(value) for value in vars(_fresh(replay)).values()}
    held = (_deep_size(replay.keyframes, seen) + _deep_size(replay.actions, seen)
            + _deep_size(replay.seen.texts, seen) + len(replay.seen.notes)
            + len(replay.seen.seats) + _deep_size(replay.header, seen))
    return int(1.4 * held) + 16384  # the allocator's share, lists grown by appends: high


def load_replay(text: str, load_policy: Callable[[str, int], Any | None] | None) -> Replay:
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
    replay.nbytes = replay_bytes(replay)
    return replay


# ---- a log's replay in a process of its own -------------------------------------------------------
def load_upload(raw: bytes) -> Replay:
    """``load_replay`` of an upload's bytes (``WebError`` 400 if they are not UTF-8)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise WebError(400, "upload:1: not UTF-8 text; not a game log?") from None
    return load_replay(text, None)


def _load_pickled(raw: bytes) -> tuple[int, Any]:
    """In a worker process: ``(0, the pickled replay)`` of an upload's bytes, or ``(status,
    message)`` of the ``WebError`` refusing it. What the keyframes share with every game of
    theirs (the spec, cahoots_coop's goal tables) is left out: ``_unpickled`` puts it back."""
    try:
        replay = load_upload(raw)
    except WebError as e:
        return e.status, e.message
    fresh = vars(_fresh(replay))
    shared = [name for name, value in fresh.items()  # the same object in every game
              if not isinstance(value, (int, float, str, type(None)))
              and all(game.__dict__.get(name) is value for game in replay.keyframes)]
    for game in replay.keyframes:
        for name in shared:
            del game.__dict__[name]
    return 0, (pickle.dumps(replay, pickle.HIGHEST_PROTOCOL), shared)


def _unpickled(data: tuple[bytes, list[str]]) -> Replay:
    """The replay ``_load_pickled`` sent (one pickle: what its keyframes share stays shared;
    6 ms to read for 880 moves), with the fields every game shares put back and equal values
    made one object again, Python's lock let go between two keyframes (the event loop's
    turn)."""
    from cahoots_envs.registry import game_spec

    pickled, shared = data
    replay: Replay = pickle.loads(pickled)
    spec = game_spec(replay.header["env_id"], replay=True)
    made = vars(spec.new_game(replay.options, np.random.default_rng(0)))
    canon: dict[Any, Any] = {}
    for game in replay.keyframes:
        for name in shared:
            game.__dict__[name] = made[name]
        for value in game.__dict__.values():
            _share(value, canon)
        time.sleep(0)
    replay.nbytes = replay_bytes(replay)  # what it holds here
    return replay


def _share(value: Any, canon: dict[Any, Any]) -> None:
    """Make equal ints, strings and tuples in ``value``'s lists and dicts one object, as the
    keyframes of a game stepped in this process share them (each keyframe read on its own
    makes a copy of each: twice the memory)."""
    if isinstance(value, list):
        items: Any = enumerate(value)
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        return
    for key, x in items:
        if isinstance(x, (list, dict)):
            _share(x, canon)
        elif isinstance(x, (int, str, tuple)) and not isinstance(x, bool):
            try:
                value[key] = canon.setdefault((type(x), x), x)
            except TypeError:  # a tuple holding a list
                pass


def _builtin(raw: bytes) -> bool:
    """Whether an upload's header names a built-in game (or names none: the check refuses it)
    rather than one registered in this process only, which a worker process would not know."""
    from cahoots_envs.registry import builtin_games

    try:
        env_id = str(json.loads(raw.split(b"\n", 1)[0])["env_id"])
    except (ValueError, KeyError, TypeError):
        return True
    return env_id.split("/")[-1].split("-v")[0] in {s.name for s in builtin_games()}


def _orphan_watch(parent: int) -> None:
    """In a worker process: exit as soon as the server's process is gone, however it went (a
    worker must never outlive it, holding its pipes and memory)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="cahoots-orphan-watch").start()


class ReplayProcesses:
    """Worker processes that check and replay uploaded logs, so that the server's own process
    (its event loop, its answers) is not slowed by a long log's replay: the replay comes back
    pickled (150 KiB for 880 moves, 6 ms to read). One pool a process, shared by the apps in it
    (tests make many), started on first use or by ``start``."""

    _pool: ProcessPoolExecutor | None = None
    _lock = threading.Lock()

    @classmethod
    def pool(cls, workers: int) -> ProcessPoolExecutor:
        with cls._lock:
            if cls._pool is None:
                cls._pool = ProcessPoolExecutor(
                    workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_orphan_watch, initargs=(os.getpid(),))
            return cls._pool

    @classmethod
    def stop(cls) -> None:
        """Stop the workers (the server stops); the next upload starts new ones."""
        with cls._lock:
            pool, cls._pool = cls._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    @classmethod
    def start(cls, workers: int) -> None:
        """Start the workers now (they import the package: a second or two)."""
        pool = cls.pool(workers)
        for _ in range(workers):
            pool.submit(int)

    @classmethod
    def load(cls, raw: bytes, workers: int) -> Replay:
        """The replay of an upload's bytes, made in a worker process (``WebError`` as
        ``load_replay``'s); its ``load_policy`` is the caller's to set. A game registered in
        this process only (not built in) is replayed here, on the calling thread."""
        if not _builtin(raw):
            return load_upload(raw)
        try:
            status, found = cls.pool(workers).submit(_load_pickled, raw).result()
        except BrokenProcessPool:
            with cls._lock:
                cls._pool = None  # the next upload starts a new pool
            raise WebError(503, "the replay worker stopped; upload the log again") from None
        if status:
            raise WebError(status, found)
        return _unpickled(found)
