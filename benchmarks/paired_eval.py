"""Two policies' win shares in one seat against the same field, on the same deals, and their
paired difference.

    cahoots eval texas_euchre -n 4 zoo:texas_euchre --field heuristic --games 2000 --seed 5959 --games-in-json --json a.json
    cahoots eval texas_euchre -n 4 runs/<run>/policy.safetensors --field heuristic --games 2000 --seed 5959 --games-in-json --json b.json
    python benchmarks/paired_eval.py a.json b.json [--markdown]

Both files (or their ``.gz``) are ``cahoots eval ... --field SPEC --json FILE --games-in-json`` outputs of one
policy each, with the same game, options, field, ``--seed`` and ``--games``: game ``g`` is then
the same deal with the policy in the same seat (``seat g mod N``) in both, which the script
checks (each game's seed and seat). It prints each policy's win share (a k-way tie for the win
counts 1/k, as ``cahoots eval`` and ``cahoots strength`` count it) and the paired difference
B − A over the games, with 95% intervals (normal approximation of the per-game values and of
the per-game differences).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from pathlib import Path
from typing import Any

from cahoots_envs.core.driver import win_shares


def load(path: Path) -> dict[str, Any]:
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        data = json.loads(raw)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read an eval JSON file ({e})")
    policies = data.get("policies", [])
    if not data.get("field") or "games" not in data or len(policies) != 2 or \
            policies[1] != data["field"]:
        sys.exit(f"{path}: not an eval of one policy against a field with its games (run cahoots "
                 "eval ENV POLICY --field SPEC --json FILE --games-in-json)")
    return data


def shares(data: dict[str, Any]) -> tuple[str, list[tuple[int, int, float]]]:
    """The policy's label and, per game, (deal seed, its seat, its win share)."""
    name = data["policies"][0]
    out = []
    for game in data["games"]:
        seat = game["lineup"].index(name)
        out.append((game["seed"], seat, float(win_shares(game["outcome"])[seat])))
    return name, out


def interval(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="the baseline's eval JSON")
    parser.add_argument("b", type=Path, help="the candidate's eval JSON")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table row")
    args = parser.parse_args(argv)
    a, b = load(args.a), load(args.b)
    for key in ("env_id", "options", "seed", "num_games", "field"):
        if key == "field":  # the field's label has a #k where it is also the policy
            if a[key].split("#")[0] != b[key].split("#")[0]:
                sys.exit(f"the two files differ in field ({a[key]!r} against {b[key]!r})")
        elif a.get(key) != b.get(key):
            sys.exit(f"the two files differ in {key} ({a.get(key)!r} against {b.get(key)!r}): "
                     "run both with the same game, options, field, --seed and --games")
    name_a, ga = shares(a)
    name_b, gb = shares(b)
    for (seed_a, seat_a, _), (seed_b, seat_b, _) in zip(ga, gb):
        if seed_a != seed_b or seat_a != seat_b:
            sys.exit("the files' games are not the same deals in the same seats; run both with "
                     "the same --seed and --games")
    sa, sb = [s for _, _, s in ga], [s for _, _, s in gb]
    ia, ib = interval(sa), interval(sb)
    diff = interval([y - x for x, y in zip(sa, sb)])
    games = len(sa)
    if args.markdown:
        print(f"| {a['field']} | {games} | {ia[0]:.3f} [{ia[1]:.3f}, {ia[2]:.3f}] | "
              f"{ib[0]:.3f} [{ib[1]:.3f}, {ib[2]:.3f}] | **{diff[0]:+.3f}** "
              f"({diff[1]:+.3f} to {diff[2]:+.3f}) |")
    else:
        print(f"{a['env_id']}, one seat against {a['field']}, {games} games (seed {a['seed']}):")
        print(f"  A {name_a}: {ia[0]:.3f} [{ia[1]:.3f}, {ia[2]:.3f}]")
        print(f"  B {name_b}: {ib[0]:.3f} [{ib[1]:.3f}, {ib[2]:.3f}]")
        print(f"  B - A, paired by game: {diff[0]:+.3f} ({diff[1]:+.3f} to {diff[2]:+.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
