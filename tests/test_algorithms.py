"""The seam for a second training algorithm: a toy one, registered with its own config section,
runs end to end through the same command and run plumbing as MaskablePPO (run folder, curve
checks, final check, saved policy, next steps), and nothing outside it changes."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")

from cahoots_envs.envinfo import env_info
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.training.algorithms import (
    algorithm,
    register_algorithm,
    unregister_algorithm,
)
from cahoots_envs.training.config import ConfigError, load_config
from cahoots_envs.training.run import Evaluator, Trained
from cahoots_envs.training.train import main


@dataclass
class ToyConfig:
    """The toy's own section: how wide its one hidden layer is, how many "checks" it makes."""

    hidden: int = 8
    checks: int = 2


def toy_train(config: Any, run_dir: Path, resume: bool, evaluator: Evaluator) -> Trained:
    """"Training": a random network, checked a few times on the run's curve; no SB3, no torch."""
    section = config.sections["toy"]
    info = env_info(config.env_id, config.env_options)
    rng = np.random.default_rng(config.seed)
    sizes = [info.layout.size, section.hidden, info.num_actions]
    layers = [(rng.normal(0, 0.1, (b, a)), np.zeros(b)) for a, b in itertools.pairwise(sizes)]
    policy = MLPPolicy(layers)
    for k in range(section.checks):
        evaluator.record(k * 10, evaluator.evaluate(policy, config.eval.games, seed=k))
    (run_dir / "toy.txt").write_text(f"{section.hidden} hidden units\n")
    return Trained(learner=policy, timesteps=10 * section.checks, seconds=0.0,
                   description="a random network (the toy algorithm)",
                   metadata={"toy": {"hidden": section.hidden}})


@pytest.fixture
def toy() -> Any:
    register_algorithm("toy", toy_train, section=ToyConfig)
    yield
    unregister_algorithm("toy")


def test_a_toy_algorithm_runs_end_to_end_through_the_seam(
        toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {"env_id": "texas_euchre-v1", "env_options": {"num_players": 3}, "seed": 1,
              "algorithm": "toy", "toy": {"hidden": 4, "checks": 2},
              "eval": {"games": 6, "final_games": 9}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["--config", str(path), "--runs-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("texas_euchre-v1__toy__1__")
    assert (run_dir / "toy.txt").read_text() == "4 hidden units\n"
    assert "win share in one seat vs heuristic opponents:" in out and "over 9 games" in out
    assert "--field heuristic --games 9" in out  # the next steps, as for any algorithm
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["training"]["algorithm"] == "a random network (the toy algorithm)"
    assert meta["training"]["config"]["sections"]["toy"] == {"hidden": 4, "checks": 2}
    assert meta["training"]["toy"] == {"hidden": 4}
    assert meta["evaluation"]["heuristic"]["games"] == 9
    rows = (run_dir / "eval.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 2 + 2  # header, two checks of two opponents, the final check
    # each row says the CPU seconds trained so far (evaluations left out): never going back
    assert rows[0].split(",")[-1] == "cpu_seconds"
    cpu = [float(row.split(",")[-1]) for row in rows[1:]]
    assert cpu == sorted(cpu) and cpu[0] >= 0
    assert (run_dir / "learning_curve.png").is_file()
    # the run's own config.yaml loads back with the section (as --resume would read it)
    assert load_config(run_dir / "config.yaml").sections["toy"] == ToyConfig(4, 2)


def test_a_section_is_typed_and_an_unknown_algorithm_is_one_line(toy: None, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"env_id": "texas_euchre-v1", "toy": {"hiden": 4}}))
    with pytest.raises(ConfigError, match=r"unknown config key toy\.hiden; did you mean "
                       r"toy\.hidden\?"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"^algorithm: 'ppo2' is not a registered algorithm; "
                       r"registered: every_seat_ppo, expert_iteration, maskable_ppo, toy$"):
        algorithm("ppo2")
    with pytest.raises(ValueError, match="'eval' is a config key already"):
        register_algorithm("eval", toy_train, section=ToyConfig)
    assert algorithm("maskable_ppo").tag == "maskableppo"  # run folders keep their names
