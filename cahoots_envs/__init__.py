"""cahoots-envs: PettingZoo AEC environments for four card games.

>>> import cahoots_envs
>>> env = cahoots_envs.make("kansas_city-v1", num_players=4)
>>> env.reset(seed=0)
"""

from __future__ import annotations

from cahoots_envs._version import __version__
from cahoots_envs.core.spec import GameSpec
from cahoots_envs.errors import (
    EnvNotResetError,
    GameSpecError,
    IllegalActionError,
    IncompatiblePolicyError,
    InfosetRequiredError,
    NotAvailableError,
    RetiredEnvError,
)

# numpy only: saved policies load without torch (torch/sb3 are needed for training alone)
from cahoots_envs.policies.loading import list_policies, load_policy
from cahoots_envs.registry import (
    discover_games,
    game_spec,
    list_envs,
    make,
    make_parallel,
    make_raw,
    register_game,
    registered_games,
    unregister_game,
)

__all__ = [
    "EnvNotResetError",
    "GameSpec",
    "GameSpecError",
    "IllegalActionError",
    "IncompatiblePolicyError",
    "InfosetRequiredError",
    "NotAvailableError",
    "RetiredEnvError",
    "__version__",
    "game_spec",
    "list_envs",
    "list_policies",
    "load_policy",
    "make",
    "make_parallel",
    "make_raw",
    "register_game",
    "registered_games",
    "unregister_game",
]

discover_games()
