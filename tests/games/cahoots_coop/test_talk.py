"""Table talk in Cahoots (cooperative): the option ``talk`` (docs: the env's doc page, Table talk).

Without talk the game is today's (env id, layout, actions); with a vocabulary a talk decision
follows each play, a signal reaches every seat's observation, the global state and the game log,
true signals are enforced by the mask, the batched engine refuses the option and the search bot
rolls out silently on it (or with talk on the reference game).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.gamelog import GameLog, GameRecorder, replay_log
from cahoots_envs.games.cahoots_coop.encoder import SIGNALS_PER_SEAT, signal_width
from cahoots_envs.games.cahoots_coop.rules import TALK_BASE, CahootsCoop, signal_true

# seat 0 plays 1G on pile 0 (3G, then draws 7V); its hand after: 2G 5O 6P 7V
DEAL = {
    "start_player": 0,
    "hands": [["1G", "2G", "5O", "6P"], ["3O", "4O", "5P", "6V"], ["1P", "2P", "3V", "4V"]],
    "piles": ["3G", "7O", "7P", "1V"],
    "draw_pile": ["7V", "2V", "5V"],
    "goals": ["SUM_15", "SUM_12", "SUM_8", "SUM_10", "SUM_20"],
}
# (vocabulary, the signal seat 0 sends after its play, its word index in the window)
SIGNALS = [("spanish", "wish pile 2", 1), ("spanish", "aim SUM_12", 2),
           ("dutch", "avoid pile 1", 1), ("dutch", "have pile 1", 2),
           ("dutch", "can complete SUM_15", 3)]


def test_no_talk_is_todays_game() -> None:
    plain, none = cahoots_envs.make_raw("cahoots_coop"), cahoots_envs.make_raw("cahoots_coop", talk="none")
    assert plain.env_id == none.env_id == "cahoots_envs/cahoots_coop-v1"
    assert plain.spec.layout(plain.options) == none.spec.layout(none.options)
    assert plain.spec.layout(plain.options).size == 1507
    assert CahootsCoop.num_actions(none.options) == 112
    assert "talk_phase" not in {s.name for s in none.spec.layout(none.options).segments}
    for talk, actions in (("spanish", 121), ("dutch", 125)):
        env = cahoots_envs.make_raw("cahoots_coop", talk=talk)
        assert CahootsCoop.num_actions(env.options) == actions
        layout = env.spec.layout(env.options)
        # the layout without talk is a prefix: every segment keeps its offset
        assert layout.segments[: len(plain.spec.layout(plain.options).segments)] == \
            plain.spec.layout(plain.options).segments


@pytest.mark.parametrize("talk,signal,word", SIGNALS, ids=[s[1] for s in SIGNALS])
def test_a_signal_reaches_every_seat_the_state_and_the_log(talk: str, signal: str, word: int) -> None:
    env = cahoots_envs.make("cahoots_coop", talk=talk)
    rec = GameRecorder(env, players=["human"] * 3)
    rec.reset(seed=1, deal=DEAL)
    game = env.unwrapped.game
    rec.step(game.str_to_action("play 1G on 0"))
    assert game.phase == "talk" and game.current_player == 0 and env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    assert mask[:TALK_BASE].sum() == 0 and mask[TALK_BASE] == 1  # only talk; say nothing
    rec.step(game.str_to_action(signal))
    assert game.phase == "play" and game.current_player == 1
    layout = env.unwrapped.spec.layout(env.unwrapped.options)
    width = signal_width(talk)
    for seat in range(3):
        v = layout.views(env.observe(f"player_{seat}")["observation"])
        row = v["signals"][(0 - seat) % 3]
        assert row.shape == (SIGNALS_PER_SEAT, width)
        assert row[0][0] == 1 and row[0][1 + word] == 1 and row[1].sum() == 0
        assert v["talk_phase"][0] == 0
        assert v["signals"].sum() == row.sum()  # nobody else has talked
        assert signal in env.unwrapped.game.face.text.seat_view(game, seat)
    state = env.state()
    assert state[env.state_layout.layout.slice("signals")].sum() > 0
    # the game log holds the signal as an action, and replays it
    rec.step(game.str_to_action("play 3O on 1") if "play 3O on 1" in game.legal_strings()
             else game.legal_actions()[0])
    lines = rec.log.to_jsonl().splitlines()
    assert f'"seat": 0, "agent": "player_0", "phase": "talk", "action": "{signal}"' in lines[2]
    result = replay_log(GameLog.from_lines(lines), partial=True)
    assert result.turns == 3 and not result.complete
    table = game.face.view.table(game, 2)
    assert table["signals"] == [{"seat": 0, "turn": 1, "text": signal}]


def test_true_signals_are_enforced_by_the_mask() -> None:
    env = cahoots_envs.make_raw("cahoots_coop", talk="dutch")
    env.reset(seed=1, options={"deal": DEAL})
    game = env.game
    game.apply(game.str_to_action("play 1G on 0"))
    legal = game.legal_strings()
    hand = game.hands[0]
    for pile in range(4):
        assert (f"have pile {pile}" in legal) == signal_true("have", pile, hand, game.tops,
                                                             game.satisfied)
    # tops 1G 7O 7P 1V (16), hand 2G 5O 6P 7V: 6P on pile 2 makes 15; nothing makes 12, 10, 8
    assert "can complete SUM_15" in legal
    assert not any(f"can complete SUM_{total}" in legal for total in (8, 10, 12))
    assert "wish pile 0" not in legal and "avoid pile 0" in legal  # the Dutch words only


def test_talk_refuses_open_hands_and_one_player() -> None:
    with pytest.raises(ValueError, match="open_hands"):
        cahoots_envs.make("cahoots_coop", talk="dutch", open_hands=True).reset(seed=0)
    with pytest.raises(ValueError, match="2 or more players"):
        cahoots_envs.make("cahoots_coop", talk="spanish", num_players=1).reset(seed=0)


@pytest.mark.parametrize("options, message", [
    ({"talk": "dutch", "open_hands": True}, "cannot be combined with open_hands=True"),
    ({"talk": "spanish", "num_players": 1}, "needs 2 or more players"),
])
def test_talk_combinations_are_refused_at_make_not_at_reset(options: dict[str, Any],
                                                            message: str) -> None:
    """Each option is accepted alone, not together: ``make()`` (and everything that resolves
    options: env_info, the parallel env) says so at once, in one line, before an env exists."""
    from cahoots_envs import cahoots_coop_v1
    from cahoots_envs.envinfo import env_info

    for build in (lambda: cahoots_envs.make("cahoots_coop", **options),
                  lambda: cahoots_coop_v1.parallel_env(**options),
                  lambda: env_info("cahoots_coop", options)):
        with pytest.raises(ValueError, match=message) as caught:
            build()
        assert "\n" not in str(caught.value)


def test_the_batched_engine_refuses_talk() -> None:
    pytest.importorskip("numba")
    from cahoots_envs.search.engine import engine_problem

    env = cahoots_envs.make_raw("cahoots_coop", talk="spanish")
    problem = engine_problem(env.spec, env.options)
    assert problem is not None and "talk='spanish'" in problem and "not available" in problem
    from cahoots_envs.vector import make

    with pytest.raises(ValueError, match="does not support talk"):
        make("cahoots_coop", num_envs=2, talk="spanish")


def test_the_bot_reads_say_nothing_as_no_card_for_the_tops_then() -> None:
    """After the next player's ``say nothing`` (the bot's convention: no play on the tops), the
    bot counts the risk of stranding them over the kinds that matched none of the tops when they
    said it: read from the observation (the plays since undone) as the game state gives it."""
    from cahoots_envs.games.cahoots_coop import search as coop_search
    from cahoots_envs.games.cahoots_coop.rules import KINDS, MATCHES

    env = cahoots_envs.make_raw("cahoots_coop", talk="dutch", difficulty="normal")
    checked = 0
    for seed in range(40):
        env.reset(seed=seed)
        bots = [env.spec.bot(env.options, seed=s) for s in range(3)]
        tops_when: dict[int, list[int]] = {}  # the tops at each talk decision, by signal index
        while not env.game.is_over:
            game = env.game
            seat = game.current_player
            obs = env.observe(env.agent_selection)
            if game.talking:
                tops_when[len(game.signals)] = list(game.tops)
            else:
                hint = bots[seat]._next_hint(obs["observation"])
                assert hint == coop_search._next_hint(game)
                said = [i for i, signal in enumerate(game.signals) if signal[0] == (seat + 1) % 3]
                if said and game.signals[said[-1]][2] == 0 and \
                        game.signals[said[-1]][1] == len(game.plays) - 1:
                    live = 0
                    for t in tops_when[said[-1]]:
                        live |= MATCHES[t]
                    assert hint == ~live & ((1 << KINDS) - 1)
                    checked += 1
                else:
                    assert hint is None
            env.step(int(bots[seat].act(obs["observation"], obs["action_mask"])))
    assert checked >= 3


def _talk_position(talk: str, seed: int) -> Any:
    """A play decision late in a seeded talk game of bots (signals said, a small draw pile)."""
    env = cahoots_envs.make_raw("cahoots_coop", talk=talk, difficulty="normal")
    env.reset(seed=seed)
    bots = [env.spec.bot(env.options, seed=s) for s in range(3)]
    found = None
    while not env.game.is_over:
        game = env.game
        if not game.talking and len(game.draw_pile) <= 8 and len(game.legal_actions()) >= 2 \
                and found is None:
            found = game.clone()
        obs = env.observe(env.agent_selection)
        env.step(int(bots[game.current_player].act(obs["observation"], obs["action_mask"])))
    assert found is not None and found.signals
    return env, found


@pytest.mark.parametrize("talk", ["spanish", "dutch"])
def test_search_rolls_out_silently_on_the_engine(talk: str) -> None:
    """A talk game's world loads into the engine as its plays alone and rolls out silently:
    the per-move values equal those of its silent twin (the same deals and plays in a game
    without talk; that game's engine values equal the reference path's, test_search_engine)."""
    pytest.importorskip("numba")
    from cahoots_envs.core.search import World
    from cahoots_envs.games.cahoots_coop import search as coop_search
    from cahoots_envs.search import Infoset, SearchPolicy
    from cahoots_envs.search.engine import EngineRollouts

    env, game = _talk_position(talk, seed=4)
    spec, options = env.spec, env.options
    silent = coop_search.engine_options(options)
    assert silent == {**options, "talk": "none"}
    seat, legal = game.current_player, game.legal_actions()
    info = Infoset(game, seat, spec, options)
    worlds = [info.sample(np.random.default_rng([9, k])) for k in range(6)]
    assert any(a >= TALK_BASE for a in worlds[0].actions)  # the worlds carry the signals
    twins = []
    for world in worlds:
        plays = coop_search.engine_actions(world.actions)
        assert plays == [a for a in world.actions if a < TALK_BASE] and len(plays) < len(world.actions)
        twin = CahootsCoop(silent, np.random.default_rng(0), world.deals[0])
        for a in plays:
            twin.apply(a)
        assert twin.tops == world.game.tops and twin.hands == world.game.hands
        twins.append(World(twin, world.deals, plays))
    talking = EngineRollouts(spec, options, coop_search).values(
        worlds, 0, legal, seat, 11, spec.bot(silent, seed=0))
    quiet = EngineRollouts(spec, silent, coop_search).values(
        twins, 0, legal, seat, 11, spec.bot(silent, seed=0))
    assert talking.shape == (6, len(legal)) and np.array_equal(talking, quiet)
    # the search bot takes the engine with the silent bot rolling out; 'reference' rolls out
    # with talk; a blueprint with no silent twin (random) stays on the reference game
    bot = SearchPolicy(env.spec.env_id, options, seed=3, search_all=True)
    bot.act_infoset(info)
    assert bot.path == "batched" and bot.stats.engine_searches == 1
    assert bot._roller.options["talk"] == "none" and bot.blueprint.options["talk"] == talk
    ref = SearchPolicy(env.spec.env_id, options, seed=3, search_all=True, engine="reference",
                       worlds=2, max_worlds=2)
    ref.act_infoset(info)
    assert ref.path == "reference" and ref.stats.reference_searches == 1
    from cahoots_envs.policies import RandomPolicy

    rand = SearchPolicy(env.spec.env_id, options, blueprint=RandomPolicy(0), seed=3,
                        search_all=True, worlds=2, max_worlds=2)
    rand.act_infoset(info)
    assert rand.path == "reference"
    with pytest.raises(ValueError, match="only on the reference game"):
        SearchPolicy(env.spec.env_id, options, blueprint=RandomPolicy(0), engine="batched")


def test_a_person_sends_and_reads_signals_in_the_terminal(capsys, monkeypatch) -> None:
    from cahoots_envs import cli
    from tests.test_cli import plan_human_moves

    options = {"num_players": 2, "num_goals": 4, "talk": "spanish"}
    moves, _ = plan_human_moves("cahoots_coop", 0, "heuristic", 3, options)
    said = [m for m in moves if not m.startswith("play")]
    assert said  # the person's talk decisions: the last legal move, a signal
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(moves) + "\n"))
    code = cli.main(["play", "cahoots_coop", "-n", "2", "-o", "num_goals=4", "-o", "talk=spanish",
                     "--seed", "3", "--opponents", "heuristic"])
    out = capsys.readouterr().out
    assert code == 0 and "The team" in out
    assert f"(you): {said[0]}" in out and "to talk (after the play)" in out
    # the table the person reads names every seat's latest signal, the bot's too
    assert f"talk (spanish): player_0 (you) {said[0]} (turn 1); player_1 wish pile" in out


def _bot_game(talk: str, seed: int) -> Any:
    env = cahoots_envs.make_raw("cahoots_coop", talk=talk)
    env.reset(seed=seed)
    bots = [env.spec.bot(env.options, seed=s) for s in range(3)]
    while not env.game.is_over:
        obs = env.observe(env.agent_selection)
        env.step(int(bots[env.game.current_player].act(obs["observation"], obs["action_mask"])))
    return env.game


def test_the_bot_signals_by_its_convention() -> None:
    for talk, word in (("spanish", "wish pile"), ("dutch", "have pile")):
        game = _bot_game(talk, seed=5)
        said = {game.face.text.latest_signals(game)[0][2].rsplit(" ", 1)[0]}
        said |= {game.action_to_str(a).rsplit(" ", 1)[0] for a in game.history if a > TALK_BASE
                 and game.action_to_str(a).startswith(word)}
        assert said <= {word, "say nothing"} and word in said
        assert len(game.signals) >= len(game.plays) - 1  # a talk decision after each play
        assert all(np.isfinite(x) for x in game.scores)
