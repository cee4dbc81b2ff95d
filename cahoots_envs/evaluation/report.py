"""A tournament's report: the statistics of its games (win rates, scores, head to head, ratings)
and their outputs (the text table, JSON, the chart)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.driver import win_shares
from cahoots_envs.core.stats import mean_interval, wilson_interval
from cahoots_envs.evaluation.ratings import game_player, rate
from cahoots_envs.evaluation.results import GameResult, PolicyStats


class JsonReport:
    """What the reports share: their JSON, from ``to_dict``."""

    def to_dict(self, include_games: bool = False) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, path: str | Path | None = None, include_games: bool = False) -> str:
        text = json.dumps(self.to_dict(include_games), indent=2)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text


@dataclass
class TournamentResult(JsonReport):
    env_id: str
    options: dict[str, Any]
    num_players: int
    policies: list[str]
    seed: int
    cooperative: bool
    lower_score_is_better: bool
    games: list[GameResult]
    stats: list[PolicyStats]
    head_to_head: dict[str, dict[str, float | None]]
    rating_model: str | None
    meta: dict[str, Any] = field(default_factory=dict)
    field_policy: str | None = None  # candidates against this field (see the package docstring)

    # ---- output ------------------------------------------------------------------------------
    def to_dict(self, include_games: bool = False) -> dict[str, Any]:
        out = {
            "env_id": self.env_id,
            "options": self.options,
            "num_players": self.num_players,
            "policies": self.policies,
            "seed": self.seed,
            "num_games": len(self.games),
            "cooperative": self.cooperative,
            "lower_score_is_better": self.lower_score_is_better,
            "rating_model": self.rating_model,
            "stats": [dict(asdict(s), label=self.labels()[s.policy], rating_ordinal=s.rating_ordinal)
                      for s in self.stats],
            "head_to_head": self.head_to_head,
            "field": self.field_policy,
            **self.meta,
        }
        if include_games:
            out["games"] = [asdict(g) for g in self.games]
        return out

    def labels(self) -> dict[str, str]:
        """Unique display names for the table and chart (a saved policy by its run folder)."""
        return display_labels(self.policies)

    def table(self) -> str:
        """The results as a text table, at most 80 columns wide. Labels are shown in full: one
        too long for the name column gets a line of its own above its row."""
        label = self.labels()
        game = self.env_id.split("/", 1)[-1]
        lines = [
            f"{game}, {self.num_players} players, {len(self.games)} games, seed {self.seed}"
            + (" (cooperative: each policy plays every seat)" if self.cooperative else ""),
        ]
        if self.field_policy is not None:
            others = self.num_players - 1
            lines.extend(textwrap.wrap(
                f"each candidate in one seat (rotated) against {others} {label[self.field_policy]}; "
                f"its win rate is its win share (chance 1/{self.num_players} = "
                f"{1 / self.num_players:.0%})", 80))
        score_label = "goals" if self.cooperative else (
            "score, low=good" if self.lower_score_is_better else "score")
        rest = 1 + 5 + 2 + 18 + 1 + 25 + (13 if self.rating_model else 0)
        name_w = max(8, min(max(len(v) for v in label.values()), 80 - rest))
        header = (f"{'policy':<{name_w}} {'games':>5}  {'win rate (95% CI)':<18} "
                  f"{score_label + ' (95% CI)':<25}")
        if self.rating_model:
            header += f" {'rating':>12}"
        lines.extend(across_lines(self.meta, label))
        lines.append(header.rstrip())

        def named(name: str, row: str) -> list[str]:
            if len(name) <= name_w:
                return [f"{name:<{name_w}}{row}".rstrip()]
            return [*textwrap.wrap(name, 80, break_on_hyphens=False), f"{'':<{name_w}}{row}"]

        for s in self.stats:
            wr = f"{s.win_rate:6.1%} ({s.win_rate_ci[0]:.0%}-{s.win_rate_ci[1]:.0%})"
            sc = f"{s.mean_score:7.2f} ({s.mean_score_ci[0]:.1f} to {s.mean_score_ci[1]:.1f})"
            row = f" {s.seat_games:>5}  {wr:<18} {sc:<25}"
            if s.rating_mu is not None and s.rating_sigma is not None:
                row += f" {s.rating_mu:5.1f} ± {2 * s.rating_sigma:4.1f}"
            lines.extend(named(label[s.policy], row))
        if len(self.policies) > 1 and not self.cooperative:
            lines.append("")
            lines.append("head to head: how often the row policy finished ahead of the column policy")
            numbered = any(len(label[p]) > 10 for p in self.policies)
            column = {p: f"[{i + 1}]" if numbered else label[p] for i, p in enumerate(self.policies)}
            row_name = {p: f"[{i + 1}] {label[p]}" if numbered else label[p]
                        for i, p in enumerate(self.policies)}
            name_w = max(8, min(max(len(v) for v in row_name.values()),
                                80 - 12 * len(self.policies)))
            lines.append(f"{'':<{name_w}}" + "".join(f"  {column[p]:>10}" for p in self.policies))
            for a in self.policies:
                cells = []
                for b in self.policies:
                    v = self.head_to_head[a].get(b) if a != b else None
                    cells.append(f"  {'-' if v is None else f'{v:.0%}':>10}")
                lines.extend(named(row_name[a], "".join(cells)))
        if self.rating_model:
            lines.append(f"(rating: OpenSkill {self.rating_model} mu ± 2 sigma; "
                         "table ordered by mu - 3 sigma)")
        renamed = [f"{v} = {k}" for k, v in label.items() if k != v]
        if renamed:
            lines.extend(textwrap.wrap("(" + "; ".join(renamed) + ")", 80,
                                       break_on_hyphens=False))
        return "\n".join(lines)

    def plot(self, path: str | Path) -> Path:
        """A PNG chart: ratings with ±2 sigma intervals and win rates with 95% intervals."""
        from cahoots_envs.evaluation.plots import plot_tournament

        label = self.labels()
        stats = self.stats[::-1]
        game = self.env_id.split("/", 1)[-1]
        title = f"{game}, {self.num_players} players, {len(self.games)} games (seed {self.seed})"
        return plot_tournament(path, title, [label[s.policy] for s in stats],
                               [(s.win_rate, *s.win_rate_ci) for s in stats], self.rating_model,
                               [(s.rating_mu, s.rating_sigma) for s in stats])


def across_lines(meta: Mapping[str, Any], label: Mapping[str, str]) -> list[str]:
    """A report's lines naming the saved policies that play across an option (``meta``'s
    ``option_differences``), wrapped at 80 columns."""
    lines: list[str] = []
    for name, differences in meta.get("option_differences", {}).items():
        played = ", ".join(f"{k}={now!r} (trained at {trained!r})"
                           for k, (trained, now) in differences.items())
        lines.extend(textwrap.wrap(f"{label.get(name, name)} plays across {played}", 80))
    return lines


def display_labels(policies: Sequence[str]) -> dict[str, str]:
    """A unique display label for each policy, in full: a spec as written, a saved policy's path
    by its run folder (``runs/<run>/policy.safetensors``) or file stem, numbered on a clash."""
    out: dict[str, str] = {}
    for spec in policies:
        label = spec
        if "/" in spec or spec.endswith((".safetensors", ".json", ".zip")):
            path = Path(spec)
            label = path.parent.name if path.stem == "policy" and path.parent.name else path.stem
            label = label or spec
        base, k = label, 2
        while label in out.values():
            label = f"{base}#{k}"
            k += 1
        out[spec] = label
    return out


def summarise(
    env_id: str,
    options: Mapping[str, Any],
    policies: list[str],
    seed: int,
    results: list[GameResult],
    field_policy: str | None = None,
) -> TournamentResult:
    from cahoots_envs.registry import make_raw

    raw = make_raw(env_id, **dict(options))
    cls = raw.game_cls
    n = len(raw.possible_agents)
    cooperative = bool(cls.COOPERATIVE)
    sign = int(cls.POINTS_SIGN)
    results = sorted(results, key=lambda r: r.game)
    pseudo = game_player(cls, raw.options)
    rated = rate(results, policies, cooperative, sign, pseudo)
    stats = []
    for p in policies:
        scores, wins, payoffs = [], 0.0, []
        seat_n = [0] * n
        seat_w = [0.0] * n
        for r in results:
            if cooperative:
                if r.lineup[0] != p:
                    continue
                scores.append(r.scores[0])
                wins += 1.0 if r.won else 0.0
                payoffs.append(r.outcome[0])
                for s in range(n):
                    seat_n[s] += 1
                    seat_w[s] += 1.0 if r.won else 0.0
                continue
            shares = win_shares(r.outcome)
            for s, q in enumerate(r.lineup):
                if q != p:
                    continue
                scores.append(r.scores[s])
                win = shares[s]
                wins += win
                payoffs.append(r.outcome[s])
                seat_n[s] += 1
                seat_w[s] += win
        count = len(scores)
        mean, lo, hi = mean_interval(scores)
        stat = PolicyStats(
            policy=p,
            seat_games=count,
            wins=wins,
            win_rate=wins / count if count else 0.0,
            win_rate_ci=wilson_interval(wins, count),
            mean_score=mean,
            mean_score_ci=(lo, hi),
            mean_payoff=float(np.mean(payoffs)) if payoffs else 0.0,
            per_seat_win_rate=[seat_w[s] / seat_n[s] if seat_n[s] else None for s in range(n)],
        )
        if rated is not None:
            stat.rating_mu, stat.rating_sigma = rated[0][p]
        stats.append(stat)
    if rated is not None:
        stats.sort(key=lambda s: -(s.rating_ordinal or 0.0))
    else:
        stats.sort(key=lambda s: -s.win_rate)
    head: dict[str, dict[str, float | None]] = {a: {} for a in policies}
    for a in policies:
        for b in policies:
            total = ahead = 0.0
            if not cooperative:
                for r in results:
                    for i, pa in enumerate(r.lineup):
                        if pa != a:
                            continue
                        for j, pb in enumerate(r.lineup):
                            if pb != b or i == j:
                                continue
                            ka = (r.outcome[i], sign * r.scores[i])
                            kb = (r.outcome[j], sign * r.scores[j])
                            total += 1
                            ahead += 1.0 if ka > kb else 0.5 if ka == kb else 0.0
            head[a][b] = ahead / total if total else None
    meta: dict[str, Any] = {}
    if rated is not None and cooperative:
        mu, sigma = rated[0][pseudo]
        meta["difficulty_rating"] = {"name": pseudo, "mu": mu, "sigma": sigma}
    game_options = dict(raw.options)
    return TournamentResult(
        env_id=raw.env_id, options=game_options, num_players=n, policies=list(policies),
        seed=seed, cooperative=cooperative, lower_score_is_better=sign < 0, games=results,
        stats=stats, head_to_head=head, rating_model=rated[1] if rated else None, meta=meta,
        field_policy=field_policy,
    )
