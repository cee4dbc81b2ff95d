"""Every ```python block in README.md and docs/ runs.

Each block is executed on its own, in a fresh namespace, with a temporary working directory (so
files it writes land there); a failure's traceback names the page and its line. A block that
needs an optional extra that is not installed (torch, stable-baselines3, ...) is skipped. A block that is deliberately not runnable is marked by the line
``<!-- not-run: reason -->`` right before it; the reason must be given. The registry of games is
restored after each block (a block may register or unregister a game).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cahoots_envs import registry

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
NOT_RUN = re.compile(r"<!-- not-run: (.+?) -->")
# modules of the optional extras (train, eval, bench): a block needing a missing one is skipped
OPTIONAL = {"torch", "stable_baselines3", "sb3_contrib", "yaml", "tensorboard", "matplotlib",
            "tqdm", "openskill", "ray"}


def python_blocks() -> list[tuple[str, str]]:
    """``(file:line, source)`` for every runnable ```python block (line of the opening fence); the
    source is padded with blank lines so that its line numbers are the page's."""
    blocks = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```python":
                start = i
                j = i + 1
                while j < len(lines) and lines[j].strip() != "```":
                    j += 1
                assert j < len(lines), f"{page.name}:{start + 1}: unclosed ```python block"
                before = next((x for x in reversed(lines[:start]) if x.strip()), "")
                marker = NOT_RUN.search(before)
                if before.strip().startswith("<!-- not-run") and not marker:
                    raise AssertionError(f"{page.name}:{start + 1}: not-run marker without a reason")
                if not marker:
                    source = "\n" * (start + 1) + "\n".join(lines[start + 1:j])
                    blocks.append((f"{page.relative_to(ROOT)}:{start + 1}", source))
                i = j
            i += 1
    return blocks


# pages whose examples run in another environment's suite, not here
ELSEWHERE = {"docs/clients.md": "tests_clients (the README's clients-test-command)"}
BLOCKS = [(where, source) for where, source in python_blocks()
          if where.split(":")[0] not in ELSEWHERE]


def test_the_pages_have_python_examples() -> None:
    """Guards the extraction itself: the README's Quick start and the API page are found."""
    where = {w.split(":")[0] for w, _ in BLOCKS}
    assert {"README.md", "docs/api.md", "docs/training.md", "docs/cli.md"} <= where
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("where,source", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_python_block_runs(where: str, source: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    specs = dict(registry._SPECS)
    try:
        code = compile(source, str(ROOT / where.split(":")[0]), "exec")
        exec(code, {"__name__": "__doc_example__"})  # noqa: S102 (our own documentation)
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in OPTIONAL:
            raise
        pytest.skip(f"{where} needs {e.name} (an optional extra)")
    finally:
        for name in set(registry._SPECS) - set(specs):
            registry.unregister_game(name)
        for name, spec in specs.items():
            if registry._SPECS.get(name) is not spec:
                registry.register_game(spec, replace=True)
