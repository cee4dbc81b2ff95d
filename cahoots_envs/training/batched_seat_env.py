"""``BatchedSeatVecEnv``: the seat games of ``SeatVecEnv`` on the batched engine (an SB3 VecEnv).

>>> from cahoots_envs.training.batched_seat_env import BatchedSeatVecEnv
>>> venv = BatchedSeatVecEnv("kansas_city-v1", num_envs=256, opponents="random", seed=0)
>>> obs = venv.reset()
>>> obs, rewards, dones, infos = venv.step(venv.action_masks().argmax(axis=1))

The seating, the opponents' moves and the rewards are ``BatchedSeats``'s
(``cahoots_envs.training.batched_seats``), shared with Gymnasium's face of the same games
(``SeatVectorEnv``, the seat ids' vector entry point).

One learner seat per game (drawn each episode, or fixed with ``learner_seat``); every other
seat gets a policy from the pool each episode. Each step applies the learners' actions in every
game at once, then moves the opponents round by round: in each round every opponent policy acts
once, with ``act_batch`` over the batched observations of every game where it is to move (games
where the learner is to move again wait, action -1), until the learner is to move everywhere.
Rewards are the learner seat's, summed since its last decision (the deal's own pay comes with
the first step of an episode), times ``reward_scale``. Finished games are dealt again at once;
the finished episode's last learner observation is ``infos[i]["terminal_observation"]``, as SB3
expects. An episode that ends before the learner's first decision is dealt again silently.

Opponents are network policies, the random policy, the rule-based bots and search bots. A
search bot decides all the games where it is to move in a round with one ``act_infosets`` call:
each of those games is rebuilt as a reference game from the engine (``engine.game(i)``, its
deals and actions) for the seat's information set, and their searches run together on the
engine (``SearchPolicy.act_infosets``). ``team=True`` (cooperative games) lets the learner play
every seat. Needs stable-baselines3 (the ``train`` extra) and numba (the ``fast`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from cahoots_envs.training.batched_seats import LEARNER, MAX_ROUNDS, BatchedSeats
from cahoots_envs.training.seat_env import Opponents
from cahoots_envs.training.vec_env import VecEnvAttributes

__all__ = ["LEARNER", "MAX_ROUNDS", "BatchedSeatVecEnv"]


class BatchedSeatVecEnv(BatchedSeats, VecEnvAttributes):
    """``num_envs`` seat games on ``cahoots_envs.vector`` as an SB3 VecEnv (see the module
    docstring); the arguments are ``SeatVecEnv``'s."""

    __init__ = VecEnvAttributes.__init__  # BatchedSeats' own comes first in the bases
    step_async = VecEnvAttributes.step_async

    def start_games(self, env_id: str, num_envs: int, options: Mapping[str, Any] | None,
                    opponents: Opponents, learner_seat: int | None, team: bool,
                    seed: int | None, reward_scale: float) -> tuple[gym.Space, gym.Space]:
        BatchedSeats.__init__(self, env_id, num_envs, options, opponents, learner_seat, team,
                              seed, reward_scale)
        return self.single_observation_space, self.single_action_space

    # ---- VecEnv -------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._reset_seeds()
        self._reset_options()
        return self.reset_games(seed).copy()

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self._reset_done or self._actions is None:
            raise RuntimeError("call reset() and step_async() before step_wait()")
        acts, self._actions = self._actions, None  # used, or refused: either way not replayed
        obs, rewards, dones, infos = self.step_games(acts)
        return obs.copy(), rewards, dones, infos
