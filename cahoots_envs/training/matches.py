"""Batched matches for evaluation: many games at once, each policy acting on all its games.

``seat_matches`` puts a candidate in one seat (rotated over games) against one opponent policy in
every other seat and reports the candidate's win share with a 95% confidence interval. A win is
a positive ``outcome()`` payoff (the best score); a k-way tie for the win counts 1/k and a full
tie 1/N (``core.driver.win_shares``, as in ``cahoots eval``), so equally strong players each
expect exactly 1/N. ``team_matches`` plays a cooperative game with one policy in every seat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cahoots_envs.core.driver import RewardRule, win_shares
from cahoots_envs.core.policy import Policy
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.training.tables import Table, advance

NOBODY = -2  # no learner: every seat is driven by a policy


@dataclass
class MatchResult:
    games: int
    win_rate: float  # candidate's mean win share
    ci_low: float
    ci_high: float
    chance: float  # 1/N for seat matches; None-equivalent 0 for team matches
    mean_score: float
    mean_outcome: float

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}

    def __str__(self) -> str:
        return (f"{self.win_rate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}] over {self.games} "
                f"games (chance {self.chance:.3f})")


def _summary(shares: np.ndarray, scores: np.ndarray, outcomes: np.ndarray, chance: float) -> MatchResult:
    n = len(shares)
    mean = float(shares.mean())
    half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(n) if n > 1 else 1.0
    return MatchResult(n, mean, max(0.0, mean - half), min(1.0, mean + half), chance,
                       float(scores.mean()), float(outcomes.mean()))


def _play(env_id: str, options: Mapping[str, Any] | None, seatings: list[list[Policy]],
          seed: int, batch: int) -> list[Any]:
    info = env_info(env_id, options)
    rng = np.random.default_rng(seed)
    games: list[Any] = []
    reward_rule = RewardRule.of(info.game_cls, info.options)
    for start in range(0, len(seatings), batch):
        tables = []
        for seating in seatings[start : start + batch]:
            game = info.game_cls(info.options, np.random.default_rng(rng.integers(2**63)), None)
            tables.append(Table(game, NOBODY, seating, [getattr(p, "name", "?") for p in seating],
                                reward_rule))
        advance(tables, info)
        games.extend(t.game for t in tables)
    return games


def seat_matches(env_id: str, candidate: Policy, opponent: Policy, games: int,
                 options: Mapping[str, Any] | None = None, seed: int = 0,
                 batch: int = 256) -> MatchResult:
    """``candidate`` in seat ``g % N`` of game ``g``, ``opponent`` in all other seats."""
    info = env_info(env_id, options)
    n = info.options["num_players"]
    seats = [g % n for g in range(games)]
    seatings = [[candidate if s == seat else opponent for s in range(n)] for seat in seats]
    played = _play(env_id, options, seatings, seed, batch)
    shares, scores, outcomes = [], [], []
    for seat, game in zip(seats, played):
        shares.append(win_shares(game.outcome())[seat])  # a k-way shared win counts 1/k
        scores.append(float(game.scores[seat]))
        outcomes.append(float(game.outcome()[seat]))
    return _summary(np.array(shares), np.array(scores), np.array(outcomes), 1.0 / n)


def team_matches(env_id: str, policy: Policy, games: int,
                 options: Mapping[str, Any] | None = None, seed: int = 0,
                 batch: int = 256) -> MatchResult:
    """A cooperative game with ``policy`` in every seat; a win is the team's win."""
    info = env_info(env_id, options)
    n = info.options["num_players"]
    played = _play(env_id, options, [[policy] * n for _ in range(games)], seed, batch)
    wins = np.array([1.0 if g.outcome()[0] > 0 else 0.0 for g in played])
    scores = np.array([float(g.scores[0]) for g in played])
    return _summary(wins, scores, wins, 0.0)
