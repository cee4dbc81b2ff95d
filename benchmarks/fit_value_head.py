"""A value head for each game's zoo network, fitted cheaply: ridge regression of hand-end values on the network's features.

    python benchmarks/fit_value_head.py                 # every row, 2,000 games each
    python benchmarks/fit_value_head.py --rows kansas_city --games 500
    python benchmarks/fit_value_head.py --rows texas_euchre --check --games 300 --seed 20000 \
        --at target_score=50 --at target_score=200      # a saved head at other options

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

``--check`` fits nothing: it scores the saved head ``--out-dir/<row>.safetensors`` on
``--games`` seeded heuristic games at the row's options, each ``--at KEY=VALUE[,KEY=VALUE]``
changing some (a saved network plays across the options its game declares ``may differ``, e.g.
Texas Euchre's ``target_score``, so the head is asked there too): the mean target and the mean
prediction (their difference is the head's bias), the head's mean squared error against that of
the constant that predicts the targets' own mean, R² (1 - their ratio) and the slope of the
targets on the predictions (1 for a head whose differences are to scale). One JSON line per
row and option set in ``--results`` (an earlier line for the same row, options, games and seed
is replaced); the table is printed.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # the sibling benchmarks, the package

from search_strength import ROWS

DEFAULT_DIR = _HERE / "results" / "value_heads"
DEFAULT_RESULTS = _HERE / "results" / "value_head_check.jsonl"
HELD_OUT = 10  # games numbered 0 mod HELD_OUT score the fit


def zoo_network(row: str) -> tuple[str, dict[str, Any], Any]:
    """The row's env id, resolved options and zoo network."""
    import cahoots_envs

    env_id, options = ROWS[row]
    opts = cahoots_envs.game_spec(env_id).resolve_options(options)
    return env_id, opts, cahoots_envs.load_policy(f"zoo:{env_id.split('-')[0]}", env_id, opts)


def hand_end_positions(env_id: str, opts: dict[str, Any], games: int, seed: int,
                       ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Per seeded heuristic game ``g`` (seed ``seed + g``): its decisions' observations and
    their targets (the mover's value at the end of that hand), ``(g, obs, targets)``; a game
    over at its deal yields nothing."""
    import cahoots_envs

    spec = cahoots_envs.game_spec(env_id)
    sampler = spec.require("world_sampler")
    size = spec.layout(opts).size
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
        if obs:  # not a game over at its deal (a cooperative deal that meets every goal)
            yield g, np.asarray(obs, np.float32), np.asarray(targets)


def collect(row: str, games: int, seed: int,
            ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per input kind (``features``, ``observation``): the fit's sums over the training games
    (``X'X``, ``X'y``, with a bias column) and the held-out games' inputs and targets."""
    env_id, opts, net = zoo_network(row)
    sums: dict[str, list[Any]] = {}
    for g, x_obs, y in hand_end_positions(env_id, opts, games, seed):
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


def check(row: str, head_file: Path, changed: dict[str, Any], games: int, seed: int,
          ) -> dict[str, Any]:
    """The saved head in ``head_file`` scored on ``games`` heuristic games of ``row`` with the
    options ``changed`` (see ``--check``)."""
    import cahoots_envs

    env_id, options = ROWS[row]
    opts = cahoots_envs.game_spec(env_id).resolve_options({**options, **changed})
    net: Any = cahoots_envs.load_policy(str(head_file), env_id, opts)
    predicted, target = [], []
    for _, x_obs, y in hand_end_positions(env_id, opts, games, seed):
        predicted.append(net.values(x_obs).astype(np.float64))
        target.append(y)
    p, y = np.concatenate(predicted), np.concatenate(target)
    mse, var = float(np.mean((p - y) ** 2)), float(np.var(y))
    slope = float(np.cov(p, y)[0, 1] / np.var(p, ddof=1)) if np.var(p) > 0 else float("nan")
    where = head_file.resolve()
    return {"row": row, "head": str(where.relative_to(_HERE.parent)
                                    if where.is_relative_to(_HERE.parent) else head_file),
            "options": changed, "games": games, "seed": seed, "positions": len(y),
            "target_mean": float(y.mean()), "predicted_mean": float(p.mean()),
            "bias": float(p.mean() - y.mean()), "mse": mse, "constant_mse": var,
            "r2": 1 - mse / var if var > 0 else float("nan"), "slope": slope}


def parse_at(text: str) -> dict[str, Any]:
    """``KEY=VALUE[,KEY=VALUE]`` as options (values read as numbers or booleans where they are)."""
    from cahoots_envs.core.options import parse_value

    changed = {}
    for pair in text.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--at {text}: write KEY=VALUE[,KEY=VALUE], e.g. --at target_score=50")
        changed[key.strip()] = parse_value(value.strip())
    return changed


def run_checks(rows: list[str], sets: list[dict[str, Any]], head_dir: Path, games: int,
               seed: int, results: Path) -> None:
    """``--check``: each row's saved head at each option set; ``results`` updated."""
    import json

    kept = [json.loads(line) for line in results.read_text().splitlines() if line.strip()] \
        if results.exists() else []
    print("| row | options | games | positions | mean target / prediction (bias) | MSE: head / "
          "constant | R² | slope |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        for changed in sets:
            r = check(row, head_dir / f"{row}.safetensors", changed, games, seed)
            key = (r["row"], r["options"], r["games"], r["seed"])
            kept = [k for k in kept if (k["row"], k["options"], k["games"], k["seed"]) != key]
            kept.append(r)
            results.write_text("".join(json.dumps(k) + "\n" for k in kept))
            shown = ", ".join(f"{k}={v}" for k, v in changed.items()) or "the row's own"
            print(f"| {row} | {shown} | {games} | {r['positions']} | {r['target_mean']:.3f} / "
                  f"{r['predicted_mean']:.3f} ({r['bias']:+.3f}) | {r['mse']:.3f} / "
                  f"{r['constant_mse']:.3f} | {r['r2']:.3f} | {r['slope']:.2f} |", flush=True)


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
    parser.add_argument("--check", action="store_true",
                        help="score the saved heads in --out-dir instead of fitting them")
    parser.add_argument("--at", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                        help="with --check: an option set to score the heads at (repeatable; "
                        "default the row's own options)")
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS,
                        help="with --check: the JSON-lines file of the scores")
    args = parser.parse_args(argv)
    if args.check:
        if args.games < 1:
            parser.error("--games is at least 1")
        try:
            sets = [parse_at(text) for text in args.at] or [{}]
            missing = [r for r in args.rows if not (args.out_dir / f"{r}.safetensors").is_file()]
            if missing:
                raise ValueError(f"no saved head for {', '.join(missing)} in {args.out_dir} "
                                 "(fit them first: python benchmarks/fit_value_head.py)")
            run_checks(args.rows, sets, args.out_dir, args.games, args.seed, args.results)
        except ValueError as e:
            parser.error(str(e))
        return 0
    if args.at:
        parser.error("--at goes with --check")
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
