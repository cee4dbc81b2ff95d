"""The ``cahoots`` command: list, play, eval, train, strength, bench and replay.

Installed as a console script (``cahoots = "cahoots_envs.cli:main"``); also runs as
``python -m cahoots_envs`` (or ``python -m cahoots_envs.cli``). ``list``, ``play`` and
``replay`` need numpy, gymnasium and pettingzoo only; ``eval`` needs ``openskill``, ``tqdm`` and
``matplotlib`` for ratings, the progress bar and the chart (all in the ``train`` extra) and works
without them; ``train`` needs the ``train`` extra; ``strength`` needs no extra. A user's
mistake (``UsageError``, a bad config, an unreadable policy file) is one line on stderr with exit status 2; a bug keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from cahoots_envs.core.arguments import OneLineParser, number
from cahoots_envs.core.options import parse_value

PROG = "cahoots"
MAX_GAMES = 1_000_000  # per eval run: every game's task is set up before the first is played
MAX_STRENGTH_GAMES = 100_000  # per strength row: a row keeps every game it played until counted
MAX_SECONDS = 3600.0  # per env, for bench
# every policy spec play and eval take (cahoots_envs.policies.loading.load_policy)
POLICY_SPECS = ("random, heuristic, search (a search bot over the heuristic), search:<spec> "
                "(a search bot over another spec, e.g. search:zoo:kansas_city), "
                "search@<knob>=<value>,...:<spec> (with settings, e.g. "
                "search@worlds=16:heuristic; docs/search.md), zoo:<name> (see 'cahoots list') "
                "or a saved policy path")


class UsageError(ValueError):
    """A mistake on the command line: ``main`` prints it as one line, ``cahoots <command>:
    error: <what is wrong>; <what would be right>``, and exits with status 2."""


def _expected_errors() -> tuple[type[BaseException], ...]:
    """The errors a user's input can cause, printed as one line by ``main``; anything else is a
    bug and keeps its traceback."""
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.policies.saved import PolicyFileError
    from cahoots_envs.training.config import ConfigError

    return (UsageError, ConfigError, PolicyFileError, IncompatiblePolicyError)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=28, width=80)


def _doc(text: str) -> str:
    """A description: paragraphs refilled to 78 columns."""
    paragraphs = textwrap.dedent(text).strip("\n").split("\n\n")
    return "\n\n".join(textwrap.fill(" ".join(p.split()), 78) for p in paragraphs)


def _raw(text: str) -> str:
    """An epilog of examples, kept as written."""
    return textwrap.dedent(text).strip("\n")


def parse_options(pairs: Sequence[str] | None, players: int | None = None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-o {pair}: an option needs a name and a value; write -o key=value, "
                             "e.g. -o hands=1 ('cahoots list' shows each game's options)")
        options[key.strip()] = parse_value(value)
    if players is not None:
        options["num_players"] = players
    return options


def check_env(env: str, options: dict[str, Any]) -> None:
    """The env id and its options, checked before a command starts (``UsageError`` if wrong)."""
    import difflib

    from cahoots_envs.registry import game_spec, make_raw, registered_games

    try:
        game_spec(env)
    except ValueError:
        names = [spec.name for spec in registered_games()]
        close = difflib.get_close_matches(env.split("/")[-1].split("-v")[0], names, 1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(f"unknown env {env!r}; {hint}envs: {', '.join(names)} "
                         "(see 'cahoots list')") from None
    try:
        make_raw(env, **options)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{exc} (see 'cahoots list')") from None


def max_workers() -> int:
    """The most worker processes ``eval`` starts: 4 per CPU core (more only wait their turn)."""
    return 4 * (os.cpu_count() or 1)


def _add_env_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--players", type=number("-n", "4", least=1), metavar="N",
                   help="number of players (default: the game's default)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", default=[],
                   help="a game option, repeatable (see 'cahoots list'), e.g. -o hands=1")


# ---- list ------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    from cahoots_envs.policies.loading import builtin_specs, list_policies
    from cahoots_envs.registry import list_envs, make_raw

    out: dict[str, Any] = {"envs": [], "policies": []}
    for env_id in list_envs():
        raw = make_raw(env_id)
        cls = raw.game_cls
        options = [
            {"name": o.name, "default": o.default, "accepts": o.describe(), "doc": o.doc}
            for o in cls.OPTIONS if o.name not in ("num_players", "reward_mode")
        ]
        out["envs"].append({
            "id": env_id, "title": cls.TITLE, "players": list(cls.PLAYER_COUNTS),
            "default_players": cls.DEFAULT_PLAYERS, "cooperative": bool(cls.COOPERATIVE),
            "options": options, "builtin_policies": builtin_specs(env_id),
        })
    for meta in list_policies():
        out["policies"].append({
            "spec": meta["spec"], "env_id": meta.get("env_id"),
            "options": meta.get("game_options", {}), "description": meta.get("description", ""),
            "evaluation": meta.get("evaluation", {}),
        })
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    print("Environments (cahoots play <env>, cahoots_envs.make(<env>)):")
    for env in out["envs"]:
        players = env["players"]
        span = f"{players[0]}-{players[-1]}" if len(players) > 1 else str(players[0])
        coop = ", cooperative" if env["cooperative"] else ""
        print(f"  {env['id'].split('/', 1)[1]:<18} {env['title']}")
        print(f"  {'':<18} players {span} (default {env['default_players']}){coop}")
        print(f"  {'':<18} bots: {', '.join(env['builtin_policies'])}")
        for o in env["options"]:
            line = f"{o['name']}={o['default']!r}: {o['doc'].replace('`', '')}"
            for i, part in enumerate(textwrap.wrap(line, 56)):  # 24 + 56 = 80 columns
                print(f"  {'':<18} {'-o ' if i == 0 else '   '}{part}")
    print()
    print("Zoo policies (use as zoo:<name> with play/eval):")
    if not out["policies"]:
        print("  none shipped yet; 'random' and 'heuristic' work for every env")
    for p in out["policies"]:
        strength = _strength(p["evaluation"])
        print(f"  {p['spec']:<24} {str(p['env_id']).split('/', 1)[-1]:<18} {strength}")
        if p["description"]:
            for part in textwrap.wrap(p["description"], 52):
                print(f"  {'':<24} {part}")
    print()
    print("Search bots (use with play/eval; 'search' is search:heuristic):")
    print("  search:<spec>            over any bot or zoo policy: search:zoo:kansas_city")
    print("  search@<knob>=<v>,...:<spec>")
    print(f"  {'':<24} with settings: search@worlds=16,gate=2.5:heuristic")
    print(f"  {'':<24} (knobs and figures: docs/search.md)")
    return 0


def _strength(evaluation: Any) -> str:
    """A one-line summary of a zoo policy's recorded evaluation (``cahoots strength``'s
    ``strength`` block when present, else the training run's own evaluation)."""
    if not isinstance(evaluation, dict) or not evaluation:
        return "(no evaluation recorded)"
    strength = evaluation.get("strength")
    parts = []
    if isinstance(strength, dict):
        variants = strength.get("variants")
        groups = variants.items() if isinstance(variants, dict) else [("", strength)]
        for variant, rows in groups:
            for key, label in (("policy_vs_random", "vs random"),
                               ("policy_vs_heuristic", "vs heuristic")):
                row = rows.get(key) if isinstance(rows, dict) else None
                if isinstance(row, dict) and "win_rate" in row:
                    where = f" ({variant})" if variant else ""
                    parts.append(f"{label}{where} {float(row['win_rate']):.0%}")
        team = strength.get("team")
        if isinstance(team, dict):
            wins = []
            for difficulty, rows in team.items():
                row = rows.get("policy_team") if isinstance(rows, dict) else None
                if isinstance(row, dict) and "win_rate" in row:
                    wins.append(f"{difficulty} {float(row['win_rate']):.0%}")
            if wins:
                parts.append("team wins: " + ", ".join(wins))
        if parts:
            return "; ".join(parts)
    for key, value in evaluation.items():
        if isinstance(value, dict) and "win_rate" in value:
            parts.append(f"{key} {float(value['win_rate']):.0%}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{key} {value:.3g}")
    return "; ".join(parts) or "(see its .json)"


# ---- play -----------------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace) -> int:
    from cahoots_envs.cli.play import Signalled, play
    from cahoots_envs.errors import IncompatiblePolicyError

    options = parse_options(args.option, args.players)
    opponents = args.opponents or ["heuristic"]
    try:
        return play(args.env, args.seat, opponents, args.seed, options, log_path=args.log)
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 130
    except Signalled as e:  # SIGTERM, SIGHUP: the terminal may be gone, so say it if it can
        with contextlib.suppress(OSError):
            print(f"\ngame abandoned ({e.name})", flush=True)
        return 128 + e.signum
    except (ValueError, IncompatiblePolicyError) as e:
        print(f"{PROG} play: {e}", file=sys.stderr)
        return 2


# ---- eval -----------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> int:
    from cahoots_envs.cli.paths import eval_output_problem
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.evaluation import default_workers, run_tournament

    problem = eval_output_problem(args.json, args.png, args.logs)  # before any game is played
    if problem:
        print(f"{PROG} eval: error: {problem}", file=sys.stderr)
        return 2
    options = parse_options(args.option, args.players)
    try:
        result = run_tournament(
            args.env, args.policies, args.games, seed=args.seed, options=options,
            workers=args.workers or default_workers(), progress=not args.no_progress and not args.quiet,
            log_dir=args.logs, field=args.field,
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


# ---- train ----------------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace) -> int:
    from importlib.util import find_spec

    rest = list(args.train_args)
    needed = {"pyyaml": find_spec("yaml"), "torch": find_spec("torch"),  # names as pip knows them
              "stable-baselines3": find_spec("stable_baselines3"),
              "sb3-contrib": find_spec("sb3_contrib")}
    missing = [name for name, found in needed.items() if found is None]
    if missing and not {"-h", "--help"} & set(rest):
        raise UsageError(f"training needs the train extra, and {', '.join(missing)} "
                         f"{'is' if len(missing) == 1 else 'are'} not installed; install it with "
                         "pip install \"cahoots-envs[train]\"")
    from cahoots_envs.training.train import main as train_main

    sys.argv[0] = f"{PROG} train"  # the script's usage line then reads as this command
    return int(train_main(rest) or 0)


# ---- strength -------------------------------------------------------------------------------------
def parse_variant(text: str) -> dict[str, Any]:
    """``--variant KEY=VALUE[,KEY=VALUE...]``: one row's options (``UsageError`` if malformed)."""
    variant: dict[str, Any] = {}
    for pair in text.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--variant {text}: a variant is KEY=VALUE pairs joined by commas, "
                             "e.g. --variant difficulty=expert ('cahoots list' shows each game's "
                             "options)")
        variant[key.strip()] = parse_value(value)
    return variant


def cmd_strength(args: argparse.Namespace) -> int:
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.training.strength import plan, run

    check_env(args.game, {})
    variants = [parse_variant(v) for v in args.variant] if args.variant else None
    try:  # everything checked before the first game: a mistake writes nothing
        checked = plan(args.game, args.policy, variants, publish=args.publish)
    except (ValueError, IncompatiblePolicyError) as e:
        raise UsageError(str(e)) from None
    run(checked, args.games, args.seed)
    return 0


# ---- bench ----------------------------------------------------------------------------------------
def bench_parser(prog: str | None = None) -> OneLineParser:
    """The benchmark's own options (``cahoots bench -- --help``; ``benchmarks/bench_envs.py``
    takes the same), each range-checked while the command line is read."""
    from cahoots_envs.bench import MAX_BATCH, NUM_ENVS
    from cahoots_envs.bench import __doc__ as about

    def batch_sizes(text: str) -> str:
        """``--num-envs``: comma-separated whole numbers from 1 to ``MAX_BATCH`` (kept as text)."""
        check = number("--num-envs", "64,4096", least=1, most=MAX_BATCH)
        for part in text.split(","):
            check(part.strip())
        return text

    parser = OneLineParser(prog=prog, description=about,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", default=2.0, help="seconds per env per round",
                        type=number("--seconds", "1", least=0.01, most=MAX_SECONDS, kind=float))
    parser.add_argument("--rounds", type=number("--rounds", "3", least=1, most=100), default=3,
                        help="interleaved rounds (median reported)")
    parser.add_argument("--no-classic", action="store_true", help="skip the PettingZoo classic envs")
    parser.add_argument("--envs", default="", help="comma-separated substrings to select envs")
    parser.add_argument("--no-batched", action="store_true", help="skip the batched engine")
    parser.add_argument("--num-envs", default=",".join(str(n) for n in NUM_ENVS),
                        type=batch_sizes, help="comma-separated batch sizes of the batched engine")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the compile-time measurement (fresh processes)")
    parser.add_argument("--no-seat-env", action="store_true",
                        help="skip the seat env rollout comparison")
    parser.add_argument("--seat-envs", type=number("--seat-envs", "64", least=1, most=MAX_BATCH),
                        default=64,
                        help="games of the seat env comparison (the training configs' n_envs)")
    return parser


def cmd_bench(args: argparse.Namespace) -> int:
    from cahoots_envs.bench import quick, run

    if args.quick:
        return quick(1.0 if args.seconds is None else args.seconds)
    rest = list(args.bench_args)
    if args.seconds is not None:  # the benchmark's own --seconds
        rest = ["--seconds", str(args.seconds), *rest]
    run(bench_parser(f"{PROG} bench").parse_args(rest))
    return 0


# ---- replay ---------------------------------------------------------------------------------------
def cmd_replay(args: argparse.Namespace) -> int:
    from cahoots_envs.gamelog import GameLog, ReplayError, replay_log

    try:
        log = GameLog.load(args.log)
    except (OSError, ValueError) as e:
        print(f"{PROG} replay: {e}", file=sys.stderr)
        return 2
    h = log.header
    players = h.get("players")
    print(f"{h['env_id']} seed {h.get('seed')}, options "
          + ", ".join(f"{k}={v!r}" for k, v in h.get("options", {}).items()))
    if players:
        print("players: " + ", ".join(f"player_{s} {p}" for s, p in enumerate(players)))
    state = {"interactive": bool(args.step), "rendered": False}

    def on_step(env: Any, record: dict[str, Any]) -> None:
        state["rendered"] = False
        if args.quiet:
            return
        print(f"{record['turn']:>4}  player_{record['seat']}: {record['action']}")
        if args.show_all or state["interactive"]:
            print(env.render())
            state["rendered"] = True
        if state["interactive"]:
            try:
                answer = input("-- enter: next, c: to the end, q: stop -- ").strip().lower()
            except EOFError:
                answer = "c"
            if answer == "c":
                state["interactive"] = False
            elif answer == "q":
                raise KeyboardInterrupt

    try:
        result = replay_log(log, on_step=on_step, stop_after=args.turns, partial=args.partial)
    except ReplayError as e:
        print(f"{PROG} replay: FAILED: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("replay stopped")
        return 0
    if not state["rendered"]:
        print(result.env.render())
    scores = ", ".join(f"player_{s} {v:g}" for s, v in enumerate(result.scores))
    if result.complete and result.ended_by == "illegal_action":
        illegal = log.end["illegal_action"] if log.end else {}
        text = (f"replay OK: {result.turns} actions, every one legal, then an illegal action "
                f"by {illegal.get('agent')} ({illegal.get('action')!r}) ended the game; scores "
                f"match ({scores})")
    elif result.complete:
        text = (f"replay OK: {result.turns} actions, every one legal; final scores match "
                f"({scores})")
    elif result.abandoned:
        before = (f"every one of the {result.turns} actions before is legal" if result.turns
                  else "no action was played")
        reason = log.end.get("reason") if log.end else None
        why = f" ({reason[:60]})" if reason else ""
        text = (f"replay OK: the game was abandoned at turn {result.turns}{why}; {before} "
                f"(scores then: {scores})")
    elif log.end is None and args.turns is None:
        text = (f"partial replay: {result.turns} actions, every one legal; the log has no end "
                f"record (scores so far: {scores})")
    else:
        text = f"replayed {result.turns} actions, every one legal; scores so far: {scores}"
    print(textwrap.fill(text, 80))
    return 0


# ---- parser ---------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG, formatter_class=_Formatter,
        description=_doc("""
            Card-game environments for multi-agent RL (PettingZoo AEC): Kansas City, Texas
            Euchre, and both Cahoots games. Play them in the terminal, evaluate policies,
            train, measure and publish policies, benchmark and replay game logs.
        """),
        epilog=_raw("""
            examples:
              cahoots list
              cahoots play kansas_city --seat 0 --opponents heuristic --seed 7
              cahoots eval texas_euchre heuristic random --games 200 --png te.png
              cahoots replay game.jsonl

            'cahoots <command> --help' explains each command.
        """),
    )
    from cahoots_envs._version import __version__
    from cahoots_envs.training.config import packaged_configs

    parser.add_argument("--version", action="version",
                        version=f"{PROG} (cahoots-envs) {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")

    p = sub.add_parser(
        "list", formatter_class=_Formatter, help="the envs (players, options) and zoo policies",
        description=_doc("""
            List every environment with its player counts, options and the built-in bots, and
            every policy in the zoo with its recorded strength.
        """),
        epilog="example:\n  cahoots list\n  cahoots list --json > envs.json",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "play", formatter_class=_Formatter, help="play against bots in the terminal",
        description=_doc("""
            Play one game against bots in the terminal. You see your own hand and everything
            public, the moves you may make, and what the bots do. Type moves in the game's
            notation (e.g. 'play 5B', 'pass 3A 5B 8G', 'discard 2C 5H', 'keep 8S',
            'play 5G on 2'); 'help' explains, 'moves' lists every legal move.
        """),
        epilog=_raw("""
            examples:
              cahoots play kansas_city --seat 0 --opponents heuristic --seed 7
              cahoots play texas_euchre -n 3 --opponents heuristic random -o target_score=50
              cahoots play cahoots_coop -n 2 --log coop.jsonl
        """),
    )
    p.add_argument("env", help="env id, e.g. kansas_city (see 'cahoots list')")
    p.add_argument("--seat", type=number("--seat", "0", least=0), default=0,
                   help="your seat, 0..N-1 (default 0)")
    p.add_argument("--opponents", nargs="+", metavar="SPEC",
                   help="bot spec for all other seats, or one per other seat: "
                        f"{POLICY_SPECS} (default: heuristic)")
    p.add_argument("--seed", type=number("--seed", "7", least=0),
                   help="deal seed, 0 or more (default: random)")
    p.add_argument("--log", metavar="PATH", help="write the game log (JSON lines) here")
    _add_env_options(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "eval", formatter_class=_Formatter, help="tournament between policies: win rates, ratings",
        description=_doc("""
            Play a tournament between policies with seats rotated so every policy plays every
            seat equally, in parallel worker processes. Prints win rates with 95% intervals,
            mean scores, a head-to-head table and OpenSkill (Plackett-Luce) ratings; writes
            JSON and a PNG chart on request. The same --seed gives the same results whatever
            --workers is. A win shared by k players counts 1/k. With --field SPEC each
            policy sits in one seat (rotated) against SPEC in every other seat, e.g. a
            trained policy against 3 random bots. In cahoots_coop every seat plays the same
            policy (a team against the game).
        """),
        epilog=_raw("""
            examples:
              cahoots eval kansas_city heuristic random --games 400 --workers 2
              cahoots eval kansas_city zoo:kansas_city --field random --games 400
              cahoots eval texas_euchre heuristic random -n 5 --json te.json --png te.png
              cahoots eval cahoots_coop heuristic random -o difficulty=beginner
        """),
    )
    p.add_argument("env", help="env id, e.g. kansas_city")
    p.add_argument("policies", nargs="+", metavar="POLICY",
                   help=f"policy specs: {POLICY_SPECS}")
    p.add_argument("--field", metavar="SPEC",
                   help="each POLICY in one seat, SPEC in every other seat (competitive games)")
    p.add_argument("--games", type=number("--games", "100", least=1, most=MAX_GAMES),
                   default=100, help=f"games to play, 1 to {MAX_GAMES:,} (default 100)")
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
    _add_env_options(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "train", formatter_class=_Formatter, help="self-play training from a YAML config",
        description=_doc("""
            Train a policy by self-play: runs the training (module
            cahoots_envs.training.train) with the arguments after 'train'. Needs
            pip install 'cahoots-envs[train]'. 'cahoots train -- --help' shows its options.
        """),
        epilog=_raw("""
            examples:
              cahoots train --config kansas_city --total-timesteps 20000
              cahoots train --config my_config.yaml
              cahoots train --resume runs/<run> --trust-checkpoint
        """) + "\n\n" + textwrap.fill(
            "--config takes a YAML file or the name of a config shipped in the package: "
            + ", ".join(packaged_configs()) + ".", 78),
    )
    p.add_argument("train_args", nargs="*", metavar="ARG",
                   help="arguments for the training script (see 'cahoots train -- --help')")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "strength", formatter_class=_Formatter,
        help="a policy's strength table; publish it to the zoo",
        description=_doc("""
            Measure a saved policy as the strength tables in the README do, at its own options
            (its player count included), N games per row. A competitive game has three rows:
            the heuristic bot against random bots, the policy against random bots and the
            policy against heuristic bots, the first named in one seat (rotated: seat g mod N
            in game g) and the other in every other seat; each row is a win share (a k-way tie
            for the win counts 1/k) with its 95% interval. A cooperative game has a row per
            variant its game declares (cahoots_coop: difficulty beginner and normal): the win
            rate and mean goals of a team of the policy, of heuristic bots and of random bots.
            The same --seed gives the same table. Prints the results as JSON, then the table
            rows in Markdown.

            --publish copies the policy into the zoo
            (cahoots_envs/policies/zoo/<game>.safetensors, used as zoo:<game>) with float16
            weights, measures that copy and records the results in its metadata; the zoo
            entry is written only once the table is done.
        """),
        epilog=_raw("""
            examples:
              cahoots strength kansas_city runs/<run>/policy.safetensors --games 2000
              cahoots strength kansas_city runs/<run> --games 2000 --publish
              cahoots strength cahoots_coop --games 200     # zoo:cahoots_coop
              cahoots strength cahoots_coop --variant difficulty=expert --games 200
        """),
    )
    p.add_argument("game", help="the game, e.g. kansas_city (see 'cahoots list')")
    p.add_argument("policy", nargs="?", metavar="POLICY",
                   help="a saved policy (.safetensors, its .json or a run folder) or "
                        "zoo:<name> (default: zoo:<game>)")
    p.add_argument("--games", type=number("--games", "2000", least=1, most=MAX_STRENGTH_GAMES,
                                          why_most=" (a row keeps every game until counted)"),
                   default=2000, help=f"games per row, 1 to {MAX_STRENGTH_GAMES:,} (default 2000)")
    p.add_argument("--seed", type=number("--seed", "12345", least=0), default=12345,
                   help="seed of the deals and bots, 0 or more (default 12345)")
    p.add_argument("--variant", action="append", metavar="KEY=VALUE[,...]",
                   help="measure at these options instead of the game's declared variants, "
                        "one row (group) per --variant, e.g. --variant difficulty=expert")
    p.add_argument("--publish", action="store_true",
                   help="copy the policy into the zoo as zoo:<game> with the results")
    p.set_defaults(func=cmd_strength)

    p = sub.add_parser(
        "bench", formatter_class=_Formatter, help="environment throughput benchmark",
        description=_doc("""
            Measure steps per second of random legal play through every env (and PettingZoo
            classic envs for comparison) and, with numba, the batched engine: the benchmark
            in cahoots_envs.bench, with the arguments after 'bench' (its options: 'cahoots
            bench -- --help'), or a short check of every env alone (--quick).
        """),
        epilog=_raw("""
            examples:
              cahoots bench -- --seconds 1 --rounds 1 --no-classic
              cahoots bench --quick --seconds 0.5
        """),
    )
    p.add_argument("--quick", action="store_true", help="the built-in quick measurement")
    p.add_argument("--seconds", type=number("--seconds", "0.5", least=0.01, most=MAX_SECONDS,
                                            kind=float),
                   help="seconds per env (default 1 with --quick; without it, per env and round, "
                        "given to the benchmark)")
    p.add_argument("bench_args", nargs="*", metavar="ARG",
                   help="arguments for the benchmark (see 'cahoots bench -- --help')")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "replay", formatter_class=_Formatter, help="re-play a game log and check it",
        description=_doc("""
            Re-play a game log (JSON lines written by 'cahoots play --log', 'cahoots eval
            --logs' or cahoots_envs.gamelog.GameRecorder) through the env: every field of
            every record is checked, every action must still be legal for the logged player
            and the final result must match. Prints each action and the final table; --step
            pauses after each action. A game abandoned in play replays up to where it was left
            (exit status 0); a log without end record is an error unless --partial. Exit
            status: 0 OK, 1 the env disagrees with the log, 2 not a well-formed log.
        """),
        epilog=_raw("""
            examples:
              cahoots replay game.jsonl
              cahoots replay game.jsonl --step
              cahoots replay game.jsonl --turns 20 --show-all
              cahoots replay cut_short.jsonl --partial
        """),
    )
    p.add_argument("log", help="the game log (.jsonl)")
    p.add_argument("--step", action="store_true", help="show the table and wait after each action")
    p.add_argument("--show-all", action="store_true", help="show the table after each action")
    p.add_argument("--turns", type=number("--turns", "20", least=0), metavar="K",
                   help="stop after K actions")
    p.add_argument("--partial", action="store_true",
                   help="accept a log without end record (cut short) as far as it goes")
    p.add_argument("-q", "--quiet", action="store_true", help="do not list the actions")
    p.set_defaults(func=cmd_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # train and bench hand every other argument, in order, to the scripts they wrap
    if argv and argv[0] in ("train", "bench") and not {"-h", "--help"} & set(argv[1:2]):
        own = ["--quick", "--seconds"] if argv[0] == "bench" else []
        mine, passed = [argv[0]], []
        rest = argv[1:]
        while rest:
            word = rest.pop(0)
            if word == "--":
                passed.extend(rest)
                break
            if word in own:
                mine.append(word)
                if word == "--seconds" and rest:
                    mine.append(rest.pop(0))
            else:
                passed.append(word)
        args = parser.parse_args(mine)
        setattr(args, f"{argv[0]}_args", passed)
        return _run(args)
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run a command; an expected error (a mistyped env, a bad option, a missing config, ...)
    is one line on stderr and exit status 2, anything else keeps its traceback."""
    try:
        if getattr(args, "env", None) is not None:  # play, eval: check env and options first
            check_env(args.env, parse_options(args.option, args.players))
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if not isinstance(exc, _expected_errors()):
            raise
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
