"""Kansas City rules (docs/rules/kansas_city.md) as scenario tables on scripted deals.

Each scenario is a table of ``(seat, action text, expected fact)`` rows driven through the
protected env and the notation. ``"illegal"`` means the action must be refused by ``raw_env``
(and by ``str_to_action``) without changing anything; a dict lists facts checked after the row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cahoots_envs import IllegalActionError, kansas_city_v1
from cahoots_envs.games.kansas_city.rules import parse_card, trick_points
from tests.scenario import legal, run_table, views


def suit(letter: str, ranks: range | list[int]) -> list[str]:
    return [f"{r}{letter}" for r in ranks]


# seat 0: A1-8 B1-6 | seat 1: B7-8 C1-8 D1-4 | seat 2: D5-8 E1-8 F1-2 | seat 3: F3-8 G1-8
DEAL_4P = {
    "dealer": 3,
    "hands": [
        suit("A", range(1, 9)) + suit("B", range(1, 7)),
        suit("B", [7, 8]) + suit("C", range(1, 9)) + suit("D", range(1, 5)),
        suit("D", range(5, 9)) + suit("E", range(1, 9)) + suit("F", [1, 2]),
        suit("F", range(3, 9)) + suit("G", range(1, 9)),
    ],
}


FACTS = {
    "tricks_won": lambda env, v: env.unwrapped.game.tricks_won == v,
    "fours_captured": lambda env, v: env.unwrapped.game.fours_captured == v,
}


def run(env: Any, table: list[tuple]) -> None:
    run_table(env, table, FACTS)


def new_env(deal: dict = DEAL_4P, **options: Any) -> Any:
    env = kansas_city_v1.env(**options)
    env.reset(seed=0, options={"deal": deal})
    return env


PASSES = [
    (0, "pass 1A 2A 3A"),
    (1, "pass 1C 2C 3C"),
    (2, "pass 1E 2E 3E"),
    (3, "pass 1G 2G 3G", {"phase": "play", "to_move": 0}),
]


def test_deal_sizes_and_first_dealer_from_rng() -> None:
    for n, size in [(4, 14), (5, 11)]:
        env = kansas_city_v1.env(num_players=n)
        env.reset(seed=n)
        game = env.unwrapped.game
        assert [h.bit_count() for h in game.hands] == [size] * n
        assert (game.set_aside >= 0) == (n == 5)
    dealers = set()
    for seed in range(20):
        env.reset(seed=seed)
        dealers.add(env.unwrapped.game.dealer)
    assert len(dealers) > 1, "the first dealer is drawn at random"


def test_five_player_set_aside_is_public_to_everyone() -> None:
    env = kansas_city_v1.env(num_players=5)
    env.reset(seed=3)
    card = env.unwrapped.game.set_aside
    for seat in range(5):
        v = views(env, seat)["set_aside"]
        assert v[card] == 1 and v.sum() == 1


def test_pass_is_simultaneous_and_goes_left() -> None:
    """§4.2/K7: cards chosen stay secret and count in the giver's public rank profile until
    everyone has chosen; then each receives from the right. The dealer's left leads."""
    env = new_env()
    run(env, PASSES[:1])
    # seat 1 sees neither which cards seat 0 chose nor any change of seat 0's rank profile
    v1 = views(env, 1)
    assert v1["received"].sum() == 0 and v1["passed"].sum() == 0
    assert v1["hand_ranks"][3].tolist() == [2, 2, 2, 2, 2, 2, 1, 1]  # seat 0 is 3 seats to seat 1's left
    assert views(env, 0)["passed"][[parse_card(c) for c in ("1A", "2A", "3A")]].tolist() == [1, 1, 1]
    run(env, PASSES[1:])
    game = env.unwrapped.game
    hand1 = {f"{c % 8 + 1}{'ABCDEFG'[c // 8]}" for c in range(56) if game.hands[1] >> c & 1}
    assert {"1A", "2A", "3A"} <= hand1 and not {"1C", "2C", "3C"} & hand1
    v1 = views(env, 1)
    assert sorted(np.flatnonzero(v1["received"])) == sorted(parse_card(c) for c in ("1A", "2A", "3A"))
    assert sorted(np.flatnonzero(v1["passed"])) == sorted(parse_card(c) for c in ("1C", "2C", "3C"))
    assert env.agent_selection == "player_0"  # dealer 3, so seat 0 leads


def test_pass_cannot_include_received_cards_and_needs_three() -> None:
    env = new_env()
    run(env, [(0, "pass 1A 2A", "illegal"), (0, "pass 1A 2A 7C", "illegal"), (0, "pass 1A 2A 3A")])


def test_trick_play_follow_suit_trumps_and_upgrades() -> None:
    """§4.3 and K2-K5, K9 as one hand's opening, row by row."""
    env = new_env()
    run(env, PASSES)
    run(env, [
        # trick 1: the led suit must be followed; off-suit high cards do not win
        (0, "play 8A"),
        (1, "play 8B", "illegal"),
        (1, "play 3A", {"legal": ["play 1C", "play 2C", "play 3C", "play 5D", "play 6D", "play 7D",
                                  "play 8D", "play 4E", "play 5E", "play 6E", "play 7E", "play 8E",
                                  "play 1F", "play 2F"]}),
        (2, "play 8D"),
        (3, "play 8G", {"tricks_won": [1, 0, 0, 0], "phase": "upgrade", "to_move": 1}),
        # upgrade step: losers clockwise from the winner's left, one card each, optional
        (1, "upgrade 2A", {"to_move": 2}),
        (2, "upgrade 2C", "illegal"),  # rank 2 is on the table (K3)
        (2, "upgrade 3C", {"to_move": 3}),
        (3, "no upgrade", {"phase": "play", "to_move": 0}),  # the winner never upgrades
        # trick 2: seat 1 follows with 1A, its upgraded 2A is trump only
        (0, "play 7A"),
        (1, "play 2T", "illegal"),
        (1, "play 1A"),
        (2, "play 3T"),  # void in A: may trump
        (3, "play 1E", {"tricks_won": [1, 0, 1, 0], "to_move": 3, "phase": "upgrade"}),
        (3, "upgrade 3E"),  # the 3 trump was played into a trick: rank 3 is free again (K2)
        (0, "upgrade 3G", "illegal"),  # ... and now blocked by seat 3's trump
        (0, "no upgrade"),
        (1, "upgrade 2D", "illegal"),  # blocked by its own unplayed 2 trump (K3)
        (1, "upgrade 8B", {"to_move": 2, "phase": "play"}),
        # trick 3: seat 3's only E card left in hand is 2E (its 3E is now trump only)
        (2, "play 8E"),
        (3, "play 3T", "illegal"),
        (3, "play 2E", {"to_move": 0}),
        (0, "play 6B"),
        (1, "play 8T", {"tricks_won": [1, 1, 1, 0], "to_move": 2, "phase": "upgrade"}),
        (2, "no upgrade"),
        (3, "no upgrade"),
        (0, "upgrade 4A", {"to_move": 1, "phase": "play"}),
        # trick 4: trump led; who holds a trump must play one
        (1, "play 2T"),
        (2, "play 1F"),  # no trump left: any card
    ])
    assert legal(env) == ["play 3T"]
    # seat 1 sees the trick by ranks only: seat 1's 2T is its own; nobody sees a trump's face
    v0 = views(env, 0)
    assert v0["trick"][1][56 + 1] == 1 and v0["trick"][1][:56].sum() == 0
    assert v0["own_upgraded"][parse_card("4A")] == 1
    assert views(env, 1)["trump_ranks"][3][3] == 1  # seat 0 (3 seats to seat 1's left) holds a 4 trump
    run(env, [
        (3, "play 3T"),
        (0, "play 4T", {"tricks_won": [2, 1, 1, 0], "fours_captured": [1, 0, 0, 0]}),
    ])
    # the 4A face never appears for anyone else, before or after it is played; its owner
    # remembers it among the played cards it knows
    for seat in (1, 2, 3):
        v = views(env, seat)
        assert v["played"][parse_card("4A")] == 0
        assert v["trumps_played"][3] == 1
    assert views(env, 0)["played"][parse_card("4A")] == 1
    assert views(env, 0)["own_upgraded"].sum() == 0
    assert views(env, 1)["played"][parse_card("2A")] == 1  # seat 1's own 2T, played in this trick
    assert views(env, 0)["played"][parse_card("2A")] == 0


def test_no_upgrade_after_the_last_trick_but_after_the_second_to_last() -> None:
    """K4: the upgrade step follows every trick but the last of the hand."""
    upgrade_steps_at: set[int] = set()
    for seed in range(10):
        env = kansas_city_v1.env(hands=1)
        env.reset(seed=seed)
        game = env.unwrapped.game
        rng = np.random.default_rng(seed)
        while not game.is_over:
            if game.phase == "upgrade":
                upgrade_steps_at.add(game.tricks_played)
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert 13 in upgrade_steps_at  # after the 13th of 14 tricks
    assert max(upgrade_steps_at) == 13


@pytest.mark.parametrize(
    "players, chart",
    [(4, {0: 0, 1: 5, 2: 10, 3: 15, 4: 5, 5: 0, 9: 0}), (5, {0: 0, 1: 5, 2: 10, 3: 5, 4: 0, 11: 0})],
)
def test_scoring_chart(players: int, chart: dict[int, int]) -> None:
    """§4.4 chart: tricks -> points."""
    for tricks, points in chart.items():
        assert trick_points(tricks, players) == points


def test_fours_count_including_upgraded_fours_and_rewards_at_hand_end() -> None:
    """§4.4/K6 on a deal where seat 0 holds every 4 and leads them all: with points rewards the
    hand's points arrive at the end of the hand and equal chart + 2 per 4."""
    env = new_env(reward_mode="points", hands=1)
    run(env, PASSES)
    game = env.unwrapped.game
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not game.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
        for a, r in env.rewards.items():
            totals[a] += r
        if not game.is_over:
            assert all(v == 0 for v in totals.values()), "points arrive at the end of the hand"
    expected = [trick_points(game.tricks_won[s], 4) + 2 * game.fours_captured[s] for s in range(4)]
    assert [totals[f"player_{s}"] for s in range(4)] == expected
    assert sum(game.fours_captured) == 7
    captured_fours = [(game.captured[s] & sum(1 << (8 * k + 3) for k in range(7))).bit_count()
                      for s in range(4)]
    assert captured_fours == game.fours_captured


def test_game_length_dealer_rotation_and_shared_wins() -> None:
    env = kansas_city_v1.env(hands=2)
    env.reset(seed=1, options={"deal": DEAL_4P})
    game = env.unwrapped.game
    while game.hand_number == 0:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert game.dealer == 0 and game.phase == "pass" and env.agent_selection == "player_1"
    assert views(env, 2)["dealer"].tolist() == [0, 0, 1, 0]  # dealer 0 is two seats to seat 2's left
    while not game.is_over:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert len(game.hand_scores) == 2
    for option, hands in [(1, 1), (3, 3), ("per_player", 4)]:
        e = kansas_city_v1.env(hands=option)
        e.reset(seed=0)
        assert e.unwrapped.game.hands_total == hands
    assert kansas_city_v1.env(num_players=5, hands="per_player").unwrapped.max_game_length == 5 * 100
    # ties share the win (zero-sum shares)
    game.scores = [30.0, 30.0, 10.0, 5.0]
    assert game.outcome() == [0.5, 0.5, -0.5, -0.5]
    game.scores = [12.0] * 4
    assert game.outcome() == [0.0] * 4


@pytest.mark.parametrize(
    "deal, message",
    [
        ({"hands": DEAL_4P["hands"][:3]}, "4 hands"),
        ({"hands": [DEAL_4P["hands"][0][:13]] + DEAL_4P["hands"][1:]}, "13 cards"),
        ({"hands": [["9A"] + DEAL_4P["hands"][0][1:]] + DEAL_4P["hands"][1:]}, "unknown Kansas City card"),
        ({"hands": [["1B"] + DEAL_4P["hands"][0][1:]] + DEAL_4P["hands"][1:]}, "dealt twice"),
        ({"dealer": 4}, "dealer"),
        ({"set_aside": "1A"}, "only for 5 players"),
        ({"trump": "A"}, "unknown deal key"),
    ],
)
def test_malformed_deals_are_refused_and_change_nothing(deal: dict, message: str) -> None:
    env = new_env()
    run(env, PASSES[:2])
    before = env.observe("player_2")["observation"].copy()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert env.agent_selection == "player_2"
    assert np.array_equal(env.observe("player_2")["observation"], before)


def test_partial_deal_fills_the_rest_consistently() -> None:
    env = kansas_city_v1.env(num_players=5)
    hands = [DEAL_4P["hands"][0][:11], DEAL_4P["hands"][0][11:] + DEAL_4P["hands"][1][:8],
             DEAL_4P["hands"][1][8:] + DEAL_4P["hands"][2][:5], DEAL_4P["hands"][2][5:] + ["3F", "4F"],
             ["5F", "6F", "7F", "8F"] + DEAL_4P["hands"][3][6:13]]
    env.reset(seed=2, options={"deal": {"hands": hands}})
    assert env.unwrapped.game.set_aside == parse_card("8G")
    env.reset(seed=2, options={"deal": {"set_aside": "4D", "dealer": 1}})
    game = env.unwrapped.game
    assert game.set_aside == parse_card("4D") and game.dealer == 1
    assert not any(h >> parse_card("4D") & 1 for h in game.hands)


def test_illegal_action_error_names_agent_action_and_alternatives() -> None:
    env = kansas_city_v1.raw_env()
    env.reset(seed=0, options={"deal": DEAL_4P})
    run(env, PASSES + [(0, "play 8A")])
    before = env.observe("player_1")["observation"].copy()
    with pytest.raises(IllegalActionError, match=r"player_1 cannot play .*'play 8B'.*legal: .*\(play 1A\)"):
        env.step(env.unwrapped.game.play_base + parse_card("8B"))
    assert np.array_equal(env.observe("player_1")["observation"], before)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(485)


# ---- re-dealing hidden cards (the leak test's tool) -------------------------------------------

def _after_a_played_trump(**options: Any) -> Any:
    """DEAL_4P after trick 2 of the scenario above: seat 2 has played its upgraded 3C as 3T."""
    env = new_env(**options)
    run(env, PASSES)
    run(env, [(0, "play 8A"), (1, "play 3A"), (2, "play 8D"), (3, "play 8G"),
              (1, "upgrade 2A"), (2, "upgrade 3C"), (3, "no upgrade"),
              (0, "play 7A"), (1, "play 1A"), (2, "play 3T"), (3, "play 1E")])
    game = env.unwrapped.game
    assert game.own_trumps_played[2] == 1 << parse_card("3C")
    return game


@pytest.mark.parametrize("card_backs", ["ranks", "hidden"])
def test_resample_hidden_catches_an_encoder_leaking_a_played_trumps_face(card_backs: str) -> None:
    """A test double of the encoder that also writes the printed face of the trumps others have
    played (into ``played``): re-dealing with ``resample_hidden`` changes its observation, while
    the real encoder's stays byte-identical."""
    import dataclasses
    from types import SimpleNamespace

    import cahoots_envs
    from cahoots_envs.games.kansas_city import encoder
    from cahoots_envs.games.kansas_city.rules import KansasCity

    def leaky_encode(game: Any, seat: int, out: np.ndarray) -> None:
        encoder.encode(game, seat, out)
        start = dict(encoder.build_layout(game.num_players).offsets)["played"]
        for s in range(game.num_players):
            if s != seat:
                for c in range(56):
                    if game.own_trumps_played[s] >> c & 1:
                        out[start + c] = 1

    class Leaky(KansasCity):
        pass

    game = _after_a_played_trump(card_backs=card_backs)
    leaky = Leaky.__new__(Leaky)
    leaky.__dict__.update(game.__dict__)
    leaky.face = dataclasses.replace(cahoots_envs.game_spec("kansas_city"), encoder=SimpleNamespace(
        build_layout=encoder.build_layout, encode=leaky_encode))
    size = encoder.build_layout(4).size
    rng = np.random.default_rng(0)
    caught = 0
    for observer in (0, 1, 3):
        honest, leaked = np.zeros(size, np.float32), np.zeros(size, np.float32)
        game.encode(observer, honest)
        leaky.encode(observer, leaked)
        for _ in range(10):
            twin = leaky.resample_hidden(observer, rng)
            assert isinstance(twin, Leaky)
            again, leaked_again = np.zeros(size, np.float32), np.zeros(size, np.float32)
            encoder.encode(twin, observer, again)
            twin.encode(observer, leaked_again)
            assert again.tobytes() == honest.tobytes()
            caught += leaked_again.tobytes() != leaked.tobytes()
    assert caught >= 10, "re-dealing should move the face of seat 2's played trump"


def test_resample_hidden_keeps_public_facts_and_moves_ranks_only_with_hidden_backs() -> None:
    """Ranked backs: every re-dealt card keeps its rank. Hidden backs: cards in others' hands
    may change rank; trumps keep theirs. Hand sizes are kept, and no seat gets a card of a suit
    it is known to lack."""
    from cahoots_envs.games.kansas_city.rules import RANK_MASKS, SUIT_MASKS

    def profile(mask: int) -> list[int]:
        return [(mask & RANK_MASKS[r]).bit_count() for r in range(8)]

    for card_backs in ("ranks", "hidden"):
        game = _after_a_played_trump(card_backs=card_backs)
        assert game.voids[2] == game.voids[3] == 1  # both failed to follow A
        rng = np.random.default_rng(1)
        moved_ranks = 0
        for _ in range(30):
            twin = game.resample_hidden(0, rng)
            assert twin.hands[0] == game.hands[0] and twin.upgraded[0] == game.upgraded[0]
            for s in (1, 2, 3):
                assert twin.hands[s].bit_count() == game.hands[s].bit_count()
                assert profile(twin.upgraded[s]) == profile(game.upgraded[s])
                assert profile(twin.own_trumps_played[s]) == profile(game.own_trumps_played[s])
                assert twin.hands[s] & SUIT_MASKS[0] == 0 if s in (2, 3) else True
                moved_ranks += profile(twin.hands[s]) != profile(game.hands[s])
            assert twin.played == game.played and twin.voids == game.voids
            assert sorted(twin.card_locations()) == sorted(game.card_locations())
        assert (moved_ranks > 0) == (card_backs == "hidden")


def test_card_backs_is_a_rule_variant_a_saved_policy_may_not_cross() -> None:
    from cahoots_envs.games.kansas_city.rules import KansasCity

    option = KansasCity.OPTIONS.by_name["card_backs"]
    assert option.default == "ranks" and option.choices == ("ranks", "hidden")
    assert not option.policy_may_differ
    with pytest.raises(ValueError, match="card_backs"):
        kansas_city_v1.env(card_backs="none")


def test_both_ways_of_counting_ranks_agree() -> None:
    """The encoder counts ranks with numpy 2's popcount where it has it, else by multiplying."""
    from cahoots_envs.games.kansas_city import encoder
    from cahoots_envs.games.kansas_city.rules import RANK_MASKS

    rng = np.random.default_rng(0)
    masks = [int(m) for m in rng.integers(0, 1 << 56, size=20, dtype=np.uint64)] + [0, (1 << 56) - 1]
    expected = [[(m & RANK_MASKS[r]).bit_count() for r in range(8)] for m in masks]
    assert encoder.rank_counts_by_multiplying(masks).tolist() == expected
    if hasattr(np, "bitwise_count"):
        assert encoder.rank_counts_by_popcount(masks).tolist() == expected
