"""A value head for each game's zoo network, fitted cheaply: ridge regression of hand-end values on the network's features.

    python benchmarks/fit_value_head.py                 # every row, 2,000 games each
    python benchmarks/fit_value_head.py --rows kansas_city --games 500

Per row (the rows of ``search_strength.py``), ``--games`` seeded games of the rule-based bot in
every seat (its fast state-based twin, ``FastBot``) play on the reference game: the bot is who
plays a search's rollouts under today's default search (``search@rollout=heuristic:zoo:<game>``),
so what the head learns is what a rollout from its leaf would find. At every decision the
mover's observation is recorded, and at the end of its hand (or of the game) the target is the
mover's value there, the world sampler's ``value``: the expected outcome for the seat given the
scores (the final outcome once the game is over; in the cooperative game 1 for a win, 0 for a
loss), the number a search's rollout scores where it stops at a hand's end. A target at the
hand's end rather than the game's is what the head's use needs (a leaf stands in for the rest of
the hand, which the rollouts would otherwise play) and is far less noisy than the final outcome
of a multi-hand game. Two linear heads (``ValueHead``, one layer) are fitted as ridge solutions
(``--ridge``; the bias not penalised): on the network's features (its last hidden layer; an
action-scoring network's trunk) and on the observation itself, on the games whose number is not
0 mod 10, each scored on a quarter of the decisions of the games that are (mean squared error,
against the constant that predicts the training mean); the better one is kept. The network with
its head is saved (float16, as the zoo) to ``--out-dir/<row>.safetensors``; the policy is the zoo
network's, unchanged. Seeded: the same command writes the same heads.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # the sibling benchmarks, the package

from search_strength import ROWS

DEFAULT_DIR = _HERE / "results" / "value_heads"
HELD_OUT = 10  # games numbered 0 mod HELD_OUT score the fit


def zoo_network(row: str) -> tuple[str, dict[str, Any], Any]:
    """The row's env id, resolved options and zoo network."""
    import cahoots_envs

    env_id, options = ROWS[row]
    opts = cahoots_envs.game_spec(env_id).resolve_options(options)
    return env_id, opts, cahoots_envs.load_policy(f"zoo:{env_id.split('-')[0]}", env_id, opts)


def collect(row: str, games: int, seed: int,
            ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per input kind (``features``, ``observation``): the fit's sums over the training games
    (``X'X``, ``X'y``, with a bias column) and the held-out games' inputs and targets."""
    import cahoots_envs

    env_id, opts, net = zoo_network(row)
    spec = cahoots_envs.game_spec(env_id)
    sampler = spec.require("world_sampler")
    size = spec.layout(opts).size
    sums: dict[str, list[Any]] = {}
    for g in range(games):
        game = spec.rules(opts, np.random.default_rng(seed + g), None)
        bot = sampler.FastBot(opts, seed=seed + g)
        obs: list[np.ndarray] = []
        targets: list[float] = []
        hand: list[tuple[int, int]] = []  # (row in obs, seat) of the decisions of this hand
        hands = len(game.deals)
        while not game.is_over:
            seat = game.current_player
            row_obs = np.zeros(size, np.float32)
            game.encode(seat, row_obs)
            hand.append((len(obs), seat))
            obs.append(row_obs)
            targets.append(0.0)
            game.apply(int(bot.act_state(game)))
            if game.is_over or len(game.deals) != hands:  # the hand's end: its value, per seat
                for at, s in hand:
                    targets[at] = float(sampler.value(game, s))
                hand, hands = [], len(game.deals)
        if not obs:  # a game over at its deal (a cooperative deal that meets every goal)
            continue
        x_obs = np.asarray(obs, np.float32)
        y = np.asarray(targets)
        for kind, x in (("features", net.features(x_obs)), ("observation", x_obs)):
            x = np.hstack([x.astype(np.float64), np.ones((len(x), 1))])
            if kind not in sums:
                sums[kind] = [np.zeros((x.shape[1], x.shape[1])), np.zeros(x.shape[1]), [], []]
            if g % HELD_OUT == 0:
                sums[kind][2].append(x[::4])
                sums[kind][3].append(y[::4])
            else:
                sums[kind][0] += x.T @ x
                sums[kind][1] += x.T @ y
    return {kind: (xtx, xty, np.concatenate(hx), np.concatenate(hy))
            for kind, (xtx, xty, hx, hy) in sums.items()}


def fit(xtx: np.ndarray, xty: np.ndarray, ridge: float) -> np.ndarray:
    """The ridge solution (the last column is the bias, not penalised)."""
    penalty = np.full(len(xty), ridge)
    penalty[-1] = 0.0
    return np.linalg.solve(xtx + np.diag(penalty), xty)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    from cahoots_envs.policies.network import ValueHead
    from cahoots_envs.policies.saved import save_policy

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=10_000,
                        help="the games' seed (default apart from the strength tables' 0..499)")
    parser.add_argument("--ridge", type=float, default=10.0)
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    if args.games < 2 * HELD_OUT or args.ridge < 0:
        parser.error(f"--games is at least {2 * HELD_OUT} and --ridge at least 0")
    print("| row | games | positions (train / held out) | held-out MSE: on features / on the "
          "observation / constant | R² of the head kept | CPU s |")
    print("|---|---|---|---|---|---|")
    for row in args.rows:
        start = time.process_time()
        found = collect(row, args.games, args.seed)
        scored = {}
        for kind, (xtx, xty, hx, hy) in found.items():
            w = fit(xtx, xty, args.ridge)
            mean = xty[-1] / xtx[-1, -1]
            scored[kind] = (float(np.mean((hx @ w - hy) ** 2)), float(np.mean((mean - hy) ** 2)),
                            w)
        kind = min(scored, key=lambda k: scored[k][0])  # the better input on held-out games
        mse, base, w = scored[kind]
        env_id, opts, net = zoo_network(row)
        head = ValueHead([(w[None, :-1].astype(np.float32), w[-1:].astype(np.float32))],
                         activation="tanh", input=kind)
        net.with_value_head(head)
        command = (f"python benchmarks/fit_value_head.py --rows {row} --games {args.games} "
                   f"--seed {args.seed} --ridge {args.ridge:g}")
        trained = int(found[kind][0][-1, -1])
        save_policy(net, args.out_dir / f"{row}.safetensors", env_id, opts,
                    weights_dtype="float16", name=f"{row}+value",
                    description=f"zoo:{env_id.split('-')[0]} with a linear value head on its "
                    f"{kind} fitted to the hand-end values of heuristic games "
                    "(benchmarks/fit_value_head.py)",
                    training={"command": command, "games": args.games, "seed": args.seed,
                              "ridge": args.ridge, "positions": trained, "input": kind},
                    evaluation={"held_out_mse": mse, "constant_mse": base,
                                "held_out_mse_by_input": {k: v[0] for k, v in scored.items()},
                                "held_out_positions": len(found[kind][3])})
        cpu = time.process_time() - start
        print(f"| {row} | {args.games} | {trained} / {len(found[kind][3])} | "
              f"{scored['features'][0]:.4f} / {scored['observation'][0]:.4f} / {base:.4f} | "
              f"{1 - mse / base:.3f} ({kind}) | {cpu:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
