"""Every ``cahoots`` command, driven in a subprocess as a user would run it.

Terminal play is fed a scripted sequence of moves on standard input (computed here by playing
the same seeded game in-process), with bad input first that must get a helpful message and a
retry; the log it writes must replay to the same scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

import cahoots_envs
from cahoots_envs import cli
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


COMMANDS = ["list", "play", "eval", "train", "strength", "bench", "replay"]


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
    zoo = out.stdout.split("Zoo policies", 1)[1].split("Search bots", 1)[0]
    for line in zoo.splitlines():  # the env and strength columns align, long names included
        if "vs heuristic" in line or "team wins" in line:
            assert line[26] == " " and line[27:].split()[0].endswith("-v1"), line
    data = json.loads(cahoots("list", "--json").stdout)
    assert {e["id"] for e in data["envs"]} == set(installed)
    # what plain 'search' plays, per env, in the JSON and in the text
    defaults = {e["id"].split("/")[1]: e["default_search"] for e in data["envs"]}
    assert defaults["kansas_city-v1"] == "search@rollout=heuristic:zoo:kansas_city_stage2"
    assert defaults["cahoots_coop-v1"] == "search:heuristic"
    search = out.stdout.split("Search bots", 1)[1]
    assert all(f"{env:<22} {spec}" in search for env, spec in defaults.items() if spec)


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
    assert "steps/s" in out.stdout and "kansas_city-v1 (4p)" in out.stdout
    # the full benchmark: test_bench_without_pettingzoo_classic_says_so runs it in-process


def test_bench_runs_from_the_installed_package_alone(tmp_path: Path) -> None:
    """``cahoots bench`` is package code: a copy of the package with no checkout around it (no
    benchmarks/, no tests/) runs the full benchmark and --quick."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(ROOT / "cahoots_envs", site / "cahoots_envs")  # __pycache__ too: no compiling
    script = ("from cahoots_envs.cli import main\n"
              "import cahoots_envs\n"
              "print('package:', cahoots_envs.__file__)\n"
              "main(['bench', '--', '--seconds', '0.01', '--rounds', '1', '--no-classic',\n"
              "      '--no-batched', '--envs', 'cahoots_coop_v1 (2p)'])\n"
              "main(['bench', '--quick', '--seconds', '0.01'])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    assert f"package: {site / 'cahoots_envs' / '__init__.py'}" in done.stdout
    assert "# bench_envs — " in done.stdout and "| cahoots_coop_v1 (2p) |" in done.stdout
    assert "memory of 1,000 live" in done.stdout and "kansas_city-v1 (4p)" in done.stdout


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


# ---- one-line errors, --version, python -m, eval --field, bench, configs ---------------------------
HAS_TRAIN_EXTRA = all(find_spec(m) is not None
                      for m in ("yaml", "torch", "stable_baselines3", "sb3_contrib"))


def run_main(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(code: int, err: str, command: str, *expected: str) -> None:
    assert code == 2, err
    assert err.startswith(f"cahoots {command}: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for text in expected:
        assert text in err, (text, err)


@pytest.mark.parametrize("args,expected", [
    (["play", "kansas_cty"], ["error: unknown env 'kansas_cty'", "did you mean kansas_city?"]),
    (["eval", "kansas_cty", "random"], ["error: unknown env", "did you mean kansas_city?"]),
    (["play", "kansas_city", "-o", "hands"], ["error: -o hands", "-o key=value"]),
    (["eval", "kansas_city", "random", "-o", "hands"], ["error: -o hands", "-o key=value"]),
    (["eval", "kansas_city", "random", "-o", "hands=x"], ["error: option hands='x'"]),
    (["eval", "kansas_city", "random", "random"], ["error: policy 'random' is given twice",
                                                   "--field random"]),
])
def test_a_mistyped_command_is_one_line_not_a_traceback(capsys, args, expected) -> None:
    one_line_error(*run_main(capsys, *args)[::2], args[0], *expected)


def test_eval_logs_into_a_file_is_one_line(capsys, tmp_path) -> None:
    afile = tmp_path / "taken.txt"
    afile.write_text("x")
    code, _, err = run_main(capsys, "eval", "kansas_city", "random", "--games", "1", "--logs",
                            str(afile), "--no-progress")
    one_line_error(code, err, "eval", str(afile))
    assert afile.read_text() == "x"


@pytest.mark.skipif(not HAS_TRAIN_EXTRA, reason="needs the train extra")
def test_train_config_mistakes_are_one_line(capsys, tmp_path) -> None:
    code, _, err = run_main(capsys, "train", "--config", str(tmp_path / "nope.yaml"))
    one_line_error(code, err, "train", "error: no config file", "kansas_city")
    code, _, err = run_main(capsys, "train", "--config", "kansas_cty")
    one_line_error(code, err, "train", "did you mean kansas_city?")
    code, _, err = run_main(capsys, "train", "--resume", str(tmp_path / "gone"),
                            "--trust-checkpoint")
    one_line_error(code, err, "train", "--resume", "no such folder")
    typo = tmp_path / "typo.yaml"
    typo.write_text((ROOT / "configs" / "kansas_city.yaml").read_text()
                    .replace("n_steps:", "n_stepz:"))
    code, _, err = run_main(capsys, "train", "--config", str(typo))
    one_line_error(code, err, "train", "maskable_ppo.ppo.n_stepz",
                   "did you mean maskable_ppo.ppo.n_steps?")


def test_train_without_the_extra_says_how_to_install_it(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    code, _, err = run_main(capsys, "train", "--config", "kansas_city")
    one_line_error(code, err, "train", "sb3-contrib", 'pip install "cahoots-envs[train]"')


def test_an_unexpected_error_keeps_its_traceback(monkeypatch) -> None:
    def broken(args: Any) -> int:
        raise RuntimeError("a bug")

    import dataclasses

    monkeypatch.setattr(cli, "COMMANDS", tuple(
        dataclasses.replace(c, run=broken) if c.name == "list" else c for c in cli.COMMANDS))
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["list"])


def test_every_command_module_in_the_cli_folder_is_a_command_in_help_order() -> None:
    """A command is one file, cli/<name>_cmd.py: found there with no edit elsewhere."""
    folder = Path(cli.__file__).parent
    assert sorted(c.name for c in cli.COMMANDS) == sorted(
        p.name.removesuffix("_cmd.py") for p in folder.glob("*_cmd.py"))
    assert [c.name for c in cli.COMMANDS] == [
        "list", "play", "eval", "train", "strength", "bench", "replay", "serve", "warmup"]


def test_version_and_python_m_cahoots_envs(capsys, monkeypatch) -> None:
    import runpy

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"cahoots (cahoots-envs) {cahoots_envs.__version__}"
    monkeypatch.setattr(sys, "argv", ["cahoots_envs", "--version"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("cahoots_envs", run_name="__main__")
    assert done.value.code == 0
    assert cahoots_envs.__version__ in capsys.readouterr().out


def test_eval_puts_a_candidate_against_a_field(capsys, tmp_path) -> None:
    path = tmp_path / "field.json"
    code, out, err = run_main(capsys, "eval", "kansas_city", "heuristic", "--field", "random",
                              "--games", "4", "-o", "hands=1", "--workers", "1", "--no-progress",
                              "--json", str(path))
    assert code == 0, err
    assert "against 3 random" in out and "win rate" in out
    data = json.loads(path.read_text())
    assert data["field"] == "random"
    assert {s["policy"]: s["seat_games"] for s in data["stats"]} == {"heuristic": 4, "random": 12}


def test_bench_without_pettingzoo_classic_says_so(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)  # as if not installed
    code, out, err = run_main(capsys, "bench", "--", "--seconds", "0.01", "--rounds", "1",
                              "--envs", "cahoots_coop_v1 (2p)")
    assert code == 0
    assert "cahoots_coop" in out and "nan" not in out and "ratio" not in out
    assert "pettingzoo[classic] is not installed" in err and "cahoots-envs[bench]" in err
    with pytest.raises(SystemExit):
        cli.main(["bench", "--", "--help"])
    help_text = capsys.readouterr().out
    assert "--markdown" not in help_text and "--envs" in help_text


def test_configs_ship_in_the_package_and_resolve_by_name() -> None:
    from cahoots_envs.training.config import CONFIG_DIR, packaged_configs, resolve_config

    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"configs/*.yaml"' in pyproject  # package data: the wheel carries them
    assert CONFIG_DIR == Path(cahoots_envs.__file__).resolve().parent / "configs"
    # every game with a zoo network ships a config by its name, and every zoo entry's recorded
    # command names a config that ships (a recipe's stages included: configs/<kind>/<game>.yaml)
    entries = cahoots_envs.list_policies()
    zoo_games = {e["env_id"].split("/")[-1].rsplit("-v", 1)[0] for e in entries}
    assert zoo_games and set(packaged_configs()) >= zoo_games
    for entry in entries:
        words = entry["training"]["command"].split()
        config = Path(words[words.index("--config") + 1])
        assert (ROOT / config).is_file() or (CONFIG_DIR / f"{config}.yaml").is_file(), entry["name"]
    for name in packaged_configs():
        assert resolve_config(name) == CONFIG_DIR / f"{name}.yaml"
        assert resolve_config(f"{name}.yaml") == CONFIG_DIR / f"{name}.yaml"
        # the README's configs/<game>.yaml works in a checkout
        assert (ROOT / "configs" / f"{name}.yaml").resolve() == CONFIG_DIR / f"{name}.yaml"


@pytest.mark.skipif(find_spec("yaml") is None, reason="needs pyyaml (train extra)")
def test_every_zoo_policy_records_a_command_whose_config_is_in_the_repository() -> None:
    """Each zoo policy's training command names a config in this repository that, with the
    command's overrides, is the recorded config."""
    import shlex

    from cahoots_envs.training.config import config_from_dict, load_config, to_dict

    for meta in cahoots_envs.list_policies():
        training = meta["training"]
        words = shlex.split(training["command"])
        config_path = words[words.index("--config") + 1]
        assert not Path(config_path).is_absolute() and (ROOT / config_path).is_file(), config_path
        config = load_config(ROOT / config_path)
        if "--total-timesteps" in words:
            config.total_timesteps = int(words[words.index("--total-timesteps") + 1])
        if "--seed" in words:
            config.seed = int(words[words.index("--seed") + 1])
        if "--no-progress" in words:
            config.progress_bar = False
        # a recorded config from before a key existed holds that key's default (an algorithm's
        # section too: it is read back through its dataclass)
        assert to_dict(config) == to_dict(config_from_dict(training["config"])), meta["spec"]


# ---- game logs: written as the game goes, abandoned games, output paths, bounded input ------------
class _StdinThenCtrlC:
    """Standard input that gives these lines, then Ctrl-C."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = [line + "\n" for line in lines]

    def readline(self, size: int = -1) -> str:
        if not self.lines:
            raise KeyboardInterrupt
        return self.lines.pop(0)

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("how", ["quit", "end of input", "ctrl-c"])
def test_a_game_left_in_play_leaves_a_log_that_replays_as_abandoned(capsys, monkeypatch, tmp_path,
                                                                    how) -> None:
    import io

    moves, _ = plan_human_moves("cahoots_coop", 0, "heuristic", 2, {"num_players": 2})
    typed = moves[:3] + (["quit"] if how == "quit" else [])
    stdin = _StdinThenCtrlC(typed) if how == "ctrl-c" else io.StringIO("\n".join(typed) + "\n")
    monkeypatch.setattr("sys.stdin", stdin)
    log = tmp_path / "left.jsonl"
    code, out, err = run_main(capsys, "play", "cahoots_coop", "-n", "2", "--seed", "2",
                              "--log", str(log))
    assert code == (130 if how == "ctrl-c" else 1), err
    assert "abandoned at turn" in out
    end = json.loads(log.read_text().splitlines()[-1])
    assert end["type"] == "end" and end["abandoned"] is True and end["turns"] >= 3
    code, out, err = run_main(capsys, "replay", str(log), "--quiet")
    assert code == 0, err
    assert f"abandoned at turn {end['turns']}" in out


@pytest.mark.parametrize("where", ["a folder", "a missing folder", "a file as folder"])
def test_play_checks_the_log_path_before_the_game(capsys, monkeypatch, tmp_path, where) -> None:
    import io

    (tmp_path / "afile").write_text("x")
    path = {"a folder": tmp_path, "a missing folder": tmp_path / "no" / "g.jsonl",
            "a file as folder": tmp_path / "afile" / "g.jsonl"}[where]
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run_main(capsys, "play", "cahoots_coop", "-n", "2", "--seed", "2",
                              "--log", str(path))
    assert code == 2 and out == "", out  # nothing dealt, nothing shown
    assert err.startswith("cahoots play: --log ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("args,expected", [
    (["--json", "{tmp}"], "--json"),
    (["--json", "{tmp}/no/r.json"], "does not exist"),
    (["--png", "{tmp}/no/c.png"], "does not exist"),
    (["--logs", "{tmp}/afile/logs"], "is a file, not a folder"),
])
def test_eval_checks_its_outputs_before_the_games(capsys, tmp_path, args, expected) -> None:
    (tmp_path / "afile").write_text("x")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = run_main(capsys, "eval", "cahoots_coop", "random", "-n", "2", "--games", "1",
                              "--no-progress", *args)
    assert code == 2 and out == "" and expected in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_eval_png_without_matplotlib_fails_before_the_games(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # importing it now fails
    code, out, err = run_main(capsys, "eval", "cahoots_coop", "random", "-n", "2", "--games", "1",
                              "--no-progress", "--png", str(tmp_path / "c.png"))
    assert code == 2 and out == "" and "matplotlib" in err and err.count("\n") == 1, err


def test_replay_of_a_log_cut_short_fails_unless_partial(capsys, tmp_path) -> None:
    from cahoots_envs.gamelog import GameRecorder

    env = cahoots_envs.make("cahoots_coop", num_players=2)
    rec = GameRecorder(env, path=tmp_path / "cut.jsonl")
    rec.reset(seed=4)
    for _ in range(5):
        rec.step(env.unwrapped.legal_actions()[0])
    rec.close()  # no end record: the process died
    code, _, err = run_main(capsys, "replay", str(tmp_path / "cut.jsonl"), "-q")
    assert code == 1 and "no end record" in err and "--partial" in err
    code, out, _ = run_main(capsys, "replay", str(tmp_path / "cut.jsonl"), "-q", "--partial")
    assert code == 0 and "partial replay: 5 actions" in out


def test_replay_names_the_line_and_field_of_a_malformed_log(capsys, tmp_path) -> None:
    from cahoots_envs.gamelog import GameRecorder

    env = cahoots_envs.make("cahoots_coop", num_players=2, num_goals=3)
    rec = GameRecorder(env)
    rec.reset(seed=4)
    while not rec.done:
        rec.step(env.unwrapped.legal_actions()[0])
    lines = rec.log.lines()
    bad = [lines[0], lines[1].replace('"seat": 0', '"seat": "0"'), *lines[2:]]
    (tmp_path / "bad.jsonl").write_text("\n".join(bad) + "\n")
    code, _, err = run_main(capsys, "replay", str(tmp_path / "bad.jsonl"))
    assert code == 2 and err.count("\n") == 1, err
    assert "bad.jsonl:2: action (turn 0): 'seat' must be a whole number" in err
    (tmp_path / "nan.jsonl").write_text("\n".join([*lines[:-1], lines[-1].replace("[", "[NaN, ", 1)]))
    code, _, err = run_main(capsys, "replay", str(tmp_path / "nan.jsonl"))
    assert code == 2 and f"nan.jsonl:{len(lines)}: not JSON (NaN" in err


def test_replay_of_dev_zero_returns_at_once(capsys) -> None:
    import time

    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    start = time.perf_counter()
    code, _, err = run_main(capsys, "replay", "/dev/zero")
    assert code == 2 and "line longer than" in err
    assert time.perf_counter() - start < 10


def test_a_very_long_typed_line_is_refused_without_echo(capsys, monkeypatch) -> None:
    import io

    from cahoots_envs.cli.play import MAX_INPUT_LINE

    monkeypatch.setattr("sys.stdin", io.StringIO("x" * (20 * 1024 * 1024) + "\nview\nquit\n"))
    code, out, _ = run_main(capsys, "play", "cahoots_coop", "-n", "2", "--seed", "2")
    assert code == 1
    assert f"line too long (max {MAX_INPUT_LINE} characters)" in out
    assert len(out) < 20_000 and "you left the game" in out


# ---- numbers range-checked, every policy spec in the help, incomplete moves, signals -------------
@pytest.mark.parametrize("args,expected", [
    (["eval", "kansas_city", "random", "--workers", "0"], "--workers: must be at least 1, got 0"),
    (["eval", "kansas_city", "random", "--workers", "-3"], "--workers: must be at least 1"),
    (["eval", "kansas_city", "random", "--workers", "100000"], "--workers: must be at most"),
    (["eval", "kansas_city", "random", "--games", "0"], "--games: must be at least 1"),
    (["eval", "kansas_city", "random", "--games", "10000000000"], "--games: must be at most"),
    (["eval", "kansas_city", "random", "--seed", "-1"], "--seed: must be at least 0"),
    (["eval", "kansas_city", "random", "-n", "four"], "-n/--players: expected a whole number"),
    (["play", "kansas_city", "--seat", "-1"], "--seat: must be at least 0"),
    (["play", "kansas_city", "--seed", "-1"], "--seed: must be at least 0"),
    (["bench", "--quick", "--seconds", "-1"], "--seconds: must be at least 0.01"),
    (["bench", "--seconds", "nan"], "--seconds: expected a finite number"),
    (["bench", "--seconds", "inf"], "--seconds: expected a finite number"),
    (["replay", "game.jsonl", "--turns", "-1"], "--turns: must be at least 0"),
    (["bench", "--", "--rounds", "0"], "--rounds: must be at least 1"),  # the benchmark's own
    (["bench", "--", "--num-envs", "64,0"], "--num-envs: must be at least 1"),
])
def test_every_numeric_argument_is_range_checked_before_any_work(capsys, args, expected) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(args)
    out = capsys.readouterr()
    assert out.out == ""  # nothing played, measured or read
    one_line_error(done.value.code, out.err, args[0], f"error: argument {expected}", "e.g. ")


def test_bench_seconds_reach_the_benchmark(monkeypatch) -> None:
    from cahoots_envs import bench

    got: list[Any] = []
    monkeypatch.setattr(bench, "run", got.append)
    assert cli.main(["bench", "--seconds", "0.3", "--", "--rounds", "1"]) == 0
    assert [(args.seconds, args.rounds, args.no_classic) for args in got] == [(0.3, 1, False)]


@pytest.mark.parametrize("command", ["play", "eval"])
def test_play_and_eval_help_list_every_policy_spec(capsys, command) -> None:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for spec in ("random", "heuristic", "search (", "search:<spec>", "search@<knob>=<value>,...:<spec>",
                 "zoo:<name>", "a saved policy path"):
        assert spec in text, spec


def _first_state(game: str, wanted: Any, **options: Any) -> tuple[Any, str]:
    """A game (random play, seeded) at the first state where a legal move matches ``wanted``."""
    import numpy as np

    rng = np.random.default_rng(0)
    for seed in range(50):
        env = cahoots_envs.make_raw(game, **options)
        env.reset(seed=seed)
        while not env.game.is_over:
            moves = [env.game.action_to_str(a) for a in env.legal_actions()]
            move = next((m for m in moves if wanted(m)), None)
            if move:
                return env.game, move
            env.step(int(rng.choice(env.legal_actions())))
    raise AssertionError(f"no {game} state with such a move")


@pytest.mark.parametrize("game,options,wanted,typed,expected", [
    ("cahoots_coop", {"num_players": 2}, lambda m: True, lambda m: m.split()[1], "it needs a pile"),
    ("cahoots_coop", {"num_players": 2}, lambda m: True, lambda m: " ".join(m.split()[:2]),
     "it needs a pile"),
    ("cahoots_coop", {"num_players": 2}, lambda m: True, lambda m: " ".join(m.split()[:3]),
     "it needs a pile"),
    ("kansas_city", {}, lambda m: m.startswith("pass "), lambda m: " ".join(m.split()[:2]),
     "it needs 2 more cards"),
    ("kansas_city", {}, lambda m: m == "no upgrade", lambda m: "no", "write it in full"),
    ("texas_euchre", {}, lambda m: m == "throw down", lambda m: "throw", "write it in full"),
    ("cahoots_tricks", {}, lambda m: m.startswith("kill "), lambda m: "kill", "it needs a card"),
], ids=["coop card", "coop play card", "coop play card on", "kc pass one card", "kc no",
        "te throw", "tricks kill"])
def test_an_incomplete_move_says_what_is_missing_and_the_whole_move(game, options, wanted, typed,
                                                                    expected) -> None:
    from cahoots_envs.cli.play import parse_move

    state, move = _first_state(game, wanted, **options)
    text = typed(move)
    with pytest.raises(ValueError) as err:
        parse_move(state, text)
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{text!r} is not a legal move now ({expected}: "), first
    if "ways)" not in first:  # the moves it could be: all of them when there are a few
        assert move in first, first


def test_play_restores_the_signal_handlers_and_keeps_an_ignored_sighup(capsys, monkeypatch) -> None:
    import io
    import signal

    seen = []

    class Stdin(io.StringIO):
        def readline(self, size: int = -1) -> str:
            seen.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)))
            return super().readline(size)

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        monkeypatch.setattr("sys.stdin", Stdin("quit\n"))
        code, _, _ = run_main(capsys, "play", "cahoots_coop", "-n", "2", "--seed", "2")
        assert code == 1
        term, hup = seen[0]
        assert callable(term) and hup == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_signal_while_a_move_is_recorded_waits_for_its_record(capsys, monkeypatch, tmp_path) -> None:
    import io
    import signal

    moves, _ = plan_human_moves("cahoots_coop", 0, "heuristic", 2, {"num_players": 2})
    raw = type(cahoots_envs.make_raw("cahoots_coop", num_players=2))
    step, steps = raw.step, []

    def step_then_sigterm(self: Any, action: int) -> None:
        step(self, action)
        steps.append(action)
        if len(steps) == 2:  # the bot's first move: the signal comes before its log record
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, signal.SIG_IGN):
                pytest.fail("play has no SIGTERM handler")  # (rather than kill the tests)
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(raw, "step", step_then_sigterm)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(moves) + "\n"))
    log = tmp_path / "term.jsonl"
    code, out, _ = run_main(capsys, "play", "cahoots_coop", "-n", "2", "--seed", "2",
                            "--log", str(log))
    assert code == 128 + signal.SIGTERM and "game abandoned (SIGTERM)" in out
    end = json.loads(log.read_text().splitlines()[-1])
    assert end["abandoned"] is True and end["reason"] == "SIGTERM"
    assert end["turns"] == len(steps) == 2  # every step the env took is in the log


def _prompted(proc: subprocess.Popen, times: int, timeout: float = 60) -> str:
    """Read the process's output until its prompt has come ``times`` times."""
    import os
    import select
    import time

    out, deadline = b"", time.monotonic() + timeout
    while out.count(b"player_0> ") < times:
        assert time.monotonic() < deadline, out.decode()[-2000:]
        ready, _, _ = select.select([proc.stdout], [], [], 1)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, out.decode()[-2000:]  # it ended
            out += chunk
    return out.decode()


def _default_signals() -> None:
    import signal

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def test_sigterm_or_sighup_in_play_ends_the_log_and_exits_128_plus_the_signal(capsys,
                                                                               tmp_path) -> None:
    import signal

    moves, _ = plan_human_moves("cahoots_coop", 0, "heuristic", 2, {"num_players": 2})
    procs = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):  # both start at once: half the waiting
        log = tmp_path / f"{sig.name}.jsonl"
        procs[sig] = (log, subprocess.Popen(
            [sys.executable, "-m", "cahoots_envs.cli", "play", "cahoots_coop", "-n", "2",
             "--seed", "2", "--log", str(log)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
            # the signals at their defaults in the child, as in a terminal: under nohup the
            # suite inherits SIGHUP ignored, and play rightly leaves an ignored signal alone
            # (the fork runs only signal.signal calls, safe with the parent's threads)
            preexec_fn=_default_signals))  # noqa: PLW1509
    for sig, (log, proc) in procs.items():
        try:
            proc.stdin.write(f"{moves[0]}\n".encode())  # one move, then it waits for the next
            proc.stdin.flush()
            _prompted(proc, 2)
            proc.send_signal(sig)
            rest, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 128 + sig, err.decode()
        assert b"Traceback" not in err and f"game abandoned ({sig.name})".encode() in rest
        end = json.loads(log.read_text().splitlines()[-1])
        assert end["type"] == "end" and end["abandoned"] is True and end["reason"] == sig.name
        assert end["turns"] >= 2  # the move typed and the partner's answer
        code, out, err = run_main(capsys, "replay", str(log), "--quiet")
        assert code == 0 and f"abandoned at turn {end['turns']} ({sig.name})" in out, err


MALFORMED_CONFIGS = [
    ("nested lists", "[" * 100_000 + "]" * 100_000, "nested more than 32 levels deep"),
    ("nested mappings", "env_id: " + "{a: " * 5000 + "1" + "}" * 5000, "nested more than 32"),
    ("aliases of aliases", "env_id: kansas_city\nenv_options:\n  a0: &a0 [x, x, x, x, x, x, x, x]\n"
     + "".join(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 8)}]\n" for i in range(1, 9)),
     "more than 100,000 values"),
    ("not a mapping", "- env_id: kansas_city\n", "a config is a mapping of keys, got list"),
    ("binary", b"\xff\xfe\x00\x01junk", "byte 0 is not UTF-8 text"),
    ("a NUL character", "env_id: kansas\x00city\n", "not valid YAML: unacceptable character"),
    ("unclosed list", "env_id: kansas_city\nppo: [1, 2\n", "not valid YAML: line 3, column 1: "),
    ("huge", "# " + "x" * 300_000 + "\n", "holds more than 256 KiB"),
    ("negative seed", "env_id: kansas_city-v1\nseed: -1\n", "seed must be 0 or more, got -1"),
]


@pytest.mark.parametrize("what,text,expected", MALFORMED_CONFIGS,
                         ids=[c[0] for c in MALFORMED_CONFIGS])
def test_a_malformed_config_is_one_line(tmp_path, what, text, expected) -> None:
    pytest.importorskip("yaml")
    from cahoots_envs.training.config import ConfigError, load_config

    path = tmp_path / "bad.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert expected in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_the_wheel_carries_every_zoo_entrys_recipe(tmp_path, monkeypatch) -> None:
    """A pip-installed user can run the recipe each zoo entry records: the wheel (built here
    from a copy of the package, so the checkout is left as it was) holds the config its command
    names, and that name resolves to the packaged file where no such file is at hand."""
    import shutil
    import zipfile

    from cahoots_envs.training.config import CONFIG_DIR, resolve_config

    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "cahoots_envs", source / "cahoots_envs",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "--no-index", "-q", "-w", str(tmp_path / "dist"),
                           str(source)], capture_output=True, text=True, timeout=300, check=False,
                          # pip's own temporary folders and cache under tmp_path too
                          env={**os.environ, "TMPDIR": str(tmp_path), "PIP_NO_CACHE_DIR": "1"})
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "dist").glob("cahoots_envs-*.whl")
    files = set(zipfile.ZipFile(wheel).namelist())
    monkeypatch.chdir(tmp_path)  # no configs/ folder here: names resolve in the package
    entries = cahoots_envs.list_policies()
    assert entries
    for entry in entries:
        words = entry["training"]["command"].split()
        config = words[words.index("--config") + 1]  # configs/<algorithm>/<game>.yaml
        assert f"cahoots_envs/{config}" in files, f"{entry['name']}: {config} is not in the wheel"
        packaged = resolve_config(config)
        assert packaged == CONFIG_DIR.parent / config, (entry["name"], config)
    # every config of the checkout ships, RLlib's included
    for path in CONFIG_DIR.rglob("*.yaml"):
        assert path.relative_to(CONFIG_DIR.parent.parent).as_posix() in files
