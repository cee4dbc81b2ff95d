"""Search decisions one at a time (``act_infoset``) against many tables at once (``act_infosets``).

    python benchmarks/bench_search_batch.py                          # Kansas City, 64 tables
    python benchmarks/bench_search_batch.py --row texas_euchre --tables 32 --rounds 2
    python benchmarks/bench_search_batch.py --spec search:zoo:kansas_city

``--tables`` seeded games of the row (``search_strength.py``'s rows) are played by the game's
rule-based bot; round ``r`` of ``--rounds`` takes each table's decision at the ``(r + 1/2) /
rounds`` point of its game, as a batched seat env's search opponent meets them: one decision per
table a round. Two bots of ``--spec`` with the same seed decide every round, one calling
``act_infoset`` table by table, the other one ``act_infosets`` for all tables, after the same
``--warm`` warm-up rounds, not timed (kernels compiled, engines of the common sizes built). Printed: the wall and CPU seconds of each, the
milliseconds per searched decision (all of a round's time over the decisions it searched) and
per decision, the speed-up, whether the two bots chose the same moves (they do where the
rollouts break no ties at random), and the load average before and after (``os.getloadavg``:
on a shared machine, wall time counts other jobs' turns; CPU time does not). One process, one
thread (BLAS limited to one).
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search_strength import ROWS


def rounds_of_positions(row: str, tables: int, rounds: int, seed: int) -> list[list[Any]]:
    """``rounds`` lists of one information set per table (see the module docstring)."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import Infoset

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    per_table = []
    for t in range(tables):
        game = spec.rules(opts, np.random.default_rng([seed, t]), None)
        bot = spec.bot(opts, seed=seed + t)
        seen = []
        while not game.is_over:
            seen.append(game.clone())
            info = Infoset(game, game.current_player, spec, opts)
            game.apply(int(bot.act(info.observation, info.action_mask)))
        per_table.append(seen)
    out = []
    for r in range(rounds):
        at = [seen[int((r + 0.5) / rounds * len(seen))] for seen in per_table]
        out.append([Infoset(g, g.current_player, spec, opts) for g in at])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--row", default="kansas_city", choices=list(ROWS))
    parser.add_argument("--spec", default="search", help="the search bot (default: search)")
    parser.add_argument("--tables", type=int, default=64, help="tables (default 64)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds timed (default 3)")
    parser.add_argument("--warm", type=int, default=2,
                        help="warm-up rounds, not timed (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import cahoots_envs

    env_id, options = ROWS[args.row]
    opts = cahoots_envs.game_spec(env_id).resolve_options(options)
    load_before = os.getloadavg()
    rounds = rounds_of_positions(args.row, args.tables, args.warm + args.rounds, args.seed)
    warm, timed = rounds[: args.warm], rounds[args.warm :]
    alone: Any = cahoots_envs.load_policy(args.spec, env_id, opts, seed=args.seed)  # search bots
    together: Any = cahoots_envs.load_policy(args.spec, env_id, opts, seed=args.seed)
    same = True
    for infosets in warm:
        first = [alone.act_infoset(info) for info in infosets]
        same = same and first == together.act_infosets(infosets).tolist()
    alone.stats = type(alone.stats)()
    together.stats = type(together.stats)()
    seconds = {"alone": [0.0, 0.0], "together": [0.0, 0.0]}
    for infosets in timed:
        wall, cpu = time.perf_counter(), time.process_time()
        one = [alone.act_infoset(info) for info in infosets]
        seconds["alone"][0] += time.perf_counter() - wall
        seconds["alone"][1] += time.process_time() - cpu
        wall, cpu = time.perf_counter(), time.process_time()
        many = together.act_infosets(infosets).tolist()
        seconds["together"][0] += time.perf_counter() - wall
        seconds["together"][1] += time.process_time() - cpu
        same = same and one == many
    load_after = os.getloadavg()
    print(f"{args.row} ({env_id}, {opts['num_players']} players), {args.spec} "
          f"({together.path} path), {args.tables} tables x {args.rounds} rounds")
    print("| decided | decisions | searched | seconds (wall / CPU) | ms per searched decision "
          "(wall / CPU) | ms per decision (wall / CPU) |")
    print("|---|---|---|---|---|---|")
    for name, bot in (("one at a time (act_infoset)", alone),
                      ("all tables at once (act_infosets)", together)):
        wall, cpu = seconds["alone" if bot is alone else "together"]
        st = bot.stats
        print(f"| {name} | {st.decisions} | {st.searched} | {wall:.2f} / {cpu:.2f} "
              f"| {1000 * wall / max(st.searched, 1):.1f} / {1000 * cpu / max(st.searched, 1):.1f} "
              f"| {1000 * wall / st.decisions:.1f} / {1000 * cpu / st.decisions:.1f} |")
    print(f"speed-up (CPU): {seconds['alone'][1] / seconds['together'][1]:.2f}x; "
          f"the same moves: {same}")
    print("load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(
        *load_before, *load_after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
