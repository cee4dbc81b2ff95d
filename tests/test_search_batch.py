"""Search bots deciding many information sets at once (``SearchPolicy.act_infosets``): the same
moves, counters and generator as ``act_infoset`` one at a time where the rollout policy breaks
no ties at random (Kansas City, Texas Euchre with its narrowed draw candidates), on the engine and
on the reference path; and search bots as opponents on the batched engine
(``BatchedSeatVecEnv``, ``batched_matches``): legal moves, seeded runs that repeat, and each
move the one ``act_infoset`` chooses at the same information set with the same generator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.search import Infoset, SearchPolicy
from tests.search_checks import record_game

pytest.importorskip("numba")

KNOBS = {"worlds": 4, "max_worlds": 8}
COUNTERS = ("decisions", "searched", "deviations", "worlds", "rollouts", "timeouts",
            "engine_searches", "reference_searches")


def _infosets(env_id: str, options: dict[str, Any], count: int) -> list[Infoset]:
    """``count`` decisions spread over three seeded heuristic games."""
    spec = cahoots_envs.game_spec(env_id)
    games = []
    for seed in (3, 4, 5):
        found, _ = record_game(env_id, options, seed)
        games += [g for g in found if not g.is_over]
    games = games[:: max(1, len(games) // count)][:count]
    return [Infoset(g, g.current_player, spec, options) for g in games]


def _counters(bot: SearchPolicy) -> dict[str, float]:
    stats = bot.stats.as_dict()
    return {k: stats[k] for k in COUNTERS}


@pytest.mark.parametrize(("env_id", "options", "engine", "count"), [
    ("kansas_city-v1", {"num_players": 4, "hands": 2}, "batched", 40),
    ("texas_euchre-v1", {"num_players": 4, "target_score": 15}, "batched", 40),
    ("kansas_city-v1", {"num_players": 4, "hands": 1}, "reference", 8),
], ids=lambda x: str(x))
def test_act_infosets_decides_as_act_infoset_one_at_a_time(env_id, options, engine,
                                                           count) -> None:
    resolved = cahoots_envs.game_spec(env_id).resolve_options(options)
    infosets = _infosets(env_id, resolved, count)
    alone = SearchPolicy(env_id, resolved, seed=11, engine=engine, **KNOBS)
    together = SearchPolicy(env_id, resolved, seed=11, engine=engine, **KNOBS)
    one_by_one = [alone.act_infoset(info) for info in infosets]
    moves = together.act_infosets(infosets)
    assert moves.dtype == np.int64 and moves.tolist() == one_by_one
    assert together.path == alone.path == engine
    assert _counters(together) == _counters(alone)
    assert together.stats.searched > 0 and together.stats.deviations > 0
    assert together.stats.seconds > 0 and together.stats.max_seconds <= together.stats.seconds
    # the generators moved on alike: the next decisions repeat too
    assert together.rng.integers(2**62) == alone.rng.integers(2**62)
    assert (together.last_search is None) == (alone.last_search is None)
    if alone.last_search is not None:
        assert together.last_search is not None
        assert together.last_search[0] == alone.last_search[0]
        assert np.array_equal(together.last_search[1], alone.last_search[1])
    assert together.act_infosets([]).tolist() == []


def test_act_infosets_keeps_a_time_limit_per_decision_and_checks_its_input() -> None:
    env_id = "kansas_city-v1"
    options = cahoots_envs.game_spec(env_id).resolve_options({"num_players": 4, "hands": 1})
    infosets = _infosets(env_id, options, 6)
    bot = SearchPolicy(env_id, options, seed=2, time_limit=30.0, **KNOBS)
    twin = SearchPolicy(env_id, options, seed=2, time_limit=30.0, **KNOBS)
    assert bot.act_infosets(infosets).tolist() == [twin.act_infoset(i) for i in infosets]
    with pytest.raises(TypeError, match="takes a cahoots_envs.search.Infoset"):
        bot.act_infosets([infosets[0], "not an infoset"])
    other = SearchPolicy("texas_euchre-v1", None, seed=0, **KNOBS)
    with pytest.raises(ValueError, match="plays .*texas_euchre-v1, the information set is of "
                                         ".*kansas_city-v1"):
        other.act_infosets(infosets)


class Recording(SearchPolicy):
    """A search bot that keeps every batch it decides, and a twin: a bot built alike whose
    generators are this one's from before its first decision."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made = (args, kwargs)
        self.batches: list[tuple[list[Infoset], np.ndarray]] = []
        self.before: SearchPolicy | None = None

    def act_infosets(self, infosets: Any) -> np.ndarray:
        if self.before is None:
            args, kwargs = self.made
            twin = SearchPolicy(*args, **kwargs)
            twin.rng.bit_generator.state = self.rng.bit_generator.state
            twin.blueprint.rng.bit_generator.state = self.blueprint.rng.bit_generator.state
            self.before = twin
        moves = super().act_infosets(infosets)
        self.batches.append((list(infosets), moves.copy()))
        return moves


def _seat_run(seed: int) -> tuple[list[np.ndarray], Recording, set[str]]:
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
    from cahoots_envs.training.pool import OpponentPool

    env_id, options = "kansas_city-v1", {"num_players": 4, "hands": 1}
    searcher = Recording(env_id, options, seed=0, worlds=4, max_worlds=4)
    pool = OpponentPool()
    pool.add("search", "search", searcher)
    pool.add("random", "random", load_policy("random", env_id, options, seed=0))
    venv = BatchedSeatVecEnv(env_id, 6, options=options, opponents=pool, seed=seed)
    out = [venv.reset()]
    rng = np.random.default_rng(seed)
    names: set[str] = set()
    for _ in range(16):
        masks = venv.action_masks()
        obs, rewards, dones, infos = venv.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        out += [obs, rewards, dones, venv.seat_policy.copy()]
        names.update(venv.names[k] for k in np.unique(venv.seat_name).tolist())
        for info in infos:
            names.update(info.get("opponents", []))
    return out, searcher, names


def test_a_search_opponent_plays_in_the_batched_seat_env() -> None:
    pytest.importorskip("stable_baselines3")
    first, searcher, names = _seat_run(7)
    assert names == {"learner", "search", "random"}  # both opponents drawn, per episode
    assert searcher.stats.decisions > 0 and searcher.stats.engine_searches > 0
    assert any(len(infos) > 1 for infos, _ in searcher.batches)  # several tables at once
    twin = searcher.before
    assert twin is not None
    for infosets, moves in searcher.batches:
        for info, move in zip(infosets, moves.tolist()):
            assert move in info.legal
            assert twin.act_infoset(info) == move  # the move it makes alone, with its generator
    assert _counters(twin) == _counters(searcher)
    again, _, _ = _seat_run(7)
    assert len(first) == len(again)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))


def test_batched_matches_play_a_search_opponent() -> None:
    from cahoots_envs.evaluation.matches import act_rows, batched_matches
    from cahoots_envs.policies.loading import load_policy

    env_id, options = "kansas_city-v1", {"num_players": 4, "hands": 1}

    def match() -> tuple[dict[str, Any], SearchPolicy]:
        searcher = SearchPolicy(env_id, options, seed=5, worlds=4, max_worlds=4)
        heuristic = load_policy("heuristic", env_id, options, seed=1)
        return batched_matches(env_id, heuristic, searcher, 4, options, seed=3).as_dict(), \
            searcher

    result, searcher = match()
    assert result["games"] == 4 and 0 <= result["win_rate"] <= 1
    assert searcher.stats.decisions > 0 and searcher.stats.searched > 0
    assert match()[0] == result

    class Blind:
        name = "blind"
        needs_infoset = True

    with pytest.raises(TypeError, match="'blind' decides from information sets but has no "
                                        "act_infosets"):
        act_rows(Blind(), None, np.arange(1))
