"""``SearchPolicy``: determinized Monte-Carlo search over a blueprint policy.

At a decision worth searching (the game's ``worth_searching``; at most ``max_candidates`` legal
moves), the bot draws worlds consistent with what its seat knows (the game's world sampler), and
in each world plays every legal move, then rolls the game out to the end of the current hand with
the blueprint playing every seat, and scores the end with the game's ``value`` (the seat's
expected payoff). All moves meet the same worlds and the same rollout random numbers (common
random numbers), so their differences are paired. It starts with ``worlds`` worlds and adds more,
up to ``max_worlds`` and ``max_rollouts`` rollouts, while the best move and the blueprint's own
move are not yet told apart; it leaves the blueprint's move only when the best move's mean paired
gain exceeds ``gate`` standard errors. Every other decision is the blueprint's.

The budget is in work units (worlds, rollouts), so a seeded game gives the same moves on any
machine; ``time_limit`` (seconds a decision, opt-in) trades that for a bound on time: the clock
is read before every world draw and every rollout, so a decision overshoots the limit by at most
one world draw or one rollout (one hand played out); a world cut short is dropped, and the move
is decided from the whole worlds done (the blueprint's move if none). ``worlds`` and
``max_worlds`` are at most ``MAX_WORLDS``, ``max_rollouts`` at most ``MAX_ROLLOUTS``. A bot's
``cancel`` (an event, set by whoever runs it) ends a running search at the same clock reads.

Knobs (``SearchPolicy(..., **knobs)``, or in a spec: ``search@worlds=16,gate=2.5:heuristic``):

- ``worlds``: worlds drawn first (default per game, see each game's ``DEFAULTS``)
- ``max_worlds``: most worlds a decision may draw
- ``max_rollouts``: most rollouts a decision may run (worlds x legal moves)
- ``max_candidates``: decisions with more candidate moves are not searched
- ``narrow``: search only the game's candidate moves where its world sampler names them
  (``candidates(options, legal, blueprint_move)``: Texas Euchre's draw turns), not every legal
  move (default True; ``label_positions`` searches every legal move)
- ``gate``: standard errors the paired gain must exceed to leave the blueprint's move
- ``search_all``: search every decision with 2..max_candidates legal moves, not only those the
  game's ``worth_searching`` picks (default False); a decision the engine's game lacks (the
  cooperative game's table talk, which its engine rolls out silently) is then searched on the
  reference game, which plays it
- ``time_limit``: seconds a decision may take, give or take one rollout (None: no cap)
- ``rollout``: who plays the rollouts: ``"blueprint"`` (default; the heuristic blueprint uses the
  game's fast state-based bot, which makes the same choices) or ``"heuristic"`` (the fast bot even
  under a network blueprint: cheaper)
- ``leaf``: value leaves: a rollout stops at the searching seat's ``leaf``-th turn after its
  candidate move and is scored by the blueprint's value head (``values``: the expected outcome
  for the seat of that observation) instead of being played to the end of the hand; a rollout
  whose hand (or game) ends first is scored as without it (default 0: every rollout plays to the
  end of the hand). Needs a blueprint network saved with a value head; its rollouts play in
  lockstep (one ``act_batch`` a ply) on the engine, not in a compiled ``play_out``
- ``engine``: where the rollouts run: ``"auto"`` (default: the batched engine where the game and
  its options have one and numba is installed, else the reference game; a heuristic blueprint
  that measured faster on the reference game, the world sampler's ``HEURISTIC_BATCHED = False``,
  keeps to the reference game and its fast bot), ``"batched"`` (the
  engine, or an error saying why not) or ``"reference"`` (the reference ``Game``, one rollout
  at a time)

On the engine (``cahoots_envs/search/engine.py``) every world x move of a chunk of worlds rolls
out together, in one kernel call where the engine has a compiled twin of the blueprint
(``play_out``), else in lockstep with the blueprint deciding all rows at once (``act_batch``);
the per-move values are the reference path's (tests/test_search_engine.py), the bots' random
tie-breaks aside. There the clock is read before every world draw and between chunks
(``CHUNK_ROWS`` rows), so a decision overshoots its limit by at most one chunk, and a chunk is
kept whole. ``label_positions`` (``label.py``) searches many positions together, and so does
``act_infosets`` (many information sets at once, e.g. one per table of a batched seat env, in
rounds over all of them; without a time limit). ``stats`` count the
searches of each path (``engine_searches``, ``reference_searches``) and ``path`` says which one
the bot uses.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import math
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.errors import InfosetRequiredError
from cahoots_envs.search.engine import (
    CHUNK_ROWS,
    EngineRollouts,
    engine_problem,
    rollout_options,
)
from cahoots_envs.search.infoset import Infoset
from cahoots_envs.search.rounds import (
    PositionSearch,
    gc_paused,
    huge_pages_off,
    judge,
    run_searches,
)

log = logging.getLogger("cahoots_envs.search")
# a cold numba cache: the first searched decision of a process compiles the engine's loader,
# rollout and value kernels and the sampler's; measured 2026-12-02 on the 2-core machine (load
# average about 0): 11 s (cooperative) to 33 s (Kansas City), docs/lab/search_warmup.md; the notice says
# how to compile them ahead of time
COMPILE_TIME = "10-35 s on a 2-core machine (or ahead of time: cahoots warmup)"

# settings every game starts from; a game's DEFAULTS override them, the caller's knobs override both
GENERIC_DEFAULTS: dict[str, Any] = {
    "worlds": 8,
    "max_worlds": 32,
    "max_rollouts": 400,
    "max_candidates": 12,
    "gate": 2.0,
    "search_all": False,
    "narrow": True,
    "time_limit": None,
    "rollout": "blueprint",
    "engine": "auto",
    "belief": 0.0,
    "leaf": 0,
}
KNOB_TYPES: dict[str, type] = {
    "worlds": int, "max_worlds": int, "max_rollouts": int, "max_candidates": int,
    "gate": float, "search_all": bool, "narrow": bool, "time_limit": float, "rollout": str,
    "engine": str, "belief": float, "leaf": int,
}
ROLLOUT_CHOICES = ("blueprint", "heuristic")
ENGINE_CHOICES = ("auto", "batched", "reference")
CHOICES: dict[str, tuple[str, ...]] = {"rollout": ROLLOUT_CHOICES, "engine": ENGINE_CHOICES}
# the most a setting may ask for: a budget beyond these would not finish in any sane time
MAX_WORLDS = 10_000
MAX_ROLLOUTS = 100_000
KNOB_MAX: dict[str, int] = {"worlds": MAX_WORLDS, "max_worlds": MAX_WORLDS,
                            "max_rollouts": MAX_ROLLOUTS, "leaf": 1000}
KNOB_MIN: dict[str, int] = {"leaf": 0}  # whole-number settings that may be 0 (off)


def check_knobs(knobs: Mapping[str, Any]) -> dict[str, Any]:
    """Validated knobs: unknown names and bad values raise ``ValueError`` naming what is allowed."""
    out: dict[str, Any] = {}
    for name, value in knobs.items():
        if name not in KNOB_TYPES:
            raise ValueError(f"unknown search setting {name!r}; settings: {', '.join(KNOB_TYPES)}")
        kind = KNOB_TYPES[name]
        if name == "time_limit" and value is None:
            out[name] = None
            continue
        if kind is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"search setting {name} is true or false, got {value!r}")
            out[name] = bool(value)
        elif kind is int:
            least = KNOB_MIN.get(name, 1)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
                    value < least or value > KNOB_MAX.get(name, value):
                most = f" and <= {KNOB_MAX[name]}" if name in KNOB_MAX else ""
                raise ValueError(f"search setting {name} is a whole number >= {least}{most}, "
                                 f"got {value!r}")
            out[name] = int(value)
        elif kind is float:
            positive = name == "time_limit"  # a time limit of 0 would allow no search at all
            real = isinstance(value, (int, float, np.integer, np.floating)) and \
                not isinstance(value, bool)
            if not real or not math.isfinite(value) or value < 0 or (positive and value == 0):
                what = "a number of seconds > 0 (or none)" if positive else "a number >= 0"
                raise ValueError(f"search setting {name} is {what}, got {value!r}")
            out[name] = float(value)
        else:
            if value not in CHOICES[name]:
                raise ValueError(f"search setting {name} is one of {CHOICES[name]}, got {value!r}")
            out[name] = value
    return out


class SearchStats:
    """What a search bot spent: decisions, searched ones, seconds, worlds and rollouts, and the
    searches its time limit cut short (``timeouts``)."""

    def __init__(self) -> None:
        self.decisions = 0
        self.searched = 0
        self.deviations = 0
        self.seconds = 0.0
        self.searched_seconds = 0.0
        self.max_seconds = 0.0
        self.worlds = 0
        self.rollouts = 0
        self.timeouts = 0  # searches the time limit cut short
        self.engine_searches = 0  # searches rolled out on the batched engine
        self.reference_searches = 0  # searches rolled out on the reference game

    def as_dict(self) -> dict[str, float]:
        return dict(vars(self))

    def add(self, other: Mapping[str, float]) -> None:
        for key, value in other.items():
            if key == "max_seconds":
                self.max_seconds = max(self.max_seconds, float(value))
            else:
                setattr(self, key, getattr(self, key) + value)



def check_leaf_scale(blueprint: Any, spec: str | None) -> None:
    """Value leaves read a head as the game's outcome on the ``reward_mode="win"`` scale. A head
    whose saved ``target`` names another scale (a PPO run's critic trained on points, or with a
    reward scale other than 1) is refused in one line; a head without a target (fitted to
    outcomes, or built by hand) is taken as declared."""
    target = getattr(getattr(blueprint, "value_head", None), "target", None)
    if not target:
        return
    named = dict(re.findall(r"(reward_mode|reward_scale)=([^,\s]+)", target))
    mode, scale = named.get("reward_mode", "win"), named.get("reward_scale", "1")
    try:
        unit = float(scale) == 1.0
    except ValueError:
        unit = False
    if mode != "win" or not unit:
        raise ValueError(f"search setting leaf reads a value head as the game's outcome on the "
                         f"win scale, but {spec}'s head estimates '{target}'; use a head of a "
                         f"run with reward_mode win and reward_scale 1, or one fitted to "
                         f"outcomes (benchmarks/fit_value_head.py), or leaf=0")

class SearchPolicy(BasePolicy):
    """A search bot for ``env_id`` with ``options``: determinized rollouts over ``blueprint``, an
    already-loaded policy (``None``: the game's rule-based bot), named ``blueprint_name`` in the
    bot's name (``search:<blueprint_name>``). ``load_policy("search@k=v,...:<spec>", env_id)``
    parses a spec and loads its blueprint. It decides from an information set:
    ``act_infoset(infoset)``, or from many at once: ``act_infosets(infosets)``; harnesses check
    ``needs_infoset``. Knobs: see the module docstring."""

    needs_infoset = True

    def __init__(self, env_id: str, options: Mapping[str, Any] | None = None,
                 blueprint: Any = None, seed: int | None = None, *,
                 blueprint_name: str | None = None, **knobs: Any) -> None:
        from cahoots_envs.envinfo import env_info

        if isinstance(blueprint, str):  # search ranks below policies: it does not load specs
            raise TypeError(
                f"SearchPolicy takes a loaded blueprint policy, got the spec {blueprint!r}: pass "
                f"blueprint=load_policy({blueprint!r}, env_id, options), or load the whole bot "
                f"with load_policy('search:{blueprint}', env_id, options)")
        info = env_info(env_id, options)
        self.env_id, self.options, self.spec = info.env_id, info.options, info.spec
        self.sampler = info.spec.require("world_sampler")
        self.settings = {**GENERIC_DEFAULTS, **check_knobs(getattr(self.sampler, "DEFAULTS", {})),
                         **check_knobs(knobs)}
        if blueprint is None:  # the game's rule-based bot, as load_policy("heuristic") gives it
            blueprint, blueprint_name = info.spec.bot(info.options, seed=seed), "heuristic"
        if getattr(blueprint, "needs_infoset", False):
            raise ValueError("a search bot's blueprint is a plain policy, not another search bot")
        self.blueprint_spec = blueprint_name or getattr(blueprint, "name", type(blueprint).__name__)
        self.blueprint = blueprint
        self.fast = None
        if self.blueprint_spec == "heuristic" or self.settings["rollout"] == "heuristic":
            self.fast = self.sampler.FastBot(self.options, seed=seed)
        self.name = f"search:{self.blueprint_spec}"
        self.size = info.layout.size
        self.stats = SearchStats()
        # the last decision's search, for tests: (legal moves, values[world, move]); None if the
        # decision was not searched (or no world was done)
        self.last_search: tuple[list[int], np.ndarray] | None = None
        self._roller: Any = self.blueprint
        if self.blueprint_spec != "heuristic" and self.settings["rollout"] == "heuristic":
            self._roller = info.spec.bot(info.options, seed=seed)  # acts for the engine's rows
        self._engine: EngineRollouts | None = None
        self.path = "reference" if self.settings["engine"] == "reference" else "undecided"
        if self.settings["engine"] == "batched":
            self._engine_rollouts()  # says now why it cannot
        if self.settings["belief"] > 0:
            self._check_belief()
        if self.settings["leaf"] > 0 and not getattr(self.blueprint, "has_values", False):
            raise ValueError(f"search setting leaf needs a blueprint network with a value head "
                             f"(values(observations)), got {self.blueprint_spec}; use leaf=0, "
                             f"or a network saved with one (docs/search.md)")
        if self.settings["leaf"] > 0:
            check_leaf_scale(self.blueprint, self.blueprint_spec)
        self._watch_compile = True  # until a search has run: its kernels may compile
        # set by whoever runs the bot (a server whose game was deleted): an object with
        # ``is_set()`` (``threading.Event``); once set, a search stops at its next clock read,
        # as if its time limit had passed
        self.cancel: Any = None
        self.reseed(seed)

    def _check_belief(self) -> None:
        """The ``belief`` setting weighs worlds by the blueprint network's probabilities of the
        others' moves, replayed on the engine: say now if this bot cannot."""
        why = None
        if not callable(getattr(self.blueprint, "logits", None)):
            why = f"a network blueprint (one with logits), got {self.blueprint_spec}"
        elif not callable(getattr(self.sampler, "hand_start", None)):
            why = f"a world sampler with hand_start, which {self.env_id}'s lacks"
        elif self._engine_rollouts() is None:
            why = "rollouts on the batched engine, which this game or its options lack"
        if why is not None:
            raise ValueError(f"search setting belief needs {why}; use belief=0")

    def _engine_rollouts(self) -> EngineRollouts | None:
        """The engine rollouts, built on the first search (None on the reference path)."""
        if self.path == "undecided":
            silent = rollout_options(self.sampler, self.options)  # the engine's game's options
            problem = engine_problem(self.spec, silent)
            if problem is None and silent != self.options:
                # the engine plays the game without some of its decisions (the cooperative
                # game's table talk): the rule-based bot of those options rolls out there
                if self.fast is None:
                    problem = (f"its blueprint {self.blueprint_spec} plays these options only on "
                               f"the reference game")
                elif self._roller is self.blueprint or \
                        getattr(self._roller, "options", None) != silent:
                    self._roller = self.spec.bot(silent, seed=None)
            if problem is None and self.settings["engine"] == "auto" and \
                    self.blueprint_spec == "heuristic" and self.fast is not None and \
                    not getattr(self.sampler, "HEURISTIC_BATCHED", True):
                # measured: FastBot on the reference game is faster (no compiled kernel, or
                # world loading dominates), the game's search module says so
                problem = "its heuristic blueprint searches faster on the reference game"
            if problem is None:
                self._engine = EngineRollouts(self.spec, self.options, self.sampler,
                                              leaf=self.settings["leaf"],
                                              valuer=self.blueprint)
                self.path = "batched"
            elif self.settings["engine"] == "batched":
                raise ValueError(f"search setting engine='batched' cannot be used for "
                                 f"{self.env_id}: {problem}; use engine='auto' or 'reference'")
            else:
                self.path = "reference"
        return self._engine

    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))  # engines are rebuilt where the bot is unpickled
        state["_engine"] = None
        state["_watch_compile"] = True  # another process compiles its own kernels
        state["cancel"] = None  # an event belongs to the process that runs the bot
        if state["path"] == "batched":
            state["path"] = "undecided"
        return state

    # ---- seeding ----------------------------------------------------------------------------
    def reseed(self, seed: int | None) -> None:
        """Reseed the bot and its blueprint (a seeded game then repeats move for move)."""
        self._rng = np.random.default_rng(seed)
        sub = None if seed is None else int(self._rng.integers(2**62))
        if hasattr(self.blueprint, "reseed"):
            self.blueprint.reseed(sub)
        elif isinstance(getattr(self.blueprint, "rng", None), np.random.Generator):
            self.blueprint.rng = np.random.default_rng(sub)

    @property
    def rng(self) -> np.random.Generator:
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        # harnesses reseed a policy per game by assigning a fresh generator
        self.reseed(int(value.integers(2**62)))

    # ---- the Policy protocol ----------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise InfosetRequiredError(
            f"{self.name} decides from an information set, not an observation: call "
            "act_infoset(cahoots_envs.search.infoset(env)) with the env whose agent is to move, "
            "or play it through cahoots eval/play, run_tournament or a SeatEnv opponent pool"
        )

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.act(observations[0] if len(observations) else observations, action_masks)
        raise AssertionError  # act raised

    # ---- deciding ---------------------------------------------------------------------------
    def act_infoset(self, infoset: Infoset) -> int:
        self._check_infoset(infoset)
        start = time.perf_counter()
        self.last_search = None
        move, legal, seed = self._prepare(infoset)
        searched = False
        if seed is not None:
            with self._compile_watch():
                choice = self._search(infoset, legal, move, seed, start)
            if choice is not None:
                searched = True
                self.stats.deviations += choice != move
                move = choice
        self._book(time.perf_counter() - start, searched)
        return move

    def act_infosets(self, infosets: Sequence[Infoset]) -> np.ndarray:
        """The moves at many information sets (from any games; ``int64[len(infosets)]``),
        decided together: each is prepared in order as ``act_infoset`` prepares it (the
        blueprint's move, the candidate moves, ``worth_searching``, and a decision seed drawn
        from the bot's generator for each one searched, in order), then every search runs at
        once on the engine (``label.run_searches``: rounds over all positions, one loader and
        one rollout engine, one ``act_batch`` a ply for all rows).

        The moves, ``stats`` counts and the bot's generator afterwards equal those of
        ``act_infoset`` called on each information set in turn exactly where the rollout
        policy breaks no ties at random (the Kansas City and Texas Euchre rule-based bots, a
        deterministic network; tests/test_search_batch.py); one that does draws its ties per
        batch of rows here, per chunk of one decision there (the same distribution, still
        reproducible for a seed). On the reference path (no engine for the game or options, or
        ``engine='reference'``) and under a ``time_limit`` (a limit per decision) the
        information sets are decided one at a time by ``act_infoset``. Each decision's seconds
        in ``stats`` are its own preparation plus an equal share of the joint search;
        ``last_search`` is the last information set's."""
        infosets = list(infosets)
        for info in infosets:
            self._check_infoset(info)
        if self.settings["time_limit"] is not None or self.path == "reference" or \
                self.settings["belief"] > 0:
            return np.array([self.act_infoset(info) for info in infosets], np.int64)
        count = len(infosets)
        moves = np.zeros(count, np.int64)
        spent = np.zeros(count)
        pending: list[tuple[int, list[int], int]] = []  # (index, candidate moves, seed)
        for j, info in enumerate(infosets):
            start = time.perf_counter()
            move, legal, seed = self._prepare(info)
            moves[j] = move
            if seed is not None:
                pending.append((j, legal, seed))
            spent[j] = time.perf_counter() - start
        self.last_search = None
        searched = np.zeros(count, np.bool_)
        engine = self._engine_rollouts() if pending else None
        with self._compile_watch() if pending else contextlib.nullcontext():
            if engine is None:  # the reference path (or nothing to search): one at a time
                self._search_one_by_one(infosets, moves, pending, searched, spent)
            else:  # decisions the engine's game lacks are searched one at a time
                apart = [x for x in pending if not self._engine_plays(x[1])]
                together = [x for x in pending if self._engine_plays(x[1])]
                self._search_one_by_one(infosets, moves, apart, searched, spent)
                self._search_together(engine, infosets, moves, together, searched, spent)
        for j in range(count):
            self._book(float(spent[j]), bool(searched[j]))
        return moves

    def _search_one_by_one(self, infosets: list[Infoset], moves: np.ndarray,
                           pending: list[tuple[int, list[int], int]], searched: np.ndarray,
                           spent: np.ndarray) -> None:
        """The searches of ``pending`` one at a time by ``_search``; ``moves``, ``searched`` and
        ``spent`` updated in place, ``last_search`` the last information set's (None if that
        one was not searched here)."""
        for j, legal, seed in pending:
            start = time.perf_counter()
            self.last_search = None
            choice = self._search(infosets[j], legal, int(moves[j]), seed, start)
            if choice is not None:
                searched[j] = True
                self.stats.deviations += int(choice != moves[j])
                moves[j] = choice
            spent[j] += time.perf_counter() - start
        if not pending or pending[-1][0] != len(infosets) - 1:
            self.last_search = None

    def _search_together(self, engine: EngineRollouts, infosets: list[Infoset],
                         moves: np.ndarray, pending: list[tuple[int, list[int], int]],
                         searched: np.ndarray, spent: np.ndarray) -> None:
        """The searches of ``pending`` run together on ``engine``; ``moves``, ``searched`` and
        ``spent`` updated in place, the counters of ``stats`` as ``_search`` keeps them."""

        s = self.settings
        start = time.perf_counter()
        searches = []
        for j, legal, seed in pending:
            most = min(s["max_worlds"], s["max_rollouts"] // len(legal))
            if most >= 2:  # else _search declines: the blueprint's move, not searched
                searches.append((j, PositionSearch(infosets[j], int(moves[j]), seed, most,
                                                   min(s["worlds"], most), legal)))
        if searches:
            run_searches(engine, [x for _, x in searches], self._roller, s["gate"],
                         searches[0][1].seed)
        share = (time.perf_counter() - start) / max(1, len(searches))
        st = self.stats
        for j, x in searches:
            values = np.concatenate(x.values)
            st.engine_searches += 1
            st.worlds += len(values)
            st.rollouts += values.size
            choice = x.legal[x.best] if x.confident else int(moves[j])
            searched[j] = True
            st.deviations += int(choice != moves[j])
            moves[j] = choice
            spent[j] += share
            if j == len(infosets) - 1:
                self.last_search = (list(x.legal), values)

    @contextlib.contextmanager
    def _compile_watch(self) -> Iterator[None]:
        """Around a search: until one has run, a numba compile of the kernels it uses (a cold
        on-disk cache) is announced first, once per game and process, on the
        ``cahoots_envs.search`` logger (``vector.compile_notice``), so that a first searched
        decision taking tens of seconds does not look hung."""
        if not self._watch_compile or importlib.util.find_spec("numba") is None:
            yield
            return
        from cahoots_envs.vector import compile_notice

        with compile_notice(self.spec.name, part="search kernels", duration=COMPILE_TIME,
                            logger=log):
            yield
        self._watch_compile = False

    def _engine_plays(self, legal: Sequence[int]) -> bool:
        """Whether the engine's game has the decision whose candidate moves are ``legal``: not
        where the world sampler's ``engine_actions`` drops them (a talk decision of the
        cooperative game, whose engine rolls out silently); such a decision (searched only with
        ``search_all``) rolls out on the reference game."""
        dropped = getattr(self.sampler, "engine_actions", None)
        return dropped is None or len(dropped(list(legal))) == len(legal)

    def _check_infoset(self, infoset: Infoset) -> None:
        if not isinstance(infoset, Infoset):
            raise TypeError(f"act_infoset takes a cahoots_envs.search.Infoset, got "
                            f"{type(infoset).__name__}")
        if infoset.env_id != self.env_id:
            raise ValueError(f"{self.name} plays {self.env_id}, the information set is of "
                             f"{infoset.env_id}")

    def _prepare(self, infoset: Infoset) -> tuple[int, list[int], int | None]:
        """The blueprint's move, the candidate moves, and the decision seed (drawn from the
        bot's generator) where the decision is to be searched, else None."""
        move = int(self.blueprint.act(infoset.observation, infoset.action_mask))
        legal = infoset.legal
        s = self.settings
        narrow = getattr(self.sampler, "candidates", None)
        if s["narrow"] and narrow is not None and len(legal) >= 2:
            legal = narrow(self.options, legal, move)
        if 2 <= len(legal) <= s["max_candidates"] and (s["search_all"] or infoset.worth_searching()):
            return move, legal, int(self._rng.integers(2**62))
        return move, legal, None

    def _book(self, spent: float, searched: bool) -> None:
        st = self.stats
        st.decisions += 1
        st.seconds += spent
        st.max_seconds = max(st.max_seconds, spent)
        if searched:
            st.searched += 1
            st.searched_seconds += spent

    @gc_paused()
    @huge_pages_off()
    def _search(self, infoset: Infoset, legal: list[int], blueprint_move: int, seed: int,
                start: float) -> int | None:
        s = self.settings
        n_moves = len(legal)
        most = min(s["max_worlds"], s["max_rollouts"] // n_moves)
        if most < 2:
            return None
        deadline = None if s["time_limit"] is None else start + s["time_limit"]

        cancel = self.cancel

        def late() -> bool:  # read before every world draw and every rollout
            return (deadline is not None and time.perf_counter() > deadline) or \
                (cancel is not None and cancel.is_set())

        b = legal.index(blueprint_move)
        values: list[list[float]] = []  # values[k][i]: world k, move legal[i]
        # with ``belief``: per world, the log-likelihood of the others' moves this hand there
        likelihoods: list[float] | None = [] if s["belief"] > 0 else None
        target = min(s["worlds"], most)
        cut = False
        engine = self._engine_rollouts() if self._engine_plays(legal) else None
        if engine is not None:
            self.stats.engine_searches += 1
        else:
            self.stats.reference_searches += 1
        while True:
            if engine is not None and not cut:
                cut = self._engine_worlds(engine, values, target, infoset, legal, seed, late,
                                          likelihoods)
            while len(values) < target and not cut:
                k = len(values)
                cut = late()
                if cut:
                    break
                world = infoset.sample(np.random.default_rng([seed, k]))
                # every move meets the same random numbers in world k (paired differences)
                chance, bots = np.random.default_rng([seed, k, 1]), np.random.default_rng([seed, k, 2])
                states = chance.bit_generator.state, bots.bit_generator.state
                row = []
                for a in legal:
                    cut = late()
                    if cut:  # a world cut short is dropped: every move meets every world kept
                        break
                    chance.bit_generator.state, bots.bit_generator.state = states
                    row.append(self._rollout(world.game, infoset.seat, a, chance, bots))
                self.stats.rollouts += len(row)
                if not cut:
                    values.append(row)
                    self.stats.worlds += 1
            if not values:  # cut before a whole world
                self.stats.timeouts += 1
                return blueprint_move
            v = np.asarray(values)
            self.last_search = (list(legal), v)
            weights = None
            if likelihoods is not None:
                log_w = np.asarray(likelihoods)
                weights = np.exp(log_w - log_w.max())
            done, best, confident = judge(v, b, s["gate"], most, weights)
            cut = cut or (not done and late())
            self.stats.timeouts += cut
            if done or cut:
                return legal[best] if confident else blueprint_move
            target = min(2 * len(values), most)

    def _engine_worlds(self, engine: EngineRollouts, values: list[list[float]], target: int,
                       infoset: Infoset, legal: list[int], seed: int,
                       late: Callable[[], bool], likelihoods: list[float] | None = None) -> bool:
        """Worlds ``len(values)..target-1`` rolled out on the engine, a chunk at a time, their
        rows appended to ``values`` (and, with a ``likelihoods`` list, each world's
        log-likelihood of the others' moves this hand under the blueprint, the ``belief``
        setting's, appended to it); True when the clock cut the search short (the worlds of
        the chunk being drawn are dropped, the chunks done are kept)."""
        n_moves = len(legal)
        per_chunk = max(1, CHUNK_ROWS // n_moves)
        policy = self._roller
        saved = getattr(policy, "rng", None)
        try:
            while len(values) < target:
                first = len(values)
                worlds = []
                for k in range(first, min(target, first + per_chunk)):
                    if late():
                        return True
                    worlds.append(infoset.sample(np.random.default_rng([seed, k])))
                if isinstance(saved, np.random.Generator):  # the bots' ties, per chunk
                    policy.rng = np.random.default_rng([seed, first, 2])
                rows = engine.values(worlds, first, legal, infoset.seat, seed, policy)
                if likelihoods is not None:
                    likelihoods.extend(engine.log_likelihoods(
                        worlds, infoset.seat, infoset.hand_start(), self.blueprint,
                        self.settings["belief"]).tolist())
                values.extend(rows.tolist())
                self.stats.worlds += len(worlds)
                self.stats.rollouts += rows.size
                if len(values) < target and late():
                    return True
        finally:
            if isinstance(saved, np.random.Generator):
                policy.rng = saved
        return False

    def _rollout(self, world: Any, seat: int, action: int, chance: np.random.Generator,
                 bots: np.random.Generator) -> float:
        """Play ``action`` in a copy of ``world`` (chance from ``chance``), then the blueprint for
        every seat (its ties broken by ``bots``) to the end of the hand; the seat's value there."""
        game = world.clone(rng=chance)
        hands = len(game.deals)
        game.apply(action)
        fast = self.fast
        leaf = self.settings["leaf"]
        if leaf:
            return self._leaf_rollout(game, seat, hands, leaf, bots)
        if fast is not None:
            fast.rng = bots
            while not game.is_over and len(game.deals) == hands:
                game.apply(fast.act_state(game))
        else:
            policy = self.blueprint
            saved = getattr(policy, "rng", None)
            if isinstance(saved, np.random.Generator):
                policy.rng = bots
            obs = np.zeros(self.size, np.float32)
            mask = np.zeros(self.spec.rules.num_actions(self.options), np.int8)
            try:
                while not game.is_over and len(game.deals) == hands:
                    obs[:] = 0
                    game.encode(game.current_player, obs)
                    mask[:] = 0
                    mask[game.legal_actions()] = 1
                    game.apply(int(policy.act(obs, mask)))
            finally:
                if isinstance(saved, np.random.Generator):
                    policy.rng = saved
        return float(self.sampler.value(game, seat))

    def _leaf_rollout(self, game: Any, seat: int, hands: int, leaf: int,
                      bots: np.random.Generator) -> float:
        """``_rollout`` under the ``leaf`` setting, from ``game`` after the candidate move: the
        roller plays on until ``seat``'s ``leaf``-th turn, scored there by the blueprint's value
        head on the seat's observation, or to the end of the hand (or game) where that comes
        first, scored as without leaves."""
        obs = np.zeros(self.size, np.float32)
        mask = np.zeros(self.spec.rules.num_actions(self.options), np.int8)
        fast, policy = self.fast, self.blueprint
        saved = getattr(policy, "rng", None)
        if fast is not None:
            fast.rng = bots
        elif isinstance(saved, np.random.Generator):
            policy.rng = bots
        turns = 0
        try:
            while not game.is_over and len(game.deals) == hands:
                mover = game.current_player
                turns += mover == seat
                if mover == seat and turns >= leaf or fast is None:
                    obs[:] = 0
                    game.encode(mover, obs)
                if mover == seat and turns >= leaf:
                    return float(self.blueprint.values(obs[None])[0])
                if fast is not None:
                    game.apply(fast.act_state(game))
                    continue
                mask[:] = 0
                mask[game.legal_actions()] = 1
                game.apply(int(policy.act(obs, mask)))
        finally:
            if fast is None and isinstance(saved, np.random.Generator):
                policy.rng = saved
        return float(self.sampler.value(game, seat))
