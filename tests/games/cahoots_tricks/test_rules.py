"""Cahoots, competitive (docs/rules/cahoots_tricks.md) as scenario tables on scripted deals.

Each scenario is a table of ``(seat, action text, expected facts)`` rows driven through the
protected env and the notation. ``"illegal"`` means the action must be refused by
``str_to_action`` and be missing from the mask; a dict lists facts checked after the row.

Identity cards in every scripted deal, unless a test says otherwise:
seat 0 = SHR, seat 1 = CHU, seat 2 = CDR, seat 3 = SDU, so the shared suits are
0–1 hearts, 0–2 stars, 0–3 spades, 1–2 clubs, 1–3 cups, 2–3 diamonds (§2.1).
With 3 players (seats 0–2) spades, cups and diamonds are the private suits of seats 0, 1 and 2.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from cahoots_envs import IllegalActionError, cahoots_tricks_v1
from cahoots_envs.games.cahoots_tricks.rules import (
    RESERVE_TYPES,
    SUITS,
    CahootsTricks,
    card_str,
    parse_card,
    zone_types,
)
from tests.games.cahoots_tricks.scripted import (
    IDENTITIES,
    RESERVE,
    deck,
    hand,
    hands_for,
    make_deal,
    new_env,
    plays,
    run,
    suits,
)
from tests.scenario import legal, views


def finish_keep_kill(env: Any) -> None:
    """Everyone keeps, then kills, the lowest card left (the picks do not matter for points)."""
    game = env.unwrapped.game
    trick = game.trick_number
    while game.phase == "keep_kill" and game.trick_number == trick and not game.is_over:
        env.step(env.unwrapped.str_to_action(legal(env)[0]))


# ---- setup ---------------------------------------------------------------------------------

def test_four_player_setup_identities_face_up_and_random_start() -> None:
    """§2.2: 12 cards each (the whole deck), identity cards dealt at random, face up; a random
    dealer is the start player of trick 1 (A4)."""
    starts, idents = set(), set()
    for seed in range(30):
        env = cahoots_tricks_v1.env()
        env.reset(seed=seed)
        game = env.unwrapped.game
        assert [h.bit_count() for h in game.hands] == [12] * 4
        assert sorted(game.identities) == [0, 1, 2, 3]
        assert Counter(game.card_locations()) == deck(4)
        assert env.agent_selection == f"player_{game.start_player}"
        starts.add(game.start_player)
        idents.add(tuple(game.identities))
        for seat in range(4):
            rows = views(env, seat)["identities"]
            for rel in range(4):  # every identity card is public, relative to the viewer
                assert rows[rel].sum() == 3
                assert suits(int(sum(1 << k for k in np.flatnonzero(rows[rel])))) == suits(
                    game.identity_suits[(seat + rel) % 4])
    assert len(starts) == 4 and len(idents) > 5


def test_three_player_setup_reserve_and_private_suits() -> None:
    """§2.2: one 5 and one 7 of each suit are removed into a shuffled reserve; 36 cards dealt;
    one identity card unused, so each player owns one suit alone (A7)."""
    orders = set()
    for seed in range(10):
        env = cahoots_tricks_v1.env(num_players=3)
        env.reset(seed=seed)
        game = env.unwrapped.game
        assert sorted(game.reserve) == sorted(RESERVE_TYPES)
        orders.add(tuple(game.reserve))
        dealt = Counter(c for s in range(3) for c in hand(env, s))
        assert dealt == deck(3) and sum(dealt.values()) == 36
        assert all(dealt[f"{v}{s}"] == 1 for s in SUITS for v in (5, 7))
        owners = Counter(k for s in range(3) for k in range(6) if game.identity_suits[s] >> k & 1)
        assert sorted(owners.values()) == [1, 1, 1, 2, 2, 2]  # three private suits, one each
        assert len(set(game.identities)) == 3
        assert views(env, 0)["reserve_drawn"].sum() == 0
    assert len(orders) == 10


# ---- card play ---------------------------------------------------------------------------

def test_card_play_two_laps_from_the_start_player_no_suit_to_follow() -> None:
    """§2.3 phase 1: S, S+1, ..., then a second lap; any card from hand is legal."""
    cards = ["8H", "7H", "4D", "4C", "4S", "4U", "4R", "5D"]
    env = new_env(make_deal(hands_for(cards, 2, 4), start_player=2))
    game = env.unwrapped.game
    hand3 = hand(env, 3)
    run(env, [
        (2, "play 8H"),
        (3, "play 8H", "illegal"),  # not in seat 3's hand
        (3, "play 7H", {"legal": [f"play {c}" for c in sorted(set(hand(env, 0)))], "to_move": 0}),
    ])
    assert "play 7H" in [f"play {c}" for c in hand3]  # no suit to follow: any card was legal
    run(env, [
        (0, "play 4D"), (1, "play 4C"),
        (2, "play 4S", {"to_move": 3, "phase": "play"}),  # the second lap, same order
        (3, "play 4U"), (0, "play 4R"),
        (1, "play 5D", {"phase": "keep_kill", "to_move": 2, "hand_sizes": [10] * 4}),
    ])
    assert [s for s, _ in game.trick] == [2, 3, 0, 1, 2, 3, 0, 1]
    v = views(env, 0)  # the trick with who played which card, in which lap, is public
    assert v["trick_plays"][3][0][parse_card("7H")] == 1  # seat 3 is 3 seats to seat 0's left
    assert v["trick_plays"][1][1][parse_card("5D")] == 1
    assert v["suit_totals"].tolist() == pytest.approx(
        [4 / 48, 15 / 48, 9 / 48, 4 / 48, 4 / 48, 4 / 48])
    assert v["played"].sum() == 8 and v["played"][parse_card("8H")] == 1


def test_copies_of_a_card_are_one_action_and_may_both_be_played() -> None:
    env = new_env(make_deal([["6S", "6S"], ["4H"], ["4D"], ["4U"]]))
    run(env, [(0, "play 6S"), (1, "play 4H"), (2, "play 4D"), (3, "play 4U"), (0, "play 6S")])
    assert env.unwrapped.game.suit_totals[0] == 12
    assert views(env, 2)["trick_plays"][2][0][parse_card("6S")] == 1
    assert views(env, 2)["trick_plays"][2][1][parse_card("6S")] == 1


# ---- resolution: every row of the tie table (§2.3 phase 2, A2, A3) ---------------------------

TIE_TABLE = [
    # name, the 8 cards in play order from seat 0, winning suits, scoring winners, scores
    ("single suit", ["8H", "7H", "4D", "4C", "4S", "4U", "4R", "5D"], "H", [0, 1], [2, 2, 0, 0]),
    ("two suits with a shared owner", ["8H", "8R", "7H", "7R", "4S", "4D", "4C", "4U"], "HR", [0],
     [4, 0, 0, 0]),
    ("two suits without a shared owner", ["8H", "8D", "7H", "7D", "4S", "4C", "4U", "4R"], "HD",
     [0, 1, 2, 3], [1, 1, 1, 1]),
    ("three suits of one owner", ["8S", "8H", "8R", "7S", "7H", "7R", "4D", "4C"], "SHR", [0],
     [4, 0, 0, 0]),
    ("path", ["8S", "8H", "8C", "7S", "7H", "7C", "4D", "4U"], "SHC", [0, 1], [2, 2, 0, 0]),
    ("triangle", ["8H", "8R", "8C", "7H", "7R", "7C", "4S", "4D"], "HCR", [0, 1, 2], [1, 1, 2, 0]),
    ("4-cycle", ["8H", "4H", "7C", "5C", "6D", "6D", "7S", "5S"], "SHDC", [0, 1, 2, 3],
     [1, 1, 1, 1]),
    ("triangle plus one", ["8H", "4H", "7R", "5R", "6C", "6C", "7S", "5S"], "SHCR", [0],
     [4, 0, 0, 0]),
]


@pytest.mark.parametrize("name, cards, won, winners, scores", TIE_TABLE,
                         ids=[row[0] for row in TIE_TABLE])
def test_tie_table_four_players(name: str, cards: list[str], won: str, winners: list[int],
                                scores: list[int]) -> None:
    env = new_env(make_deal(hands_for(cards, 0, 4)))
    run(env, plays(cards, 0, 4))
    game = env.unwrapped.game
    assert suits(game.winning_suits) == won
    assert game.winners == winners
    v = views(env, 0)
    assert suits(int(sum(1 << k for k in np.flatnonzero(v["winning_suits"])))) == won
    assert np.flatnonzero(v["scoring_winners"]).tolist() == winners
    assert game.scores == [0.0] * 4  # points are handed out after keep/kill
    finish_keep_kill(env)
    assert game.scores == scores
    assert sum(game.scores) == 4, "four points are always assigned"


def test_three_way_split_goes_to_the_last_winner_clockwise_from_the_start_player() -> None:
    """A3: the triangle with start player 1: winners in order 1, 2, 0; seat 0 gets 2."""
    cards = ["8H", "8R", "8C", "7H", "7R", "7C", "4S", "4D"]  # seats 1, 2, 3, 0, 1, 2, 3, 0
    env = new_env(make_deal(hands_for(cards, 1, 4), start_player=1))
    run(env, plays(cards, 1, 4))
    assert env.unwrapped.game.winners == [1, 2, 0]
    finish_keep_kill(env)
    assert env.unwrapped.game.scores == [2, 1, 1, 0]


def test_three_way_split_even_option() -> None:
    cards = ["8H", "8R", "8C", "7H", "7R", "7C", "4S", "4D"]
    env = new_env(make_deal(hands_for(cards, 0, 4)), three_way_split="even", reward_mode="points")
    run(env, plays(cards, 0, 4))
    finish_keep_kill(env)
    assert env.unwrapped.game.scores == pytest.approx([4 / 3, 4 / 3, 4 / 3, 0])
    assert env.infos["player_2"]["score"] == pytest.approx(4 / 3)
    assert env.rewards["player_0"] == pytest.approx(4 / 3)


def test_three_players_private_suit_alone_is_cahoots_and_the_reserve_adds_the_fourth_card() -> None:
    """§2.2 note: a trick won by a private suit alone gives its owner all 4 (spades are seat 0's
    alone with 3 players). The 3 killed cards plus the top reserve card are the 4 point cards."""
    cards = ["8S", "8H", "4D", "6S", "5H", "4C"]  # spades 14 win alone, hearts 13
    env = new_env(make_deal(hands_for(cards, 0, 3), n=3, reserve=["7U"] + RESERVE[:9] + RESERVE[10:]))
    game = env.unwrapped.game
    run(env, plays(cards, 0, 3) + [
        (0, "keep 8S", {"phase": "keep_kill", "to_move": 1}),
        (1, "kill 8H"),
        (2, "kill 4C"),
        (0, "keep 6S", "illegal"),  # pass 2: the opposite status
        (0, "kill 6S"),
        (1, "kill 5H", "illegal"),
    ])
    assert game.winners == [0] and suits(game.winning_suits) == "S"
    run(env, [
        (1, "keep 5H", {"scores": [4, 0, 0], "trick_number": 2, "start_player": 1,
                        "hand_sizes": [11, 11, 11]}),
    ])
    assert zone_types(game.reserve_drawn) == [parse_card("7U")]  # the reserve's top card
    assert len(game.reserve) == 11
    assert sorted(zone_types(game.point_cards[0])) == sorted(
        parse_card(c) for c in ["8H", "4C", "6S", "7U"])
    v = views(env, 2)  # the reserve card added to the points is revealed to everyone
    assert v["reserve_drawn"][parse_card("7U")] == 1 and v["reserve_drawn"].sum() == 1
    assert v["killed"].sum() == 3


def test_three_players_six_suit_tie_is_a_three_way_split() -> None:
    """§2.3: with 3 players all six suits can tie (all six 8s): m = (3, 3, 3)."""
    cards = ["8S", "8H", "8D", "8C", "8U", "8R"]
    env = new_env(make_deal(hands_for(cards, 2, 3), n=3, start_player=2))
    run(env, plays(cards, 2, 3))
    game = env.unwrapped.game
    assert suits(game.winning_suits) == "SHDCUR" and game.winners == [2, 0, 1]
    finish_keep_kill(env)
    assert game.scores == [1, 2, 1]


def test_three_players_pair_tie_shared_suit_and_private_suit() -> None:
    """With 3 players, hearts (seats 0 and 1) tied with spades (seat 0 alone): seat 0 has both."""
    cards = ["8S", "8H", "4D", "6S", "6H", "4C"]
    env = new_env(make_deal(hands_for(cards, 0, 3), n=3))
    run(env, plays(cards, 0, 3))
    assert env.unwrapped.game.winners == [0]
    finish_keep_kill(env)
    assert env.unwrapped.game.scores == [4, 0, 0]


# ---- keep/kill (§2.3 phase 3, A5, A6) --------------------------------------------------------

KEEP_KILL_TRICK = ["8H", "7H", "4D", "4C", "4S", "4U", "4R", "5D"]


def test_keep_kill_two_passes_same_order_forced_opposite_status() -> None:
    env = new_env(make_deal(hands_for(KEEP_KILL_TRICK, 0, 4)))
    game = env.unwrapped.game
    pool = ["8H", "7H", "4D", "4C", "4S", "4U", "4R", "5D"]
    run(env, plays(KEEP_KILL_TRICK, 0, 4))
    assert legal(env) == sorted([f"keep {c}" for c in pool] + [f"kill {c}" for c in pool])
    run(env, [
        # pass 1 from the start player: any trick card, even one played by someone else
        (0, "keep 8H", {"to_move": 1}),
        (1, "kill 7H"),
        (2, "kill 5D"),
        (3, "keep 4C", {"to_move": 0}),
        # pass 2, same order (not a snake): the opposite status, from the cards left
        (0, "keep 4S", "illegal"),
        (0, "kill 8H", "illegal"),  # already taken
        (0, "kill 4S", {"to_move": 1}),
        (1, "keep 4U"),
        (2, "kill 4R", "illegal"),
        (2, "keep 4R"),
        # seat 3's last pick is forced (one card left, status kill) and made for it
    ])
    assert game.trick_number == 2 and game.start_player == 1
    assert env.agent_selection == "player_1"
    assert game.scores == [2, 2, 0, 0]
    # kept cards went into their owners' hands: 10 + 1 each
    assert [h.bit_count() for h in game.hands] == [11] * 4
    assert "8H" in hand(env, 0) and "4U" in hand(env, 1) and "4R" in hand(env, 2)
    assert "4C" in hand(env, 3)
    assert sorted(zone_types(game.killed)) == sorted(parse_card(c) for c in ["7H", "5D", "4S", "4D"])
    # which card each player kept and killed is public; kept cards are known to be in hands
    v = views(env, 2)
    assert v["killed"].sum() == 4
    assert v["known_hands"][2][parse_card("8H")] == 1  # seat 0 is two seats to seat 2's left
    assert v["kept"][3][parse_card("4U")] == 1  # seat 1 is three seats to seat 2's left
    assert v["known_hands"][0][parse_card("4R")] == 1
    assert v["unseen"].sum() == 3 * 11 - 3
    assert v["scores"].tolist() == pytest.approx([0, 0, 2 / 44, 2 / 44])


def test_keep_kill_picks_are_public_during_the_passes() -> None:
    env = new_env(make_deal(hands_for(KEEP_KILL_TRICK, 0, 4)))
    run(env, plays(KEEP_KILL_TRICK, 0, 4) + [(0, "keep 8H"), (1, "kill 7H")])
    for seat in range(4):
        v = views(env, seat)
        assert v["trick_picks"][(0 - seat) % 4][0][parse_card("8H")] == 1
        assert v["trick_picks"][(1 - seat) % 4][1][parse_card("7H")] == 1
        assert v["trick_pool"].sum() == 6 and v["trick_pool"][parse_card("8H")] == 0
        assert v["keep_kill_pass"].tolist() == [1, 0]
        assert v["phase"].tolist() == [0, 1, 0]
    run(env, [(2, "keep 5D"), (3, "keep 4C")])
    assert views(env, 1)["keep_kill_pass"].tolist() == [0, 1]
    assert legal(env) == ["kill 4D", "kill 4R", "kill 4S", "kill 4U"]


def test_a_player_may_keep_a_card_another_played_and_it_stays_known_until_played() -> None:
    env = new_env(make_deal(hands_for(KEEP_KILL_TRICK, 0, 4)))
    run(env, plays(KEEP_KILL_TRICK, 0, 4) + [
        (0, "kill 8H"), (1, "keep 4D"), (2, "kill 5D"), (3, "kill 4C"),
        (0, "keep 7H"), (1, "kill 4S"), (2, "keep 4U"),
    ])
    assert views(env, 0)["known_hands"][1][parse_card("4D")] == 1  # seat 1 as seen by seat 0
    assert views(env, 3)["known_hands"][2][parse_card("4D")] == 1  # ... and by seat 3
    run(env, [(1, "play 4D")])
    assert views(env, 0)["known_hands"][1].sum() == 0


# ---- next trick, game length and end (§2.4) -----------------------------------------------

@pytest.mark.parametrize("n", [3, 4])
def test_eleven_tricks_start_player_moves_left_hands_shrink_and_last_kept_cards_discarded(
    n: int,
) -> None:
    env = cahoots_tricks_v1.env(num_players=n, reward_mode="points")
    env.reset(seed=n)
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    first = game.start_player
    seen_tricks = []
    earned = 0.0
    while not game.is_over:
        if game.phase == "play" and not game.trick:
            k = game.trick_number
            seen_tricks.append(k)
            assert game.start_player == (first + k - 1) % n
            assert env.agent_selection == f"player_{game.start_player}"
            assert [h.bit_count() for h in game.hands] == [13 - k] * n
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        earned += sum(env.rewards.values())
    assert seen_tricks == list(range(1, 12))
    assert all(h == 0 for h in game.hands)
    assert len(zone_types(game.discard)) == n  # the kept cards of trick 11 are discarded
    assert sum(game.scores) == 44 and earned == 44
    assert len(game.reserve) == (1 if n == 3 else 0)
    assert Counter(game.card_locations()) == Counter(CahootsTricks.full_deck({"num_players": n}))


def test_the_last_card_of_trick_eleven_is_played_automatically() -> None:
    env = cahoots_tricks_v1.env()
    env.reset(seed=3)
    game = env.unwrapped.game
    while game.trick_number < 11:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert game.phase == "play" and [h.bit_count() for h in game.hands] == [2] * 4
    decisions = 0
    while game.phase == "play":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        decisions += 1
    # every second-lap card of trick 11 was the player's only card: played for it
    assert decisions <= 4 and game.phase == "keep_kill" and len(game.trick) == 8


def test_highest_score_wins_and_ties_share() -> None:
    """§2.4: the highest total wins; a tie for the top is a shared win (interpretation)."""
    found_tie = found_single = False
    for seed in range(200):
        env = cahoots_tricks_v1.env()
        env.reset(seed=seed)
        game = env.unwrapped.game
        rng = np.random.default_rng(seed)
        collected = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            collected[agent] += reward
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        best = max(game.scores)
        top = [s for s in range(4) if game.scores[s] == best]
        for s in range(4):
            want = 1 / len(top) if s in top else -1 / (4 - len(top))
            assert collected[f"player_{s}"] == pytest.approx(want)
        found_tie |= len(top) == 2
        found_single |= len(top) == 1
        if found_tie and found_single:
            break
    assert found_tie and found_single


# ---- face-value variant (§2.5) -------------------------------------------------------------

def test_face_value_draft_in_snake_order() -> None:
    env = new_env(make_deal(hands_for(KEEP_KILL_TRICK, 0, 4)), scoring="face_value",
                  reward_mode="points")
    game = env.unwrapped.game
    run(env, plays(KEEP_KILL_TRICK, 0, 4) + [
        (0, "keep 8H"), (1, "kill 7H"), (2, "kill 5D"), (3, "keep 4C"),
        (0, "kill 4S"), (1, "keep 4U"),
        (2, "keep 4R", {"phase": "draft", "to_move": 0,  # the last kill (4D) was forced
                        "legal": ["take 4D", "take 4S", "take 5D", "take 7H"]}),
    ])
    assert env.rewards["player_0"] == 0
    assert views(env, 3)["point_pool"].sum() == 4
    # W1 = seat 0 (nearest the start player), W2 = seat 1: order 0, 1, 1, 0
    run(env, [
        (0, "take 7H", {"to_move": 1, "scores": [7, 0, 0, 0]}),
        (1, "take 5D", {"to_move": 1}),
        (1, "take 5D", "illegal"),
        (1, "take 4D", {"scores": [11, 9, 0, 0], "phase": "play", "trick_number": 2,
                        "to_move": 1}),  # seat 0's last take (4S) was forced
    ])
    assert env.rewards["player_0"] == 4 and env.rewards["player_1"] == 4
    assert sorted(zone_types(game.point_cards[0])) == sorted(parse_card(c) for c in ["7H", "4S"])
    assert views(env, 2)["scores"].tolist() == pytest.approx([0, 0, 11 / 288, 9 / 288])


def test_face_value_single_winner_takes_all_without_a_draft() -> None:
    cards = ["8H", "8R", "7H", "7R", "4S", "4D", "4C", "4U"]
    env = new_env(make_deal(hands_for(cards, 0, 4)), scoring="face_value")
    run(env, plays(cards, 0, 4))
    finish_keep_kill(env)
    game = env.unwrapped.game
    assert game.phase == "play" and game.trick_number == 2
    assert game.scores[0] == sum(int(card_str(t)[0]) for t in zone_types(game.killed))


def test_face_value_random_split() -> None:
    """Option point_split='random': the snake amounts (2 and 2), cards dealt at random."""
    splits = set()
    for seed in range(12):
        env = cahoots_tricks_v1.env(scoring="face_value", point_split="random")
        env.reset(seed=seed, options={"deal": make_deal(hands_for(KEEP_KILL_TRICK, 0, 4))})
        run(env, plays(KEEP_KILL_TRICK, 0, 4) + [
            (0, "keep 8H"), (1, "kill 7H"), (2, "kill 5D"), (3, "keep 4C"),
            (0, "kill 4S"), (1, "keep 4U"), (2, "keep 4R", {"phase": "play"}),
        ])
        game = env.unwrapped.game
        assert [p.bit_count() for p in game.point_cards] == [2, 2, 0, 0]
        assert sum(game.scores) == 7 + 5 + 4 + 4
        splits.add(tuple(game.scores))
    assert len(splits) > 1


def test_face_value_three_way_snake_and_even() -> None:
    cards = ["8H", "8R", "8C", "7H", "7R", "7C", "4S", "4D"]  # triangle: winners 0, 1, 2
    env = new_env(make_deal(hands_for(cards, 0, 4)), scoring="face_value")
    run(env, plays(cards, 0, 4) + [
        (0, "kill 8H"), (1, "kill 8R"), (2, "kill 8C"), (3, "keep 4D"),
        (0, "keep 7H"), (1, "keep 7R"), (2, "keep 7C", {"phase": "draft", "to_move": 0}),
        (0, "take 8H"), (1, "take 8R", {"to_move": 2}),
        (2, "take 8C", {"phase": "play", "to_move": 1}),  # W3 takes twice: the 4S was forced
    ])
    assert env.unwrapped.game.scores == [8, 8, 12, 0]  # seat 2 took 8C and then the 4S
    env = new_env(make_deal(hands_for(cards, 0, 4)), scoring="face_value", three_way_split="even")
    run(env, plays(cards, 0, 4) + [
        (0, "kill 8H"), (1, "kill 8R"), (2, "kill 8C"), (3, "keep 4D"),
        (0, "keep 7H"), (1, "keep 7R"), (2, "keep 7C", {"phase": "play"}),
    ])
    assert env.unwrapped.game.scores == pytest.approx([28 / 3, 28 / 3, 28 / 3, 0])


# ---- scripted deals ---------------------------------------------------------------------

BASE = make_deal([])


@pytest.mark.parametrize(
    "deal, message",
    [
        ({"hands": BASE["hands"][:3]}, "4 hands"),
        ({"hands": [BASE["hands"][0][:11]] + BASE["hands"][1:]}, "11 cards"),
        ({"hands": [["9S"] + BASE["hands"][0][1:]] + BASE["hands"][1:]}, "unknown Cahoots card"),
        ({"hands": [["8S"] + BASE["hands"][0][1:]] + BASE["hands"][1:]}, r"8S dealt 2 times; .* has 1"),
        ({"hands": [["6S", "6S", "6S"] + BASE["hands"][0][3:]] + BASE["hands"][1:]},
         r"6S dealt 3 times"),
        ({"identities": [["S", "H", "D"]] + IDENTITIES[1:]}, "not an identity card"),
        ({"identities": [IDENTITIES[0]] * 4}, "dealt twice"),
        # CONTRACT §3: a malformed deal is a ValueError, not a TypeError from deep inside
        ({"identities": [1, 2, 3, 4]}, "seat 0's identity 1 is not an identity card"),
        ({"identities": IDENTITIES[:3] + [None]}, "seat 3's identity None"),
        ({"start_player": 4}, "start_player"),
        ({"reserve": RESERVE}, "only for 3 players"),
        ({"dealer": 1}, "unknown deal key"),
    ],
)
def test_malformed_deals_are_refused_and_change_nothing(deal: dict, message: str) -> None:
    env = new_env(BASE)
    run(env, [(0, "play 4S"), (1, f"play {BASE['hands'][1][0]}")])
    before = (env.observe("player_2")["observation"].copy(), env.unwrapped.game.render())
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert env.agent_selection == "player_2"
    assert np.array_equal(env.observe("player_2")["observation"], before[0])
    assert env.unwrapped.game.render() == before[1]


@pytest.mark.parametrize(
    "deal, message",
    [
        ({"hands": [["5S", "5S"] + make_deal([], n=3)["hands"][0][2:]]
                   + make_deal([], n=3)["hands"][1:]}, r"5S dealt 2 times; the 3-player deck has 1"),
        ({"reserve": RESERVE[:11]}, "one 5 and one 7 of each suit"),
        ({"reserve": RESERVE[:11] + ["6R"]}, "one 5 and one 7 of each suit"),
        ({"identities": IDENTITIES}, "3 identity cards"),
    ],
)
def test_malformed_three_player_deals(deal: dict, message: str) -> None:
    env = cahoots_tricks_v1.env(num_players=3)
    env.reset(seed=1)
    before = env.observe("player_0")["observation"].copy()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert np.array_equal(env.observe("player_0")["observation"], before)


def test_partial_deals_fill_the_rest_from_the_rng() -> None:
    env = cahoots_tricks_v1.env(num_players=3)
    env.reset(seed=4, options={"deal": {"identities": [["R", "D", "C"], "SHR", "UHC"],
                                        "start_player": 2}})
    game = env.unwrapped.game
    assert game.identities == [2, 0, 1] and game.start_player == 2
    assert sorted(game.reserve) == sorted(RESERVE_TYPES)
    env.reset(seed=4, options={"deal": {"reserve": RESERVE}})
    assert [card_str(t) for t in env.unwrapped.game.reserve] == RESERVE
    assert Counter(c for s in range(3) for c in hand(env, s)) == deck(3)


def test_notation_and_illegal_action_error() -> None:
    env = cahoots_tricks_v1.raw_env()
    env.reset(options={"deal": BASE})
    u = env.unwrapped
    assert [u.action_to_str(a) for a in (0, 4, 5, 29, 30, 64, 90, 119)] == [
        "play 4S", "play 8S", "play 4H", "play 8R", "keep 4S", "kill 8S", "take 4S", "take 8R"]
    assert u.str_to_action(" PLAY 4s ") == 0
    with pytest.raises(ValueError, match="legal: play 4S"):
        u.str_to_action("play 8R")
    before = env.observe("player_0")["observation"].copy()
    with pytest.raises(IllegalActionError, match=r"player_0 cannot play .*'keep 4S'.*legal: 0 \(play 4S\)"):
        env.step(30)
    assert np.array_equal(env.observe("player_0")["observation"], before)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(120)


# ---- the rulebook's worked example (regression) ---------------------------------------------

RULEBOOK_TRICK = ["8S", "5C", "6D", "6S", "5U", "6U", "7U", "8H"]  # Anne, Bob, Carrie, Derek × 2


def test_rulebook_example_trick() -> None:
    """The rulebook's "Example of Play", replayed. Anne (seat 0) = spades, hearts, stars; Bob
    (1) = clubs, hearts, cups; Carrie (2) = clubs, diamonds, stars; Derek (3) = spades, diamonds,
    cups (the labelling of §2.1). Anne starts: 8S, Bob 5C, Carrie 6D, Derek 6S; second lap 5U,
    6U, 7U, 8H. "Cups have won the trick with a total value of 18 compared to spades' 14 and three
    suits in the single-digits. Bob and Derek each score 2 points." Keep/kill: Anne keeps 8S, Bob
    keeps 8H, Carrie kills 7U, Derek kills 5C; again: Anne kills the 5U (the book says "6 of cups"
    twice; the trick holds one 6U, which Derek keeps, so Anne's is the 5U: A8), Bob kills 6S,
    Carrie keeps 6D, Derek keeps 6U (his last pick is forced, so the engine makes it). "Bob
    becomes the next starting player", and Bob and Derek split the 4 killed cards.

    The example gives only the cards played; the rest of each 12-card hand is filled with the
    lowest cards left of the deck (``make_deal``), which the trick never touches.
    """
    env = new_env(make_deal(hands_for(RULEBOOK_TRICK, 0, 4)))
    game = env.unwrapped.game
    run(env, plays(RULEBOOK_TRICK, 0, 4))
    totals = dict(zip(SUITS, game.suit_totals))
    assert totals == {"S": 14, "H": 8, "D": 6, "C": 5, "U": 18, "R": 0}
    assert [s for s, v in totals.items() if 0 < v < 10] == ["H", "D", "C"]  # three single digits
    assert suits(game.winning_suits) == "U" and game.winners == [1, 3]
    v = views(env, 0)
    assert v["suit_totals"][SUITS.index("U")] * 48 == pytest.approx(18)
    assert np.flatnonzero(v["winning_suits"]).tolist() == [SUITS.index("U")]
    assert np.flatnonzero(v["scoring_winners"]).tolist() == [1, 3]
    assert RULEBOOK_TRICK.count("6U") == 1  # A8: only one 6 of cups was played
    run(env, [
        (0, "keep 8S", {"phase": "keep_kill", "to_move": 1}),
        (1, "keep 8H"),
        (2, "kill 7U"),
        (3, "kill 5C", {"to_move": 0}),
        (0, "keep 5U", "illegal"),  # pass 2: Anne kept, so she must kill
        (0, "kill 5U", {"legal": ["kill 6D", "kill 6S", "kill 6U"]}),
        (1, "kill 6S"),
        (2, "keep 6D", {"scores": [0, 2, 0, 2], "start_player": 1, "trick_number": 2,
                        "to_move": 1, "phase": "play", "hand_sizes": [11] * 4}),
    ])
    assert zone_types(game.discard) == []
    assert "8S" in hand(env, 0) and "8H" in hand(env, 1) and "6D" in hand(env, 2)
    assert "6U" in hand(env, 3)  # Derek's forced keep
    assert sorted(zone_types(game.killed)) == sorted(parse_card(c) for c in ["7U", "5C", "5U", "6S"])
    assert [p.bit_count() for p in game.point_cards] == [0, 2, 0, 2]
    assert sorted(zone_types(game.point_cards[1]) + zone_types(game.point_cards[3])) == sorted(
        parse_card(c) for c in ["7U", "5C", "5U", "6S"])
    # v1: the example trick stays in every observation of trick 2 as the last completed trick
    for seat in range(4):
        v = views(env, seat)
        rel = [(s - seat) % 4 for s in range(4)]
        for i, c in enumerate(RULEBOOK_TRICK):
            assert v["last_trick_plays"][rel[i % 4]][i // 4][parse_card(c)] == 1
        assert v["last_trick_plays"].sum() == 8
        for s, kept, killed in [(0, "8S", "5U"), (1, "8H", "6S"), (2, "6D", "7U"), (3, "6U", "5C")]:
            assert v["last_trick_picks"][rel[s]][0][parse_card(kept)] == 1
            assert v["last_trick_picks"][rel[s]][1][parse_card(killed)] == 1
        assert np.flatnonzero(v["last_trick_winning_suits"]).tolist() == [SUITS.index("U")]
        assert v["last_trick_scoring_winners"].tolist() == [float(rel.index(r) in (1, 3))
                                                            for r in range(4)]
        assert v["last_trick_points"].tolist() == [0.5 if rel.index(r) in (1, 3) else 0.0
                                                   for r in range(4)]
        assert v["start_player"][rel[1]] == 1 and v["to_move"][rel[1]] == 1
