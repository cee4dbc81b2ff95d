"""Terminal views show one seat only what it may see, in at most 80 columns.

The leak check is the shared leak test's technique: ``game.resample_hidden(seat, rng)`` re-deals
every card the seat cannot see, and the seat's view text must not change."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.cli.views import WIDTH, public_action, seat_view
from tests.conftest import CASES, case_id


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_view_leaks_nothing_and_fits_80_columns(case: tuple[str, dict[str, Any]]) -> None:
    game_name, options = case
    rng = np.random.default_rng(1)
    changed = checked = 0
    for seed in range(2):
        env = cahoots_envs.make_raw(game_name, **options)
        env.reset(seed=seed)
        n = len(env.possible_agents)
        step = 0
        while not env.game.is_over:
            game = env.game
            if step % 5 == 0:
                for seat in range(n):
                    view = seat_view(game, seat)
                    assert max(len(line) for line in view.splitlines()) <= WIDTH, view
                    for _ in range(2):
                        twin = game.resample_hidden(seat, rng)
                        checked += 1
                        changed += twin.render() != game.render()
                        assert seat_view(twin, seat) == view
            env.step(int(rng.choice(env.legal_actions())))
            step += 1
        for seat in range(n):
            assert max(len(line) for line in seat_view(env.game, seat).splitlines()) <= WIDTH
    assert checked and changed, "resampling never moved a card: the check would prove nothing"


def test_kansas_city_views_show_ranks_of_others_and_own_cards() -> None:
    env = cahoots_envs.make_raw("kansas_city")
    env.reset(seed=4)
    view = seat_view(env.game, 0)
    from cahoots_envs.games.kansas_city.rules import card_str

    own = [card_str(c) for c in range(56) if env.game.hands[0] >> c & 1]
    other = [card_str(c) for c in range(56) if env.game.hands[1] >> c & 1]
    assert all(c in view for c in own)
    row = next(line for line in view.splitlines() if "player_1 " in line)
    assert not any(c in row for c in other)


def test_public_action_hides_kansas_city_passes_and_upgrade_faces() -> None:
    env = cahoots_envs.make_raw("kansas_city")
    env.reset(seed=2)
    game = env.game
    a = env.legal_actions()[0]
    viewer = (game.current_player + 1) % 4
    assert public_action(game, a, viewer) == "pass 3 cards"
    assert public_action(game, a, game.current_player).startswith("pass ")
    rng = np.random.default_rng(0)
    while game.phase != "upgrade":
        env.step(int(rng.choice(env.legal_actions())))
        game = env.game
    up = next(a for a in env.legal_actions() if game.action_to_str(a).startswith("upgrade"))
    text = public_action(game, up, (game.current_player + 1) % 4)
    assert text.startswith("upgrade a card to ") and text.endswith("T")
    assert game.action_to_str(up).split()[1] not in text
