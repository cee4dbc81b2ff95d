"""The cooperative game's ``two_ahead`` per-play features (games/cahoots_coop/two_ahead.py): the
compiled kernel equals the numpy reference, they read nothing hidden (re-dealt hidden cards give
the same features), with open hands they say what the next player can really do, and a network
reading ``lookahead`` starts one reading ``two_ahead`` move for move."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.games.cahoots_coop import features, two_ahead
from cahoots_envs.games.cahoots_coop.goals import KINDS, PILES
from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

SPEC = cahoots_envs.game_spec("cahoots_coop")
PLAYS = KINDS * PILES


def positions(options: dict[str, Any], seeds: int = 3) -> tuple[dict[str, Any], list[Any],
                                                                 np.ndarray]:
    """Every decision of ``seeds`` seeded games (random and the team bot's moves mixed): the
    resolved options, a copy of each game at the decision, and the mover's observations."""
    opts = SPEC.resolve_options(options)
    size, num_actions = CahootsCoop.layout(opts).size, CahootsCoop.num_actions(opts)
    games, rows = [], []
    rng = np.random.default_rng(0)
    for seed in range(seeds):
        game = CahootsCoop(opts, np.random.default_rng(seed), None)
        bot = SPEC.bot(opts, seed=seed)
        while not game.is_over:
            obs = np.zeros(size, np.float32)
            game.encode(game.current_player, obs)
            games.append(game.clone())
            rows.append(obs)
            mask = np.zeros(num_actions, np.int8)
            mask[game.legal_actions()] = 1
            game.apply(int(rng.choice(game.legal_actions())) if rng.random() < 0.5
                       else bot.act(obs, mask))
    return opts, games, np.stack(rows)


@pytest.mark.parametrize("options", [
    {"num_players": 1, "difficulty": "beginner"},
    {"num_players": 2, "multicolour_mode": "disjunctive"},
    {"num_players": 3},
    {"num_players": 3, "open_hands": True, "difficulty": "beginner"},
    {"num_players": 4, "num_goals": 6},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_the_compiled_features_equal_the_numpy_reference(options: dict[str, Any]) -> None:
    pytest.importorskip("numba")
    opts, _, obs = positions(options)
    n, num_actions = opts["num_players"], CahootsCoop.num_actions(opts)
    compiled = two_ahead.next_features(obs, n, num_actions)
    reference = two_ahead._next_numpy(obs, CahootsCoop.layout(opts), n, num_actions)
    assert len(obs) > 50 and compiled.shape == reference.shape == (len(obs), num_actions, 8)
    assert np.abs(compiled - reference).max() <= 1e-6
    both = two_ahead.two_ahead(obs, n, num_actions)
    assert both.shape[-1] == len(two_ahead.TWO_AHEAD_FEATURES) == 21
    # lookahead's features first, unchanged, then the new ones
    assert np.array_equal(both[..., :13], features.lookahead(obs, n, num_actions))
    assert np.array_equal(both[..., 13:], compiled)
    at = CahootsCoop.layout(opts).offsets["hand"]
    held = np.repeat(obs[:, at:at + KINDS] > 0.5, PILES, axis=1)
    assert not compiled[:, :PLAYS][~held].any() and not compiled[:, PLAYS:].any()
    if n == 1:
        assert not compiled.any()  # nobody plays next but the acting seat itself
    else:
        assert compiled[:, :PLAYS][held].any(axis=-1).mean() > 0.5
        assert 0.0 <= compiled.min() and compiled.max() <= 1.0


@pytest.mark.parametrize("options", [{"num_players": 3}, {"num_players": 2,
                                                           "difficulty": "beginner"}],
                         ids=["3", "2,beginner"])
def test_the_features_read_nothing_hidden(options: dict[str, Any]) -> None:
    """The hidden cards (the other hands, the draw pile, the goal deck) re-dealt consistently
    with the acting seat's knowledge (the search's world sampler) leave every feature as it was,
    though the next player's hand changes."""
    from cahoots_envs.games.cahoots_coop import search

    opts, games, obs = positions(options, seeds=2)
    n, num_actions = opts["num_players"], CahootsCoop.num_actions(opts)
    size = CahootsCoop.layout(opts).size
    rng = np.random.default_rng(7)
    before = two_ahead.two_ahead(obs, n, num_actions)
    changed = 0
    for i in range(0, len(games), 3):
        game = games[i]
        seat = game.current_player
        for _ in range(2):
            world = search.sample_world(game, seat, rng).game
            redealt = np.zeros(size, np.float32)
            world.encode(seat, redealt)
            after = two_ahead.two_ahead(redealt[None], n, num_actions)[0]
            assert np.array_equal(after, before[i])
            nxt = (seat + 1) % n
            changed += sorted(world.hands[nxt]) != sorted(game.hands[nxt])
    assert changed > 10


def test_with_open_hands_they_say_what_the_next_player_can_do() -> None:
    """With open hands the next player's cards are known: after each play that completes no
    goal, ``next_any`` is 1 exactly when one of their legal plays would complete a goal (their
    observation's ``play_completes``), and ``next_gain`` is the most goals one play completes;
    ``next_stuck`` is 1 exactly when they have no legal play."""
    opts, games, obs = positions({"num_players": 3, "open_hands": True}, seeds=3)
    n, num_actions = opts["num_players"], CahootsCoop.num_actions(opts)
    layout = CahootsCoop.layout(opts)
    at = {name: i for i, name in enumerate(two_ahead.TWO_AHEAD_FEATURES)}
    f = two_ahead.two_ahead(obs, n, num_actions)
    checked = hits = 0
    for i, game in enumerate(games):
        for a in game.legal_actions():
            if a >= PLAYS or f[i, a, at["completes"]] > 0:
                continue
            after = game.clone()
            after.apply(a)
            if after.is_over:
                continue
            seen = np.zeros(layout.size, np.float32)
            after.encode(after.current_player, seen)
            o = layout.offsets
            legal = seen[o["my_plays"]:o["my_plays"] + PLAYS] > 0.5
            completes = seen[o["play_completes"]:o["play_completes"] + PLAYS]
            best = float(np.where(legal, completes, 0.0).max()) * 4
            assert f[i, a, at["next_any"]] == (best > 0)
            assert abs(f[i, a, at["next_gain"]] * 4 - best) < 1e-6
            assert f[i, a, at["next_stuck"]] == (not legal.any())
            checked += 1
            hits += best > 0
    assert checked > 500 and hits > 20


def test_a_lookahead_network_starts_a_two_ahead_network_move_for_move() -> None:
    """``start: zoo:cahoots_coop`` (the ``lookahead`` features) under ``computed: two_ahead``:
    the new input columns start at zero, so the network chooses every move as the zoo entry."""
    pytest.importorskip("torch")
    from cahoots_envs.envinfo import env_info
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.training.actors import scoring_actor
    from cahoots_envs.training.config import config_from_dict
    from cahoots_envs.vector import make

    network = {"type": "action_scoring", "trunk_sizes": [64], "embedding_size": 16,
               "head_sizes": [64], "direct": True,
               "action_segments": ["my_plays", "play_completes"], "computed": "two_ahead"}
    config = config_from_dict({
        "env_id": "cahoots_coop-v1", "team": True, "engine": "batched",
        "env_options": {"num_players": 3, "difficulty": "normal", "reward_mode": "points"},
        "algorithm": "expert_iteration", "expert_iteration": {"network": network}})
    actor = scoring_actor(config, network, "expert_iteration", "expert iteration")
    assert actor.record["name"] == "two_ahead" and actor.record["size"] == 21
    actor.start("zoo:cahoots_coop")
    widened = actor.policy()
    zoo = load_policy("zoo:cahoots_coop", "cahoots_coop-v1", {"num_players": 3})
    assert env_info("cahoots_coop-v1", {"num_players": 3}).num_actions == 112
    vec = make("cahoots_coop-v1", 32, seed=3, num_players=3)
    out = vec.reset(seed=3)
    for _ in range(30):
        mine = widened.act_batch(out.obs, out.mask)
        assert np.array_equal(mine, zoo.act_batch(out.obs, out.mask))
        out = vec.step(mine)
