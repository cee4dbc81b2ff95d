"""The charts: a tournament's ratings with their intervals and win rates with theirs, and a
cross-play's team win rates (matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# The charts take plain rows, not the result classes: ``report`` and ``cross_play`` import this
# module to draw their results, so it imports neither (no circle, type-checking imports counted).
WinRate = tuple[float, float, float]  # a win rate with the low and high ends of its interval


def plot_tournament(path: str | Path, title: str, names: Sequence[str],
                    win_rates: Sequence[WinRate], rating_model: str | None = None,
                    ratings: Sequence[tuple[float | None, float | None]] = ()) -> Path:
    """A tournament's chart (``TournamentResult.plot``), one row per name from the bottom up:
    with a ``rating_model``, each rating (mu, sigma) as mu ± 2 sigma beside the win rates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y = np.arange(len(names))
    ncols = 2 if rating_model else 1
    fig, axes = plt.subplots(1, ncols, figsize=(4.5 * ncols + 1.5, 0.55 * len(names) + 1.6),
                             squeeze=False)
    ax = axes[0][0]
    if rating_model:
        mu = np.array([r[0] for r in ratings])
        sig = np.array([r[1] for r in ratings])
        ax.errorbar(mu, y, xerr=2 * sig, fmt="o", capsize=4)
        ax.set_yticks(y, names)
        ax.set_xlabel(f"OpenSkill {rating_model} rating (mu ± 2 sigma)")
        ax = axes[0][1]
    _win_rates(ax, names, win_rates, "win rate (95% Wilson interval)")
    return _save(fig, title, path)


def plot_cross_play(path: str | Path, title: str, names: Sequence[str],
                    win_rates: Sequence[WinRate]) -> Path:
    """A cross-play's chart (``CrossPlayResult.plot``): every lineup's team win rate with its
    95% interval, one row per name from the bottom up."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 0.4 * len(names) + 1.6))
    _win_rates(ax, names, win_rates, "team win rate (95% Wilson interval)")
    return _save(fig, title, path)


def _win_rates(ax: Any, names: Sequence[str], rates: Sequence[WinRate],
               xlabel: str) -> None:
    """Win rates (rate, low, high) as points with interval bars, one row per name."""
    y = np.arange(len(names))
    wr, lo, hi = (np.array(column) for column in zip(*rates))
    # rounding can leave an end a hair past the rate (a share of 0 gets a low end of ~1e-17):
    # matplotlib refuses negative bar lengths
    xerr = np.clip([wr - lo, hi - wr], 0.0, None)
    ax.errorbar(wr, y, xerr=xerr, fmt="s", color="tab:green", capsize=4)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)


def _save(fig: Any, title: str, path: str | Path) -> Path:
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, metadata={"Title": title})  # the docs' tests read it
    plt.close(fig)
    return path
