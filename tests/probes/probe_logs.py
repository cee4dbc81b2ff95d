"""Probe ``cahoots replay`` with tampered game logs, and the bounds on what it and ``cahoots
play`` read.

Records a few real logs (every game; a multi-hand game with ``deal`` events; a game abandoned
part way; a game a protected env ended on an illegal action; a fixture log written by an older
version), then builds tampered variants of them: every field of every record type deleted, set
to null, to the wrong type, to NaN / Infinity / 1e999, out of range, swapped for another valid
value; records deleted, duplicated, swapped, added after the end; the file truncated. Each
variant is replayed through ``cahoots replay`` in this process and counted as detected (non-zero
exit status, one line on stderr), passed (exit status 0) or crashed (a traceback).

A variant that changes the game (the env, the options the game depends on, the seed, a deal, an
action, its seat, turn or phase, the result) must be detected. A few tamperings leave the game
as it was and pass by design: the players' names, an added header field, another
``reward_mode`` (rewards only), an option the game never consulted (checked by playing the
logged actions under the tampered options), the end record's ``winners`` / ``ended_by`` left
out (logs written before those fields existed), numbers written as 8 rather than 8.0, a move
typed in another letter case.

Then: ``cahoots replay /dev/zero`` and ``/dev/urandom`` and a 65 MiB file must be refused
promptly; a 20 MiB line typed into ``cahoots play`` must be refused quickly, without echoing it;
``cahoots play --log`` sent SIGTERM or SIGHUP while it waits for a move must exit with status
128 + the signal's number, its log ended by an abandoned end record naming the signal, which
replays.

    python tests/probes/probe_logs.py          # prints the table; exit status 1 if any
                                               # game-changing tampering passed or any crashed
        [--logs NAMES] [--every K] [--no-bounds]

``--logs NAMES`` records the logs whose name holds one of NAMES only (e.g. ``--logs
coop,fixture``), ``--every K`` replays every K-th
tampered variant only and ``--no-bounds`` leaves out the bounded-input and signal checks (which
start processes): a smaller run, for the test suite (``tests/test_probes.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import platform
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import cahoots_envs
from cahoots_envs.cli import main as cli_main
from cahoots_envs.gamelog import HEADER_FIELDS, GameRecorder

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "gamelogs" / "texas_euchre_5p.jsonl"
DELETE = object()  # a field to remove
RAW = "\x00raw:"  # a string standing for raw JSON text (NaN, Infinity, 1e999)


# ---- the logs ------------------------------------------------------------------------------------
def _record(game: str, seed: int, abandon_after: int | None = None, illegal_at: int | None = None,
            reason: str | None = None, **options: Any) -> list[dict[str, Any]]:
    env = cahoots_envs.make(game, **options)
    rec = GameRecorder(env, players=["random"] * len(env.possible_agents))
    rec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    turn = 0
    while not rec.done:
        legal = env.unwrapped.legal_actions()
        if turn == illegal_at:
            illegal = next(a for a in range(env.unwrapped.num_actions) if a not in legal)
            with _quiet_warnings():
                rec.step(illegal)
            break
        if turn == abandon_after:
            rec.abandon(reason=reason)
            break
        rec.step(int(rng.choice(legal)))
        turn += 1
    assert rec.log is not None and rec.log.end is not None
    return [json.loads(line) for line in rec.log.lines()]


@contextlib.contextmanager
def _quiet_warnings() -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def base_logs(keys: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The logs the tamperings start from: those whose name holds one of ``keys`` (all by
    default)."""
    makers = {
        "kansas_city 4p, 2 hands": lambda: _record("kansas_city", 5, hands=2),
        "texas_euchre 3p": lambda: _record("texas_euchre", 6, num_players=3, target_score=25),
        "cahoots_tricks 3p, random split": lambda: _record("cahoots_tricks", 7, num_players=3,
                                                           point_split="random"),
        "cahoots_coop 2p": lambda: _record("cahoots_coop", 8, num_players=2, num_goals=5),
        # table talk: tampered to 1 player or open hands, options make() refuses together
        "cahoots_coop 2p, talk": lambda: _record("cahoots_coop", 11, num_players=2, num_goals=4,
                                                 talk="dutch"),
        "abandoned (cahoots_tricks 4p)": lambda: _record("cahoots_tricks", 9, abandon_after=21,
                                                         reason="SIGTERM"),
        "illegal action (kansas_city)": lambda: _record("kansas_city", 10, illegal_at=17, hands=1),
        "fixture texas_euchre 5p (old format)": lambda: [
            json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()],
    }
    return {name: make() for name, make in makers.items()
            if not keys or any(key in name for key in keys)}


# ---- tampering -------------------------------------------------------------------------------------
@dataclass
class Variant:
    log: str
    category: str
    what: str
    lines: list[str]
    changes_game: bool = True


def dumps(record: Any) -> str:
    text = json.dumps(record, separators=(", ", ": "))
    marker = '"\\u0000raw:'  # how json.dumps writes RAW
    while marker in text:  # "\u0000raw:NaN" -> NaN
        start = text.index(marker)
        stop = text.index('"', start + 1)
        text = text[:start] + text[start + len(marker):stop] + text[stop + 1:]
    return text


def value_variants(name: str, value: Any, other: Any = None) -> list[tuple[str, Any, bool]]:
    """(label, new value, still the same game) for one field."""
    out: list[tuple[str, Any, bool]] = [
        ("deleted", DELETE, False), ("null", None, False), ("NaN", RAW + "NaN", False),
        ("Infinity", RAW + "Infinity", False), ("1e999", RAW + "1e999", False),
        ("a list", [], False), ("an object", {}, False),
    ]
    if isinstance(value, bool):
        out += [("flipped", not value, False), ("a string", str(value).lower(), False),
                ("the number 1", 1, False)]
    elif isinstance(value, int):
        out += [("+1", value + 1, False), ("-1", value - 1, False), ("negative", -7, False),
                ("out of range", 10**6, False), ("2**70", 2**70, False),
                ("a string", str(value), False), ("a fraction", value + 0.5, False),
                ("true", True, False)]
    elif isinstance(value, str):
        out += [("empty", "", False), ("a number", 7, False), ("10k characters", "x" * 10_000, False)]
        if other is not None and other != value:
            out.append((f"another valid value ({other!r})", other, False))
    elif isinstance(value, list) and value and all(isinstance(x, (int, float)) for x in value):
        out += [("one +1", [value[0] + 1, *value[1:]], False),
                ("one NaN", [RAW + "NaN", *value[1:]], False),
                ("one -Infinity", [RAW + "-Infinity", *value[1:]], False),
                ("one dropped", value[:-1], False), ("one extra", [*value, 0.0], False),
                ("strings", [str(x) for x in value], False),
                ("a bool", [True, *value[1:]], False)]
        if value[::-1] != value:
            out.append(("reversed", value[::-1], False))
        if all(float(x).is_integer() for x in value) and any(isinstance(x, float) for x in value):
            out.append(("written as ints", [int(x) for x in value], True))
    return out


def _set(record: dict[str, Any], key: str, value: Any) -> None:
    if value is DELETE:
        record.pop(key, None)
    else:
        record[key] = value


def _current(env_id: str) -> str:
    """The env that replays a log of ``env_id`` (an earlier version whose rules are unchanged
    replays on the current one, as ``cahoots replay`` does)."""
    return cahoots_envs.game_spec(env_id, replay=True).env_id


def _reset(header: dict[str, Any]) -> Any:
    env = cahoots_envs.make_raw(_current(header["env_id"]), **header["options"])
    env.reset(seed=header["seed"], options={"deal": header["deal"]} if header["scripted"] else None)
    return env


def _same_game_under(records: list[dict[str, Any]], header: dict[str, Any]) -> bool:
    """Whether the logged actions, played from ``header`` (its options, seed, scripted), give
    the very same game (deals, seats, phases, result): a tampered field the game never
    consulted."""
    try:
        env = _reset(header)
    except Exception:  # noqa: BLE001 (any tampered header that does not even reset)
        return False
    ref = _reset(records[0])
    for record in records[1:]:
        if record["type"] != "action":
            continue
        for e in (env, ref):
            if e.game.is_over:
                return False
        if (env.game.current_player, env.game.phase) != (ref.game.current_player, ref.game.phase):
            return False
        try:
            env.step(env.str_to_action(record["action"]))
        except ValueError:
            return False
        ref.step(ref.str_to_action(record["action"]))
    if env.game.deals != ref.game.deals or env.game.is_over != ref.game.is_over:
        return False
    if not env.game.is_over:
        return env.game.scores == ref.game.scores
    return (env.game.scores, env.game.outcome(), env.game.winning_seats()) == (
        ref.game.scores, ref.game.outcome(), ref.game.winning_seats())


def variants(name: str, records: list[dict[str, Any]]) -> list[Variant]:
    out: list[Variant] = []

    def add(category: str, what: str, recs: list[Any], same: bool = False) -> None:
        out.append(Variant(name, category, what, [dumps(r) for r in recs], not same))

    def field(index: int, category: str, label: str, key: str, value: Any, same: bool) -> None:
        recs = copy.deepcopy(records)
        _set(recs[index], key, value)
        add(category, f"{label}.{key} {_label(value)}", recs, same)

    actions = [i for i, r in enumerate(records) if r["type"] == "action"]
    deals = [i for i, r in enumerate(records) if r["type"] == "deal"]
    end = len(records) - 1
    header = records[0]
    n_players = header["options"]["num_players"]
    # header: every field
    for key, value in header.items():
        if key == "type":
            continue
        if key == "players":
            for label, new, same in [("renamed", ["someone"] * len(value), True),
                                     ("one fewer", value[:-1], False), ("numbers", [1] * len(value), False),
                                     ("deleted", DELETE, True)]:
                field(0, "header", "header", key, new, same)
            continue
        if key in ("options", "deal"):
            for label, new, same in [("deleted", DELETE, False), ("null", None, False),
                                     ("a list", [], False), ("unknown key added", {**value, "zz": 1}, False)]:
                field(0, "header", "header", key, new, same)
            continue
        other = {"env_id": "cahoots_envs/texas_euchre-v1" if "kansas" in str(value)
                 else "cahoots_envs/kansas_city-v1",
                 "format": "some-other-format"}.get(key)
        for label, new, same in value_variants(key, value, other):
            recs = copy.deepcopy(records)
            _set(recs[0], key, new)
            if key not in HEADER_FIELDS:
                same = True  # a field of one's own (meta)
            elif key in ("seed", "scripted"):
                same = _same_game_under(records, recs[0])
            add("header", f"header.{key} {_label(new)}", recs, same)
    # header options: each deleted, each set to another value the game accepts
    raw = cahoots_envs.make_raw(_current(header["env_id"]))
    for option in raw.game_cls.OPTIONS:
        if option.name not in header["options"]:
            continue
        value = header["options"][option.name]
        for new in _other_values(option, value):
            recs = copy.deepcopy(records)
            if new is DELETE:
                del recs[0]["options"][option.name]
            else:
                recs[0]["options"][option.name] = new
            same = _same_game_under(records, recs[0])
            add("options", f"options.{option.name} {_label(new)}", recs, same)
    # a card of the first deal swapped with another seat's
    recs = copy.deepcopy(records)
    hands = recs[0]["deal"].get("hands")
    if isinstance(hands, list) and len(hands) > 1:
        pairs = [(i, j) for i in range(len(hands[0])) for j in range(len(hands[1]))
                 if hands[0][i] != hands[1][j]]
        if pairs:
            i, j = pairs[0]
            hands[0][i], hands[1][j] = hands[1][j], hands[0][i]
            add("header", "deal: two seats' cards swapped", recs)
    recs = copy.deepcopy(records)
    recs[0]["extra_meta"] = "my note"
    add("header", "header: a field of one's own added", recs, same=True)
    # actions: every field of the first, a middle and the last action
    for pos in sorted({actions[0], actions[len(actions) // 2], actions[-1]}):
        rec = records[pos]
        later = [records[i] for i in actions if i > pos]
        alternative = _another_legal_action(records, pos)
        others = {
            "agent": f"player_{(rec['seat'] + 1) % n_players}",
            "phase": next((records[i]["phase"] for i in actions if records[i]["phase"] != rec["phase"]), "play"),
            "action": alternative,
        }
        for key, value in rec.items():
            if key == "type":
                continue
            for label, new, same in value_variants(key, value, others.get(key)):
                field(pos, "action", f"action {rec['turn']}", key, new, same)
        if rec["action"].upper() != rec["action"]:
            field(pos, "action", f"action {rec['turn']}", "action", rec["action"].upper(), True)
        recs = copy.deepcopy(records)
        recs[pos]["seat"] = (rec["seat"] + 1) % n_players
        recs[pos]["agent"] = f"player_{recs[pos]['seat']}"
        add("action", f"action {rec['turn']}: another seat (seat and agent)", recs)
        recs = copy.deepcopy(records)
        recs[pos]["unknown"] = 1
        add("action", f"action {rec['turn']}: unknown field added", recs)
        if later:
            recs = copy.deepcopy(records)
            nxt = actions[actions.index(pos) + 1]
            recs[pos], recs[nxt] = recs[nxt], recs[pos]
            add("records", f"actions {rec['turn']} and {rec['turn'] + 1} swapped", recs)
            recs = copy.deepcopy(records)
            recs[pos]["turn"], recs[nxt]["turn"] = recs[nxt]["turn"], recs[pos]["turn"]
            recs[pos], recs[nxt] = recs[nxt], recs[pos]
            add("records", f"actions {rec['turn']} and {rec['turn'] + 1} swapped, renumbered", recs)
    # deal events: every field of the first
    if deals:
        pos = deals[0]
        rec = records[pos]
        for key, value in rec.items():
            if key in ("type", "deal"):
                continue
            for label, new, same in value_variants(key, value):
                field(pos, "deal", f"deal {rec['hand']}", key, new, same)
        for label, new in [("deleted", DELETE), ("null", None), ("another hand's", records[0]["deal"])]:
            field(pos, "deal", f"deal {rec['hand']}", "deal", new, False)
        recs = copy.deepcopy(records)
        del recs[pos]
        add("records", "a deal event deleted", recs)
        recs = copy.deepcopy(records)
        recs.insert(pos, copy.deepcopy(recs[pos]))
        add("records", "a deal event duplicated", recs)
        recs = copy.deepcopy(records)
        recs.insert(pos - 1, recs.pop(pos))
        add("records", "a deal event one action early", recs)
    # end record: every field
    rec = records[end]
    n = len(rec.get("scores", [0]))
    for key, value in rec.items():
        if key == "type":
            continue
        if key == "winners":
            for label, new, same in [("deleted", DELETE, True), ("another seat", [(value[0] + 1) % n] if value else [0], False),
                                     ("a seat twice", value * 2 if value else [0, 0], False),
                                     ("a string", [str(w) for w in value] or ["0"], False),
                                     ("out of range", [n + 5], False), ("null", None, False)]:
                field(end, "end", "end", key, new, same)
            continue
        if key == "ended_by":
            for label, new, same in [("deleted", DELETE, value == "rules"),
                                     ("other", "illegal_action" if value == "rules" else "rules", False),
                                     ("unknown", "timeout", False), ("a number", 1, False)]:
                field(end, "end", "end", key, new, same)
            continue
        if key == "illegal_action":
            for sub in value:
                for label, new, same in value_variants(sub, value[sub]):
                    recs = copy.deepcopy(records)
                    _set(recs[end]["illegal_action"], sub, new)
                    add("end", f"end.illegal_action.{sub} {_label(new)}", recs, same)
            continue
        if key == "abandoned":
            for label, new, same in [("false", False, False), ("a string", "yes", False),
                                     ("deleted", DELETE, False), ("1", 1, False)]:
                field(end, "end", "end", key, new, same)
            continue
        if key == "reason":  # how the game was left: free text, no part of the game
            for label, new, same in [("deleted", DELETE, True), ("null", None, True),
                                     ("a number", 15, True), ("a list", [], True),
                                     ("empty", "", True), ("another", "quit", True),
                                     ("10k characters", "x" * 10_000, True)]:
                field(end, "end", "end", key, new, same)
            continue
        for label, new, same in value_variants(key, value):
            if label == "deleted" and (key == "digest" or (key == "scores" and rec.get("abandoned"))):
                same = True  # no change to the game (an abandoned end's scores are optional)
            field(end, "end", "end", key, new, same)
    if not rec.get("abandoned"):
        recs = copy.deepcopy(records)
        recs[end]["abandoned"] = True
        add("end", "end: a finished game marked abandoned", recs)
    recs = copy.deepcopy(records)
    recs[end]["unknown"] = 1
    add("end", "end: unknown field added", recs)
    # records and lines
    recs = copy.deepcopy(records)
    add("records", "end record duplicated", recs + [recs[end]])
    add("records", "an action after the end record", recs + [recs[actions[-1]]])
    add("records", "end record deleted (no end)", recs[:-1])
    add("records", "last action deleted", recs[:actions[-1]] + recs[actions[-1] + 1:])
    add("records", "first action deleted", recs[:actions[0]] + recs[actions[0] + 1:])
    add("records", "an action duplicated", recs[:actions[0] + 1] + recs[actions[0]:])
    add("records", "the header duplicated", [recs[0]] + recs)
    add("records", "header deleted", recs[1:])
    add("records", "a record of unknown type", recs[:2] + [{"type": "note", "text": "hi"}] + recs[2:])
    add("records", "a record that is a list", recs[:2] + [[1, 2]] + recs[2:])
    lines = [dumps(r) for r in records]
    text = "\n".join(lines) + "\n"
    out.append(Variant(name, "lines", "truncated in the middle of a line", [text[: len(text) // 2]]))
    out.append(Variant(name, "lines", "truncated to the header", lines[:1]))
    out.append(Variant(name, "lines", "empty file", []))
    out.append(Variant(name, "lines", "a repeated JSON key", [lines[0][:-1] + ', "seed": 1}'] + lines[1:]))
    out.append(Variant(name, "lines", "a line of garbage", lines[:2] + ["{not json"] + lines[2:]))
    out.append(Variant(name, "lines", "blank lines added", lines[:2] + ["", "  "] + lines[2:], False))
    out.append(Variant(name, "lines", "compact JSON", [json.dumps(r, separators=(",", ":")) for r in records], False))
    return out


def _other_values(option: Any, value: Any) -> list[Any]:
    """Other values the option accepts (and DELETE), for the option tamperings."""
    text = option.describe()
    candidates: list[Any] = [DELETE]
    if "one of" in text and "int from" not in text:
        for choice in (True, False, "win", "points", 3, 4, 5, 6, "ranked", "tens_ace_high",
                       "cards", "face_value", "draft", "random", "snake", "even", "beginner",
                       "expert", "union", "disjunctive", "none", "spanish", 1):
            try:
                if option.validate(choice) == choice and choice != value and type(choice) is type(value):
                    candidates.append(choice)
            except (ValueError, TypeError):
                pass
    elif isinstance(value, int) and not isinstance(value, bool):
        candidates += [value + 1, value * 10]
    elif value is None:
        candidates.append(3)
    return candidates[:4]


def _another_legal_action(records: list[dict[str, Any]], pos: int) -> str | None:
    """Another move legal where ``records[pos]`` was played."""
    header = records[0]
    env = cahoots_envs.make_raw(_current(header["env_id"]), **header["options"])
    env.reset(seed=header["seed"])
    for record in records[1:pos]:
        if record["type"] == "action":
            env.step(env.str_to_action(record["action"]))
    texts = [env.action_to_str(a) for a in env.legal_actions()]
    return next((t for t in texts if t != records[pos]["action"]), None)


def _label(value: Any) -> str:
    if value is DELETE:
        return "deleted"
    if isinstance(value, str) and value.startswith(RAW):
        return value[len(RAW):]
    text = json.dumps(value)
    return f"= {text[:30]}{'...' if len(text) > 30 else ''}"


def _kind(what: str) -> str:
    """A tampering's description without the log's particulars, for the summary."""
    what = re.sub(r"\b(action|deal) \d+", r"\1 N", what)
    what = re.sub(r'^action N\.action = ".*"$', "a move typed in capitals", what)
    what = re.sub(r"^end\.(scores|outcome) = \[[-\d, ]*\]$", r"end.\1 as whole numbers", what)
    what = re.sub(r"^header\.players .*$", "header.players renamed or left out", what)
    what = re.sub(r"^end\.reason .*$", "end.reason changed or left out", what)
    what = re.sub(r"^options\.(\w+) deleted$", "an option left out (its default is the logged value)", what)
    what = re.sub(r"^options\.(\w+) = .*$", r"options.\1 changed (the game never consulted it)", what)
    known = "|".join(HEADER_FIELDS)
    return re.sub(rf"^header\.(?!({known})\b)\w+ .*$", "a header field of one's own changed", what)


# ---- running -----------------------------------------------------------------------------------
def replay(path: Path) -> tuple[str, str]:
    """('passed' | 'detected' | 'crashed', the message)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _quiet_warnings():
            code = cli_main(["replay", str(path), "-q"])
    except Exception as e:  # noqa: BLE001 (a traceback: what no bad log may cause)
        return "crashed", f"{type(e).__name__}: {e}"
    message = err.getvalue().strip()
    if code == 0:
        return "passed", out.getvalue().strip().splitlines()[-1] if out.getvalue().strip() else ""
    if "\n" in message or not message:
        return "crashed", f"exit {code} without one line on stderr: {message[:200]!r}"
    return "detected", message


def timed(args: list[str], stdin: bytes | str | None = None, stdin_path: str | None = None,
          timeout: float = 60) -> tuple[float, subprocess.CompletedProcess[bytes] | None]:
    start = time.perf_counter()
    try:
        if stdin_path is not None:
            with open(stdin_path, "rb") as f:
                result = subprocess.run([sys.executable, "-m", "cahoots_envs.cli", *args], stdin=f,
                                        capture_output=True, timeout=timeout, check=False)
        else:
            data = stdin.encode() if isinstance(stdin, str) else stdin
            result = subprocess.run([sys.executable, "-m", "cahoots_envs.cli", *args], input=data,
                                    capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, None
    return time.perf_counter() - start, result


def bounds(tmp: Path) -> list[tuple[str, str, bool]]:
    rows = []
    for path in ("/dev/zero", "/dev/urandom"):
        took, r = timed(["replay", path], timeout=60)
        ok = r is not None and r.returncode != 0 and len(r.stderr.decode().splitlines()) == 1
        said = (r.stderr.decode().strip().removeprefix("cahoots replay: ")[:80] if r is not None
                else "did not return in 60 s")
        rows.append((f"cahoots replay {path}", f"exit {r.returncode if r else '-'} in {took:.1f} s: {said}", ok))
    big = tmp / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(65 * 1024 * 1024)
    took, r = timed(["replay", str(big)])
    ok = r is not None and r.returncode != 0
    said = r.stderr.decode().strip().split(": ", 2)[-1][:80] if r is not None else "timeout"
    rows.append(("cahoots replay <65 MiB file>", f"exit {r.returncode if r else '-'} in {took:.1f} s: {said}", ok))
    long_line = tmp / "long.txt"
    long_line.write_bytes(b"x" * (20 * 1024 * 1024) + b"\nquit\n")
    took, r = timed(["play", "cahoots_coop", "-n", "2", "--seed", "1"], stdin_path=str(long_line))
    ok = r is not None and len(r.stdout) < 20_000 and b"line too long" in r.stdout
    rows.append(("cahoots play, a 20 MiB line typed",
                 f"refused in {took:.1f} s, {len(r.stdout) if r else 0:,} bytes of output", ok))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        rows.append(signalled(tmp, sig))
    return rows


def signalled(tmp: Path, sig: signal.Signals) -> tuple[str, str, bool]:
    """``cahoots play --log`` sent ``sig`` while it waits for the person's first move."""
    log = tmp / f"{sig.name}.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "cahoots_envs.cli", "play", "cahoots_coop",
                             "-n", "2", "--seed", "1", "--log", str(log)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    what = f"cahoots play --log, {sig.name} while it waits"
    try:
        out, deadline = b"", time.monotonic() + 60
        while b"player_0> " not in out and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], 1)[0]:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
        if b"player_0> " not in out:
            return what, "no prompt in 60 s", False
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        return what, "did not end in 60 s", False
    finally:
        proc.kill()
    end = json.loads(log.read_text().splitlines()[-1]) if log.is_file() else {}
    verdict, message = replay(log)
    ok = (proc.returncode == 128 + sig and not err and end.get("abandoned") is True
          and end.get("reason") == sig.name and verdict == "passed")
    replayed = "replay OK" if verdict == "passed" else f"replay {verdict}: {message[:80]}"
    return what, (f"exit {proc.returncode}; abandoned end record, reason "
                  f"{json.dumps(end.get('reason'))}; {replayed}"), ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logs", default="", metavar="NAMES",
                        help="comma-separated parts of log names: record those logs only "
                             "(e.g. --logs coop,fixture; default: all seven)")
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="replay every K-th tampered variant only (default 1: all)")
    parser.add_argument("--no-bounds", action="store_true",
                        help="leave out the bounded-input and signal checks")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every: at least 1, got {args.every}")
    logs = base_logs(args.logs.split(",") if args.logs else None)
    if not logs:
        parser.error(f"--logs {args.logs}: no log's name holds it (e.g. --logs coop,fixture)")
    all_variants = [v for name, recs in logs.items() for v in variants(name, recs)][::args.every]
    counts: Counter[tuple[str, bool, str]] = Counter()
    problems = []
    passed_same = []
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        # the untampered logs replay
        for name, recs in logs.items():
            path = tmp / "base.jsonl"
            path.write_text("\n".join(dumps(r) for r in recs) + "\n")
            verdict, message = replay(path)
            if verdict != "passed":
                problems.append(f"untampered {name}: {verdict}: {message}")
        for i, v in enumerate(all_variants):
            path = tmp / f"v{i}.jsonl"
            path.write_text("".join(line + "\n" for line in v.lines))
            verdict, message = replay(path)
            counts[(v.category, v.changes_game, verdict)] += 1
            if verdict == "crashed" or (verdict == "passed" and v.changes_game):
                problems.append(f"{v.log}: {v.what}: {verdict}: {message[:150]}")
            if verdict == "passed" and not v.changes_game:
                passed_same.append(_kind(v.what))
        rows = [] if args.no_bounds else bounds(tmp)
    categories = ["header", "options", "action", "deal", "end", "records", "lines"]
    print(f"# probe_logs - {date.today()} - {platform.machine()}, Python {platform.python_version()}")
    print(f"# {len(logs)} logs, {len(all_variants)} tampered variants\n")
    print("| tampered | variants | changes the game: detected | passed | same game: detected | passed | crashed |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    total = Counter()
    for category in categories:
        row = [counts[(category, True, "detected")], counts[(category, True, "passed")],
               counts[(category, False, "detected")], counts[(category, False, "passed")],
               sum(counts[(category, c, "crashed")] for c in (True, False))]
        for key, value in zip("abcde", row):
            total[key] += value
        print(f"| {category} | {sum(row)} | " + " | ".join(str(x) for x in row) + " |")
    print(f"| **all** | {sum(total.values())} | " + " | ".join(str(total[k]) for k in "abcde") + " |")
    print()
    print("same game, passed by design: " + "; ".join(
        f"{kind} ({n})" for kind, n in sorted(Counter(passed_same).items())))
    print()
    if args.no_bounds:
        print("bounded input and signals: left out (--no-bounds)")
    else:
        print("| bounded input | result | ok |")
        print("|---|---|---|")
    for what, result, ok in rows:
        print(f"| {what} | {result} | {'yes' if ok else 'NO'} |")
        if not ok:
            problems.append(f"{what}: {result}")
    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print("  " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
