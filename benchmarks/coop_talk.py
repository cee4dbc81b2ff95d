"""Table talk in Cahoots (cooperative): the team of heuristic bots without talk and with each
vocabulary on the same deals (paired), and the paired gain in win rate with its 95% interval.

    python benchmarks/coop_talk.py [--deals 1000] [--players 3] [--variants]

``--variants`` plays the Dutch vocabulary again with the convention's parts changed, to show
what each adds: without reading the next player's ``say nothing``, and with other weights for
covering a pile a teammate named (``PROTECT``, shipped 3.0); each row's paired gain is over the
shipped convention.

Deal i is dealt from seed i under every talk mode (talk draws nothing at the deal), and seat s's
bot is seeded i * 10 + s. The bots are the search module's FastBot: the team bot's choices read
from the game state (one of the team bot's best moves, the same tie-break), so a game is the team
bot's game, faster.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.games.cahoots_coop import search
from cahoots_envs.games.cahoots_coop.search import FastBot

MODES = ("none", "spanish", "dutch")


def play(options: dict, deal_seed: int) -> float:
    spec = cahoots_envs.game_spec("cahoots_coop")
    game: Any = spec.rules(options, np.random.default_rng(deal_seed), None)  # CahootsCoop
    bots = [FastBot(options, seed=deal_seed * 10 + s) for s in range(options["num_players"])]
    while not game.is_over:
        game.apply(bots[game.current_player].act_state(game))
    return 1.0 if game.won else 0.0


def gain(wins: np.ndarray, base: np.ndarray) -> str:
    diff = wins - base
    half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    return f"{diff.mean():+.3f} [{diff.mean() - half:+.3f}, {diff.mean() + half:+.3f}]"


def variants(args: argparse.Namespace) -> None:
    """The convention's parts, changed one at a time (module docstring)."""
    spec = cahoots_envs.game_spec("cahoots_coop")
    shipped = (search._next_hint, search.PROTECT)
    rows = [("shipped", shipped),
            ("no say-nothing reading", (lambda game: None, shipped[1]))]
    rows += [(f"PROTECT={w:g}", (shipped[0], w)) for w in (0.0, 6.0, 12.0)]
    print(f"\n{args.deals} deals, {args.players} players, Dutch vocabulary, the convention "
          "changed")
    print("| difficulty | convention | win rate | paired gain over shipped [95% interval] |")
    print("|---|---|---|---|")
    try:
        for difficulty in ("beginner", "normal"):
            options = spec.resolve_options(
                {"num_players": args.players, "difficulty": difficulty, "talk": "dutch"})
            base = None
            for name, (hint, protect) in rows:
                search._next_hint, search.PROTECT = hint, protect
                wins = np.array([play(options, i) for i in range(args.deals)])
                if base is None:
                    base = wins
                    print(f"| {difficulty} | {name} | {wins.mean():.3f} | – |")
                else:
                    print(f"| {difficulty} | {name} | {wins.mean():.3f} | {gain(wins, base)} |")
    finally:
        search._next_hint, search.PROTECT = shipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--variants", action="store_true",
                        help="also play the convention with its parts changed")
    args = parser.parse_args()
    spec = cahoots_envs.game_spec("cahoots_coop")
    print(f"{args.deals} deals, {args.players} players, team of heuristic bots")
    print("| difficulty | talk | win rate | paired gain over no talk [95% interval] |")
    print("|---|---|---|---|")
    start = time.perf_counter()
    for difficulty in ("beginner", "normal"):
        wins = {}
        for talk in MODES:
            options = spec.resolve_options(
                {"num_players": args.players, "difficulty": difficulty, "talk": talk})
            wins[talk] = np.array([play(options, i) for i in range(args.deals)])
        for talk in MODES:
            rate = wins[talk].mean()
            if talk == "none":
                print(f"| {difficulty} | {talk} | {rate:.3f} | – |")
                continue
            print(f"| {difficulty} | {talk} | {rate:.3f} | {gain(wins[talk], wins['none'])} |")
    if args.variants:
        variants(args)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
