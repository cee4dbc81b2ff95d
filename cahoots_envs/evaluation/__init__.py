"""Matches and tournaments between policies, with win rates, score intervals and ratings
(``play``: every name is imported from here as well)."""

from cahoots_envs.evaluation.play import _OBJECTS as _OBJECTS
from cahoots_envs.evaluation.play import _POLICY_CACHE as _POLICY_CACHE
from cahoots_envs.evaluation.play import (
    Z95,
    GameResult,
    PolicyStats,
    TournamentResult,
    default_workers,
    display_labels,
    field_lineup,
    game_seed,
    lineup_for_game,
    mean_interval,
    play_game,
    run_tournament,
    summarise,
    wilson_interval,
)
from cahoots_envs.evaluation.play import _entries as _entries
from cahoots_envs.evaluation.play import _imap as _imap
from cahoots_envs.evaluation.play import _install_objects as _install_objects
from cahoots_envs.evaluation.play import _make_log_dir as _make_log_dir
from cahoots_envs.evaluation.play import _ObjectRef as _ObjectRef
from cahoots_envs.evaluation.play import _policy as _policy
from cahoots_envs.evaluation.play import _progress as _progress
from cahoots_envs.evaluation.play import _rate as _rate
from cahoots_envs.evaluation.play import _run_one as _run_one

__all__ = [
    "Z95",
    "GameResult",
    "PolicyStats",
    "TournamentResult",
    "default_workers",
    "display_labels",
    "field_lineup",
    "game_seed",
    "lineup_for_game",
    "mean_interval",
    "play_game",
    "run_tournament",
    "summarise",
    "wilson_interval",
]
