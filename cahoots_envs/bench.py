"""Environment throughput and memory, side by side with PettingZoo classic card/board envs.

Random legal play through each env's protected ``env()`` with ``last()`` (observation and action
mask) every step, and through its parallel API (``make_parallel``: every agent's observation
each step; rows marked ``parallel``), in the same process and run, interleaved over several
rounds so that machine noise hits every env alike; the table reports the median round. Compare the ratio column (ours /
``texas_holdem_v4``), not absolute numbers, across machines.

    cahoots bench -- [--seconds 2] [--rounds 3] [--no-classic] [--envs NAMES]
        [--no-batched] [--num-envs 1,64,1024,4096,8192] [--no-compile] [--no-seat-env]
        [--seat-envs 64]

(in a source checkout, ``python benchmarks/bench_envs.py`` takes the same arguments; ``cahoots
bench --quick`` is a short check of every env alone).

The table is printed as Markdown. PettingZoo classic comes with ``pip install -e ".[bench]"``
(``pip install "pettingzoo[classic]"``); without it the ratio column is left out, with a note.

The batched section (``cahoots_envs.vector``, needs numba: the ``fast`` extra) measures, in the
same run and rounds: decisions/s of every game with a batched engine at each player count and
each ``--num-envs``, with the observation and mask of every decision and a random legal action
per game picked in numpy (``vector.random_legal_actions``: one random number per game), and its
ratio to the AEC path above and to texas_holdem; the engine's state bytes per game beyond the
observation and mask buffers and the process's RSS per game at 8192 games; the compile time of
a first ``make``/``reset``/``step`` in a fresh process, cold (``NUMBA_CACHE_DIR`` an empty
folder) and cached; and the rollout throughput (learner steps/s, random legal learner actions)
of ``BatchedSeatVecEnv`` against ``SeatVecEnv`` with the zoo's network policy as every opponent
(needs the ``train`` extra). Games without a batched engine are skipped with a note.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

import numpy as np

from cahoots_envs.registry import (
    game_spec,
    list_envs,
    make,
    make_parallel,
    make_raw,
    registered_games,
)


def our_envs(parallel: bool = False) -> list[tuple[str, Callable[[], Any]]]:
    """Every env at every player count: the protected AEC env, or its parallel API (rows named
    ``... parallel``)."""
    factory, suffix = (make_parallel, " parallel") if parallel else (make, "")
    return [(f"{spec.name}_v{spec.version} ({n}p){suffix}", partial(factory, spec.env_id, num_players=n))
            for spec in registered_games() for n in spec.rules.PLAYER_COUNTS]


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


def run_for(factory: Callable[[], Any], seconds: float, seed: int) -> tuple[int, int, float]:
    """Agent steps, finished games and elapsed time of random legal play for ``seconds``."""
    env = factory()
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


def run_parallel_for(factory: Callable[[], Any], seconds: float, seed: int) -> tuple[int, int, float]:
    """``run_for`` through the parallel API: every agent's observation each step, the mover's
    action drawn from its mask."""
    env = factory()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        observations, _ = env.reset(seed=int(rng.integers(2**31)))
        while env.agents:
            mover = env.agent_to_move
            legal = np.flatnonzero(observations[mover]["action_mask"])
            observations, *_ = env.step({mover: int(legal[rng.integers(len(legal))])})
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import resource

    return pages * resource.getpagesize() / 2**20


def memory_env_id() -> str:
    """The env whose live instances ``memory_of_live_envs`` counts: Kansas City's current id."""
    spec = game_spec("kansas_city")
    return f"{spec.name}-v{spec.version}"


def memory_of_live_envs(count: int = 1000) -> float:
    """MiB of RSS added by ``count`` Kansas City envs (the current version, 4 players), each
    reset and 10 steps in."""
    gc.collect()
    before = rss_mb()
    envs = []
    rng = np.random.default_rng(0)
    env_id = memory_env_id()
    for i in range(count):
        env = make(env_id)
        env.reset(seed=i)
        for _ in range(10):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
        envs.append(env)
    gc.collect()
    used = rss_mb() - before
    del envs
    return used


# ---- the batched engine -------------------------------------------------------------------------
NUM_ENVS = (1, 64, 1024, 4096, 8192)
RATIO_AT = 4096  # the target: >= 40x the AEC path at 4096 games
MAX_BATCH = 65_536  # games of one batched env or seat env measured (the largest default: 8,192)


def batched_envs(keys: list[str]) -> tuple[list[tuple[str, str, int]], list[str]]:
    """(label, env id, players) of every game with a batched engine at every player count, and a
    note for each game without one."""
    out, notes = [], []
    for spec in registered_games():
        if keys and not any(k in spec.name for k in keys):
            continue
        if not spec.has("batched"):
            notes.append(f"{spec.name}: no batched engine, skipped")
            continue
        for n in spec.rules.PLAYER_COUNTS:
            out.append((f"{spec.name}_v{spec.version} ({n}p)", spec.env_id, n))
    return out, notes


def run_batched(env_id: str, players: int, num_envs: int, seconds: float,
                seed: int) -> float:
    """Decisions/s of random legal play in ``num_envs`` games in lockstep (every step: the
    observation and mask of each game, one random legal action per game picked in numpy)."""
    from cahoots_envs.vector import make as make_vector
    from cahoots_envs.vector import random_legal_actions

    vec = make_vector(env_id, num_envs, seed=seed, num_players=players)
    rng = np.random.default_rng(seed)
    out = vec.reset()
    out = vec.step(random_legal_actions(out.mask, rng))  # warm: dispatch, buffers
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(8):
            out = vec.step(random_legal_actions(out.mask, rng))
        steps += 8
        now = time.perf_counter()
        if now >= deadline:
            break
    return steps * num_envs / (now - start)


def batched_memory(env_id: str, players: int, num_envs: int = 8192) -> tuple[float, float, float]:
    """Bytes per game: the engine's state beyond the output buffers, its observation and mask
    buffers, and the process RSS added by ``num_envs`` games a few steps in."""
    from cahoots_envs.vector import make as make_vector
    from cahoots_envs.vector import random_legal_actions

    gc.collect()
    before = rss_mb()
    vec = make_vector(env_id, num_envs, seed=0, num_players=players)
    out = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        out = vec.step(random_legal_actions(out.mask, rng))
    gc.collect()
    rss = (rss_mb() - before) * 2**20 / num_envs
    buffers = (out.obs.nbytes + out.mask.nbytes) / num_envs
    state = vec.memory_per_game()
    del vec, out
    return state, buffers, rss


COMPILE_SCRIPT = """
import time
start = time.perf_counter()
import numpy as np
from cahoots_envs import vector
vec = vector.make({env_id!r}, 4, seed=0, num_players={players})
out = vec.reset()
vec.step(vector.random_legal_actions(out.mask, np.random.default_rng(0)))
print(time.perf_counter() - start)
"""


def compile_times(env_id: str, players: int) -> tuple[float, float]:
    """Seconds of a first make/reset/step in a fresh process (imports included): with an empty
    numba cache (``NUMBA_CACHE_DIR`` a new folder), then again with the cache it filled."""
    code = COMPILE_SCRIPT.format(env_id=env_id, players=players)
    times = []
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                  text=True, check=True)
            times.append(float(done.stdout.strip().splitlines()[-1]))
    return times[0], times[1]


def seat_rollout(kind: str, env_id: str, num_envs: int, seconds: float) -> float:
    """Learner steps/s of ``SeatVecEnv`` or ``BatchedSeatVecEnv`` (``kind``), random legal
    learner actions, the zoo's network policy (at its own options) in every opponent seat (a
    cooperative game: the team plays every seat, no opponents)."""
    from cahoots_envs.policies.loading import list_policies
    from cahoots_envs.vector import random_legal_actions

    name = game_spec(env_id).name
    meta = next(p for p in list_policies() if p["name"] == name)
    options = dict(meta["game_options"])
    team = bool(meta["training"]["config"].get("team"))
    args: dict[str, Any] = {"options": options, "seed": 0, "team": team,
                            "opponents": "random" if team else f"zoo:{name}"}
    if kind == "SeatVecEnv":
        from cahoots_envs.training import SeatVecEnv

        venv: Any = SeatVecEnv(env_id, num_envs, **args)
    else:
        from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

        venv = BatchedSeatVecEnv(env_id, num_envs, **args)
    rng = np.random.default_rng(0)
    venv.reset()
    venv.step(random_legal_actions(venv.action_masks().astype(np.int8), rng))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(random_legal_actions(venv.action_masks().astype(np.int8), rng))
        steps += 1
    return steps * num_envs / (time.perf_counter() - start)


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def print_batched(args: argparse.Namespace, configs: list[tuple[str, str, int]],
                  batched: dict[tuple[str, int], list[float]], medians: dict[str, tuple[float, float]],
                  base: float | None) -> None:
    sizes = [int(x) for x in args.num_envs.split(",")]
    print("## Batched engine (cahoots_envs.vector): decisions/s on one core, random legal "
          "actions picked in numpy")
    print()
    ratio_n = RATIO_AT if RATIO_AT in sizes else sizes[-1]
    head = " | ".join(f"N={n:,}" for n in sizes)
    extra = f" | x AEC (N={ratio_n:,}) |" + (f" x texas_holdem (N={ratio_n:,}) |" if base else "")
    print(f"| env | {head}{extra}")
    print("|---|" + "---:|" * (len(sizes) + 1 + (1 if base else 0)))
    for label, _env_id, _n in configs:
        rates = {n: statistics.median(batched[(label, n)]) for n in sizes}
        aec = medians.get(label, (0.0, 0.0))[0]
        cells = " | ".join(f"{rates[n]:,.0f}" for n in sizes)
        ratio = f" {rates[ratio_n] / aec:.0f} |" if aec else " - |"
        if base:
            ratio += f" {rates[ratio_n] / base:,.0f} |"
        print(f"| {label} | {cells} |{ratio}")
    print()
    sys.stdout.flush()


def batched_extras(args: argparse.Namespace, configs: list[tuple[str, str, int]]) -> None:
    """Memory, compile time and the seat env, at each game's default player count."""
    from cahoots_envs.policies.loading import list_policies

    defaults = []
    for label, env_id, n in configs:
        if n == game_spec(env_id).rules.DEFAULT_PLAYERS:
            defaults.append((label, env_id, n))
    print("| env (default players) | state B/game | obs+mask B/game | RSS B/game (8,192 games) "
          "| compile cold s | compile cached s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, env_id, n in defaults:
        state, buffers, rss = batched_memory(env_id, n)
        cold = cached = float("nan")
        if not args.no_compile:
            cold, cached = compile_times(env_id, n)
        print(f"| {label} | {state:,.0f} | {buffers:,.0f} | {rss:,.0f} | {cold:.1f} | "
              f"{cached:.1f} |")
        sys.stdout.flush()
    print()
    print("State: the engine's arrays per game beyond its output buffers; compile: a first "
          "make/reset/step in a fresh process, imports included.")
    print()
    if args.no_seat_env:
        return
    try:
        import stable_baselines3  # noqa: F401
        import torch
    except ImportError:
        print("note: the seat env comparison needs the train extra (torch, stable-baselines3); "
              "skipped")
        return
    torch.set_num_threads(1)
    print(f"### Seat env rollout: learner steps/s, {args.seat_envs} games, network opponents "
          "(the zoo policy), one torch thread")
    print()
    print("| env | SeatVecEnv | BatchedSeatVecEnv | ratio |")
    print("|---|---:|---:|---:|")
    for label, env_id, _n in defaults:
        name = game_spec(env_id).name
        if not any(p["name"] == name for p in list_policies()):
            continue
        rates: dict[str, list[float]] = {"SeatVecEnv": [], "BatchedSeatVecEnv": []}
        for _ in range(args.rounds):
            for kind, got in rates.items():
                got.append(seat_rollout(kind, env_id, args.seat_envs, args.seconds))
        old, new = (statistics.median(rates[k]) for k in rates)
        note = " (team: no opponents)" if "coop" in name else ""
        print(f"| {label}{note} | {old:,.0f} | {new:,.0f} | {new / old:.1f} |")
        sys.stdout.flush()
    print()


def run(args: argparse.Namespace) -> None:
    """The benchmark, with the options ``cahoots bench`` reads (``cahoots_envs.cli.bench_parser``:
    ``seconds``, ``rounds``, ``no_classic``, ``envs``, ``no_batched``, ``num_envs``,
    ``no_compile``, ``no_seat_env``, ``seat_envs``), printed as Markdown."""
    keys = args.envs.split(",") if args.envs else []
    configs: list[tuple[str, str, int]] = []
    if not args.no_batched:
        if not numba_available():
            print("note: numba is not installed, so the batched section is skipped; install it "
                  "with pip install \"cahoots-envs[fast]\"", file=sys.stderr)
        else:
            configs, notes = batched_envs(keys)
            for line in notes:
                print(f"note: {line}", file=sys.stderr)
    try:  # one core: BLAS (the network opponents' matrix products) on one thread too
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass
    sizes = [int(x) for x in args.num_envs.split(",")]
    batched: dict[tuple[str, int], list[float]] = {(c[0], n): [] for c in configs for n in sizes}

    classic = [] if args.no_classic else classic_envs()
    if not args.no_classic and not classic:
        print("note: pettingzoo[classic] is not installed, so there is nothing to compare with and "
              "no ratio column; install it with pip install \"cahoots-envs[bench]\" (or pip "
              "install \"pettingzoo[classic]\"), or pass --no-classic", file=sys.stderr)
    parallel = our_envs(parallel=True)
    runners = {name: run_parallel_for for name, _ in parallel}
    candidates = our_envs() + parallel + classic
    if args.envs:
        keys = args.envs.split(",")
        candidates = [c for c in candidates if any(k in c[0] or "texas_holdem" in c[0] for k in keys)]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in candidates}
    for r in range(args.rounds):
        for name, factory in candidates:
            steps, games, elapsed = runners.get(name, run_for)(factory, args.seconds, seed=r)
            results[name].append((steps / elapsed, games / elapsed))
        for label, env_id, n in configs:
            for size in sizes:
                batched[(label, size)].append(run_batched(env_id, n, size, args.seconds, seed=r))
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
    print(f"memory of 1,000 live {memory_env_id()} envs: {mem:.1f} MiB "
          f"({mem * 1024 / 1000:.0f} KiB per env)")
    print()
    sys.stdout.flush()
    if configs:
        print_batched(args, configs, batched, medians, base)
        batched_extras(args, configs)


def quick(seconds: float) -> int:
    """``cahoots bench --quick``: random legal play through every env (protected ``env()`` with
    ``last()``) for ``seconds`` each, steps/s and games/s."""
    print(f"{'env':<28} {'steps/s':>9} {'games/s':>8}")
    for env_id in list_envs():
        cls = make_raw(env_id).game_cls
        for n in cls.PLAYER_COUNTS:
            env = make(env_id, num_players=n)
            rng = np.random.default_rng(0)
            env.reset(seed=0)
            steps = games = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                _, _, term, trunc, _ = env.last()
                if term or trunc:
                    games += 1
                    env.reset()
                    continue
                mask = env.observe(env.agent_selection)["action_mask"]
                env.step(int(rng.choice(np.flatnonzero(mask))))
                steps += 1
            took = time.perf_counter() - start
            name = f"{env_id.split('/', 1)[1]} ({n}p)"
            print(f"{name:<28} {steps / took:>9.0f} {games / took:>8.1f}")
    return 0
