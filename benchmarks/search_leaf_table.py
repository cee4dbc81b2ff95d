"""Value leaves and network rollouts against today's default search, paired by deal: the table.

    python benchmarks/search_leaf_table.py

Per row (the rows of ``search_strength.py``, Texas Euchre's at ``target_score`` 50, 25 and
10 included) and lineup (``leaf=1`` and ``leaf=3``: ``search@rollout=heuristic,leaf=K:<the row's head>``, the
heads of ``fit_value_head.py``; network rollouts: ``search:zoo:<game>``), the lineup's games in
``benchmarks/results/search_leaf.jsonl`` against the games of today's default search on the same
deals (game g dealt by seed g; one seat against three heuristic bots, or the cooperative team):
the default's committed games (``search_zoo_rollout.jsonl``; Cahoots tricks'
``search_zoo_tricks.jsonl``, of today's zoo network; the cooperative network rollouts' games are
in ``search_zoo_rollout.jsonl`` too), or, at the other target scores, its games in
``search_leaf.jsonl``. The columns: the default's win rate over all its games; the deals both
played; both win rates on those deals; the paired difference (lineup minus default) with its
95% interval (``search_strength.py --paired``); and the share of searched decisions where each
left the blueprint network's move. Reads the files only.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]  # the sibling benchmarks, the package

from search_strength import opponent_of, paired_difference, read_done

RESULTS = _HERE / "results"
LEAVES = "search_leaf.jsonl"
# row: (its name in the table, the row whose head it uses, the game, the default's file)
ROWS: dict[str, tuple[str, str, str, str]] = {
    "kansas_city": ("Kansas City", "kansas_city", "kansas_city", "search_zoo_rollout.jsonl"),
    "texas_euchre": ("Texas Euchre", "texas_euchre", "texas_euchre", "search_zoo_rollout.jsonl"),
    "texas_euchre-target50": ("Texas Euchre, target score 50", "texas_euchre", "texas_euchre",
                              LEAVES),
    "texas_euchre-target25": ("Texas Euchre, target score 25", "texas_euchre", "texas_euchre",
                              LEAVES),
    "texas_euchre-target10": ("Texas Euchre, target score 10", "texas_euchre", "texas_euchre",
                              LEAVES),
    "cahoots_tricks": ("Cahoots tricks", "cahoots_tricks", "cahoots_tricks",
                       "search_zoo_tricks.jsonl"),
    "coop-normal": ("cooperative, normal", "coop-normal", "cahoots_coop",
                    "search_zoo_rollout.jsonl"),
    "coop-beginner": ("cooperative, beginner", "coop-beginner", "cahoots_coop",
                      "search_zoo_rollout.jsonl"),
}


def default_spec(row: str) -> str:
    """The lineup name of the default search in ``row``'s files (measured up to 2026-12-07, when
    plain ``search`` was search over ``zoo:kansas_city`` and ``zoo:texas_euchre``, the networks
    named ``zoo:kansas_city_stage2`` and ``zoo:texas_euchre_every_seat`` since)."""
    game = ROWS[row][2]
    return "search" if game == "cahoots_coop" else f"search@rollout=heuristic:zoo:{game}"


def lineups(row: str) -> list[tuple[str, str, str]]:
    """``(label, lineup name, file)`` of the lineups measured against the default in ``row``."""
    _, head, game, _ = ROWS[row]
    heads = f"benchmarks/results/value_heads/{head}.safetensors"
    found = [(f"`leaf={k}`", f"search@rollout=heuristic,leaf={k}:{heads}", LEAVES)
             for k in (1, 3)]
    network = "search_zoo_rollout.jsonl" if game == "cahoots_coop" else LEAVES
    return [*found, ("network rollouts", f"search:zoo:{game}", network)]


def games(file: str, row: str, lineup: str) -> dict[int, dict[str, Any]]:
    """``lineup``'s games of ``row`` in ``file`` (against heuristic bots), by game number."""
    path = RESULTS / file
    return {r["game"]: r for r in read_done(path) if r["row"] == row and r["candidate"] == lineup
            and opponent_of(r) in ("", "heuristic")}


def left(rs: list[dict[str, Any]]) -> str:
    """The share of searched decisions that left the blueprint's move."""
    searched = sum(r["searched"] for r in rs)
    return f"{sum(r['deviations'] for r in rs) / searched:.0%}" if searched else "—"


def table() -> str:
    lines = [("| row | today's default (its win rate, deals) | lineup | deals | lineup / default "
              "on those deals | **paired difference (95%)** | left the blueprint's move "
              "(lineup / default) |"), "|---|---|---|---|---|---|---|"]
    for row, (name, _, _, default_file) in ROWS.items():
        base = games(default_file, row, default_spec(row))
        if not base:
            continue
        shown = (f"`{default_spec(row)}` ({sum(r['score'] for r in base.values()) / len(base):.3f},"
                 f" {len(base)})")
        for label, lineup, file in lineups(row):
            mine = games(file, row, lineup)
            both = sorted(mine.keys() & base.keys())
            if len(both) < 2 and default_file == LEAVES:
                continue  # a row at other options: only the lineups measured there
            if len(both) < 2:
                lines.append(f"| {name} | {shown} | {label} | {len(both)} | not measured | — | — |")
                continue
            a, b = [mine[g]["score"] for g in both], [base[g]["score"] for g in both]
            mean, half = paired_difference(a, b)
            lines.append(
                f"| {name} | {shown} | {label} | {len(both)} | {sum(a) / len(a):.3f} / "
                f"{sum(b) / len(b):.3f} | **{mean:+.3f}** ({mean - half:+.3f} to {mean + half:+.3f})"
                f" | {left([mine[g] for g in both])} / {left([base[g] for g in both])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
