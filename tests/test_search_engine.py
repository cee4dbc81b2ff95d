"""Search rollouts on the batched engine against the reference path: with the same worlds and a
deterministic blueprint, the per-move values of a searched decision are the same on both, for
every game, player count and option the engine plays (a few positions each); a broken world
loader is caught; games and options without an engine fall back to the reference path."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.core.batched import OUTPUT_BUFFERS
from cahoots_envs.core.numba_kernels import randint, seed_states
from cahoots_envs.core.search import LazyWorld, RolloutParts
from cahoots_envs.search import Infoset, SearchPolicy, World, parse_search_spec
from cahoots_envs.search.engine import EngineRollouts, engine_problem, win_options, world_stream
from cahoots_envs.vector.engine import engine_class
from tests.search_checks import record_game

pytest.importorskip("numba")

# (env_id, options): every player count and the options that change the rules
CASES: list[tuple[str, dict[str, Any]]] = [
    ("kansas_city-v1", {"num_players": 4, "hands": 2}),  # hand boundaries and game ends
    ("kansas_city-v1", {"num_players": 5, "hands": 1, "card_backs": "hidden"}),
    ("texas_euchre-v1", {"num_players": 3, "target_score": 15}),
    ("texas_euchre-v1", {"num_players": 4, "target_score": 30, "reverse": True,
                         "face_card_values": "tens_ace_low"}),
    ("texas_euchre-v1", {"num_players": 5, "target_score": 20, "empty_deck_throw_down": True}),
    ("texas_euchre-v1", {"num_players": 6, "target_score": 20,
                         "face_card_values": "tens_ace_high"}),
    ("cahoots_tricks-v1", {"num_players": 3}),
    ("cahoots_tricks-v1", {"num_players": 4, "scoring": "face_value", "three_way_split": "even"}),
    ("cahoots_coop-v1", {"num_players": 1, "difficulty": "beginner"}),
    ("cahoots_coop-v1", {"num_players": 2, "multicolour_mode": "disjunctive"}),
    ("cahoots_coop-v1", {"num_players": 3, "open_hands": True, "difficulty": "beginner"}),
    ("cahoots_coop-v1", {"num_players": 4, "num_goals": 6}),
]
POSITIONS = 2  # searched positions per case
TOLERANCE = 1e-6  # the engine's final rewards are float32


class FirstBest:
    """A deterministic blueprint: the lowest of the heuristic bot's best moves."""

    name = "first-best"

    def __init__(self, env_id: str, options: dict[str, Any]) -> None:
        self.bot: Any = cahoots_envs.game_spec(env_id).bot(options, seed=0)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(min(self.bot.best_actions(observation, action_mask)))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], np.int64)


def _positions(env_id: str, options: dict[str, Any], count: int) -> list[Any]:
    """Up to ``count`` decisions of a seeded heuristic game with 2..12 legal moves, spread over
    the game (the last ones first: they reach a hand's or the game's end)."""
    games, _ = record_game(env_id, options, 3)
    found = [g for g in games if not g.is_over and 2 <= len(g.legal_actions()) <= 12]
    picks = [found[-1]] + found[len(found) // 2 : len(found) // 2 + 1] + found[:1]
    return picks[:count]


def _values(env_id: str, options: dict[str, Any], game: Any, path: str, **knobs: Any) -> Any:
    spec = cahoots_envs.game_spec(env_id)
    bot = SearchPolicy(env_id, options, blueprint=FirstBest(env_id, options),
                       blueprint_name="first-best", seed=7, worlds=3, max_worlds=3,
                       search_all=True, engine=path, **knobs)
    bot.act_infoset(Infoset(game, game.current_player, spec, options))
    assert bot.path == path
    assert bot.last_search is not None
    return bot.last_search


def _max_difference(env_id: str, options: dict[str, Any]) -> float:
    resolved = cahoots_envs.game_spec(env_id).resolve_options(options)
    worst = 0.0
    for game in _positions(env_id, resolved, POSITIONS):
        legal, reference = _values(env_id, resolved, game, "reference")
        legal_b, batched = _values(env_id, resolved, game, "batched")
        assert legal == legal_b and reference.shape == batched.shape
        worst = max(worst, float(np.abs(reference - batched).max()))
    return worst


@pytest.mark.parametrize(("env_id", "options"), CASES, ids=lambda x: str(x))
def test_engine_rollouts_give_the_reference_values(env_id, options) -> None:
    assert _max_difference(env_id, options) <= TOLERANCE


@pytest.mark.parametrize(("env_id", "options"), [CASES[0], CASES[1], CASES[3], CASES[4]],
                         ids=lambda x: str(x))
def test_the_heuristic_blueprint_gives_the_same_values_on_both_paths(env_id, options) -> None:
    """The Kansas City and Texas Euchre bots break ties by card order: their fast bots on the
    reference path and their compiled kernels on the engine (``play_out``) give one set of
    values."""
    spec = cahoots_envs.game_spec(env_id)
    options = spec.resolve_options(options)
    for game in _positions(env_id, options, 2):
        found = []
        for path in ("reference", "batched"):
            bot = SearchPolicy(env_id, options, seed=3, worlds=4, max_worlds=4,
                               search_all=True, engine=path)
            bot.act_infoset(Infoset(game, game.current_player, spec, options))
            assert bot.last_search is not None
            found.append(bot.last_search[1])
        assert np.abs(found[0] - found[1]).max() <= TOLERANCE


# the games whose bots break ties at random and whose compiled ``play_out`` plays to the game's
# end (one hand): compared with the lockstep path on the same rows and streams
LOCKSTEP_CASES = [case for case in CASES if case[0] in ("cahoots_coop-v1", "cahoots_tricks-v1")]


def _lockstep(engine: Any, policy: Any, first: np.ndarray, seats: np.ndarray,
              draws_alone: bool = False) -> tuple[np.ndarray, int]:
    """The lockstep path's values of rows ``0..len(first)-1`` of ``engine``: each plays its
    move, then ``policy``'s best moves (``best_actions``, in Python, on the rows' observations)
    for every seat to the end, the final reward of its seat; a tie drawn from the row's own
    stream, as ``play_out`` draws it (``draws_alone``: a lone best move of two legal moves or
    more is drawn too, as the Cahoots tricks bot's ``act`` draws from its generator). Also how
    many ties were drawn."""
    rows = len(first)
    out = np.zeros(rows)
    live = np.ones(rows, np.bool_)
    actions = np.full(engine.num_envs, -1, np.int64)
    actions[:rows] = first
    draws = 0
    while live.any():
        engine.step(actions)
        over = np.flatnonzero(live & engine.done[:rows])
        out[over] = engine.rewards[over, seats[over]]
        live[over] = False
        actions[:] = -1
        for r in np.flatnonzero(live).tolist():
            best = policy.best_actions(engine.obs[r], engine.mask[r])
            draws += len(best) > 1
            drawn = len(best) > 1 or draws_alone and int(engine.mask[r].sum()) > 1
            actions[r] = best[randint(engine.streams(), r, len(best))] if drawn else best[0]
    return out, draws


@pytest.mark.parametrize(("env_id", "options"), LOCKSTEP_CASES, ids=lambda x: str(x))
def test_play_out_gives_the_lockstep_values(env_id, options) -> None:
    """The heuristic's ``play_out`` (one kernel call; the cooperative bot's inputs read from the
    engine state, the Cahoots tricks bot's from the entries of the observation it reads, written
    alone) against the lockstep path on the same rows (every world x move of searched
    positions, loaded as search loads them, the observations not copied where ``play_out``
    writes its own): the same value for every row. Other policies get None (the caller's
    lockstep)."""
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    sampler = spec.require("world_sampler")
    rollouts = EngineRollouts(spec, resolved, sampler)
    policy = spec.bot(resolved, seed=0)
    draws = 0
    for game in _positions(env_id, resolved, POSITIONS):
        info = Infoset(game, game.current_player, spec, resolved)
        worlds = [info.sample(np.random.default_rng([9, k])) for k in range(4)]
        loader = rollouts.load(worlds)
        source = np.repeat(np.arange(len(worlds)), len(info.legal))
        first = np.tile(np.array(info.legal, np.int64), len(worlds))
        seats = np.full(len(source), info.seat, np.int64)
        starts = [worlds[k].game for k in source.tolist()]
        engines = []
        for observations in (False, True):
            engine = engine_class(spec)(spec, win_options(resolved), len(source))
            engine.reset(seed_states(0, len(source)), None)
            engine.copy_rows(loader, source, observations=observations)
            engine.streams()[:] = [world_stream(9, k) for k in source.tolist()]
            engines.append(engine)
        assert engines[0].play_out(FirstBest(env_id, resolved), first, seats, sampler.value,
                                   starts) is None
        played = engines[0].play_out(policy, first, seats, sampler.value, starts)
        expected, tied = _lockstep(engines[1], policy, first, seats,
                                   draws_alone=env_id.startswith("cahoots_tricks"))
        assert played is not None and np.array_equal(played, expected)
        draws += tied
    assert draws > 0  # the ties' draws from the rows' streams are compared too
    n = resolved["num_players"]  # another player count of the game (coop 1-4, tricks 3-4)
    other = spec.bot({**resolved, "num_players": 7 - n if n > 2 and env_id.startswith(
        "cahoots_tricks") else n % 4 + 1}, seed=0)
    assert engines[0].play_out(other, first, seats, sampler.value, starts) is None


def test_coop_heuristic_search_rolls_out_in_play_out(monkeypatch) -> None:
    """A search bot over the cooperative heuristic on the engine plays its rollouts in
    ``play_out`` (no lockstep ``act_batch``), and its values are final rewards (0 or 1)."""
    env_id, options = LOCKSTEP_CASES[1]
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    engine = engine_class(spec)
    calls = []
    play_out = engine.play_out

    def counted(self, policy, *args):
        found = play_out(self, policy, *args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(engine, "play_out", counted)
    game = _positions(env_id, resolved, 1)[0]
    bot = SearchPolicy(env_id, resolved, seed=3, worlds=4, max_worlds=4, search_all=True)
    bot.act_infoset(Infoset(game, game.current_player, spec, resolved))
    assert bot.path == "batched" and bot.last_search is not None
    assert calls and all(calls)
    assert set(np.unique(bot.last_search[1])) <= {0.0, 1.0}


def test_a_broken_world_loader_is_caught(monkeypatch) -> None:
    """A loader that deals each world the next world's cards (history kept) passes the
    replay's own check (the seat to move and its legal moves) but not the comparison."""
    load = EngineRollouts.load

    def shifted(self, worlds):
        wrong = [World(w.game, worlds[(k + 1) % len(worlds)].deals, w.actions)
                 for k, w in enumerate(worlds)]
        return load(self, wrong)

    monkeypatch.setattr(EngineRollouts, "load", shifted)
    assert _max_difference("texas_euchre-v1", {"num_players": 3, "target_score": 15}) > 0.01


def test_copy_rows_covers_every_per_game_array() -> None:
    """``ROW_ARRAYS`` names every array whose first axis is the game (else a copied row would
    keep part of its old game)."""
    for env_id, options in CASES:
        spec = cahoots_envs.game_spec(env_id)
        resolved = spec.resolve_options(options)
        engine = engine_class(spec)(spec, resolved, 7)
        engine.reset(seed_states(0, 7), None)
        per_game = {name for name, v in vars(engine).items() if isinstance(v, np.ndarray)
                    and v.ndim and v.shape[0] == 7 and name not in OUTPUT_BUFFERS}
        assert per_game == set(type(engine).ROW_ARRAYS), env_id
        assert engine.streams() is getattr(engine, type(engine).STREAM)


def test_games_and_options_without_an_engine_search_on_the_reference_game(monkeypatch) -> None:
    env_id = "cahoots_tricks-v1"
    options = {"num_players": 3, "scoring": "face_value", "point_split": "random"}
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    assert "point_split='random'" in (engine_problem(spec, resolved) or "")
    game = _positions(env_id, resolved, 1)[0]
    bot = SearchPolicy(env_id, resolved, seed=0, worlds=2, max_worlds=2, search_all=True)
    bot.act_infoset(Infoset(game, game.current_player, spec, resolved))
    assert bot.path == "reference" and bot.stats.reference_searches == 1
    assert bot.stats.engine_searches == 0 and bot.stats.searched == 1
    # a game with no batched engine at all (as a plugin game may be) searches there too
    bare = dataclasses.replace(spec, batched=None)
    assert engine_problem(bare, resolved) == "cahoots_tricks has no batched engine"
    bot = SearchPolicy(env_id, {"num_players": 3}, seed=0, worlds=2, max_worlds=2,
                       search_all=True)
    bot.spec = bare
    game = _positions(env_id, spec.resolve_options({"num_players": 3}), 1)[0]
    bot.act_infoset(Infoset(game, game.current_player, spec, bot.options))
    assert bot.path == "reference" and bot.stats.reference_searches == 1
    # the engine where there is one (coop's heuristic too, since its play_out); a heuristic
    # blueprint its game measured faster on the reference game keeps to its fast bot there
    bot = SearchPolicy(env_id, {"num_players": 3}, seed=0, worlds=2, max_worlds=2,
                       search_all=True)
    bot.act_infoset(Infoset(game, game.current_player, spec, bot.options))
    assert bot.path == "batched" and bot.stats.engine_searches == 1
    coop = SearchPolicy("cahoots_coop-v1", {"num_players": 3}, seed=0, search_all=True)
    assert coop._engine_rollouts() is not None and coop.path == "batched"
    monkeypatch.setattr(coop.sampler, "HEURISTIC_BATCHED", False)
    coop = SearchPolicy("cahoots_coop-v1", {"num_players": 3}, seed=0, search_all=True)
    assert coop._engine_rollouts() is None and coop.path == "reference"


def test_engine_knob_errors_are_one_clear_line() -> None:
    with pytest.raises(ValueError, match=r"^search setting engine is one of \('auto', "
                       r"'batched', 'reference'\), got 'gpu'$"):
        parse_search_spec("search@engine=gpu:heuristic")
    with pytest.raises(ValueError) as err:
        SearchPolicy("cahoots_tricks-v1", {"scoring": "face_value", "point_split": "random"},
                     engine="batched")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("search setting engine='batched' cannot be used for "
                              "cahoots_envs/cahoots_tricks-v1: point_split='random'")
    assert message.endswith("; use engine='auto' or 'reference'")
    assert parse_search_spec("search@engine=reference")[0] == {"engine": "reference"}


def test_a_seeded_game_repeats_move_for_move_on_the_engine() -> None:
    from cahoots_envs.evaluation import play_game

    options = {"num_players": 4, "hands": 1}
    lineup = [SearchPolicy("kansas_city-v1", options, seed=s, worlds=4, max_worlds=8,
                           engine="batched") for s in range(2)] + ["heuristic"] * 2
    first = play_game("kansas_city-v1", options, lineup, seed=4)
    again = play_game("kansas_city-v1", options, lineup, seed=4)
    assert first.scores == again.scores and first.turns == again.turns
    assert all(bot.stats.engine_searches > 0 for bot in lineup[:2])  # type: ignore[union-attr]


# a Texas Euchre game long enough (about 300 actions) to spill its kernel's history row (256)
LONG_GAME = ("texas_euchre-v1", {"num_players": 4, "target_score": 250})


@pytest.mark.parametrize(("env_id", "options"), [*CASES[::2], CASES[1], CASES[5], LONG_GAME],
                         ids=lambda x: str(x))
def test_step_histories_is_a_step_per_row(env_id, options) -> None:
    """Search's loader: histories of different lengths replayed in one call (``trusted``
    deals, ``step_histories``) leave every game as a ``step`` per action from checked deals
    does (every per-game array and the outputs), games spanning hands and, in Texas Euchre,
    histories past the kernel's history row (spilled) included."""
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    games, _ = record_game(env_id, resolved, 5)
    live = [g for g in games if not g.is_over]
    picks = [live[-1], live[len(live) // 2], live[0], live[len(live) // 3]]
    if env_id == LONG_GAME[0] and options == LONG_GAME[1]:
        assert len(picks[0].history) > 256
    history = np.full((max(len(g.history) for g in picks), len(picks)), -1, np.int64)
    for k, g in enumerate(picks):
        history[: len(g.history), k] = g.history
    engines = []
    for trusted in (False, True):
        engine = engine_class(spec)(spec, {**resolved, "reward_mode": "win"}, len(picks))
        engine.trusted = trusted
        engine.reset(seed_states(0, len(picks)), [g.deals for g in picks])
        if trusted:
            engine.step_histories(history)
        else:
            for row in history:
                engine.step(row)
        engines.append(engine)
    stepped, replayed = engines
    for name in ("to_move", "obs", "mask", *type(stepped).ROW_ARRAYS):
        assert np.array_equal(getattr(stepped, name), getattr(replayed, name)), name
    for k, g in enumerate(picks):
        assert replayed.game(k).legal_actions() == g.legal_actions()


# games of several hands (rounds): worlds that share their earlier hands (``rollout_parts``)
SHARED_CASES: list[tuple[str, dict[str, Any]]] = [
    ("kansas_city-v1", {"num_players": 4, "hands": 3}),
    ("kansas_city-v1", {"num_players": 5, "hands": 2, "card_backs": "hidden"}),
    ("texas_euchre-v1", {"num_players": 4, "target_score": 60}),
    ("texas_euchre-v1", {"num_players": 6, "target_score": 40, "reverse": True}),
]


def _loaded_both_ways(env_id: str, options: dict[str, Any]) -> tuple[Any, Any, int]:
    """The worlds of a few positions (the first hand, later hands, the same position twice),
    loaded from their split histories (``load``: the shared hands once per position, then
    ``deal_current``) and replayed whole, world by world (``_load``); and the worlds' count."""
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    games, _ = record_game(env_id, resolved, 4)
    live = [g for g in games if not g.is_over]
    picks = [live[-1], live[len(live) // 2], live[3], live[-1]]
    worlds = []
    for k, game in enumerate(picks):
        info = Infoset(game, game.current_player, spec, resolved)
        worlds += [info.sample(np.random.default_rng([k, j])) for j in range(3)]
    assert all(w.rollout_parts() is not None for w in worlds)
    assert len({id(w.rollout_parts().earlier[1]) for w in worlds}) < len(worlds)  # type: ignore[union-attr]
    rollouts = EngineRollouts(spec, resolved, info._sampler)
    split = rollouts.load(worlds)
    assert rollouts._bases, "the split histories were not loaded from shared games"
    whole, _ = EngineRollouts(spec, resolved, info._sampler)._load(worlds, None)
    return split, whole, len(worlds)


@pytest.mark.parametrize(("env_id", "options"), SHARED_CASES, ids=lambda x: str(x))
def test_worlds_that_share_earlier_hands_load_as_if_replayed_whole(env_id, options) -> None:
    """Loading the earlier hands once per position and dealing each copy its world's current
    hand (``deal_current``) leaves every game as replaying each world whole does: every
    per-game array but the stream (search sets the rollout rows' streams itself), the outputs,
    and the game ``game(i)`` rebuilds."""
    split, whole, w = _loaded_both_ways(env_id, options)
    stream = type(split).STREAM
    for name in ("to_move", "obs", "mask", *type(split).ROW_ARRAYS):
        if name != stream:
            a, b = getattr(split, name)[:w], getattr(whole, name)[:w]
            if env_id.startswith("texas_euchre") and name == "_masks":
                # its last column keeps the stream each game's episode began with
                a, b = a[:, :-1], b[:, :-1]
            assert np.array_equal(a, b), name
    for k in range(w):
        a, b = split.game(k), whole.game(k)
        assert a.deals == b.deals and a.history == b.history


def test_a_broken_deal_current_is_caught(monkeypatch) -> None:
    """A ``deal_current`` that deals the cards but forgets the hand's scripted record fails the
    comparison above (the games play on alike, but they no longer rebuild the same game)."""
    cls = engine_class(cahoots_envs.game_spec("kansas_city-v1"))
    deal_current = cls.deal_current

    def forgetful(self, deals):
        saved = self._deals.copy()
        deal_current(self, deals)
        self._deals[:] = saved

    monkeypatch.setattr(cls, "deal_current", forgetful)
    split, whole, w = _loaded_both_ways(*SHARED_CASES[0])
    assert not np.array_equal(split._deals[:w], whole._deals[:w])


@pytest.mark.parametrize(("env_id", "options"), SHARED_CASES[::2], ids=lambda x: str(x))
def test_deal_current_refuses_games_in_play_and_other_deals(env_id, options) -> None:
    """``deal_current`` deals only games just dealt their hand, one record each, by the dealer
    of the hand: one clear error otherwise, before anything changes."""
    spec = cahoots_envs.game_spec(env_id)
    engine: Any = engine_class(spec)(spec, win_options(spec.resolve_options(options)), 2)
    engine.reset(seed_states(0, 2), None)
    records = [engine.game(i).deals[0] for i in range(2)]
    n = engine.num_players
    before = [getattr(engine, name).copy() for name in type(engine).ROW_ARRAYS]
    with pytest.raises(ValueError, match="deals every game: 2 deals, got 1"):
        engine.deal_current(records[:1])
    wrong_dealer = {**records[1], "dealer": (records[1]["dealer"] + 1) % n}
    with pytest.raises(ValueError, match="game 1: deal_current takes the hands"):
        engine.deal_current([records[0], wrong_dealer])
    with pytest.raises(ValueError, match="game 1: deal_current takes the hands"):
        engine.deal_current([records[0], {"dealer": records[1]["dealer"]}])
    assert all(np.array_equal(a, getattr(engine, name))
               for a, name in zip(before, type(engine).ROW_ARRAYS))
    engine.step(np.array([int(np.flatnonzero(engine.mask[0])[0]), -1]))
    with pytest.raises(ValueError, match="game 0 is not at the start of its"):
        engine.deal_current(records)


def test_a_lazy_worlds_parts_are_its_rollout_history_until_it_is_built() -> None:
    """``LazyWorld(parts=...)``: the rollout history is the parts joined; once the world's own
    history is built, that is its rollout history and it offers no parts; a world takes a
    rollout history or its parts, not both."""
    earlier = ([{"dealer": 0}], [1, 2])
    parts = RolloutParts(earlier, {"dealer": 1}, [3])
    built = ([{"dealer": 0, "own": True}, {"dealer": 1}], [1, 2, 3])
    game: Any = None  # never made here
    world = LazyWorld(lambda: game, lambda: built, parts=lambda: parts)
    assert world.rollout_parts() is parts
    assert world.rollout_history() == ([{"dealer": 0}, {"dealer": 1}], [1, 2, 3])
    assert world.deals is built[0]
    assert world.rollout_parts() is None and world.rollout_history() == built
    with pytest.raises(ValueError, match="a rollout history or its parts, not both"):
        LazyWorld(lambda: game, lambda: built, lambda: built, parts=lambda: parts)


def _values_with_streams(env_id: str, options: dict[str, Any], chance: bool,
                         monkeypatch: Any) -> list[np.ndarray]:
    """The per-move values of a few searched decisions on the engine, over the heuristic
    (compiled ``play_out``) and over a deterministic blueprint (the lockstep path), with the
    engine's ``HAND_CHANCE`` set to ``chance``."""
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    monkeypatch.setattr(engine_class(spec), "HAND_CHANCE", chance)
    out = []
    for game in _positions(env_id, resolved, POSITIONS):
        out.append(_values(env_id, resolved, game, "batched")[1])
        bot = SearchPolicy(env_id, resolved, seed=7, worlds=3, max_worlds=3, search_all=True,
                           engine="batched")
        bot.act_infoset(Infoset(game, game.current_player, spec, resolved))
        assert bot.last_search is not None
        out.append(bot.last_search[1])
    return out


@pytest.mark.parametrize(("env_id", "options"), SHARED_CASES[::2], ids=lambda x: str(x))
def test_engines_without_chance_in_a_hand_give_the_same_values_without_streams(
        env_id, options, monkeypatch) -> None:
    """``HAND_CHANCE = False`` (search leaves the rollout rows' streams as copied) changes no
    value: the same decisions rolled out with every row's stream set, as for a game whose
    chance acts in a hand, give the same values."""
    assert not engine_class(cahoots_envs.game_spec(env_id)).HAND_CHANCE
    plain = _values_with_streams(env_id, options, False, monkeypatch)
    streams = _values_with_streams(env_id, options, True, monkeypatch)
    assert all(np.array_equal(a, b) for a, b in zip(plain, streams))


def test_the_stream_check_sees_a_game_with_chance_in_its_hand(monkeypatch) -> None:
    """The comparison above fails for a game whose rollouts draw from the stream: the
    cooperative game's compiled bot breaks its ties from the row's stream."""
    env_id, options = "cahoots_coop-v1", {"num_players": 2, "difficulty": "beginner"}
    assert engine_class(cahoots_envs.game_spec(env_id)).HAND_CHANCE
    plain = _values_with_streams(env_id, options, False, monkeypatch)
    streams = _values_with_streams(env_id, options, True, monkeypatch)
    assert not all(np.array_equal(a, b) for a, b in zip(plain, streams))
