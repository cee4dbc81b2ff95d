"""Search with value leaves (the ``leaf`` setting): rollouts that stop at the searching seat's
next turns and ask the blueprint's value head. A head that knows a position's values exactly
gives the search exactly those values and the move they pick, on both rollout paths; leaves
past the hand's end change nothing; the setting's errors are one clear line."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.policies.network import ValueHead
from cahoots_envs.search import Infoset, SearchPolicy, parse_search_spec
from tests.search_checks import record_game

pytest.importorskip("numba")

KC = "kansas_city-v1"
OPTIONS = {"num_players": 4, "hands": 1}


def _network(head: ValueHead | None = None) -> Any:
    policy = cahoots_envs.load_policy("zoo:kansas_city", KC, OPTIONS)
    return policy.with_value_head(head)


def _mid_hand_position() -> tuple[Any, dict[str, Any]]:
    """A decision of a seeded heuristic game where the seat plays one of 3+ cards with at least
    two more turns of its own to come in the hand (no rollout ends the hand before its next
    turn)."""
    spec = cahoots_envs.game_spec(KC)
    options = spec.resolve_options(OPTIONS)
    games, _ = record_game(KC, options, 5)
    for game in games:
        legal = game.legal_actions() if not game.is_over else []
        texts = [game.action_to_str(a) for a in legal]
        if len(legal) >= 3 and all(t.startswith("play") for t in texts) and \
                int(game.hands[game.current_player]).bit_count() >= 4:
            return game, options
    raise AssertionError("no mid-hand position in the recorded game")


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("rollout", ["heuristic", "blueprint"])
def test_a_head_that_knows_the_values_gives_the_exact_answer(engine: str, rollout: str) -> None:
    """The head scores the seat's hand card by card (its weights on the observation's ``hand``
    segment): at the seat's next turn its hand is its hand now less the card it plays, in every
    world and whatever the others play, so the head knows each move's value exactly. The
    search's values are those, in every world, and it plays the move they pick."""
    game, options = _mid_hand_position()
    spec = cahoots_envs.game_spec(KC)
    layout = spec.layout(options)
    seat = game.current_player
    info = Infoset(game, seat, spec, options)
    card_weights = np.random.default_rng(1).uniform(0.0, 0.1, layout.segment("hand").size)
    w = np.zeros((1, layout.size), np.float32)
    start = layout.offsets["hand"]
    w[0, start : start + len(card_weights)] = card_weights
    head = ValueHead([(w, np.array([-0.2], np.float32))], input="observation")
    bot = SearchPolicy(KC, options, blueprint=_network(head), blueprint_name="kc+value",
                       seed=3, worlds=4, max_worlds=4, search_all=True, leaf=1,
                       engine=engine, rollout=rollout)
    move = bot.act_infoset(info)
    assert bot.path == engine and bot.last_search is not None
    legal, values = bot.last_search
    now = info.observation[start : start + len(card_weights)].astype(np.float64)
    exact = []
    for a in legal:
        after = game.clone()
        after.apply(a)
        hand = np.zeros(layout.size, np.float32)
        while after.current_player != seat:  # any others' moves: they leave the seat's hand
            after.apply(after.legal_actions()[0])
        after.encode(seat, hand)
        played = now - hand[start : start + len(card_weights)]
        assert played.sum() == 1  # exactly the card played left the hand
        exact.append(float((now - played) @ card_weights) - 0.2)
    np.testing.assert_allclose(values, np.tile(exact, (len(values), 1)), atol=1e-5)
    assert move == legal[int(np.argmax(exact))]


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_leaves_past_the_hands_end_change_nothing(engine: str) -> None:
    game, options = _mid_hand_position()
    spec = cahoots_envs.game_spec(KC)
    rng = np.random.default_rng(2)
    size = spec.layout(options).size
    head = ValueHead([(rng.normal(0, 0.01, (1, size)).astype(np.float32),
                       np.zeros(1, np.float32))], input="observation")
    found = []
    for leaf in (0, 1000):
        bot = SearchPolicy(KC, options, blueprint=_network(head), blueprint_name="kc+value",
                           seed=3, worlds=3, max_worlds=3, search_all=True, leaf=leaf,
                           engine=engine, rollout="heuristic")
        bot.act_infoset(Infoset(game, game.current_player, spec, options))
        assert bot.last_search is not None
        found.append(bot.last_search[1])
    np.testing.assert_allclose(found[0], found[1], atol=1e-6)


def test_value_leaves_give_the_same_values_on_both_paths() -> None:
    """A head with random weights over the whole observation, leaves at the seat's second turn:
    the engine's lockstep rows and the reference rollouts meet the same observations."""
    game, options = _mid_hand_position()
    spec = cahoots_envs.game_spec(KC)
    rng = np.random.default_rng(4)
    net = _network()
    width = net.features(np.zeros((1, net.input_size), np.float32)).shape[1]
    head = ValueHead([(rng.normal(0, 0.2, (1, width)).astype(np.float32),
                       np.zeros(1, np.float32))])
    found = []
    for engine in ("reference", "batched"):
        bot = SearchPolicy(KC, options, blueprint=_network(head), blueprint_name="kc+value",
                           seed=3, worlds=3, max_worlds=3, search_all=True, leaf=2,
                           engine=engine)
        bot.act_infoset(Infoset(game, game.current_player, spec, options))
        assert bot.last_search is not None
        found.append(bot.last_search[1])
    assert np.ptp(found[0]) > 0
    np.testing.assert_allclose(found[0], found[1], atol=1e-5)


def test_leaf_errors_are_one_clear_line() -> None:
    with pytest.raises(ValueError, match="needs a blueprint network with a value head"):
        cahoots_envs.load_policy("search@leaf=1:heuristic", KC)
    with pytest.raises(ValueError, match="needs a blueprint network with a value head"):
        cahoots_envs.load_policy("search@leaf=1:zoo:kansas_city", KC)
    with pytest.raises(ValueError, match=r"leaf is a whole number >= 0 and <= 1000"):
        parse_search_spec("search@leaf=-1:heuristic")
    assert parse_search_spec("search@leaf=2:zoo:kansas_city") == ({"leaf": 2},
                                                                  "zoo:kansas_city")


@pytest.mark.parametrize(("target", "refused"), [
    ("discounted return, gamma=0.995, reward_mode=points, reward_scale=1.0", True),
    ("discounted return, gamma=0.995, reward_mode=win, reward_scale=0.5", True),
    ("discounted return, gamma=0.995, reward_mode=win, reward_scale=1.0", False),
    (None, False),
])
def test_leaves_refuse_a_head_on_another_scale(target: str | None, refused: bool) -> None:
    """A PPO run's critic saved as a head names its scale (``target``); value leaves read the
    win-scale outcome, so a head on points or another reward scale is refused in one line."""
    layout = cahoots_envs.game_spec(KC).layout(
        cahoots_envs.game_spec(KC).resolve_options(OPTIONS))
    head = ValueHead([(np.zeros((1, layout.size), np.float32), np.zeros(1, np.float32))],
                     input="observation", target=target)
    make = lambda: SearchPolicy(KC, OPTIONS, blueprint=_network(head),
                                blueprint_name="kc+critic", seed=3, leaf=1)
    if refused:
        with pytest.raises(ValueError, match=r"^search setting leaf reads a value head as the "
                                             r"game's outcome on the win scale, but kc\+critic's"):
            make()
    else:
        assert make().settings["leaf"] == 1

