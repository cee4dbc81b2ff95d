"""The confidence intervals every report of the package gives, in one place.

Two families, each kept exactly as its figures were published:

- tournaments (``cahoots eval``, ``cahoots_envs.evaluation``): a win rate with the Wilson score
  interval (``wilson_interval``) and a mean score with the normal interval of the mean
  (``mean_interval``), both at ``Z95``, the exact 97.5% normal quantile;
- training's evaluation matches (``evaluation/matches.py``: ``eval.csv``, the trainers' lines,
  ``cahoots strength``): a mean per-game share with the normal interval of the mean at
  ``Z95_ROUNDED`` (1.96) clipped to [0, 1], and the whole [0, 1] from a single game
  (``share_interval``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
Z95_ROUNDED = 1.96  # the quantile training's matches have always used (their eval.csv figures)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float] | np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): a normal-approximation 95% interval of the mean."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = float(np.mean(values))
    if n == 1:
        return mean, mean, mean
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def share_interval(values: Sequence[float] | np.ndarray, z: float = Z95_ROUNDED
                   ) -> tuple[float, float, float]:
    """(mean, low, high) of per-game shares in [0, 1] (win shares, team wins): the normal interval
    of the mean (``mean_interval``) clipped to [0, 1]; one game (or none) gives the whole [0, 1]."""
    if len(values) > 1:
        mean, low, high = mean_interval(values, z)
        return mean, max(0.0, low), min(1.0, high)
    mean = float(np.mean(values))
    return mean, max(0.0, mean - 1.0), min(1.0, mean + 1.0)
