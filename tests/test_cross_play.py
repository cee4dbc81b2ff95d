"""Mixed teams in the cooperative game (``cross_play``, ``cahoots eval --cross-play``): the
lineups and their seat rotation, paired deals, the table and JSON, policies that may not play the
options, and the command line."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from cahoots_envs import cli
from cahoots_envs.evaluation import cross_play, cross_play_lineups
from cahoots_envs.evaluation.cross_play import seated

COOP = {"num_players": 3}


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return cross_play("cahoots_coop", ["heuristic", "random"], num_deals=3, seed=5, options=COOP)


def test_lineups_are_own_teams_then_k_seats_of_a_with_the_rest_of_b() -> None:
    assert cross_play_lineups(["a", "b"], 3) == [
        ["a", "a", "a"], ["b", "b", "b"], ["a", "a", "b"], ["a", "b", "b"]]
    assert cross_play_lineups(["a", "b", "c"], 2) == [
        ["a", "a"], ["b", "b"], ["c", "c"], ["a", "b"], ["a", "c"], ["b", "c"]]
    four = cross_play_lineups(["a", "b"], 4)
    assert four[2:] == [["a", "a", "a", "b"], ["a", "a", "b", "b"], ["a", "b", "b", "b"]]
    # no lineup twice: k seats of B with the rest of A is one of the pair's lineups already
    for n in (2, 3, 4):
        lineups = cross_play_lineups(["a", "b", "c", "d"], n)
        assert len({tuple(sorted(x)) for x in lineups}) == len(lineups)


def test_every_seat_meets_every_policy_of_a_lineup_over_n_deals() -> None:
    for lineup in (["a", "a", "b"], ["a", "b", "b"], ["a", "a", "b", "b"]):
        n = len(lineup)
        seats: dict[str, Counter[int]] = defaultdict(Counter)
        for d in range(n):
            for s, p in enumerate(seated(lineup, d)):
                seats[p][s] += 1
        for p in set(lineup):
            assert [seats[p][s] for s in range(n)] == [lineup.count(p)] * n, (lineup, p)


def test_every_lineup_plays_the_same_deals_with_seats_rotated(result) -> None:  # type: ignore[no-untyped-def]
    assert [s.lineup for s in result.lineups] == cross_play_lineups(["heuristic", "random"], 3)
    assert len(result.games) == 4 * 3
    by_lineup = [result.games[i * 3:(i + 1) * 3] for i in range(4)]
    seeds = [[g.seed for g in games] for games in by_lineup]
    assert all(s == seeds[0] for s in seeds) and len(set(seeds[0])) == 3
    for stats, games in zip(result.lineups, by_lineup):
        for d, g in enumerate(games):
            assert g.lineup == seated(stats.lineup, d)
        assert stats.deals == 3 and stats.wins == sum(1 for g in games if g.won)
        # (the Wilson interval of 0 wins has a low end of about 1e-17 from rounding)
        assert stats.win_rate_ci[0] - 1e-12 <= stats.win_rate <= stats.win_rate_ci[1]
    # the same seed gives the same games
    again = cross_play("cahoots_coop", ["heuristic", "random"], num_deals=3, seed=5, options=COOP,
                       workers=2)
    assert again.to_json(include_games=True) == result.to_json(include_games=True)


def test_the_table_and_json_give_both_mixed_lineups_of_each_pair(result, tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(result.to_json(tmp_path / "c.json"))
    assert data["kind"] == "cross_play" and data["num_deals"] == 3 and data["left_out"] == {}
    table = data["cross_play"]
    assert set(table) == {"heuristic", "random"}
    assert [c["lineup"] for c in table["heuristic"]["random"]] == [
        ["heuristic", "heuristic", "random"], ["heuristic", "random", "random"]]
    # the mirror cell is the same lineups, the other way round
    assert [c["win_rate"] for c in table["random"]["heuristic"]] == [
        c["win_rate"] for c in table["heuristic"]["random"]][::-1]
    own = result.lineup("heuristic")
    assert all(c["win_rate"] == own.win_rate for c in table["heuristic"]["heuristic"])
    text = result.table()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "cross-play" in text and "2 heuristic + 1 random" in text
    assert "1 heuristic + 2 random" in text and "3 random" in text
    assert result.plot(tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_a_policy_that_may_not_play_the_options_is_left_out_with_a_note() -> None:
    """zoo:cahoots_coop was trained without open hands: it sits in no lineup of an open-hands
    game, the others play, and one note says why; across the difficulty it plays, noted."""
    out = cross_play("cahoots_coop", ["heuristic", "random", "zoo:cahoots_coop"], num_deals=1,
                     options={**COOP, "open_hands": True})
    assert out.policies == ["heuristic", "random"] and list(out.left_out) == ["zoo:cahoots_coop"]
    assert all("zoo:cahoots_coop" not in g.lineup for g in out.games)
    assert ("zoo:cahoots_coop left out: it may not play these options (open_hands=True here, "
            "trained with False)") in " ".join(out.table().splitlines())
    assert json.loads(out.to_json())["left_out"]["zoo:cahoots_coop"].count("open_hands") >= 1
    across = cross_play("cahoots_coop", ["zoo:cahoots_coop", "random"], num_deals=1,
                        options={**COOP, "difficulty": "beginner"})
    assert across.meta["option_differences"] == {
        "zoo:cahoots_coop": {"difficulty": ["normal", "beginner"]}}
    assert "zoo:cahoots_coop plays across difficulty='beginner'" in across.table()
    with pytest.raises(ValueError, match="no policy may play"):
        cross_play("cahoots_coop", ["zoo:cahoots_coop", "zoo:kansas_city"], num_deals=1,
                   options={**COOP, "open_hands": True})


def test_cross_play_refuses_competitive_games_and_a_lone_policy() -> None:
    with pytest.raises(ValueError, match="not cooperative"):
        cross_play("kansas_city", ["heuristic", "random"], num_deals=1)
    with pytest.raises(ValueError, match="at least 2 policies"):
        cross_play("cahoots_coop", ["heuristic"], num_deals=1)


def test_the_command_line(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code = cli.main(["eval", "cahoots_coop", "heuristic", "random", "--cross-play", "--games", "2",
                     "--no-progress", "--workers", "1", "--json", str(tmp_path / "x.json")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "cross-play: team win rate" in out.out and "2 heuristic + 1 random" in out.out
    assert json.loads((tmp_path / "x.json").read_text())["kind"] == "cross_play"
    for args, expected in [
        (["kansas_city", "heuristic", "random"], "is not cooperative"),
        (["cahoots_coop", "heuristic"], "--cross-play needs at least 2 policies"),
        (["cahoots_coop", "heuristic", "--field", "random"], "drop --field"),
        (["cahoots_coop", "heuristic", "heuristic"], "given twice"),
    ]:
        code = cli.main(["eval", *args, "--cross-play", "--games", "1", "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("cahoots eval: error: ") and err.count("\n") == 1, err
        assert expected in err, (expected, err)


def test_paired_gains_between_two_cross_plays_on_the_same_deals(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """benchmarks/cross_play_paired.py pairs two runs' games by deal: the same deals (and so
    the same seats) without talk and with it; a run against itself gains exactly 0."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "cross_play_paired.py"
    spec = importlib.util.spec_from_file_location("cross_play_paired", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files = {}
    for talk in ("none", "dutch"):
        result = cross_play("cahoots_coop", ["heuristic", "random"], 4, seed=3,
                            options={"num_players": 3, "talk": talk})
        files[talk] = tmp_path / f"{talk}.json"
        files[talk].write_text(json.dumps(result.to_dict(include_games=True)))
    off, on = (json.loads(files[t].read_text())["games"] for t in ("none", "dutch"))
    assert [g["seed"] for g in off] == [g["seed"] for g in on]  # the same deals
    assert [g["lineup"] for g in off] == [g["lineup"] for g in on]  # the same seats
    for args, gain in (([files["none"], files["none"]], "+0.000 [+0.000, +0.000]"),
                       ([files["none"], files["dutch"]], None)):
        monkeypatch.setattr(sys, "argv", ["cross_play_paired.py", *map(str, args)])
        module.main()
        out = capsys.readouterr().out
        rows = [line for line in out.splitlines() if line.startswith("| 3 heuristic |")]
        assert len(rows) == 1 and "| 4 |" in rows[0]
        if gain:
            assert rows[0].endswith(gain + " |")
    data = json.loads(files["none"].read_text())
    data.pop("games")  # written without --games-in-json: nothing to pair, one line
    (tmp_path / "plain.json").write_text(json.dumps(data))
    monkeypatch.setattr(sys, "argv", ["cross_play_paired.py", str(tmp_path / "plain.json"),
                                      str(files["dutch"])])
    with pytest.raises(SystemExit, match="--games-in-json"):
        module.main()
