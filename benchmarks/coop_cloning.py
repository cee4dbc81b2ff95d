"""Cloning the cooperative game's team bot: the flat MLP against the action-scoring network.

    python benchmarks/coop_cloning.py [--games 8000] [--epochs 5] [--eval-games 1000]

Collects ``--games`` heuristic-team games (3 players, normal; batched engine, soft targets: the
bot's tied best moves), clones them into

- the flat MLP the zoo ships (256x256 tanh, SB3's ``MaskableActorCriticPolicy`` through
  ``behaviour_clone``, batch 512, learning rate 1e-3), and
- the action-scoring network (``cahoots_envs.policies.scoring``: a trunk over the observation, a
  score per play from the trunk, an embedding of the play and the observation's per-play
  segments ``my_plays`` / ``play_completes``, plus the trunk's direct per-play output; the same
  batch and learning rate),

and prints, for each, the agreement on the training decisions (the clone's move among the bot's
tied best), the cloning time and the team's win rate at beginner and normal over
``--eval-games`` games each (batched engine, 95% intervals). One thread; seeds fixed.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
from typing import Any

ENV = "cahoots_coop-v1"
OPTIONS = {"num_players": 3, "difficulty": "normal"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--eval-games", type=int, default=1000)
    args = parser.parse_args()
    import torch
    from sb3_contrib import MaskablePPO

    from cahoots_envs.evaluation.matches import batched_matches
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.policies.network import MLPPolicy
    from cahoots_envs.training import SeatEnv
    from cahoots_envs.training.imitation import behaviour_clone, collect_demonstrations
    from cahoots_envs.training.scoring import clone_action_scorer

    torch.set_num_threads(1)
    t0 = time.time()
    teacher = load_policy("heuristic", ENV, OPTIONS, seed=3)
    demos = collect_demonstrations(ENV, OPTIONS, teacher, args.games, seed=5, engine="batched")
    print(f"{len(demos)} decisions from {args.games} games ({time.time() - t0:.0f} s)", flush=True)
    rows: list[tuple[str, float, float, Any]] = []

    t0 = time.time()
    model = MaskablePPO("MlpPolicy", SeatEnv(ENV, OPTIONS, team=True), n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [256, 256]}, device="cpu", seed=0)
    stats = behaviour_clone(model.policy, demos, epochs=args.epochs, batch_size=512,
                            learning_rate=1e-3, seed=0, log=lambda m: print(m, flush=True))
    rows.append(("flat MLP 256x256", stats["accuracy"], time.time() - t0,
                 MLPPolicy.from_sb3(model.policy)))

    t0 = time.time()
    scorer, sstats = clone_action_scorer(demos, ENV, OPTIONS, ["my_plays", "play_completes"],
                                         epochs=args.epochs, batch_size=512, lr=1e-3, seed=0,
                                         log=lambda m: print(m, flush=True))
    rows.append(("action scoring", sstats["agreement"], time.time() - t0, scorer))

    print("\n| network | agreement (training decisions) | cloning time | team wins, beginner "
          "| team wins, normal |")
    print("|---|---:|---:|---|---|")
    for name, agreement, seconds, policy in rows:
        wins = [batched_matches(ENV, policy, None, args.eval_games,
                                {**OPTIONS, "difficulty": d}, seed=7) for d in ("beginner", "normal")]
        cells = " | ".join(f"{r.win_rate:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" for r in wins)
        print(f"| {name} | {agreement:.3f} | {seconds:.0f} s | {cells} |", flush=True)


if __name__ == "__main__":
    main()
