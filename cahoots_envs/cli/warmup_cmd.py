"""``cahoots warmup [game ...]``: compile the numba kernels of the named games (every game with
kernels by default) into numba's on-disk cache ahead of time (``cahoots_envs.search.warmup``),
so that a later process's first search, batch or bot call loads them instead of compiling."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import Command, Formatter, UsageError, doc, raw

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers


def cmd_warmup(args: argparse.Namespace) -> int:
    from cahoots_envs.search.warmup import cache_location, resolve_games, warmup

    try:
        specs = resolve_games(args.games or None)  # every name checked before any compile
    except ValueError as e:
        raise UsageError(str(e)) from None
    try:
        import numba  # noqa: F401
    except ImportError:
        raise UsageError('warmup compiles numba kernels, and numba is not installed: pip '
                         'install "cahoots-envs[fast]"') from None
    print(f"numba cache: {cache_location()}", flush=True)
    results = warmup([s.name for s in specs], progress=lambda line: print(line, flush=True))
    compiled = sum(r["compiled"] for r in results.values())
    seconds = sum(r["seconds"] for r in results.values())
    print(f"done: {len(results)} game{'s' if len(results) != 1 else ''}, {compiled} kernel "
          f"signatures compiled, {seconds:.1f} s" + ("" if compiled else " (the cache was warm)"))
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="compile the numba kernels ahead of time",
        description=doc("""
            Compile every numba kernel of the named games (batched engine, rule-based bots,
            play features, search: every signature a whole game meets) into numba's on-disk
            cache, with a line per game, so that later processes load them: a first searched
            decision then takes under a second instead of 10-35 s. Run it once after installing
            or upgrading, and before timed matches or serving search bots. Needs numba (the
            fast or train extra). NUMBA_CACHE_DIR puts the cache elsewhere (for a package folder
            that is not writable); set it the same way for the processes that use the kernels.
        """),
        epilog=raw("""
            examples:
              cahoots warmup
              cahoots warmup kansas_city texas_euchre
              NUMBA_CACHE_DIR=~/.cache/cahoots-numba cahoots warmup
        """),
    )
    p.add_argument("games", nargs="*", metavar="game",
                   help="games to warm (default: every game with kernels)")
    return p


COMMAND = Command("warmup", add_parser, cmd_warmup, order=80)
