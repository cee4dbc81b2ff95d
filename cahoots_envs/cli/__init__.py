"""The ``cahoots`` command: list, play, eval, train, strength, bench and replay.

Installed as a console script (``cahoots = "cahoots_envs.cli:main"``); also runs as
``python -m cahoots_envs`` (or ``python -m cahoots_envs.cli``). ``list``, ``play`` and
``replay`` need numpy, gymnasium and pettingzoo only; ``eval`` needs ``openskill``, ``tqdm`` and
``matplotlib`` for ratings, the progress bar and the chart (all in the ``train`` extra) and works
without them; ``train`` needs the ``train`` extra; ``strength`` needs no extra. A user's
mistake (``UsageError``, a bad config, an unreadable policy file) is one line on stderr with exit status 2; a bug keeps its traceback.

Each command is one module, ``cli/<name>_cmd.py``, whose ``COMMAND`` (``common.Command``) adds
its sub-parser and runs it; ``COMMANDS`` holds them in the order ``cahoots --help`` shows them
(``Command.order``). A new command is one new module in this folder: it is found there, with no
edit elsewhere. What several commands share is in ``cli/common.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cahoots_envs.cli.bench_cmd import MAX_SECONDS, bench_parser, cmd_bench
from cahoots_envs.cli.common import (
    POLICY_SPECS,
    PROG,
    Command,
    Formatter,
    UsageError,
    check_env,
    doc,
    parse_options,
    raw,
)
from cahoots_envs.cli.eval_cmd import MAX_GAMES, cmd_eval, max_workers
from cahoots_envs.cli.list_cmd import cmd_list
from cahoots_envs.cli.play_cmd import cmd_play
from cahoots_envs.cli.replay_cmd import cmd_replay
from cahoots_envs.cli.strength_cmd import MAX_STRENGTH_GAMES, cmd_strength, parse_variant
from cahoots_envs.cli.train_cmd import cmd_train
from cahoots_envs.core.arguments import OneLineParser

__all__ = ["COMMANDS", "MAX_GAMES", "MAX_SECONDS", "MAX_STRENGTH_GAMES", "POLICY_SPECS", "PROG",
           "Command", "UsageError", "bench_parser", "build_parser", "check_env", "cmd_bench",
           "cmd_eval", "cmd_list", "cmd_play", "cmd_replay", "cmd_strength", "cmd_train",
           "commands", "main", "max_workers", "parse_options", "parse_variant"]


def commands() -> tuple[Command, ...]:
    """Every command: the ``COMMAND`` of each ``cli/*_cmd.py`` module of this package, in
    ``Command.order`` (the order ``cahoots --help`` lists them)."""
    import importlib
    import pkgutil

    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.endswith("_cmd"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.append(module.COMMAND)
    return tuple(sorted(found, key=lambda c: (c.order, c.name)))


COMMANDS = commands()


def _expected_errors() -> tuple[type[BaseException], ...]:
    """The errors a user's input can cause, printed as one line by ``main``; anything else is a
    bug and keeps its traceback."""
    from cahoots_envs.errors import IncompatiblePolicyError
    from cahoots_envs.policies.saved import PolicyFileError
    from cahoots_envs.training.config import ConfigError

    return (UsageError, ConfigError, PolicyFileError, IncompatiblePolicyError)


def build_parser() -> argparse.ArgumentParser:
    """The ``cahoots`` parser: its own options, then each of ``COMMANDS`` adding its sub-parser."""
    parser = OneLineParser(
        prog=PROG, formatter_class=Formatter,
        description=doc("""
            Card-game environments for multi-agent RL (PettingZoo AEC): Kansas City, Texas
            Euchre, and both Cahoots games. Play them in the terminal, evaluate policies,
            train, measure and publish policies, benchmark and replay game logs.
        """),
        epilog=raw("""
            examples:
              cahoots list
              cahoots play kansas_city --seat 0 --opponents heuristic --seed 7
              cahoots eval texas_euchre heuristic random --games 200 --png te.png
              cahoots replay game.jsonl

            'cahoots <command> --help' explains each command.
        """),
    )
    from cahoots_envs._version import __version__

    parser.add_argument("--version", action="version",
                        version=f"{PROG} (cahoots-envs) {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for command in COMMANDS:
        command.add_parser(sub, command.name).set_defaults(func=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # a command that wraps a script (train, bench) hands it every other argument, in order
    pass_on = {command.name: command.pass_on for command in COMMANDS}.get(argv[0]) if argv else None
    if pass_on is not None and not {"-h", "--help"} & set(argv[1:2]):
        mine, passed = pass_on.split(argv[1:])
        args = parser.parse_args([argv[0], *mine])
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

