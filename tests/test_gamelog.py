"""Game logs: deals recorded in the scripted-deal format, record -> replay round trips, and
replays that refuse a log the env no longer agrees with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cahoots_envs
from cahoots_envs.gamelog import (
    MAX_LOG_BYTES,
    MAX_LOG_LINE,
    GameLog,
    GameRecorder,
    ReplayError,
    replay_log,
)
from cahoots_envs.registry import GAMES
from tests.conftest import CASES, case_id, game_class


def _random_game(env_id: str, seed: int, deal: dict | None = None, **options: Any) -> GameRecorder:
    env = cahoots_envs.make(env_id, **options)
    rec = GameRecorder(env, players=["random"] * len(env.possible_agents))
    rec.reset(seed=seed, deal=deal)
    rng = np.random.default_rng(seed)
    while not rec.done:
        mask = env.observe(env.agent_selection)["action_mask"]
        rec.step(int(rng.choice(np.flatnonzero(mask))))
    return rec


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_exported_deal_recreates_the_deal(case: tuple[str, dict[str, Any]]) -> None:
    """reset(seed) then export; a reset from that deal (another seed) shows the same table."""
    game, options = case
    options = {k: v for k, v in options.items() if k != "reward_mode"}
    for seed in range(6):
        a = cahoots_envs.make_raw(game, render_mode="ansi", **options)
        a.reset(seed=seed)
        deal = a.game.deals[0]
        json.dumps(deal)  # plain JSON
        b = cahoots_envs.make_raw(game, render_mode="ansi", **options)
        b.reset(seed=seed + 500, options={"deal": deal})
        assert b.render() == a.render()
        assert b.game.deals == [deal]


def test_coop_goal_order_is_rebuilt_when_setup_completes_goals() -> None:
    """Setup completes goals the starting piles meet and refills the row; the recorded goal
    order (the goal deck as dealt) must make setup end in the very same state."""
    hits = 0
    for seed in range(300):
        a = cahoots_envs.make_raw("cahoots_coop", render_mode="ansi", num_players=2)
        a.reset(seed=seed)
        if not a.game.completed_at_setup:
            continue
        hits += 1
        b = cahoots_envs.make_raw("cahoots_coop", render_mode="ansi", num_players=2)
        b.reset(seed=1, options={"deal": a.game.deals[0]})
        assert (b.game.visible, b.game.completed, b.game.goal_deck) == (
            a.game.visible, a.game.completed, a.game.goal_deck)
        if hits >= 10:
            break
    assert hits >= 3


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("scripted", [False, True], ids=["seeded", "scripted"])
def test_record_then_replay_gives_the_same_scores(game: str, scripted: bool) -> None:
    cls = game_class(game)
    for n in cls.PLAYER_COUNTS[:2]:
        options: dict[str, Any] = {"num_players": n}
        if game == "texas_euchre":
            options["target_score"] = 40
        deal = None
        if scripted:
            t = cahoots_envs.make_raw(game, **options)
            t.reset(seed=99)
            deal = t.game.deals[0]
        rec = _random_game(game, seed=11 + n, deal=deal, **options)
        text = rec.log.to_jsonl()
        lines = text.splitlines()
        assert json.loads(lines[0])["type"] == "header"
        assert json.loads(lines[-1])["type"] == "end"
        header = json.loads(lines[0])
        assert header["env_id"] == f"cahoots_envs/{game}-v{cls.VERSION}"
        assert header["env_version"] == cls.VERSION
        assert header["scripted"] is scripted and header["deal"] is not None
        assert all(set(json.loads(x)) >= {"seat", "action"} for x in lines if '"action"' in x)
        result = replay_log(GameLog.from_lines(lines))
        assert result.complete
        assert result.scores == [float(s) for s in rec.game.scores]
        assert result.turns == len(rec.log.actions)


def test_multi_hand_logs_carry_every_hand_deal(tmp_path) -> None:
    rec = _random_game("kansas_city", seed=5, hands=3)
    deals = [e for e in rec.log.events if e["type"] == "deal"]
    assert [d["hand"] for d in deals] == [1, 2]
    path = rec.save(tmp_path / "kc.jsonl")
    assert replay_log(path).complete


def test_recorder_draws_a_seed_when_none_is_given() -> None:
    env = cahoots_envs.make("cahoots_coop", num_goals=3)
    rec = GameRecorder(env)
    rec.reset()
    assert isinstance(rec.log.header["seed"], int)


def _tampered(rec: GameRecorder, edit) -> GameLog:
    log = GameLog.from_lines(rec.log.to_jsonl().splitlines())
    edit(log)
    return log


def test_replay_names_an_illegal_action() -> None:
    rec = _random_game("kansas_city", seed=3, hands=1)

    def edit(log: GameLog) -> None:
        log.actions[20]["action"] = "play 9Z"

    with pytest.raises(ReplayError, match="turn 20: player_.*not legal"):
        replay_log(_tampered(rec, edit))


def test_replay_names_the_wrong_seat() -> None:
    rec = _random_game("cahoots_tricks", seed=3)

    def edit(log: GameLog) -> None:
        a = log.actions[5]
        a["seat"] = (a["seat"] + 1) % 4
        a["agent"] = f"player_{a['seat']}"  # consistent, so only the env can tell

    with pytest.raises(ReplayError, match="turn 5: the log has player_"):
        replay_log(_tampered(rec, edit))


def test_replay_checks_final_scores_and_deal() -> None:
    rec = _random_game("texas_euchre", seed=3, target_score=30)

    def scores(log: GameLog) -> None:
        log.end["scores"][0] += 1

    with pytest.raises(ReplayError, match="final scores differ"):
        replay_log(_tampered(rec, scores))

    def deal(log: GameLog) -> None:
        log.header["seed"] += 1

    with pytest.raises(ReplayError, match="no longer deals the logged deal"):
        replay_log(_tampered(rec, deal))


def test_partial_replay_and_bad_files(tmp_path) -> None:
    rec = _random_game("cahoots_coop", seed=8, num_goals=5)
    result = replay_log(GameLog.from_lines(rec.log.to_jsonl().splitlines()), stop_after=3)
    assert result.turns == 3 and not result.complete
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "action"}\n')
    with pytest.raises(ValueError, match="not a cahoots-envs game log"):
        GameLog.load(bad)
    bad.write_text("not json\n")
    with pytest.raises(ValueError, match="not JSON"):
        GameLog.load(bad)


def test_replay_refuses_a_log_that_left_out_a_hand() -> None:
    """The recorder logs every entry of ``game.deals``; a log without one no longer replays."""
    rec = _random_game("kansas_city", seed=4, hands=3)
    assert [e["hand"] for e in rec.log.events if e["type"] == "deal"] == [1, 2]
    assert [e["deal"] for e in rec.log.events if e["type"] == "deal"] == rec.game.deals[1:]

    def drop(log: GameLog) -> None:
        log.events = [e for e in log.events if not (e["type"] == "deal" and e["hand"] == 2)]

    with pytest.raises(ReplayError, match="the env has dealt hand 2, which the log does not have"):
        replay_log(_tampered(rec, drop))


# ---- logs written as the game goes, abandoned games, every field checked, bounded reading -------
def _lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_the_recorder_writes_each_record_as_it_happens(tmp_path) -> None:
    path = tmp_path / "live.jsonl"
    env = cahoots_envs.make("kansas_city", hands=2)
    rec = GameRecorder(env, players=["a", "b", "c", "d"], path=path)
    rec.reset(seed=5)
    assert [r["type"] for r in _lines(path)] == ["header"]
    rng = np.random.default_rng(0)
    for turn in range(3):
        rec.step(int(rng.choice(env.unwrapped.legal_actions())))
        assert [r.get("turn") for r in _lines(path)[1:]] == list(range(turn + 1))
    while not rec.done:
        rec.step(int(rng.choice(env.unwrapped.legal_actions())))
    records = _lines(path)
    assert [r["hand"] for r in records if r["type"] == "deal"] == [1]
    assert records[-1]["type"] == "end" and records[-1]["ended_by"] == "rules"
    assert records[-1]["winners"] == env.unwrapped.result()["winners"]
    assert GameLog.load(path).to_jsonl() == rec.log.to_jsonl()
    assert replay_log(path).complete


@pytest.mark.parametrize("how", ["abandon", "exception", "ctrl-c"])
def test_a_game_left_unfinished_ends_with_an_abandoned_record(tmp_path, how) -> None:
    path = tmp_path / "left.jsonl"
    env = cahoots_envs.make("cahoots_tricks")
    rng = np.random.default_rng(1)
    error = {"exception": RuntimeError, "ctrl-c": KeyboardInterrupt}.get(how)
    with pytest.raises(error) if error else _nothing(), GameRecorder(env, path=path) as rec:
        rec.reset(seed=2)
        for _ in range(9):
            rec.step(int(rng.choice(env.unwrapped.legal_actions())))
        if error:
            raise error()
        rec.abandon()
    end = _lines(path)[-1]
    assert end["type"] == "end" and end["abandoned"] is True and end["turns"] == 9
    result = replay_log(path)
    assert result.abandoned and not result.complete and result.turns == 9


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_protected_env_ending_on_an_illegal_action_gets_an_end_record(tmp_path) -> None:
    env = cahoots_envs.make("kansas_city", hands=1)
    rec = GameRecorder(env, path=tmp_path / "illegal.jsonl")
    rec.reset(seed=3)
    for _ in range(6):
        rec.step(env.unwrapped.legal_actions()[0])
    seat = env.unwrapped.game.current_player
    illegal = next(a for a in range(env.unwrapped.num_actions)
                   if a not in env.unwrapped.legal_actions())
    with pytest.warns(UserWarning, match="Illegal move"):
        rec.step(illegal)
    assert rec.done
    end = _lines(tmp_path / "illegal.jsonl")[-1]
    assert end["ended_by"] == "illegal_action" and end["winners"] == [] and end["turns"] == 6
    assert end["outcome"][seat] == -1.0 and end["illegal_action"]["seat"] == seat
    result = replay_log(tmp_path / "illegal.jsonl")
    assert result.complete and result.ended_by == "illegal_action"
    raw = cahoots_envs.make_raw("kansas_city", hands=1)
    rec = GameRecorder(raw)
    rec.reset(seed=3)
    with pytest.raises(cahoots_envs.IllegalActionError):
        rec.step(illegal if illegal not in raw.legal_actions() else -1)
    assert rec.log.events == [] and rec.log.end is None  # a raw env's refusal logs nothing


def test_meta_may_not_overwrite_header_fields() -> None:
    env = cahoots_envs.make("cahoots_coop", num_players=2)
    with pytest.raises(ValueError, match=r"\['players', 'seed'\]"):
        GameRecorder(env, meta={"seed": 1, "players": [], "note": "ok"})
    with pytest.raises(ValueError, match="NaN"):
        GameRecorder(env, meta={"score": float("nan")})
    rec = GameRecorder(env, meta={"note": "ok"})
    rec.reset(seed=1)
    assert rec.log.header["note"] == "ok" and rec.log.header["seed"] == 1


@pytest.fixture(scope="module")
def kc_records() -> list[dict]:
    """A two-hand kansas_city log as records: header, actions, one deal event, end."""
    rec = _random_game("kansas_city", seed=5, hands=2)
    return [json.loads(x) for x in rec.log.lines()]


def _first(records: list[dict], kind: str) -> dict:
    return next(r for r in records if r["type"] == kind)


def _set_nan_score(records: list[dict]) -> None:
    records[-1]["scores"][0] = float("nan")  # json.dumps writes NaN


TAMPERINGS = [
    # (what, edit of the records, ReplayError message)
    ("end outcome", lambda r: r[-1].update(outcome=r[-1]["outcome"][::-1]), r"'outcome' differ"),
    ("end winners", lambda r: r[-1].update(winners=[(r[-1]["winners"] + [0])[0] + 1]),
     r"'winners' differ"),
    ("end turns", lambda r: r[-1].update(turns=r[-1]["turns"] + 1), r"end record: 'turns' must be"),
    ("action turn", lambda r: r[3].update(turn=7), r"log:4: action \(turn 2\): 'turn' must be 2"),
    ("action agent", lambda r: r[1].update(agent=f"player_{(r[1]['seat'] + 1) % 4}"),
     r"log:2: action \(turn 0\): 'agent'"),
    ("action phase", lambda r: r[1].update(phase="play"), r"log:2: turn 0: the log has phase 'play'"),
    ("action seat a string", lambda r: r[1].update(seat="1"), r"log:2: .*'seat' must be a whole"),
    ("action turn a bool", lambda r: r[1].update(turn=False), r"log:2: .*'turn' must be 0"),
    ("action field missing", lambda r: r[2].pop("action"), r"log:3: .*the field 'action' is missing"),
    ("action unknown field", lambda r: r[2].update(note=1), r"log:3: .*unknown field\(s\) \['note'\]"),
    ("duplicate end", lambda r: r.append(dict(r[-1])), r"a second end record after the end record"),
    ("record after the end", lambda r: r.append(dict(r[1])), r"'action' record after the end"),
    ("NaN score", _set_nan_score, r"not JSON \(NaN is not a number"),
    ("header seed a string", lambda r: r[0].update(seed="5"), r"log:1: header: 'seed' must be"),
    ("header options a list", lambda r: r[0].update(options=[]), r"header: 'options' must be a JSON"),
    ("header env_version", lambda r: r[0].update(env_version=7), r"'env_version' is 7"),
    ("deal event hand", lambda r: _first(r, "deal").update(hand=2), r"deal .*'hand' must be 1"),
    ("deal event twice", lambda r: r.insert(r.index(_first(r, "deal")), _first(r, "deal")),
     r"deal .*'hand' must be 2"),
    ("end scores strings", lambda r: r[-1].update(scores=["1"] * 4), r"'scores' must be a list of finite"),
    ("end digest", lambda r: r[-1].update(digest="0" * 64), r"'digest' does not match"),
    ("end digest missing", lambda r: r[-1].pop("digest"), r"the field 'digest' is missing"),
    ("end abandoned", lambda r: r[-1].update(abandoned=True), r"end record: unknown field"),
]


@pytest.mark.parametrize("what,edit,message", TAMPERINGS, ids=[t[0] for t in TAMPERINGS])
def test_every_field_is_checked(kc_records, what, edit, message) -> None:
    records = json.loads(json.dumps(kc_records))
    edit(records)
    lines = [json.dumps(r) for r in records]
    with pytest.raises(ReplayError, match=message):
        replay_log(GameLog.from_lines(lines))


def test_the_digest_finds_another_game_that_also_replays() -> None:
    """The last move of this game swapped for another legal one gives the same scores: every
    record still agrees with the env, and only the end record's digest tells the games apart."""
    rec = _random_game("cahoots_tricks", seed=5)
    records = [json.loads(x) for x in rec.log.lines()]
    last = [r for r in records if r["type"] == "action"][-1]
    env = cahoots_envs.make_raw("cahoots_tricks")
    env.reset(seed=5)
    for r in rec.log.actions[:-1]:
        env.step(env.str_to_action(r["action"]))
    for other in [env.action_to_str(a) for a in env.legal_actions()]:
        last["action"] = other
        old_style = json.loads(json.dumps(records))
        for key in ("winners", "ended_by", "digest"):  # an end record as written before the digest
            del old_style[-1][key]
        try:
            replay_log(GameLog.from_lines([json.dumps(r) for r in old_style]))
        except ReplayError:
            continue
        if other != rec.log.actions[-1]["action"]:
            break
    else:
        raise AssertionError("no other last move with the same result")
    with pytest.raises(ReplayError, match="'digest' does not match the game replayed"):
        replay_log(GameLog.from_lines([json.dumps(r) for r in records]))


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused_anywhere(kc_records, text) -> None:
    header = dict(kc_records[0], note=0)
    line = json.dumps(header).replace('"note": 0', f'"note": {text}')
    lines = [line] + [json.dumps(r) for r in kc_records[1:]]
    with pytest.raises(ReplayError, match="log:1: not JSON"):
        GameLog.from_lines(lines)


def test_a_log_without_end_record_fails_unless_partial(kc_records) -> None:
    lines = [json.dumps(r) for r in kc_records[:-1]]
    with pytest.raises(ReplayError, match="no end record"):
        replay_log(GameLog.from_lines(lines))
    result = replay_log(GameLog.from_lines(lines), partial=True)
    assert not result.complete and result.turns == kc_records[-1]["turns"]


def test_reading_is_bounded(tmp_path) -> None:
    import time

    long_line = tmp_path / "long.jsonl"
    long_line.write_text('{"type": "header", "x": "' + "x" * MAX_LOG_LINE + '"}\n')
    with pytest.raises(ReplayError, match=r"long.jsonl:1: line longer than"):
        GameLog.load(long_line)
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(MAX_LOG_BYTES + 1)
    with pytest.raises(ReplayError, match="more than a game log may hold"):
        GameLog.load(big)
    with pytest.raises(ReplayError, match="is a folder"):
        GameLog.load(tmp_path)
    if Path("/dev/zero").exists():
        start = time.perf_counter()
        with pytest.raises(ReplayError, match="line longer than"):
            GameLog.load("/dev/zero")
        assert time.perf_counter() - start < 10


def test_an_abandoned_record_may_say_why_and_that_is_checked(tmp_path) -> None:
    env = cahoots_envs.make("cahoots_coop", num_players=2)
    rec = GameRecorder(env, path=tmp_path / "left.jsonl")
    rec.reset(seed=3)
    rec.step(env.unwrapped.legal_actions()[0])
    assert rec.abandon(reason="SIGTERM")["reason"] == "SIGTERM"
    lines = (tmp_path / "left.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["reason"] == "SIGTERM"
    assert replay_log(tmp_path / "left.jsonl").abandoned
    bad = [*lines[:-1], lines[-1].replace('"SIGTERM"', "15")]
    with pytest.raises(ReplayError, match="end record: 'reason' must be a string, got 15"):
        replay_log(GameLog.from_lines(bad))
