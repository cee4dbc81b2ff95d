"""How well Texas Euchre's between-rounds value predicts who wins, on games of one lineup.

Plays ``--games`` four-player games (game g dealt by seed ``--seed + g``) with ``--policy`` in
every seat (``heuristic``, ``zoo:texas_euchre``, a policy file: any spec ``load_policy``
takes), keeps every position between rounds (the scores, the round points so far, the FAQ 6
ranks) with the game's final result, and prints the log loss of the value's win chances
(``search.value`` read back as a chance, ``p = ((n - 1) v + 1) / n``) against the seats that won,
at the module's constants and with ``TEMPERATURE`` (the softmax temperature per spread still to
come) set to each of ``--temperatures``. Even chances score ``log 4`` (1.386).

    python benchmarks/texas_euchre_value.py --policy zoo:texas_euchre --games 600
    python benchmarks/texas_euchre_value.py --policy heuristic --games 600

docs/lab/search_vs_zoo_opponents.md ("Texas Euchre: the value's temperature and rollouts to the
game's end") has the figures and what a search made of them.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.games.texas_euchre import search


def positions(policy: str, games: int, seed: int,
              ) -> tuple[list[tuple[Any, list[bool]]], list[int]]:
    """Every between-rounds position of ``games`` games (the game object at that point, copied)
    with the seats that won that game; and every seat's points of every round played."""
    from cahoots_envs.registry import make_raw

    out: list[tuple[Any, list[bool]]] = []
    points: list[int] = []
    for g in range(games):
        env = make_raw("texas_euchre-v1")
        env.reset(seed=seed + g)
        players = [cahoots_envs.load_policy(policy, env.env_id, env.options,
                                            seed=(seed + g) * 10 + s) for s in range(4)]
        game, seen, kept = env.game, 0, []
        while not game.is_over:
            if len(game.round_points) != seen:
                seen = len(game.round_points)
                kept.append(game.clone(rng=np.random.default_rng(0)))
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            env.step(int(players[seat].act(obs["observation"], obs["action_mask"])))
            game = env.game
        won = [x > 0 for x in game.outcome()]
        out.extend((k, won) for k in kept)
        points.extend(x for r in game.round_points for x in r)
    return out, points


def log_loss(found: list[tuple[Any, list[bool]]]) -> float:
    """Mean over positions of minus the mean log chance the value gives the seats that won."""
    total = 0.0
    for game, won in found:
        n = game.num_players
        chances = [((n - 1) * search.value(game, s) + 1) / n for s in range(n)]
        winners = [s for s in range(n) if won[s]]
        total -= sum(math.log(max(chances[s], 1e-12)) for s in winners) / len(winners)
    return total / len(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", default="heuristic", help="the policy in every seat")
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--temperatures", type=float, nargs="+",
                        default=[0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0, 1.2, 2.0])
    args = parser.parse_args(argv)
    if args.games < 1 or any(t <= 0 for t in args.temperatures):
        parser.error("--games is at least 1 and every temperature positive")
    start = time.perf_counter()
    found, points = positions(args.policy, args.games, args.seed)
    rounds = len(found) / args.games + 1
    print(f"{args.policy}: {args.games} games, {len(found)} positions between rounds, about "
          f"{rounds:.1f} rounds a game, a seat's points a round {np.mean(points):.1f} on average "
          f"(sd {np.std(points):.1f}; the value's prior: {search.PRIOR_MEAN:g} +- "
          f"{search.PRIOR_SD:g}) ({time.perf_counter() - start:.0f} s)")
    print(f"log loss at the module's constants (TEMPERATURE {search.TEMPERATURE}): "
          f"{log_loss(found):.4f}; even chances {math.log(4):.4f}")
    shipped = search.TEMPERATURE
    try:
        for t in args.temperatures:
            search.TEMPERATURE = t
            print(f"  TEMPERATURE {t:g}: {log_loss(found):.4f}")
    finally:
        search.TEMPERATURE = shipped
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
