"""Game logs: any game written as JSON lines, and replayed through the env with every step checked.

A log is one JSON object per line::

    {"type": "header", "format": "cahoots-envs-gamelog", "format_version": 1,
     "env_id": "cahoots_envs/kansas_city-v0", "env_version": 0, "options": {...},
     "seed": 7, "scripted": false, "deal": {...}, "players": [...]}
    {"type": "action", "turn": 0, "seat": 1, "agent": "player_1", "phase": "pass",
     "action": "pass 3A 5B 8G"}
    ...
    {"type": "deal", "hand": 1, "deal": {...}}      # a later hand of a multi-hand game
    ...
    {"type": "end", "turns": 130, "scores": [...], "outcome": [...]}

``deal`` is the game's deal in the scripted-deal format of CONTRACT §5, read from the engine
right after the reset (and after every new hand of kansas_city / texas_euchre). ``seed`` and
``scripted`` record the reset call itself: the replay makes the very same call
(``env.reset(seed=seed)``, or ``env.reset(seed=seed, options={"deal": deal})`` when the game was
started from a scripted deal), because the RNG also deals later hands (and, in cahoots_tricks'
random point split, shares point cards) and a scripted first deal draws less from it. The replay
then checks that the env still deals exactly the logged deals, that every logged action is legal
for the logged seat when it comes, and that the final scores match.

Record from Python with ``GameRecorder`` (a thin wrapper around any env of this package)::

    rec = GameRecorder(cahoots_envs.make("kansas_city-v0"), players=["me", "bot", "bot", "bot"])
    rec.reset(seed=7)
    while not rec.done:
        rec.step(my_choice(rec.env))
    rec.save("game.jsonl")

and replay with ``replay_log("game.jsonl")`` or ``cahoots replay game.jsonl``.
"""

from __future__ import annotations

import itertools
import json
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cahoots_envs.core.cards import bits
from cahoots_envs.core.game import Game

LOG_FORMAT = "cahoots-envs-gamelog"
LOG_FORMAT_VERSION = 1
# options that change neither the game nor what is dealt
PRESENTATION_OPTIONS = ("render_mode",)


class ReplayError(ValueError):
    """A log that no longer replays: an action not legal now, a different deal or final score."""


# ---- deals in the scripted-deal format (CONTRACT §5) -----------------------------------------
def _deal_kansas_city(game: Any) -> dict[str, Any]:
    from cahoots_envs.games.kansas_city.rules import card_str

    deal: dict[str, Any] = {
        "dealer": int(game.dealer),
        "hands": [[card_str(c) for c in bits(h | p)] for h, p in zip(game.hands, game.pending_pass)],
    }
    if game.set_aside >= 0:
        deal["set_aside"] = card_str(game.set_aside)
    return deal


def _deal_texas_euchre(game: Any) -> dict[str, Any]:
    from cahoots_envs.games.texas_euchre.rules import card_str

    return {
        "dealer": int(game.dealer),
        "hands": [[card_str(c) for c in bits(h)] for h in game.hands],
        "draw_pile": [card_str(c) for c in reversed(game.draw_pile)],  # engine keeps the top last
    }


def _deal_cahoots_tricks(game: Any) -> dict[str, Any]:
    from cahoots_envs.games.cahoots_tricks.rules import IDENTITY_CARDS, card_str, zone_types

    deal: dict[str, Any] = {
        "start_player": int(game.start_player),
        "identities": [list(IDENTITY_CARDS[i]) for i in game.identities],
        "hands": [[card_str(t) for t in zone_types(h)] for h in game.hands],
    }
    if game.num_players == 3:
        deal["reserve"] = [card_str(t) for t in game.reserve]
    return deal


def _deal_cahoots_coop(game: Any) -> dict[str, Any]:
    from cahoots_envs.games.cahoots_coop.rules import card_str

    return {
        "start_player": int(game.start_player),
        "hands": [[card_str(k) for k in h] for h in game.hands],
        "piles": [card_str(p[0]) for p in game.piles],
        "draw_pile": [card_str(k) for k in reversed(game.draw_pile)],  # engine keeps the top last
        "goals": [game.goal_cards[g].id for g in _coop_goal_order(game)],
    }


def _coop_goal_order(game: Any) -> list[int]:
    """The goal deck as dealt (top first), rebuilt from the state right after setup.

    Setup completes every visible goal the starting piles already satisfy and refills its slot
    from the deck, repeatedly (§1.4 step 4, A4), so the deal's order is not in the state as such.
    A search over which goal sat in which slot finds an order that setup turns into exactly the
    state we see (the tops do not change during setup, so a goal is met iff it is met now)."""
    completed = list(game.completed)
    remaining = list(reversed(game.goal_deck))  # top first
    visible = list(game.visible)
    if not completed:
        return [g for g in visible if g >= 0] + remaining
    satisfied = game.satisfied_goals()

    def simulate(sequence: list[int]) -> tuple[list[int], list[int], list[int]]:
        deck = list(sequence)
        slots = [deck.pop(0) if deck else -1 for _ in range(4)]
        done: list[int] = []
        while True:
            hit = [s for s in range(4) if slots[s] >= 0 and satisfied >> slots[s] & 1]
            if not hit:
                return slots, done, deck
            for s in hit:
                done.append(slots[s])
                slots[s] = deck.pop(0) if deck else -1

    # slot j completed k_j goals during setup; completions go round by round, in slot order
    m = len(completed)
    for ks in itertools.product(range(m + 1), repeat=4):
        if sum(ks) != m:
            continue
        chains: list[list[int]] = [[] for _ in range(4)]
        order: list[tuple[int, int]] = []  # (round, slot) of each completion, in order
        for r in range(max(ks)):
            order.extend((r, j) for j in range(4) if ks[j] > r)
        for (_, j), g in zip(order, completed):
            chains[j].append(g)
        for j in range(4):
            chains[j].append(visible[j])
        sequence = [chains[j][0] for j in range(4)]
        for r in range(max(ks)):
            sequence.extend(chains[j][r + 1] for j in range(4) if ks[j] > r)
        sequence = [g for g in sequence if g >= 0]
        if simulate(sequence + remaining) == (visible, completed, remaining):
            return sequence + remaining
    # cannot happen for a state reached by setup; keep a usable (if not exact) order
    return completed + [g for g in visible if g >= 0] + remaining


DEAL_EXPORTERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "kansas_city": _deal_kansas_city,
    "texas_euchre": _deal_texas_euchre,
    "cahoots_tricks": _deal_cahoots_tricks,
    "cahoots_coop": _deal_cahoots_coop,
}
# the attribute counting hands (rounds) of the multi-hand games: a new value means a new deal
HAND_COUNTERS = {"kansas_city": "hand_number", "texas_euchre": "round_number"}


def export_deal(game: Game) -> dict[str, Any]:
    """The current hand's deal in the scripted-deal format; valid before its first decision."""
    try:
        exporter = DEAL_EXPORTERS[game.NAME]
    except KeyError:
        raise ValueError(f"no deal exporter for {game.NAME}; known: {', '.join(DEAL_EXPORTERS)}") from None
    return exporter(game)


def hand_index(game: Game) -> int:
    attr = HAND_COUNTERS.get(game.NAME)
    return int(getattr(game, attr)) if attr else 0


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
        self._hand = 0
        self._turn = 0

    @property
    def game(self) -> Game:
        return self.raw.game

    @property
    def done(self) -> bool:
        return self.raw.game is None or self.raw.game.is_over or all(self.raw.terminations.values())

    def reset(self, seed: int | None = None, deal: Mapping[str, Any] | None = None) -> None:
        """Reset the env; without a seed one is drawn so that the log can replay later hands."""
        if seed is None:
            seed = secrets.randbits(31)
        options = {"deal": dict(deal)} if deal is not None else None
        self.env.reset(seed=seed, options=options)
        raw = self.raw
        header = {
            "type": "header",
            "format": LOG_FORMAT,
            "format_version": LOG_FORMAT_VERSION,
            "env_id": raw.env_id,
            "env_version": raw.game_cls.VERSION,
            "options": _jsonable({k: v for k, v in raw.options.items() if k not in PRESENTATION_OPTIONS}),
            "seed": int(seed),
            "scripted": deal is not None,
            "deal": export_deal(raw.game),
        }
        if self.players is not None:
            header["players"] = self.players
        header.update(_jsonable(self.meta))
        self.log = GameLog(header)
        self._hand = hand_index(raw.game)
        self._turn = 0
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
        game = self.raw.game
        if game.is_over:
            self._finish()
        elif hand_index(game) != self._hand:
            self._hand = hand_index(game)
            self.log.events.append({"type": "deal", "hand": self._hand, "deal": export_deal(game)})

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
    options.pop("render_mode", None)
    env = cahoots_envs.make_raw(env_id, render_mode=render_mode, **options)
    reset_options = {"deal": header["deal"]} if header.get("scripted") else None
    seed = header.get("seed")
    if seed is None and not header.get("scripted"):
        reset_options = {"deal": header["deal"]}  # an unseeded log: at least the first deal
    env.reset(seed=seed, options=reset_options)
    dealt = export_deal(env.game)
    if dealt != header["deal"]:
        raise ReplayError(
            f"{env_id} no longer deals the logged deal for seed {seed}: logged "
            f"{json.dumps(header['deal'])}, dealt now {json.dumps(dealt)}"
        )
    return env


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
    for event in log.events:
        if event["type"] == "deal":
            dealt = export_deal(env.game)
            if hand_index(env.game) != event["hand"] or dealt != event["deal"]:
                raise ReplayError(
                    f"hand {event['hand']}: the env dealt a different hand than the log "
                    f"(logged {json.dumps(event['deal'])}, dealt {json.dumps(dealt)})"
                )
            continue
        if stop_after is not None and turns >= stop_after:
            break
        game = env.game
        where = f"turn {event.get('turn', turns)}"
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
        if not game.is_over:
            raise ReplayError(f"the log ends the game after {turns} actions but the game is not over")
        logged = [float(s) for s in log.end["scores"]]
        if any(abs(a - b) > 1e-9 for a, b in zip(scores, logged)) or len(scores) != len(logged):
            raise ReplayError(f"final scores differ: logged {logged}, replayed {scores}")
        complete = True
    return ReplayResult(env=env, turns=turns, scores=scores, complete=complete)
