"""Tournaments: seat rotation, reproducibility whatever the worker count, statistics, ratings,
the cooperative framing, and the table / JSON / PNG outputs."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from cahoots_envs.evaluation import (
    lineup_for_game,
    mean_interval,
    run_tournament,
    wilson_interval,
)
from cahoots_envs.gamelog import replay_log


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson_interval(0, 0) == (0.0, 1.0)
    mean, lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and lo < 2.5 < hi and hi - 2.5 == pytest.approx(2.5 - lo)


@pytest.mark.parametrize("policies,n", [(["a", "b"], 4), (["a", "b", "c"], 3), (["a", "b", "c"], 4),
                                        (["a", "b", "c", "d", "e"], 4)])
def test_every_policy_plays_every_seat_equally(policies: list[str], n: int) -> None:
    cycle = n if len(policies) <= n else n * math.comb(len(policies), n)
    seats: dict[str, Counter] = {p: Counter() for p in policies}
    for g in range(cycle):
        for s, p in enumerate(lineup_for_game(policies, n, g, cooperative=False)):
            seats[p][s] += 1
    for p in policies:
        counts = [seats[p][s] for s in range(n)]
        assert len(set(counts)) == 1 and counts[0] > 0, (p, counts)


def test_cooperative_lineups_are_one_policy_per_game() -> None:
    assert lineup_for_game(["x", "y"], 3, 0, True) == ["x"] * 3
    assert lineup_for_game(["x", "y"], 3, 1, True) == ["y"] * 3


def test_tournaments_are_reproducible_whatever_the_worker_count() -> None:
    kwargs = {"num_games": 4, "seed": 7, "options": {"hands": 1}}
    one = run_tournament("kansas_city", ["heuristic", "random"], workers=1, **kwargs)
    two = run_tournament("kansas_city", ["heuristic", "random"], workers=2, **kwargs)
    assert one.to_json(include_games=True) == two.to_json(include_games=True)
    other = run_tournament("kansas_city", ["heuristic", "random"], num_games=4, seed=8,
                           options={"hands": 1})
    assert [g.scores for g in other.games] != [g.scores for g in one.games]


def test_results_hold_rates_scores_head_to_head_and_ratings(tmp_path) -> None:
    result = run_tournament("cahoots_tricks", ["heuristic", "random"], num_games=8, seed=1,
                            options={"num_players": 4})
    by = {s.policy: s for s in result.stats}
    assert by["heuristic"].seat_games == by["random"].seat_games == 16
    for s in result.stats:
        assert s.win_rate_ci[0] <= s.win_rate <= s.win_rate_ci[1]
        assert s.mean_score_ci[0] <= s.mean_score <= s.mean_score_ci[1]
        assert s.rating_mu is not None and s.rating_sigma > 0
    h = result.head_to_head
    assert h["heuristic"]["random"] + h["random"]["heuristic"] == pytest.approx(1.0)
    assert result.rating_model == "PlackettLuce"
    table = result.table()
    assert "heuristic" in table and "head to head" in table
    assert max(len(line) for line in table.splitlines()) <= 80
    data = json.loads(result.to_json(tmp_path / "r.json"))
    assert data["num_games"] == 8 and len(data["stats"]) == 2
    png = result.plot(tmp_path / "r.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_the_chart_of_a_policy_that_never_won(tmp_path) -> None:
    """A share of 0 gets a Wilson low end of about 1e-17 from rounding: the chart still draws."""
    result = run_tournament("kansas_city", ["heuristic", "random", "zoo:kansas_city"],
                            num_games=6, seed=3)
    assert min(s.win_rate for s in result.stats) == 0.0
    assert result.plot(tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_cooperative_tournament_rates_teams_against_the_game(tmp_path) -> None:
    result = run_tournament("cahoots_coop", ["heuristic", "random"], num_games=4, seed=2,
                            options={"num_players": 2, "num_goals": 3}, log_dir=tmp_path)
    assert result.cooperative
    assert all(len(set(g.lineup)) == 1 for g in result.games)
    assert {s.policy: s.seat_games for s in result.stats} == {"heuristic": 2, "random": 2}
    assert "difficulty_rating" in result.to_dict()
    # every game's log replays to the tournament's scores
    for g in result.games:
        replayed = replay_log(tmp_path / f"game_{g.game:05d}.jsonl")
        assert replayed.scores == g.scores


def test_texas_euchre_scores_are_marked_lower_is_better() -> None:
    result = run_tournament("texas_euchre", ["random"], num_games=3, seed=0,
                            options={"num_players": 3, "target_score": 20})
    assert result.lower_score_is_better
    assert "low=good" in result.table()


# ---- shared wins, candidates against a field, policy objects, full labels --------------------------
def test_a_shared_win_counts_one_over_k_as_in_training() -> None:
    """A k-way shared win counts 1/k (a full tie 1/N), the count of evaluation/matches.py and
    ``cahoots strength``, so a game's shares add up to 1."""
    from cahoots_envs.core.driver import win_shares
    from cahoots_envs.evaluation import GameResult, summarise

    assert win_shares([0.5, 0.5, -0.5, -0.5]) == [0.5, 0.5, 0.0, 0.0]
    assert win_shares([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4
    assert win_shares([1.0, -1 / 3, -1 / 3, -1 / 3]) == [1.0, 0.0, 0.0, 0.0]
    games = [
        GameResult(0, 0, ["a", "b", "b", "b"], [9.0, 9.0, 1.0, 1.0], [0.5, 0.5, -0.5, -0.5], 1),
        GameResult(1, 0, ["b", "a", "b", "b"], [5.0, 5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 0.0], 1),
        GameResult(2, 0, ["b", "b", "a", "b"], [1.0, 1.0, 9.0, 1.0], [-1 / 3, -1 / 3, 1.0, -1 / 3], 1),
    ]
    result = summarise("kansas_city", {"hands": 1}, ["a", "b"], 0, games)
    by = {s.policy: s for s in result.stats}
    assert by["a"].wins == pytest.approx(0.5 + 0.25 + 1.0)
    assert by["b"].wins == pytest.approx(0.5 + 0.75)
    assert by["a"].wins + by["b"].wins == pytest.approx(len(games))
    assert by["a"].win_rate == pytest.approx(1.75 / 3)


def test_a_candidate_plays_one_seat_against_a_field() -> None:
    """field=SPEC: the candidate in one seat (rotated), the field in every other seat; its win
    rate is its win share against N-1 copies of the field."""
    result = run_tournament("kansas_city", ["heuristic"], num_games=8, seed=0,
                            options={"hands": 1}, field="random")
    for g in result.games:
        assert g.lineup == ["heuristic" if s == g.game % 4 else "random" for s in range(4)]
    by = {s.policy: s for s in result.stats}
    assert (by["heuristic"].seat_games, by["random"].seat_games) == (8, 24)
    assert by["heuristic"].wins + by["random"].wins == pytest.approx(8)
    assert result.field_policy == "random" and result.to_dict()["field"] == "random"
    assert "against 3 random" in result.table()
    # the same spec as candidate and field: self-play, the field numbered apart
    mirror = run_tournament("kansas_city", ["random"], num_games=4, options={"hands": 1},
                            field="random")
    assert mirror.policies == ["random", "random#2"]
    two = run_tournament("kansas_city", ["heuristic", "random"], num_games=16,
                         options={"hands": 1}, field="random")
    seats = Counter((g.lineup.index(p), p) for g in two.games for p in ("heuristic",)
                    if p in g.lineup)
    assert sorted(seats.values()) == [2, 2, 2, 2]
    with pytest.raises(ValueError, match="cooperative"):
        run_tournament("cahoots_coop", ["heuristic"], num_games=2, field="random")


def test_repeated_specs_are_refused_not_merged() -> None:
    with pytest.raises(ValueError, match="given twice.*field"):
        run_tournament("kansas_city", ["heuristic", "random", "random", "random"], num_games=4)


def test_policy_objects_play_labelled_by_name_and_numbered() -> None:
    import cahoots_envs

    def bot(seed: int) -> object:
        return cahoots_envs.load_policy("heuristic", "kansas_city", {"hands": 1}, seed=seed)

    class Nameless:
        def __init__(self) -> None:
            self.inner = cahoots_envs.load_policy("random", "kansas_city", {"hands": 1})

        def act(self, observation, action_mask) -> int:
            return self.inner.act(observation, action_mask)

    kwargs = {"num_games": 4, "seed": 3, "options": {"hands": 1}}
    one = run_tournament("kansas_city", [bot(1), bot(2), "random"], workers=1, **kwargs)
    two = run_tournament("kansas_city", [bot(1), bot(2), "random"], workers=2, **kwargs)
    assert one.policies == ["heuristic", "heuristic#2", "random"]
    assert one.to_json(include_games=True) == two.to_json(include_games=True)
    odd = run_tournament("kansas_city", [Nameless()], num_games=1, options={"hands": 1},
                         field="random")
    assert odd.policies[0].startswith("<") and "Nameless" in odd.policies[0]
    with pytest.raises(TypeError, match="act"):
        run_tournament("kansas_city", [42], num_games=1)


def test_tables_show_full_labels_within_80_columns() -> None:
    import cahoots_envs

    long = "kansas_city-v1__maskableppo__0__20261129-143050"
    bot = cahoots_envs.load_policy("random", "kansas_city", {"hands": 1})
    bot.name = long
    result = run_tournament("kansas_city", [bot, "heuristic"], num_games=4,
                            options={"hands": 1})
    table = result.table()
    assert long in table.splitlines()  # on a line of its own, whole, above its row
    assert "heuristic" in table and "…" not in table
    assert max(len(line) for line in table.splitlines()) <= 80
    assert result.labels()[long] == long


def test_a_policy_played_across_an_option_is_reported() -> None:
    """zoo:cahoots_coop was trained at normal difficulty; at beginner it may play, and the
    tournament's result and table say so."""
    result = run_tournament("cahoots_coop", ["zoo:cahoots_coop", "heuristic"], num_games=2,
                            options={"difficulty": "beginner", "num_players": 3})
    assert result.meta["option_differences"] == {
        "zoo:cahoots_coop": {"difficulty": ["normal", "beginner"]}}
    assert "zoo:cahoots_coop plays across difficulty='beginner' (trained at 'normal')" in result.table()
    plain = run_tournament("cahoots_coop", ["heuristic"], num_games=1, options={"num_players": 3})
    assert "option_differences" not in plain.meta
