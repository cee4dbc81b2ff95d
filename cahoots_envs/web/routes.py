"""The browser view's routes (``API.md``): each request read and checked here, its work done
off the event loop (``Server.work``), its answer JSON; the page and the static files.

Every handler takes the request and its session (None without one); errors are ``WebError``
and become one JSON sentence (``{"error": ..., "status": ...}``), never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from cahoots_envs.web.replays import Replay, ReplayProcesses
from cahoots_envs.web.server import Server
from cahoots_envs.web.sessions import Session, client_address
from cahoots_envs.web.stream import MAX_PACE_MS, moves
from cahoots_envs.web.tables import (
    HUMAN,
    PLAYER,
    WATCH,
    Match,
    WebError,
    json_bytes,
    new_match,
)

STATIC = Path(__file__).with_name("static")
RULES_POINTER = re.compile(r"Rules spec: `[^`]*` \(section numbers below refer to it\)\.\s*")
COOKIE = "cahoots_session"
MAX_BODY = 64 * 1024
MAX_WAIT_MS = 5000
Handler = Callable[[Request, "Session | None"], Awaitable[Any]]


def _game_spec(name: Any) -> Any:
    from cahoots_envs.registry import registered_games

    specs = {spec.name: spec for spec in registered_games()}
    if not isinstance(name, str) or name not in specs:
        raise WebError(400, f"unknown game {str(name)[:40]!r}; games: {', '.join(specs)}")
    return specs[name]


def _options(spec: Any, body: dict[str, Any]) -> dict[str, Any]:
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise WebError(400, "'options' must be a JSON object of the game's options")
    if "num_players" in options:
        raise WebError(400, "give the number of players as 'players', not as an option")
    players = body.get("players", spec.rules.DEFAULT_PLAYERS)
    try:
        return dict(spec.resolve_options({**options, "num_players": players}))
    except (ValueError, TypeError) as e:
        raise WebError(400, str(e)[:400]) from None


def _seed(body: dict[str, Any]) -> int | None:
    seed = body.get("seed")
    if seed is None:
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**31:
        raise WebError(400, f"'seed' must be an int from 0 to 2**31 - 1, got {str(seed)[:40]}")
    return seed


async def _read(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise WebError(413, f"the request body is {declared} bytes, more than {limit} allowed")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise WebError(413, f"the request body is more than {limit} bytes allowed")
    return bytes(data)


async def _json(request: Request, required: bool = True) -> dict[str, Any]:
    raw = await _read(request, MAX_BODY)
    if not raw.strip() and not required:
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise WebError(400, "the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise WebError(400, "the request body must be a JSON object, got "
                       f"{type(body).__name__}")
    return body


def _since(value: Any) -> int:
    if value is None or value == "":
        return 0
    text = str(value)
    if not text.isdigit() or len(text) > 9:
        raise WebError(400, f"'since' must be an event index (an int from 0), got {text[:20]!r}")
    return int(text)



def _query_int(value: Any, name: str, most: int) -> int:
    if value is None or value == "":
        return 0
    text = str(value)
    if not text.isdigit() or len(text) > 9 or int(text) > most:
        raise WebError(400, f"'{name}' must be an int from 0 to {most}, got {text[:20]!r}")
    return int(text)


class Json(Response):
    """A JSON answer (``json_bytes``)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json_bytes(content)


def error_response(e: WebError) -> Json:
    return Json({"error": e.message, "status": e.status}, e.status)


class Api:
    """The routes' handlers over ``server`` (see ``API.md``)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.sessions = server.sessions

    # ---- sessions ----------------------------------------------------------------------------
    def address(self, request: Request) -> str:
        client = (request.client.host, request.client.port) if request.client else None
        return client_address(client, request.headers, self.server.limits.trust_forwarded)

    def session_of(self, request: Request) -> Session | None:
        return self.sessions.find(request.cookies.get(COOKIE))

    @staticmethod
    def needs_session(session: Session | None) -> Session:
        if session is None:
            raise WebError(403, "no session: load the page (GET /) first; it starts the session "
                           "(a cookie) that games and replays belong to")
        return session

    def route(self, handler: Handler, status: int = 200) -> Callable[[Request], Awaitable[Response]]:
        """A handler of (request, its session or None) returning JSON; errors become JSON
        errors. The API never starts a session: the page does (``index``)."""

        async def endpoint(request: Request) -> Response:
            try:
                result = await handler(request, self.session_of(request))
                return result if isinstance(result, Response) else Json(result, status)
            except WebError as e:
                return error_response(e)
            except Exception as e:  # noqa: BLE001 (a bug: one line, never a traceback)
                return Json({"error": f"internal error ({type(e).__name__}); the "
                                     "server goes on", "status": 500}, 500)

        return endpoint

    # ---- what can be played ------------------------------------------------------------------
    async def games(self, request: Request, session: Session | None) -> Any:
        from cahoots_envs.registry import registered_games

        found = []
        for spec in registered_games():
            doc = [p.strip() for p in spec.doc().strip().split("\n\n")
                   if p.strip()[:1].isalnum()]
            # the summary in words: no pointer to the spec (the page shows it: ``rules``), no
            # markdown marks
            doc = [" ".join(RULES_POINTER.sub("", p).replace("**", "").replace("`", "").split())
                   for p in doc[:1]]
            found.append({
                "name": spec.name, "env_id": spec.env_id, "title": spec.title,
                "players": list(spec.rules.PLAYER_COUNTS),
                "default_players": spec.rules.DEFAULT_PLAYERS,
                "cooperative": bool(getattr(spec.rules, "COOPERATIVE", False)),
                "options": [{"name": o.name, "default": o.default, "doc": o.doc,
                             "accepts": o.describe(),
                             "choices": list(o.choices) if o.choices is not None else None,
                             "int_range": list(o.int_range) if o.int_range else None}
                            for o in spec.rules.OPTIONS
                            if o.name not in ("num_players", "reward_mode")],
                "policies": self.server.policies_for(spec),
                "summary": doc[0] if doc else "",
                # the rules spec as HTML (rules_html.py), where the game has one
                "rules": f"/static/rules/{spec.name}.html"
                if (STATIC / "rules" / f"{spec.name}.html").is_file() else None,
            })
        return {"games": found, "limits": self.server.limits.public()}

    # ---- live games --------------------------------------------------------------------------
    async def start(self, request: Request, session: Session | None, mode: str) -> Any:
        session = self.needs_session(session)
        body = await _json(request)
        spec = _game_spec(body.get("game"))
        options = _options(spec, body)
        seed = _seed(body)
        n = options["num_players"]
        ids = body.get("policies")
        if not isinstance(ids, list) or len(ids) != n:
            raise WebError(400, f"'policies' must list one policy id per seat ({n} seats)"
                           + (f", '{HUMAN}' at your seat" if mode == PLAYER else ""))
        humans = [s for s, p in enumerate(ids) if p == HUMAN]
        if mode == PLAYER:
            seat = body.get("seat", humans[0] if humans else None)
            if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n):
                raise WebError(400, f"'seat' must be your seat, an int from 0 to {n - 1}")
            if humans != [seat]:
                raise WebError(400, f"'policies' must hold '{HUMAN}' at your seat ({seat}) and "
                               "only there")
        elif humans:
            raise WebError(400, f"a watched game has no '{HUMAN}' seat; use POST /api/play")
        self.sessions.check_room(session)
        server = self.server

        def build() -> tuple[Match, dict[str, Any]]:  # policies loaded, the table dealt
            loaded = [(None, "you") if p == HUMAN else
                      server.load(p, spec, options, None if seed is None else seed + 1 + s)
                      for s, p in enumerate(ids)]
            match = new_match(spec, options, [policy for policy, _ in loaded],
                              [name for _, name in loaded], seed, mode)
            return match, match.state()

        match, state = await server.work.heavy(build)
        self.sessions.add(session, match)
        return state

    async def play(self, request: Request, session: Session | None) -> Any:
        return await self.start(request, session, PLAYER)

    async def watch(self, request: Request, session: Session | None) -> Any:
        return await self.start(request, session, WATCH)

    async def state(self, request: Request, session: Session | None) -> Any:
        match = self.sessions.get(session, request.path_params["id"], Match)
        since = _since(request.query_params.get("since"))
        view = request.query_params.get("view")

        def answer() -> tuple[bool, dict[str, Any]]:
            with match.lock:
                return match.finish_bot(), match.state(since, view)

        moved, out = await self.server.work.answer(answer)
        if moved:
            match.changed()
        return out

    async def move(self, request: Request, session: Session | None) -> Any:
        match = self.sessions.get(session, request.path_params["id"], Match)
        body = await _json(request)
        if "action" not in body and "move" not in body:
            raise WebError(400, "the body must name the move: {\"action\": <action id>} or "
                           "{\"move\": {\"verb\": ..., \"cards\": [...], \"target\": ...}}")
        since = _since(body.get("since"))

        def answer() -> dict[str, Any]:
            with match.lock:
                match.finish_bot()
                match.move(body.get("action"), body.get("move"))
                return match.state(since)

        try:
            return await self.server.work.answer(answer)
        finally:
            match.changed()

    async def advance(self, request: Request, session: Session | None) -> Any:
        import asyncio

        match = self.sessions.get(session, request.path_params["id"], Match)
        assert session is not None
        body = await _json(request, required=False)
        wait = body.get("wait_ms", 1000)
        if not isinstance(wait, (int, float)) or isinstance(wait, bool) or not 0 <= wait <= MAX_WAIT_MS:
            raise WebError(400, f"'wait_ms' must be a number from 0 to {MAX_WAIT_MS}")
        since = _since(body.get("since"))
        view = body.get("view") if match.mode == WATCH else None
        submit = self.server.submit(session, match)
        work = self.server.work

        def begin() -> tuple[bool, Any]:
            with match.lock:
                if match.finish_bot():
                    return True, None
                return False, match.start_bot(submit)

        def answer(advanced: bool) -> dict[str, Any]:
            with match.lock:
                advanced = match.finish_bot() or advanced
                out = match.state(since, view)
                out["advanced"] = advanced
                return out

        advanced, future = await work.answer(begin)
        if future is not None:
            await asyncio.wait([asyncio.wrap_future(future)], timeout=wait / 1000)
        try:
            return await work.answer(lambda: answer(advanced))
        finally:
            match.changed()

    async def stream(self, request: Request, session: Session | None) -> Any:
        match = self.sessions.get(session, request.path_params["id"], Match)
        assert session is not None
        query = request.query_params
        since = _since(request.headers.get("last-event-id") or query.get("since"))
        pace = _query_int(query.get("pace_ms"), "pace_ms", MAX_PACE_MS) / 1000
        view = query.get("view") if match.mode == WATCH else None
        match.view_seat(view)  # a bad view: 400 before the stream starts
        return StreamingResponse(moves(self.server, session, match, since, view, pace),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def log(self, request: Request, session: Session | None) -> Any:
        match = self.sessions.get(session, request.path_params["id"], Match)
        name = f"{match.game.face.name}-{match.id}.jsonl"

        def text() -> str:
            with match.lock:
                return match.log_text()

        return Response(await self.server.work.answer(text), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def delete(self, request: Request, session: Session | None) -> Any:
        key = request.path_params["id"]
        self.sessions.drop(session, key)
        return {"deleted": key}

    # ---- replays -----------------------------------------------------------------------------
    async def upload(self, request: Request, session: Session | None) -> Any:
        session = self.needs_session(session)
        raw = await _read(request, self.server.limits.upload_bytes)
        self.sessions.check_room(session)
        server = self.server

        def build() -> Replay:  # the log checked and replayed in a worker process
            replay = ReplayProcesses.load(raw, server.limits.heavy_workers)
            replay.load_policy = server.replay_policy(replay.options, replay.env_id)
            return replay

        replay = await server.work.heavy(build)
        self.sessions.add(session, replay)
        return replay.describe()

    async def position(self, request: Request, session: Session | None) -> Any:
        replay = self.sessions.get(session, request.path_params["id"], Replay)
        k = request.path_params["k"]
        if not k.isdigit() or len(k) > 9:
            raise WebError(400, f"the position must be an int from 0, got {k[:20]!r}")
        view = request.query_params.get("view")
        return await self.server.work.answer(lambda: replay.position(int(k), view))

    # ---- the page ----------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        """The page; a client without a live session gets a new one here (and only here), at
        most ``sessions_per_minute`` a minute per address."""
        if self.session_of(request) is not None:
            return FileResponse(STATIC / "index.html")
        where = self.address(request)
        session = self.sessions.mint(where)
        if session is None:
            wait = self.sessions.retry_after(where)
            return HTMLResponse(
                "<!doctype html><title>cahoots serve: too many new sessions</title>"
                f"<p>Too many new sessions from your address; reload in {wait} s.</p>", 429,
                headers={"Retry-After": str(wait)})
        response = FileResponse(STATIC / "index.html")
        response.set_cookie(COOKIE, session.token, httponly=True, samesite="strict", path="/")
        return response

    async def favicon(self, request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    def routes(self) -> list[BaseRoute]:
        route = self.route
        return [
            Route("/", self.index),
            Route("/favicon.ico", self.favicon),
            Route("/api/games", route(self.games)),
            Route("/api/play", route(self.play, 201), methods=["POST"]),
            Route("/api/watch", route(self.watch, 201), methods=["POST"]),
            Route("/api/games/{id}/state", route(self.state)),
            Route("/api/games/{id}/move", route(self.move), methods=["POST"]),
            Route("/api/games/{id}/advance", route(self.advance), methods=["POST"]),
            Route("/api/games/{id}/stream", route(self.stream)),
            Route("/api/games/{id}/log", route(self.log)),
            Route("/api/games/{id}", route(self.delete), methods=["DELETE"]),
            Route("/api/replays", route(self.upload, 201), methods=["POST"]),
            Route("/api/replays/{id}/position/{k}", route(self.position)),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
