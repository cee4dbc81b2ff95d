"""How much of a search label's gain is real: each position labelled, then measured in independent worlds.

    python benchmarks/label_noise.py --rows cahoots_tricks kansas_city texas_euchre --games 6
    python benchmarks/label_noise.py --rows coop-normal coop-beginner --games 6 --worlds 16 --max-worlds 64

Per row (the rows of ``search_strength.py``), the positions are every searchable decision of
``--games`` seeded heuristic games (as ``bench_labelling.py`` takes them), labelled by
``label_positions`` with the expert-iteration recipes' settings (``--blueprint zoo+heuristic``,
the default: the game's zoo network's move is the search's default, the heuristic plays the
rollouts; ``--worlds``/``--max-worlds`` 8 to 16, as the Kansas City and Cahoots tricks recipes
search; the cooperative recipe searches 16 to 64; ``--max-rollouts`` raises the search's cap
on a decision's rollouts, below which a decision with many moves stops at fewer worlds): the
labels as they always were (**selection** mode). Then ``measure_labels`` measures every
searched label's candidates in as many new worlds, drawn independently of the ones that chose
the move (**unbiased** mode: ``label_positions(..., unbiased=True)`` is the two together).

Where the search moved off the blueprint's move, its own worlds say how much that move gains
(``Label.gain()``: chosen in those worlds, so overstated: the winner's curse); the independent
worlds measure the same gain without that (``Label.gain(unbiased=True)``). The table prints,
per row: the positions, the share where the search moved off, how often the independent worlds
rank the chosen move first too, both gains (with 95% intervals), the CPU seconds of each mode
(selection: the labelling; unbiased: the labelling and the measuring), and the labels' gain per
CPU-second: as the selection labels claim it, and as it really is (the independent estimate)
at each mode's cost. Then the same gains for the search's best other move wherever its gain
over the blueprint's exceeds z standard errors of its own worlds, for a few z. ``--out``
appends one JSON record per row.
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


def best_other(label: Any, z: float) -> int | None:
    """The index of ``label``'s best other move by its gain over the blueprint's in standard
    errors of its own worlds, where that passes ``z``; else None."""
    import numpy as np

    b = label.legal.index(label.blueprint_move)
    d = label.values - label.values[:, b : b + 1]
    se = d.std(axis=0, ddof=1) / math.sqrt(len(d))
    score = np.where(np.arange(d.shape[1]) == b, -np.inf, d.mean(axis=0) / np.maximum(se, 1e-12))
    i = int(np.argmax(score))
    return i if score[i] > z else None


def report(row: str, labels: list[Any], cpu: float) -> list[str]:
    """The table's lines for ``row`` from its two labellings (``--twice``)."""
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
            i = best_other(a, z)
            if i is not None:
                g1, g2 = gains(a, c, i)
                seen.append(g1)
                measured.append(g2)
        lines.append(f"|   gain > {z:g} SE | {len(seen)} | | | {mean_ci(seen)} | "
                     f"{mean_ci(measured)} | |")
    return lines


def labelled(row: str, games: int, blueprint: str, worlds: int, max_worlds: int,
             max_rollouts: int | None = None) -> tuple[list[Any], float, float]:
    """``row``'s positions labelled (selection mode), then measured in independent worlds; the
    labels and the CPU seconds of each step."""
    from cahoots_envs.search import label_positions, measure_labels

    env_id, opts, net, knobs = labelling(row, blueprint)
    found = positions(row, games, 0)
    knobs.update(worlds=worlds, max_worlds=max_worlds)
    if max_rollouts is not None:
        knobs["max_rollouts"] = max_rollouts
    label_positions(env_id, opts, found[:4], blueprint=net, seed=1, blueprint_name=blueprint,
                    unbiased=True, **knobs)  # compiles the kernels outside the timings
    start = time.process_time()
    labels = label_positions(env_id, opts, found, blueprint=net, seed=0,
                             blueprint_name=blueprint, **knobs)
    middle = time.process_time()
    measure_labels(env_id, opts, found, labels, blueprint=net, seed=0, blueprint_name=blueprint,
                   **knobs)
    return labels, middle - start, time.process_time() - middle


def interval(xs: list[float]) -> list[float]:
    """``[mean, low, high]``: the normal 95% interval (``core.stats.mean_interval``)."""
    from cahoots_envs.core.stats import Z95_ROUNDED, mean_interval

    if len(xs) < 2:
        return [xs[0], xs[0], xs[0]] if xs else []
    return [float(x) for x in mean_interval(xs, Z95_ROUNDED)]


def shown(found: list[float]) -> str:
    if not found:
        return "—"
    m, low, high = found
    return f"{m:+.3f} ({low:+.3f} to {high:+.3f})" if low != high else f"{m:+.3f}"


def summary(labels: list[Any], label_cpu: float, check_cpu: float) -> dict[str, Any]:
    """The row's figures: the table's and the JSON record's."""
    import numpy as np

    searched = [x for x in labels if x.searched]
    moved = [x for x in searched if x.move != x.blueprint_move]
    agree = sum(int(np.argmax(x.check_means)) == x.legal.index(x.move) for x in moved)
    claimed = sum(x.gain() for x in moved)
    real = sum(x.gain(unbiased=True) for x in moved)
    out: dict[str, Any] = {
        "searched": len(searched), "moved": len(moved), "agree": agree,
        "gain_selection": interval([x.gain() for x in moved]),
        "gain_unbiased": interval([x.gain(unbiased=True) for x in moved]),
        "cpu_selection": label_cpu, "cpu_unbiased": label_cpu + check_cpu,
        "claimed_gain_per_cpu_s": claimed / max(label_cpu, 1e-9),
        "real_gain_per_cpu_s_selection": real / max(label_cpu, 1e-9),
        "real_gain_per_cpu_s_unbiased": real / max(label_cpu + check_cpu, 1e-9),
        "by_z": {},
    }
    for z in Z_LEVELS:
        seen, measured = [], []
        for x in searched:
            i = best_other(x, z)
            if i is not None:
                b = x.legal.index(x.blueprint_move)
                seen.append(float(x.means[i] - x.means[b]))
                measured.append(float(x.check_means[i] - x.check_means[b]))
        out["by_z"][f"{z:g}"] = {"positions": len(seen), "gain_selection": interval(seen),
                                 "gain_unbiased": interval(measured)}
    return out


def report_row(row: str, found: dict[str, Any]) -> list[str]:
    """The table's lines for ``row``."""
    searched, moved = found["searched"], found["moved"]
    lines = [(f"| {row} | {searched} | {moved / max(searched, 1):.1%} | "
              f"{found['agree'] / max(moved, 1):.1%} | {shown(found['gain_selection'])} | "
              f"**{shown(found['gain_unbiased'])}** | {found['cpu_selection']:.1f} / "
              f"{found['cpu_unbiased']:.1f} | {found['claimed_gain_per_cpu_s']:.2f} | "
              f"{found['real_gain_per_cpu_s_selection']:.2f} / "
              f"{found['real_gain_per_cpu_s_unbiased']:.2f} |")]
    for z, at in found["by_z"].items():
        lines.append(f"|   gain > {z} SE | {at['positions']} | | | {shown(at['gain_selection'])} "
                     f"| {shown(at['gain_unbiased'])} | | | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    import datetime as dt
    import json

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
    parser.add_argument("--out", type=Path, default=None,
                        help="append one JSON record per row to this file")
    parser.add_argument("--twice", action="store_true",
                        help="instead: label twice with independent worlds (seeds 0 and 1, each "
                        "a whole adaptive search) and measure the first search's moves in the "
                        "second's worlds")
    args = parser.parse_args(argv)
    if args.games < 1 or not 2 <= args.worlds <= args.max_worlds:
        parser.error("--games is at least 1 and 2 <= --worlds <= --max-worlds")
    cap = "the game's" if args.max_rollouts is None else str(args.max_rollouts)
    print(f"blueprint {args.blueprint}, {args.worlds} to {args.max_worlds} worlds, at most {cap} "
          f"rollouts a decision, {args.games} games a row")
    if args.twice:
        print("| row | searched positions | first search moves off | second search moves the "
              "same | gain as the first search saw it | gain as the second measured it | "
              "CPU s |")
        print("|---|---|---|---|---|---|---|")
        for row in args.rows:
            two, cpu = twice(row, args.games, args.blueprint, args.worlds, args.max_worlds,
                             args.max_rollouts)
            for line in report(row, two, cpu):
                print(line, flush=True)
        return 0
    print("| row | searched positions | search moves off | independent worlds rank that move "
          "first | gain as the choosing worlds saw it (selection) | gain in independent worlds "
          "(unbiased) | CPU s: selection / unbiased | claimed gain a CPU-s | real gain a "
          "CPU-s: selection / unbiased |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in args.rows:
        labels, label_cpu, check_cpu = labelled(row, args.games, args.blueprint, args.worlds,
                                                args.max_worlds, args.max_rollouts)
        found = summary(labels, label_cpu, check_cpu)
        for line in report_row(row, found):
            print(line, flush=True)
        if args.out is not None:
            record = {"row": row, "blueprint": args.blueprint, "games": args.games,
                      "worlds": args.worlds, "max_worlds": args.max_worlds,
                      "max_rollouts": args.max_rollouts,
                      "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                      **found}
            with args.out.open("a") as f:
                f.write(json.dumps(record, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
