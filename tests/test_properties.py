"""Property tests (hypothesis): any text, any option value, any deal shape gets either a result or
a ValueError that says what is wrong; never another exception, never a half-changed env."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cahoots_envs.registry import GAMES
from tests.conftest import make_env

GAME_NAMES = list(GAMES)
ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 200), st.floats(allow_nan=True),
    st.text(max_size=12), st.lists(st.integers(0, 9), max_size=4),
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(game=st.sampled_from(GAME_NAMES), text=st.text(max_size=30), steps=st.integers(0, 40))
def test_any_text_is_an_action_or_a_clear_value_error(game: str, text: str, steps: int) -> None:
    env = make_env(game)
    env.reset(seed=steps)
    rng = np.random.default_rng(steps)
    for _ in range(steps):
        if env.unwrapped.game.is_over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    if env.unwrapped.game.is_over:
        return
    try:
        action = env.unwrapped.str_to_action(text)
    except ValueError as err:
        assert "legal" in str(err)
    else:
        assert env.observe(env.agent_selection)["action_mask"][action] == 1


@SETTINGS
@given(game=st.sampled_from(GAME_NAMES), data=st.data())
def test_any_option_value_is_accepted_or_refused_by_name(game: str, data: Any) -> None:
    cls = make_env(game).game_cls
    option = data.draw(st.sampled_from([o.name for o in cls.OPTIONS.options]))
    value = data.draw(ANY_VALUE)
    try:
        env = make_env(game, **{option: value})
    except ValueError as err:
        assert option in str(err) and "accepts" in str(err)
    else:
        assert env.unwrapped.options[option] == value


@SETTINGS
@given(game=st.sampled_from(GAME_NAMES), key=st.sampled_from(["hands", "dealer", "start_player"]),
       value=ANY_VALUE)
def test_any_deal_value_is_used_or_refused_without_changing_the_env(
    game: str, key: str, value: Any
) -> None:
    env = make_env(game)
    env.reset(seed=1)
    before = env.observe(env.agent_selection)["observation"].copy(), env.agent_selection
    try:
        env.reset(options={"deal": {key: value}})
    except ValueError:
        after = env.observe(env.agent_selection)["observation"], env.agent_selection
        assert np.array_equal(before[0], after[0]) and before[1] == after[1]


@settings(max_examples=300, deadline=None)
@given(label=st.text(alphabet=" :xy", max_size=8),
       text=st.text(alphabet="ab -1T|,\t\n\xa0", max_size=90),
       width=st.sampled_from([10, 30, 80]))
def test_wrap_is_the_standard_librarys_hanging_indent(label: str, text: str, width: int) -> None:
    """``core.text.wrap`` (the seat views' lines) gives what ``textwrap`` gives, its shortcut for
    a line that fits included."""
    import textwrap

    from cahoots_envs.core.text import wrap

    want = textwrap.wrap(text or "-", width=width, initial_indent=label,
                         subsequent_indent=" " * len(label), break_on_hyphens=False) or [label.rstrip()]
    assert wrap(label, text, width) == want
