"""The public facts that v1 adds to the Texas Euchre observation, one pair of scripted games each.

Each pair differs only in one public fact; the observer's observation must differ at the next
decision (transient facts) or at every later decision of the round (persistent facts), and the
fact must be encoded in the right seat row and card. Under the v0 encoder both games of a pair
looked alike from the moment the fact happened (or the segment did not exist), so these tests
fail there.

Texas Euchre has no suit to follow (§3.2.3, A7), so no seat ever shows a void: there is no void
segment. Who acts next is ``to_move`` in every phase (the first player of the draw phase, the
final lap, the thrower's lead, each trick's winner leading the next).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cahoots_envs import texas_euchre_v1
from cahoots_envs.games.texas_euchre.rules import game_winners, parse_face, update_tiebreak
from tests.games.texas_euchre.scripted import DEAL_4P, new_env, run, thrown_round, trick_rows
from tests.scenario import views

F = parse_face


def obs(env: Any, seat: int) -> np.ndarray:
    return env.observe(f"player_{seat}")["observation"]


def differing(env_a: Any, env_b: Any, seat: int) -> set[str]:
    """The segments in which ``seat``'s observations of the two games differ."""
    va, vb = views(env_a, seat), views(env_b, seat)
    return {name for name in va if not np.array_equal(va[name], vb[name])}


def step(env: Any, row: tuple) -> None:
    seat, text = row[0], row[1]
    assert env.agent_selection == f"player_{seat}", f"before {text!r}"
    env.step(env.unwrapped.str_to_action(text))


def first_legal(env: Any) -> None:
    """The first legal action, but `throw down` whenever it is allowed (so a draw phase ends)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    throw = env.unwrapped.game.throw_action
    env.step(throw if mask[throw] else int(np.flatnonzero(mask)[0]))


def cards(row: np.ndarray) -> list[int]:
    return np.flatnonzero(row).tolist()


# ---- the cards each seat played -----------------------------------------------------------

# 4 players, dealer 3: seat 0 throws down and takes every trick. Game A: seat 1 holds 5H and
# seat 2 6H; game B the other way round. Both play it to the first trick, so the cards played
# this round are the same in both games, but not who played them.
TRICKS_4P = ["AC {} {} 7C", "AD 8C 9C 7D", "AH 8D 9D 7H", "AS 8H 9H 7S", "KC 8S 9S 10C"]


def played_by_game(low1: str, low2: str) -> tuple[Any, list[tuple]]:
    final = [["AC", "AD", "AH", "AS", "KC"], [low1, "8C", "8D", "8H", "8S"],
             [low2, "9C", "9D", "9H", "9S"], ["7C", "7D", "7H", "7S", "10C"]]
    deal, draw = thrown_round(final, ["2C", "2D", "2H", "2S"], dealer=3)
    env = new_env(deal)
    run(env, draw)
    tricks = [(TRICKS_4P[0].format(low1, low2), 0)] + [(t, 0) for t in TRICKS_4P[1:]]
    return env, trick_rows(0, 4, tricks)


def test_played_by_shows_who_played_each_card_for_the_rest_of_the_round() -> None:
    env_a, rows_a = played_by_game("5H", "6H")
    env_b, rows_b = played_by_game("6H", "5H")
    observer = 3  # relative seats: 3 -> 0, 0 -> 1, 1 -> 2, 2 -> 3
    for k, (row_a, row_b) in enumerate(zip(rows_a, rows_b)):
        step(env_a, row_a)
        step(env_b, row_b)
        if k == len(rows_a) - 1:
            break  # the round is over: a new deal, a new round
        if k < 1:
            continue  # seat 1 plays at row 1
        va, vb = views(env_a, observer), views(env_b, observer)
        assert not np.array_equal(obs(env_a, observer), obs(env_b, observer)), k
        assert cards(va["played_by"][2])[0] == F("5H") and cards(vb["played_by"][2])[0] == F("6H")
        assert np.array_equal(va["played"], vb["played"]) or k == 1  # the same cards, once both played
        if k >= 2:
            assert F("6H") in cards(va["played_by"][3]) and F("5H") in cards(vb["played_by"][3])
        if k >= 7:  # the second trick is complete: the seats of 5H and 6H show nowhere else
            assert differing(env_a, env_b, observer) == {"played_by"}, k
    # every card in the right row: seat 0 (relative 1) played all its aces and KC, and so on
    env, rows = played_by_game("5H", "6H")
    run(env, rows[:-1])
    v = views(env, 3)
    assert cards(v["played_by"][1]) == sorted(F(c) for c in ["AC", "AD", "AH", "AS", "KC"])
    assert cards(v["played_by"][2]) == sorted(F(c) for c in ["5H", "8C", "8D", "8H", "8S"])
    assert cards(v["played_by"][3]) == sorted(F(c) for c in ["6H", "9C", "9D", "9H", "9S"])
    assert cards(v["played_by"][0]) == sorted(F(c) for c in ["7C", "7D", "7H", "7S"])
    assert v["played_by"].max() == 1 and v["played_by"].sum() == v["played"].sum() == 19


def test_played_by_counts_both_copies_with_two_decks() -> None:
    """6 players, two decks: a seat that plays both copies of a face shows a count of 2."""
    final = [["AC", "AC", "KC", "KD", "KH", "KS", "QC"], ["3D", "3D", "4D", "4D", "5D", "5D", "6D"],
             ["3H", "3H", "4H", "4H", "5H", "5H", "6H"], ["3S", "3S", "4S", "4S", "5S", "5S", "6S"],
             ["7C", "7C", "7D", "7D", "7H", "7H", "7S"], ["8C", "8C", "8D", "8D", "8H", "8H", "8S"]]
    deal, draw = thrown_round(final, ["2C", "2C", "2D", "2D", "2H", "2H"], dealer=5)
    env = new_env(deal)
    run(env, draw + trick_rows(0, 6, [("AC 3D 3H 3S 7C 8C", 0)] * 2))
    v = views(env, 1)  # relative seats: 1 -> 0, ..., 0 -> 5
    assert v["played_by"][5][F("AC")] == 2 and v["played_by"][0][F("3D")] == 2
    assert v["played"][F("AC")] == 2 and v["played_by"].sum() == 12


# ---- each seat's latest discard -------------------------------------------------------------

def discard_order_game(first: str, second: str) -> tuple[Any, list[tuple]]:
    """The same deal (DEAL_4P: dealer 3, seat 0 starts); seat 1 discards 2D and 3D on its first
    two turns in the given order, then throws down; the stakes end up the same."""
    env = new_env(DEAL_4P)
    rows = [(0, "discard 2C"), (1, f"discard {first}"), (2, "discard 2H"), (3, "discard 2S"),
            (0, "discard 3C"), (1, f"discard {second}"), (2, "discard 3H"), (3, "discard 3S"),
            (0, "discard 4C"), (1, "throw down"),
            (2, "discard 4H"), (3, "discard none"), (0, "discard none")]
    return env, rows


def test_last_discard_shows_each_seats_latest_discard_for_the_rest_of_the_round() -> None:
    env_a, rows_a = discard_order_game("2D", "3D")
    env_b, rows_b = discard_order_game("3D", "2D")
    observer = 2  # relative seats: 2 -> 0, 3 -> 1, 0 -> 2, 1 -> 3
    for k, (row_a, row_b) in enumerate(zip(rows_a, rows_b)):
        step(env_a, row_a)
        step(env_b, row_b)
        if k >= 5:  # seat 1's second discard: the stakes are alike again
            assert differing(env_a, env_b, observer) == {"last_discard"}, k
            va, vb = views(env_a, observer), views(env_b, observer)
            assert cards(va["last_discard"][3]) == [F("3D")]
            assert cards(vb["last_discard"][3]) == [F("2D")]
    # the encoding of every row at the start of the tricks (seat 1 leads)
    v = views(env_a, observer)
    assert cards(v["last_discard"][0]) == [F("4H")]  # seat 2 on the final lap
    assert v["last_discard"][1].sum() == 0  # seat 3: `discard none`
    assert v["last_discard"][2].sum() == 0  # seat 0: `discard none`
    assert v["stakes"][3].sum() == 2 and v["to_move"].tolist() == [0, 0, 0, 1]
    # the thrower's row stays through every trick of the round; both games play alike
    while env_a.unwrapped.game.round_number == 0:
        first_legal(env_a)
        first_legal(env_b)
        if env_a.unwrapped.game.round_number == 0:
            assert differing(env_a, env_b, observer) == {"last_discard"}
    assert views(env_a, observer)["last_discard"].sum() == 0  # a new round


# ---- the last completed trick ---------------------------------------------------------------

ALL_TRICKS_3P = [["AC", "AD", "AH", "AS"], ["6C", "6D", "6H", "6S"], ["7C", "7D", "7H", "7S"]]


def trick_order_game(first: str, second: str) -> tuple[Any, list[tuple]]:
    """3 players, dealer 2: seat 0 throws down and takes every trick; the first two tricks are
    played in the given order (so the cards each seat played are the same after both)."""
    deal, draw = thrown_round(ALL_TRICKS_3P, ["2C", "5C", "3C"], dealer=2)
    env = new_env(deal)
    run(env, draw)
    return env, trick_rows(0, 3, [(first, 0), (second, 0), ("AH 6H 7H", 0), ("AS 6S 7S", 0)])


def test_last_trick_shows_the_cards_by_seat_its_leader_and_winner_until_the_next() -> None:
    env_a, rows_a = trick_order_game("AC 6C 7C", "AD 6D 7D")
    env_b, rows_b = trick_order_game("AD 6D 7D", "AC 6C 7C")
    observer = 1  # relative seats: 1 -> 0, 2 -> 1, 0 -> 2
    for k in range(6):
        step(env_a, rows_a[k])
        step(env_b, rows_b[k])
    # the next decision (seat 0 leads the third trick): only the last trick differs
    assert differing(env_a, env_b, observer) == {"last_trick"}
    va, vb = views(env_a, observer), views(env_b, observer)
    assert [cards(va["last_trick"][rel]) for rel in range(3)] == [[F("6D")], [F("7D")], [F("AD")]]
    assert [cards(vb["last_trick"][rel]) for rel in range(3)] == [[F("6C")], [F("7C")], [F("AC")]]
    assert va["last_trick_leader"].tolist() == [0, 0, 1] and va["last_trick_winner"].tolist() == [0, 0, 1]
    # it stays while the next trick is played, and goes once that one is complete
    for k in (6, 7):
        step(env_a, rows_a[k])
        step(env_b, rows_b[k])
        assert differing(env_a, env_b, observer) == {"last_trick"}
    step(env_a, rows_a[8])
    step(env_b, rows_b[8])
    assert np.array_equal(obs(env_a, observer), obs(env_b, observer))


def test_last_trick_leader_and_winner_ties_reverse_and_the_round_boundary() -> None:
    """Equal top ranks go to the card played last: the winner is not the leader. The final
    trick of a round is still shown at the next round's first decisions, until its tricks."""
    final = [["AC", "KC", "9C", "4S"], ["AD", "10D", "2D", "4D"], ["AH", "8H", "5H", "2H"]]
    deal, draw = thrown_round(final, ["2C", "5C", "3C"], dealer=2)
    env = new_env(deal)
    run(env, draw)
    v = views(env, 1)
    assert v["last_trick"].sum() == 0 and v["last_trick_leader"].sum() == 0
    run(env, [(0, "play AC"), (1, "play AD"), (2, "play AH")])  # three aces: seat 2 takes it
    v = views(env, 1)  # relative seats: 1 -> 0, 2 -> 1, 0 -> 2
    assert v["last_trick_leader"].tolist() == [0, 0, 1] and v["last_trick_winner"].tolist() == [0, 1, 0]
    assert [cards(v["last_trick"][rel]) for rel in range(3)] == [[F("AD")], [F("AH")], [F("AC")]]
    run(env, [(2, "play 2H"), (0, "play 4S"), (1, "play 10D"), (1, "play 2D"), (2, "play 8H"),
              (0, "play 9C"), (0, "play KC"), (1, "play 4D"), (2, "play 5H")])
    game = env.unwrapped.game
    assert game.round_number == 1 and game.phase == "first_turn"
    v = views(env, 1)  # the next round: the final trick KC 4D 5H (seat 0 led and took it)
    assert [cards(v["last_trick"][rel]) for rel in range(3)] == [[F("4D")], [F("5H")], [F("KC")]]
    assert v["last_trick_leader"].tolist() == [0, 0, 1] and v["last_trick_winner"].tolist() == [0, 0, 1]
    while game.phase != "play":
        assert views(env, 1)["last_trick"].sum() == 3
        first_legal(env)
    assert views(env, 1)["last_trick"].sum() == 0 and views(env, 1)["last_trick_winner"].sum() == 0
    # Reverse Texas Euchre: the lowest card takes the trick, again the last of equal ones
    env = new_env(deal, reverse=True)
    run(env, draw + [(0, "play 4S"), (1, "play 2D"), (2, "play 2H")])
    v = views(env, 0)
    assert v["last_trick_leader"].tolist() == [1, 0, 0] and v["last_trick_winner"].tolist() == [0, 0, 1]


# ---- last round's points and the FAQ 6 tie-break rank ------------------------------------------

# 3-player rounds, written for dealer 2 (seat 0 throws down and leads); a round with dealer
# (2 + r) % 3 turns every seat r places to the left. Points with stakes s0, s1, s2:
SCENARIOS = {
    # the thrower came second: its stake once; seat 2 has the fewest: [s0, 0, s2]
    "between": ([["KC", "6C", "6D", "6H"], ["AC", "AD", "AH", "7C"], ["8C", "8D", "8H", "8S"]],
                [("KC 7C 8C", 0), ("6C AC 8D", 1), ("AD 8H 6D", 1), ("AH 8S 6H", 1)]),
    # the thrower tied for the fewest doubles, the other tied seat scores: [2 s0, s1, 0]
    "tied_fewest": ([["AC", "6C", "6D", "6H"], ["AD", "7C", "7D", "7H"], ["AH", "AS", "8C", "8D"]],
                    [("AC 7C 8C", 0), ("6C AD 8D", 1), ("7D AH 6D", 2), ("AS 6H 7H", 2)]),
    # the thrower alone with the fewest doubles: [2 s0, 0, 0]
    "thrower_fewest": ([["6C", "6D", "6H", "6S"], ["AC", "AD", "7C", "7D"], ["AH", "AS", "7H", "7S"]],
                       [("6C AC 7H", 1), ("AD 7S 6D", 1), ("7C AH 6H", 2), ("AS 6S 7D", 2)]),
}


def scripted_round(name: str, r: int, stakes: list[str]) -> tuple[dict, list[tuple]]:
    """The scenario turned r seats left (dealer (2 + r) % 3); ``stakes`` by real seat."""
    hands, tricks = SCENARIOS[name]
    real = [hands[(s - r) % 3] for s in range(3)]
    deal, draw = thrown_round(real, stakes, dealer=(2 + r) % 3)
    return deal, draw + trick_rows(r, 3, [(t, (w + r) % 3) for t, w in tricks])


def scripted_game(rounds: list[tuple[str, list[str]]]) -> tuple[Any, list[list[tuple]]]:
    deals, tables = zip(*(scripted_round(name, r, stakes) for r, (name, stakes) in
                          enumerate(rounds)))
    env = texas_euchre_v1.env(num_players=3)
    env.reset(seed=0, options={"deal": list(deals)})
    return env, list(tables)


def lockstep_round(env_a: Any, env_b: Any, table: list[tuple], observer: int,
                   expect: set[str]) -> None:
    """Play one round alike in both games; at every decision of it (before each move) the
    observer's observations differ exactly in ``expect``."""
    for row in table:
        assert differing(env_a, env_b, observer) == expect, row
        step(env_a, row)
        step(env_b, row)


def test_last_round_points_show_what_each_seat_took_last_round() -> None:
    """The same scores after two rounds (A: 2 0 3 then 3 2 0; B: 3 0 3 then 2 2 0) and the same
    tie-break ranks; only the points of the last round differ, for all of round 3."""
    third = ("thrower_fewest", ["2C", "5C", "3C"])
    env_a, tables = scripted_game([("between", ["2C", "4C", "3C"]), ("between", ["3D", "2D", "4D"]),
                                   third])
    env_b, tables_b = scripted_game([("between", ["3C", "4C", "3D"]), ("between", ["2D", "2H", "4D"]),
                                     third])
    for table, table_b in zip(tables[:2], tables_b[:2]):
        run(env_a, table)
        run(env_b, table_b)
    game_a, game_b = env_a.unwrapped.game, env_b.unwrapped.game
    assert game_a.round_points == [[2, 0, 3], [3, 2, 0]]
    assert game_b.round_points == [[3, 0, 3], [2, 2, 0]]
    assert game_a.scores == game_b.scores == [5, 2, 3]
    assert game_a.tiebreak_rank == game_b.tiebreak_rank == [2, 1, 0]
    observer = 2  # relative seats: 2 -> 0, 0 -> 1, 1 -> 2
    assert views(env_a, observer)["last_round_points"].tolist() == pytest.approx([0, 0.03, 0.02])
    assert views(env_b, observer)["last_round_points"].tolist() == pytest.approx([0, 0.02, 0.02])
    lockstep_round(env_a, env_b, tables[2], observer, {"last_round_points"})
    assert game_a.round_number == 3 and game_a.round_points[-1] == [0, 0, 6]


def test_tiebreak_rank_orders_the_seats_as_faq_6_would() -> None:
    """The same scores and last-round points after three rounds (A: 4 5 0, 5 4 0, 0 0 10; B:
    6 5 0, 3 4 0, 0 0 10): seats 0 and 1 are tied on 9. Seat 0 took more than seat 1 in round 2
    in A and less in B, so FAQ 6 favours seat 1 in A and seat 0 in B, for all of round 4."""
    third = ("thrower_fewest", ["2C", "3C", "5H"])
    fourth = ("between", ["2C", "5C", "3C"])
    env_a, tables = scripted_game([("tied_fewest", ["2C", "5C", "3C"]),
                                   ("between", ["5D", "4C", "2C"]), third, fourth])
    env_b, tables_b = scripted_game([("tied_fewest", ["3D", "5C", "3C"]),
                                     ("between", ["3D", "4C", "2C"]), third, fourth])
    for table, table_b in zip(tables[:3], tables_b[:3]):
        run(env_a, table)
        run(env_b, table_b)
    game_a, game_b = env_a.unwrapped.game, env_b.unwrapped.game
    assert game_a.round_points == [[4, 5, 0], [5, 4, 0], [0, 0, 10]]
    assert game_b.round_points == [[6, 5, 0], [3, 4, 0], [0, 0, 10]]
    assert game_a.scores == game_b.scores == [9, 9, 10]
    # were the game over now, FAQ 6 would pick seat 1 in A and seat 0 in B: rank 0
    assert game_winners(game_a.scores, game_a.round_points) == [1]
    assert game_winners(game_b.scores, game_b.round_points) == [0]
    assert game_a.tiebreak_rank == [1, 0, 2] and game_b.tiebreak_rank == [0, 1, 2]
    observer = 2  # relative seats: 2 -> 0, 0 -> 1, 1 -> 2
    assert views(env_a, observer)["tiebreak_rank"].tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert views(env_b, observer)["tiebreak_rank"].tolist() == pytest.approx([1.0, 0.0, 0.5])
    lockstep_round(env_a, env_b, tables[3], observer, {"tiebreak_rank"})


def test_tiebreak_rank_matches_faq_6_on_random_games() -> None:
    """The rank kept round by round is the lexicographic order of the round points read from the
    latest round back, and the lowest score with the lowest rank are the winners."""
    rng = np.random.default_rng(0)
    for n in (3, 4, 5, 6):
        env = texas_euchre_v1.env(num_players=n, target_score=40)
        env.reset(seed=n)
        game = env.unwrapped.game
        while not game.is_over:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
        history = game.round_points
        keys = [tuple(p[s] for p in reversed(history)) for s in range(n)]
        assert game.tiebreak_rank == [sum(k < key for k in keys) for key in keys]
        rank: list[int] = [0] * n
        for points in history:
            rank = update_tiebreak(rank, points)
        assert rank == game.tiebreak_rank
        low = min(game.scores)
        tied = [s for s in range(n) if game.scores[s] == low]
        best = min(game.tiebreak_rank[s] for s in tied)
        assert game.winners() == [s for s in tied if game.tiebreak_rank[s] == best]
        v = views(env, 0)
        assert v["tiebreak_rank"].tolist() == pytest.approx(
            [game.tiebreak_rank[s % n] / (n - 1) for s in range(n)])
