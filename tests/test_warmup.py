"""``cahoots warmup`` (``cahoots_envs/search/warmup.py``): it compiles every numba kernel a game
uses into numba's on-disk cache, so that a later process compiles none.

The default suite checks what it refuses, before any compile (cheap); ``-m slow`` warms a cold
cache (``NUMBA_CACHE_DIR`` in ``tmp_path``) and plays a whole searched game per game in a fresh
process on it, which must compile no kernel (numba's ``numba:compile`` events) and load them
all from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cahoots_envs import cli
from cahoots_envs.search.warmup import resolve_games

pytest.importorskip("numba")
ROOT = Path(__file__).resolve().parent.parent
GAMES = ["kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop"]


@pytest.mark.parametrize("args,expected", [
    (["kansas_cty"], "unknown env 'kansas_cty'; known envs: "),
    (["cahoots_coop", "x" * 5000], "unknown env 'xxx"),
    (["high_card"], ("high_card has no numba kernels (no batched engine, no world sampler): "
                    "nothing to warm; games with kernels: kansas_city, texas_euchre")),
])
def test_warmup_refuses_a_game_in_one_line_before_compiling(capsys, args, expected) -> None:
    code = cli.main(["warmup", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("cahoots warmup: error: ") and err.count("\n") == 1, err
    assert expected in err and len(err) < 600
    assert "numba cache" not in capsys.readouterr().out  # refused before anything ran


def test_every_builtin_game_has_kernels_to_warm() -> None:
    assert [s.name for s in resolve_games(GAMES)] == GAMES
    assert {s.name for s in resolve_games(None)} >= set(GAMES)
    assert [s.name for s in resolve_games(["kansas_city-v1", "kansas_city"])] == ["kansas_city"]


def _run(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT),
           "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=900, check=True)


GAME = """
import json, sys
sys.path.insert(0, "benchmarks")
from search_first_decision import child
print(json.dumps(child(sys.argv[1], 0)))
"""


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_after_warmup_a_searched_game_in_a_new_process_compiles_nothing(tmp_path: Path,
                                                                        game: str) -> None:
    cache = tmp_path / "numba"
    cache.mkdir()
    warm = _run("import sys; from cahoots_envs.cli import main; sys.exit(main(sys.argv[1:]))",
                cache, "warmup", game)
    assert f"numba cache: {cache} (NUMBA_CACHE_DIR)" in warm.stdout
    assert f"{game}: " in warm.stdout and "kernel signatures compiled" in warm.stdout
    assert any(cache.rglob("*.nbi")), "nothing was written to NUMBA_CACHE_DIR"
    again = _run("import sys; from cahoots_envs.cli import main; sys.exit(main(sys.argv[1:]))",
                 cache, "warmup", game)
    assert f"{game}: nothing to compile" in again.stdout
    played = json.loads(_run(GAME, cache, f"{game}-v1").stdout.strip().splitlines()[-1])
    assert played["searched"] > 0
    assert played["compiled"] == 0, played
    assert played["loaded"] > 0
