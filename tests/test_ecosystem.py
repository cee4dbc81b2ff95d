"""The multi-agent ecosystem: the parallel API, the global state, the space dicts and the
Gymnasium ids of the seat envs (``pettingzoo.make("parallel", ...)``, ``env.state()``,
``gymnasium.make("cahoots_envs/<game>_seat-v1")``)."""

from __future__ import annotations

import copy
import importlib
import sys
import warnings
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test

import cahoots_envs
from cahoots_envs import registry
from cahoots_envs.core.state import PRIVATE, PUBLIC, SEATS, StateLayout
from cahoots_envs.errors import (
    EnvNotResetError,
    IllegalActionError,
    NotAvailableError,
    RetiredEnvError,
)
from cahoots_envs.registry import seat_env_id
from tests.search_checks import variants

GAMES = [spec for spec in cahoots_envs.registered_games() if spec.has("state_layout")]
GAME_IDS = [spec.name for spec in GAMES]
PLAYER_COUNTS = [(spec.env_id, n) for spec in GAMES for n in spec.rules.PLAYER_COUNTS]
VARIANTS = [(spec.env_id, v) for spec in GAMES for v in variants(spec.rules)]


def future_piles(spec: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Where a game keeps the order of its future chance events (its state module's
    ``undrawn_piles``; Kansas City deals later hands when reached, Cahoots tricks has a reserve
    with 3 players only): the options to check with (the default player count if it keeps any,
    else the first that does) and those piles."""
    counts = [spec.rules.DEFAULT_PLAYERS, *spec.rules.PLAYER_COUNTS]
    for n in counts:
        piles = tuple(spec.state_layout.undrawn_piles(spec.resolve_options({"num_players": n})))
        if piles:
            return ({} if n == spec.rules.DEFAULT_PLAYERS else {"num_players": n}), piles
    return {}, ()


@pytest.fixture
def plugin_game_spec() -> Any:
    """The test game ``high_card`` (tests/plugin_game): registered, no state declared."""
    return registry.game_spec("high_card")


def test_every_built_in_game_declares_a_state() -> None:
    assert set(GAME_IDS) == {spec.name for spec in registry.builtin_games()}
    for spec in GAMES:  # piles the game really has, for some player count
        options, piles = future_piles(spec)
        game = spec.new_game(spec.resolve_options(options), np.random.default_rng(0), None)
        assert all(hasattr(game, pile) for pile in piles), (spec.name, piles)


# ---- parallel API ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id,n", PLAYER_COUNTS, ids=[f"{e}-{n}p" for e, n in PLAYER_COUNTS])
def test_parallel_api_test(env_id: str, n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the api test passes reset options of its own
        parallel_api_test(cahoots_envs.make_parallel(env_id, num_players=n), num_cycles=150)


@pytest.mark.parametrize("name", GAME_IDS)
def test_pettingzoo_make_parallel_and_module_factory(name: str) -> None:
    spec = registry.game_spec(name)
    env = pettingzoo.make("parallel", spec.env_id)
    assert env.aec_env.env_id == spec.env_id
    module = __import__(f"cahoots_envs.{name}_v{spec.version}", fromlist=["parallel_env"])
    assert type(module.parallel_env()) is type(env)
    for retired in range(spec.version):  # none for a game still at v0
        with pytest.raises(RetiredEnvError, match=f"use {name}-v{spec.version}"):
            pettingzoo.make("parallel", f"cahoots_envs/{name}-v{retired}")


@pytest.mark.parametrize("name", GAME_IDS)
def test_parallel_game_matches_the_aec_game(name: str) -> None:
    """Same seed, same actions: the parallel env's observations, rewards and ends are the AEC
    env's; the other agents' actions are ignored, whatever they are."""
    spec = registry.game_spec(name)
    rng = np.random.default_rng(3)
    for seed in range(3):
        aec = cahoots_envs.make(spec.env_id)
        par = cahoots_envs.make_parallel(spec.env_id)
        aec.reset(seed=seed)
        observations, infos = par.reset(seed=seed)
        assert set(observations) == set(aec.agents)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        aec_totals = dict.fromkeys(aec.possible_agents, 0.0)
        while par.agents:
            mover = par.agent_to_move
            assert mover == aec.agent_selection
            assert infos[mover]["active_agent"] == aec.agent_name_mapping[mover]
            for agent, obs in observations.items():
                want = aec.observe(agent)
                assert np.array_equal(obs["observation"], want["observation"])
                assert np.array_equal(obs["action_mask"], want["action_mask"])
                assert obs["action_mask"].any() == (agent == mover)
            action = int(rng.choice(np.flatnonzero(observations[mover]["action_mask"])))
            # the others "act" too, with nonsense: ignored
            actions = {a: (action if a == mover else 10**6) for a in par.agents}
            observations, rewards, terms, _truncs, infos = par.step(actions)
            for a, r in rewards.items():
                totals[a] += r
            aec.step(action)
            for a in aec.agents:
                aec_totals[a] += aec.rewards[a]
            assert terms == aec.terminations
        assert not par.agents
        assert totals == pytest.approx(aec_totals)
        result = par.aec_env.result()
        assert [totals[a] for a in aec.possible_agents] == pytest.approx(result["outcome"])


def test_parallel_errors_leave_the_game_as_it_was() -> None:
    par = cahoots_envs.make_parallel("kansas_city-v1")
    with pytest.raises(EnvNotResetError, match="reset"):
        par.step({"player_0": 0})
    par.reset(seed=0)
    mover = par.agent_to_move
    before = par.aec_env.game.history[:]
    others = {a: 0 for a in par.agents if a != mover}
    with pytest.raises(IllegalActionError, match=f"{mover} is to move"):
        par.step(others)
    with pytest.raises(IllegalActionError, match="dict of actions"):
        par.step(3)  # type: ignore[arg-type]
    assert par.aec_env.game.history == before
    while par.agents:
        mask = par.aec_env.action_mask(par.agent_to_move)
        par.step({par.agent_to_move: int(np.flatnonzero(mask)[0])})
    with pytest.raises(IllegalActionError, match="game is over; call reset"):
        par.step({"player_0": 0})


def test_parallel_pays_the_deal_rewards_in_the_first_step() -> None:
    """cahoots_coop in points mode pays goals met at setup: the first step's rewards hold them,
    so a parallel episode's rewards add up to the final scores as the AEC env's do."""
    par = cahoots_envs.make_parallel("cahoots_coop-v1", reward_mode="points")
    aec = cahoots_envs.make("cahoots_coop-v1", reward_mode="points")
    seed = 4
    aec.reset(seed=seed)
    deal = dict(aec._cumulative_rewards)
    assert any(deal.values())
    observations, infos = par.reset(seed=seed)
    # every info has the same keys at every step: the deal's pay comes with the first step
    assert all(info["deal_reward"] == 0.0 for info in infos.values())
    mover = par.agent_to_move
    action = int(np.flatnonzero(observations[mover]["action_mask"])[0])
    _, rewards, *_ = par.step({mover: action})
    aec.step(action)
    for a in aec.possible_agents:
        assert rewards[a] == pytest.approx(deal[a] + aec.rewards[a])
    # a deal that ends the game before any move: no agents, the deal's rewards in the infos
    observations, infos = par.reset(seed=344)
    assert par.agents == [] and par.aec_env.game.is_over
    paid = par.aec_env._cumulative_rewards
    assert all(info["deal_reward"] == paid[a] for a, info in infos.items())
    assert all(info["active_agent"] == -1 for info in infos.values())


# ---- spaces ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAME_IDS)
def test_space_dicts(name: str) -> None:
    env = cahoots_envs.make(name)
    assert list(env.observation_spaces) == env.possible_agents == list(env.action_spaces)
    for a in env.possible_agents:
        assert env.observation_spaces[a] is env.observation_space(a)
        assert env.action_spaces[a] is env.action_space(a)
    par = cahoots_envs.make_parallel(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ours, not PettingZoo's deprecated-dict warning
        assert par.observation_spaces == env.observation_spaces
        assert par.action_spaces == env.action_spaces


# ---- global state -----------------------------------------------------------------------------
def _play_and_check(env_id: str, options: dict, games: int, seed: int, first: int = 0,
                    min_states: int = 40) -> int:
    """Random and heuristic players; at every step every seat's observation is rebuilt from the
    state alone, and the state lies in ``state_space``. Plays ``games`` games, and more while
    fewer than ``min_states`` states were checked. Returns the number of states checked."""
    env = cahoots_envs.make_raw(env_id, **options)
    layout: StateLayout = env.state_layout
    bot = env.spec.bot(env.options, seed=seed)
    rng = np.random.default_rng(seed)
    checked = 0
    g = -1
    while g + 1 < games or checked < min_states:
        g += 1
        env.reset(seed=seed * 100 + g)
        while True:
            state = env.state()
            assert state.shape == env.state_space.shape and state.dtype == np.float32
            assert env.state_space.contains(state), "state outside state_space"
            for agent in env.possible_agents:
                seat = env.agent_name_mapping[agent]
                rebuilt = layout.observation_from_state(state, seat)
                assert np.array_equal(rebuilt, env.observe(agent)["observation"]), (
                    f"{env_id} {options}: seat {seat}'s observation is not in the state "
                    f"(segments differing: "
                    f"{[s.name for s in env.layout.segments if not np.array_equal(rebuilt[env.layout.slice(s.name)], env.observe(agent)['observation'][env.layout.slice(s.name)])]})")
            checked += 1
            if env.game.is_over:
                break
            obs = env.observe(env.agent_selection)
            if (g + first) % 2:
                action = int(bot.act(obs["observation"], obs["action_mask"]))
            else:
                action = int(rng.choice(env.legal_actions()))
            env.step(action)
    return checked


@pytest.mark.parametrize("env_id,options", VARIANTS, ids=[f"{e}-{o}" for e, o in VARIANTS])
def test_every_observation_is_rebuilt_from_the_state(env_id: str, options: dict) -> None:
    # one game per variant: the heuristic plays even-numbered variants, random players the rest
    index = VARIANTS.index((env_id, options))
    assert _play_and_check(env_id, options, games=1, seed=1, first=index % 2) >= 40


@pytest.mark.slow
@pytest.mark.parametrize("env_id,options", VARIANTS, ids=[f"{e}-{o}" for e, o in VARIANTS])
def test_every_observation_is_rebuilt_from_the_state_long(env_id: str, options: dict) -> None:
    _play_and_check(env_id, options, games=40, seed=7)


@pytest.mark.parametrize("name", GAME_IDS)
def test_state_holds_every_hand_in_absolute_seat_order(name: str) -> None:
    env = cahoots_envs.make(name)
    env.reset(seed=5)
    layout = env.state_layout
    assert layout.kind("hand") == PRIVATE
    hands = env.state()[layout.layout.slice("hand")].reshape(env.num_agents, -1)
    for agent in env.possible_agents:
        seat = env.agent_name_mapping[agent]
        own = env.observe(agent)["observation"][env.layout.slice("hand")]
        assert np.array_equal(hands[seat], own) and own.any()


@pytest.mark.parametrize("name", GAME_IDS)
def test_state_does_not_show_the_order_of_future_chance_events(name: str) -> None:
    """Reordering what is still to be drawn (and re-dealing later hands) changes no state."""
    options, piles = future_piles(registry.game_spec(name))
    env = cahoots_envs.make_raw(name, **options)
    rng = np.random.default_rng(11)
    reordered = 0
    for seed in range(4):
        env.reset(seed=seed)
        while not env.game.is_over:
            game = env.game
            twin = game.clone(rng=np.random.default_rng(seed + 1000))
            for pile in piles:
                cards = list(getattr(twin, pile))
                if len(set(map(repr, cards))) > 1:
                    rng.shuffle(cards)
                    setattr(twin, pile, cards)
                    reordered += getattr(twin, pile) != getattr(game, pile)
            out = np.zeros(env.state_layout.size, np.float32)
            assert np.array_equal(env.state_layout.encode(twin, out), env.state())
            env.step(int(rng.choice(env.legal_actions())))
    assert reordered > 0 or not piles


def test_state_errors() -> None:
    env = cahoots_envs.make("texas_euchre-v1")
    with pytest.raises(EnvNotResetError, match="reset"):
        env.state()
    layout = copy.copy(env.state_layout)
    with pytest.raises(ValueError, match="seat 9 is not a seat"):
        layout.observation_from_state(np.zeros(layout.size, np.float32), 9)
    with pytest.raises(ValueError, match="lacks"):
        StateLayout(env.layout, 4, {"no_such_segment": PRIVATE})
    with pytest.raises(ValueError, match="not one of"):
        StateLayout(env.layout, 4, {"hand": "secret"})
    with pytest.raises(ValueError, match="no seat axis"):
        StateLayout(env.layout, 4, {"draw_pile_size": SEATS})
    assert StateLayout(env.layout, 4, {}).kind("hand") == PUBLIC


@pytest.mark.parametrize("state,seat,expected", [
    ("state", 1.0, r"seat 1\.0 is not a seat of a 4-player game: an int 0..3"),
    ("state", True, "seat True is not a seat"),
    ("state", "0", "seat '0' is not a seat"),
    ("list", 0, (r"^state must be a numeric numpy array of shape \({n},\), as env.state\(\) "
                 r"of cahoots_envs/texas_euchre-v1 at 4 players gives; got list")),
    (None, 0, "got NoneType None"),
    ("bool", 0, "got dtype bool"),
    ("str", 0, "got dtype <U"),
    ("longer", 0, r"got shape \({longer},\)"),
    ("shorter", 0, r"got shape \({shorter},\)"),
    ("batch", 0, r"got shape \(2, {n}\)"),
])
def test_observation_from_state_refuses_what_is_not_a_state(state: Any, seat: Any,
                                                            expected: str) -> None:
    env = cahoots_envs.make("texas_euchre-v1")
    env.reset(seed=0)
    layout, good = env.state_layout, env.state()
    junk = {"state": good, "list": good.tolist(), None: None, "bool": good.astype(bool),
            "str": good.astype(str), "longer": np.append(good, 0), "shorter": good[:-1],
            "batch": np.stack([good, good])}[state]
    n = layout.size
    with pytest.raises(ValueError, match=expected.format(n=n, longer=n + 1, shorter=n - 1)) as e:
        layout.observation_from_state(junk, seat)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    assert np.array_equal(layout.observation_from_state(good.astype(np.float64), np.int64(2)),
                          env.observe("player_2")["observation"])


def test_a_game_without_a_state_says_so(plugin_game_spec: Any) -> None:
    env = cahoots_envs.make(plugin_game_spec.env_id)
    env.reset(seed=0)
    assert not hasattr(env, "state_space")
    with pytest.raises(NotAvailableError, match="global state is not available"):
        env.state()


# ---- Gymnasium ids of the seat envs --------------------------------------------------------------
@pytest.mark.parametrize("name", GAME_IDS)
def test_gymnasium_make_seat_env(name: str) -> None:
    spec = registry.game_spec(name)
    gym_id = seat_env_id(spec)
    assert gym_id == f"cahoots_envs/{name}_seat-v{spec.version}"
    env = gymnasium.make(gym_id, opponents="heuristic", seed=3)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    masks = env.get_wrapper_attr("action_masks")()
    obs, _reward, _terminated, _truncated, _info = env.step(int(np.flatnonzero(masks)[0]))
    assert env.unwrapped.env_id == spec.env_id


def test_gymnasium_make_takes_game_options_and_checks_them() -> None:
    env = gymnasium.make("cahoots_envs/kansas_city_seat-v1", num_players=5, opponents="random")
    assert env.unwrapped.options["num_players"] == 5
    env = gymnasium.make("cahoots_envs/texas_euchre_seat-v1", options={"num_players": 3})
    assert env.unwrapped.options["num_players"] == 3
    with pytest.raises(ValueError, match="unknown option"):
        gymnasium.make("cahoots_envs/kansas_city_seat-v1", num_playerz=5)


def test_maskable_ppo_on_an_env_from_gymnasium_make() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gymnasium.make("cahoots_envs/texas_euchre_seat-v1", opponents="random")
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(32)
    obs, _ = env.reset(seed=1)
    masks = get_action_masks(env)
    action, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert masks[int(action)]


def test_unregistering_a_game_removes_its_ids(plugin_game_spec: Any) -> None:
    gym_id = seat_env_id(plugin_game_spec)
    assert gym_id in gymnasium.registry
    assert plugin_game_spec.env_id in pettingzoo.parallel_registry
    registry.unregister_game(plugin_game_spec.name)
    try:
        assert gym_id not in gymnasium.registry
        assert plugin_game_spec.env_id not in pettingzoo.parallel_registry
    finally:
        registry.register_game(plugin_game_spec)


# ---- RLlib without ray ----------------------------------------------------------------------------
def test_rllib_without_ray_names_the_extra_and_its_own_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an absent package looks like
    monkeypatch.delitem(sys.modules, "cahoots_envs.rllib", raising=False)
    with pytest.raises(ImportError) as info:
        importlib.import_module("cahoots_envs.rllib")
    message = str(info.value)
    assert "\n" not in message and info.value.name == "ray"
    assert message.startswith("cahoots_envs.rllib needs ray[rllib] and torch, and ray is not "
                              "installed here: pip install \"cahoots-envs[rllib]\" in a virtual "
                              "environment of its own")
    assert "Scaling out with RLlib" in message and ".venv-rllib" in message
