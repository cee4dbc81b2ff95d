"""A fifth game copied from an existing one needs no edit outside its folder, its registration
line and its versioned module (docs/architecture.md, "Adding a game"), and passes the shared
suite: this copies the checkout, copies ``games/texas_euchre`` to ``games/texas_copy`` (a new
game at v0: its name, title and version changed inside the folder), adds its line to
``BUILTIN_GAMES`` and its module ``cahoots_envs/texas_copy_v0.py``, regenerates the docs with
``python -m cahoots_envs.docs``, and runs in the copy every shared test that names the game or
walks the built-in games (about two minutes on 2 cores: ``-m slow``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE, COPY = "texas_euchre", "texas_copy"
# shared tests that walk the built-in games inside one test (not parametrized by game name)
WALKERS = [
    "tests/test_gamelog_fixtures.py::test_fixtures_are_there",
    "tests/test_policies.py::test_every_env_lists_a_search_bot",
    "tests/test_cli.py::test_configs_ship_in_the_package_and_resolve_by_name",
    "tests/test_ecosystem.py::test_every_built_in_game_declares_a_state",
    "tests/test_versions.py",
    "tests/test_training.py::test_every_zoo_entry_ships_the_config_that_trained_it",
    "tests/test_registry.py",
    "tests/test_docs.py",
    "tests/test_game_knowledge.py",
    "tests/test_import_graph.py",
]


def copy_checkout(to: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    (to / "configs").symlink_to("cahoots_envs/configs")


def add_copied_game(root: Path) -> None:
    games = root / "cahoots_envs" / "games"
    shutil.copytree(games / SOURCE, games / COPY,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for path in (games / COPY).rglob("*.py"):  # its own imports: the folder's new name
        text = path.read_text()
        path.write_text(text.replace(f"games.{SOURCE}", f"games.{COPY}")
                        .replace(f"games/{SOURCE}", f"games/{COPY}"))
    rules = games / COPY / "rules.py"
    text = rules.read_text()
    text = text.replace(f'NAME = "{SOURCE}"', f'NAME = "{COPY}"')
    text = text.replace('TITLE = "Texas Euchre"', 'TITLE = "Texas Copy"')
    text = re.sub(r"VERSION = 1\b", "VERSION = 0", text, count=1)
    text, notes = re.subn(r"VERSION_NOTES[^\n]*=\s*\{.*?\n    \}\n",
                          "VERSION_NOTES: dict[int, str] = {}\n", text, count=1,
                          flags=re.DOTALL)
    assert notes == 1, "the copied rules' VERSION_NOTES were not found"
    rules.write_text(text)
    # the outside edits: one registration line and the versioned module
    registry = root / "cahoots_envs" / "registry.py"
    line = f'    "cahoots_envs.games.{SOURCE}.spec:SPEC",\n'
    text = registry.read_text()
    assert line in text
    registry.write_text(text.replace(line, line + line.replace(SOURCE, COPY)))
    module = (root / "cahoots_envs" / f"{SOURCE}_v1.py").read_text()
    (root / "cahoots_envs" / f"{COPY}_v0.py").write_text(
        module.replace(SOURCE, COPY).replace("Texas Euchre", "Texas Copy")
        .replace("_v1", "_v0").replace("-v1", "-v0"))


@pytest.mark.slow
def test_a_game_copied_into_a_fifth_folder_passes_the_shared_suite(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    copy_checkout(root)
    add_copied_game(root)
    env = {**os.environ, "PYTHONPATH": str(root)}

    def run(*args: str, timeout: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True,
                              text=True, timeout=timeout, check=False)

    docs = run("-m", "cahoots_envs.docs", timeout=300)
    assert docs.returncode == 0, docs.stderr
    assert f"regenerated the doc page of {COPY}" in docs.stdout
    assert (root / "docs" / f"{COPY}.md").is_file()
    listed = run("-m", "cahoots_envs", "list", timeout=120)
    assert listed.returncode == 0 and f"{COPY}-v0" in listed.stdout, listed.stdout + listed.stderr
    # a person plays a whole game of it in the terminal (the moves test_cli.py plans)
    plan = ("import json\nfrom tests.test_cli import plan_human_moves\n"
            f"moves, _ = plan_human_moves('{COPY}', 0, 'heuristic', 4, "
            "{'num_players': 3, 'target_score': 15})\nprint(json.dumps(moves))\n")
    planned = run("-c", plan, timeout=300)
    assert planned.returncode == 0, planned.stderr[-2000:]
    moves = json.loads(planned.stdout)
    played = subprocess.run([sys.executable, "-m", "cahoots_envs", "play", COPY, "-n", "3",
                             "-o", "target_score=15", "--seat", "0", "--opponents", "heuristic",
                             "--seed", "4"], cwd=root, env=env, input="\n".join(moves) + "\n",
                            capture_output=True, text=True, timeout=300, check=False)
    assert played.returncode == 0, played.stdout[-2000:] + played.stderr[-2000:]
    assert "Final scores" in played.stdout, played.stdout[-2000:]
    tests = run("-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "2",
                "-m", "not slow", "tests", "-k", COPY, timeout=3000)
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " passed" in tests.stdout
    walkers = run("-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "2",
                  "-m", "not slow", *WALKERS, timeout=1800)
    assert walkers.returncode == 0, walkers.stdout[-4000:]
