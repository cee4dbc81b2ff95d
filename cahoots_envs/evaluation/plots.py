"""The tournament chart: ratings with their intervals and win rates with theirs (matplotlib)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
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
    wr = np.array([s.win_rate for s in stats])
    lo = np.array([s.win_rate_ci[0] for s in stats])
    hi = np.array([s.win_rate_ci[1] for s in stats])
    # rounding can leave an end a hair past the rate (a share of 0 gets a low end of ~1e-17):
    # matplotlib refuses negative bar lengths
    xerr = np.clip([wr - lo, hi - wr], 0.0, None)
    ax.errorbar(wr, y, xerr=xerr, fmt="s", color="tab:green", capsize=4)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% Wilson interval)")
    game = result.env_id.split("/", 1)[-1]
    title = f"{game}, {result.num_players} players, {len(result.games)} games (seed {result.seed})"
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110, metadata={"Title": title})  # the docs' tests read it
    plt.close(fig)
    return path
