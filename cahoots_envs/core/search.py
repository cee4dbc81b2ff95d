"""What a game provides for decision-time search (its spec's optional ``world_sampler``).

A game's ``games/<game>/search.py`` module is its world sampler. It offers:

- ``knowledge(game, seat) -> tuple``: everything ``seat`` knows now, in a canonical, hashable form
  (its own cards, the public history, the counts and constraints of what it cannot see). Two
  games that differ only in cards ``seat`` cannot see give equal knowledge: in particular
  ``knowledge(game, s) == knowledge(game.resample_hidden(s, rng), s)``.
- ``sample_world(game, seat, rng) -> World``: a world consistent with everything ``seat`` knows,
  drawn with ``rng``. The result depends on ``knowledge(game, seat)`` and ``rng`` alone: the true
  hidden cards may be read only to be overwritten (tested by sampling from a re-dealt copy with
  the same seed). The world's game has a fresh generator drawn from ``rng``, so it never holds the
  true game's future chance events (later deals, random splits).
- ``FastBot(options, seed=None)``: the game's rule-based bot reading the game state instead of an
  observation (for rollouts); ``act_state(game)`` picks the move of ``game.current_player``
  from what that seat may know, always one of the observation-based bot's best choices
  (``bot.best_actions(observation, action_mask)``), ties broken by its ``rng``.
- ``value(game, seat) -> float``: the seat's expected payoff (the scale of ``outcome()``) from a
  state at a hand boundary; ``outcome()[seat]`` once the game is over. Search rolls out to the
  end of the current hand and scores it with ``value``.
- ``worth_searching(game, seat) -> bool``: whether a decision of ``seat`` is searched at all
  (reads only what ``seat`` may know); the blueprint plays the others.
- ``DEFAULTS``: the game's search settings (knobs of ``cahoots_envs.search.SearchPolicy``).
- ``DEFAULT_SEARCH`` (optional): what plain ``search`` (no blueprint named) plays in this game, a
  search spec ``search[@knob=value,...]:<blueprint spec>``, e.g. a shipped network as the
  blueprint with the rule-based bot playing the rollouts; used wherever that blueprint may play
  the env's options, else (and without it) ``search`` is search over the game's rule-based bot.
  Knobs a spec gives win over the default's.
- ``candidates(options, legal, blueprint_move) -> list[int]`` (optional): the moves a search
  compares at a decision with the legal moves ``legal`` (ascending; a subset holding
  ``blueprint_move``, from the options and the ids alone); without it every legal move (knob
  ``narrow``).
- ``hand_start(game) -> int`` (optional): how many actions the game had before the current
  hand's deal (public; a world's actions from there on are the current hand's). Search's
  ``belief`` setting needs it: it weighs each world by how likely the blueprint makes the other
  seats' moves of the current hand there.
- ``engine_options(options) -> dict`` and ``engine_actions(actions) -> list[int]`` (optional): the
  options a world rolls out under on the batched engine, and its actions as that engine replays
  them, where the engine plays an option's game without some of its decisions (the cooperative
  game's table talk: silent rollouts); without them the engine plays ``options`` and every action.

A ``World`` may override ``rollout_history()`` (the deals and actions the batched engine
replays to load it) with a cheaper history to the same state as far as a rollout reads it;
``LazyWorld`` builds its history on first access and takes such a rollout history. Where that
history begins with earlier hands that every world of a decision shares (one filling of their
hidden cards), ``rollout_parts()`` may say so (``RolloutParts``): an engine that can deal a
copied game's current hand anew (``BatchedEngine.deal_current``) then replays the shared hands
once per decision instead of once per world.

``core/face.py``'s ``WorldSampler`` protocol names these members; registration checks them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from cahoots_envs.core.game import Game

History = tuple[list[dict[str, Any]], list[int]]  # a game's deals (one per hand) and actions


class RolloutParts(NamedTuple):
    """A world's rollout history split where its current hand begins (``World.rollout_parts``):
    ``earlier``, the deals and actions of the hands before it, the same two list objects in
    every world of a decision that shares them (the engine's loader tells the worlds that share
    them apart by those objects); ``deal``, the current hand's deal record; ``actions``, the
    current hand's actions so far. ``rollout_history()`` is ``(earlier deals + [deal], earlier
    actions + actions)``."""

    earlier: History
    deal: dict[str, Any]
    actions: list[int]

    def history(self) -> History:
        """The rollout history these parts make up."""
        deals, actions = self.earlier
        return [*deals, self.deal], [*actions, *self.actions]


@dataclass
class World:
    """One sampled world: a game now, and the history that leads to it.

    ``deals`` (a whole-game scripted deal, one dict per hand so far) and ``actions`` (every action
    since the first deal, the other seats' hidden choices filled in) replayed through a fresh
    game are legal at every step, give the sampling seat exactly the observations it had, and end
    in ``game``'s state. ``rng_state`` is the bit-generator state a replay starts from where
    chance acts after the deal (``None``: any)."""

    game: Game
    deals: list[dict[str, Any]]
    actions: list[int]
    rng_state: dict[str, Any] | None = field(default=None)

    def rollout_history(self) -> History:
        """The deals and actions the batched engine replays to load this world for a rollout:
        ``(deals, actions)`` here. A sampler may return a cheaper history that reaches a state
        equal to ``game``'s in everything a rollout reads (the current hand's cards and play,
        every public count and score), e.g. one filling of the earlier hands' hidden cards
        shared by all the worlds of a decision, where no rollout reads them (docs/search.md)."""
        return self.deals, self.actions

    def rollout_parts(self) -> RolloutParts | None:
        """``rollout_history()`` split where the current hand begins, its earlier hands shared
        with other worlds (``RolloutParts``); None (here): not split, the loader replays the
        whole history world by world."""
        return None


class LazyWorld(World):
    """A ``World`` whose history (``deals`` and ``actions``) is built on first access by
    ``build()``, so a search that only plays the world's game never pays for it; ``rollout()``
    (optional) gives its ``rollout_history`` without building the whole history (say, the
    current hand as this world holds it after one filling of the earlier hands that every world
    of the decision shares). ``game`` may be a function that makes the world's game on first
    access instead, so a search that only replays the history on the batched engine never
    builds it (such a function should refuse, with a clear error, once the game it was sampled
    from has moved on). ``parts()`` (optional, instead of ``rollout``) gives the rollout
    history split where the current hand begins (``rollout_parts``); until the history is built
    it is the rollout history."""

    def __init__(self, game: Game | Callable[[], Game], build: Callable[[], History],
                 rollout: Callable[[], History] | None = None,
                 parts: Callable[[], RolloutParts] | None = None) -> None:
        if rollout is not None and parts is not None:
            raise ValueError("a LazyWorld takes a rollout history or its parts, not both")
        self._game: Game | None = game if isinstance(game, Game) else None
        self._make_game: Callable[[], Game] | None = None if isinstance(game, Game) else game
        self.rng_state = None
        self._build: Callable[[], History] | None = build
        self._rollout = rollout
        self._parts = parts
        self._history: History | None = None

    @property  # type: ignore[override]
    def game(self) -> Game:
        if self._game is None:
            assert self._make_game is not None
            self._game = self._make_game()
            self._make_game = None
        return self._game

    @game.setter
    def game(self, value: Game) -> None:
        self._game, self._make_game = value, None

    def _built(self) -> History:
        if self._history is None:
            assert self._build is not None
            self._history = self._build()
            self._build = self._rollout = self._parts = None
        return self._history

    def rollout_history(self) -> History:
        if self._history is None:
            if self._rollout is not None:
                return self._rollout()
            if self._parts is not None:
                return self._parts().history()
        return self._built()

    def rollout_parts(self) -> RolloutParts | None:
        return self._parts() if self._history is None and self._parts is not None else None

    @property  # type: ignore[override]
    def deals(self) -> list[dict[str, Any]]:
        return self._built()[0]

    @deals.setter
    def deals(self, value: list[dict[str, Any]]) -> None:
        self._history = (value, self._built()[1])

    @property  # type: ignore[override]
    def actions(self) -> list[int]:
        return self._built()[1]

    @actions.setter
    def actions(self, value: list[int]) -> None:
        self._history = (self._built()[0], value)
