"""Measure a policy's strength and (optionally) publish it to the zoo.

    python training/strength.py runs/<run>/policy.safetensors --games 2000
    python training/strength.py runs/<run>/policy.safetensors --games 2000 --publish kansas_city

Competitive games (at the policy's own options): the heuristic bot against random opponents, the
policy against random opponents and the policy against heuristic opponents, each in one seat
rotated over the games, with the win share (a k-way tie for the win counts 1/k) and its 95%
confidence interval. Cooperative game: a team of the policy against a team of heuristic bots at
each ``--difficulties`` (the network plays every difficulty: they share one observation layout).
``--publish NAME`` copies the policy into ``cahoots_envs/policies/zoo/NAME.safetensors`` with these
results in its metadata (``evaluation``) and the training command it came from.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import datetime as _dt
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cahoots_envs.policies import load_policy, read_metadata, save_policy
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.loading import ZOO_DIR
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.training.matches import seat_matches, team_matches


def measure(path: str, games: int, seed: int, difficulties: list[str]) -> dict:
    meta = read_metadata(path)
    env_id, options = meta["env_id"], meta["game_options"]
    info = env_info(env_id, options)
    policy = load_policy(path, env_id, options, seed=seed)
    results: dict = {"games_per_row": games, "seats": "rotated (seat g % N in game g)",
                     "confidence": "95%, normal approximation", "policy": "greedy (argmax)",
                     "measured": _dt.date.today().isoformat(),
                     "machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}
    t0 = time.time()
    if info.game_cls.COOPERATIVE:
        rows = {}
        for difficulty in difficulties:
            opts = {**options, "difficulty": difficulty}
            # the same network: every difficulty has the same layout and actions
            assert env_info(env_id, opts).layout.fingerprint() == meta["layout_fingerprint"]
            heuristic = load_policy("heuristic", env_id, opts, seed=seed + 1)
            rows[difficulty] = {
                "policy_team": team_matches(env_id, policy, games, opts, seed=seed).as_dict(),
                "heuristic_team": team_matches(env_id, heuristic, games, opts, seed=seed).as_dict(),
                "random_team": team_matches(env_id, load_policy("random", env_id, opts, seed=seed),
                                            games, opts, seed=seed).as_dict(),
            }
        results["team"] = rows
    else:
        heuristic = load_policy("heuristic", env_id, options, seed=seed + 1)
        rand = load_policy("random", env_id, options, seed=seed + 2)
        results["heuristic_vs_random"] = seat_matches(env_id, heuristic, rand, games, options,
                                                      seed=seed).as_dict()
        results["policy_vs_random"] = seat_matches(env_id, policy, rand, games, options,
                                                   seed=seed + 3).as_dict()
        results["policy_vs_heuristic"] = seat_matches(env_id, policy, heuristic, games, options,
                                                      seed=seed + 4).as_dict()
    results["seconds"] = round(time.time() - t0, 1)
    return {"meta": meta, "results": results, "policy": policy}


def fmt(r: dict) -> str:
    return f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"


def markdown(meta: dict, results: dict) -> str:
    env = meta["env_id"].split("/")[1]
    n = meta["game_options"].get("num_players")
    if "team" in results:
        return "\n".join(
            f"| {env} ({n}p, {d}) | team wins (mean goals) | random team {fmt(r['random_team'])} "
            f"({r['random_team']['mean_score']:.1f}) | heuristic team {fmt(r['heuristic_team'])} "
            f"({r['heuristic_team']['mean_score']:.1f}) | policy team {fmt(r['policy_team'])} "
            f"({r['policy_team']['mean_score']:.1f}) | {results['games_per_row']} |"
            for d, r in results["team"].items()
        )
    return (f"| {env} ({n}p) | chance 1/N = {1 / n:.3f} | heuristic vs random "
            f"{fmt(results['heuristic_vs_random'])} | policy vs random {fmt(results['policy_vs_random'])}"
            f" | policy vs heuristic {fmt(results['policy_vs_heuristic'])} | "
            f"{results['games_per_row']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", help="a saved policy (.safetensors) or zoo:<name>")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--difficulties", nargs="+", default=["beginner", "normal"])
    parser.add_argument("--publish", metavar="NAME", help="copy into the zoo as NAME")
    args = parser.parse_args()
    path = str(ZOO_DIR / f"{args.policy[4:]}.safetensors") if args.policy.startswith("zoo:") else args.policy
    if args.publish:
        # the zoo stores float16 weights: publish first, then measure exactly what ships
        meta = read_metadata(path)
        policy: MLPPolicy = load_policy(path, meta["env_id"], meta["game_options"])  # type: ignore[assignment]
        dest = ZOO_DIR / f"{args.publish}.safetensors"
        save_policy(policy, dest, meta["env_id"], meta["game_options"], weights_dtype="float16",
                    name=args.publish, description=meta.get("description", ""),
                    training=dict(meta["training"]),
                    # re-publishing a zoo entry keeps the results of the run that trained it
                    evaluation={"training_run": meta["evaluation"].get("training_run",
                                                                       meta["evaluation"])})
        path = str(dest)
    out = measure(path, args.games, args.seed, args.difficulties)
    meta, results = out["meta"], out["results"]
    print(json.dumps(results, indent=2))
    print(markdown(meta, results))
    if args.publish:
        save_policy(out["policy"], dest, meta["env_id"], meta["game_options"],
                    weights_dtype="float16", name=args.publish,
                    description=meta.get("description", ""), training=dict(meta["training"]),
                    evaluation={"strength": results, **meta["evaluation"]})
        print(f"published {dest} ({dest.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
