"""The browser view's sessions and fair limits (``Sessions``, ``Limits``). No web library here.

- A **session** is minted only when the page loads (``GET /``), at most ``sessions_per_minute``
  a minute per client address (a token bucket as large as one minute's); the API never mints
  one, so a client that sends no cookie can create nothing.
- **Caps**: live games and replays per session (``per_session``), per client address
  (``per_address``) and in all (``total``).
- **When full**: a new item of a session under its cap takes the place of another session's
  item: of the heaviest holder (at the server's cap the address holding most, within it the
  session holding most; at an address's cap the session of that address holding most), its
  least recently active idle item first (no bot deciding, oldest request). A session's first
  item (its oldest live one) is never dropped for another session's second or later one: only
  a session starting its first item may take the place of another's first.
- **Bytes**: replays are counted in bytes too (``Replay.nbytes``), per session
  (``replay_bytes_per_session``) and in all (``replay_bytes``). A session past its own is
  refused (it deletes a replay); a full server makes room from other sessions' replays by the
  rule above, and refuses (``429``, one line) when none may give way.
- **Idle** items (no request for ``idle_seconds``) are dropped by ``sweep``, which the app runs
  on a timer; a bot deciding for one is cancelled. Sessions holding nothing expire as well.
- The client address is the connection's; ``X-Forwarded-For`` is read only when
  ``trust_forwarded`` says a proxy in front sets it (its last entry: the address the proxy
  saw).
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cahoots_envs.web.bots import SearchBudget
from cahoots_envs.web.tables import WebError

MAX_UPLOAD = 2_000_000
MIB = 1 << 20
MAX_SESSIONS = 10_000  # sessions kept at most; beyond, the longest idle ones holding nothing go


@dataclass
class Limits:
    """The server's limits: caps, idle expiry, session minting, and the bots' budgets."""

    per_session: int = 8
    per_address: int = 64
    total: int = 256
    idle_seconds: float = 1800.0
    sweep_seconds: float = 60.0
    sessions_per_minute: int = 20
    trust_forwarded: bool = False
    upload_bytes: int = MAX_UPLOAD
    max_think: float = 5.0
    max_worlds: int = 256
    max_rollouts: int = 4096
    search_workers: int = 2
    replay_bytes: int = 192 * MIB
    replay_bytes_per_session: int = 16 * MIB
    heavy_workers: int = 2

    def __post_init__(self) -> None:
        for name in ("per_session", "per_address", "total", "sessions_per_minute",
                     "max_worlds", "max_rollouts", "search_workers", "replay_bytes",
                     "replay_bytes_per_session", "heavy_workers"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"limit {name} must be at least 1, got {getattr(self, name)}")
        for name in ("idle_seconds", "sweep_seconds", "max_think"):
            if not float(getattr(self, name)) > 0:
                raise ValueError(f"limit {name} must be more than 0, got {getattr(self, name)}")

    def budget(self) -> SearchBudget:
        return SearchBudget(self.max_think, self.max_worlds, self.max_rollouts)

    def public(self) -> dict[str, Any]:
        """What ``GET /api/games`` reports under ``limits``."""
        return {"per_session": self.per_session, "per_address": self.per_address,
                "total": self.total, "idle_seconds": self.idle_seconds,
                "sessions_per_minute": self.sessions_per_minute,
                "upload_bytes": self.upload_bytes, "max_think": self.max_think,
                "max_worlds": self.max_worlds, "max_rollouts": self.max_rollouts,
                "replay_bytes": self.replay_bytes,
                "replay_bytes_per_session": self.replay_bytes_per_session}


def _mib(nbytes: int) -> str:
    return f"{nbytes / MIB:.1f} MiB"


def client_address(client: tuple[str, int] | None, headers: Mapping[str, str],
                   trust_forwarded: bool) -> str:
    """The client's address: the connection's, or with ``trust_forwarded`` the last entry of
    ``X-Forwarded-For`` (what the proxy in front saw), where there is one."""
    if trust_forwarded:
        forwarded = [p.strip() for p in headers.get("x-forwarded-for", "").split(",") if p.strip()]
        if forwarded:
            return forwarded[-1][:64]
    return client[0] if client else "unknown"


@dataclass
class Session:
    """A browser session: its token (the cookie), the address that minted it, its items in the
    order they were made (the first: its oldest live one)."""

    token: str
    address: str
    items: dict[str, Any] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)


class Sessions:
    """Every session and item, under ``limits`` (see the module docstring). An item has ``id``,
    ``touched`` (monotonic seconds), ``thinking`` (None unless a bot decides) and ``close()``
    (cancels its bot)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.by_token: dict[str, Session] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)

    # ---- sessions ----------------------------------------------------------------------------
    def find(self, token: str | None) -> Session | None:
        """The session of a cookie's token (touched), or None: a token the server did not
        mint, or one that expired."""
        session = self.by_token.get(token or "")
        if session is not None:
            session.touched = time.monotonic()
        return session

    def mint(self, address: str) -> Session | None:
        """A new session for a page load from ``address``, or None when the address has made
        its ``sessions_per_minute`` (see ``retry_after``)."""
        now = time.monotonic()
        rate = self.limits.sessions_per_minute
        tokens, when = self._buckets.get(address, (float(rate), now))
        tokens = min(float(rate), tokens + (now - when) * rate / 60)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return None
        if len(self.by_token) >= MAX_SESSIONS and not self._forget_empty(now):
            return None
        self._buckets[address] = (tokens - 1, now)
        session = Session(secrets.token_urlsafe(24), address)
        self.by_token[session.token] = session
        return session

    def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may make a session again."""
        tokens, _ = self._buckets.get(address, (1.0, 0.0))
        return max(1, int((1 - tokens) * 60 / self.limits.sessions_per_minute) + 1)

    def _forget_empty(self, now: float) -> bool:
        """Drop the longest idle tenth of the sessions holding nothing (True if any went)."""
        empty = sorted((s.touched, s.token) for s in self.by_token.values() if not s.items)
        for _, token in empty[: max(1, len(empty) // 10)]:
            del self.by_token[token]
        return bool(empty)

    # ---- items -------------------------------------------------------------------------------
    def live(self) -> int:
        return sum(len(s.items) for s in self.by_token.values())

    def held_by(self, address: str) -> int:
        return sum(len(s.items) for s in self.by_token.values() if s.address == address)

    def nbytes(self, session: Session | None = None) -> int:
        """The bytes the replays of ``session`` (None: every session) hold."""
        held = self.by_token.values() if session is None else [session]
        return sum(item.nbytes for s in held for item in s.items.values())

    def get(self, session: Session | None, key: str, kind: type) -> Any:
        found: Any = None if session is None else session.items.get(key)
        if not isinstance(found, kind):
            what = "game" if kind.__name__ == "Match" else "replay"
            raise WebError(404, f"no {what} {key[:40]!r} in this session (it may have expired)")
        item: Any = found
        item.touched = time.monotonic()
        return item

    def drop(self, session: Session | None, key: str) -> Any:
        """Delete an item of ``session`` (its bot cancelled); 404 if it holds none by that id."""
        if session is None or key not in session.items:
            raise WebError(404, f"no game or replay {key[:40]!r} in this session")
        item = session.items.pop(key)
        item.close()
        return item

    def check_room(self, session: Session) -> None:
        """Raise the limit's error (429) when ``session`` may not add an item now, even by
        taking another's place (nothing is dropped here)."""
        self._plan(session, 0)

    def add(self, session: Session, item: Any) -> list[Any]:
        """Add ``item`` to ``session``, dropping the items whose place it takes (returned)."""
        dropped = []
        for owner, key in self._plan(session, item.nbytes):
            dropped.append(owner.items.pop(key))
            dropped[-1].close()
        item.touched = session.touched = time.monotonic()
        # a session that held nothing may have expired while its item was being built
        self.by_token.setdefault(session.token, session)
        session.items[item.id] = item
        return dropped

    def _plan(self, session: Session, nbytes: int) -> list[tuple[Session, str]]:
        """The items ``session``'s next one (of ``nbytes`` bytes) would take the place of (429
        when it may not)."""
        limits = self.limits
        if len(session.items) >= limits.per_session or \
                self.held_by(session.address) >= limits.per_address or self.live() >= limits.total:
            self.sweep()  # a cap is reached: the expired items go before any live one
        if len(session.items) >= limits.per_session:
            raise WebError(429, f"this session has {len(session.items)} live games and replays, "
                           "the most it may hold; delete one (DELETE /api/games/<id>) or wait "
                           "for idle ones to expire")
        first = not session.items
        taken: list[tuple[Session, str]] = []
        mine = [s for s in self.by_token.values() if s.address == session.address]
        while self.held_by(session.address) - sum(o.address == session.address
                                                  for o, _ in taken) >= limits.per_address:
            victim = self._victim(mine, session, first, taken)
            if victim is None:
                raise WebError(429, f"your address holds {limits.per_address} live games and "
                               "replays, the most one address may hold, and none may give way "
                               "to this one; delete one or wait for idle ones to expire")
            taken.append(victim)
        while self.live() - len(taken) >= limits.total:
            victim = self._victim(list(self.by_token.values()), session, first, taken)
            if victim is None:
                raise WebError(429, f"the server holds {limits.total} live games and replays, "
                               "the most it may, and none may give way to this one; try again "
                               "later")
            taken.append(victim)
        if nbytes:
            self._make_bytes(session, nbytes, first, taken)
        return taken

    def _make_bytes(self, session: Session, nbytes: int, first: bool,
                    taken: list[tuple[Session, str]]) -> None:
        """Add to ``taken`` the replays whose bytes a new one of ``nbytes`` needs (429 when
        the session's own bytes, or the server's with nothing to give way, would pass a cap)."""
        limits = self.limits
        mine = self.nbytes(session)
        if mine + nbytes > limits.replay_bytes_per_session:
            raise WebError(429, f"this session's replays would hold {_mib(mine + nbytes)} with this "
                           f"one, more than the {_mib(limits.replay_bytes_per_session)} a session "
                           "may; delete a replay (DELETE /api/games/<id>) and upload again")

        def freed() -> int:
            return sum(owner.items[key].nbytes for owner, key in taken)

        while self.nbytes() - freed() + nbytes > limits.replay_bytes:
            victim = self._victim(list(self.by_token.values()), session, first, taken,
                                  lambda item: item.nbytes > 0)
            if victim is None:
                raise WebError(429, f"the server's replays hold {_mib(self.nbytes())}, and this "
                               f"one ({_mib(nbytes)}) would pass the {_mib(limits.replay_bytes)} "
                               "it keeps; none may give way to it; try again later")
            taken.append(victim)

    @staticmethod
    def _victim(scope: Iterable[Session], requester: Session, first: bool,
                taken: list[tuple[Session, str]],
                wanted: Callable[[Any], bool] = lambda item: True) -> tuple[Session, str] | None:
        """The item to give way in ``scope``: of the heaviest address, then session, an
        unprotected one first, then one with no bot deciding, then the least recently active.
        A session's first item is protected unless the requester is starting its own first."""
        gone = {(o.token, key) for o, key in taken}
        scope = list(scope)
        by_address: Counter[str] = Counter()
        by_session: Counter[str] = Counter()
        for s in scope:
            for key in s.items:
                if (s.token, key) not in gone:
                    by_address[s.address] += 1
                    by_session[s.token] += 1
        best: tuple[Any, ...] | None = None
        for s in scope:
            if s is requester:
                continue
            keys = [k for k in s.items if (s.token, k) not in gone]
            for i, key in enumerate(keys):
                oldest = i == 0 and next(iter(s.items)) == key
                if oldest and not first:
                    continue
                item = s.items[key]
                if not wanted(item):
                    continue
                rank = (-by_address[s.address], -by_session[s.token], oldest,
                        item.thinking is not None, item.touched)
                if best is None or rank < best[0]:
                    best = (rank, s, key)
        return None if best is None else (best[1], best[2])

    # ---- expiry ------------------------------------------------------------------------------
    def sweep(self) -> int:
        """Drop every item idle for longer than ``idle_seconds`` (its bot cancelled), the
        sessions holding nothing idle as long, and spent rate buckets; the items dropped."""
        now = time.monotonic()
        idle = self.limits.idle_seconds
        dropped = 0
        for token in list(self.by_token):
            session = self.by_token[token]
            for key in list(session.items):
                if now - session.items[key].touched > idle:
                    session.items.pop(key).close()
                    dropped += 1
            if not session.items and now - session.touched > idle:
                del self.by_token[token]
        rate = self.limits.sessions_per_minute
        for address, (tokens, when) in list(self._buckets.items()):
            if tokens + (now - when) * rate / 60 >= rate:
                del self._buckets[address]
        return dropped
