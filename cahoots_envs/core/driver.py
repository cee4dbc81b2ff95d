"""The one driver of what a learner sees: turn order, masks, observations and rewards.

The AEC adapter (``core/aec.py``), the seat envs (``evaluation/tables.py``) and imitation
(``training/imitation.py``) all turn a ``Game`` into rewards through ``RewardRule``, so the rule
of CONTRACT §4 is written once:

- ``reward_mode="points"``: a seat's reward is ``POINTS_SIGN`` times its change of score (points
  a deal itself awards, such as cahoots_coop's goals met at setup, count from the deal);
- ``reward_mode="win"``: a seat's reward is its ``outcome()`` payoff when the game ends.

Both are differences of one *value* per seat, ``RewardRule.value(game, seat)``: the reward earned
between two moments is the value after minus the value before (0 before the deal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game

REWARD_MODES = ("win", "points")


class RewardRule:
    """Rewards of ``reward_mode`` for a game whose rulebook points have sign ``sign``."""

    __slots__ = ("points", "sign")

    def __init__(self, reward_mode: str, sign: int = 1) -> None:
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        self.points = reward_mode == "points"
        self.sign = sign

    @classmethod
    def of(cls, game_cls: type[Game], options: Mapping[str, Any]) -> RewardRule:
        return cls(options["reward_mode"], game_cls.POINTS_SIGN)

    def value(self, game: Game, seat: int) -> float:
        """What ``seat`` has earned since the deal (so rewards are differences of values)."""
        if self.points:
            return self.sign * float(game.scores[seat])
        return float(game.outcome()[seat]) if game.is_over else 0.0

    def values(self, game: Game) -> list[float]:
        """``value`` for every seat at once."""
        if self.points:
            return [self.sign * float(s) for s in game.scores]
        if game.is_over:
            return [float(x) for x in game.outcome()]
        return [0.0] * game.num_players


def fill_mask(game: Game, out: np.ndarray) -> np.ndarray:
    """The legal actions of the seat to move as 0/1 in ``out`` (all zero once the game is over)."""
    out[:] = 0
    if not game.is_over:
        out[game.legal_actions()] = 1
    return out


def fill_observation(game: Game, seat: int, out: np.ndarray) -> np.ndarray:
    """``seat``'s observation written into ``out`` (zeroed first)."""
    out[:] = 0
    game.encode(seat, out)
    return out


def win_shares(outcome: Sequence[float]) -> list[float]:
    """Each seat's share of the win in a finished competitive game, from its ``outcome()``
    payoffs: the k seats with a positive payoff share the win, 1/k each; a full tie (nobody
    positive) is an N-way tie, 1/N each. The shares add up to 1, so N equally strong players each
    expect 1/N. Tournaments, training evaluation and ``cahoots strength`` all count wins so."""
    winners = [s for s, x in enumerate(outcome) if x > 0] or list(range(len(outcome)))
    share = 1.0 / len(winners)
    return [share if s in winners else 0.0 for s in range(len(outcome))]
