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
              "toy_ppo": {"rollout_steps": 4, "ppo": {"net_arch": [16], "batch_size": 32,
                                                      "n_epochs": 2, "learning_rate": 0.01}},
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
    bad.write_text(yaml.safe_dump({**config, "toy_ppo": {**config["toy_ppo"], "rollout_stepz": 4}}))
    with pytest.raises(ConfigError, match=r"unknown config key toy_ppo\.rollout_stepz; did you "
                       r"mean toy_ppo\.rollout_steps\?"):
        load_config(bad)


OLD_LAYOUT = {"env_id": "kansas_city-v1", "algorithm": "every_seat_ppo",
              "every_seat_ppo": {"self_play_share": 0.25},
              "ppo": {"n_steps": 16, "net_arch": [32]}, "pool": {"random": 3.0}}


def test_an_algorithm_s_ppo_and_pool_settings_are_its_own_section() -> None:
    """``ppo`` and ``pool`` in the algorithm's section load as the config's ``ppo`` and ``pool``;
    at the top level (the layout before 0.3.0) the same config, with a deprecation note; a run's
    config.yaml writes them in the section and reads back the same config."""
    from cahoots_envs.training.checkpoint import config_digest
    from cahoots_envs.training.config import config_from_dict

    new = {"env_id": "kansas_city-v1", "algorithm": "every_seat_ppo",
           "every_seat_ppo": {"self_play_share": 0.25, "ppo": {"n_steps": 16, "net_arch": [32]},
                              "pool": {"random": 3.0}}}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new layout: no note
        config = config_from_dict(new)
    assert config.ppo.n_steps == 16 and config.pool.random == 3.0
    assert config.sections["every_seat_ppo"].self_play_share == 0.25
    with pytest.warns(DeprecationWarning, match=r"^config: ppo and pool at the top level of a "
                      r"config is deprecated; write them in the algorithm's own section "
                      r"\(every_seat_ppo: \{ppo: \.\.\., pool: \.\.\.\}\)$"):
        old = config_from_dict(OLD_LAYOUT)
    assert old == config and config_digest(old) == config_digest(config)  # resumes either's run
    written = config.as_written()
    assert "ppo" not in written and written["sections"]["every_seat_ppo"]["ppo"]["n_steps"] == 16
    assert config_from_dict(yaml.safe_load(yaml.safe_dump(written))) == config
    # MaskablePPO, the default, has no settings of its own besides them
    plain = config_from_dict({"env_id": "kansas_city-v1", "maskable_ppo": {"ppo": {"n_steps": 8}}})
    assert plain.ppo.n_steps == 8 and plain.sections == {}
    assert config_from_dict(yaml.safe_load(yaml.safe_dump(plain.as_written()))) == plain


@pytest.mark.parametrize(("data", "message"), [
    ({**OLD_LAYOUT, "every_seat_ppo": {"ppo": {"n_steps": 8}}},
     (r"^ppo is given twice, at the top level and in every_seat_ppo; keep the one in "
      r"every_seat_ppo$")),
    ({"env_id": "kansas_city-v1", "maskable_ppo": {"ppo": {}, "n_step": 8}},
     r"^unknown config key maskable_ppo\.n_step; maskable_ppo's section holds ppo and pool$"),
    ({"env_id": "kansas_city-v1", "maskable_ppo": [1]},
     r"^maskable_ppo: expected a mapping of settings, got \[1\]$"),
    ({"env_id": "kansas_city-v1", "maskable_ppo": {"ppo": {"n_stepz": 8}}},
     r"^unknown config key maskable_ppo\.ppo\.n_stepz; did you mean maskable_ppo\.ppo\.n_steps\?"),
    ({**OLD_LAYOUT, "ppo": {"n_stepz": 8}},  # the layout before 0.3.0: named where written
     r"^unknown config key ppo\.n_stepz; did you mean ppo\.n_steps\?"),
    ({"env_id": "kansas_city-v1", "algorithm": "every_seat_ppo",
      "sections": {"every_seat_ppo": {"pool": {"random": "x"}}}},
     r"^sections\.every_seat_ppo\.pool\.random: expected a number, got 'x'$"),
])
def test_a_misplaced_algorithm_setting_is_one_line(data: dict[str, Any], message: str) -> None:
    from cahoots_envs.training.config import config_from_dict

    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


def test_the_shipped_configs_write_ppo_and_pool_in_their_algorithm_s_section() -> None:
    import warnings

    from cahoots_envs.training.config import CONFIG_DIR, load_config

    paths = sorted(p for p in CONFIG_DIR.rglob("*.yaml") if p.parent.name != "rllib")
    assert len(paths) >= 11
    for path in paths:
        data = yaml.safe_load(path.read_text())
        assert not {"ppo", "pool"} & set(data), path.name
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            load_config(path)
