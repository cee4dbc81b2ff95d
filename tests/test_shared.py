"""The shared suite: every property the contract promises, for every env, player count and
declared variant (see conftest.py). A new game gets all of it by registering."""

from __future__ import annotations

import copy
import random
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cahoots_envs
from cahoots_envs import EnvNotResetError, IllegalActionError
from cahoots_envs.registry import GAMES, builtin_games
from tests.conftest import game_class, make_env

FUZZ_GAMES = 150  # per case in the default run (about 2,000 games over all cases)
SLOW_FUZZ_GAMES = 3000


def random_play(env: Any, rng: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def snapshot(env: Any) -> tuple:
    """Everything observable from outside: observations, masks, agent, rewards, infos, render."""
    obs = tuple(
        (a, env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
        for a in env.agents
    )
    return (
        obs,
        env.agent_selection,
        tuple(env.agents),
        repr(env.rewards),
        repr(env._cumulative_rewards),
        repr(env.terminations),
        repr(env.infos),
        env.game.render(),
        tuple(env.game.card_locations()),
    )


# ---- PettingZoo's own tests ---------------------------------------------------------------

def test_api(case: tuple[str, dict]) -> None:
    game, opts = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make_env(game, **opts), num_cycles=400)


def test_api_raw(case: tuple[str, dict]) -> None:
    game, opts = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make_env(game, protected=False, **opts), num_cycles=200)


def test_seed(case: tuple[str, dict]) -> None:
    game, opts = case
    seed_test(lambda: make_env(game, **opts), num_cycles=400)


def test_registered_in_pettingzoo(case: tuple[str, dict]) -> None:
    import pettingzoo

    game, opts = case
    env = pettingzoo.make("aec", f"cahoots_envs/{game}-v{GAMES[game]}", **opts)
    env.reset(seed=0)
    assert env.num_agents == opts.get("num_players", game_class(game).DEFAULT_PLAYERS)
    assert f"cahoots_envs/{game}-v{GAMES[game]}" in cahoots_envs.list_envs()
    assert type(cahoots_envs.make(f"{game}-v{GAMES[game]}", **opts)) is type(env)


def test_fixed_seed_ignores_global_rngs(case: tuple[str, dict]) -> None:
    """Habit 2: all randomness flows through the env's own Generator."""
    game, opts = case

    def play(disturb: bool) -> list:
        env = make_env(game, **opts)
        env.reset(seed=123)
        chooser = np.random.default_rng(7)
        trace = []
        for _ in range(600):
            if disturb:
                random.seed(random.random())
                np.random.seed(int(random.random() * 1e6))
                np.random.random(17)
            if not env.agents:
                break
            if env.terminations[env.agent_selection]:
                env.step(None)
                continue
            obs = env.observe(env.agent_selection)
            trace.append(obs["observation"].tobytes())
            env.step(int(chooser.choice(np.flatnonzero(obs["action_mask"]))))
            if env.game.is_over:
                env.reset()  # an unseeded reset continues the env's own stream
        return trace

    assert play(False) == play(True)


# ---- random playouts -----------------------------------------------------------------------

def fuzz(game: str, opts: dict, games: int, seed: int) -> None:
    cls = game_class(game)
    options = cls.OPTIONS.resolve(opts)
    deck = Counter(cls.full_deck(options))
    max_len = cls.max_game_length(options)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = cls(options, np.random.default_rng(seed * 100_000 + g), None)
        steps = 0
        check_every = 1 if g < 20 else 17  # full card accounting every step in the first games
        while not state.is_over:
            legal = state.legal_actions()
            assert legal, f"{game}: empty mask for seat {state.current_player} in {state.phase}"
            assert legal == sorted(set(legal)), "legal actions must be ascending and unique"
            state.apply(legal[int(rng.integers(len(legal)))])
            steps += 1
            assert steps <= max_len, f"{game}: longer than the declared maximum {max_len}"
            if steps % check_every == 0:
                assert Counter(state.card_locations()) == deck, f"{game}: cards lost or duplicated"
        assert Counter(state.card_locations()) == deck
        assert state.current_player == -1
        outcome = state.outcome()
        assert len(outcome) == state.num_players
        if not cls.COOPERATIVE:
            assert abs(sum(outcome)) < 1e-9, "competitive outcomes are zero-sum"


def test_fuzz_random_playouts(case: tuple[str, dict]) -> None:
    game, opts = case
    fuzz(game, opts, FUZZ_GAMES, seed=1)


@pytest.mark.slow
def test_fuzz_random_playouts_long(case: tuple[str, dict]) -> None:
    game, opts = case
    fuzz(game, opts, SLOW_FUZZ_GAMES, seed=2)


def test_rewards_and_infos(case: tuple[str, dict]) -> None:
    """Masks zero off-turn; infos carry score and phase; in win mode every agent collects its
    final payoff through last() before its dead step, and competitive payoffs sum to zero."""
    game, opts = case
    cls = game_class(game)
    for seed in range(3):
        env = make_env(game, **opts)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        collected = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, info = env.last()
            assert {"score", "phase"} <= set(info)
            collected[agent] += reward
            if term or trunc:
                # numbers only (CONTRACT §7): the phase by its index into phase_names
                assert env.unwrapped.phase_names[info["phase"]] == "game_over"
                assert env.unwrapped.phase == "game_over"
                env.step(None)
                continue
            for other in env.agents:
                if other != agent:
                    assert env.observe(other)["action_mask"].sum() == 0
            assert obs["action_mask"].sum() > 0
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcome = env.game.outcome()
        if env.reward_mode == "win":
            for i, a in enumerate(env.possible_agents):
                assert collected[a] == pytest.approx(outcome[i])
            if not cls.COOPERATIVE:
                assert sum(collected.values()) == pytest.approx(0.0)


def test_points_rewards_add_up_to_scores(case: tuple[str, dict]) -> None:
    game, opts = case
    cls = game_class(game)
    opts = dict(opts, reward_mode="points")
    env = make_env(game, **opts)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    earned = dict(env.rewards)  # points the deal itself awards, if any
    while not env.game.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        for a, r in env.rewards.items():
            earned[a] += r
    for i, a in enumerate(env.possible_agents):
        assert earned[a] == pytest.approx(cls.POINTS_SIGN * env.game.scores[i])
        assert env.infos[a]["score"] == env.game.scores[i]


# ---- hidden information ---------------------------------------------------------------------

def find_leak(cls: Any, options: dict, games: int = 12) -> tuple[int, int, str | None]:
    """Re-deal every card an observer cannot see, consistently with what it can see (the game's
    ``resample_hidden``), in random games: returns (comparisons, re-deals that changed the
    state, the first leak found or None). A leak is an observation or mask that changed."""
    size = cls.layout(options).size
    rng = np.random.default_rng(5)
    checked = changed = 0
    for g in range(games):
        state = cls(options, np.random.default_rng(g), None)
        while not state.is_over:
            if rng.random() < 0.15:
                for observer in range(state.num_players):
                    before = np.zeros(size, np.float32)
                    state.encode(observer, before)
                    for _ in range(2):
                        other = state.resample_hidden(observer, rng)
                        after = np.zeros(size, np.float32)
                        other.encode(observer, after)
                        if before.tobytes() != after.tobytes():
                            return checked, changed, (
                                f"observation of seat {observer} depends on hidden cards "
                                f"(differs at {np.flatnonzero(before != after).tolist()[:10]})")
                        if observer == state.current_player:
                            assert other.legal_actions() == state.legal_actions()
                        assert Counter(other.card_locations()) == Counter(state.card_locations())
                        checked += 1
                        changed += other.render() != state.render()
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    return checked, changed, None


def test_no_hidden_information_leaks(case: tuple[str, dict]) -> None:
    """Re-deal every card an observer cannot see: its observation (and mask) must not change by
    a single byte."""
    game, opts = case
    cls = game_class(game)
    checked, changed, leak = find_leak(cls, cls.OPTIONS.resolve(opts))
    assert leak is None, f"{game}: {leak}"
    assert checked > 50
    # the re-deal must really move hidden cards, or this test could not fail
    assert changed > checked // 4, f"re-deals changed the state only {changed} of {checked} times"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_leak_test_catches_an_injected_leak(game: str) -> None:
    """A test double whose observation carries one bit of the whole state (hidden cards
    included) is caught: the leak test can fail."""
    import zlib

    cls = game_class(game)
    encoder = cahoots_envs.game_spec(game).encoder

    class Leaky(cls):  # type: ignore[misc, valid-type]
        def encode(self, seat: int, out: np.ndarray) -> None:
            encoder.encode(self, seat, out)
            out[0] = zlib.crc32(self.render().encode()) & 1

    _, _, leak = find_leak(Leaky, cls.OPTIONS.resolve({}), games=4)
    assert leak is not None and "depends on hidden cards" in leak


# ---- copies, bad input ------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["deepcopy", "clone"])
def test_copies_are_independent(case: tuple[str, dict], how: str) -> None:
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=4)
    random_play(env, np.random.default_rng(1), 25)
    twin = copy.deepcopy(env) if how == "deepcopy" else env.unwrapped.clone()
    assert snapshot(twin) == snapshot(env)
    before = snapshot(env)
    random_play(twin, np.random.default_rng(2), 40)
    assert snapshot(env) == before
    # both continue identically from the same point with the same choices
    twin2 = copy.deepcopy(env) if how == "deepcopy" else env.unwrapped.clone()
    random_play(env, np.random.default_rng(3), 60)
    random_play(twin2, np.random.default_rng(3), 60)
    assert snapshot(env) == snapshot(twin2)


def test_copies_continue_the_env_stream_after_an_unseeded_reset(case: tuple[str, dict]) -> None:
    """The game draws from the env's own generator (later hands, random point splits), and an
    unseeded reset continues that stream: the original, its clone and its deepcopy, played the
    same way (to the end, mostly) and reset without a seed, deal the same game and play on
    identically. Once the AEC loop is over, step() is an error."""
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=21)
    random_play(env, np.random.default_rng(21), 5)
    envs = [env, env.unwrapped.clone(), copy.deepcopy(env)]
    for e in envs:
        # long enough to pass a hand's end in every multi-hand game (a cahoots_coop game, long
        # and with no chance after its deal, may stop short: the comparison holds all the same)
        random_play(e, np.random.default_rng(9), 250)
        if e.unwrapped.game.is_over:
            with pytest.raises(ValueError, match="only valid action is None"):
                e.step(0)  # a dead agent
            while e.agents:
                e.step(None)
            with pytest.raises(IllegalActionError, match="every agent has left the loop"):
                e.step(None)
        e.reset()
    assert snapshot(envs[1]) == snapshot(env) and snapshot(envs[2]) == snapshot(env)
    assert envs[1].unwrapped.game.deals == env.unwrapped.game.deals == envs[2].unwrapped.game.deals
    for e in envs:
        random_play(e, np.random.default_rng(10), 40)
    assert snapshot(envs[1]) == snapshot(env) and snapshot(envs[2]) == snapshot(env)


ACCEPTED_ACTIONS: list[Callable[[int], Any]] = [
    int, np.int64, np.int32, np.int16, np.uint16, np.intp, np.array,
    lambda a: np.array(a, np.int16), lambda a: np.array(a, np.uint32),
]
REFUSED_ACTIONS: list[Callable[[int], Any]] = [
    float, np.float64, np.float32, lambda a: np.array(a, np.float64), str, lambda a: [a],
    lambda a: (a,), lambda a: np.array([a]), lambda a: np.array([[a]]), complex, bytes,
    lambda a: bool(a), lambda a: np.bool_(a), lambda a: np.array(bool(a)), lambda a: {a: a},
    lambda a: object(), lambda a: slice(a),
]


@pytest.mark.parametrize("protected", [False, True])
def test_step_accepts_what_discrete_contains_accepts(case: tuple[str, dict],
                                                     protected: bool) -> None:
    """Python ints, numpy integer scalars and 0-d integer arrays play; bools, floats, strings,
    lists and other types raise ``IllegalActionError`` saying what is accepted (in the protected
    env too: a wrong type is an error, not an illegal move) and change nothing."""
    game, opts = case
    env = make_env(game, protected=protected, **opts)
    env.reset(seed=12)
    space = env.action_space(env.agent_selection)
    rng = np.random.default_rng(12)
    for _ in range(3):
        random_play(env, rng, int(rng.integers(0, 6)))
        if env.game.is_over:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[-1])
        before = snapshot(env)
        for make in REFUSED_ACTIONS:
            bad = make(action)
            assert isinstance(bad, (bool, np.bool_)) or not space.contains(bad)
            with pytest.raises(IllegalActionError, match="Python int, a numpy integer or a 0-d"):
                env.step(bad)
            assert snapshot(env) == before
        reference = env.unwrapped.clone()
        reference.step(action)
        for make in ACCEPTED_ACTIONS:
            good = make(action)
            assert space.contains(good)
            twin = env.unwrapped.clone()
            twin.step(good)
            assert snapshot(twin) == snapshot(reference)
        env.step(action)


def test_bad_calls_raise_clear_errors_and_change_nothing(case: tuple[str, dict]) -> None:
    """An unknown agent, reset options that are not a mapping and a bad seed are ``ValueError``s
    that say what is accepted; ``action_to_str`` refuses ids out of range (env and game)."""
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=3)
    random_play(env, np.random.default_rng(3), 4)
    before = snapshot(env)
    for agent in ["player_99", "nobody", 0, None, ["player_0"]]:
        with pytest.raises(ValueError, match=f"unknown agent.*{env.possible_agents[-1]}"):
            env.observe(agent)
        if agent is not None:  # action_mask(None) is the mask of the agent to move
            with pytest.raises(ValueError, match="unknown agent"):
                env.unwrapped.action_mask(agent)
    for options in [5, "deal", ["deal"], 1.5]:
        with pytest.raises(ValueError, match="options"):
            env.reset(options=options)
    for seed in [1.5, "x", -1, [0.5]]:
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    assert snapshot(env) == before
    n = env.unwrapped.num_actions
    for bad in [-1, -n, n, n + 1, 10**9, True, 2.0, "3"]:
        with pytest.raises(ValueError):
            env.unwrapped.action_to_str(bad)
        if isinstance(bad, int) and not isinstance(bad, bool):
            with pytest.raises(ValueError):
                env.unwrapped.game.action_to_str(bad)
    assert snapshot(env) == before


def test_illegal_action_messages_are_bounded(case: tuple[str, dict]) -> None:
    """At most ``LEGAL_SHOWN`` legal moves are listed, then their count."""
    from cahoots_envs.core.game import LEGAL_SHOWN

    game, opts = case
    env = make_env(game, protected=False, **opts)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    while not env.game.is_over:
        legal = env.legal_actions()
        for bad in (-1, "x" * 10**6):
            with pytest.raises(IllegalActionError) as err:
                env.step(bad)
            assert len(str(err.value)) < 1500
        if len(legal) > LEGAL_SHOWN:
            assert f"and {len(legal) - LEGAL_SHOWN} more; {len(legal)} legal moves" in str(err.value)
        with pytest.raises(ValueError, match="not a legal action") as err:
            env.unwrapped.str_to_action("y" * 10**6)
        assert len(str(err.value)) < 1500
        if rng.random() < 0.3:
            break
        env.step(int(rng.choice(legal)))


def test_illegal_action_raw_env_raises_and_changes_nothing(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, protected=False, **opts)
    env.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(6):
        random_play(env, rng, int(rng.integers(1, 15)))
        if env.game.is_over:
            break
        before = snapshot(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        for bad in [int(illegal[0]) if len(illegal) else None, len(mask), -1, "x", None]:
            if bad is None and not len(illegal):
                continue
            with pytest.raises(IllegalActionError) as err:
                env.step(bad)
            assert env.agent_selection in str(err.value) and "legal" in str(err.value)
            assert snapshot(env) == before


def test_illegal_action_protected_env_ends_game(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=8)
    random_play(env, np.random.default_rng(0), 5)
    agent = env.agent_selection
    illegal = np.flatnonzero(env.observe(agent)["action_mask"] == 0)
    assert len(illegal)
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(int(illegal[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1
    assert all(v == 0 for a, v in env._cumulative_rewards.items() if a != agent)
    with pytest.raises(IllegalActionError):
        fresh = make_env(game, **opts)
        fresh.reset(seed=1)
        fresh.step(10**6)


def test_use_before_reset_is_an_error(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, **opts)
    with pytest.raises(EnvNotResetError):
        env.step(0)
    with pytest.raises(EnvNotResetError):
        env.observe(env.possible_agents[0])
    with pytest.raises(EnvNotResetError):
        env.last()
    with pytest.raises(EnvNotResetError):
        env.agent_iter()
    with pytest.raises(EnvNotResetError):
        env.unwrapped.action_to_str(0)


def test_bad_options(case: tuple[str, dict]) -> None:
    game, opts = case
    with pytest.raises(ValueError, match="no_such_option"):
        make_env(game, **opts, no_such_option=1)
    with pytest.raises(ValueError, match="num_players"):
        make_env(game, num_players=99)
    with pytest.raises(ValueError, match="reward_mode"):
        make_env(game, **dict(opts, reward_mode="money"))
    with pytest.raises(ValueError, match="render_mode"):
        make_env(game, **dict(opts, render_mode="gif"))


def test_bad_deal_keys_change_nothing(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=3)
    random_play(env, np.random.default_rng(0), 7)
    before = snapshot(env)
    for deal in [{"no_such_key": 1}, {"hands": "not a list"}, {"hands": [["??"]]}]:
        with pytest.raises(ValueError):
            env.reset(options={"deal": deal})
        assert snapshot(env) == before
    with pytest.warns(UserWarning, match="dael"):
        env.reset(options={"dael": {}})


def test_notation_round_trip(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(150):
        if env.game.is_over:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        for a in legal:
            text = env.unwrapped.action_to_str(int(a))
            assert env.unwrapped.str_to_action(text) == a
            assert env.unwrapped.str_to_action("  " + text.lower() + " ") == a
        with pytest.raises(ValueError, match="legal"):
            env.unwrapped.str_to_action("dance a jig")
        env.step(int(rng.choice(legal)))


def test_render_ansi_and_human(case: tuple[str, dict], capsys: pytest.CaptureFixture) -> None:
    game, opts = case
    env = make_env(game, **dict(opts, render_mode="ansi"))
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "\n" in text and len(text) > 40
    human = make_env(game, **dict(opts, render_mode="human"))
    human.reset(seed=1)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()


def test_observation_fits_space_and_layout(case: tuple[str, dict]) -> None:
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=6)
    layout = env.unwrapped.layout
    space = env.observation_space(env.possible_agents[0])
    rng = np.random.default_rng(1)
    for _ in range(200):
        if env.game.is_over:
            break
        for a in env.agents:
            obs = env.observe(a)
            assert space.contains(obs), f"observation of {a} outside its space"
            views = layout.views(obs["observation"])
            assert sum(v.size for v in views.values()) == layout.size
        random_play(env, rng, 1)


# ---- docs -----------------------------------------------------------------------------------

@pytest.mark.parametrize("game", list(GAMES))
def test_doc_page_carries_generated_tables(game: str) -> None:
    """The doc page's options and observation tables are the declarations' own tables, and the
    page has every section; a built-in game's copy in docs/ (linked from the README) matches."""
    from pathlib import Path

    from cahoots_envs.docs import fill_tables, options_table, spaces_rows, tables

    spec = cahoots_envs.game_spec(game)
    source = spec.doc_page.read_text()
    doc = spec.doc()
    assert fill_tables(spec, source) == source, (
        f"regenerate the tables: python -m cahoots_envs.docs {game}")
    options = spec.resolve_options({})
    assert spec.layout(options).markdown_table() in doc
    assert options_table(spec) in doc and "`render_mode`" in options_table(spec)
    assert set(tables(spec)) == ({"options-table", "observation-table"}
                                 | ({"state-table", "state-intro"} if spec.has("state_layout")
                                    else set()))
    if spec.has("state_layout"):
        assert cahoots_envs.make(game).state_layout.markdown_table() in doc
    # the header's actions / observation rows (<!-- spaces -->) are the env's own spaces
    rows = spaces_rows(spec)
    assert rows["actions"] in doc and rows["observation"] in doc
    for n in spec.rules.PLAYER_COUNTS:
        env = cahoots_envs.make(game, num_players=n)
        agent = env.possible_agents[0]
        size = env.observation_space(agent)["observation"].shape[0]
        actions = env.action_space(agent).n
        if n == spec.rules.DEFAULT_PLAYERS:
            assert f"`Box({size},)` float32 with {n} player" in rows["observation"]
            assert f"`Discrete({actions})`" in rows["actions"]
        else:
            assert str(size) in rows["observation"] and str(actions) in rows["actions"]
    for heading in ("Rules", "Options", "Observation", "Actions", "Rewards", "Version history"):
        assert heading in doc, f"{game} doc page lacks a {heading} section"
    if spec in builtin_games():
        page = Path(__file__).resolve().parents[1] / "docs" / f"{game}.md"
        assert page.read_text().strip() == doc.strip(), "docs page differs from the docstring"


def test_result_reports_a_finished_game_after_the_loop(case: tuple[str, dict]) -> None:
    """``env.unwrapped.result()`` works once ``infos`` is empty (CONTRACT §7, final result)."""
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=5)
    with pytest.raises(RuntimeError, match="not over yet"):
        env.unwrapped.result()
    random_play(env, np.random.default_rng(5), 100_000)
    for agent in list(env.agents):
        env.step(None)
    assert env.infos == {}
    result = env.unwrapped.result()
    n = len(env.possible_agents)
    assert set(result) == {"scores", "outcome", "winners", "agents", "ended_by"}
    assert result["scores"] == [float(s) for s in env.unwrapped.game.scores]
    assert result["outcome"] == [float(x) for x in env.unwrapped.game.outcome()]
    assert result["agents"] == env.possible_agents and len(result["scores"]) == n
    assert result["winners"] == [s for s in range(n) if result["outcome"][s] > 0]
    assert result["ended_by"] == "rules"


def test_info_score_is_a_float_in_every_game(case: tuple[str, dict]) -> None:
    """``infos[agent]["score"]`` has one type everywhere: a Python float (some games count their
    points in ints)."""
    game, opts = case
    env = make_env(game, **opts)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.agents:
        for agent in env.agents:
            assert type(env.infos[agent]["score"]) is float, (agent, env.infos[agent])
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
