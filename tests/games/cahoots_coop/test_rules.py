"""Scenario tests for Cahoots (cooperative goal cards) on scripted deals, one or more per rule of
docs/rules/cahoots_coop.md. Each scenario is a table of (agent, action text, expected facts)
driven through the env and the notation."""

from __future__ import annotations

import json
from collections import Counter
from math import comb
from typing import Any

import numpy as np
import pytest

from cahoots_envs import IllegalActionError, cahoots_coop_v1
from cahoots_envs.games.cahoots_coop.encoder import GOAL_FIELD_OFFSETS, GOAL_FIELDS, GOAL_WIDTH
from cahoots_envs.games.cahoots_coop.goals import (
    evaluate,
    goal_met,
    load_goals,
    multiset_weights,
    multisets,
)
from cahoots_envs.games.cahoots_coop.rules import GOALS, CahootsCoop, card_str, parse_card

# ---- helpers --------------------------------------------------------------------------------


def new_env(num_players: int = 2, deal: dict[str, Any] | None = None, **options: Any) -> Any:
    env = cahoots_coop_v1.raw_env(num_players=num_players, **options)
    env.reset(seed=0, options={"deal": deal} if deal is not None else None)
    return env


def goal_ids(indices: list[int]) -> list[str]:
    return [GOALS[g].id for g in indices]


def facts(env: Any) -> dict[str, Any]:
    """Everything a scenario may assert, in the notation."""
    game = env.unwrapped.game
    return {
        "tops": [card_str(k) for k in game.tops],
        "hands": [[card_str(k) for k in h] for h in game.hands],
        "draw_pile": [card_str(k) for k in game.draw_pile[::-1]],
        "visible": [GOALS[g].id if g >= 0 else None for g in game.visible],
        "completed_now": goal_ids(game.last_completed),
        "completed": goal_ids(game.completed),
        "goal_deck": goal_ids(game.goal_deck[::-1]),
        "score": env.infos[env.possible_agents[0]]["score"] if env.agents else game.scores[0],
        "over": game.is_over,
        "won": game.won,
        "loss": game.loss_reason,
        "to_move": env.agent_selection if not game.is_over else None,
        "legal": game.legal_strings() if not game.is_over else [],
        "rewards": dict(env.rewards),
        "hand_sizes": [len(h) for h in game.hands],
    }


def drive(env: Any, steps: list[tuple[str, str, dict[str, Any]]]) -> None:
    for n, (agent, text, expected) in enumerate(steps):
        assert env.agent_selection == agent, f"step {n}: {env.agent_selection} to move, not {agent}"
        env.step(env.unwrapped.str_to_action(text))
        got = facts(env)
        for key, value in expected.items():
            assert got[key] == value, f"step {n} ({agent} {text}): {key} is {got[key]!r}, not {value!r}"


def check(env: Any, **expected: Any) -> None:
    got = facts(env)
    for key, value in expected.items():
        assert got[key] == value, f"{key} is {got[key]!r}, not {value!r}"


# tops 3G 4G 5P 6O: RUN_OF_4 and SUM_18 hold; playing 5G on pile 2 gives 3G 4G 5G 6O, where
# THREE_GREEN, ALL_GREEN_OR_ORANGE and GREEN_PURPLE_SUM_12 (green 12, no purple) hold.
PILES = ["3G", "4G", "5P", "6O"]
CASCADE_GOALS = ["THREE_GREEN", "ALL_GREEN_OR_ORANGE", "SUM_8", "SAME_COLOUR",
                 "GREEN_PURPLE_SUM_12", "SUM_10", "PINK_SUM_6", "ALL_EVEN"]


def cascade_deal(**extra: Any) -> dict[str, Any]:
    deal = {
        "start_player": 0,
        "hands": [["5G", "1O", "2V", "7P"], ["6G", "2O", "3V", "4P"]],
        "piles": PILES,
        "draw_pile": ["1G", "7V", "2P", "6V"],
        "goals": CASCADE_GOALS,
    }
    deal.update(extra)
    return deal


# ---- components and setup (§1.3, §1.4) ------------------------------------------------------


def test_deck_has_two_copies_of_28_cards() -> None:
    deck = CahootsCoop.full_deck(CahootsCoop.OPTIONS.resolve({}))
    assert len(deck) == 56
    assert Counter(deck) == {f"{n}{c}": 2 for c in "GOPV" for n in range(1, 8)}
    assert [parse_card(card_str(k)) for k in range(28)] == list(range(28))


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_random_setup_deals_four_each_four_piles_rest_draw_pile(num_players: int) -> None:
    env = new_env(num_players)
    game = env.unwrapped.game
    assert [len(h) for h in game.hands] == [4] * num_players
    assert [len(p) for p in game.piles] == [1] * 4
    assert len(game.draw_pile) == 56 - 4 * num_players - 4
    assert Counter(game.card_locations()) == Counter(CahootsCoop.full_deck({}))


@pytest.mark.parametrize(
    ("num_players", "expected"),
    [(1, [15, 18, 21, 24]), (2, [15, 18, 21, 24]), (3, [15, 18, 21, 24]), (4, [12, 15, 18, 21])],
)
def test_difficulty_sets_the_number_of_goals_by_player_count(num_players: int, expected: list[int]) -> None:
    for difficulty, goals in zip(["beginner", "normal", "expert", "insane"], expected):
        game = new_env(num_players, difficulty=difficulty).unwrapped.game
        assert game.num_goals == goals
        assert len(game.goal_deck) + sum(g >= 0 for g in game.visible) + len(game.completed) == goals
    game = new_env(num_players, difficulty="insane", num_goals=7).unwrapped.game
    assert game.num_goals == 7  # num_goals overrides the difficulty
    assert new_env(num_players).unwrapped.game.num_goals == expected[1]  # default: normal


def test_four_goals_face_up_and_the_rest_face_down() -> None:
    env = new_env(2, cascade_deal())
    check(env, visible=["THREE_GREEN", "ALL_GREEN_OR_ORANGE", "SUM_8", "SAME_COLOUR"],
          goal_deck=["GREEN_PURPLE_SUM_12", "SUM_10", "PINK_SUM_6", "ALL_EVEN"], completed=[])


def test_fewer_than_four_goals_leave_slots_empty() -> None:
    env = new_env(2, cascade_deal(goals=["SUM_8", "SAME_COLOUR"]))
    check(env, visible=["SUM_8", "SAME_COLOUR", None, None], goal_deck=[])


def test_start_player_is_drawn_from_the_rng_unless_dealt() -> None:
    env = cahoots_coop_v1.raw_env(num_players=3)
    seen = set()
    for seed in range(40):
        env.reset(seed=seed)
        seen.add(env.agent_selection)
    assert seen == {"player_0", "player_1", "player_2"}
    assert new_env(2, cascade_deal(start_player=1)).agent_selection == "player_1"


def test_setup_resolves_goals_already_met_and_checks_replacements() -> None:
    """§1.1 setup 6 / A4: RUN_OF_4 holds on the starting piles; its replacement SUM_18 holds too."""
    deal = cascade_deal(goals=["RUN_OF_4", "SUM_8", "THREE_GREEN", "SAME_COLOUR", "SUM_18",
                               "ALL_ODD", "SUM_10"])
    env = new_env(2, deal)
    check(env, completed=["RUN_OF_4", "SUM_18"], visible=["ALL_ODD", "SUM_8", "THREE_GREEN",
          "SAME_COLOUR"], goal_deck=["SUM_10"], over=False, to_move="player_0")
    game = env.unwrapped.game
    assert game.completed_at_setup == 2
    # goals met by the starting piles are completed goals: the team's score counts them (CONTRACT §4)
    assert env.infos["player_0"]["score"] == 2 and env.infos["player_1"]["score"] == 2


def test_setup_goals_are_paid_at_reset_in_points_mode() -> None:
    """+1 per goal to every seat (CONTRACT §4), collected through last() at each first turn."""
    deal = cascade_deal(goals=["RUN_OF_4", "SUM_8", "THREE_GREEN", "SAME_COLOUR", "SUM_18",
                               "ALL_ODD", "SUM_10"])
    env = new_env(2, deal, reward_mode="points")
    assert env.rewards == {"player_0": 2.0, "player_1": 2.0}
    _, reward, *_ = env.last()
    assert reward == 2.0
    env.step(env.unwrapped.str_to_action(env.unwrapped.game.legal_strings()[0]))
    assert env.last()[1] >= 2.0  # player_1 still holds its setup points at its first turn
    win_mode = new_env(2, deal)
    assert win_mode.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_scripted_deal_fills_missing_keys_consistently() -> None:
    env = new_env(3, {"piles": ["1G", "1G", "2O", "2O"]})
    game = env.unwrapped.game
    check(env, tops=["1G", "1G", "2O", "2O"])
    assert Counter(game.card_locations()) == Counter(CahootsCoop.full_deck({}))
    assert "1G" not in facts(env)["draw_pile"]


def test_short_scripted_draw_pile_leaves_the_rest_out_of_the_game() -> None:
    env = new_env(2, cascade_deal())
    game = env.unwrapped.game
    assert len(game.draw_pile) == 4 and len(game.box) == 56 - 8 - 4 - 4
    assert Counter(game.card_locations()) == Counter(CahootsCoop.full_deck({}))


# ---- playing (§1.5) ----------------------------------------------------------------------


def test_a_card_must_match_the_pile_top_in_colour_or_number() -> None:
    deal = cascade_deal(piles=["1G", "2O", "3P", "4V"], hands=[["1O", "5G", "6V", "7P"],
                        ["6G", "2O", "3V", "4P"]], goals=["SUM_8"])
    env = new_env(2, deal)
    check(env, legal=["play 5G on 0", "play 1O on 0", "play 1O on 1", "play 7P on 2",
                      "play 6V on 3"])
    assert env.unwrapped.str_to_action("play 5G on 0") == 4 * 4 + 0  # kind 4 (5G), pile 0
    for bad in ["play 5G on 1", "play 6V on 0", "play 2O on 1"]:  # wrong match / not in hand
        with pytest.raises(ValueError, match="legal"):
            env.unwrapped.str_to_action(bad)
    before = facts(env)
    with pytest.raises(IllegalActionError, match="play 5G on 1"):
        env.step(4 * 4 + 1)
    assert facts(env) == before


def test_two_copies_of_a_card_are_one_action() -> None:
    deal = cascade_deal(piles=["1G", "2O", "3P", "4V"], hands=[["5G", "5G", "6V", "7P"],
                        ["6G", "2O", "3V", "4P"]], goals=["SUM_8"])
    env = new_env(2, deal)
    check(env, legal=["play 5G on 0", "play 7P on 2", "play 6V on 3"])
    drive(env, [("player_0", "play 5G on 0", {"hands": [["1G", "5G", "7P", "6V"],
                                                         ["6G", "2O", "4P", "3V"]]})])


def test_play_covers_the_top_and_the_player_draws_the_top_of_the_draw_pile() -> None:
    env = new_env(2, cascade_deal(goals=["SUM_8", "SAME_COLOUR"]))
    drive(env, [
        ("player_0", "play 7P on 2", {"tops": ["3G", "4G", "7P", "6O"],
                                      "hands": [["1G", "5G", "1O", "2V"], ["6G", "2O", "4P", "3V"]],
                                      "draw_pile": ["7V", "2P", "6V"], "to_move": "player_1"}),
        ("player_1", "play 6G on 0", {"tops": ["6G", "4G", "7P", "6O"],
                                      "draw_pile": ["2P", "6V"], "to_move": "player_0"}),
    ])
    game = env.unwrapped.game
    assert [[card_str(k) for k in p] for p in game.piles] == [["3G", "6G"], ["4G"], ["5P", "7P"], ["6O"]]


def test_turns_go_clockwise_with_four_players() -> None:
    env = new_env(4, {"start_player": 2, "piles": ["1G", "1O", "1P", "1V"], "goals": ["SAME_COLOUR"],
                      "hands": [["2G", "3G", "4G", "5G"], ["2O", "3O", "4O", "5O"],
                                ["2P", "3P", "4P", "5P"], ["2V", "3V", "4V", "5V"]]})
    drive(env, [
        ("player_2", "play 2P on 2", {"to_move": "player_3"}),
        ("player_3", "play 2V on 3", {"to_move": "player_0"}),
        ("player_0", "play 2G on 0", {"to_move": "player_1"}),
        ("player_1", "play 2O on 1", {"to_move": "player_2"}),
    ])


# ---- goals (§1.5 step 3, §1.9, A2-A4) --------------------------------------------------------


def test_completing_a_goal_reveals_the_next_and_scores_for_every_seat() -> None:
    deal = cascade_deal(goals=["SUM_22", "THREE_PINK", "SUM_8", "SAME_COLOUR", "SUM_10", "ALL_EVEN"])
    env = new_env(2, deal, reward_mode="points")
    drive(env, [
        ("player_0", "play 7P on 2", {"completed_now": [], "score": 0}),
        ("player_1", "play 6G on 1", {"tops": ["3G", "6G", "7P", "6O"], "completed_now": ["SUM_22"],
                                      "visible": ["SUM_10", "THREE_PINK", "SUM_8", "SAME_COLOUR"],
                                      "goal_deck": ["ALL_EVEN"], "score": 1,
                                      "rewards": {"player_0": 1.0, "player_1": 1.0}}),
    ])


def test_cascade_completes_several_goals_in_one_turn() -> None:
    """Two visible goals at once, and a revealed replacement that already holds (A4)."""
    env = new_env(2, cascade_deal(), reward_mode="points")
    drive(env, [
        ("player_0", "play 5G on 2", {
            "tops": ["3G", "4G", "5G", "6O"],
            "completed_now": ["THREE_GREEN", "ALL_GREEN_OR_ORANGE", "GREEN_PURPLE_SUM_12"],
            "visible": ["PINK_SUM_6", "SUM_10", "SUM_8", "SAME_COLOUR"],
            "goal_deck": ["ALL_EVEN"], "score": 3,
            "rewards": {"player_0": 3.0, "player_1": 3.0}, "over": False}),
    ])


def test_counts_are_exact_four_greens_are_not_three() -> None:
    deal = cascade_deal(piles=["1G", "1G", "2G", "2G"], goals=["THREE_GREEN", "SUM_22"],
                        hands=[["3G", "4G", "5O", "1O"], ["6G", "2O", "3V", "4P"]],
                        draw_pile=["7V", "2P", "6V", "5P"])
    env = new_env(2, deal)
    check(env, completed=[])  # four green tops at setup
    drive(env, [
        ("player_0", "play 3G on 0", {"tops": ["3G", "1G", "2G", "2G"], "completed_now": []}),
        ("player_1", "play 2O on 2", {"tops": ["3G", "1G", "2O", "2G"],
                                      "completed_now": ["THREE_GREEN"]}),
    ])
    assert not goal_met(GOALS[0], [parse_card(c) for c in ["1G", "2G", "5G", "4G"]])
    assert goal_met(GOALS[0], [parse_card(c) for c in ["1G", "2G", "5G", "4O"]])


def test_named_colours_need_one_of_them_showing() -> None:
    """§1.9 rule 2: 0 = 0 does not satisfy "green equals purple" or "purple is half of green"."""
    ids = {g.id: g for g in GOALS}
    no_green_or_purple = [parse_card(c) for c in ["1O", "2O", "3P", "4P"]]
    for gid in ["GREEN_EQ_PURPLE", "PURPLE_HALF_GREEN", "GREEN_PURPLE_SUM_12"]:
        for mode in ["union", "disjunctive"]:
            assert not goal_met(ids[gid], no_green_or_purple, mode)
    assert goal_met(ids["GREEN_EQ_PURPLE"], [parse_card(c) for c in ["5G", "2V", "3V", "4P"]])
    assert goal_met(ids["PURPLE_HALF_GREEN"], [parse_card(c) for c in ["6G", "1V", "2V", "4P"]])
    assert goal_met(ids["GREEN_SUM_5"], [parse_card(c) for c in ["5G", "1O", "2O", "4P"]])
    assert not goal_met(ids["GREEN_SUM_5"], [parse_card(c) for c in ["5O", "1O", "2O", "4P"]])


@pytest.mark.parametrize(("mode", "completes"), [("union", True), ("disjunctive", False)])
def test_multicolour_mode_all_green_or_orange(mode: str, completes: bool) -> None:
    """A2: pooled colours (default) vs the Dutch reading (all green, or all orange)."""
    deal = cascade_deal(goals=["ALL_GREEN_OR_ORANGE", "SUM_8"])
    env = new_env(2, deal, multicolour_mode=mode)
    drive(env, [("player_0", "play 5G on 2", {
        "tops": ["3G", "4G", "5G", "6O"],
        "completed_now": ["ALL_GREEN_OR_ORANGE"] if completes else []})])


@pytest.mark.parametrize(("mode", "completes"), [("union", False), ("disjunctive", True)])
def test_multicolour_mode_sum_of_two_colours(mode: str, completes: bool) -> None:
    """A2: after the play pink alone adds up to 9 (5 + 4): the Dutch reading completes
    ORANGE_PINK_SUM_9, while pooled with the orange 6 the total is 15."""
    deal = cascade_deal(piles=["5P", "4G", "1G", "6O"], goals=["ORANGE_PINK_SUM_9", "SUM_8"],
                        hands=[["4P", "1O", "2V", "7P"], ["6G", "2O", "3V", "4V"]])
    env = new_env(2, deal, multicolour_mode=mode)
    drive(env, [("player_0", "play 4P on 1", {
        "tops": ["5P", "4P", "1G", "6O"],
        "completed_now": ["ORANGE_PINK_SUM_9"] if completes else []})])


def test_every_goal_rate_matches_the_spec_by_exact_enumeration() -> None:
    """§1.9's %-column: the chance that 4 random tops satisfy each goal, over all C(56, 4)."""
    spec = {
        "THREE_GREEN": 4.16, "THREE_ORANGE": 4.16, "THREE_PINK": 4.16, "THREE_PURPLE": 4.16,
        "ALL_GREEN_OR_ORANGE": 5.57, "ALL_GREEN_OR_PINK": 5.57, "ALL_GREEN_OR_PURPLE": 5.57,
        "ALL_ORANGE_OR_PINK": 5.57, "ALL_ORANGE_OR_PURPLE": 5.57, "ALL_PINK_OR_PURPLE": 5.57,
        "SUM_8": 1.33, "SUM_10": 3.37, "SUM_12": 6.21, "SUM_14": 8.76, "SUM_15": 9.58,
        "SUM_18": 8.76, "SUM_20": 6.21, "SUM_22": 3.37, "GREEN_SUM_5": 8.17, "GREEN_SUM_9": 3.16,
        "ORANGE_SUM_4": 7.45, "ORANGE_SUM_11": 2.34, "PINK_SUM_6": 8.48, "PINK_SUM_10": 2.55,
        "PURPLE_SUM_3": 7.19, "PURPLE_SUM_8": 3.30, "PURPLE_HALF_GREEN": 2.11,
        "GREEN_HALF_ORANGE": 2.11, "ORANGE_HALF_PINK": 2.11, "PINK_HALF_PURPLE": 2.11,
        "GREEN_HALF_PINK": 2.11, "ORANGE_HALF_PURPLE": 2.11, "GREEN_EQ_PURPLE": 4.33,
        "ORANGE_EQ_PINK": 4.33, "GREEN_EQ_ORANGE": 4.33, "PINK_EQ_PURPLE": 4.33,
        "GREEN_PURPLE_SUM_12": 5.45, "ORANGE_PINK_SUM_9": 7.10, "PINK_PURPLE_SUM_14": 3.62,
        "ALL_BELOW_4": 2.89, "ALL_ABOVE_4": 2.89, "ALL_EVEN": 2.89, "ALL_ODD": 9.79,
        "FOUR_COLOURS": 10.46, "TWO_AND_TWO": 13.53, "ALL_DIFFERENT": 3.66, "SAME_COLOUR": 1.09,
        "TWO_PAIRS": 4.48, "THREE_OF_A_KIND": 5.12, "RUN_OF_4": 4.46,
    }
    assert [g.id for g in GOALS] == list(spec)  # the §1.9 order
    rows, weights = multisets(), multiset_weights()
    assert weights.sum() == comb(56, 4)
    colours, numbers = rows // 7, rows % 7 + 1
    for goal in GOALS:
        rate = 100 * (weights * evaluate(goal, colours, numbers)).sum() / comb(56, 4)
        assert round(rate, 2) == spec[goal.id], goal.id
    # A2: the Dutch reading of ALL_X_OR_Y is "all X or all Y", 0.55% at random
    dutch = evaluate(GOALS[4], colours, numbers, "disjunctive")
    assert round(100 * (weights * dutch).sum() / comb(56, 4), 2) == 0.55


def test_goal_table_agrees_with_the_predicates_in_any_pile_order() -> None:
    env = new_env(2, cascade_deal())
    game = env.unwrapped.game
    rng = np.random.default_rng(0)
    for _ in range(300):
        tops = rng.integers(28, size=4).tolist()
        game.tops = tops
        expected = sum(1 << i for i, g in enumerate(GOALS) if goal_met(g, tops))
        assert game.satisfied_goals() == expected


def test_goal_data_file_has_the_50_goals_and_another_list_can_be_loaded(tmp_path: Any) -> None:
    families = Counter(g.family for g in GOALS)
    assert len(GOALS) == 50 and len({g.id for g in GOALS}) == 50
    assert families == {"colour_count": 10, "sum": 19, "ratio": 10, "numbers": 4, "pattern": 7}
    other = tmp_path / "goals.json"
    other.write_text(json.dumps({"goals": [
        {"id": "SUM_7", "family": "sum", "text": "Sum 7", "params": {"colours": [], "total": 7}},
        {"id": "TWO_PINK", "family": "colour_count", "text": "Two pink",
         "params": {"colours": ["pink"], "count": 2}},
    ]}))
    swapped = load_goals(other)
    assert [g.id for g in swapped] == ["SUM_7", "TWO_PINK"]
    assert goal_met(swapped[0], [parse_card(c) for c in ["1G", "1O", "2P", "3V"]])
    assert goal_met(swapped[1], [parse_card(c) for c in ["1P", "1O", "2P", "3V"]])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"goals": [{"id": "X", "family": "magic", "text": "?"}]}))
    with pytest.raises(ValueError, match="unknown family"):
        load_goals(bad)


# ---- end of the game (§1.6) ------------------------------------------------------------------


def test_win_when_every_goal_is_completed() -> None:
    env = new_env(2, cascade_deal(goals=["THREE_GREEN"]))
    drive(env, [("player_0", "play 5G on 2", {
        "completed_now": ["THREE_GREEN"], "over": True, "won": True,
        "rewards": {"player_0": 1.0, "player_1": 1.0}, "score": 1})])
    assert all(env.terminations.values())


def test_win_at_setup_when_the_starting_piles_complete_every_goal() -> None:
    env = new_env(2, cascade_deal(goals=["RUN_OF_4", "SUM_18"]))
    check(env, over=True, won=True, completed=["RUN_OF_4", "SUM_18"])
    assert all(env.terminations.values())
    collected = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        collected[agent] = reward
        env.step(None)
    assert collected == {"player_0": 1.0, "player_1": 1.0}


def test_loss_when_the_player_to_move_has_no_legal_play() -> None:
    """Loss 1: after player_0's play no card of player_1 matches any top."""
    deal = {"start_player": 0, "piles": ["1G", "1G", "2G", "2G"], "goals": ["THREE_GREEN", "SUM_22"],
            "hands": [["3G", "4G", "5O", "6O"], ["5O", "6O", "7P", "5V"]], "draw_pile": ["7O"]}
    env = new_env(2, deal)
    drive(env, [("player_0", "play 3G on 0", {
        "tops": ["3G", "1G", "2G", "2G"], "completed_now": [], "over": True, "won": False,
        "loss": "no legal play", "rewards": {"player_0": 0.0, "player_1": 0.0}})])
    assert env.unwrapped.game.loser == 1
    assert "player_1 has no legal play" in env.unwrapped.game.render()


def test_loss_at_setup_when_the_start_player_cannot_play() -> None:
    deal = {"start_player": 1, "piles": ["1G", "1G", "2G", "2G"], "goals": ["SUM_22"],
            "hands": [["3G", "4G", "5O", "6O"], ["5O", "6O", "7P", "5V"]]}
    env = new_env(2, deal)
    check(env, over=True, won=False, loss="no legal play")
    assert all(env.terminations.values())
    assert env.last()[1] == 0.0


def test_loss_when_every_card_is_played_with_goals_left() -> None:
    """Loss 2, and the empty draw pile alone does not end the game: the hands shrink."""
    deal = {"start_player": 0, "piles": ["1G", "1O", "1P", "1V"], "goals": ["SAME_COLOUR"],
            "hands": [["2G", "3O", "4P", "5V"], ["6G", "7O", "2P", "3V"]], "draw_pile": []}
    env = new_env(2, deal)
    drive(env, [
        ("player_0", "play 2G on 0", {"hand_sizes": [3, 4], "over": False}),
        ("player_1", "play 6G on 0", {"hand_sizes": [3, 3]}),
        ("player_0", "play 3O on 1", {}),
        ("player_1", "play 7O on 1", {}),
        ("player_0", "play 4P on 2", {}),
        ("player_1", "play 2P on 2", {}),
        ("player_0", "play 5V on 3", {"hand_sizes": [0, 1], "over": False, "to_move": "player_1"}),
        ("player_1", "play 3V on 3", {"hand_sizes": [0, 0], "over": True, "won": False,
                                      "loss": "every card played"}),
    ])


def test_full_game_lasts_at_most_52_turns_and_never_leaves_a_player_to_move_without_cards() -> None:
    options = CahootsCoop.OPTIONS.resolve({"num_players": 3, "num_goals": 50})
    for seed in range(30):
        game = CahootsCoop(options, np.random.default_rng(seed), None)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            assert game.hands[game.current_player]
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
        assert game.turns <= 52


# ---- observation, options, notation ----------------------------------------------------------


def test_observation_shows_own_hand_tops_piles_goals_and_counts() -> None:
    deal = cascade_deal(hands=[["5G", "5G", "2V", "7P"], ["6G", "2O", "3V", "4P"]],
                        goals=["SUM_8", "THREE_GREEN", "SUM_10"])
    env = new_env(2, deal)
    drive(env, [("player_0", "play 7P on 2", {})])
    layout = env.unwrapped.layout
    v = layout.views(env.observe("player_1")["observation"])
    assert v["hand"][parse_card("6G")] == 1 and v["hand"].sum() == 4
    assert v["other_hands"].sum() == 0  # hands are hidden by default
    assert [int(np.argmax(r)) for r in v["tops"]] == [parse_card(c) for c in ["3G", "4G", "7P", "6O"]]
    assert v["played"][parse_card("5P")] == 1 and v["played"][parse_card("7P")] == 1
    assert v["played"].sum() == 5
    assert v["hand_sizes"].tolist() == [4, 4]
    assert v["draw_pile"][0] == pytest.approx(3 / 48)
    assert v["to_move"].tolist() == [1, 0]
    assert v["rules"].tolist() == [0, 0]
    sum8 = v["goals"][0]
    o = GOAL_FIELD_OFFSETS
    assert sum8[o["present"]] == 1 and sum8[o["family"] + 1] == 1  # family "sum"
    assert sum8[o["total"]] == pytest.approx(8 / 28) and sum8[o["id"] + 10] == 1
    three_green = v["goals"][1]
    assert three_green[o["family"]] == 1 and three_green[o["colours"]] == 1
    assert three_green[o["count"]] == pytest.approx(3 / 4)
    assert v["goals"][3].sum() == 0  # three goals: the fourth slot is empty
    assert v["goal_counts"].tolist() == pytest.approx([0, 3 / 50, 0, 3 / 50])
    mine = layout.views(env.observe("player_0")["observation"])
    assert mine["hand"][parse_card("5G")] == 2  # both copies
    assert mine["to_move"].tolist() == [0, 1]


def test_observation_marks_completed_goals() -> None:
    env = new_env(2, cascade_deal())
    drive(env, [("player_0", "play 5G on 2", {})])
    v = env.unwrapped.layout.views(env.observe("player_1")["observation"])
    done = {GOALS[i].id for i in np.flatnonzero(v["completed"])}
    assert done == {"THREE_GREEN", "ALL_GREEN_OR_ORANGE", "GREEN_PURPLE_SUM_12"}
    assert v["goal_counts"][0] == pytest.approx(3 / 50)


def test_open_hands_show_every_hand_relative_to_the_observer() -> None:
    env = new_env(3, {"start_player": 0, "piles": PILES, "goals": ["SUM_8"],
                      "hands": [["1G", "2G", "3O", "4O"], ["5P", "6P", "7V", "1V"],
                                ["2O", "3P", "4V", "5G"]]}, open_hands=True)
    v = env.unwrapped.layout.views(env.observe("player_1")["observation"])
    next_row, after_row = v["other_hands"]
    assert {card_str(k) for k in np.flatnonzero(next_row)} == {"2O", "3P", "4V", "5G"}  # player_2
    assert {card_str(k) for k in np.flatnonzero(after_row)} == {"1G", "2G", "3O", "4O"}  # player_0
    assert v["rules"].tolist() == [1, 0]


def test_hidden_hands_are_never_encoded() -> None:
    deal = {"start_player": 0, "piles": PILES, "goals": ["SUM_8"],
            "hands": [["1G", "2G", "3O", "4O"], ["5P", "6P", "7V", "1V"]]}
    a = new_env(2, deal)
    b = new_env(2, dict(deal, hands=[["1G", "2G", "3O", "4O"], ["5V", "6V", "7P", "1P"]]))
    assert a.observe("player_0")["observation"].tobytes() == b.observe("player_0")["observation"].tobytes()


def test_action_ids_and_notation() -> None:
    env = new_env(2, cascade_deal())
    assert env.action_space("player_0").n == 112
    assert env.unwrapped.action_to_str(0) == "play 1G on 0"
    assert env.unwrapped.action_to_str(111) == "play 7V on 3"
    assert env.unwrapped.str_to_action(" PLAY 5g ON 2 ") == (4 * 4 + 2)


def test_render_shows_piles_goals_and_hands() -> None:
    env = cahoots_coop_v1.env(num_players=2, render_mode="ansi")
    env.reset(options={"deal": cascade_deal()})
    text = env.render()
    for fragment in ["0: 3G (1)", "goal 0: THREE_GREEN", "player_0* hand: 5G 1O 7P 2V",
                     "draw pile (4, top first): 1G 7V 2P 6V", "goal deck (top first): GREEN_PURPLE"]:
        assert fragment in text


# ---- malformed deals (CONTRACT §3, §5) ---------------------------------------------------------


FULL_DECK = [f"{n}{c}" for c in "GOPV" for n in range(1, 8)] * 2


def without(cards: list[str], removed: list[str]) -> list[str]:
    rest = list(cards)
    for card in removed:
        rest.remove(card)
    return rest


@pytest.mark.parametrize(("deal", "message"), [
    ({"hands": [["9G", "1O", "2V", "7P"], ["6G", "2O", "3V", "4P"]]}, "unknown Cahoots card '9G'"),
    ({"piles": ["5G", "5G", "5G", "1O"]}, "5G appears 3 times"),
    ({"hands": [["5G", "5G", "2V", "7P"], ["6G", "2O", "3V", "4P"]], "piles": ["5G", "1O", "2O", "3O"]},
     "5G appears 3 times"),
    ({"hands": [["5G", "1O", "2V"], ["6G", "2O", "3V", "4P"]]}, "has 3 cards; it must have 4"),
    ({"hands": [["5G", "1O", "2V", "7P"]]}, "list of 2 hands"),
    ({"piles": ["5G", "1O", "2V"]}, "piles has 3 cards"),
    ({"goals": ["SUM_99"]}, "unknown goal 'SUM_99'"),
    ({"goals": ["SUM_8", "SUM_8"]}, "SUM_8 appears twice"),
    ({"goals": []}, "non-empty list of goal ids"),
    ({"start_player": 2}, "start_player must be a seat 0..1"),
    ({"draw_pile": "1G 2G"}, "draw_pile must be a list"),
    ({"dealer": 0}, "unknown deal key"),
    # a scripted draw pile can leave too few cards for the keys left out
    ({"draw_pile": FULL_DECK}, "leave 0 cards; the hands and piles left out need 12"),
    ({"draw_pile": FULL_DECK[:45]}, "leave 11 cards; the hands and piles left out need 12"),
    ({"hands": [["5G", "1O", "2V", "7P"], ["6G", "2O", "3V", "4P"]],
      "draw_pile": without(FULL_DECK, ["5G", "1O", "2V", "7P", "6G", "2O", "3V", "4P"])[:45]},
     "leave 3 cards; the piles left out need 4"),
])
def test_malformed_deals_raise_and_change_nothing(deal: dict[str, Any], message: str) -> None:
    env = new_env(2, cascade_deal())
    env.step(env.unwrapped.str_to_action("play 7P on 2"))
    before = (facts(env), env.observe("player_1")["observation"].tobytes())
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": deal})
    assert (facts(env), env.observe("player_1")["observation"].tobytes()) == before


def test_bad_options_name_what_they_accept() -> None:
    for bad, word in [({"difficulty": "hard"}, "difficulty"), ({"num_goals": 0}, "num_goals"),
                      ({"num_goals": 51}, "num_goals"), ({"multicolour_mode": "or"}, "multicolour"),
                      ({"open_hands": 1}, "open_hands"), ({"num_players": 5}, "num_players")]:
        with pytest.raises(ValueError, match=word):
            cahoots_coop_v1.raw_env(**bad)


def test_protected_env_punishes_an_illegal_play() -> None:
    env = cahoots_coop_v1.env(num_players=2)
    env.reset(options={"deal": cascade_deal()})
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(4 * 4 + 3)  # play 5G on 3: the top is 6O
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(env.terminations.values())


def test_doc_page_lists_every_goal_and_goal_feature() -> None:
    from cahoots_envs.games.cahoots_coop import env as page

    doc = page.__doc__ or ""
    for goal in GOALS:
        assert f"`{goal.id}`" in doc, goal.id
    for name, _, _ in GOAL_FIELDS:
        assert f"`{name}`" in doc, name
    assert f"{GOAL_WIDTH} features" in doc


def test_observation_shows_which_own_plays_complete_goals() -> None:
    """my_plays mirrors the mover's legal plays; play_completes counts the goals each completes."""
    env = new_env(2, cascade_deal(goals=["THREE_GREEN", "SUM_22"]))
    layout = env.unwrapped.layout
    v0 = layout.views(env.observe("player_0")["observation"])
    mask = env.observe("player_0")["action_mask"]
    assert np.array_equal(v0["my_plays"].ravel(), mask.astype(np.float32))
    five_green_on_2 = env.unwrapped.str_to_action("play 5G on 2")
    completes = v0["play_completes"].ravel()
    assert completes[five_green_on_2] == 0.25  # THREE_GREEN, one of the visible goals
    assert completes.sum() == 0.25
    # the player not to move sees its own plays too, never the mover's
    v1 = layout.views(env.observe("player_1")["observation"])
    assert v1["my_plays"].sum() > 0 and not np.array_equal(v1["my_plays"], v0["my_plays"])
