"""Learner decisions/s of the seat ids' Gymnasium vector entry point (the batched engine) beside
``gym.make_vec(id, 8, vectorization_mode="sync")`` of the reference seat env, same process, same
run, rounds interleaved so that machine noise hits both alike; the median round is reported.

    python benchmarks/bench_vector_entry.py [--seconds 2] [--rounds 3] [--num-envs 1024]
        [--games kansas_city,texas_euchre,cahoots_tricks,cahoots_coop]
        [--opponents random,heuristic,zoo] [--out benchmarks/results/vector_entry.jsonl]

Both sides draw a uniformly random legal learner action per game from ``info["action_mask"]``
every step (the vector side with one random number per game, ``vector.random_legal_actions``);
the opponents are the named bots (``zoo``: the game's zoo network, reported without a target).
A decision is one learner move; the opponents' moves are part of its cost. Memory per game is
the process's RSS growth from building and resetting the vector env, divided by its games (the
kernels already loaded). Each row is appended to ``--out`` as one JSON line with the date, the
load average and the machine, so that a reader can re-run the command and compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import gymnasium as gym
import numpy as np

import cahoots_envs  # noqa: F401 (registers the ids)
from cahoots_envs.vector import random_legal_actions

ROOT = Path(__file__).resolve().parents[1]


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def opponent_spec(game: str, kind: str) -> str:
    return f"zoo:{game}" if kind == "zoo" else kind


def run_vector(game: str, kind: str, num_envs: int, seconds: float, seed: int) -> float:
    envs = gym.make_vec(f"cahoots_envs/{game}_seat-v1", num_envs=num_envs,
                        vectorization_mode="vector_entry_point",
                        opponents=opponent_spec(game, kind), seed=seed)
    _, info = envs.reset()
    rng = np.random.default_rng(seed)
    # the kernels load before the clock starts
    _, _, _, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
        decisions += num_envs
    return decisions / (time.perf_counter() - start)


def run_sync(game: str, kind: str, num_envs: int, seconds: float, seed: int) -> float:
    envs = gym.make_vec(f"cahoots_envs/{game}_seat-v1", num_envs=num_envs,
                        vectorization_mode="sync", opponents=opponent_spec(game, kind))
    _, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, _, _, _, info = envs.step(actions)
        decisions += num_envs
    envs.close()
    return decisions / (time.perf_counter() - start)


MEMORY_PROBE = """
import sys, gymnasium as gym, cahoots_envs
from bench_vector_entry import rss_mib
game, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
make = lambda k: gym.make_vec(f"cahoots_envs/{game}_seat-v1", num_envs=k,
                              vectorization_mode="vector_entry_point", opponents=kind)
make(8).reset(seed=0)  # the kernels and the opponents loaded
before = rss_mib()
envs = make(n)
envs.reset(seed=0)
print((rss_mib() - before) * 1024 / n)
"""


def memory_per_game(game: str, kind: str, num_envs: int) -> float:
    """KiB of RSS per game: a vector env of ``num_envs`` games built and reset in a fresh
    process (after an 8-game one loaded the kernels and opponents), so that memory freed by
    earlier runs cannot hide it."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE, game, opponent_spec(game, kind),
                          str(num_envs)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parent)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--sync-envs", type=int, default=8)
    parser.add_argument("--games", default="kansas_city,texas_euchre,cahoots_tricks,cahoots_coop")
    parser.add_argument("--opponents", default="random,heuristic,zoo")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/vector_entry.jsonl")
    args = parser.parse_args(argv)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)  # one core: the network opponents' matrix products on one thread
    except ImportError:
        pass
    games = args.games.split(",")
    kinds = [k for k in args.opponents.split(",") if k]
    configs = [(g, k) for g in games for k in kinds
               if not (k == "zoo" and g == "cahoots_coop")]  # the coop zoo entry plays team games
    rates: dict[tuple[str, str], list[tuple[float, float]]] = {c: [] for c in configs}
    for r in range(args.rounds):
        for game, kind in configs:
            fast = run_vector(game, kind, args.num_envs, args.seconds, seed=r)
            slow = run_sync(game, kind, args.sync_envs, args.seconds, seed=r)
            rates[(game, kind)].append((fast, slow))
            print(f"round {r + 1}: {game} vs {kind}: {fast:,.0f} / {slow:,.0f} decisions/s",
                  file=sys.stderr)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")
    load = os.getloadavg()[0]
    print(f"# vector entry point vs sync seat envs — {stamp} UTC — {platform.machine()}, "
          f"Python {platform.python_version()}, load {load:.1f}, {args.rounds} rounds x "
          f"{args.seconds:g} s, median")
    print()
    print(f"| game | opponents | vector_entry_point ({args.num_envs}) decisions/s | "
          f"sync ({args.sync_envs}) decisions/s | ratio (median of rounds) | KiB per game |")
    print("|---|---|---:|---:|---:|---:|")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as out:
        for (game, kind), rounds in rates.items():
            fast = statistics.median(f for f, _ in rounds)
            slow = statistics.median(s for _, s in rounds)
            ratio = statistics.median(f / s for f, s in rounds)
            kib = memory_per_game(game, kind, args.num_envs)
            print(f"| {game} | {kind} | {fast:,.0f} | {slow:,.0f} | {ratio:.1f} | {kib:.1f} |")
            out.write(json.dumps({
                "date": stamp, "machine": platform.machine(), "load": round(load, 2),
                "game": game, "opponents": kind, "num_envs": args.num_envs,
                "sync_envs": args.sync_envs, "seconds": args.seconds, "rounds": args.rounds,
                "vector_decisions_per_s": round(fast), "sync_decisions_per_s": round(slow),
                "ratio": round(ratio, 2), "kib_per_game": round(kib, 1)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
