"""The face of this game: every shared layer reaches it through ``SPEC`` (see core/spec.py)."""

from __future__ import annotations

from pathlib import Path

from cahoots_envs.core.spec import GameSpec
from cahoots_envs.games.cahoots_coop import (
    encoder,
    features,
    search,
    state,
    text,
    two_ahead,
    view,
)
from cahoots_envs.games.cahoots_coop.bot import HeuristicPolicy
from cahoots_envs.games.cahoots_coop.rules import CahootsCoop

SPEC = GameSpec(
    rules=CahootsCoop,
    encoder=encoder,
    text=text,
    bot=HeuristicPolicy,
    doc_page=Path(__file__).with_name("env.py"),
    world_sampler=search,
    state_layout=state,
    view=view,
    batched="cahoots_envs.games.cahoots_coop.batched",
    # per-play features networks may compute from the observation (policies/scoring.py)
    extras={"play_features": {"lookahead": features.lookahead,
                              "two_ahead": two_ahead.two_ahead},
            # two_ahead's first features are lookahead's: a network that reads lookahead
            # starts one that reads two_ahead, the new input columns zero (training/actors.py)
            "play_feature_prefixes": {"two_ahead": "lookahead"}},
)
