"""``cahoots eval``: a tournament between policies (``cahoots_envs.evaluation``): the table, JSON,
a chart and game logs on request."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import (
    POLICY_SPECS,
    PROG,
    Command,
    Formatter,
    add_env_options,
    doc,
    parse_options,
    raw,
)
from cahoots_envs.core.arguments import number

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers
    from cahoots_envs.evaluation import CrossPlayResult, TournamentResult

MAX_GAMES = 1_000_000  # per eval run: every game's task is set up before the first is played


def max_workers() -> int:
    """The most worker processes ``eval`` starts: 4 per CPU core (more only wait their turn)."""
    return 4 * (os.cpu_count() or 1)


def cmd_eval(args: argparse.Namespace) -> int:
    from cahoots_envs.cli.paths import eval_output_problem
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.evaluation import cross_play, default_workers, run_tournament

    problem = eval_output_problem(args.json, args.png, args.logs)  # before any game is played
    if problem:
        print(f"{PROG} eval: error: {problem}", file=sys.stderr)
        return 2
    if args.cross_play and (args.field is not None or len(args.policies) < 2):
        why = ("--cross-play seats mixed teams, not a field: drop --field"
               if args.field is not None else
               "--cross-play needs at least 2 policies to mix (e.g. heuristic random)")
        print(f"{PROG} eval: error: {why}", file=sys.stderr)
        return 2
    options = parse_options(args.option, args.players)
    result: TournamentResult | CrossPlayResult
    workers = args.workers or default_workers()
    progress = not args.no_progress and not args.quiet
    try:
        if args.cross_play:
            result = cross_play(args.env, args.policies, args.games, seed=args.seed,
                                options=options, workers=workers, progress=progress,
                                log_dir=args.logs)
        else:
            result = run_tournament(
                args.env, args.policies, args.games, seed=args.seed, options=options,
                workers=workers, progress=progress, log_dir=args.logs, field=args.field,
            )
    except (ValueError, IncompatiblePolicyError) as e:
        print(f"{PROG} eval: error: {e}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(result.table())
    if args.json:
        if args.json == "-":
            print(result.to_json(include_games=args.games_in_json))
        else:
            result.to_json(args.json, include_games=args.games_in_json)
            print(f"results written to {args.json}")
    if args.png:
        try:
            result.plot(args.png)
        except ImportError:
            print(f"{PROG} eval: the chart needs matplotlib (pip install matplotlib)", file=sys.stderr)
            return 1
        print(f"chart written to {args.png}")
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="tournament between policies: win rates, ratings",
        description=doc("""
            Play a tournament between policies with seats rotated so every policy plays every
            seat equally, in parallel worker processes. Prints win rates with 95% intervals,
            mean scores, a head-to-head table and OpenSkill (Plackett-Luce) ratings; writes
            JSON and a PNG chart on request. The same --seed gives the same results whatever
            --workers is. A win shared by k players counts 1/k. With --field SPEC each
            policy sits in one seat (rotated) against SPEC in every other seat, e.g. a
            trained policy against 3 random bots. In cahoots_coop every seat plays the same
            policy (a team against the game); with --cross-play mixed teams play instead:
            each policy's own team and, for each pair A B, k seats of A and the rest of B
            (A A B and A B B with 3 players), seats rotated, every lineup on the same --games
            deals, in a cross-play table of team win rates with 95% intervals. A saved policy
            that may not play the game's options is left out, with a note.
        """),
        epilog=raw("""
            examples:
              cahoots eval kansas_city heuristic random --games 400 --workers 2
              cahoots eval kansas_city zoo:kansas_city --field random --games 400
              cahoots eval texas_euchre heuristic random -n 5 --json te.json --png te.png
              cahoots eval cahoots_coop heuristic random -o difficulty=beginner
              cahoots eval cahoots_coop heuristic random zoo:cahoots_coop --cross-play
        """),
    )
    p.add_argument("env", help="env id, e.g. kansas_city")
    p.add_argument("policies", nargs="+", metavar="POLICY",
                   help=f"policy specs: {POLICY_SPECS}")
    p.add_argument("--field", metavar="SPEC",
                   help="each POLICY in one seat, SPEC in every other seat (competitive games)")
    p.add_argument("--cross-play", action="store_true",
                   help="cooperative games: mixed teams of every pair of POLICYs (A A B, A B B)")
    p.add_argument("--games", type=number("--games", "100", least=1, most=MAX_GAMES),
                   default=100, help=f"games to play, 1 to {MAX_GAMES:,} (default 100); "
                   "with --cross-play, deals per lineup")
    p.add_argument("--seed", type=number("--seed", "0", least=0), default=0,
                   help="tournament seed, 0 or more (default 0)")
    p.add_argument("--workers", type=number("--workers", "2", least=1, most=max_workers(),
                                            why_most=" (4 per CPU core)"),
                   help="worker processes (default: CPU cores - 1, at most 4)")
    p.add_argument("--json", metavar="PATH", help="write results as JSON ('-' prints them)")
    p.add_argument("--games-in-json", action="store_true", help="include every game in the JSON")
    p.add_argument("--png", metavar="PATH", help="write a chart of ratings and win rates")
    p.add_argument("--logs", metavar="DIR", help="write every game's log into DIR")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("-q", "--quiet", action="store_true", help="print no table")
    add_env_options(p)
    return p


COMMAND = Command("eval", add_parser, cmd_eval, order=30)
