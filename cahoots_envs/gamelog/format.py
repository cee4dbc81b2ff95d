"""Game logs: any game written as JSON lines, and replayed through the env with every step checked.

A log is one JSON object per line::

    {"type": "header", "format": "cahoots-envs-gamelog", "format_version": 1,
     "env_id": "cahoots_envs/kansas_city-v1", "env_version": 1, "options": {...},
     "seed": 7, "scripted": false, "deal": {...}, "players": [...]}
                                           # (+ "script_hands": k after a whole-game reset)
    {"type": "action", "turn": 0, "seat": 1, "agent": "player_1", "phase": "pass",
     "action": "pass 3A 5B 8G"}
    ...
    {"type": "deal", "hand": 1, "deal": {...}}      # a later hand of a multi-hand game
    ...
    {"type": "end", "turns": 130, "scores": [...], "outcome": [...], "winners": [2],
     "ended_by": "rules"}

The end record uses the field names of ``env.unwrapped.result()``: ``scores``, ``outcome``,
``winners``, ``ended_by`` (``"rules"``, or ``"illegal_action"`` when a protected env ended the
game on an illegal move, which the record then describes under ``"illegal_action"``), plus
``turns``, the number of actions, and ``digest``, a SHA-256 over what defines the game (the
header's env, options, seed and deal, then every action and deal record; not the players' names
or fields of one's own), which the replay recomputes: an edit that leaves a log consistent but
makes it another game (a last move swapped for another with the same result) is found too.
A game left unfinished (quit, end of input, Ctrl-C, SIGTERM, SIGHUP) ends its log with
``{"type": "end", "abandoned": true, "turns": N, "scores": [...], "reason": ..., "digest":
...}`` (the scores so far; ``reason``, optional, says how it was left: ``"quit"``, ``"end of
input"``, ``"SIGINT"``, ``"SIGTERM"``, ...). Logs written before ``winners``, ``ended_by``,
``digest`` and ``reason`` existed replay as before.

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
the final result matches. Every field of every record is checked (types, the turn numbers,
each action's seat, agent and phase, the hand numbers, the end record), numbers must be finite,
and a log read from a file may hold at most ``MAX_LOG_BYTES``, no line longer than
``MAX_LOG_LINE``.

Record from Python with ``GameRecorder`` (a thin wrapper around any env of this package)::

    rec = GameRecorder(cahoots_envs.make("kansas_city-v1"), players=["me", "bot", "bot", "bot"])
    rec.reset(seed=7)
    while not rec.done:
        rec.step(my_choice(rec.env))
    rec.save("game.jsonl")

or give it ``path=`` to write the log record by record as the game goes (flushed after each),
used as a context manager so that a game left unfinished still gets its (abandoned) end record.
Replay with ``replay_log("game.jsonl")`` or ``cahoots replay game.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.errors import RetiredEnvError

LOG_FORMAT = "cahoots-envs-gamelog"
LOG_FORMAT_VERSION = 1
MAX_LOG_BYTES = 64 * 1024 * 1024  # a log file may hold at most this (a real one: under 100 KiB)
MAX_LOG_LINE = 1024 * 1024  # and no line longer than this (a real one: under 2 KiB)
HEADER_FIELDS = ("type", "format", "format_version", "env_id", "env_version", "options", "seed",
                 "scripted", "deal", "script_hands", "players")  # GameRecorder(meta=) adds others
ACTION_FIELDS = ("type", "turn", "seat", "agent", "phase", "action")
DEAL_FIELDS = ("type", "hand", "deal")
END_FIELDS = ("type", "turns", "scores", "outcome", "winners", "ended_by", "illegal_action",
              "digest")
ABANDONED_END_FIELDS = ("type", "abandoned", "turns", "scores", "reason", "digest")
GAME_HEADER_FIELDS = ("env_id", "env_version", "options", "seed", "scripted", "deal",
                      "script_hands")  # the header fields the digest covers
ILLEGAL_ACTION_FIELDS = ("seat", "agent", "phase", "action", "action_id")


class ReplayError(ValueError):
    """A log that does not replay: not a well-formed log (the message names the line and the
    field), or one the env disagrees with (an action not legal now, another deal or result)."""


# ---- the log ----------------------------------------------------------------------------------
@dataclass
class GameLog:
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)  # actions and later deals
    end: dict[str, Any] | None = None
    source: str = "log"  # where it was read from, for messages
    # the line each record was read from (by record identity), for messages
    line_numbers: dict[int, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "action"]

    @property
    def abandoned(self) -> bool:
        """Whether the log ends with an abandoned end record (a game left unfinished)."""
        return self.end is not None and self.end.get("abandoned") is True

    def lines(self) -> list[str]:
        records = [self.header, *self.events] + ([self.end] if self.end is not None else [])
        return [_dumps(r) for r in records]

    def to_jsonl(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_jsonl())
        return path

    def where(self, record: Mapping[str, Any] | None) -> str:
        """``source:line`` of a record read from a file, ``source`` otherwise."""
        line = self.line_numbers.get(id(record)) if record is not None else None
        return f"{self.source}:{line}" if line else self.source

    @classmethod
    def from_lines(cls, lines: Iterable[str], source: str = "log") -> GameLog:
        """Parse and check a log's lines (see ``check_log``); ``ReplayError`` (a ``ValueError``)
        names the line and the field of the first problem."""
        header = None
        events: list[dict[str, Any]] = []
        end = None
        end_line = 0
        numbers: dict[int, int] = {}
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_LOG_LINE:
                raise ReplayError(f"{source}:{number}: line longer than {MAX_LOG_LINE} characters "
                                  "(a game log's lines are far shorter)")
            if not line.strip():
                continue
            record = _parse_record(line, f"{source}:{number}")
            kind = record.get("type")
            if header is None:
                if kind != "header" or record.get("format") != LOG_FORMAT:
                    raise ReplayError(f"{source}:{number}: not a cahoots-envs game log (no header line)")
                version: Any = record.get("format_version")
                if not _is_int(version) or version < 1:
                    raise ReplayError(f"{source}:{number}: header: 'format_version' must be a "
                                      f"whole number from 1, got {version!r}")
                if version > LOG_FORMAT_VERSION:
                    raise ReplayError(
                        f"{source}: log format {version} is newer than this package reads "
                        f"({LOG_FORMAT_VERSION}); upgrade cahoots-envs"
                    )
                header = record
            elif end is not None:
                what = "a second end record" if kind == "end" else f"a {kind!r} record"
                raise ReplayError(f"{source}:{number}: {what} after the end record (line "
                                  f"{end_line}); the end record must be the last line")
            elif kind in ("action", "deal"):
                events.append(record)
            elif kind == "end":
                end = record
                end_line = number
            elif kind == "header":
                raise ReplayError(f"{source}:{number}: a second header record")
            else:
                raise ReplayError(f"{source}:{number}: unknown record type {kind!r} (a log has "
                                  "'header', 'action', 'deal' and 'end' records)")
            numbers[id(record)] = number
        if header is None:
            raise ReplayError(f"{source}: empty log")
        log = cls(header, events, end, source=source, line_numbers=numbers)
        check_log(log)
        return log

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        """Read and check a log file, of at most ``MAX_LOG_BYTES`` and no line longer than
        ``MAX_LOG_LINE`` bytes (also for a pipe or a device, read only that far)."""
        path = Path(path)
        return cls.from_lines(_read_lines(path), str(path))


def _read_lines(path: Path) -> list[str]:
    if path.is_dir():
        raise ReplayError(f"{path} is a folder, not a game log")
    mib = MAX_LOG_BYTES // (1024 * 1024)
    lines: list[str] = []
    with path.open("rb") as f:
        info = os.fstat(f.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > MAX_LOG_BYTES:
            raise ReplayError(f"{path}: {info.st_size} bytes is more than a game log may hold "
                              f"({mib} MiB)")
        total = 0
        while True:
            raw = f.readline(MAX_LOG_LINE + 1)
            if not raw:
                break
            total += len(raw)
            if len(raw) > MAX_LOG_LINE and not raw.endswith(b"\n"):
                raise ReplayError(f"{path}:{len(lines) + 1}: line longer than {MAX_LOG_LINE} "
                                  "bytes (a game log's lines are far shorter); not a game log?")
            if total > MAX_LOG_BYTES:
                raise ReplayError(f"{path}: more than a game log may hold ({mib} MiB)")
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise ReplayError(f"{path}:{len(lines) + 1}: not UTF-8 text; not a game log?") from None
    return lines


def _dumps(record: Mapping[str, Any]) -> str:
    return json.dumps(record, separators=(", ", ": "), allow_nan=False)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a game log may hold")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        twice = sorted({k for k, _ in pairs if k in seen or seen.add(k)})  # type: ignore[func-returns-value]
        raise ValueError(f"the key(s) {twice} appear twice")
    return record


def _parse_record(line: str, where: str) -> dict[str, Any]:
    """One JSON object; NaN, Infinity, numbers out of float range and repeated keys refused."""
    try:
        record = json.loads(line, parse_constant=_no_constant, parse_float=_finite_float,
                            object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise ReplayError(f"{where}: not JSON ({e.msg})") from None
    except (ValueError, RecursionError) as e:  # NaN, 1e999, repeated keys, a huge integer, nesting
        raise ReplayError(f"{where}: not JSON ({e})") from None
    if not isinstance(record, dict):
        raise ReplayError(f"{where}: a record is a JSON object, got {type(record).__name__}")
    return record


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)) and math.isfinite(value))


class _Fields:
    """Checks the fields of one record; errors name the record's line and the field."""

    def __init__(self, log: GameLog, record: Mapping[str, Any], label: str,
                 at: Mapping[str, Any] | None = None) -> None:
        self.log, self.record, self.label = log, record, label
        self.at = record if at is None else at  # the record whose line the messages name

    def error(self, message: str) -> ReplayError:
        return ReplayError(f"{self.log.where(self.at)}: {self.label}: {message}")

    def allowed(self, names: Sequence[str]) -> None:
        extra = sorted(str(k) for k in self.record if k not in names)
        if extra:
            raise self.error(f"unknown field(s) {extra} (this record has {', '.join(names)})")

    def get(self, name: str) -> Any:
        if name not in self.record:
            raise self.error(f"the field {name!r} is missing")
        return self.record[name]

    def as_int(self, name: str, low: int = 0) -> int:
        value = self.get(name)
        if not _is_int(value) or value < low:
            raise self.error(f"{name!r} must be a whole number from {low}, got {value!r}")
        return int(value)

    def as_str(self, name: str) -> str:
        value = self.get(name)
        if not isinstance(value, str):
            raise self.error(f"{name!r} must be a string, got {value!r}")
        return value

    def as_dict(self, name: str) -> dict[str, Any]:
        value = self.get(name)
        if not isinstance(value, dict):
            raise self.error(f"{name!r} must be a JSON object, got {value!r}"[:300])
        return value

    def numbers(self, name: str) -> list[float]:
        value = self.get(name)
        if not isinstance(value, list) or not value or not all(_is_number(x) for x in value):
            raise self.error(f"{name!r} must be a list of finite numbers, got {value!r}"[:300])
        return [float(x) for x in value]

    def seats(self, name: str) -> list[int]:
        value = self.get(name)
        if (not isinstance(value, list) or not all(_is_int(x) and x >= 0 for x in value)
                or len(set(value)) != len(value)):
            raise self.error(f"{name!r} must be a list of distinct seat numbers, got {value!r}"[:300])
        return [int(x) for x in value]


def check_log(log: GameLog) -> None:
    """Check the form of every record (fields, types, turn and hand numbers, agents, the end
    record) before any replay; ``ReplayError`` names the line and the field. What only the env
    knows (legality, phases, deals, the result) ``replay_log`` checks."""
    h = _Fields(log, log.header, "header")
    if not isinstance(log.header, dict) or log.header.get("type") != "header":
        raise h.error("the first record must be the header")
    if h.get("format") != LOG_FORMAT:
        raise h.error(f"'format' must be {LOG_FORMAT!r}")
    version = h.as_int("format_version", 1)
    if version > LOG_FORMAT_VERSION:
        raise h.error(f"log format {version} is newer than this package reads "
                      f"({LOG_FORMAT_VERSION}); upgrade cahoots-envs")
    h.as_str("env_id")
    h.as_int("env_version")
    h.as_dict("options")
    h.as_int("seed")
    scripted = h.get("scripted")
    if not isinstance(scripted, bool):
        raise h.error(f"'scripted' must be true or false, got {scripted!r}")
    h.as_dict("deal")
    if "script_hands" in log.header:
        if not scripted:
            raise h.error("'script_hands' belongs to a scripted game ('scripted': true)")
        later = sum(1 for e in log.events if isinstance(e, dict) and e.get("type") == "deal")
        if h.as_int("script_hands", 1) > 1 + later:
            raise h.error(f"'script_hands' is {log.header['script_hands']} but the log has "
                          f"{1 + later} hands' deals")
    if "players" in log.header:
        players = log.header["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise h.error(f"'players' must be a list of strings, got {players!r}"[:300])
    turn = 0
    hand = 0
    for record in log.events:
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "action":
            f = _Fields(log, record, f"action (turn {turn})")
            f.allowed(ACTION_FIELDS)
            logged_turn = f.get("turn")
            if not _is_int(logged_turn) or logged_turn != turn:
                raise f.error(f"'turn' must be {turn} (turns count the actions from 0), got "
                              f"{logged_turn!r}")
            seat = f.as_int("seat")
            agent = f.get("agent")
            if agent != f"player_{seat}":
                raise f.error(f"'agent' must be 'player_{seat}' (the agent of seat {seat}), got "
                              f"{agent!r}")
            f.as_str("phase")
            f.as_str("action")
            turn += 1
        elif kind == "deal":
            f = _Fields(log, record, f"deal (after turn {turn - 1})" if turn else "deal")
            f.allowed(DEAL_FIELDS)
            logged_hand = f.get("hand")
            if not _is_int(logged_hand) or logged_hand != hand + 1:
                raise f.error(f"'hand' must be {hand + 1} (the hands' deals come in order, "
                              f"one each), got {logged_hand!r}")
            f.as_dict("deal")
            hand += 1
        else:
            where = log.where(record if isinstance(record, dict) else None)
            raise ReplayError(f"{where}: an event must be an 'action' or a 'deal' record, got "
                              f"{str(record)[:100]}")
    if log.end is None:
        return
    e = _Fields(log, log.end, "end record")
    if not isinstance(log.end, dict) or log.end.get("type") != "end":
        raise e.error("the end record must have 'type': 'end'")
    if "abandoned" in log.end:
        e.allowed(ABANDONED_END_FIELDS)
        if log.end["abandoned"] is not True:
            raise e.error(f"'abandoned' is true when present, got {log.end['abandoned']!r}")
        if "reason" in log.end and not isinstance(log.end["reason"], str):
            raise e.error(f"'reason' must be a string, got {log.end['reason']!r}"[:300])
    else:
        e.allowed(END_FIELDS)
    turns = e.get("turns")
    if not _is_int(turns) or turns != turn:
        raise e.error(f"'turns' must be {turn}, the number of actions logged, got {turns!r}")
    if "scores" in log.end or "abandoned" not in log.end:
        e.numbers("scores")
    newer = sorted(k for k in ("abandoned", "winners", "ended_by", "illegal_action") if k in log.end)
    if newer and "digest" not in log.end:  # written together since they exist
        raise e.error(f"the field 'digest' is missing (an end record with {newer} has one)")
    if "digest" in log.end:
        digest = log.end["digest"]
        if (not isinstance(digest, str) or len(digest) != 64
                or digest.strip("0123456789abcdef") != ""):
            raise e.error(f"'digest' must be 64 hexadecimal digits (a SHA-256), got {digest!r}"[:300])
    if log.abandoned:
        return
    e.numbers("outcome")
    if "winners" in log.end:
        e.seats("winners")
    ended_by = log.end.get("ended_by", "rules")
    if ended_by not in ("rules", "illegal_action"):
        raise e.error(f"'ended_by' must be 'rules' or 'illegal_action', got {ended_by!r}")
    if ended_by == "illegal_action":
        illegal = e.as_dict("illegal_action")
        i = _Fields(log, illegal, "end record: illegal_action", at=log.end)
        i.allowed(ILLEGAL_ACTION_FIELDS)
        seat = i.as_int("seat")
        if i.get("agent") != f"player_{seat}":
            raise i.error(f"'agent' must be 'player_{seat}', got {illegal['agent']!r}")
        i.as_str("phase")
        i.as_str("action")
        i.as_int("action_id")
    elif "illegal_action" in log.end:
        raise e.error("'illegal_action' belongs to a game ended by one ('ended_by': "
                      "'illegal_action')")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


class GameDigest:
    """The running SHA-256 of what defines a logged game: the header's ``GAME_HEADER_FIELDS``,
    then each action (turn, seat, phase, the move as the env writes it) and each later deal, as
    the recorder writes them and as the replay re-creates them."""

    def __init__(self, header: Mapping[str, Any]) -> None:
        self._sha = hashlib.sha256()
        self._add("header", {k: header[k] for k in GAME_HEADER_FIELDS if k in header})

    def action(self, turn: int, seat: int, phase: str, text: str) -> None:
        self._add("action", [turn, seat, phase, text])

    def deal(self, hand: int, deal: Any) -> None:
        self._add("deal", [hand, deal])

    def _add(self, kind: str, payload: Any) -> None:
        line = json.dumps([kind, _jsonable(payload)], sort_keys=True, separators=(",", ":"),
                          allow_nan=False)
        self._sha.update(line.encode("utf-8") + b"\n")

    def hexdigest(self) -> str:
        return self._sha.hexdigest()


class GameRecorder:
    """Wraps an env of this package: ``reset``/``step`` go through and are written to the log.

    ``players`` (optional) names who sat in each seat (policy specs, "human", ...); ``meta``
    adds fields of your own to the header (not the header's own fields: ``HEADER_FIELDS``).
    With ``path`` every record is written to that file as it happens and flushed (the header at
    ``reset``, each action and deal as it is played, the end record when the game ends), so a
    game cut short loses nothing; ``abandon()`` (or leaving a ``with GameRecorder(...)`` block
    before the game ends, also by an exception or Ctrl-C) ends the log with an abandoned end
    record. A protected env that ends the game on an illegal action gets an end record with
    ``"ended_by": "illegal_action"``; a raw env's ``IllegalActionError`` logs nothing."""

    def __init__(self, env: Any, players: list[str] | None = None,
                 meta: Mapping[str, Any] | None = None, path: str | Path | None = None) -> None:
        self.env = env
        self.raw = env.unwrapped
        self.players = list(players) if players is not None else None
        self.meta = dict(meta or {})
        clash = sorted({str(k) for k in self.meta} & set(HEADER_FIELDS))
        if clash:
            raise ValueError(f"GameRecorder meta would overwrite the header's own field(s) "
                             f"{clash}; give them other names (the header's fields are "
                             f"{', '.join(HEADER_FIELDS)})")
        try:
            json.dumps(_jsonable(self.meta), allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"GameRecorder meta must be plain JSON without NaN or infinity ({e})") from None
        self.path = Path(path) if path is not None else None
        self.log: GameLog | None = None
        self._digest: GameDigest | None = None
        self._file: IO[str] | None = None
        self._logged = 0  # entries of game.deals written to the log
        self._turn = 0

    @property
    def game(self) -> Game:
        return self.raw.game

    @property
    def done(self) -> bool:
        return (self.raw.game is None or self.raw.game.is_over or all(self.raw.terminations.values())
                or (self.log is not None and self.log.end is not None))

    def reset(
        self, seed: int | None = None,
        deal: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Reset the env; without a seed one is drawn so that the log can replay later hands.
        ``deal`` is the first hand's deal or a whole-game deal (a list, one deal per hand).
        An unfinished game recorded before gets its abandoned end record first."""
        self.abandon()
        self.close()
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
        self._digest = GameDigest(header)
        self._logged = 1
        self._turn = 0
        if self.path is not None:
            self._file = self.path.open("w", encoding="utf-8")
        self._write(header)
        self._log_new_deals()
        if raw.game.is_over:
            self._finish()

    def step(self, action: int) -> None:
        """Step the env and log the action (only once the env has taken it)."""
        if self.log is None:
            raise RuntimeError("GameRecorder.step before reset")
        if self.log.end is not None:
            raise RuntimeError("GameRecorder.step after the game ended (the log has its end record)")
        raw = self.raw
        game = raw.game
        seat = game.current_player
        phase = game.phase
        legal = raw.legal_actions()
        if action not in legal:
            # a raw env raises (nothing is logged); a protected one ends the game on it
            self.env.step(action)
            if not game.is_over and all(raw.terminations.values()):
                self._finish(illegal={
                    "seat": seat, "agent": f"player_{seat}", "phase": phase,
                    "action": game.action_to_str(int(action)), "action_id": int(action),
                })
            return
        record = {
            "type": "action",
            "turn": self._turn,
            "seat": seat,
            "agent": f"player_{seat}",
            "phase": phase,
            "action": game.action_to_str(int(action)),
        }
        self.env.step(action)
        self.log.events.append(record)
        self._write(record)
        assert self._digest is not None
        self._digest.action(self._turn, seat, phase, record["action"])
        self._turn += 1
        self._log_new_deals()
        if raw.game.is_over:
            self._finish()

    def _write(self, record: Mapping[str, Any]) -> None:
        if self._file is not None:
            self._file.write(_dumps(record) + "\n")  # one write per record, then flushed
            self._file.flush()

    def _log_new_deals(self) -> None:
        """A ``deal`` event for every hand the game has dealt since the last one logged."""
        assert self.log is not None
        deals = self.raw.game.deals
        for hand in range(self._logged, len(deals)):
            record = {"type": "deal", "hand": hand, "deal": _jsonable(deals[hand])}
            self.log.events.append(record)
            self._write(record)
            assert self._digest is not None
            self._digest.deal(hand, record["deal"])
        self._logged = max(self._logged, len(deals))

    def _finish(self, illegal: dict[str, Any] | None = None) -> None:
        """The end record, in the field names of ``env.unwrapped.result()``."""
        result = self.raw.result()
        end: dict[str, Any] = {
            "type": "end",
            "turns": self._turn,
            "scores": [float(s) for s in result["scores"]],
            "outcome": [float(x) for x in result["outcome"]],
            "winners": [int(w) for w in result["winners"]],
            "ended_by": result["ended_by"],
        }
        if illegal is not None:
            end["illegal_action"] = illegal
        self._end(end)

    def _end(self, end: dict[str, Any]) -> None:
        assert self.log is not None and self._digest is not None
        end["digest"] = self._digest.hexdigest()
        self.log.end = end
        self._write(end)
        self.close()

    def abandon(self, reason: str | None = None) -> dict[str, Any] | None:
        """End the log of an unfinished game with ``{"type": "end", "abandoned": true, "turns":
        N, "scores": [...]}`` (the scores so far; with ``reason``, how the game was left, e.g.
        ``"SIGTERM"``, under ``"reason"``); the log then replays up to there. Returns that
        record, or None when there is no unfinished game."""
        if self.log is None or self.log.end is not None:
            return None
        end: dict[str, Any] = {"type": "end", "abandoned": True, "turns": self._turn,
                               "scores": [float(s) for s in self.raw.game.scores]}
        if reason is not None:
            end["reason"] = str(reason)
        self._end(end)
        return end

    def close(self) -> None:
        """Close the log file (an unfinished game stays without end record; see ``abandon``)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> GameRecorder:  # noqa: PYI034 (Self needs Python 3.11)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.abandon()
        self.close()

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
