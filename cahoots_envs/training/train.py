"""Self-play training: MaskablePPO against an opponent pool, from a YAML config.

    python training/train.py --config configs/kansas_city.yaml
    python -m cahoots_envs.training.train --config configs/kansas_city.yaml   # the same
    python training/train.py --resume runs/<run> --trust-checkpoint             # continue a run

A run folder ``runs/<env>__maskableppo__<seed>__<time>/`` receives the config, SB3's
``progress.csv`` and TensorBoard event files, ``eval.csv`` (periodic evaluation against random
and heuristic opponents), ``learning_curve.png``, ``checkpoints/`` (model + pool snapshots, for
``--resume``), and the final ``policy.safetensors`` + ``policy.json`` (the saved-policy format;
load with ``cahoots_envs.load_policy(path, env_id)``) and ``policy_sb3.zip`` for SB3 users.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import shlex
import sys
import time
import warnings
from pathlib import Path
from typing import Any, NoReturn

from cahoots_envs.policies.loading import builtin_specs, load_policy
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import export_sb3_zip, save_policy
from cahoots_envs.training.config import (
    ConfigError,
    TrainConfig,
    load_config,
    packaged_configs,
    to_dict,
)
from cahoots_envs.training.matches import (
    MatchResult,
    batched_available,
    batched_matches,
    seat_matches,
    team_matches,
)
from cahoots_envs.training.pool import OpponentPool, SnapshotRotation

ALGO = "maskableppo"


def run_name(config: TrainConfig) -> str:
    env = config.env_id.split("/")[-1]
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{env}__{ALGO}__{config.seed}__{stamp}"


def available_opponents(config: TrainConfig, wanted: list[str]) -> list[str]:
    have = builtin_specs(config.env_id)
    out = []
    for spec in wanted:
        if spec in ("random", "heuristic") and spec not in have:
            warnings.warn(f"{config.env_id} has no {spec} bot yet; left out", stacklevel=2)
            continue
        out.append(spec)
    return out


def build_pool(config: TrainConfig) -> OpponentPool:
    p = config.pool
    pool = OpponentPool(max_snapshots=p.max_snapshots)
    weights = {"random": p.random, "heuristic": p.heuristic, **p.policies}
    specs = available_opponents(config, [s for s, w in weights.items() if w > 0])
    for i, spec in enumerate(specs):
        policy = load_policy(spec, config.env_id, config.env_options, seed=config.seed + 101 * (i + 1))
        pool.add(spec, spec, policy, weights[spec])
    pool.weights["snapshots"] = p.snapshots
    pool.weights["latest"] = p.latest
    return pool


class Evaluator:
    """Greedy learner against each evaluation opponent; rows go to ``eval.csv``."""

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        self.config = config
        self.path = run_dir / "eval.csv"
        self.specs = [] if config.team else available_opponents(config, config.eval.opponents)
        self.rows: list[dict[str, Any]] = []
        if self.path.is_file():
            with self.path.open() as f:
                self.rows = list(csv.DictReader(f))

    def opponents(self, seed: int) -> dict[str, Any]:
        """The evaluation opponents, loaded afresh for each evaluation and seeded by it: two
        policies evaluated with the same seed meet the same deals and the same opponents' draws
        (the same games, as far as their own moves allow)."""
        if self.config.team:
            return {"team": None}
        env_id, options = self.config.env_id, self.config.env_options
        return {spec: load_policy(spec, env_id, options, seed=seed + 7) for spec in self.specs}

    def evaluate(self, learner: MLPPolicy, games: int, seed: int) -> dict[str, MatchResult]:
        env_id, options = self.config.env_id, self.config.env_options
        results = {}
        for name, opponent in self.opponents(seed).items():
            if self.config.engine == "batched":
                results[name] = batched_matches(env_id, learner, opponent, games, options, seed=seed)
            elif opponent is None:
                results[name] = team_matches(env_id, learner, games, options, seed=seed)
            else:
                results[name] = seat_matches(env_id, learner, opponent, games, options, seed=seed)
        return results

    def record(self, steps: int, results: dict[str, MatchResult]) -> None:
        for name, r in results.items():
            self.rows.append({"timesteps": steps, "opponent": name, "games": r.games,
                              "win_rate": round(r.win_rate, 4), "ci_low": round(r.ci_low, 4),
                              "ci_high": round(r.ci_high, 4), "mean_score": round(r.mean_score, 3)})
        with self.path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(self.rows[0]))
            writer.writeheader()
            writer.writerows(self.rows)


def steps_label(steps: float) -> str:
    """A step count for an axis tick: ``500``, ``50k``, ``1.5M``."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(steps) >= scale:
            return f"{steps / scale:.4g}{suffix}"
    return f"{steps:.4g}"


def plot_learning_curve(run_dir: Path, config: TrainConfig) -> Path | None:
    """Win rate per evaluation opponent and mean episode reward against learner steps."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    eval_csv = run_dir / "eval.csv"
    if eval_csv.is_file():
        with eval_csv.open() as f:
            rows = list(csv.DictReader(f))
        for name in dict.fromkeys(r["opponent"] for r in rows):
            sel = [r for r in rows if r["opponent"] == name]
            x = [int(r["timesteps"]) for r in sel]
            y = [float(r["win_rate"]) for r in sel]
            lo = [float(r["ci_low"]) for r in sel]
            hi = [float(r["ci_high"]) for r in sel]
            ax1.plot(x, y, marker="o", label=f"vs {name}")
            ax1.fill_between(x, lo, hi, alpha=0.2)
    if not config.team:
        from cahoots_envs.policies.envinfo import env_info

        n = env_info(config.env_id, config.env_options).options["num_players"]
        ax1.axhline(1.0 / n, color="grey", linestyle="--", label="chance 1/N")
        ax1.axhline(1.5 / n, color="grey", linestyle=":", label="1.5/N")
    ax1.set_xlabel("learner steps")
    ax1.set_ylabel("win share (95% CI)")
    title = f"{config.env_id}: evaluation"
    ax1.set_title(title)
    ax1.legend()
    rows = []
    for progress in sorted(run_dir.glob("progress*.csv")):  # progress_until_*.csv: before --resume
        with progress.open() as f:
            rows += [r for r in csv.DictReader(f) if r.get("rollout/ep_rew_mean")]
    rows.sort(key=lambda r: int(r["time/total_timesteps"]))
    if rows:
        ax2.plot([int(r["time/total_timesteps"]) for r in rows],
                 [float(r["rollout/ep_rew_mean"]) for r in rows])
    ax2.set_xlabel("learner steps")
    ax2.set_ylabel("mean episode reward (training pool)")
    ax2.set_title("training reward")
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    for ax in (ax1, ax2):  # at most 6 step ticks, written 50k / 1.5M: the labels never touch
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True, min_n_ticks=2))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: steps_label(x)))
    fig.tight_layout()
    out = run_dir / "learning_curve.png"
    fig.savefig(out, dpi=100, metadata={"Title": title})  # the docs' tests read it
    plt.close(fig)
    return out


def add_snapshot(pool: OpponentPool, rotation: SnapshotRotation | None, snap: MLPPolicy) -> None:
    """A frozen copy of the learner joins the pool: into the rotation (``snapshot_draw:
    rollout``, one pool entry playing one snapshot at a time) or as its own entry (``seat``)."""
    if rotation is None:
        pool.add("snapshots", snap.name, snap)
        return
    rotation.add(snap.name, snap)
    if not pool.groups.get("snapshots"):
        pool.add("snapshots", "snapshots", rotation)


def snapshot_names(pool: OpponentPool, rotation: SnapshotRotation | None) -> list[str]:
    if rotation is not None:
        return rotation.names
    return [e.name for e in pool.groups.get("snapshots", [])]


def make_callback(config: TrainConfig, run_dir: Path, pool: OpponentPool, latest: MLPPolicy,
                  evaluator: Evaluator, state: dict[str, Any],
                  rotation: SnapshotRotation | None = None) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlay(BaseCallback):
        """Refreshes ``latest``, snapshots the learner, evaluates, checkpoints, shows progress."""

        def _on_training_start(self) -> None:
            # learn() stops only after a whole rollout (n_envs x n_steps learner steps), so it
            # runs to the first rollout boundary at or past its target: the bar's total is that
            # (a total of total_timesteps made the bar overshoot it)
            start, target = self.num_timesteps, int(self.locals["total_timesteps"])
            n_envs, n_steps = self.training_env.num_envs, int(self.model.n_steps)  # type: ignore[attr-defined]
            end = start + planned_steps(target - start, n_envs * n_steps)
            print(f"learner steps: {start:,} to {end:,} ({target:,} asked; learning runs in whole "
                  f"rollouts of {n_envs} envs x {n_steps} steps)", flush=True)
            self.bar = None
            if config.progress_bar:
                from tqdm import tqdm

                self.bar = tqdm(total=end, initial=start,
                                unit="step", dynamic_ncols=True, mininterval=2.0)
            self.t0 = time.time()

        def _on_rollout_start(self) -> None:
            latest.load_sb3_weights(self.model.policy)
            if rotation is not None:
                rotation.draw()  # the snapshot that plays every snapshot seat this rollout

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            n_envs = self.training_env.num_envs
            if self.bar is not None:
                self.bar.update(n_envs)
            if steps // config.pool.snapshot_every != (steps - n_envs) // config.pool.snapshot_every:
                snap = MLPPolicy.from_sb3(self.model.policy)
                snap.name = f"snapshot_{steps}"
                add_snapshot(pool, rotation, snap)
                state["snapshots"].append(snap.name)
                save_snapshot(run_dir, snap, config, steps)
            if steps // config.eval.every != (steps - n_envs) // config.eval.every:
                self.evaluate(steps)
            if steps // config.checkpoint_every != (steps - n_envs) // config.checkpoint_every:
                checkpoint(self.model, run_dir, pool, steps, rotation)
            return True

        def evaluate(self, steps: int) -> None:
            learner = MLPPolicy.from_sb3(self.model.policy)
            results = evaluator.evaluate(learner, config.eval.games, seed=config.seed + steps)
            evaluator.record(steps, results)
            for name, r in results.items():
                self.logger.record(f"eval/win_rate_vs_{name}", r.win_rate)
            text = ", ".join(f"vs {k} {r.win_rate:.3f}" for k, r in results.items())
            msg = f"[{steps} steps, {time.time() - self.t0:.0f}s] eval: {text}"
            if self.bar is not None:
                self.bar.write(msg)
            else:
                print(msg, flush=True)

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return SelfPlay()


def save_snapshot(run_dir: Path, snap: MLPPolicy, config: TrainConfig, steps: int) -> None:
    """A pool snapshot as a saved policy (``.safetensors`` + ``.json`` metadata), so that
    ``load_policy(path, env_id)`` and ``cahoots eval`` can follow a run's learning trajectory."""
    folder = run_dir / "checkpoints" / "snapshots"
    training = {"algorithm": "MaskablePPO (sb3-contrib) self-play against an opponent pool",
                "config": to_dict(config), "seed": config.seed, "timesteps": int(steps),
                "run": run_dir.name, "snapshot": True}
    save_policy(snap, folder / f"{snap.name}.safetensors", config.env_id, config.env_options,
                name=f"{run_dir.name}/{snap.name}", description=config.description,
                training=training)


def load_snapshots(run_dir: Path, names: list[str]) -> list[MLPPolicy]:
    from cahoots_envs.policies.saved import METADATA_KEY, read_safetensors

    out = []
    for name in names:
        path = run_dir / "checkpoints" / "snapshots" / f"{name}.safetensors"
        if path.is_file():
            tensors, meta = read_safetensors(path)
            # snapshots are saved policies; older runs kept only the architecture
            architecture = (json.loads(meta[METADATA_KEY])["architecture"]
                            if METADATA_KEY in meta else json.loads(meta["architecture"]))
            snap = MLPPolicy.from_tensors(tensors, architecture)
            snap.name = name
            out.append(snap)
    return out


def checkpoint(model: Any, run_dir: Path, pool: OpponentPool, steps: int,
               rotation: SnapshotRotation | None = None) -> None:
    folder = run_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / "model.zip")
    snaps = snapshot_names(pool, rotation)
    (folder / "state.json").write_text(json.dumps({"timesteps": steps, "snapshots": snaps}))


def pretrain(config: TrainConfig, model: Any, evaluator: Evaluator,
             run_dir: Path) -> dict[str, Any]:
    """Behaviour cloning from the teacher, then an evaluation recorded at step 0. The clone is
    saved as ``checkpoints/cloned.safetensors`` (a saved policy): the final check measures it
    beside the trained policy on the same games, so a run shows what self-play added."""
    from cahoots_envs.training.imitation import behaviour_clone, collect_demonstrations

    p = config.pretrain
    t0 = time.time()
    teacher = load_policy(p.teacher, config.env_id, config.env_options, seed=config.seed + 3)
    demos = collect_demonstrations(config.env_id, config.env_options, teacher, p.games,
                                   seed=config.seed + 5, reward_scale=config.reward_scale,
                                   engine=config.engine, soft_targets=p.soft_targets,
                                   random_seats=p.random_seats)
    soft = "" if demos.targets is None else (
        f", soft targets: {float((demos.targets.sum(1) > 1).mean()):.1%} of them ties")
    print(f"behaviour cloning: {len(demos)} decisions from {p.games} {p.teacher} games "
          f"({time.time() - t0:.0f}s{soft})", flush=True)
    stats = behaviour_clone(model.policy, demos, epochs=p.epochs, batch_size=p.batch_size,
                            learning_rate=p.learning_rate, value_coef=p.value_coef,
                            seed=config.seed, log=lambda m: print(m, flush=True))
    clone = MLPPolicy.from_sb3(model.policy)
    results = evaluator.evaluate(clone, config.eval.games, seed=config.seed + 11)
    evaluator.record(0, results)
    print("after behaviour cloning: " + ", ".join(f"vs {k} {r.win_rate:.3f}"
                                                   for k, r in results.items()), flush=True)
    out = {"teacher": p.teacher, "games": p.games, "decisions": len(demos),
           "seconds": round(time.time() - t0, 1), **{k: round(v, 4) for k, v in stats.items()}}
    training = {"algorithm": f"behaviour cloning of {p.teacher}", "config": to_dict(config),
                "seed": config.seed, "timesteps": 0, "run": run_dir.name,
                "behaviour_cloning": out}
    save_policy(clone, run_dir / CLONE, config.env_id, config.env_options,
                name=f"{run_dir.name}/cloned", description=f"{config.description}: the clone "
                "of the teacher that self-play started from", training=training)
    return out


CLONE = Path("checkpoints") / "cloned.safetensors"


def load_clone(run_dir: Path) -> MLPPolicy | None:
    """The policy a run's self-play started from (``pretrain``), if the run cloned one."""
    from cahoots_envs.policies.saved import METADATA_KEY, read_safetensors

    path = run_dir / CLONE
    if not path.is_file():
        return None
    tensors, meta = read_safetensors(path)
    clone = MLPPolicy.from_tensors(tensors, json.loads(meta[METADATA_KEY])["architecture"])
    clone.name = "cloned"
    return clone


def overlap_note(before: MatchResult, after: MatchResult) -> str:
    """How the trained policy's row compares with the clone's on the same games."""
    apart = after.ci_low > before.ci_high or after.ci_high < before.ci_low
    return (f"change {after.win_rate - before.win_rate:+.3f}; the 95% intervals "
            + ("do not overlap" if apart else "overlap: not a clear change"))


def train(config: TrainConfig, run_dir: Path, resume: bool = False,
          command: str = "") -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from cahoots_envs.training.vec_env import SeatVecEnv

    check_engine(config)
    torch.set_num_threads(config.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    print(f"run folder: {run_dir}", flush=True)
    import yaml

    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(config), sort_keys=False))
    pool = build_pool(config)
    rotation = (SnapshotRotation(config.pool.max_snapshots, seed=config.seed + 13)
                if config.pool.snapshot_draw == "rollout" else None)
    if config.engine == "batched":
        from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv

        seat_vec: Any = BatchedSeatVecEnv
    else:
        seat_vec = SeatVecEnv
    venv = VecMonitor(seat_vec(config.env_id, config.n_envs, config.env_options,
                               opponents=pool, learner_seat=config.learner_seat,
                               team=config.team, seed=config.seed,
                               reward_scale=config.reward_scale))
    state: dict[str, Any] = {"snapshots": []}
    ckpt = run_dir / "checkpoints" / "model.zip"
    if resume and ckpt.is_file():
        saved = json.loads((run_dir / "checkpoints" / "state.json").read_text())
        model = MaskablePPO.load(ckpt, env=venv, device="cpu")  # our own file from this run
        for snap in load_snapshots(run_dir, saved["snapshots"]):
            add_snapshot(pool, rotation, snap)
            state["snapshots"].append(snap.name)
        print(f"resuming {run_dir} at {model.num_timesteps} steps", flush=True)
    else:
        if resume:
            print(f"no checkpoint in {run_dir}; starting from scratch", flush=True)
        p = config.ppo
        model = MaskablePPO(
            "MlpPolicy", venv, learning_rate=p.learning_rate, n_steps=p.n_steps,
            batch_size=p.batch_size, n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda,
            clip_range=p.clip_range, ent_coef=p.ent_coef, vf_coef=p.vf_coef,
            max_grad_norm=p.max_grad_norm, seed=config.seed, device="cpu", verbose=0,
            policy_kwargs={
                "net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)},
                "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation],
            },
        )
    progress = run_dir / "progress.csv"
    if resume and progress.is_file():  # SB3's CSV logger starts a fresh file: keep the old rows
        progress.rename(run_dir / f"progress_until_{model.num_timesteps}.csv")
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    evaluator = Evaluator(config, run_dir)
    pretrain_stats = None
    if config.pretrain.games > 0 and not (resume and ckpt.is_file()):
        pretrain_stats = pretrain(config, model, evaluator, run_dir)
    latest = MLPPolicy.from_sb3(model.policy)
    latest.name = "latest"
    if config.pool.latest > 0:
        pool.set_only("latest", "latest", latest)
    callback = make_callback(config, run_dir, pool, latest, evaluator, state, rotation)
    t0 = time.time()
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=not resume)
    train_seconds = time.time() - t0
    checkpoint(model, run_dir, pool, model.num_timesteps, rotation)
    # final evaluation and the saved policy
    learner = MLPPolicy.from_sb3(model.policy)
    results = evaluator.evaluate(learner, config.eval.final_games, seed=config.seed + 10**9)
    evaluator.record(int(model.num_timesteps), results)
    evaluation = {
        name: {**r.as_dict(), "opponent": name, "seats": "rotated", "deterministic": True}
        for name, r in results.items()
    }
    clone = load_clone(run_dir)
    before: dict[str, MatchResult] = {}
    if clone is not None:  # the same games (the same seed: the same deals) for the clone
        before = evaluator.evaluate(clone, config.eval.final_games, seed=config.seed + 10**9)
        for name, r in before.items():
            evaluation[name]["before_self_play"] = r.as_dict()
    training = {
        "algorithm": "MaskablePPO (sb3-contrib) self-play against an opponent pool",
        "command": command,
        "config": to_dict(config),
        "seed": config.seed,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "run": run_dir.name,
        "behaviour_cloning": pretrain_stats,
    }
    meta = save_policy(learner, run_dir / "policy.safetensors", config.env_id,
                       config.env_options, name=run_dir.name,
                       description=config.description, training=training, evaluation=evaluation)
    export_sb3_zip(model, run_dir / "policy_sb3.zip", meta)
    plot_learning_curve(run_dir, config)
    venv.close()
    return {"run_dir": str(run_dir), "results": results, "before": before, "metadata": meta}


def check_engine(config: TrainConfig) -> None:
    """``engine: batched`` needs numba and a game with a batched engine: one line saying what
    to do otherwise, before any work starts."""
    if config.engine != "batched" or batched_available(config.env_id, config.env_options):
        return
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ConfigError("engine: batched needs numba: pip install 'cahoots-envs[train]' (or "
                          "[fast]), or set engine: reference in the config") from None
    raise ConfigError(f"engine: batched: {config.env_id} has no batched engine; set engine: "
                      "reference in the config")


def planned_steps(steps: int, rollout: int) -> int:
    """The learner steps ``learn(steps)`` really takes: whole rollouts of ``rollout`` steps."""
    return -(-max(steps, 0) // rollout) * rollout


def next_steps(config: TrainConfig, run_dir: Path) -> list[str]:
    """What to do with a finished run, as commands with its real paths."""
    env = config.env_id.split("/")[-1]
    policy = shlex.quote(str(run_dir / "policy.safetensors"))
    players = config.env_options.get("num_players")
    options = [] if players is None else ["-n", str(players)]
    for key, value in config.env_options.items():
        if key not in ("num_players", "reward_mode", "render_mode"):  # the last two: not seen
            text = str(value).lower() if isinstance(value, bool) or value is None else str(value)
            options += ["-o", shlex.quote(f"{key}={text}")]
    opts = "".join(f" {o}" for o in options)
    lines = ["", "next (in the virtual environment, e.g. after: source .venv/bin/activate):",
             f"  tensorboard --logdir {shlex.quote(str(run_dir))}     # curves at http://localhost:6006"]
    if (run_dir / "learning_curve.png").is_file():
        lines.append(f"  learning curve: {run_dir / 'learning_curve.png'}")
    games = config.eval.final_games
    if config.team:  # a cooperative game: every seat plays the policy (a team against the game)
        lines.append(f"  cahoots eval {env}{opts} {policy} heuristic --games {games}     "
                     "# its team's win rate beside the heuristic team's")
    else:  # one seat against the field in every other seat, as the run's final check
        for field in config.eval.opponents:
            lines.append(f"  cahoots eval {env}{opts} {policy} --field {shlex.quote(field)} "
                         f"--games {games}     # one seat vs {field} in the others, like the "
                         "check above (other deals: expect a figure within its interval)")
    lines.append(f"  cahoots play {env}{opts} --opponents {policy}     # play against it")
    return lines


def limit_blas_threads(threads: int) -> None:
    """One BLAS thread (or ``threads``): the numpy opponent networks multiply small matrices, and
    a multi-threaded OpenBLAS on a busy 2-core machine ran them 40x slower (24 ms vs 0.6 ms for a
    64x711 @ 711x64 product). ``training/train.py`` also sets ``OPENBLAS_NUM_THREADS`` before
    numpy loads; this covers ``python -m`` and the CLI."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        if "OPENBLAS_NUM_THREADS" not in os.environ:
            warnings.warn("threadpoolctl is not installed: set OPENBLAS_NUM_THREADS=1 if the "
                          "opponents' numpy networks are slow", stacklevel=2)
        return
    threadpool_limits(threads, user_api="blas")


def positive_int(text: str) -> int:
    """argparse type: an int >= 1 (a run of 0 or -5 steps would train nothing and still work
    for minutes: refused before any work starts)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive int, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an int >= 0, got {text!r}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an int, got {text!r}") from None


class _OneLineParser(argparse.ArgumentParser):
    """Usage errors in one line, ``<prog>: error: <what> (see '<prog> --help')``, exit 2 (as the
    ``cahoots`` command's parser: a mistake on the command line shows no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def main(argv: list[str] | None = None) -> int:
    """The training script: a config that cannot run (``ConfigError``) is one line on stderr and
    exit status 2, before any work starts, whether run as a script or through ``cahoots train``
    (which reports it the same way)."""
    try:
        return _main(argv)
    except ConfigError as exc:
        prog = Path(sys.argv[0]).name or "train.py"  # "cahoots train" through the CLI
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None = None) -> int:
    parser = _OneLineParser(description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="a YAML config file, or the name of a packaged config: "
                        + ", ".join(packaged_configs()))
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its checkpoint")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="needed with --resume: RUN_DIR/checkpoints/model.zip holds pickles "
                             "(SB3), which can run code when loaded; resume only your own runs")
    parser.add_argument("--runs-dir", default="runs", help="where run folders go (default runs/)")
    parser.add_argument("--total-timesteps", type=positive_int, metavar="N",
                        help="override the config's total_timesteps (a positive int)")
    parser.add_argument("--seed", type=non_negative_int, metavar="S",
                        help="override the config's seed (an int >= 0)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.resume and not args.trust_checkpoint:
        parser.error(f"--resume loads {Path(args.resume) / 'checkpoints' / 'model.zip'}, an SB3 "
                     "checkpoint made of pickles, which can run any code when loaded; if the run "
                     "folder is your own (or you trust its source), add --trust-checkpoint")
    if args.resume:
        run_dir = Path(args.resume)
        if not (run_dir / "config.yaml").is_file():
            raise ConfigError(
                f"--resume {args.resume}: " + ("no such folder" if not run_dir.is_dir() else
                                               "not a run folder (it has no config.yaml)")
                + f"; give a folder that a training run made, e.g. {Path(args.runs_dir) / '<run>'}")
        config = load_config(run_dir / "config.yaml")
    elif args.config:
        config = load_config(args.config)
    else:
        parser.error("give --config FILE or --resume RUN_DIR")
    if args.total_timesteps is not None:
        config.total_timesteps = args.total_timesteps
    if args.seed is not None:
        config.seed = args.seed
    if args.no_progress:
        config.progress_bar = False
    limit_blas_threads(config.torch_threads)
    if not args.resume:
        run_dir = Path(args.runs_dir) / run_name(config)
    command = "python training/train.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    out = train(config, run_dir, resume=bool(args.resume), command=command)
    print(f"\nrun folder: {out['run_dir']}")
    print(f"saved policy: {run_dir / 'policy.safetensors'}")
    for name, r in out["results"].items():
        what = "team win rate" if name == "team" else f"win share in one seat vs {name} opponents"
        print(f"{what}: {r}")
        if name in out["before"]:
            b = out["before"][name]
            print(f"  the clone it started from, same games: {b.win_rate:.3f} [{b.ci_low:.3f}, "
                  f"{b.ci_high:.3f}]; {overlap_note(b, r)}")
    print("\n".join(next_steps(config, run_dir)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
