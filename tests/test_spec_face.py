"""One face per game: the spec's members are what a game reaches (``game.face``), nothing is
bound on the rules class, the members' protocols (``core/face.py``) are checked when a spec is
built, each layout's env id is the spec's, and each text's notation words cover its moves."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.core.game import Game
from cahoots_envs.core.spec import TEXT_MEMBERS, WORLD_SAMPLER_MEMBERS, GameSpec
from cahoots_envs.errors import GameSpecError
from cahoots_envs.registry import GAMES


def _text_with(text: Any, **changed: Any) -> SimpleNamespace:
    """A text member like ``text`` but for ``changed`` (every protocol member kept)."""
    return SimpleNamespace(**{**{m: getattr(text, m) for m in TEXT_MEMBERS}, **changed})


def test_a_second_spec_over_the_same_rules_changes_nothing_of_the_first() -> None:
    first = cahoots_envs.game_spec("kansas_city")
    rules = first.rules
    before = dict(vars(rules))
    second = dataclasses.replace(first, text=_text_with(first.text, render=lambda game: "other"),
                                 encoder=SimpleNamespace(build_layout=first.encoder.build_layout,
                                                         encode=lambda game, seat, out: None))
    assert dict(vars(rules)) == before  # building a spec binds nothing on the rules class
    assert not any(hasattr(Game, name) for name in ("bind", "_encoder", "_text", "encoder", "text"))
    options = first.resolve_options({})
    mine = first.new_game(options, np.random.default_rng(0))
    theirs = second.new_game(options, np.random.default_rng(0))
    direct = rules(options, np.random.default_rng(0), None)  # built directly: the registered spec
    assert mine.face is first and theirs.face is second and direct.face is first
    assert theirs.render() == "other" and mine.render() == direct.render() != "other"
    size = first.layout(options).size
    seen = {}
    for name, game in (("mine", mine), ("theirs", theirs), ("direct", direct)):
        seen[name] = np.zeros(size, np.float32)
        game.encode(0, seen[name])
    assert seen["mine"].any() and not seen["theirs"].any()
    assert np.array_equal(seen["mine"], seen["direct"])
    assert mine.clone().face is first and theirs.clone().face is second  # copies keep theirs
    env = cahoots_envs.make_raw("kansas_city", render_mode="ansi")
    env.reset(seed=0)
    assert env.game.face is first and env.render() != "other"


def test_a_subclass_of_a_registered_game_finds_its_face() -> None:
    spec = cahoots_envs.game_spec("texas_euchre")

    class Double(spec.rules):  # type: ignore[misc, name-defined]
        pass

    game = Double(spec.resolve_options({}), np.random.default_rng(1), None)
    assert game.face is spec and Double.layout(spec.resolve_options({})) == spec.layout(
        spec.resolve_options({}))


@pytest.mark.parametrize("member", ["final_summary", "VERBS", "NOT_CARDS", "summarise_moves"])
def test_a_text_lacking_a_member_is_refused_in_one_line(member: str) -> None:
    spec = cahoots_envs.game_spec("cahoots_coop")
    text = _text_with(spec.text)
    delattr(text, member)
    with pytest.raises(GameSpecError) as refused:
        dataclasses.replace(spec, text=text)
    assert str(refused.value) == (f"GameSpec for cahoots_coop: lacks required member(s): "
                                  f"text.{member}")


def test_every_world_sampler_member_is_checked() -> None:
    spec = cahoots_envs.game_spec("kansas_city")
    assert spec.world_sampler is not None
    assert "DEFAULTS" in WORLD_SAMPLER_MEMBERS
    for member in WORLD_SAMPLER_MEMBERS:
        sampler = SimpleNamespace(**{m: getattr(spec.world_sampler, m)
                                     for m in WORLD_SAMPLER_MEMBERS if m != member})
        with pytest.raises(GameSpecError, match=rf"lacks required member\(s\): "
                                                rf"world_sampler\.{member}$"):
            dataclasses.replace(spec, world_sampler=sampler)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_layout_carries_the_specs_env_id(game: str) -> None:
    spec = cahoots_envs.game_spec(game)
    for n in spec.rules.PLAYER_COUNTS:
        assert spec.encoder.build_layout(n).env_id == spec.env_id  # the encoder's own is it too
        assert spec.layout({"num_players": n}).env_id == spec.env_id


def test_a_spec_over_renamed_rules_has_its_own_layout_id() -> None:
    base = cahoots_envs.game_spec("high_card")
    rules = type("renamed_game", (base.rules,), {"NAME": "renamed_game", "VERSION": 2,
                                                  "VERSION_NOTES": {1: "a", 2: "b"}})
    spec = dataclasses.replace(base, rules=rules)
    layout = spec.layout({"num_players": 2})
    assert isinstance(spec, GameSpec) and layout.env_id == "cahoots_envs/renamed_game-v2"
    assert layout.segments == base.layout({"num_players": 2}).segments


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_texts_verbs_cover_its_moves(game: str) -> None:
    """Every legal move begins with one of the text's ``VERBS`` (its kind one of three), in a
    random game: ``cahoots play`` knows the notation from the game alone."""
    spec = cahoots_envs.game_spec(game)
    verbs, other = dict(spec.text.VERBS), set(spec.text.NOT_CARDS)
    assert set(verbs.values()) <= {"cards", "hand", "word"} and verbs
    assert all(v == v.lower() for v in verbs) and all(w == w.upper() for w in other)
    env = cahoots_envs.make_raw(game)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if env.game.is_over:
            break
        for move in env.game.legal_strings():
            assert move.split()[0] in verbs, (game, move)
        env.step(int(rng.choice(env.legal_actions())))
