"""Games as plug-ins: registering through the public API (and undoing it), entry-point discovery,
the declared face (required and optional members), and every shared tool on every registered
game, the test game ``high_card`` (``tests/plugin_game/``) included, with nothing special-cased.

The shared suite proper (api/seed tests, fuzzing, the leak test, clones, bad input, doc pages,
terminal views) runs on every registered game from ``test_shared.py`` and friends."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import warnings
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest

import cahoots_envs
from cahoots_envs import registry
from cahoots_envs.core.options import OptionSet
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.errors import GameSpecError
from cahoots_envs.gamelog import GameLog, GameRecorder, replay_log
from cahoots_envs.registry import GAMES
from tests.conftest import CASES, HIGH_CARD, case_id
from tests.test_cli import plan_human_moves

GAME_NAMES = list(GAMES)


@pytest.fixture
def scratch_registry() -> Any:
    """Leave both registries exactly as they were, whatever a test registers or removes."""
    specs, games = dict(registry._SPECS), dict(GAMES)
    pz = dict(pettingzoo.aec_registry)
    pz_parallel = dict(pettingzoo.parallel_registry)
    gym_ids = dict(gymnasium.registry)
    yield
    registry._SPECS.clear()
    registry._SPECS.update(specs)
    GAMES.clear()
    GAMES.update(games)
    pettingzoo.aec_registry.clear()
    pettingzoo.aec_registry.update(pz)
    pettingzoo.parallel_registry.clear()
    pettingzoo.parallel_registry.update(pz_parallel)
    gymnasium.registry.clear()
    gymnasium.registry.update(gym_ids)


# ---- registration ---------------------------------------------------------------------------

def test_the_test_game_is_registered_like_any_game() -> None:
    assert "cahoots_envs/high_card-v0" in cahoots_envs.list_envs()
    assert cahoots_envs.game_spec("high_card") is HIGH_CARD
    env = pettingzoo.make("aec", "cahoots_envs/high_card-v0", num_players=3)
    env.reset(seed=0)
    assert env.num_agents == 3


def test_unregister_undoes_registration_in_both_registries(scratch_registry: None) -> None:
    spec = cahoots_envs.unregister_game("high_card")
    assert spec is HIGH_CARD
    assert "cahoots_envs/high_card-v0" not in cahoots_envs.list_envs()
    assert "cahoots_envs/high_card-v0" not in pettingzoo.aec_registry
    with pytest.raises(ValueError, match="unknown env 'high_card'"):
        cahoots_envs.make("high_card")
    with pytest.raises(ValueError, match="unknown env"):
        cahoots_envs.unregister_game("high_card")
    assert cahoots_envs.register_game(HIGH_CARD) == "cahoots_envs/high_card-v0"
    cahoots_envs.make("high_card").reset(seed=1)
    assert pettingzoo.make("aec", "cahoots_envs/high_card-v0").metadata["name"] == "high_card_v0"


def test_a_second_game_under_a_taken_name_is_refused(scratch_registry: None) -> None:
    twin = dataclasses.replace(HIGH_CARD)
    with pytest.raises(ValueError, match="already registered"):
        cahoots_envs.register_game(twin)
    assert cahoots_envs.game_spec("high_card") is HIGH_CARD  # nothing changed
    cahoots_envs.register_game(twin, replace=True)
    assert cahoots_envs.game_spec("high_card") is twin
    cahoots_envs.register_game(HIGH_CARD, replace=True)
    with pytest.raises(TypeError, match="GameSpec"):
        cahoots_envs.register_game("high_card")  # type: ignore[arg-type]


def _publish(monkeypatch: pytest.MonkeyPatch, *published: EntryPoint) -> None:
    """Make ``published`` the entry points of the games group, as if installed."""
    def entry_points(group: str) -> list[EntryPoint]:
        return list(published) if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(registry, "entry_points", entry_points)


def test_games_are_discovered_through_the_entry_point_group(scratch_registry: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cahoots_envs.unregister_game("high_card")
    _publish(monkeypatch,
             EntryPoint("high_card", "tests.plugin_game.spec:SPEC", registry.ENTRY_POINT_GROUP),
             EntryPoint("broken", "tests.no_such_module:SPEC", registry.ENTRY_POINT_GROUP),
             EntryPoint("not_a_spec", "tests.plugin_game.spec:Path", registry.ENTRY_POINT_GROUP))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry.discover_games()
    assert "cahoots_envs/high_card-v0" in cahoots_envs.list_envs()
    messages = [str(w.message) for w in caught]
    assert any("'broken'" in m and "skipping" in m for m in messages), messages
    assert any("'not_a_spec'" in m and "not a GameSpec" in m for m in messages), messages
    # the built-in games come first, from the one list, by the same mechanism
    builtin = [s.env_id for s in registry.builtin_games()]
    assert builtin == cahoots_envs.list_envs()[: len(builtin)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broken entries warn again
        registry.discover_games()  # idempotent
    assert cahoots_envs.list_envs().count("cahoots_envs/high_card-v0") == 1


def test_a_spec_names_what_it_lacks() -> None:
    class NoText:
        pass

    with pytest.raises(TypeError, match=r"lacks required member\(s\): text\.headline, text\.render"):
        GameSpec(rules=HIGH_CARD.rules, encoder=HIGH_CARD.encoder, text=NoText(),
                 bot=HIGH_CARD.bot, doc_page=HIGH_CARD.doc_page)
    with pytest.raises(TypeError, match="rules must be a Game subclass"):
        GameSpec(rules=int, encoder=HIGH_CARD.encoder, text=HIGH_CARD.text,  # type: ignore[arg-type]
                 bot=HIGH_CARD.bot, doc_page=HIGH_CARD.doc_page)


def _registries() -> tuple[Any, ...]:
    """Everything registering writes to, as it is now."""
    return (list(registry._SPECS.items()), dict(GAMES), dict(pettingzoo.aec_registry),
            dict(pettingzoo.parallel_registry), dict(gymnasium.registry))


def _fresh_spec(name: str = "bad_game", **declared: Any) -> GameSpec:
    """A valid spec of a game of its own (High Card's rules under ``name``)."""
    rules = type(name, (HIGH_CARD.rules,), {"NAME": name, **declared})
    return dataclasses.replace(HIGH_CARD, rules=rules)


class _Object:
    """A member with none of the methods an optional member needs."""

    def __repr__(self) -> str:  # a stable test id (pytest-xdist workers must agree on ids)
        return "_Object()"


# (where: a rules attribute or a spec field, the bad value, the one line saying what is allowed)
BAD_FIELDS = [
    ("VERSION", 1.5, "VERSION must be a non-negative int, got 1.5"),
    ("VERSION", -1, "VERSION must be a non-negative int, got -1"),
    ("VERSION", "1", "VERSION must be a non-negative int, got '1'"),
    ("VERSION", True, "VERSION must be a non-negative int, got True"),
    # every earlier version gets a retired id: a huge VERSION would never finish registering
    ("VERSION", 10**30, ("VERSION must be at most 999 (every earlier version gets a retired "
                         "id), got 1000000000000000000000000000000")),
    ("PLAYER_COUNTS", (), ("PLAYER_COUNTS must be a non-empty sequence of distinct positive ints, "
                           "got ()")),
    ("PLAYER_COUNTS", (0, 2), "PLAYER_COUNTS must be .* got (0, 2)"),
    ("PLAYER_COUNTS", (2, 2), "PLAYER_COUNTS must be .* got (2, 2)"),
    ("PLAYER_COUNTS", "23", "PLAYER_COUNTS must be .* got '23'"),
    ("DEFAULT_PLAYERS", 5, "DEFAULT_PLAYERS must be one of PLAYER_COUNTS (2, 3), got 5"),
    ("NAME", "high-card", ("NAME must be a Python identifier (a str such as 'my_game'), "
                           "got 'high-card'")),
    ("TITLE", "", "TITLE must be a non-empty str, got ''"),
    ("VERSION_NOTES", {1: "later"}, "VERSION_NOTES must be empty (VERSION is 0), got {1: 'later'}"),
    ("REPLAYS_FROM", 1, "REPLAYS_FROM must be an int from 0 to VERSION (0), got 1"),
    ("OPTIONS", {}, "OPTIONS must be an OptionSet, got {}"),
    ("OPTIONS", OptionSet(()), ("OPTIONS lacks num_players, reward_mode: include "
                                "common_options(PLAYER_COUNTS, DEFAULT_PLAYERS)")),
    ("PLAYER_COUNTS", (2,), ("OPTIONS' num_players must offer PLAYER_COUNTS (2,) with default "
                             "DEFAULT_PLAYERS 2")),
    ("DEAL_KEYS", "hands", "DEAL_KEYS must be a sequence of str, got 'hands'"),
    ("PHASES", (), "PHASES must be a non-empty tuple of distinct str .* got ()"),
    ("PHASES", ["play"], "PHASES must be a non-empty tuple of distinct str .* got ['play']"),
    ("PHASES", ("play", "play"), "PHASES must be .* got ('play', 'play')"),
    ("PHASES", ("play", "game_over"), ("PHASES must be a non-empty tuple of distinct str (the "
                                       "names the game's phase takes; not 'game_over', which the "
                                       "envs add), got ('play', 'game_over')")),
    ("COOPERATIVE", 1, "COOPERATIVE must be a bool, got 1"),
    ("POINTS_SIGN", 0, "POINTS_SIGN must be 1 or -1, got 0"),
    ("STRENGTH_VARIANTS", (), "STRENGTH_VARIANTS must be a non-empty tuple of option dicts, .* got ()"),
    ("STRENGTH_VARIANTS", [{}], "STRENGTH_VARIANTS must be a non-empty tuple .* got [{}]"),
    ("STRENGTH_VARIANTS", ({1: 2},), "STRENGTH_VARIANTS must be a non-empty tuple .* got ({1: 2},)"),
    ("STRENGTH_VARIANTS", ({"colour": "red"},), (
        "STRENGTH_VARIANTS[0] sets 'colour', which is not an option a saved policy may play across "
        "(the one policy plays every row); such options: hands")),
    ("STRENGTH_VARIANTS", ({}, {"num_players": 3}), "STRENGTH_VARIANTS[1] sets 'num_players', which"),
    ("STRENGTH_VARIANTS", ({"hands": 0},), ("STRENGTH_VARIANTS[0]: option hands=0 is not allowed; "
                                            "hands accepts an int from 1 to")),
    ("STRENGTH_VARIANTS", ({"hands": 2}, {"hands": 2}), (
        "STRENGTH_VARIANTS names a row twice (hands=2); each variant must differ from the others")),
    ("doc_page", "env.py", ("doc_page must be the path (a pathlib.Path) of an existing file, "
                            "got 'env.py'")),
    ("doc_page", Path("no_such_page.py"), "doc_page must be the path .* of an existing file"),
    ("batched", 3, ("batched must be None, a 'package.module' or 'package.module:Class' path, a "
                    "module or a class, got 3")),
    ("batched", "no such/path", "batched must be None, .* got 'no such/path'"),
    ("extras", {"rules": 1}, ("extras must be a dict whose keys are strs other than the spec's "
                              "own members")),
    ("world_sampler", _Object(), ("lacks required member(s): world_sampler.knowledge, "
                                  "world_sampler.sample_world")),
    ("state_layout", _Object(), ("lacks required member(s): state_layout.state_kinds, "
                                 "state_layout.undrawn_piles")),
]


def _literal(message: str) -> str:
    """``message`` as a pattern: literal but for ``.*``."""
    return ".*".join(re.escape(part) for part in message.split(".*"))


@pytest.mark.parametrize("where,value,message", BAD_FIELDS,
                         ids=[f"{w}={v!r}" for w, v, _ in BAD_FIELDS])
def test_a_bad_spec_field_is_refused_in_one_line_before_any_registry_changes(
        where: str, value: Any, message: str, scratch_registry: None) -> None:
    spec = _fresh_spec()
    if where in {f.name for f in dataclasses.fields(GameSpec)}:
        object.__setattr__(spec, where, value)  # a spec field: as if built so
    else:
        setattr(spec.rules, where, value)  # the rules class may change after its spec is built
    before = _registries()
    with pytest.raises(GameSpecError) as refused:
        cahoots_envs.register_game(spec)
    line = str(refused.value)
    assert "\n" not in line and line.startswith("GameSpec for "), line
    assert refused.match(_literal(message))
    assert isinstance(refused.value, TypeError) and isinstance(refused.value, ValueError)
    assert _registries() == before  # checked whole, before anything was written
    with pytest.raises(GameSpecError, match=_literal(message)):
        dataclasses.replace(spec)  # building such a spec is refused the same way


def test_each_problem_of_a_spec_is_a_line_of_its_own() -> None:
    spec = _fresh_spec()
    spec.rules.VERSION, spec.rules.PLAYER_COUNTS = 1.5, ()
    with pytest.raises(GameSpecError) as refused:
        spec.check()
    assert str(refused.value).splitlines() == [
        "GameSpec for bad_game: VERSION must be a non-negative int, got 1.5",
        ("GameSpec for bad_game: PLAYER_COUNTS must be a non-empty sequence of distinct positive "
         "ints, got ()"),
    ]


def _works_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    """``list_envs``, ``cahoots list``, ``make`` and ``unregister_game`` of another game work."""
    from cahoots_envs.cli import main

    builtin = [s.env_id for s in registry.builtin_games()]
    assert cahoots_envs.list_envs()[: len(builtin)] == builtin
    assert main(["list"]) == 0
    assert "high_card" in capsys.readouterr().out
    cahoots_envs.make("high_card", num_players=3).reset(seed=0)
    assert cahoots_envs.unregister_game("kansas_city").name == "kansas_city"
    assert "cahoots_envs/kansas_city-v1" not in pettingzoo.aec_registry


@pytest.mark.parametrize("error", [RuntimeError("no room"), KeyboardInterrupt()],
                         ids=["RuntimeError", "KeyboardInterrupt"])
def test_a_registration_failing_midway_is_undone(error: BaseException, scratch_registry: None,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def register(*args: Any, **kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(gymnasium, "register", register)  # the last registry written to
    fresh = _fresh_spec("fresh_game", VERSION=2, VERSION_NOTES={1: "a", 2: "b"})
    before = _registries()
    with pytest.raises(type(error)):
        cahoots_envs.register_game(fresh)
    assert _registries() == before
    with pytest.raises(type(error)):  # replacing a game: the old one stays, all its ids too
        cahoots_envs.register_game(dataclasses.replace(HIGH_CARD), replace=True)
    assert _registries() == before
    assert cahoots_envs.game_spec("high_card") is HIGH_CARD
    monkeypatch.undo()
    _works_as_before(capsys)
    assert cahoots_envs.register_game(fresh) == "cahoots_envs/fresh_game-v2"
    with pytest.raises(cahoots_envs.RetiredEnvError, match="use fresh_game-v2"):
        pettingzoo.make("aec", "cahoots_envs/fresh_game-v1")


PLUGINS = {  # module name -> source: each fails on import, in its own way
    "plugin_exits": "raise SystemExit(3)\n",
    "plugin_odd": "class Odd(BaseException):\n    pass\n\nraise Odd('odd one')\n",
    "plugin_bad_version": (
        "import dataclasses\n"
        "from tests.plugin_game.spec import SPEC\n\n"
        "class Rules(SPEC.rules):\n    NAME = 'bad_version'\n    VERSION = '1'\n\n"
        "SPEC = dataclasses.replace(SPEC, rules=Rules)\n"
    ),
    "plugin_half": (  # registers a game, then fails: the game goes too
        "import dataclasses\n"
        "import cahoots_envs\n"
        "from tests.plugin_game.spec import SPEC\n\n"
        "class Rules(SPEC.rules):\n    NAME = 'half_game'\n\n"
        "cahoots_envs.register_game(dataclasses.replace(SPEC, rules=Rules))\n"
        "raise SystemExit('half way')\n"
    ),
    "plugin_interrupted": "raise KeyboardInterrupt\n",
}


def test_a_plugin_raising_anything_is_skipped_and_leaves_nothing(
        scratch_registry: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    for module, source in PLUGINS.items():
        (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    cahoots_envs.unregister_game("high_card")
    before = _registries()
    names = ("plugin_exits", "plugin_odd", "plugin_bad_version", "plugin_half")
    _publish(monkeypatch, *(EntryPoint(n, f"{n}:SPEC", registry.ENTRY_POINT_GROUP) for n in names),
             EntryPoint("high_card", "tests.plugin_game.spec:SPEC", registry.ENTRY_POINT_GROUP))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry.discover_games()  # what import cahoots_envs runs: it goes on
    messages = [str(w.message) for w in caught]
    for name, error in [("plugin_exits", "SystemExit: 3"), ("plugin_odd", "Odd: odd one"),
                        ("plugin_bad_version", ("GameSpecError: GameSpec for bad_version: "
                                                "VERSION must be a non-negative int, got '1'")),
                        ("plugin_half", "SystemExit: half way")]:
        assert any(f"skipping the game published as {name!r}" in m and m.endswith(error)
                   for m in messages), (name, messages)
    assert "cahoots_envs/half_game-v0" not in pettingzoo.aec_registry
    assert cahoots_envs.list_envs() == [spec.env_id for _, spec in before[0]] + [
        "cahoots_envs/high_card-v0"]
    _works_as_before(capsys)
    _publish(monkeypatch, EntryPoint("plugin_interrupted", "plugin_interrupted:SPEC",
                                     registry.ENTRY_POINT_GROUP))
    with pytest.raises(KeyboardInterrupt):
        registry.discover_games()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_optional_member_a_game_lacks_says_so(game: str) -> None:
    spec = cahoots_envs.game_spec(game)
    for member in ("world_sampler", "state_layout", "batched"):
        if not spec.has(member):
            with pytest.raises(cahoots_envs.NotAvailableError,
                               match=f"{member.replace('_', ' ')} is not available for {game}"):
                spec.require(member)
    with pytest.raises(ValueError, match="unknown game member"):
        spec.require("teleporter")


# ---- every shared tool on every registered game ------------------------------------------------

@pytest.mark.parametrize("game", GAME_NAMES)
def test_play_in_the_terminal_through_main_then_replay(game: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from cahoots_envs.cli import main

    seed = 3
    moves, scores = plan_human_moves(game, 0, "heuristic", seed, {})
    monkeypatch.setattr("sys.stdin", io.StringIO("help\nmoves\nview\n" + "\n".join(moves) + "\n"))
    monkeypatch.chdir(tmp_path)
    log = tmp_path / f"{game}.jsonl"
    assert main(["play", game, "--seat", "0", "--opponents", "heuristic", "--seed", str(seed),
                 "--log", log.name]) == 0
    out = capsys.readouterr().out
    assert "moves look like:" in out and "(you)" in out
    assert [line for line in out.splitlines() if len(line) > 80] == []
    result = replay_log(log)
    assert result.complete and result.scores == scores
    assert main(["replay", str(log)]) == 0


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_a_log_keeps_every_hand_and_replays_as_a_whole_game_deal(case: tuple[str, dict[str, Any]],
                                                                  tmp_path: Path) -> None:
    game, options = case
    env = cahoots_envs.make_raw(game, **options)
    rec = GameRecorder(env, players=["random"] * len(env.possible_agents))
    rec.reset(seed=11)
    rng = np.random.default_rng(0)
    while not rec.done:
        rec.step(int(rng.choice(env.legal_actions())))
    logged = [rec.log.header["deal"]] + [e["deal"] for e in rec.log.events if e["type"] == "deal"]
    assert logged == env.game.deals, "the log dropped a hand's deal"
    assert replay_log(rec.save(tmp_path / "log.jsonl")).complete
    if env.game_cls.chance_after_deal(env.options):
        return  # the deals and the actions alone do not fix such a game
    # the same game from its whole-game deal (another seed: every hand comes from the script)
    actions = [e["action"] for e in rec.log.events if e["type"] == "action"]
    twin = cahoots_envs.make_raw(game, **options)
    twin.reset(seed=999, options={"deal": json.loads(json.dumps(env.game.deals))})
    for text in actions:
        twin.step(twin.str_to_action(text))
    assert twin.game.deals == env.game.deals
    assert twin.game.scores == env.game.scores and twin.game.is_over


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_tournament_on_every_game(game: str, tmp_path: Path) -> None:
    from cahoots_envs.evaluation import run_tournament

    result = run_tournament(game, ["heuristic", "random"], num_games=4, seed=1,
                            log_dir=tmp_path)
    assert len(result.games) == 4
    assert all(replay_log(GameLog.load(p)).complete for p in sorted(tmp_path.glob("*.jsonl")))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_seat_env_trains_with_maskable_ppo_on_every_game(game: str) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from cahoots_envs.training import SeatEnv

    spec = cahoots_envs.game_spec(game)
    env = SeatEnv(spec.env_id, opponents="heuristic", team=spec.rules.COOPERATIVE, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
