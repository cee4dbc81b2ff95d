"""The fuzzers in ``tests/probes/``: ``probe_env_input.py`` (bad input to every env, whose
table is docs/reliability.md's), ``probe_logs.py`` (tampered game logs through ``cahoots
replay``, bounded input and signals: docs/reliability.md) and ``probe_web.py``
(random and malformed requests to the browser view's server: docs/reliability.md).

The default suite runs each on a tiny size in this process, so that they keep working as the
code they probe changes; ``-m slow`` runs each as the docs do, as a script at the size they
quote, and it must find nothing (exit status 0).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.probes import probe_env_input, probe_logs

PROBES = Path(__file__).resolve().parent / "probes"
ROOT = PROBES.parents[1]


def test_probe_env_input_on_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    code = probe_env_input.main(["--games", "1", "--envs", "high_card"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "--games 1 --seed 0: 3 envs" in out and "unexpected outcomes" not in out
    lines = out.splitlines()
    for row in probe_env_input.CATEGORIES + ["total"]:  # every probe has its row
        assert any(line.startswith(row + " ") for line in lines), row


def test_probe_logs_on_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    code = probe_logs.main(["--logs", "abandoned", "--every", "20", "--no-bounds"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "# 1 logs, 19 tampered variants" in out and "PROBLEMS" not in out
    assert "| **all** | 19 |" in out and "left out (--no-bounds)" in out


def test_probe_web_on_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from tests.probes import probe_web

    code = probe_web.main(["--requests", "60", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("60 requests in ") and "500s or non-JSON errors: 0" in out
    assert "server answers afterwards: True" in out


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["probe_env_input.py", "--games", "5", "--markdown"],  # docs/reliability.md's table
    ["probe_logs.py"],  # docs/reliability.md
    ["probe_web.py"],  # docs/reliability.md's browser-view section
], ids=["probe_env_input", "probe_logs", "probe_web"])
def test_probe_finds_nothing_at_the_size_the_docs_quote(command: list[str]) -> None:
    if command[0] == "probe_web.py":
        pytest.importorskip("starlette")
    done = subprocess.run([sys.executable, str(PROBES / command[0]), *command[1:]], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert ("| total |" in done.stdout or "| **all** |" in done.stdout
            or "500s or non-JSON errors: 0" in done.stdout), done.stdout[-2000:]
