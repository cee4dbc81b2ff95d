"""Checks every game's world sampler and fast bot must pass (see ``cahoots_envs/core/search.py``);
each game's ``tests/test_search_<game>.py`` calls them on its player counts and variants.

- ``check_worlds``: at points spread over recorded games, for every seat, each sampled world's
  history (deals + actions) replays legally through a fresh game, gives the seat exactly the
  observations it had at every step, and ends in the world's own state; sampling from a copy
  whose hidden cards were re-dealt (``resample_hidden``) with the same seed gives the same world;
  ``knowledge`` agrees on both; different seeds give different worlds where cards are hidden.
- ``check_fast_bot``: the fast state-based bot's move is one of the observation-based bot's best
  moves at every decision of recorded games, and it leaves the game as it was.
- ``check_no_peek``: a search bot decides the same (move, per-world values, counters) at a
  decision and at a twin in which every card its seat cannot see was dealt afresh, the deal
  records and others' hidden choices included, every cache cleared (``tests/test_search_leak.py``).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.core.search import World
from cahoots_envs.policies.random_policy import RandomPolicy
from cahoots_envs.search import Infoset


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
           seen: list[list[np.ndarray]] | None, trail: list[tuple[Any, ...]] | None = None) -> Any:
    """Replay ``world``'s history; check legality and (with ``seen``) the seat's observations;
    ``trail`` gets the seat's ``public_step`` at every step, the end included."""
    size = spec.layout(opts).size
    rng = np.random.default_rng(0)
    if world.rng_state is not None:
        rng.bit_generator.state = world.rng_state
    game = spec.rules(opts, rng, world.deals)
    for i, action in enumerate(world.actions):
        if trail is not None:
            trail.append(public_step(game, seat, size))
        if seen is not None:
            assert np.array_equal(_observe(game, seat, size), seen[i][seat]), (
                f"seat {seat}: the world's history gives a different observation at step {i}")
        legal = game.legal_actions()
        assert action in legal, f"world history: step {i} plays {action}, legal {legal}"
        game.apply(action)
    if seen is not None:
        assert np.array_equal(_observe(game, seat, size), seen[len(world.actions)][seat]), (
            f"seat {seat}: the world's history ends in a different observation")
    if trail is not None:
        trail.append(public_step(game, seat, size))
    return game


def public_step(game: Any, seat: int, size: int) -> tuple[Any, ...]:
    """What ``seat`` sees of one step of a game: who is to move, the seat's observation, and its
    legal moves when it is to move."""
    mover = None if game.is_over else game.current_player
    legal = tuple(game.legal_actions()) if mover == seat else ()
    return mover, _observe(game, seat, size).tobytes(), legal


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


# ---- the leak check ---------------------------------------------------------------------------

# the counters a leak check compares: every one of the bot's ``stats`` but the clock's
SEARCH_COUNTERS = ("decisions", "searched", "deviations", "worlds", "rollouts", "timeouts")
# besides the game's world sampler, the modules whose caches a search may fill with what it saw
CACHE_PACKAGES = ("cahoots_envs.search", "cahoots_envs.core.search")


@dataclass
class LeakReport:
    """What ``check_no_peek`` saw: ``positions`` decisions searched on every copy, of which
    ``redealt`` had twins with other deal records and ``rewritten`` other action histories
    (others' hidden choices), and every ``differences`` found (empty: no peek seen)."""

    positions: int = 0
    redealt: int = 0
    rewritten: int = 0
    differences: list[str] = field(default_factory=list)


class SearchCaches:
    """The module-level caches of the search code for one game: every dict or set at module level
    in its world sampler or the search packages that a search makes grow (found by watching, so
    a cache need not be named here to be cleared). The rules' and engines' tables (functions of
    the options) are kept, and so are ``functools`` caches: they map
    their arguments to a value computed from those arguments, so a twin hits one only with the
    arguments the true game would pass (a cache filled by the code itself, keyed by what the
    seat knows, is what could carry a hidden card from one game to another)."""

    def __init__(self, spec: Any) -> None:
        self.prefixes = (spec.require("world_sampler").__name__, *CACHE_PACKAGES)
        self.known: dict[int, Any] = {}

    def _holders(self) -> list[Any]:
        return [m for name, m in list(sys.modules.items())
                if m is not None and name.startswith(self.prefixes)]

    def _sizes(self) -> dict[int, tuple[Any, int]]:
        return {id(v): (v, len(v)) for m in self._holders() for v in list(vars(m).values())
                if isinstance(v, (dict, set))}

    def clear(self) -> None:
        for holder in self.known.values():
            holder.clear()

    def fresh(self, run: Callable[[], Any]) -> Any:
        """``run()`` with every cache cleared first; a cache first seen growing during the run
        is cleared and the run repeated."""
        while True:
            self.clear()
            before = self._sizes()
            result = run()
            grown = {k: v for k, (v, size) in self._sizes().items()
                     if k not in self.known and size > before.get(k, (v, 0))[1]}
            if not grown:
                return result
            self.known.update(grown)


def _searched(make_bot: Callable[..., Any], env_id: str, opts: dict[str, Any], spec: Any,
              game: Any, seat: int, seed: int) -> tuple[Any, ...]:
    """A fresh bot's decision at ``game``: its move, its search's moves and per-world values and
    its counters."""
    bot = make_bot(env_id, opts, seed=seed)
    move = bot.act_infoset(Infoset(game, seat, spec, opts))
    last = bot.last_search
    values = None if last is None else (tuple(last[0]), np.asarray(last[1]).tolist())
    counters = {k: v for k, v in bot.stats.as_dict().items() if "seconds" not in k}
    assert set(SEARCH_COUNTERS) <= set(counters)
    return move, values, tuple(sorted(counters.items()))


def _difference(a: tuple[Any, ...], b: tuple[Any, ...]) -> str:
    if a[0] != b[0]:
        return f"move {a[0]} vs {b[0]}"
    if a[1] != b[1]:
        return "per-move values differ" if a[1] and b[1] else f"searched: {a[1] is not None} " \
            f"vs {b[1] is not None}"
    return f"counters {dict(a[2])} vs {dict(b[2])}"


def redealt_twin(spec: Any, opts: dict[str, Any], sampler: Any, games: list[Any],
                 seen: list[list[np.ndarray]], t: int, seat: int, rng: np.random.Generator,
                 after_deal: dict[str, Any] | None = None) -> Any:
    """A game in which every card ``seat`` cannot see at step ``t`` is dealt afresh, the deal
    records and others' hidden choices in the history included: a world drawn from the game's
    sampler, replayed from its own deals; checked to give the seat the same public history
    (who moved, its observations and its legal moves at every step) and the same knowledge.
    Where chance acts after the deal and the world cannot repeat it (``rng_state`` None), the
    replay draws it from ``after_deal``, the true game's generator state after its deal."""
    size = spec.layout(opts).size
    game = games[t]
    world = sampler.sample_world(game, seat, rng)
    if world.rng_state is None and after_deal is not None:
        world = dataclasses.replace(world, rng_state=after_deal)
    trail: list[tuple[Any, ...]] = []
    twin = replay(spec, opts, world, seat, seen, trail)
    assert trail == [public_step(g, seat, size) for g in games[: t + 1]], (
        f"seat {seat} at step {t}: the re-dealt game shows the seat another history")
    assert sampler.knowledge(twin, seat) == sampler.knowledge(game, seat)
    return twin


def check_no_peek(env_id: str, options: Mapping[str, Any], seeds: range | list[int],
                  points: int, make_bot: Callable[..., Any], bots: str = "heuristic",
                  twins: tuple[str, ...] = ("redealt", "resampled")) -> LeakReport:
    """A searched decision depends on what its seat knows alone. At ``points`` decisions (2+
    legal moves) of each seeded game, the seat's twins: ``redealt`` (``redealt_twin``: deals and
    history re-dealt) and ``resampled`` (``resample_hidden``: the current hidden cards only).
    A fresh ``make_bot(env_id, options, seed=...)`` (its blueprint fresh too) decides at the
    game and at each twin from the same seed, every module-level cache of the search code
    cleared first (``SearchCaches``); the move, the search's per-world values and the counters
    (every ``stats`` entry but seconds, ``SEARCH_COUNTERS`` among them) must agree. Returns what
    differed, so a test can also show that a peeking bot is caught."""
    spec, sampler, opts = _setup(env_id, options)
    caches = SearchCaches(spec)
    report = LeakReport()
    for seed in seeds:
        games, seen = record_game(env_id, opts, seed, bots)
        after_deal = None
        if spec.rules.chance_after_deal(opts):  # record_game's game, its generator after the deal
            rng = np.random.default_rng(seed)
            spec.rules(opts, rng, None)
            after_deal = rng.bit_generator.state
        choices = [t for t, g in enumerate(games[:-1]) if len(g.legal_actions()) >= 2]
        if not choices:
            continue
        picks = sorted({choices[int(i)] for i in np.linspace(0, len(choices) - 1, points)})
        for t in picks:
            game = games[t]
            seat = game.current_player
            bot_seed = seed * 1000 + t
            copies = {}
            if "redealt" in twins:
                twin = redealt_twin(spec, opts, sampler, games, seen, t, seat,
                                    np.random.default_rng([seed, t, 1]), after_deal)
                copies["redealt"] = twin
                report.redealt += twin.deals != game.deals
                report.rewritten += twin.history != game.history
            if "resampled" in twins:
                twin = game.resample_hidden(seat, np.random.default_rng([seed, t, 2]))
                assert sampler.knowledge(twin, seat) == sampler.knowledge(game, seat)
                copies["resampled"] = twin
            decide = partial(_searched, make_bot, env_id, opts, spec, seat=seat, seed=bot_seed)
            truth = caches.fresh(partial(decide, game))
            searched = truth[1] is not None
            for kind, copy in copies.items():
                other = caches.fresh(partial(decide, copy))
                searched = searched and other[1] is not None
                if other != truth:
                    report.differences.append(
                        f"{env_id} {opts} seed {seed} step {t} seat {seat}, {kind} twin: "
                        f"{_difference(truth, other)}")
            report.positions += searched
    return report
