"""Games as plug-ins: registering through the public API (and undoing it), entry-point discovery,
the declared face (required and optional members), and every shared tool on every registered
game, the test game ``high_card`` (``tests/plugin_game/``) included, with nothing special-cased.

The shared suite proper (api/seed tests, fuzzing, the leak test, clones, bad input, doc pages,
terminal views) runs on every registered game from ``test_shared.py`` and friends."""

from __future__ import annotations

import dataclasses
import io
import json
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
from cahoots_envs.core.spec import GameSpec
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


def test_games_are_discovered_through_the_entry_point_group(scratch_registry: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cahoots_envs.unregister_game("high_card")
    published = [
        EntryPoint("high_card", "tests.plugin_game.spec:SPEC", registry.ENTRY_POINT_GROUP),
        EntryPoint("broken", "tests.no_such_module:SPEC", registry.ENTRY_POINT_GROUP),
        EntryPoint("not_a_spec", "tests.plugin_game.spec:Path", registry.ENTRY_POINT_GROUP),
    ]

    def entry_points(group: str) -> list[EntryPoint]:
        return published if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(registry, "entry_points", entry_points)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry.discover_games()
    assert "cahoots_envs/high_card-v0" in cahoots_envs.list_envs()
    messages = [str(w.message) for w in caught]
    assert any("'broken'" in m and "skipping" in m for m in messages), messages
    assert any("'not_a_spec'" in m and "not a GameSpec" in m for m in messages), messages
    # the built-in games come first, from the one list, by the same mechanism
    assert [s.env_id for s in registry.builtin_games()] == cahoots_envs.list_envs()[:4]
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
