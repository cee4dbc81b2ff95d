"""The browser view's app under uvicorn in a thread on a free port of 127.0.0.1, for the tests
that drive it over real HTTP (``test_web_browser.py``, ``test_web_limits.py``), and the legal
moves a ``legal`` answer (its parts) allows, for the tests that play through the API."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def running(app: Any, lifespan: str = "off") -> Iterator[str]:
    """Serve ``app`` while the block runs; yields its base URL (``http://127.0.0.1:<port>``)."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan=lifespan)
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port = web.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        thread.join(10)


def every_move(legal: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every move a ``legal`` answer (the parts, ``API.md``) allows, as the body of
    ``POST .../move`` that makes it: ``{"action": id}`` for a listed move, ``{"move": parts}``
    for a set of cards of a verb whose every set is a move; each with its ``verb``, ``cards``
    and ``target`` under ``parts``."""
    import itertools

    if not legal:
        return []
    found = []
    for kind in legal["kinds"]:
        if kind["any"]:
            for size in kind["sizes"]:
                for cards in itertools.combinations(kind["cards"], size):
                    parts = {"verb": kind["verb"], "cards": list(cards), "target": None}
                    found.append({"move": parts, "parts": parts})
        else:
            found += [{"action": m["id"], "parts": {"verb": kind["verb"], "cards": m["cards"],
                                                    "target": m["target"]}}
                      for m in kind["moves"]]
    found += [{"action": w["id"], "parts": {"verb": w["verb"], "cards": [], "target": None,
                                            "words": w["words"]}} for w in legal["words"]]
    assert len(found) == legal["count"], (len(found), legal["count"])
    return found


def pick(legal: dict[str, Any] | None, rng: Any) -> dict[str, Any]:
    """A random legal move's body for ``POST .../move`` (``every_move``)."""
    moves = every_move(legal)
    body = dict(moves[int(rng.integers(len(moves)))])
    body.pop("parts")
    return body


def long_log(hands: int = 9, seed: int = 1) -> str:
    """The log of a long Kansas City game between rule-based bots (9 hands: 879 moves, 96 KB),
    the kind of upload that held the event loop for 0.3-0.45 s."""
    from cahoots_envs.gamelog import GameRecorder
    from cahoots_envs.registry import game_spec, make_raw
    from cahoots_envs.web.tables import observation

    spec = game_spec("kansas_city")
    env = make_raw(spec.env_id, hands=hands)
    recorder = GameRecorder(env, players=["heuristic"] * 4)
    recorder.reset(seed=seed)
    bots = [spec.bot(env.options, seed=s) for s in range(4)]
    while not env.game.is_over:
        game = env.game
        obs, mask = observation(game, game.current_player, env.options)
        recorder.step(int(bots[game.current_player].act(obs, mask)))
    assert recorder.log is not None
    return recorder.log.to_jsonl()
