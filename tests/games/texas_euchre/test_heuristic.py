"""The Texas Euchre heuristic bot: legal on random games, and clearly better than random play."""

from __future__ import annotations

import numpy as np
import pytest

from cahoots_envs import texas_euchre_v1
from cahoots_envs.games.texas_euchre.bot import HeuristicPolicy


def play(games: int, seed: int, **options: object) -> tuple[float, float]:
    """Win share and mean score of one heuristic seat (rotated) against random seats."""
    env = texas_euchre_v1.env(**options)
    n = env.unwrapped.options["num_players"]
    bot = HeuristicPolicy(env.unwrapped.options, seed=seed)
    rng = np.random.default_rng(seed)
    wins = score = 0.0
    for g in range(games):
        env.reset(seed=seed * 10_000 + g)
        seat = g % n
        game = env.unwrapped.game
        while not game.is_over:
            agent = env.agent_selection
            obs = env.observe(agent)
            if agent == f"player_{seat}":
                action = bot.act(obs["observation"], obs["action_mask"])
                assert obs["action_mask"][action] == 1, env.unwrapped.action_to_str(action)
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        winners = game.winners()
        if seat in winners:
            wins += 1.0 / len(winners)
        score += game.scores[seat]
    return wins / games, score / games


@pytest.mark.parametrize(
    "options, games, floor",
    [
        # chance is 1/n; measured (200 games each): 3p 0.79, 4p 0.88, 5p 0.84, 6p 0.79,
        # reverse 4p 0.86, reverse 6p 0.81
        ({"num_players": 3}, 150, 0.55),
        ({"num_players": 4}, 200, 0.5),
        ({"num_players": 6}, 150, 0.4),
        ({"reverse": True}, 150, 0.5),
    ],
)
def test_heuristic_beats_random(options: dict, games: int, floor: float) -> None:
    win_rate, mean_score = play(games, seed=1, **options)
    assert win_rate > floor, (win_rate, mean_score)


def test_heuristic_is_legal_on_every_player_count() -> None:
    for n in (3, 4, 5, 6):
        play(20, seed=n, num_players=n)  # asserts every chosen action is in the mask
    play(20, seed=9, num_players=5, reverse=True, face_card_values="tens_ace_low", target_score=30)


def test_heuristic_is_deterministic_and_reads_only_the_observation() -> None:
    env = texas_euchre_v1.env(num_players=6)
    env.reset(seed=3)
    a = HeuristicPolicy(env.unwrapped.options, seed=0)
    b = HeuristicPolicy(env.unwrapped.options, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if env.unwrapped.game.is_over:
            env.reset()
        obs = env.observe(env.agent_selection)
        assert a.act(obs["observation"], obs["action_mask"]) == b.act(
            obs["observation"].copy(), obs["action_mask"].copy()
        )
        batch = a.act_batch(obs["observation"][None], obs["action_mask"][None])
        assert batch.shape == (1,) and batch[0] == a.act(obs["observation"], obs["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
