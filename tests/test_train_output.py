"""What a training run tells its user: the run folder at the start, a progress bar that ends at
its total, what to do next at the end, and a learning-curve PNG whose axis labels stay apart."""

from __future__ import annotations

import csv
import itertools
import json
import math
import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
yaml = pytest.importorskip("yaml")

from cahoots_envs.training.config import load_config
from cahoots_envs.training.run import next_steps, planned_steps, plot_learning_curve
from cahoots_envs.training.train import main

ROOT = Path(__file__).resolve().parent.parent


def test_planned_steps_are_whole_rollouts() -> None:
    assert planned_steps(400_000, 64 * 64) == 401_408  # the default Kansas City config
    assert planned_steps(4096, 4096) == 4096
    assert planned_steps(200, 128) == 256
    assert planned_steps(0, 128) == 0


def test_run_prints_its_folder_first_a_bar_that_ends_at_its_total_and_what_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "env_id": "kansas_city-v1", "env_options": {"num_players": 4, "reward_mode": "points",
                                                    "hands": 1},
        "seed": 1, "total_timesteps": 200, "n_envs": 4, "checkpoint_every": 128,
        "progress_bar": True, "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1,
                                      "net_arch": [16]},
        "pool": {"snapshot_every": 64, "latest": 1.0},
        "eval": {"every": 128, "games": 2, "final_games": 2},
        "pretrain": {"games": 2, "epochs": 1},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["--config", str(path), "--runs-dir", str(tmp_path / "runs")]) == 0
    out, err = capsys.readouterr()
    (run_dir,) = (tmp_path / "runs").iterdir()
    lines = out.splitlines()
    assert lines[0] == f"run folder: {run_dir}"
    steps_line = next(i for i, line in enumerate(lines) if line.startswith("learner steps:"))
    assert lines[steps_line].startswith("learner steps: 0 to 256 (200 asked;")
    assert all(line.startswith(("behaviour cloning", "after behaviour cloning"))
               for line in lines[1:steps_line])
    # the bar counts to the real end (whole rollouts of 4 x 32), never past its total
    counts = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) \[", err)]
    assert counts and {total for _, total in counts} == {256}
    assert counts[-1] == (256, 256)
    policy = run_dir / "policy.safetensors"
    assert f"  tensorboard --logdir {run_dir}" in out
    # the next-step evaluations seat the new policy once, as the final check did
    for field in ("random", "heuristic"):
        assert (f"  cahoots eval kansas_city-v1 -n 4 -o hands=1 {policy} --field {field} "
                "--games 2     # one seat") in out
    # the clone self-play started from is measured on the same final games
    clone_lines = [line for line in lines if line.startswith("  the clone it started from")]
    assert len(clone_lines) == 2 and all("the 95% intervals" in line for line in clone_lines)
    assert (run_dir / "checkpoints" / "cloned.safetensors").is_file()
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["evaluation"]["heuristic"]["before_self_play"]["games"] == 2
    assert f"  cahoots play kansas_city-v1 -n 4 -o hands=1 --opponents {policy}" in out
    assert f"  learning curve: {run_dir / 'learning_curve.png'}" in out


def test_next_steps_quote_paths_and_write_options_as_the_cli_reads_them(tmp_path: Path) -> None:
    config = load_config(ROOT / "configs" / "cahoots_coop.yaml")
    config.env_options["open_hands"] = True
    text = "\n".join(next_steps(config, tmp_path / "my runs" / "r"))
    assert "-n 3 -o difficulty=normal -o open_hands=true" in text
    assert "reward_mode" not in text
    assert f"'{tmp_path}/my runs/r/policy.safetensors'" in text


@pytest.mark.parametrize("steps", [2_048, 400_000, 2_000_000])
def test_learning_curve_step_labels_do_not_touch(steps: int, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.figure import Figure

    with (tmp_path / "eval.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["timesteps", "opponent", "games", "win_rate", "ci_low", "ci_high",
                         "mean_score"])
        for k in range(9):
            for name in ("random", "heuristic"):
                writer.writerow([steps * k // 8, name, 100, 0.4, 0.3, 0.5, 1.0])
    with (tmp_path / "progress.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["time/total_timesteps", "rollout/ep_rew_mean"])
        for k in range(1, 50):
            writer.writerow([steps * k // 49, 3 + math.log(k)])
    figures: list[Figure] = []
    save = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **kw: (figures.append(fig),
                                                                  save(fig, *a, **kw))[1])
    config = load_config(ROOT / "configs" / "kansas_city.yaml")
    assert plot_learning_curve(tmp_path, config) == tmp_path / "learning_curve.png"
    (fig,) = figures
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)  # the figure was closed after saving
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        low, high = ax.get_xlim()
        labels = [t.label1 for t in ax.xaxis.get_major_ticks()
                  if low <= t.get_loc() <= high and t.label1.get_text()]
        assert 3 <= len(labels) <= 7
        boxes = sorted((lab.get_window_extent(renderer) for lab in labels), key=lambda b: b.x0)
        for left, right in itertools.pairwise(boxes):
            assert right.x0 - left.x1 >= 5, [lab.get_text() for lab in labels]


@pytest.mark.parametrize("args", [["--total-timesteps", "-5"], ["--total-timesteps", "0"],
                                  ["--total-timesteps", "1e5"], ["--seed", "-1"]])
def test_bad_numbers_are_refused_before_any_work(args: list[str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as exc:
        main(["--config", str(ROOT / "configs" / "texas_euchre.yaml"), "--runs-dir", str(runs),
              *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("train.py: error: argument") or "error: argument" in err
    assert "expected" in err and repr(args[1]) in err
    assert not runs.exists()  # nothing started


@pytest.mark.parametrize("text,message", [
    ("eval: {games: 0}", "eval.games must be positive, got 0"),
    ("eval: {final_games: -1}", "eval.final_games must be positive, got -1"),
    ("ppo: {learning_rate: .nan}", "ppo.learning_rate must be positive, got nan"),
    ("ppo: {gamma: 1.5}", "ppo.gamma must be in [0, 1], got 1.5"),
    ("ppo: {net_arch: []}", "ppo.net_arch must list positive layer sizes"),
    ("pretrain: {games: -3}", "pretrain.games must be 0 or more, got -3"),
    ("pool: {heuristic: -1.0}", "pool.heuristic must be 0 or more, got -1.0"),
    ("a: " + "[" * 40 + "1" + "]" * 40, "nested more than 32 levels deep"),
])
def test_a_config_that_cannot_run_is_one_line_from_the_script(
        text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("env_id: kansas_city-v1\n" + text + "\n")
    assert main(["--config", str(path), "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ": error: " in err and message in err, err
    assert not (tmp_path / "runs").exists()


def test_a_runs_dir_that_is_a_file_is_one_line_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("not a folder")
    assert main(["--config", str(ROOT / "configs" / "texas_euchre.yaml"),
                 "--runs-dir", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--runs-dir {blocker} is a file; give a folder" in err
    assert blocker.read_text() == "not a folder"


def test_runs_started_in_the_same_second_get_folders_of_their_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs of one config and seed whose names would be the same (started in the same
    second, from a script or a sweep) write into two folders: the second is ``<name>-2``, the
    first run's policy and logs are left as they were, and each run's own lines name its own
    folder."""
    import cahoots_envs.training.train as train_module
    from cahoots_envs.training.run import new_run_dir

    monkeypatch.setattr(train_module, "run_name", lambda config, tag: "same-second")
    config = {
        "env_id": "kansas_city-v1", "env_options": {"num_players": 4, "reward_mode": "points",
                                                    "hands": 1},
        "seed": 1, "total_timesteps": 64, "n_envs": 4, "progress_bar": False,
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "eval": {"every": 64, "games": 2, "final_games": 2},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config))
    runs = tmp_path / "runs"
    assert main(["--config", str(path), "--runs-dir", str(runs)]) == 0
    first = runs / "same-second"
    policy = (first / "policy.safetensors").read_bytes()
    written = (first / "policy.safetensors").stat().st_mtime_ns
    capsys.readouterr()
    assert main(["--config", str(path), "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    second = runs / "same-second-2"
    assert sorted(p.name for p in runs.iterdir()) == ["same-second", "same-second-2"]
    assert out.splitlines()[0] == f"run folder: {second}"
    assert f"{second}/policy.safetensors" in out and f"{first}/" not in out
    assert (first / "policy.safetensors").read_bytes() == policy
    assert (first / "policy.safetensors").stat().st_mtime_ns == written
    assert (second / "policy.safetensors").is_file()
    # the folders are claimed one at a time: a third claim takes the next name
    assert new_run_dir(runs, "same-second") == runs / "same-second-3"
    assert (runs / "same-second-3").is_dir()
