"""Search rollouts on the batched engine: every sampled world times every candidate move, played
out together in one engine (``cahoots_envs/core/batched.py``).

``EngineRollouts.values(worlds, first, legal, seat, seed, policy)`` gives the same numbers the
reference path's ``SearchPolicy._rollout`` gives world by world and move by move (the value of
``seat`` at the end of the current hand), for a chunk of worlds at once; ``values_many`` does
it for the chunks of several decisions (``Job``s, from any games) in one batch (labelling,
``label.py``):

1. **Loading.** A loader engine with one game per world is dealt each world's deals and
   replays its actions (``world.rollout_history()``: the world's own, or a cheaper history to
   the same state as far as a rollout reads it; ``reset(deals=...)``, the loader being
   ``trusted``: the sampler's deals are not rebuilt as reference games to check them; then
   ``step_histories``: one kernel call where the engine has one, -1 for the worlds whose
   history is shorter). Where the worlds share their earlier hands (``World.rollout_parts``)
   and the engine deals a current hand anew (``deal_current``), those hands are replayed once
   per set of worlds sharing them, each copy then dealt its world's current hand and played
   on from there.
   Replaying was chosen over packing a ``Game`` into a row: it is one generic path for every
   engine (docs/search.md). Each replayed world must have ``seat`` to move with exactly its
   legal moves (else ``RuntimeError``: a broken loader).
2. **Rows.** A rollout engine gets ``len(worlds) * len(legal)`` games, world-major: the rows of
   world ``k`` are copies of loader game ``k`` (``copy_rows``), all with world ``k``'s own
   chance stream (``world_stream(seed, first + k)``): the candidate moves of one world meet the
   same chance events (common random numbers), as on the reference path. An engine whose
   chance acts only in dealing a hand (``HAND_CHANCE = False``) draws nothing in a rollout; its
   rows keep the streams they were copied with.
3. **Rollouts.** Each row plays its candidate move, then the policy plays every seat until the
   row's hand ends (``hands_dealt`` changes) or its game ends: in one kernel call where the
   engine has a compiled twin of the policy (``play_out``), else in lockstep, ``act_batch``
   deciding every row still going at once (one compiled call for a heuristic bot that has one,
   one forward pass for a network; a row with one legal move takes it without asking).
4. **Values.** With value leaves (``leaf``: the search's setting), a row that reaches its
   seat's ``leaf``-th turn after its candidate move stops there and scores the ``valuer``'s
   ``values`` of the seat's observation (rows roll out in lockstep then). A row whose game
   ended scores its final reward (the engine plays
   ``reward_mode='win'``, whose last reward is ``outcome()``; a float32, so equal to the
   reference value to about 1e-7); a row whose hand ended scores the world sampler's ``value``
   there (``boundary_values``: from the engine's arrays in a kernel, or ``value`` on
   ``boundary_state``).

``engine_problem(spec, options)`` says why a game or option set cannot search on the engine
(no engine, numba missing, an option the engine does not play, or chance after the deal that a
replay cannot repeat); ``SearchPolicy`` then rolls out on the reference game.

A game whose engine plays an option's game without some of its decisions may say so in its
world sampler: ``engine_options(options)`` gives the options the engine rolls out under and
``engine_actions(actions)`` a world's actions as that engine replays them (the cooperative game's
table talk: its rollouts on the engine are silent, docs/search.md). ``rollout_options`` applies
the first.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from cahoots_envs.core.batched import BatchedEngine
from cahoots_envs.core.search import RolloutParts, World
from cahoots_envs.core.spec import GameSpec

# rows (worlds x moves) of one lockstep chunk; the clock is read between chunks
CHUNK_ROWS = 512
MIN_ROWS = 16  # the smallest rollout engine (sizes are powers of two: few engines per bot)
MAX_LOADERS = 16  # loader engines kept (one per world count)


class Job(NamedTuple):
    """One decision's chunk of worlds for ``EngineRollouts.values_many``: worlds number
    ``first``, ``first + 1``, ... of the decision seeded ``seed``, where ``seat`` is to move
    with the moves ``legal``."""

    worlds: Sequence[World]
    first: int
    legal: Sequence[int]
    seat: int
    seed: int


def win_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options an engine for search plays: the game's, with ``reward_mode='win'`` (the
    observation does not depend on it; a finished row's last reward is then its outcome)."""
    return {**options, "reward_mode": "win"}


def rollout_options(sampler: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options ``sampler``'s game rolls out under on its engine: ``options``, or what the
    sampler's ``engine_options`` maps them to (module docstring)."""
    mapped = getattr(sampler, "engine_options", None)
    return dict(options) if mapped is None else dict(mapped(options))


def engine_problem(spec: GameSpec, options: Mapping[str, Any]) -> str | None:
    """None when ``spec``'s game with ``options`` can roll out on its batched engine, else why
    not, in a few words."""
    if not spec.has("batched"):
        return f"{spec.name} has no batched engine"
    try:
        import numba  # noqa: F401
    except ImportError:
        return 'numba is not installed (pip install "cahoots-envs[fast]")'
    from cahoots_envs.vector.engine import engine_class

    try:
        engine = engine_class(spec)(spec, win_options(options), 1)
    except ValueError as e:
        return str(e)
    return engine.replay_problem()


def _padded(histories: Sequence[Sequence[int]]) -> np.ndarray:
    """Actions for ``step_histories``: ``out[t, k]`` is ``histories[k][t]``, -1 after it."""
    out = np.full((max(map(len, histories), default=0), len(histories)), -1, np.int64)
    for k, actions in enumerate(histories):
        out[: len(actions), k] = actions
    return out


def world_stream(seed: int, k: int) -> np.uint64:
    """The engine generator state of world ``k`` of the decision seeded ``seed``."""
    return np.random.default_rng([seed, k, 1]).integers(2**63, dtype=np.uint64)


class _Starts(Sequence[Any]):
    """The game of the world behind each rollout row (``worlds[source[i]].game``), got only
    when asked for: a sampler may make its worlds' games on first access (``LazyWorld``), and
    a compiled ``play_out`` and its boundary values read none of them."""

    def __init__(self, worlds: Sequence[World], source: np.ndarray) -> None:
        self.worlds = worlds
        self.source = source.tolist()

    def __len__(self) -> int:
        return len(self.source)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.worlds[k].game for k in self.source[i]]
        return self.worlds[self.source[i]].game

    def __iter__(self) -> Iterator[Any]:
        return (self.worlds[k].game for k in self.source)


class EngineRollouts:
    """Rollouts of ``spec``'s game with resolved ``options`` on its batched engine, scored with
    ``sampler.value`` (the game's world sampler). Engines are built on first use and kept (a
    loader per world count, a rollout engine per power-of-two size)."""

    def __init__(self, spec: GameSpec, options: Mapping[str, Any], sampler: Any, *,
                 leaf: int = 0, valuer: Any = None) -> None:
        from cahoots_envs.vector.engine import engine_class

        options = rollout_options(sampler, options)
        problem = engine_problem(spec, options)
        if problem is not None:
            raise ValueError(problem)
        self.spec = spec
        self.options = win_options(options)
        self.sampler = sampler
        # value leaves (the search's ``leaf`` setting): a row stops at its seat's leaf-th turn
        # after its candidate move, scored by ``valuer.values`` on the seat's observation there
        self.leaf = int(leaf)
        self.valuer = valuer
        if self.leaf and not callable(getattr(valuer, "values", None)):
            raise ValueError("value leaves need a policy with values(observations)")
        self._actions = getattr(sampler, "engine_actions", None)  # a world's replayed actions
        self.cls = engine_class(spec)
        self._loaders: dict[int, BatchedEngine] = {}
        self._bases: dict[int, BatchedEngine] = {}  # games at the start of a current hand
        self._engines: dict[int, BatchedEngine] = {}

    # ---- engines ----------------------------------------------------------------------------
    def _rollout_engine(self, rows: int) -> BatchedEngine:
        """The rollout engine for ``rows`` rows: never dealt, its games copied in
        (``copy_rows``), the ones past ``rows`` skipped."""
        size = max(MIN_ROWS, 1 << (rows - 1).bit_length())
        if size not in self._engines:
            self._engines[size] = self.cls(self.spec, dict(self.options), size)
        return self._engines[size]

    def load(self, worlds: Sequence[World]) -> BatchedEngine:
        """A loader engine whose game ``k`` is world ``k`` (its deals replayed with its
        actions): where every world splits its history (``World.rollout_parts``) and the
        engine deals a current hand anew (``deal_current``), the earlier hands once per set
        of worlds that share them (``_load_parts``), else every world's whole history."""
        if self.cls.DEALS_CURRENT and self._actions is None:
            parts = [world.rollout_parts() for world in worlds]
            if all(part is not None for part in parts):
                return self._load_parts(parts)  # type: ignore[arg-type]
        engine, _ = self._load(worlds, None)
        return engine

    def _loader(self, size: int, kept: dict[int, BatchedEngine]) -> BatchedEngine:
        """The trusted engine of ``size`` games kept in ``kept`` (made on first use)."""
        loader = kept.get(size)
        if loader is None:
            if len(kept) >= MAX_LOADERS:  # labelling asks for many sizes
                kept.clear()
            loader = kept[size] = self.cls(self.spec, dict(self.options), size)
            loader.trusted = True  # the sampler's deals: no reference game built to check them
        return loader

    def _load_parts(self, parts: Sequence[RolloutParts]) -> BatchedEngine:
        """``load`` from the worlds' split histories: one game per distinct ``earlier`` (the
        same list objects) dealt and replayed to the start of the current hand, copied into one
        game per world, which ``deal_current`` deals that world's current hand and
        ``step_histories`` plays its actions in (the same games as replaying each world whole:
        tests/test_search_engine.py)."""
        from cahoots_envs.core.numba_kernels import seed_states

        games: dict[tuple[int, int], int] = {}  # the earlier hands' objects -> their game
        heads: list[RolloutParts] = []  # per game, the first world's parts
        group = np.empty(len(parts), np.int64)
        for k, part in enumerate(parts):
            deals, actions = part.earlier
            key = (id(deals), id(actions))
            g = games.get(key)
            if g is None:
                g = games[key] = len(heads)
                heads.append(part)
            group[k] = g
        base = self._loader(len(heads), self._bases)
        base.reset(seed_states(0, len(heads)), [[*part.earlier[0], part.deal] for part in heads])
        base.step_histories(_padded([part.earlier[1] for part in heads]))
        loader = self._loader(len(parts), self._loaders)
        loader.copy_rows(base, group, observations=False)
        loader.deal_current([part.deal for part in parts])
        loader.step_histories(_padded([part.actions for part in parts]))
        return loader

    def _load(self, worlds: Sequence[World], upto: int | None,
              ) -> tuple[BatchedEngine, np.ndarray]:
        """``load`` with only each world's first ``upto`` actions replayed (None: all), and
        every world's actions as replayed (``int64[T, len(worlds)]``, -1 after a shorter
        history), all of them."""
        from cahoots_envs.core.numba_kernels import seed_states

        w = len(worlds)
        loader = self._loader(w, self._loaders)
        histories = [world.rollout_history() for world in worlds]
        loader.reset(seed_states(0, w), [deals for deals, _ in histories])
        history = _padded([actions if self._actions is None else self._actions(actions)
                           for _, actions in histories])
        loader.step_histories(history if upto is None else history[:upto])
        return loader, history

    def log_likelihoods(self, worlds: Sequence[World], seat: int, start: int, policy: Any,
                        scale: float = 1.0) -> np.ndarray:
        """Per world: the log-probability of the other seats' moves in its actions from
        ``start`` on (the current hand: the sampler's ``hand_start``), each under ``policy``'s
        softmax of ``scale`` times its logits over the legal moves, at the observation that seat
        had there in the world as the engine loads it (``rollout_history``: where the hidden
        order of events is drawn anew for it, that order; the others' moves before ``start``
        are the same in every world of a decision and the seat's own carry no weight).
        ``policy`` has ``logits(observations)`` (a network); every row of every step goes
        through one forward pass."""
        loader, history = self._load(worlds, start)
        w = len(worlds)
        rows_at, obs_at, masks_at, moves_at = [], [], [], []
        for t in range(start, len(history)):
            moves = history[t]
            rows = np.flatnonzero((moves >= 0) & (loader.to_move[:w] != seat))
            if rows.size:
                rows_at.append(rows)
                obs_at.append(loader.obs[rows])
                masks_at.append(loader.mask[rows])
                moves_at.append(moves[rows])
            loader.step(moves)
        out = np.zeros(w)
        if not rows_at:
            return out
        rows = np.concatenate(rows_at)
        logits = scale * np.asarray(policy.logits(np.concatenate(obs_at)), np.float64)
        logits[np.concatenate(masks_at) == 0] = -np.inf
        top = logits.max(axis=1, keepdims=True)
        log_sum = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
        moves = np.concatenate(moves_at)
        np.add.at(out, rows, logits[np.arange(len(rows)), moves] - log_sum)
        return out

    # ---- rollouts ---------------------------------------------------------------------------
    def values(self, worlds: Sequence[World], first: int, legal: Sequence[int], seat: int,
               seed: int, policy: Any) -> np.ndarray:
        """``values[k, i]``: ``seat``'s value after move ``legal[i]`` in world ``worlds[k]``
        (world number ``first + k`` of the decision seeded ``seed``) with ``policy`` playing
        every seat to the end of the hand (``policy.act_batch``)."""
        return self.values_many([Job(worlds, first, legal, seat, seed)], policy)[0]

    def values_many(self, jobs: Sequence[Job], policy: Any) -> list[np.ndarray]:
        """``values`` of several decisions (one ``Job`` each, from any games) rolled out
        together: one loader, one rollout engine, one ``act_batch`` a ply for all their rows.
        A row's value does not depend on the other rows (its world's own chance stream), except
        through a blueprint that breaks ties with one generator for the whole batch."""
        worlds = [world for job in jobs for world in job.worlds]
        loader = self.load(worlds)
        counts = loader.mask[: len(worlds)].sum(axis=1).tolist()  # each world's legal moves
        sources, firsts, seats, streams = [], [], [], []
        k = 0
        for job in jobs:
            w, m = len(job.worlds), len(job.legal)
            moves = np.asarray(job.legal, np.int64)
            fits = (loader.to_move[k : k + w] == job.seat) & \
                loader.mask[k : k + w, moves].all(axis=1)
            for j in range(w):
                if not fits[j] or counts[k + j] != m and \
                        counts[k + j] != len(job.worlds[j].game.legal_actions()):
                    raise RuntimeError(f"{self.spec.env_id}: world {job.first + j} did not "
                                       f"replay to seat {job.seat}'s decision with its {m} "
                                       f"legal moves")
                if self.cls.HAND_CHANCE:
                    streams.append(world_stream(job.seed, job.first + j))
            sources.append(np.repeat(np.arange(k, k + w), m))
            firsts.append(np.tile(moves, w))
            seats.append(np.full(w * m, job.seat, np.int64))
            k += w
        source = np.concatenate(sources)
        seat = np.concatenate(seats)
        rows = len(source)
        engine = self._rollout_engine(rows)
        lazy = not engine.PLAY_OUT_READS_OBSERVATIONS  # copied below if play_out declines
        engine.copy_rows(loader, source, observations=not lazy)
        if self.cls.HAND_CHANCE:
            engine.streams()[:rows] = np.array(streams, np.uint64)[source]
        actions = np.full(engine.num_envs, -1, np.int64)
        actions[:rows] = np.concatenate(firsts)
        value = self.sampler.value
        start = engine.hands_dealt()[:rows].copy()
        starts = _Starts(worlds, source)  # a world's game only where asked for (boundaries)
        # a policy with ``act_seated`` plays the searching seat and the others differently
        # (``label.SeatedRoller``): it needs the lockstep, which tells it whose turn each row is
        seated = getattr(policy, "act_seated", None)
        played = None if self.leaf or seated is not None else \
            engine.play_out(policy, actions[:rows], seat, value, starts)  # None: lockstep
        if played is None and lazy:
            engine.copy_observations(loader, source)
        out = np.zeros(rows) if played is None else played
        live = np.full(rows, played is None, np.bool_)
        turns = np.zeros(rows, np.int64)  # the seat's turns since its candidate move
        while live.any():
            engine.step(actions)
            over = np.flatnonzero(live & engine.done[:rows])
            out[over] = engine.rewards[over, seat[over]]
            live[over] = False
            ended = np.flatnonzero(live & (engine.hands_dealt()[:rows] != start))
            if ended.size:
                out[ended] = engine.boundary_values(ended, seat[ended],
                                                    _Starts(worlds, source[ended]), value)
            live[ended] = False
            if self.leaf:
                at_seat = live & (engine.to_move[:rows] == seat)
                turns += at_seat
                leaves = np.flatnonzero(at_seat & (turns >= self.leaf))
                if leaves.size:
                    out[leaves] = self.valuer.values(engine.obs[leaves])
                    live[leaves] = False
            going = np.flatnonzero(live)
            if not going.size:
                break
            actions[:] = -1
            masks = engine.mask[going]
            legal = masks.sum(axis=1)
            forced = legal == 1  # one legal move: taken without asking the policy
            actions[going[forced]] = masks[forced].argmax(axis=1)
            ask = going[~forced]
            if ask.size and seated is not None:
                actions[ask] = seated(engine.obs[ask], masks[~forced],
                                      engine.to_move[ask] == seat[ask])
            elif ask.size:
                actions[ask] = policy.act_batch(engine.obs[ask], masks[~forced])
        results, at = [], 0
        for job in jobs:
            size = len(job.worlds) * len(job.legal)
            results.append(out[at : at + size].reshape(len(job.worlds), len(job.legal)))
            at += size
        return results
