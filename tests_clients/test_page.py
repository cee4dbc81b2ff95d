"""docs/clients.md ("Using other libraries"): every example runs here, in the clients' own
virtual environment (``.venv-clients``, installed from ``constraints/clients.txt`` by the
README's clients-test-command, which CI runs), with each library's own recipe and no glue; the
main suite skips this page (its ``ELSEWHERE``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_doc_examples import ELSEWHERE, python_blocks

ROOT = Path(__file__).resolve().parents[1]
PAGE = "docs/clients.md"
BLOCKS = [(where, source) for where, source in python_blocks() if where.split(":")[0] == PAGE]
LIBRARIES = ("torchrl", "tianshou", "sb3_contrib", "supersuit")


def test_the_page_shows_every_client_and_is_linked() -> None:
    assert PAGE in ELSEWHERE
    sources = "\n".join(source for _, source in BLOCKS)
    for library in LIBRARIES:
        assert re.search(rf"^\s*(from|import) {library}\b", sources, re.MULTILINE), library
    assert "make_parallel" in sources  # the CleanRL-style loop on the parallel API
    assert "(docs/clients.md)" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("where,source", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_client_example_runs(where: str, source: str, tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)
    code = compile(source, str(ROOT / PAGE), "exec")
    exec(code, {"__name__": "__doc_example__"})  # noqa: S102 (our own documentation)


def test_ci_runs_the_readme_clients_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- clients-test-command -->\n```\n(.+?)\n```\n<!-- /clients-test-command -->",
                      readme, re.DOTALL)
    assert block, "README lacks the clients-test-command block"
    command = block.group(1)
    assert "constraints/clients.txt" in command and "torch==2.13.0" in command
    assert ".[clients" in command and "tests_clients" in command
    assert "clients-test-command" in (ROOT / ".ci/run").read_text()
