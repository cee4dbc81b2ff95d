"""Differential checks of a batched engine against the reference rules (the AEC env).

``check_against_reference`` plays ``games`` reference games through the raw AEC env, recording
each whole-game deal (``env.game.deals``) and the actions, then replays them in lockstep: the
engine is reset with those deals and fed the same actions while a second set of AEC envs, reset
with the same deals, is stepped alongside. At every step it asserts, per game still compared:

- the seat to move, its observation and its action mask;
- every seat's reward of the step (the AEC env's ``rewards``) and ``done``;
- at reset, ``deal_rewards`` equals what the AEC env pays at its reset;
- when a game ends: its row of ``final_scores`` (``game.scores``) and ``final_obs`` (every
  seat's ``observe``), found at the game's rank among the games done in that step.

A game over at its deal (zero decisions, cahoots_coop) is expected as ``done[i]`` at reset with
``rewards[i]`` what the AEC env pays at reset, its final scores and observations. Games that end
early keep playing their auto-dealt games with random legal actions (from the engine's mask),
not compared. With ``skip_rate`` > 0 some games get action -1 in a step (left as they are: the
same rows, zero rewards, not done), as the batched seat env does while a learner waits. ``game(i)`` is checked too, on a few games at a few steps (same observation of the
seat to move, same mask, same history).

Variants where chance acts after the deal (``rules.chance_after_deal``) cannot be replayed from
deals and actions alone and are refused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.core.batched import BatchedEngine
from cahoots_envs.core.layout import OBS_DTYPE
from cahoots_envs.core.numba_kernels import seed_states
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.vector.engine import engine_class

OBS_TOLERANCE = 1e-6  # float32 rounding of the same value computed in another order
REWARD_TOLERANCE = 1e-5

Chooser = Callable[[Any, np.random.Generator], int]


@dataclass
class CheckReport:
    """What one check compared."""

    games: int
    decisions: int  # decisions compared (engine vs reference)
    steps: int  # engine steps (lockstep calls)
    over_at_deal: int  # reference games over at the deal itself
    game_checks: int  # game(i) rebuilds compared


def _random(env: Any, rng: np.random.Generator) -> int:
    legal = env.legal_actions()
    return int(legal[int(rng.integers(len(legal)))])


def _first(env: Any, rng: np.random.Generator) -> int:
    return int(env.legal_actions()[0])


POLICIES: dict[str, Chooser] = {"random": _random, "first": _first}


def _mismatch(what: str, i: int, t: int, expected: Any, got: Any, record: Any) -> AssertionError:
    exp, act = np.asarray(expected), np.asarray(got)
    where = ""
    if exp.shape == act.shape and exp.size > 1:
        diff = np.flatnonzero(~np.isclose(exp.ravel().astype(np.float64),
                                          act.ravel().astype(np.float64), atol=OBS_TOLERANCE))
        where = f" first differing entries {diff[:8].tolist()}:"
        exp, act = exp.ravel()[diff[:8]], act.ravel()[diff[:8]]
    deals, actions = record
    return AssertionError(
        f"game {i}, step {t}: {what} differs;{where} reference {exp.tolist()!r}, engine "
        f"{act.tolist()!r}\n  replay: deal={deals!r}\n  actions={actions[:t]!r}"
    )


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a.astype(np.float64) - b.astype(np.float64))
                                              <= tol))


def _record_games(env_id: str, options: dict[str, Any], games: int, rng: np.random.Generator,
                  choose: Chooser) -> list[tuple[list[dict[str, Any]], list[int]]]:
    records = []
    for _ in range(games):
        env = cahoots_envs.make_raw(env_id, **options)
        env.reset(seed=int(rng.integers(2**31)))
        actions: list[int] = []
        while not env.game.is_over:
            a = choose(env, rng)
            env.step(a)
            actions.append(a)
        records.append((copy.deepcopy(env.game.deals), actions))
    return records


def _seat_obs(env: Any, seat: int) -> np.ndarray:
    return np.asarray(env.observe(env.possible_agents[seat])["observation"], OBS_DTYPE)


def _check_game_object(engine: BatchedEngine, env: Any, i: int, t: int, record: Any) -> None:
    """``engine.game(i)`` is the reference game in the same state."""
    game = engine.game(i)
    ref = env.game
    # a game that keeps no ``history`` (written before search) is compared by its deals
    history, expected = getattr(game, "history", None), getattr(ref, "history", None)
    if history != expected or game.deals != ref.deals:
        raise _mismatch("game(i) history/deals", i, t, [expected, ref.deals],
                        [history, game.deals], record)
    if game.is_over != ref.is_over or game.current_player != ref.current_player:
        raise _mismatch("game(i) seat to move", i, t, ref.current_player, game.current_player,
                        record)
    obs = np.zeros(engine.obs_size, OBS_DTYPE)
    game.encode(ref.current_player, obs)
    if not _close(obs, _seat_obs(env, ref.current_player), 0.0):
        raise _mismatch("game(i) observation", i, t, _seat_obs(env, ref.current_player), obs,
                        record)
    if sorted(game.legal_actions()) != sorted(ref.legal_actions()):
        raise _mismatch("game(i) legal actions", i, t, ref.legal_actions(), game.legal_actions(),
                        record)


def check_against_reference(env_id: str, options: dict[str, Any] | None = None, games: int = 50,
                            seed: int = 0, policy: str | Chooser = "random",
                            game_checks: int = 3, skip_rate: float = 0.1) -> CheckReport:
    """Play ``games`` reference games of ``env_id`` with ``options`` and replay them through the
    game's batched engine in lockstep (see the module docstring); raise ``AssertionError`` at
    the first difference, naming the game, the step and how to replay it.

    ``policy``: "random" (uniform over the legal actions, seeded by ``seed``), "first" (the
    lowest legal id), or a callable ``(env, rng) -> action``. ``game_checks``: how many games
    also have ``engine.game(i)`` compared (at their start, middle and last decision).
    ``skip_rate``: the share of games given action -1 in each step (not played that step)."""
    options = dict(options or {})
    spec = cahoots_envs.game_spec(env_id)
    resolved = spec.resolve_options(options)
    if spec.rules.chance_after_deal(resolved):
        raise ValueError(f"{env_id} {options}: chance acts after the deal, so a game is not "
                         "fixed by its deals and actions; compare another variant")
    choose = POLICIES[policy] if isinstance(policy, str) else policy
    rng = np.random.default_rng(seed)
    records = _record_games(env_id, options, games, rng, choose)

    engine = engine_class(spec)(spec, resolved, games)
    engine.reset(seed_states(seed, games), [copy.deepcopy(d) for d, _ in records])
    envs = []
    for deals, _ in records:
        env = cahoots_envs.make_raw(env_id, **options)
        env.reset(seed=0, options={"deal": copy.deepcopy(deals)})
        envs.append(env)
    players = engine.num_players
    if engine.obs.shape != (games, envs[0].layout.size) or engine.mask.shape != (
            games, envs[0].num_actions):
        raise AssertionError(f"engine buffers {engine.obs.shape} / {engine.mask.shape} do not "
                             f"match the env's layout {envs[0].layout.size} and "
                             f"{envs[0].num_actions} actions")
    live = np.ones(games, bool)
    checked_games = set(range(0, games, max(1, games // max(game_checks, 1)))) if game_checks else set()
    report = CheckReport(games, 0, 0, 0, 0)

    def final_row(i: int, t: int) -> None:
        env, record = envs[i], records[i]
        if not engine.done[i]:
            raise _mismatch("done", i, t, True, False, record)
        rank = int(np.count_nonzero(engine.done[:i]))
        if engine.final_scores.shape[0] != int(engine.done.sum()):
            raise AssertionError(f"step {t}: final_scores has {engine.final_scores.shape[0]} rows "
                                 f"for {int(engine.done.sum())} finished games")
        scores = np.asarray(env.game.scores, np.float64)
        if not _close(engine.final_scores[rank], scores, 1e-9):
            raise _mismatch("final scores", i, t, scores, engine.final_scores[rank], record)
        for seat in range(players):
            expected = _seat_obs(env, seat)
            if not _close(engine.final_obs[rank, seat], expected, OBS_TOLERANCE):
                raise _mismatch(f"final observation of seat {seat}", i, t, expected,
                                engine.final_obs[rank, seat], record)
        live[i] = False

    def live_row(i: int, t: int) -> None:
        env, record = envs[i], records[i]
        if engine.done[i]:
            raise _mismatch("done", i, t, False, True, record)
        seat = env.game.current_player
        if engine.to_move[i] != seat:
            raise _mismatch("seat to move", i, t, seat, engine.to_move[i], record)
        expected = _seat_obs(env, seat)
        if not _close(engine.obs[i], expected, OBS_TOLERANCE):
            raise _mismatch(f"observation of seat {seat}", i, t, expected, engine.obs[i], record)
        mask = env.action_mask()
        if not np.array_equal(engine.mask[i], mask):
            raise _mismatch("action mask", i, t, np.flatnonzero(mask),
                            np.flatnonzero(engine.mask[i]), record)
        report.decisions += 1

    # at reset
    for i, env in enumerate(envs):
        paid = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
        if env.game.is_over:
            report.over_at_deal += 1
            if not _close(engine.rewards[i], paid, REWARD_TOLERANCE):
                raise _mismatch("rewards of a game over at its deal", i, 0, paid,
                                engine.rewards[i], records[i])
            final_row(i, 0)
            continue
        if not _close(engine.deal_rewards[i], paid, REWARD_TOLERANCE):
            raise _mismatch("deal rewards at reset", i, 0, paid, engine.deal_rewards[i],
                            records[i])
        live_row(i, 0)

    picker = np.random.default_rng(seed + 1)
    played = np.zeros(games, np.int64)  # actions of the record played so far, per game
    while live.any():
        actions = np.zeros(games, np.int64)
        for i in range(games):
            if live[i]:
                actions[i] = records[i][1][played[i]]
            else:
                legal = np.flatnonzero(engine.mask[i])
                actions[i] = legal[int(picker.integers(len(legal)))]
        if skip_rate > 0:
            actions[picker.random(games) < skip_rate] = -1
        engine.step(actions)
        report.steps += 1
        for i in np.flatnonzero(live):
            env, record = envs[i], records[i]
            if actions[i] < 0:
                t = int(played[i])
                if engine.rewards[i].any():
                    raise _mismatch("rewards of a skipped game", i, t, 0, engine.rewards[i],
                                    record)
                live_row(i, t)
                report.decisions -= 1  # the same decision, seen again
                continue
            played[i] += 1
            t = int(played[i])
            env.step(int(actions[i]))
            paid = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            if not _close(engine.rewards[i], paid, REWARD_TOLERANCE):
                raise _mismatch("rewards", i, t, paid, engine.rewards[i], record)
            if env.game.is_over:
                if t != len(record[1]):
                    raise AssertionError(f"game {i}: the reference replay ended after {t} of "
                                         f"{len(record[1])} actions; the deal does not fix it")
                final_row(i, t)
            else:
                live_row(i, t)
                n = len(record[1])
                if i in checked_games and t in (1, n // 2, n - 1):
                    _check_game_object(engine, env, int(i), t, record)
                    report.game_checks += 1
    return report


def check_bad_deals_change_nothing(engine: BatchedEngine, good: Any,
                                   bad: list[tuple[Any, str]]) -> None:
    """Each malformed deal (with the message it must raise), given as game 1 of three, is refused
    naming the game, and leaves every array of the engine as it was."""
    import pytest

    before = {k: v.copy() for k, v in vars(engine).items() if isinstance(v, np.ndarray)}
    for deal, message in bad:
        with pytest.raises(ValueError, match=message):
            engine.reset(seed_states(1, 3), [good, deal, good])
        for key, value in before.items():
            np.testing.assert_array_equal(getattr(engine, key), value, err_msg=key)


def check_streams_per_game(make: Callable[[int], BatchedEngine], steps: int) -> None:
    """Each game draws from its own stream: two engines whose streams agree for game 0 only play
    the same game 0 over several episodes under the same actions, and differ elsewhere; a reset
    from the streams the engine advanced deals anew."""
    from cahoots_envs import vector

    state = seed_states(21, 5)
    other = state.copy()
    other[1:] = seed_states(22, 4)
    a, b = make(5), make(5)
    a.reset(state, None)
    b.reset(other, None)
    rng = np.random.default_rng(0)
    deals = [a.game(0).deals[0]]
    for _ in range(steps):  # several episodes of game 0
        actions = vector.random_legal_actions(a.mask, rng)
        other_actions = vector.random_legal_actions(b.mask, rng)
        other_actions[0] = actions[0]
        a.step(actions)
        b.step(other_actions)
        np.testing.assert_array_equal(a.obs[0], b.obs[0])
        if a.done[0]:
            deals.append(a.game(0).deals[0])
    assert len(deals) >= 3 and deals[0] != deals[1]
    assert a.game(1).deals != b.game(1).deals
    # the engine advances the streams it was given: a reset from them deals anew
    last = [a.game(i).deals[0] for i in range(5)]
    a.reset(a.rng_state, None)
    assert a.rng_state is state
    assert all(a.game(i).deals[0] != last[i] for i in range(5))


# ---- row by row against reference game objects (each game's tests/games/<game>/test_vector.py) --
def engine_for(spec: GameSpec, engine: type[BatchedEngine], options: dict[str, Any],
               num_envs: int) -> Any:
    """``engine`` (the game's engine class, which the spec must name) over ``options``."""
    assert engine_class(spec) is engine  # the spec names this engine
    return engine(spec, spec.resolve_options(options), num_envs)


def observe_game(spec: GameSpec, game: Any, seat: int) -> np.ndarray:
    """``seat``'s observation of the reference ``game`` (a rules object), in the spec's layout."""
    options = spec.resolve_options({"num_players": game.num_players})
    out = np.zeros(spec.layout(options).size, OBS_DTYPE)
    game.encode(seat, out)
    return out


def game_mask(spec: GameSpec, game: Any) -> np.ndarray:
    """The action mask of the reference ``game`` (all zeros once it is over)."""
    out = np.zeros(spec.rules.num_actions(spec.resolve_options(
        {"num_players": game.num_players})), np.int8)
    if not game.is_over:
        out[game.legal_actions()] = 1
    return out


def check_row(engine: BatchedEngine, i: int, game: Any, observe: Callable[[Any, int], np.ndarray],
              mask: Callable[[Any], np.ndarray]) -> None:
    """Row ``i`` of the engine shows the reference ``game``: seat to move, observation, mask."""
    assert engine.to_move[i] == game.current_player
    np.testing.assert_array_equal(engine.obs[i], observe(game, game.current_player))
    np.testing.assert_array_equal(engine.mask[i], mask(game))


def paid_by(rule: Any, game: Any, action: int) -> np.ndarray:
    """Apply ``action`` to the reference ``game``: the rewards ``rule`` pays for it."""
    before = rule.values(game)
    game.apply(int(action))
    return np.array(rule.values(game), np.float32) - np.array(before, np.float32)


def check_final_row(engine: BatchedEngine, i: int, game: Any,
                    observe: Callable[[int], np.ndarray]) -> None:
    """Game ``i`` finished in the last call: its row of ``final_scores`` / ``final_obs`` (found
    at its rank among the games done) holds the reference ``game``'s scores and each seat's
    ``observe(seat)``."""
    assert engine.done[i]
    rank = int(np.count_nonzero(engine.done[:i]))
    assert engine.final_scores.shape[0] == int(engine.done.sum())
    np.testing.assert_array_equal(engine.final_scores[rank], np.asarray(game.scores, np.float64))
    for seat in range(engine.num_players):
        np.testing.assert_array_equal(engine.final_obs[rank, seat], observe(seat))


def check_same_game(engine: BatchedEngine, i: int, ref: Any,
                    observe: Callable[[Any, int], np.ndarray]) -> None:
    """``engine.game(i)`` is ``ref``: deals, history, scores, seat to move, observation, moves."""
    game = engine.game(i)
    assert game.deals == ref.deals and game.history == ref.history
    assert game.current_player == ref.current_player and game.scores == ref.scores
    np.testing.assert_array_equal(observe(game, ref.current_player),
                                  observe(ref, ref.current_player))
    assert game.legal_actions() == ref.legal_actions()
