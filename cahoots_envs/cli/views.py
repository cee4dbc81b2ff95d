"""The old home of the terminal views: ``seat_view`` and ``public_action`` live in
``cahoots_envs.cli.play`` now, where ``cahoots play`` reads each game's text through its face."""

from __future__ import annotations

from cahoots_envs.cli.play import WIDTH, public_action, seat_view

__all__ = ["WIDTH", "public_action", "seat_view"]
