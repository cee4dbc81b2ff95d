"""``cahoots strength``: a saved policy's strength table (``cahoots_envs.evaluation.strength``),
and ``--publish`` to the zoo."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cahoots_envs.cli.common import Command, Formatter, UsageError, check_env, doc, raw
from cahoots_envs.core.arguments import number
from cahoots_envs.core.options import parse_value

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers

MAX_STRENGTH_GAMES = 100_000  # per strength row: a row keeps every game it played until counted


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
    from cahoots_envs.evaluation.strength import plan, run

    check_env(args.game, {})
    variants = [parse_variant(v) for v in args.variant] if args.variant else None
    try:  # everything checked before the first game: a mistake writes nothing
        checked = plan(args.game, args.policy, variants, publish=args.publish)
    except (ValueError, IncompatiblePolicyError) as e:
        raise UsageError(str(e)) from None
    run(checked, args.games, args.seed)
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter,
        help="a policy's strength table; publish it to the zoo",
        description=doc("""
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
        epilog=raw("""
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
    return p


COMMAND = Command("strength", add_parser, cmd_strength, order=50)
