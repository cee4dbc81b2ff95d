"""The charts: a tournament's ratings with their intervals and win rates with theirs, and a
cross-play's team win rates (matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from cahoots_envs.evaluation.cross_play import CrossPlayResult
    from cahoots_envs.evaluation.report import TournamentResult


def plot_tournament(result: TournamentResult, path: str | Path) -> Path:
    """``result.plot(path)``: the chart of ``result`` written to ``path`` as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label = result.labels()
    names = [label[s.policy] for s in result.stats][::-1]
    stats = result.stats[::-1]
    y = np.arange(len(names))
    ncols = 2 if result.rating_model else 1
    fig, axes = plt.subplots(1, ncols, figsize=(4.5 * ncols + 1.5, 0.55 * len(names) + 1.6),
                             squeeze=False)
    ax = axes[0][0]
    if result.rating_model:
        mu = np.array([s.rating_mu for s in stats])
        sig = np.array([s.rating_sigma for s in stats])
        ax.errorbar(mu, y, xerr=2 * sig, fmt="o", capsize=4)
        ax.set_yticks(y, names)
        ax.set_xlabel(f"OpenSkill {result.rating_model} rating (mu ± 2 sigma)")
        ax = axes[0][1]
    _win_rates(ax, names, [(s.win_rate, *s.win_rate_ci) for s in stats],
               "win rate (95% Wilson interval)")
    game = result.env_id.split("/", 1)[-1]
    title = f"{game}, {result.num_players} players, {len(result.games)} games (seed {result.seed})"
    return _save(fig, title, path)


def plot_cross_play(result: CrossPlayResult, path: str | Path) -> Path:
    """``result.plot(path)``: every lineup's team win rate with its 95% interval, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    label = result.labels()
    stats = result.lineups[::-1]
    names = [s.name(label) for s in stats]
    fig, ax = plt.subplots(figsize=(7.5, 0.4 * len(names) + 1.6))
    _win_rates(ax, names, [(s.win_rate, *s.win_rate_ci) for s in stats],
               "team win rate (95% Wilson interval)")
    game = result.env_id.split("/", 1)[-1]
    title = (f"{game}, {result.num_players} players, cross-play, {result.num_deals} deals per "
             f"lineup (seed {result.seed})")
    return _save(fig, title, path)


def _win_rates(ax: Any, names: Sequence[str], rates: Sequence[tuple[float, float, float]],
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
