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

The modules: ``format`` (the constants, ``GameLog``, reading, parsing and ``check_log``),
``digest`` (``GameDigest``), ``record`` (``GameRecorder``), ``replay`` (``replay_log``,
``replay_env``); every name is imported from here as well.
"""

from cahoots_envs.gamelog.digest import GameDigest
from cahoots_envs.gamelog.format import (
    ABANDONED_END_FIELDS,
    ACTION_FIELDS,
    DEAL_FIELDS,
    END_FIELDS,
    GAME_HEADER_FIELDS,
    HEADER_FIELDS,
    ILLEGAL_ACTION_FIELDS,
    LOG_FORMAT,
    LOG_FORMAT_VERSION,
    MAX_LOG_BYTES,
    MAX_LOG_LINE,
    GameLog,
    ReplayError,
    check_log,
)
from cahoots_envs.gamelog.record import GameRecorder
from cahoots_envs.gamelog.replay import ReplayResult, replay_env, replay_log
from cahoots_envs.gamelog.replay import _same_deal as _same_deal  # named in the fixtures' README

__all__ = [
    "ABANDONED_END_FIELDS",
    "ACTION_FIELDS",
    "DEAL_FIELDS",
    "END_FIELDS",
    "GAME_HEADER_FIELDS",
    "HEADER_FIELDS",
    "ILLEGAL_ACTION_FIELDS",
    "LOG_FORMAT",
    "LOG_FORMAT_VERSION",
    "MAX_LOG_BYTES",
    "MAX_LOG_LINE",
    "GameDigest",
    "GameLog",
    "GameRecorder",
    "ReplayError",
    "ReplayResult",
    "check_log",
    "replay_env",
    "replay_log",
]
