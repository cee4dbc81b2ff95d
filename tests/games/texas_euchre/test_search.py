"""Texas Euchre search support: the world sampler replays every round legally, shows the seat
exactly what it saw and hides the rest; the fast state-based bot makes the observation bot's
choices; ``value`` estimates the payoff between rounds."""

from __future__ import annotations

import math
from functools import partial
from typing import Any, cast

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.core.search import World
from cahoots_envs.games.texas_euchre import search
from cahoots_envs.games.texas_euchre.rules import (
    HAND_SIZE,
    PHASE_DRAW,
    PHASE_FINAL_LAP,
    PHASE_FIRST_TURN,
    PHASE_PLAY,
    TexasEuchre,
    parse_face,
)
from cahoots_envs.games.texas_euchre.search import FastBot
from cahoots_envs.search import Infoset, SearchPolicy
from tests.conftest import env_options, variant_id
from tests.search_checks import (
    SearchCaches,
    check_fast_bot,
    check_worlds,
    fingerprint,
    record_game,
    redealt_twin,
    replay,
    variants,
)

ENV = "texas_euchre"
VARIANTS: list[dict[str, Any]] = variants(TexasEuchre)


@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_worlds_replay_and_hide(options: dict[str, Any]) -> None:
    check_worlds(ENV, options, seeds=[1], points=4, samples=2)
    check_worlds(ENV, options, seeds=[3], points=4, samples=2, bots="random")


@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_fast_bot_chooses_as_the_bot(options: dict[str, Any]) -> None:
    assert check_fast_bot(ENV, options, seeds=[1]) > 0
    assert check_fast_bot(ENV, options, seeds=[4], bots="random") > 0


@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_worlds_and_fast_bot_many_games(options: dict[str, Any]) -> None:
    check_worlds(ENV, options, seeds=range(10, 16), points=8, samples=3)
    check_worlds(ENV, options, seeds=range(20, 24), points=8, samples=3, bots="random")
    assert check_fast_bot(ENV, options, seeds=range(10, 30)) > 0
    assert check_fast_bot(ENV, options, seeds=range(30, 40), bots="random") > 0


# ---- the sampler's constraints and distribution ---------------------------------------------------
def _game_at(options: dict[str, Any], seed: int, rounds: int, phase: str) -> TexasEuchre:
    """A recorded heuristic game at its first decision of ``phase`` once ``rounds`` are over."""
    games, _ = record_game(ENV, env_options(ENV, **options), seed)
    for game in cast(list[TexasEuchre], games):
        if not game.is_over and len(game.round_points) >= rounds and game.phase == phase:
            return game
    raise AssertionError("no such point")


def test_unseen_cards_are_spread_by_hand_size() -> None:
    """Every card the seat has not seen is in another hand or the pile with probability
    proportional to the hidden slots there; seen cards never move."""
    game = _game_at({"num_players": 4}, 5, 0, PHASE_PLAY)
    seat = game.current_player
    others = [s for s in range(4) if s != seat]
    seen = game.hands[seat] | game.played
    for st in game.stakes:
        seen |= st
    unseen = [c for c in range(104) if c % 2 == 0 and not seen >> c & 1]
    sizes = {s: game.hands[s].bit_count() for s in others}
    total = sum(sizes.values()) + len(game.draw_pile)
    assert total == len(unseen)
    counts = {s: np.zeros(104) for s in others}
    samples = 600
    for k in range(samples):
        world = cast(TexasEuchre, search.sample_world(game, seat, np.random.default_rng(k)).game)
        assert world.hands[seat] == game.hands[seat]
        assert world.stakes == game.stakes and world.played_by == game.played_by
        assert len(world.draw_pile) == len(game.draw_pile)
        for s in others:
            assert world.hands[s].bit_count() == sizes[s]
            assert not world.hands[s] & seen
            for c in range(104):
                counts[s][c] += world.hands[s] >> c & 1
    for s in others:
        share = counts[s][unseen] / samples
        expected = sizes[s] / total
        # binomial spread: 600 samples give a standard error below 0.021
        assert np.all(np.abs(share - expected) < 0.09), (s, expected, share)
        assert abs(share.mean() - expected) < 0.02


def test_history_puts_discards_in_time_and_uniformly() -> None:
    """A card another seat discarded on its second turn was dealt to it or drawn on its first
    turn; in the sampled histories it is dealt with probability H / (H + k1) (uniform slots)."""
    options = {"num_players": 4}
    game = _game_at(options, 7, 1, PHASE_PLAY)
    seat = game.current_player
    rounds = search._rounds(game)
    first = rounds[0]
    h = game.hand_size
    # the first seat (not ours) that discarded twice in round 0
    turns: dict[int, list[tuple[int, ...]]] = {}
    for kind, s, _, shown, _ in first.events:
        if kind == search.DISCARD and s != seat and shown:
            turns.setdefault(s, []).append(shown)
    who = next(s for s, t in turns.items() if len(t) >= 2)
    k1, second = len(turns[who][0]), turns[who][1]
    dealt = 0
    samples = 400
    for k in range(samples):
        world = search.sample_world(game, seat, np.random.default_rng(k))
        hand = [parse_face(x) for x in world.deals[0]["hands"][who]]
        first_cards = turns[who][0]
        assert all(f in hand for f in first_cards)  # a first-turn discard was dealt
        dealt += second[0] in hand
        assert world.deals[-1]["dealer"] == game.dealer
    expected = h / (h + k1)
    assert abs(dealt / samples - expected) < 0.1, (dealt / samples, expected)


def test_rollout_histories_share_the_earlier_rounds_and_reach_the_world() -> None:
    """A world's ``rollout_history`` (what the engine loads) fills the earlier rounds once for
    every world of the decision and replays, legally, to a state equal to the world's game in
    every observation, the scores, the legal moves and where every card is; its own history
    stays the world's (uniform over the earlier rounds too)."""
    options = env_options(ENV, num_players=4)
    spec = cahoots_envs.game_spec(ENV)
    game = _game_at({"num_players": 4}, 7, 2, PHASE_PLAY)
    seat = game.current_player
    size = spec.layout(options).size
    worlds = [search.sample_world(game, seat, np.random.default_rng(k)) for k in range(4)]
    histories = [w.rollout_history() for w in worlds]
    assert len(histories[0][0]) == len(game.deals) >= 3
    for deals, actions in histories:
        assert all(a is b for a, b in zip(deals[:-1], histories[0][0][:-1]))
    for world, (deals, actions) in zip(worlds, histories):
        loaded = replay(spec, options, World(world.game, deals, actions), seat, None)
        assert fingerprint(loaded, size) == fingerprint(world.game, size)
        assert fingerprint(replay(spec, options, world, seat, None), size) == \
            fingerprint(world.game, size)
    assert len({str(w.deals[0]) for w in worlds}) > 1  # the full histories differ


def test_knowledge_is_the_seats_own() -> None:
    game = _game_at({"num_players": 4}, 5, 1, PHASE_PLAY)
    views = {search.knowledge(game, s) for s in range(4)}
    assert len(views) == 4  # own hands differ
    twin = game.resample_hidden(0, np.random.default_rng(1))
    assert search.knowledge(twin, 0) == search.knowledge(game, 0)


# ---- value ----------------------------------------------------------------------------------------
def _between_rounds(scores: list[int], target: int = 100, rank: list[int] | None = None,
                    n: int = 4) -> TexasEuchre:
    game = TexasEuchre(env_options(ENV, num_players=n, target_score=target),
                       np.random.default_rng(0), None)
    game.scores = list(scores)
    game.round_points = [[15] * n]  # one round of typical points: the same spread everywhere
    game.tiebreak_rank = list(rank or [0] * n)
    return game


def test_value_is_the_outcome_once_over() -> None:
    games, _ = record_game(ENV, env_options(ENV, num_players=3, target_score=30), 2)
    end = games[-1]
    assert end.is_over
    assert [search.value(end, s) for s in range(3)] == end.outcome()


def test_value_between_rounds() -> None:
    even = _between_rounds([20, 20, 20, 20])
    assert [round(search.value(even, s), 9) for s in range(4)] == [0.0] * 4
    game = _between_rounds([10, 30, 30, 50])
    v = [search.value(game, s) for s in range(4)]
    assert v[0] > v[1] == v[2] > v[3]
    assert abs(sum(v)) < 1e-9 and all(-1 / 3 <= x <= 1 for x in v)
    # the same gaps weigh more close to the target
    late = _between_rounds([60, 80, 80, 99])
    assert search.value(late, 0) > v[0]
    # equal scores: the FAQ 6 rank breaks the tie
    tied = _between_rounds([40, 40, 60, 60], rank=[1, 0, 2, 3])
    assert search.value(tied, 1) > search.value(tied, 0)


# ---- the draw phase -------------------------------------------------------------------------------
DRAW_PHASES = (PHASE_FIRST_TURN, PHASE_DRAW, PHASE_FINAL_LAP)


def _draw_turns(options: dict[str, Any], seeds: list[int]) -> list[TexasEuchre]:
    """One recorded heuristic game state per draw phase and seed, in the second round or later
    (the sampler then also rebuilds a whole round's hidden draws)."""
    found = []
    for seed in seeds:
        games, _ = record_game(ENV, env_options(ENV, **options), seed)
        for phase in DRAW_PHASES:
            found.append(next(g for g in cast(list[TexasEuchre], games) if not g.is_over
                              and len(g.round_points) >= 1 and g.phase == phase))
    return found


@pytest.mark.parametrize("n", [4, 6])
def test_draw_turn_candidates(n: int) -> None:
    """At a draw turn the search compares the throw down (where legal), the discards of the k
    lowest cards for every k allowed and the blueprint's move; at a trick, every card."""
    options = env_options(ENV, num_players=n)
    h = HAND_SIZE[n]
    throw = 1 << h
    for game in _draw_turns({"num_players": n}, [1, 2]):
        legal = game.legal_actions()
        lo = 0 if game.phase == PHASE_FINAL_LAP else 1
        hi = min(h, len(game.draw_pile))
        lowest = [(1 << k) - 1 for k in range(lo, hi + 1)]
        thrown = [throw] if game.phase == PHASE_DRAW else []
        assert search.candidates(options, legal, lowest[-1]) == lowest + thrown
        assert set(lowest + thrown) <= set(legal) and len(legal) > len(lowest) + len(thrown)
        other = next(a for a in legal if a & (a + 1))  # not a discard of the lowest cards
        assert search.candidates(options, legal, other) == sorted(lowest + thrown + [other])
        bot = FastBot(options).act_state(game)
        assert bot in search.candidates(options, legal, bot)
        assert search.worth_searching(game, game.current_player)
    play = _game_at({"num_players": n}, 5, 0, PHASE_PLAY)
    assert search.worth_searching(play, play.current_player)
    legal = play.legal_actions()
    assert search.candidates(options, legal, legal[0]) == legal


def test_draw_turns_are_searched_among_their_candidates() -> None:
    """A search bot searches a draw turn among its candidates, on the engine with the reference
    path's values; with ``narrow=false`` it has too many moves to search (2^H - 1 discards)."""
    options = env_options(ENV, num_players=4)
    spec = cahoots_envs.game_spec("texas_euchre-v1")
    for game in _draw_turns({"num_players": 4}, [3]):
        info = Infoset(game, game.current_player, spec, options)
        values = {}
        for path in ("auto", "reference"):
            bot = SearchPolicy(ENV, options, seed=7, engine=path, worlds=4, max_worlds=4)
            move = bot.act_infoset(info)
            assert bot.stats.searched == 1 and bot.last_search is not None
            legal, values[path] = bot.last_search
            blueprint = FastBot(options).act_state(game)
            assert legal == search.candidates(options, info.legal, blueprint)
            assert move in legal and values[path].shape == (4, len(legal))
        assert np.allclose(values["auto"], values["reference"], atol=1e-6)
        wide = SearchPolicy(ENV, options, seed=7, narrow=False)
        wide.act_infoset(info)
        assert wide.stats.searched == 0 and len(info.legal) > wide.settings["max_candidates"]


def _decide(opts: dict[str, Any], seat: int, seed: int, game: TexasEuchre) -> tuple[Any, ...]:
    """A fresh search bot's move at ``game`` and its search's candidates and values."""
    spec = cahoots_envs.game_spec(ENV)
    bot = SearchPolicy(ENV, opts, seed=seed, worlds=3, max_worlds=6)
    move = bot.act_infoset(Infoset(game, seat, spec, opts))
    assert bot.last_search is not None
    return move, bot.last_search[0], bot.last_search[1].tolist()


@pytest.mark.parametrize("n", [3, 6])
def test_draw_turn_worlds_and_decisions_depend_on_what_the_seat_knows(n: int) -> None:
    """At draw turns of later rounds: every world's history replays to the seat's observations
    and the world's own state, and a searched decision is the same in a twin whose every hidden
    card (deals, others' draws, the pile) was dealt afresh."""
    opts = env_options(ENV, num_players=n, target_score=60)
    spec = cahoots_envs.game_spec("texas_euchre-v1")
    caches = SearchCaches(spec)
    size = spec.layout(opts).size
    checked = 0
    for seed in (4, 5):
        games, seen = record_game(ENV, opts, seed)
        for phase in DRAW_PHASES:
            t = next(i for i, g in enumerate(games) if not g.is_over
                     and len(g.round_points) >= 1 and g.phase == phase)
            game, seat = games[t], games[t].current_player
            for k in range(3):
                world = search.sample_world(game, seat, np.random.default_rng([seed, t, k]))
                assert len(world.actions) == t
                replayed = replay(spec, opts, world, seat, seen)
                assert fingerprint(replayed, size) == fingerprint(world.game, size)
            twin = redealt_twin(spec, opts, search, games, seen, t, seat,
                                np.random.default_rng([seed, t, 9]))
            decide = partial(_decide, opts, seat, t)
            assert caches.fresh(partial(decide, game)) == caches.fresh(partial(decide, twin))
            checked += 1
    assert checked == 6


def test_value_calibration_benchmark(capsys) -> None:
    """``benchmarks/texas_euchre_value.py``: the log loss of the value's win chances over the
    positions between rounds of a few heuristic games, at the module's temperature and others,
    which it sets back afterwards; the loss agrees with the chances computed here."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "texas_euchre_value.py"
    spec = importlib.util.spec_from_file_location("texas_euchre_value_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    found, points = bench.positions("heuristic", 2, 0)
    assert found and all(len(won) == 4 and any(won) for _, won in found)
    assert all(not game.is_over and game.round_points for game, _ in found)
    assert len(points) == 4 * (len(found) + 2)  # every round of the two games, four seats
    game, won = found[0]
    chances = [(3 * search.value(game, s) + 1) / 4 for s in range(4)]
    assert abs(sum(chances) - 1) < 1e-9
    winners = [s for s in range(4) if won[s]]
    alone = -sum(math.log(chances[s]) for s in winners) / len(winners)
    assert abs(bench.log_loss(found[:1]) - alone) < 1e-12
    shipped = search.TEMPERATURE
    assert bench.main(["--games", "2", "--seed", "0", "--temperatures", "0.5", "2"]) == 0
    out = capsys.readouterr().out
    assert search.TEMPERATURE == shipped
    assert "TEMPERATURE 0.5: " in out and "TEMPERATURE 2: " in out and "even chances 1.3863" in out
