"""The browser view's speed and footprint (``cahoots serve``).

``python benchmarks/bench_web.py`` (``trip``): one move's round trip against bot seats through
the app (Starlette's test client, no socket): the person's move, then every bot move up to their
next turn (``POST .../advance``, one at a time). Prints, per game, the median and 90th
percentile of a move's round trip and of one request (target: <= 50 ms a move).

``python benchmarks/bench_web.py serve [--base DIR]``: ``cahoots serve`` in a process of its own
on 127.0.0.1, driven over real HTTP, for this tree and, with ``--base``, another checkout (a
worktree of an earlier commit) in the same run, one after the other, same options:

- **pinger**: a request every 20 ms (``GET .../state``), its p95 with no other work and while
  another client uploads the 879-move Kansas City log again and again;
- **memory**: the server's RSS idle, after 256 uploads of that log (all kept: the server runs
  with ``--max-games-per-address 256``) and after deleting them;
- **load**: 20 clients, each with its own session, playing whole Kansas City games (one hand,
  three rule-based bots, random moves) in a tight loop for ``--seconds``, under the default
  caps on games, the trees taking turns ``--rounds`` times (so that both meet the machine's
  other work alike): successful answers a second (an HTTP answer, or a streamed move's frame), the round
  trips' median and p95 (a request to its answer; a frame from the request or frame before
  it), a person's move to their next turn, and any 429; then one client alone. Each client
  speaks its server's protocol: a tree with ``/stream`` gets the bots' moves on one stream
  per game, an older one asks ``POST .../advance`` once per bot move.

Both servers run with the same Python and packages; ``--path DIR`` puts ``DIR`` (packages the
environment lacks, e.g. ``pip install --target DIR httptools uvloop orjson``) after each
tree on both servers' ``PYTHONPATH``. Each part's figures are appended to ``--out``
(``benchmarks/results/web_serve.jsonl``) as one JSON line, with the run's date, the tree's
commit and the load average; ``serve --table`` prints the last run's table of ``docs/web.md``
from that file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# ---- in process: a move's round trip ------------------------------------------------------------
def trip(games: int, policy: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from cahoots_envs.registry import builtin_games
    from cahoots_envs.web.app import create_app
    from tests.web_server import pick

    client = TestClient(create_app())
    client.get("/")  # the page starts the session games belong to
    rng = np.random.default_rng(0)
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average before "
          f"{os.getloadavg()[0]:.2f}; bots: {policy}")
    for spec in builtin_games():
        n = spec.rules.DEFAULT_PLAYERS
        trips: list[float] = []
        requests: list[float] = []
        for g in range(games):
            state = client.post("/api/play", json={
                "game": spec.name, "seed": g, "policies": ["human"] + [policy] * (n - 1)}).json()
            gid = state["id"]
            while not state["over"]:
                if not state["your_turn"]:
                    state = client.post(f"/api/games/{gid}/advance",
                                        json={"since": state["events_total"]}).json()
                    continue
                began = time.perf_counter()
                body = pick(state["legal"], rng)
                t = time.perf_counter()
                state = client.post(f"/api/games/{gid}/move",
                                    json={**body, "since": state["events_total"]}).json()
                requests.append(time.perf_counter() - t)
                while not state["over"] and not state["your_turn"]:
                    t = time.perf_counter()
                    state = client.post(f"/api/games/{gid}/advance",
                                        json={"since": state["events_total"]}).json()
                    requests.append(time.perf_counter() - t)
                trips.append(time.perf_counter() - began)
            client.delete(f"/api/games/{gid}")
        ms = np.array(trips) * 1000
        per = np.array(requests) * 1000
        print(f"{spec.name:<16} {len(trips):>5} moves: round trip median {np.median(ms):6.1f} ms, "
              f"p90 {np.percentile(ms, 90):6.1f} ms; a request median {np.median(per):5.1f} ms")
    print(f"load average after {os.getloadavg()[0]:.2f}")


# ---- over HTTP: a server process ----------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(tree: Path, *options: str, path: Path | None = None) -> Iterator[tuple[str, int]]:
    """``cahoots serve`` of the checkout ``tree`` on a free port: (base URL, pid); ``path``:
    a folder of packages put after the tree on its ``PYTHONPATH``."""
    import httpx

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(tree) + (f"{os.pathsep}{path}" if path else "")}
    proc = subprocess.Popen([sys.executable, "-m", "cahoots_envs.cli", "serve", "--port",
                             str(port), *options], cwd=tree, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/favicon.ico", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.1)
        yield base, proc.pid
    finally:
        proc.terminate()
        proc.wait(20)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def client(base: str, timeout: float = 60) -> Any:
    import httpx

    http = httpx.Client(base_url=base, timeout=timeout)
    assert http.get("/").status_code == 200, "no session"
    return http


def p(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000 if values else float("nan")


def pinger(base: str, log: bytes) -> dict[str, float]:
    """p95 of a 20 ms pinger alone, then while another client uploads ``log`` over and over."""
    http, up = client(base), client(base)
    gid = http.post("/api/watch", json={"game": "kansas_city", "options": {"hands": 1},
                                        "policies": ["random"] * 4}).json()["id"]

    def ping(seconds: float, busy: threading.Event | None = None) -> list[float]:
        out: list[float] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end and (busy is None or busy.is_set()):
            t = time.perf_counter()
            assert http.get(f"/api/games/{gid}/state").status_code == 200
            out.append(time.perf_counter() - t)
            time.sleep(max(0.0, 0.02 - (time.perf_counter() - t)))
        return out

    ping(1)  # warm
    idle = ping(5)
    busy = threading.Event()
    busy.set()
    uploads: list[float] = []

    def upload() -> None:
        for _ in range(8):
            t = time.perf_counter()
            r = up.post("/api/replays", content=log)
            assert r.status_code == 201, r.text
            uploads.append(time.perf_counter() - t)
            up.delete(f"/api/games/{r.json()['id']}")
        busy.clear()

    thread = threading.Thread(target=upload)
    thread.start()
    during = ping(120, busy)
    thread.join()
    return {"idle_p50": p(idle, 50), "idle_p95": p(idle, 95), "upload_p50": p(during, 50),
            "upload_p95": p(during, 95), "upload_max": max(during) * 1000,
            "upload_s": float(np.median(uploads))}


def memory(base: str, pid: int, log: bytes) -> dict[str, float]:
    """RSS idle, after 256 uploads kept (32 sessions of 8), after deleting them."""
    idle = rss_mib(pid)
    kept = []
    for _ in range(32):
        http = client(base)
        for _ in range(8):
            r = http.post("/api/replays", content=log)
            assert r.status_code == 201, r.text
            kept.append((http, r.json()["id"]))
    full = rss_mib(pid)
    for http, rid in kept:
        http.delete(f"/api/games/{rid}")
    return {"idle_mib": idle, "after_256_mib": full, "grown_mib": full - idle,
            "after_delete_mib": rss_mib(pid)}


def play_games(base: str, seconds: float, stop_at: float, out: dict[str, list[Any]],
               seed: int) -> None:
    """One client playing whole games until ``stop_at``; what it measured goes into ``out``."""
    http = client(base)
    rng = np.random.default_rng(seed)
    stream = None
    while time.monotonic() < stop_at:
        t = time.perf_counter()
        r = http.post("/api/play", json={"game": "kansas_city", "options": {"hands": 1},
                                         "policies": ["human"] + ["heuristic"] * 3})
        if r.status_code != 201:
            out["refused" if r.status_code == 429 else "failed"].append(r.status_code)
            time.sleep(0.05)
            continue
        out["trips"].append(time.perf_counter() - t)
        state = r.json()
        gid = state["id"]
        if stream is None:
            stream = http.get(f"/api/games/{gid}/stream", params={"pace_ms": 99999}
                              ).status_code == 400  # a tree with the stream checks pace_ms
        if stream:
            play_streamed(http, gid, state, rng, out, stop_at)
        else:
            play_polled(http, gid, state, rng, out, stop_at)
        http.delete(f"/api/games/{gid}")
        out["games"].append(1)


def _legal_body(state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    legal = state["legal"]
    if isinstance(legal, list):  # one entry per move (before the parts)
        return {"action": legal[int(rng.integers(len(legal)))]["id"]}
    from tests.web_server import pick

    return pick(legal, rng)


def answered(r: Any, out: dict[str, list[Any]]) -> bool:
    """Whether ``r`` is a success (its round trip and size counted), else its status counted."""
    if r.status_code != 200:
        out["refused" if r.status_code == 429 else "failed"].append(r.status_code)
        return False
    out["trips"].append(r.elapsed.total_seconds())
    out["bytes"].append(len(r.content))
    return True


def play_polled(http: Any, gid: str, state: dict[str, Any], rng: np.random.Generator,
                out: dict[str, list[Any]], stop_at: float) -> None:
    moved = None
    while not state["over"] and time.monotonic() < stop_at:
        if state["your_turn"]:
            if moved is not None:
                out["turns"].append(time.perf_counter() - moved)
            moved = time.perf_counter()
            r = http.post(f"/api/games/{gid}/move", json={**_legal_body(state, rng),
                                                          "since": state["events_total"]})
        else:
            r = http.post(f"/api/games/{gid}/advance", json={"since": state["events_total"]})
        if not answered(r, out):
            return
        state = r.json()


def play_streamed(http: Any, gid: str, state: dict[str, Any], rng: np.random.Generator,
                  out: dict[str, list[Any]], stop_at: float) -> None:
    moved = None
    last = time.perf_counter()
    with http.stream("GET", f"/api/games/{gid}/stream",
                     params={"since": state["events_total"]}) as r:
        block: list[str] = []
        for line in r.iter_lines():
            if line:
                block.append(line)
                continue
            fields = dict(x.split(": ", 1) for x in block if ": " in x and not x.startswith(":"))
            block = []
            if fields.get("event") != "state":
                if fields.get("event") == "failed":
                    out["failed"].append(fields["data"])
                return
            now = time.perf_counter()
            out["trips"].append(now - last)
            out["bytes"].append(len(fields["data"]))
            last = now
            state = json.loads(fields["data"])
            if state["over"] or time.monotonic() > stop_at:
                return
            if state["your_turn"]:
                if moved is not None:
                    out["turns"].append(now - moved)
                moved = last = time.perf_counter()
                a = http.post(f"/api/games/{gid}/move", json={**_legal_body(state, rng),
                                                              "since": state["events_total"]})
                if not answered(a, out):
                    return
                last = time.perf_counter()


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(base: str, pid: int, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` clients playing for ``seconds``: what they measured, raw."""
    keys = ("trips", "turns", "games", "refused", "failed", "bytes")
    outs: list[dict[str, list[Any]]] = [{k: [] for k in keys} for _ in range(clients)]
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=play_games, args=(base, seconds, stop_at, outs[i], i))
               for i in range(clients)]
    began = time.monotonic()
    server_cpu, own_cpu = cpu_seconds(pid), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every: dict[str, Any] = {k: [x for o in outs for x in o[k]] for k in keys}
    every["took"] = time.monotonic() - began
    every["server_cpu"] = cpu_seconds(pid) - server_cpu
    every["client_cpu"] = time.process_time() - own_cpu
    every["load"] = [os.getloadavg()[0]]
    return every


def summary(runs: list[dict[str, Any]]) -> dict[str, float]:
    """The runs of ``load`` together."""
    every = {k: [x for r in runs for x in r[k]] for k in
             ("trips", "turns", "games", "refused", "failed", "bytes", "load")}
    took = sum(r["took"] for r in runs)
    games = max(1, len(every["games"]))
    return {"answers_per_s": len(every["trips"]) / took, "games_per_s": len(every["games"]) / took,
            "trip_p50": p(every["trips"], 50), "trip_p95": p(every["trips"], 95),
            "turn_p50": p(every["turns"], 50), "turn_p95": p(every["turns"], 95),
            "answer_kib": float(np.mean(every["bytes"])) / 1024 if every["bytes"] else 0.0,
            "refused": len(every["refused"]), "failed": len(every["failed"]),
            "server_cpu_ms_per_game": 1000 * sum(r["server_cpu"] for r in runs) / games,
            "client_cpu_ms_per_game": 1000 * sum(r["client_cpu"] for r in runs) / games,
            "load": float(np.mean(every["load"]))}


def commit_of(tree: Path) -> str:
    """The short commit of the checkout ``tree`` ("+changes" when it has uncommitted ones)."""
    if shutil.which("git") is None:
        return "?"
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], check=False,
                          capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           check=False,
                           capture_output=True, text=True).stdout.strip()
    return head + ("+changes" if dirty else "")


def serve_bench(trees: dict[str, Path], seconds: float, rounds: int, only: set[str],
                out: Path | None, path: Path | None) -> None:
    from contextlib import ExitStack

    from tests.web_server import long_log

    log = long_log().encode()
    run = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    commits = {name: commit_of(tree) for name, tree in trees.items()}
    print(f"{platform.machine()}, {os.cpu_count()} cores; the log: 879 moves, {len(log)} bytes; "
          + ", ".join(f"{name} {commit}" for name, commit in commits.items()))

    def show(name: str, part: str, values: dict[str, Any]) -> None:
        print(f"{name:<5} {part:<7} " + ", ".join(
            f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in values.items()),
            flush=True)
        if out is not None:
            row = {"run": run, "machine": platform.machine(), "cores": os.cpu_count(),
                   "tree": name, "commit": commits.get(name, ""), "part": part,
                   "seconds": seconds, "rounds": rounds, "path": bool(path),
                   **{k: round(v, 2) if isinstance(v, float) else v for k, v in values.items()}}
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")

    for name, tree in trees.items():
        if "pinger" in only:
            with serving(tree, path=path) as (base, _):
                show(name, "pinger", {**pinger(base, log), "load": os.getloadavg()[0]})
        if "memory" in only:
            with serving(tree, "--max-games-per-address", "256", "--sessions-per-minute",
                         "100", path=path) as (base, pid):
                show(name, "memory", {**memory(base, pid, log), "load": os.getloadavg()[0]})
    if "load" not in only:
        return
    # the trees take turns, ``rounds`` times, so that both meet the machine's other work alike
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    with ExitStack() as stack:  # 21+ sessions from one address: more than a minute's default
        served = {name: stack.enter_context(serving(tree, "--sessions-per-minute", "1000",
                                                    path=path))
                  for name, tree in trees.items()}
        names = list(trees)
        for r in range(rounds):
            for name in names if r % 2 == 0 else names[::-1]:
                base, pid = served[name]
                runs.setdefault((name, 20), []).append(load(base, pid, 20, seconds))
                runs.setdefault((name, 1), []).append(load(base, pid, 1, seconds / 3))
    results = {key: summary(value) for key, value in runs.items()}
    for (name, clients), values in results.items():
        show(name, f"load{clients}", values)
    if "base" in trees:
        new, old = results[("new", 20)], results[("base", 20)]
        ratios = {"answers_per_s": new["answers_per_s"] / old["answers_per_s"],
                  "games_per_s": new["games_per_s"] / old["games_per_s"],
                  "trip_p95": new["trip_p95"] / old["trip_p95"],
                  "turn_p95": new["turn_p95"] / old["turn_p95"]}
        print(f"20 clients, new / base: answers/s x{ratios['answers_per_s']:.2f}, "
              f"games/s x{ratios['games_per_s']:.2f}, round-trip p95 "
              f"x{ratios['trip_p95']:.2f}, move-to-turn p95 x{ratios['turn_p95']:.2f}")
        show("new/base", "ratio20", ratios)


def table(out: Path) -> str:
    """The table of ``docs/web.md`` ("Speed") from the last run in ``out``."""
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    if not rows:
        raise SystemExit(f"{out}: no rows; run 'bench_web.py serve' first")
    last = rows[-1]["run"]
    got = {(r["tree"], r["part"]): r for r in rows if r["run"] == last}

    def cell(tree: str, part: str, text: str) -> str:
        r = got.get((tree, part))
        if r is None:
            return "-"
        return text.format(**{k: f"{v:,.0f}" if isinstance(v, float) and abs(v) >= 100 else
                              f"{v:.1f}" if isinstance(v, float) else v for k, v in r.items()})

    lines = [
        ("a 20 ms pinger's p95, idle / while another client uploads the log 8 times", "pinger",
         "{idle_p95} / {upload_p95} ms (max {upload_max})"),
        ("server RSS: idle / after 256 uploads kept / after deleting them", "memory",
         "{idle_mib} / {after_256_mib} / {after_delete_mib} MiB (+{grown_mib})"),
        ("20 clients playing whole games (one hand): refused / failed", "load20",
         "{refused} / {failed}"),
        ("... games a second", "load20", "{games_per_s}"),
        ("... answers a second (HTTP answers and stream frames)", "load20", "{answers_per_s}"),
        ("... an answer's wait: median / p95", "load20", "{trip_p50} / {trip_p95} ms"),
        ("... a person's move to their next turn: median / p95", "load20",
         "{turn_p50} / {turn_p95} ms"),
        ("... server / client CPU a game", "load20",
         "{server_cpu_ms_per_game} / {client_cpu_ms_per_game} ms"),
        ("... load average", "load20", "{load}"),
        ("one client alone: an answer's p95, a move to the next turn's p95", "load1",
         "{trip_p95} / {turn_p95} ms"),
    ]
    new = got.get(("new", "load20"), {})
    base = got.get(("base", "load20"), {})
    head = (f"| {last} UTC, {rows[-1]['machine']}, {rows[-1]['cores']} cores | this tree "
            f"({new.get('commit', '?')}) | before ({base.get('commit', '?')}) | new / before |")
    text = [head, "|---|---|---|---|"]
    ratio = got.get(("new/base", "ratio20"), {})
    ratios = {"answers_per_s": "x{:.2f}", "games_per_s": "x{:.2f}", "trip_p50": None,
              "trip_p95": "x{:.2f}", "turn_p95": "x{:.2f}"}
    for label, part, fmt in lines:
        extra = ""
        if part == "load20":
            keys = [k for k in ratios if "{" + k + "}" in fmt and ratios[k] and k in ratio]
            extra = ", ".join(str(ratios[k]).format(ratio[k]) for k in keys)
        text.append(f"| {label} | {cell('new', part, fmt)} | {cell('base', part, fmt)} | "
                    f"{extra} |")
    return "\n".join(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what")
    t = sub.add_parser("trip", help="a move's round trip in process (the default)")
    t.add_argument("--games", type=int, default=3, help="games per game kind")
    t.add_argument("--policy", default="heuristic", help="the bots' policy id")
    s = sub.add_parser("serve", help="pinger, memory and 20 clients over HTTP")
    s.add_argument("--base", type=Path, help="another checkout to measure in the same run")
    s.add_argument("--seconds", type=float, default=15, help="each load phase's length")
    s.add_argument("--rounds", type=int, default=4, help="load phases a tree, in turns")
    s.add_argument("--only", default="pinger,memory,load", help="which parts, comma-separated")
    s.add_argument("--path", type=Path, help="a folder of packages on both servers' path")
    s.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/web_serve.jsonl",
                   help="where each part's figures are appended (one JSON line each)")
    s.add_argument("--table", action="store_true",
                   help="print docs/web.md's table of the last run in --out, and stop")
    args = parser.parse_args()
    if args.what == "serve" and args.table:
        print(table(args.out))
    elif args.what == "serve":
        trees = {"new": ROOT, **({"base": args.base.resolve()} if args.base else {})}
        serve_bench(trees, args.seconds, args.rounds, set(args.only.split(",")), args.out,
                    args.path.resolve() if args.path else None)
    else:
        trip(getattr(args, "games", 3), getattr(args, "policy", "heuristic"))


if __name__ == "__main__":
    main()
