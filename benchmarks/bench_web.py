"""The browser view's round trip: one move of the person's seat against bot seats, through the
app (``cahoots_envs.web``, Starlette's test client, no socket): ``POST .../move`` and then
``POST .../advance`` until the person is to move again, each bot deciding in the app's worker
thread. Prints, per game, the median and 90th percentile of a move's round trip (the person's
move plus every bot move up to their next turn) and of one request, with the machine's load.

    python benchmarks/bench_web.py [--games N] [--policy heuristic]   # target: <= 50 ms a move
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from cahoots_envs.registry import builtin_games
from cahoots_envs.web.app import create_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per game kind")
    parser.add_argument("--policy", default="heuristic", help="the bots' policy id")
    args = parser.parse_args()
    client = TestClient(create_app())
    client.get("/")  # the page starts the session games belong to
    rng = np.random.default_rng(0)
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average before "
          f"{os.getloadavg()[0]:.2f}; bots: {args.policy}")
    for spec in builtin_games():
        n = spec.rules.DEFAULT_PLAYERS
        trips: list[float] = []
        requests: list[float] = []
        for g in range(args.games):
            state = client.post("/api/play", json={
                "game": spec.name, "seed": g, "policies": ["human"] + [args.policy] * (n - 1)}).json()
            gid = state["id"]
            while not state["over"]:
                if not state["your_turn"]:
                    state = client.post(f"/api/games/{gid}/advance",
                                        json={"since": state["events_total"]}).json()
                    continue
                began = time.perf_counter()
                move = state["legal"][int(rng.integers(len(state["legal"])))]["id"]
                t = time.perf_counter()
                state = client.post(f"/api/games/{gid}/move",
                                    json={"action": move, "since": state["events_total"]}).json()
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


if __name__ == "__main__":
    main()
