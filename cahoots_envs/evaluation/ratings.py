"""Ratings from finishing orders: OpenSkill's Plackett–Luce model (``openskill``, optional)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.core.spec import variant_label
from cahoots_envs.evaluation.results import GameResult


def game_player(rules: type[Game], options: Mapping[str, Any]) -> str:
    """The pseudo-player a cooperative team is rated against: the game at its options, named
    ``game (<variant>)`` from the options its strength rows set (``STRENGTH_VARIANTS``: those a
    saved policy may play across) at their values in ``options``, as ``variant_label`` writes them
    (``game (normal)``; ``game (default)`` for a game whose rows set none)."""
    keys = dict.fromkeys(key for variant in rules.STRENGTH_VARIANTS for key in variant)
    return f"game ({variant_label({key: options[key] for key in keys if key in options})})"


def rate(results: list[GameResult], policies: list[str], cooperative: bool,
          higher_sign: int, pseudo: str) -> tuple[dict[str, tuple[float, float]], str] | None:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = {p: (model.mu, model.sigma) for p in policies}
    if cooperative:
        ratings[pseudo] = (model.mu, model.sigma)
    for r in results:
        if cooperative:
            team = r.lineup[0]
            a = model.create_rating([*ratings[team]])
            d = model.create_rating([*ratings[pseudo]])
            ranks = [1.0, 2.0] if r.won else [2.0, 1.0]
            (na,), (nd,) = model.rate([[a], [d]], ranks=ranks)
            ratings[team] = (na.mu, na.sigma)
            ratings[pseudo] = (nd.mu, nd.sigma)
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
