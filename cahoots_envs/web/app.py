"""The browser view's web app (``create_app``): the JSON API of ``API.md`` and the static page,
put together from its parts, each a module of its own concern:

- ``routes.py``: the routes, each request read and checked, its answer JSON (or a stream);
- ``server.py``: the server's state, the policies a seat may name, and the lanes where
  requests' work runs off the event loop (heavy work bounded);
- ``sessions.py``: sessions and the fair limits (caps per session, address and server, in
  items and in replays' bytes; who gives way; the idle sweep);
- ``bots.py``: where bots decide, and the server's budget for a search seat;
- ``stream.py``: one stream of a game's moves (server-sent events);
- ``tables.py`` and ``replays.py``: what is sent (tables, legal moves in parts, moves as each
  viewer saw them), live games and uploaded logs.

Safe by default: every error is one JSON sentence (``{"error": ..., "status": ...}``), never a
traceback; request bodies are bounded (64 KiB, an uploaded log 2 MB) and checked before use;
the client names policies by id only (``random``, ``heuristic``, ``search...``, ``zoo:<name>``,
``file:<name>`` for a file given to ``serve``), never a path; every response carries a
Content-Security-Policy of this origin only, ``nosniff`` and no framing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cahoots_envs.web.replays import ReplayProcesses
from cahoots_envs.web.routes import Api, Json
from cahoots_envs.web.server import Server
from cahoots_envs.web.sessions import Limits
from cahoots_envs.web.tables import policy_files

__all__ = ["SECURITY_HEADERS", "Limits", "Server", "create_app"]

# on every response: scripts, styles, images and requests from this origin only (no inline
# script or style), no plugins, never framed, no type sniffing, no referrer sent elsewhere
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self'; connect-src 'self'; font-src 'self'; "
                               "object-src 'none'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
_KEYS = {k.encode("latin-1") for k in SECURITY_HEADERS}
_RAW_HEADERS = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every HTTP response (pages, files, errors)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":  # the answer's own, then these
                message["headers"] = [*(h for h in message.get("headers", ())
                                        if h[0].lower() not in _KEYS), *_RAW_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    what = {404: "no such page or route (the API is under /api/; see API.md)",
            405: "this route does not take that method"}.get(status, "request refused")
    return Json({"error": what, "status": status}, status, headers=SECURITY_HEADERS)


def create_app(policies: Sequence[str | Path] = (), limits: Limits | None = None) -> Starlette:
    """The app: the API of ``API.md`` and the static page. ``policies``: the policy files the
    client may choose (by their ids, ``file:<stem>``), checked to exist here; ``limits``: the
    caps, session minting, the bots' budgets and the heavy work's bound (``Limits``)."""
    for path in policies:
        if not Path(path).exists():
            raise ValueError(f"--policy {path}: no such file")
    server = Server(policy_files(policies), limits or Limits())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """Idle games, replays and sessions swept on a timer; the workers stopped at the end."""

        async def sweeper() -> None:
            limits = server.limits  # at least twice per idle period, so none outlives it long
            while True:
                await asyncio.sleep(min(limits.sweep_seconds, limits.idle_seconds / 2))
                server.sessions.sweep()

        task = asyncio.create_task(sweeper())
        ReplayProcesses.start(server.limits.heavy_workers)  # before the first upload waits
        try:
            yield
        finally:
            task.cancel()
            server.close()
            ReplayProcesses.stop()

    app = Starlette(routes=Api(server).routes(), middleware=[Middleware(SecurityHeaders)],
                    lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: http_error})
    app.state.server = server
    return app
