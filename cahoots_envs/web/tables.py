"""What the browser view sends, without the web server: a game's table for one view (the game's
own ``view`` member, else a generic one from its text), its legal moves in parts (the cards,
then the kind of move: ``legal_parts``), what a viewer saw of each move, and live games
(``Match``: played or watched, bots deciding on the bots' workers, cancelled when the game
goes; uploaded logs are ``replays.py``'s). No module here names a game: everything is reached
through the game's spec (``game.face``)."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.core.game import Game
from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.gamelog import GameRecorder

HUMAN = "human"
# the generator of a copy that is only read (a move's "before"), never drawn from
_READ_ONLY_RNG = np.random.default_rng(0)
# a match's mode: a person plays one seat, or policies play every seat and a person watches
PLAYER, WATCH = "player", "watch"


class WebError(Exception):
    """A request the server refuses: ``status`` and one clear sentence."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


try:  # the web extra's JSON encoder: a tenth of the standard library's time for a table
    import orjson as _orjson
except ImportError:  # pragma: no cover (the web extra installs it)
    _orjson = None  # type: ignore[assignment]


def json_bytes(data: Any) -> bytes:
    """``data`` (an answer, of JSON types) as compact JSON in UTF-8: orjson where it is
    installed (the ``web`` extra), else the standard library's, the same JSON."""
    if _orjson is not None:
        return _orjson.dumps(data)
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


# ---- views ------------------------------------------------------------------------------------
def table_of(game: Game, seat: int | None) -> dict[str, Any]:
    """The view model of ``seat`` (``None``: the referee's): the game's ``view`` member, or for
    a game without one the lines of its text (the seat's view, or the spectator table)."""
    spec = game.face
    view = getattr(spec, "view", None)
    if view is not None:
        return dict(view.table(game, seat))
    text = spec.text.render(game) if seat is None else spec.text.seat_view(game, seat)
    return {"kind": "text", "viewer": seat, "phase": str(game.phase),
            "headline": spec.text.headline(game), "lines": text.split("\n")}


def text_of(game: Game, seat: int | None) -> str:
    """The game's own text of the view: the seat's ``seat_view`` or the spectator table."""
    text = game.face.text
    return text.render(game) if seat is None else text.seat_view(game, seat)


def move_parts(text: str, verbs: Mapping[str, str], not_cards: Sequence[str]) -> dict[str, Any]:
    """A move in the notation as parts: its verb and the verb's kind, the cards it names, the
    target after a joining word (``play 4G on 2``: target ``"2"``) and any other words."""
    words = text.split()
    verb = words[0].lower() if words else ""
    kind = verbs.get(verb, "word")
    joining = {w.upper() for w in not_cards}
    cards: list[str] = []
    other: list[str] = []
    target = None
    rest = words[1:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if kind == "word" or word.upper() in joining:
            if word.upper() in joining and kind != "word" and i + 1 < len(rest):
                target = rest[i + 1]
                i += 2
                continue
            other.append(word.lower())
        else:
            cards.append(word)
        i += 1
    return {"verb": verb, "kind": kind, "cards": cards, "target": target, "words": other}


def legal_moves(game: Game) -> list[dict[str, Any]]:
    """Every legal move of the seat to move: ``id``, ``text`` and its parts (``move_parts``)."""
    if game.is_over:
        return []
    text = game.face.text
    moves = []
    for action in game.legal_actions():
        words = game.action_to_str(int(action))
        moves.append({"id": int(action), "text": words,
                      **move_parts(words, text.VERBS, text.NOT_CARDS)})
    return moves


def _every_set(moves: Sequence[dict[str, Any]], cards: Sequence[str], sizes: Sequence[int]) -> bool:
    """Whether ``moves`` (of one verb) are exactly every set of ``sizes`` distinct cards of
    ``cards``, with no target and no other words: then the parts say it all."""
    if len(set(cards)) != len(cards):
        return False
    sets = set()
    for m in moves:
        if m["target"] is not None or m["words"] or len(set(m["cards"])) != len(m["cards"]):
            return False
        sets.add(frozenset(m["cards"]))
    return len(sets) == len(moves) == sum(math.comb(len(cards), k) for k in sizes)


def legal_parts(game: Game, moves: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The legal moves of the seat to move in parts (``API.md``, "Legal moves"): the cards any
    move names, then each kind of move (a verb) with its cards and how many a move takes; a verb
    whose moves are every set of that many of its cards (a pass of three: 364 moves) lists no
    move (the client sends the parts), any other lists its moves (``id``, ``cards``,
    ``target``, ``text``); word moves (``no upgrade``) are listed with their ids. ``moves``:
    ``legal_moves(game)`` where the caller has them already."""
    if game.is_over:
        return {"count": 0, "cards": [], "kinds": [], "words": []}
    if moves is None:
        moves = legal_moves(game)
    words = [m for m in moves if not m["cards"] and m["target"] is None]
    by_verb: dict[str, list[dict[str, Any]]] = {}
    for m in moves:
        if m["cards"] or m["target"] is not None:
            by_verb.setdefault(m["verb"], []).append(m)
    every: list[str] = []
    kinds = []
    for verb, group in by_verb.items():
        cards = list(dict.fromkeys(c for m in group for c in m["cards"]))
        every += [c for c in cards if c not in every]
        sizes = sorted({len(m["cards"]) for m in group})
        kind: dict[str, Any] = {"verb": verb, "kind": group[0]["kind"], "cards": cards,
                                "sizes": sizes, "any": _every_set(group, cards, sizes)}
        if not kind["any"]:
            kind["moves"] = [{"id": m["id"], "cards": m["cards"], "target": m["target"],
                              "text": m["text"]} for m in group]
        kinds.append(kind)
    return {"count": len(moves), "cards": every, "kinds": kinds,
            "words": [{"id": m["id"], "text": m["text"], "verb": m["verb"], "words": m["words"]}
                      for m in words]}


def action_of(game: Game, move: Any, moves: list[dict[str, Any]] | None = None) -> int:
    """The action id of a move named by its parts (``{"verb", "cards", "target"}``: the cards
    in any order), as ``legal_parts`` lets a client build it; ``WebError`` 400 when no legal
    move, or more than one, has those parts. ``moves``: ``legal_moves(game)`` where the caller
    has them already."""
    if not isinstance(move, dict) or not isinstance(move.get("verb"), str) or \
            not isinstance(move.get("cards", []), list) or \
            not all(isinstance(c, str) for c in move.get("cards", [])) or \
            not isinstance(move.get("target"), (str, type(None))):
        raise WebError(400, "'move' must be the move's parts: {\"verb\": <verb>, \"cards\": "
                       "[<card>, ...], \"target\": <target or null>}")
    want = (move["verb"], sorted(move.get("cards", [])), move.get("target"))
    found = [m["id"] for m in (legal_moves(game) if moves is None else moves)
             if (m["verb"], sorted(m["cards"]), m["target"]) == want and not m["words"]]
    if len(found) != 1:
        shown = " ".join([want[0], *want[1]]) + (f" on {want[2]}" if want[2] is not None else "")
        raise WebError(400, f"no legal move is {shown[:80]!r} now"
                       + (" (it names several: send its action id)" if found else ""))
    return int(found[0])


def seen_move(game: Game, action: int, viewer: int | None) -> str:
    """How ``viewer`` sees the move the seat to move makes now (the referee: all of it)."""
    seat = game.current_player
    words = (game.action_to_str(int(action)) if viewer is None
             else game.face.text.public_action(game, int(action), viewer))
    return f"player_{seat} {words}"


def observation(game: Game, seat: int, options: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The seat's observation and action mask, as the env gives them (``options``: the game's,
    resolved)."""
    spec: Any = game.face
    obs = np.zeros(spec.layout(options).size, np.float32)
    game.encode(seat, obs)
    mask = np.zeros(spec.rules.num_actions(options), np.int8)
    if not game.is_over and game.current_player == seat:
        mask[game.legal_actions()] = 1
    return obs, mask


def decide(policy: BasePolicy, game: Game, seat: int, options: Mapping[str, Any]) -> int:
    """The policy's move at ``game``: ``act`` from the seat's observation (``game`` is only
    read), or ``act_infoset`` for a search bot (give it a copy: the search works on it)."""
    obs, mask = observation(game, seat, options)
    if getattr(policy, "needs_infoset", False):
        from cahoots_envs.search import Infoset

        spec: Any = game.face
        infoset = Infoset(game, seat, spec, options, obs, mask)
        return int(policy.act_infoset(infoset))  # type: ignore[attr-defined]
    return int(policy.act(obs, mask))


def probabilities(policy: Any, game: Game, seat: int,
                  options: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The policy's probability of each legal move of ``seat``, highest first, where the policy
    exposes them (a network's ``probabilities``), else None."""
    if not callable(getattr(policy, "probabilities", None)):
        return None
    obs, mask = observation(game, seat, options)
    probs = np.asarray(policy.probabilities(obs, mask), np.float64)
    moves = [{"id": int(a), "text": game.action_to_str(int(a)), "p": round(float(probs[a]), 6)}
             for a in game.legal_actions()]
    return sorted(moves, key=lambda m: -m["p"])


@dataclass
class Event:
    """One move: who made it, how each viewer saw it (``None``: the referee), what it
    completed."""

    turn: int
    seat: int
    seen: dict[int | None, str]
    notes: list[str]

    def shown(self, i: int, viewer: int | None) -> dict[str, Any]:
        return {"i": i, "turn": self.turn, "seat": self.seat, "text": self.seen[viewer],
                "notes": self.notes}


def make_event(before: Game, action: int, after: Game, turn: int,
               viewers: Sequence[int | None] | None = None) -> Event:
    """The event of ``action``, the game's ``turn``-th, played at ``before`` (a copy) giving
    ``after``, as each of ``viewers`` saw it (``None``: the referee; all of them by default)."""
    if viewers is None:
        viewers = [None, *range(before.num_players)]
    return Event(turn=turn, seat=int(before.current_player),
                 seen={v: seen_move(before, action, v) for v in viewers},
                 notes=list(after.face.text.narrate(before, after)))


def result_of(game: Game, viewer: int | None) -> dict[str, Any] | None:
    if not game.is_over:
        return None
    return {"scores": [float(s) for s in game.scores],
            "outcome": [float(x) for x in game.outcome()],
            "winners": [int(w) for w in game.winning_seats()],
            "summary": game.face.text.final_summary(game, viewer)}


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(12)}"


# ---- live games -------------------------------------------------------------------------------
@dataclass
class Match:
    """A live game: ``mode`` ``PLAYER`` (one human seat) or ``WATCH`` (policies only). Moves go
    through a ``GameRecorder``, so the finished game's log is the package's game log."""

    mode: str
    env: Any
    recorder: GameRecorder
    policies: list[BasePolicy | None]
    names: list[str]
    human: int | None
    id: str = field(default_factory=lambda: new_id("g"))
    events: list[Event] = field(default_factory=list)
    thinking: Future[int] | None = None
    touched: float = field(default_factory=time.monotonic)
    # set when the game is deleted or expires: its queued decision never starts, a search
    # bot's running one stops at its next clock read (the bot's ``cancel``)
    stop: threading.Event = field(default_factory=threading.Event)
    # held while the game is read or changed: requests build its answers on worker threads
    lock: threading.RLock = field(default_factory=threading.RLock)
    # the open stream's wake-up (``stream.py``): set on the event loop when the game changes
    # (a move, a bot's decision done, the game gone); a newer stream takes it over
    wake: asyncio.Event | None = None
    streams: int = 0
    nbytes: int = 0  # what the server's byte caps count: a live game, nothing (replays.py)
    # what ``state`` shows each view at the current move, and the legal moves (``legal``):
    # worked out once a move, whichever request asks first
    _shown: dict[int | None, dict[str, Any]] = field(default_factory=dict, repr=False)
    _legal: tuple[int, list[dict[str, Any]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for policy in self.policies:
            if getattr(policy, "needs_infoset", False) and hasattr(policy, "cancel"):
                policy.cancel = self.stop  # type: ignore[union-attr]

    @property
    def game(self) -> Game:
        return self.env.game  # type: ignore[no-any-return]

    def close(self) -> None:
        """The game is gone (deleted, dropped or expired): cancel its bot's decision and end
        its stream (on the event loop, where items are dropped)."""
        self.stop.set()
        if self.thinking is not None:
            self.thinking.cancel()
        self.changed()

    def changed(self) -> None:
        """Wake the game's stream, if one is open (call on the event loop)."""
        if self.wake is not None:
            self.wake.set()

    @property
    def over(self) -> bool:
        return bool(self.game.is_over)

    def view_seat(self, view: str | None) -> int | None:
        """The seat whose view a request asks for: a played game shows its human's only."""
        n = self.game.num_players
        if self.mode == PLAYER:
            if view not in (None, "", str(self.human)):
                raise WebError(400, f"a played game shows only your seat's view (view={self.human})")
            return self.human
        if view in (None, "", "referee"):
            return None
        if view.isdigit() and int(view) < n:
            return int(view)
        raise WebError(400, f"view must be 'referee' or a seat from 0 to {n - 1}, got {view!r}")

    def state(self, since: int = 0, view: str | None = None) -> dict[str, Any]:
        seat = self.view_seat(view)
        total = len(self.events)  # the game's version: it changes only by a move
        since = max(0, min(int(since), total))
        shown = self._shown.get(seat)
        if shown is None or shown["turn"] != total:
            shown = self._shown[seat] = self._view(seat)
        return {**shown, "thinking": self.thinking is not None,
                "events": [e.shown(since + i, seat) for i, e in enumerate(self.events[since:])],
                "events_total": total}

    def _view(self, seat: int | None) -> dict[str, Any]:
        """What ``state`` shows ``seat`` of the game as it is now, but for the moves since a
        point and whether a bot thinks (built once a move, as long as the same view is asked)."""
        game = self.game
        to_move = None if game.is_over else int(game.current_player)
        spec: Any = game.face
        return {
            "id": self.id, "mode": self.mode, "game": spec.name, "env_id": self.env.env_id,
            "players": game.num_players, "seat": self.human,
            "view": "referee" if seat is None else seat, "names": self.names,
            "to_move": to_move, "your_turn": self.human is not None and to_move == self.human,
            "thinking": False, "over": self.over,
            "turn": len(self.events), "phase": str(game.phase),
            "table": table_of(game, seat), "text": text_of(game, seat),
            "legal": legal_parts(game, self.legal()) if to_move is not None and to_move == seat
            and self.human == seat else None,
            "events": [], "events_total": len(self.events),
            "result": result_of(game, seat),
        }

    def legal(self) -> list[dict[str, Any]]:
        """``legal_moves`` of the game as it is now (worked out once a move)."""
        if self._legal is None or self._legal[0] != len(self.events):
            self._legal = (len(self.events), legal_moves(self.game))
        return self._legal[1]

    def apply(self, action: int) -> None:
        before = self.game.clone(rng=_READ_ONLY_RNG)  # only read: its generator is never drawn
        self.recorder.step(int(action))
        viewers = None if self.mode == WATCH else [self.human]  # a played game shows one view
        self.events.append(make_event(before, int(action), self.game, len(self.events), viewers))

    def move(self, action: Any, parts: Any = None) -> None:
        """The human's move (an action id, or ``parts`` as ``action_of`` reads them), checked
        against the action mask."""
        game = self.game
        if self.human is None:
            raise WebError(409, "a watched game has no human seat: ask for the next move "
                           "(POST .../advance)")
        if game.is_over:
            raise WebError(409, "the game is over")
        if game.current_player != self.human:
            raise WebError(409, f"it is player_{game.current_player}'s turn, not yours "
                           f"(player_{self.human}): ask for the next bot move (POST .../advance)")
        if parts is not None:
            action = action_of(game, parts, self.legal())
        if not isinstance(action, int) or isinstance(action, bool):
            raise WebError(400, f"'action' must be an action id (an int from 'legal'), got "
                           f"{str(action)[:40]!r}")
        legal = game.legal_actions()
        if action not in legal:
            shown = ", ".join(f"{a} ({game.action_to_str(int(a))})" for a in list(legal)[:8])
            more = f" and {len(legal) - 8} more" if len(legal) > 8 else ""
            raise WebError(400, f"action {action} is not a legal move now; legal moves: "
                           f"{shown}{more}")
        self.apply(action)

    def start_bot(self, submit: Callable[[Callable[[], int], bool], Future[int]]
                  ) -> Future[int] | None:
        """The decision of the bot to move, handed to ``submit(call, search)`` (``search``:
        the bot is a search bot) that runs it; None: no bot to move."""
        game = self.game
        if self.thinking is not None:
            return self.thinking
        if game.is_over or self.policies[game.current_player] is None or self.stop.is_set():
            return None
        seat = int(game.current_player)
        policy = self.policies[seat]
        assert policy is not None
        call = functools.partial(decide, policy, game.clone(), seat, self.env.options)
        self.thinking = submit(call, bool(getattr(policy, "needs_infoset", False)))
        return self.thinking

    def play_light(self, budget: float) -> int:
        """Play the light bots' moves (policies that act from the observation: not a search)
        here and now, up to a human's or a search bot's turn, the end, or ``budget`` seconds of
        their work; the moves made. The caller holds the game's lock, on a worker thread."""
        made, end = 0, time.monotonic() + budget
        game = self.game
        while self.thinking is None and not game.is_over and not self.stop.is_set() \
                and time.monotonic() < end:
            seat = int(game.current_player)
            policy = self.policies[seat]
            if policy is None or getattr(policy, "needs_infoset", False):
                break
            # the live game itself: a light bot reads only the observation (under the lock)
            action = decide(policy, game, seat, self.env.options)
            if action not in game.legal_actions():
                raise WebError(409, f"player_{seat}'s bot chose an illegal move ({action})")
            self.apply(action)
            game = self.game
            made += 1
        return made

    def finish_bot(self) -> bool:
        """Apply the running decision if it is done (True when a move was made)."""
        future = self.thinking
        if future is None or not future.done():
            return False
        self.thinking = None
        if self.stop.is_set() or future.cancelled():
            raise WebError(404, "this game was deleted or expired while its bot was deciding")
        error = future.exception()
        if error is not None:
            raise WebError(409, f"player_{self.game.current_player}'s bot failed to move: "
                           f"{type(error).__name__}: {str(error)[:200]}")
        action = int(future.result())
        if action not in self.game.legal_actions():
            raise WebError(409, f"player_{self.game.current_player}'s bot chose an illegal move "
                           f"({action})")
        self.apply(action)
        return True

    def log_text(self) -> str:
        if not self.over or self.recorder.log is None:
            raise WebError(409, "the game is not over: its log is ready once it ends")
        return self.recorder.log.to_jsonl()


def new_match(spec: Any, options: Mapping[str, Any], policies: Sequence[BasePolicy | None],
              names: Sequence[str], seed: int | None, mode: str) -> Match:
    """A game of ``spec`` reset with ``seed`` and recorded (``policies[s]`` None: the human)."""
    from cahoots_envs.registry import make_raw

    env = make_raw(spec.env_id, **dict(options))
    recorder = GameRecorder(env, players=list(names))
    recorder.reset(seed=seed)
    human = next((s for s, p in enumerate(policies) if p is None), None)
    return Match(mode=mode, env=env, recorder=recorder, policies=list(policies),
                 names=list(names), human=human)


def policy_files(paths: Sequence[str | Path]) -> dict[str, Path]:
    """The ids of policy files given to ``serve`` at start: ``file:<stem>`` (a second file
    with the same stem gets ``-2``, ...)."""
    ids: dict[str, Path] = {}
    for path in paths:
        path = Path(path)
        stem = path.stem if path.suffix else path.name
        name, k = f"file:{stem}", 2
        while name in ids:
            name, k = f"file:{stem}-{k}", k + 1
        ids[name] = path
    return ids
