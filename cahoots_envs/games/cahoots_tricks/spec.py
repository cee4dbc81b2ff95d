"""The face of this game: every shared layer reaches it through ``SPEC`` (see core/spec.py)."""

from __future__ import annotations

from pathlib import Path

from cahoots_envs.core.spec import GameSpec
from cahoots_envs.games.cahoots_tricks import encoder, features, search, state, text, view
from cahoots_envs.games.cahoots_tricks.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_tricks.rules import CahootsTricks

SPEC = GameSpec(
    rules=CahootsTricks,
    encoder=encoder,
    text=text,
    bot=HeuristicPolicy,
    doc_page=Path(__file__).with_name("env.py"),
    world_sampler=search,
    state_layout=state,
    view=view,
    batched="cahoots_envs.games.cahoots_tricks.batched",
    # per-move features networks may compute from the observation (policies/scoring.py)
    extras={"play_features": {"tactics": features.tactics}},
)
