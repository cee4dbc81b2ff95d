"""Real (short) RLlib training on a Ray cluster started with ``ray start --head``: the snapshot
mode in this process, the shared mode through ``python -m cahoots_envs.rllib.train --address auto`` with a
remote env runner; the exported policies act as the RLlib module does and play anywhere."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import cahoots_envs
from cahoots_envs.rllib import export, policy_from_module, ppo_config
from tests_rllib.conftest import RAY_ENV, ROOT, tiny_ppo

ENV_ID = "texas_euchre-v1"
OPTIONS = {"num_players": 4}


def observations(env_id: str, options: dict[str, Any], games: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in ``games`` random games."""
    env = cahoots_envs.make_raw(env_id, **options)
    rng = np.random.default_rng(0)
    obs, masks = [], []
    for g in range(games):
        env.reset(seed=g)
        while not env.game.is_over:
            seen = env.observe(env.agent_selection)
            obs.append(seen["observation"])
            masks.append(seen["action_mask"])
            env.step(int(rng.choice(env.legal_actions())))
    return np.array(obs), np.array(masks)


def assert_same_greedy_actions(module: Any, policy: Any, obs: np.ndarray,
                               masks: np.ndarray) -> None:
    """The numpy policy's greedy masked actions (and legal logits) are the module's."""
    import torch
    from ray.rllib.core.columns import Columns

    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: {
            "observations": torch.from_numpy(obs),
            "action_mask": torch.from_numpy(masks.astype(np.float32))}})
    logits = out[Columns.ACTION_DIST_INPUTS].numpy()
    legal = masks > 0
    np.testing.assert_allclose(policy.logits(obs)[legal], logits[legal], rtol=1e-4, atol=1e-4)
    assert (policy.act_batch(obs, masks) == logits.argmax(-1)).all()
    assert legal[np.arange(len(obs)), logits.argmax(-1)].all()


def weights(algo: Any) -> dict[str, dict[str, np.ndarray]]:
    return {mid: {k: np.array(v) for k, v in state.items()}
            for mid, state in algo.learner_group.get_weights().items()}


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_snapshot_mode_trains_the_learner_against_frozen_refreshed_snapshots(
        ray_cluster: str, tmp_path: Path) -> None:
    config = ppo_config(ENV_ID, OPTIONS, mode="snapshots", snapshot_every=2, hidden=(32, 16),
                        ppo=tiny_ppo(), resources={"num_envs_per_env_runner": 4})
    algo = config.build_algo()
    try:
        w0 = weights(algo)
        snapshots = ["snapshot_1", "snapshot_2", "snapshot_3"]
        assert all(same(w0[s], w0["learner"]) for s in snapshots)  # they start as the learner
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
        w1 = weights(algo)
        assert not same(w1["learner"], w0["learner"])  # the learner learns ...
        assert all(same(w1[s], w0["learner"]) for s in snapshots)  # ... the snapshots do not
        algo.train()  # iteration 2: the learner's weights replace the oldest snapshot
        w2 = weights(algo)
        assert not same(w2["learner"], w1["learner"])
        assert same(w2["snapshot_1"], w2["learner"])
        assert same(w2["snapshot_2"], w0["learner"]) and same(w2["snapshot_3"], w0["learner"])
        # the env runner's copy (what samples; it gets the actor, not the critic) has the
        # refreshed snapshot at once
        runner = {k: v.detach().numpy() for k, v in
                  algo.get_module("snapshot_1").state_dict().items()
                  if k.startswith(("encoder.actor_encoder.", "pi.net."))}
        assert len(runner) == 6
        assert all(np.array_equal(runner[k], w2["learner"][k]) for k in runner)
        # the export acts as the RLlib module does
        obs, masks = observations(ENV_ID, OPTIONS, 12)
        module = algo.get_module("learner")
        assert_same_greedy_actions(module, policy_from_module(module), obs, masks)
        path = tmp_path / "learner.safetensors"
        meta = export(algo, path, ENV_ID, OPTIONS, module_id="learner", name="test")
        assert meta["architecture"]["layer_sizes"] == [1257, 32, 16, 85]
        loaded = cahoots_envs.load_policy(str(path), ENV_ID, OPTIONS)
        assert (loaded.act_batch(obs, masks) == policy_from_module(module).act_batch(obs, masks)
                ).all()
    finally:
        algo.stop()


def test_the_script_on_the_cluster_exports_a_policy_that_plays_anywhere(
        ray_cluster: str, tmp_path: Path) -> None:
    config = {
        "env_id": ENV_ID, "env_options": OPTIONS, "seed": 3, "total_timesteps": 300,
        "description": "test run", "ppo": tiny_ppo(), "model": {"hidden": [32]},
        "self_play": {"mode": "shared"},
        "resources": {"num_env_runners": 1, "num_envs_per_env_runner": 4},
        "eval": {"every": 1, "games": 8, "final_games": 24},
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "cahoots_envs.rllib.train", "--config", str(path), "--address",
         ray_cluster, "--runs-dir", str(runs)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=RAY_ENV, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    out = done.stdout
    assert "ray 2.60" in out and "joined auto" in out and "1 env runners" in out
    assert "Illegal move" not in out + done.stderr and "Traceback" not in done.stderr
    policy_path = run_dir / "policy.safetensors"
    # the next steps seat the policy once against each evaluation opponent, as the final check
    for field in ("random", "heuristic"):
        assert f"cahoots eval {ENV_ID} -n 4 {policy_path} --field {field} --games 24" in out
    assert f"cahoots play {ENV_ID} -n 4 --opponents {policy_path}" in out
    # the logs written as it went, the policy and RLlib's checkpoint
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["total_timesteps"] == 300
    with (run_dir / "progress.csv").open() as f:
        progress = list(csv.DictReader(f))
    assert len(progress) >= 2 and int(progress[-1]["env_steps"]) >= 300
    assert float(progress[-1]["steps_per_second"]) > 0
    with (run_dir / "eval.csv").open() as f:
        evals = list(csv.DictReader(f))
    assert [r["opponent"] for r in evals[-2:]] == ["random", "heuristic"]
    assert [r["games"] for r in evals] == ["8", "8"] * len(progress) + ["24", "24"]
    assert (run_dir / "checkpoint").is_dir()
    meta = json.loads((run_dir / "policy.json").read_text())
    assert "RLlib 2.60" in meta["training"]["algorithm"]
    assert meta["training"]["timesteps"] >= 300
    assert meta["evaluation"]["heuristic"]["games"] == 24
    # it plays as an opponent anywhere: load_policy, tournaments, seat-env pools, the CLI, and
    # as a bot seat of the RLlib env itself
    policy = cahoots_envs.load_policy(str(policy_path), ENV_ID, OPTIONS)
    obs, masks = observations(ENV_ID, OPTIONS, 2)
    assert (masks[np.arange(len(obs)), policy.act_batch(obs, masks)] == 1).all()
    from cahoots_envs.evaluation import run_tournament

    result = run_tournament(ENV_ID, [str(policy_path), "random"], num_games=8, seed=0,
                            options=OPTIONS)
    assert len(result.games) == 8
    assert {s.policy: s.seat_games for s in result.stats} == {str(policy_path): 16, "random": 16}
    from cahoots_envs.training import SeatEnv

    seat_env = SeatEnv(ENV_ID, opponents=str(policy_path), options=OPTIONS)
    seat_env.reset(seed=0)
    for _ in range(500):
        _, _, terminated, _, _ = seat_env.step(int(seat_env.action_masks().argmax()))
        if terminated:
            break
    assert terminated
    cli = subprocess.run(
        [sys.executable, "-m", "cahoots_envs", "eval", ENV_ID, "-n", "4", str(policy_path),
         "heuristic", "random", "--games", "8", "--no-progress"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert cli.returncode == 0, cli.stderr
    assert "policy.safetensors" in cli.stdout
    from cahoots_envs.rllib import CahootsMultiAgentEnv

    env = CahootsMultiAgentEnv({"env_id": ENV_ID, "options": OPTIONS,
                                "bots": [str(policy_path)] * 3, "rotate_seats": True})
    obs_, _ = env.reset(seed=1)
    while True:
        (agent,) = obs_
        obs_, _, terms, _, _ = env.step({agent: int(env.action_spaces[agent].sample())})
        if terms["__all__"]:
            break


def test_export_refuses_what_the_numpy_policy_cannot_run() -> None:
    """A module whose pi head has another activation than its encoder is refused by name."""
    import gymnasium as gym

    from cahoots_envs.rllib.module import MaskedPPOTorchRLModule

    space = gym.spaces.Dict({"observations": gym.spaces.Box(-1, 1, (6,), np.float32),
                             "action_mask": gym.spaces.Box(0, 1, (3,), np.float32)})
    good = MaskedPPOTorchRLModule(observation_space=space, action_space=gym.spaces.Discrete(3),
                                  model_config={"fcnet_hiddens": [8], "fcnet_activation": "tanh",
                                                "head_fcnet_hiddens": []})
    assert policy_from_module(good).architecture()["layer_sizes"] == [6, 8, 3]
    mixed = MaskedPPOTorchRLModule(observation_space=space, action_space=gym.spaces.Discrete(3),
                                   model_config={"fcnet_hiddens": [8], "fcnet_activation": "tanh",
                                                 "head_fcnet_hiddens": [4],
                                                 "head_fcnet_activation": "relu"})
    with pytest.raises(ValueError, match="mixes activations"):
        policy_from_module(mixed)
    with pytest.raises(ValueError, match="needs a Dict observation space"):
        MaskedPPOTorchRLModule(observation_space=space["observations"],
                               action_space=gym.spaces.Discrete(3), model_config={})
