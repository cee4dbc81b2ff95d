"""How much of a search label's gain is real: each position searched twice, with independent worlds.

    python benchmarks/label_noise.py --rows cahoots_tricks kansas_city --games 6
    python benchmarks/label_noise.py --rows coop-normal --games 6 --worlds 16 --max-worlds 64

Per row (the rows of ``search_strength.py``), the positions are every searchable decision of
``--games`` seeded heuristic games (as ``bench_labelling.py`` takes them), labelled twice by
``label_positions`` with the expert-iteration recipes' settings (``--blueprint zoo+heuristic``,
the default: the game's zoo network's move is the search's default, the heuristic plays the
rollouts; ``--worlds``/``--max-worlds`` 8 to 16, as the Kansas City and Cahoots tricks recipes
search; the cooperative recipe searches 16 to 64; ``--max-rollouts`` raises the search's cap
on a decision's rollouts, below which a decision with many moves stops at fewer worlds), once
with seed 0 and once with seed 1, so that the two searches draw independent worlds. Where the
first search moves off the blueprint's move, its own figures say how much that move gains (its
mean paired value over the blueprint's move); the second search's values
are an independent estimate of the same gain, free of the first search's choosing the move
that looked best in its worlds. The table prints, per row: the positions, the share where the
first search moved off, how often the second search moved to the same move, and the mean gain
of the first search's moves as the first search saw it and as the second measured it (with a
95% interval). Then the same for the first search's best other move wherever its gain over
the blueprint's exceeds z standard errors of its own worlds, for a few z.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # the sibling benchmarks, the package

from bench_labelling import BLUEPRINTS, labelling, positions
from search_strength import ROWS

Z_LEVELS = (1.0, 2.0, 3.0)


def mean_ci(xs: list[float]) -> str:
    """``mean (low to high)``, the normal 95% interval of ``core.stats.mean_interval`` (at the
    1.96 the benchmarks' paired figures use)."""
    from cahoots_envs.core.stats import Z95_ROUNDED, mean_interval

    if len(xs) < 2:
        return f"{xs[0]:+.3f}" if xs else "—"
    m, low, high = mean_interval(xs, Z95_ROUNDED)
    return f"{m:+.3f} ({low:+.3f} to {high:+.3f})"


def twice(row: str, games: int, blueprint: str, worlds: int, max_worlds: int,
          max_rollouts: int | None = None) -> tuple[list[Any], float]:
    """The two labellings of ``row``'s positions, and the CPU seconds they took."""
    from cahoots_envs.search import label_positions

    env_id, opts, net, knobs = labelling(row, blueprint)
    found = positions(row, games, 0)
    knobs.update(worlds=worlds, max_worlds=max_worlds)
    if max_rollouts is not None:
        knobs["max_rollouts"] = max_rollouts
    start = time.process_time()
    labels = [label_positions(env_id, opts, found, blueprint=net, seed=s,
                              blueprint_name=blueprint, **knobs) for s in (0, 1)]
    return labels, time.process_time() - start


def gains(first: Any, second: Any, i: int) -> tuple[float, float]:
    """Move ``legal[i]``'s mean gain over the blueprint's move in each labelling."""
    b = first.legal.index(first.blueprint_move)
    return (float(first.means[i] - first.means[b]), float(second.means[i] - second.means[b]))


def report(row: str, labels: list[Any], cpu: float) -> list[str]:
    """The table's lines for ``row`` from its two labellings."""
    import numpy as np

    pairs = [(a, c) for a, c in zip(*labels) if a.searched]
    moved = [(a, c) for a, c in pairs if a.move != a.blueprint_move]
    seen, measured = [], []
    for a, c in moved:
        g1, g2 = gains(a, c, a.legal.index(a.move))
        seen.append(g1)
        measured.append(g2)
    same = sum(c.move == a.move for a, c in moved)
    lines = [(f"| {row} | {len(pairs)} | {len(moved) / max(len(pairs), 1):.1%} | "
              f"{same / max(len(moved), 1):.1%} | {mean_ci(seen)} | {mean_ci(measured)} | "
              f"{cpu:.0f} |")]
    for z in Z_LEVELS:
        seen, measured = [], []
        for a, c in pairs:
            b = a.legal.index(a.blueprint_move)
            d = a.values - a.values[:, b : b + 1]
            se = d.std(axis=0, ddof=1) / math.sqrt(len(d))
            score = np.where(np.arange(d.shape[1]) == b, -np.inf,
                             d.mean(axis=0) / np.maximum(se, 1e-12))
            i = int(np.argmax(score))
            if score[i] > z:
                g1, g2 = gains(a, c, i)
                seen.append(g1)
                measured.append(g2)
        lines.append(f"|   gain > {z:g} SE | {len(seen)} | | | {mean_ci(seen)} | "
                     f"{mean_ci(measured)} | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", default=["cahoots_tricks", "kansas_city"],
                        choices=list(ROWS))
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--blueprint", default="zoo+heuristic",
                        choices=BLUEPRINTS)
    parser.add_argument("--worlds", type=int, default=8)
    parser.add_argument("--max-worlds", type=int, default=16)
    parser.add_argument("--max-rollouts", type=int, default=None,
                        help="the search's cap on a decision's rollouts (default: the game's); "
                        "a decision with many moves stops at fewer worlds below it")
    args = parser.parse_args(argv)
    if args.games < 1 or not 2 <= args.worlds <= args.max_worlds:
        parser.error("--games is at least 1 and 2 <= --worlds <= --max-worlds")
    cap = "the game's" if args.max_rollouts is None else str(args.max_rollouts)
    print(f"blueprint {args.blueprint}, {args.worlds} to {args.max_worlds} worlds, at most {cap} "
          f"rollouts a decision, {args.games} games a row")
    print("| row | searched positions | first search moves off | second search moves the "
          "same | gain as the first search saw it | gain as the second measured it | "
          "CPU s |")
    print("|---|---|---|---|---|---|---|")
    for row in args.rows:
        labels, cpu = twice(row, args.games, args.blueprint, args.worlds, args.max_worlds,
                            args.max_rollouts)
        for line in report(row, labels, cpu):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
