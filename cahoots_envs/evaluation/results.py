"""The records of a tournament: one game's result and one policy's statistics."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GameResult:
    game: int
    seed: int
    lineup: list[str]
    scores: list[float]
    outcome: list[float]
    turns: int
    won: bool | None = None  # cooperative games only


@dataclass
class PolicyStats:
    policy: str
    seat_games: int
    wins: float
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    mean_payoff: float
    per_seat_win_rate: list[float | None]
    rating_mu: float | None = None
    rating_sigma: float | None = None

    @property
    def rating_ordinal(self) -> float | None:
        if self.rating_mu is None or self.rating_sigma is None:
            return None
        return self.rating_mu - 3 * self.rating_sigma
