"""``cahoots_envs.vector``: thousands of games of one env in lockstep (the batched engine).

>>> import numpy as np
>>> from cahoots_envs import vector
>>> vec = vector.make("kansas_city-v1", num_envs=1024, seed=0, num_players=4)
>>> out = vec.reset()
>>> actions = vector.random_legal_actions(out.mask, np.random.default_rng(0))
>>> out = vec.step(actions)       # out.to_move, out.obs, out.mask, out.rewards, out.terminated

Every call returns a ``VectorStep`` whose arrays are the engine's own buffers, overwritten in
place by the next ``reset`` or ``step``: copy what you keep (``out.obs.copy()``). Observations,
masks, rewards and options are the AEC env's (``cahoots_envs.make``); finished games are dealt
again at once, and the step names them (``finished``) with their final scores and every seat's
final observation. An illegal, out-of-range or malformed action raises ``IllegalActionError``
naming the game and the action, and changes nothing.

Dealing is the engine's own: game ``i`` draws from its own SplitMix64 stream, seeded from
``seed`` (``core.numba_kernels.seed_states``), so game ``i`` of a seeded batch is the same
whatever ``num_envs`` is, and its later deals continue its own stream. ``reset(deals=...)``
plays scripted deals in the AEC env's format. ``game(i)`` rebuilds game ``i`` as a reference
game object for rendering and debugging. Needs numba: ``pip install "cahoots-envs[fast]"``;
``import cahoots_envs`` and the AEC envs never import it. See ``docs/vector.md``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from cahoots_envs.core.game import Game, describe_actions
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.text import short_repr
from cahoots_envs.errors import EnvNotResetError, IllegalActionError, NotAvailableError

FAST_EXTRA = 'pip install "cahoots-envs[fast]"'
# the first compile of one game's kernels (reset and step), measured on a shared 2-core machine
# (see docs/vector.md); a warm on-disk cache loads them in about a second
COMPILE_TIME = "10-20 s on a 2-core machine"

__all__ = ["FAST_EXTRA", "VectorGames", "VectorStep", "action_ids", "compile_notice", "make",
           "random_legal_actions"]

log = logging.getLogger(__name__)
_compile_announced: set[str] = set()  # 'logger:game' of each compile this process announced


@dataclass(frozen=True)
class VectorStep:
    """What ``reset`` and ``step`` return. The arrays are the engine's buffers (reused in
    place: copy before the next call), except ``finished``, which is new each call.

    - ``to_move`` ``int64[N]``: the seat to move in each game (after any re-deal);
    - ``obs`` ``float32[N, obs_size]`` and ``mask`` ``int8[N, num_actions]``: that seat's
      observation and legal actions;
    - ``rewards`` ``float32[N, num_players]``: every seat's reward for this step (the AEC
      env's, ``reward_mode`` 'win' or 'points'; at reset, zero except for a game over at its
      deal);
    - ``terminated`` ``bool[N]`` (also ``done``): the game finished in this call, and was dealt
      again;
    - ``deal_rewards`` ``float32[N, num_players]``: what the deal itself paid in games dealt in
      this call (cahoots_coop's goals met at setup, points mode), zero elsewhere: the new
      episode's first rewards;
    - ``finished`` ``int64[K]``: the indices of the finished games, increasing;
      ``final_scores`` ``float64[K, num_players]`` their rulebook scores and ``final_obs``
      ``float32[K, num_players, obs_size]`` every seat's final observation, row by row."""

    to_move: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    deal_rewards: np.ndarray
    finished: np.ndarray
    final_scores: np.ndarray
    final_obs: np.ndarray

    @property
    def done(self) -> np.ndarray:
        """The same array as ``terminated``."""
        return self.terminated


def _require_numba() -> None:
    try:
        import numba  # noqa: F401
    except ImportError:
        raise ImportError(f"cahoots_envs.vector needs numba, which is not installed: "
                          f"{FAST_EXTRA}") from None


def make(env_id: str, num_envs: int, seed: int | None = None, **options: Any) -> VectorGames:
    """``num_envs`` games of ``env_id`` in lockstep, with the game options of
    ``cahoots_envs.make`` (``num_players``, ``reward_mode``, ...). ``seed`` seeds the first
    ``reset()`` (None: fresh entropy). A game without a batched engine raises
    ``NotAvailableError``; without numba, ``ImportError`` naming the ``fast`` extra."""
    from cahoots_envs.registry import game_spec, registered_games

    spec = game_spec(env_id)
    try:
        spec.require("batched")
    except NotAvailableError as e:
        ready = [s.name for s in registered_games() if s.has("batched")]
        raise NotAvailableError(
            f"{e} (no batched engine); cahoots_envs.vector plays "
            f"{', '.join(ready) or 'no registered game'}, cahoots_envs.make any game's AEC "
            "env") from None
    _require_numba()
    if "render_mode" in options:
        raise ValueError("cahoots_envs.vector.make takes game options only; render game i "
                         "with vec.game(i).render()")
    return VectorGames(spec, num_envs, seed, options)


def action_ids(actions: Any, num_envs: int, where: str) -> np.ndarray:
    """``actions`` as ``int64[num_envs]``, one action id per game: what every batched step
    takes (``VectorGames``, ``SeatVecEnv``, ``BatchedSeatVecEnv``), an integer array (or a
    list of ints) of shape ``(num_envs,)``, bools excepted. Anything else (floats, strings,
    bools, another shape) raises ``IllegalActionError`` naming ``where`` and what is accepted;
    the range is not checked."""
    try:
        arr = np.asarray(actions)
    except (ValueError, TypeError):  # a ragged list
        arr = None
    if (arr is None or arr.shape != (num_envs,) or arr.dtype == np.bool_
            or not np.issubdtype(arr.dtype, np.integer)):
        got = (f"{type(actions).__name__} {short_repr(actions)}" if arr is None else
               f"dtype {arr.dtype} shape {arr.shape}")
        raise IllegalActionError(
            f"{where}: step takes an int array of shape ({num_envs},), one action id per game "
            f"(not bools, floats or strings); got {got}; no game changed")
    return arr.astype(np.int64, copy=False)


@contextlib.contextmanager
def compile_notice(game: str, active: bool = True, *, part: str = "batched kernels",
                   duration: str = COMPILE_TIME, logger: logging.Logger = log) -> Iterator[None]:
    """While active, numba's first compile (numba's ``numba:compile`` event: a kernel neither
    compiled in this process nor in numba's on-disk cache) logs a warning on ``logger`` that
    ``game``'s ``part`` are compiling and about how long that takes (``duration``); once per
    logger, game and process. Wraps the first ``reset`` and ``step`` of each batch, where the
    kernels compile (``active``: False afterwards), and a search bot's first searches
    (``cahoots_envs.search``: its loader, rollout and sampler kernels)."""
    key = f"{logger.name}:{game}"
    if not active or key in _compile_announced:
        yield
        return
    from numba.core import event

    class Notice(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            if key not in _compile_announced:
                _compile_announced.add(key)
                logger.warning("%s: compiling the %s of %s with numba, %s; once: numba caches "
                               "them on disk", logger.name, part, game, duration)

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Notice()):
        yield


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``[N, A]``, 0/1, each row with a
    legal action), with one random number per row: the k-th legal entry of each row, k uniform
    below the row's count (found among the positions of every legal entry, not with N x A
    random numbers)."""
    m = np.asarray(mask)
    if m.ndim != 2:
        raise ValueError(f"mask must be a 2-d array [games, actions], got shape {m.shape}")
    n, width = m.shape
    legal = (np.ascontiguousarray(m).view(np.bool_) if m.dtype.itemsize == 1 and
             m.dtype.kind in "biu" else m != 0)
    flat = np.flatnonzero(legal)
    starts = np.searchsorted(flat, np.arange(n + 1) * width)
    counts = np.diff(starts)
    if n and counts.min() == 0:
        raise ValueError(f"row {int(np.argmin(counts))} of the mask has no legal action")
    k = (rng.random(n) * counts).astype(np.int64)
    return flat[starts[:-1] + k] - np.arange(n) * width


class VectorGames:
    """``num_envs`` games of one env in lockstep (see the module docstring); build it with
    ``cahoots_envs.vector.make``."""

    def __init__(self, spec: GameSpec, num_envs: int, seed: int | None,
                 options: dict[str, Any]) -> None:
        from cahoots_envs.core.numba_kernels import seed_states
        from cahoots_envs.vector.engine import engine_class

        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {short_repr(num_envs)}")
        self.spec = spec
        self.env_id = spec.env_id
        self.options: dict[str, Any] = spec.resolve_options(options)
        self._seed_states = seed_states
        seed_states(seed, 0)  # a bad seed fails here, not at the first reset
        self._seed = seed
        self.engine = engine_class(spec)(spec, dict(self.options), int(num_envs))
        e = self.engine
        self.num_envs: int = e.num_envs
        self.num_players: int = e.num_players
        self.num_actions: int = e.num_actions
        self.obs_size: int = e.obs_size
        low, high = spec.layout(self.options).bounds()
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(low=low, high=high, dtype=OBS_DTYPE),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(self.num_actions)
        self._rng_state: np.ndarray | None = None
        self._rows = np.arange(self.num_envs)
        self._watch_compile = True  # until the first step: compile_notice

    @functools.cached_property
    def observation_space(self) -> spaces.Dict:
        """The whole batch's observation space (built on first use: its bounds are two arrays
        the size of the observation buffer)."""
        box = self.single_observation_space["observation"]
        assert isinstance(box, spaces.Box)
        n = self.num_envs
        return spaces.Dict({
            "observation": spaces.Box(low=np.broadcast_to(box.low, (n, self.obs_size)),
                                      high=np.broadcast_to(box.high, (n, self.obs_size)),
                                      dtype=OBS_DTYPE),
            "action_mask": spaces.Box(0, 1, (n, self.num_actions), dtype=np.int8),
        })

    @functools.cached_property
    def action_space(self) -> spaces.MultiDiscrete:
        """The whole batch's action space: one action id per game."""
        return spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions))

    def __repr__(self) -> str:
        return f"VectorGames({self.env_id!r}, num_envs={self.num_envs}, options={self.options})"

    # ---- lifecycle ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, deals: list[Any] | None = None) -> VectorStep:
        """Deal every game anew. ``seed``: restart every game's stream from it; None: the
        ``make`` seed at the first reset, afterwards each game continues its own stream.
        ``deals``: ``num_envs`` scripted deals in the AEC env's ``reset(options={"deal": ...})``
        format (one dict, or a list of per-hand dicts for every hand of a multi-hand game); a
        malformed one raises ``ValueError`` naming the game, and changes nothing."""
        if seed is not None:
            state = self._seed_states(seed, self.num_envs)
        elif self._rng_state is None:
            state = self._seed_states(self._seed, self.num_envs)
        else:
            state = self._rng_state
        with compile_notice(self.spec.name, self._watch_compile):
            self.engine.reset(state, deals)  # checks every deal before it changes anything
        self._rng_state = state
        return self._result()

    def step(self, actions: Any) -> VectorStep:
        """Play ``actions[i]`` (an int array of shape ``[num_envs]``) in every game i. Any
        action that is not legal for the seat to move raises ``IllegalActionError`` naming the
        game index and the action; no game changes then."""
        if self._rng_state is None:
            raise EnvNotResetError(f"{self.env_id}: call reset() before step()")
        acts = self._check(actions)
        with compile_notice(self.spec.name, self._watch_compile):
            self.engine.step(acts)
        self._watch_compile = False  # the kernels are compiled (or loaded) by now
        return self._result()

    def _check(self, actions: Any) -> np.ndarray:
        n, a = self.num_envs, self.num_actions
        acts = action_ids(actions, n, self.env_id)
        in_range = (acts >= 0) & (acts < a)
        if in_range.all():
            legal = self.engine.mask[self._rows, acts] != 0
        else:
            legal = np.zeros(n, np.bool_)
            legal[in_range] = self.engine.mask[self._rows[in_range], acts[in_range]] != 0
        if not legal.all():
            bad = np.flatnonzero(~legal)
            i, act = int(bad[0]), int(acts[bad[0]])
            more = f" (and {bad.size - 1} other games)" if bad.size > 1 else ""
            if not in_range[i]:
                what = f"action {act} (out of range 0..{a - 1})"
            else:
                what = f"action {act} ({self.engine.game(i).action_to_str(act)!r})"
            moves = np.flatnonzero(self.engine.mask[i]).tolist()
            seat = int(self.engine.to_move[i])
            raise IllegalActionError(
                f"{self.env_id}: game {i}: seat {seat} cannot play {what}{more}; no game "
                f"changed; legal: {describe_actions(self.engine.game(i), moves)}")
        return acts if acts.flags.c_contiguous else np.ascontiguousarray(acts)

    def _result(self) -> VectorStep:
        e = self.engine
        return VectorStep(e.to_move, e.obs, e.mask, e.rewards, e.done, e.deal_rewards,
                          np.flatnonzero(e.done), e.final_scores, e.final_obs)

    # ---- one game ------------------------------------------------------------------------
    def _index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise IndexError(f"{self.env_id}: game index {short_repr(i)} is not in "
                             f"0..{self.num_envs - 1}")
        if self._rng_state is None:
            raise EnvNotResetError(f"{self.env_id}: call reset() before game(i)")
        return int(i)

    def game(self, i: int) -> Game:
        """Game ``i`` as a reference game object in the same state (a copy: changing it
        changes nothing here), for ``render()``, logs and debugging."""
        return self.engine.game(self._index(i))

    def render(self, i: int) -> str:
        """Game ``i``'s spectator table."""
        return self.game(i).render()

    def action_to_str(self, i: int, action: Any) -> str:
        """The notation of action id ``action`` in game ``i`` now."""
        game = self.game(i)
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(
            action, (bool, np.bool_)) else None
        if a is None or not 0 <= a < self.num_actions:
            raise ValueError(f"{self.env_id}: {short_repr(action)} is not an action id "
                             f"0..{self.num_actions - 1}")
        return game.action_to_str(a)

    def memory_per_game(self) -> float:
        """Bytes of engine state per game beyond the observation and mask buffers."""
        return self.engine.memory_per_game()
