"""Labelling mode: many positions, from many games, searched together on the batched engine.

``label_positions(env_id, options, positions, blueprint=None, seed=0, **knobs)`` searches every
position as a ``SearchPolicy`` with the same knobs would (the same worlds, the same rollouts,
the same adaptive budget and verdict), but in rounds over all positions at once: each round
draws every unfinished position's next worlds, loads them all into one loader engine and rolls
every world x candidate move out in lockstep (``EngineRollouts.values_many``, at most
``LABEL_ROWS`` rows a batch), the blueprint deciding all rows of a ply in one ``act_batch`` call
(a compiled bot kernel, or a network's batched forward pass). The per-step overhead a lone
decision pays for tens of rows is paid once for thousands, which is what expert iteration needs
(labels by the hundred thousand).

Position ``p`` is searched with the decision seed ``position_seed(seed, p)``: its values are the
ones ``SearchPolicy._search`` computes with that seed (tests/test_labelling.py), exactly where
the rollout policy breaks no ties at random (the Kansas City and Texas Euchre heuristics, any
deterministic network); a policy that breaks ties with its generator draws it per batch here.

**Unbiased values** (``unbiased=True``, or ``measure_labels`` on labels already made): a
search that picks the best-looking of many moves in a few worlds and reports that move's gain
overstates it (the winner's curse: it picked the move whose worlds flattered it). Each searched
position is then measured again in as many worlds as its search drew, new ones drawn
independently of those (decision seed ``check_seed(seed, p)``), every candidate meeting every
new world: ``check_values``/``check_means``. Those worlds chose nothing, so the chosen move's
gain over the blueprint's measured there (``Label.gain(unbiased=True)``) is an unbiased estimate
of its real gain (tests/test_unbiased_labels.py shows both on a position with known values),
at twice the rollouts.

Every position with 2..``max_candidates`` legal moves is searched (``search_all``: the game's
``worth_searching`` is not asked); the others are labelled with the blueprint's move alone.
``time_limit`` does not apply (the budget is in work units). The rollouts run where a search
bot with the same knobs would run them (``engine``, default ``auto``): where that is the
reference game (no engine for the game or its options, or a heuristic blueprint measured
faster there, ``HEURISTIC_BATCHED = False``), the positions are searched one at a time, each
exactly as the bot searches it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.search.infoset import Infoset
from cahoots_envs.search.policy import SearchPolicy
from cahoots_envs.search.rounds import PositionSearch, run_searches


@dataclass
class Label:
    """The search's verdict at one position (``seat`` to move).

    - ``legal``: the legal moves, in increasing order;
    - ``blueprint_move``: the blueprint's move; ``move``: the move the search bot plays there
      (the best move where the search is confident, else the blueprint's);
    - ``searched``: whether the position was searched (2..``max_candidates`` legal moves);
    - ``values[world, i]``: the seat's value after ``legal[i]`` in each world drawn;
      ``counts[i]``: the rollouts of move ``legal[i]`` (the worlds drawn: every move meets every
      world); ``means[i]``: its mean value (0 where not searched);
    - ``shares[i]``: the searched move distribution: the share of the worlds in which
      ``legal[i]`` has the highest value (moves tied for it split the world); where not
      searched, 1 on the blueprint's move;
    - ``path``: where the rollouts ran, ``"batched"`` (the engine) or ``"reference"``;
    - ``check_values[world, i]`` / ``check_means[i]``: the same in independent worlds, which
      chose nothing (unbiased values; no rows / zeros where not measured, ``measure_labels``).
    """

    seat: int
    legal: list[int]
    blueprint_move: int
    move: int
    searched: bool
    values: np.ndarray
    counts: np.ndarray
    means: np.ndarray
    shares: np.ndarray
    path: str
    check_values: np.ndarray | None = None
    check_means: np.ndarray | None = None

    @property
    def checked(self) -> bool:
        """Whether the label's moves were measured in independent worlds too."""
        return self.check_values is not None and len(self.check_values) > 0

    def gain(self, unbiased: bool = False) -> float:
        """The mean gain of the label's ``move`` over the blueprint's: in the worlds that chose
        it (``unbiased=False``: overstated where the search moved off), or in the independent
        worlds (``ValueError`` where the label was not measured there). 0 where not searched."""
        if not self.searched:
            return 0.0
        i, b = self.legal.index(self.move), self.legal.index(self.blueprint_move)
        if not unbiased:
            return float(self.means[i] - self.means[b])
        if not self.checked or self.check_means is None:
            raise ValueError("this label has no values from independent worlds: label with "
                             "unbiased=True, or measure_labels(...)")
        return float(self.check_means[i] - self.check_means[b])


def position_seed(seed: int, p: int) -> int:
    """The decision seed of position ``p`` of a labelling run seeded ``seed``."""
    return int(np.random.default_rng([seed, p, 3]).integers(2**62))


def check_seed(seed: int, p: int) -> int:
    """The decision seed of position ``p``'s independent worlds (``measure_labels``): its own
    stream, apart from ``position_seed``'s."""
    return int(np.random.default_rng([seed, p, 5]).integers(2**62))


def best_shares(values: np.ndarray) -> np.ndarray:
    """Per move, the share of worlds (rows of ``values``) in which it has the highest value,
    moves tied for the highest splitting the world."""
    top = values == values.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)  # type: ignore[no-any-return]


def as_game(spec: Any, options: Mapping[str, Any], position: Any) -> Game:
    """A reference game from a position: a ``Game``, or a ``(deals, actions)`` history (the
    whole-game scripted deal, one dict per hand so far, and every action since the first
    deal)."""
    if isinstance(position, Game):
        return position
    try:
        deals, actions = position
    except (TypeError, ValueError):
        raise ValueError(f"a position is a reference Game or a (deals, actions) pair, got "
                         f"{type(position).__name__}") from None
    game: Game = spec.rules(dict(options), np.random.default_rng(0), deals)
    for a in actions:
        game.apply(int(a))
    return game


def _labeller(env_id: str, options: Mapping[str, Any] | None, positions: Sequence[Any],
              blueprint: Any, seed: int, blueprint_name: str | None,
              knobs: Mapping[str, Any]) -> tuple[SearchPolicy, list[Infoset]]:
    """The search bot that labels with ``knobs`` (no time limit), and each position's
    information set (the seat to move)."""
    bot = SearchPolicy(env_id, options, blueprint=blueprint, seed=seed,
                       blueprint_name=blueprint_name, **knobs)
    bot._engine_rollouts()  # the path a search bot with these knobs takes
    bot.settings["time_limit"] = None  # labels are counted in work units
    infosets = []
    for position in positions:
        game = as_game(bot.spec, bot.options, position)
        if game.is_over:
            raise ValueError("a position to label is a game still going, got one that is over")
        infosets.append(Infoset(game, game.current_player, bot.spec, bot.options))
    return bot, infosets


class SeatedRoller:
    """A rollout player that seats ``own`` at the searching seat and ``others`` everywhere else
    (each a policy with ``act_batch``): rollouts against the opponents a position's game really
    had, e.g. random bots, where ``rollout`` alone would make every other seat the same player.
    ``label_positions(..., roller=SeatedRoller(own, others))``; the batched engine's lockstep
    asks ``act_seated`` with whose turn each row is."""

    def __init__(self, own: Any, others: Any) -> None:
        self.own, self.others = own, others
        self.name = f"seated({getattr(own, 'name', 'own')}, {getattr(others, 'name', 'others')})"

    def act_seated(self, observations: np.ndarray, action_masks: np.ndarray,
                   searching: np.ndarray) -> np.ndarray:
        out = np.empty(len(observations), np.int64)
        for rows, policy in ((np.flatnonzero(searching), self.own),
                             (np.flatnonzero(~searching), self.others)):
            if rows.size:
                out[rows] = policy.act_batch(observations[rows], action_masks[rows])
        return out

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError("a SeatedRoller acts only in the engine's rollouts, which say whose turn "
                        "each row is (act_seated)")


def label_positions(env_id: str, options: Mapping[str, Any] | None, positions: Sequence[Any],
                    blueprint: Any = None, seed: int = 0, *, blueprint_name: str | None = None,
                    unbiased: bool = False, roller: Any = None, **knobs: Any) -> list[Label]:
    """Search ``positions`` (reference games, or ``(deals, actions)`` histories, the seat to
    move searching) of ``env_id`` with ``options`` together on the batched engine (or one at a
    time on the reference game, where a search bot with these knobs rolls out there), over
    ``blueprint`` (a loaded policy; None: the game's rule-based bot) with the search ``knobs``
    (``SearchPolicy``'s; ``search_all`` and ``time_limit`` do not apply); one ``Label`` per
    position, in order (see the module docstring). ``unbiased``: each searched label measured
    again in independent worlds (``measure_labels``). ``roller``: who plays the rollouts
    instead of the ``rollout`` knob's player (a ``SeatedRoller``); the batched engine only."""
    bot, infosets = _labeller(env_id, options, positions, blueprint, seed, blueprint_name, knobs)
    engine = bot._engine_rollouts()
    if roller is not None:
        if engine is None or bot.settings["belief"] != 0 or bot.settings["leaf"] != 0:
            raise ValueError("label_positions: a roller plays the rollouts on the batched "
                             "engine only (engine='batched', belief=0, leaf=0)")
        bot._roller = roller
    s = bot.settings
    if not infosets:
        return []
    obs = np.stack([info.observation for info in infosets])
    masks = np.stack([info.action_mask for info in infosets])
    moves = [int(a) for a in bot.blueprint.act_batch(obs, masks)]
    searches: list[PositionSearch | None] = []
    for p, (info, move) in enumerate(zip(infosets, moves)):
        n_moves = len(info.legal)
        most = min(s["max_worlds"], s["max_rollouts"] // n_moves)
        if 2 <= n_moves <= s["max_candidates"] and most >= 2:
            searches.append(PositionSearch(info, move, position_seed(seed, p), most,
                                           min(s["worlds"], most)))
        else:
            searches.append(None)
    with bot._compile_watch():
        if engine is not None and s["belief"] == 0:
            run_searches(engine, [x for x in searches if x is not None], bot._roller, s["gate"],
                         seed)
        else:  # the reference path, or beliefs: one position at a time, as the bot decides
            for search in searches:
                if search is not None:
                    _alone(bot, search)
    labels = [as_label(info, move, search, bot.path)
              for info, move, search in zip(infosets, moves, searches)]
    if unbiased:
        _measure(bot, infosets, labels, seed)
    return labels


def measure_labels(env_id: str, options: Mapping[str, Any] | None, positions: Sequence[Any],
                   labels: Sequence[Label], blueprint: Any = None, seed: int = 0, *,
                   blueprint_name: str | None = None, **knobs: Any) -> list[Label]:
    """``labels`` (of ``positions``, made by ``label_positions`` with the same arguments) with
    each searched one's candidates measured in as many independent worlds as its search drew
    (``check_values``, ``check_means``: module docstring); the same objects, filled in."""
    if len(labels) != len(positions):
        raise ValueError(f"measure_labels takes one label per position, got {len(labels)} "
                         f"labels for {len(positions)} positions")
    bot, infosets = _labeller(env_id, options, positions, blueprint, seed, blueprint_name, knobs)
    _measure(bot, infosets, list(labels), seed)
    return list(labels)


def independent_searches(infosets: Sequence[Infoset], labels: Sequence[Label],
                         seed: int) -> list[tuple[Label, PositionSearch]]:
    """Per searched label (of position ``p``, at ``infosets[p]``), a search of its candidates
    in as many worlds as it drew, no more and no fewer, from the independent stream
    ``check_seed(seed, p)``; ``fill_checks`` stores their values once run."""
    checks = []
    for p, (info, label) in enumerate(zip(infosets, labels)):
        if label.searched:
            n = len(label.values)
            checks.append((label, PositionSearch(info, label.blueprint_move, check_seed(seed, p),
                                                 n, n, label.legal)))
    return checks


def fill_checks(checks: Sequence[tuple[Label, PositionSearch]]) -> None:
    """Each label's ``check_values``/``check_means`` from its independent search, run."""
    for label, search in checks:
        label.check_values = np.concatenate(search.values)
        label.check_means = label.check_values.mean(axis=0)


def _measure(bot: SearchPolicy, infosets: list[Infoset], labels: list[Label], seed: int) -> None:
    """Each searched label's candidates in independent worlds (``measure_labels``)."""
    checks = independent_searches(infosets, labels, seed)
    engine = bot._engine_rollouts()
    with bot._compile_watch():
        if engine is not None and bot.settings["belief"] == 0:
            run_searches(engine, [x for _, x in checks], bot._roller, bot.settings["gate"],
                         check_seed(seed, len(labels)))
        else:
            s = bot.settings
            saved = dict(s)
            try:
                for _, search in checks:  # exactly the worlds drawn, no adaptive stop
                    s.update(worlds=search.most, max_worlds=search.most,
                             max_rollouts=search.most * len(search.legal))
                    _alone(bot, search)
            finally:
                s.clear()
                s.update(saved)
    fill_checks(checks)


def _alone(bot: SearchPolicy, search: PositionSearch) -> None:
    """``search`` decided by ``bot`` on the reference game (``SearchPolicy._search``)."""
    info = search.infoset
    choice = bot._search(info, search.legal, search.legal[search.b], search.seed,
                         time.perf_counter())
    assert bot.last_search is not None  # no time limit: every world is done
    search.values = [bot.last_search[1]]
    search.worlds = len(search.values[0])
    search.confident = choice is not None and choice != search.legal[search.b]
    if search.confident:
        search.best = search.legal.index(int(choice))  # type: ignore[arg-type]
    search.done = True


def as_label(info: Infoset, move: int, search: PositionSearch | None, path: str) -> Label:
    """The label of the position at ``info`` whose blueprint move is ``move``: ``search``'s
    verdict once it has run (None: not searched), its rollouts run on ``path``."""
    legal = info.legal
    m = len(legal)
    if search is None:
        shares = np.zeros(m)
        shares[legal.index(move)] = 1.0
        return Label(info.seat, legal, move, move, False, np.zeros((0, m)),
                     np.zeros(m, np.int64), np.zeros(m), shares, path, np.zeros((0, m)),
                     np.zeros(m))
    values = np.concatenate(search.values)
    chosen = legal[search.best] if search.confident else move
    return Label(info.seat, legal, move, chosen, True, values,
                 np.full(m, len(values), np.int64), values.mean(axis=0), best_shares(values),
                 path)
