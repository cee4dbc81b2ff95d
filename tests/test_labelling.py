"""Labelling mode (``cahoots_envs.search.label_positions``): positions of several games searched
together give, position by position, the values, verdict and move of a search bot deciding there
alone with the same decision seed (on the engine, and on the reference game where there is no
engine path); histories label as their games; positions not searched get the blueprint's
move."""

from __future__ import annotations

import time

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.search import Infoset, Label, SearchPolicy, label_positions
from cahoots_envs.search.label import best_shares, position_seed
from tests.search_checks import record_game
from tests.test_search_engine import FirstBest

pytest.importorskip("numba")

CASES = [
    ("kansas_city-v1", {"num_players": 4, "hands": 2}),
    ("texas_euchre-v1", {"num_players": 4, "target_score": 15}),
    ("cahoots_tricks-v1", {"num_players": 3}),
    ("cahoots_coop-v1", {"num_players": 2, "difficulty": "beginner"}),
]
KNOBS = {"worlds": 2, "max_worlds": 8, "max_rollouts": 60, "gate": 1.0}


def _positions(env_id: str, options: dict, count: int) -> list:
    """``count`` decisions of a few seeded heuristic games, spread over them."""
    games = []
    for seed in (3, 4):
        found, _ = record_game(env_id, options, seed)
        games += [g for g in found if not g.is_over]
    return games[:: max(1, len(games) // count)][:count]


def _alone(env_id: str, options: dict, game, seed: int) -> tuple[int, np.ndarray | None]:
    """The move and values of a search bot deciding at ``game`` alone with decision seed
    ``seed`` (the rollouts on the engine)."""
    bot = SearchPolicy(env_id, options, blueprint=FirstBest(env_id, options),
                       blueprint_name="first-best", seed=0, search_all=True, engine="batched",
                       **KNOBS)
    info = Infoset(game, game.current_player, bot.spec, bot.options)
    blueprint_move = int(bot.blueprint.act(info.observation, info.action_mask))
    legal = info.legal
    if not 2 <= len(legal) <= bot.settings["max_candidates"]:
        return blueprint_move, None
    choice = bot._search(info, legal, blueprint_move, seed, time.perf_counter())
    assert bot.last_search is not None
    return blueprint_move if choice is None else choice, bot.last_search[1]


@pytest.mark.parametrize(("env_id", "options"), CASES, ids=lambda x: str(x))
def test_labels_are_the_searches_of_each_position_alone(env_id, options) -> None:
    resolved = cahoots_envs.game_spec(env_id).resolve_options(options)
    positions = _positions(env_id, resolved, 6)
    labels = label_positions(env_id, resolved, positions, FirstBest(env_id, resolved), seed=5,
                             blueprint_name="first-best", **KNOBS)
    assert len(labels) == len(positions)
    assert any(label.searched for label in labels)
    for p, (game, label) in enumerate(zip(positions, labels)):
        assert isinstance(label, Label) and label.path == "batched"
        assert label.seat == game.current_player and label.legal == game.legal_actions()
        move, values = _alone(env_id, resolved, game, position_seed(5, p))
        assert label.move == move
        assert abs(label.shares.sum() - 1) < 1e-9 and (label.shares >= 0).all()
        if values is None:
            assert not label.searched and label.values.shape == (0, len(label.legal))
            assert label.shares[label.legal.index(label.blueprint_move)] == 1
            continue
        assert label.searched and label.values.shape == values.shape
        assert np.array_equal(label.values, values)
        assert (label.counts == len(values)).all()
        assert np.allclose(label.means, values.mean(axis=0))
        assert np.allclose(label.shares, best_shares(values))


def test_histories_label_as_their_games() -> None:
    env_id = "kansas_city-v1"
    resolved = cahoots_envs.game_spec(env_id).resolve_options({"num_players": 4, "hands": 2})
    games = _positions(env_id, resolved, 3)
    histories = [(g.deals, list(g.history)) for g in games]
    first = label_positions(env_id, resolved, games, seed=2, **KNOBS)
    again = label_positions(env_id, resolved, histories, seed=2, **KNOBS)
    for a, b in zip(first, again):
        assert a.move == b.move and np.array_equal(a.values, b.values)


def test_best_shares_split_ties() -> None:
    values = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 1.0]])
    assert np.allclose(best_shares(values), [0.25, 0.75, 0.0])


def test_without_an_engine_positions_are_searched_on_the_reference_game() -> None:
    """Cahoots tricks with random point splits has no engine path: each position is searched
    as a search bot searches it on the reference game."""
    env_id = "cahoots_tricks-v1"
    resolved = cahoots_envs.game_spec(env_id).resolve_options(
        {"num_players": 3, "scoring": "face_value", "point_split": "random"})
    positions = _positions(env_id, resolved, 3)
    labels = label_positions(env_id, resolved, positions, seed=4, **KNOBS)
    for p, (game, label) in enumerate(zip(positions, labels)):
        bot = SearchPolicy(env_id, resolved, seed=0, search_all=True, **KNOBS)
        info = Infoset(game, game.current_player, bot.spec, bot.options)
        if not label.searched:
            continue
        choice = bot._search(info, info.legal, label.blueprint_move, position_seed(4, p),
                             time.perf_counter())
        assert bot.path == "reference" and bot.last_search is not None
        assert np.array_equal(label.values, bot.last_search[1]) and label.path == "reference"
        assert label.move == (label.blueprint_move if choice is None else choice)


def _label_watching(monkeypatch, probe) -> list:
    """Label four Kansas City positions with ``probe()`` called at every world the sampler
    draws; the probes' results, in order."""
    from cahoots_envs.games.kansas_city import search as kc_search

    env_id = "cahoots_envs/kansas_city-v1"
    options = cahoots_envs.game_spec(env_id).resolve_options({"num_players": 4})
    positions = _positions(env_id, options, 4)
    seen = []
    sample = kc_search.sample_world

    def watched(*args):
        seen.append(probe())
        return sample(*args)

    monkeypatch.setattr(kc_search, "sample_world", watched)
    label_positions(env_id, options, positions, seed=1)
    return seen


def test_searches_pause_the_garbage_collector_and_restore_it(monkeypatch) -> None:
    """The cyclic collector is off while positions are searched (the sampler runs with it off),
    on again after, also after an error, and left off where the caller had turned it off."""
    import gc

    from cahoots_envs.search.rounds import gc_paused

    assert gc.isenabled()
    seen = _label_watching(monkeypatch, gc.isenabled)
    assert seen and not any(seen) and gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()



def test_numpys_huge_page_advice_is_off_while_positions_are_searched(monkeypatch) -> None:
    """numpy's huge-page advice is off while a search runs (its sampler sees it off), as it
    was afterwards, also after an error; where numpy has no such switch nothing is done."""
    from cahoots_envs.search.rounds import _madvise_switch, huge_pages_off

    switch = _madvise_switch()
    get = getattr(np._core.multiarray, "_get_madvise_hugepage", None)
    if switch is None or get is None:
        pytest.skip("this numpy has no huge-page switch to read")
    was = switch(True)
    try:
        seen = _label_watching(monkeypatch, get)
        assert seen and not any(seen) and get()
        with pytest.raises(RuntimeError), huge_pages_off():
            assert not get()
            raise RuntimeError
        assert get()
        switch(False)
        with huge_pages_off():
            pass
        assert not get()
    finally:
        switch(was)