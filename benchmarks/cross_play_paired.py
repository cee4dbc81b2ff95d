"""Paired gains between two cross-plays of the cooperative game on the same deals.

    python benchmarks/cross_play_paired.py BEFORE.json AFTER.json [--markdown]

Both files are ``cahoots eval cahoots_coop ... --cross-play --json FILE --games-in-json``
outputs with the same ``--seed`` and ``--games`` (so deal i is the same deal in both, with the
same seats; e.g. one without table talk and one with ``-o talk=dutch``). For every lineup that
both played (the same policies in the same seats), it prints each run's team win rate and the
paired gain AFTER − BEFORE over the deals both played, with its 95% interval (normal
approximation of the per-deal differences).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read a cross-play JSON file ({e})")
    if data.get("kind") != "cross_play" or "games" not in data:
        sys.exit(f"{path}: not a cross-play file with its games (run cahoots eval ... "
                 "--cross-play --json FILE --games-in-json)")
    return data


def by_lineup(data: dict[str, Any]) -> dict[str, dict[int, float]]:
    """``{lineup label: {deal seed: 1.0 won / 0.0 lost}}``; a lineup is its policies as seated
    (the seat rotation is the deal's, the same in both runs)."""
    out: dict[str, dict[int, float]] = {}
    for game in data["games"]:
        counts: dict[str, int] = {}
        for policy in game["lineup"]:
            counts[policy] = counts.get(policy, 0) + 1
        label = " + ".join(f"{k} {p}" for p, k in sorted(counts.items(), key=lambda x: -x[1]))
        out.setdefault(label, {})[int(game["seed"])] = 1.0 if game["won"] else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    a, b = load(args.before), load(args.after)
    if a["seed"] != b["seed"] or a["num_players"] != b["num_players"]:
        sys.exit("the two cross-plays differ in seed or players: their deals are not paired")
    before, after = by_lineup(a), by_lineup(b)
    print(f"{args.before.name} -> {args.after.name}: options {a['options']} -> {b['options']}")
    print("| lineup | deals | before | after | paired gain [95% interval] |")
    print("|---|---|---|---|---|")
    for label in [k for k in before if k in after]:
        deals = sorted(set(before[label]) & set(after[label]))
        if not deals:
            continue
        x = [before[label][d] for d in deals]
        y = [after[label][d] for d in deals]
        diff = [q - p for p, q in zip(x, y)]
        n = len(diff)
        mean = sum(diff) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diff) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n)
        print(f"| {label} | {n} | {sum(x) / n:.3f} | {sum(y) / n:.3f} | {mean:+.3f} "
              f"[{mean - half:+.3f}, {mean + half:+.3f}] |")


if __name__ == "__main__":
    main()
