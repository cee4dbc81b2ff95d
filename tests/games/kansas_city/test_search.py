"""Kansas City search support: sampled worlds replay through every hand and give the seat exactly
its observations, hide what the seat cannot see (others' suits, upgraded faces, passes between
others; with hidden backs also ranks) and keep what it knows (voids, ranks on the backs, its own
passes, who was skipped or declined in an upgrade step); the fast bot makes the observation bot's
choices from what its seat may know; ``value`` estimates the outcome between hands."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.core.policy import KERNELS
from cahoots_envs.games.kansas_city import search
from cahoots_envs.games.kansas_city.rules import (
    RANK_MASKS,
    RANKS,
    SUIT_MASKS,
    KansasCity,
    ranks_of,
)
from tests.conftest import variant_id
from tests.search_checks import (
    _setup,
    check_fast_bot,
    check_worlds,
    fingerprint,
    record_game,
    replay,
    variants,
)

ENV = "cahoots_envs/kansas_city-v1"
VARIANTS: list[dict[str, Any]] = variants(KansasCity)


def _games(options: dict[str, Any], seed: int, bots: str = "random") -> tuple[Any, Any, Any]:
    spec, _, opts = _setup(ENV, options)
    games, seen = record_game(ENV, opts, seed, bots)
    return spec, opts, (games, seen)


def _world(game: Any, seat: int, seed: Any) -> KansasCity:
    world = search.sample_world(game, seat, np.random.default_rng(seed)).game
    assert isinstance(world, KansasCity)
    return world


def _rank_counts(mask: int) -> tuple[int, ...]:
    return tuple((mask & RANK_MASKS[r]).bit_count() for r in range(RANKS))


@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_worlds_replay_and_hide(options: dict[str, Any]) -> None:
    check_worlds(ENV, options, seeds=[1], points=2, samples=2)
    check_worlds(ENV, options, seeds=[2], points=2, samples=2, bots="random")


@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_fast_bot_makes_the_bots_choices(options: dict[str, Any]) -> None:
    assert check_fast_bot(ENV, options, seeds=[3]) > 0
    assert check_fast_bot(ENV, options, seeds=[4], bots="random") > 0


@pytest.mark.parametrize("backs", ["ranks", "hidden"])
def test_matching_fallback_gives_replayable_worlds(backs: str, monkeypatch: pytest.MonkeyPatch
                                                   ) -> None:
    """With no sequential fill at all, the matching fallback alone still respects everything."""
    monkeypatch.setattr(search, "FILL_TRIES", 0)
    search.clear_caches()
    check_worlds(ENV, {"num_players": 5, "card_backs": backs}, seeds=[5], points=2, samples=2,
                 bots="random")


@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_compiled_sampler_draws_the_reference_cards(options: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_kernel.fill`` and ``complete`` give the reference ``_fill`` and ``_complete``'s
    event cards, held cards, passes, dealt hands and actions, and leave the generator where
    they do, at every seat of points spread over a heuristic and a random game (every hand, the
    pass phase included), also when tries fail (few tries: the kernel's call for the next try's
    numbers, and the matching fallback after the last)."""
    pytest.importorskip("numba")
    _, opts, _ = _games(options, seed=0)
    points = 0
    for bots in ("heuristic", "random"):
        games, _ = record_game(ENV, opts, 40, bots)
        for t in range(0, len(games) - 1, 5):
            game = games[t]
            for seat in range(opts["num_players"]):
                hp = search._plan(game, seat).hands[-1]
                for tries in (search.FILL_TRIES, 2, 1):
                    monkeypatch.setattr(search, "FILL_TRIES", tries)
                    draws = []
                    for compiled in (True, False):
                        monkeypatch.setitem(KERNELS, search._load_kernel, None if compiled else False)
                        rng = np.random.default_rng([t, seat, tries])
                        draws.append((search._sample_hand(hp, game, seat, rng), rng.random()))
                    assert draws[0] == draws[1], (bots, t, seat, tries)
                    points += 1
    assert points > 100


def _later_points(games: list[Any]) -> list[int]:
    """Decision points in the play of each hand, where voids and upgrades have happened."""
    points = [t for t, g in enumerate(games[:-1]) if g.phase != "pass" and g.tricks_played >= 5]
    return points[:: max(1, len(points) // 4)]


@pytest.mark.parametrize("backs", ["ranks", "hidden"])
def test_worlds_keep_what_the_seat_knows(backs: str) -> None:
    """Over many worlds: own cards fixed, voids respected, ranks on the backs kept (ranked backs),
    trump ranks kept, the cards the seat passed and has not seen again held by its left
    neighbour, and the seat's knowledge unchanged."""
    _, opts, (games, _) = _games({"num_players": 4, "card_backs": backs}, seed=11)
    n = opts["num_players"]
    voids_seen = 0
    for t in _later_points(games):
        game = games[t]
        for seat in range(n):
            know = search.knowledge(game, seat)
            for k in range(6):
                world = _world(game, seat, [t, seat, k])
                assert search.knowledge(world, seat) == know
                assert world.hands[seat] == game.hands[seat]
                assert world.upgraded[seat] == game.upgraded[seat]
                left = (seat + 1) % n
                unseen = game.passed[seat] & ~game.played
                trick_cards = sum(1 << c for s, c, _ in world.trick if s == left)
                assert unseen & ~(world.hands[left] | world.upgraded[left]
                                  | world.own_trumps_played[left] | trick_cards) == 0
                for s in range(n):
                    assert ranks_of(world.upgraded[s]) == ranks_of(game.upgraded[s])
                    for suit in range(7):
                        if game.voids[s] >> suit & 1:
                            voids_seen += 1
                            assert world.hands[s] & SUIT_MASKS[suit] == 0
                    if backs == "ranks":
                        assert _rank_counts(world.hands[s]) == _rank_counts(game.hands[s])
                    else:
                        assert world.hands[s].bit_count() == game.hands[s].bit_count()
    assert voids_seen > 0


@pytest.mark.parametrize("backs", ["ranks", "hidden"])
def test_an_unseen_card_is_spread_as_the_backs_allow(backs: str) -> None:
    """At the first decision nothing but the backs is known: a card the seat does not hold lies
    with each other seat in proportion to its cards of that rank (ranked backs), or with each
    other seat alike (hidden backs)."""
    options = {"num_players": 4, "card_backs": backs}
    spec, _, opts = _setup(ENV, options)
    game = spec.rules(opts, np.random.default_rng(21), None)
    seat = game.current_player
    others = [s for s in range(4) if s != seat]
    card = next(c for c in range(56) if not game.hands[seat] >> c & 1)
    r = card & 7
    expected = {s: (1 / 3 if backs == "hidden" else
                    (game.hands[s] & RANK_MASKS[r]).bit_count()
                    / sum((game.hands[t] & RANK_MASKS[r]).bit_count() for t in others))
                for s in others}
    where: Counter[int] = Counter()
    draws = 600
    for k in range(draws):
        world = _world(game, seat, k)
        where[next(s for s in others if world.hands[s] >> card & 1)] += 1
    for s in others:
        assert abs(where[s] / draws - expected[s]) < 0.07, (s, where, expected)


def test_worlds_differ_from_the_truth_and_from_each_other() -> None:
    _, _, (games, _) = _games({"num_players": 4}, seed=12, bots="heuristic")
    game = games[len(games) // 2]
    seat = game.current_player
    hands = {tuple(_world(game, seat, k).hands) for k in range(10)}
    assert len(hands) == 10
    assert tuple(game.hands) not in hands


def test_a_worlds_game_is_made_once_and_only_before_its_game_moves_on() -> None:
    """A world's game is made on first access (the batched engine replays only its history):
    the same object every time after, the same state as a world drawn with the same seed; once
    the game it was sampled from has moved on, reading it is one clear error."""
    _, _, (games, _) = _games({"num_players": 4}, seed=12, bots="heuristic")
    game = games[len(games) // 2].clone()
    seat = game.current_player
    early, late = (search.sample_world(game, seat, np.random.default_rng(1)) for _ in range(2))
    made = early.game
    assert made is early.game and early.deals == late.deals and early.actions == late.actions
    assert made.history == early.actions and made.deals == early.deals
    game.apply(game.legal_actions()[0])
    assert early.game is made
    with pytest.raises(RuntimeError, match="moved on"):
        _ = late.game


@pytest.mark.slow
def test_every_point_of_a_game_replays() -> None:
    """Every decision of one 5-player game with hidden backs, for the seat to move."""
    spec, opts, (games, seen) = _games({"num_players": 5, "card_backs": "hidden"}, seed=13,
                                       bots="heuristic")
    size = spec.layout(opts).size
    for t in range(len(games) - 1):
        seat = games[t].current_player
        world = search.sample_world(games[t], seat, np.random.default_rng(t))
        assert fingerprint(replay(spec, opts, world, seat, seen), size) == fingerprint(
            world.game, size)


@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_many_points_replay(options: dict[str, Any]) -> None:
    for bots in ("heuristic", "random"):
        spec, opts, (games, seen) = _games(options, seed=30, bots=bots)
        size = spec.layout(opts).size
        for t in range(0, len(games) - 1, 2):
            for seat in range(opts["num_players"]):
                world = search.sample_world(games[t], seat, np.random.default_rng([t, seat]))
                assert fingerprint(replay(spec, opts, world, seat, seen), size) == fingerprint(
                    world.game, size)


def test_fast_bot_reads_only_what_its_seat_knows() -> None:
    _, opts, (games, _) = _games({"num_players": 4, "card_backs": "hidden"}, seed=14,
                                    bots="heuristic")
    fast = search.FastBot(opts, seed=0)
    for t, game in enumerate(games[:-1]):
        twin = game.resample_hidden(game.current_player, np.random.default_rng(t))
        assert fast.act_state(twin) == fast.act_state(game)


def test_best_actions_is_the_move_played() -> None:
    spec, opts, (games, seen) = _games({"num_players": 5}, seed=15, bots="heuristic")
    bot = spec.bot(opts, seed=0)
    num_actions = spec.rules.num_actions(opts)
    for game, obs in zip(games[:-1:5], seen[:-1:5]):
        mask = np.zeros(num_actions, np.int8)
        mask[game.legal_actions()] = 1
        seat = game.current_player
        assert bot.best_actions(obs[seat], mask) == [bot.act(obs[seat], mask)]


def _fast_game(options: dict[str, Any], seed: int, until: Any) -> Any:
    """A game played by the fast bot until ``until(game)`` holds (or it is over)."""
    _, _, opts = _setup(ENV, options)
    game = KansasCity(opts, np.random.default_rng(seed), None)
    bot = search.FastBot(opts, seed=seed)
    while not game.is_over and not until(game):
        game.apply(bot.act_state(game))
    return game


def _game_at_boundary(options: dict[str, Any], scores: list[float]) -> Any:
    game = _fast_game(options, 16, lambda g: g.hand_number == 1)
    game.scores = list(scores)
    return game


@pytest.mark.parametrize("n", [4, 5])
def test_value(n: int) -> None:
    even = _game_at_boundary({"num_players": n}, [20.0] * n)
    assert all(abs(search.value(even, s)) < 1e-6 for s in range(n))
    ahead = _game_at_boundary({"num_players": n}, [30.0] + [20.0] * (n - 1))
    values = [search.value(ahead, s) for s in range(n)]
    assert abs(sum(values)) < 1e-6
    assert values[0] > 0 > values[1]
    assert all(-1 / (n - 1) <= v <= 1 for v in values)
    far = _game_at_boundary({"num_players": n}, [60.0] + [20.0] * (n - 1))
    assert values[0] < search.value(far, 0) < 1
    longer = _game_at_boundary({"num_players": n, "hands": 6}, [30.0] + [20.0] * (n - 1))
    assert 0 < search.value(longer, 0) < values[0]  # more hands left: the lead counts less
    over = _fast_game({"num_players": n}, 17, lambda g: False)
    assert [search.value(over, s) for s in range(n)] == over.outcome()


def test_worth_searching_and_defaults() -> None:
    _, _, (games, _) = _games({"num_players": 4}, seed=18, bots="heuristic")
    phases = {g.phase: search.worth_searching(g, g.current_player) for g in games[:-1]}
    assert phases == {"pass": False, "play": True, "upgrade": True}
    from cahoots_envs.search.policy import check_knobs

    assert check_knobs(search.DEFAULTS) == search.DEFAULTS


def test_search_bot_plays_legal_moves() -> None:
    from cahoots_envs.search import Infoset, SearchPolicy

    spec, opts, (games, _) = _games({"num_players": 4}, seed=19, bots="heuristic")
    bot = SearchPolicy(ENV, opts, seed=0, worlds=2, max_worlds=2)
    for game in games[40:60]:
        move = bot.act_infoset(Infoset(game, game.current_player, spec, opts))
        assert move in game.legal_actions()
    assert bot.stats.searched > 0


def test_env_search_roundtrip() -> None:
    env = cahoots_envs.make_raw(ENV)
    assert env.game_spec.world_sampler is search
