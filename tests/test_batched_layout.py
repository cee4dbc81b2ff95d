"""The layout guard of the batched-engine base (``core/batched.py``): every engine declares the
observation segments its kernels write (``SEGMENTS``, in layout order) and is refused, with one
line naming the segment, when they are not the game's observation layout: a segment missing, an
extra one, or one misplaced (written at another offset than the layout's).

Every registered game with a batched engine is checked the same way, under each player count
and test variant."""

from __future__ import annotations

from typing import Any

import pytest

from cahoots_envs.core.batched import BatchedEngine, check_layout
from cahoots_envs.core.layout import Layout, Segment
from cahoots_envs.registry import game_spec
from cahoots_envs.vector.engine import engine_class
from tests.conftest import CASES, case_id, game_class

BATCHED = [c for c in CASES if game_spec(c[0]).batched is not None]
GAMES_BATCHED = sorted({game for game, _ in BATCHED})


def _build(game: str, options: dict[str, Any], cls: type[BatchedEngine] | None = None
           ) -> BatchedEngine:
    spec = game_spec(game)
    return (cls or engine_class(spec))(spec, spec.resolve_options(options), 2)


def _refusal(game: str, options: dict[str, Any], cls: type[BatchedEngine]) -> str:
    with pytest.raises(RuntimeError) as info:
        _build(game, options, cls)
    message = str(info.value)
    assert "\n" not in message
    assert f"{cls.__module__}.{cls.__qualname__}" in message  # names the engine
    return message


def _with_segments(base: type[BatchedEngine], segments: tuple[str, ...]) -> type[BatchedEngine]:
    return type("Tampered", (base,), {"SEGMENTS": segments})


@pytest.mark.parametrize("case", BATCHED, ids=[case_id(c) for c in BATCHED])
def test_every_engine_writes_its_layout(case: tuple[str, dict[str, Any]]) -> None:
    game, options = case
    try:
        engine = _build(game, options)
    except ValueError as refused:  # an option value the engine does not play, said so in one line
        named = [k for k, v in options.items() if f"does not support {k}={v!r}" in str(refused)]
        assert named, f"{game} {options}: refused for no option of the case: {refused}"
        return
    layout = engine.layout
    assert layout == game_spec(game).layout(engine.options)
    written = [s for s in type(engine).SEGMENTS if s not in engine.absent_segments()]
    assert written == [seg.name for seg in layout.segments]
    assert engine.segment_offsets == tuple(
        layout.offsets.get(name, -1) for name in type(engine).SEGMENTS)


@pytest.mark.parametrize("game", GAMES_BATCHED)
def test_missing_extra_and_misplaced_segments_are_refused(game: str) -> None:
    options = {"num_players": game_class(game).PLAYER_COUNTS[-1]}
    engine = engine_class(game_spec(game))
    segments = engine.SEGMENTS
    first, second, dropped = segments[0], segments[1], segments[len(segments) // 2]

    message = _refusal(game, options, _with_segments(engine, tuple(
        s for s in segments if s != dropped)))
    assert f"has segment {dropped!r}" in message and "(missing)" in message

    message = _refusal(game, options, _with_segments(engine, (*segments, "not_a_segment")))
    assert "writes observation segment 'not_a_segment'" in message and "(extra)" in message

    message = _refusal(game, options, _with_segments(engine, (second, first, *segments[2:])))
    assert f"writes observation segment {second!r} at offset 0" in message
    assert "(misplaced)" in message

    message = _refusal(game, options, _with_segments(engine, (first, *segments)))
    assert f"writes observation segment {first!r} twice" in message


def test_an_engine_without_segments_is_refused() -> None:
    game = GAMES_BATCHED[0]
    bare = type("Bare", (engine_class(game_spec(game)),), {"SEGMENTS": None})
    with pytest.raises(TypeError, match="must set SEGMENTS"):
        _build(game, {}, bare)


def test_coop_does_not_accept_a_missing_segment() -> None:
    """Cahoots (cooperative)'s layout has ``other_hands`` from two players on: its engine leaves
    it out with one player only, and is refused when it says otherwise either way."""
    coop = engine_class(game_spec("cahoots_coop"))
    assert _build("cahoots_coop", {"num_players": 1}).segment_offsets[1] == -1

    never_absent = type("NeverAbsent", (coop,), {"absent_segments": lambda self: frozenset()})
    message = _refusal("cahoots_coop", {"num_players": 1}, never_absent)
    env_id = game_spec("cahoots_coop").env_id
    assert f"'other_hands', which the {env_id} layout lacks (extra)" in message

    always_absent = type("AlwaysAbsent", (coop,),
                         {"absent_segments": lambda self: frozenset({"other_hands"})})
    message = _refusal("cahoots_coop", {"num_players": 2}, always_absent)
    assert "has segment 'other_hands'" in message and "(missing)" in message


def test_check_layout_compares_offsets_through_sizes() -> None:
    """Same names in another order: the first segment out of place is named with both
    offsets."""
    layout = Layout("toy-v0", (Segment("a", 2, ""), Segment("b", 3, ""), Segment("c", 1, "")))
    check_layout(layout, ["a", "b", "c"], "ToyEngine")
    with pytest.raises(RuntimeError, match=r"ToyEngine writes observation segment 'c' at offset "
                                           r"2, the toy-v0 layout has it at 5 \(misplaced\)"):
        check_layout(layout, ["a", "c", "b"], "ToyEngine")
    with pytest.raises(RuntimeError, match=r"layout has segment 'b', which ToyEngine does not "
                                           r"write \(missing\)"):
        check_layout(layout, ["a", "c"], "ToyEngine")
