"""The base class of every game's batched engine (``games/<game>/batched.py`` defines ``Engine``).
``cahoots_envs.vector.engine.engine_class`` loads the one a ``GameSpec`` names.

An engine plays ``num_envs`` games of one env in lockstep. It owns its output buffers, allocated
once in ``__init__`` and overwritten in place by ``reset`` and ``step``:

- ``to_move`` (``int64[N]``): the seat to move in each game (after any automatic re-deal);
- ``obs`` (``float32[N, obs_size]``): the observation of that seat, the AEC env's layout;
- ``mask`` (``int8[N, num_actions]``): its legal actions;
- ``rewards`` (``float32[N, num_players]``): this step's reward of every seat (the AEC env's
  ``RewardRule``: value after minus value before, ``reward_mode`` 'win' or 'points');
- ``done`` (``bool[N]``): the game finished during this call (and was dealt again);
- ``deal_rewards`` (``float32[N, num_players]``): what the deal itself paid in games dealt
  during this call (cahoots_coop in points mode), zero elsewhere;
- ``final_scores`` (``float64[K, num_players]``) and ``final_obs``
  (``float32[K, num_players, obs_size]``): the rulebook scores and every seat's final
  observation of the ``K = done.sum()`` games that finished, in increasing game index (views
  into buffers that ``final_buffers(k)`` grows on demand).

``reset(rng_state, deals)`` takes one ``uint64`` generator state per game (see
``numba_kernels.py``); the engine owns them from then on, so each game's later deals continue
its own stream.
``step(actions)`` gets ``int64[N]`` actions that the caller has already checked against
``mask``; a negative action (-1) leaves that game as it is: its ``to_move``, ``obs`` and
``mask`` rows keep their values, its ``rewards`` row is zero and ``done`` False (the batched seat
env moves only the games where an opponent is to move; ``tests/vector_checks.py`` skips games at
random to check it). ``game(i)`` rebuilds game ``i`` as a reference ``Game`` in the same state.

Every engine declares ``SEGMENTS``, the observation segments its kernels write, in layout order;
``__init__`` checks them against the game's observation layout (``spec.layout(options)``, the
reference encoder's) with ``check_layout``, so an engine left behind by a layout change is
refused with one line naming the segment, and hands the kernels the offsets
(``segment_offsets``, in ``SEGMENTS`` order).

The helpers here are plain Python (this module does not import numba); the kernels live in the
game's ``batched.py``, their shared helpers in ``numba_kernels.py``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import OBS_DTYPE, Layout
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.core.text import short_repr

DEAL_ERROR_SHOWN = 500  # characters of one deal's error kept in the message

# the output buffers: not counted as per-game state by ``memory_per_game``
OUTPUT_BUFFERS = ("to_move", "obs", "mask", "rewards", "done", "deal_rewards", "final_scores",
                  "final_obs", "_final_scores_buf", "_final_obs_buf")


def check_layout(layout: Layout, written: Sequence[str], engine: str) -> None:
    """Raise ``RuntimeError`` (one line, naming the segment) unless ``written``, the segments a
    batched engine writes in the order it writes them, are the segments of ``layout``, in order:
    a layout segment the engine does not write (missing), one it writes that the layout lacks
    (extra), or one it places elsewhere than the layout (misplaced: the offset the engine's order
    gives it against the layout's). ``engine`` names the engine in the message."""
    names = [seg.name for seg in layout.segments]
    fix = f"update {engine}.SEGMENTS and its kernels"
    for name in written:
        if written.count(name) > 1:
            raise RuntimeError(f"{engine} writes observation segment {name!r} twice; {fix}")
        if name not in layout.offsets:
            raise RuntimeError(f"{engine} writes observation segment {name!r}, which the "
                               f"{layout.env_id} layout lacks (extra); {fix}")
    for name in names:
        if name not in written:
            raise RuntimeError(f"the {layout.env_id} observation layout has segment {name!r}, "
                               f"which {engine} does not write (missing); {fix}")
    at = 0
    for name in written:
        if layout.offsets[name] != at:
            raise RuntimeError(f"{engine} writes observation segment {name!r} at offset {at}, "
                               f"the {layout.env_id} layout has it at {layout.offsets[name]} "
                               f"(misplaced); {fix}")
        at += layout.segment(name).size


def once_per_record(parse: Callable[[Mapping[str, Any]], Any],
                    ) -> Callable[[Mapping[str, Any]], Any]:
    """``parse`` (a deal parser) remembering its result per deal record, for one ``reset`` of a
    ``trusted`` engine, whose records stay alive and unchanged there: the worlds of one search
    decision share their earlier hands' records (``World.rollout_history``)."""
    seen: dict[int, Any] = {}

    def parse_once(deal: Mapping[str, Any]) -> Any:
        key = id(deal)
        if key not in seen:
            seen[key] = parse(deal)
        return seen[key]

    return parse_once


class BatchedEngine(abc.ABC):
    """``num_envs`` games of one env in lockstep (see the module docstring).

    ``options`` are the resolved game options (``spec.resolve_options``): ``num_players``,
    ``reward_mode`` and every game option. A subclass that does not support an option value
    raises ``ValueError`` naming it (``unsupported_option`` words it).

    A subclass sets ``SEGMENTS``: every observation segment its kernels write, in the layout's
    order (one the layout holds only under some options is left out by ``absent_segments``).
    ``__init__`` refuses a layout that differs (``check_layout``) and sets ``layout`` and
    ``segment_offsets``."""

    SEGMENTS: ClassVar[tuple[str, ...]]

    to_move: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    done: np.ndarray
    deal_rewards: np.ndarray
    final_scores: np.ndarray
    final_obs: np.ndarray

    def __init__(self, spec: GameSpec, options: dict[str, Any], num_envs: int) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {short_repr(num_envs)}")
        self.spec = spec
        self.rules: type[Game] = spec.rules
        self.options: dict[str, Any] = dict(options)
        self.num_envs = n = int(num_envs)
        self.num_players = p = int(options["num_players"])
        self.reward_mode: str = options["reward_mode"]
        self.points_sign = int(spec.rules.POINTS_SIGN)
        self.layout = spec.layout(options)
        self.obs_size = size = self.layout.size
        self.segment_offsets = self._check_segments()
        self.num_actions = int(spec.rules.num_actions(options))
        self.to_move = np.zeros(n, np.int64)
        self.obs = np.zeros((n, size), OBS_DTYPE)
        self.mask = np.zeros((n, self.num_actions), np.int8)
        self.rewards = np.zeros((n, p), np.float32)
        self.done = np.zeros(n, np.bool_)
        self.deal_rewards = np.zeros((n, p), np.float32)
        self._final_scores_buf = np.zeros((0, p), np.float64)
        self._final_obs_buf = np.zeros((0, p, size), OBS_DTYPE)
        self.final_scores = self._final_scores_buf
        self.final_obs = self._final_obs_buf
        # whether the engine holds games to play: set by a subclass's ``reset`` and by
        # ``copy_rows`` (an engine made for copies is never dealt); ``step`` refuses before
        self._dealt = False

    # ---- what a game implements ---------------------------------------------------------
    @abc.abstractmethod
    def reset(self, rng_state: np.ndarray, deals: list[Any] | None) -> None:
        """Deal every game anew: from ``deals[i]`` where given (validate them all first with
        ``check_deals``, before changing anything), else from game ``i``'s stream
        ``rng_state[i]`` (the engine keeps the array and advances it)."""

    @abc.abstractmethod
    def step(self, actions: np.ndarray) -> None:
        """Play ``actions[i]`` (legal, checked by the caller) in every game i; re-deal the games
        that finish. ``actions[i] < 0``: game i is skipped (rows unchanged, zero rewards, not
        done)."""

    @abc.abstractmethod
    def game(self, i: int) -> Game:
        """Game ``i`` as a reference ``Game`` object in the same state."""

    # ---- the observation layout ---------------------------------------------------------
    def absent_segments(self) -> frozenset[str]:
        """The segments of ``SEGMENTS`` that the layout does not hold under this engine's
        options (none by default; an engine whose layout drops a segment under some options,
        e.g. one that exists only with two or more players, overrides this)."""
        return frozenset()

    def _check_segments(self) -> tuple[int, ...]:
        """``check_layout`` on what this engine writes under its options; returns the layout
        offset of each of ``SEGMENTS`` in that order (-1 for an absent one)."""
        cls = type(self)
        engine = f"{cls.__module__}.{cls.__qualname__}"
        segments = getattr(cls, "SEGMENTS", None)
        if not isinstance(segments, tuple) or not all(isinstance(s, str) for s in segments):
            raise TypeError(f"{engine} must set SEGMENTS: the names of the observation segments "
                            f"it writes, in layout order (a tuple of str)")
        absent = self.absent_segments()
        check_layout(self.layout, [name for name in segments if name not in absent], engine)
        return tuple(-1 if name in absent else self.layout.offsets[name] for name in segments)

    # ---- helpers for subclasses ---------------------------------------------------------
    def unsupported_option(self, name: str, allowed: str) -> ValueError:
        """The error for an option value this engine does not play."""
        return ValueError(
            f"the batched engine of {self.spec.env_id} does not support {name}="
            f"{self.options.get(name)!r}; it supports {allowed} (the AEC env plays every value)"
        )

    def final_buffers(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``final_scores`` and ``final_obs`` set to views of ``k`` rows (contents left as they
        were) and returned; the buffers behind them grow (doubling) when ``k`` needs it."""
        if k > self._final_scores_buf.shape[0]:
            cap = max(k, min(max(2 * self._final_scores_buf.shape[0], 8), self.num_envs))
            self._final_scores_buf = np.zeros((cap, self.num_players), np.float64)
            self._final_obs_buf = np.zeros((cap, self.num_players, self.obs_size), OBS_DTYPE)
        self.final_scores = self._final_scores_buf[:k]
        self.final_obs = self._final_obs_buf[:k]
        return self.final_scores, self.final_obs

    #: set on an engine whose deals come from a trusted source (search's world sampler, whose
    #: worlds ``tests/search_checks.py`` checks): ``check_deals`` then checks the deals' shape
    #: but builds no reference game from them, and an engine may parse them by a faster path
    #: (``tests/test_search_engine.py`` compares the values rolled out from them with the
    #: reference path's)
    trusted: bool = False

    def check_deals(self, deals: Sequence[Any]) -> list[list[dict[str, Any]]]:
        """Validate ``num_envs`` scripted deals (each one dict, the first hand's deal, or a list
        of per-hand dicts, as the AEC env's ``reset(options={"deal": ...})`` takes) by building
        a reference game from each (not on a ``trusted`` engine); the first malformed one raises
        ``ValueError`` naming the game index. Returns each game's deal as a list of per-hand
        dicts."""
        n = self.num_envs
        if isinstance(deals, (str, bytes, Mapping)) or not isinstance(deals, Sequence):
            raise ValueError(  # noqa: TRY004 (a bad argument value: ValueError, as reset's)
                f"deals must be a list of {n} scripted deals (one per game), got "
                f"{short_repr(deals)}")
        if len(deals) != n:
            raise ValueError(f"deals must hold one scripted deal per game: {n}, got {len(deals)}")
        keys = set(self.rules.DEAL_KEYS)
        out: list[list[dict[str, Any]]] = []
        for i, deal in enumerate(deals):
            per_hand = [deal] if isinstance(deal, Mapping) else deal
            if not isinstance(per_hand, (list, tuple)) or not per_hand or not all(
                isinstance(d, Mapping) for d in per_hand
            ):
                raise ValueError(f"game {i}: a deal is a dict with keys {self.rules.DEAL_KEYS} or "
                                 f"a list of such dicts, one per hand; got {short_repr(deal)}")
            for k, one in enumerate(per_hand):
                extra = set(one) - keys
                if extra:
                    raise ValueError(f"game {i}: deal of hand {k + 1}: unknown deal key(s) "
                                     f"{sorted(extra)}; {self.rules.NAME} deals accept "
                                     f"{', '.join(self.rules.DEAL_KEYS)}")
            try:
                if not self.trusted:
                    self.new_game(deal)
            except ValueError as e:
                message = str(e)
                if len(message) > DEAL_ERROR_SHOWN:
                    message = message[:DEAL_ERROR_SHOWN] + " …"
                raise ValueError(f"game {i}: {message}") from None
            # a trusted engine's deals (the world sampler's) are kept as given: the worlds of
            # one decision may share records, which the engines parse once
            out.append(list(per_hand) if self.trusted else [dict(d) for d in per_hand])
        return out

    def new_game(self, deal: Any, seed: int = 0) -> Game:
        """A reference game dealt from ``deal`` (None: from a generator seeded ``seed``)."""
        return self.rules(self.options, np.random.default_rng(seed), deal)

    def replay(self, deal: Any, actions: Sequence[int]) -> Game:
        """A reference game dealt from ``deal`` (a whole-game deal: every hand played so far)
        with ``actions`` applied in order: the usual body of ``game(i)``."""
        game = self.new_game(deal)
        for a in actions:
            game.apply(int(a))
        return game

    # ---- rows for decision-time search (``cahoots_envs/search/engine.py``) ---------------
    #: the per-game state arrays (first axis: the game) beyond the output buffers, by
    #: attribute name: what ``copy_rows`` copies; ``STREAM`` names the one holding each game's
    #: generator state (``uint64[N]``)
    ROW_ARRAYS: ClassVar[tuple[str, ...]] = ()
    STREAM: ClassVar[str] = "rng_state"
    #: whether ``play_out``'s compiled twin reads the observation and mask rows it starts from
    #: (False: it writes whatever it reads, so search copies those rows only for the lockstep
    #: path, ``copy_observations``; an observation row is most of a game's bytes)
    PLAY_OUT_READS_OBSERVATIONS: ClassVar[bool] = True
    #: whether a game's stream can act before its hand ends (False: chance acts only in
    #: dealing a hand, so a search rollout, which stops at its hand's end, draws nothing from
    #: it, and search leaves the rollout rows' streams as copied)
    HAND_CHANCE: ClassVar[bool] = True

    def copy_rows(self, source: BatchedEngine, rows: np.ndarray,
                  observations: bool = True) -> None:
        """Games ``0..len(rows)-1`` of this engine become copies of games ``rows`` of
        ``source`` (an engine of the same class and options, reset before): every array of
        ``ROW_ARRAYS``, the ``to_move`` rows and (``observations``) the ``obs`` and ``mask``
        rows (else ``copy_observations`` copies them later); the other games are left as they
        are. An engine with per-game state outside those arrays overrides this. This engine
        need not have been reset (search's rollout engines are not: a reset writes every
        game's observation): the copied games can then be stepped, the others only skipped
        (action -1)."""
        if type(source) is not type(self):
            raise TypeError(f"copy_rows copies between engines of one class, got "
                            f"{type(source).__name__} into {type(self).__name__}")
        k = len(rows)
        for name in ("to_move", *self.ROW_ARRAYS):
            getattr(self, name)[:k] = getattr(source, name)[rows]
        self._dealt = True
        if observations:
            self.copy_observations(source, rows)

    def copy_observations(self, source: BatchedEngine, rows: np.ndarray) -> None:
        """The ``obs`` and ``mask`` rows of ``copy_rows``."""
        k = len(rows)
        self.obs[:k] = source.obs[rows]
        self.mask[:k] = source.mask[rows]

    #: whether ``deal_current`` is implemented (search's loader then replays the earlier hands
    #: that a decision's worlds share once, ``World.rollout_parts``)
    DEALS_CURRENT: ClassVar[bool] = False

    def deal_current(self, deals: Sequence[Mapping[str, Any]]) -> None:
        """Every game of this engine, each just dealt its current hand (no action taken in it
        since: a copy, ``copy_rows``, of a game loaded to that point), dealt ``deals[i]`` (a
        trusted engine's deal record, the hands given) instead, as if ``reset`` had been given
        that record for the hand: the cards, the record ``game(i)`` rebuilds, and the outputs
        (``to_move``, ``obs``, ``mask``) of the game just dealt. An engine that implements it
        sets ``DEALS_CURRENT``; ``tests/test_search_engine.py`` compares the games it leaves
        with games loaded whole. Not a way to change a game in play: a game not at the start of
        its hand raises ``ValueError``."""
        raise NotImplementedError(f"{self.spec.env_id}: this engine does not deal a current "
                                  f"hand anew")

    def check_deal_current(self, deals: Sequence[Any], fresh: np.ndarray, hand: str) -> None:
        """What every ``deal_current`` checks first: one deal per game, and every game just
        dealt (``fresh[i]``: no action taken in its current ``hand``, the game's word for one)."""
        if len(deals) != self.num_envs:
            raise ValueError(f"deal_current deals every game: {self.num_envs} deals, got "
                             f"{len(deals)}")
        if not fresh.all():
            raise ValueError(f"game {int(np.flatnonzero(~fresh)[0])} is not at the start of its "
                             f"{hand} (deal_current deals games just dealt)")

    def step_histories(self, history: np.ndarray) -> None:
        """``step(history[t])`` for every ``t`` in order (``int64[T, N]``, -1 where a game's
        history is shorter), for games that none of it ends: how search loads its worlds. An
        engine may override it with one kernel call; the outputs are then those of the last
        step, but ``rewards`` are zero (what the steps paid is not kept)."""
        for t in range(len(history)):
            self.step(history[t])

    def streams(self) -> np.ndarray:
        """Every game's generator state (``uint64[N]``, the engine's own array: writing it
        changes the chance events still to come)."""
        return getattr(self, self.STREAM)  # type: ignore[no-any-return]

    def hands_dealt(self) -> np.ndarray:
        """Per game, the hands (rounds) dealt so far in its episode, ``len(game.deals)`` of the
        reference game (a one-hand game: 1 for every game)."""
        return np.ones(self.num_envs, np.int64)

    def boundary_state(self, i: int, start: Game) -> Any:
        """Game ``i`` just after a hand ended with the game going on, as an object holding what
        the game's world sampler's ``value`` reads there (the reference game's attributes of
        those names); ``start`` is the game that game ``i`` was loaded from, earlier in the same
        hand. A one-hand game never stops there (the default raises)."""
        raise NotImplementedError(f"{self.spec.env_id}: a hand ends only with the game")

    def boundary_values(self, rows: np.ndarray, seats: np.ndarray, starts: Sequence[Game],
                        value: Callable[[Any, int], float]) -> np.ndarray:
        """``value(boundary_state(rows[k], starts[k]), seats[k])`` for every ``k`` (rows whose
        hand just ended, the game going on; ``value`` is the world sampler's). An engine may
        compute them from its arrays in one kernel call, the same formula as ``value``
        (``tests/test_search_engine.py`` compares the values)."""
        return np.array([float(value(self.boundary_state(int(r), start), int(seat)))
                         for r, seat, start in zip(rows, seats, starts)])

    def play_out(self, policy: Any, actions: np.ndarray, seats: np.ndarray,
                 value: Callable[[Any, int], float], starts: Sequence[Game],
                 ) -> np.ndarray | None:
        """Games ``0..len(actions)-1`` play ``actions[i]``, then ``policy``'s moves for every
        seat until the hand ends (the value there: ``value`` of the boundary, for seat
        ``seats[i]``, as ``boundary_values`` gives it with ``starts[i]``) or the game ends (its
        final reward for that seat): per game that value,
        in one kernel call where the engine has a compiled twin of ``policy`` (its compiled
        bot) and of ``value``, else None (the caller steps in lockstep, ``policy.act_batch``
        a ply). The games are left as they end, not dealt again: for search's rollout rows,
        which ``copy_rows`` overwrites before the next use."""
        return None

    def replay_problem(self) -> str | None:
        """None when replaying a world's deals and actions (``reset(deals=...)`` then ``step``)
        rebuilds its state exactly; else why not (chance after the deal that a replay draws
        anew), for search to roll out on the reference game instead."""
        return None

    def memory_per_game(self) -> float:
        """Bytes of game state per game beyond the output buffers: the numpy arrays this engine
        holds (an engine with other per-game state, such as Python lists, overrides this)."""
        total = sum(v.nbytes for k, v in vars(self).items()
                    if isinstance(v, np.ndarray) and k not in OUTPUT_BUFFERS)
        return total / self.num_envs

