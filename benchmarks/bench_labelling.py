"""Labelling throughput: searched positions per second on one core (``label_positions``).

    python benchmarks/bench_labelling.py                       # every row, both blueprints
    python benchmarks/bench_labelling.py --rows kansas_city --games 4 --blueprints heuristic

Per row (the rows of ``search_strength.py``), the positions are every decision with 2 to
``max_candidates`` legal moves (the ones a labelling run searches) of ``--games`` seeded
heuristic games, every seat; they are labelled in one ``label_positions`` call at the game's
shipped search settings over each blueprint (``heuristic``: the game's rule-based bot, its
compiled batch kernel where it has one; ``zoo``: the game's zoo network, one forward pass for
all rows of a ply), after a warm-up call on a few positions (kernels compiled), on the path a
search bot would take (``path``: the engine, or the reference game one position at a time where
the game's heuristic searches faster there, ``HEURISTIC_BATCHED = False``). One process,
one thread (BLAS limited to one): labels per second of wall time, and per CPU-second of the
process (the per-core figure on a shared machine, where wall time counts other jobs' turns).
The worlds and rollouts per label are printed, and the CPU time the world sampler alone takes
on the same positions and seeds (with Python's cyclic collector paused, as a search runs), as
a share (drawing the worlds is part of every label).
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

BLUEPRINTS = ("heuristic", "zoo")


def positions(row: str, games: int, seed: int) -> list[Any]:
    """Every searchable decision (2..max_candidates legal moves) of ``games`` seeded heuristic
    games of ``row``."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import SearchPolicy

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    most = SearchPolicy(env_id, opts).settings["max_candidates"]
    found = []
    for g in range(games):
        game = spec.rules(opts, np.random.default_rng(seed + g), None)
        bot = spec.bot(opts, seed=seed + g)
        while not game.is_over:
            if 2 <= len(game.legal_actions()) <= most:
                found.append(game.clone())
            game.apply(int(bot.act(*_observe(game, spec, opts))))
    return found


def _observe(game: Any, spec: Any, opts: dict[str, Any]) -> tuple[Any, Any]:
    from cahoots_envs.search import Infoset

    info = Infoset(game, game.current_player, spec, opts)
    return info.observation, info.action_mask


def sampling_seconds(row: str, found: list[Any], labels: list[Any], seed: int) -> float:
    """The world sampler's time alone: the worlds the labels drew, drawn again."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import Infoset
    from cahoots_envs.search.label import position_seed
    from cahoots_envs.search.rounds import gc_paused

    env_id, options = ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    fresh = [game.clone() for game in found]  # a sampler's per-game caches start empty
    start = time.process_time()
    with gc_paused():  # as a search draws them
        for p, (game, label) in enumerate(zip(fresh, labels)):
            info = Infoset(game, game.current_player, spec, opts)
            s = position_seed(seed, p)
            for k in range(len(label.values)):
                info.sample(np.random.default_rng([s, k]))
    return time.process_time() - start


def measure(row: str, blueprint: str, found: list[Any], seed: int) -> str:
    import cahoots_envs
    from cahoots_envs.search import label_positions

    env_id, options = ROWS[row]
    opts = cahoots_envs.game_spec(env_id).resolve_options(options)
    policy = None
    if blueprint == "zoo":
        policy = cahoots_envs.load_policy(f"zoo:{env_id.split('-')[0]}", env_id, opts, seed=0)
    label_positions(env_id, opts, found[:4], policy, seed=seed + 1, blueprint_name=blueprint)
    start, cpu = time.perf_counter(), time.process_time()
    labels = label_positions(env_id, opts, found, policy, seed=seed, blueprint_name=blueprint)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    searched = [x for x in labels if x.searched]
    worlds = sum(len(x.values) for x in searched) / max(len(searched), 1)
    rollouts = sum(x.values.size for x in searched) / max(len(searched), 1)
    sampling = sampling_seconds(row, found, labels, seed)
    return (f"| {row} | {blueprint} | {labels[0].path} | {len(labels)} "
            f"| {worlds:.1f} / {rollouts:.0f} "
            f"| {wall:.2f} / {cpu:.2f} | {rate(len(labels) / wall)} | {rate(len(labels) / cpu)} "
            f"| {sampling / cpu:.0%} |")


def rate(x: float) -> str:
    """A rate, whole above 10 and to a tenth below (0.4 and 2.2 labels a second differ)."""
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--blueprints", nargs="+", default=list(BLUEPRINTS), choices=BLUEPRINTS)
    parser.add_argument("--games", type=int, default=2, help="seeded games per row (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("| row | blueprint | path | labels | worlds / rollouts per label "
          "| seconds (wall / CPU) | labels/s (wall) | labels per CPU-second "
          "| world sampling (share of CPU) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in args.rows:
        found = positions(row, args.games, args.seed)
        for blueprint in args.blueprints:
            print(measure(row, blueprint, found, args.seed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
