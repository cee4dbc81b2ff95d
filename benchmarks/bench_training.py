"""Training throughput of every game's shipped config, against the seat env of an earlier commit
and the PettingZoo SB3 action-mask tutorial, in one run.

    python benchmarks/bench_training.py [--games kansas_city ...] [--rollouts 3]
                                        [--baseline 625ba6f] [--no-baseline] [--engine batched]

For each game's shipped config (``configs/<game>.yaml``: its network, PPO settings, ``n_envs``,
engine and opponent pool: random and heuristic bots, ``pool.max_snapshots`` frozen snapshots
of the learner's architecture, the learner itself as ``latest``; team mode for the cooperative
game), MaskablePPO learns a warm-up rollout, then ``--rollouts`` rollouts timed, and the table
gives learner steps per second of

- **rollout**: ``collect_rollouts`` alone (the games, the opponents, the learner's inference),
- **learn()**: the whole loop (rollouts and PPO's gradient updates with the config's settings),

for two implementations of the same config, in the same run:

- **now**: this checkout, as ``cahoots train`` runs the config (``engine: batched``:
  ``BatchedSeatVecEnv``, one snapshot per rollout, the bots' vectorised ``act_batch``);
- **before**: the ``SeatVecEnv`` of the commit before the fast-training work (``--baseline``,
  run from a temporary ``git worktree`` of it, with its own bots; snapshots drawn per seat and
  episode, as it did), on the same env version and with the same pool and network.

``--engine batched`` runs the "now" rows on the fast path whatever the config's ``engine``
says (``engine: batched``, ``pool.snapshot_draw: rollout``): the Texas Euchre and cooperative
configs keep the reference engine because their zoo entries were trained on it.

The tutorial row is PettingZoo's "SB3: Action Masking" loop on ``connect_four_v3`` with
MaskablePPO's default network and the Kansas City config's update settings. The snapshots'
weights are random (their values do not change the cost). Every row runs in a fresh process
with BLAS and torch limited to one thread. Needs the ``train`` and ``bench`` extras and git.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "625ba6f"  # the last commit before the fast-training work (batched engine on main)
GAMES = ["kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop"]


# ---- the PettingZoo tutorial, as published ---------------------------------------------------
def tutorial_env() -> Any:
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib.common.wrappers import ActionMasker

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        """Wrapper to allow PettingZoo environments to be used with SB3 illegal action masking."""

        def reset(self, seed: Any = None, options: Any = None) -> Any:
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action: Any) -> Any:
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (
                self.observe(next_agent),
                self._cumulative_rewards[current_agent],
                self.terminations[current_agent],
                self.truncations[current_agent],
                self.infos[current_agent],
            )

        def observe(self, agent: Any) -> Any:
            return super().observe(agent)["observation"]

        def action_mask(self) -> Any:
            return super().observe(self.agent_selection)["action_mask"]

    env = SB3ActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=0)
    return ActionMasker(env, lambda e: e.action_mask())


# ---- one measurement (in a worker process) ---------------------------------------------------
def time_learn(model: Any, rollout: int, rollouts: int, on_rollout: Any = None) -> dict[str, float]:
    """Learner steps/s of ``learn`` and of its rollout collection alone, after a warm-up."""
    collect = model.collect_rollouts
    spent = [0.0]

    def timed_collect(*args: Any, **kwargs: Any) -> Any:
        if on_rollout is not None:
            on_rollout()
        start = time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    model.collect_rollouts = timed_collect
    model.learn(rollout)  # warm-up: compiles, first update
    spent[0] = 0.0
    start = time.perf_counter()
    model.learn(rollout * rollouts, reset_num_timesteps=False)
    total = time.perf_counter() - start
    steps = rollout * rollouts
    return {"learn": steps / total, "rollout": steps / spent[0]}


def worker(job: dict[str, Any]) -> dict[str, float]:
    import numpy as np
    import torch
    import yaml
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    if job["kind"] == "tutorial":
        cfg = yaml.safe_load(Path(job["config"]).read_text())
        ppo = cfg["ppo"]
        model = MaskablePPO("MlpPolicy", tutorial_env(), n_steps=2048, seed=0, device="cpu",
                            batch_size=ppo["batch_size"], n_epochs=ppo["n_epochs"])
        return time_learn(model, 2048, job["rollouts"])

    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training.pool import OpponentPool

    cfg = yaml.safe_load(Path(job["config"]).read_text())
    env_id, options, ppo, pool_cfg = cfg["env_id"], cfg["env_options"], cfg["ppo"], cfg["pool"]
    n_envs, team = cfg["n_envs"], bool(cfg.get("team", False))
    pool = OpponentPool(max_snapshots=pool_cfg.get("max_snapshots", 10))
    for i, spec in enumerate(("random", "heuristic")):
        if pool_cfg.get(spec, 0) > 0:
            pool.add(spec, spec, load_policy(spec, env_id, options, seed=101 * (i + 1)),
                     pool_cfg[spec])
    rotation = None
    if job.get("engine"):
        cfg["engine"] = job["engine"]
        pool_cfg["snapshot_draw"] = "rollout"
    if job["kind"] == "now":
        from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
        from cahoots_envs.training.pool import SnapshotRotation
        from cahoots_envs.training.vec_env import SeatVecEnv

        seat_vec: Any = BatchedSeatVecEnv if cfg.get("engine", "reference") == "batched" else SeatVecEnv
        if pool_cfg.get("snapshot_draw", "seat") == "rollout":
            rotation = SnapshotRotation(pool_cfg.get("max_snapshots", 10), seed=13)
    else:
        from cahoots_envs.training.vec_env import SeatVecEnv as seat_vec
    pool.weights["snapshots"] = pool_cfg.get("snapshots", 0.0)
    pool.weights["latest"] = pool_cfg.get("latest", 0.0)
    venv = seat_vec(env_id, n_envs, options, opponents=pool, team=team, seed=0,
                    reward_scale=cfg.get("reward_scale", 1.0))
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.get("activation", "tanh")]
    model = MaskablePPO(
        "MlpPolicy", venv, learning_rate=ppo["learning_rate"], n_steps=ppo["n_steps"],
        batch_size=ppo["batch_size"], n_epochs=ppo["n_epochs"], gamma=ppo["gamma"],
        gae_lambda=ppo["gae_lambda"], ent_coef=ppo["ent_coef"], seed=0, device="cpu",
        policy_kwargs={"net_arch": {"pi": ppo["net_arch"], "vf": ppo["net_arch"]},
                       "activation_fn": activation})
    rng = np.random.default_rng(0)
    latest = MLPPolicy.from_sb3(model.policy)
    if not team and pool_cfg.get("latest", 0) > 0:
        pool.set_only("latest", "latest", latest)
    if not team and pool_cfg.get("snapshots", 0) > 0:
        for k in range(pool_cfg.get("max_snapshots", 10)):
            snap = MLPPolicy.from_sb3(model.policy)
            snap.layers = [(w + rng.normal(0, 0.05, w.shape).astype(np.float32), b)
                           for w, b in snap.layers]
            if rotation is None:
                pool.add("snapshots", f"snapshot_{k}", snap)
            else:
                rotation.add(f"snapshot_{k}", snap)
        if rotation is not None:
            pool.add("snapshots", "snapshots", rotation)

    def refresh() -> None:  # what the training callback does at each rollout's start
        latest.load_sb3_weights(model.policy)
        if rotation is not None:
            rotation.draw()

    return time_learn(model, n_envs * ppo["n_steps"], job["rollouts"], refresh)


def run_worker(job: dict[str, Any], pythonpath: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], env=env,
                         cwd=pythonpath, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {job} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=GAMES, choices=GAMES)
    parser.add_argument("--rollouts", type=int, default=3, help="timed rollouts per row")
    parser.add_argument("--baseline", default=BASELINE, help="the commit of the 'before' rows")
    parser.add_argument("--no-baseline", action="store_true", help="skip the 'before' rows")
    parser.add_argument("--engine", choices=["batched"],
                        help="the 'now' rows on this engine, whatever the configs say")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    import torch

    print(f"\n{date.today()} · {platform.machine()} · {os.cpu_count()} CPUs · "
          f"Python {platform.python_version()} · torch {torch.__version__} · one thread · "
          f"{args.rollouts} timed rollouts per row · before = {args.baseline}"
          + (f" · now: engine {args.engine}" if args.engine else " · now: as configured"))
    with tempfile.TemporaryDirectory() as tmp:
        old_root = Path(tmp) / "baseline"
        if not args.no_baseline:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q",
                            str(old_root), args.baseline], check=True)
        try:
            rows = []
            cfg0 = ROOT / "configs" / "kansas_city.yaml"
            try:
                t = run_worker({"kind": "tutorial", "config": str(cfg0),
                                "rollouts": args.rollouts}, ROOT)
                rows.append(("PettingZoo SB3 action-mask tutorial, connect_four_v3", "", t, None))
            except RuntimeError as exc:
                print(f"(tutorial row skipped: {str(exc).splitlines()[-1]}; pip install -e '.[bench]')")
            for game in args.games:
                cfg = ROOT / "configs" / f"{game}.yaml"
                now = run_worker({"kind": "now", "config": str(cfg), "rollouts": args.rollouts,
                                  "engine": args.engine}, ROOT)
                before = None
                if not args.no_baseline:
                    before = run_worker({"kind": "before", "config": str(cfg),
                                         "rollouts": args.rollouts}, old_root)
                rows.append((f"configs/{game}.yaml", game, now, before))
        finally:
            if not args.no_baseline:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(old_root)], check=False)
    print("\n| config | rollout steps/s now | before | rollout speed-up | learn() steps/s now "
          "| before | learn() speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, _game, now, before in rows:
        if before is None:
            print(f"| {name} | {now['rollout']:,.0f} | | | {now['learn']:,.0f} | | |")
            continue
        print(f"| {name} | {now['rollout']:,.0f} | {before['rollout']:,.0f} | "
              f"{now['rollout'] / before['rollout']:.1f}x | {now['learn']:,.0f} | "
              f"{before['learn']:,.0f} | {now['learn'] / before['learn']:.1f}x |")


if __name__ == "__main__":
    main()
