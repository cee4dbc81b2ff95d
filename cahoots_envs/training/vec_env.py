"""``SeatVecEnv``: many seat games in one process as an SB3 ``VecEnv``.

Every step applies the learners' actions, then moves all opponents of all games together: each
round, each opponent policy object acts once, with ``act_batch`` over every game where it is to
move (one forward pass per opponent per round, not one per game). Finished games are reset in
place (SB3 convention: the returned observation is the new game's; the last one is in
``infos[i]["terminal_observation"]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from cahoots_envs.core.driver import fill_observation
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.evaluation.tables import Table, advance, reseed
from cahoots_envs.training.seat_env import (
    Opponents,
    illegal_learner_action,
    seat_env_arguments,
    seat_setup,
)
from cahoots_envs.vector import action_ids


class VecEnvAttributes(VecEnv):
    """What ``SeatVecEnv`` and the batched seat env share: the constructor (each sets up its
    games in ``start_games``), the learners' actions taken (``step_async``) and what SB3's
    ``VecEnv`` asks beyond stepping: ``close``, attribute and method access (``action_masks``
    for sb3-contrib), ``env_is_wrapped`` and ``get_images``."""

    env_id: str
    _actions: np.ndarray | None

    @seat_env_arguments
    def __init__(
        self,
        env_id: str,
        num_envs: int,
        options: Mapping[str, Any] | None = None,
        opponents: Opponents = "random",
        learner_seat: int | None = None,
        team: bool = False,
        seed: int | None = None,
        reward_scale: float = 1.0,
    ) -> None:
        observation_space, action_space = self.start_games(
            env_id, num_envs, options, opponents, learner_seat, team, seed, reward_scale)
        self.render_mode = None
        VecEnv.__init__(self, num_envs, observation_space, action_space)

    def start_games(self, env_id: str, num_envs: int, options: Mapping[str, Any] | None,
                    opponents: Opponents, learner_seat: int | None, team: bool,
                    seed: int | None, reward_scale: float) -> tuple[gym.Space, gym.Space]:
        """Set up the games (the constructor's arguments); their observation and action
        spaces."""
        raise NotImplementedError

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = None  # a refused batch leaves nothing to replay
        # what VectorGames.step and BatchedSeats.step_games take: int64[num_envs], bools and
        # floats refused (int(3.9) would play 3)
        self._actions = action_ids(actions, self.num_envs, f"{self.env_id} learners")

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError  # each seat env gives its learners' masks

    def close(self) -> None:
        pass

    # ---- attribute access (sb3-contrib finds masks through env_method("action_masks")) -------
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


class SeatVecEnv(VecEnvAttributes):
    """``num_envs`` seat games sharing one opponent pool (see ``SeatEnv`` for the arguments);
    ``reward_scale`` multiplies every reward (e.g. to bring ``reward_mode="points"`` to ~1)."""

    def start_games(self, env_id: str, num_envs: int, options: Mapping[str, Any] | None,
                    opponents: Opponents, learner_seat: int | None, team: bool,
                    seed: int | None, reward_scale: float) -> tuple[gym.Space, gym.Space]:
        self.info, self.maker, observation_space, action_space = seat_setup(
            env_id, options, opponents, learner_seat, team, seed)
        self.env_id = self.info.env_id
        self.options = self.info.options
        self.rng = np.random.default_rng(seed)
        self.reward_scale = float(reward_scale)
        self.tables: list[Table] = []
        self._legal: list[list[int]] = []
        self._actions = None
        self._obs = np.zeros((num_envs, self.info.layout.size), OBS_DTYPE)
        self._masks = np.zeros((num_envs, self.info.num_actions), bool)
        return observation_space, action_space

    @property
    def pool(self) -> Any:
        return self.maker.opponents

    # ---- VecEnv -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            for i, policy in enumerate(self.maker.all_policies()):
                reseed(policy, seed * 7919 + i + 1)
        self._reset_seeds()
        self._reset_options()
        self.tables = self._deal(self.num_envs)
        self._observe_all()
        return self._obs.copy()

    def _observe_all(self) -> None:
        """Encode every learner's observation and cache its legal actions (its mask)."""
        self._legal = []
        for i, t in enumerate(self.tables):
            fill_observation(t.game, t.obs_seat, self._obs[i])
            self._legal.append(t.game.legal_actions())

    def _deal(self, count: int) -> list[Table]:
        """``count`` fresh tables, each with its learner to move."""
        tables = [self.maker.deal(self.rng) for _ in range(count)]
        advance(tables, self.info)
        for i, t in enumerate(tables):
            while t.game.is_over:  # ended before the learner's first decision: deal again
                t = self.maker.deal(self.rng)
                advance([t], self.info)
            tables[i] = t
        return tables

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if not self.tables or self._actions is None:
            raise RuntimeError("call reset() and step_async() before step_wait()")
        acts = self._actions.tolist()
        self._actions = None  # used, or refused: either way not replayed
        bad = [i for i, (legal, a) in enumerate(zip(self._legal, acts)) if a not in legal]
        if bad:  # every game checked before any is played: a refused step changes nothing
            i = bad[0]
            raise IllegalActionError(illegal_learner_action(
                acts[i], i, len(bad) - 1, self.info.num_actions, self.tables[i].game.phase))
        for t, a in zip(self.tables, acts):
            t.game.apply(a)
        advance(self.tables, self.info)
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        finished = []
        for i, t in enumerate(self.tables):
            rewards[i] = t.collect() * self.reward_scale
            if t.game.is_over:
                dones[i] = True
                finished.append(i)
                terminal = np.zeros(self.info.layout.size, OBS_DTYPE)
                fill_observation(t.game, t.obs_seat, terminal)
                infos[i] = {
                    "terminal_observation": terminal,
                    "learner_seat": t.learner,
                    "outcome": float(t.game.outcome()[t.reward_seat]),
                    "score": float(t.game.scores[t.reward_seat]),
                    "is_success": t.won(),
                    "opponents": [t.names[s] for s in range(len(t.names)) if s != t.learner],
                    "TimeLimit.truncated": False,
                }
        if finished:
            for i, t in zip(finished, self._deal(len(finished))):
                self.tables[i] = t
        self._observe_all()
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        masks = self._masks
        masks[:] = False
        for i, legal in enumerate(self._legal):
            masks[i, legal] = True
        return masks.copy()

