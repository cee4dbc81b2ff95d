"""Cahoots (cooperative) v1: every public fact added to the observation, on pairs of scripted games.

A turn is one play (a card onto a pile, then a draw; no pass, no discard), so the history is who
played which card on which pile over which card, and which goals that play completed. The pairs
below swap the first two plays between seats 0 and 1: once both have played, the two games hold
the very same cards everywhere (piles, hands, draw pile, goals) and are played on by the same
deterministic chooser, so they differ in nothing but the history. On the v0 encoder the
observations would be identical from then on; on v1 they differ at the next decision and, for
the facts that last the game (`played_by`, `completed_by`), at every later decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cahoots_envs import cahoots_coop_v1
from cahoots_envs.games.cahoots_coop.encoder import (
    PLAY_FIELD_OFFSETS,
    PLAY_FIELDS,
    PLAY_WIDTH,
    PLAYS_PER_SEAT,
)
from cahoots_envs.games.cahoots_coop.rules import GOAL_INDEX, KINDS, parse_card
from tests.scenario import views

OBSERVER = 2  # sees seat 0 as relative seat 1 and seat 1 as relative seat 2
F = PLAY_FIELD_OFFSETS


def rel(seat: int, n: int = 3) -> int:
    return (seat - OBSERVER) % n


def new_env(deal: dict[str, Any], num_players: int = 3, **options: Any) -> Any:
    env = cahoots_coop_v1.env(num_players=num_players, **options)
    env.reset(seed=0, options={"deal": deal})
    return env


def play(env: Any, *texts: str) -> None:
    for text in texts:
        env.step(env.unwrapped.str_to_action(text))


def choose(env: Any) -> int:
    """The first legal play: the same in both games of a pair, whose states agree."""
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def slot(kind: str, pile: int, covered: str, completed: bool = False) -> np.ndarray:
    """The expected features of one `plays` slot."""
    row = np.zeros(PLAY_WIDTH, np.float32)
    row[F["present"]] = 1
    row[F["card"] + parse_card(kind)] = 1
    row[F["pile"] + pile] = 1
    row[F["covered"] + parse_card(covered)] = 1
    row[F["completed"]] = float(completed)
    return row


def counts(cards: list[str]) -> np.ndarray:
    row = np.zeros(KINDS, np.float32)
    for card in cards:
        row[parse_card(card)] += 1
    return row


def goal_row(*ids: str) -> np.ndarray:
    row = np.zeros(len(GOAL_INDEX), np.float32)
    for gid in ids:
        row[GOAL_INDEX[gid]] = 1
    return row


def play_out_together(a: Any, b: Any, check: Any) -> int:
    """Step both games with the same chooser to the end, calling ``check(view_a, view_b)`` on the
    observer's views after every step (the game-over observation included). Returns the steps."""
    steps = 0
    while a.agents:
        assert a.agent_selection == b.agent_selection
        if a.terminations[a.agent_selection]:
            a.step(None)
            b.step(None)
            continue
        action = choose(a)
        assert action == choose(b)
        a.step(action)
        b.step(action)
        steps += 1
        if OBSERVER < len(a.unwrapped.game.hands):
            check(views(a, OBSERVER), views(b, OBSERVER))
    return steps


def assert_same_but_history(a: Any, b: Any) -> None:
    """The two games hold the same cards and goals everywhere."""
    ga, gb = a.unwrapped.game, b.unwrapped.game
    assert ga.hands == gb.hands and ga.piles == gb.piles and ga.draw_pile == gb.draw_pile
    assert ga.visible == gb.visible and ga.completed == gb.completed
    assert ga.goal_deck == gb.goal_deck and ga.current_player == gb.current_player


# ---- who played which card, on which pile, over which card -----------------------------------

# piles 1G 2O 3P 4V; seat 0 and seat 1 hold 5G and 6O between them, one each
PLAYS_GOALS = ["SAME_COLOUR", "SUM_8", "ALL_ABOVE_4", "PINK_SUM_10", "RUN_OF_4", "SUM_22"]


def plays_deal(seat0: str, seat1: str) -> dict[str, Any]:
    return {
        "start_player": 0,
        "piles": ["1G", "2O", "3P", "4V"],
        "hands": [[seat0, "2G", "5P", "6V"], [seat1, "3G", "6P", "7V"], ["4G", "7O", "1P", "2V"]],
        "goals": PLAYS_GOALS,
    }


def swapped_plays() -> tuple[Any, Any]:
    """Game a: seat 0 plays 5G on pile 0, seat 1 6O on pile 1; game b: the other way round."""
    a = new_env(plays_deal("5G", "6O"))
    play(a, "play 5G on 0", "play 6O on 1")
    b = new_env(plays_deal("6O", "5G"))
    play(b, "play 6O on 1", "play 5G on 0")
    assert_same_but_history(a, b)
    return a, b


def test_each_seats_play_is_shown_in_its_own_row_with_pile_and_covered_card() -> None:
    a, b = swapped_plays()
    va, vb = views(a, OBSERVER), views(b, OBSERVER)
    assert va["to_move"].tolist() == [1, 0, 0]  # the observer plays next
    assert np.array_equal(va["plays"][rel(0)][0], slot("5G", 0, "1G"))
    assert np.array_equal(va["plays"][rel(1)][0], slot("6O", 1, "2O"))
    assert np.array_equal(vb["plays"][rel(0)][0], slot("6O", 1, "2O"))
    assert np.array_equal(vb["plays"][rel(1)][0], slot("5G", 0, "1G"))
    for v in (va, vb):
        assert v["plays"][rel(OBSERVER)].sum() == 0  # the observer has not played yet
        assert v["plays"][:, 1].sum() == 0  # nobody has played twice
        assert v["completed_by"].sum() == 0 and v["last_completed"].sum() == 0
    # the seat rows are relative: seat 0 sees its own play first
    assert np.array_equal(views(a, 0)["plays"][0][0], slot("5G", 0, "1G"))
    assert np.array_equal(views(a, 0)["plays"][1][0], slot("6O", 1, "2O"))


def test_the_cards_each_seat_played_stay_visible_all_game() -> None:
    a, b = swapped_plays()
    va, vb = views(a, OBSERVER), views(b, OBSERVER)
    assert np.array_equal(va["played_by"][rel(0)], counts(["5G"]))
    assert np.array_equal(va["played_by"][rel(1)], counts(["6O"]))
    assert np.array_equal(vb["played_by"][rel(0)], counts(["6O"]))
    assert np.array_equal(vb["played_by"][rel(1)], counts(["5G"]))
    assert va["played_by"][rel(OBSERVER)].sum() == 0

    def differ(x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> None:
        # seat 0 played 5G in a and 6O in b, seat 1 the other way round; the rest is common
        assert x["played_by"][rel(0)][parse_card("5G")] - y["played_by"][rel(0)][parse_card("5G")] == 1
        assert x["played_by"][rel(1)][parse_card("6O")] - y["played_by"][rel(1)][parse_card("6O")] == 1
        assert np.array_equal(x["played_by"].sum(axis=0), y["played_by"].sum(axis=0))
        assert np.array_equal(x["played"], y["played"]) and np.array_equal(x["tops"], y["tops"])

    steps = play_out_together(a, b, differ)
    assert steps > 2 * PLAYS_PER_SEAT * 3  # the window has long moved past the swapped plays


def test_the_window_keeps_each_seats_last_two_plays_latest_first() -> None:
    a, _ = swapped_plays()
    game = a.unwrapped.game
    while game.turns < 7 and not game.is_over:
        a.step(choose(a))
    assert game.turns == 7  # seats 0, 1, 2, 0, 1, 2, 0 have played
    v = views(a, OBSERVER)
    for seat, latest, previous in ((0, 6, 3), (1, 4, 1), (2, 5, 2)):
        for which, turn in ((0, latest), (1, previous)):
            s, kind, pile, covered, goals = game.plays[turn]
            assert s == seat
            expected = slot(f"{kind % 7 + 1}{'GOPV'[kind // 7]}", pile,
                            f"{covered % 7 + 1}{'GOPV'[covered // 7]}", bool(goals))
            assert np.array_equal(v["plays"][rel(seat)][which], expected), (seat, which)
    # seat 0's first play (turn 0) has left the window, but not `played_by`
    assert v["played_by"][rel(0)][parse_card("5G")] == 1


# ---- who completed which goal ------------------------------------------------------------------

# piles 1G 2G 3O 4P: 3G on pile 2 makes three green piles (THREE_GREEN), 4O on pile 3 alone does
# not; after both, THREE_GREEN holds
GOALS_DEAL_GOALS = ["THREE_GREEN", "SAME_COLOUR", "ALL_ABOVE_4", "SUM_22", "PINK_SUM_10", "SUM_8",
                    "RUN_OF_4", "ORANGE_SUM_11"]


def goals_deal(seat0: str, seat1: str) -> dict[str, Any]:
    return {
        "start_player": 0,
        "piles": ["1G", "2G", "3O", "4P"],
        "hands": [[seat0, "5G", "6P", "7V"], [seat1, "1V", "5P", "7O"], ["2O", "6G", "3V", "5V"]],
        "goals": GOALS_DEAL_GOALS,
    }


def swapped_completion() -> tuple[Any, Any]:
    """Game a: seat 0 completes THREE_GREEN (3G on 2), then seat 1 plays 4O on 3; game b: seat 0
    plays 4O on 3, then seat 1 completes THREE_GREEN."""
    a = new_env(goals_deal("3G", "4O"))
    play(a, "play 3G on 2")
    assert a.unwrapped.game.completed == [GOAL_INDEX["THREE_GREEN"]]
    play(a, "play 4O on 3")
    b = new_env(goals_deal("4O", "3G"))
    play(b, "play 4O on 3")
    assert b.unwrapped.game.completed == []
    play(b, "play 3G on 2")
    assert_same_but_history(a, b)
    assert a.unwrapped.game.completed == [GOAL_INDEX["THREE_GREEN"]]
    return a, b


def test_the_goals_each_seat_completed_stay_visible_all_game() -> None:
    a, b = swapped_completion()
    va, vb = views(a, OBSERVER), views(b, OBSERVER)
    assert np.array_equal(va["completed_by"][rel(0)], goal_row("THREE_GREEN"))
    assert va["completed_by"][[rel(1), rel(2)]].sum() == 0
    assert np.array_equal(vb["completed_by"][rel(1)], goal_row("THREE_GREEN"))
    assert vb["completed_by"][[rel(0), rel(2)]].sum() == 0
    assert np.array_equal(va["completed"], vb["completed"])  # the team's goals are the same

    def differ(x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> None:
        three_green = GOAL_INDEX["THREE_GREEN"]
        assert x["completed_by"][rel(0)][three_green] == 1 and y["completed_by"][rel(0)][three_green] == 0
        assert x["completed_by"][rel(1)][three_green] == 0 and y["completed_by"][rel(1)][three_green] == 1

    play_out_together(a, b, differ)


def test_the_goals_the_latest_play_completed_are_shown_until_the_next_play() -> None:
    a, b = swapped_completion()
    va, vb = views(a, OBSERVER), views(b, OBSERVER)
    assert va["last_completed"].sum() == 0  # seat 1's 4O completed nothing
    assert np.array_equal(vb["last_completed"], goal_row("THREE_GREEN"))
    # the plays window flags the completing play, in the right seat's row
    assert np.array_equal(va["plays"][rel(0)][0], slot("3G", 2, "3O", completed=True))
    assert np.array_equal(va["plays"][rel(1)][0], slot("4O", 3, "4P"))
    assert np.array_equal(vb["plays"][rel(0)][0], slot("4O", 3, "4P"))
    assert np.array_equal(vb["plays"][rel(1)][0], slot("3G", 2, "3O", completed=True))
    # transient: once the observer has played, both show what its play completed (the same)
    a.step(choose(a))
    b.step(choose(b))
    va, vb = views(a, OBSERVER), views(b, OBSERVER)
    assert np.array_equal(va["last_completed"], vb["last_completed"])
    assert np.flatnonzero(vb["last_completed"]).tolist() == b.unwrapped.game.last_completed


def test_goals_met_at_setup_are_the_last_completed_before_the_first_play() -> None:
    deal = goals_deal("3G", "4O")
    deal["goals"] = ["SUM_10", *GOALS_DEAL_GOALS]  # 1 + 2 + 3 + 4: met by the starting piles
    env = new_env(deal)
    v = views(env, OBSERVER)
    assert np.array_equal(v["last_completed"], goal_row("SUM_10"))
    assert np.array_equal(v["completed"], goal_row("SUM_10"))
    assert v["completed_by"].sum() == 0 and v["plays"].sum() == 0 and v["played_by"].sum() == 0
    play(env, "play 3G on 2")  # completes THREE_GREEN
    assert np.array_equal(views(env, OBSERVER)["last_completed"], goal_row("THREE_GREEN"))


# ---- one player, and the encoding against a plain reading of the engine ------------------------


def test_one_player_sees_its_own_last_two_plays() -> None:
    env = new_env({"start_player": 0, "piles": ["1G", "2O", "3P", "4V"],
                   "hands": [["5G", "6O", "7P", "1V"]], "draw_pile": ["2G", "3G", "4G"],
                   "goals": PLAYS_GOALS}, num_players=1)
    play(env, "play 5G on 0", "play 6O on 1")
    v = views(env, 0)
    assert v["plays"].shape == (1, PLAYS_PER_SEAT, PLAY_WIDTH)
    assert np.array_equal(v["plays"][0][0], slot("6O", 1, "2O"))
    assert np.array_equal(v["plays"][0][1], slot("5G", 0, "1G"))
    assert np.array_equal(v["played_by"][0], counts(["5G", "6O"]))
    assert v["to_move"].tolist() == [1]


def reference(game: Any, seat: int) -> dict[str, np.ndarray]:
    """The history segments read plainly from ``game.plays``."""
    n = game.num_players
    plays = np.zeros((n, PLAYS_PER_SEAT, PLAY_WIDTH), np.float32)
    played_by = np.zeros((n, KINDS), np.float32)
    completed_by = np.zeros((n, len(GOAL_INDEX)), np.float32)
    seen = [0] * n
    for s, kind, pile, covered, goals in reversed(game.plays):
        r = (s - seat) % n
        played_by[r][kind] += 1
        completed_by[r][[g for g in range(len(GOAL_INDEX)) if goals >> g & 1]] = 1
        if seen[r] < PLAYS_PER_SEAT:
            row = plays[r][seen[r]]
            row[F["present"]] = 1
            row[F["card"] + kind] = row[F["pile"] + pile] = row[F["covered"] + covered] = 1
            row[F["completed"]] = float(goals != 0)
        seen[r] += 1
    last = np.zeros(len(GOAL_INDEX), np.float32)
    last[game.last_completed] = 1
    return {"plays": plays, "played_by": played_by, "completed_by": completed_by,
            "last_completed": last}


@pytest.mark.parametrize(("num_players", "options"), [
    (1, {}), (2, {"open_hands": True}), (3, {"num_goals": 24}), (4, {"multicolour_mode": "disjunctive"}),
])
def test_history_segments_match_the_engine_at_every_step(num_players: int, options: dict[str, Any]) -> None:
    env = cahoots_coop_v1.env(num_players=num_players, **options)
    rng = np.random.default_rng(num_players)
    low, high = env.unwrapped.layout.bounds()
    for seed in range(2):
        env.reset(seed=seed)
        while env.agents:
            if env.terminations[env.agent_selection]:
                env.step(None)
                continue
            game = env.unwrapped.game
            for seat in range(num_players):
                obs = env.observe(f"player_{seat}")["observation"]
                assert (obs >= low).all() and (obs <= high).all()
                v = env.unwrapped.layout.views(obs)
                for name, expected in reference(game, seat).items():
                    assert np.array_equal(v[name], expected), (name, seat, game.turns)
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))


def test_clone_copies_the_history() -> None:
    a, _ = swapped_plays()
    game = a.unwrapped.game
    twin = game.clone()
    twin.apply(twin.legal_actions()[0])
    assert len(twin.plays) == 3 and len(game.plays) == 2
    assert twin.played_by != game.played_by
    assert game.turns == 2 and game.last_play == (1, parse_card("6O"), 1)


def test_doc_page_explains_the_history_and_lists_every_play_feature() -> None:
    from cahoots_envs.games.cahoots_coop import env as page

    doc = page.__doc__ or ""
    for name, _, _ in PLAY_FIELDS:
        assert f"| `{name}` |" in doc, name
    assert f"holds {PLAY_WIDTH}\nfeatures" in doc or f"holds {PLAY_WIDTH} features" in doc
    assert "### The play history" in doc and "Migration from v0" in doc
