"""The search bot and its protocol, on every game: seeded games repeat, the spec and knobs are
checked, and every harness plays it (tournaments with any number of workers, seat-env opponent
pools, the terminal game). That a decision comes from the information set only is
tests/test_search_leak.py's."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.errors import InfosetRequiredError
from cahoots_envs.evaluation import play_game, run_tournament
from cahoots_envs.search import Infoset, SearchPolicy, infoset, parse_search_spec
from cahoots_envs.search import policy as search_policy
from cahoots_envs.search.policy import MAX_ROLLOUTS, MAX_WORLDS
from tests.test_cli import cahoots

GAMES = {
    "kansas_city-v1": {"hands": 1},
    "texas_euchre-v1": {"num_players": 3, "target_score": 15},
    "cahoots_tricks-v1": {"num_players": 3},
    "cahoots_coop-v1": {"num_players": 3, "difficulty": "beginner"},
}
SMALL = "search@worlds=3,max_worlds=6,search_all=true"


def _bot(env_id: str, options: dict, seed: int, **knobs) -> SearchPolicy:
    knobs = {"worlds": 3, "max_worlds": 6, "search_all": True, **knobs}
    return SearchPolicy(env_id, options, seed=seed, **knobs)


@pytest.mark.parametrize("env_id", GAMES)
def test_a_seeded_game_with_search_bots_repeats_and_respects_the_budget(env_id) -> None:
    options = GAMES[env_id]
    n = len(cahoots_envs.make_raw(env_id, **options).possible_agents)
    lineup = [_bot(env_id, options, seed=s, worlds=2, max_worlds=4, max_rollouts=40,
                   search_all=False) for s in range(2)] + ["heuristic"] * (n - 2)
    first = play_game(env_id, options, lineup, seed=5)
    again = play_game(env_id, options, lineup, seed=5)
    assert first.scores == again.scores and first.turns == again.turns
    for bot in lineup[:2]:
        st = bot.stats
        assert st.decisions > 0 and st.searched > 0
        assert st.rollouts <= 40 * st.searched
        assert st.worlds <= 4 * st.searched


def test_act_from_an_observation_says_how_to_use_a_search_bot() -> None:
    env = cahoots_envs.make("cahoots_coop-v1")
    env.reset(seed=0)
    bot = cahoots_envs.load_policy("search", "cahoots_coop-v1", seed=0)
    assert bot.needs_infoset
    obs = env.observe(env.agent_selection)
    with pytest.raises(InfosetRequiredError, match=r"act_infoset\(cahoots_envs.search.infoset"):
        bot.act(obs["observation"], obs["action_mask"])
    with pytest.raises(InfosetRequiredError):
        bot.act_batch(obs["observation"][None], obs["action_mask"][None])
    move = bot.act_infoset(infoset(env))
    assert obs["action_mask"][move] == 1
    with pytest.raises(TypeError, match="Infoset"):
        bot.act_infoset(obs)  # type: ignore[arg-type]
    other = cahoots_envs.make("kansas_city-v1")
    other.reset(seed=0)
    with pytest.raises(ValueError, match="plays cahoots_envs/cahoots_coop-v1"):
        bot.act_infoset(infoset(other))
    with pytest.raises(ValueError, match="not to move"):
        Infoset(env.game, (env.game.current_player + 1) % 3, env.spec, env.options)


def test_search_specs_and_knobs() -> None:
    assert parse_search_spec("search") == ({}, "heuristic")
    assert parse_search_spec("search:zoo:kansas_city") == ({}, "zoo:kansas_city")
    assert parse_search_spec("search@worlds=16,gate=2.5,time_limit=none:heuristic") == (
        {"worlds": 16, "gate": 2.5, "time_limit": None}, "heuristic")
    bot = cahoots_envs.load_policy("search@worlds=5,rollout=heuristic:zoo:kansas_city",
                                   "kansas_city-v1", seed=1)
    assert isinstance(bot, SearchPolicy) and bot.settings["worlds"] == 5
    assert bot.name == "search:zoo:kansas_city" and bot.fast is not None
    bad = {
        "search@world=3": "unknown search setting 'world'; settings: worlds",
        "search@worlds=0": "worlds is a whole number >= 1",
        "search@worlds": "knob=value",
        "search@gate=-1": "gate is a number >= 0",
        "search@rollout=fast": "rollout is one of",
        "search:search": "not another search bot",
        "search:nonsense": "is not 'random', 'heuristic'",
    }
    for spec, message in bad.items():
        with pytest.raises(ValueError, match=message):
            cahoots_envs.load_policy(spec, "kansas_city-v1")
    with pytest.raises(ValueError, match="needs the env_id"):
        cahoots_envs.load_policy("search")


def test_plain_search_plays_each_games_default() -> None:
    """``search`` with no blueprint named is the game's ``DEFAULT_SEARCH`` where its blueprint
    plays the env's options (Kansas City, Texas Euchre and Cahoots tricks: a zoo network, the
    heuristic playing the rollouts: the networks the defaults were measured over, earlier stages
    of today's entries in Kansas City and Texas Euchre), with a spec's own knobs winning;
    elsewhere, and in the
    cooperative game, search over the heuristic. A default that cannot load for another reason is an error, not a
    silent fallback."""
    from cahoots_envs.policies.loading import default_search_spec

    for game, entry in (("kansas_city", "kansas_city_stage2"),
                        ("texas_euchre", "texas_euchre_every_seat"),
                        ("cahoots_tricks", "cahoots_tricks")):
        env_id = f"{game}-v1"
        bot = cahoots_envs.load_policy("search", env_id, seed=1)
        assert bot.blueprint_spec == f"zoo:{entry}" and bot.settings["rollout"] == "heuristic"
        assert default_search_spec(env_id) == f"search@rollout=heuristic:zoo:{entry}"
        mine = cahoots_envs.load_policy("search@rollout=blueprint,worlds=4", env_id, seed=1)
        assert mine.blueprint_spec == f"zoo:{entry}"
        assert (mine.settings["rollout"], mine.settings["worlds"]) == ("blueprint", 4)
        named = cahoots_envs.load_policy("search:heuristic", env_id, seed=1)
        assert named.blueprint_spec == "heuristic" and named.settings["rollout"] == "blueprint"
    for env_id, options in (("kansas_city-v1", {"num_players": 5}),
                            ("kansas_city-v1", {"card_backs": "hidden"}),
                            ("texas_euchre-v1", {"num_players": 3}),
                            ("cahoots_tricks-v1", {"num_players": 3}),
                            ("cahoots_tricks-v1", {"scoring": "face_value"}),
                            ("cahoots_coop-v1", {"num_players": 3})):
        bot = cahoots_envs.load_policy("search", env_id, options, seed=1)
        assert bot.blueprint_spec == "heuristic", (env_id, options)
        assert default_search_spec(env_id, options) == "search:heuristic"
    sampler = cahoots_envs.game_spec("kansas_city").require("world_sampler")
    kept = sampler.DEFAULT_SEARCH
    try:
        sampler.DEFAULT_SEARCH = "search:zoo:no_such_entry"
        with pytest.raises(ValueError, match="no zoo policy 'no_such_entry'"):
            cahoots_envs.load_policy("search", "kansas_city-v1")
    finally:
        sampler.DEFAULT_SEARCH = kept


def test_search_settings_are_range_checked_and_given_once() -> None:
    """A repeated setting, or a budget no decision could finish, is one line naming the setting,
    before any work."""
    bad = {
        "search@worlds=10,worlds=20:heuristic": "setting worlds is given twice",
        "search@gate=1, gate=1": "setting gate is given twice",
        f"search@worlds={MAX_WORLDS + 1}": f"worlds is a whole number >= 1 and <= {MAX_WORLDS}",
        "search@max_worlds=1000000000": f"max_worlds is a whole number >= 1 and <= {MAX_WORLDS}",
        f"search@max_rollouts={MAX_ROLLOUTS + 1}":
            f"max_rollouts is a whole number >= 1 and <= {MAX_ROLLOUTS}",
        "search@max_candidates=-2": "max_candidates is a whole number >= 1",
        "search@time_limit=0": "time_limit is a number of seconds > 0",
        "search@time_limit=-1": "time_limit is a number of seconds > 0",
        "search@time_limit=nan": "time_limit is a number of seconds > 0",
        "search@time_limit=inf": "time_limit is a number of seconds > 0",
        "search@gate=nan": "gate is a number >= 0",
    }
    for spec, message in bad.items():
        with pytest.raises(ValueError, match=message) as err:
            cahoots_envs.load_policy(spec, "kansas_city-v1")
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="worlds is a whole number"):
        SearchPolicy("kansas_city-v1", worlds=10**9, time_limit=0.5)


def _wide_decision() -> Infoset:
    """A Kansas City play worth searching, with 8 or more legal moves."""
    env = cahoots_envs.make("kansas_city-v1")
    env.reset(seed=0)
    bot = cahoots_envs.load_policy("heuristic", "kansas_city-v1", seed=0)
    while True:
        state = infoset(env)
        if 8 <= len(state.legal) <= 14 and state.worth_searching():
            return state
        env.step(bot.act(state.observation, state.action_mask))


def test_a_first_search_that_compiles_says_so_once(monkeypatch, caplog) -> None:
    """A cold numba cache makes a process's first searched decision compile for tens of
    seconds: the bot says so first, once per game (one line on the ``cahoots_envs.search``
    logger), whether it decides alone, in a batch or labels; warm kernels say nothing."""
    numba = pytest.importorskip("numba")
    from cahoots_envs import vector
    from cahoots_envs.search import label, label_positions

    def compiles(real):  # ``real`` preceded by a compile: a new uncached njit function's call
        return lambda *a, **k: (numba.njit(lambda x: x + 1)(1), real(*a, **k))[1]

    state = _wide_decision()
    warm = SearchPolicy("kansas_city-v1", seed=0, worlds=2, max_worlds=2)
    warm.act_infoset(state)  # this process's kernels compiled (or loaded from the cache)
    monkeypatch.setattr(vector, "_compile_announced", set())
    messages = []
    with caplog.at_level("WARNING", logger="cahoots_envs.search"):
        bot = SearchPolicy("kansas_city-v1", seed=0, worlds=2, max_worlds=2)
        bot.act_infoset(state)  # warm: silent
        assert not caplog.records
        for make in range(3):  # alone, in a batch, labelling: each a new bot
            bot = SearchPolicy("kansas_city-v1", seed=0, worlds=2, max_worlds=2)
            monkeypatch.setattr(bot, "_search", compiles(bot._search))
            monkeypatch.setattr(search_policy, "run_searches", compiles(search_policy.run_searches))
            monkeypatch.setattr(label, "run_searches", compiles(label.run_searches))
            if make == 0:
                bot.act_infoset(state)
                bot.act_infoset(state)  # the bot has searched: no longer watched
            elif make == 1:
                bot.act_infosets([state, state])
            else:
                label_positions("kansas_city-v1", None, [state._game], worlds=2,  # its game
                                max_worlds=2)
            messages.append([r.getMessage() for r in caplog.records])
            caplog.clear()
            monkeypatch.undo()  # the real run_searches again, and a fresh announcement set
            monkeypatch.setattr(vector, "_compile_announced", set())
    for lines in messages:
        assert lines == [(f"cahoots_envs.search: compiling the search kernels of kansas_city "
                          f"with numba, {search_policy.COMPILE_TIME}; once: numba caches them "
                          f"on disk")]


def test_time_limit_bounds_a_decision_whatever_the_budget() -> None:
    state = _wide_decision()
    bot = SearchPolicy("kansas_city-v1", seed=0, worlds=MAX_WORLDS, max_worlds=MAX_WORLDS,
                       max_rollouts=MAX_ROLLOUTS, time_limit=0.2)
    start = time.perf_counter()
    move = bot.act_infoset(state)
    assert time.perf_counter() - start < 3.0
    assert move in state.legal
    assert bot.stats.timeouts == 1 and bot.stats.worlds < MAX_WORLDS


def test_time_limit_overshoots_by_one_rollout_and_drops_the_world_cut_short(monkeypatch) -> None:
    """On a clock that moves one second a rollout: a decision stops at the first rollout past
    its limit; the world it cut short is dropped, so the move is the one its whole worlds give
    (the blueprint's when there are none). The reference path's rollouts, one at a time."""
    state = _wide_decision()
    n = len(state.legal)
    clock = [0.0]
    monkeypatch.setattr(search_policy.time, "perf_counter", lambda: clock[0])

    def timed(limit: float) -> SearchPolicy:
        bot = SearchPolicy("kansas_city-v1", seed=0, worlds=MAX_WORLDS, max_worlds=MAX_WORLDS,
                           max_rollouts=MAX_ROLLOUTS, time_limit=limit, engine="reference")
        rollout = bot._rollout

        def ticking(*args):
            clock[0] += 1.0
            return rollout(*args)

        bot._rollout = ticking  # type: ignore[method-assign]
        clock[0] = 0.0
        return bot

    bot = timed(2.5)
    blueprint_move = SearchPolicy("kansas_city-v1", seed=0).blueprint.act(
        state.observation, state.action_mask)
    assert bot.act_infoset(state) == blueprint_move
    st = bot.stats
    assert (st.worlds, st.rollouts, st.timeouts, st.seconds) == (0, 3, 1, 3.0)
    bot = timed(2 * n + 0.5)
    move = bot.act_infoset(state)
    st = bot.stats
    assert (st.worlds, st.rollouts, st.timeouts, st.seconds) == (2, 2 * n + 1, 1, 2 * n + 1.0)
    assert move == SearchPolicy("kansas_city-v1", seed=0, worlds=2, max_worlds=2,
                                engine="reference").act_infoset(state)


def test_network_blueprint_rollouts() -> None:
    """Over a zoo network, the blueprint plays the rollouts from its observations."""
    options = {"num_players": 3, "difficulty": "beginner"}
    bot = cahoots_envs.load_policy("search@worlds=2,max_worlds=2,search_all=true:zoo:cahoots_coop",
                                   "cahoots_coop-v1", options, seed=0)
    assert bot.fast is None and bot.name == "search:zoo:cahoots_coop"
    # search ranks below policies: SearchPolicy takes a loaded blueprint, and names the way
    with pytest.raises(TypeError, match=r"^SearchPolicy takes a loaded blueprint policy, got the "
                       r"spec 'zoo:cahoots_coop': pass blueprint=load_policy\('zoo:cahoots_coop'"):
        SearchPolicy("cahoots_coop-v1", options, blueprint="zoo:cahoots_coop")
    with pytest.raises(ImportError, match="load_search_policy moved: use from "
                       "cahoots_envs.policies.loading import load_search_policy"):
        from cahoots_envs.search import load_search_policy  # noqa: F401
    loaded = cahoots_envs.load_policy("zoo:cahoots_coop", "cahoots_coop-v1", options)
    same = SearchPolicy("cahoots_coop-v1", options, blueprint=loaded, blueprint_name="zoo:x")
    assert same.blueprint is loaded and same.name == "search:zoo:x"
    result = play_game("cahoots_coop-v1", options, [bot, "heuristic", "heuristic"], seed=1)
    assert result.turns > 0 and bot.stats.searched > 0


def test_tournaments_give_the_same_results_with_any_number_of_workers() -> None:
    options = GAMES["texas_euchre-v1"]
    runs = [run_tournament("texas_euchre-v1", [SMALL, "heuristic"], num_games=3, seed=2,
                           options=options, workers=w) for w in (1, 2)]
    assert [g.scores for g in runs[0].games] == [g.scores for g in runs[1].games]


def test_a_search_bot_in_a_seat_env_pool() -> None:
    from cahoots_envs.training import SeatEnv

    env = SeatEnv("cahoots_tricks-v1", {"num_players": 3},
                  opponents="search@worlds=2,max_worlds=2:heuristic", seed=0)
    env.reset(seed=0)
    done, steps = False, 0
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, done, _, _ = env.step(action)
        steps += 1
    assert steps > 0


def test_cahoots_play_and_list_know_the_search_bots(tmp_path) -> None:
    listing = cahoots("list")
    assert listing.returncode == 0
    assert "bots: random, heuristic, search" in listing.stdout
    assert "search:zoo:kansas_city" in listing.stdout
    # a whole game in the terminal against search bots: the person types the last legal move
    game_id, seat, seed, options = "cahoots_coop", 1, 3, {"num_players": 3, "num_goals": 5}
    env = cahoots_envs.make_raw(game_id, **options)
    bots = {s: cahoots_envs.load_policy(SMALL, env.env_id, env.options, seed=seed * 100 + s)
            for s in range(3) if s != seat}
    env.reset(seed=seed)
    moves = []
    while not env.game.is_over:
        actor = env.game.current_player
        if actor == seat:
            action = env.legal_actions()[-1]
            moves.append(env.game.action_to_str(action))
        else:
            action = bots[actor].act_infoset(infoset(env))
        env.step(action)
    log = tmp_path / "game.jsonl"
    out = cahoots("play", game_id, "-n", "3", "-o", "num_goals=5", "--seat", str(seat),
                  "--opponents", SMALL, "--seed", str(seed), "--log", str(log),
                  stdin="\n".join(moves) + "\n")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    assert "thinking" not in out.stdout  # the indicator is for terminals only
    assert "game log written" in out.stdout
    replay = cahoots("replay", str(log))
    assert replay.returncode == 0 and "replay OK" in replay.stdout


def _benchmark(name: str) -> Any:
    """``benchmarks/<name>.py`` imported as a module."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_search_strength_split_times_the_worlds_and_their_histories() -> None:
    """``search_strength.py --paths N --split``: drawing worlds and building what the engine
    loads of them add up apart, the outermost calls only, and the methods are restored."""
    from cahoots_envs.core.search import LazyWorld

    bench = _benchmark("search_strength")
    state = _wide_decision()
    spent = {"draw": 0.0, "history": 0.0}
    with bench.world_timers(spent):
        world = state.sample(np.random.default_rng(0))
        assert spent["draw"] > 0 and spent["history"] == 0
        world.rollout_parts() or world.rollout_history()
    assert spent["history"] > 0
    assert Infoset.sample.__qualname__ == "Infoset.sample"
    assert LazyWorld.rollout_parts.__qualname__ == "LazyWorld.rollout_parts"


def test_search_first_decision_times_a_games_first_search() -> None:
    """``benchmarks/search_first_decision.py``'s child: one game with the default search bot in
    seat 0, the seconds of its first searched decision and of its slowest later one."""
    result = _benchmark("search_first_decision").child("cahoots_coop-v1", 0)
    assert result["searched"] >= 2
    assert 0 < result["first"] and 0 < result["rest"]


def test_search_strength_pairs_a_lineup_with_an_earlier_run(tmp_path, capsys) -> None:
    """``benchmarks/search_strength.py --paired A B --against FILE``: A's games from ``--out``,
    B's from an earlier results file, paired by game (the same deals); a missing file or
    ``--against`` without ``--paired`` is one line."""
    import json
    from pathlib import Path

    bench = _benchmark("search_strength")

    def write(name: str, scores: list[float]) -> Path:
        out = tmp_path / name
        out.write_text("".join(json.dumps(
            {"row": "kansas_city", "candidate": "search", "opponent": "heuristic", "game": g,
             "score": x}) + "\n" for g, x in enumerate(scores)))
        return out

    now = write("now.jsonl", [1.0, 0.0, 1.0, 1.0])
    before = write("before.jsonl", [0.0, 0.0, 1.0, 0.0, 1.0])
    assert bench.main(["--paired", "search", "search", "--out", str(now),
                       "--against", str(before)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("kansas_city against 3 heuristic: search - search (before.jsonl) = "
                           "+0.500") and line.endswith("over 4 games")
    for argv, message in (
            (["--against", str(before)], "--against goes with --paired A B"),
            (["--paired", "search", "search", "--against", str(tmp_path / "none.jsonl")],
             "--against: no such results file")):
        with pytest.raises(SystemExit):
            bench.main([*argv, "--out", str(now)])
        assert message in capsys.readouterr().err.strip().splitlines()[-1]
    # plain ``search`` is each game's default; the lineup over the heuristic keeps its name
    assert bench.lineup_name("search", "kansas_city") == \
        "search@rollout=heuristic:zoo:kansas_city_stage2"
    assert bench.lineup_name("search", "coop-normal") == "search"
    assert bench.lineup_name("search:heuristic", "texas_euchre") == "search"
    assert bench.lineup_name("search:zoo:{game}", "texas_euchre") == "search:zoo:texas_euchre"
    assert bench.spec_of("search") == "search:heuristic"
    assert bench.spec_of("search@rollout=heuristic:zoo:kansas_city") == \
        "search@rollout=heuristic:zoo:kansas_city"


def test_search_leaf_table_pairs_each_lineup_with_the_default_on_the_same_deals(capsys) -> None:
    """``benchmarks/search_leaf_table.py`` on the committed results: each measured row's paired
    difference is ``search_strength.py --paired``'s on the same files, and the Texas Euchre row
    at another target score is played by that row's default search and the Texas Euchre head."""
    from pathlib import Path

    bench = _benchmark("search_strength")
    table = _benchmark("search_leaf_table")
    results = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    lines = table.table().splitlines()
    assert len(lines) >= 2 + 3 * 5
    row = "texas_euchre"
    label, lineup, file = table.lineups(row)[0]
    assert bench.main(["--out", str(results / file), "--against",
                       str(results / table.ROWS[row][3]), "--paired", lineup,
                       table.default_spec(row)]) == 0
    paired = capsys.readouterr().out.strip()
    mean = paired.split(" = ")[1].split()[0]
    shown = next(line for line in lines if line.startswith("| Texas Euchre | ") and
                 f"| {label} |" in line)
    assert f"**{mean}**" in shown and f"over {shown.split(' | ')[3]} games" in paired
    # played by the row's default search: the files name its network zoo:texas_euchre, as it
    # was named when they were measured (zoo:texas_euchre_every_seat since 2026-12-07)
    assert table.default_spec("texas_euchre-target50").replace(
        "zoo:texas_euchre", "zoo:texas_euchre_every_seat") == \
        bench.lineup_name("search", "texas_euchre-target50")
    assert table.lineups("texas_euchre-target50")[0][1].endswith("value_heads/texas_euchre"
                                                                 ".safetensors")


def test_label_noise_measures_the_first_searchs_moves_in_the_second_searchs_worlds() -> None:
    """``benchmarks/label_noise.py``: where the first labelling moves off the blueprint's move,
    that move's gain as the first labelling saw it and as the second (independent worlds)
    measured it; and the same for every best other move past z standard errors."""
    from types import SimpleNamespace

    bench = _benchmark("label_noise")

    def label(move: int, values: list[list[float]], searched: bool = True) -> SimpleNamespace:
        v = np.array(values)
        return SimpleNamespace(legal=[3, 5, 8], blueprint_move=5, move=move, searched=searched,
                               values=v, means=v.mean(axis=0))

    # position 0: the first search moves to 8 (+0.5 in its worlds), the second stays and sees 8
    # at -0.1; position 1: the first search stays; position 2 is not searched
    first = [label(8, [[0, 0, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]]),
             label(5, [[0, 1, 0], [0, 1, 0]]),
             label(5, [[0, 0, 0]], searched=False)]
    second = [label(5, [[0, 0.2, 0], [0, 0, 0], [0, 0.2, 0], [0, 0, 0]]),
              label(5, [[0, 1, 0], [0, 1, 0]]),
              label(5, [[0, 0, 0]], searched=False)]
    assert bench.gains(first[0], second[0], 2) == (0.5, -0.1)
    lines = bench.report("kansas_city", [first, second], 1.0)
    assert lines[0] == "| kansas_city | 2 | 50.0% | 0.0% | +0.500 | -0.100 | 1 |"
    # the best other move of position 0 is 8: gain 0.5, standard error sqrt(1/3)/2 = 0.289,
    # so 1.7 standard errors: past 1, not past 2
    assert lines[1].startswith("|   gain > 1 SE | 1 | | | +0.500 | -0.100 |")
    assert lines[2].startswith("|   gain > 2 SE | 0 | | | — | — |")


def test_label_noise_reports_both_label_modes() -> None:
    """``benchmarks/label_noise.py``'s table: where the search moved off, the gain its own
    worlds saw (selection mode) and the one independent worlds measured (unbiased mode), the
    CPU of each mode and the gain per CPU-second each way."""
    from cahoots_envs.search import Label

    bench = _benchmark("label_noise")

    def label(move: int, values: list[list[float]], check: list[list[float]],
              searched: bool = True) -> Label:
        v, c = np.array(values).reshape(-1, 3), np.array(check).reshape(-1, 3)
        means = (lambda x: x.mean(axis=0) if len(x) else np.zeros(3))
        return Label(0, [3, 5, 8], 5, move, searched, v, np.full(3, len(v)), means(v),
                     np.zeros(3), "batched", c, means(c))

    # position 0 moves to 8: +0.5 in its own worlds, -0.1 in the independent ones, which rank
    # 5 first; position 1 stays; position 2 is not searched
    labels = [label(8, [[0, 0, 1], [0, 0, 0], [1, 0, 1], [0, 0, 0]],
                    [[0, 0.2, 0], [0, 0, 0], [0, 0.2, 0], [0, 0, 0]]),
              label(5, [[0, 1, 0], [0, 1, 0]], [[0, 1, 0], [0, 1, 0]]),
              label(5, [], [], searched=False)]
    found = bench.summary(labels, 2.0, 0.5)
    assert (found["searched"], found["moved"], found["agree"]) == (2, 1, 0)
    assert found["gain_selection"] == [0.5, 0.5, 0.5]
    assert found["gain_unbiased"] == pytest.approx([-0.1] * 3)
    assert found["claimed_gain_per_cpu_s"] == 0.25
    assert found["real_gain_per_cpu_s_selection"] == pytest.approx(-0.05)
    assert found["real_gain_per_cpu_s_unbiased"] == pytest.approx(-0.04)
    lines = bench.report_row("kansas_city", found)
    assert lines[0] == ("| kansas_city | 2 | 50.0% | 0.0% | +0.500 | **-0.100** | 2.0 / 2.5 | "
                        "0.25 | -0.05 / -0.04 |")
    assert lines[1].startswith("|   gain > 1 SE | 1 | | | +0.500 | -0.100 |")
    assert lines[2].startswith("|   gain > 2 SE | 0 | | | — | — |")
