"""Learning curves of several training runs side by side, by CPU minute.

    python benchmarks/curves_by_cpu.py RUN_DIR [RUN_DIR ...] --out docs/curves/NAME.png
    python benchmarks/curves_by_cpu.py RUN_A RUN_B --names "one setting" "another" --out ...

Each run folder's ``eval.csv`` (every algorithm writes it: ``cahoots train``) gives the win share
in one seat against each evaluation opponent, with its 95% interval, and ``cpu_seconds``, the CPU
time the training process had spent when it was measured (its evaluations left out), so runs made
on differently loaded machines compare on the same axis. One panel per opponent; a run is named by
its algorithm and seed (from its ``config.yaml``), or by ``--names``, one per run. The final check's row (the last, with the most
games) closes each curve.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any


def read_run(run_dir: Path) -> tuple[str, dict[str, list[dict[str, float]]]]:
    import yaml

    eval_csv, config_yaml = run_dir / "eval.csv", run_dir / "config.yaml"
    if not eval_csv.is_file() or not config_yaml.is_file():
        raise SystemExit(f"curves_by_cpu.py: error: {run_dir} is not a run folder (it needs "
                         "eval.csv and config.yaml, as cahoots train writes them)")
    with eval_csv.open() as f:
        rows = list(csv.DictReader(f))
    if not rows or "cpu_seconds" not in rows[0]:
        raise SystemExit(f"curves_by_cpu.py: error: {eval_csv} has no cpu_seconds column (a run "
                         "made before it was recorded); train it again to draw it by CPU minute")
    config: dict[str, Any] = yaml.safe_load(config_yaml.read_text())
    name = f"{config.get('algorithm', 'maskable_ppo')}, seed {config.get('seed', 0)}"
    curves: dict[str, list[dict[str, float]]] = {}
    for row in rows:
        curves.setdefault(row["opponent"], []).append(
            {key: float(row[key]) for key in ("cpu_seconds", "win_rate", "ci_low", "ci_high",
                                              "timesteps", "games")})
    return name, curves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders made by cahoots train")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--title", default="", help="the chart's title (default: the env)")
    parser.add_argument("--names", nargs="+", default=None,
                        help="the runs' names in the legend, one per run (default: algorithm "
                             "and seed)")
    args = parser.parse_args(argv)
    if args.out.suffix.lower() != ".png" or not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: give a .png path in an existing folder")
    if args.names is not None and len(args.names) != len(args.runs):
        parser.error(f"--names: give one name per run ({len(args.runs)}), got {len(args.names)}")
    runs = [read_run(run) for run in args.runs]
    if args.names is not None:
        runs = [(name, curves) for name, (_, curves) in zip(args.names, runs)]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = list(dict.fromkeys(o for _, curves in runs for o in curves))
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), squeeze=False)
    for ax, opponent in zip(axes[0], opponents):
        for name, curves in runs:
            points = curves.get(opponent, [])
            x = [p["cpu_seconds"] / 60 for p in points]
            ax.plot(x, [p["win_rate"] for p in points], marker="o", label=name)
            ax.fill_between(x, [p["ci_low"] for p in points], [p["ci_high"] for p in points],
                            alpha=0.2)
            for p in points:
                print(f"{name:28s} vs {opponent:9s} {p['cpu_seconds'] / 60:6.2f} CPU min "
                      f"{int(p['timesteps']):>9,} steps {p['win_rate']:.3f} "
                      f"[{p['ci_low']:.3f}, {p['ci_high']:.3f}] over {int(p['games'])} games")
        ax.set_xlabel("CPU minutes of training (evaluations left out)")
        team = opponent == "team"  # a cooperative run: the network plays every seat
        ax.set_ylabel("team win rate (95% CI)" if team else "win share in one seat (95% CI)")
        ax.set_title("the team" if team else f"vs {opponent}")
        ax.legend()
    title = args.title or "learning curves by CPU minute"
    import textwrap

    fig.suptitle(textwrap.fill(title, 100), fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90, metadata={"Title": title})
    plt.close(fig)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
