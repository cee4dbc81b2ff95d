"""Games with one learner seat (or a whole team) and opponents, driven through the engine.

Seat environments drive the ``Game`` engine directly through the public methods the AEC adapter
uses (``legal_actions``, ``apply``, ``encode``, ``scores``, ``outcome``) rather than the AEC
loop: the learner is rewarded exactly as the env's ``reward_mode`` rewards that seat
(``CardGameEnv.step``): in ``"points"`` mode ``POINTS_SIGN`` times its score change, in
``"win"`` mode its ``outcome()`` payoff when the game ends. ``Table.collect`` hands over
everything earned since the learner's last decision (the first call: since the deal), including
what arrives when an opponent's move ends the game. ``advance`` moves every opponent of many
tables, one ``act_batch`` call per opponent policy per round.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.policies.base import Policy
from cahoots_envs.policies.envinfo import EnvInfo

TEAM = -1  # learner "seat" of a team table: the learner plays every seat


class Table:
    """One game: ``learner`` is a seat (or ``TEAM``); ``policies[seat]`` drives each other seat."""

    __slots__ = (
        "decisions",
        "game",
        "last_score",
        "learner",
        "names",
        "paid",
        "points",
        "policies",
        "sign",
    )

    def __init__(self, game: Game, learner: int, policies: Sequence[Policy | None],
                 names: Sequence[str], reward_mode: str, sign: int) -> None:
        self.game = game
        self.learner = learner
        self.policies = list(policies)
        self.names = list(names)
        self.points = reward_mode == "points"
        self.sign = sign
        # points a deal itself awards (cahoots_coop: goals met at setup) come with the learner's
        # first step, as the AEC env pays them at reset for each agent's first last()
        self.last_score = 0.0
        self.paid = False
        self.decisions = 0

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
        reward = 0.0
        seat = self.reward_seat
        if self.points:
            score = float(self.game.scores[seat])
            reward += self.sign * (score - self.last_score)
            self.last_score = score
        elif self.game.is_over and not self.paid:
            reward += float(self.game.outcome()[seat])
        if self.game.is_over:
            self.paid = True
        return reward

    def won(self) -> bool:
        outcome = self.game.outcome()
        return outcome[self.reward_seat] > 0


def encode(game: Game, seat: int, out: np.ndarray) -> np.ndarray:
    out[:] = 0
    game.encode(seat, out)
    return out


def fill_mask(game: Game, out: np.ndarray) -> np.ndarray:
    out[:] = 0
    if not game.is_over:
        out[game.legal_actions()] = 1
    return out


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
