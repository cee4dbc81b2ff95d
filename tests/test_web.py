"""The browser view (``cahoots_envs.web``, ``cahoots serve``) through Starlette's test client:
every route and error, a whole game of every registered game played through the API by legal
moves, the log it gives replayed, and the leak test: the JSON a seat receives (its table, text,
legal moves and the moves as it saw them) is the same when every card it cannot see is dealt
afresh, the deal records and the others' hidden choices included."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx (its test client still uses it)
    from starlette.testclient import TestClient

from cahoots_envs.gamelog import GameLog, replay_log
from cahoots_envs.registry import GAMES, builtin_games, game_spec
from cahoots_envs.web.app import Limits, create_app
from cahoots_envs.web.tables import (
    legal_moves,
    legal_parts,
    make_event,
    move_parts,
    table_of,
    text_of,
)
from tests.web_server import every_move, pick

# options that make a whole game short, where a game has them
SHORT: dict[str, dict[str, Any]] = {"kansas_city": {"hands": 1}, "texas_euchre": {"target_score": 30}}


def loaded(app: Any, host: str = "testclient") -> TestClient:
    """A client of ``app`` from address ``host`` that loaded the page (it has a session)."""
    client = TestClient(app, client=(host, 50000))
    page = client.get("/")
    assert page.status_code == 200 and "cahoots_session" in client.cookies, page.text
    return client


@pytest.fixture
def client() -> TestClient:
    return loaded(create_app())


def start(client: TestClient, game: str, mode: str = "play", **extra: Any) -> dict[str, Any]:
    spec = game_spec(game)
    n = spec.rules.DEFAULT_PLAYERS
    policies = (["human"] if mode == "play" else ["heuristic"]) + ["heuristic"] * (n - 1)
    body = {"game": spec.name, "options": SHORT.get(spec.name, {}), "policies": policies,
            "seed": 5, **extra}
    r = client.post(f"/api/{mode}", json=body)
    assert r.status_code == 201, r.json()
    return r.json()  # type: ignore[no-any-return]


def play_out(client: TestClient, state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    gid = state["id"]
    while not state["over"]:
        if state["your_turn"]:
            assert state["legal"]["count"] and not state["thinking"]
            r = client.post(f"/api/games/{gid}/move", json=pick(state["legal"], rng))
        else:
            assert state["legal"] is None
            r = client.post(f"/api/games/{gid}/advance", json={"wait_ms": 5000})
        assert r.status_code == 200, r.json()
        state = r.json()
    return state


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_through_the_api_and_its_log_replays(client: TestClient, game: str) -> None:
    state = start(client, game)
    assert state["seat"] == 0 and state["mode"] == "player" and state["table"]["viewer"] == 0
    state = play_out(client, state, np.random.default_rng(1))
    assert state["result"]["summary"] and state["events_total"] == len(state["events"])
    for event in state["events"]:  # the human sees what it may: every move as its seat saw it
        assert event["text"].startswith(f"player_{event['seat']} ")
    r = client.get(f"/api/games/{state['id']}/log")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    log = GameLog.from_lines(r.text.splitlines(), "web")
    assert replay_log(log).complete
    assert log.header["players"][0] == "you"
    up = client.post("/api/replays", content=r.content)
    assert up.status_code == 201 and up.json()["complete"], up.json()
    rid, positions = up.json()["id"], up.json()["positions"]
    for k in (0, positions // 2, positions - 1):
        for view in ("referee", "0", "1"):
            p = client.get(f"/api/replays/{rid}/position/{k}", params={"view": view}).json()
            assert p["k"] == k and len(p["events"]) == k
    end = client.get(f"/api/replays/{rid}/position/{positions - 1}").json()
    assert end["over"] and end["next"] is None and end["result"] is not None


def test_watch_steps_one_move_at_a_time_in_any_view(client: TestClient) -> None:
    game = builtin_games()[0].name
    state = start(client, game, mode="watch")
    assert state["mode"] == "watch" and state["view"] == "referee" and state["seat"] is None
    assert all(seat["hand"] is not None for seat in state["table"]["seats"])
    for i in range(3):
        state = client.post(f"/api/games/{state['id']}/advance", json={"since": i}).json()
        assert state["advanced"] and state["events_total"] == i + 1 and len(state["events"]) == 1
    seat1 = client.get(f"/api/games/{state['id']}/state", params={"view": "1"}).json()
    assert [s["hand"] is not None for s in seat1["table"]["seats"]][:2] == [False, True]
    bad = client.get(f"/api/games/{state['id']}/state", params={"view": "9"})
    assert bad.status_code == 400 and "referee" in bad.json()["error"]
    assert client.post(f"/api/games/{state['id']}/move", json={"action": 0}).status_code == 409
    assert client.get(f"/api/games/{state['id']}/log").status_code == 409  # not over yet
    assert client.delete(f"/api/games/{state['id']}").json() == {"deleted": state["id"]}
    assert client.get(f"/api/games/{state['id']}/state").status_code == 404


def test_games_lists_options_and_policy_ids_never_paths(tmp_path) -> None:
    from cahoots_envs.policies.loading import zoo_path

    spec = builtin_games()[0]
    copy = tmp_path / "mine.safetensors"
    source = zoo_path(spec.name)
    copy.write_bytes(source.read_bytes())
    copy.with_suffix(".json").write_text(source.with_suffix(".json").read_text())
    client = loaded(create_app(policies=[copy]))
    r = client.get("/api/games")
    assert r.status_code == 200
    body = r.json()
    names = [g["name"] for g in body["games"]]
    assert names == list(GAMES)
    first = body["games"][0]
    ids = [p["id"] for p in first["policies"]]
    assert ids[:2] == ["random", "heuristic"] and "file:mine" in ids
    assert str(tmp_path) not in r.text
    assert all(o["name"] not in ("num_players", "reward_mode") for o in first["options"])
    n = spec.rules.DEFAULT_PLAYERS
    ok = client.post("/api/play", json={"game": spec.name, "policies": ["human", "file:mine",
                                                                        *["random"] * (n - 2)]})
    assert ok.status_code == 201, ok.json()
    path = client.post("/api/play", json={"game": spec.name, "policies": [
        "human", str(copy), *["random"] * (n - 2)]})
    assert path.status_code == 400 and "unknown policy" in path.json()["error"]


def test_bad_requests_get_one_clear_json_error(client: TestClient) -> None:
    spec = builtin_games()[0]
    n = spec.rules.DEFAULT_PLAYERS
    good = {"game": spec.name, "policies": ["human"] + ["random"] * (n - 1)}
    cases = [
        ({**good, "game": "chess"}, "unknown game"),
        ({**good, "policies": ["human"]}, "one policy id per seat"),
        ({**good, "policies": ["random"] * n}, "your seat"),
        ({**good, "seat": 1}, "'human' at your seat"),
        ({**good, "options": {"no_such_option": 1}}, "no_such_option"),
        ({**good, "options": []}, "JSON object"),
        ({**good, "players": 99}, "num_players"),
        ({**good, "seed": -1}, "'seed'"),
        ({**good, "policies": ["human", "../../etc/passwd"] + ["random"] * (n - 2)},
         "unknown policy"),
        ({**good, "policies": ["human", "zoo:../x"] + ["random"] * (n - 2)}, "cannot play"),
    ]
    for body, words in cases:
        r = client.post("/api/play", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.json())
        assert r.json()["status"] == 400 and "Traceback" not in r.text
    for raw in (b"", b"[1, 2]", b"{not json", b"\xff\xfe"):
        r = client.post("/api/play", content=raw)
        assert r.status_code == 400 and "JSON object" in r.json()["error"]
    assert client.post("/api/play", content=b"{" + b" " * 70_000 + b"}").status_code == 413
    watch = client.post("/api/watch", json=good)
    assert watch.status_code == 400 and "no 'human' seat" in watch.json()["error"]
    assert client.get("/api/nothing").json()["status"] == 404
    assert client.post("/api/games").status_code == 405
    state = client.post("/api/play", json={**good, "seed": 3}).json()
    gid = state["id"]
    while not state["your_turn"]:
        state = client.post(f"/api/games/{gid}/advance").json()
    legal = {m["id"] for m in legal_moves(client.app.state.server.items()[gid].game)}  # type: ignore[attr-defined]
    illegal = next(a for a in range(10_000) if a not in legal)
    for action, status, words in ((illegal, 400, "not a legal move"), ("x", 400, "action id"),
                                  (True, 400, "action id"), (None, 400, "action id")):
        r = client.post(f"/api/games/{gid}/move", json={"action": action})
        assert r.status_code == status and words in r.json()["error"], r.json()
    assert client.post(f"/api/games/{gid}/move", json={}).status_code == 400
    assert client.post(f"/api/games/{gid}/advance", json={"wait_ms": -1}).status_code == 400
    assert client.get(f"/api/games/{gid}/state", params={"since": "x"}).status_code == 400
    assert client.get(f"/api/games/{gid}/state", params={"view": "referee"}).status_code == 400
    other = loaded(client.app)  # another session does not see this one's games
    assert other.get(f"/api/games/{gid}/state").status_code == 404


def test_limits_per_session_and_idle_expiry() -> None:
    client = loaded(create_app(limits=Limits(per_session=2, total=3, idle_seconds=3600)))
    spec = builtin_games()[0]
    n = spec.rules.DEFAULT_PLAYERS
    body = {"game": spec.name, "policies": ["random"] * n}
    ids = [client.post("/api/watch", json=body).json()["id"] for _ in range(2)]
    r = client.post("/api/watch", json=body)
    assert r.status_code == 429 and "live games" in r.json()["error"]
    server = client.app.state.server  # type: ignore[attr-defined]
    server.limits.idle_seconds = 0
    assert client.post("/api/watch", json=body).status_code == 201  # the idle two expired
    assert all(client.get(f"/api/games/{g}/state").status_code == 404 for g in ids)


def test_replay_upload_errors_are_those_of_cahoots_replay(client: TestClient) -> None:
    state = play_out(client, start(client, builtin_games()[0].name), np.random.default_rng(2))
    text = client.get(f"/api/games/{state['id']}/log").text
    lines = text.splitlines()
    r = client.post("/api/replays", content=b"hello\n")
    assert r.status_code == 400
    assert r.json()["error"] == "upload:1: not JSON (Expecting value)"
    record = json.loads(lines[3])
    record["action"] = "play nothing"
    bad = "\n".join(lines[:3] + [json.dumps(record)] + lines[4:])
    r = client.post("/api/replays", content=bad.encode())
    assert r.status_code == 400 and r.json()["error"].startswith("FAILED: upload:4: turn 2")
    big = client.post("/api/replays", content=b"x" * 2_000_001)
    assert big.status_code == 413
    cut = client.post("/api/replays", content="\n".join(lines[:-1]).encode())
    assert cut.status_code == 201 and not cut.json()["complete"]
    rid = cut.json()["id"]
    assert client.get(f"/api/replays/{rid}/position/999999").status_code == 404
    assert client.get(f"/api/replays/{rid}/position/x").status_code == 400
    assert client.get(f"/api/replays/{rid}/position/0", params={"view": "s"}).status_code == 400


def test_replay_shows_a_zoo_networks_probabilities(client: TestClient) -> None:
    spec = builtin_games()[0]
    n = spec.rules.DEFAULT_PLAYERS
    zoo = f"zoo:{spec.name}"
    state = client.post("/api/watch", json={"game": spec.name, "policies": [zoo] * n,
                                            "options": SHORT.get(spec.name, {}), "seed": 1}).json()
    while not state["over"]:
        state = client.post(f"/api/games/{state['id']}/advance").json()
    up = client.post("/api/replays", content=client.get(f"/api/games/{state['id']}/log").content)
    p = client.get(f"/api/replays/{up.json()['id']}/position/1").json()
    probs = p["probabilities"]
    assert probs["policy"] == zoo and probs["seat"] == p["to_move"]
    assert abs(sum(m["p"] for m in probs["moves"]) - 1) < 1e-4
    replay = client.app.state.server.items()[up.json()["id"]]  # type: ignore[attr-defined]
    assert {m["id"] for m in probs["moves"]} == {m["id"] for m in legal_moves(replay.at(1))}
    assert len(every_move(p["legal"])) == len(probs["moves"])
    other = client.get(f"/api/replays/{up.json()['id']}/position/1",
                       params={"view": str((p["to_move"] + 1) % n)}).json()
    assert other["probabilities"] is None and other["legal"] is None


def test_moves_as_parts() -> None:
    verbs = {"pass": "hand", "play": "cards", "no": "word", "discard": "hand"}
    assert move_parts("pass 2A 5A 4B", verbs, ()) == {
        "verb": "pass", "kind": "hand", "cards": ["2A", "5A", "4B"], "target": None, "words": []}
    assert move_parts("play 4G on 2", verbs, ("ON",))["cards"] == ["4G"]
    assert move_parts("play 4G on 2", verbs, ("ON",))["target"] == "2"
    assert move_parts("no upgrade", verbs, ())["words"] == ["upgrade"]
    assert move_parts("discard none", verbs, ("NONE",))["words"] == ["none"]
    for spec in builtin_games():  # every legal move's parts tell it from the others
        game = spec.new_game(spec.resolve_options({}), np.random.default_rng(0))
        moves = legal_moves(game)
        keys = {(m["verb"], tuple(sorted(m["cards"])), m["target"], tuple(m["words"]))
                for m in moves}
        assert len(keys) == len(moves)


def test_a_game_without_a_view_gets_its_text() -> None:
    spec = game_spec("high_card")
    assert spec.view is None
    game = spec.new_game(spec.resolve_options({}), np.random.default_rng(0))
    table = table_of(game, 0)
    assert table["kind"] == "text" and "\n".join(table["lines"]) == spec.text.seat_view(game, 0)


# ---- the leak test ------------------------------------------------------------------------------
def _record(spec: Any, opts: dict[str, Any], seed: int) -> tuple[list[Any], list[int]]:
    game = spec.rules(opts, np.random.default_rng(seed), None)
    bots = [spec.bot(opts, seed=seed + s) for s in range(opts["num_players"])]
    from cahoots_envs.web.tables import observation

    games, actions = [game.clone()], []
    while not game.is_over:
        obs, mask = observation(game, game.current_player, opts)
        actions.append(int(bots[game.current_player].act(obs, mask)))
        game.apply(actions[-1])
        games.append(game.clone())
    return games, actions


def _sent(spec: Any, opts: dict[str, Any], start: Any, actions: list[int], seat: int) -> str:
    """What ``seat`` is sent after ``actions`` from ``start``: its table, text, legal moves (in
    parts) when it is to move, every move as it saw it, the stream's frame of that state (a
    live game's ``Match`` over the game, played from that seat) and a replay's moves as that
    seat saw them (packed, then unpacked)."""
    from cahoots_envs.registry import make_raw
    from cahoots_envs.web.replays import Seen
    from cahoots_envs.web.stream import frame
    from cahoots_envs.web.tables import PLAYER, Match

    game, events = start, []
    for action in actions:
        before = game.clone()
        game.apply(action)
        events.append(make_event(before, action, game, len(events)))
    mover = None if game.is_over else game.current_player
    env = make_raw(spec.env_id, **opts)
    env.game = game  # the live game's env over this game
    n = opts["num_players"]
    match = Match(mode=PLAYER, env=env, recorder=None,  # type: ignore[arg-type]
                  policies=[None] * n, names=[f"player_{s}" for s in range(n)], human=seat,
                  id="g_leak", events=events)
    streamed = frame("state", match.state(0), len(events)).decode()
    return json.dumps({"table": table_of(game, seat), "text": text_of(game, seat),
                       "legal": legal_parts(game) if mover == seat else None,
                       "events": [e.shown(i, seat) for i, e in enumerate(events)],
                       "stream": streamed,
                       "replay": Seen.pack(events, [None, *range(n)]).shown(len(events), seat)},
                      sort_keys=True)


@pytest.mark.parametrize("spec", builtin_games(), ids=lambda s: s.name)
def test_a_seat_is_sent_nothing_its_observation_hides(spec: Any) -> None:
    opts = spec.resolve_options({})
    sampler = spec.require("world_sampler")
    games, actions = _record(spec, opts, seed=11)
    points = sorted({1, len(actions) // 3, len(actions) // 2, len(actions) - 2})
    redealt = 0
    for t in points:
        for seat in range(opts["num_players"]):
            true = _sent(spec, opts, spec.rules(opts, np.random.default_rng(11), None),
                         actions[:t], seat)
            world = sampler.sample_world(games[t], seat, np.random.default_rng([t, seat]))
            rng = np.random.default_rng(0)
            if world.rng_state is not None:
                rng.bit_generator.state = world.rng_state
            twin_start = spec.rules(opts, rng, world.deals)
            redealt += world.deals != games[t].deals
            assert _sent(spec, opts, twin_start, list(world.actions), seat) == true, (
                f"{spec.name} step {t} seat {seat}: the re-dealt game sends the seat other JSON")
    assert redealt, "no twin had another deal: the test would prove nothing"


# ---- legal moves in parts -----------------------------------------------------------------------
def _positions(spec: Any, seed: int, every: int) -> list[Any]:
    """Positions of a game between rule-based bots, one in ``every``."""
    games, _ = _record(spec, spec.resolve_options({}), seed)
    return games[:-1:every]


@pytest.mark.parametrize("spec", builtin_games(), ids=lambda s: s.name)
def test_legal_parts_say_every_legal_move_and_no_other(spec: Any) -> None:
    """The parts (cards, then kinds of move) allow exactly the legal moves, each once, and a
    move sent by its parts is the same action as by its id."""
    from cahoots_envs.web.tables import action_of

    for game in _positions(spec, seed=3, every=7):
        full = legal_moves(game)
        by_parts = {(m["verb"], tuple(sorted(m["cards"])), m["target"]): m["id"] for m in full
                    if not m["words"]}
        sent = every_move(legal_parts(game))
        assert len(sent) == len(full)
        made = []
        for i, body in enumerate(sent):
            if "action" in body:
                made.append(body["action"])
                continue
            p = body["parts"]
            made.append(by_parts[(p["verb"], tuple(sorted(p["cards"])), None)])
            if i % 17 == 0:  # the server reads the parts as that move (a sample: 364 a pass)
                assert action_of(game, {**p, "cards": p["cards"][::-1]}) == made[-1]
        assert sorted(made) == sorted(m["id"] for m in full)


def test_a_kansas_city_pass_is_sent_as_parts_not_364_moves() -> None:
    spec = game_spec("kansas_city")
    game = spec.new_game(spec.resolve_options({}), np.random.default_rng(0))
    full = legal_moves(game)
    parts = legal_parts(game)
    assert len(full) == 364 and parts["count"] == 364
    assert parts["kinds"] == [{"verb": "pass", "kind": "hand", "cards": parts["cards"],
                               "sizes": [3], "any": True}] and len(parts["cards"]) == 14
    assert len(json.dumps(parts)) * 50 < len(json.dumps(full))


def test_a_move_by_parts_is_checked(client: TestClient) -> None:
    state = start(client, "kansas_city")  # the pass of three first
    gid = state["id"]
    while not state["your_turn"]:
        state = client.post(f"/api/games/{gid}/advance", json={"wait_ms": 5000}).json()
    cards = state["legal"]["kinds"][0]["cards"]
    for body, words in (({"move": {"verb": "pass", "cards": cards[:2], "target": None}},
                         "no legal move is 'pass"),
                        ({"move": {"verb": "pass", "cards": "2A"}}, "the move's parts"),
                        ({"move": ["pass"]}, "the move's parts")):
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 400 and words in r.json()["error"], r.json()
    r = client.post(f"/api/games/{gid}/move",
                    json={"move": {"verb": "pass", "cards": cards[:3][::-1], "target": None}})
    assert r.status_code == 200 and r.json()["events"][-1]["text"].startswith("player_0 pass")


# ---- replays: keyframes, bytes ------------------------------------------------------------------
FIXTURES = Path(__file__).parent / "fixtures" / "gamelogs"


@pytest.mark.parametrize("name", ["kansas_city_4p", "texas_euchre_4p"])
def test_a_replay_rebuilds_every_position_as_the_game_was(client: TestClient, name: str) -> None:
    """Positions rebuilt from keyframes are those of the game stepped move by move: the table,
    text, legal moves, the move next and every move before as the view saw them."""
    from cahoots_envs.gamelog import replay_env
    from cahoots_envs.web.tables import result_of, seen_move

    text = (FIXTURES / f"{name}.jsonl").read_text()
    up = client.post("/api/replays", content=text.encode()).json()
    log = GameLog.from_lines(text.splitlines(), name)
    env = replay_env(log, render_mode=None)
    events: list[Any] = []
    for k, record in enumerate([*log.actions, None]):
        game = env.game
        for view, seat in (("referee", None), ("2", 2)):
            if k % 5 and view == "2":
                continue
            got = client.get(f"/api/replays/{up['id']}/position/{k}", params={"view": view}).json()
            action = None if record is None else int(env.str_to_action(record["action"]))
            shows = not game.is_over and seat in (None, game.current_player)
            assert got["table"] == table_of(game, seat) and got["text"] == text_of(game, seat)
            assert got["legal"] == (legal_parts(game) if shows else None)
            assert got["result"] == result_of(game, seat)
            assert got["next"] == (None if action is None else
                                   {"seat": game.current_player,
                                    "text": seen_move(game, action, seat)})
            assert got["events"] == [e.shown(i, seat) for i, e in enumerate(events)]
        if record is not None:
            before = game.clone()
            env.step(action)
            events.append(make_event(before, action, env.game, len(events)))
    assert up["positions"] == len(log.actions) + 1


@pytest.mark.parametrize("log", ["long kansas_city", "cahoots_coop_3p"])
def test_a_replay_counts_at_least_the_bytes_it_holds(log: str) -> None:
    """``nbytes`` (what the byte caps count) is no less than the memory a replay keeps, and a
    long game's replay keeps well under a MiB (a clone per position kept 8.5 MiB); tables a
    game shares with every other game (cahoots_coop's goal tables) are not the replay's."""
    import gc
    import tracemalloc

    from cahoots_envs.web.replays import load_replay
    from tests.web_server import long_log

    text = long_log() if log.startswith("long") else (FIXTURES / f"{log}.jsonl").read_text()
    load_replay(text, None)  # imports and shared tables made
    gc.collect()
    tracemalloc.start()
    try:
        replay = load_replay(text, None)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held <= replay.nbytes < 2.5 * held + 64 * 1024, (held, replay.nbytes)
    assert replay.nbytes < 640 * 1024
    if log.startswith("long"):
        assert replay.positions == 880


def test_replays_are_capped_in_bytes_per_session_and_in_all() -> None:
    text = (FIXTURES / "kansas_city_4p.jsonl").read_bytes()
    app = create_app(limits=Limits(per_session=8))
    one = loaded(app)
    size = one.post("/api/replays", content=text).json()["bytes"]
    server = app.state.server  # type: ignore[attr-defined]
    server.limits.replay_bytes_per_session = int(2.5 * size)
    server.limits.replay_bytes = int(3.5 * size)
    assert one.post("/api/replays", content=text).status_code == 201
    r = one.post("/api/replays", content=text)
    assert r.status_code == 429 and "this session's replays would hold" in r.json()["error"]
    assert "\n" not in r.json()["error"]
    other = loaded(app, "10.0.0.2")
    first = other.post("/api/replays", content=text)
    assert first.status_code == 201, first.json()  # 3 of 3.5: room
    taken = other.post("/api/replays", content=text)  # the server is full: one's latest goes
    assert taken.status_code == 201 and server.sessions.nbytes() <= server.limits.replay_bytes
    assert len(server.sessions.find(one.cookies["cahoots_session"]).items) == 1
    r = other.post("/api/replays", content=text)  # its own cap
    assert r.status_code == 429 and "this session's" in r.json()["error"]
    third = loaded(app, "10.0.0.3")
    server.limits.replay_bytes_per_session = 10 * size
    third.post("/api/replays", content=text)  # a first replay may take another's first's place
    r = third.post("/api/replays", content=text)  # nothing but first replays left to give way
    assert r.status_code == 429 and "the server's replays hold" in r.json()["error"], r.json()


# ---- the stream of moves ------------------------------------------------------------------------
def frames(text: str) -> list[tuple[str, Any]]:
    """The (event, data) frames of a server-sent-events body (comments skipped)."""
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line
                      and not line.startswith(":"))
        if "event" in fields:
            found.append((fields["event"], json.loads(fields["data"])))
    return found


def test_a_watched_games_stream_sends_every_move_once_then_ends(client: TestClient) -> None:
    """Paced, one move a frame; unpaced, the light bots' moves come several to a frame. Either
    way every move once, in order, as the view saw it, and the end."""
    for pace, most in (("1", 1), ("0", None)):
        state = start(client, "kansas_city", mode="watch")
        r = client.get(f"/api/games/{state['id']}/stream", params={"view": "1", "pace_ms": pace})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        sent = frames(r.text)
        kinds = [kind for kind, _ in sent]
        assert kinds[-1] == "end" and set(kinds[:-1]) == {"state"}
        states = [data for kind, data in sent if kind == "state"]
        assert states[-1]["over"]
        assert states[0]["events_total"] == 0 or most is None  # unpaced: moves at once
        done = 0
        for i, s in enumerate(states):
            assert [e["i"] for e in s["events"]] == list(range(done, s["events_total"]))
            assert i == 0 or 1 <= len(s["events"]) <= (most or 10**6)
            assert s["view"] == 1 and s["legal"] is None
            done = s["events_total"]
        if most is None:
            assert len(states) < done / 4  # a 50 ms batch holds many rule-based bots' moves
        final = client.get(f"/api/games/{state['id']}/state", params={"view": "1"}).json()
        assert [e for s in states for e in s["events"]] == final["events"]
        assert states[-1]["table"] == final["table"]
    for bad, words in (({"view": "9"}, "view must be"), ({"pace_ms": "x"}, "'pace_ms'"),
                       ({"pace_ms": "10001"}, "'pace_ms'"), ({"since": "-1"}, "'since'")):
        r = client.get(f"/api/games/{state['id']}/stream", params=bad)
        assert r.status_code == 400 and words in r.json()["error"], (bad, r.json())
    assert client.get("/api/games/g_nothing/stream").status_code == 404


def test_a_played_games_stream_waits_for_the_human_and_is_replaced_or_ended() -> None:
    """Over real HTTP: the stream sends the bots' moves up to the human's turn (paced), waits,
    sends the human's move and the bots' next ones; a newer stream replaces it; deleting the
    game ends the newer one with a JSON error."""
    import queue
    import threading
    import time

    import httpx

    pytest.importorskip("uvicorn")
    from tests.web_server import running

    app = create_app()
    with running(app, lifespan="on") as base, httpx.Client(base_url=base, timeout=30) as http:
        http.get("/")
        state = http.post("/api/play", json={"game": "kansas_city", "options": {"hands": 1},
                                              "seat": 2, "seed": 4,
                                              "policies": ["heuristic", "random", "human",
                                                           "heuristic"]}).json()
        gid = state["id"]

        def listen(into: queue.Queue[tuple[str, Any, float]], **params: Any) -> None:
            with http.stream("GET", f"/api/games/{gid}/stream", params=params) as r:
                block: list[str] = []
                for line in r.iter_lines():
                    if line:
                        block.append(line)
                        continue
                    got = frames("\n".join(block) + "\n\n")
                    block = []
                    for kind, data in got:
                        into.put((kind, data, time.monotonic()))
                        if kind != "state":
                            return  # its last frame

        first: queue.Queue[tuple[str, Any, float]] = queue.Queue()
        threading.Thread(target=listen, args=(first,), kwargs={"pace_ms": 50},
                         daemon=True).start()
        seen, times = [], []
        while True:
            kind, data, when = first.get(timeout=30)
            assert kind == "state"
            seen.append(data)
            times.append(when)
            if data["your_turn"]:
                break
        assert [s["events_total"] for s in seen] == list(range(len(seen)))
        assert seen[-1]["to_move"] == 2 and seen[-1]["legal"]["count"] > 0
        assert all(b - a >= 0.045 for a, b in itertools.pairwise(times))  # paced
        assert first.empty()  # it waits for the human
        rng = np.random.default_rng(0)
        r = http.post(f"/api/games/{gid}/move", json=pick(seen[-1]["legal"], rng))
        assert r.status_code == 200, r.json()
        kind, data, _ = first.get(timeout=30)  # the human's move, as the stream's next frame
        assert kind == "state" and data["events"][0]["i"] == len(seen) - 1
        assert data["events"][0]["seat"] == 2
        second: queue.Queue[tuple[str, Any, float]] = queue.Queue()
        threading.Thread(target=listen, args=(second,), kwargs={"since": len(seen)},
                         daemon=True).start()
        while (got := first.get(timeout=30))[0] == "state":
            pass
        assert got[0] == "replaced"
        assert second.get(timeout=30)[0] == "state"
        assert http.delete(f"/api/games/{gid}").status_code == 200
        while (got := second.get(timeout=30))[0] == "state":
            pass
        assert got[0] == "failed" and got[1]["status"] == 404


@pytest.mark.parametrize("name", ["kansas_city_4p", "cahoots_coop_3p"])
def test_a_replay_made_in_a_worker_process_is_the_same_and_no_bigger(name: str) -> None:
    """An upload is replayed in a worker process and sent back pickled: every position as the
    replay made here gives it, what every game shares (cahoots_coop's goal tables) shared
    again, and no more memory than ``nbytes`` counts."""
    import gc
    import tracemalloc

    from cahoots_envs.web.replays import ReplayProcesses, load_upload

    raw = (FIXTURES / f"{name}.jsonl").read_bytes()
    here = load_upload(raw)
    ReplayProcesses.load(raw, 1)  # the worker started
    gc.collect()
    tracemalloc.start()
    try:
        there = ReplayProcesses.load(raw, 1)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held <= there.nbytes < 1.5 * here.nbytes, (held, there.nbytes, here.nbytes)
    fresh = vars(there.keyframes[0].face.new_game(there.options, np.random.default_rng(0)))
    for key, value in vars(there.keyframes[-1]).items():
        if not isinstance(value, (int, float, str, type(None))) and fresh.get(key) == value:
            assert fresh[key] is value or key in type(there.keyframes[0]).CLONED_LISTS or \
                key in type(there.keyframes[0]).CLONED_NESTED_LISTS, key
    for k in range(there.positions):
        for view in ("referee", "1"):
            assert there.position(k, view) == {**here.position(k, view), "id": there.id}


def test_each_games_rules_are_served_formatted_and_fresh(client: TestClient) -> None:
    """The page's rules are each game's rules spec as HTML, rendered into the package at build
    time; a spec changed without ``python -m cahoots_envs.web.rules_html`` fails here."""
    from cahoots_envs.web.rules_html import SOURCE, rendered

    files = rendered()
    assert len(files) == len(list(SOURCE.glob("*.md"))) >= 4
    for path, html in files.items():
        assert path.is_file() and path.read_text(encoding="utf-8") == html, \
            f"{path.name} is stale: run python -m cahoots_envs.web.rules_html"
    for game in client.get("/api/games").json()["games"]:
        summary = game["summary"]
        assert "docs/rules" not in summary and "**" not in summary and "`" not in summary
        if game["name"] not in GAMES or game["name"] == "high_card":
            continue
        assert game["rules"] == f"/static/rules/{game['name']}.html"
        page = client.get(game["rules"])
        assert page.status_code == 200 and "<h2>" in page.text and "<li>" in page.text
        assert "**" not in page.text and "\n## " not in page.text and "<script" not in page.text


def test_kansas_city_says_the_last_hand_of_the_game_at_the_end() -> None:
    """The final table reads "Hand: 3 of 3", never "4 of 3"."""
    from cahoots_envs.registry import make_raw
    from cahoots_envs.web.tables import table_of

    env = make_raw(game_spec("kansas_city").env_id, hands=3)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    game = env.game
    while not game.is_over:
        game.apply(int(rng.choice(game.legal_actions())))
    table = table_of(game, None)
    assert table["hand_number"] == table["hands_total"] == 3
