"""The first iterations of each training algorithm's recipe, tensor for tensor, in two checkouts.

    python benchmarks/algorithm_identity.py --before ../other-checkout [--iterations 2]
                                            [--rounds 2] [--recipes every_seat/kansas_city ...]
                                            [--out benchmarks/results/algorithm_identity.json]

For each recipe (a packaged config: ``kansas_city`` for MaskablePPO, ``every_seat/kansas_city``
for every-seat PPO, ``expert_iteration/kansas_city`` for expert iteration: the configs the zoo
entries were trained by), each checkout trains the recipe's first ``--iterations`` iterations
(rollouts and their updates; expert iteration: labelled batches and their fits), its behaviour
clone included, in a process of its own (``PYTHONPATH`` set to the checkout), and writes every
tensor of its checkpoints (network, optimiser, random generators, the games in flight, the
pool's seating), of the clone it saved and of the trained policy. The two checkouts' tensors
must be equal, name for name and bit for bit. The checkouts run interleaved (before, this,
before, this, ... ``--rounds`` times), so the ratio of their training seconds compares them on
the same machine load; it is printed beside the check.

Only the evaluations are made cheaper than the recipe's (20 games an opponent, at the end): they
play after the weights are set and do not change them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

RECIPES = ["kansas_city", "every_seat/kansas_city", "expert_iteration/kansas_city"]
HERE = Path(__file__).resolve().parents[1]


def iteration_timesteps(config) -> int:  # type: ignore[no-untyped-def]
    """The ``total_timesteps`` that ends a run after ``ITERATIONS`` iterations of its algorithm."""
    n = ITERATIONS
    if config.algorithm == "expert_iteration":
        return n * config.sections["expert_iteration"].positions
    steps = getattr(config, "ppo", None)
    n_steps = steps.n_steps if steps is not None else config.sections[config.algorithm].ppo.n_steps
    if config.algorithm == "maskable_ppo":  # one learner decision per game and engine step
        return n * config.n_envs * n_steps
    # every-seat PPO: at most n_envs decisions an engine step, at least the self-play games'
    # share: one more than n - 1 full rollouts ends it in iteration n (its games hold a pool
    # seat too, so n rollouts always pass it)
    return (n - 1) * config.n_envs * n_steps + 1


ITERATIONS = 2


def child(recipe: str, out: Path, iterations: int) -> None:
    """In the checkout on ``PYTHONPATH``: train the recipe's first iterations, write tensors."""
    global ITERATIONS
    ITERATIONS = iterations
    import time

    import numpy as np
    from safetensors.numpy import load_file, save_file

    from cahoots_envs.core.threads import limit_blas_threads
    from cahoots_envs.training.algorithms import algorithm
    from cahoots_envs.training.config import load_config
    from cahoots_envs.training.run import Evaluator

    config = load_config(recipe)
    limit_blas_threads(config.torch_threads)
    config.total_timesteps = iteration_timesteps(config)
    config.progress_bar = False
    config.checkpoint_minutes = 0.0  # a checkpoint every iteration
    config.checkpoint_keep = iterations + 1
    config.eval = dataclasses.replace(config.eval, every=10**12, games=20, final_games=20)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        run_dir.mkdir()
        t0 = time.process_time()
        trained = algorithm(config.algorithm).load()(config, run_dir, False, Evaluator(config, run_dir))
        seconds = time.process_time() - t0
        tensors = {f"learner/{k}": np.ascontiguousarray(v)
                   for k, v in trained.learner.tensors().items()}
        for path in sorted((run_dir / "checkpoints").rglob("*.safetensors")):
            name = path.relative_to(run_dir).as_posix()
            tensors |= {f"{name}/{k}": v for k, v in load_file(path).items()}
        if trained.close is not None:
            trained.close()
    save_file(tensors, str(out))
    out.with_suffix(".json").write_text(json.dumps({"cpu_seconds": seconds,
                                                    "timesteps": trained.timesteps}))


def compare(a: Path, b: Path) -> list[str]:
    import numpy as np
    from safetensors.numpy import load_file

    x, y = load_file(a), load_file(b)
    problems = [f"only in one: {k}" for k in sorted(set(x) ^ set(y))]
    for k in sorted(set(x) & set(y)):
        if x[k].dtype != y[k].dtype or x[k].shape != y[k].shape or \
                x[k].tobytes() != y[k].tobytes():
            diff = "" if x[k].shape != y[k].shape else \
                f" (max difference {float(np.max(np.abs(x[k].astype(float) - y[k].astype(float))))})"
            problems.append(f"differs: {k}{diff}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the other checkout (its root folder)")
    parser.add_argument("--recipes", nargs="+", default=RECIPES)
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, help="a JSON file for the results")
    parser.add_argument("--child", nargs=2, metavar=("RECIPE", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), args.iterations)
        return 0
    before = Path(args.before).resolve()
    if not (before / "cahoots_envs").is_dir():
        parser.error(f"--before {args.before}: not a checkout of this project (no cahoots_envs/)")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    results = {}
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for recipe in args.recipes:
            seconds: dict[str, list[float]] = {"before": [], "this": []}
            files = {}
            for r in range(args.rounds):
                for side, root in (("before", before), ("this", HERE)):
                    out = Path(tmp) / f"{recipe.replace('/', '_')}-{side}-{r}.safetensors"
                    subprocess.run([sys.executable, str(HERE / "benchmarks" / Path(__file__).name),
                                    "--before", str(before), "--iterations", str(args.iterations),
                                    "--child", recipe, str(out)], check=True, cwd=root,
                                   env={**env, "PYTHONPATH": str(root)},
                                   stdout=subprocess.DEVNULL)
                    seconds[side].append(json.loads(out.with_suffix(".json").read_text())
                                         ["cpu_seconds"])
                    files.setdefault(side, out)
            problems = compare(files["before"], files["this"])
            from safetensors.numpy import load_file

            count = len(load_file(files["this"]))
            ratio = sum(seconds["this"]) / sum(seconds["before"])
            ok &= not problems
            results[recipe] = {"tensors": count, "identical": not problems,
                               "problems": problems[:20], "cpu_seconds": seconds,
                               "this_over_before": round(ratio, 3)}
            print(f"{recipe}: {count} tensors, "
                  f"{'identical' if not problems else f'{len(problems)} differ'}; CPU seconds "
                  f"before {seconds['before']}, this {seconds['this']} (ratio {ratio:.3f})",
                  flush=True)
            for p in problems[:20]:
                print(f"  {p}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
