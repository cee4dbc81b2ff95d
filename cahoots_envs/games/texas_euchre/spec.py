"""The face of this game: every shared layer reaches it through ``SPEC`` (see core/spec.py)."""

from __future__ import annotations

from pathlib import Path

from cahoots_envs.core.spec import GameSpec
from cahoots_envs.games.texas_euchre import encoder, search, state, text, view
from cahoots_envs.games.texas_euchre.bot import HeuristicPolicy
from cahoots_envs.games.texas_euchre.rules import TexasEuchre

SPEC = GameSpec(
    rules=TexasEuchre,
    encoder=encoder,
    text=text,
    bot=HeuristicPolicy,
    doc_page=Path(__file__).with_name("env.py"),
    world_sampler=search,
    view=view,
    batched="cahoots_envs.games.texas_euchre.batched",
    state_layout=state,
)
