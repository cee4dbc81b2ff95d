"""What a policy must match to play an env: id, version, options, layout, action count."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cahoots_envs.core.game import Game
from cahoots_envs.core.layout import Layout
from cahoots_envs.core.spec import GameSpec

# options that change neither the game nor what a seat sees
PRESENTATION_OPTIONS = ("reward_mode",)


@dataclass(frozen=True)
class EnvInfo:
    env_id: str  # canonical, e.g. "cahoots_envs/kansas_city-v1"
    game: str
    version: int
    options: dict[str, Any]  # resolved
    layout: Layout
    num_actions: int
    game_cls: type[Game]
    spec: GameSpec

    @property
    def game_options(self) -> dict[str, Any]:
        """The resolved options that matter to a policy (reward mode left out)."""
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
    from cahoots_envs.registry import game_spec

    spec = game_spec(env_id)
    resolved = spec.resolve_options(dict(options or {}))
    return EnvInfo(
        env_id=spec.env_id,
        game=spec.name,
        version=spec.version,
        options=resolved,
        layout=spec.layout(resolved),
        num_actions=spec.rules.num_actions(resolved),
        game_cls=spec.rules,
        spec=spec,
    )
