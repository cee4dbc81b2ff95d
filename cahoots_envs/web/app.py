"""The browser view's web app (``create_app``): the JSON API of ``API.md`` and the static page.

Safe by default: every error is one JSON sentence (``{"error": ..., "status": ...}``), never a
traceback; request bodies are bounded (64 KiB, an uploaded log 2 MB) and checked before use;
the client names policies by id only (``random``, ``heuristic``, ``search...``, ``zoo:<name>``,
``file:<name>`` for a file given to ``serve``), never a path; each browser session (a random
token in an ``HttpOnly`` cookie) sees only its own games; live games are limited per session
and in total and idle ones are dropped; a bot decides in a worker thread, a search bot within
its time limit, so no request waits on another's bot.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

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

STATIC = Path(__file__).with_name("static")
COOKIE = "cahoots_session"
MAX_BODY = 64 * 1024
MAX_UPLOAD = 2_000_000
SEARCH_TIME_LIMIT = 10.0  # seconds a search bot's decision may take when its id sets none
MAX_WAIT_MS = 5000


@dataclass
class Limits:
    per_session: int = 8
    total: int = 256
    idle_seconds: float = 1800.0
    upload_bytes: int = MAX_UPLOAD


@dataclass
class Server:
    """The app's state: every session's games and replays, the policy files given at start,
    the bots' worker threads."""

    files: dict[str, Path]
    limits: Limits = field(default_factory=Limits)
    sessions: dict[str, dict[str, Match | Replay]] = field(default_factory=dict)
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(4, thread_name_prefix="cahoots-bot"))

    # ---- sessions ----------------------------------------------------------------------------
    def sweep(self) -> None:
        """Drop every game idle for longer than the limit (a bot still thinking keeps it)."""
        now = time.monotonic()
        for token in list(self.sessions):
            items = self.sessions[token]
            for key in list(items):
                item = items[key]
                if now - item.touched > self.limits.idle_seconds and item.thinking is None:
                    del items[key]
            if not items:
                del self.sessions[token]

    def live(self) -> int:
        return sum(len(items) for items in self.sessions.values())

    def room(self, token: str) -> None:
        """Raise the limit's error (429) when ``token``'s session may hold no more."""
        self.sweep()
        items = self.sessions.get(token, {})
        if len(items) >= self.limits.per_session:
            raise WebError(429, f"this session has {len(items)} live games and replays, the most "
                           "it may hold; delete one (DELETE /api/games/<id>) or wait for idle "
                           "ones to expire")
        if self.live() >= self.limits.total:
            raise WebError(429, "the server holds as many live games as it may; try again later")

    def add(self, token: str, item: Match | Replay) -> None:
        self.room(token)
        self.sessions.setdefault(token, {})[item.id] = item

    def get(self, token: str, key: str, kind: type[Match | Replay]) -> Any:
        item = self.sessions.get(token, {}).get(key)
        if not isinstance(item, kind):
            what = "game" if kind is Match else "replay"
            raise WebError(404, f"no {what} {key[:40]!r} in this session (it may have expired)")
        item.touched = time.monotonic()
        return item

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

    def policy_spec(self, policy_id: Any, spec: Any) -> str:
        """The ``load_policy`` spec of a policy id (a ``file:`` id becomes its path here, and
        only here: the client never names a path)."""
        if not isinstance(policy_id, str) or not policy_id.strip():
            raise WebError(400, f"a policy is named by its id (a string such as 'heuristic'), "
                           f"got {json.dumps(policy_id)[:40]}")
        if policy_id == "search" or policy_id.startswith(("search:", "search@")):
            head, _, inner = policy_id.partition(":")
            if "time_limit=" not in head:
                head += ("," if "@" in head else "@") + f"time_limit={SEARCH_TIME_LIMIT}"
            if not inner:  # plain search: the game's default blueprint (load_search_policy)
                return head
            return f"{head}:{self.policy_spec(inner, spec)}"
        if policy_id in ("random", "heuristic") or policy_id.startswith("zoo:"):
            return policy_id
        if policy_id in self.files:
            return str(self.files[policy_id])
        known = ", ".join(p["id"] for p in self.policies_for(spec))
        raise WebError(400, f"unknown policy {policy_id[:60]!r}; policies for {spec.name}: {known} "
                       "(a search bot over one: search:<id>)")

    def load(self, policy_id: Any, spec: Any, options: dict[str, Any], seed: int | None) -> Any:
        from cahoots_envs.policies.loading import load_policy

        text = self.policy_spec(policy_id, spec)
        try:
            return load_policy(text, spec.env_id, options, seed=seed)
        except Exception as e:  # noqa: BLE001 (a policy that cannot play this game, however)
            raise WebError(400, f"policy {str(policy_id)[:60]!r} cannot play {spec.name} with "
                           f"these options: {str(e)[:300]}") from None

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
    client may choose (by their ids, ``file:<stem>``), checked to exist here."""
    for path in policies:
        if not Path(path).exists():
            raise ValueError(f"--policy {path}: no such file")
    server = Server(policy_files(policies), limits or Limits())

    Handler = Callable[[Request, str], Awaitable[Any]]

    def route(handler: Handler, status: int = 200) -> Callable[[Request], Awaitable[Response]]:
        """A handler of (request, session token) returning JSON; errors become JSON errors and
        a new session gets its cookie."""

        async def endpoint(request: Request) -> Response:
            token = request.cookies.get(COOKIE, "")
            fresh = not (20 <= len(token) <= 64 and token.replace("-", "").replace("_", "").isalnum())
            if fresh:
                token = secrets.token_urlsafe(24)
            try:
                result = await handler(request, token)
                response = result if isinstance(result, Response) else JSONResponse(result, status)
            except WebError as e:
                response = JSONResponse({"error": e.message, "status": e.status}, e.status)
            except Exception as e:  # noqa: BLE001 (a bug: one line, never a traceback)
                response = JSONResponse({"error": f"internal error ({type(e).__name__}); the "
                                         "server goes on", "status": 500}, 500)
            if fresh:
                response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
            return response

        return endpoint

    async def games(request: Request, token: str) -> Any:
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
        limits = server.limits
        return {"games": found, "limits": {
            "per_session": limits.per_session, "total": limits.total,
            "idle_seconds": limits.idle_seconds, "upload_bytes": limits.upload_bytes}}

    async def start(request: Request, token: str, mode: str) -> Any:
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
        server.room(token)
        loaded = [None if p == HUMAN else server.load(p, spec, options,
                                                      None if seed is None else seed + 1 + s)
                  for s, p in enumerate(ids)]
        names = ["you" if p == HUMAN else str(p) for p in ids]
        match = new_match(spec, options, loaded, names, seed, mode)
        server.add(token, match)
        return match.state()

    async def play(request: Request, token: str) -> Any:
        return await start(request, token, PLAYER)

    async def watch(request: Request, token: str) -> Any:
        return await start(request, token, WATCH)

    async def state(request: Request, token: str) -> Any:
        match = server.get(token, request.path_params["id"], Match)
        match.finish_bot()
        return match.state(_since(request.query_params.get("since")),
                           request.query_params.get("view"))

    async def move(request: Request, token: str) -> Any:
        match = server.get(token, request.path_params["id"], Match)
        body = await _json(request)
        if "action" not in body:
            raise WebError(400, "the body must name the move: {\"action\": <action id>}")
        match.finish_bot()
        match.move(body["action"])
        return match.state(_since(body.get("since")))

    async def advance(request: Request, token: str) -> Any:
        match = server.get(token, request.path_params["id"], Match)
        body = await _json(request, required=False)
        wait = body.get("wait_ms", 1000)
        if not isinstance(wait, (int, float)) or isinstance(wait, bool) or not 0 <= wait <= MAX_WAIT_MS:
            raise WebError(400, f"'wait_ms' must be a number from 0 to {MAX_WAIT_MS}")
        advanced = match.finish_bot()
        if not advanced:
            future = match.start_bot(server.executor)
            if future is not None:
                waiting = asyncio.wrap_future(future)
                await asyncio.wait([waiting], timeout=wait / 1000)
                advanced = match.finish_bot()
        out = match.state(_since(body.get("since")), body.get("view") if match.mode == WATCH
                          else None)
        out["advanced"] = advanced
        return out

    async def log(request: Request, token: str) -> Any:
        match = server.get(token, request.path_params["id"], Match)
        name = f"{match.game.face.name}-{match.id}.jsonl"
        return Response(match.log_text(), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def delete(request: Request, token: str) -> Any:
        key = request.path_params["id"]
        items = server.sessions.get(token, {})
        if key not in items:
            raise WebError(404, f"no game or replay {key[:40]!r} in this session")
        del items[key]
        return {"deleted": key}

    async def upload(request: Request, token: str) -> Any:
        raw = await _read(request, server.limits.upload_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WebError(400, "upload:1: not UTF-8 text; not a game log?") from None
        server.room(token)
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
        server.add(token, replay)
        return replay.describe()

    async def position(request: Request, token: str) -> Any:
        replay = server.get(token, request.path_params["id"], Replay)
        k = request.path_params["k"]
        if not k.isdigit() or len(k) > 9:
            raise WebError(400, f"the position must be an int from 0, got {k[:20]!r}")
        return replay.position(int(k), request.query_params.get("view"))

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        what = {404: "no such page or route (the API is under /api/; see API.md)",
                405: "this route does not take that method"}.get(status, "request refused")
        return JSONResponse({"error": what, "status": status}, status)

    routes = [
        Route("/", index),
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
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                       Exception: http_error})
    app.state.server = server
    return app
