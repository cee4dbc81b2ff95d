"""Expert iteration (``algorithm: expert_iteration``): the value-tilted targets, the fit that
moves the network toward them, the positions it collects (its own, on the engine), its config
checks, and a tiny run end to end through ``cahoots train``'s entry point that repeats for a
seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("numba")
torch = pytest.importorskip("torch")

from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.saved import read_safetensors
from cahoots_envs.training.config import ConfigError, load_config
from cahoots_envs.training.expert_iteration import (
    ExpertIterationConfig,
    Labelled,
    MlpActor,
    collect_positions,
    fit,
    load_actor,
    masked_probs,
    tilted_targets,
)
from cahoots_envs.training.train import main


def test_the_target_tilts_the_networks_distribution_by_the_values() -> None:
    pi = np.zeros(6)
    pi[[1, 3, 4]] = [0.5, 0.3, 0.2]
    means = np.array([0.2, 0.2, 0.7])  # moves 1, 3, 4
    t = tilted_targets(pi, [1, 3, 4], means, beta=0.1)
    assert t.sum() == pytest.approx(1.0) and t[[0, 2, 5]].tolist() == [0.0, 0.0, 0.0]
    # equal values keep the network's own preference between them
    assert t[1] / t[3] == pytest.approx(0.5 / 0.3)
    # a move better by 0.5 in value gains exp(0.5 / beta) in weight
    assert t[4] / t[3] == pytest.approx(0.2 / 0.3 * np.exp(5.0))
    # equal values everywhere: the target is the network's distribution
    assert tilted_targets(pi, [1, 3, 4], np.full(3, 0.4), 0.1)[[1, 3, 4]] == pytest.approx(
        [0.5, 0.3, 0.2])
    # a small beta makes it the best move; a move the network gives no weight stays at zero
    # unless every weight vanished, then the values alone decide
    assert tilted_targets(pi, [1, 3, 4], means, 1e-4)[4] == pytest.approx(1.0)
    none = np.zeros(6)
    none[1] = 1.0
    assert tilted_targets(none, [3, 4], np.array([0.1, 0.6]), 0.1)[[3, 4]] == pytest.approx(
        [1 / (1 + np.exp(5.0)), np.exp(5.0) / (1 + np.exp(5.0))])


def test_the_fit_moves_the_network_toward_the_targets() -> None:
    from cahoots_envs.training.every_seat_ppo import build_network

    torch.manual_seed(0)
    net = build_network(5, 4, [8], "tanh")
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(64, 5)).astype(np.float32)
    masks = np.ones((64, 4), np.int8)
    masks[:, 0] = 0  # move 0 is never legal
    targets = np.zeros((64, 4), np.float32)
    targets[:, 2] = 1.0  # the search says move 2, everywhere
    data = [Labelled(obs, masks, targets, changed=1.0, gain=0.1)]
    before = masked_probs(MLPPolicy.from_sb3(net).logits(obs), masks)[:, 2].mean()
    section = ExpertIterationConfig(epochs=30, batch_size=16, learning_rate=1e-2)
    optimizer = torch.optim.Adam(net.parameters(), lr=section.learning_rate)
    stats = fit(MlpActor(net), optimizer, data, section, torch.Generator().manual_seed(0))
    after = masked_probs(MLPPolicy.from_sb3(net).logits(obs), masks)
    assert before < 0.5 < after[:, 2].mean() and after[:, 0].max() == 0.0
    assert stats["examples"] == 64.0


def test_a_saved_policy_loads_into_the_network_and_a_mismatch_is_named() -> None:
    from cahoots_envs.training.every_seat_ppo import build_network

    rng = np.random.default_rng(1)
    policy = MLPPolicy([(rng.normal(size=(8, 5)), rng.normal(size=8)),
                        (rng.normal(size=(4, 8)), rng.normal(size=4))])
    net = build_network(5, 4, [8], "tanh")
    load_actor(net, policy)
    obs = rng.normal(size=(3, 5)).astype(np.float32)
    assert MLPPolicy.from_sb3(net).logits(obs) == pytest.approx(policy.logits(obs), abs=1e-5)
    with pytest.raises(ConfigError, match=r"set ppo.net_arch to its hidden sizes \[8\]"):
        load_actor(build_network(5, 4, [16], "tanh"), policy)


def test_positions_are_the_networks_own_decisions_with_a_choice() -> None:
    import cahoots_envs
    from cahoots_envs.search import Infoset
    from cahoots_envs.training.config import TrainConfig

    config = TrainConfig(env_id="cahoots_tricks-v1", env_options={"num_players": 4}, n_envs=8)
    section = ExpertIterationConfig(take=0.5)
    rng = np.random.default_rng(2)
    spec = cahoots_envs.game_spec("cahoots_tricks-v1")
    options = spec.resolve_options({"num_players": 4})
    size, actions = spec.layout(options).size, spec.rules.num_actions(options)
    layers = [(rng.normal(0, 0.1, (16, size)), np.zeros(16)),
              (rng.normal(0, 0.1, (actions, 16)), np.zeros(actions))]

    def sampler() -> MLPPolicy:  # the network sampling its moves, seeded afresh per run
        return MLPPolicy(layers, deterministic=False, seed=3)

    def opponent() -> object:  # the bot breaks ties with its generator: a fresh one per run
        return cahoots_envs.load_policy("heuristic", "cahoots_tricks-v1", {"num_players": 4},
                                        seed=0)

    found = collect_positions(config, section, sampler(), opponent(), 40, 6, seed=3)
    assert len(found.games) == 40 and found.obs.shape == (40, size)
    assert found.decisions >= 40
    for game, obs, mask in zip(found.games, found.obs, found.masks):
        info = Infoset(game, game.current_player, spec, options)
        # the engine's observation and mask are the reference game's, for the seat to move
        assert np.array_equal(info.observation, obs)
        assert np.array_equal(np.asarray(info.action_mask, np.int8), mask)
        assert 2 <= int(mask.sum()) <= 6
    again = collect_positions(config, section, sampler(), opponent(), 40, 6, seed=3)
    assert np.array_equal(found.obs, again.obs)


@pytest.mark.parametrize(("change", "message"), [
    ({"rollout": "network"}, "rollout must be one of blueprint, heuristic"),
    ({"search": {"rollout": "heuristic"}}, "search.rollout is not set here"),
    ({"search": {"worlds": 0}}, "search: search setting worlds is a whole number"),
    ({"search": {"wolrds": 8}}, "unknown search setting 'wolrds'"),
    ({"beta": 0}, "beta must be a number > 0"),
    ({"label_values": "biased"}, "label_values must be one of selection, unbiased"),
    ({"take": 1.5}, r"take must be in \(0, 1\]"),
    ({"random_share": 1.5}, r"random_share must be in \[0, 1\], got 1.5"),
    ({"max_moves": 1}, "max_moves must be >= 2"),
    ({"matched_rollouts": True},
     ("matched_rollouts matches the rollouts to the games against random bots, which "
      "random_share: 0 leaves out")),
    ({"matched_rollouts": "yes", "random_share": 0.5},
     "matched_rollouts: expected true or false, got 'yes'"),
    ({"matched_rollouts": True, "random_share": 0.5, "search": {"leaf": 1}},
     "matched_rollouts plays whole rollouts on the engine"),
    ({"network": {"type": "transformer"}}, "network.type must be action_scoring"),
    ({"network": {"type": "action_scoring", "trunk": [8]}}, "network: unknown keys trunk"),
    ({"network": {"type": "action_scoring", "head_sizes": [0]}},
     r"network.head_sizes is a list of sizes >= 1"),
    ({"network": {"type": "action_scoring", "activation": "gelu"}},
     "network.activation is relu or tanh"),
])
def test_a_bad_section_is_one_line_before_any_work(tmp_path: Path, change: dict,
                                                  message: str) -> None:
    path = tmp_path / "ei.yaml"
    path.write_text(yaml.safe_dump({"env_id": "kansas_city-v1", "algorithm": "expert_iteration",
                                    "expert_iteration": change}))
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_random_share_seats_random_bots_in_that_share_of_the_one_seat_games() -> None:
    """``random_share``: the last share of the one-seat games has random bots in the other
    seats (the rest ``opponent``); without it the random bots never play; positions repeat."""
    import cahoots_envs
    from cahoots_envs.training.config import TrainConfig

    class Counting:  # the real bots, counting the rows they are asked to play
        def __init__(self, name: str) -> None:
            self.bot = cahoots_envs.load_policy(name, "kansas_city-v1", {"num_players": 4},
                                                seed=0)
            self.rows = 0

        def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
            self.rows += len(obs)
            return self.bot.act_batch(obs, masks)  # type: ignore[no-any-return]

    config = TrainConfig(env_id="kansas_city-v1", env_options={"num_players": 4}, n_envs=8)
    network = cahoots_envs.load_policy("zoo:kansas_city", "kansas_city-v1", {"num_players": 4})
    rows, obs = {}, {}
    for share in (0.0, 0.5, 1.0):
        heuristic, randoms = Counting("heuristic"), Counting("random")
        sampler = MLPPolicy([(w.T, b) for w, b in network.layers], network.activation,
                            deterministic=False, seed=3)
        found = collect_positions(config, ExpertIterationConfig(take=0.5, random_share=share),
                                  sampler, heuristic, 30, 12, 3, randoms)
        rows[share], obs[share] = (heuristic.rows, randoms.rows), found.obs
    assert rows[0.0][0] > 0 and rows[0.0][1] == 0
    assert rows[0.5][0] > 0 and rows[0.5][1] > 0
    assert rows[1.0][0] == 0 and rows[1.0][1] > 0
    assert not np.array_equal(obs[0.0], obs[0.5])
    from cahoots_envs.training.config import config_from_dict

    team = {"env_id": "cahoots_coop-v1", "env_options": {"num_players": 3}, "team": True,
            "algorithm": "expert_iteration", "expert_iteration": {"random_share": 0.5}}
    with pytest.raises(ConfigError, match="a team run has no one-seat games to seat random"):
        config_from_dict(team)


def tiny(tmp_path: Path, name: str) -> Path:
    config = {
        "env_id": "cahoots_tricks-v1", "env_options": {"num_players": 4}, "seed": 2,
        "total_timesteps": 48, "n_envs": 8, "engine": "batched", "progress_bar": False,
        "algorithm": "expert_iteration",
        "expert_iteration": {"positions": 24, "take": 0.5, "rollout": "blueprint",
                             "search": {"worlds": 2, "max_worlds": 2}, "epochs": 2,
                             "learning_rate": 1e-3},
        "ppo": {"net_arch": [16]},
        "pretrain": {"games": 4, "epochs": 1},
        "eval": {"every": 24, "games": 8, "final_games": 8, "opponents": ["heuristic"]},
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_tiny_run_trains_end_to_end_and_repeats_for_a_seed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weights = []
    for k in range(2):
        runs = tmp_path / f"runs{k}"
        assert main(["--config", str(tiny(tmp_path, f"ei{k}")), "--runs-dir", str(runs)]) == 0
        (run_dir,) = runs.iterdir()
        assert run_dir.name.startswith("cahoots_tricks-v1__expertiteration__2__")
        weights.append(read_safetensors(run_dir / "policy.safetensors")[0])
        meta = json.loads((run_dir / "policy.json").read_text())
        assert meta["training"]["expert_iteration"]["iterations"] == 2
        progress = (run_dir / "progress.csv").read_text().splitlines()
        assert len(progress) == 3 and "search_changed" in progress[0]
    out = capsys.readouterr().out
    assert "iteration 2: 24 positions" in out
    assert weights[0].keys() == weights[1].keys()
    assert all(np.array_equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_an_action_scoring_network_with_computed_features_runs_end_to_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cooperative team with the look-ahead scoring network: cloned, then labelled only
    where the search bot would search (the endgame), saved with its computed features; the
    clone is saved and measured beside it; a feature set the game lacks is one line first."""
    import cahoots_envs
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.policies.scoring import ActionScoringPolicy

    network = {"type": "action_scoring", "trunk_sizes": [8], "embedding_size": 4,
               "head_sizes": [8], "action_segments": ["my_plays"], "computed": "lookahead"}
    config: dict[str, Any] = {
        "env_id": "cahoots_coop-v1", "env_options": {"num_players": 3}, "seed": 1,
        "total_timesteps": 40, "n_envs": 8, "engine": "batched", "team": True,
        "progress_bar": False, "algorithm": "expert_iteration",
        "pretrain": {"games": 6, "epochs": 1, "soft_targets": True, "learning_rate": 3e-3},
        "expert_iteration": {"positions": 20, "take": 0.5, "only_searched": True,
                             "max_moves": 16, "rollout": "heuristic",
                             "search": {"worlds": 2, "max_worlds": 2}, "epochs": 1,
                             "network": network},
        "eval": {"every": 20, "games": 6, "final_games": 6, "opponents": ["heuristic"]},
    }
    path = tmp_path / "coop.yaml"
    path.write_text(yaml.safe_dump(config))
    runs = tmp_path / "runs"
    assert main(["--config", str(path), "--runs-dir", str(runs)]) == 0
    (run_dir,) = runs.iterdir()
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["architecture"]["type"] == "action_scoring"
    assert meta["architecture"]["computed_features"]["name"] == "lookahead"
    assert meta["training"]["expert_iteration"]["network"] == "action_scoring"
    policy = load_policy(str(run_dir / "policy.safetensors"), "cahoots_coop-v1",
                         {"num_players": 3})
    assert isinstance(policy, ActionScoringPolicy) and policy.computed is not None
    assert (run_dir / "checkpoints" / "cloned.safetensors").is_file()
    out = capsys.readouterr().out
    assert "iteration 2: 20 positions" in out and "the clone it started from" in out
    # the positions kept are the endgame's (the search bot's worth_searching)
    from cahoots_envs.training.actors import scoring_actor
    from cahoots_envs.training.config import TrainConfig

    train_config = TrainConfig(env_id="cahoots_coop-v1", env_options={"num_players": 3},
                               n_envs=8, team=True)
    actor = scoring_actor(train_config, network, "expert_iteration", "expert iteration")
    found = collect_positions(train_config, ExpertIterationConfig(take=0.5, only_searched=True),
                              actor.policy(False, 4), None, 12, 16, seed=4)
    sampler = cahoots_envs.game_spec("cahoots_coop").require("world_sampler")
    assert len(found.games) == 12
    assert all(sampler.worth_searching(g, g.current_player) for g in found.games)
    for change, message in ((("computed", "nope"), "'nope' are not offered by cahoots_coop"),
                            (("action_segments", ["hand"]), "'hand' has 28 entries")):
        bad = {**network, change[0]: change[1]}
        path.write_text(yaml.safe_dump({**config, "expert_iteration": {
            **config["expert_iteration"], "network": bad}}))
        with pytest.raises(ConfigError, match=message):  # as the config loads: no run folder
            load_config(path)


def test_labels_tilt_by_the_independent_worlds_values_with_label_values_unbiased() -> None:
    """``label_values: unbiased``: every searched label carries values from independent
    worlds, and the target tilts the network's distribution by those (``check_means``), not
    by the values of the worlds that chose the move."""
    import cahoots_envs
    from cahoots_envs.training.config import TrainConfig
    from cahoots_envs.training.expert_iteration import Positions, label

    config = TrainConfig(env_id="kansas_city-v1", env_options={"num_players": 4, "hands": 1},
                         n_envs=8)
    spec = cahoots_envs.game_spec("kansas_city-v1")
    options = spec.resolve_options({"num_players": 4, "hands": 1})
    rng = np.random.default_rng(0)
    size, actions = spec.layout(options).size, spec.rules.num_actions(options)
    net = MLPPolicy([(rng.normal(0, 0.1, (16, size)), np.zeros(16)),
                     (rng.normal(0, 0.1, (actions, 16)), np.zeros(actions))])
    from tests.search_checks import record_game

    games, _ = record_game("kansas_city-v1", options, 4)
    picked = [g for g in games if not g.is_over and 2 <= len(g.legal_actions()) <= 12][5:11]
    obs = np.zeros((len(picked), size), np.float32)
    masks = np.zeros((len(picked), actions), np.int8)
    for k, g in enumerate(picked):
        g.encode(g.current_player, obs[k])
        masks[k, g.legal_actions()] = 1
    positions = Positions(picked, obs, masks, len(picked))
    section = ExpertIterationConfig(label_values="unbiased", rollout="heuristic",
                                    search={"worlds": 4, "max_worlds": 4})
    got = label(config, section, net, positions, seed=1)
    from cahoots_envs.search import label_positions

    labels = label_positions("kansas_city-v1", options, picked, blueprint=net, seed=1,
                             blueprint_name="network", rollout="heuristic", unbiased=True,
                             engine="batched", worlds=4, max_worlds=4)
    pi = masked_probs(net.logits(obs), masks)
    want = [tilted_targets(pi[k], lab.legal, lab.check_means, section.beta)
            for k, lab in enumerate(labels) if lab.searched]
    assert len(want) >= 1
    np.testing.assert_allclose(got.targets, np.array(want), atol=1e-6)


@pytest.mark.parametrize("matched", [False, True])
def test_a_run_with_random_share_resumes_bit_identically(tmp_path: Path, matched: bool) -> None:
    """The random bots' draws are in the checkpoint: a run stopped in its second iteration's
    fit and resumed ends with the weights of the run never stopped (with ``matched_rollouts``
    too: the rollouts' random bots are seeded by the iteration)."""
    from cahoots_envs.training.checkpoint import SimulatedStop, arm_stop

    weights = []
    for name, stop in (("whole", 0), ("stopped", 3)):
        path = tiny(tmp_path, name)
        config = yaml.safe_load(path.read_text())
        config["expert_iteration"]["random_share"] = 0.5
        config["expert_iteration"]["matched_rollouts"] = matched
        path.write_text(yaml.safe_dump(config))
        runs = tmp_path / name
        if stop:
            arm_stop("update", stop)
            try:
                with pytest.raises(SimulatedStop):
                    main(["--config", str(path), "--runs-dir", str(runs)])
            finally:
                arm_stop("update", 0)
            (run_dir,) = runs.iterdir()
            assert main(["--resume", str(run_dir)]) == 0
        else:
            assert main(["--config", str(path), "--runs-dir", str(runs)]) == 0
        (run_dir,) = runs.iterdir()
        weights.append(read_safetensors(run_dir / "policy.safetensors")[0])
    assert all(np.array_equal(weights[0][k], weights[1][k]) for k in weights[0])
