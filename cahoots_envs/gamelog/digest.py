"""The digest of a logged game: a SHA-256 over what defines it, which the recorder writes in
the end record and the replay recomputes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from cahoots_envs.gamelog.format import GAME_HEADER_FIELDS


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
