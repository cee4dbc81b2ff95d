"""Environment throughput and memory, side by side with PettingZoo classic card/board envs.

Random legal play through each env's protected ``env()`` with ``last()`` (observation and action
mask) every step, in the same process and run, interleaved over several rounds so that machine
noise hits every env alike; the table reports the median round. Compare the ratio column (ours /
``texas_holdem_v4``), not absolute numbers, across machines.

    python benchmarks/bench_envs.py [--seconds 2] [--rounds 3] [--no-classic] [--envs NAMES]

The table is printed as Markdown. PettingZoo classic comes with ``pip install -e ".[bench]"``
(``pip install "pettingzoo[classic]"``); without it the ratio column is left out, with a note.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np

import cahoots_envs


def our_envs() -> list[tuple[str, Callable[[], Any]]]:
    out = []
    for spec in cahoots_envs.registered_games():
        for n in spec.rules.PLAYER_COUNTS:
            out.append((f"{spec.name}_v{spec.version} ({n}p)",
                        lambda env_id=spec.env_id, n=n: cahoots_envs.make(env_id, num_players=n)))
    return out


def classic_envs() -> list[tuple[str, Callable[[], Any]]]:
    try:
        from pettingzoo.classic import connect_four_v3, leduc_holdem_v4, texas_holdem_v4
    except ImportError:
        return []
    return [
        ("pettingzoo texas_holdem_v4", texas_holdem_v4.env),
        ("pettingzoo leduc_holdem_v4", leduc_holdem_v4.env),
        ("pettingzoo connect_four_v3", connect_four_v3.env),
    ]


def run_for(make: Callable[[], Any], seconds: float, seed: int) -> tuple[int, int, float]:
    """Agent steps, finished games and elapsed time of random legal play for ``seconds``."""
    env = make()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=int(rng.integers(2**31)))
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
        games += 1
    return steps, games, time.perf_counter() - start


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import resource

    return pages * resource.getpagesize() / 2**20


def memory_of_live_envs(count: int = 1000) -> float:
    """MB of RSS added by ``count`` Kansas City envs, each reset and a few steps in."""
    gc.collect()
    before = rss_mb()
    envs = []
    rng = np.random.default_rng(0)
    for i in range(count):
        env = cahoots_envs.make("kansas_city-v1")
        env.reset(seed=i)
        for _ in range(10):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
        envs.append(env)
    gc.collect()
    used = rss_mb() - before
    del envs
    return used


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per env per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median reported)")
    parser.add_argument("--no-classic", action="store_true", help="skip the PettingZoo classic envs")
    parser.add_argument("--envs", default="", help="comma-separated substrings to select envs")
    args = parser.parse_args(argv)

    classic = [] if args.no_classic else classic_envs()
    if not args.no_classic and not classic:
        print("note: pettingzoo[classic] is not installed, so there is nothing to compare with and "
              "no ratio column; install it with pip install \"cahoots-envs[bench]\" (or pip "
              "install \"pettingzoo[classic]\"), or pass --no-classic", file=sys.stderr)
    candidates = our_envs() + classic
    if args.envs:
        keys = args.envs.split(",")
        candidates = [c for c in candidates if any(k in c[0] or "texas_holdem" in c[0] for k in keys)]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in candidates}
    for r in range(args.rounds):
        for name, make in candidates:
            steps, games, elapsed = run_for(make, args.seconds, seed=r)
            results[name].append((steps / elapsed, games / elapsed))
    medians = {
        name: (statistics.median(s for s, _ in rs), statistics.median(g for _, g in rs))
        for name, rs in results.items()
    }
    base = medians.get("pettingzoo texas_holdem_v4", (None, 0))[0]
    print(f"# bench_envs — {date.today()} — {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, {args.rounds} rounds x {args.seconds:g}s, median")
    print()
    if base:  # the ratio column only beside PettingZoo's texas_holdem
        print("| env | agent-steps/s | games/s | ratio vs texas_holdem |")
        print("|---|---:|---:|---:|")
    else:
        print("| env | agent-steps/s | games/s |")
        print("|---|---:|---:|")
    for name, (sps, gps) in medians.items():
        ratio = f" {sps / base:.1f} |" if base else ""
        print(f"| {name} | {sps:,.0f} | {gps:,.1f} |{ratio}")
    print()
    mem = memory_of_live_envs()
    print(f"memory of 1,000 live kansas_city_v1 envs: {mem:.0f} MB "
          f"({mem * 1024 / 1000:.0f} KB per env)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
