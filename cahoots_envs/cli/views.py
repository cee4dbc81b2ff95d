"""What one seat may see, as text for an 80-column terminal (terminal play, ``cahoots play``).

Each game's text module (``games/<game>/text.py``, reached through ``game.text()``) renders the
seat's view: only that seat's own hand and the public information of the rules' information
model, in the notation of CONTRACT §6. Tests check each one the way the shared leak test checks
observations: re-dealing every card the seat cannot see (``game.resample_hidden(seat, rng)``)
must leave its view text unchanged.
"""

from __future__ import annotations

from typing import Any

from cahoots_envs.core.text import WIDTH, fit

__all__ = ["WIDTH", "public_action", "seat_view"]


def seat_view(game: Any, seat: int) -> str:
    """Everything ``seat`` may see now, as text at most 80 columns wide."""
    return fit(game.text().seat_view(game, seat).split("\n"))


def public_action(game: Any, action: int, viewer: int) -> str:
    """How ``viewer`` sees the action the seat to move takes (before it is applied): the game's
    secret moves (a Kansas City pass, an upgraded card's face) are described, not shown."""
    return game.text().public_action(game, action, viewer)  # type: ignore[no-any-return]
