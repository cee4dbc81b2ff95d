"""Matches and tournaments between policies, with win rates, score intervals and ratings.

    from cahoots_envs.evaluation import run_tournament
    result = run_tournament("kansas_city-v0", ["heuristic", "random"], num_games=200, seed=0)
    print(result.table())            # terminal table
    result.to_json("results.json")   # for tools
    result.plot("ratings.png")       # ratings with intervals (matplotlib)

Policies are any ``load_policy`` spec: ``random``, ``heuristic``, ``zoo:<name>`` or a path.

**Seats.** With as many policies as seats or fewer, the lineup ``p0 p1 … p0 p1 …`` fills the
seats and game ``g`` rotates it by ``g mod N``, so every policy plays every seat equally often
over each N games (make ``num_games`` a multiple of N). With more policies than seats, every
combination of N policies gets its N rotations in turn. In the cooperative game (cahoots_coop)
all seats play the same policy, which is a team against the game: game ``g`` is played by
policy ``g mod P``.

**Seeds.** Game ``g`` deals from ``SeedSequence([seed, g])`` and the policy in seat ``s`` draws
from ``SeedSequence([seed, g, 1 + s])``, so results are identical for a given seed whatever the
number of worker processes.

**Statistics.** Win rate with a 95% Wilson score interval (a seat wins when its payoff is
positive: a shared win counts, a full tie does not); mean rulebook score with a 95% normal
interval (in texas_euchre points are bad: lower is better); the head-to-head table gives, over
the games two policies met, how often the row policy finished ahead of the column policy (ties
count half). Ratings use OpenSkill's Plackett–Luce model (``openskill``), which rates
free-for-all games of any size from the finishing order (payoff, then score) and needs no
pairwise decomposition; a policy sitting in several seats of one game is rated once per seat and
its rating moves by the mean of those updates. In the cooperative game each game is the team
against a pseudo-player for the game's difficulty, who "wins" when the team loses. The
conservative rating ``mu - 3*sigma`` orders the table.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

Z95 = 1.959963984540054


# ---- statistics -----------------------------------------------------------------------------------
def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): a normal-approximation 95% interval of the mean."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = float(np.mean(values))
    if n == 1:
        return mean, mean, mean
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


# ---- schedule -----------------------------------------------------------------------------------
def lineup_for_game(policies: Sequence[str], num_players: int, game: int, cooperative: bool) -> list[str]:
    """The policy spec in each seat of game ``game`` (see the module docstring)."""
    p = len(policies)
    n = num_players
    if cooperative:
        return [policies[game % p]] * n
    if p <= n:
        base = [policies[i % p] for i in range(n)]
        combo_index = 0
    else:
        combos = list(itertools.combinations(range(p), n))
        combo_index = (game // n) % len(combos)
        base = [policies[i] for i in combos[combo_index]]
    shift = game % n
    return [base[(s + shift) % n] for s in range(n)]


def game_seed(seed: int, game: int, stream: int = 0) -> int:
    key = [seed, game] if stream == 0 else [seed, game, stream]
    return int(np.random.SeedSequence(key).generate_state(1, dtype=np.uint32)[0] >> 1)


# ---- playing --------------------------------------------------------------------------------------
@dataclass
class GameResult:
    game: int
    seed: int
    lineup: list[str]
    scores: list[float]
    outcome: list[float]
    turns: int
    won: bool | None = None  # cooperative games only


_POLICY_CACHE: dict[tuple[str, str, str], Any] = {}


def _policy(spec: str, env_id: str, options: Mapping[str, Any], seed: int) -> Any:
    """A policy seeded for this game and seat; built-in bots are cheap to rebuild, saved policies
    are loaded once per process and re-seeded."""
    import cahoots_envs

    if spec in ("random", "heuristic"):
        return cahoots_envs.load_policy(spec, env_id, options, seed=seed)
    key = (spec, env_id, json.dumps(options, sort_keys=True, default=str))
    policy = _POLICY_CACHE.get(key)
    if policy is None:
        policy = cahoots_envs.load_policy(spec, env_id, options, seed=seed)
        _POLICY_CACHE[key] = policy
    if hasattr(policy, "rng"):
        policy.rng = np.random.default_rng(seed)
    return policy


def play_game(
    env_id: str,
    options: Mapping[str, Any],
    lineup: Sequence[str],
    seed: int,
    game_index: int = 0,
    policy_seeds: Sequence[int] | None = None,
    log_path: str | Path | None = None,
) -> GameResult:
    """One game between the policies of ``lineup`` (one spec per seat)."""
    import cahoots_envs
    from cahoots_envs.gamelog import GameRecorder

    env = cahoots_envs.make_raw(env_id, **dict(options))
    n = len(env.possible_agents)
    if len(lineup) != n:
        raise ValueError(f"lineup has {len(lineup)} policies for {n} seats")
    game_options = env.options
    seeds = policy_seeds or [seed + 1 + s for s in range(n)]
    policies = [_policy(spec, env.env_id, game_options, seeds[s]) for s, spec in enumerate(lineup)]
    recorder = GameRecorder(env, players=list(lineup)) if log_path else None
    if recorder is not None:
        recorder.reset(seed=seed)
    else:
        env.reset(seed=seed)
    turns = 0
    game = env.game
    while not game.is_over:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        action = int(policies[seat].act(obs["observation"], obs["action_mask"]))
        if recorder is not None:
            recorder.step(action)
        else:
            env.step(action)
        turns += 1
        game = env.game
    if recorder is not None and log_path is not None:
        recorder.save(log_path)
    return GameResult(
        game=game_index,
        seed=seed,
        lineup=list(lineup),
        scores=[float(s) for s in game.scores],
        outcome=[float(x) for x in game.outcome()],
        turns=turns,
        won=bool(game.winning_seats()) if game.COOPERATIVE else None,
    )


def _run_one(task: tuple[str, dict[str, Any], list[str], int, int, list[int], str | None]) -> GameResult:
    env_id, options, lineup, seed, index, policy_seeds, log_path = task
    return play_game(env_id, options, lineup, seed, index, policy_seeds, log_path)


# ---- results ------------------------------------------------------------------------------------
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


@dataclass
class TournamentResult:
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
            **self.meta,
        }
        if include_games:
            out["games"] = [asdict(g) for g in self.games]
        return out

    def to_json(self, path: str | Path | None = None, include_games: bool = False) -> str:
        text = json.dumps(self.to_dict(include_games), indent=2)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    def labels(self) -> dict[str, str]:
        """Short, unique names for the table and chart (a saved policy by its run folder)."""
        return short_labels(self.policies)

    def table(self) -> str:
        """The results as a text table, at most 80 columns wide."""
        label = self.labels()
        name_w = max(8, *(len(v) for v in label.values()))
        game = self.env_id.split("/", 1)[-1]
        lines = [
            f"{game}, {self.num_players} players, {len(self.games)} games, seed {self.seed}"
            + (" (cooperative: each policy plays every seat)" if self.cooperative else ""),
        ]
        score_label = "goals" if self.cooperative else (
            "score, low=good" if self.lower_score_is_better else "score")
        header = f"{'policy':<{name_w}} {'games':>5}  {'win rate (95% CI)':<18} {score_label + ' (95% CI)':<25}"
        if self.rating_model:
            header += f" {'rating':>12}"
        lines.append(header.rstrip())
        for s in self.stats:
            wr = f"{s.win_rate:6.1%} ({s.win_rate_ci[0]:.0%}-{s.win_rate_ci[1]:.0%})"
            sc = f"{s.mean_score:7.2f} ({s.mean_score_ci[0]:.1f} to {s.mean_score_ci[1]:.1f})"
            row = f"{label[s.policy]:<{name_w}} {s.seat_games:>5}  {wr:<18} {sc:<25}"
            if s.rating_mu is not None and s.rating_sigma is not None:
                row += f" {s.rating_mu:5.1f} ± {2 * s.rating_sigma:4.1f}"
            lines.append(row)
        if len(self.policies) > 1 and not self.cooperative:
            lines.append("")
            lines.append("head to head: how often the row policy finished ahead of the column policy")
            short = {p: label[p] if len(label[p]) <= 10 else label[p][:9] + "…" for p in self.policies}
            lines.append(f"{'':<{name_w}}  " + "  ".join(f"{short[p]:>10}" for p in self.policies))
            for a in self.policies:
                cells = []
                for b in self.policies:
                    v = self.head_to_head[a].get(b) if a != b else None
                    cells.append(f"{'-' if v is None else f'{v:.0%}':>10}")
                lines.append(f"{label[a]:<{name_w}}  " + "  ".join(cells))
        if self.rating_model:
            lines.append(f"(rating: OpenSkill {self.rating_model} mu ± 2 sigma; "
                         "table ordered by mu - 3 sigma)")
        renamed = [f"{v} = {k}" for k, v in label.items() if k != v]
        if renamed:
            lines.append("(" + "; ".join(renamed) + ")")
        return "\n".join(lines)

    def plot(self, path: str | Path) -> Path:
        """A PNG chart: ratings with ±2 sigma intervals and win rates with 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        label = self.labels()
        names = [label[s.policy] for s in self.stats][::-1]
        stats = self.stats[::-1]
        y = np.arange(len(names))
        ncols = 2 if self.rating_model else 1
        fig, axes = plt.subplots(1, ncols, figsize=(4.5 * ncols + 1.5, 0.55 * len(names) + 1.6),
                                 squeeze=False)
        ax = axes[0][0]
        if self.rating_model:
            mu = np.array([s.rating_mu for s in stats])
            sig = np.array([s.rating_sigma for s in stats])
            ax.errorbar(mu, y, xerr=2 * sig, fmt="o", capsize=4)
            ax.set_yticks(y, names)
            ax.set_xlabel(f"OpenSkill {self.rating_model} rating (mu ± 2 sigma)")
            ax = axes[0][1]
        wr = np.array([s.win_rate for s in stats])
        lo = np.array([s.win_rate_ci[0] for s in stats])
        hi = np.array([s.win_rate_ci[1] for s in stats])
        ax.errorbar(wr, y, xerr=[wr - lo, hi - wr], fmt="s", color="tab:green", capsize=4)
        ax.set_yticks(y, names)
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (95% Wilson interval)")
        game = self.env_id.split("/", 1)[-1]
        fig.suptitle(f"{game}, {self.num_players} players, {len(self.games)} games (seed {self.seed})")
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


LABEL_WIDTH = 14


def short_labels(specs: Sequence[str]) -> dict[str, str]:
    """Unique labels of at most ``LABEL_WIDTH`` characters for policy specs."""
    out: dict[str, str] = {}
    for spec in specs:
        label = spec
        if "/" in spec or spec.endswith((".safetensors", ".json", ".zip")):
            path = Path(spec)
            label = path.parent.name if path.stem == "policy" and path.parent.name else path.stem
            label = label or spec
        if len(label) > LABEL_WIDTH:
            label = label[: LABEL_WIDTH - 1] + "…"
        base, k = label, 2
        while label in out.values():
            label = f"{base[: LABEL_WIDTH - 3]}#{k}"
            k += 1
        out[spec] = label
    return out


def _rate(results: list[GameResult], policies: list[str], cooperative: bool,
          higher_sign: int, difficulty: str) -> tuple[dict[str, tuple[float, float]], str] | None:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = {p: (model.mu, model.sigma) for p in policies}
    if cooperative:
        ratings[difficulty] = (model.mu, model.sigma)
    for r in results:
        if cooperative:
            team = r.lineup[0]
            a = model.create_rating([*ratings[team]])
            d = model.create_rating([*ratings[difficulty]])
            ranks = [1.0, 2.0] if r.won else [2.0, 1.0]
            (na,), (nd,) = model.rate([[a], [d]], ranks=ranks)
            ratings[team] = (na.mu, na.sigma)
            ratings[difficulty] = (nd.mu, nd.sigma)
            continue
        n = len(r.lineup)
        keys = [(r.outcome[s], higher_sign * r.scores[s]) for s in range(n)]
        order = sorted(set(keys), reverse=True)
        ranks = [float(order.index(k) + 1) for k in keys]
        teams = [[model.create_rating([*ratings[p]])] for p in r.lineup]
        new = model.rate(teams, ranks=ranks)
        moved: dict[str, list[tuple[float, float]]] = {}
        for p, (rating,) in zip(r.lineup, new):
            moved.setdefault(p, []).append((rating.mu, rating.sigma))
        for p, vals in moved.items():
            mu0, sig0 = ratings[p]
            ratings[p] = (mu0 + float(np.mean([v[0] - mu0 for v in vals])),
                          sig0 + float(np.mean([v[1] - sig0 for v in vals])))
    return ratings, "PlackettLuce"


def summarise(
    env_id: str,
    options: Mapping[str, Any],
    policies: list[str],
    seed: int,
    results: list[GameResult],
) -> TournamentResult:
    import cahoots_envs

    raw = cahoots_envs.make_raw(env_id, **dict(options))
    cls = raw.game_cls
    n = len(raw.possible_agents)
    cooperative = bool(cls.COOPERATIVE)
    sign = int(cls.POINTS_SIGN)
    results = sorted(results, key=lambda r: r.game)
    difficulty = f"game ({raw.options.get('difficulty', 'default')})"
    rated = _rate(results, policies, cooperative, sign, difficulty)
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
            for s, q in enumerate(r.lineup):
                if q != p:
                    continue
                scores.append(r.scores[s])
                win = 1.0 if r.outcome[s] > 0 else 0.0
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
        mu, sigma = rated[0][difficulty]
        meta["difficulty_rating"] = {"name": difficulty, "mu": mu, "sigma": sigma}
    game_options = dict(raw.options)
    return TournamentResult(
        env_id=raw.env_id, options=game_options, num_players=n, policies=list(policies),
        seed=seed, cooperative=cooperative, lower_score_is_better=sign < 0, games=results,
        stats=stats, head_to_head=head, rating_model=rated[1] if rated else None, meta=meta,
    )


def run_tournament(
    env_id: str,
    policies: Sequence[str],
    num_games: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    workers: int = 1,
    progress: bool = False,
    log_dir: str | Path | None = None,
    on_result: Callable[[GameResult], None] | None = None,
) -> TournamentResult:
    """Play ``num_games`` games between ``policies`` on ``env_id`` (see the module docstring)."""
    import cahoots_envs

    policies = list(dict.fromkeys(policies))  # each policy once; seats are filled by rotation
    if not policies:
        raise ValueError("give at least one policy")
    if num_games < 1:
        raise ValueError("num_games must be at least 1")
    options = dict(options or {})
    raw = cahoots_envs.make_raw(env_id, **options)  # validates env id and options early
    n = len(raw.possible_agents)
    cooperative = bool(raw.game_cls.COOPERATIVE)
    game_options = dict(raw.options)
    for spec in dict.fromkeys(policies):  # fail fast on a bad spec, before any worker starts
        cahoots_envs.load_policy(spec, raw.env_id, game_options, seed=0)
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    tasks = []
    for g in range(num_games):
        lineup = lineup_for_game(list(policies), n, g, cooperative)
        log_path = str(Path(log_dir) / f"game_{g:05d}.jsonl") if log_dir is not None else None
        tasks.append((raw.env_id, options, lineup, game_seed(seed, g), g,
                      [game_seed(seed, g, 1 + s) for s in range(n)], log_path))
    results: list[GameResult] = []
    bar = _progress(num_games, progress, raw.env_id)
    try:
        for r in _imap(tasks, workers):
            results.append(r)
            if on_result is not None:
                on_result(r)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return summarise(raw.env_id, options, list(policies), seed, results)


def _progress(total: int, enabled: bool, label: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label.split("/", 1)[-1], unit="game", dynamic_ncols=True)


def _imap(tasks: list[Any], workers: int) -> Iterable[GameResult]:
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield _run_one(t)
        return
    import multiprocessing

    chunk = max(1, min(16, len(tasks) // (workers * 4)))
    with multiprocessing.get_context().Pool(workers) as pool:
        yield from pool.imap_unordered(_run_one, tasks, chunksize=chunk)


def default_workers() -> int:
    import os

    return max(1, min(4, (os.cpu_count() or 2) - 1))
