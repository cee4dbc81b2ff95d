"""What a searched decision and a label cost with value leaves and with network rollouts, against today's default search, side by side.

    python benchmarks/search_leaf_cost.py --games 2
    python benchmarks/search_leaf_cost.py --rows kansas_city --games 1 --labels 200

Per row (the rows of ``search_strength.py``), the positions are the searched decisions of seat 0
in ``--games`` seeded heuristic games (``search_strength.searched_positions``, as ``--paths``
takes them), and each is decided by every lineup in turn, in one process, after a warm-up
decision each (kernels compiled): today's default search (``search``: the game's default,
``default_search_spec``), the same over the zoo network with a value head with ``leaf=1`` and
with ``leaf=3`` (``search@rollout=heuristic,leaf=1:benchmarks/results/value_heads/<row>.safetensors``,
from ``fit_value_head.py``), and search over the zoo network playing its own rollouts
(``search:zoo:<game>``). Interleaving the lineups position by position puts them under the same
machine load, so their ratios hold where the machine is shared; the CPU seconds are the
process's (``time.process_time``). Then ``--labels`` positions (the first of them, repeated if
fewer) are labelled by ``label_positions`` with each lineup's settings over its blueprint, all
together on the engine, for labels per CPU-second. Printed: per row and lineup, ms of CPU per
searched decision, its ratio to the default's, worlds and rollouts a decision, and labels per
CPU-second; ``--out`` appends one JSON record per row and lineup.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # the sibling benchmarks, the package

from search_strength import ROWS, lineup_name, searched_positions, spec_of

VALUE_HEADS = "benchmarks/results/value_heads/{row}.safetensors"
LINEUPS = ("search", f"search@rollout=heuristic,leaf=1:{VALUE_HEADS}",
           f"search@rollout=heuristic,leaf=3:{VALUE_HEADS}", "search:zoo:{game}")


def measure(row: str, games: int, seed: int, labels: int) -> list[dict[str, Any]]:
    import cahoots_envs
    from cahoots_envs.search import Infoset, label_positions

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    names = [lineup_name(x, row) for x in LINEUPS]
    bots: list[Any] = [cahoots_envs.load_policy(spec_of(n), env_id, options, seed=0) for n in names]
    positions = searched_positions(row, games, seed, spec_of(names[0]))
    if not positions:
        return []
    for bot in bots:  # warm-up: kernels compiled
        bot.act_infoset(Infoset(positions[0], positions[0].current_player, spec, opts))
        bot.stats = type(bot.stats)()
    cpu = [0.0] * len(bots)
    for k, game in enumerate(positions):
        for j, bot in enumerate(bots):
            bot.reseed(seed + k)
            start = time.process_time()
            bot.act_infoset(Infoset(game, game.current_player, spec, opts))
            cpu[j] += time.process_time() - start
    records = []
    found = (positions * (1 + labels // len(positions)))[:labels]
    for j, (name, bot) in enumerate(zip(names, bots)):
        st = bot.stats
        knobs = {k: v for k, v in bot.settings.items() if k != "time_limit"}
        start = time.process_time()
        label_positions(env_id, opts, found, blueprint=bot.blueprint, seed=seed,
                        blueprint_name=bot.blueprint_spec, **knobs)
        label_cpu = time.process_time() - start
        records.append({
            "row": row, "lineup": name, "positions": len(positions), "searched": st.searched,
            "ms_per_searched": 1000 * cpu[j] / max(st.searched, 1),
            "ratio_to_default": cpu[j] / max(cpu[0], 1e-9),
            "worlds_per_searched": st.worlds / max(st.searched, 1),
            "rollouts_per_searched": st.rollouts / max(st.searched, 1),
            "labels": len(found), "labels_per_cpu_s": len(found) / max(label_cpu, 1e-9),
        })
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--labels", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.games < 1 or args.labels < 1:
        parser.error("--games and --labels are at least 1")
    print("| row | lineup | searched decisions | CPU ms a searched decision | / default | worlds "
          "/ rollouts a decision | labels a CPU-s |")
    print("|---|---|---|---|---|---|---|")
    for row in args.rows:
        for r in measure(row, args.games, args.seed, args.labels):
            print(f"| {row} | {r['lineup']} | {r['searched']} | {r['ms_per_searched']:.1f} | "
                  f"{r['ratio_to_default']:.2f} | {r['worlds_per_searched']:.1f} / "
                  f"{r['rollouts_per_searched']:.0f} | {r['labels_per_cpu_s']:.1f} |", flush=True)
            if args.out is not None:
                with args.out.open("a") as f:
                    f.write(json.dumps(r, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
