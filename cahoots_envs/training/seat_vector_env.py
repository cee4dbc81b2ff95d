"""``SeatVectorEnv``: the seat ids' Gymnasium vector entry point, on the batched engine.

>>> import gymnasium as gym, numpy as np, cahoots_envs
>>> envs = gym.make_vec("cahoots_envs/kansas_city_seat-v1", num_envs=1024,
...                     vectorization_mode="vector_entry_point", opponents="heuristic")
>>> obs, info = envs.reset(seed=0)
>>> obs, rewards, terminated, truncated, info = envs.step(info["action_mask"].argmax(axis=1))

A ``gymnasium.vector.VectorEnv`` over ``BatchedSeats``, the machinery of ``BatchedSeatVecEnv``:
``num_envs`` seat games in lockstep in numba kernels, with the seat env's observation layout,
masks, rewards, options and opponents (``random``, ``heuristic``, ``zoo:...``, any saved
policy, an ``OpponentPool``, a list of policies, and search bots that decide many information
sets at once). Observations are ``float32[num_envs, obs_size]`` (the seat env's, stacked);
actions one id per game.

Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``, with Gymnasium 1.x's
documented semantics: a game whose episode ends in a step is dealt again within that step, so
the step returns the new episode's first observation with ``terminated`` True and the finished
episode's last reward; the finished episode's last observation is ``info["final_obs"][i]`` and
its end-of-episode info is ``info["final_info"]`` (``learner_seat``, ``score``, ``outcome``,
``is_success``), each with Gymnasium's ``_key`` mask of the games it holds. No step is spent on
a reset, and every action is played.

Infos hold numbers only, the same keys at every step: ``action_mask`` (``int8[num_envs, A]``:
the learners' legal actions now, never empty), ``learner_seat``, ``final_obs`` (zeros where no
episode ended), ``final_info`` and the masks. ``action_masks()`` gives the same masks as bools.

Seeds: ``reset(seed=s)`` (an int, for every game: the engine seeds each game from it; or the
``seed=`` argument) reproduces the games, the seating and the opponents' own generators.
``reset(options={"deals": [...]})`` plays ``num_envs`` scripted first deals (the AEC env's
``reset(options={"deal": ...})`` format; later deals are drawn). An illegal learner action
raises ``IllegalActionError`` and changes nothing (use the masks). Needs numba (the ``fast``
extra); ``vectorization_mode="sync"`` or ``"async"`` runs the reference seat env instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cahoots_envs.core.text import short_repr
from cahoots_envs.registry import game_spec, seat_env_id
from cahoots_envs.training.batched_seats import BatchedSeats
from cahoots_envs.training.seat_env import Opponents, split_seat_kwargs

# the seat env's arguments that the vector entry point takes too, beside the game's options
VECTOR_ARGUMENTS = ("opponents", "learner_seat", "team", "seed", "illegal_action", "render_mode",
                    "reward_scale")
FINAL_INFO_KEYS = ("learner_seat", "score", "outcome", "is_success")


class SeatVectorEnv(gym.vector.VectorEnv):  # type: ignore[misc]
    """``num_envs`` seat games of ``env_id`` on the batched engine (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium's attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int, options: Mapping[str, Any] | None = None,
                 opponents: Opponents = "random", learner_seat: int | None = None,
                 team: bool = False, seed: int | None = None,
                 reward_scale: float = 1.0) -> None:
        self.seats = BatchedSeats(env_id, num_envs, options, opponents, learner_seat, team, seed,
                                  reward_scale)
        s = self.seats
        self.env_id = s.env_id
        self.options = s.options
        self.num_envs = s.num_envs
        self.single_observation_space = s.single_observation_space
        self.single_action_space = s.single_action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, s.vec.num_actions))
        self._seed = seed
        self._obs_size = s.vec.obs_size

    @property
    def pool(self) -> Any:
        return self.seats.pool

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: Mapping[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None and not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(
                f"{self.env_id} vector env: reset(seed=...) takes one int for every game (the "
                f"engine seeds each game from it) or None, got {short_repr(seed)}")
        options = dict(options or {})
        unknown = set(options) - {"deals"}
        if unknown:
            raise ValueError(f"{self.env_id} vector env: unknown reset option(s) "
                             f"{sorted(unknown)}; reset understands options={{'deals': [one "
                             f"scripted deal per game]}}")
        if seed is None:
            seed, self._seed = self._seed, None  # the constructor's seed, at the first reset
        obs = self.seats.reset_games(None if seed is None else int(seed), options.get("deals"))
        if seed is not None:
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(int(seed))
        return obs.copy(), self._infos(None)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        obs, rewards, dones, finished = self.seats.step_games(actions)
        truncated = np.zeros(self.num_envs, np.bool_)
        return obs.copy(), rewards, dones.copy(), truncated, self._infos(finished)

    def _infos(self, finished: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The step's infos: numbers only, the same keys every step."""
        n = self.num_envs
        s = self.seats
        every = np.ones(n, np.bool_)
        ended = np.zeros(n, np.bool_)
        final_obs = np.zeros((n, self._obs_size), np.float32)
        final = {"learner_seat": np.full(n, -1, np.int64), "score": np.zeros(n, np.float64),
                 "outcome": np.zeros(n, np.float64), "is_success": np.zeros(n, np.bool_)}
        for i, info in enumerate(finished or ()):
            if info:
                ended[i] = True
                final_obs[i] = info["terminal_observation"]
                for key in FINAL_INFO_KEYS:
                    final[key][i] = info.get(key, 0)
        final_info: dict[str, Any] = {}
        for key in FINAL_INFO_KEYS:
            final_info[key] = final[key]
            final_info[f"_{key}"] = ended.copy()
        return {
            "action_mask": s.engine.mask.astype(np.int8),
            "_action_mask": every,
            "learner_seat": s.learner.copy(),
            "_learner_seat": every.copy(),
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": final_info,
            "_final_info": ended.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, ``bool[num_envs, num_actions]`` (never empty)."""
        return self.seats.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        return f"SeatVectorEnv({self.env_id}, num_envs={self.num_envs})"


def make_seat_vector_env(env_id: str, num_envs: int = 1, **kwargs: Any) -> SeatVectorEnv:
    """Gymnasium's vector entry point of a game's seat id (``registry.SEAT_VECTOR_ENTRY_POINT``):
    ``gymnasium.make_vec("cahoots_envs/<game>_seat-v1", num_envs,
    vectorization_mode="vector_entry_point", **kwargs)`` takes the seat env's arguments
    (``opponents``, ``learner_seat``, ``team``, ``seed``; ``illegal_action`` only as
    ``"raise"`` and ``render_mode`` only as None), ``reward_scale``, ``options={...}`` and the
    game's options as keywords; anything else is one line naming both kinds."""

    spec = game_spec(env_id)
    seat, game_options = split_seat_kwargs(env_id, kwargs, VECTOR_ARGUMENTS,
                                           f"{seat_env_id(spec)} (vector entry point)")
    illegal = seat.pop("illegal_action", "raise")
    if illegal != "raise":
        raise ValueError(
            f"illegal_action={short_repr(illegal)}: the vector entry point raises "
            "IllegalActionError for an illegal learner action and changes nothing (use the "
            "masks in info['action_mask']); pass illegal_action='raise' or leave it out, or use "
            "vectorization_mode='sync' for the seat env's 'terminate'")
    render_mode = seat.pop("render_mode", None)
    if render_mode is not None:
        raise ValueError(f"render_mode={short_repr(render_mode)}: the vector entry point does not "
                         "render; use vectorization_mode='sync' and render one env")
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{seat_env_id(spec)}: the vector entry point runs on the batched engine, which "
            "needs numba: pip install \"cahoots-envs[fast]\", or pass "
            "vectorization_mode=\"sync\" (or \"async\") for the reference seat env") from None
    return SeatVectorEnv(env_id, num_envs, game_options, **seat)
