"""The browser view's web app (``create_app``): the JSON API of ``API.md`` and the static page.

Safe by default: every error is one JSON sentence (``{"error": ..., "status": ...}``), never a
traceback; request bodies are bounded (64 KiB, an uploaded log 2 MB) and checked before use;
the client names policies by id only (``random``, ``heuristic``, ``search...``, ``zoo:<name>``,
``file:<name>`` for a file given to ``serve``), never a path; every response carries a
Content-Security-Policy of this origin only, ``nosniff`` and no framing.

Fair under real use (``sessions.py``): a session (a random token in an ``HttpOnly`` cookie) is
minted only when the page loads, a limited number a minute per client address, and sees only its
own games; live games are capped per session, per address and in all, a full server makes room
from the heaviest holder's idle games, and idle ones are swept on a timer. The server owns the
bots' budgets (``bots.py``): a search seat's settings are clamped to its limits, searches run
on their own fairly shared workers and light bots on theirs, and a game's decision is cancelled
when the game goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cahoots_envs.web.bots import Bots, SearchBudget
from cahoots_envs.web.sessions import Limits, Session, Sessions, client_address
from cahoots_envs.web.tables import (
    HUMAN,
    PLAYER,
    WATCH,
    Match,
    Replay,
    WebError,
    load_replay,
    new_match,
    policy_files,
)

__all__ = ["SECURITY_HEADERS", "Limits", "Server", "create_app"]

STATIC = Path(__file__).with_name("static")
COOKIE = "cahoots_session"
MAX_BODY = 64 * 1024
MAX_WAIT_MS = 5000
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


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every HTTP response (pages, files, errors)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


@dataclass
class Server:
    """The app's state: the sessions and their games and replays, the policy files given at
    start, the bots' lanes and budget."""

    files: dict[str, Path]
    limits: Limits = field(default_factory=Limits)
    sessions: Sessions = field(init=False)
    bots: Bots = field(init=False)
    budget: SearchBudget = field(init=False)

    def __post_init__(self) -> None:
        self.sessions = Sessions(self.limits)
        self.bots = Bots(self.limits.search_workers)
        self.budget = self.limits.budget()

    def live(self) -> int:
        return self.sessions.live()

    def items(self) -> dict[str, Match | Replay]:
        """Every live game and replay by id (for tests and the console)."""
        return {k: v for s in self.sessions.by_token.values() for k, v in s.items.items()}

    def submit(self, session: Session, match: Match
               ) -> Callable[[Callable[[], int], bool], Future[int]]:
        """How ``match`` (of ``session``) hands a decision to the bots (``Match.start_bot``)."""

        def submit(call: Callable[[], int], search: bool) -> Future[int]:
            return self.bots.submit(call, search=search, address=session.address,
                                    session=session.token, cancel=match.stop)

        return submit

    # ---- games and policies ------------------------------------------------------------------
    def policies_for(self, spec: Any) -> list[dict[str, str]]:
        from cahoots_envs.policies.loading import list_policies

        found = [{"id": "random", "label": "random moves"},
                 {"id": "heuristic", "label": "rule-based bot"}]
        if spec.has("world_sampler"):
            found.append({"id": "search", "label": "search bot (the game's default search)"})
        for meta in list_policies():
            if meta.get("env_id") == spec.env_id:
                found.append({"id": meta["spec"], "label": f"zoo network {meta['name']}"})
        found += [{"id": key, "label": f"policy file {path.name}"} for key, path in self.files.items()]
        return found

    def policy_spec(self, policy_id: Any, spec: Any) -> tuple[str, str]:
        """The ``load_policy`` spec of a policy id (a ``file:`` id becomes its path here, and
        only here: the client never names a path) and the id as played: a search id with its
        settings clamped to the server's budget (``SearchBudget``)."""
        if not isinstance(policy_id, str) or not policy_id.strip():
            raise WebError(400, f"a policy is named by its id (a string such as 'heuristic'), "
                           f"got {json.dumps(policy_id)[:40]}")
        if policy_id == "search" or policy_id.startswith(("search:", "search@")):
            from cahoots_envs.search import parse_search_spec

            head, _, inner = policy_id.partition(":")
            try:
                knobs = self.budget.clamp(parse_search_spec(head)[0])
            except ValueError as e:
                raise WebError(400, f"policy {policy_id[:60]!r}: {str(e)[:300]}") from None
            head = "search@" + ",".join(f"{k}={_written(v)}" for k, v in knobs.items())
            if not inner:  # plain search: the game's default blueprint (load_search_policy)
                return head, head
            load, shown = self.policy_spec(inner, spec)
            return f"{head}:{load}", f"{head}:{shown}"
        if policy_id in ("random", "heuristic") or policy_id.startswith("zoo:"):
            return policy_id, policy_id
        if policy_id in self.files:
            return str(self.files[policy_id]), policy_id
        known = ", ".join(p["id"] for p in self.policies_for(spec))
        raise WebError(400, f"unknown policy {policy_id[:60]!r}; policies for {spec.name}: {known} "
                       "(a search bot over one: search:<id>)")

    def load(self, policy_id: Any, spec: Any, options: dict[str, Any],
             seed: int | None) -> tuple[Any, str]:
        """The policy of a seat, within the server's budget, and its id as played."""
        from cahoots_envs.policies.loading import load_policy

        text, shown = self.policy_spec(policy_id, spec)
        try:
            policy = load_policy(text, spec.env_id, options, seed=seed)
        except Exception as e:  # noqa: BLE001 (a policy that cannot play this game, however)
            raise WebError(400, f"policy {str(policy_id)[:60]!r} cannot play {spec.name} with "
                           f"these options: {str(e)[:300]}") from None
        if getattr(policy, "needs_infoset", False):
            self.budget.enforce(policy)  # the game's default settings too
        return policy, shown

    def replay_policy(self, replay_options: dict[str, Any], env_id: str) -> Callable[[str, int], Any]:
        """How a replay loads the policy a log names for a seat: a ``zoo:`` id or a file given
        to ``serve`` (never a path from the log), loaded once; None otherwise."""
        cache: dict[str, Any] = {}

        def load(name: str, seat: int) -> Any:
            if name not in cache:
                cache[name] = None
                if name.startswith("zoo:") or name in self.files:
                    from cahoots_envs.policies.loading import load_policy

                    spec = str(self.files.get(name, name))
                    try:
                        cache[name] = load_policy(spec, env_id, replay_options)
                    except Exception:  # noqa: BLE001 (no probabilities shown, the replay goes on)
                        cache[name] = None
            return cache[name]

        return load


def _written(value: Any) -> str:
    """A search setting as a spec writes it (``parse_value`` reads it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:.10g}" if isinstance(value, float) else str(value)


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


def create_app(policies: Sequence[str | Path] = (), limits: Limits | None = None) -> Starlette:
    """The app: the API of ``API.md`` and the static page. ``policies``: the policy files the
    client may choose (by their ids, ``file:<stem>``), checked to exist here; ``limits``: the
    caps, session minting and the bots' budgets (``Limits``)."""
    for path in policies:
        if not Path(path).exists():
            raise ValueError(f"--policy {path}: no such file")
    server = Server(policy_files(policies), limits or Limits())
    sessions = server.sessions

    def address(request: Request) -> str:
        client = (request.client.host, request.client.port) if request.client else None
        return client_address(client, request.headers, server.limits.trust_forwarded)

    def session_of(request: Request) -> Session | None:
        return sessions.find(request.cookies.get(COOKIE))

    def needs_session(session: Session | None) -> Session:
        if session is None:
            raise WebError(403, "no session: load the page (GET /) first; it starts the session "
                           "(a cookie) that games and replays belong to")
        return session

    Handler = Callable[[Request, Session | None], Awaitable[Any]]

    def route(handler: Handler, status: int = 200) -> Callable[[Request], Awaitable[Response]]:
        """A handler of (request, its session or None) returning JSON; errors become JSON
        errors. The API never starts a session: the page does (``index``)."""

        async def endpoint(request: Request) -> Response:
            try:
                result = await handler(request, session_of(request))
                return result if isinstance(result, Response) else JSONResponse(result, status)
            except WebError as e:
                return JSONResponse({"error": e.message, "status": e.status}, e.status)
            except Exception as e:  # noqa: BLE001 (a bug: one line, never a traceback)
                return JSONResponse({"error": f"internal error ({type(e).__name__}); the "
                                     "server goes on", "status": 500}, 500)

        return endpoint

    async def games(request: Request, session: Session | None) -> Any:
        from cahoots_envs.registry import registered_games

        found = []
        for spec in registered_games():
            doc = [p.strip() for p in spec.doc().strip().split("\n\n")
                   if p.strip()[:1].isalnum()]
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
                "policies": server.policies_for(spec),
                "summary": doc[0] if doc else "",
            })
        return {"games": found, "limits": server.limits.public()}

    async def start(request: Request, session: Session | None, mode: str) -> Any:
        session = needs_session(session)
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
        sessions.check_room(session)
        loaded = [(None, "you") if p == HUMAN else
                  server.load(p, spec, options, None if seed is None else seed + 1 + s)
                  for s, p in enumerate(ids)]
        match = new_match(spec, options, [policy for policy, _ in loaded],
                          [name for _, name in loaded], seed, mode)
        sessions.add(session, match)
        return match.state()

    async def play(request: Request, session: Session | None) -> Any:
        return await start(request, session, PLAYER)

    async def watch(request: Request, session: Session | None) -> Any:
        return await start(request, session, WATCH)

    async def state(request: Request, session: Session | None) -> Any:
        match = sessions.get(session, request.path_params["id"], Match)
        match.finish_bot()
        return match.state(_since(request.query_params.get("since")),
                           request.query_params.get("view"))

    async def move(request: Request, session: Session | None) -> Any:
        match = sessions.get(session, request.path_params["id"], Match)
        body = await _json(request)
        if "action" not in body:
            raise WebError(400, "the body must name the move: {\"action\": <action id>}")
        match.finish_bot()
        match.move(body["action"])
        return match.state(_since(body.get("since")))

    async def advance(request: Request, session: Session | None) -> Any:
        match = sessions.get(session, request.path_params["id"], Match)
        assert session is not None
        body = await _json(request, required=False)
        wait = body.get("wait_ms", 1000)
        if not isinstance(wait, (int, float)) or isinstance(wait, bool) or not 0 <= wait <= MAX_WAIT_MS:
            raise WebError(400, f"'wait_ms' must be a number from 0 to {MAX_WAIT_MS}")
        advanced = match.finish_bot()
        if not advanced:
            future = match.start_bot(server.submit(session, match))
            if future is not None:
                waiting = asyncio.wrap_future(future)
                await asyncio.wait([waiting], timeout=wait / 1000)
                advanced = match.finish_bot()
        out = match.state(_since(body.get("since")), body.get("view") if match.mode == WATCH
                          else None)
        out["advanced"] = advanced
        return out

    async def log(request: Request, session: Session | None) -> Any:
        match = sessions.get(session, request.path_params["id"], Match)
        name = f"{match.game.face.name}-{match.id}.jsonl"
        return Response(match.log_text(), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def delete(request: Request, session: Session | None) -> Any:
        key = request.path_params["id"]
        sessions.drop(session, key)
        return {"deleted": key}

    async def upload(request: Request, session: Session | None) -> Any:
        session = needs_session(session)
        raw = await _read(request, server.limits.upload_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WebError(400, "upload:1: not UTF-8 text; not a game log?") from None
        sessions.check_room(session)
        header_options: dict[str, Any] = {}
        env_id = ""
        loaders: dict[str, Any] = {}

        def load_policy(name: str, seat: int) -> Any:
            if "load" not in loaders:
                loaders["load"] = server.replay_policy(header_options, env_id)
            return loaders["load"](name, seat)

        replay = load_replay(text, load_policy)
        header_options.update(replay.options)
        spec: Any = replay.game.face
        env_id = spec.env_id
        sessions.add(session, replay)
        return replay.describe()

    async def position(request: Request, session: Session | None) -> Any:
        replay = sessions.get(session, request.path_params["id"], Replay)
        k = request.path_params["k"]
        if not k.isdigit() or len(k) > 9:
            raise WebError(400, f"the position must be an int from 0, got {k[:20]!r}")
        return replay.position(int(k), request.query_params.get("view"))

    async def index(request: Request) -> Response:
        """The page; a client without a live session gets a new one here (and only here), at
        most ``sessions_per_minute`` a minute per address."""
        if session_of(request) is not None:
            return FileResponse(STATIC / "index.html")
        where = address(request)
        session = sessions.mint(where)
        if session is None:
            wait = sessions.retry_after(where)
            return HTMLResponse(
                "<!doctype html><title>cahoots serve: too many new sessions</title>"
                f"<p>Too many new sessions from your address; reload in {wait} s.</p>", 429,
                headers={"Retry-After": str(wait)})
        response = FileResponse(STATIC / "index.html")
        response.set_cookie(COOKIE, session.token, httponly=True, samesite="strict", path="/")
        return response

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        what = {404: "no such page or route (the API is under /api/; see API.md)",
                405: "this route does not take that method"}.get(status, "request refused")
        return JSONResponse({"error": what, "status": status}, status, headers=SECURITY_HEADERS)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        """Idle games, replays and sessions swept on a timer; the bots stopped at the end."""

        async def sweeper() -> None:
            limits = server.limits  # at least twice per idle period, so none outlives it long
            while True:
                await asyncio.sleep(min(limits.sweep_seconds, limits.idle_seconds / 2))
                sessions.sweep()

        task = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()
            server.bots.close()

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/games", route(games)),
        Route("/api/play", route(play, 201), methods=["POST"]),
        Route("/api/watch", route(watch, 201), methods=["POST"]),
        Route("/api/games/{id}/state", route(state)),
        Route("/api/games/{id}/move", route(move), methods=["POST"]),
        Route("/api/games/{id}/advance", route(advance), methods=["POST"]),
        Route("/api/games/{id}/log", route(log)),
        Route("/api/games/{id}", route(delete), methods=["DELETE"]),
        Route("/api/replays", route(upload, 201), methods=["POST"]),
        Route("/api/replays/{id}/position/{k}", route(position)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)], lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: http_error})
    app.state.server = server
    return app
