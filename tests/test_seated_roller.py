"""``SeatedRoller``: rollouts that seat one player at the searching seat and another at the
others (expert iteration's ``matched_rollouts``), on the batched engine's lockstep."""

from __future__ import annotations

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.search import SeatedRoller, label_positions
from cahoots_envs.vector import make as make_vector

ENV, OPTIONS = "kansas_city-v1", {"num_players": 4, "reward_mode": "points"}
KNOBS = {"worlds": 8, "max_worlds": 8, "engine": "batched"}


def positions(count: int, seed: int) -> list:
    """Positions of heuristic games with a choice of 2 to 12 moves, every third decision."""
    vec = make_vector(ENV, 16, seed=seed, **OPTIONS)
    vec.reset(seed=seed)
    e = vec.engine
    bot = cahoots_envs.load_policy("heuristic", ENV, OPTIONS, seed=seed)
    found, step = [], 0
    while len(found) < count:
        legal = e.mask.sum(axis=1)
        for i in np.flatnonzero((legal >= 2) & (legal <= 12)).tolist():
            if (i + step) % 3 == 0 and len(found) < count:
                found.append(e.game(i))
        e.step(bot.act_batch(e.obs, e.mask))
        step += 1
    return found


def heuristic() -> object:
    return cahoots_envs.load_policy("heuristic", ENV, OPTIONS, seed=0)


def test_the_same_player_at_every_seat_gives_the_rollout_knobs_values() -> None:
    """Seated heuristic + heuristic in the lockstep = ``rollout=heuristic`` (the engine's fused
    play-out kernel): the same values for every candidate of every position."""
    games = positions(12, 5)
    plain = label_positions(ENV, OPTIONS, games, seed=9, rollout="heuristic", **KNOBS)
    seated = label_positions(ENV, OPTIONS, games, seed=9, rollout="heuristic",
                             roller=SeatedRoller(heuristic(), heuristic()), **KNOBS)
    assert sum(lab.searched for lab in plain) >= 8
    for a, b in zip(plain, seated):
        assert a.searched == b.searched and a.move == b.move
        if a.searched:
            np.testing.assert_array_equal(a.means, b.means)


def test_random_opponents_in_the_rollouts_raise_the_searching_seats_values() -> None:
    """Random bots at the other seats (the searching seat still heuristic) are easier
    opponents: the positions' values rise, as the heuristic's share against random bots
    (about 0.63) beats its share against itself (0.25) says they must."""
    games = positions(40, 6)
    plain = label_positions(ENV, OPTIONS, games, seed=4, rollout="heuristic", **KNOBS)
    against = label_positions(
        ENV, OPTIONS, games, seed=4, rollout="heuristic",
        roller=SeatedRoller(heuristic(), cahoots_envs.load_policy("random", ENV, OPTIONS, seed=1)),
        **KNOBS)
    pairs = [(a.means.mean(), b.means.mean()) for a, b in zip(plain, against)
             if a.searched and b.searched]
    assert len(pairs) >= 20
    diff = np.array([b - a for a, b in pairs])
    assert diff.mean() > 3 * diff.std(ddof=1) / np.sqrt(len(diff)) and diff.mean() > 0.05


def test_a_seated_roller_needs_the_engine() -> None:
    with pytest.raises(ValueError, match="a roller plays the rollouts on the batched engine"):
        label_positions(ENV, OPTIONS, positions(2, 7), seed=1, rollout="heuristic",
                        roller=SeatedRoller(heuristic(), heuristic()), worlds=4, max_worlds=4,
                        engine="reference")
    with pytest.raises(TypeError, match="acts only in the engine's rollouts"):
        SeatedRoller(heuristic(), heuristic()).act_batch(np.zeros((1, 3)), np.ones((1, 3)))
