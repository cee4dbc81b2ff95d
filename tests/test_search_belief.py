"""Search's ``belief`` setting: worlds weighed by how likely the blueprint network makes the other
seats' moves of the current hand there. The engine's log-likelihoods equal a replay of each
world's history (as the engine loads it) through the reference game with the network asked at
every move of another seat; the weighted verdict reduces to the plain one for equal weights and follows the
weight; a bot that cannot weigh says so at once; a seeded bot repeats its moves."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.search import Infoset, SearchPolicy
from cahoots_envs.search.rounds import judge
from tests.search_checks import record_game

pytest.importorskip("numba")

TE = "cahoots_envs/texas_euchre-v1"


def _network(env_id: str, options: dict[str, Any], seed: int = 0) -> MLPPolicy:
    """A small random network with logits of a few units: its probabilities differ by world."""
    info = cahoots_envs.make_raw(env_id, **options)
    rng = np.random.default_rng(seed)
    sizes = [info.spec.layout(info.options).size, 16,
             info.spec.rules.num_actions(info.options)]
    weights = [(rng.normal(0, 1.0, (b, a)).astype(np.float32), rng.normal(0, 0.1, b).astype(
        np.float32)) for a, b in itertools.pairwise(sizes)]
    return MLPPolicy(weights, "tanh")


def _reference_log_likelihood(spec: Any, opts: dict[str, Any], world: Any, seat: int,
                              start: int, net: MLPPolicy, scale: float) -> float:
    """The world's history as the engine loads it (``rollout_history``) replayed through the
    reference game; from ``start`` on, every other seat's move scored by the network at that
    seat's observation."""
    deals, actions = world.rollout_history()
    game = spec.rules(opts, np.random.default_rng(0), deals)
    size = spec.layout(opts).size
    total = 0.0
    for i, action in enumerate(actions):
        mover = game.current_player
        if i >= start and mover != seat:
            obs = np.zeros(size, np.float32)
            game.encode(mover, obs)
            legal = game.legal_actions()
            logits = scale * net.logits(obs[None])[0].astype(np.float64)[legal]
            top = logits.max()
            total += float(logits[legal.index(action)] - top - np.log(np.exp(logits - top).sum()))
        game.apply(action)
    return total


def test_engine_log_likelihoods_are_the_reference_replays() -> None:
    opts = cahoots_envs.game_spec(TE).resolve_options({"num_players": 4})
    spec = cahoots_envs.game_spec(TE)
    net = _network(TE, opts)
    bot = SearchPolicy(TE, opts, blueprint=net, blueprint_name="net", seed=0, belief=0.7)
    engine = bot._engine_rollouts()
    assert engine is not None
    games, _ = record_game(TE, opts, 5)
    checked = spread = 0
    for game in games[5:-1:9]:
        seat = game.current_player
        info = Infoset(game, seat, spec, opts)
        start = info.hand_start()
        worlds = [info.sample(np.random.default_rng([7, k])) for k in range(6)]
        got = engine.log_likelihoods(worlds, seat, start, net, 0.7)
        want = [_reference_log_likelihood(spec, opts, w, seat, start, net, 0.7) for w in worlds]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
        checked += int(len(game.history) > start)
        spread += int(np.ptp(got) > 1e-3)
    assert checked >= 3 and spread >= 2  # later positions, whose worlds the moves tell apart


def test_weighted_verdict_reduces_to_the_plain_one_and_follows_the_weight() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        values = rng.random((int(rng.integers(2, 20)), 4))
        b = int(rng.integers(4))
        assert judge(values, b, 1.0, 16, np.full(len(values), 2.5)) == judge(values, b, 1.0, 16)
    # move 1 gains in the first world only, move 2 in the others
    values = np.array([[0.0, 1.0, -1.0]] + [[0.0, -0.2, 0.5]] * 5)
    assert judge(values, 0, 0.5, 6)[1] == 2
    heavy = np.array([1.0] + [1e-9] * 5)
    _, best, confident = judge(values, 0, 0.5, 6, heavy)
    assert best == 1 and not confident  # one world holds the weight: no standard error to trust
    weights = np.array([5.0, 5.0, 5.0, 1e-9, 1e-9, 1e-9])
    values = np.array([[0.0, 1.0, -1.0]] * 3 + [[0.0, -0.2, 0.5]] * 3) + \
        np.array([[0, 0.1, 0], [0, -0.1, 0], [0, 0.05, 0]] * 2)
    assert judge(values, 0, 0.5, 6, weights)[1:] == (1, True)


@pytest.mark.parametrize("env_id", [TE, "cahoots_envs/kansas_city-v1",
                                    "cahoots_envs/cahoots_tricks-v1"])
def test_hand_start_is_where_the_current_hand_was_dealt(env_id: str) -> None:
    """Replaying a game's history, its last deal comes exactly after ``hand_start`` actions."""
    spec = cahoots_envs.game_spec(env_id)
    opts = spec.resolve_options({"num_players": 4})
    sampler = spec.require("world_sampler")
    games, _ = record_game(env_id, opts, 6)
    later = 0
    for game in games[:-1:7]:
        start = sampler.hand_start(game)
        replay = spec.rules(opts, np.random.default_rng(0), game.deals)
        dealt = []
        for action in game.history:
            dealt.append(len(replay.deals))
            replay.apply(action)
        dealt.append(len(replay.deals))
        assert dealt[start] == len(game.deals) and (start == 0 or dealt[start - 1] < dealt[start])
        later += start > 0
    assert later or env_id.endswith("tricks-v1")


def test_belief_knob_errors_are_one_clear_line() -> None:
    opts = cahoots_envs.game_spec(TE).resolve_options({"num_players": 4})
    with pytest.raises(ValueError, match=r"belief needs a network blueprint .* got heuristic"):
        SearchPolicy(TE, opts, belief=1.0)
    with pytest.raises(ValueError, match="belief is a number >= 0"):
        SearchPolicy(TE, opts, belief=-1.0)
    coop = "cahoots_envs/cahoots_coop-v1"
    coop_opts = cahoots_envs.game_spec(coop).resolve_options({"num_players": 3})
    with pytest.raises(ValueError, match="hand_start"):
        SearchPolicy(coop, coop_opts, blueprint=_network(coop, coop_opts), blueprint_name="net",
                     belief=1.0)
    with pytest.raises(ValueError, match="batched engine"):
        SearchPolicy(TE, opts, blueprint=_network(TE, opts), blueprint_name="net",
                     engine="reference", belief=1.0)
    assert SearchPolicy(TE, opts, blueprint=_network(TE, opts), blueprint_name="net",
                        belief=0.0).settings["belief"] == 0.0


def test_a_believing_bot_repeats_its_moves_and_searches_with_weights(monkeypatch) -> None:
    import cahoots_envs.search.policy as policy_module

    opts = cahoots_envs.game_spec(TE).resolve_options({"num_players": 4})
    spec = cahoots_envs.game_spec(TE)
    net = _network(TE, opts, seed=3)
    weighted = []
    plain_judge = policy_module.judge

    def watched(values, b, gate, most, weights=None):
        weighted.append(weights is not None and len(weights) == len(values))
        return plain_judge(values, b, gate, most, weights)

    monkeypatch.setattr(policy_module, "judge", watched)
    runs = []
    for _ in range(2):
        bot = SearchPolicy(TE, opts, blueprint=net, blueprint_name="net", seed=4, belief=0.5)
        game = spec.rules(opts, np.random.default_rng(9), None)
        moves = []
        while not game.is_over and len(moves) < 40:
            info = Infoset(game, game.current_player, spec, opts)
            move = bot.act_infoset(info) if game.current_player == 0 else \
                int(net.act(info.observation, info.action_mask))
            moves.append(move)
            game.apply(move)
        runs.append(moves)
    assert runs[0] == runs[1]
    assert weighted and all(weighted)
