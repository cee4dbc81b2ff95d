"""``cahoots serve``: the browser view (``cahoots_envs.web``), run by uvicorn."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
from typing import TYPE_CHECKING

from cahoots_envs.cli.common import PROG, Command, Formatter, doc, raw
from cahoots_envs.core.arguments import number

if TYPE_CHECKING:
    from cahoots_envs.cli.common import SubParsers
    from cahoots_envs.web.sessions import Limits

MIB = 1 << 20
SWITCH_INTERVAL = 0.001  # seconds a thread holds Python's lock before another may take it
MISSING = (f"{PROG} serve: the browser view needs the web extra: "
           "pip install 'cahoots-envs[web]' (starlette, uvicorn)")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def open_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; ``OSError`` with one line saying why not."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror:
        raise OSError(f"--host {host!r} is not an address of this machine "
                      "(e.g. 127.0.0.1, ::1 or 0.0.0.0)") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        why = {errno.EADDRINUSE: "the port is in use (another server?); choose another --port",
               errno.EACCES: "permission denied (ports below 1024 need privileges); choose "
                             "another --port",
               errno.EADDRNOTAVAIL: "that address is not one of this machine's"}
        raise OSError(f"cannot listen on {host}:{port}: "
                      f"{why.get(e.errno or 0, e.strerror or str(e))}") from None
    sock.set_inheritable(True)
    return sock


def _warm_search_kernels(games: list[str], warm: bool) -> None:
    """The search seats of ``games`` run numba kernels compiled on first use (10-35 s a game on
    a cold cache, during which that first decision waits). With ``--warmup`` they are compiled
    into numba's cache here, before the server starts (a line per game; nothing to compile
    when the cache is warm already); otherwise this says how to warm them beforehand."""
    import importlib.util

    if not games or importlib.util.find_spec("numba") is None:
        return
    if not warm:
        print(f"{PROG} serve: search seats compile their kernels on first use (10-35 s a game) "
              f"unless warmed beforehand: {PROG} warmup {' '.join(games)} (or serve --warmup)",
              flush=True)
        return
    from cahoots_envs.search.warmup import warmup

    print(f"{PROG} serve: warming the search kernels of {', '.join(games)} (--warmup; "
          "up to a minute a game on a cold cache)", flush=True)
    warmup(games, progress=lambda line: print(f"{PROG} serve: warm-up: {line}", flush=True))


def search_games() -> list[str]:
    """The games the page offers search seats for (those with a world sampler)."""
    from cahoots_envs.registry import registered_games

    return [spec.name for spec in registered_games() if spec.has("world_sampler")]


def limits_of(args: argparse.Namespace) -> Limits:
    """The server's limits from the command line."""
    from cahoots_envs.web.sessions import Limits

    return Limits(per_session=args.max_games_per_session,
                  per_address=args.max_games_per_address, total=args.max_games,
                  idle_seconds=60.0 * args.idle_minutes,
                  sessions_per_minute=args.sessions_per_minute,
                  trust_forwarded=args.trust_forwarded, max_think=args.max_think,
                  max_worlds=args.max_worlds, max_rollouts=args.max_rollouts,
                  search_workers=args.search_workers,
                  replay_bytes=int(args.max_replay_mib * MIB),
                  replay_bytes_per_session=int(args.max_replay_mib_per_session * MIB),
                  heavy_workers=args.heavy_workers)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from cahoots_envs.web.app import create_app
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 2
    try:
        app = create_app(policies=args.policy, limits=limits_of(args))
    except ValueError as e:
        print(f"{PROG} serve: {e}", file=sys.stderr)
        return 2
    try:
        sock = open_socket(args.host, args.port)
    except OSError as e:
        print(f"{PROG} serve: {e}", file=sys.stderr)
        return 1
    if not is_loopback(args.host):
        print(f"{PROG} serve: warning: --host {args.host} serves the browser view beyond this "
              "machine, and it has no authentication: anyone who reaches it can play and use "
              f"this machine's CPU within its limits (--max-games {args.max_games}, --max-think "
              f"{args.max_think:g}); put an authenticating proxy in front for other people",
              file=sys.stderr, flush=True)
    _warm_search_kernels(search_games(), args.warmup)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"{PROG} serve: http://{shown}:{args.port}/ (Ctrl-C stops)", flush=True)
    # the event loop's thread waits for Python's lock while a worker replays a log or builds
    # an answer: hand the lock over every millisecond, not every 5 (a request takes several)
    sys.setswitchinterval(SWITCH_INTERVAL)
    config = uvicorn.Config(app, log_level="warning", proxy_headers=False, server_header=False,
                            lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
    return 0


def add_parser(sub: SubParsers, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name, formatter_class=Formatter, help="open the browser view (play, watch, replay)",
        description=doc("""
            Serve the browser view on a local address: play any seat against any policy,
            watch games between policies, and step through game logs (docs/web.md). It binds
            to 127.0.0.1 unless --host says otherwise. Policy files given with --policy are
            offered by name in the page (file:<name>); the page never names a path. The
            server holds its own limits per browser session, per client address and in all,
            and owns the bots' budgets whatever a page asks for. Needs the web extra: pip
            install 'cahoots-envs[web]'.
        """),
        epilog=raw("""
            examples:
              cahoots serve
              cahoots serve --port 8080 --policy runs/kc/policy.safetensors
              cahoots serve --max-think 2 --search-workers 1
        """),
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=number("--port", "8000", least=1, most=65535), default=8000,
                   help="the port (default: 8000)")
    p.add_argument("--policy", action="append", default=[], metavar="FILE",
                   help="a saved policy the page may choose, repeatable")
    limits = p.add_argument_group("limits (per browser session, per client address, in all)")
    limits.add_argument("--max-games-per-session", type=number("--max-games-per-session", "8",
                                                               least=1), default=8, metavar="N",
                        help="live games and replays a browser session may hold (default: 8)")
    limits.add_argument("--max-games-per-address", type=number("--max-games-per-address", "64",
                                                               least=1), default=64, metavar="N",
                        help="live games and replays one client address may hold (default: 64)")
    limits.add_argument("--max-games", type=number("--max-games", "256", least=1), default=256,
                        metavar="N", help="live games and replays in all; when full, the "
                        "heaviest holder's idle ones make room (default: 256)")
    limits.add_argument("--idle-minutes", type=number("--idle-minutes", "30", least=0.1,
                                                      kind=float), default=30.0, metavar="M",
                        help="a game or replay with no request for this long is dropped "
                        "(default: 30)")
    limits.add_argument("--sessions-per-minute", type=number("--sessions-per-minute", "20",
                                                             least=1), default=20, metavar="N",
                        help="new browser sessions (page loads without one) a client address "
                        "may start a minute (default: 20)")
    limits.add_argument("--max-replay-mib", type=number("--max-replay-mib", "192", least=1,
                                                        kind=float), default=192.0, metavar="MIB",
                        help="memory the replays of uploaded logs may hold in all; when full, "
                        "other sessions' idle replays make room, else an upload is refused "
                        "(default: 192)")
    limits.add_argument("--max-replay-mib-per-session",
                        type=number("--max-replay-mib-per-session", "16", least=0.5, kind=float),
                        default=16.0, metavar="MIB",
                        help="memory one browser session's replays may hold (default: 16)")
    limits.add_argument("--heavy-workers", type=number("--heavy-workers", "2", least=1, most=16),
                        default=2, metavar="N",
                        help="uploads and game starts worked on at once, off the event loop; "
                        "16 more may wait, beyond that the server answers 503 (default: 2)")
    limits.add_argument("--trust-forwarded", action="store_true",
                        help="take the client address from X-Forwarded-For (its last entry); "
                        "only behind a proxy that sets it (default: the connection's address)")
    bots = p.add_argument_group("the bots' budgets (whatever a page asks for)")
    bots.add_argument("--warmup", action="store_true",
                      help="compile the search seats' numba kernels before serving (as cahoots "
                      "warmup does), so that no player waits 10-35 s for a game's first search "
                      "decision; without it, the server says how to")
    bots.add_argument("--max-think", type=number("--max-think", "5", least=0.05, kind=float),
                      default=5.0, metavar="SECONDS",
                      help="seconds a search bot's decision may take; a search seat's "
                      "time_limit is clamped to it, none refused (default: 5)")
    bots.add_argument("--max-worlds", type=number("--max-worlds", "256", least=1,
                                                  most=10_000), default=256, metavar="N",
                      help="worlds a search decision may draw (default: 256)")
    bots.add_argument("--max-rollouts", type=number("--max-rollouts", "4096", least=1,
                                                    most=100_000), default=4096, metavar="N",
                      help="rollouts a search decision may run (default: 4096)")
    bots.add_argument("--search-workers", type=number("--search-workers", "2", least=1,
                                                      most=64), default=2, metavar="N",
                      help="search decisions running at once, shared fairly between client "
                      "addresses and sessions; other bots have their own threads (default: 2)")
    return p


COMMAND = Command("serve", add_parser, cmd_serve, order=75)
