"""An algorithm from another package, on the training toolkit alone: the toy of
``tests/toy_algorithm`` is published in the entry-point group ``cahoots_envs.algorithms``, found
by ``discover_algorithms``, and trains a real network through ``cahoots train``'s entry point
(its config section typed, the run plumbing's folder, checks and saved policy), importing no
built-in algorithm."""

from __future__ import annotations

import ast
import json
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")
torch = pytest.importorskip("torch")

from cahoots_envs.policies.loading import load_policy
from cahoots_envs.training import algorithms
from cahoots_envs.training.config import ConfigError, load_config
from cahoots_envs.training.train import main

TOY = Path(__file__).resolve().parent / "toy_algorithm" / "__init__.py"
BUILT_IN = ("cahoots_envs.training.maskable_ppo", "cahoots_envs.training.every_seat_ppo",
            "cahoots_envs.training.expert_iteration")


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The toy and a broken entry published in the group, discovered as at import."""
    entries = [EntryPoint("toy_ppo", "tests.toy_algorithm:ALGORITHM", algorithms.ENTRY_POINT_GROUP),
               EntryPoint("broken", "tests.no_such_module:ALGORITHM",
                          algorithms.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(algorithms, "entry_points",
                        lambda group: entries if group == algorithms.ENTRY_POINT_GROUP else [])
    with pytest.warns(UserWarning, match=r"skipping the algorithm published as 'broken' "
                      r"\(tests.no_such_module:ALGORITHM\) in 'cahoots_envs.algorithms': "
                      "ModuleNotFoundError"):
        algorithms.discover_algorithms()
    yield
    algorithms.unregister_algorithm("toy_ppo")


def test_the_toy_algorithm_uses_only_the_toolkit_and_the_plumbing() -> None:
    tree = ast.parse(TOY.read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert {"cahoots_envs.training.networks", "cahoots_envs.training.updates",
            "cahoots_envs.training.run"} <= imported
    assert not imported & set(BUILT_IN)


def test_a_published_algorithm_trains_a_real_network_end_to_end(
        published: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert algorithms.algorithm("toy_ppo").tag == "toyppo"
    assert "broken" not in algorithms.algorithms()
    config = {"env_id": "kansas_city-v1", "env_options": {"num_players": 4}, "seed": 3,
              "n_envs": 16, "total_timesteps": 192, "algorithm": "toy_ppo",
              "toy_ppo": {"rollout_steps": 4},
              "ppo": {"net_arch": [16], "batch_size": 32, "n_epochs": 2, "learning_rate": 0.01},
              "eval": {"every": 64, "games": 4, "final_games": 8, "opponents": ["random"]},
              "progress_bar": False}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["--config", str(path), "--runs-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("kansas_city-v1__toyppo__3__")
    assert "win share in one seat vs random opponents:" in out
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["training"]["algorithm"] == "one-step PPO (the toy algorithm of the tests)"
    assert meta["training"]["config"]["sections"]["toy_ppo"] == {"rollout_steps": 4}
    assert meta["training"]["timesteps"] == 192  # 3 rollouts of 4 steps x 16 games
    rows = (run_dir / "eval.csv").read_text().splitlines()
    assert len(rows) == 1 + 3 + 1  # header, a check at 64, 128 and 192 steps, the final one
    # a real network, trained: it loads as a saved MLP policy and differs from a fresh one
    policy = load_policy(str(run_dir / "policy.safetensors"), "kansas_city-v1", {"num_players": 4})
    from cahoots_envs.training.networks import build_network

    torch.manual_seed(3)
    fresh = build_network(policy.layers[0][0].shape[0], policy.layers[-1][0].shape[1], [16],
                          "tanh")
    first = fresh.mlp_extractor.policy_net[0].weight.detach().numpy().T
    assert first.shape == policy.layers[0][0].shape
    assert not np.allclose(first, policy.layers[0][0])
    # its section is typed like any other
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**config, "toy_ppo": {"rollout_stepz": 4}}))
    with pytest.raises(ConfigError, match=r"unknown config key toy_ppo\.rollout_stepz; did you "
                       r"mean toy_ppo\.rollout_steps\?"):
        load_config(bad)
