"""Replaying a log through the env with every step checked: ``replay_log``, ``replay_env``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.errors import RetiredEnvError
from cahoots_envs.gamelog.digest import GameDigest, _jsonable
from cahoots_envs.gamelog.format import GAME_HEADER_FIELDS, GameLog, ReplayError, check_log


@dataclass
class ReplayResult:
    env: Any
    turns: int
    scores: list[float]
    complete: bool  # the log ends the game and the replay reached that end, with the same result
    abandoned: bool = False  # the log ends with an abandoned end record, which the replay reached
    ended_by: str | None = None  # how the logged game ended ("rules", "illegal_action"), if it did


_ENV_ERRORS = (ValueError, TypeError, KeyError, IndexError)  # what a malformed deal or option raises


def replay_env(log: GameLog, render_mode: str | None = "ansi") -> Any:
    """A bare env built and reset exactly as the logged game was."""
    from cahoots_envs.registry import game_spec, list_envs, make_raw

    header = log.header
    at = f"{log.where(header)}: header"
    env_id = header["env_id"]
    name = env_id.split("/", 1)[-1]
    game_name, _, _version = name.partition("-v")
    envs = list_envs()
    try:
        spec = game_spec(env_id, replay=True)
    except RetiredEnvError as e:  # rules changed since: the log's game is no longer playable
        raise ReplayError(f"the log is for {env_id}, which this package cannot replay: {e}") from None
    except ValueError:
        known = {e.split("/", 1)[1] for e in envs}
        same_game = [k for k in known if k.startswith(game_name + "-v")]
        hint = f"this package has {same_game[0]}" if same_game else f"known envs: {', '.join(sorted(known))}"
        raise ReplayError(f"the log is for {env_id}, which this package does not have ({hint})") from None
    if "/" not in env_id or not _version.isdigit():
        raise ReplayError(f"{at}: 'env_id' must be a full id like {spec.env_id}, got {env_id!r}")
    options = dict(header["options"])
    if "render_mode" in options:
        raise ReplayError(f"{at}: 'options' holds render_mode, which is not a game option")
    try:
        # a log of an earlier version whose rules are unchanged replays on the current env
        env = make_raw(spec.env_id, render_mode=render_mode, **options)
    except _ENV_ERRORS as e:
        raise ReplayError(f"{at}: 'options' are not options of {env_id}: {e}") from None
    if header["env_version"] != int(_version):
        raise ReplayError(f"{at}: 'env_version' is {header['env_version']!r} but the log's env "
                          f"is {env_id}")
    logged_options = {k: header["options"][k] for k in env.options if k in header["options"]}
    if {k: env.options[k] for k in logged_options} != logged_options:
        raise ReplayError(f"{at}: 'options' {logged_options} are not as {env_id} reads them "
                          f"({env.options})")
    players = header.get("players")
    if players is not None and len(players) != len(env.possible_agents):
        raise ReplayError(f"{at}: 'players' names {len(players)} players for "
                          f"{len(env.possible_agents)} seats")
    reset_options: dict[str, Any] | None = None
    if header["scripted"]:
        if "script_hands" in header:  # a whole-game deal: the header's and the next k - 1 hands'
            later = [e["deal"] for e in log.events if e["type"] == "deal"]
            reset_options = {"deal": [header["deal"], *later[: int(header["script_hands"]) - 1]]}
        else:
            reset_options = {"deal": header["deal"]}
    seed = header["seed"]
    try:
        env.reset(seed=seed, options=reset_options)
    except _ENV_ERRORS as e:
        raise ReplayError(f"{at}: 'deal' is not a deal {env_id} accepts: {e}") from None
    dealt = env.game.deals[0]
    if not _same_deal(env, 0, header["deal"]):
        raise ReplayError(
            f"{env_id} no longer deals the logged deal for seed {seed}: logged "
            f"{json.dumps(header['deal'])}, dealt now {json.dumps(dealt)}"
        )
    return env


def _same_deal(env: Any, hand: int, logged: Any) -> bool:
    """Whether ``logged`` is hand ``hand``'s deal as the env dealt it (``env.game.deals[hand]``).

    Logs written before the engines recorded their deals rebuilt cahoots_coop's goal order from
    the state after setup; where setup completed goals, several orders end in the very same
    state and the log may hold another one than the engine dealt. Such a first deal is the same
    deal when both set up the same game."""
    game = env.game
    dealt = game.deals[hand] if 0 <= hand < len(game.deals) else None
    if logged == dealt:
        return True
    if hand != 0 or not isinstance(logged, Mapping) or set(logged) != set(dealt or ()):
        return False
    try:
        theirs = type(game)(env.options, np.random.default_rng(0), logged)
    except _ENV_ERRORS:
        return False
    ours = type(game)(env.options, np.random.default_rng(0), dealt)
    skip = ("deals", "rng")
    return {k: v for k, v in vars(theirs).items() if k not in skip} == {
        k: v for k, v in vars(ours).items() if k not in skip
    }


def replay_log(
    log: GameLog | str | Path,
    on_step: Callable[[Any, dict[str, Any]], None] | None = None,
    stop_after: int | None = None,
    partial: bool = False,
) -> ReplayResult:
    """Re-play ``log`` through the env, checking every record; ``on_step(env, record)`` runs
    after each action. Raises ``ReplayError`` naming the first thing that differs. A log
    without end record (a game cut short) is an error unless ``partial`` (or ``stop_after``,
    which stops after that many actions); an abandoned log replays up to its end record."""
    if not isinstance(log, GameLog):
        log = GameLog.load(log)
    check_log(log)  # also a log built or edited in Python
    env = replay_env(log)
    game = env.game
    header = log.header
    digest = GameDigest({**{k: header[k] for k in GAME_HEADER_FIELDS if k in header},
                         "options": _jsonable(env.options), "deal": game.deals[0]})
    turns = 0
    logged_hand = 0  # the last hand whose deal the log has shown
    for event in log.events:
        if event["type"] == "deal":
            hand = event["hand"]
            game = env.game
            where = f"{log.where(event)}: hand {hand}"
            if game.hand_index != hand:
                raise ReplayError(f"{where}: the log deals hand {hand} here but the env is in "
                                  f"hand {game.hand_index}")
            dealt = game.deals[hand]
            if dealt != event["deal"]:
                raise ReplayError(
                    f"{where}: the env dealt a different hand than the log "
                    f"(logged {json.dumps(event['deal'])}, dealt {json.dumps(dealt)})"
                )
            logged_hand = hand
            digest.deal(hand, dealt)
            continue
        if stop_after is not None and turns >= stop_after:
            break
        game = env.game
        where = f"{log.where(event)}: turn {event['turn']}"
        _check_no_unlogged_hand(game, logged_hand, where)
        if game.is_over:
            raise ReplayError(f"{where}: the log has {event['action']!r} but the game is already over")
        if game.current_player != event["seat"]:
            raise ReplayError(
                f"{where}: the log has player_{event['seat']} acting ({event['action']!r}) but it "
                f"is player_{game.current_player}'s turn"
            )
        if game.phase != event["phase"]:
            raise ReplayError(f"{where}: the log has phase {event['phase']!r} but the game is in "
                              f"phase {game.phase!r}")
        try:
            action = env.str_to_action(event["action"])
        except ValueError as e:
            raise ReplayError(f"{where}: player_{event['seat']}'s logged action is not legal: {e}") from None
        digest.action(turns, game.current_player, game.phase, env.action_to_str(action))
        env.step(action)
        turns += 1
        if on_step is not None:
            on_step(env, event)
    game = env.game
    scores = [float(s) for s in game.scores]
    result = ReplayResult(env=env, turns=turns, scores=scores, complete=False)
    end = log.end
    if end is None:
        if not partial and stop_after is None:
            raise ReplayError(
                f"{log.source}: the log has no end record: it stops after {turns} actions (every "
                "one legal), cut short or truncated; a partial replay (--partial, partial=True) "
                "accepts that")
        return result
    if stop_after is not None and turns < len(log.actions):
        return result
    where = f"{log.where(end)}: end record"
    _check_no_unlogged_hand(game, logged_hand, where)
    if log.abandoned:
        if game.is_over:
            raise ReplayError(f"{where}: the log says the game was abandoned after {turns} "
                              "actions but the game is over there")
        if "scores" in end:
            _check_numbers(where, "scores", end["scores"], scores)
        _check_digest(where, end, digest)
        result.abandoned = True
        return result
    ended_by = end.get("ended_by", "rules")
    if ended_by == "illegal_action":
        if game.is_over:
            raise ReplayError(f"{where}: the log says an illegal action ended the game after "
                              f"{turns} actions but the game is over there by its rules")
        illegal = end["illegal_action"]
        seat = illegal["seat"]
        if game.current_player != seat:
            raise ReplayError(f"{where}: 'illegal_action' is player_{seat}'s but it is "
                              f"player_{game.current_player}'s turn")
        if game.phase != illegal["phase"]:
            raise ReplayError(f"{where}: 'illegal_action' has phase {illegal['phase']!r} but the "
                              f"game is in phase {game.phase!r}")
        action_id = illegal["action_id"]
        if not action_id < env.num_actions or game.action_to_str(action_id) != illegal["action"]:
            raise ReplayError(f"{where}: 'illegal_action' {illegal['action']!r} is not action "
                              f"{action_id} of {env.env_id}")
        if action_id in env.legal_actions():
            raise ReplayError(f"{where}: 'illegal_action' {illegal['action']!r} is legal there")
        outcome = [-1.0 if s == seat else 0.0 for s in range(len(scores))]
        winners: list[int] = []
    else:
        if not game.is_over:
            raise ReplayError(f"the log ends the game after {turns} actions but the game is not over")
        outcome = [float(x) for x in game.outcome()]
        winners = [int(w) for w in game.winning_seats()]
    _check_numbers(where, "scores", end["scores"], scores, "final scores differ")
    _check_numbers(where, "outcome", end["outcome"], outcome)
    if "winners" in end and sorted(end["winners"]) != sorted(winners):
        raise ReplayError(f"{where}: 'winners' differ: logged {end['winners']}, replayed {winners}")
    _check_digest(where, end, digest)
    result.complete = True
    result.ended_by = ended_by
    return result


def _check_numbers(where: str, name: str, logged: Sequence[float], replayed: Sequence[float],
                   what: str | None = None) -> None:
    logged = [float(x) for x in logged]
    if len(logged) != len(replayed) or any(abs(a - b) > 1e-9 for a, b in zip(logged, replayed)):
        raise ReplayError(f"{where}: {what or repr(name) + ' differ'}: logged {logged}, "
                          f"replayed {list(replayed)}")


def _check_digest(where: str, end: Mapping[str, Any], digest: GameDigest) -> None:
    if "digest" in end and end["digest"] != digest.hexdigest():
        raise ReplayError(f"{where}: 'digest' does not match the game replayed: the log was "
                          "edited after it was written (into another game that also replays)")


def _check_no_unlogged_hand(game: Game, logged_hand: int, where: str) -> None:
    if game.hand_index != logged_hand:
        raise ReplayError(
            f"{where}: the env has dealt hand {game.hand_index}, which the log does not have "
            f"(its last deal is hand {logged_hand}): {json.dumps(game.deals[-1])}"
        )
