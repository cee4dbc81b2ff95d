"""Where the browser view's bots decide (``Bots``), and the server's budget for a search seat
(``SearchBudget``). No web library here.

Two lanes, so that one game's thinking never starves another's:

- **light** decisions (a policy that acts from its observation: random, the rule-based bot, a
  network) run on a small thread pool of their own, so they never wait behind a search;
- **searches** run on ``search_workers`` threads fed fairly: a game asks for one decision at a
  time (its next once the last is applied: the game's own queue), and a free worker takes the
  waiting search of the client address, then the session, with the fewest searches running,
  among equals the one whose address, then session, was served least recently (round robin),
  then the one waiting longest. Each search is bounded by the server's
  ``max_think`` (its ``time_limit``, clamped), so a session's search waits at most about one
  decision of each worker, however many games another client runs.

A decision carries its game's cancel event: set when the game is deleted or expires, a queued
decision never starts and a running search stops at its next clock read (the search bot's
``cancel``). Threads, not processes: the loaded policies and the compiled search kernels are
shared (a worker process would load and compile them again, 10-35 s a game), and a cancel is a
flag the search reads where it reads its clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

LIGHT_WORKERS = 2


@dataclass
class SearchBudget:
    """What a search seat may spend a decision: at most ``max_think`` seconds (its time limit;
    a search without one is refused), ``max_worlds`` worlds and ``max_rollouts`` rollouts."""

    max_think: float = 5.0
    max_worlds: int = 256
    max_rollouts: int = 4096

    def clamp(self, knobs: dict[str, Any]) -> dict[str, Any]:
        """The client's search settings within the budget (a time limit added where none is
        named); ``ValueError`` for ``time_limit=none``."""
        out = dict(knobs)
        if "time_limit" in out and out["time_limit"] is None:
            raise ValueError(f"time_limit=none is not allowed here: a search seat decides "
                             f"within {self.max_think:g} s on this server (name a time_limit "
                             f"up to {self.max_think:g}, or leave it out)")
        out["time_limit"] = min(float(out.get("time_limit", self.max_think)), self.max_think)
        for name, most in (("worlds", self.max_worlds), ("max_worlds", self.max_worlds),
                           ("max_rollouts", self.max_rollouts)):
            if name in out:
                out[name] = min(int(out[name]), most)
        return out

    def enforce(self, policy: Any) -> None:
        """Clamp a loaded search bot's settings (the game's own defaults included)."""
        settings = policy.settings
        limit = settings.get("time_limit")
        settings["time_limit"] = self.max_think if limit is None else min(limit, self.max_think)
        for name, most in (("worlds", self.max_worlds), ("max_worlds", self.max_worlds),
                           ("max_rollouts", self.max_rollouts)):
            settings[name] = min(int(settings[name]), most)


@dataclass
class _Search:
    future: Future[int]
    call: Callable[[], int]
    address: str
    session: str
    cancel: threading.Event
    queued: float = field(default_factory=time.monotonic)


class Bots:
    """The bots' two lanes (see the module docstring). ``submit`` returns the decision's future;
    ``close`` stops the workers (a running decision is cancelled through its event)."""

    def __init__(self, search_workers: int = 2, light_workers: int = LIGHT_WORKERS) -> None:
        if search_workers < 1:
            raise ValueError(f"search_workers must be at least 1, got {search_workers}")
        self.search_workers = search_workers
        self.light = ThreadPoolExecutor(light_workers, thread_name_prefix="cahoots-bot")
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._waiting: list[_Search] = []
        self._running: list[_Search] = []
        self._served: dict[str, float] = {}  # address or session -> when its last search began
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, call: Callable[[], int], *, search: bool, address: str, session: str,
               cancel: threading.Event) -> Future[int]:
        """Run ``call`` (a decision) on its lane; a cancelled ``cancel`` event drops it."""
        if not search:
            return self.light.submit(call)
        future: Future[int] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the server is stopping")
            self._waiting.append(_Search(future, call, address, session, cancel))
            while len(self._threads) < self.search_workers:
                thread = threading.Thread(target=self._work, daemon=True,
                                          name=f"cahoots-search-{len(self._threads)}")
                self._threads.append(thread)
                thread.start()
            self._wake.notify()
        return future

    def busy(self) -> dict[str, int]:
        with self._lock:
            return {"searching": len(self._running), "waiting": len(self._waiting)}

    def _next(self) -> _Search | None:
        """The waiting search to run next (the lock held): cancelled ones dropped, then the
        fewest running for its address, then for its session, then the address, then the
        session, served least recently, then the longest waiting."""
        for job in [j for j in self._waiting if j.cancel.is_set()]:
            self._waiting.remove(job)
            job.future.cancel()
        if not self._waiting:
            return None

        def share(job: _Search) -> tuple[int, int, float, float, float]:
            return (sum(r.address == job.address for r in self._running),
                    sum(r.session == job.session for r in self._running),
                    self._served.get("a" + job.address, 0.0),
                    self._served.get("s" + job.session, 0.0), job.queued)

        job = min(self._waiting, key=share)
        self._waiting.remove(job)
        if len(self._served) > 20_000:  # forget the long gone
            self._served.clear()
        now = time.monotonic()
        self._served["a" + job.address] = self._served["s" + job.session] = now
        return job

    def _work(self) -> None:
        while True:
            with self._lock:
                job = self._next()
                while job is None and not self._closed:
                    self._wake.wait()
                    job = self._next()
                if job is None:
                    return
                self._running.append(job)
            try:
                if job.future.set_running_or_notify_cancel():
                    try:
                        job.future.set_result(job.call())
                    except BaseException as e:  # noqa: BLE001 (the request reports it)
                        job.future.set_exception(e)
            finally:
                with self._lock:
                    self._running.remove(job)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for job in self._waiting + self._running:
                job.cancel.set()
            self._wake.notify_all()
        self.light.shutdown(wait=False, cancel_futures=True)
