"""Kansas City v1: every public fact added to the observation, on pairs of scripted games.

Each pair differs only in one public fact; the observer's observation must differ at the next
decision and, for a fact that lasts the hand, at every later decision of the hand, in the right
segment, row and entry. Most pairs are built so that once the fact is established both games
hold the very same cards everywhere, are played on by the same deterministic chooser, and
differ in nothing else: on the v0 encoder their observations would be identical from then on.

The base hand (4 players, dealer 3, so seat 0 leads; cards after the pass):
seat 0 holds A8-4 B8-5 C8-5 8G and wins every trick by leading its highest card (nobody
upgrades); seat 1 holds A1-3 B1-4 C1-4 D2-3, seat 2 D4-8 E2-8 1F, seat 3 F2-8 G2-7; the cards
1D, 1E and 1G are given to seats 1, 2 and 3 in an order each pair chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cahoots_envs import kansas_city_v1
from cahoots_envs.games.kansas_city.rules import parse_card
from tests.scenario import views

A, G = 0, 6  # suit indices
OBSERVER = 3  # sees seat 0 as relative 1, seat 1 as 2, seat 2 as 3


def rel(seat: int, observer: int = OBSERVER) -> int:
    return (seat - observer) % 4


def run_of(suit: str, ranks: range | list[int]) -> list[str]:
    return [f"{r}{suit}" for r in ranks]


AFTER_PASS = [
    run_of("A", range(8, 3, -1)) + run_of("B", range(8, 4, -1)) + run_of("C", range(8, 4, -1)) + ["8G"],
    run_of("A", range(1, 4)) + run_of("B", range(1, 5)) + run_of("C", range(1, 5)) + ["2D", "3D"],
    run_of("D", range(4, 9)) + run_of("E", range(2, 9)) + ["1F"],
    run_of("F", range(2, 9)) + run_of("G", range(2, 8)),
]
# the cards each seat passes to its left neighbour (they are in that neighbour's hand above)
PASSES = [["1A", "2A", "3A"], ["4D", "5D", "6D"], ["2F", "3F", "4F"], ["4A", "5B", "5C"]]


def make_deal(pool: tuple[str, str, str], passes: list[list[str]] = PASSES) -> dict[str, Any]:
    """The deal giving the base hand after ``passes``, with ``pool`` to seats 1, 2 and 3."""
    after = [list(AFTER_PASS[0])] + [AFTER_PASS[s] + [pool[s - 1]] for s in (1, 2, 3)]
    hands = []
    for s in range(4):
        held = [c for c in after[s] if c not in passes[(s - 1) % 4]] + passes[s]
        hands.append(held)
    return {"dealer": 3, "hands": hands}


def new_env(pool: tuple[str, str, str], passes: list[list[str]] = PASSES, **options: Any) -> Any:
    env = kansas_city_v1.env(hands=1, **options)
    env.reset(seed=0, options={"deal": make_deal(pool, passes)})
    for s in range(4):
        play(env, f"pass {' '.join(passes[s])}")
    return env


def play(env: Any, *texts: str) -> None:
    for text in texts:
        env.step(env.unwrapped.str_to_action(text))


def choose(env: Any) -> int:
    """Nobody upgrades; a leader plays its highest card (lowest suit first), a follower its
    lowest legal card (face cards before trumps)."""
    game = env.unwrapped.game
    legal = game.legal_actions()
    if game.phase == "upgrade":
        return game.no_upgrade
    if game.phase == "play" and not game.trick:
        faces = [a for a in legal if a < game.trump_base]
        if faces:
            return max(faces, key=lambda a: ((a - game.play_base) % 8, -a))
    return legal[0]


def differing(a: Any, b: Any, observer: int = OBSERVER) -> set[str]:
    va, vb = views(a, observer), views(b, observer)
    return {name for name in va if not np.array_equal(va[name], vb[name])}


def lockstep(a: Any, b: Any, check: Callable[[int, set[str]], None]) -> int:
    """Play both games on with the same choices to the end of the hand, calling
    ``check(tricks completed, differing segments)`` before every decision; returns the number
    of decisions checked."""
    ga, gb = a.unwrapped.game, b.unwrapped.game
    checked = 0
    while not ga.is_over:
        assert not gb.is_over
        check(ga.tricks_played, differing(a, b))
        checked += 1
        action = choose(a)
        assert action == choose(b), "the two games should go on identically"
        a.step(action)
        b.step(action)
    assert gb.is_over
    return checked


def each_later_decision(env: Any, check: Callable[[dict[str, np.ndarray]], None]) -> int:
    game = env.unwrapped.game
    checked = 0
    while not game.is_over:
        check(views(env, OBSERVER))
        checked += 1
        env.step(choose(env))
    return checked


def card_row(*cards: str) -> list[int]:
    row = [0] * 56
    for c in cards:
        row[parse_card(c)] = 1
    return row


# ---- known voids (persistent) ----------------------------------------------------------------

def test_a_failure_to_follow_is_a_known_void_for_the_rest_of_the_hand() -> None:
    """Seat 0 leads 8G. In game a seat 1 follows with 1G and seat 2 cannot (it plays 1D); in
    game b seat 1 holds 1D instead and cannot follow, seat 2 follows with 1G. After the trick
    both games hold the same cards everywhere, and G is never led again."""
    a, b = new_env(("1G", "1D", "1E")), new_env(("1D", "1G", "1E"))
    play(a, "play 8G", "play 1G")
    play(b, "play 8G", "play 1D")
    assert "voids" in differing(a, b)  # the next decision: b's seat 1 has shown its void
    assert views(b, OBSERVER)["voids"][rel(1)].tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert views(a, OBSERVER)["voids"].sum() == 0
    play(a, "play 1D", "play 2G")
    play(b, "play 1G", "play 2G")
    va, vb = views(a, OBSERVER)["voids"], views(b, OBSERVER)["voids"]
    assert va[rel(2)].tolist() == vb[rel(1)].tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert va.sum() == vb.sum() == 1  # seat 3 (the observer) followed; seat 0 led

    def check(tricks: int, diff: set[str]) -> None:
        # the trick's plays by seat, and while it is the last trick, the trick itself
        assert diff == {"voids", "played_by"} | ({"last_trick"} if tricks == 1 else set())
        assert views(a, OBSERVER)["voids"][rel(2), G] == 1 and views(a, OBSERVER)["voids"][rel(1), G] == 0
        assert views(b, OBSERVER)["voids"][rel(1), G] == 1 and views(b, OBSERVER)["voids"][rel(2), G] == 0

    assert lockstep(a, b, check) > 50


def test_a_seat_whose_only_cards_of_the_led_suit_are_upgraded_is_void_k9() -> None:
    """Seat 1 upgrades 3A, follows 8A with 1A, upgrades 2A: its 2A and 3A are trumps only, so
    on the 7A lead it may play any card, and shows a void in A."""
    env = new_env(("1D", "1E", "1G"))
    play(env, "play 8G", "play 1D", "play 1E", "play 1G", "upgrade 3A", "no upgrade", "no upgrade")
    play(env, "play 8A", "play 1A", "play 4D", "play 2F", "upgrade 2A", "no upgrade", "no upgrade")
    play(env, "play 7A")
    assert "play 1B" in env.unwrapped.game.legal_strings()
    assert views(env, OBSERVER)["voids"][rel(1)].tolist() == [0, 0, 0, 0, 0, 0, 1]  # G only
    play(env, "play 1B")
    voids = views(env, OBSERVER)["voids"]
    assert voids[rel(1)].tolist() == [1, 0, 0, 0, 0, 0, 1]  # G from trick 1, A now
    assert voids[rel(0)].sum() == 0


# ---- face cards played, per seat (persistent) ------------------------------------------------

def test_the_face_cards_each_seat_played_stay_visible_by_seat() -> None:
    """Seats 1 and 2 discard 1D and 1E to the 8G lead, each the other's card in game b: the
    cards played are the same and after the trick every hand is the same; only who played which
    differs, for the rest of the hand."""
    a, b = new_env(("1D", "1E", "1G")), new_env(("1E", "1D", "1G"))
    play(a, "play 8G", "play 1D", "play 1E", "play 1G")
    play(b, "play 8G", "play 1E", "play 1D", "play 1G")
    va = views(a, OBSERVER)["played_by"]
    assert va[rel(0)].tolist() == card_row("8G")
    assert va[rel(1)].tolist() == card_row("1D")
    assert va[rel(2)].tolist() == card_row("1E")
    assert va[rel(3)].tolist() == card_row("1G")
    assert views(b, OBSERVER)["played_by"][rel(1)].tolist() == card_row("1E")

    def check(tricks: int, diff: set[str]) -> None:
        assert diff == {"played_by"} | ({"last_trick"} if tricks == 1 else set())
        assert views(a, OBSERVER)["played_by"][rel(1), parse_card("1D")] == 1
        assert views(b, OBSERVER)["played_by"][rel(2), parse_card("1D")] == 1

    assert lockstep(a, b, check) > 50


# ---- trump ranks played, per seat (persistent), the last trick, its winner, the next leader --

def trump_games() -> tuple[Any, Any]:
    """After trick 1, game a: seat 2 upgrades 2E and trumps trick 2 with it (seat 3 discards
    2F); game b: seat 3 upgrades 2F and trumps with it (seat 2 discards 2E)."""
    a, b = new_env(("1D", "1E", "1G")), new_env(("1D", "1E", "1G"))
    for env in (a, b):
        play(env, "play 8G", "play 1D", "play 1E", "play 1G", "no upgrade")
    play(a, "upgrade 2E", "no upgrade", "play 8A", "play 1A", "play 2T", "play 2F")
    play(b, "no upgrade", "upgrade 2F", "play 8A", "play 1A", "play 2E", "play 2T")
    return a, b


def test_the_trump_ranks_each_seat_played_stay_visible_by_seat() -> None:
    a, b = trump_games()
    for env, trumper in ((a, 2), (b, 3)):
        v = views(env, OBSERVER)
        expected = np.zeros((4, 8))
        expected[rel(trumper), 1] = 1
        assert (v["trumps_played_by"] == expected).all()
        assert v["played_by"][rel(trumper)].tolist() == card_row("1E" if trumper == 2 else "1G")
    assert "trumps_played_by" in differing(a, b)

    def check(trumper: int) -> Callable[[dict[str, np.ndarray]], None]:
        def inner(v: dict[str, np.ndarray]) -> None:
            assert v["trumps_played_by"][rel(trumper), 1] == 1
            assert v["trumps_played_by"][rel(5 - trumper), 1] == 0

        return inner

    assert each_later_decision(a, check(2)) > 40
    assert each_later_decision(b, check(3)) > 40


def test_the_last_trick_its_leader_and_winner_and_the_next_leader() -> None:
    a, b = trump_games()
    # the next decision is the upgrade step after trick 2: seat 2 (a) or seat 3 (b) won it
    for env, winner in ((a, 2), (b, 3)):
        game = env.unwrapped.game
        assert game.phase == "upgrade" and game.current_player != winner
        v = views(env, OBSERVER)
        last = v["last_trick"]
        assert last[rel(0)].tolist() == card_row("8A") + [0] * 8
        assert last[rel(1)].tolist() == card_row("1A") + [0] * 8
        trump_row = [0] * 56 + [0, 1, 0, 0, 0, 0, 0, 0]  # rank 2 only: never the face 2E or 2F
        assert last[rel(winner)].tolist() == trump_row
        assert last[rel(5 - winner)].tolist() == card_row("2F" if winner == 2 else "2E") + [0] * 8
        assert v["last_trick_leader"].tolist() == np.eye(4)[rel(0)].tolist()
        assert v["last_trick_winner"].tolist() == np.eye(4)[rel(winner)].tolist()
        assert v["next_leader"].tolist() == np.eye(4)[rel(winner)].tolist()
        assert v["trick"].sum() == 0 and v["trick_leader"].sum() == 0
    assert {"last_trick", "last_trick_winner", "next_leader"} <= differing(a, b)
    # the winner leads: while the trick is in progress next_leader stays on its leader
    while a.unwrapped.game.phase == "upgrade":
        assert views(a, OBSERVER)["next_leader"].tolist() == np.eye(4)[rel(2)].tolist()
        play(a, "no upgrade")
    assert a.unwrapped.game.phase == "play" and a.agent_selection == "player_2"
    assert views(a, OBSERVER)["next_leader"].tolist() == np.eye(4)[rel(2)].tolist()
    a.step(choose(a))
    assert views(a, OBSERVER)["next_leader"].tolist() == np.eye(4)[rel(2)].tolist()
    # the last trick is still trick 2 until trick 3 is completed
    assert views(a, OBSERVER)["last_trick"][rel(2), 56 + 1] == 1


def test_next_leader_in_the_pass_phase_is_the_dealers_left() -> None:
    env = kansas_city_v1.env(hands=1)
    env.reset(seed=0, options={"deal": make_deal(("1D", "1E", "1G"))})
    for seat in range(4):
        v = views(env, seat)
        assert v["next_leader"].tolist() == np.eye(4)[(0 - seat) % 4].tolist()  # dealer 3
        assert v["last_trick"].sum() == 0 and v["last_trick_winner"].sum() == 0


# ---- ranks passed (persistent) -----------------------------------------------------------------

def test_the_ranks_each_seat_passed_stay_visible() -> None:
    """Seat 1 passes 4D 5D 6D (a) or 4D 5D 7D (b); in b seat 1 was dealt 7D and seat 2 6D, so
    after the exchange both games hold the same cards everywhere."""
    other = [list(p) for p in PASSES]
    other[1] = ["4D", "5D", "7D"]
    a, b = new_env(("1D", "1E", "1G")), new_env(("1D", "1E", "1G"), other)
    v = views(a, OBSERVER)["passed_ranks"]
    assert v[rel(1)].tolist() == [0, 0, 0, 1, 1, 1, 0, 0]
    assert v[rel(0)].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    assert v[rel(2)].tolist() == [0, 1, 1, 1, 0, 0, 0, 0]
    assert v[rel(3)].tolist() == [0, 0, 0, 1, 2, 0, 0, 0]  # the observer's own 4A 5B 5C
    assert views(b, OBSERVER)["passed_ranks"][rel(1)].tolist() == [0, 0, 0, 1, 1, 0, 1, 0]

    def check(tricks: int, diff: set[str]) -> None:
        assert diff == {"passed_ranks"}

    assert lockstep(a, b, check) > 50


def test_a_pass_is_private_until_the_exchange() -> None:
    env = kansas_city_v1.env(hands=1)
    env.reset(seed=0, options={"deal": make_deal(("1D", "1E", "1G"))})
    play(env, "pass 1A 2A 3A")
    assert views(env, 0)["passed_ranks"][0].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    for seat in (1, 2, 3):
        assert views(env, seat)["passed_ranks"].sum() == 0


# ---- hand sizes ------------------------------------------------------------------------------

def test_hand_sizes_count_the_cards_in_hand_not_the_trumps() -> None:
    a, b = new_env(("1D", "1E", "1G"), card_backs="hidden"), new_env(("1D", "1E", "1G"), card_backs="hidden")
    for env in (a, b):
        assert views(env, OBSERVER)["hand_size"].tolist() == [14] * 4
        play(env, "play 8G", "play 1D", "play 1E", "play 1G", "no upgrade")
    play(a, "upgrade 2E")
    play(b, "no upgrade")
    # the next decision: seat 3's upgrade choice
    assert views(a, OBSERVER)["hand_size"].tolist() == [13, 13, 13, 12]
    assert views(b, OBSERVER)["hand_size"].tolist() == [13, 13, 13, 13]
    assert views(a, OBSERVER)["hand_ranks"][1:].sum() == 0  # hidden backs: sizes only


# ---- the end of the game and of a hand ----------------------------------------------------------

def test_no_phase_no_one_to_move_and_no_leader_once_the_game_is_over() -> None:
    env = new_env(("1D", "1E", "1G"))
    each_later_decision(env, lambda v: None)
    for seat in range(4):
        v = views(env, seat)
        assert v["phase"].sum() == 0 and v["to_move"].sum() == 0 and v["next_leader"].sum() == 0
        assert v["last_trick_winner"].tolist() == np.eye(4)[(0 - seat) % 4].tolist()


def test_the_last_trick_of_a_hand_is_shown_at_the_next_hands_first_decision() -> None:
    env = kansas_city_v1.env(hands=2)
    env.reset(seed=0, options={"deal": make_deal(("1D", "1E", "1G"))})
    game = env.unwrapped.game
    while game.hand_number == 0:
        env.step(choose(env))
    assert game.phase == "pass"
    last = game.last_trick
    v = views(env, int(env.agent_selection.rsplit("_", 1)[1]))
    assert v["last_trick"].sum() == 4 and v["last_trick_winner"].sum() == 1
    seat = game.current_player
    for s, card, is_trump in last:
        assert v["last_trick"][(s - seat) % 4, 56 + (card & 7) if is_trump else card] == 1
    # the new hand's history starts empty
    assert v["played_by"].sum() == 0 and v["voids"].sum() == 0 and v["trumps_played_by"].sum() == 0


# ---- card_backs="hidden" -----------------------------------------------------------------------

def test_hidden_backs_show_only_your_own_ranks_and_the_passes_you_took_part_in() -> None:
    env = new_env(("1D", "1E", "1G"), card_backs="hidden")
    ranked = new_env(("1D", "1E", "1G"))
    for seat in range(4):
        v, r = views(env, seat), views(ranked, seat)
        assert v["hidden_backs"].tolist() == [1] and r["hidden_backs"].tolist() == [0]
        assert (v["hand_ranks"][0] == r["hand_ranks"][0]).all() and v["hand_ranks"][0].sum() == 14
        assert v["hand_ranks"][1:].sum() == 0 and r["hand_ranks"][1:].sum() == 42
        # your own pass and your right neighbour's (you received it); no others
        assert (v["passed_ranks"][[0, 3]] == r["passed_ranks"][[0, 3]]).all()
        assert v["passed_ranks"][[0, 3]].sum() == 6 and v["passed_ranks"][1:3].sum() == 0
        assert (v["hand_size"] == r["hand_size"]).all()
        # everything else is the same as with ranked backs
        assert differing(env, ranked, seat) == {"hidden_backs", "hand_ranks", "passed_ranks"}


def test_with_hidden_backs_a_pass_between_others_is_private() -> None:
    other = [list(p) for p in PASSES]
    other[1] = ["4D", "5D", "7D"]
    a = new_env(("1D", "1E", "1G"), card_backs="hidden")
    b = new_env(("1D", "1E", "1G"), other, card_backs="hidden")
    assert differing(a, b, 3) == set() and differing(a, b, 0) == set()
    # seat 2 received the pass: it sees its ranks (and faces)
    assert differing(a, b, 2) == {"passed_ranks", "received"}
    assert views(b, 2)["passed_ranks"][3].tolist() == [0, 0, 0, 1, 1, 0, 1, 0]
