"""Recording a game into a log: ``GameRecorder`` wraps an env and writes each record as it is
played."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from cahoots_envs.core.game import Game
from cahoots_envs.gamelog.digest import GameDigest, _jsonable
from cahoots_envs.gamelog.format import (
    HEADER_FIELDS,
    LOG_FORMAT,
    LOG_FORMAT_VERSION,
    GameLog,
    _dumps,
)


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
