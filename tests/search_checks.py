"""Checks every game's world sampler and fast bot must pass (see ``cahoots_envs/core/search.py``);
each game's ``tests/test_search_<game>.py`` calls them on its player counts and variants.

- ``check_worlds``: at points spread over recorded games, for every seat, each sampled world's
  history (deals + actions) replays legally through a fresh game, gives the seat exactly the
  observations it had at every step, and ends in the world's own state; sampling from a copy
  whose hidden cards were re-dealt (``resample_hidden``) with the same seed gives the same world;
  ``knowledge`` agrees on both; different seeds give different worlds where cards are hidden.
- ``check_fast_bot``: the fast state-based bot's move is one of the observation-based bot's best
  moves at every decision of recorded games, and it leaves the game as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.core.search import World
from cahoots_envs.policies.random_policy import RandomPolicy


def variants(rules: Any) -> list[dict[str, Any]]:
    """Every player count of a game, then its ``TEST_VARIANTS``: what its search tests cover."""
    return [{"num_players": n} for n in rules.PLAYER_COUNTS] + [dict(v) for v in rules.TEST_VARIANTS]


def _setup(env_id: str, options: Mapping[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    env = cahoots_envs.make_raw(env_id, **dict(options))
    return env.spec, env.spec.require("world_sampler"), env.options


def _observe(game: Any, seat: int, size: int) -> np.ndarray:
    out = np.zeros(size, np.float32)
    game.encode(seat, out)
    return out


def record_game(env_id: str, options: Mapping[str, Any], seed: int, bots: str = "heuristic",
                ) -> tuple[list[Any], list[list[np.ndarray]]]:
    """Play one seeded game; return the game before every action and at the end (clones), and
    every seat's observation at each of those points."""
    spec, _, opts = _setup(env_id, options)
    size = spec.layout(opts).size
    n = opts["num_players"]
    rng = np.random.default_rng(seed)
    game = spec.rules(opts, rng, None)
    players = [spec.bot(opts, seed=seed + s) if bots == "heuristic" else RandomPolicy(seed + s)
               for s in range(n)]
    games, obs = [], []
    while True:
        games.append(game.clone())
        obs.append([_observe(game, s, size) for s in range(n)])
        if game.is_over:
            return games, obs
        seat = game.current_player
        mask = np.zeros(spec.rules.num_actions(opts), np.int8)
        mask[game.legal_actions()] = 1
        game.apply(int(players[seat].act(obs[-1][seat], mask)))


def fingerprint(game: Any, size: int) -> tuple[Any, ...]:
    """Everything that distinguishes two game states for play: every seat's observation, the
    seat to move, its legal moves, the scores and where every card is."""
    n = game.num_players
    return (
        tuple(_observe(game, s, size).tobytes() for s in range(n)),
        game.current_player, game.is_over,
        tuple(game.legal_actions()) if not game.is_over else (),
        tuple(float(x) for x in game.scores),
        tuple(sorted(game.card_locations())),
    )


def replay(spec: Any, opts: dict[str, Any], world: World, seat: int,
           seen: list[list[np.ndarray]] | None) -> Any:
    """Replay ``world``'s history; check legality and (with ``seen``) the seat's observations."""
    size = spec.layout(opts).size
    rng = np.random.default_rng(0)
    if world.rng_state is not None:
        rng.bit_generator.state = world.rng_state
    game = spec.rules(opts, rng, world.deals)
    for i, action in enumerate(world.actions):
        if seen is not None:
            assert np.array_equal(_observe(game, seat, size), seen[i][seat]), (
                f"seat {seat}: the world's history gives a different observation at step {i}")
        legal = game.legal_actions()
        assert action in legal, f"world history: step {i} plays {action}, legal {legal}"
        game.apply(action)
    if seen is not None:
        assert np.array_equal(_observe(game, seat, size), seen[len(world.actions)][seat]), (
            f"seat {seat}: the world's history ends in a different observation")
    return game


def check_worlds(env_id: str, options: Mapping[str, Any], seeds: range | list[int],
                 points: int = 5, samples: int = 3, bots: str = "heuristic") -> None:
    spec, sampler, opts = _setup(env_id, options)
    size = spec.layout(opts).size
    n = opts["num_players"]
    varied = checked = 0
    for seed in seeds:
        games, seen = record_game(env_id, opts, seed, bots)
        last = len(games) - 1
        for t in sorted({int(x) for x in np.linspace(0, last - 1, points)}):
            game = games[t]
            for seat in range(n):
                before = fingerprint(game, size)
                prints = set()
                for k in range(samples):
                    world = sampler.sample_world(game, seat, np.random.default_rng([seed, t, k]))
                    assert fingerprint(game, size) == before, "sampling changed the game"
                    assert world.game is not game and world.game.rng is not game.rng
                    assert len(world.actions) == t, (
                        f"the world's history has {len(world.actions)} actions, the game {t}")
                    replayed = replay(spec, opts, world, seat, seen)
                    assert fingerprint(replayed, size) == fingerprint(world.game, size), (
                        "the world's game differs from the state its history leads to")
                    prints.add(fingerprint(world.game, size))
                    # independent of the true hidden cards: a re-dealt copy gives the same world
                    twin = game.resample_hidden(seat, np.random.default_rng([seed, t, k, 99]))
                    assert sampler.knowledge(twin, seat) == sampler.knowledge(game, seat)
                    world2 = sampler.sample_world(twin, seat, np.random.default_rng([seed, t, k]))
                    assert fingerprint(world2.game, size) == fingerprint(world.game, size), (
                        f"seat {seat} at step {t}: the sampled world depends on hidden cards")
                checked += 1
                varied += len(prints) > 1
    # a sampler that ignores its generator (a fixed arrangement) is not a sampler
    assert varied > 0, f"{env_id}: every sampled world was the same at all {checked} points"


def check_fast_bot(env_id: str, options: Mapping[str, Any], seeds: range | list[int],
                   bots: str = "heuristic") -> int:
    """Returns the number of decisions checked."""
    spec, sampler, opts = _setup(env_id, options)
    size = spec.layout(opts).size
    num_actions = spec.rules.num_actions(opts)
    checked = 0
    for seed in seeds:
        games, seen = record_game(env_id, opts, seed, bots)
        bot = spec.bot(opts, seed=seed)
        fast = sampler.FastBot(opts, seed=seed)
        for game, obs in zip(games, seen):
            if game.is_over:
                continue
            seat = game.current_player
            mask = np.zeros(num_actions, np.int8)
            mask[game.legal_actions()] = 1
            before = fingerprint(game, size)
            choice = fast.act_state(game)
            assert fingerprint(game, size) == before, "the fast bot changed the game"
            best = bot.best_actions(obs[seat], mask)
            assert choice in best, (
                f"seed {seed}, step {len(game.history)}: fast bot chose {choice} "
                f"({game.action_to_str(choice)}), the bot's best: "
                f"{[game.action_to_str(a) for a in best]}")
            checked += 1
    return checked
