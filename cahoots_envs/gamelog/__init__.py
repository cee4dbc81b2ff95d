"""Game logs: the format, recording and checked replay (``format.py``); every name is imported
from here as well."""

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
    GameDigest,
    GameLog,
    GameRecorder,
    ReplayError,
    ReplayResult,
    check_log,
    replay_env,
    replay_log,
)
from cahoots_envs.gamelog.format import _same_deal as _same_deal  # named in the fixtures' README

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
