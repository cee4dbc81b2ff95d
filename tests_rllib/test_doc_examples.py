"""Every python block of docs/scale.md that needs ray runs here (the main suite
skips them: ray is not in its virtual environment), extracted as the main suite's
``tests/test_doc_examples.py`` does; and the README's RLlib test command is what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_doc_examples import python_blocks
from tests_rllib.conftest import ROOT

PAGES = {"docs/scale.md"}  # the README's short run moved there with the rest of RLlib
BLOCKS = [(where, source) for where, source in python_blocks()
          if where.split(":")[0] in PAGES
          and re.search(r"^\s*(import ray|from ray|from cahoots_envs\.rllib|import cahoots_envs\.rllib)",
                        source, re.MULTILINE)]


def test_the_pages_have_rllib_examples() -> None:
    assert {w.split(":")[0] for w, _ in BLOCKS} == PAGES


@pytest.mark.parametrize("where,source", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_rllib_block_runs(where: str, source: str, ray_cluster: str, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = compile(source, str(ROOT / where.split(":")[0]), "exec")
    exec(code, {"__name__": "__doc_example__"})  # noqa: S102 (our own documentation)


def test_ci_runs_the_readme_rllib_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- rllib-test-command -->\n```\n(.+?)\n```\n<!-- /rllib-test-command -->",
                      readme, re.DOTALL)
    assert block, "README lacks the rllib-test-command block"
    command = block.group(1)
    assert "torch==2.13.0" in command and ".[rllib" in command and "tests_rllib" in command
    assert "rllib-test-command" in (ROOT / ".ci" / "run").read_text()
