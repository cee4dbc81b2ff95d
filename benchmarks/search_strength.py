"""How strong the search bots are, and what a decision costs: resumable, one JSON line per game.

    python benchmarks/search_strength.py                      # every row, 500 games each
    python benchmarks/search_strength.py --rows coop-normal --games 100 --workers 2
    python benchmarks/search_strength.py --summary            # the table from what is written
    python benchmarks/search_strength.py --paths 4            # engine vs reference rollouts

Rows (every lineup of a row plays the same deals: game g is dealt by seed ``--seed + g``):

- ``coop-beginner``, ``coop-normal``: Cahoots cooperative, 3 players; a team of heuristic bots
  and a team of search bots. The figure is the team's win rate.
- ``kansas_city``, ``texas_euchre``, ``cahoots_tricks``: 4 players; the candidate (``heuristic``
  as the reference, then ``search``) in one seat against 3 heuristic bots, its seat rotating with
  the game (seat g mod 4). The figure is its win share (a k-way tie counts 1/k; chance is 0.25).
- ``texas_euchre-target10``, ``-target25``, ``-target50``: the same at ``target_score`` 10, 25
  and 50 (an option the zoo network, so the default search, plays across); played only where
  ``--rows`` names them.

Plain ``search`` is each game's default search (``policies.loading.default_search_spec``): since
2026-12-02 in Kansas City and Texas Euchre search over the zoo network with heuristic rollouts,
named ``search@rollout=heuristic:zoo:<game>`` in the files measured until 2026-12-07 and
``search@rollout=heuristic:zoo:kansas_city_stage2`` / ``zoo:texas_euchre_every_seat`` since
(the same networks, renamed when the entries were replaced); search over the heuristic
(``search:heuristic``, the default before) is the lineup named ``search``, as the files always
named it.

Each finished game is appended to ``--out`` at once (default
``benchmarks/results/search_strength.jsonl``); a rerun skips the games already there, so an
interrupted run continues where it stopped. ``--paired A B`` prints, per row and opponent, the
mean paired difference of lineup ``A``'s figure minus lineup ``B``'s over the games both played
(the same deals), with its 95% interval; with ``--against FILE`` lineup ``B``'s games come from
an earlier results file (the same lineup before a code change, say). ``--candidate`` measures another search spec (e.g.
``search@worlds=16:heuristic``); each spec is its own lineup in the file. ``--opponent`` puts
another policy in the three other seats of the competitive rows (default ``heuristic``; e.g.
``--opponent zoo:kansas_city --candidate search`` for search against three zoo networks: the
reference lineup is then the heuristic against the same three). Decision times are
those of the candidate's seats, measured in the same run: the mean over all its decisions, the
mean over the searched ones, and the slowest. Intervals are 95% (Wilson for win rates, normal
for win shares).

``--paths N`` measures the two rollout paths instead (no file written): the searched decisions
of N seeded heuristic games per row (seat 0's, the positions the candidate would search), each
decided by the candidate on the reference game (``engine=reference``) and on the batched engine
(``engine=batched``) with the same seed, so with the same worlds and the same work units
(worlds, rollouts; the counts are printed); after a warm-up decision on each path (kernels
compiled). The figures are milliseconds per searched decision and their ratio (engine /
reference; the target is <= 0.1). With ``--paths``, ``{game}`` in the candidate stands for
each row's game: ``--candidate 'search:zoo:{game}'`` times the network blueprints (on the
engine, the network decides every row of a ply in one forward pass).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import contextlib
import json
import math
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROWS: dict[str, tuple[str, dict[str, Any]]] = {
    "coop-beginner": ("cahoots_coop-v1", {"num_players": 3, "difficulty": "beginner"}),
    "coop-normal": ("cahoots_coop-v1", {"num_players": 3, "difficulty": "normal"}),
    "kansas_city": ("kansas_city-v1", {"num_players": 4}),
    "texas_euchre": ("texas_euchre-v1", {"num_players": 4}),
    "cahoots_tricks": ("cahoots_tricks-v1", {"num_players": 4}),
}
# rows at options other than their game's defaults, played only where --rows names them: the
# zoo network (so the default search) also plays them (options a saved policy may play across)
OPTION_ROWS: dict[str, tuple[str, dict[str, Any]]] = {
    "texas_euchre-target10": ("texas_euchre-v1", {"num_players": 4, "target_score": 10}),
    "texas_euchre-target25": ("texas_euchre-v1", {"num_players": 4, "target_score": 25}),
    "texas_euchre-target50": ("texas_euchre-v1", {"num_players": 4, "target_score": 50}),
}
ALL_ROWS = {**ROWS, **OPTION_ROWS}
TARGETS = {"coop-beginner": 0.72, "coop-normal": 0.55, "kansas_city": 0.40,
           "texas_euchre": 0.40, "cahoots_tricks": 0.40}
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "search_strength.jsonl"

_POLICIES: dict[tuple[str, str], Any] = {}


def _policy(spec: str, env_id: str, options: dict[str, Any]) -> Any:
    import cahoots_envs

    key = (spec, env_id + json.dumps(options, sort_keys=True))
    if key not in _POLICIES:
        _POLICIES[key] = cahoots_envs.load_policy(spec, env_id, options, seed=0)
    return _POLICIES[key]


def play_one(task: tuple[str, str, int, int, str]) -> dict[str, Any]:
    """Game ``game`` of ``row`` with ``candidate`` (one seat against ``opponent`` in the others,
    or the whole cooperative team)."""
    from cahoots_envs.core.driver import win_shares
    from cahoots_envs.evaluation import play_game
    from cahoots_envs.search import SearchStats

    row, candidate, game, seed, opponent = task
    env_id, options = ALL_ROWS[row]
    n = options["num_players"]
    coop = row.startswith("coop")
    seat = game % n
    specs = [candidate] * n if coop else [opponent] * n
    if not coop:
        specs[seat] = candidate
    # one object per seat: a search seat's stats are its own
    lineup = []
    for s, name in enumerate(specs):
        spec = spec_of(name)
        policy = _policy(spec, env_id, options) if not spec.startswith("search") else \
            __import__("cahoots_envs").load_policy(spec, env_id, options, seed=s)
        lineup.append(policy)
    measured = range(n) if coop else [seat]
    before = [getattr(lineup[s], "stats", SearchStats()).as_dict() for s in measured]
    start = time.perf_counter()
    result = play_game(env_id, options, lineup, seed=seed, game_index=game,
                       policy_seeds=[seed * 10 + s for s in range(n)], labels=specs)
    wall = time.perf_counter() - start
    stats = SearchStats()
    for s, old in zip(measured, before):
        new = getattr(lineup[s], "stats", SearchStats()).as_dict()
        stats.add({k: new[k] - old[k] if k != "max_seconds" else new[k] for k in new})
    if coop:
        score = 1.0 if result.won else 0.0
    else:
        score = win_shares(result.outcome)[seat]
    return {"row": row, "candidate": candidate, "opponent": "" if coop else opponent,
            "game": game, "seed": seed, "seat": seat,
            "score": score, "turns": result.turns, "wall_seconds": round(wall, 4),
            **{k: (round(v, 6) if isinstance(v, float) else v) for k, v in stats.as_dict().items()}}


def read_done(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    done = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                done.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut off by an interruption: that game is played again
    return done


def interval(scores: list[float], binary: bool) -> tuple[float, float, float]:
    from cahoots_envs.evaluation import wilson_interval

    n = len(scores)
    mean = sum(scores) / n
    if binary:
        lo, hi = wilson_interval(sum(scores), n)
        return mean, lo, hi
    var = sum((x - mean) ** 2 for x in scores) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def opponent_of(record: dict[str, Any]) -> str:
    """The other seats' policy (records written before ``--opponent`` existed: heuristic)."""
    if record["row"].startswith("coop"):
        return ""
    return record.get("opponent") or "heuristic"


def summary(records: list[dict[str, Any]]) -> str:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["row"], r["candidate"], opponent_of(r))].append(r)
    lines = [("| row | lineup | games | win rate (95% CI) | target "
              "| ms/decision (all / searched / max) | searched | rollouts/searched | s/game |"),
             "|---|---|---|---|---|---|---|---|---|"]
    order = sorted(groups.items(),
                   key=lambda kv: (list(ALL_ROWS).index(kv[0][0]), kv[0][2],
                                   kv[0][1] != "heuristic",
                                   kv[0][1]))
    for (row, cand, opp), rs in order:
        rs = sorted({r["game"]: r for r in rs}.values(), key=lambda r: r["game"])
        mean, lo, hi = interval([r["score"] for r in rs], binary=row.startswith("coop"))
        lineup = (f"team of {cand}" if row.startswith("coop") else f"{cand} + 3 {opp}")
        dec = sum(r["decisions"] for r in rs)
        timing = "—"
        searched = "—"
        per_search = "—"
        if dec:
            s_dec = sum(r["searched"] for r in rs)
            all_ms = 1000 * sum(r["seconds"] for r in rs) / dec
            s_ms = 1000 * sum(r["searched_seconds"] for r in rs) / s_dec if s_dec else 0.0
            max_ms = 1000 * max(r["max_seconds"] for r in rs)
            timing = f"{all_ms:.1f} / {s_ms:.1f} / {max_ms:.0f}"
            searched = f"{s_dec / dec:.0%}"
            per_search = f"{sum(r['rollouts'] for r in rs) / max(s_dec, 1):.0f}"
        target = f"≥ {TARGETS[row]:.2f}" if row in TARGETS and cand.startswith(
            "search") and opp in ("heuristic", "") else ""
        wall = sum(r["wall_seconds"] for r in rs) / len(rs)
        lines.append(f"| {row} | {lineup} | {len(rs)} | {mean:.3f} ({lo:.3f}–{hi:.3f}) | {target} "
                     f"| {timing} | {searched} | {per_search} | {wall:.2f} |")
    return "\n".join(lines)


def paired_difference(first: list[float], second: list[float]) -> tuple[float, float]:
    """The mean of ``first[i] - second[i]`` (the same deals) and its 95% half-width (normal)."""
    diffs = [a - b for a, b in zip(first, second)]
    mean = sum(diffs) / len(diffs)
    half = 1.96 * math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs))
    return mean, half


def paired(records: list[dict[str, Any]], first: str, second: str) -> str:
    """The ``--paired`` lines: per row and opponent, ``first``'s figure minus ``second``'s on
    the games both lineups played."""
    by: dict[tuple[str, str], dict[str, dict[int, float]]] = defaultdict(
        lambda: defaultdict(dict))
    for r in records:
        by[(r["row"], opponent_of(r))][r["candidate"]][r["game"]] = r["score"]
    lines = []
    for (row, opp), lineups in by.items():
        a, b = lineups.get(first, {}), lineups.get(second, {})
        games = sorted(a.keys() & b.keys())
        if len(games) < 2:
            continue
        mean, half = paired_difference([a[g] for g in games], [b[g] for g in games])
        against = f" against 3 {opp}" if opp else ""
        lines.append(f"{row}{against}: {first} - {second} = {mean:+.3f} "
                     f"({mean - half:+.3f} to {mean + half:+.3f}) over {len(games)} games")
    return "\n".join(lines)


def with_engine(candidate: str, path: str) -> str:
    """``candidate`` (a search spec) with the setting ``engine=path``."""
    head, colon, blueprint = candidate.partition(":")
    knobs = head.partition("@")[2]
    return f"search@{knobs + ',' if knobs else ''}engine={path}{colon}{blueprint}"


def searched_positions(row: str, games: int, seed: int, candidate: str) -> list[Any]:
    """Seat 0's decisions that ``candidate`` searches in ``games`` seeded heuristic games."""
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import Infoset

    env_id, options = ALL_ROWS[row]
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    probe: Any = cahoots_envs.load_policy(candidate, env_id, options, seed=0)  # a search bot
    most, every = probe.settings["max_candidates"], probe.settings["search_all"]
    positions = []
    for g in range(games):
        game = spec.rules(opts, np.random.default_rng(seed + g), None)
        bots = [spec.bot(opts, seed=seed + g + s) for s in range(opts["num_players"])]
        while not game.is_over:
            state = Infoset(game, game.current_player, spec, opts)
            if state.seat == 0 and 2 <= len(state.legal) <= most and (
                    every or state.worth_searching()):
                positions.append(game.clone())
            game.apply(int(bots[state.seat].act(state.observation, state.action_mask)))
    return positions


def for_row(candidate: str, row: str) -> str:
    """``candidate`` with ``{game}`` replaced by the row's game (``search:zoo:{game}``: each
    row's zoo network as the blueprint) and ``{row}`` by the row's name (a file per row, e.g.
    ``benchmarks/results/value_heads/{row}.safetensors``)."""
    return candidate.replace("{game}", ALL_ROWS[row][0].split("-")[0]).replace("{row}", row)


def lineup_name(candidate: str, row: str) -> str:
    """The lineup ``candidate`` plays in ``row``, as the results files name it: ``{game}``
    filled in; plain ``search`` is the game's default search at the row's options
    (``default_search_spec``: a zoo network with heuristic rollouts in Kansas City and Texas
    Euchre since 2026-12-02); search over the heuristic, ``search:heuristic``, is named
    ``search``, as every results file has named it."""
    candidate = for_row(candidate, row)
    if candidate == "search":
        from cahoots_envs.policies.loading import default_search_spec

        candidate = default_search_spec(*ALL_ROWS[row])
    return "search" if candidate == "search:heuristic" else candidate


def spec_of(name: str) -> str:
    """The policy spec a lineup name loads (``lineup_name`` undone)."""
    return "search:heuristic" if name == "search" else name


@contextlib.contextmanager
def world_timers(spent: dict[str, float]) -> Iterator[None]:
    """While active, the seconds of drawing worlds (``Infoset.sample``, the generator included) and of building
    what the engine loads of them (``rollout_history`` / ``rollout_parts`` of ``World`` and
    ``LazyWorld``: the history the sampler builds) add up in ``spent['draw']`` and
    ``spent['history']`` (``--split``; outermost calls only)."""
    from cahoots_envs.core.search import LazyWorld, World
    from cahoots_envs.search import Infoset

    depth = [0]

    def timed(key: str, f: Any) -> Any:
        def g(*a: Any, **k: Any) -> Any:
            depth[0] += 1
            start = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                depth[0] -= 1
                if not depth[0]:
                    spent[key] += time.perf_counter() - start
        return g

    patched = [(Infoset, "sample", "draw")] + [
        (cls, name, "history") for cls in (World, LazyWorld)
        for name in ("rollout_history", "rollout_parts") if name in vars(cls)]
    originals = [(cls, name, vars(cls)[name]) for cls, name, _ in patched]
    for cls, name, key in patched:
        setattr(cls, name, timed(key, vars(cls)[name]))
    try:
        yield
    finally:
        for cls, name, f in originals:
            setattr(cls, name, f)


def path_costs(rows: list[str], games: int, seed: int, candidate_spec: str,
               split: bool = False) -> str:
    """The ``--paths`` table: per row, ms per searched decision on each rollout path; with
    ``split``, the engine path's time parted into drawing the worlds, building the histories
    the engine loads, and the rest (loading, rollouts, values: what a compiled sampler would
    leave), the rest also as a share of the reference path's time."""
    import cahoots_envs
    from cahoots_envs.search import Infoset

    lines = [("| row | searched decisions | worlds / rollouts per decision (reference; engine) "
              "| reference ms | engine ms | engine / reference |"), "|---|---|---|---|---|---|"]
    if split:
        lines = [lines[0] + " engine: drawing worlds ms | their histories ms | the rest ms | "
                 "the rest / reference |", lines[1] + "---|---|---|---|"]
    for row in rows:
        candidate = spec_of(lineup_name(candidate_spec, row))
        env_id, options = ALL_ROWS[row]
        spec = cahoots_envs.game_spec(env_id)
        opts = spec.resolve_options(options)
        positions = searched_positions(row, games, seed, candidate)
        if not positions:
            lines.append(f"| {row} | 0 | — | — | — | — |")
            continue
        cost = {}
        spent = {"draw": 0.0, "history": 0.0}
        for path in ("reference", "batched"):
            bot: Any = cahoots_envs.load_policy(with_engine(candidate, path), env_id, options,
                                                seed=0)  # a search bot
            bot.act_infoset(Infoset(positions[0], positions[0].current_player, spec, opts))
            bot.stats = type(bot.stats)()  # the warm-up decision is not counted
            timers = world_timers(spent) if split and path == "batched" else \
                contextlib.nullcontext()
            with timers:
                for k, game in enumerate(positions):
                    bot.reseed(seed + k)  # the same worlds on both paths
                    bot.act_infoset(Infoset(game, game.current_player, spec, opts))
            st = bot.stats
            cost[path] = (1000 * st.searched_seconds / max(st.searched, 1),
                          st.worlds / max(st.searched, 1), st.rollouts / max(st.searched, 1),
                          st.searched)
        ref, eng = cost["reference"], cost["batched"]
        lines.append(f"| {row} | {ref[3]} | {ref[1]:.1f} / {ref[2]:.0f}; {eng[1]:.1f} / "
                     f"{eng[2]:.0f} | {ref[0]:.1f} | {eng[0]:.1f} | {eng[0] / ref[0]:.2f} |")
        if split:
            draw, history = (1000 * spent[k] / max(eng[3], 1) for k in ("draw", "history"))
            rest = eng[0] - draw - history
            lines[-1] += f" {draw:.1f} | {history:.1f} | {rest:.1f} | {rest / ref[0]:.2f} |"
        print(lines[-1], flush=True)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ALL_ROWS),
                        help="the rows played (default: every row of ROWS; the rows at other "
                        "options, OPTION_ROWS, only where named)")
    parser.add_argument("--games", type=int, default=500, help="games per lineup (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="game g is dealt by seed SEED+g")
    parser.add_argument("--candidate", default="search",
                        help="the search spec measured (default 'search': each game's default "
                        "search; the lineup over the heuristic is named 'search' in the files)")
    parser.add_argument("--opponent", default="heuristic",
                        help="the policy in the other seats of the competitive rows")
    parser.add_argument("--workers", type=int, default=1, help="processes (results do not depend on it)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--summary", action="store_true", help="print the table and stop")
    parser.add_argument("--paired", nargs=2, metavar=("A", "B"),
                        help="print lineup A's figure minus lineup B's, paired by game, and stop")
    parser.add_argument("--against", type=Path, metavar="FILE",
                        help="with --paired: lineup B's games from FILE (an earlier run on the "
                        "same deals, e.g. before a code change), A's from --out")
    parser.add_argument("--paths", type=int, default=0, metavar="N",
                        help="time the candidate's rollouts on the reference game and on the "
                        "batched engine over the searched decisions of N games per row, print "
                        "the table and stop")
    parser.add_argument("--split", action="store_true",
                        help="with --paths: part the engine path's time into drawing the "
                        "worlds, building their histories, and the rest")
    args = parser.parse_args(argv)
    if args.split and not args.paths:
        parser.error("--split goes with --paths N")
    if args.paths:
        if not args.candidate.startswith("search"):
            parser.error("--paths measures a search candidate")
        print(path_costs(args.rows, args.paths, args.seed, args.candidate, args.split))
        return 0
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers are at least 1")
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.touch()
    except OSError as e:
        parser.error(f"cannot write results to {args.out}: {e.strerror}")
    if args.summary:
        print(summary(read_done(args.out)))
        return 0
    if args.against is not None and not args.paired:
        parser.error("--against goes with --paired A B")
    if args.paired:
        records, (first, second) = read_done(args.out), args.paired
        if args.against is not None:
            if not args.against.is_file():
                parser.error(f"--against: no such results file: {args.against}")
            earlier = f"{second} ({args.against.name})"
            records = [r for r in records if r["candidate"] == first] + [
                {**r, "candidate": earlier} for r in read_done(args.against)
                if r["candidate"] == second]
            second = earlier
        print(paired(records, first, second) or "no games played by both lineups")
        return 0
    import cahoots_envs

    try:  # a bad spec fails now, not in a worker
        names = {row: lineup_name(args.candidate, row) for row in args.rows}
        for row in args.rows:
            cahoots_envs.load_policy(spec_of(names[row]), ALL_ROWS[row][0], ALL_ROWS[row][1])
            if not row.startswith("coop"):
                cahoots_envs.load_policy(spec_of(args.opponent), ALL_ROWS[row][0], ALL_ROWS[row][1])
    except (ValueError, cahoots_envs.NotAvailableError) as e:
        parser.error(str(e))
    done = {(r["row"], r["candidate"], opponent_of(r), r["game"]) for r in read_done(args.out)}
    tasks = [(row, cand, g, args.seed + g, args.opponent) for row in args.rows
             for cand in dict.fromkeys(("heuristic", names[row])) for g in range(args.games)
             if (row, cand, "" if row.startswith("coop") else args.opponent, g) not in done]
    print(f"{len(tasks)} games to play ({len(done)} already in {args.out}); "
          f"{platform.processor() or platform.machine()}, {args.workers} worker(s)", flush=True)
    start = time.perf_counter()
    with args.out.open("a") as out:
        if args.workers == 1:
            results = map(play_one, tasks)
            for k, record in enumerate(results, 1):
                out.write(json.dumps(record) + "\n")
                out.flush()
                if k % 50 == 0:
                    print(f"  {k}/{len(tasks)} games, {time.perf_counter() - start:.0f} s", flush=True)
        else:
            with ProcessPoolExecutor(args.workers) as pool:
                for k, record in enumerate(pool.map(play_one, tasks, chunksize=4), 1):
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                    if k % 50 == 0:
                        print(f"  {k}/{len(tasks)} games, {time.perf_counter() - start:.0f} s",
                              flush=True)
    print(f"played in {time.perf_counter() - start:.0f} s\n")
    print(summary(read_done(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
