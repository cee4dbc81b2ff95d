"""Games with one learner seat (or a whole team) and opponents, driven through the engine.

Seat environments drive the ``Game`` engine directly through the public methods the AEC adapter
uses (``legal_actions``, ``apply``, ``encode``) rather than the AEC loop, and reward the learner
through the same ``RewardRule`` as the AEC env (``core/driver.py``). ``Table.collect`` hands over
everything earned since the learner's last decision (the first call: since the deal), including
what arrives when an opponent's move ends the game. ``advance`` moves every opponent of many
tables, one ``act_batch`` call per opponent policy per round.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.driver import RewardRule
from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.policy import Policy
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.policies.envinfo import EnvInfo

TEAM = -1  # learner "seat" of a team table: the learner plays every seat


class Table:
    """One game: ``learner`` is a seat (or ``TEAM``); ``policies[seat]`` drives each other seat."""

    __slots__ = ("game", "learner", "names", "policies", "reward_rule", "value")

    def __init__(self, game: Game, learner: int, policies: Sequence[Policy | None],
                 names: Sequence[str], reward_rule: RewardRule) -> None:
        self.game = game
        self.learner = learner
        self.policies = list(policies)
        self.names = list(names)
        self.reward_rule = reward_rule
        # what the learner has been paid so far: points a deal itself awards (cahoots_coop: goals
        # met at setup) come with its first step, as the AEC env pays them at reset
        self.value = 0.0

    @property
    def reward_seat(self) -> int:
        # a cooperative team's seats all earn the same reward: seat 0 stands for the team
        # (and for tables without a learner, which evaluation plays out)
        return max(self.learner, 0)

    @property
    def obs_seat(self) -> int:
        return self.game.current_player if self.learner == TEAM else self.learner

    def learner_to_move(self) -> bool:
        g = self.game
        return not g.is_over and (self.learner == TEAM or g.current_player == self.learner)

    def opponent_to_move(self) -> bool:
        g = self.game
        return not g.is_over and self.learner != TEAM and g.current_player != self.learner

    def collect(self) -> float:
        """The learner's reward since the last call (its last decision)."""
        value = self.reward_rule.value(self.game, self.reward_seat)
        reward, self.value = value - self.value, value
        return reward

    def won(self) -> bool:
        return self.reward_seat in self.game.winning_seats()


def advance(tables: Sequence[Table], info: EnvInfo) -> None:
    """Play opponents' moves until each table's learner is to move or its game is over,
    batching all tables where the same policy object moves into one ``act_batch`` call."""
    size, n_actions = info.layout.size, info.num_actions
    while True:
        groups: dict[int, list[Table]] = defaultdict(list)
        for t in tables:
            if t.opponent_to_move():
                groups[id(t.policies[t.game.current_player])].append(t)
        if not groups:
            return
        for group in groups.values():
            policy = group[0].policies[group[0].game.current_player]
            assert policy is not None
            obs = np.zeros((len(group), size), OBS_DTYPE)
            masks = np.zeros((len(group), n_actions), np.int8)
            for i, t in enumerate(group):
                g = t.game
                g.encode(g.current_player, obs[i])
                masks[i, g.legal_actions()] = 1
            if getattr(policy, "needs_infoset", False):  # a search bot decides table by table
                from cahoots_envs.search import Infoset

                actions = np.array([
                    policy.act_infoset(Infoset(  # type: ignore[attr-defined]
                        t.game, t.game.current_player, info.spec,
                        info.options, obs[i], masks[i]))
                    for i, t in enumerate(group)])
            else:
                actions = policy.act_batch(obs, masks)
            for i, t in enumerate(group):
                a = int(actions[i])
                if not 0 <= a < n_actions or not masks[i, a]:
                    seat = t.game.current_player
                    raise IllegalActionError(
                        f"opponent {t.names[seat]!r} in seat {seat} chose illegal action {a}"
                    )
                t.game.apply(a)


def reseed(policy: Any, seed: int) -> None:
    """Reseed a policy's generator (``reseed(seed)`` or an ``rng`` attribute) for reproducible
    episodes after ``reset(seed=...)``; policies without either are left alone."""
    if hasattr(policy, "reseed"):
        policy.reseed(seed)
    elif isinstance(getattr(policy, "rng", None), np.random.Generator):
        policy.rng = np.random.default_rng(seed)
