"""RLlib self-play training from a YAML config: ``python -m cahoots_envs.rllib.train --config
configs/rllib/<game>.yaml``.

    python -m cahoots_envs.rllib.train --config configs/rllib/texas_euchre.yaml
    python -m cahoots_envs.rllib.train --config configs/rllib/texas_euchre.yaml --address auto

PPO (RLlib, new API stack) with ``MaskedPPOTorchRLModule`` on ``CahootsMultiAgentEnv``, in the
config's self-play mode (``shared`` or ``snapshots``, optional bot seats). Without ``--address``
Ray starts on this machine; ``--address auto`` (or ``HOST:PORT``) joins a running Ray cluster
(``ray start --head``), where ``resources.num_env_runners`` env-runner actors sample in parallel.

A run folder ``runs/<env>__rllib_ppo__<seed>__<time>/`` receives ``config.yaml``, then as the run
goes ``progress.csv`` (one row per training iteration: env steps, seconds, learner steps per
second, the trained policy's mean episode return, which in ``shared`` mode adds up every seat,
and losses) and ``eval.csv`` (the exported policy, greedy, in one seat
against random and heuristic opponents, seats rotated: win share with its 95% interval; a
cooperative game: the team win rate), and at the end ``policy.safetensors`` + ``policy.json``
(the saved-policy format: ``cahoots_envs.load_policy(path, env_id)``, ``cahoots eval``,
``cahoots play``) and ``checkpoint/`` (RLlib's, for ``Algorithm.from_checkpoint``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from cahoots_envs.errors import IncompatiblePolicyError
from cahoots_envs.policies.saved import PolicyFileError
from cahoots_envs.rllib.config import (
    RLlibTrainConfig,
    load_config,
    ppo_config_from,
    trained_policy,
)
from cahoots_envs.training.config import ConfigError
from cahoots_envs.training.run import (
    CsvLog,
    Evaluator,
    Trained,
    check_runs_dir,
    finish,
    policy_commands,
    result_lines,
    run_name,
    start,
)

ALGO = "rllib_ppo"  # its part of a run folder's name
ALGORITHM = "PPO (RLlib {ray}, new API stack) self-play, mode {mode}"
# the run plumbing every trainer shares, importable from here as before
__all__ = ["ALGO", "CsvLog", "Evaluator", "main", "next_steps", "progress_row", "train"]


def _get(tree: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def progress_row(result: dict[str, Any], module_id: str, seconds: float,
                 start_steps: int) -> dict[str, Any]:
    """One ``progress.csv`` row from RLlib's result dict."""
    steps = int(_get(result, "env_runners", "num_env_steps_sampled_lifetime") or 0)
    learner = _get(result, "learners", module_id) or {}

    def num(value: Any) -> Any:
        return "" if value is None else round(float(value), 5)

    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": steps,
        "seconds": round(seconds, 1),
        "steps_per_second": round((steps - start_steps) / seconds, 1) if seconds > 0 else "",
        "episodes": int(_get(result, "env_runners", "num_episodes_lifetime") or 0),
        "episode_return_mean": num(_get(result, "env_runners", "module_episode_returns_mean",
                                        module_id)),
        "policy_loss": num(learner.get("policy_loss")),
        "vf_loss": num(learner.get("vf_loss")),
        "entropy": num(learner.get("entropy")),
        "mean_kl": num(learner.get("mean_kl_loss")),
    }


def connect(address: str | None) -> None:
    """Start Ray here, or join the cluster at ``address`` (``ConfigError`` if it cannot)."""
    import ray

    if ray.is_initialized():
        return
    try:
        if address:
            ray.init(address=address, include_dashboard=False)
        else:
            ray.init(include_dashboard=False)
    except ConnectionError as exc:
        raise ConfigError(f"--address {address}: cannot join a Ray cluster there ({exc}); start "
                          "one with 'ray start --head' or leave --address out to run Ray "
                          "here") from None


def train(config: RLlibTrainConfig, run_dir: Path, address: str | None = None,
          command: str = "", fresh: bool = False) -> dict[str, Any]:
    """One run on the shared run plumbing (``cahoots_envs.training.run``): the run folder and
    config, RLlib's training iterations with evaluations, then the final check, the saved policy
    and the curve (``run.finish``), RLlib's checkpoint beside them. ``fresh``: a folder of the
    run's own (``run.start``), which the result's ``run_dir`` names."""
    import ray
    import torch

    torch.set_num_threads(config.resources.torch_threads)
    run_dir = start(config, run_dir, fresh)
    connect(address)
    cluster = ray.cluster_resources()
    print(f"ray {ray.__version__}: {'joined ' + address if address else 'started here'}, "
          f"{cluster.get('CPU', 0):g} CPUs in the cluster, "
          f"{config.resources.num_env_runners} env runners", flush=True)
    algo = ppo_config_from(config).build_algo()
    evaluator = Evaluator(config, run_dir)
    try:
        trained = train_algorithm(config, run_dir, algo, evaluator)
        return finish(config, run_dir, trained, evaluator, command)
    finally:
        algo.stop()


def train_algorithm(config: RLlibTrainConfig, run_dir: Path, algo: Any,
                    evaluator: Evaluator) -> Trained:
    """RLlib's training iterations until ``total_timesteps`` env steps (or ``time_limit``), with
    a row of ``progress.csv`` each and an evaluation every ``eval.every``: the trained module
    exported to numpy, handed back as a ``Trained``."""
    import ray

    from cahoots_envs.rllib.export import module_of, policy_from_module

    module_id = trained_policy(config.self_play.mode)
    progress = CsvLog(run_dir / "progress.csv")
    t0 = time.time()
    steps = 0
    iteration = 0
    while steps < config.total_timesteps and not (
            config.time_limit and time.time() - t0 >= config.time_limit):
        result = algo.train()
        iteration = int(result.get("training_iteration", iteration + 1))
        row = progress_row(result, module_id, time.time() - t0, 0)
        steps = row["env_steps"]
        progress.add(row)
        print(f"[iteration {iteration}, {steps:,} steps, {row['seconds']:.0f}s, "
              f"{row['steps_per_second']} steps/s] return {row['episode_return_mean']}",
              flush=True)
        if config.eval.every and iteration % config.eval.every == 0:
            policy = policy_from_module(module_of(algo, module_id))
            results = evaluator.evaluate(policy, config.eval.games, seed=config.seed + steps)
            evaluator.record(steps, results)
            print("  eval: " + ", ".join(f"vs {k} {r.win_rate:.3f}"
                                         for k, r in results.items()), flush=True)

    def checkpoint(_meta: dict[str, Any]) -> None:
        if config.checkpoint:
            algo.save_to_path(str((run_dir / "checkpoint").resolve()))

    return Trained(
        learner=policy_from_module(module_of(algo, module_id)), timesteps=steps,
        seconds=time.time() - t0,
        description=ALGORITHM.format(ray=ray.__version__, mode=config.self_play.mode),
        metadata={"iterations": iteration, "module": module_id}, export=checkpoint)


def next_steps(config: RLlibTrainConfig, run_dir: Path) -> list[str]:
    """What to do with a finished run, as commands with its real paths (the same evaluation
    lines as every trainer's: ``training.run.policy_commands``)."""
    env = config.env_id.split("/")[-1]
    policy = run_dir / "policy.safetensors"
    lines = ["", "next (the policy needs numpy alone: either virtual environment will do):"]
    lines += policy_commands(config.env_id, dict(config.env_options), policy, team=config.team,
                             fields=config.eval.opponents, games=config.eval.final_games)
    lines.append(f"  cahoots strength {env} {shlex.quote(str(policy))} --games 2000     "
                 "# the strength table")
    if config.checkpoint:
        lines.append(f"  RLlib checkpoint: {run_dir / 'checkpoint'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True,
                        help="a YAML config file, e.g. configs/rllib/texas_euchre.yaml")
    parser.add_argument("--address", help="join the Ray cluster at this address ('auto': the "
                        "one started on this machine by 'ray start --head'); default: start Ray "
                        "here")
    parser.add_argument("--runs-dir", default="runs", help="where run folders go (default runs/)")
    parser.add_argument("--total-timesteps", type=int, help="override the config's total_timesteps")
    parser.add_argument("--time-limit", type=float, help="override the config's time_limit "
                        "(seconds of training)")
    parser.add_argument("--seed", type=int, help="override the config's seed")
    args = parser.parse_args(argv)
    # one BLAS thread in the env runners (they inherit this environment when Ray starts them):
    # the evaluation's numpy networks multiply small matrices, which a multi-threaded OpenBLAS
    # on a busy machine runs many times slower
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    try:
        config = load_config(args.config)
        if args.total_timesteps is not None:
            if args.total_timesteps <= 0:
                raise ConfigError(f"--total-timesteps must be positive, got {args.total_timesteps}")
            config.total_timesteps = args.total_timesteps
        if args.time_limit is not None:
            if args.time_limit < 0:
                raise ConfigError(f"--time-limit must be 0 or more, got {args.time_limit}")
            config.time_limit = args.time_limit
        if args.seed is not None:
            config.seed = args.seed
        runs_dir = Path(args.runs_dir)
        check_runs_dir(runs_dir)
        run_dir = runs_dir / run_name(config, ALGO)
        command = ("python -m cahoots_envs.rllib.train "
                   + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)))
        out = train(config, run_dir, address=args.address, command=command, fresh=True)
    except (ConfigError, PolicyFileError, IncompatiblePolicyError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    lines = result_lines(out)
    lines.insert(2, f"learner steps: {out['timesteps']:,} in {out['seconds']:.0f}s "
                    f"({out['timesteps'] / max(out['seconds'], 1e-9):.0f} steps/s)")
    print("\n".join(lines + next_steps(config, Path(out["run_dir"]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
