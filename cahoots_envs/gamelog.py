"""Game logs: any game written as JSON lines, and replayed through the env with every step checked.

A log is one JSON object per line::

    {"type": "header", "format": "cahoots-envs-gamelog", "format_version": 1,
     "env_id": "cahoots_envs/kansas_city-v0", "env_version": 0, "options": {...},
     "seed": 7, "scripted": false, "deal": {...}, "players": [...]}
                                           # (+ "script_hands": k after a whole-game reset)
    {"type": "action", "turn": 0, "seat": 1, "agent": "player_1", "phase": "pass",
     "action": "pass 3A 5B 8G"}
    ...
    {"type": "deal", "hand": 1, "deal": {...}}      # a later hand of a multi-hand game
    ...
    {"type": "end", "turns": 130, "scores": [...], "outcome": [...]}

``deal`` is a hand's deal in the scripted-deal format of CONTRACT §5 as the engine recorded it
when it dealt (``game.deals``, one entry per hand): the header holds the first hand's, and a
``deal`` event follows the action after which ``game.deals`` grew, for every new entry, so no
hand a game deals is left out. ``seed`` and ``scripted`` record the reset call itself: the replay
makes the very same call (``env.reset(seed=seed)``, or ``env.reset(seed=seed, options={"deal":
deal})`` when the game was started from a scripted deal), because the RNG also deals later hands
(and, in cahoots_tricks' random point split, shares point cards) and a scripted deal draws less
from it. A game started from a whole-game deal (a list, one deal per hand; CONTRACT §7) has
``"script_hands": k`` in its header: the replay scripts the header's deal and the first ``k - 1``
logged ``deal`` events. The replay then checks that the env still deals exactly the logged deals
(``game.deals``), that every logged action is legal for the logged seat when it comes, and that
the final scores match.

Record from Python with ``GameRecorder`` (a thin wrapper around any env of this package)::

    rec = GameRecorder(cahoots_envs.make("kansas_city-v0"), players=["me", "bot", "bot", "bot"])
    rec.reset(seed=7)
    while not rec.done:
        rec.step(my_choice(rec.env))
    rec.save("game.jsonl")

and replay with ``replay_log("game.jsonl")`` or ``cahoots replay game.jsonl``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game

LOG_FORMAT = "cahoots-envs-gamelog"
LOG_FORMAT_VERSION = 1


class ReplayError(ValueError):
    """A log that no longer replays: an action not legal now, a different deal or final score."""


# ---- the log ----------------------------------------------------------------------------------
@dataclass
class GameLog:
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)  # actions and later deals
    end: dict[str, Any] | None = None

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "action"]

    def lines(self) -> list[str]:
        records = [self.header, *self.events] + ([self.end] if self.end is not None else [])
        return [json.dumps(r, separators=(", ", ": ")) for r in records]

    def to_jsonl(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_jsonl())
        return path

    @classmethod
    def from_lines(cls, lines: Iterable[str], source: str = "log") -> GameLog:
        header = None
        events: list[dict[str, Any]] = []
        end = None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{source}:{number}: not JSON ({e.msg})") from None
            kind = record.get("type") if isinstance(record, dict) else None
            if number == 1 or header is None:
                if kind != "header" or record.get("format") != LOG_FORMAT:
                    raise ValueError(f"{source}:{number}: not a cahoots-envs game log (no header line)")
                if record.get("format_version", 0) > LOG_FORMAT_VERSION:
                    raise ValueError(
                        f"{source}: log format {record['format_version']} is newer than this "
                        f"package reads ({LOG_FORMAT_VERSION}); upgrade cahoots-envs"
                    )
                header = record
            elif kind in ("action", "deal"):
                events.append(record)
            elif kind == "end":
                end = record
            else:
                raise ValueError(f"{source}:{number}: unknown record type {kind!r}")
        if header is None:
            raise ValueError(f"{source}: empty log")
        return cls(header, events, end)

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        path = Path(path)
        with path.open() as f:
            return cls.from_lines(f, str(path))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


class GameRecorder:
    """Wraps an env of this package: ``reset``/``step`` go through and are written to the log.

    ``players`` (optional) names who sat in each seat (policy specs, "human", ...)."""

    def __init__(self, env: Any, players: list[str] | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
        self.env = env
        self.raw = env.unwrapped
        self.players = list(players) if players is not None else None
        self.meta = dict(meta or {})
        self.log: GameLog | None = None
        self._logged = 0  # entries of game.deals written to the log
        self._turn = 0

    @property
    def game(self) -> Game:
        return self.raw.game

    @property
    def done(self) -> bool:
        return self.raw.game is None or self.raw.game.is_over or all(self.raw.terminations.values())

    def reset(
        self, seed: int | None = None,
        deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Reset the env; without a seed one is drawn so that the log can replay later hands.
        ``deal`` is the first hand's deal or a whole-game deal (a list, one deal per hand)."""
        if seed is None:
            seed = secrets.randbits(31)
        script: dict[str, Any] | list[dict[str, Any]] | None = None
        if isinstance(deal, Mapping):
            script = dict(deal)
        elif deal is not None:
            script = [dict(d) if isinstance(d, Mapping) else d for d in deal]  # the env checks
        self.env.reset(seed=seed, options=None if script is None else {"deal": script})
        raw = self.raw
        header = {
            "type": "header",
            "format": LOG_FORMAT,
            "format_version": LOG_FORMAT_VERSION,
            "env_id": raw.env_id,
            "env_version": raw.game_cls.VERSION,
            "options": _jsonable(raw.options),  # the game's options (render_mode is not one)
            "seed": int(seed),
            "scripted": deal is not None,
            "deal": _jsonable(raw.game.deals[0]),
        }
        if isinstance(script, list):
            header["script_hands"] = len(script)
        if self.players is not None:
            header["players"] = self.players
        header.update(_jsonable(self.meta))
        self.log = GameLog(header)
        self._logged = 1
        self._turn = 0
        self._log_new_deals()
        if raw.game.is_over:
            self._finish()

    def step(self, action: int) -> None:
        if self.log is None:
            raise RuntimeError("GameRecorder.step before reset")
        game = self.raw.game
        seat = game.current_player
        record = {
            "type": "action",
            "turn": self._turn,
            "seat": seat,
            "agent": f"player_{seat}",
            "phase": game.phase,
            "action": game.action_to_str(int(action)),
        }
        self.env.step(action)
        self.log.events.append(record)
        self._turn += 1
        self._log_new_deals()
        if self.raw.game.is_over:
            self._finish()

    def _log_new_deals(self) -> None:
        """A ``deal`` event for every hand the game has dealt since the last one logged."""
        assert self.log is not None
        deals = self.raw.game.deals
        for hand in range(self._logged, len(deals)):
            self.log.events.append({"type": "deal", "hand": hand, "deal": _jsonable(deals[hand])})
        self._logged = max(self._logged, len(deals))

    def _finish(self) -> None:
        assert self.log is not None
        game = self.raw.game
        self.log.end = {
            "type": "end",
            "turns": self._turn,
            "scores": [float(s) for s in game.scores],
            "outcome": [float(x) for x in game.outcome()],
        }

    def save(self, path: str | Path) -> Path:
        if self.log is None:
            raise RuntimeError("nothing recorded yet")
        return self.log.save(path)


# ---- replay -----------------------------------------------------------------------------------
@dataclass
class ReplayResult:
    env: Any
    turns: int
    scores: list[float]
    complete: bool  # the log had an end record and the replay reached it


def replay_env(log: GameLog, render_mode: str | None = "ansi") -> Any:
    """A bare env built and reset exactly as the logged game was."""
    import cahoots_envs

    header = log.header
    env_id = header["env_id"]
    name = env_id.split("/", 1)[-1]
    game_name, _, _version = name.partition("-v")
    known = {e.split("/", 1)[1] for e in cahoots_envs.list_envs()}
    if name not in known:
        same_game = [k for k in known if k.startswith(game_name + "-v")]
        hint = f"this package has {same_game[0]}" if same_game else f"known envs: {', '.join(sorted(known))}"
        raise ReplayError(f"the log is for {env_id}, which this package does not have ({hint})")
    options = dict(header.get("options", {}))
    env = cahoots_envs.make_raw(env_id, render_mode=render_mode, **options)
    reset_options: dict[str, Any] | None = None
    if header.get("scripted"):
        if "script_hands" in header:  # a whole-game deal: the header's and the next k - 1 hands'
            later = [e["deal"] for e in log.events if e["type"] == "deal"]
            reset_options = {"deal": [header["deal"], *later[: int(header["script_hands"]) - 1]]}
        else:
            reset_options = {"deal": header["deal"]}
    seed = header.get("seed")
    if seed is None and not header.get("scripted"):
        reset_options = {"deal": header["deal"]}  # an unseeded log: at least the first deal
    env.reset(seed=seed, options=reset_options)
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
    except ValueError:
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
) -> ReplayResult:
    """Re-play ``log`` through the env, checking every step; ``on_step(env, record)`` runs after
    each action. Raises ``ReplayError`` naming the first thing that differs."""
    if not isinstance(log, GameLog):
        log = GameLog.load(log)
    env = replay_env(log)
    game = env.game
    turns = 0
    logged_hand = 0  # the last hand whose deal the log has shown
    for event in log.events:
        if event["type"] == "deal":
            dealt = env.game.deals[-1]
            if env.game.hand_index != event["hand"] or dealt != event["deal"]:
                raise ReplayError(
                    f"hand {event['hand']}: the env dealt a different hand than the log "
                    f"(logged {json.dumps(event['deal'])}, dealt {json.dumps(dealt)})"
                )
            logged_hand = event["hand"]
            continue
        if stop_after is not None and turns >= stop_after:
            break
        game = env.game
        where = f"turn {event.get('turn', turns)}"
        _check_no_unlogged_hand(game, logged_hand, where)
        if game.is_over:
            raise ReplayError(f"{where}: the log has {event['action']!r} but the game is already over")
        if game.current_player != event["seat"]:
            raise ReplayError(
                f"{where}: the log has player_{event['seat']} acting ({event['action']!r}) but it "
                f"is player_{game.current_player}'s turn"
            )
        try:
            action = env.str_to_action(event["action"])
        except ValueError as e:
            raise ReplayError(f"{where}: player_{event['seat']}'s logged action is not legal: {e}") from None
        env.step(action)
        turns += 1
        if on_step is not None:
            on_step(env, event)
    game = env.game
    scores = [float(s) for s in game.scores]
    complete = False
    if log.end is not None and (stop_after is None or turns >= len(log.actions)):
        _check_no_unlogged_hand(game, logged_hand, "the end")
        if not game.is_over:
            raise ReplayError(f"the log ends the game after {turns} actions but the game is not over")
        logged = [float(s) for s in log.end["scores"]]
        if any(abs(a - b) > 1e-9 for a, b in zip(scores, logged)) or len(scores) != len(logged):
            raise ReplayError(f"final scores differ: logged {logged}, replayed {scores}")
        complete = True
    return ReplayResult(env=env, turns=turns, scores=scores, complete=complete)


def _check_no_unlogged_hand(game: Game, logged_hand: int, where: str) -> None:
    if game.hand_index != logged_hand:
        raise ReplayError(
            f"{where}: the env has dealt hand {game.hand_index}, which the log does not have "
            f"(its last deal is hand {logged_hand}): {json.dumps(game.deals[-1])}"
        )
