"""Two checkouts of the package side by side: AEC agent steps/s and batched-engine decisions/s.

    git worktree add /tmp/before <commit>
    python benchmarks/bench_trees.py /tmp/before .          # 5 rounds of 1 s per env and path

For refactors that must not change speed: both trees name their package ``cahoots_envs``, so
they cannot share one process; each round runs one process per tree, in alternating order (the
first process of a pair measured a few percent faster here), after one warm-up process each
(the numba kernels compile once per tree). Prints the medians and the after/before ratios as a
Markdown table. Random legal play through the protected ``env()`` with ``last()`` every step,
and ``vector.make(game, num_envs=1024)`` stepping random legal actions.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

GAMES = ("kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop")

MEASURE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import cahoots_envs
from cahoots_envs import vector
assert cahoots_envs.__file__.startswith(sys.argv[1]), cahoots_envs.__file__
seconds = float(sys.argv[2])
for game in sys.argv[3:]:
    env, rng = cahoots_envs.make(game), np.random.default_rng(0)
    env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        env.reset()
    aec = steps / (time.perf_counter() - start)
    vec = vector.make(game, num_envs=1024, seed=0)
    out = vec.reset()
    out = vec.step(vector.random_legal_actions(out.mask, rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        out = vec.step(vector.random_legal_actions(out.mask, rng))
        steps += 1024
    print(game, round(aec), round(steps / (time.perf_counter() - start)))
"""


def measure(tree: Path, seconds: float) -> dict[str, tuple[int, int]]:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(tree), str(seconds), *GAMES],
                          capture_output=True, text=True, check=True)
    rows = (line.split() for line in done.stdout.splitlines())
    return {game: (int(aec), int(vec)) for game, aec, vec in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the checkout before the change")
    parser.add_argument("after", type=Path, help="the checkout after it")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per env and path")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for name, tree in trees.items():
        if not (tree / "cahoots_envs" / "__init__.py").is_file():
            parser.error(f"{name}: {tree} holds no cahoots_envs package; give a checkout's root")
        measure(tree, 0.05)  # warm-up: the kernels compile once per tree
    runs: dict[str, list[dict[str, tuple[int, int]]]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
            runs[name].append(measure(trees[name], args.seconds))
    print("| env (default players) | AEC steps/s before | after | ratio | batched decisions/s "
          "before (1,024 games) | after | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for game in GAMES:
        med = {name: [statistics.median(run[game][k] for run in runs[name]) for k in (0, 1)]
               for name in runs}
        (a0, v0), (a1, v1) = med["before"], med["after"]
        print(f"| {game} | {a0:,.0f} | {a1:,.0f} | {a1 / a0:.2f} | {v0:,.0f} | {v1:,.0f} | "
              f"{v1 / v0:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
