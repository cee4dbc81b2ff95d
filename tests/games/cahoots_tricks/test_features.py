"""Cahoots (competitive) per-move ``tactics`` features: they hold the heuristic bot's scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cahoots_envs.games.cahoots_tricks.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_tricks.features import TACTICS_FEATURES, tactics
from cahoots_envs.games.cahoots_tricks.rules import NUM_ACTIONS, CahootsTricks

AT = {name: i for i, name in enumerate(TACTICS_FEATURES)}


def bot_score(f: np.ndarray, face_value: bool) -> np.ndarray:
    """The heuristic bot's score of every move, read linearly off the features."""
    return (4 * f[:, AT["share"]] + 0.5 * f[:, AT["margin"]] - 0.3 * f[:, AT["cost"]]
            + 12 * f[:, AT["keep_worth"]] + 8 * f[:, AT["kill_worth"]]
            + (12 * f[:, AT["kill_share"]] if face_value else 0.0)
            + 8 * f[:, AT["take"]] * f[:, AT["value"]])


@pytest.mark.parametrize("options", [
    {"num_players": 4},
    {"num_players": 3},
    {"scoring": "face_value"},
    {"scoring": "face_value", "num_players": 3, "point_split": "random"},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_a_linear_read_of_the_features_is_the_bots_score(options: dict[str, Any]) -> None:
    """At every decision of heuristic games (with a random seat, so that odd positions come up),
    the linear read equals the bot's score of every legal move, and so picks exactly its best."""
    opts = CahootsTricks.OPTIONS.resolve(dict(options))
    n = opts["num_players"]
    size = CahootsTricks.layout(opts).size
    face_value = opts["scoring"] == "face_value"
    checked = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        game = CahootsTricks(opts, rng, None)
        bot = HeuristicPolicy(opts, seed=seed)
        while not game.is_over:
            obs = np.zeros(size, np.float32)
            game.encode(game.current_player, obs)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            legal = game.legal_actions()
            mask[legal] = 1
            f = tactics(obs[None], n, NUM_ACTIONS)[0].astype(np.float64)
            assert f.shape == (NUM_ACTIONS, len(TACTICS_FEATURES))
            score = bot_score(f, face_value)
            if len(legal) > 1:
                expected = bot._scores(np.asarray(sorted(legal)), obs)
                for a, s in expected.items():
                    assert score[a] == pytest.approx(s, abs=1e-5), (a, f[a])
                best = bot.best_actions(obs, mask)
                read = np.where(mask > 0, score, -np.inf)
                assert np.flatnonzero(read >= read.max() - 1e-6).tolist() == best
                checked += 1
            move = (int(rng.choice(legal)) if game.current_player == 0
                    else bot.act(obs, mask))
            game.apply(move)
    assert checked > 150


def test_the_features_are_computed_in_batches_and_check_their_input() -> None:
    """A batch gives each row's features; a wrong shape is one clear error."""
    opts = CahootsTricks.OPTIONS.resolve({})
    size = CahootsTricks.layout(opts).size
    game = CahootsTricks(opts, np.random.default_rng(5), None)
    rows: list[np.ndarray] = []
    while not game.is_over and len(rows) < 40:
        obs = np.zeros(size, np.float32)
        game.encode(game.current_player, obs)
        rows.append(obs)
        game.apply(int(game.legal_actions()[0]))
    batch = tactics(np.stack(rows), 4, NUM_ACTIONS)
    for i, obs in enumerate(rows):
        np.testing.assert_array_equal(batch[i], tactics(obs[None], 4, NUM_ACTIONS)[0])
    with pytest.raises(ValueError, match="must be"):
        tactics(rows[0], 4, NUM_ACTIONS)
    with pytest.raises(ValueError, match="do not fit"):
        tactics(np.stack(rows), 4, 90)


def test_a_scoring_network_reads_the_features_alone() -> None:
    """An action-scoring network with no observation segments, only the tactics features: the
    numpy policy equals its torch twin and plays legal moves in batches."""
    import torch

    from cahoots_envs.envinfo import env_info
    from cahoots_envs.training.scoring import ScoringNet, export_policy

    info = env_info("cahoots_tricks-v1", {})
    record = {"game": "cahoots_tricks", "name": "tactics", "size": len(TACTICS_FEATURES),
              "num_players": 4}
    torch.manual_seed(2)
    net = ScoringNet(info.layout.size, NUM_ACTIONS, [], (16,), 4, (8,), "relu", True,
                     len(TACTICS_FEATURES))
    policy = export_policy(net, [], [], record)
    game = CahootsTricks(info.options, np.random.default_rng(9), None)
    obs, masks = [], []
    while not game.is_over:
        o = np.zeros(info.layout.size, np.float32)
        game.encode(game.current_player, o)
        m = np.zeros(NUM_ACTIONS, np.int8)
        m[game.legal_actions()] = 1
        obs.append(o)
        masks.append(m)
        game.apply(int(policy.act(o, m)))
    x = np.stack(obs)
    with torch.no_grad():
        want = net(torch.as_tensor(x), torch.as_tensor(tactics(x, 4, NUM_ACTIONS))).numpy()
    np.testing.assert_allclose(policy.logits(x), want, atol=1e-5)
    moves = policy.act_batch(x, np.stack(masks))
    assert all(m[a] for a, m in zip(moves, masks))


@pytest.mark.parametrize("options", [
    {"num_players": 4}, {"num_players": 3}, {"scoring": "face_value", "num_players": 3},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_the_compiled_features_equal_the_numpy_reference_bit_for_bit(
        options: dict[str, Any]) -> None:
    """``features_kernel.tactics_rows`` (what ``tactics`` runs with numba) gives the numpy
    features exactly, so a network trained on either path is the same network."""
    pytest.importorskip("numba")
    from cahoots_envs.games.cahoots_tricks import features

    opts = CahootsTricks.OPTIONS.resolve(dict(options))
    n = opts["num_players"]
    layout = CahootsTricks.layout(opts)
    rows = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        game = CahootsTricks(opts, rng, None)
        bot = HeuristicPolicy(opts, seed=seed)
        while not game.is_over:
            obs = np.zeros(layout.size, np.float32)
            game.encode(game.current_player, obs)
            rows.append(obs)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[game.legal_actions()] = 1
            game.apply(int(rng.choice(game.legal_actions())) if seed == 2
                       else bot.act(obs, mask))
    obs = np.stack(rows)
    compiled = features.tactics(obs, n, NUM_ACTIONS)
    reference = features._tactics_numpy(obs, layout.offsets, n, NUM_ACTIONS)
    assert len(rows) > 200 and compiled.shape == reference.shape
    assert np.array_equal(compiled, reference)
