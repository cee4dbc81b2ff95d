"""What a process's first searched decision costs: with numba's on-disk cache cold (a fresh
install) its kernels compile, with it warm they load.

    python benchmarks/search_first_decision.py                 # every game, cold then warm
    python benchmarks/search_first_decision.py --games kansas_city-v1 --warm-only
    python benchmarks/search_first_decision.py --after-warmup  # cold, cahoots warmup, then a game

Per game, a fresh Python process (``--child``) plays one seeded game with the game's default
``search`` bot in seat 0 and rule-based bots in the other seats (4 players; the cooperative
game 3) and reports the seconds of its first searched decision, of
its slowest later one, and whether the bot said it was compiling (the ``cahoots_envs.search``
notice, read from the child's stderr). "Cold" gives the child an empty ``NUMBA_CACHE_DIR`` (every
kernel compiles; the engine's too, which ``cahoots_envs.vector`` would otherwise have compiled
and cached on its first batch); "warm" runs it again on that cache. ``--after-warmup`` runs
``cahoots warmup <game>`` in a fresh process on the empty cache first (its seconds reported),
then the game. Each row also says how many kernel signatures the game's process compiled
(numba's ``numba:compile`` events) and loaded from the cache. The figures depend on the
machine and its load: ``uptime`` is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

GAMES = ("kansas_city-v1", "texas_euchre-v1", "cahoots_tricks-v1", "cahoots_coop-v1")
NOTICE = "cahoots_envs.search: compiling the search kernels of"


def child(env_id: str, seed: int) -> dict[str, object]:
    """One game with ``search`` in seat 0: the first searched decision's seconds and the
    slowest later decision's, and the kernel signatures its process compiled and loaded."""
    from cahoots_envs.search.warmup import counting_compiles

    with counting_compiles() as counts:
        result = _one_game(env_id, seed)
    return {**result, **counts}


def _one_game(env_id: str, seed: int) -> dict[str, object]:
    import numpy as np

    import cahoots_envs
    from cahoots_envs.search import Infoset

    options = {"num_players": 3} if env_id.startswith("cahoots_coop") else {}
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options(options)
    bot: Any = cahoots_envs.load_policy("search", env_id, options, seed=seed)  # a search bot
    game = spec.rules(opts, np.random.default_rng(seed), None)
    others = [spec.bot(opts, seed=seed + s) for s in range(opts["num_players"])]
    first, rest = None, 0.0
    while not game.is_over:
        state = Infoset(game, game.current_player, spec, opts)
        if state.seat != 0:
            game.apply(int(others[state.seat].act(state.observation, state.action_mask)))
            continue
        searched = bot.stats.searched
        start = time.perf_counter()
        move = bot.act_infoset(state)
        spent = time.perf_counter() - start
        if bot.stats.searched > searched:
            if first is None:
                first = spent
            else:
                rest = max(rest, spent)
        game.apply(int(move))
    return {"first": first, "rest": rest, "searched": bot.stats.searched}


def run(env_id: str, seed: int, cache: str | None, warm_first: bool = False) -> dict[str, object]:
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    warmup_seconds = None
    if warm_first:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cahoots_envs.cli", "warmup", env_id.split("-v")[0]],
                       capture_output=True, text=True, env=env, check=True)
        warmup_seconds = time.perf_counter() - start
    out = subprocess.run([sys.executable, __file__, "--child", env_id, "--seed", str(seed)],
                         capture_output=True, text=True, env=env, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["notice"] = NOTICE in out.stderr
    result["warmup"] = warmup_seconds
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warm-only", action="store_true",
                        help="only the warm run, on the usual cache")
    parser.add_argument("--after-warmup", action="store_true",
                        help="on an empty cache, cahoots warmup first, then the game")
    parser.add_argument("--child", metavar="ENV_ID", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.seed)))
        return 0
    print("| game | cache | first searched decision, s | slowest later one, s | said it compiles "
          "| kernels compiled / loaded in the game |")
    print("|---|---|---|---|---|---|")
    for env_id in args.games:
        with tempfile.TemporaryDirectory() as cache:
            runs = [("warm", None)] if args.warm_only else [("cold", cache), ("warm", cache)]
            if args.after_warmup:
                runs = [("after warmup", cache)]
            for name, where in runs:
                r = run(env_id, args.seed, where, warm_first=args.after_warmup)
                first = "—" if r["first"] is None else f"{r['first']:.2f}"
                if r["warmup"] is not None:
                    name += f" ({r['warmup']:.0f} s)"
                print(f"| {env_id} | {name} | {first} | {r['rest']:.2f} | "
                      f"{'yes' if r['notice'] else 'no'} | {r['compiled']} / {r['loaded']} |",
                      flush=True)
    print(f"uptime: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
