"""Unbiased search labels: a label's gain measured in worlds independent of those that chose its
move. On a constructed position whose candidate values are known, the gain the choosing worlds
report overstates the real one (the winner's curse) and the independent worlds' estimate does
not; on real games the independent worlds are the labelling's own machinery with another seed,
on both rollout paths."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from cahoots_envs.search.label import (
    as_label,
    check_seed,
    fill_checks,
    independent_searches,
    label_positions,
    measure_labels,
    position_seed,
)
from cahoots_envs.search.rounds import PositionSearch, run_searches

GATE = 2.0


class KnownPosition:
    """A constructed position: ``moves`` candidate moves, seat 0; its worlds carry nothing (the
    values are drawn by ``KnownValues`` from the world's number and decision seed)."""

    seat = 0

    def __init__(self, moves: int) -> None:
        self.legal = list(range(moves))

    def sample(self, rng: np.random.Generator) -> None:
        return None


class KnownValues:
    """Rollouts of a ``KnownPosition`` whose move ``i`` is worth ``means[i]``: world ``k`` of
    the decision seeded ``s`` gives move ``i`` the value ``means[i] + c_k + e_ki``, with a
    world effect ``c_k`` shared by its moves (as common random numbers share a world) and noise
    ``e_ki``, both drawn from ``(s, k)`` alone: worlds of other seeds are independent."""

    def __init__(self, means: np.ndarray, spread: float = 1.0) -> None:
        self.means = np.asarray(means, np.float64)
        self.spread = spread

    def values_many(self, jobs: Any, policy: Any) -> list[np.ndarray]:
        out = []
        for job in jobs:
            rows = []
            for k in range(len(job.worlds)):
                rng = np.random.default_rng([job.seed, job.first + k])
                rows.append(self.means[job.legal] + rng.normal(0, self.spread) +
                            rng.normal(0, self.spread, len(job.legal)))
            out.append(np.array(rows))
        return out


def _labels(means: np.ndarray, positions: int, blueprint: int = 0) -> list[Any]:
    """``positions`` searches of the known position (8 to 16 worlds, as the expert-iteration
    recipes search), each measured again in independent worlds."""
    source = KnownValues(means)
    info = KnownPosition(len(means))
    searches = [PositionSearch(info, blueprint, position_seed(0, p), 16, 8)  # type: ignore[arg-type]
                for p in range(positions)]
    run_searches(source, searches, None, GATE, 0)  # type: ignore[arg-type]
    labels = [as_label(info, blueprint, x, "constructed") for x in searches]  # type: ignore[arg-type]
    checks = independent_searches([info] * positions, labels, 0)  # type: ignore[list-item]
    run_searches(source, [x for _, x in checks], None, GATE, 1)  # type: ignore[arg-type]
    fill_checks(checks)
    return labels


def _mean_se(xs: list[float]) -> tuple[float, float]:
    return float(np.mean(xs)), float(np.std(xs, ddof=1) / math.sqrt(len(xs)))


def test_equal_moves_selection_gain_is_biased_independent_gain_is_not() -> None:
    """Every move is worth the same: any move the search leaves the blueprint's for gains
    nothing. The choosing worlds say it gains; the independent worlds' gain averages 0."""
    labels = _labels(np.zeros(10), 500)
    moved = [x for x in labels if x.move != x.blueprint_move]
    assert len(moved) >= 30
    seen, seen_se = _mean_se([x.gain() for x in moved])
    real, real_se = _mean_se([x.gain(unbiased=True) for x in moved])
    assert seen > 0.5 and seen > 10 * seen_se  # the winner's curse, plain to see
    assert abs(real) < 3 * real_se
    for x in labels:  # every candidate met as many independent worlds as choosing ones
        assert x.checked and x.check_values.shape == x.values.shape


def test_independent_gain_is_the_real_gain_of_the_chosen_move() -> None:
    """Moves of known, different worth: over the positions, the independent worlds' gain of the
    chosen move averages its real gain (``means[move] - means[blueprint]``); the choosing
    worlds' gain exceeds it."""
    means = np.array([0.0, 0.3, -0.2, 0.1, 0.25, -0.5, 0.0, 0.2])
    labels = _labels(means, 500)
    moved = [x for x in labels if x.move != x.blueprint_move]
    assert len(moved) >= 50
    truth = [means[x.move] - means[x.blueprint_move] for x in moved]
    over, over_se = _mean_se([x.gain() - t for x, t in zip(moved, truth)])
    error, error_se = _mean_se([x.gain(unbiased=True) - t for x, t in zip(moved, truth)])
    assert over > 5 * over_se
    assert abs(error) < 3 * error_se


def test_the_independent_stream_is_apart_from_the_positions() -> None:
    seeds = {position_seed(s, p) for s in range(3) for p in range(50)}
    assert not seeds & {check_seed(s, p) for s in range(3) for p in range(50)}


def test_a_label_without_independent_worlds_says_so() -> None:
    label = _labels(np.zeros(3), 1)[0]
    label.check_values = None
    with pytest.raises(ValueError, match="unbiased=True, or measure_labels"):
        label.gain(unbiased=True)


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_unbiased_labels_on_a_real_game(engine: str) -> None:
    """Kansas City positions: ``unbiased=True`` gives the plain labels plus independent worlds
    of the same count, equal to ``measure_labels`` afterwards, and the same on both paths."""
    pytest.importorskip("numba")
    from tests.search_checks import record_game

    options = {"num_players": 4, "hands": 1}
    games, _ = record_game("kansas_city-v1", options, 2)
    positions = [g for g in games if not g.is_over and 2 <= len(g.legal_actions()) <= 12][5:9]
    knobs = {"worlds": 4, "max_worlds": 8, "engine": engine}
    plain = label_positions("kansas_city-v1", options, positions, seed=4, **knobs)
    both = label_positions("kansas_city-v1", options, positions, seed=4, unbiased=True, **knobs)
    later = measure_labels("kansas_city-v1", options, positions, plain, seed=4, **knobs)
    assert any(x.searched for x in both)
    for a, b in zip(later, both):
        np.testing.assert_array_equal(a.values, b.values)
        if b.searched:
            assert b.check_values.shape == b.values.shape
            assert not np.array_equal(b.check_values, b.values)
            np.testing.assert_allclose(a.check_values, b.check_values, atol=1e-6)
    if engine == "batched":
        reference = label_positions("kansas_city-v1", options, positions, seed=4, unbiased=True,
                                    worlds=4, max_worlds=8, engine="reference")
        for a, b in zip(reference, both):
            if b.searched:
                np.testing.assert_allclose(a.check_values, b.check_values, atol=1e-6)
