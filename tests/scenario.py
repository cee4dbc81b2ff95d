"""Scenario tables, shared by the games' rule tests.

A table is a list of ``(seat, action text[, expected])`` rows played through an env in the
notation. ``expected`` is ``"illegal"`` (the text must be refused, naming the legal moves, and
nothing is played) or a dict of facts checked after the row: ``legal`` (the sorted legal texts),
``to_move`` (a seat), ``phase``, and any fact of the game's own ``facts`` mapping
(name -> ``check(env, value) -> bool``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

Facts = Mapping[str, Callable[[Any, Any], bool]]


def legal(env: Any) -> list[str]:
    """The legal moves of the agent to move, in the notation, sorted."""
    mask = env.observe(env.agent_selection)["action_mask"]
    return sorted(env.unwrapped.action_to_str(int(a)) for a in np.flatnonzero(mask))


def views(env: Any, seat: int) -> dict[str, np.ndarray]:
    """``seat``'s observation through the layout's named views."""
    obs = env.observe(f"player_{seat}")["observation"]
    return env.unwrapped.layout.views(obs)


def run_table(env: Any, table: list[tuple], facts: Facts | None = None) -> None:
    facts = facts or {}
    for row in table:
        seat, text = row[0], row[1]
        expected = row[2] if len(row) > 2 else None
        assert env.agent_selection == f"player_{seat}", f"before {text!r}: {env.agent_selection} to move"
        if expected == "illegal":
            with pytest.raises(ValueError, match="legal"):
                env.unwrapped.str_to_action(text)
            assert text not in legal(env)
            continue
        action = env.unwrapped.str_to_action(text)
        assert env.observe(env.agent_selection)["action_mask"][action], (
            f"{text!r} should be legal; legal: {legal(env)}"
        )
        env.step(action)
        for fact, value in (expected or {}).items():
            where = f"after {text!r}: {fact}"
            if fact == "legal":
                assert legal(env) == sorted(value), where
            elif fact == "to_move":
                assert env.agent_selection == f"player_{value}", where
            elif fact == "phase":
                phase = env.infos[env.agent_selection]["phase"]
                assert env.unwrapped.phase_names[phase] == value == env.unwrapped.phase, where
            elif fact in facts:
                assert facts[fact](env, value), where
            else:
                raise KeyError(f"unknown fact {fact!r}")
