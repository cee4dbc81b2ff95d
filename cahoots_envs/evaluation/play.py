"""Matches and tournaments between policies, with win rates, score intervals and ratings.

    from cahoots_envs.evaluation import run_tournament
    result = run_tournament("kansas_city-v1", ["heuristic", "random"], num_games=200, seed=0)
    print(result.table())            # terminal table
    result.to_json("results.json")   # for tools
    result.plot("ratings.png")       # ratings with intervals (matplotlib)

Policies are any ``load_policy`` spec (``random``, ``heuristic``, ``zoo:<name>`` or a path) or
a policy object (anything with ``act(observation, action_mask)``, e.g. a loaded or hand-made
policy), labelled by its ``name`` attribute (else its repr) and numbered if two labels clash
(``policy``, ``policy#2``). A spec given twice is refused: seats are filled by rotation, so a
repeated spec would add nothing; to put one policy against copies of another use ``field``.
Policy objects reach worker processes by pickling, once per worker (use ``workers=1`` for one
that cannot be pickled); one with an ``rng`` attribute is re-seeded for every game.

**Seats.** With as many policies as seats or fewer, the lineup ``p0 p1 … p0 p1 …`` fills the
seats and game ``g`` rotates it by ``g mod N``, so every policy plays every seat equally often
over each N games (make ``num_games`` a multiple of N). With more policies than seats, every
combination of N policies gets its N rotations in turn. In the cooperative game (cahoots_coop)
all seats play the same policy, which is a team against the game: game ``g`` is played by
policy ``g mod P``.

**Candidates against a field.** With ``field=SPEC`` each game seats one candidate in one seat and
the field policy in every other seat: game ``g`` puts candidate ``(g // N) mod C`` in seat
``g mod N`` (make ``num_games`` a multiple of N times the C candidates), e.g. "zoo:kansas_city
against 3 random". Each candidate's win rate is then its win share in one seat against the field
(chance 1/N). Competitive games only.

**Seeds.** Game ``g`` deals from ``SeedSequence([seed, g])`` and the policy in seat ``s`` draws
from ``SeedSequence([seed, g, 1 + s])``, so results are identical for a given seed whatever the
number of worker processes.

**Statistics.** Win rate (the mean win share) with a 95% Wilson score interval: a seat wins
when its payoff is positive, a k-way shared win counts 1/k and a full tie 1/N
(``core.driver.win_shares``, the count training and ``cahoots strength`` use too), so the
shares of a game add up to 1 and equally strong policies each expect 1/N; mean rulebook score with a 95% normal
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
import textwrap
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.driver import win_shares

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


def field_lineup(candidates: Sequence[str], field: str, num_players: int, game: int) -> list[str]:
    """Game ``game`` of a candidates-against-a-field tournament: candidate ``(game // N) mod C``
    in seat ``game mod N``, the field in every other seat."""
    n = num_players
    candidate = candidates[(game // n) % len(candidates)]
    return [candidate if s == game % n else field for s in range(n)]


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
_OBJECTS: dict[str, Any] = {}  # policy objects of the running tournaments, by _ObjectRef key


@dataclass(frozen=True)
class _ObjectRef:
    """A policy object in a task: tasks name it, and each worker gets the objects once."""

    key: str


def _install_objects(objects: dict[str, Any]) -> None:
    _OBJECTS.update(objects)


def _policy(spec: Any, env_id: str, options: Mapping[str, Any], seed: int) -> Any:
    """A policy seeded for this game and seat; built-in bots are cheap to rebuild, saved policies
    are loaded once per process and re-seeded; a policy object is used as it is (re-seeded)."""
    from cahoots_envs.policies.loading import load_policy

    if not isinstance(spec, str):
        policy = _OBJECTS[spec.key] if isinstance(spec, _ObjectRef) else spec
        if hasattr(policy, "rng"):
            policy.rng = np.random.default_rng(seed)
        return policy
    if spec in ("random", "heuristic"):
        return load_policy(spec, env_id, options, seed=seed)
    key = (spec, env_id, json.dumps(options, sort_keys=True, default=str))
    policy = _POLICY_CACHE.get(key)
    if policy is None:
        policy = load_policy(spec, env_id, options, seed=seed)
        _POLICY_CACHE[key] = policy
    if hasattr(policy, "rng"):
        policy.rng = np.random.default_rng(seed)
    return policy


def play_game(
    env_id: str,
    options: Mapping[str, Any],
    lineup: Sequence[Any],
    seed: int,
    game_index: int = 0,
    policy_seeds: Sequence[int] | None = None,
    log_path: str | Path | None = None,
    labels: Sequence[str] | None = None,
) -> GameResult:
    """One game between the policies of ``lineup`` (one spec or policy object per seat);
    ``labels`` names them in the result and the log (default: the specs, or the objects'
    ``name``)."""
    from cahoots_envs.gamelog import GameRecorder
    from cahoots_envs.registry import make_raw

    env = make_raw(env_id, **dict(options))
    n = len(env.possible_agents)
    if len(lineup) != n:
        raise ValueError(f"lineup has {len(lineup)} policies for {n} seats")
    game_options = env.options
    seeds = policy_seeds or [seed + 1 + s for s in range(n)]
    policies = [_policy(spec, env.env_id, game_options, seeds[s]) for s, spec in enumerate(lineup)]
    if labels is None:
        labels = [spec if isinstance(spec, str) else str(getattr(policy, "name", policy))
                  for spec, policy in zip(lineup, policies)]
    recorder = GameRecorder(env, players=list(labels)) if log_path else None
    if recorder is not None:
        recorder.reset(seed=seed)
    else:
        env.reset(seed=seed)
    turns = 0
    game = env.game
    while not game.is_over:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        policy = policies[seat]
        if getattr(policy, "needs_infoset", False):  # a search bot: its seat's information set
            from cahoots_envs.search import Infoset

            action = int(policy.act_infoset(Infoset(game, seat, env.spec, env.options,
                                                    obs["observation"], obs["action_mask"])))
        else:
            action = int(policy.act(obs["observation"], obs["action_mask"]))
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
        lineup=list(labels),
        scores=[float(s) for s in game.scores],
        outcome=[float(x) for x in game.outcome()],
        turns=turns,
        won=bool(game.winning_seats()) if game.COOPERATIVE else None,
    )


def _run_one(task: tuple[str, dict[str, Any], list[Any], int, int, list[int], str | None,
                         list[str]]) -> GameResult:
    env_id, options, lineup, seed, index, policy_seeds, log_path, labels = task
    return play_game(env_id, options, lineup, seed, index, policy_seeds, log_path, labels)


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
    field_policy: str | None = None  # candidates against this field (see the module docstring)

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

    def to_json(self, path: str | Path | None = None, include_games: bool = False) -> str:
        text = json.dumps(self.to_dict(include_games), indent=2)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

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
        for name, differences in self.meta.get("option_differences", {}).items():
            played = ", ".join(f"{k}={now!r} (trained at {trained!r})"
                               for k, (trained, now) in differences.items())
            lines.extend(textwrap.wrap(f"{label.get(name, name)} plays across {played}", 80))
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
        title = f"{game}, {self.num_players} players, {len(self.games)} games (seed {self.seed})"
        fig.suptitle(title)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110, metadata={"Title": title})  # the docs' tests read it
        plt.close(fig)
        return path


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
    field_policy: str | None = None,
) -> TournamentResult:
    from cahoots_envs.registry import make_raw

    raw = make_raw(env_id, **dict(options))
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
        mu, sigma = rated[0][difficulty]
        meta["difficulty_rating"] = {"name": difficulty, "mu": mu, "sigma": sigma}
    game_options = dict(raw.options)
    return TournamentResult(
        env_id=raw.env_id, options=game_options, num_players=n, policies=list(policies),
        seed=seed, cooperative=cooperative, lower_score_is_better=sign < 0, games=results,
        stats=stats, head_to_head=head, rating_model=rated[1] if rated else None, meta=meta,
        field_policy=field_policy,
    )


def run_tournament(
    env_id: str,
    policies: Sequence[Any],
    num_games: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    workers: int = 1,
    progress: bool = False,
    log_dir: str | Path | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    field: Any = None,
) -> TournamentResult:
    """Play ``num_games`` games between ``policies`` (specs or policy objects) on ``env_id``,
    or with ``field`` (a spec or policy object) each of ``policies`` in one seat against the
    field in every other seat (see the module docstring)."""
    from cahoots_envs.policies.loading import load_policy
    from cahoots_envs.registry import make_raw

    if not policies:
        raise ValueError("give at least one policy")
    if num_games < 1:
        raise ValueError("num_games must be at least 1")
    sources = _entries(list(policies), field)
    names = list(sources)
    candidates, field_name = (names[:-1], names[-1]) if field is not None else (names, None)
    options = dict(options or {})
    raw = make_raw(env_id, **options)  # validates env id and options early
    n = len(raw.possible_agents)
    cooperative = bool(raw.game_cls.COOPERATIVE)
    if field is not None and cooperative:
        raise ValueError(f"{raw.env_id} is cooperative: every seat plays for one team, so a "
                         "field does not apply; evaluate the team policies without it")
    game_options = dict(raw.options)
    # fail fast on a bad spec, before any worker starts; note which saved policies play across
    # an option they were trained without (a setting such as the difficulty: loading allows it)
    across: dict[str, dict[str, list[Any]]] = {}
    for name, source in sources.items():
        policy = (load_policy(source, raw.env_id, game_options, seed=0)
                  if isinstance(source, str) else source)
        differences = getattr(policy, "option_differences", None) or {}
        if differences:
            across[name] = {k: list(v) for k, v in differences.items()}
    if log_dir is not None:
        _make_log_dir(Path(log_dir))
    token = uuid.uuid4().hex
    objects = {f"{token}:{name}": source for name, source in sources.items()
               if not isinstance(source, str)}
    refs = {name: source if isinstance(source, str) else _ObjectRef(f"{token}:{name}")
            for name, source in sources.items()}
    tasks = []
    for g in range(num_games):
        if field_name is not None:
            lineup = field_lineup(candidates, field_name, n, g)
        else:
            lineup = lineup_for_game(names, n, g, cooperative)
        log_path = str(Path(log_dir) / f"game_{g:05d}.jsonl") if log_dir is not None else None
        tasks.append((raw.env_id, options, [refs[name] for name in lineup], game_seed(seed, g), g,
                      [game_seed(seed, g, 1 + s) for s in range(n)], log_path, lineup))
    results: list[GameResult] = []
    bar = _progress(num_games, progress, raw.env_id)
    _install_objects(objects)
    try:
        for r in _imap(tasks, workers, objects):
            results.append(r)
            if on_result is not None:
                on_result(r)
            if bar is not None:
                bar.update(1)
    finally:
        for key in objects:
            _OBJECTS.pop(key, None)
        if bar is not None:
            bar.close()
    result = summarise(raw.env_id, options, names, seed, results, field_policy=field_name)
    if across:
        result.meta["option_differences"] = across
    return result


def _entries(policies: list[Any], field: Any) -> dict[str, Any]:
    """Each policy (then the field) under a unique name: a spec as written, an object by its
    ``name`` (else its repr), numbered on a clash; a spec given twice is refused."""
    out: dict[str, Any] = {}
    specs: set[str] = set()
    for i, source in enumerate([*policies, *([] if field is None else [field])]):
        is_field = field is not None and i == len(policies)
        if isinstance(source, str):
            if source in specs and not is_field:
                raise ValueError(
                    f"policy {source!r} is given twice; seats are filled by rotation, so give "
                    f"each policy once, or put one policy against copies of another with a "
                    f"field (cahoots eval <env> <policy> --field {source})")
            specs.add(source)
            base = source
        elif callable(getattr(source, "act", None)):
            base = str(getattr(source, "name", None) or repr(source))
        else:
            raise TypeError(f"{source!r} is not a policy spec or an object with "
                             "act(observation, action_mask)")
        name, k = base, 2
        while name in out:
            name = f"{base}#{k}"
            k += 1
        out[name] = source
    return out


def _make_log_dir(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise ValueError(f"the log folder {path} is a file; give a folder (it is made if "
                         "missing) for one game_NNNNN.jsonl per game")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot make the log folder {path}: {exc.strerror or exc}; give a "
                         "folder that can be written") from None


def _progress(total: int, enabled: bool, label: str) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label.split("/", 1)[-1], unit="game", dynamic_ncols=True)


def _imap(tasks: list[Any], workers: int, objects: dict[str, Any] | None = None
          ) -> Iterable[GameResult]:
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield _run_one(t)
        return
    import multiprocessing

    chunk = max(1, min(16, len(tasks) // (workers * 4)))
    with multiprocessing.get_context().Pool(workers, initializer=_install_objects,
                                            initargs=(dict(objects or {}),)) as pool:
        yield from pool.imap_unordered(_run_one, tasks, chunksize=chunk)


def default_workers() -> int:
    import os

    return max(1, min(4, (os.cpu_count() or 2) - 1))
