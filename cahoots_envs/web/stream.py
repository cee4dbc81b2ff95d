"""One stream of a game's moves (server-sent events, ``GET /api/games/{id}/stream``): the bots'
moves pushed as they are made, instead of one request per bot move. No web library here: the
stream is an async iterator of the frames' bytes, which the route sends as ``text/event-stream``.

While the stream is open the server plays the game's bots, one decision at a time on the bots'
workers (``bots.py``), at least ``pace`` seconds between two moves it sends (the decision runs
during the pause). Unpaced (``pace`` 0), the light bots (random, rule-based, networks: no
search) move at once on the stream's worker, up to a human's or a search bot's turn (at most
``BATCH_SECONDS`` of their work), and their moves come in one frame; a played game's stream waits at the human's turn until the move is made
(``POST .../move`` wakes it). Every frame is ``event: state``, ``id:`` the number of moves so
far, ``data:`` the state answer of ``GET .../state`` with the moves since the last frame. The
stream ends with ``event: end`` once the game is over, ``event: failed`` (a JSON error) when
the game goes or its bot fails, ``event: replaced`` when a newer stream of the same game takes
its place, and quietly when the client goes away; a comment line every ``KEEPALIVE`` seconds keeps an idle one open. A
closed stream leaves a decision running to be applied by the next stream or ``advance``.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from typing import Any

from cahoots_envs.web.server import Server
from cahoots_envs.web.sessions import Session
from cahoots_envs.web.tables import Match, WebError, json_bytes

KEEPALIVE = 15.0
MAX_PACE_MS = 10_000
BATCH_SECONDS = 0.05  # light bots' work a frame may hold when unpaced


def frame(event: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return b"%sdata: %s\n\n" % (head.encode(), json_bytes(data))


def _step(match: Match, submit: Callable[[Callable[[], int], bool], Future[int]], since: int,
          view: str | None, batch: bool) -> tuple[dict[str, Any], Future[int] | None]:
    """Apply the finished decision (with ``batch``, the light bots' next moves too), start the
    next one, and the state since ``since`` (on a worker thread, under the game's lock)."""
    with match.lock:
        match.finish_bot()
        if batch:
            match.play_light(BATCH_SECONDS)
        future = match.start_bot(submit)
        return match.state(since, view), future


async def moves(server: Server, session: Session, match: Match, since: int, view: str | None,
                pace: float) -> AsyncIterator[bytes]:
    """The frames of ``match``'s stream (see the module docstring)."""
    wake = asyncio.Event()
    old, match.wake = match.wake, wake
    match.streams += 1
    mine = match.streams
    if old is not None:
        old.set()  # the older stream sees it is replaced and ends
    submit = server.submit(session, match)
    sent, last, first = since, 0.0, True
    try:
        while True:
            if match.streams != mine:
                yield frame("replaced", {"events_total": sent})
                return
            if match.stop.is_set():
                yield frame("failed", {"error": "this game was deleted or expired", "status": 404})
                return
            wake.clear()
            try:
                state, future = await server.work.answer(functools.partial(_step, match, submit, sent,
                                                                           view, pace == 0))
            except WebError as e:
                yield frame("failed", {"error": e.message, "status": e.status})
                return
            if first or state["events_total"] > sent:
                match.touched = time.monotonic()
                sent, last, first = state["events_total"], time.monotonic(), False
                yield frame("state", state, sent)
            if state["over"]:
                yield frame("end", {"over": True, "events_total": sent})
                return
            waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(wake.wait())]
            if future is not None:
                decided = asyncio.wrap_future(future)
                # its error is the next step's (finish_bot): never "exception never retrieved"
                decided.add_done_callback(lambda f: f.cancelled() or f.exception())
                waits.append(decided)
            try:
                done, _ = await asyncio.wait(waits, timeout=KEEPALIVE,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                waits[0].cancel()
            if not done:
                yield b": keep-alive\n\n"
                continue
            if future is not None and future.done() and not wake.is_set():
                rest = last + pace - time.monotonic()  # the pause between two moves shown
                if rest > 0:
                    with_wake = asyncio.ensure_future(wake.wait())
                    try:
                        await asyncio.wait([with_wake], timeout=rest)
                    finally:
                        with_wake.cancel()
    finally:
        if match.wake is wake:
            match.wake = None
