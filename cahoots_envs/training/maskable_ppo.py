"""MaskablePPO (sb3-contrib) self-play against an opponent pool: the default training algorithm
(``algorithm: maskable_ppo``; its settings are the ``ppo`` and ``pool`` of the config's
``maskable_ppo`` section, and its ``pretrain``).

One learner seat per game in a seat VecEnv (``SeatVecEnv``, or ``BatchedSeatVecEnv`` with
``engine: batched``) against the pool (random and heuristic bots, other policies, frozen
snapshots of the learner, the learner itself); optionally a behaviour clone of a teacher first.
Checkpoints (``checkpoints/resume/``, the package's safetensors + JSON, taken at each rollout's
start: ``--resume`` continues from them, on the batched engine exactly; and SB3's
``checkpoints/model.zip`` for ``MaskablePPO.load``) and pool snapshots go into the run folder;
the run plumbing
(``cahoots_envs.training.run``) evaluates and saves the result.
"""

from __future__ import annotations

import csv
import json
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

import cahoots_envs.training.checkpoint as ck
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import METADATA_KEY, export_sb3_zip, read_safetensors, save_policy
from cahoots_envs.training.batched_seats import BatchedSeats
from cahoots_envs.training.config import TrainConfig, to_dict
from cahoots_envs.training.imitation import pretrain
from cahoots_envs.training.networks import critic_value_head
from cahoots_envs.training.pool import (
    OpponentPool,
    SnapshotRotation,
    add_snapshot,
    build_pool,
    snapshot_names,
)
from cahoots_envs.training.run import Evaluator, Trained, planned_steps

DESCRIPTION = "MaskablePPO (sb3-contrib) self-play against an opponent pool"


def make_callback(config: TrainConfig, run_dir: Path, pool: OpponentPool, latest: MLPPolicy,
                  evaluator: Evaluator, state: dict[str, Any],
                  rotation: SnapshotRotation | None = None,
                  save: Any = None) -> Any:
    # the train extra (this module loads without it)
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
                from tqdm import tqdm  # the train extra

                self.bar = tqdm(total=end, initial=start,
                                unit="step", dynamic_ncols=True, mininterval=2.0)
            self.t0 = time.time()

        def _on_rollout_start(self) -> None:
            if save is not None:  # between an update and the next rollout: nothing half done
                save(self.model)
            latest.load_sb3_weights(self.model.policy)
            if rotation is not None:
                rotation.draw()  # the snapshot that plays every snapshot seat this rollout

        def _on_step(self) -> bool:
            ck.stop_point("rollout")
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


def keep_progress(progress: Path, until_path: Path, until: int) -> None:
    """SB3's ``progress.csv`` of the run before ``--resume``, up to learner step ``until`` (its
    rows after the checkpoint are written again by the resumed run), as ``until_path``."""

    with progress.open() as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        rows = [r for r in reader if not r.get("time/total_timesteps")
                or int(float(r["time/total_timesteps"])) <= until]
    with until_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    progress.unlink()


def model_state(model: Any, venv: Any, pool: OpponentPool, rotation: SnapshotRotation | None,
                latest: MLPPolicy, exact: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """MaskablePPO at a rollout boundary: its network and Adam, SB3's counters and episode
    buffers, the last observations, numpy's and torch's global generators (SB3 draws its
    minibatches from numpy's, its actions from torch's), VecMonitor's episode sums and, on the
    batched engine (``exact``), the seat games in flight: the engine, the seating, the pool."""
    import torch  # the train extra

    tensors = {**ck.module_tensors("policy", model.policy),
               "rng/torch": torch.get_rng_state().numpy().copy(),
               "sb3/last_obs": np.asarray(model._last_obs).copy(),
               "sb3/last_episode_starts": np.asarray(model._last_episode_starts).copy(),
               "monitor/episode_returns": venv.episode_returns.copy(),
               "monitor/episode_lengths": venv.episode_lengths.copy()}
    opt_tensors, opt_meta = ck.optimizer_state("opt", model.policy.optimizer)
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    tensors |= opt_tensors | {"rng/numpy": np.asarray(keys).copy()}
    meta: dict[str, Any] = {
        "optimizer": opt_meta, "num_timesteps": int(model.num_timesteps),
        "n_updates": int(model._n_updates), "episode_num": int(model._episode_num),
        "numpy_rng": [kind, int(pos), int(has_gauss), float(cached)],
        "ep_info_buffer": [typed(info) for info in model.ep_info_buffer or []],
        "ep_success_buffer": [typed(v) for v in model.ep_success_buffer or []],
        "episode_count": int(venv.episode_count), "exact": exact}
    seated = venv.venv._policies if exact else []
    seat_tensors, meta["seating"] = ck.seating_state("pool", pool, rotation, latest, seated)
    tensors |= seat_tensors
    if exact:
        seats = venv.venv
        engine_tensors, meta["engine"] = ck.engine_state("engine", seats.engine)
        tensors |= engine_tensors | {f"seats/{k}": getattr(seats, k).copy() for k in SEAT_ARRAYS}
        meta["seats"] = {"names": seats.names, "rng": seats.rng.bit_generator.state}
    return tensors, meta


def typed(value: Any) -> Any:
    """SB3's episode records as JSON that keeps their numpy scalar types (VecMonitor's returns
    are float32: their mean in progress.csv stays the same after a resume)."""
    if isinstance(value, dict):
        return {"dict": {k: typed(v) for k, v in value.items()}}
    if isinstance(value, np.generic):
        return {"numpy": value.dtype.str, "value": value.item()}
    return {"plain": value}


def untyped(value: dict[str, Any]) -> Any:
    if "dict" in value:
        return {k: untyped(v) for k, v in value["dict"].items()}
    if "numpy" in value:
        return np.dtype(value["numpy"]).type(value["value"])
    return value["plain"]


# BatchedSeats' per-game arrays a checkpoint holds (its seating and reward sums)
SEAT_ARRAYS = ("learner", "seat_policy", "seat_name", "_acc", "_decided", "_episode_return")


def restore_model(loaded: tuple[dict[str, Any], dict[str, Any]], model: Any, venv: Any,
                  pool: OpponentPool, rotation: SnapshotRotation | None,
                  latest: MLPPolicy) -> None:
    """``model_state`` put back into a model and seat VecEnv built afresh from the config."""

    import torch  # the train extra

    tensors, record = loaded
    meta = record["state"]
    ck.load_module("policy", model.policy, tensors)
    ck.load_optimizer("opt", model.policy.optimizer, tensors, meta["optimizer"])
    torch.set_rng_state(torch.from_numpy(tensors["rng/torch"].copy()))
    kind, pos, has_gauss, cached = meta["numpy_rng"]
    np.random.set_state((kind, tensors["rng/numpy"].copy(), pos, has_gauss, cached))
    model.num_timesteps = meta["num_timesteps"]
    model._n_updates = meta["n_updates"]
    model._episode_num = meta["episode_num"]
    model.ep_info_buffer = deque([untyped(v) for v in meta["ep_info_buffer"]],
                                 maxlen=model._stats_window_size)
    model.ep_success_buffer = deque([untyped(v) for v in meta["ep_success_buffer"]],
                                    maxlen=model._stats_window_size)
    venv.episode_returns[...] = tensors["monitor/episode_returns"]
    venv.episode_lengths[...] = tensors["monitor/episode_lengths"]
    venv.episode_count = meta["episode_count"]
    seated = ck.restore_seating("pool", meta["seating"], tensors, pool, rotation, latest)
    if not meta["exact"]:  # the reference engine's games are not saved: new deals from here
        return
    seats = venv.venv
    ck.restore_engine("engine", seats.engine, tensors, meta["engine"])
    for k in SEAT_ARRAYS:
        getattr(seats, k)[...] = tensors[f"seats/{k}"]
    seats.names = list(meta["seats"]["names"])
    seats._name_index = {name: k for k, name in enumerate(seats.names)}
    seats._policies = seated
    seats._policy_index = {id(p): k for k, p in enumerate(seated)}
    seats.rng.bit_generator.state = meta["seats"]["rng"]
    seats._reset_done = True
    model._last_obs = tensors["sb3/last_obs"].copy()
    model._last_episode_starts = tensors["sb3/last_episode_starts"].copy()


def train(config: TrainConfig, run_dir: Path, resume: bool, evaluator: Evaluator) -> Trained:
    """Build the pool, the seat VecEnv and the model (or load the run's checkpoint), clone the
    teacher, learn, checkpoint; the run plumbing does the rest."""
    import torch  # the train extra: torch, sb3-contrib, stable-baselines3
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import VecMonitor

    from cahoots_envs.training.vec_env import SeatVecEnv  # imports stable-baselines3

    torch.set_num_threads(config.torch_threads)
    pool = build_pool(config)
    rotation = (SnapshotRotation(config.pool.max_snapshots, seed=config.seed + 13)
                if config.pool.snapshot_draw == "rollout" else None)
    if config.engine == "batched":
        # imports stable-baselines3 (the train extra), as SeatVecEnv does
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
    checkpoints = ck.Checkpoints(config, run_dir)
    loaded = checkpoints.load() if resume else None
    if resume and loaded is None and ckpt.is_file():  # a run of an earlier version: SB3's zip
        saved = json.loads((run_dir / "checkpoints" / "state.json").read_text())
        model = MaskablePPO.load(ckpt, env=venv, device="cpu")  # our own file from this run
        for snap in load_snapshots(run_dir, saved["snapshots"]):
            add_snapshot(pool, rotation, snap)
            state["snapshots"].append(snap.name)
        print(f"resuming {run_dir} at {model.num_timesteps} steps (from SB3's checkpoint: not "
              "the games in flight)", flush=True)
    else:
        if resume and loaded is None:
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
    model.policy.optimizer.register_step_pre_hook(lambda *_: ck.stop_point("update"))
    if resume and (loaded or not ckpt.is_file()):  # SB3's zip: eval.csv is kept as it is
        ck.restore_logs(evaluator, None, loaded[1]["state"] if loaded else None)
    progress = run_dir / "progress.csv"
    if resume and progress.is_file():  # SB3's CSV logger starts a fresh file: keep the old rows
        until = loaded[1]["state"]["num_timesteps"] if loaded else model.num_timesteps
        keep_progress(progress, run_dir / f"progress_until_{until}.csv", until)
    model.set_logger(configure(str(run_dir), ["csv", "tensorboard"]))
    pretrain_stats = None
    if config.pretrain.games > 0 and not (resume and (ckpt.is_file() or loaded)):
        pretrain_stats = pretrain(config, model.policy, evaluator, run_dir)
    latest = MLPPolicy.from_sb3(model.policy)
    latest.name = "latest"
    if config.pool.latest > 0:
        pool.set_only("latest", "latest", latest)
    t0 = time.time()
    if loaded is not None:
        restore_model(loaded, model, venv, pool, rotation, latest)
        state["snapshots"] = snapshot_names(pool, rotation)
        pretrain_stats = loaded[1]["state"]["behaviour_cloning"]
        t0 -= loaded[1]["state"]["seconds"]
        print(f"resuming {run_dir} at {model.num_timesteps} steps, the games in flight too",
              flush=True)
    exact = isinstance(venv.venv, BatchedSeats)
    start_steps = model.num_timesteps if loaded is not None else -1
    rollouts = [loaded[1]["iteration"] if loaded else 0]

    def save(model: Any, last: bool = False) -> None:
        """A checkpoint in the package's format at a rollout boundary."""
        if model.num_timesteps == start_steps and not last or not checkpoints.due(last):
            return
        rollouts[0] += 1
        tensors, meta = model_state(model, venv, pool, rotation, latest, exact)
        checkpoints.save(rollouts[0], tensors, {
            **meta, "seconds": time.time() - t0, "behaviour_cloning": pretrain_stats,
            **ck.logs_state(evaluator, None)})

    callback = make_callback(config, run_dir, pool, latest, evaluator, state, rotation, save)
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=not (resume and (
            ckpt.is_file() or loaded)))
        save(model, last=True)
    train_seconds = time.time() - t0
    checkpoint(model, run_dir, pool, model.num_timesteps, rotation)
    return Trained(
        learner=MLPPolicy.from_sb3(model.policy).with_value_head(
            critic_value_head(model.policy, config)), timesteps=int(model.num_timesteps),
        seconds=train_seconds, description=DESCRIPTION,
        metadata={"behaviour_cloning": pretrain_stats},
        export=lambda meta: export_sb3_zip(model, run_dir / "policy_sb3.zip", meta),
        close=venv.close)
