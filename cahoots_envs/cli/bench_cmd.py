"""``cahoots bench``: the env-throughput benchmark (``cahoots_envs.bench``), its own options
handed on, or ``--quick``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import PROG, Command, Formatter, PassOn, doc, raw
from cahoots_envs.core.arguments import OneLineParser, number

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers

MAX_SECONDS = 3600.0  # per env, for bench


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


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="environment throughput benchmark",
        description=doc("""
            Measure steps per second of random legal play through every env (and PettingZoo
            classic envs for comparison) and, with numba, the batched engine: the benchmark
            in cahoots_envs.bench, with the arguments after 'bench' (its options: 'cahoots
            bench -- --help'), or a short check of every env alone (--quick).
        """),
        epilog=raw("""
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
    return p


COMMAND = Command("bench", add_parser, cmd_bench,
                  PassOn(own=("--quick",), valued=("--seconds",)),  # its own; the rest handed on
                  order=60)
