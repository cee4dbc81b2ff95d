"""Regenerate the measured tables in README.md and docs/*.md from the results files.

Every generated table sits between a marker pair naming its generator:

    <!-- table: zoo-strength -->
    | game (players) | ... |
    <!-- /table -->

Each generator reads only the results file(s) that the measuring command wrote, and its caption
(printed under the table) names that command, the file, the date and the machine:

    zoo-strength, zoo-strength-coop   cahoots_envs/policies/zoo/<game>.json, the ``evaluation``
                                      that ``cahoots strength <game> --publish`` stored
    search-strength                   benchmarks/results/*.jsonl of benchmarks/search_strength.py
    vector-speed                      benchmarks/results/vector_entry.jsonl of
                                      benchmarks/bench_vector_entry.py
    web-serve                         benchmarks/results/web_serve.jsonl of
                                      benchmarks/bench_web.py serve
    headline                          zoo, search and vector figures, one line per game

Lab notes under docs/lab/ keep their tables as recorded and are not generated.

Usage: python docs/tables.py [--check] [FILE ...]   (default: README.md and docs/*.md)
Without --check it rewrites the blocks; with --check it writes nothing and exits 1 listing the
blocks that differ from what their generator makes now.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
ZOO = ROOT / "cahoots_envs" / "policies" / "zoo"
BLOCK = re.compile(r"(<!-- table: ([\w-]+) -->\n)(.*?)(<!-- /table -->)", re.DOTALL)

COMPETITIVE = (("kansas_city", "Kansas City"), ("texas_euchre", "Texas Euchre"),
               ("cahoots_tricks", "Cahoots tricks"))


@functools.lru_cache(maxsize=1)
def _search_strength() -> Any:
    """``benchmarks/search_strength.py``, whose ``interval`` makes its ``--summary`` figures."""
    return _benchmark("search_strength")


def mean_interval(scores: list[float], binary: bool) -> tuple[float, float, float]:
    """Mean and 95% interval, as ``benchmarks/search_strength.py --summary`` computes them."""
    result: tuple[float, float, float] = _search_strength().interval(scores, binary)
    return result


def _ci(row: dict[str, Any]) -> str:
    return f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


def _zoo(game: str) -> dict[str, Any]:
    strength: dict[str, Any] = json.loads((ZOO / f"{game}.json").read_text())["evaluation"][
        "strength"]
    return strength


def _zoo_caption(games: list[str]) -> str:
    dates = sorted({_zoo(g)["measured"] for g in games})
    machines = sorted({_zoo(g)["machine"] for g in games})
    games_per_row = sorted({_zoo(g)["games_per_row"] for g in games})
    return (f"*{'/'.join(map(str, games_per_row))} games per row, 95% intervals; measured "
            f"{', '.join(dates)} on {', '.join(machines)} by `cahoots strength <game> --publish`; "
            f"from `cahoots_envs/policies/zoo/<game>.json`.*")


def zoo_strength() -> str:
    """The competitive games' zoo policies: one seat against three random / heuristic bots."""
    lines = [("| game (players) | chance | heuristic vs 3 random | **zoo vs 3 random** | "
             "**zoo vs 3 heuristic** |"), "|---|---|---|---|---|"]
    for game, title in COMPETITIVE:
        s = _zoo(game)
        chance = s["policy_vs_random"]["chance"]
        lines.append(f"| {title} ({round(1 / chance)}) | {chance:.3f} | "
                     f"{_ci(s['heuristic_vs_random'])} | {_ci(s['policy_vs_random'])} | "
                     f"{_ci(s['policy_vs_heuristic'])} |")
    return "\n".join(lines) + "\n\n" + _zoo_caption([g for g, _ in COMPETITIVE])


def zoo_strength_coop() -> str:
    """The cooperative game's zoo policy: team win rate, the same policy in every seat."""
    lines = ["| difficulty | random team | heuristic team | **zoo team** |", "|---|---|---|---|"]
    for difficulty, rows in _zoo("cahoots_coop")["team"].items():
        cells = [f"{_ci(rows[k])} ({rows[k]['mean_score']:.1f} goals)"
                 for k in ("random_team", "heuristic_team", "policy_team")]
        lines.append(f"| {difficulty} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n\n" + _zoo_caption(["cahoots_coop"])


@dataclass(frozen=True)
class SearchRow:
    title: str
    row: str  # the row name in the results file
    file: str  # under benchmarks/results
    lineup: str  # the search lineup measured
    target: float
    measured: str  # the date of the run that wrote these records
    # the spec the row shows, where the weights it was measured over have another name today
    # (on 2026-12-07 zoo:kansas_city was renamed zoo:kansas_city_stage2 and zoo:texas_euchre
    # zoo:texas_euchre_every_seat, when the entries were replaced)
    shown: str = ""


SEARCH_ROWS = (
    SearchRow("Cahoots coop (3), beginner: team", "coop-beginner", "coop_search.jsonl", "search",
              0.80, "2026-12-01"),
    SearchRow("Cahoots coop (3), normal: team", "coop-normal", "coop_search.jsonl", "search",
              0.65, "2026-12-01"),
    SearchRow("Kansas City (4)", "kansas_city", "search_zoo_rollout.jsonl",
              "search@rollout=heuristic:zoo:kansas_city", 0.85, "2026-12-02",
              shown="search@rollout=heuristic:zoo:kansas_city_stage2"),
    SearchRow("Texas Euchre (4)", "texas_euchre", "search_zoo_rollout.jsonl",
              "search@rollout=heuristic:zoo:texas_euchre", 0.45, "2026-12-02",
              shown="search@rollout=heuristic:zoo:texas_euchre_every_seat"),
    SearchRow("Cahoots tricks (4)", "cahoots_tricks", "search_zoo_tricks.jsonl",
              "search@rollout=heuristic:zoo:cahoots_tricks", 0.45, "2026-12-02"),
)


def _records(file: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (RESULTS / file).read_text().splitlines()
            if line.strip()]


def _search_result(spec: SearchRow, lineup: str) -> tuple[tuple[float, float, float],
                                                          list[dict[str, Any]]]:
    coop = spec.row.startswith("coop")
    rs = [r for r in _records(spec.file) if r["row"] == spec.row and r["candidate"] == lineup
          and (coop or (r.get("opponent") or "heuristic") == "heuristic")]
    rs = sorted({r["game"]: r for r in rs}.values(), key=lambda r: r["game"])
    if not rs:
        raise SystemExit(f"benchmarks/results/{spec.file} has no games of {lineup} in row "
                         f"{spec.row}; run benchmarks/search_strength.py for it")
    return mean_interval([r["score"] for r in rs], binary=coop), rs


def _fmt(m: tuple[float, float, float]) -> str:
    return f"{m[0]:.3f} [{m[1]:.3f}, {m[2]:.3f}]"


def search_strength() -> str:
    """Each game's default search bot in one seat (or as the team) against heuristic bots."""
    lines = [("| game (players) | heuristic | **search** | target | met? | "
             "ms a decision: mean / searched / max | games | lineup | results file |"),
             "|---|---|---|---|---|---|---|---|---|"]
    for spec in SEARCH_ROWS:
        base, _ = _search_result(spec, "heuristic")
        found, rs = _search_result(spec, spec.lineup)
        dec = sum(r["decisions"] for r in rs)
        searched = sum(r["searched"] for r in rs)
        ms = (f"{1000 * sum(r['seconds'] for r in rs) / dec:.0f} / "
              f"{1000 * sum(r['searched_seconds'] for r in rs) / max(searched, 1):.0f} / "
              f"{1000 * max(r['max_seconds'] for r in rs):.0f}")
        met = "yes" if found[0] >= spec.target else f"**no** ({found[0] - spec.target:+.3f})"
        lines.append(f"| {spec.title} | {_fmt(base)} | **{_fmt(found)}** | ≥ {spec.target:.2f} "
                     f"| {met} | {ms} | {len(rs)} | `{spec.shown or spec.lineup}` | `{spec.file}` |")
    dates = ", ".join(sorted({s.measured for s in SEARCH_ROWS}))
    return ("\n".join(lines) + "\n\n*The same deals for every lineup of a row, the search seat "
            "rotated in the competitive games, 95% intervals; measured " + dates + " on the "
            "project's 2-core x86_64 machine (load average 3–7: times are upper figures) by "
            "`python benchmarks/search_strength.py`; from `benchmarks/results/<file>`.*")


def _vector_records() -> list[dict[str, Any]]:
    return _records("vector_entry.jsonl")


def vector_speed() -> str:
    """Learner decisions/s of Gymnasium's vector entry point (1,024 games on the batched engine)
    beside 8 sync seat envs, per game and opponent."""
    rs = _vector_records()
    lines = [("| game | opponents | vector_entry_point (1,024 games) decisions/s | sync (8) "
              "decisions/s | ratio | KiB a game |"), "|---|---|---:|---:|---:|---:|"]
    for r in rs:
        lines.append(f"| {r['game']} | {r['opponents']} | {r['vector_decisions_per_s']:,} | "
                     f"{r['sync_decisions_per_s']:,} | {r['ratio']:.1f} | {r['kib_per_game']} |")
    return "\n".join(lines) + "\n\n" + _vector_caption(rs)


def _vector_caption(rs: list[dict[str, Any]]) -> str:
    dates = sorted({r["date"][:10] for r in rs})
    loads = sorted({f"{r['load']:.1f}" for r in rs}, key=float)
    load = loads[0] if len(loads) == 1 else f"{loads[0]}–{loads[-1]}"
    return (f"*`gym.make_vec(id, {rs[0]['num_envs']}, vectorization_mode=\"vector_entry_point\")` "
            f"beside `gym.make_vec(id, {rs[0]['sync_envs']}, vectorization_mode=\"sync\")`, "
            f"median of {rs[0]['rounds']} rounds of {rs[0]['seconds']} s; measured {', '.join(dates)} on "
            f"{rs[0]['machine']} at load average {load} (compare "
            "the ratios) by `python benchmarks/bench_vector_entry.py`; from "
            "`benchmarks/results/vector_entry.jsonl`.*")


def headline() -> str:
    """One line per game: the batched engine's speed, the zoo policy's and search's strength."""
    speed = {r["game"]: r for r in _vector_records() if r["opponents"] == "random"}
    by_game = {s.row: s for s in SEARCH_ROWS}
    lines = [("| game | learner decisions/s, batched (× sync seat envs) | zoo policy vs 3 heuristic | "
             "search vs 3 heuristic |"), "|---|---:|---|---|"]
    for game, title in (*COMPETITIVE, ("cahoots_coop", "Cahoots coop")):
        v = speed.get(game)
        fast = f"{v['vector_decisions_per_s']:,} ({v['ratio']:.0f}×)" if v else "—"
        if game == "cahoots_coop":
            team = _zoo(game)["team"]["normal"]["policy_team"]
            zoo = f"{_ci(team)} (team, normal)"
            found, _ = _search_result(by_game["coop-normal"], by_game["coop-normal"].lineup)
            search = f"{_fmt(found)} (team, normal)"
        else:
            zoo = _ci(_zoo(game)["policy_vs_heuristic"])
            found, _ = _search_result(by_game[game], by_game[game].lineup)
            search = _fmt(found)
        lines.append(f"| {title} | {fast} | {zoo} | {search} |")
    speed_note = _vector_caption(list(speed.values())).strip("*")
    zoo_dates = ", ".join(sorted({_zoo(g)["measured"] for g in ZOO_GAMES}))
    return ("\n".join(lines) + "\n\n*Strength: win shares in one seat against three heuristic "
            "bots (chance 0.25), or the team's win rate, with 95% intervals: the zoo policies by "
            f"`cahoots strength` ({zoo_dates}), search by `python benchmarks/search_strength.py` "
            "(500 games a row); every row in [docs/strength.md](docs/strength.md). Speed: the "
            "learner's decisions/s against random opponents, " + speed_note + "*")


def _benchmark(name: str) -> Any:
    """``benchmarks/<name>.py`` as a module (its table functions make the figures)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def web_serve() -> str:
    """``cahoots serve`` under load beside an earlier server: the last run of
    ``python benchmarks/bench_web.py serve``, as its ``--table`` prints it."""
    table: str = _benchmark("bench_web").table(RESULTS / "web_serve.jsonl")
    return (table.rstrip("\n") + "\n\n*By `python benchmarks/bench_web.py serve` (then `--table`); "
            "from `benchmarks/results/web_serve.jsonl`.*")


ZOO_GAMES = ("kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop")

GENERATORS: dict[str, Callable[[], str]] = {
    "zoo-strength": zoo_strength,
    "zoo-strength-coop": zoo_strength_coop,
    "search-strength": search_strength,
    "vector-speed": vector_speed,
    "web-serve": web_serve,
    "headline": headline,
}


def relink(text: str, page: Path) -> str:
    """``text``'s links (written from the repository root) made relative to ``page``."""
    if page.parent == ROOT:
        return text
    return re.sub(r"\]\(docs/", "](", text)


def fill(text: str, page: Path) -> tuple[str, list[str]]:
    """``text`` with every table block regenerated, and the names of those that changed."""
    changed: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in GENERATORS:
            raise SystemExit(f"{shown(page)}: unknown table '{name}' (known: "
                             f"{', '.join(GENERATORS)})")
        body = relink(GENERATORS[name](), page) + "\n"
        if body != match.group(3):
            changed.append(name)
        return f"{match.group(1)}{body}{match.group(4)}"

    return BLOCK.sub(one, text), changed


def shown(path: Path) -> str:
    """``path`` as the messages name it: from the repository root when inside it."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Regenerate the measured tables from the results "
                                             "files (README.md and docs/*.md).")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 listing the blocks that differ")
    ap.add_argument("files", nargs="*", help="pages to regenerate (default: README.md, docs/*.md)")
    args = ap.parse_args(argv)
    paths = [Path(f).resolve() for f in args.files] or pages()
    stale = []
    for path in paths:
        if not path.is_file():
            ap.error(f"no such page: {path} (give a markdown file, e.g. README.md)")
        text = path.read_text()
        new, changed = fill(text, path)
        stale += [f"{shown(path)}: {name}" for name in changed]
        if changed and not args.check:
            path.write_text(new)
    for line in stale:
        print(("stale: " if args.check else "regenerated: ") + line)
    if args.check and stale:
        print("regenerate with: python docs/tables.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
