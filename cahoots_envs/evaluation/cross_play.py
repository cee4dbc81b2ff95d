"""Mixed teams in a cooperative game: the cross-play table (``cahoots eval <game> A B ...
--cross-play``).

    from cahoots_envs.evaluation import cross_play
    result = cross_play("cahoots_coop", ["heuristic", "random"], num_deals=300, seed=0)
    print(result.table())            # terminal table
    result.to_json("cross.json")     # for tools
    result.plot("cross.png")         # every lineup's team win rate with its interval

**Lineups.** With N seats, each policy's own team (every seat that policy) and, for each pair of
policies A and B (in the order given), the mixed lineups of k seats of A and N - k of B for
k = N-1 down to 1: with 3 players ``A A B`` and ``A B B``; with 2 ``A B``; with 4 ``A A A B``,
``A A B B`` and ``A B B B``. A pair's lineups cover both ways round (k seats of B and N - k of A
is the lineup of N - k seats of A), so no lineup is played twice.

**Deals and seats.** Every lineup plays the same deals: deal ``d`` deals from
``SeedSequence([seed, d])`` and seat ``s`` draws from ``SeedSequence([seed, d, 1 + s])``
(``game_seed``), so lineups are compared on paired deals. The lineup ``L`` (k seats of A, then
the rest of B) is rotated by the deal: seat ``s`` of deal ``d`` plays ``L[(s + d) mod N]``, so
over each N deals every policy of a lineup sits in every seat equally often and every seat meets
every policy of the lineup (make ``num_deals`` a multiple of N).

**Options.** A policy sits only in games whose options it may play: a saved policy is bound to
the env and options it was trained on, and may differ only in the options marked
``policy_may_differ`` (the difficulty, the number of goals). One that may not play these options
is left out of every lineup, with a one-line note in the table and ``left_out`` in the JSON,
before any game is played; one playing across an option is noted as in ``run_tournament``.

**Statistics.** Each lineup's team win rate with its 95% Wilson interval and mean goals with
the normal interval of the mean (``core.stats``). The table's row A, column B cell gives the
lineups of k seats of A (and N - k of B), one line per k; the diagonal gives A's own team.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cahoots_envs.core.stats import mean_interval, wilson_interval
from cahoots_envs.evaluation.play import (
    check_sources,
    game_seed,
    make_log_dir,
    named_sources,
    object_refs,
    play_tasks,
    progress_bar,
)
from cahoots_envs.evaluation.report import JsonReport, across_lines, display_labels
from cahoots_envs.evaluation.results import GameResult

CELL = 14  # "100% (100-100)": a cell of the cross-play table


def cross_play_lineups(policies: Sequence[str], num_players: int) -> list[list[str]]:
    """The lineups of a cross-play (see the module docstring): each policy's own team, then for
    each pair (A, B) in order, k seats of A and the rest of B for k = N-1 down to 1."""
    n = num_players
    if n < 2:
        raise ValueError("a cross-play needs at least 2 seats")
    lineups = [[p] * n for p in policies]
    for a, b in itertools.combinations(policies, 2):
        lineups.extend([a] * k + [b] * (n - k) for k in range(n - 1, 0, -1))
    return lineups


def seated(lineup: Sequence[str], deal: int) -> list[str]:
    """The policy in each seat of ``deal``: the lineup rotated by the deal."""
    n = len(lineup)
    return [lineup[(s + deal) % n] for s in range(n)]


_DIFFERENCE = re.compile(r"option (\w+)=(.+?) in the policy but \1=(.+?) in the env")


def short_reason(why: str) -> str:
    """The gist of an ``IncompatiblePolicyError``: each option that differs (``open_hands=True
    here, trained with False``), else its first reason."""
    found = _DIFFERENCE.findall(why)
    if found:
        return "; ".join(f"{key}={now} here, trained with {trained}" for key, trained, now in found)
    head, sep, rest = why.partition("}: ")
    return (rest if sep else head).split("; ")[0]


@dataclass
class LineupStats:
    lineup: list[str]  # the lineup before rotation: k seats of one policy, then the rest
    seats: dict[str, int]  # seats of each policy
    deals: int
    wins: int
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_goals: float
    mean_goals_ci: tuple[float, float]

    def name(self, label: Mapping[str, str]) -> str:
        """``3 heuristic`` or ``2 heuristic + 1 random``."""
        return " + ".join(f"{k} {label.get(p, p)}" for p, k in self.seats.items())


@dataclass
class CrossPlayResult(JsonReport):
    env_id: str
    options: dict[str, Any]
    num_players: int
    policies: list[str]  # those that played (left-out ones are in ``left_out``)
    seed: int
    num_deals: int
    lineups: list[LineupStats]
    games: list[GameResult]
    left_out: dict[str, str] = field(default_factory=dict)  # policy -> why it may not play
    meta: dict[str, Any] = field(default_factory=dict)

    def labels(self) -> dict[str, str]:
        return display_labels([*self.policies, *self.left_out])

    def lineup(self, a: str, b: str | None = None, k: int | None = None) -> LineupStats:
        """A's own team, or the lineup of ``k`` seats of ``a`` and the rest of ``b``."""
        n = self.num_players
        if b is None or a == b:
            want = {a: n}
        else:
            if k is None or not 0 < k < n:
                raise ValueError(f"k must be 1 to {n - 1} for a mixed lineup")
            want = {a: k, b: n - k}
        for stats in self.lineups:
            if stats.seats == want:
                return stats
        raise KeyError(f"no lineup {want}")

    def cross_table(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """``{A: {B: [cell for k = N-1 .. 1]}}``: the lineup of k seats of A and N - k of B
        (A's own team when A is B), with its team win rate and interval."""
        n = self.num_players
        out: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for a in self.policies:
            out[a] = {}
            for b in self.policies:
                cells = []
                for k in range(n - 1, 0, -1):
                    s = self.lineup(a, b, k)
                    cells.append({"seats": k, "lineup": s.lineup, "win_rate": s.win_rate,
                                  "win_rate_ci": list(s.win_rate_ci)})
                out[a][b] = cells
        return out

    # ---- output ------------------------------------------------------------------------------
    def to_dict(self, include_games: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": "cross_play",
            "env_id": self.env_id,
            "options": self.options,
            "num_players": self.num_players,
            "policies": self.policies,
            "seed": self.seed,
            "num_deals": self.num_deals,
            "num_games": len(self.games),
            "cooperative": True,
            "left_out": self.left_out,
            "lineups": [asdict(s) for s in self.lineups],
            "cross_play": self.cross_table(),
            **self.meta,
        }
        if include_games:
            out["games"] = [asdict(g) for g in self.games]
        return out

    def table(self) -> str:
        """The cross-play table and every lineup's figures, at most 80 columns wide."""
        label = self.labels()
        n = self.num_players
        game = self.env_id.split("/", 1)[-1]
        lines = textwrap.wrap(f"{game}, {n} players, {self.num_deals} deals per lineup (the same "
                              f"deals for every lineup, seats rotated), seed {self.seed}", 80)
        for name, why in self.left_out.items():
            lines.extend(textwrap.wrap(f"{label[name]} left out: it may not play these options "
                                       f"({short_reason(why)})", 80, break_on_hyphens=False))
        lines.extend(across_lines(self.meta, label))
        if len(self.policies) > 1:
            lines.append("")
            lines.extend(self._cross_lines(label))
        lines.append("")
        rest = 1 + 5 + 2 + 18 + 1 + 25
        names = {id(s): s.name(label) for s in self.lineups}
        name_w = max(8, min(max(len(v) for v in names.values()), 80 - rest))
        lines.append(f"{'lineup':<{name_w}} {'deals':>5}  {'win rate (95% CI)':<18} "
                     f"{'goals (95% CI)':<25}".rstrip())
        for s in self.lineups:
            wr = f"{s.win_rate:6.1%} ({s.win_rate_ci[0]:.0%}-{s.win_rate_ci[1]:.0%})"
            sc = f"{s.mean_goals:7.2f} ({s.mean_goals_ci[0]:.1f} to {s.mean_goals_ci[1]:.1f})"
            row = f" {s.deals:>5}  {wr:<18} {sc:<25}"
            name = names[id(s)]
            if len(name) <= name_w:
                lines.append(f"{name:<{name_w}}{row}".rstrip())
            else:
                lines.extend([*textwrap.wrap(name, 80, break_on_hyphens=False),
                              f"{'':<{name_w}}{row}".rstrip()])
        renamed = [f"{v} = {k}" for k, v in label.items() if k != v]
        if renamed:
            lines.extend(textwrap.wrap("(" + "; ".join(renamed) + ")", 80,
                                       break_on_hyphens=False))
        return "\n".join(lines)

    def _cross_lines(self, label: Mapping[str, str]) -> list[str]:
        """Row A, column B: the team win rate (95% CI, in %) of k seats of A and the rest of B,
        one line per k; the diagonal is A's own team. Columns are split into blocks of 4."""
        n = self.num_players
        numbered = any(len(label[p]) > CELL for p in self.policies)
        column = {p: f"[{i + 1}]" if numbered else label[p] for i, p in enumerate(self.policies)}
        row_name = {p: f"[{i + 1}] {label[p]}" if numbered else label[p]
                    for i, p in enumerate(self.policies)}
        per_block = 4
        name_w = max(8, min(max(len(v) for v in row_name.values()),
                            80 - 3 - (CELL + 2) * min(per_block, len(self.policies))))
        lines = textwrap.wrap(
            f"cross-play: team win rate % (95% CI) of k seats of the row policy and {n}-k of the "
            "column policy; the diagonal is the row policy's own team", 80)
        for start in range(0, len(self.policies), per_block):
            block = self.policies[start:start + per_block]
            lines.append(f"{'':<{name_w}} {'k':>2}" + "".join(f"  {column[b]:>{CELL}}"
                                                               for b in block))
            for a in self.policies:
                rows = []
                for k in range(n - 1, 0, -1):
                    cells = []
                    for b in block:
                        s = self.lineup(a, b, k)
                        lo, hi = s.win_rate_ci
                        cells.append(f"  {f'{s.win_rate:.0%} ({lo * 100:.0f}-{hi * 100:.0f})':>{CELL}}")
                    rows.append(f" {k:>2}" + "".join(cells))
                name = row_name[a]
                if len(name) > name_w:
                    lines.extend(textwrap.wrap(name, 80, break_on_hyphens=False))
                    name = ""
                lines.append(f"{name:<{name_w}}{rows[0]}")
                lines.extend(f"{'':<{name_w}}{row}" for row in rows[1:])
        return lines

    def plot(self, path: str | Path) -> Path:
        """A PNG chart: every lineup's team win rate with its 95% interval."""
        from cahoots_envs.evaluation.plots import plot_cross_play

        label = self.labels()
        stats = self.lineups[::-1]
        game = self.env_id.split("/", 1)[-1]
        title = (f"{game}, {self.num_players} players, cross-play, {self.num_deals} deals per "
                 f"lineup (seed {self.seed})")
        return plot_cross_play(path, title, [s.name(label) for s in stats],
                               [(s.win_rate, *s.win_rate_ci) for s in stats])


def cross_play(env_id: str, policies: Sequence[Any], num_deals: int, seed: int = 0, *,
               options: Mapping[str, Any] | None = None, workers: int = 1, progress: bool = False,
               log_dir: str | Path | None = None,
               on_result: Callable[[GameResult], None] | None = None) -> CrossPlayResult:
    """Play every lineup of ``policies`` (specs or policy objects, at least 2) in a cooperative
    game on the same ``num_deals`` deals (see the module docstring). Everything is checked before
    the first game: the env and options, the specs, and which policies may play the options
    (those that may not are left out, noted; ``ValueError`` when fewer than one remains)."""
    from cahoots_envs.registry import make_raw

    if len(policies) < 2:
        raise ValueError("a cross-play needs at least 2 policies")
    if num_deals < 1:
        raise ValueError("num_deals must be at least 1")
    sources = named_sources(list(policies), None)
    options = dict(options or {})
    raw = make_raw(env_id, **options)  # validates env id and options early
    n = len(raw.possible_agents)
    if not raw.game_cls.COOPERATIVE:
        raise ValueError(f"{raw.env_id} is not cooperative: a cross-play seats mixed teams of a "
                         "cooperative game; compare competitive policies with a tournament")
    if n < 2:
        raise ValueError(f"a cross-play needs at least 2 players; {raw.env_id} is set to {n}")
    across, refused = check_sources(sources, raw.env_id, dict(raw.options), leave_out=True)
    names = [name for name in sources if name not in refused]
    if not names:
        raise ValueError("no policy may play these options: "
                         + "; ".join(f"{k}: {v.splitlines()[0]}" for k, v in refused.items()))
    if log_dir is not None:
        make_log_dir(Path(log_dir))
    lineups = cross_play_lineups(names, n)
    objects, refs = object_refs({k: v for k, v in sources.items() if k in names})
    tasks = []
    for i, lineup in enumerate(lineups):
        for d in range(num_deals):
            g = i * num_deals + d
            seats = seated(lineup, d)
            log_path = str(Path(log_dir) / f"game_{g:05d}.jsonl") if log_dir is not None else None
            tasks.append((raw.env_id, options, [refs[p] for p in seats], game_seed(seed, d), g,
                          [game_seed(seed, d, 1 + s) for s in range(n)], log_path, seats))
    bar = progress_bar(len(tasks), progress, raw.env_id)
    results = sorted(play_tasks(tasks, workers, objects, bar, on_result), key=lambda r: r.game)
    stats = []
    for i, lineup in enumerate(lineups):
        games = results[i * num_deals:(i + 1) * num_deals]
        wins = sum(1 for r in games if r.won)
        goals = [r.scores[0] for r in games]
        mean, lo, hi = mean_interval(goals)
        stats.append(LineupStats(
            lineup=list(lineup), seats={p: lineup.count(p) for p in dict.fromkeys(lineup)},
            deals=len(games), wins=wins, win_rate=wins / len(games),
            win_rate_ci=wilson_interval(wins, len(games)), mean_goals=mean,
            mean_goals_ci=(lo, hi)))
    meta: dict[str, Any] = {"option_differences": across} if across else {}
    return CrossPlayResult(env_id=raw.env_id, options=dict(raw.options), num_players=n,
                           policies=names, seed=seed, num_deals=num_deals, lineups=stats,
                           games=results, left_out=refused, meta=meta)
