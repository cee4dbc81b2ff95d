"""What one seat knows at its decision: an ``Infoset``.

A search bot decides from an information set, never from the true game: its observation, its
legal moves and worlds drawn from its game's world sampler, which depend only on what the seat
knows (``core/search.py``). Harnesses build one with ``infoset(env)`` (the AEC env's agent to
move) or ``Infoset(game, seat, spec, options)``; it is valid until the game moves on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.core.search import World
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.errors import NotAvailableError


class Infoset:
    """Seat ``seat``'s information set in ``game`` (the game of ``spec`` with resolved
    ``options``): ``observation``, ``action_mask``, ``legal`` (ascending action ids),
    ``sample(rng)`` (a ``World`` consistent with what the seat knows), ``worth_searching()`` and
    ``knowledge()``. The game itself is private: a bot that reads ``_game`` cheats."""

    __slots__ = ("_game", "_sampler", "action_mask", "env_id", "legal", "observation",
                 "options", "seat", "spec")

    def __init__(self, game: Game, seat: int, spec: GameSpec, options: Mapping[str, Any],
                 observation: np.ndarray | None = None,
                 action_mask: np.ndarray | None = None) -> None:
        if game.is_over:
            raise ValueError("the game is over: there is no decision to make")
        if seat != game.current_player:
            raise ValueError(f"seat {seat} is not to move (seat {game.current_player} is)")
        self._game = game
        self._sampler = spec.require("world_sampler")
        self.spec = spec
        self.env_id = spec.env_id
        self.options = dict(options)
        self.seat = seat
        self.legal = game.legal_actions()
        if observation is None:
            observation = np.zeros(spec.layout(self.options).size, np.float32)
            game.encode(seat, observation)
        if action_mask is None:
            action_mask = np.zeros(spec.rules.num_actions(self.options), np.int8)
            action_mask[self.legal] = 1
        self.observation = observation
        self.action_mask = action_mask

    def sample(self, rng: np.random.Generator) -> World:
        """A world consistent with everything this seat knows, drawn with ``rng``."""
        return self._sampler.sample_world(self._game, self.seat, rng)  # type: ignore[no-any-return]

    def worth_searching(self) -> bool:
        return bool(self._sampler.worth_searching(self._game, self.seat))

    def hand_start(self) -> int:
        """How many actions the game had before the current hand's deal (public; the sampler's
        ``hand_start``)."""
        return int(self._sampler.hand_start(self._game))

    def knowledge(self) -> tuple[Any, ...]:
        return self._sampler.knowledge(self._game, self.seat)  # type: ignore[no-any-return]

    def action_to_str(self, action: int) -> str:
        return self._game.action_to_str(action)

    def __repr__(self) -> str:
        return (f"Infoset({self.env_id}, seat {self.seat}, {len(self.legal)} legal moves, "
                f"phase {self._game.phase!r})")


def infoset(env: Any, agent: str | None = None) -> Infoset:
    """The information set of the agent to move in an AEC env from ``cahoots_envs.make`` (or
    ``make_raw``); ``agent`` defaults to ``env.agent_selection`` and must be the one to move."""
    game = getattr(env, "game", None)
    spec = getattr(env, "spec", None)
    if not isinstance(game, Game) or not isinstance(spec, GameSpec):
        raise TypeError("infoset(env) takes an env from cahoots_envs.make() after reset(); for a "
                        "bare game use Infoset(game, seat, spec, options)")
    if not spec.has("world_sampler"):
        raise NotAvailableError(f"world sampler is not available for {spec.name}")
    seat = game.current_player if agent is None else env.possible_agents.index(agent)
    return Infoset(game, seat, spec, env.options)
