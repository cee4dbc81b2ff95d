"""MaskablePPO learner steps/s on our seat envs beside the PettingZoo SB3 action-mask tutorial.

Every row trains sb3-contrib's ``MaskablePPO`` with its default hyperparameters (MLP 64x64,
n_steps 2048 per rollout, batch 64, 10 epochs) for the same number of learner steps, in the same
process and run, and reports learner steps per second of ``model.learn`` (environment, opponents,
rollouts and updates together):

- the loop of PettingZoo's "SB3: Action Masking" tutorial on ``connect_four_v3``
  (``SB3ActionMaskWrapper`` + ``ActionMasker``; one policy plays both sides, no opponents);
- our ``SeatEnv`` (one game in a ``DummyVecEnv``) and ``SeatVecEnv`` (many games in one process;
  n_steps = 2048 / n_envs so a rollout is still 2048 steps), with every other seat played by
  frozen network snapshots of the learner (numpy MLPs of the learner's shape).

    python benchmarks/bench_training.py [--env kansas_city-v1] [--steps 6144] [--n-envs 16 64 256]

Two columns per row: steps/s of the whole ``learn()`` and of its rollout collection alone (the
environment, the opponents and the learner's inference; the gradient updates excluded). The
updates cost the same per step whatever feeds them, for a given network, so the rollout column is
the environment's share; the table is printed twice, with MaskablePPO's default update settings
and with the lighter ones our training configs use.

BLAS and torch are limited to one thread for every row (a multi-threaded OpenBLAS on a busy
2-core machine is many times slower for these small matmuls). Needs the ``train`` and ``bench``
extras.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import platform
import time
from datetime import date
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3.common.vec_env import DummyVecEnv

from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.training import OpponentPool, SeatEnv, SeatVecEnv


# ---- the PettingZoo tutorial, as published ---------------------------------------------------
def tutorial_env() -> Any:
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3

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


def time_learn(env: Any, steps: int, n_steps: int = 2048, **ppo: Any) -> tuple[float, float]:
    """Learner steps/s of ``model.learn`` and of its rollout collection alone (environment,
    opponents and the learner's own inference, without the gradient updates)."""
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=n_steps, seed=0, device="cpu", **ppo)
    model.learn(n_steps * getattr(env, "num_envs", 1))  # warm-up rollout and update
    collecting = 0.0
    collect = model.collect_rollouts

    def timed_collect(*args: Any, **kwargs: Any) -> Any:
        nonlocal collecting
        start = time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            collecting += time.perf_counter() - start

    model.collect_rollouts = timed_collect  # type: ignore[method-assign]
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    total = time.perf_counter() - start
    return steps / total, steps / collecting


def snapshot_pool(env_id: str, count: int = 2) -> OpponentPool:
    """Opponents with the learner's default architecture (64x64 tanh MLP), as snapshots."""
    probe = SeatEnv(env_id, opponents="random", seed=0)
    pool = OpponentPool()
    for i in range(count):
        model = MaskablePPO(MaskableActorCriticPolicy, probe, n_steps=64, seed=i, device="cpu")
        snap = MLPPolicy.from_sb3(model.policy)
        pool.add("snapshots", f"snapshot_{i}", snap)
    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="kansas_city-v1")
    parser.add_argument("--steps", type=int, default=6144, help="learner steps timed per row")
    parser.add_argument("--n-envs", type=int, nargs="+", default=[16, 64, 256])
    args = parser.parse_args()
    torch.set_num_threads(1)
    settings = {
        "MaskablePPO defaults (batch 64, 10 epochs)": {},
        "our configs' update settings (batch 512, 4 epochs)": {"batch_size": 512, "n_epochs": 4},
    }
    print(f"\n{date.today()} · {platform.machine()} · {os.cpu_count()} CPUs · "
          f"Python {platform.python_version()} · torch {torch.__version__} · "
          f"{args.steps} learner steps per row, n_steps 2048 per rollout, 1 thread")
    pool = snapshot_pool(args.env)
    for title, ppo in settings.items():
        rows: list[tuple[str, tuple[float, float]]] = []
        try:
            rows.append(("PettingZoo SB3 action-mask tutorial, connect_four_v3",
                         time_learn(tutorial_env(), args.steps, **ppo)))
        except ImportError as exc:
            print(f"(tutorial row skipped: {exc}; pip install -e '.[bench]')")
        single = DummyVecEnv([lambda: SeatEnv(args.env, opponents=pool, seed=0)])
        rows.append((f"SeatEnv, {args.env}, snapshot opponents", time_learn(single, args.steps, **ppo)))
        for n in args.n_envs:
            venv = SeatVecEnv(args.env, n, opponents=pool, seed=0)
            rows.append((f"SeatVecEnv x{n}, {args.env}, snapshot opponents",
                         time_learn(venv, args.steps, n_steps=max(1, 2048 // n), **ppo)))
        base = rows[0][1] if rows[0][0].startswith("PettingZoo") else None
        print(f"\n{title}\n")
        print("| loop | learn() steps/s | vs tutorial | rollout steps/s | vs tutorial |")
        print("|---|---|---|---|---|")
        for name, (learn, collect) in rows:
            r1 = f"{learn / base[0]:.2f}x" if base else ""
            r2 = f"{collect / base[1]:.2f}x" if base else ""
            print(f"| {name} | {learn:,.0f} | {r1} | {collect:,.0f} | {r2} |")

if __name__ == "__main__":
    main()
