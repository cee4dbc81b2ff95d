"""``CahootsMultiAgentEnv``: RLlib's env check, spaces, turn order, rewards, bots, seeds."""

from __future__ import annotations

import logging
import pickle
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

import cahoots_envs
from cahoots_envs.rllib.env import CahootsMultiAgentEnv, LegalActions

GAMES = [("kansas_city-v1", {"num_players": 4}), ("texas_euchre-v1", {"num_players": 4}),
         ("cahoots_tricks-v1", {"num_players": 3}), ("cahoots_coop-v1", {"num_players": 2}),
         ("cahoots_coop-v1", {"num_players": 1})]
IDS = [f"{g}-{o['num_players']}p" for g, o in GAMES]


def play(env: CahootsMultiAgentEnv, seed: int, rng: np.random.Generator
         ) -> tuple[list[tuple[str, int]], dict[str, float], list[Any]]:
    """One game with random legal moves: (agent, action) per step, summed rewards per agent, and
    every step's returned tuple."""
    obs, infos = env.reset(seed=seed)
    moves: list[tuple[str, int]] = []
    totals: dict[str, float] = {}
    steps: list[Any] = [(obs, infos)]
    while True:
        assert len(obs) == 1, f"turn-based: one agent observes, got {list(obs)}"
        (agent,) = obs
        legal = np.flatnonzero(obs[agent]["action_mask"])
        action = int(rng.choice(legal))
        moves.append((agent, action))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps.append((obs, rewards, terms, truncs, infos))
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        assert set(rewards) == set(obs) and set(infos) == set(obs)
        if terms["__all__"]:
            return moves, totals, steps
        assert terms == {"__all__": False} and truncs == {"__all__": False}


@pytest.mark.parametrize("env_id,options", GAMES, ids=IDS)
def test_rllib_env_check_passes_with_legal_moves_and_no_warning(
        env_id: str, options: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    """RLlib's pre-check resets, samples each observing agent's action space and steps: the
    sample is a legal move (the unprotected env would raise on an illegal one) and nothing is
    logged or warned."""
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for seed in range(3):
        env = CahootsMultiAgentEnv({"env_id": env_id, "options": options})
        env.reset(seed=seed)
        with warnings.catch_warnings(), caplog.at_level(logging.WARNING):
            warnings.simplefilter("error")
            check_multiagent_environments(env)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_action_space_samples_legal_moves_of_the_agent_to_move() -> None:
    env = CahootsMultiAgentEnv({"env_id": "kansas_city-v1", "options": {"num_players": 4}})
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        (agent,) = obs
        legal = set(np.flatnonzero(obs[agent]["action_mask"]).tolist())
        space = env.action_spaces[agent]
        assert isinstance(space, LegalActions) and isinstance(space, spaces.Discrete)
        assert {int(space.sample()) for _ in range(30)} <= legal
        others = [a for a in env.possible_agents if a != agent]
        # an agent not to move samples like Discrete: from every action, illegal ones too
        assert not {int(env.action_spaces[others[0]].sample()) for _ in range(200)} <= legal
        obs, _, terms, _, _ = env.step({agent: int(rng.choice(sorted(legal)))})
        if terms["__all__"]:
            obs, _ = env.reset()
    # what RLlib sends to learners: a plain copy, no env inside
    copy = pickle.loads(pickle.dumps(env.action_spaces["player_0"]))
    assert copy == spaces.Discrete(env.aec.num_actions) and copy._legal_mask is None


@pytest.mark.parametrize("env_id,options", GAMES, ids=IDS)
def test_spaces_and_observations(env_id: str, options: dict[str, Any]) -> None:
    env = CahootsMultiAgentEnv({"env_id": env_id, "options": options})
    aec = cahoots_envs.make_raw(env_id, **options)
    space = env.observation_spaces["player_0"]
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"observations", "action_mask"}
    assert space["observations"].shape == (aec.layout.size,)
    assert space["observations"].dtype == np.float32
    assert space["action_mask"] == spaces.Box(0.0, 1.0, (aec.num_actions,), np.float32)
    assert env.possible_agents == aec.possible_agents
    assert all(env.action_spaces[a].n == aec.num_actions for a in env.possible_agents)
    _, _, steps = play(env, 0, np.random.default_rng(0))
    for step in steps:
        for ob in step[0].values():
            assert space.contains(ob)
    # the last step: every agent observes its final table with an all-zero mask and ends
    obs, rewards, terms, truncs, _ = steps[-1]
    assert set(obs) == set(env.possible_agents) == set(rewards)
    assert all(terms[a] for a in env.possible_agents) and terms["__all__"]
    assert not truncs["__all__"] and not any(ob["action_mask"].any() for ob in obs.values())


@pytest.mark.parametrize("env_id,options", [
    ("kansas_city-v1", {"num_players": 4, "reward_mode": "points"}),
    ("texas_euchre-v1", {"num_players": 5}),
    ("cahoots_tricks-v1", {"num_players": 4, "reward_mode": "points"}),
    ("cahoots_coop-v1", {"num_players": 3, "reward_mode": "points"}),
], ids=["kansas_city-4p-points", "texas_euchre-5p", "cahoots_tricks-4p-points",
        "cahoots_coop-3p-points"])
def test_turn_order_and_rewards_match_the_aec_env(env_id: str, options: dict[str, Any]) -> None:
    """The same seed and moves: the same agent to move at every step as the AEC env, and each
    agent's rewards add up to the AEC env's cumulative reward."""
    env = CahootsMultiAgentEnv({"env_id": env_id, "options": options})
    for seed in (1, 2):
        moves, totals, _ = play(env, seed, np.random.default_rng(seed))
        aec = cahoots_envs.make_raw(env_id, **options)
        aec.reset(seed=seed)
        expected = dict.fromkeys(aec.possible_agents, 0.0)
        for a in aec.possible_agents:
            expected[a] += aec.rewards[a]  # what the deal pays
        for agent, action in moves:
            assert aec.agent_selection == agent
            aec.step(action)
            for a in aec.possible_agents:
                expected[a] += aec.rewards[a]
        assert aec.game.is_over
        assert totals == pytest.approx(expected)
        assert any(v != 0 for v in totals.values())


def test_seeded_resets_are_reproducible() -> None:
    config = {"env_id": "texas_euchre-v1", "options": {"num_players": 4}, "bots": ["random"],
              "rotate_seats": True}
    runs = [play(CahootsMultiAgentEnv(config), 9, np.random.default_rng(3))[0] for _ in range(2)]
    assert runs[0] == runs[1]


def test_bots_play_inside_the_env_and_seats_rotate() -> None:
    env = CahootsMultiAgentEnv({"env_id": "texas_euchre-v1", "options": {"num_players": 4},
                                "bots": ["heuristic", "random"], "rotate_seats": True})
    assert env.possible_agents == ["player_0", "player_1"]
    seats: dict[str, set[int]] = {a: set() for a in env.possible_agents}
    obs, infos = env.reset(seed=0)
    for game in range(12):
        if game:
            obs, infos = env.reset()
        first = {a: i["seat"] for a, i in infos.items()}
        while True:
            (agent,) = obs
            assert agent in env.possible_agents
            seat = infos[agent]["seat"]
            assert env.aec.game.current_player == seat == first.get(agent, seat)
            seats[agent].add(seat)
            obs, _, terms, _, infos = env.step({agent: int(env.action_spaces[agent].sample())})
            if terms["__all__"]:
                assert set(obs) == set(env.possible_agents)
                # the two agents sit next to each other, the bots in the other two seats
                assert (infos["player_1"]["seat"] - infos["player_0"]["seat"]) % 4 == 1
                break
    assert all(len(s) == 4 for s in seats.values()), seats


def test_search_bot_seat() -> None:
    env = CahootsMultiAgentEnv({"env_id": "cahoots_coop-v1", "options": {"num_players": 2},
                                "bots": ["search@worlds=2:heuristic"]})
    _, totals, _ = play(env, 4, np.random.default_rng(4))
    assert set(totals) == {"player_0"}


@pytest.mark.parametrize("config,message", [
    ({"env_id": "texas_euchre-v1", "seats": 4}, "unknown env config key(s) seats"),
    ({"options": {}}, "env config needs env_id"),
    ({"env_id": "texas_euchre-v1", "bots": "heuristic"}, "bots must be a list"),
    ({"env_id": "texas_euchre-v1", "options": {"num_players": 3}, "bots": ["random"] * 3},
     "3 bots leave no seat to learn"),
    ({"env_id": "texas_euchre-v1", "reward_scale": 0}, "reward_scale must be a positive"),
    ({"env_id": "texas_euchre-v1", "bots": ["zoo:nope"]}, "no zoo policy 'nope'"),
    ({"env_id": "chess-v1"}, "unknown env"),
])
def test_env_config_errors_are_one_line(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        CahootsMultiAgentEnv(config)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_importing_cahoots_envs_does_not_import_ray() -> None:
    code = "import sys, cahoots_envs, cahoots_envs.training; assert 'ray' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
