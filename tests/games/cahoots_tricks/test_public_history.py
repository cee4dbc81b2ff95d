"""v1 observation of Cahoots (competitive): every public fact that bears on play is in every
observation, so a memoryless policy can use it.

Pairs of scripted games that differ only in one public fact are played on in lockstep (the same
moves, checked to be legal in both); the observations must differ at the next decision and, for
the persistent facts, at every later decision of the game, in the right seat row and card.
An oracle test rebuilds the new segments from the move log of random games.

Identity cards as in scripted.py: seat 0 = SHR, 1 = CHU, 2 = CDR, 3 = SDU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cahoots_envs import cahoots_tricks_v1
from cahoots_envs.games.cahoots_tricks.rules import (
    IDENTITY_MASKS,
    KEEP_BASE,
    KILL_BASE,
    NUM_TYPES,
    SUITS,
    TAKE_BASE,
    TYPE_SUIT,
    TYPE_VALUE,
    parse_card,
)
from tests.games.cahoots_tricks.scripted import hands_for, make_deal, new_env, plays, run
from tests.scenario import legal, views

TRICK = ["8H", "7H", "4D", "4C", "4S", "4U", "4R", "5D"]  # hearts win (15): seats 0 and 1 score
PICKS = [(0, "keep 8H"), (1, "kill 7H"), (2, "kill 5D"), (3, "keep 4C"),
         (0, "kill 4S"), (1, "keep 4U"), (2, "keep 4R")]  # seat 3's kill 4D is forced
C = parse_card


def step(env: Any, text: str) -> None:
    env.step(env.unwrapped.str_to_action(text))


def lockstep(a: Any, b: Any, seed: int, check: Any, until: Any = None) -> None:
    """Play both games on with the same random legal moves, calling ``check(a, b)`` at every
    state (the game-over state included) until the end of the game, or before the first state
    where ``until(game)`` holds."""
    rng = np.random.default_rng(seed)
    ga = a.unwrapped.game
    while True:
        if until is not None and until(ga):
            return
        check(a, b)
        if ga.is_over:
            return
        moves = legal(a)
        assert moves == legal(b) and a.agent_selection == b.agent_selection
        text = moves[int(rng.integers(len(moves)))]
        step(a, text)
        step(b, text)


def diff(a: Any, b: Any, seat: int, name: str) -> np.ndarray:
    return views(a, seat)[name] - views(b, seat)[name]


def changed_segments(a: Any, b: Any, seat: int) -> set[str]:
    va, vb = views(a, seat), views(b, seat)
    return {name for name in va if not np.array_equal(va[name], vb[name])}


# ---- persistent: each seat's played cards ---------------------------------------------------

def test_who_played_which_card_stays_visible_all_game() -> None:
    """Game a: seat 0 plays 8H and seat 1 plays 7H; game b: the other way round (their hands
    hold the swapped cards). The trick, the hands after it and everything else are the same."""
    swapped = ["7H", "8H"] + TRICK[2:]
    a = new_env(make_deal(hands_for(TRICK, 0, 4)))
    b = new_env(make_deal(hands_for(swapped, 0, 4)))
    assert all(np.array_equal(views(a, s)["hand"], views(b, s)["hand"]) for s in (2, 3))
    run(a, plays(TRICK, 0, 4))
    run(b, plays(swapped, 0, 4))
    v = views(a, 2)  # seat 0 is two seats to seat 2's left, seat 1 three
    assert v["played_by"][2][C("8H")] == 1 and v["played_by"][3][C("7H")] == 1
    assert v["played_by"].sum() == 8 and v["played_by"][2].sum() == 2

    def check(a: Any, b: Any) -> None:
        for seat in range(4):
            want = np.zeros((4, NUM_TYPES))
            want[(0 - seat) % 4, [C("8H"), C("7H")]] = [1, -1]
            want[(1 - seat) % 4, [C("8H"), C("7H")]] = [-1, 1]
            assert np.array_equal(diff(a, b, seat, "played_by"), want)

    lockstep(a, b, 1, check)
    assert a.unwrapped.game.is_over


# ---- persistent: each seat's killed cards ---------------------------------------------------

def test_who_killed_which_card_stays_visible_all_game() -> None:
    """Same trick; in keep/kill pass 1 seat 0 kills 7H and seat 1 kills 8H (game a) or seat 0
    kills 8H and seat 1 kills 7H (game b). Kept cards, killed cards, winners and scores agree."""
    a = new_env(make_deal(hands_for(TRICK, 0, 4)))
    b = new_env(make_deal(hands_for(TRICK, 0, 4)))
    rest = [(2, "kill 5D"), (3, "keep 4C"), (0, "keep 4S"), (1, "keep 4U"), (2, "keep 4R")]
    run(a, plays(TRICK, 0, 4) + [(0, "kill 7H"), (1, "kill 8H")] + rest)
    run(b, plays(TRICK, 0, 4) + [(0, "kill 8H"), (1, "kill 7H")] + rest)
    assert a.unwrapped.game.scores == b.unwrapped.game.scores == [2, 2, 0, 0]
    v = views(a, 3)  # the next decision; seat 0 is one seat to seat 3's left
    assert v["killed_by"][1][C("7H")] == 1 and v["killed_by"][2][C("8H")] == 1
    assert v["killed_by"][0][C("4D")] == 1 and v["killed_by"].sum() == 4  # seat 3's forced kill
    assert v["last_trick_picks"][1][1][C("7H")] == 1 and v["last_trick_picks"][1][0][C("4S")] == 1
    assert changed_segments(a, b, 3) == {"killed_by", "last_trick_picks"}

    def check(a: Any, b: Any) -> None:
        for seat in range(4):
            want = np.zeros((4, NUM_TYPES))
            want[(0 - seat) % 4, [C("7H"), C("8H")]] = [1, -1]
            want[(1 - seat) % 4, [C("7H"), C("8H")]] = [-1, 1]
            assert np.array_equal(diff(a, b, seat, "killed_by"), want)

    lockstep(a, b, 2, check)


# ---- transient: the last completed trick -----------------------------------------------------

def test_last_trick_plays_by_seat_and_lap_are_visible_through_the_next_trick() -> None:
    """Seat 0 plays 8H then 4S (game a) or 4S then 8H (game b); all else the same. Once the
    trick is over only the lap differs, and that is seen throughout trick 2 (and gone after)."""
    laps = ["4S"] + TRICK[1:4] + ["8H"] + TRICK[5:]
    a = new_env(make_deal(hands_for(TRICK, 0, 4)))
    b = new_env(make_deal(hands_for(laps, 0, 4)))
    run(a, plays(TRICK, 0, 4) + PICKS)
    run(b, plays(laps, 0, 4) + PICKS)
    assert a.unwrapped.game.trick_number == 2
    for seat in range(4):
        assert changed_segments(a, b, seat) == {"last_trick_plays"}
        rel = (0 - seat) % 4
        last = views(a, seat)["last_trick_plays"]
        assert last[rel][0][C("8H")] == 1 and last[rel][1][C("4S")] == 1
        assert views(b, seat)["last_trick_plays"][rel][0][C("4S")] == 1
        assert last[(3 - seat) % 4][1][C("5D")] == 1 and last.sum() == 8

    def differs(a: Any, b: Any) -> None:
        assert all(changed_segments(a, b, s) == {"last_trick_plays"} for s in range(4))

    lockstep(a, b, 3, differs, until=lambda game: game.trick_number == 3)
    assert a.unwrapped.game.trick_number == 3
    for s in range(4):  # a window of one trick
        agent = f"player_{s}"
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])


def test_last_trick_winning_suits_scoring_winners_and_points() -> None:
    """Seat 1's first card is 7H (hearts win: seats 0 and 1 score 2 each) or 7R (stars 11 win:
    seats 0 and 2). The winning suits follow from the plays, so the plays differ too."""
    stars = [TRICK[0], "7R"] + TRICK[2:]
    a = new_env(make_deal(hands_for(TRICK, 0, 4)))
    b = new_env(make_deal(hands_for(stars, 0, 4)))
    for env in (a, b):
        v = views(env, 0)
        assert v["last_trick_winning_suits"].sum() == v["last_trick_scoring_winners"].sum() == 0
    run(a, plays(TRICK, 0, 4) + PICKS)
    run(b, plays(stars, 0, 4) + [(s, t.replace("7H", "7R")) for s, t in PICKS])
    assert b.unwrapped.game.scores == [2, 0, 2, 0]
    for env, won, scorers in ((a, "H", (0, 1)), (b, "R", (0, 2))):
        for seat in range(4):
            v = views(env, seat)
            assert np.flatnonzero(v["last_trick_winning_suits"]).tolist() == [SUITS.index(won)]
            rel = sorted((s - seat) % 4 for s in scorers)
            assert np.flatnonzero(v["last_trick_scoring_winners"]).tolist() == rel
            assert v["last_trick_points"].tolist() == pytest.approx(
                [0.5 if r in rel else 0 for r in range(4)])
            # the current trick's segments start afresh
            assert v["winning_suits"].sum() == v["trick_plays"].sum() == 0


def test_face_value_draft_who_acts_and_the_points_each_winner_took() -> None:
    """Face value: the winners (seats 0 and 1) draft the point cards W1, W2, W2, W1; ``to_move``
    names the drafter, ``start_player`` the trick's start player; afterwards
    ``last_trick_points`` holds what each took (7 + 4 = 11 and 5 + 4 = 9, out of 32)."""
    env = new_env(make_deal(hands_for(TRICK, 0, 4)), scoring="face_value")
    run(env, plays(TRICK, 0, 4) + PICKS)
    for seat, drafter, text in [(2, 0, "take 7H"), (3, 1, "take 5D"), (0, 1, "take 4D")]:
        v = views(env, seat)
        assert v["phase"].tolist() == [0, 0, 1]
        assert np.flatnonzero(v["to_move"]).tolist() == [(drafter - seat) % 4]
        assert np.flatnonzero(v["start_player"]).tolist() == [(0 - seat) % 4]
        step(env, text)
    assert env.unwrapped.game.scores == [11, 9, 0, 0]
    v = views(env, 2)
    assert v["last_trick_points"].tolist() == pytest.approx([0, 0, 11 / 32, 9 / 32])
    assert v["scores"].tolist() == pytest.approx([0, 0, 11 / 288, 9 / 288])


# ---- game over -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4])
def test_no_phase_and_nobody_to_move_once_the_game_is_over(n: int) -> None:
    env = cahoots_tricks_v1.env(num_players=n)
    env.reset(seed=5)
    game = env.unwrapped.game
    rng = np.random.default_rng(5)
    while not game.is_over:
        for seat in range(n):
            assert views(env, seat)["phase"].sum() == 1
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    for seat in range(n):
        v = views(env, seat)
        assert v["phase"].sum() == v["keep_kill_pass"].sum() == v["to_move"].sum() == 0
        # trick 11 is the last completed trick
        assert v["last_trick_plays"].sum() == v["last_trick_picks"].sum() == 2 * n


# ---- oracle: the new segments rebuilt from the move log ------------------------------------

def expected_winners(plays_: list[tuple[int, int]], game: Any) -> tuple[int, list[int]]:
    """§2.3 phase 2 recomputed: winning suits, and the seats with the most of them."""
    totals = [0] * len(SUITS)
    for _, t in plays_:
        totals[TYPE_SUIT[t]] += TYPE_VALUE[t]
    won = sum(1 << s for s in range(len(SUITS)) if totals[s] == max(totals))
    m = [(IDENTITY_MASKS[i] & won).bit_count() for i in game.identities]
    return won, [s for s in range(len(m)) if m[s] == max(m)]


@pytest.mark.parametrize("options", [
    {},
    {"num_players": 3},
    {"scoring": "face_value"},
    {"num_players": 3, "scoring": "face_value", "three_way_split": "even"},
], ids=["4p", "3p", "4p-face-value", "3p-face-value-even"])
def test_new_segments_match_the_move_log(options: dict) -> None:
    env = cahoots_tricks_v1.env(**options)
    env.reset(seed=11)
    game = env.unwrapped.game
    n = game.num_players
    log: list[tuple[int, int, int]] = []  # (trick, seat, action), forced moves included
    apply_one = game._apply_one

    def logged(action: int) -> None:
        log.append((game.trick_number, game.current_player, action))
        apply_one(action)

    game._apply_one = logged
    first_scores: dict[int, list[float]] = {}
    point_scale = 32 if options.get("scoring") == "face_value" else 4
    rng = np.random.default_rng(11)
    while True:
        first_scores.setdefault(game.trick_number, list(game.scores))
        played = np.zeros((n, NUM_TYPES))
        killed = np.zeros((n, NUM_TYPES))
        for _, s, a in log:
            if a < KEEP_BASE:
                played[s, a] += 1
            elif KILL_BASE <= a < TAKE_BASE:
                killed[s, a - KILL_BASE] += 1
        done = game.trick_number if game.is_over else game.trick_number - 1
        last = [(s, a) for k, s, a in log if k == done and a < KEEP_BASE]
        picks = [(s, a) for k, s, a in log if k == done and KEEP_BASE <= a < TAKE_BASE]
        if done:
            after = game.scores if game.is_over else first_scores[done + 1]
            points = [(x - y) / point_scale for x, y in zip(after, first_scores[done])]
            won, winners = expected_winners(last, game)
        for seat in range(n):
            v = views(env, seat)
            order = [(seat + r) % n for r in range(n)]
            assert np.array_equal(v["played_by"], played[order])
            assert np.array_equal(v["killed_by"], killed[order])
            last_plays = np.zeros((n, 2, NUM_TYPES))
            last_picks = np.zeros((n, 2, NUM_TYPES))
            for i, (s, t) in enumerate(last):
                last_plays[(s - seat) % n, i // n, t] = 1
            for s, a in picks:
                last_picks[(s - seat) % n, int(a >= KILL_BASE), (a - KEEP_BASE) % NUM_TYPES] = 1
            assert np.array_equal(v["last_trick_plays"], last_plays)
            assert np.array_equal(v["last_trick_picks"], last_picks)
            if done:
                assert v["last_trick_winning_suits"].tolist() == [won >> k & 1 for k in range(6)]
                assert sorted(np.flatnonzero(v["last_trick_scoring_winners"])) == sorted(
                    (w - seat) % n for w in winners)
                assert v["last_trick_points"].tolist() == pytest.approx(
                    [points[s] for s in order], abs=1e-6)
            else:
                assert v["last_trick_points"].sum() == v["last_trick_scoring_winners"].sum() == 0
            if not game.is_over:
                assert v["to_move"][(game.current_player - seat) % n] == 1
                assert v["start_player"][(game.start_player - seat) % n] == 1
            low, high = env.observation_space(f"player_{seat}")["observation"].low, \
                env.observation_space(f"player_{seat}")["observation"].high
            obs = env.observe(f"player_{seat}")["observation"]
            assert (obs >= low).all() and (obs <= high).all()
        if game.is_over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert done == 11 and len(log) > 0
