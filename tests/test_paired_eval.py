"""benchmarks/paired_eval.py: two policies' evals against the same field on the same deals,
paired by game (Texas Euchre's zoo target is a paired difference)."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from cahoots_envs.cli import main as cli

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "paired_eval.py"


def script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("paired_eval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(tmp_path: Path, policy: str, seed: int, games: int = 8) -> Path:
    out = tmp_path / f"{policy.replace(':', '_')}_{seed}_{games}.json"
    assert cli(["eval", "kansas_city", "-n", "4", policy, "--field", "heuristic", "--games",
                str(games), "--seed", str(seed), "--games-in-json", "--json", str(out),
                "-q"]) == 0
    return out


def test_the_paired_difference_is_the_difference_of_the_shares_game_by_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = script()
    a, b = evaluate(tmp_path, "random", 3), evaluate(tmp_path, "zoo:kansas_city", 3)
    ga, gb = (json.loads(p.read_text()) for p in (a, b))
    assert [g["seed"] for g in ga["games"]] == [g["seed"] for g in gb["games"]]  # the same deals
    zipped = tmp_path / "b.json.gz"
    zipped.write_bytes(gzip.compress(b.read_bytes()))
    assert module.main([str(a), str(zipped)]) == 0
    out = capsys.readouterr().out
    rate_a, rate_b = (next(s["win_rate"] for s in d["stats"] if s["policy"] == d["policies"][0])
                      for d in (ga, gb))
    assert f"A random: {rate_a:.3f}" in out and f"B zoo:kansas_city: {rate_b:.3f}" in out
    assert f"paired by game: {rate_b - rate_a:+.3f}" in out
    assert module.main([str(a), str(a), "--markdown"]) == 0
    assert "**+0.000** (+0.000 to +0.000)" in capsys.readouterr().out


def test_files_of_other_deals_are_refused_in_one_line(tmp_path: Path) -> None:
    module = script()
    a = evaluate(tmp_path, "random", 3)
    with pytest.raises(SystemExit, match="differ in seed"):
        module.main([str(a), str(evaluate(tmp_path, "random", 4))])
    with pytest.raises(SystemExit, match="differ in num_games"):
        module.main([str(a), str(evaluate(tmp_path, "random", 3, games=4))])
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SystemExit, match="cannot read an eval JSON file"):
        module.main([str(a), str(broken)])
