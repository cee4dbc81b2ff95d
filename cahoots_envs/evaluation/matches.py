"""Matches between a candidate and an opponent, many games at once: on the reference engine and
on the batched engine, side by side, behind one entry (``play_matches``).

``seat_matches`` puts a candidate in one seat (rotated over games) against one opponent policy in
every other seat and reports the candidate's win share with a 95% confidence interval
(``core.stats.share_interval``). A win is a positive ``outcome()`` payoff (the best score); a
k-way tie for the win counts 1/k and a full tie 1/N (``core.driver.win_shares``, as in ``cahoots
eval``), so equally strong players each expect exactly 1/N. ``team_matches`` plays a cooperative
game with one policy in every seat. Both drive reference games through ``evaluation.tables``
(each policy acting on all its games at once); ``batched_matches`` plays the same seating on the
batched engine (``cahoots_envs.vector``). ``play_matches`` picks one by ``engine``: training's
evaluator (``training/run.py``) and the strength tables (``evaluation/strength.py``) play
through it. Tournaments between any number of policies, game by game on the AEC env with worker
processes, are ``evaluation/play.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cahoots_envs.core.driver import RewardRule, win_shares
from cahoots_envs.core.policy import Policy
from cahoots_envs.core.stats import share_interval
from cahoots_envs.errors import IllegalActionError
from cahoots_envs.evaluation.tables import Table, advance
from cahoots_envs.policies.envinfo import env_info

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

    def eval_row(self, steps: int, opponent: str) -> dict[str, Any]:
        """One ``eval.csv`` row (every trainer writes the same columns)."""
        return {"timesteps": steps, "opponent": opponent, "games": self.games,
                "win_rate": round(self.win_rate, 4), "ci_low": round(self.ci_low, 4),
                "ci_high": round(self.ci_high, 4), "mean_score": round(self.mean_score, 3)}

    def __str__(self) -> str:
        return (f"{self.win_rate:.3f} [{self.ci_low:.3f}, {self.ci_high:.3f}] over {self.games} "
                f"games (chance {self.chance:.3f})")


def _summary(shares: np.ndarray, scores: np.ndarray, outcomes: np.ndarray, chance: float) -> MatchResult:
    mean, low, high = share_interval(shares)
    return MatchResult(len(shares), mean, low, high, chance, float(scores.mean()),
                       float(outcomes.mean()))


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


def play_matches(env_id: str, candidate: Policy, opponent: Policy | None, games: int,
                 options: Mapping[str, Any] | None = None, seed: int = 0,
                 engine: str = "reference", batch: int = 256) -> MatchResult:
    """``candidate`` against ``opponent`` in ``games`` games (``opponent=None``: a cooperative
    team of ``candidate``): on the batched engine (``engine="batched"``: ``batched_matches``) or
    on reference games (``"reference"``: ``seat_matches``, or ``team_matches`` for a team)."""
    if engine == "batched":
        return batched_matches(env_id, candidate, opponent, games, options, seed=seed, batch=batch)
    if engine != "reference":
        raise ValueError(f"engine {engine!r}: give 'batched' or 'reference'")
    if opponent is None:
        return team_matches(env_id, candidate, games, options, seed=seed, batch=batch)
    return seat_matches(env_id, candidate, opponent, games, options, seed=seed, batch=batch)


def engine_infosets(engine: Any, rows: np.ndarray) -> list[Any]:
    """The information set of the seat to move in each of games ``rows`` of a batched engine:
    each game rebuilt as a reference game (``engine.game(i)``: its deals and actions), with a
    copy of the engine's observation and action mask (the engine's rows move on, the
    information sets stay as they were)."""
    from cahoots_envs.search import Infoset

    return [Infoset(engine.game(i), int(engine.to_move[i]), engine.spec, engine.options,
                    engine.obs[i].copy(), engine.mask[i].copy()) for i in rows.tolist()]


def act_rows(policy: Any, engine: Any, rows: np.ndarray) -> np.ndarray:
    """``policy``'s moves in games ``rows`` of a batched engine, all decided in one call:
    ``act_batch`` on their observations, or for a search bot (``needs_infoset``)
    ``act_infosets`` on their information sets (``engine_infosets``)."""
    if getattr(policy, "needs_infoset", False):
        if not hasattr(policy, "act_infosets"):
            name = getattr(policy, "name", type(policy).__name__)
            raise TypeError(f"{name!r} decides from information sets but has no "
                            "act_infosets(infosets) to decide many games at once")
        return np.asarray(policy.act_infosets(engine_infosets(engine, rows)))
    return np.asarray(policy.act_batch(engine.obs[rows], engine.mask[rows]))


def batched_available(env_id: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether ``batched_matches`` can play ``env_id``: numba is installed and the game has a
    batched engine."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return env_info(env_id, options).spec.batched is not None


def dealt_batches(env_id: str, options: Mapping[str, Any], games: int, batch: int,
                  rng: np.random.Generator) -> Iterator[tuple[int, Any]]:
    """``games`` games on the batched engine, ``batch`` at a time: for each batch, the index of
    its first game and the engine (``cahoots_envs.vector``), freshly dealt from a seed drawn from
    ``rng`` (the caller may draw from it too, between batches). Callers play each game once and
    skip it (action -1) when it is over."""
    from cahoots_envs.vector import make as make_vector

    opts = {k: v for k, v in options.items() if k != "render_mode"}
    vec = None
    for start in range(0, games, batch):
        size = min(batch, games - start)
        if vec is None or vec.num_envs != size:
            vec = make_vector(env_id, size, **opts)
        vec.reset(seed=int(rng.integers(2**62)))
        yield start, vec.engine


def batched_matches(env_id: str, candidate: Policy, opponent: Policy | None, games: int,
                    options: Mapping[str, Any] | None = None, seed: int = 0,
                    batch: int = 256) -> MatchResult:
    """``seat_matches`` (``opponent`` given) or ``team_matches`` (``opponent=None``: the
    candidate in every seat) on the batched engine (``cahoots_envs.vector``): the same seating
    (candidate in seat ``g % N`` of game ``g``) and the same win shares, from the engine's
    ``reward_mode='win'`` payoffs. The deals differ from the reference path's (another
    generator), so results agree in distribution, not game by game. Training evaluates with it:
    every policy acts once per round over all its games (the bots through their vectorised
    ``act_batch``), several times faster than the reference path. A search bot decides all its
    games of a round in one ``act_infosets`` call, each game rebuilt from the engine
    (``engine.game(i)``)."""
    info = env_info(env_id, options)
    n = info.options["num_players"]
    shares: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    outcomes: list[np.ndarray] = []
    for start, e in dealt_batches(env_id, {**info.options, "reward_mode": "win"}, games, batch,
                                  np.random.default_rng(seed)):
        size = e.num_envs
        seats = (start + np.arange(size)) % n
        acc = e.rewards.astype(np.float64)  # a game over at its deal has paid already
        live = ~e.done.copy()
        result = np.zeros((size, n))
        final = np.zeros((size, n))
        for j, i in enumerate(np.flatnonzero(e.done).tolist()):
            result[i], final[i] = acc[i], e.final_scores[j]
        actions = np.full(size, -1, np.int64)
        while live.any():
            actions.fill(-1)
            rows = np.flatnonzero(live)
            mine = rows if opponent is None else rows[e.to_move[rows] == seats[rows]]
            theirs = rows[:0] if opponent is None else rows[e.to_move[rows] != seats[rows]]
            for policy, who in ((candidate, mine), (opponent, theirs)):
                if who.size == 0 or policy is None:
                    continue
                chosen = act_rows(policy, e, who).astype(np.int64, copy=False)
                ok = (chosen >= 0) & (chosen < e.mask.shape[1])
                ok[ok] = e.mask[who[ok], chosen[ok]] != 0
                if not ok.all():
                    bad = int(np.flatnonzero(~ok)[0])
                    name = getattr(policy, "name", type(policy).__name__)
                    raise IllegalActionError(
                        f"{name!r} chose illegal action {int(chosen[bad])} in seat "
                        f"{int(e.to_move[who[bad]])}")
                actions[who] = chosen
            e.step(actions)
            acc[live] += e.rewards[live]
            for j, i in enumerate(np.flatnonzero(e.done).tolist()):
                if live[i]:
                    result[i], final[i] = acc[i], e.final_scores[j]
                    live[i] = False
        picked = seats if opponent is not None else np.zeros(size, np.int64)
        shares.append(np.array([win_shares(r)[s] for r, s in zip(result, picked)])
                      if opponent is not None else (result[:, 0] > 0).astype(np.float64))
        scores.append(final[np.arange(size), picked])
        outcomes.append(result[np.arange(size), picked])
    chance = 1.0 / n if opponent is not None else 0.0
    return _summary(np.concatenate(shares), np.concatenate(scores), np.concatenate(outcomes),
                    chance)
