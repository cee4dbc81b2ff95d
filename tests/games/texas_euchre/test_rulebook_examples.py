"""The worked example round of the printed Texas Euchre rulebook (rulebooks/003), replayed.

Four players A, B, C, D are seats 0, 1, 2, 3; A deals, so B starts. The rulebook gives every
hand as dealt, every discard and every card drawn, the hands and stakes after the draw phase, the
five tricks, the tricks taken and the points. What it leaves open is filled in consistently
with it:

- the draw pile: the cards the rulebook has drawn, in the order they are drawn (4♥, 5♠, 4♦ 5♣,
  7♣, 3♣, 7♦ 3♠) are on top; every other card lies below them in card-index order (never drawn);
- "No players may throw down this round" is read as the first lap (FAQ 1); B throws down on its
  second turn, as the rulebook then has it do;
- the rulebook's table of the second trick omits its first line of play: B (who took the first
  trick) leads it, and the table's order B, C, D, A confirms it.

The rulebook's outcome: B takes trick 1, A tricks 2 and 3, D tricks 4 and 5; tricks A 2, B 1,
C 0, D 2; points A 0, B 2 (the thrower neither least nor most: its stake once), C 11 (the fewest
tricks), D 0; then B deals the next round.
"""

from __future__ import annotations

import numpy as np
import pytest

from cahoots_envs.games.texas_euchre.rules import parse_face
from tests.games.texas_euchre.scripted import hand, make_deal, new_env, run, trick_rows
from tests.scenario import views

A, B, C, D = 0, 1, 2, 3
DEALT = [
    ["4S", "8D", "9S", "KH", "KD"],  # A
    ["2C", "10D", "10S", "JH", "AC"],  # B
    ["6D", "8H", "9H", "9C", "QH"],  # C
    ["5H", "7H", "JD", "JS", "QC"],  # D
]
DRAWN = ["4H", "5S", "4D", "5C", "7C", "3C", "7D", "3S"]
DRAW_PHASE = [
    (B, "discard 2C", {"hand": (B, ["4H", "10D", "10S", "JH", "AC"]), "stake_points": [0, 2, 0, 0]}),
    (C, "discard 6D", {"hand": (C, ["5S", "8H", "9C", "9H", "QH"])}),
    (D, "discard 5H 7H", {"hand": (D, ["4D", "5C", "JD", "JS", "QC"])}),
    (A, "discard 4S", {"hand": (A, ["7C", "8D", "9S", "KD", "KH"]), "phase": "draw", "to_move": B}),
    (B, "throw down", {"phase": "final_lap", "to_move": C}),
    (C, "discard 5S", {"hand": (C, ["3C", "8H", "9C", "9H", "QH"])}),
    (D, "discard 4D 5C", {"hand": (D, ["3S", "7D", "JD", "JS", "QC"])}),
    (A, "discard none", {"phase": "play", "to_move": B}),
]
TRICKS = [
    ("AC 3C 3S 7C", B),  # B leads
    ("4H QH 7D KD", A),
    ("KH 10D 8H JS", A),
    ("8D JH 9C QC", D),
    ("JD 9S 10S 9H", D),
]


def test_rulebook_example_round() -> None:
    env = new_env(make_deal(DEALT, DRAWN, dealer=A))
    game = env.unwrapped.game
    assert env.agent_selection == f"player_{B}"  # "Play begins with Player B"
    run(env, DRAW_PHASE)
    # "So far the points in front of each player": A 4, B 2, C 11, D 21
    assert game.stake_points == [4, 2, 11, 21]
    # "For reference, here is each player's hand"
    assert [hand(env, s) for s in range(4)] == [
        ["7C", "8D", "9S", "KD", "KH"],
        ["4H", "10D", "10S", "JH", "AC"],
        ["3C", "8H", "9C", "9H", "QH"],
        ["3S", "7D", "JD", "JS", "QC"],
    ]
    assert game.thrower == B
    rows = trick_rows(B, 4, TRICKS)
    winners = []
    for k in range(5):
        run(env, rows[4 * k : 4 * k + 4])
        if k < 4:
            winners.append(int(env.agent_selection.split("_")[1]))  # the taker leads next
            assert game.tricks_won[winners[-1]] >= 1
    assert winners == [B, A, A, D]
    assert game.round_points == [[0, 2, 11, 0]]
    assert game.scores == [0, 2, 11, 0]
    # "the next round begins exactly as the first, except that Player B becomes the dealer"
    assert game.dealer == B and env.agent_selection == f"player_{C}" and game.phase == "first_turn"


def test_rulebook_example_round_in_the_observation() -> None:
    """The v1 observation along the example: the cards each seat played, the last completed
    trick with its leader and winner, and the points of the finished round."""
    env = new_env(make_deal(DEALT, DRAWN, dealer=A))
    run(env, DRAW_PHASE)
    rows = trick_rows(B, 4, TRICKS)
    run(env, rows[:8])  # tricks 1 and 2: B takes AC 3C 3S 7C, A takes 4H QH 7D KD
    v = views(env, C)  # C's relative seats: C 0, D 1, A 2, B 3
    face = parse_face
    assert v["last_trick"][3][face("4H")] == 1 and v["last_trick"][0][face("QH")] == 1
    assert v["last_trick"][1][face("7D")] == 1 and v["last_trick"][2][face("KD")] == 1
    assert v["last_trick"].sum() == 4
    assert v["last_trick_leader"].tolist() == [0, 0, 0, 1]  # B led
    assert v["last_trick_winner"].tolist() == [0, 0, 1, 0]  # A took it
    played = {C: ["3C", "QH"], D: ["3S", "7D"], A: ["7C", "KD"], B: ["AC", "4H"]}
    for rel, seat in enumerate((C, D, A, B)):
        assert np.flatnonzero(v["played_by"][rel]).tolist() == sorted(face(c) for c in played[seat])
    # the draw phase's latest discards: C 5S, D 4D 5C, A none (final lap), B 2C (before the throw)
    assert np.flatnonzero(v["last_discard"][0]).tolist() == [face("5S")]
    assert np.flatnonzero(v["last_discard"][1]).tolist() == sorted([face("4D"), face("5C")])
    assert v["last_discard"][2].sum() == 0
    assert np.flatnonzero(v["last_discard"][3]).tolist() == [face("2C")]
    run(env, rows[8:])
    # the next round (B deals, C to move): the round's points and the final trick, D's J♦
    v = views(env, C)
    assert v["last_round_points"].tolist() == pytest.approx([0.11, 0.0, 0.0, 0.02])
    assert v["last_trick"][1][face("JD")] == 1 and v["last_trick_winner"].tolist() == [0, 1, 0, 0]
    assert v["played_by"].sum() == 0 and v["last_discard"].sum() == 0
    # FAQ 6 standing: A and D took nothing (rank 0), B took 2 (rank 2), C took 11 (rank 3)
    assert v["tiebreak_rank"].tolist() == pytest.approx([1.0, 0.0, 0.0, 2 / 3])
