"""Training throughput of every game's shipped config, against the seat env of an earlier commit
and the PettingZoo SB3 action-mask tutorial, in one run.

    python benchmarks/bench_training.py [--games kansas_city ...] [--rollouts 3]
                                        [--baseline 625ba6f] [--no-baseline] [--engine batched]
                                        [--tables speed share] [--updates 40] [--repeat 1]
                                        [--variants]

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

The **share** table (printed after the first by default; ``--tables share`` alone skips the
tutorial and "before" rows) sets each learner beside the limit its network could reach: for MaskablePPO (the game's shipped config, on ``--engine`` if given) and for every-seat
PPO (``configs/every_seat/<game>.yaml``, where there is one), in the same run,

- **learn()** steps/s: the whole training loop (rollouts, opponents, updates), learner steps
  per second, a learner step being one decision of the learner's seats (MaskablePPO: its one
  seat per game; every-seat PPO: every seat the network holds), after a warm-up rollout;
- **pure torch**: the same network (actor and critic MLPs as configured, the optimiser the
  algorithm uses) taking a PPO step (forward, clipped loss, backward, gradient clipping,
  optimiser step) on minibatches of the algorithm's ``batch_size`` drawn from the rollout just
  collected, one thread, no environment; its samples per second, divided by the samples a
  learner step costs (``n_epochs``, times the share of decisions kept for the update:
  every-seat PPO leaves out the transitions still open when a rollout ends), is the limit in
  learner steps/s: the rate if the learner did nothing but its updates;
- **share**: learn() steps/s divided by that limit.

``--repeat N`` measures each of these rows N times, interleaved, and shows the medians.

``--variants`` adds every-seat PPO rows with other first-layer widths and with one trunk
shared by actor and critic (computed once per minibatch in the update; the rollout's inference
still calls actor and critic apart), for the networks' cost alone, not their strength.

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
import dataclasses
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
            # PettingZoo's BaseWrapper comes first in the MRO (its reset takes them positionally,
            # its spaces are methods); mypy reads gymnasium.Env's
            super().reset(seed, options)  # type: ignore[call-arg]
            self.observation_space = super().observation_space(  # type: ignore[operator]
                self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])  # type: ignore[operator]
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

    env: Any = SB3ActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=0)
    return ActionMasker(env, lambda e: e.action_mask())  # type: ignore[attr-defined]


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


def worker(job: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import torch
    import yaml
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    if job["kind"] == "every_seat":
        return every_seat_worker(job)
    if job["kind"] == "tutorial":
        cfg = yaml.safe_load(Path(job["config"]).read_text())
        ppo = cfg["ppo"]
        model = MaskablePPO("MlpPolicy", tutorial_env(), n_steps=2048, seed=0, device="cpu",
                            batch_size=ppo["batch_size"], n_epochs=ppo["n_epochs"])
        return time_learn(model, 2048, job["rollouts"])

    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training.config import PPOConfig
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
            snap = noisy_copy(model.policy, rng)
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

    rates: dict[str, Any] = time_learn(model, n_envs * ppo["n_steps"], job["rollouts"], refresh)
    if job.get("pure"):  # the same network's bare updates, on this rollout's observations
        policy, buffer = model.policy, model.rollout_buffer

        def forward(x: Any) -> tuple[Any, Any]:
            actor, critic = policy.mlp_extractor(policy.features_extractor(x))
            return policy.action_net(actor), policy.value_net(critic)

        obs = buffer.observations.reshape(-1, buffer.observations.shape[-1])
        masks = buffer.action_masks.reshape(-1, buffer.action_masks.shape[-1])
        rates["pure"] = pure_torch(forward, policy.parameters(), policy.optimizer, obs, masks,
                                   PPOConfig(**ppo), job["pure"])
        rates |= {"kept": 1.0, "epochs": ppo["n_epochs"], "batch": ppo["batch_size"],
                  "arch": ppo["net_arch"]}
    return rates


def noisy_copy(network: Any, rng: Any) -> Any:
    """A frozen numpy copy of an SB3-laid-out network, its weights shaken a little."""
    import numpy as np

    from cahoots_envs.policies.network import MLPPolicy

    snap = MLPPolicy.from_sb3(network)
    snap.layers = [(w + rng.normal(0, 0.05, w.shape).astype(np.float32), b) for w, b in snap.layers]
    return snap


def pure_torch(forward: Any, params: Any, optimizer: Any, obs: Any, masks: Any, ppo: Any,
               updates: int) -> float:
    """Samples per second of bare PPO minibatch steps (``forward(x) -> (logits, values)``; the
    masked, clipped loss with entropy and value terms; backward; gradient clipping; the
    optimiser's step) on minibatches of ``ppo.batch_size`` rows of ``obs``/``masks``."""
    import torch

    params = list(params)
    gen = torch.Generator().manual_seed(0)
    x_all = torch.as_tensor(obs, dtype=torch.float32)
    legal = torch.as_tensor(masks).bool()
    rows = len(x_all)
    acts = (torch.rand(legal.shape, generator=gen) * legal).argmax(-1)  # a legal action a row
    behaviour = -torch.log(legal.sum(-1).float())  # uniform play's log-probability
    gains, targets = torch.randn(rows, generator=gen), torch.randn(rows, generator=gen)
    size = min(ppo.batch_size, rows)
    picks = [torch.randperm(rows, generator=gen)[:size] for _ in range(updates + 3)]

    def one(idx: Any) -> None:
        logits, values = forward(x_all[idx])
        log_pi = torch.log_softmax(logits.masked_fill(~legal[idx], float("-inf")), -1)
        entropy = -(log_pi.exp() * log_pi.nan_to_num(neginf=0.0)).sum(-1).mean()
        g = gains[idx]
        g = (g - g.mean()) / (g.std() + 1e-8)
        r = torch.exp(log_pi.gather(1, acts[idx, None])[:, 0] - behaviour[idx])
        surrogate = torch.min(r * g, torch.clamp(r, 1 - ppo.clip_range, 1 + ppo.clip_range) * g)
        critic = torch.nn.functional.mse_loss(values[:, 0], targets[idx])
        total = -surrogate.mean() + ppo.vf_coef * critic - ppo.ent_coef * entropy
        optimizer.zero_grad()
        total.backward()
        torch.nn.utils.clip_grad_norm_(params, ppo.max_grad_norm)
        optimizer.step()

    for idx in picks[:3]:  # warm-up
        one(idx)
    start = time.perf_counter()
    for idx in picks[3:]:
        one(idx)
    return size * updates / (time.perf_counter() - start)


def every_seat_worker(job: dict[str, Any]) -> dict[str, Any]:
    """Every-seat PPO's loop as ``every_seat_ppo.train`` runs it (snapshot draw, the latest
    weights, a rollout, the update), without evaluations or cloning: learner steps/s of the
    loop and of its rollouts, then the pure-torch rate of its network on the last rollout."""
    import numpy as np
    import torch

    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training import every_seat_ppo as es
    from cahoots_envs.training.config import PPOConfig, load_config
    from cahoots_envs.training.networks import build_network, masked_logits
    from cahoots_envs.training.pool import SnapshotRotation, add_snapshot, build_pool

    torch.set_num_threads(1)
    config = load_config(job["config"])
    p: PPOConfig = dataclasses.replace(config.ppo, net_arch=job.get("arch") or config.ppo.net_arch)
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    pool = build_pool(config)
    rotation = (SnapshotRotation(config.pool.max_snapshots, seed=13)
                if config.pool.snapshot_draw == "rollout" else None)
    games = es.EverySeatGames(config, config.sections.get(es.SECTION) or es.EverySeatConfig(), pool)
    net = build_network(games.engine.obs.shape[1], games.engine.mask.shape[1], list(p.net_arch),
                        p.activation)
    trunk = net.mlp_extractor.policy_net

    def forward(x: Any) -> tuple[Any, Any]:
        if job.get("shared"):
            h = trunk(x)
            return net.action_net(h), net.value_head(h)
        return net.logits(x), net.predict_values(x)

    if job.get("shared"):  # one trunk: the critic reads the actor's hidden layers
        net.mlp_extractor.value_net = trunk

        def evaluate_actions(obs: Any, actions: Any, action_masks: Any) -> Any:
            logits, values = forward(obs)
            logp = torch.log_softmax(masked_logits(logits, action_masks), -1)
            entropy = -(logp.exp() * logp.nan_to_num(neginf=0.0)).sum(-1)
            return values, logp.gather(1, actions.long()[:, None])[:, 0], entropy

        net.evaluate_actions = evaluate_actions
    latest = MLPPolicy.from_sb3(net)
    if config.pool.latest > 0:
        pool.set_only("latest", "latest", latest)
    rng = np.random.default_rng(0)
    if config.pool.snapshots > 0:
        for k in range(config.pool.max_snapshots):
            snap = noisy_copy(net, rng)
            snap.name = f"snapshot_{k}"
            add_snapshot(pool, rotation, snap)
    optimizer = torch.optim.Adam(net.parameters(), lr=p.learning_rate, eps=1e-5)
    spent, decided, kept = [0.0], [0], [0]

    def loop() -> Any:
        if rotation is not None:
            rotation.draw()
        latest.layers = MLPPolicy.from_sb3(net).layers
        start = time.perf_counter()
        batch = games.rollout(net, p.n_steps, generator)
        spent[0] += time.perf_counter() - start
        decided[0] += int(batch.ledger.decided.sum())
        kept[0] += int(batch.ledger.kept().sum())
        net.train()
        es.learn(net, optimizer, batch, p, generator)
        net.eval()
        return batch

    loop()  # warm-up
    spent[0], decided[0], kept[0] = 0.0, 0, 0
    start = time.perf_counter()
    for _ in range(job["rollouts"]):
        batch = loop()
    total = time.perf_counter() - start
    rates: dict[str, Any] = {"learn": decided[0] / total, "rollout": decided[0] / spent[0],
             "kept": kept[0] / decided[0]}
    if job.get("pure"):
        where = batch.ledger.kept()
        rates["pure"] = pure_torch(forward, net.parameters(), optimizer, batch.obs[where],
                                   batch.masks[where], p, job["pure"])
    return rates | {"epochs": p.n_epochs, "batch": p.batch_size, "arch": list(p.net_arch)}


def run_worker(job: dict[str, Any], pythonpath: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out = subprocess.run([sys.executable, __file__, "--worker", json.dumps(job)], env=env,
                         cwd=pythonpath, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {job} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def share_rows(args: argparse.Namespace, game: str, now: dict[str, float]) -> list[Any]:
    """The share table's rows of one game: MaskablePPO (the 'now' row), every-seat PPO, and
    with ``--variants`` every-seat PPO's other networks."""
    rows: list[Any] = [("MaskablePPO", f"configs/{game}.yaml", now)]
    cfg = ROOT / "configs" / "every_seat" / f"{game}.yaml"
    if not cfg.exists():
        return rows
    job = {"kind": "every_seat", "config": str(cfg), "rollouts": args.rollouts,
           "pure": args.updates}
    name = f"configs/every_seat/{game}.yaml"
    rows.append(("every-seat PPO", name, run_worker(job, ROOT)))
    if args.variants:
        rest = rows[-1][2]["arch"][1:]
        for note, extra in [(f", first layer {w}", {"arch": [w, *rest]}) for w in (128, 512)] + [
                (", shared trunk", {"shared": True})]:
            rows.append(("every-seat PPO", name + note, run_worker(job | extra, ROOT)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=GAMES, choices=GAMES)
    parser.add_argument("--rollouts", type=int, default=3, help="timed rollouts per row")
    parser.add_argument("--baseline", default=BASELINE, help="the commit of the 'before' rows")
    parser.add_argument("--no-baseline", action="store_true", help="skip the 'before' rows")
    parser.add_argument("--engine", choices=["batched"],
                        help="the 'now' rows on this engine, whatever the configs say")
    parser.add_argument("--tables", nargs="+", choices=["speed", "share"],
                        default=["speed", "share"],
                        help="speed: now against before; share: learners against pure torch")
    parser.add_argument("--updates", type=int, default=40,
                        help="timed minibatch steps of each pure-torch row")
    parser.add_argument("--repeat", type=int, default=1,
                        help="share table: measure each row this many times, interleaved; "
                             "the medians are shown")
    parser.add_argument("--variants", action="store_true",
                        help="share table: every-seat PPO with other first layers, shared trunk")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    import torch

    speed, share = "speed" in args.tables, "share" in args.tables
    baseline = speed and not args.no_baseline
    print(f"\n{date.today()} · {platform.machine()} · {os.cpu_count()} CPUs · "
          f"Python {platform.python_version()} · torch {torch.__version__} · one thread · "
          f"{args.rollouts} timed rollouts per row"
          + (f" · before = {args.baseline}" if baseline else "")
          + (f" · {args.updates} timed minibatches per pure-torch row" if share else "")
          + (f" · share rows: medians of {args.repeat} runs" if share and args.repeat > 1 else "")
          + (f" · now: engine {args.engine}" if args.engine else " · now: as configured"))
    rows: list[Any] = []
    shares: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        old_root = Path(tmp) / "baseline"
        if baseline:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q",
                            str(old_root), args.baseline], check=True)
        try:
            cfg0 = ROOT / "configs" / "kansas_city.yaml"
            try:
                if speed:
                    t = run_worker({"kind": "tutorial", "config": str(cfg0),
                                    "rollouts": args.rollouts}, ROOT)
                    rows.append(("PettingZoo SB3 action-mask tutorial, connect_four_v3", "", t,
                                 None))
            except RuntimeError as exc:
                print(f"(tutorial row skipped: {str(exc).splitlines()[-1]}; pip install -e '.[bench]')")
            for game in args.games:
                cfg = ROOT / "configs" / f"{game}.yaml"
                now = run_worker({"kind": "now", "config": str(cfg), "rollouts": args.rollouts,
                                  "engine": args.engine, "pure": share and args.updates}, ROOT)
                before = None
                if baseline:
                    before = run_worker({"kind": "before", "config": str(cfg),
                                         "rollouts": args.rollouts}, old_root)
                rows.append((f"configs/{game}.yaml", game, now, before))
                if share:
                    runs = [share_rows(args, game, now)]
                    for _ in range(args.repeat - 1):  # the MaskablePPO row measured again too
                        again = run_worker({"kind": "now", "config": str(cfg), "engine": args.engine,
                                            "rollouts": args.rollouts, "pure": args.updates}, ROOT)
                        runs.append(share_rows(args, game, again))
                    shares += [(a, name, median_of([run[i][2] for run in runs]))
                               for i, (a, name, _) in enumerate(runs[0])]
        finally:
            if baseline:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(old_root)], check=False)
    if speed:
        print_speed(rows)
    if share:
        print("\n| learner | config, network | minibatch | learn() steps/s | rollout steps/s "
              "| pure torch samples/s | kept | limit, learner steps/s | share |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for algorithm, name, r in shares:
            limit = r["pure"] / (r["epochs"] * r["kept"])
            print(f"| {algorithm} | {name} ({'-'.join(str(int(w)) for w in r['arch'])}) | "
                  f"{int(r['batch'])} | {r['learn']:,.0f} | {r['rollout']:,.0f} | "
                  f"{r['pure']:,.0f} | {r['kept']:.2f} | {limit:,.0f} | {r['learn'] / limit:.2f} |")


def median_of(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Each rate's median over repeated measurements of one row (the share from the medians)."""
    import statistics

    return {k: statistics.median(r[k] for r in results) if isinstance(v, float) else v
            for k, v in results[0].items()}


def print_speed(rows: list[Any]) -> None:
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
