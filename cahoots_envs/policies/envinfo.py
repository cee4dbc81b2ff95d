"""What a policy must match to play an env: id, version, options, layout, action count."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import Layout

# options that change neither the game nor what a seat sees
PRESENTATION_OPTIONS = ("render_mode", "reward_mode")


@dataclass(frozen=True)
class EnvInfo:
    env_id: str  # canonical, e.g. "cahoots_envs/kansas_city-v0"
    game: str
    version: int
    options: dict[str, Any]  # resolved
    layout: Layout
    num_actions: int
    game_cls: type[Game]

    @property
    def game_options(self) -> dict[str, Any]:
        """The resolved options that matter to a policy (render and reward mode left out)."""
        return {k: v for k, v in self.options.items() if k not in PRESENTATION_OPTIONS}

    def describe(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "env_version": self.version,
            "game_options": self.game_options,
            "layout_fingerprint": self.layout.fingerprint(),
            "observation_size": self.layout.size,
            "num_actions": self.num_actions,
        }


def env_info(env_id: str, options: Mapping[str, Any] | None = None) -> EnvInfo:
    """Resolve ``env_id`` (prefix optional) and its options without building an env."""
    import importlib

    from cahoots_envs.registry import GAMES, _resolve

    game = _resolve(env_id)
    module = importlib.import_module(f"cahoots_envs.{game}_v{GAMES[game]}")
    raw = module.raw_env(**dict(options or {}))
    return EnvInfo(
        env_id=raw.env_id,
        game=game,
        version=GAMES[game],
        options=dict(raw.options),
        layout=raw.layout,
        num_actions=raw.num_actions,
        game_cls=raw.game_cls,
    )


def env_info_of(env: Any) -> EnvInfo:
    """The ``EnvInfo`` of a built env (wrapped or raw) or a ``SeatEnv``."""
    unwrapped = getattr(env, "unwrapped", env)
    return env_info(unwrapped.env_id, unwrapped.options)
