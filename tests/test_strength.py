"""``cahoots strength``: the strength tables of a saved policy, the rows a game's spec declares
(``STRENGTH_VARIANTS``), one-line mistakes before any game, and publishing to the zoo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cahoots_envs import cli, game_spec
from cahoots_envs.envinfo import env_info
from cahoots_envs.policies import MLPPolicy, loading, read_metadata, save_policy
from cahoots_envs.policies.saved import read_safetensors
from tests.conftest import HIGH_CARD

ROOT = Path(__file__).resolve().parents[1]
ROWS = ("heuristic_vs_random", "policy_vs_random", "policy_vs_heuristic")
TEAM_ROWS = ("policy_team", "heuristic_team", "random_team")


def strength(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """``cahoots strength ARGS``: exit status, stdout, stderr (argparse's exit included)."""
    try:
        code = cli.main(["strength", *args])
    except SystemExit as done:
        code = int(done.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def table(out: str) -> tuple[dict[str, Any], list[str]]:
    """The printed JSON results and the Markdown rows after them."""
    results, end = json.JSONDecoder().raw_decode(out)
    return results, [line for line in out[end:].splitlines() if line.startswith("| ")]


def high_card_policy(folder: Path, **options: Any) -> Path:
    """A small seeded float32 network for the test game, saved as a training run would."""
    info = env_info(HIGH_CARD.env_id, options)
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(16, info.layout.size)).astype(np.float32), np.zeros(16, np.float32)),
               (rng.normal(size=(info.num_actions, 16)).astype(np.float32),
                np.zeros(info.num_actions, np.float32))]
    path = folder / "run" / "policy.safetensors"
    save_policy(MLPPolicy(weights), path, HIGH_CARD.env_id, options, description="a test network",
                training={"config": {"seed": 1}}, evaluation={"vs_random": {"win_rate": 0.5}})
    return path


def test_a_competitive_zoo_policy_gets_its_three_rows(capsys) -> None:
    code, out, err = strength(capsys, "kansas_city", "--games", "8")  # zoo:kansas_city
    assert code == 0, err
    results, rows = table(out)
    assert results["games_per_row"] == 8
    for row in ROWS:
        assert results[row]["games"] == 8 and 0 <= results[row]["win_rate"] <= 1
    assert len(rows) == 1 and rows[0].startswith("| kansas_city-v1 (4p) | chance 1/N = 0.250 | ")
    again = table(strength(capsys, "kansas_city", "zoo:kansas_city", "--games", "8")[1])[0]
    assert {r: again[r] for r in ROWS} == {r: results[r] for r in ROWS}  # the seed fixes the table
    other = table(strength(capsys, "kansas_city", "--games", "8", "--seed", "1")[1])[0]
    assert {r: other[r] for r in ROWS} != {r: results[r] for r in ROWS}


def test_the_cooperative_game_sweeps_the_difficulties_its_spec_declares(capsys) -> None:
    declared = game_spec("cahoots_coop").rules.STRENGTH_VARIANTS
    assert declared == ({"difficulty": "beginner"}, {"difficulty": "normal"})
    code, out, err = strength(capsys, "cahoots_coop", "--games", "4")
    assert code == 0, err
    results, rows = table(out)
    assert list(results["team"]) == ["beginner", "normal"]
    assert all(set(r) == set(TEAM_ROWS) for r in results["team"].values())
    assert [r.split(" | ")[0] for r in rows] == ["| cahoots_coop-v1 (3p, beginner)",
                                                 "| cahoots_coop-v1 (3p, normal)"]
    # --variant measures other option sets instead (one row group each)
    code, out, err = strength(capsys, "cahoots_coop", "--games", "4", "--variant", "difficulty=expert")
    assert code == 0, err
    assert list(table(out)[0]["team"]) == ["expert"]


def test_a_game_spec_declaring_variants_gets_a_row_group_each(capsys, tmp_path, monkeypatch) -> None:
    path = high_card_policy(tmp_path)
    code, out, _ = strength(capsys, "high_card", str(path), "--games", "8")
    plain, rows = table(out)
    assert code == 0 and set(ROWS) <= set(plain) and "variants" not in plain
    assert rows[0].startswith("| high_card-v0 (2p) | chance 1/N = 0.500 | ")
    # the shared code reads the sweep from the game's rules, nothing else
    monkeypatch.setattr(HIGH_CARD.rules, "STRENGTH_VARIANTS", ({"hands": 1}, {"hands": 2}))
    HIGH_CARD.check()
    code, out, err = strength(capsys, "high_card", str(path.parent), "--games", "8")
    assert code == 0, err
    results, rows = table(out)
    assert list(results["variants"]) == ["hands=1", "hands=2"] and not set(ROWS) & set(results)
    assert {r: results["variants"]["hands=1"][r] for r in ROWS} == {r: plain[r] for r in ROWS}
    assert [r.split(" | ")[0] for r in rows] == ["| high_card-v0 (2p, hands=1)",
                                                 "| high_card-v0 (2p, hands=2)"]


def test_publish_writes_float16_weights_and_the_results_into_the_zoo(capsys, tmp_path,
                                                                      monkeypatch) -> None:
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    monkeypatch.setattr(loading, "ZOO_DIR", zoo)
    source = high_card_policy(tmp_path)
    code, out, err = strength(capsys, "high_card", str(source), "--games", "8", "--publish")
    assert code == 0, err
    results, _ = table(out)
    dest = zoo / "high_card.safetensors"
    assert out.splitlines()[-1].startswith(f"published {dest} (")
    assert sorted(p.name for p in zoo.iterdir()) == ["high_card.json", "high_card.safetensors"]
    tensors, _ = read_safetensors(dest)
    assert {str(t.dtype) for t in tensors.values()} == {"float16"}
    meta = read_metadata(dest)
    assert meta["name"] == "high_card" and meta["description"] == "a test network"
    assert meta["architecture"]["weights_dtype"] == "float16"
    assert meta["training"] == {"config": {"seed": 1}}
    assert meta["evaluation"] == {"strength": results,
                                  "training_run": {"vs_random": {"win_rate": 0.5}}}
    assert json.loads(dest.with_suffix(".json").read_text())["evaluation"] == meta["evaluation"]
    # the table measured what ships: the zoo entry measures the same again
    code, out, err = strength(capsys, "high_card", "--games", "8")  # zoo:high_card, in this zoo
    assert code == 0, err
    again, _ = table(out)
    assert {r: again[r] for r in ROWS} == {r: results[r] for r in ROWS}


@pytest.mark.parametrize("args,expected", [
    (["kansas_cty"], "unknown env 'kansas_cty'; did you mean kansas_city?"),
    (["kansas_city", "zoo:texas_euchre"], ("zoo:texas_euchre is a policy for cahoots_envs/"
                                           "texas_euchre-v1, not cahoots_envs/kansas_city-v1")),
    (["kansas_city", "no_such_policy.safetensors"], "no saved policy 'no_such_policy.safetensors'"),
    (["kansas_city", "zoo:nope"], "no zoo policy 'nope'; zoo entries: "),
    (["high_card"], "no POLICY given and no zoo policy 'high_card'"),
    (["cahoots_coop", "--variant", "difficulty"], "--variant difficulty: a variant is KEY=VALUE"),
    (["cahoots_coop", "--variant", "difficulty=hard"], "option difficulty='hard' is not allowed"),
    (["cahoots_coop", "--variant", "open_hands=true"], "open_hands is a rule variant"),
    (["kansas_city", "--variant", "num_players=5"], ("option num_players=4 in the policy but "
                                                     "num_players=5 in the env")),
    (["cahoots_coop", "--variant", "difficulty=expert", "--variant", "difficulty=expert"],
     "variant expert is given twice"),
    (["kansas_city", "--games", "0"], "argument --games: must be at least 1, got 0; e.g. --games"),
    (["kansas_city", "--games", "many"], "argument --games: expected a whole number"),
    (["kansas_city", "--games", "1000000"], "argument --games: must be at most 100,000"),
    (["kansas_city", "--seed", "-1"], "argument --seed: must be at least 0"),
    (["kansas_city", "--publish", "--games", "8"], "cannot publish: the zoo folder "),
])
def test_a_mistake_is_one_line_before_any_game_and_writes_nothing(capsys, tmp_path, monkeypatch,
                                                                   args, expected) -> None:
    monkeypatch.chdir(tmp_path)
    if "--publish" in args:  # into a zoo folder that does not exist
        monkeypatch.setattr(loading, "ZOO_DIR", tmp_path / "no_zoo")
        args = [args[0], str(ROOT / "cahoots_envs" / "policies" / "zoo" / "kansas_city.json"),
                *args[1:]]
    zoo_before = sorted((ROOT / "cahoots_envs" / "policies" / "zoo").iterdir())
    code, out, err = strength(capsys, *args)
    assert code == 2 and out == "", (out, err)
    assert err.startswith("cahoots strength: error: ") and err.count("\n") == 1, err
    assert expected in err, err
    assert list(tmp_path.iterdir()) == []
    assert sorted((ROOT / "cahoots_envs" / "policies" / "zoo").iterdir()) == zoo_before


def test_the_strength_command_replaces_the_old_script(capsys) -> None:
    """One home: the command is in the package, and no page or module quotes the old script."""
    old = "training/" + "strength.py"
    assert not (ROOT / old).exists()
    quoting = [str(p.relative_to(ROOT)) for folder in ("docs", "cahoots_envs", "tests", "benchmarks")
               for p in sorted((ROOT / folder).rglob("*")) if p.suffix in (".md", ".py", ".yaml")
               and old in p.read_text(errors="replace")] + (
        ["README.md"] if old in (ROOT / "README.md").read_text() else [])
    assert quoting == []
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "strength  a policy's strength table" in capsys.readouterr().out
