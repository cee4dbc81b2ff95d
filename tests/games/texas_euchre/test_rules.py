"""Texas Euchre rules (docs/rules/texas_euchre.md) as scenario tables on scripted deals.

Each scenario is a table of ``(seat, action text, expected facts)`` rows driven through the
protected env and the notation. ``"illegal"`` means the text must not be a legal action now
(``str_to_action`` refuses it) and nothing is played; a dict lists facts checked after the row.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from cahoots_envs import IllegalActionError, texas_euchre_v1
from cahoots_envs.games.texas_euchre.rules import (
    TexasEuchre,
    card_str,
    game_winners,
    parse_face,
    score_round,
    trick_winner,
)
from tests.games.texas_euchre.scripted import (
    DEAL_4P,
    DECK,
    HANDS_4P,
    hand,
    make_deal,
    new_env,
    run,
    thrown_round,
    trick_rows,
)
from tests.scenario import legal, views


@pytest.mark.parametrize("players, hand_size, decks", [(3, 4, 1), (4, 5, 1), (5, 6, 1), (6, 7, 2)])
def test_hand_sizes_decks_and_a_random_first_dealer(players: int, hand_size: int, decks: int) -> None:
    """§3.1 / §3.6: H = 4, 5, 6, 7 cards for 3-6 players, a second deck for 6; the dealer's
    left starts; the first dealer is drawn from the env's RNG."""
    env = texas_euchre_v1.env(num_players=players)
    dealers = set()
    for seed in range(12):
        env.reset(seed=seed)
        game = env.unwrapped.game
        assert [len(hand(env, s)) for s in range(players)] == [hand_size] * players
        assert len(game.draw_pile) == 52 * decks - players * hand_size
        assert env.agent_selection == f"player_{(game.dealer + 1) % players}"
        assert len(legal(env)) == 2 ** hand_size - 1 or decks == 2  # every non-empty subset
        dealers.add(game.dealer)
    assert len(dealers) > 1
    assert env.action_space("player_0").n == 2 ** hand_size + 1 + 52


# ---- scripted rounds with one throw down ---------------------------------------------------

# 3 players, dealer 2: seat 0 starts and throws down; stakes 2 (seat 0), 5 (seat 1), 3 (seat 2)
STAKES_3P = ["2C", "5C", "3C"]

SCORING_CASES = {
    # name: (final hands, tricks as (plays from the leader, winner), tricks won, points)
    "thrower takes every trick: everyone else doubles, the thrower scores 0": (
        [["AC", "AD", "AH", "AS"], ["6C", "6D", "6H", "6S"], ["7C", "7D", "7H", "7S"]],
        [("AC 6C 7C", 0), ("AD 6D 7D", 0), ("AH 6H 7H", 0), ("AS 6S 7S", 0)],
        [4, 0, 0], [0, 10, 6],
    ),
    "thrower alone with the fewest tricks doubles; non-throwers not last score 0 (FAQ 5)": (
        [["6C", "6D", "6H", "6S"], ["AC", "AD", "7C", "7D"], ["AH", "AS", "7H", "7S"]],
        [("6C AC 7H", 1), ("AD 7S 6D", 1), ("7C AH 6H", 2), ("AS 6S 7D", 2)],
        [0, 2, 2], [4, 0, 0],
    ),
    "thrower in between (came second) scores its stake once (FAQ 4); the last scores": (
        [["KC", "6C", "6D", "6H"], ["AC", "AD", "AH", "7C"], ["8C", "8D", "8H", "8S"]],
        [("KC 7C 8C", 0), ("6C AC 8D", 1), ("AD 8H 6D", 1), ("AH 8S 6H", 1)],
        [1, 3, 0], [2, 0, 3],
    ),
    "thrower tied for the most counts as most and scores 0 (A4)": (
        [["AC", "AD", "6C", "6D"], ["AH", "AS", "7C", "7D"], ["8C", "8D", "8H", "8S"]],
        [("AC 7C 8C", 0), ("AD 7D 8D", 0), ("6C AH 8H", 1), ("AS 8S 6D", 1)],
        [2, 2, 0], [0, 0, 3],
    ),
    "thrower tied for the fewest counts as least and doubles; all tied for last score (A4)": (
        [["AC", "6C", "6D", "6H"], ["AD", "7C", "7D", "7H"], ["AH", "AS", "8C", "8D"]],
        [("AC 7C 8C", 0), ("6C AD 8D", 1), ("7D AH 6D", 2), ("AS 6H 7H", 2)],
        [1, 1, 2], [4, 5, 0],
    ),
    "a non-thrower taking every trick doubles nobody (FAQ 3)": (
        [["6C", "6D", "6H", "6S"], ["AC", "AD", "AH", "AS"], ["7C", "7D", "7H", "7S"]],
        [("6C AC 7C", 1), ("AD 7D 6D", 1), ("AH 7H 6H", 1), ("AS 7S 6S", 1)],
        [0, 4, 0], [4, 0, 3],
    ),
    "thrower alone with the most tricks scores 0": (
        [["AC", "AD", "AH", "6C"], ["AS", "7C", "7D", "7H"], ["8C", "8D", "8H", "8S"]],
        [("AC 7C 8C", 0), ("AD 7D 8D", 0), ("AH 7H 8H", 0), ("6C AS 8S", 1)],
        [3, 1, 0], [0, 0, 3],
    ),
}


@pytest.mark.parametrize("case", list(SCORING_CASES))
def test_scoring(case: str) -> None:
    """§3.2.4 and FAQ 3-5 on full rounds: draw phase, throw down, four tricks, points."""
    final_hands, tricks, tricks_won, points = SCORING_CASES[case]
    deal, draw = thrown_round(final_hands, STAKES_3P, dealer=2)
    env = new_env(deal, reward_mode="points")
    run(env, draw)
    game = env.unwrapped.game
    assert game.stake_points == [2, 5, 3]
    assert [hand(env, s) for s in range(3)] == [
        [card_str(c) for c in sorted(2 * parse_face(x) for x in h)] for h in final_hands
    ]
    rows = trick_rows(0, 3, tricks)
    run(env, rows[:-1])  # the thrower leads the first trick
    assert game.tricks_won == [w - (s == tricks[-1][1]) for s, w in enumerate(tricks_won)]
    run(env, rows[-1:])
    assert game.round_points[-1] == points
    # points are bad: the points reward is minus the points, paid when the round ends
    assert [env.rewards[f"player_{s}"] for s in range(3)] == [-p for p in points]
    # a new round: the deal passed left (dealer 0), seat 1 starts
    assert game.dealer == 0 and env.agent_selection == "player_1"
    assert game.phase == "first_turn" and game.tricks_won == [0, 0, 0]
    assert game.stakes == [0, 0, 0] and [len(hand(env, s)) for s in range(3)] == [4, 4, 4]


def test_scoring_function_matches_the_spec_table() -> None:
    """§3.2.4 directly: (stakes, tricks, thrower) -> points, 4 and 5 players."""
    stakes = [10, 20, 30, 40]
    assert score_round(stakes, [0, 1, 1, 3], thrower=0) == [20, 0, 0, 0]
    assert score_round(stakes, [1, 0, 1, 3], thrower=0) == [10, 20, 0, 0]  # second: single
    assert score_round(stakes, [3, 0, 1, 1], thrower=0) == [0, 20, 0, 0]
    assert score_round(stakes, [5, 0, 0, 0], thrower=0) == [0, 40, 60, 80]
    assert score_round(stakes, [0, 5, 0, 0], thrower=0) == [20, 0, 30, 40]  # FAQ 3
    # A5: with 5 players there can be two levels in between; both score single
    s5 = [1, 2, 3, 4, 5]
    assert score_round(s5, [2, 0, 1, 3, 0], thrower=0) == [1, 2, 0, 0, 5]
    assert score_round(s5, [1, 0, 2, 3, 0], thrower=0) == [1, 2, 0, 0, 5]


# ---- the draw phase -------------------------------------------------------------------------

FIRST_LAP = [
    # first turn: discard at least one card, never throw down or stand pat (FAQ 1)
    (0, "throw down", "illegal"),
    (0, "discard none", "illegal"),
    (0, "discard 2C", {"hand": (0, ["3C", "4C", "QC", "KC", "AC"]), "stake_points": [2, 0, 0, 0],
                       "pile": 31, "to_move": 1, "phase": "first_turn"}),
    (1, "throw down", "illegal"),
    (1, "discard 3D 2D", {"hand": (1, ["4D", "QD", "KD", "AD", "AH"]), "stake_points": [2, 5, 0, 0],
                          "pile": 29}),
    (2, "discard 2H", {"hand": (2, ["3H", "4H", "QH", "KH", "AS"])}),
    (3, "discard 4S 2S 3S", {"hand": (3, ["5C", "5D", "5H", "QS", "KS"]), "pile": 25,
                             "stake_points": [2, 5, 2, 9], "phase": "draw", "to_move": 0}),
]


def test_first_lap_discards_and_draws_from_the_top() -> None:
    env = new_env(DEAL_4P)
    assert env.agent_selection == "player_0"  # the dealer's left starts
    assert env.unwrapped.phase_names[env.infos["player_0"]["phase"]] == "first_turn"
    # every non-empty subset of the hand, one action each: 2^5 - 1
    assert len(legal(env)) == 31
    assert "discard 2C 3C 4C QC KC" in legal(env)  # the notation lists cards sorted
    run(env, FIRST_LAP)


def test_later_turns_offer_throw_down_or_discard_but_not_standing_pat() -> None:
    env = new_env(DEAL_4P)
    run(env, FIRST_LAP + [
        (0, "discard none", "illegal"),
        (0, "discard 3C", {"to_move": 1, "phase": "draw", "hand": (0, ["4C", "5S", "QC", "KC", "AC"])}),
        (1, "throw down", {"phase": "final_lap", "to_move": 2, "hand": (1, ["4D", "QD", "KD", "AD", "AH"])}),
        # final lap: everyone else once, clockwise from the thrower's left; standing pat allowed
        (2, "throw down", "illegal"),
        (2, "discard none", {"to_move": 3, "hand": (2, ["3H", "4H", "QH", "KH", "AS"])}),
        (3, "discard 5C 5D 5H", {"to_move": 0, "stake_points": [5, 5, 2, 24], "pile": 21}),
        (0, "discard 4C", {"phase": "play", "to_move": 1}),  # back at the thrower: tricks, it leads
    ])
    game = env.unwrapped.game
    assert game.thrower == 1 and game.throw_turn == 5
    # the thrower's hand was frozen: nobody drew into it
    assert hand(env, 1) == ["4D", "QD", "KD", "AD", "AH"]


def test_discards_are_capped_by_the_draw_pile_and_exhaustion_skips_the_tricks() -> None:
    """A1 and FAQ 7: k <= cards left; when the pile runs out before anyone throws down there is
    no trick phase and everyone takes their whole stake."""
    env = new_env(DEAL_4P, reward_mode="points")
    game = env.unwrapped.game

    def everything(seat: int) -> tuple:
        return (seat, "discard " + " ".join(hand(env, seat)))

    for seat in (0, 1, 2, 3, 0, 1):  # 6 turns x 5 cards: 30 of the 32 cards drawn
        run(env, [everything(seat)])
    assert len(game.draw_pile) == 2 and env.agent_selection == "player_2"
    options = legal(env)
    assert "throw down" in options and max(len(t.split()) - 1 for t in options if t != "throw down") == 2
    three = "discard " + " ".join(hand(env, 2)[:3])
    stakes = list(game.stake_points)
    run(env, [(2, three, "illegal")])
    two = hand(env, 2)[:2]
    stakes[2] += sum(parse_face(c) // 4 + 2 for c in two)  # 2..10 score their rank
    run(env, [(2, "discard " + " ".join(two), {"round_points": stakes, "scores": stakes})])
    # no trick was played; the next round is dealt (dealer 0, seat 1 starts)
    assert game.round_number == 1 and game.dealer == 0 and env.agent_selection == "player_1"
    assert [env.rewards[f"player_{s}"] for s in range(4)] == [-p for p in stakes]


def test_final_lap_with_an_empty_pile_offers_only_discard_none() -> None:
    """§3.2.2: if the pile runs out on the final lap, later players cannot draw and the trick
    phase goes ahead."""
    env = new_env(DEAL_4P)
    game = env.unwrapped.game
    for seat in (0, 1, 2, 3, 0, 1):
        run(env, [(seat, "discard " + " ".join(hand(env, seat)))])
    run(env, [(2, "throw down", {"phase": "final_lap", "to_move": 3})])
    assert max(len(t.split()) - 1 for t in legal(env)) == 2 and "discard none" in legal(env)
    run(env, [
        (3, "discard " + " ".join(hand(env, 3)[:2]), {"pile": 0, "to_move": 0, "legal": ["discard none"]}),
        (0, "discard none", {"legal": ["discard none"]}),
        (1, "discard none", {"phase": "play", "to_move": 2}),
    ])
    assert game.round_number == 0 and game.thrower == 2


# ---- the trick phase --------------------------------------------------------------------------

def test_highest_rank_wins_suits_do_not_matter_ties_go_to_the_last_card() -> None:
    """§3.2.3: the thrower leads, anyone plays any card, the highest rank takes the trick, equal
    top ranks go to the card played last, the winner leads the next trick."""
    final = [["AC", "KC", "9C", "4S"], ["AD", "10D", "2D", "4D"], ["AH", "8H", "5H", "2H"]]
    deal, draw = thrown_round(final, STAKES_3P, dealer=2)
    env = new_env(deal)
    run(env, draw)
    # no suit to follow: every card of the hand is playable (FAQ 2)
    assert legal(env) == sorted(["play 4S", "play 9C", "play KC", "play AC"])
    run(env, [
        (0, "play AC"), (1, "play AD"),
        (2, "play AH", {"tricks_won": [0, 0, 1], "to_move": 2}),  # three aces: the last one wins
        (2, "play 2H"), (0, "play 4S"),
        (1, "play 10D", {"tricks_won": [0, 1, 1], "to_move": 1}),  # off-suit 10 beats the led 2H
        (1, "play 2D"), (2, "play 8H"),
        (0, "play 9C", {"tricks_won": [1, 1, 1], "to_move": 0}),
    ])
    v1 = views(env, 1)
    assert v1["played"].sum() == 9 and v1["tricks_won"].tolist() == [1, 1, 1]
    run(env, [(0, "play KC"), (1, "play 4D")])
    v2 = views(env, 2)  # seat 2 sees the trick: seat 0 (one to its left) led KC, seat 1 played 4D
    assert v2["trick"][1][parse_face("KC")] == 1 and v2["trick"][2][parse_face("4D")] == 1
    assert v2["trick_leader"].tolist() == [0, 1, 0]
    # 2-1-1: the thrower has the most (0); seats 1 and 2 tie for the fewest and both score
    run(env, [(2, "play 5H", {"tricks_won": [0, 0, 0], "round_points": [0, 5, 3]})])


def test_trick_winner_function() -> None:
    card = {c: 2 * parse_face(c) for c in DECK}
    assert trick_winner([(0, card["9C"]), (1, card["10D"]), (2, card["2C"])]) == 1
    assert trick_winner([(0, card["AS"]), (1, card["AH"]), (2, card["KC"])]) == 1
    assert trick_winner([(0, card["2C"]), (1, card["2D"]), (2, card["3C"])], reverse=True) == 1
    assert trick_winner([(0, card["5C"]), (1, card["AD"]), (2, card["3C"])], reverse=True) == 2
    # two decks: the second copy of the same card, played later, wins
    assert trick_winner([(3, card["QS"]), (4, card["QS"] + 1), (5, card["2C"])]) == 4


def test_six_players_two_decks_identical_cards_tie_and_the_later_wins() -> None:
    """§3.6: two decks and 7 cards each with 6 players; duplicates give one action per card."""
    final = [
        ["AC", "AC", "2C", "3C", "4C", "5C", "6C"],
        ["AD", "AD", "2D", "3D", "4D", "5D", "6D"],
        ["AH", "AH", "2H", "3H", "4H", "5H", "6H"],
        ["AS", "AS", "2S", "3S", "4S", "5S", "6S"],
        ["KC", "KC", "2C", "3C", "4C", "5C", "6C"],
        ["KD", "KD", "2D", "3D", "4D", "5D", "6D"],
    ]
    stakes = ["7C", "7D", "7H", "7S", "7C", "7D"]
    deal, draw = thrown_round(final, stakes, dealer=5)
    env = new_env(deal)
    game = env.unwrapped.game
    assert game.hand_size == 7 and len(game.draw_pile) == 104 - 42
    run(env, draw[:1])  # seat 0 discards 7C and draws 6C
    # seat 1 holds AD twice: one action per distinct set of cards
    run(env, draw[1:2])
    run(env, draw[2:6])
    assert env.agent_selection == "player_0" and game.phase == "draw"
    options = legal(env)
    assert options.count("discard AC") == 1 and "discard AC AC" in options
    # hand 2C 3C 4C 5C 6C AC AC: the subsets taking the second AC without the first are left out
    assert len(options) == len(set(options)) == 1 + (2 ** 7 - 1) - 2 ** 5
    run(env, draw[6:])
    assert legal(env).count("play AC") == 1
    run(env, [
        (0, "play AC"), (1, "play 2D"), (2, "play 2H"), (3, "play 2S"), (4, "play 2C"),
        (5, "play 2D", {"tricks_won": [1, 0, 0, 0, 0, 0], "to_move": 0}),
        (0, "play AC"), (1, "play AD"), (2, "play AH"), (3, "play AS"), (4, "play KC"),
        (5, "play KD", {"tricks_won": [1, 0, 0, 1, 0, 0], "to_move": 3}),
    ])
    assert Counter(game.card_locations()) == Counter(TexasEuchre.full_deck({"num_players": 6}))


def test_reverse_lowest_card_takes_the_trick_and_scoring_is_mirrored() -> None:
    """§3.6: the lowest card takes the trick (ties to the last played); a non-thrower with the
    most tricks takes its stake, the thrower doubles at the most and scores 0 at the fewest;
    no all-tricks doubling."""
    final = [["AC", "AD", "AH", "AS"], ["6C", "6D", "6H", "6S"], ["7C", "7D", "7H", "7S"]]
    deal, draw = thrown_round(final, STAKES_3P, dealer=2)
    env = new_env(deal, reverse=True)
    assert views(env, 0)["reverse"][0] == 1
    run(env, draw + trick_rows(0, 3, [("AC 6C 7C", 1), ("6D 7D AD", 1), ("6H 7H AH", 1)]))
    run(env, [(1, "play 6S"), (2, "play 7S"), (0, "play AS", {"round_points": [0, 5, 0]})])
    # the thrower takes every trick with the lowest cards: it doubles, nobody else scores
    final = [["2D", "2H", "2S", "3D"], ["6C", "6D", "6H", "6S"], ["7C", "7D", "7H", "7S"]]
    deal, draw = thrown_round(final, ["4C", "5C", "3C"], dealer=2)
    env = new_env(deal, reverse=True)
    run(env, draw + trick_rows(0, 3, [("2D 6C 7C", 0), ("2H 6D 7D", 0), ("2S 6H 7H", 0)]))
    run(env, [(0, "play 3D"), (1, "play 6S"), (2, "play 7S", {"round_points": [8, 0, 0]})])
    # ties for the lowest go to the last played; the thrower at the fewest scores 0, in between 1x
    assert score_round([2, 5, 3], [0, 3, 1], thrower=0, reverse=True) == [0, 5, 0]
    assert score_round([2, 5, 3], [1, 3, 0], thrower=0, reverse=True) == [2, 5, 0]
    assert score_round([2, 5, 3], [2, 2, 0], thrower=0, reverse=True) == [4, 5, 0]


# ---- game end and ties ------------------------------------------------------------------------

def test_game_ends_at_the_target_and_the_lowest_total_wins() -> None:
    """§3.2.6 / A6: checked after each round; reaching the target exactly ends the game."""
    final_hands, tricks, _, _ = SCORING_CASES[
        "thrower in between (came second) scores its stake once (FAQ 4); the last scores"
    ]
    deal, draw = thrown_round(final_hands, STAKES_3P, dealer=2)
    env = new_env(deal, target_score=3)
    run(env, draw + trick_rows(0, 3, tricks))
    game = env.unwrapped.game
    assert game.is_over and game.scores == [2, 0, 3] and game.winners() == [1]
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}
    assert env.unwrapped.phase_names[env.infos["player_0"]["phase"]] == "game_over"
    # one point short of the target: the game goes on with a new round
    env = new_env(deal, target_score=4)
    run(env, draw + trick_rows(0, 3, tricks))
    assert not env.unwrapped.game.is_over and env.unwrapped.game.round_number == 1


def test_tie_for_lowest_the_most_recent_point_taker_loses() -> None:
    """FAQ 6, first clause, over two scripted rounds: seats 0 and 2 finish tied on 3; seat 0
    took its points in the last round, seat 2 in the first, so seat 2 wins."""
    final_hands, tricks, _, _ = SCORING_CASES["thrower alone with the most tricks scores 0"]
    deal, draw = thrown_round(final_hands, STAKES_3P, dealer=2)
    env = new_env(deal, target_score=10)
    run(env, draw + trick_rows(0, 3, tricks))
    game = env.unwrapped.game
    assert game.scores == [0, 0, 3] and game.dealer == 0
    # round 2, dealer 0: seat 1 starts and throws down; seats 0 and 1 tie for the fewest tricks
    hands2 = [["6C", "6D", "AC", "6H"], ["AD", "7C", "7D", "7H"], ["AH", "AS", "8C", "8D"]]
    deal2, draw2 = thrown_round(hands2, ["3D", "5D", "4D"], dealer=0)
    game.script_round(deal2)
    run(env, draw2 + trick_rows(1, 3, [("AD 8C 6C", 1), ("7C AH 6D", 2), ("AS AC 7D", 0),
                                        ("6H 7H 8D", 2)]))
    assert game.round_points == [[0, 0, 3], [3, 10, 0]]
    assert game.is_over and game.scores == [3, 10, 3]
    assert game.winners() == [2]
    assert env._cumulative_rewards == {"player_0": -0.5, "player_1": -0.5, "player_2": 1.0}


def test_tie_for_lowest_in_the_same_round_the_one_who_took_more_loses() -> None:
    """FAQ 6, second clause: seats 0 and 2 finish on 8; both took points in the last round,
    seat 0 more (8 against 4), so seat 2 wins."""
    four = [["AC", "AD", "AH", "AS", "KC"], ["6C", "6D", "6H", "6S", "5S"],
            ["7C", "7D", "7H", "7S", "5H"], ["8C", "8D", "8H", "8S", "5D"]]
    # round 1, dealer 3: seat 0 throws down and takes every trick; the others double their stakes
    deal, draw = thrown_round(four, ["2C", "5C", "2D", "9C"], dealer=3)
    env = new_env(deal, target_score=20)
    run(env, draw + trick_rows(0, 4, [("AC 6C 7C 8C", 0), ("AD 6D 7D 8D", 0), ("AH 6H 7H 8H", 0),
                                       ("AS 6S 7S 8S", 0), ("KC 5S 5H 5D", 0)]))
    game = env.unwrapped.game
    assert game.scores == [0, 10, 4, 18]
    # round 2, dealer 0: seat 1 throws down and takes every trick again
    four2 = [four[3], four[0], four[1], four[2]]
    deal2, draw2 = thrown_round(four2, ["4C", "3C", "2H", "2S"], dealer=0)
    game.script_round(deal2)
    run(env, draw2 + trick_rows(1, 4, [("AC 6C 7C 8C", 1), ("AD 6D 7D 8D", 1), ("AH 6H 7H 8H", 1),
                                        ("AS 6S 7S 8S", 1), ("KC 5S 5H 5D", 1)]))
    assert game.round_points[-1] == [8, 0, 4, 4]
    assert game.is_over and game.scores == [8, 10, 8, 22]
    assert game.winners() == [2]


def test_tie_break_function_and_shared_wins() -> None:
    """FAQ 6 and the recommended extension: earlier rounds decide ties that remain; ties that
    survive every round share the win."""
    assert game_winners([5, 9, 5], [[5, 0, 0], [0, 9, 5]]) == [0]
    assert game_winners([5, 9, 5], [[0, 0, 0], [5, 9, 5]]) == [0, 2]
    assert game_winners([6, 20, 6, 6], [[0, 10, 2, 6], [6, 10, 4, 0]]) == [3]
    assert game_winners([6, 20, 6, 6], [[4, 10, 2, 6], [2, 10, 4, 0]]) == [3]
    assert game_winners([6, 20, 6], [[4, 10, 2], [2, 10, 4]]) == [0]
    env = texas_euchre_v1.env(num_players=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    game.scores, game.round_points = [4, 12, 4], [[4, 12, 4]]
    assert game.outcome() == [0.5, -1.0, 0.5]


# ---- options, observation, deals, notation -------------------------------------------------

@pytest.mark.parametrize("values, stake", [("ranked", 39), ("tens_ace_low", 21), ("tens_ace_high", 31)])
def test_face_card_values(values: str, stake: int) -> None:
    """A2: J/Q/K/A are 11/12/13/14 by default, or 10/10/10 with A = 1 or 11; 2-10 their rank."""
    env = new_env(make_deal(HANDS_4P, ["AC", "AD"], dealer=3), face_card_values=values)
    run(env, [
        (0, "discard QC KC", {"hand": (0, ["2C", "3C", "4C", "AC", "AD"])}),
        (1, "discard 2D 3D", {"stake_points": [stake - {"ranked": 14, "tens_ace_low": 1,
                                                         "tens_ace_high": 11}[values], 5, 0, 0]}),
        (2, "discard 2H"),
        (3, "discard 2S"),
        (0, "discard AC", {"stake_points": [stake, 5, 2, 2]}),
    ])


def test_options_are_validated() -> None:
    for bad in [{"face_card_values": "roman"}, {"reverse": 1}, {"target_score": 0},
                {"num_players": 7}]:
        with pytest.raises(ValueError, match=next(iter(bad))):
            texas_euchre_v1.env(**bad)
    env = texas_euchre_v1.env(num_players=6)
    assert env.action_space("player_0").n == 2 ** 7 + 1 + 52


def test_observation_shows_public_facts_and_hides_hands() -> None:
    env = new_env(DEAL_4P)
    run(env, FIRST_LAP + [(0, "throw down")])
    v = views(env, 1)  # seat 1 sees seat 0 as relative seat 3
    assert v["hand"][[parse_face(c) for c in hand(env, 1)]].tolist() == [1] * 5 and v["hand"].sum() == 5
    assert v["stakes"][3][parse_face("2C")] == 1 and v["stakes"][0][[parse_face("2D"), parse_face("3D")]].sum() == 2
    assert v["stake_points"].tolist() == pytest.approx([0.05, 0.02, 0.09, 0.02])
    assert v["draw_pile_size"][0] == pytest.approx(0.25)
    assert v["thrower"].tolist() == [0, 0, 0, 1] and v["throw_turn"][0] == pytest.approx(0.04)
    assert v["final_lap_due"].tolist() == [1, 1, 1, 0]
    assert v["first_turn_done"].tolist() == [1, 1, 1, 1]
    assert v["phase"].tolist() == [0, 0, 1, 0] and v["to_move"].tolist() == [1, 0, 0, 0]
    assert v["dealer"].tolist() == [0, 0, 1, 0]
    assert v["seen"].sum() == 7 and v["played"].sum() == 0
    assert v["target_score"][0] == pytest.approx(0.1)
    # another deal that differs only in seat 0's hidden cards (swapped with the pile's bottom)
    other = make_deal([["2C", "3C", "4C", "JD", "JH"]] + HANDS_4P[1:], ["AC", "AD", "AH", "AS"], 3)
    env2 = new_env(other)
    run(env2, FIRST_LAP[:2] + [(0, "discard 2C")] + FIRST_LAP[3:] + [(0, "throw down")])
    for seat in (1, 2, 3):
        assert np.array_equal(env.observe(f"player_{seat}")["observation"],
                              env2.observe(f"player_{seat}")["observation"])
    assert not np.array_equal(env.observe("player_0")["observation"],
                              env2.observe("player_0")["observation"])


@pytest.mark.parametrize(
    "deal, message",
    [
        ({"hands": [["1C", "3C", "4C", "QC", "KC"]] + HANDS_4P[1:]}, "unknown Texas Euchre card"),
        ({"hands": [["2D", "3C", "4C", "QC", "KC"]] + HANDS_4P[1:]}, "more often than the deck"),
        ({"hands": [HANDS_4P[0][:4]] + HANDS_4P[1:]}, "seat 0 has 4 cards"),
        ({"hands": HANDS_4P[:3]}, "4 hands"),
        ({"draw_pile": ["AC"]}, "draw_pile has 1 cards"),
        ({"hands": HANDS_4P, "draw_pile": DEAL_4P["draw_pile"][:-1] + ["2C"]}, "more often"),
        ({"dealer": 4}, "dealer"),
        ({"trump": "S"}, "unknown deal key"),
    ],
)
def test_malformed_deals_are_refused_and_change_nothing(deal: dict, message: str) -> None:
    env = new_env(DEAL_4P)
    run(env, FIRST_LAP[:3])
    before = {a: env.observe(a)["observation"].copy() for a in env.agents}
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert env.agent_selection == "player_1"
    assert all(np.array_equal(env.observe(a)["observation"], before[a]) for a in env.agents)


def test_two_decks_allow_two_copies_but_not_three() -> None:
    hands = [["AC", "AC", "2C", "3C", "4C", "5C", "6C"]] + [
        [f"{r}{s}" for r in ("2", "3", "4", "5", "6", "7", "8")] for s in "DHS"
    ] + [["9D", "9H", "9S", "10D", "10H", "10S", "JD"], ["JH", "JS", "QD", "QH", "QS", "KD", "KH"]]
    env = texas_euchre_v1.env(num_players=6)
    env.reset(seed=1, options={"deal": {"hands": hands}})
    assert Counter(env.unwrapped.game.card_locations())["AC"] == 2
    with pytest.raises(ValueError, match="more often than the deck has it.*two of each"):
        env.reset(options={"deal": {"hands": hands, "draw_pile": ["AC"] + ["2C"] * 61}})


def test_partial_deals_fill_the_rest_from_the_rng() -> None:
    env = texas_euchre_v1.env()
    env.reset(seed=3, options={"deal": {"hands": HANDS_4P}})
    game = env.unwrapped.game
    assert hand(env, 2) == ["2H", "3H", "4H", "QH", "KH"] and len(game.draw_pile) == 32
    assert Counter(game.card_locations()) == Counter(DECK)
    env.reset(seed=3, options={"deal": {"draw_pile": DEAL_4P["draw_pile"], "dealer": 1}})
    game = env.unwrapped.game
    assert game.dealer == 1 and env.agent_selection == "player_2"
    dealt = [c for s in range(4) for c in hand(env, s)]
    assert sorted(dealt) == sorted(c for h in HANDS_4P for c in h)
    assert [card_str(c) for c in game.draw_pile[::-1][:4]] == ["AC", "AD", "AH", "AS"]


def test_notation_and_illegal_actions() -> None:
    env = texas_euchre_v1.raw_env()
    env.reset(seed=0, options={"deal": DEAL_4P})
    a = env.unwrapped.str_to_action("discard 3c 2C")
    assert env.unwrapped.action_to_str(a) == "discard 2C 3C" and a == 0b11
    with pytest.raises(ValueError, match="legal"):
        env.unwrapped.str_to_action("discard AC")  # not in the hand
    before = env.observe("player_0")["observation"].copy()
    with pytest.raises(IllegalActionError, match=r"player_0 cannot play .*'throw down'.*legal: "):
        env.step(env.unwrapped.game.throw_action)
    assert np.array_equal(env.observe("player_0")["observation"], before)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(85)


def everything(env: Any, seat: int) -> tuple:
    return (seat, "discard " + " ".join(hand(env, seat)))


def test_empty_deck_throw_down_option_lets_players_throw_at_an_empty_deck() -> None:
    """A3's alternative (option ``empty_deck_throw_down``): when the pile runs out before anyone
    throws down, each player in turn may still throw down or decline (``discard none``)."""
    env = new_env(DEAL_4P, empty_deck_throw_down=True)
    game = env.unwrapped.game
    for seat in (0, 1, 2, 3, 0, 1):
        run(env, [everything(env, seat)])
    run(env, [(2, "discard " + " ".join(hand(env, 2)[:2]), {"pile": 0, "to_move": 3, "phase": "draw"})])
    assert legal(env) == ["discard none", "throw down"]
    run(env, [
        (3, "discard none", {"to_move": 0}),
        (0, "discard none", {"to_move": 1}),
        (1, "throw down", {"phase": "final_lap", "to_move": 2}),
    ])
    assert legal(env) == ["discard none"]  # nothing left to draw on the final lap
    run(env, [(2, "discard none"), (3, "discard none"), (0, "discard none", {"phase": "play", "to_move": 1})])
    assert game.thrower == 1 and game.round_number == 0


def test_empty_deck_throw_down_option_exhausts_after_a_whole_lap_declines() -> None:
    env = new_env(DEAL_4P, empty_deck_throw_down=True, reward_mode="points")
    game = env.unwrapped.game
    for seat in (0, 1, 2, 3, 0, 1):
        run(env, [everything(env, seat)])
    run(env, [(2, "discard " + " ".join(hand(env, 2)[:2]))])
    stakes = list(game.stake_points)
    run(env, [(3, "discard none"), (0, "discard none"), (1, "discard none")])
    assert game.round_number == 0 and env.agent_selection == "player_2"  # the emptier's chance too
    run(env, [(2, "discard none", {"round_points": stakes, "scores": stakes})])
    assert game.round_number == 1


def test_empty_deck_in_the_first_lap_skips_players_without_a_first_turn() -> None:
    """5 players: 22 cards to draw, so the pile can run out before everyone's first turn; a
    player who has not had one may not throw down (FAQ 1) and counts as declining."""
    hands = [DECK[i * 6:(i + 1) * 6] for i in range(5)]
    deal = make_deal(hands, dealer=4)
    env = new_env(deal, empty_deck_throw_down=True)
    for seat in (0, 1, 2):
        run(env, [everything(env, seat)])
    run(env, [(3, "discard " + " ".join(hand(env, 3)[:4]), {"pile": 0, "to_move": 0})])
    assert legal(env) == ["discard none", "throw down"]
    plain = new_env(deal)
    for seat in (0, 1, 2):
        run(plain, [everything(plain, seat)])
    run(plain, [(3, "discard " + " ".join(hand(plain, 3)[:4]))])
    assert plain.unwrapped.game.round_number == 1  # by default the deck is exhausted at once
