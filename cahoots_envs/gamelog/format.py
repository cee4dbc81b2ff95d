"""The game-log format: its constants, the ``GameLog`` records, reading and parsing a log, and
the checks of every record's form (``check_log``); ``ReplayError`` for a log that does not
replay. The format itself is described in ``cahoots_envs.gamelog``."""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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
