"""``cahoots play``: one game against bots in the terminal (the play loop is
``cahoots_envs.cli.play``)."""

from __future__ import annotations

import argparse
import contextlib
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


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="play against bots in the terminal",
        description=doc("""
            Play one game against bots in the terminal. You see your own hand and everything
            public, the moves you may make, and what the bots do. Type moves in the game's
            notation (e.g. 'play 5B', 'pass 3A 5B 8G', 'discard 2C 5H', 'keep 8S',
            'play 5G on 2'); 'help' explains, 'moves' lists every legal move.
        """),
        epilog=raw("""
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
    add_env_options(p)
    return p


COMMAND = Command("play", add_parser, cmd_play, order=20)
