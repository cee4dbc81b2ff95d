"""Every ``cahoots`` command, driven in a subprocess as a user would run it.

Terminal play is fed a scripted sequence of moves on standard input (computed here by playing
the same seeded game in-process), with bad input first that must get a helpful message and a
retry; the log it writes must replay to the same scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cahoots_envs
from cahoots_envs.registry import builtin_games

ROOT = Path(__file__).resolve().parent.parent


def cahoots(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cahoots_envs.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False,
    )


def plan_human_moves(env_id: str, seat: int, opponent: str, seed: int,
                     options: dict[str, Any]) -> tuple[list[str], list[float]]:
    """The moves a person in ``seat`` types (always the last legal move), and the final scores,
    from the very game ``cahoots play`` sets up (same deal seed, same bot seeds)."""
    env = cahoots_envs.make_raw(env_id, **options)
    game_options = env.options
    n = len(env.possible_agents)
    bots = {s: cahoots_envs.load_policy(opponent, env.env_id, game_options, seed=seed * 100 + s)
            for s in range(n) if s != seat}
    env.reset(seed=seed)
    moves = []
    while not env.game.is_over:
        actor = env.game.current_player
        if actor == seat:
            action = env.legal_actions()[-1]
            moves.append(env.game.action_to_str(action))
        else:
            obs = env.observe(f"player_{actor}")
            action = int(bots[actor].act(obs["observation"], obs["action_mask"]))
        env.step(action)
    return moves, [float(s) for s in env.game.scores]


COMMANDS = ["list", "play", "eval", "train", "bench", "replay"]


def test_help_explains_every_command_with_an_example() -> None:
    top = cahoots("--help")
    assert top.returncode == 0
    for command in COMMANDS:
        assert command in top.stdout
    for command in COMMANDS:
        out = cahoots(command, "--help")
        assert out.returncode == 0, out.stderr
        assert "example" in out.stdout and f"cahoots {command}" in out.stdout
        assert max(len(line) for line in out.stdout.splitlines()) <= 80


def test_list_shows_envs_players_options_and_policies() -> None:
    out = cahoots("list")
    assert out.returncode == 0, out.stderr
    # a fresh process knows the installed games (games registered in this session it cannot)
    installed = [spec.env_id for spec in builtin_games()]
    for env_id in installed:
        assert env_id.split("/", 1)[1] in out.stdout
    assert "players 4-5" in out.stdout and "-o hands=3" in out.stdout
    assert "Zoo policies" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    for entry in cahoots_envs.list_policies():  # every zoo entry with its measured strength
        assert entry["spec"] in out.stdout
    assert "vs heuristic" in out.stdout
    data = json.loads(cahoots("list", "--json").stdout)
    assert {e["id"] for e in data["envs"]} == set(installed)


def test_list_in_process_shows_every_registered_game(capsys) -> None:
    from cahoots_envs.cli import main

    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["id"] for e in data["envs"]] == cahoots_envs.list_envs()


PLAYS = [
    ("kansas_city", 1, {"hands": 1}, ["pass 1A", "play 9Z", "help"]),
    ("texas_euchre", 0, {"num_players": 3, "target_score": 15}, ["play AC", "fold"]),
    ("cahoots_tricks", 2, {"num_players": 3}, ["kill 4S", "moves"]),
    ("cahoots_coop", 0, {"num_players": 2, "num_goals": 6}, ["play 9G on 1", "view"]),
]


@pytest.mark.parametrize("game,seat,options,bad", PLAYS, ids=[p[0] for p in PLAYS])
def test_play_in_the_terminal_then_replay_the_log(tmp_path, game, seat, options, bad) -> None:
    seed = 4
    moves, scores = plan_human_moves(game, seat, "heuristic", seed, options)
    log = tmp_path / "game.jsonl"
    args = ["play", game, "--seat", str(seat), "--opponents", "heuristic", "--seed", str(seed),
            "--log", str(log)]
    for key, value in options.items():
        args += ["-n", str(value)] if key == "num_players" else ["-o", f"{key}={value}"]
    out = cahoots(*args, stdin="\n".join(bad + moves) + "\n")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    text = out.stdout
    assert text.count("is not a legal move now") >= 1  # the bad input, then a retry
    assert "your moves:" in text
    assert max(len(line) for line in text.splitlines() if str(tmp_path) not in line) <= 80
    for move in moves[:3]:
        assert f"(you): {move}" in text
    assert ("Final scores" in text or "The team" in text) and "game log written" in text
    replay = cahoots("replay", str(log))
    assert replay.returncode == 0, replay.stderr
    assert "replay OK" in replay.stdout
    logged = [json.loads(x) for x in log.read_text().splitlines()]
    assert logged[-1]["scores"] == scores
    assert logged[0]["players"][seat] == "human"


def test_play_reports_an_abandoned_game_and_bad_arguments() -> None:
    out = cahoots("play", "cahoots_coop", "--seed", "1", stdin="")
    assert out.returncode == 1 and "abandoned" in out.stdout
    out = cahoots("play", "kansas_city", "--seat", "7", stdin="")
    assert out.returncode == 2 and "--seat" in out.stderr
    out = cahoots("play", "kansas_city", "-o", "hands=99", stdin="")
    assert out.returncode == 2 and "hands" in out.stderr


def test_eval_is_reproducible_and_writes_json_and_png(tmp_path) -> None:
    base = ["eval", "kansas_city", "heuristic", "random", "--games", "4", "--seed", "3",
            "-o", "hands=1", "--no-progress"]
    one = cahoots(*base, "--workers", "1", "--json", str(tmp_path / "a.json"),
                  "--png", str(tmp_path / "a.png"))
    assert one.returncode == 0, one.stderr
    two = cahoots(*base, "--workers", "2", "--json", str(tmp_path / "b.json"))
    assert two.returncode == 0, two.stderr
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a == b
    assert {s["policy"] for s in a["stats"]} == {"heuristic", "random"}
    assert "win rate" in one.stdout and "head to head" in one.stdout
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = cahoots("eval", "kansas_city", "nonsense", "--games", "2")
    assert bad.returncode == 2 and "nonsense" in bad.stderr


def test_eval_writes_logs_that_replay(tmp_path) -> None:
    out = cahoots("eval", "cahoots_coop", "heuristic", "--games", "2", "-n", "2",
                  "-o", "num_goals=4", "--logs", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 2
    rep = cahoots("replay", str(logs[0]), "--quiet")
    assert rep.returncode == 0 and "replay OK" in rep.stdout


def test_replay_refuses_a_tampered_log(tmp_path) -> None:
    out = cahoots("eval", "cahoots_tricks", "random", "--games", "1", "--logs", str(tmp_path),
                  "--quiet")
    assert out.returncode == 0, out.stderr
    log = next(tmp_path.glob("*.jsonl"))
    lines = log.read_text().splitlines()
    record = json.loads(lines[3])
    record["action"] = "take 8S"
    lines[3] = json.dumps(record)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    rep = cahoots("replay", str(bad))
    assert rep.returncode == 1 and "not legal" in rep.stderr
    partial = cahoots("replay", str(log), "--turns", "5", "--show-all")
    assert partial.returncode == 0 and "replayed 5 actions" in partial.stdout
    stepped = cahoots("replay", str(log), "--step", stdin="\n\nq\n")
    assert stepped.returncode == 0 and "replay stopped" in stepped.stdout
    assert stepped.stdout.count("-- enter: next") == 3
    to_end = cahoots("replay", str(log), "--step", stdin="\nc\n")
    assert to_end.returncode == 0 and "replay OK" in to_end.stdout


def test_bench_runs_quickly() -> None:
    out = cahoots("bench", "--quick", "--seconds", "0.02")
    assert out.returncode == 0, out.stderr
    assert "steps/s" in out.stdout and "kansas_city-v0 (4p)" in out.stdout
    full = cahoots("bench", "--", "--seconds", "0.02", "--rounds", "1", "--no-classic",
                   "--envs", "cahoots_coop_v0 (2p)")
    assert full.returncode == 0, full.stderr
    assert "cahoots_coop" in full.stdout


def test_train_wraps_the_training_script() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("cahoots_envs.training.train")
    out = cahoots("train", "--", "--help")
    assert out.returncode == 0, out.stderr
    assert "--config" in out.stdout


NO_TORCH = (
    "import sys\n"
    "for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'openskill', 'matplotlib', 'tqdm'):\n"
    "    sys.modules[m] = None  # importing any of them now fails\n"
    "from cahoots_envs.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_list_play_and_replay_work_without_the_training_extra(tmp_path) -> None:
    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", NO_TORCH, *args], input=stdin,
                              capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)

    assert run("list").returncode == 0
    moves, _ = plan_human_moves("cahoots_coop", 0, "heuristic", 2, {"num_players": 2})
    log = tmp_path / "coop.jsonl"
    out = run("play", "cahoots_coop", "-n", "2", "--seed", "2", "--log", str(log),
              stdin="\n".join(moves) + "\n")
    assert out.returncode == 0, out.stderr
    rep = run("replay", str(log))
    assert rep.returncode == 0 and "replay OK" in rep.stdout, rep.stderr
    # eval still runs, without ratings, bar and chart
    ev = run("eval", "cahoots_coop", "random", "--games", "2", "-n", "2", "-o", "num_goals=3")
    assert ev.returncode == 0 and "win rate" in ev.stdout, ev.stderr
