"""The browser view (``cahoots serve``): play any seat against any policy, watch games between
policies, and step through game logs in a web page.

``create_app(policies=(...))`` (``web/app.py``, needs the ``web`` extra: starlette, uvicorn) is
the Starlette app, put together from ``web/routes.py`` (the routes: each request read and
checked, its answer) and ``web/server.py`` (the server's state, the policies a seat may name,
and the lanes where requests' work runs off the event loop, heavy work bounded).
``web/tables.py`` (no web library) builds what it sends: a game's table for one seat (its
spec's ``view`` member, else its text), legal moves in parts, what each viewer saw of each
move, and live games; ``web/replays.py`` uploaded logs, rebuilt from keyframes and bounded in
bytes, replayed in a worker process; ``web/stream.py`` one stream of a game's moves
(server-sent events); ``web/sessions.py`` the sessions and the fair limits (caps per session,
address and server, in items and replays' bytes, who gives way when full, the idle sweep);
``web/bots.py`` where bots decide (light bots and searches on lanes of their own, searches
shared fairly) and the server's budget for a search seat. The HTTP API is described in
``API.md`` here and in docs/web.md. No module here names a game.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The web app (``cahoots_envs.web.app.create_app``); needs the ``web`` extra."""
    from cahoots_envs.web.app import create_app as build

    return build(*args, **kwargs)
