"""The RLlib tests: run in the RLlib virtual environment only (``.venv-rllib``, see
docs/scale.md): ``.venv-rllib/bin/python -m pytest -q tests_rllib``.

``ray_cluster`` starts a Ray cluster on this machine with ``ray start --head`` once per session;
this process joins it (``ray.init(address="auto")``), the training script joins it with
``--address auto``, and ``ray stop`` ends it when the session ends. Ray's files (sessions, logs,
sockets) go under pytest's temporary folder (``RAY_TMPDIR``), not the system's ``/tmp/ray``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RAY = str(Path(sys.executable).with_name("ray"))
# Ray's own start-up: no usage reporting, no dashboard (not needed and slow to start)
RAY_ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="session", autouse=True)
def ray_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Ray's temporary folder for the whole session, in this process (``ray.init``) and the
    processes it starts (``ray start``, the training script): under pytest's temporary folder.
    Short, as Ray's socket paths must stay under 107 characters."""
    folder = tmp_path_factory.mktemp("ray")
    before = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = RAY_ENV["RAY_TMPDIR"] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = before


def tiny_ppo() -> dict[str, int]:
    """PPO settings for a test run: a few hundred steps per iteration, one epoch."""
    return {"train_batch_size": 256, "minibatch_size": 128, "num_epochs": 1}


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A Ray cluster started with ``ray start --head`` that this process has joined; its
    address for ``--address``."""
    started = subprocess.run(
        [RAY, "start", "--head", "--num-cpus", "2", "--include-dashboard", "false",
         "--disable-usage-stats"], capture_output=True, text=True, timeout=180, env=RAY_ENV,
        check=False)
    assert started.returncode == 0, started.stdout + started.stderr
    import ray

    try:
        ray.init(address="auto")
        assert ray.cluster_resources().get("CPU") == 2
        yield "auto"
    finally:
        ray.shutdown()
        stopped = subprocess.run([RAY, "stop"], capture_output=True, text=True, timeout=120,
                                 env=RAY_ENV, check=False)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
