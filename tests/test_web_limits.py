"""The browser view under real use: sessions minted only by the page and limited per address,
caps per session, per address and in all with the heaviest holder giving way, idle items swept
on a timer, ``X-Forwarded-For`` read only when trusted; the server's budgets for search seats,
bots that cannot starve each other, a deleted game's search stopped; the security headers on
every route; ``cahoots serve``'s one-line errors and its warning off loopback.

Distinct client addresses are driven through the ASGI scope (``TestClient(app, client=...)``);
the latency test runs the app under uvicorn on 127.0.0.1 and drives it over real HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import httpx

from cahoots_envs import cli
from cahoots_envs.web.app import SECURITY_HEADERS, Limits, create_app
from cahoots_envs.web.bots import Bots
from tests.web_server import pick, running

SHORT = {"game": "kansas_city", "options": {"hands": 1}}


def loaded(app: Any, host: str = "testclient") -> TestClient:
    """A client from address ``host`` that loaded the page (so it has a session)."""
    client = TestClient(app, client=(host, 50000))
    page = client.get("/")
    assert page.status_code == 200 and "cahoots_session" in client.cookies, page.text
    return client


def create(client: TestClient | httpx.Client, policies: list[str] | None = None,
           **body: Any) -> Any:
    return client.post("/api/watch", json={**SHORT, "policies": policies or ["random"] * 4,
                                           **body})


def play_a_whole_game(client: TestClient) -> None:
    """Start a played game (the human and three rule-based bots) and finish it."""
    r = client.post("/api/play", json={**SHORT, "seed": 3,
                                       "policies": ["human"] + ["heuristic"] * 3})
    assert r.status_code == 201, r.json()
    state, rng = r.json(), np.random.default_rng(0)
    while not state["over"]:
        if state["your_turn"]:
            r = client.post(f"/api/games/{state['id']}/move", json=pick(state["legal"], rng))
        else:
            r = client.post(f"/api/games/{state['id']}/advance", json={"wait_ms": 5000})
        assert r.status_code == 200, r.json()
        state = r.json()
    assert client.get(f"/api/games/{state['id']}/log").status_code == 200


def server_of(client: TestClient) -> Any:
    return client.app.state.server  # type: ignore[attr-defined]


# ---- sessions and caps --------------------------------------------------------------------------
def test_500_cookieless_creations_create_nothing_and_a_page_client_still_plays() -> None:
    app = create_app()
    victim = loaded(app)  # the same address as the flood
    flood = TestClient(app, client=("testclient", 50001))
    for _ in range(500):
        r = create(flood)
        assert r.status_code == 403 and "load the page" in r.json()["error"], r.json()
        assert "set-cookie" not in r.headers
    assert server_of(victim).live() == 0
    play_a_whole_game(victim)
    play_a_whole_game(loaded(app, "10.1.2.3"))  # and a client loading the page afterwards


def test_500_creations_from_fresh_sessions_of_one_address_lock_no_one_out() -> None:
    app = create_app()
    limits = server_of(TestClient(app)).limits
    victim = loaded(app)  # loaded the page before the flood, from the flood's address
    flood = TestClient(app, client=("testclient", 50001))
    made = pages = 0
    began = time.monotonic()
    for _ in range(500):
        flood.cookies.clear()
        pages += flood.get("/").status_code == 200
        r = create(flood)
        assert r.status_code in (201, 403), r.json()
        made += r.status_code == 201
    # the address made one minute's sessions (less the victim's page, loaded from the same
    # address before the flood began), and those the bucket refilled while the test ran
    rate = limits.sessions_per_minute
    assert rate - 1 <= pages <= rate + rate * (time.monotonic() - began) / 60 + 1
    assert made == pages and server_of(victim).live() == made
    play_a_whole_game(victim)
    play_a_whole_game(loaded(app, "10.1.2.3"))


def test_500_creations_from_fresh_sessions_of_500_addresses_lock_no_one_out() -> None:
    app = create_app()
    victim = loaded(app, "10.0.0.1")
    for i in range(500):
        client = loaded(app, f"10.1.{i // 200}.{i % 200 + 1}")
        assert create(client).status_code == 201  # a first game always finds room
    server = server_of(victim)
    assert server.live() == server.limits.total
    play_a_whole_game(victim)  # loaded the page before
    play_a_whole_game(loaded(app, "10.2.0.1"))  # after


def test_a_full_address_or_server_makes_room_from_its_heaviest_holder() -> None:
    app = create_app(limits=Limits(per_session=3, per_address=4, total=6))
    heavy, light = loaded(app, "10.0.0.1"), loaded(app, "10.0.0.1")
    server = server_of(heavy)
    g = [create(heavy).json()["id"] for _ in range(3)]
    h = [create(light).json()["id"]]
    r = create(heavy)
    assert r.status_code == 429 and "this session has 3" in r.json()["error"]  # its own cap
    heavy.get(f"/api/games/{g[1]}/state")  # g[2] is now heavy's least recently active
    h.append(create(light).json()["id"])  # the address is full: its heaviest session gives way
    assert set(server.items()) == {g[0], g[1], *h}
    h.append(create(light).json()["id"])  # again: heavy's g[1]; its first game (g[0]) stays
    assert set(server.items()) == {g[0], *h}
    for key in h[1:]:
        light.delete(f"/api/games/{key}")
    # four sessions of one address each hold their first game: the address is full
    first = {c: create(c).json()["id"] for c in (loaded(app, "10.0.0.1"), loaded(app, "10.0.0.1"))}
    first.update({heavy: g[0], light: h[0]})
    assert len(server.items()) == 4
    r = create(heavy)  # a second game may not push out another session's first
    assert r.status_code == 429 and "your address holds 4" in r.json()["error"]
    clients = list(first)
    for c in clients[1:]:
        c.get(f"/api/games/{first[c]}/state")
    newcomer = loaded(app, "10.0.0.1")  # a first game takes the least recently active first's place
    mine = create(newcomer).json()["id"]
    assert set(server.items()) == {mine, *(first[c] for c in clients[1:])}
    # the server is full (6): the heaviest address (4 games) gives way to a first game
    other = loaded(app, "10.0.0.2")
    b = [create(other).json()["id"] for _ in range(2)]
    for key in (first[clients[2]], first[clients[3]], mine):
        newcomer.get(f"/api/games/{key}/state")  # touched, by whoever: the state is 404 or not
    third = loaded(app, "10.0.0.3")
    c0 = create(third).json()["id"]
    assert first[clients[1]] not in server.items() and set(b) <= set(server.items())
    # ... and to a second game only what is not a first game: the other address's second
    c1 = create(third).json()["id"]
    assert set(server.items()) == {c0, c1, b[0], mine, first[clients[2]], first[clients[3]]}
    assert create(third).status_code == 429  # nothing left but first games


def test_idle_items_are_swept_on_a_timer_without_any_request() -> None:
    """The sweep runs in the app's lifespan; an expired game's running search is cancelled."""
    app = create_app(limits=Limits(idle_seconds=0.3, sweep_seconds=0.05, max_think=5))
    with TestClient(app, client=("10.0.0.9", 50000)) as client:
        assert client.get("/").status_code == 200
        gid = create(client).json()["id"]
        searching = create(client, [HEAVY_COOP.format(t=5)] * 3, game="cahoots_coop",
                           options={}, seed=1).json()["id"]
        server = server_of(client)
        match = server.items()[searching]
        assert client.post(f"/api/games/{searching}/advance", json={"wait_ms": 0}).json()["thinking"]
        began = time.monotonic()
        while (server.live() or server.bots.busy()["searching"]) and time.monotonic() < began + 10:
            time.sleep(0.02)
        assert server.live() == 0 and match.stop.is_set()
        assert server.bots.busy()["searching"] == 0 and time.monotonic() - began < 2.5
        assert client.get(f"/api/games/{gid}/state").status_code == 404


def test_forwarded_for_is_read_only_when_trusted() -> None:
    for trusted in (False, True):
        app = create_app(limits=Limits(sessions_per_minute=1, trust_forwarded=trusted))
        client = TestClient(app, client=("10.0.0.1", 50000))
        first = client.get("/", headers={"X-Forwarded-For": "1.1.1.1, 2.2.2.2"})
        client.cookies.clear()
        second = client.get("/", headers={"X-Forwarded-For": "2.2.2.2, 3.3.3.3"})
        assert first.status_code == 200
        assert second.status_code == (200 if trusted else 429), second.text
        if not trusted:
            assert "Too many new sessions" in second.text and int(second.headers["retry-after"]) > 0
        addresses = {s.address for s in server_of(client).sessions.by_token.values()}
        assert addresses == ({"2.2.2.2", "3.3.3.3"} if trusted else {"10.0.0.1"})


# ---- the bots' budgets --------------------------------------------------------------------------
def test_a_search_seat_is_clamped_to_the_servers_budget() -> None:
    client = loaded(create_app(limits=Limits(max_think=2, max_worlds=16, max_rollouts=100)))
    heavy = "search@time_limit=45,worlds=10000,max_rollouts=100000,max_worlds=10000:heuristic"
    r = create(client, [heavy, "search", "heuristic", "random"])
    assert r.status_code == 201, r.json()
    assert r.json()["names"][:2] == [
        "search@time_limit=2,worlds=16,max_rollouts=100,max_worlds=16:heuristic",
        "search@time_limit=2"]
    match = server_of(client).items()[r.json()["id"]]
    for policy in match.policies[:2]:  # the game's own defaults clamped too
        s = policy.settings
        assert s["time_limit"] == 2 and s["worlds"] <= 16 and s["max_worlds"] <= 16
        assert s["max_rollouts"] <= 100
    none = create(client, ["search@engine=reference,time_limit=none"] + ["random"] * 3)
    assert none.status_code == 400 and "time_limit=none is not allowed" in none.json()["error"]
    assert "\n" not in none.json()["error"] and "Traceback" not in none.text


# every budget at the server's most, every decision searched, never confident early (gate)
HEAVY_COOP = "search@time_limit={t},worlds=256,max_worlds=256,max_rollouts=4096,search_all=true," \
             "max_candidates=100,gate=100,engine=reference:heuristic"


def test_searches_take_turns_between_addresses_and_sessions_and_light_bots_never_wait() -> None:
    """One search worker: the next search is the address's, then the session's, served least
    recently; a cancelled one never runs; a light bot runs while every search worker is busy."""
    bots = Bots(search_workers=1)
    gate, order = threading.Event(), []

    def job(name: str, hold: bool = False) -> Any:
        def call() -> int:
            if hold:
                assert gate.wait(10)
            order.append(name)
            return 0
        return call

    def search(name: str, address: str, session: str, hold: bool = False,
               cancel: threading.Event | None = None) -> Any:
        return bots.submit(job(name, hold), search=True, address=address, session=session,
                           cancel=cancel or threading.Event())

    try:
        futures = [search("a1", "A", "a", hold=True)]
        deadline = time.monotonic() + 10
        while bots.busy()["searching"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.005)
        dropped = threading.Event()
        futures += [search("a2", "A", "a"), search("a3", "A", "a"), search("a4", "A", "a2"),
                    search("d1", "D", "d", cancel=dropped), search("b1", "B", "b"),
                    search("c1", "A", "c")]
        dropped.set()  # its game was deleted while it waited
        light = bots.submit(job("light"), search=False, address="A", session="a",
                            cancel=threading.Event())
        assert light.result(10) == 0 and order == ["light"]  # the search worker is still held
        gate.set()
        for future in futures:
            if future is not futures[4]:
                future.result(10)
        assert futures[4].cancelled()
        assert order == ["light", "a1", "b1", "a4", "c1", "a2", "a3"]
    finally:
        gate.set()
        bots.close()


def started(server: Any, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while server.bots.busy()["searching"] < count:
        assert time.monotonic() < deadline, server.bots.busy()
        time.sleep(0.01)


def test_deleting_a_game_stops_its_search_and_drops_its_queued_one() -> None:
    think = 3.0
    client = loaded(create_app(limits=Limits(max_think=think, search_workers=1)))
    server = server_of(client)
    spec = HEAVY_COOP.format(t=think)
    games = [create(client, [spec] * 3, game="cahoots_coop", options={}, seed=s).json()
             for s in (1, 2)]
    for game in games:  # both ask for a decision: one runs, the other waits for the worker
        assert client.post(f"/api/games/{game['id']}/advance", json={"wait_ms": 0}).json()["thinking"]
    started(server, 1)
    assert server.bots.busy() == {"searching": 1, "waiting": 1}
    matches = [server.items()[g["id"]] for g in games]
    running = next(m for m in matches if m.thinking.running())
    queued = next(m for m in matches if m is not running)
    assert client.delete(f"/api/games/{queued.id}").status_code == 200
    began = time.monotonic()
    assert client.delete(f"/api/games/{running.id}").status_code == 200
    while server.bots.busy()["searching"]:
        time.sleep(0.005)
    stopped = time.monotonic() - began
    assert stopped < think / 2, f"the search went on {stopped:.2f} s after its game was deleted"
    seat = running.game.current_player
    assert running.policies[seat].stats.timeouts == 1  # cut short, as by its clock
    assert queued.thinking.cancelled()
    assert all(p.stats.decisions == 0 for p in queued.policies)  # never started
    assert server.bots.busy() == {"searching": 0, "waiting": 0}


@pytest.fixture
def served() -> Iterator[tuple[str, Any]]:
    """The app under uvicorn (search decisions of at most 1 s), and its state."""
    app = create_app(limits=Limits(max_think=1.0))
    with running(app, lifespan="on") as base:
        yield base, app.state.server


# the heaviest a client may ask for, per engine: every decision searched, every budget at the
# server's most (the time limit clamped to it); on the batched engine over a network blueprint
# the rollouts run in numba kernels that hold the GIL a chunk at a time
HEAVIEST = {
    "reference": ("cahoots_coop", 3, HEAVY_COOP),
    "batched": ("kansas_city", 4, ("search@time_limit={t},worlds=256,max_worlds=256,"
                                   "max_rollouts=4096,search_all=true,max_candidates=10000,"
                                   "gate=100:zoo:kansas_city")),
}


def warm(game: str, spec: str) -> None:
    """Compile the search kernels ``spec`` uses (untimed: ``cahoots warmup``'s work)."""
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.registry import game_spec
    from cahoots_envs.web.tables import decide

    face = game_spec(game)
    options = face.resolve_options({})
    bot = load_policy(spec.format(t=1), face.env_id, options, seed=0)
    state = face.new_game(options, np.random.default_rng(0))
    while not bot.stats.searched and not state.is_over:
        state.apply(decide(bot, state.clone(), state.current_player, options))


@pytest.mark.parametrize("engine", ["reference", pytest.param("batched", marks=pytest.mark.slow)])
def test_four_heavy_searches_leave_another_sessions_bot_moving_within_a_second(
        served: tuple[str, Any], engine: str) -> None:
    """Four watched games whose every seat is the heaviest search a client may name (each
    decision up to the server's 1 s), two searching at a time and the rest queued: another
    session's rule-based bot still moves within 1 s at the 95th percentile. The default suite
    runs it on the reference engine (no kernels to compile); ``-m slow`` on the batched engine
    over a zoo network, its kernels warmed first."""
    base, server = served
    game, players, spec = HEAVIEST[engine]
    if engine == "batched":
        warm(game, spec)
    stop = threading.Event()
    errors: list[str] = []

    def heavy_watcher(seed: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            http.get("/")
            state = create(http, [spec.format(t=1)] * players, game=game, options={},
                           seed=seed).json()
            while not stop.is_set() and not state.get("over", True):
                r = http.post(f"/api/games/{state['id']}/advance", json={"wait_ms": 2000})
                if r.status_code != 200:
                    errors.append(r.text)
                    return
                state = r.json()

    watchers = [threading.Thread(target=heavy_watcher, args=(s,), daemon=True) for s in range(4)]
    for w in watchers:
        w.start()
    started(server, server.limits.search_workers)
    trips: list[float] = []
    searching: list[int] = []  # searches running as each move was asked for
    with httpx.Client(base_url=base, timeout=30) as http:
        http.get("/")
        seed = 0
        while len(trips) < 60:
            state = create(http, ["heuristic"] * 4, seed=seed).json()
            seed += 1
            while not state["over"] and len(trips) < 60:
                searching.append(server.bots.busy()["searching"])
                began = time.perf_counter()
                r = http.post(f"/api/games/{state['id']}/advance", json={"wait_ms": 5000})
                trips.append(time.perf_counter() - began)
                assert r.status_code == 200 and r.json()["advanced"], r.text
                state = r.json()
            http.delete(f"/api/games/{state['id']}")
    stop.set()
    for w in watchers:
        w.join(30)
    assert not errors, errors[:1]
    # the searches ran all along (a worker may be between two decisions at a sample)
    assert max(searching) == server.limits.search_workers and np.mean(searching) >= 1, searching
    p95 = float(np.percentile(trips, 95))
    print(f"heuristic bot moves under 4 heavy searches ({engine}): median "
          f"{np.median(trips) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max "
          f"{max(trips) * 1000:.0f} ms ({len(trips)} moves)")
    assert p95 < 1.0


# ---- headers, the page, the command -------------------------------------------------------------
def test_every_route_sends_the_security_headers() -> None:
    app = create_app(limits=Limits(sessions_per_minute=1))
    client = loaded(app)
    gid = create(client).json()["id"]
    bare = TestClient(app, client=("testclient", 50001))
    answers = [
        client.get("/"), bare.get("/"),  # the page, and the page refused (429)
        client.get("/favicon.ico"), client.get("/static/app.js"), client.get("/static/style.css"),
        client.get("/static/games/kansas_city.js"), client.get("/static/nothing.js"),
        client.get("/api/games"), create(client), bare.post("/api/watch", json={}),
        client.post("/api/play", content=b"{"), client.get(f"/api/games/{gid}/state"),
        client.post(f"/api/games/{gid}/advance", json={"wait_ms": 0}),
        client.post(f"/api/games/{gid}/move", json={"action": 0}),
        client.get(f"/api/games/{gid}/log"), client.post("/api/replays", content=b"hello\n"),
        client.get("/api/replays/r_x/position/0"), client.delete(f"/api/games/{gid}"),
        client.get("/api/nothing"), client.get("/nothing"), client.post("/api/games"),
    ]
    statuses = {r.status_code for r in answers}
    assert {200, 201, 400, 403, 404, 405, 409, 429} <= statuses, statuses
    for r in answers:
        for key, value in SECURITY_HEADERS.items():
            assert r.headers.get(key) == value, (r.request.url.path, r.status_code, key)
    icon = client.get("/favicon.ico")
    assert icon.headers["content-type"].startswith("image/svg+xml") and b"<svg" in icon.content


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_says_in_one_line_why_it_cannot_start(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err == f"cahoots serve: cannot listen on 127.0.0.1:{port}: the port is in use " \
                  "(another server?); choose another --port\n"
    with pytest.raises(SystemExit):
        cli.main(["serve", "--port", "99999"])
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "must be at most 65,535" in err and "Traceback" not in err


def test_serve_off_loopback_warns_and_says_how_to_warm_search() -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "cahoots_envs.cli", "serve", "--host", "0.0.0.0",
                             "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        while line and "(Ctrl-C stops)" not in line:
            hint = line
            line = proc.stdout.readline() if proc.stdout else ""
        assert line == f"cahoots serve: http://0.0.0.0:{port}/ (Ctrl-C stops)\n"
        assert "cahoots warmup kansas_city" in hint
        r = httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert r.status_code == 200 and r.headers["x-frame-options"] == "DENY"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert err.startswith("cahoots serve: warning: --host 0.0.0.0 serves the browser view beyond "
                          "this machine, and it has no authentication"), err
    assert "Traceback" not in err


@pytest.mark.slow
def test_serve_warmup_compiles_the_search_kernels_before_serving(tmp_path: Path) -> None:
    """``serve --warmup`` on an empty kernel cache: every search game's warm-up line comes
    before the "serving" line (minutes on a cold cache: -m slow)."""
    port = free_port()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    proc = subprocess.Popen([sys.executable, "-m", "cahoots_envs.cli", "serve", "--warmup",
                             "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = []
        line = proc.stdout.readline() if proc.stdout else ""
        while line and "(Ctrl-C stops)" not in line:
            lines.append(line)
            line = proc.stdout.readline() if proc.stdout else ""
        assert line.endswith(f":{port}/ (Ctrl-C stops)\n")
        warmed = [x for x in lines if x.startswith("cahoots serve: warm-up: ")]
        assert [x.split(": ")[2] for x in warmed] == ["kansas_city", "texas_euchre",
                                                      "cahoots_tricks", "cahoots_coop"]
        assert all("kernel signatures compiled" in x for x in warmed), warmed
    finally:
        proc.terminate()
        proc.communicate(timeout=20)


def test_games_reports_the_limits() -> None:
    limits = loaded(create_app()).get("/api/games").json()["limits"]
    assert limits == {**Limits().public(), **json.loads(json.dumps(limits))}
    assert limits["per_address"] == 64 and limits["max_think"] == 5.0


# ---- heavy work off the event loop --------------------------------------------------------------
def test_an_upload_runs_off_the_event_loop_while_others_are_answered() -> None:
    """While a long log (879 moves, the replay check and the keyframes: about a second of
    work) is uploaded, another client's requests keep being answered: several during the
    upload, none waiting anywhere near as long as the upload takes."""
    from tests.web_server import long_log

    text = long_log().encode()
    app = create_app()
    with running(app, lifespan="on") as base, \
            httpx.Client(base_url=base, timeout=30) as pinger, \
            httpx.Client(base_url=base, timeout=60) as uploader:
        pinger.get("/")
        uploader.get("/")
        gid = create(pinger).json()["id"]
        upload: dict[str, float] = {}

        def send() -> None:
            upload["start"] = time.perf_counter()
            r = uploader.post("/api/replays", content=text)
            upload["end"] = time.perf_counter()
            assert r.status_code == 201, r.text

        thread = threading.Thread(target=send)
        thread.start()
        pings: list[tuple[float, float]] = []
        while thread.is_alive() or not pings:
            began = time.perf_counter()
            assert pinger.get(f"/api/games/{gid}/state").status_code == 200
            pings.append((began, time.perf_counter()))
            time.sleep(0.02)
        thread.join()
    took = upload["end"] - upload["start"]
    during = [end - began for began, end in pings
              if began > upload["start"] and end < upload["end"]]
    print(f"upload {took:.2f} s; pings during it: {len(during)}, max {max(during or [0]):.3f} s")
    assert len(during) >= 3, (took, during)
    assert max(during) < took / 2, f"a ping waited {max(during):.2f} s of a {took:.2f} s upload"


def test_heavy_work_is_bounded() -> None:
    """At most ``heavy_workers`` heavy jobs run and ``HEAVY_QUEUE`` wait; beyond, 503 in one
    line. Answers have a lane of their own: they run while the heavy lane is full."""
    import asyncio

    from cahoots_envs.web.server import HEAVY_QUEUE, Work
    from cahoots_envs.web.tables import WebError

    work = Work(heavy_workers=1)
    gate = threading.Event()
    running_now: list[int] = []

    def job() -> int:
        running_now.append(1)
        assert gate.wait(10)
        return 1

    async def main() -> None:
        jobs = [asyncio.ensure_future(work.heavy(job)) for _ in range(1 + HEAVY_QUEUE)]
        await asyncio.sleep(0.1)
        assert work.heavy_jobs == 1 + HEAVY_QUEUE and len(running_now) == 1
        with pytest.raises(WebError) as refused:
            await work.heavy(job)
        assert refused.value.status == 503 and "try again" in refused.value.message
        assert await work.answer(lambda: 7) == 7  # not behind the heavy lane
        gate.set()
        assert sum(await asyncio.gather(*jobs)) == 1 + HEAVY_QUEUE
        assert work.heavy_jobs == 0

    try:
        asyncio.run(main())
    finally:
        gate.set()
        work.close()


def test_serve_options_set_the_replay_caps_and_heavy_workers() -> None:
    import argparse

    from cahoots_envs.cli import serve_cmd

    parser = argparse.ArgumentParser()
    serve_cmd.add_parser(parser.add_subparsers(), "serve")
    limits = serve_cmd.limits_of(parser.parse_args(["serve"]))
    assert (limits.replay_bytes, limits.replay_bytes_per_session, limits.heavy_workers) == (
        Limits().replay_bytes, Limits().replay_bytes_per_session, Limits().heavy_workers)
    limits = serve_cmd.limits_of(parser.parse_args([
        "serve", "--max-replay-mib", "64", "--max-replay-mib-per-session", "2.5",
        "--heavy-workers", "3"]))
    assert limits.replay_bytes == 64 << 20 and limits.replay_bytes_per_session == 5 << 19
    assert limits.heavy_workers == 3


@pytest.mark.slow
def test_a_pingers_p95_during_uploads_stays_within_twice_its_idle_p95() -> None:
    """The issue's bar (``-m slow``: a timing bar, at the mercy of the machine's load): a
    request every 20 ms, its p95 while another client uploads the 879-move log four times is
    at most twice its p95 with no upload (plus 5 ms of timer grain), and under 50 ms when the
    load average is under 2, ``cahoots serve`` running in a process of its own (as
    ``benchmarks/bench_web.py serve`` measures it, against the server before)."""
    import contextlib
    import os

    from tests.web_server import long_log

    text = long_log().encode()
    port = free_port()  # the server in a process of its own, as it runs: not this one's GIL
    proc = subprocess.Popen([sys.executable, "-m", "cahoots_envs.cli", "serve", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    with contextlib.ExitStack() as stack:
        stack.callback(proc.wait, 20)
        stack.callback(proc.terminate)
        assert proc.stdout is not None
        while "(Ctrl-C stops)" not in proc.stdout.readline():
            assert proc.poll() is None, "serve did not start"
        base = f"http://127.0.0.1:{port}"
        pinger = stack.enter_context(httpx.Client(base_url=base, timeout=30))
        uploader = stack.enter_context(httpx.Client(base_url=base, timeout=60))
        pinger.get("/")
        uploader.get("/")
        gid = create(pinger).json()["id"]
        rid = uploader.post("/api/replays", content=text).json()["id"]  # the worker warm
        uploader.delete(f"/api/games/{rid}")

        def ping(until: Any) -> list[float]:
            out: list[float] = []
            while until():
                began = time.perf_counter()
                assert pinger.get(f"/api/games/{gid}/state").status_code == 200
                out.append(time.perf_counter() - began)
                time.sleep(max(0.0, 0.02 - out[-1]))
            return out

        end = time.monotonic() + 4
        idle = ping(lambda: time.monotonic() < end)

        def upload() -> None:
            for _ in range(4):
                r = uploader.post("/api/replays", content=text)
                assert r.status_code == 201, r.text
                uploader.delete(f"/api/games/{r.json()['id']}")

        thread = threading.Thread(target=upload)
        thread.start()
        busy = ping(thread.is_alive)
        thread.join()
    quiet, loaded_p95 = (float(np.percentile(x, 95)) for x in (idle, busy))
    print(f"pinger p95 idle {quiet * 1000:.1f} ms, during uploads {loaded_p95 * 1000:.1f} ms "
          f"({len(busy)} pings), load {os.getloadavg()[0]:.1f}")
    assert loaded_p95 <= 2 * quiet + 0.005
    if os.getloadavg()[0] < 2:
        assert loaded_p95 < 0.05
