"""``cahoots serve``: the browser view (``cahoots_envs.web``), run by uvicorn."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import PROG, Command, Formatter, doc, raw
from cahoots_envs.core.arguments import number

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers

MISSING = (f"{PROG} serve: the browser view needs the web extra: "
           "pip install 'cahoots-envs[web]' (starlette, uvicorn)")


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from cahoots_envs.web.app import create_app
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 2
    try:
        app = create_app(policies=args.policy)
    except ValueError as e:
        print(f"{PROG} serve: {e}", file=sys.stderr)
        return 2
    print(f"cahoots serve: http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="open the browser view (play, watch, replay)",
        description=doc("""
            Serve the browser view on a local address: play any seat against any policy,
            watch games between policies, and step through game logs (docs/web.md). It binds
            to 127.0.0.1 unless --host says otherwise. Policy files given with --policy are
            offered by name in the page (file:<name>); the page never names a path. Needs the
            web extra: pip install 'cahoots-envs[web]'.
        """),
        epilog=raw("""
            examples:
              cahoots serve
              cahoots serve --port 8080 --policy runs/kc/policy.safetensors
        """),
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=number("--port", "8000", least=1), default=8000,
                   help="the port (default: 8000)")
    p.add_argument("--policy", action="append", default=[], metavar="FILE",
                   help="a saved policy the page may choose, repeatable")
    return p


COMMAND = Command("serve", add_parser, cmd_serve, order=75)
