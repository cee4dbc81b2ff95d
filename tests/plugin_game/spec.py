"""The face of High Card: ``SPEC`` is all the shared layers need (see cahoots_envs/core/spec.py)."""

from __future__ import annotations

from pathlib import Path

from cahoots_envs.core.spec import GameSpec

from . import encoder, text
from .bot import HeuristicPolicy
from .rules import HighCard

SPEC = GameSpec(
    rules=HighCard,
    encoder=encoder,
    text=text,
    bot=HeuristicPolicy,
    doc_page=Path(__file__).with_name("env.py"),
)
