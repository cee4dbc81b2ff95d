"""Checkpoints and ``cahoots train --resume`` (issue 48): a run stopped at seeded points (in a
rollout, in an update, in the middle of writing a checkpoint; in-process through the checkpoint
module's stop points, and once per algorithm by SIGTERM or SIGKILL of a subprocess) and resumed
ends with the same saved policy, tensor for tensor, and the same evaluation log as a run never
stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("numba")
pytest.importorskip("torch")

from cahoots_envs.policies.saved import read_safetensors
from cahoots_envs.training import checkpoint
from cahoots_envs.training.checkpoint import SimulatedStop, arm_stop
from cahoots_envs.training.train import main

ROOT = Path(__file__).resolve().parents[1]

EXPERT = {
    "env_id": "cahoots_tricks-v1", "env_options": {"num_players": 4}, "seed": 2,
    "total_timesteps": 72, "n_envs": 8, "engine": "batched", "progress_bar": False,
    "algorithm": "expert_iteration", "checkpoint_keep": 2,
    "expert_iteration": {"positions": 24, "take": 0.5, "rollout": "blueprint",
                         "search": {"worlds": 2, "max_worlds": 2}, "epochs": 2,
                         "learning_rate": 1e-3, "opponent": "heuristic", "window": 2},
    "ppo": {"net_arch": [16]},
    "pretrain": {"games": 4, "epochs": 1},
    "eval": {"every": 24, "games": 8, "final_games": 8, "opponents": ["heuristic"]},
}


def write(tmp_path: Path, config: dict[str, Any], name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def one_run(tmp_path: Path, config: dict[str, Any], name: str) -> Path:
    runs = tmp_path / name
    assert main(["--config", str(write(tmp_path, config, name)), "--runs-dir", str(runs)]) == 0
    (run_dir,) = runs.iterdir()
    return run_dir


def stopped_run(tmp_path: Path, config: dict[str, Any], name: str, point: str, n: int) -> Path:
    runs = tmp_path / name
    arm_stop(point, n)
    try:
        with pytest.raises(SimulatedStop):
            main(["--config", str(write(tmp_path, config, name)), "--runs-dir", str(runs)])
    finally:
        arm_stop(point, 0)
    (run_dir,) = runs.iterdir()
    return run_dir


def eval_rows(run_dir: Path) -> list[dict[str, str]]:
    import csv

    with (run_dir / "eval.csv").open() as f:  # cpu_seconds: the machine's, never the same
        return [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in csv.DictReader(f)]


def assert_same_run(a: Path, b: Path) -> None:
    wa, _ = read_safetensors(a / "policy.safetensors")
    wb, _ = read_safetensors(b / "policy.safetensors")
    assert wa.keys() == wb.keys()
    for k in wa:
        assert np.array_equal(wa[k], wb[k]), k
    assert eval_rows(a) == eval_rows(b)
    ea = json.loads((a / "policy.json").read_text())["evaluation"]
    eb = json.loads((b / "policy.json").read_text())["evaluation"]
    assert ea == eb


@pytest.fixture(scope="module")
def expert_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return one_run(tmp_path_factory.mktemp("ei"), EXPERT, "reference")


@pytest.mark.parametrize(("point", "n"), [
    ("rollout", 3),            # in the first iteration's games: no checkpoint yet
    ("update", 3),             # in the second iteration's fit (2 minibatches an iteration)
    ("checkpoint-write", 2),   # half of the second checkpoint written
    ("checkpoint-latest", 3),  # the third written, not yet named the latest
])
def test_expert_iteration_resumes_bit_identically(tmp_path: Path, expert_reference: Path,
                                                  point: str, n: int) -> None:
    run_dir = stopped_run(tmp_path, EXPERT, "stopped", point, n)
    assert main(["--resume", str(run_dir)]) == 0
    assert_same_run(expert_reference, run_dir)
    kept = sorted((run_dir / checkpoint.FOLDER).glob("checkpoint-*.safetensors"))
    assert [p.name for p in kept] == ["checkpoint-000002.safetensors",
                                      "checkpoint-000003.safetensors"]
    assert json.loads((run_dir / checkpoint.FOLDER / "latest.json").read_text())["iteration"] == 3
    assert not list((run_dir / checkpoint.FOLDER).glob("*.tmp"))


def test_a_checkpoint_of_another_config_is_refused_in_one_line(
        tmp_path: Path, expert_reference: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    run_dir = tmp_path / "copy"
    shutil.copytree(expert_reference, run_dir)
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    config["seed"] = 9
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    assert main(["--resume", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "another config" in err
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["seed"] == 9  # left as it was
    latest = json.loads((run_dir / checkpoint.FOLDER / "latest.json").read_text())["file"]
    path = run_dir / checkpoint.FOLDER / latest
    from safetensors.numpy import load_file, save_file

    tensors = load_file(path)
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        record = json.loads(f.metadata()[checkpoint.KEY])
    config["seed"] = 2
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    for key, value, words in (("package_version", "0.0.1", "another cahoots-envs version"),
                              ("algorithm", "every_seat_ppo", "another algorithm")):
        save_file(tensors, path, metadata={checkpoint.KEY: json.dumps({**record, key: value})})
        assert main(["--resume", str(run_dir)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err


def test_checkpoints_keep_the_last_k_and_a_stopped_write_leaves_the_previous_latest(
        tmp_path: Path) -> None:
    from safetensors import safe_open

    from cahoots_envs.training.config import TrainConfig

    config = TrainConfig(env_id="kansas_city-v1", checkpoint_keep=2)
    saver = checkpoint.Checkpoints(config, tmp_path)
    for k in range(1, 5):
        saver.save(k, {"x": np.full(3, k, np.float32)}, {"k": k})
    names = sorted(p.name for p in (tmp_path / checkpoint.FOLDER).iterdir())
    assert names == ["checkpoint-000003.safetensors", "checkpoint-000004.safetensors",
                     "latest.json"]
    for point in ("checkpoint-write", "checkpoint-latest", "latest-write"):
        arm_stop(point, 1)
        with pytest.raises(SimulatedStop):
            saver.save(5, {"x": np.zeros(3, np.float32)}, {"k": 5})
        tensors, record = saver.load()  # still the fourth: the fifth was never named the latest
        assert record["iteration"] == 4 and record["state"] == {"k": 4}
        assert tensors["x"].tolist() == [4.0, 4.0, 4.0]
    assert not list((tmp_path / checkpoint.FOLDER).glob("*.tmp"))  # load() cleared them
    # data only: safetensors' header and raw arrays, the record as JSON in the header
    path = tmp_path / checkpoint.FOLDER / "checkpoint-000004.safetensors"
    with safe_open(str(path), framework="numpy") as f:
        assert json.loads(f.metadata()[checkpoint.KEY])["algorithm"] == "maskable_ppo"
    (tmp_path / checkpoint.FOLDER / "latest.json").write_text('{"file": "gone.safetensors"}')
    with pytest.raises(checkpoint.ResumeError, match="does not name a readable checkpoint"):
        saver.load()


def killed_run(tmp_path: Path, config: dict[str, Any], point: str, n: int,
               signal: str = "KILL") -> Path:
    """The run in a subprocess, killed by SIGKILL (or SIGTERM) the n-th time it passes
    ``point``."""
    runs = tmp_path / "killed"
    env = {**os.environ, checkpoint.ENV_STOP: f"{point}:{n}:{signal}",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "cahoots_envs.training.train", "--config",
                           str(write(tmp_path, config, "killed")), "--runs-dir", str(runs)],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == (-15 if signal == "TERM" else -9), done.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    return run_dir


def test_expert_iteration_stopped_by_sigterm_resumes_bit_identically(
        tmp_path: Path, expert_reference: Path) -> None:
    run_dir = killed_run(tmp_path, EXPERT, "update", 5, "TERM")  # in the third fit
    assert main(["--resume", str(run_dir)]) == 0
    assert_same_run(expert_reference, run_dir)


EVERY_SEAT = {
    "env_id": "texas_euchre-v1", "env_options": {"num_players": 4, "reward_mode": "win"},
    "seed": 3, "total_timesteps": 400, "n_envs": 12, "engine": "batched", "progress_bar": False,
    "algorithm": "every_seat_ppo", "every_seat_ppo": {"self_play_share": 0.5},
    "ppo": {"n_steps": 12, "batch_size": 64, "n_epochs": 2, "net_arch": [16]},
    # one snapshot kept: a dropped one still plays at tables in flight when a checkpoint is taken
    "pool": {"random": 1.0, "heuristic": 1.0, "snapshots": 2.0, "latest": 1.0,
             "snapshot_every": 90, "max_snapshots": 1},
    "pretrain": {"games": 2, "epochs": 1},
    "eval": {"every": 180, "games": 4, "final_games": 8},
}


MASKABLE = {
    "env_id": "cahoots_envs/kansas_city-v1", "env_options": {"hands": 1}, "seed": 4,
    "total_timesteps": 192, "n_envs": 8, "engine": "batched", "progress_bar": False,
    "checkpoint_every": 64,
    "ppo": {"n_steps": 8, "batch_size": 32, "n_epochs": 2, "net_arch": [16]},
    "pool": {"random": 1.0, "heuristic": 1.0, "snapshots": 2.0, "latest": 1.0,
             "snapshot_every": 64, "max_snapshots": 1},
    "pretrain": {"games": 2, "epochs": 1},
    "eval": {"every": 96, "games": 4, "final_games": 8},
}


PPO = {"every_seat_ppo": EVERY_SEAT, "maskable_ppo": MASKABLE}


def with_draw(algorithm: str, draw: str) -> dict[str, Any]:
    config = PPO[algorithm]
    return {**config, "pool": {**config["pool"], "snapshot_draw": draw}}


@pytest.fixture(scope="module")
def ppo_reference(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], Path]:
    """The unstopped run of an algorithm's config with a snapshot draw, made once."""
    made: dict[tuple[str, str], Path] = {}

    def reference(algorithm: str, draw: str) -> Path:
        if (algorithm, draw) not in made:
            made[algorithm, draw] = one_run(tmp_path_factory.mktemp(algorithm),
                                            with_draw(algorithm, draw), draw)
        return made[algorithm, draw]

    return reference


@pytest.mark.parametrize(("algorithm", "draw", "point", "n"), [
    ("every_seat_ppo", "seat", "rollout", 30),             # in the third rollout (12 steps)
    ("every_seat_ppo", "seat", "update", 7),               # in an update
    ("every_seat_ppo", "rollout", "checkpoint-write", 3),  # half the third checkpoint written
    ("maskable_ppo", "seat", "rollout", 20),               # in the third rollout (8 steps)
    ("maskable_ppo", "rollout", "update", 5),              # in the second update (4 minibatches)
    ("maskable_ppo", "seat", "checkpoint-write", 3),       # half the third checkpoint written
])
def test_ppo_resumes_bit_identically_without_trust(
        tmp_path: Path, ppo_reference: Callable[[str, str], Path], algorithm: str, draw: str,
        point: str, n: int) -> None:
    run_dir = stopped_run(tmp_path, with_draw(algorithm, draw), "stopped", point, n)
    assert (run_dir / checkpoint.FOLDER / "latest.json").is_file()
    assert main(["--resume", str(run_dir)]) == 0  # no --trust-checkpoint: no pickle is read
    assert_same_run(ppo_reference(algorithm, draw), run_dir)


def test_a_run_whose_config_yaml_the_layout_before_0_3_wrote_resumes(
        tmp_path: Path, ppo_reference: Callable[[str, str], Path]) -> None:
    """A run folder's config.yaml as cahoots-envs 0.2.0 wrote it (``ppo`` and ``pool`` at the top
    level, tests/fixtures/configs) resumes, with a deprecation note, to the same result; the
    folder's config.yaml is then in the new layout (ppo and pool in the algorithm's section)."""
    run_dir = stopped_run(tmp_path, with_draw("every_seat_ppo", "seat"), "stopped", "rollout", 30)
    old = ROOT / "tests" / "fixtures" / "configs" / "every_seat_run_config_0.2.yaml"
    (run_dir / "config.yaml").write_text(old.read_text())
    with pytest.warns(DeprecationWarning, match=r"ppo and pool at the top level of a config is "
                      r"deprecated; write them in the algorithm's own section \(every_seat_ppo: "):
        assert main(["--resume", str(run_dir)]) == 0
    assert_same_run(ppo_reference("every_seat_ppo", "seat"), run_dir)
    written = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert "ppo" not in written and written["sections"]["every_seat_ppo"]["ppo"]["n_steps"] == 12


@pytest.mark.parametrize(("algorithm", "draw", "n"), [("every_seat_ppo", "rollout", 45),
                                                      ("maskable_ppo", "seat", 13)])
def test_ppo_killed_by_sigkill_resumes_bit_identically(
        tmp_path: Path, ppo_reference: Callable[[str, str], Path], algorithm: str, draw: str,
        n: int) -> None:
    run_dir = killed_run(tmp_path, with_draw(algorithm, draw), "rollout", n)
    assert main(["--resume", str(run_dir)]) == 0
    assert_same_run(ppo_reference(algorithm, draw), run_dir)
