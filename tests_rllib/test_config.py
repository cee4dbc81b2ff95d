"""RLlib configs: the shipped YAML files, validation errors (one line each), the script's checks
before any work, and the PPO configs of both self-play modes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from cahoots_envs.rllib.config import (
    RLlibTrainConfig,
    load_config,
    map_shared,
    map_snapshots,
    ppo_config,
)
from cahoots_envs.rllib.train import main
from cahoots_envs.training.config import ConfigError
from tests_rllib.conftest import ROOT

CONFIGS = sorted((ROOT / "configs" / "rllib").glob("*.yaml"))


def test_one_config_per_game_and_each_loads() -> None:
    assert [p.stem for p in CONFIGS] == ["cahoots_coop", "cahoots_tricks", "kansas_city",
                                         "texas_euchre"]
    for path in CONFIGS:
        config = load_config(path)
        assert isinstance(config, RLlibTrainConfig)
        assert config.env_id.split("-v")[0] == path.stem
        assert ppo_config(config.env_id, config.env_options, mode=config.self_play.mode,
                          bots=config.self_play.bots).env_config["env_id"].endswith(path.stem + "-v1")


BASE = {"env_id": "texas_euchre-v1", "env_options": {"num_players": 4}}


@pytest.mark.parametrize("change,message", [
    ({"ppo": {"lr": 0.001, "n_epochs": 3}},
     "unknown config key ppo.n_epochs; did you mean ppo.num_epochs?"),
    ({"self_play": {"mode": "league"}}, "self_play.mode: 'league' is not 'shared' or 'snapshots'"),
    ({"model": {"activation": "gelu"}}, "model.activation: 'gelu' is not 'tanh' or 'relu'"),
    ({"model": {"hidden": []}}, "model.hidden: layer sizes must be a non-empty list"),
    ({"ppo": {"minibatch_size": 4096, "train_batch_size": 1024}},
     "ppo.minibatch_size 4096 is larger than ppo.train_batch_size 1024"),
    ({"total_timesteps": 0}, "total_timesteps must be positive, got 0"),
    ({"total_timesteps": "lots"}, "total_timesteps: expected an int, got 'lots'"),
    ({"self_play": {"bots": ["heuristic"] * 4}}, "self_play.bots: 4 bots leave no seat"),
    ({"self_play": {"mode": "snapshots", "bots": ["heuristic"] * 3}},
     "'snapshots' needs at least two learning seats"),
    ({"self_play": {"bots": ["zoo:kansas_city"]}}, "policy 'zoo:kansas_city': "),
    ({"eval": {"opponents": ["champion"]}}, "policy 'champion': "),
    ({"env_id": "texas_euchre-v9"}, "env_id/env_options: "),
    ({"env_options": {"num_players": 9}}, "env_id/env_options: "),
    ({"resources": {"num_env_runners": -1}}, "resources.num_env_runners must be 0 or more"),
])
def test_config_errors_are_one_line(change: dict[str, Any], message: str,
                                    tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**BASE, **change}))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value), str(info.value)
    assert "\n" not in str(info.value)


def test_script_refuses_bad_input_in_one_line_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import ray

    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(BASE))
    a_file = tmp_path / "file"
    a_file.write_text("")
    cases = [
        (["--config", str(tmp_path / "missing.yaml")], "no config file"),
        (["--config", str(tmp_path)], "is a folder"),
        (["--config", str(good), "--runs-dir", str(a_file)], "is a file; give a folder"),
        (["--config", str(good), "--runs-dir", str(a_file / "x")], "cannot write in"),
        (["--config", str(good), "--total-timesteps", "0"], "--total-timesteps must be positive"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert not ray.is_initialized()  # refused before Ray started
    assert not any(tmp_path.glob("*/*__rllib_ppo__*"))


def test_shared_mode_config() -> None:
    config = ppo_config("kansas_city-v1", {"num_players": 5}, hidden=(32,), activation="relu")
    assert set(config.policies) == {"shared"} and config.policies_to_train == ["shared"]
    assert {map_shared(f"player_{k}") for k in range(5)} == {"shared"}
    assert config.env_config["rotate_seats"] is False
    spec = config.rl_module_spec.rl_module_specs["shared"]
    assert spec.module_class.__name__ == "MaskedPPOTorchRLModule"
    assert spec.model_config["fcnet_hiddens"] == [32]
    assert spec.model_config["fcnet_activation"] == "relu"


def test_snapshot_mode_config() -> None:
    config = ppo_config("texas_euchre-v1", {"num_players": 5}, mode="snapshots",
                        bots=["heuristic"])
    assert set(config.policies) == {"learner", "snapshot_1", "snapshot_2", "snapshot_3"}
    assert config.policies_to_train == ["learner"]
    assert [map_snapshots(f"player_{k}") for k in range(4)] == [
        "learner", "snapshot_1", "snapshot_2", "snapshot_3"]
    assert config.env_config["rotate_seats"] is True
    assert config.env_config["bots"] == ["heuristic"]
    with pytest.raises(ValueError, match="mode 'snapshots' needs at least 2"):
        ppo_config("texas_euchre-v1", {"num_players": 3}, mode="snapshots",
                   bots=["random", "random"])
    with pytest.raises(ValueError, match=r"ppo\.n_epochs"):
        ppo_config("texas_euchre-v1", ppo={"n_epochs": 3})


def test_cooperative_runs_are_evaluated_as_a_team(tmp_path: Path) -> None:
    import cahoots_envs
    from cahoots_envs.rllib.train import Evaluator, next_steps

    config = load_config(CONFIGS[0])  # cahoots_coop
    evaluator = Evaluator(config, tmp_path)
    heuristic = cahoots_envs.load_policy("heuristic", config.env_id, config.env_options, seed=0)
    results = evaluator.evaluate(heuristic, 12, seed=0)
    assert list(results) == ["team"] and results["team"].games == 12
    evaluator.record(0, results)
    assert (tmp_path / "eval.csv").read_text().splitlines()[1].startswith("0,team,12,")
    lines = "\n".join(next_steps(config, tmp_path))
    assert (f"cahoots eval cahoots_coop-v1 -n 3 -o difficulty=normal "
            f"{tmp_path / 'policy.safetensors'} heuristic") in lines


def test_competitive_next_steps_seat_the_policy_once_as_the_final_check(tmp_path: Path) -> None:
    """The evaluation lines after a run are every trainer's (training.run.policy_commands): one
    seat against each evaluation opponent, the final check's game count, not a tournament."""
    from cahoots_envs.rllib.train import next_steps

    config = next(load_config(c) for c in CONFIGS if "texas_euchre" in str(c))
    lines = "\n".join(next_steps(config, tmp_path))
    policy = tmp_path / "policy.safetensors"
    for field in config.eval.opponents:
        assert (f"cahoots eval texas_euchre-v1 -n 4 {policy} --field {field} "
                f"--games {config.eval.final_games}") in lines
    assert "heuristic random" not in lines and "cahoots strength texas_euchre" in lines
