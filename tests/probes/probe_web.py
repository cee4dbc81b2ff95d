"""Probe the browser view's app (``cahoots serve``) with random and malformed requests.

Through Starlette's test client (the app in this process, no socket), sends ``--requests``
requests (1,000 by default) drawn at random: every route with every method, bodies that are not
JSON, JSON of the wrong shape, huge or negative numbers, unknown games, options and policy ids,
paths instead of ids, illegal and out-of-range action ids, moves by junk parts, streams with bad
parameters, unknown and other sessions' game ids,
truncated and garbled game logs, oversized bodies; mixed with legal play so that live games are
reached in every state. Counts the answers by status; any ``500`` (an unexpected exception) or
an answer that is not a JSON error for a refused request is a failure, and the server must still
answer ``GET /api/games`` at the end.

    python tests/probes/probe_web.py [--requests N] [--seed S]   # exit status 1 on a failure
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
import warnings
from typing import Any
from urllib.parse import quote

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cahoots_envs.registry import registered_games
from cahoots_envs.web.app import create_app

JUNK: list[Any] = [None, True, -1, 2**70, 1e308, "", "x" * 300, "../../etc/passwd", [], {},
                   [1, [2, [3]]], {"a": {"b": {}}}, "zoo:../../x", "search@worlds=-1:random",
                   "search:search", "file:nope", "\x00", "human"]


def request(client: TestClient, rng: np.random.Generator, ids: list[str], log: str) -> Any:
    specs = registered_games()
    spec = specs[int(rng.integers(len(specs)))]
    n = spec.rules.DEFAULT_PLAYERS
    junk = JUNK[int(rng.integers(len(JUNK)))]
    gid = ids[int(rng.integers(len(ids)))] if ids and rng.random() < 0.8 else str(junk)[:50]
    gid = quote(gid, safe="")
    word = quote(str(junk)[:50], safe="")
    kind = int(rng.integers(12))
    if kind == 0:
        body: Any = {"game": spec.name, "policies": ["human"] + ["random"] * (n - 1)}
        key = ["game", "policies", "options", "seat", "seed", "players"][int(rng.integers(6))]
        if rng.random() < 0.6:
            body[key] = junk
        return client.post("/api/play", json=body)
    if kind == 1:
        body = {"game": spec.name, "policies": ["random"] * n, "seed": int(rng.integers(99))}
        if rng.random() < 0.5:
            body["policies"][int(rng.integers(n))] = junk
        return client.post("/api/watch", json=body)
    if kind == 2:
        if rng.random() < 0.3:  # a move by its parts, or junk in their place
            parts = {"verb": str(junk)[:20], "cards": [str(junk)[:5]] * int(rng.integers(4)),
                     "target": None}
            return client.post(f"/api/games/{gid}/move",
                               json={"move": parts if rng.random() < 0.5 else junk})
        return client.post(f"/api/games/{gid}/move", json={"action": junk if rng.random() < 0.5
                                                           else int(rng.integers(-5, 2000))})
    if kind == 3:
        return client.post(f"/api/games/{gid}/advance",
                            json={"wait_ms": junk} if rng.random() < 0.3 else {})
    if kind == 4:
        if rng.random() < 0.3:  # a stream refused before it starts (one that started would
            # wait on its game here: the test client reads a response to its end)
            bad = ["x", "-1", "10001", "1e3", ""][int(rng.integers(5))] or "99999"
            return client.get(f"/api/games/{gid}/stream",
                              params={"pace_ms": bad, "view": str(junk)[:20]})
        return client.get(f"/api/games/{gid}/state",
                          params={"since": str(junk), "view": str(junk)[:20]})
    if kind == 5:
        return client.get(f"/api/games/{gid}/log")
    if kind == 6:
        data = log.encode()
        cut = int(rng.integers(len(data) + 1))
        garbled = bytearray(data[:cut])
        for _ in range(int(rng.integers(4))):
            if garbled:
                garbled[int(rng.integers(len(garbled)))] = int(rng.integers(256))
        return client.post("/api/replays", content=bytes(garbled))
    if kind == 7:
        return client.get(f"/api/replays/{gid}/position/{word}", params={"view": str(junk)})
    if kind == 8:
        raw = [b"", b"{", b"[]", b"\xff", b"{\"game\": " + b"[" * 5000, b"9" * 5000][
            int(rng.integers(6))]
        return client.post(["/api/play", "/api/watch", f"/api/games/{gid}/move"][
            int(rng.integers(3))], content=raw)
    if kind == 9:
        method = ["GET", "POST", "PUT", "DELETE", "PATCH"][int(rng.integers(5))]
        path = ["/api/games", f"/api/games/{gid}", "/api/replays", "/api/x", "/static/../x",
                f"/api/replays/{gid}/position/0"][int(rng.integers(6))]
        return client.request(method, path)
    if kind == 10:
        return client.post("/api/play", content=b"{" + b" " * 100_000 + b"}")
    return client.delete(f"/api/games/{gid}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    client = TestClient(create_app())
    client.get("/")  # the page starts the session games belong to
    spec = registered_games()[0]
    n = spec.rules.DEFAULT_PLAYERS
    done = client.post("/api/watch", json={"game": spec.name, "policies": ["random"] * n,
                                           "seed": 1}).json()
    while not done["over"]:
        done = client.post(f"/api/games/{done['id']}/advance").json()
    log = client.get(f"/api/games/{done['id']}/log").text
    ids = [done["id"]]
    counts: collections.Counter[int] = collections.Counter()
    failures = []
    start = time.perf_counter()
    for i in range(args.requests):
        r = request(client, rng, ids, log)
        counts[r.status_code] += 1
        refused = r.status_code >= 400
        try:
            body = r.json()
        except ValueError:
            body = None
        if r.status_code >= 500 or (refused and not (isinstance(body, dict) and "error" in body)):
            failures.append(f"request {i}: {r.request.method} {r.request.url.path} -> "
                            f"{r.status_code} {r.text[:200]}")
        elif isinstance(body, dict) and r.status_code == 201 and "id" in body:
            ids.append(body["id"])
    seconds = time.perf_counter() - start
    alive = client.get("/api/games").status_code == 200
    print(f"{args.requests} requests in {seconds:.1f} s; answers by status: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"500s or non-JSON errors: {len(failures)}; server answers afterwards: {alive}")
    for line in failures[:10]:
        print("  " + line)
    return 0 if alive and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
