"""The browser view's state (``Server``): the sessions and their games and replays, the policy
files given at start, the bots' lanes and budget, and the lanes where requests' work runs off
the event loop (``Work``). No web library here.

Off the event loop: reading a log and rebuilding its positions, loading policies, starting a
game, and building every answer (tables, text, legal moves) run on worker threads, so the event
loop only reads requests and writes answers and is never held by one client's work:

- **heavy** work (a log's upload, a game's start: policies loaded, the table dealt) runs on
  ``heavy_workers`` threads; at most ``HEAVY_QUEUE`` more wait, beyond that a request gets
  ``503`` (one line: try again in a moment);
- **answers** (a move, a state, a position, a stream's update) run on ``ANSWER_WORKERS`` threads
  of their own, so they never wait behind an upload.

A game is read and changed under its own lock (``Match.lock``), whichever thread does it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cahoots_envs.web.bots import Bots, SearchBudget
from cahoots_envs.web.replays import Replay
from cahoots_envs.web.sessions import Limits, Session, Sessions
from cahoots_envs.web.tables import Match, WebError

ANSWER_WORKERS = 4
HEAVY_QUEUE = 16  # heavy jobs waiting at most, beyond those running
REPLAY_POLICIES = 8  # networks kept loaded for replays' probabilities
T = TypeVar("T")


class Work:
    """The two lanes of work off the event loop (see the module docstring)."""

    def __init__(self, heavy_workers: int, answer_workers: int = ANSWER_WORKERS) -> None:
        self.heavy_workers = heavy_workers
        self._heavy = ThreadPoolExecutor(heavy_workers, thread_name_prefix="cahoots-heavy")
        self._answers = ThreadPoolExecutor(answer_workers, thread_name_prefix="cahoots-answer")
        self._lock = threading.Lock()
        self.heavy_jobs = 0  # running and waiting

    async def heavy(self, call: Callable[[], T]) -> T:
        """Run ``call`` on the heavy lane; ``WebError`` 503 when too much heavy work waits."""
        with self._lock:
            if self.heavy_jobs >= self.heavy_workers + HEAVY_QUEUE:
                raise WebError(503, f"the server is busy: {self.heavy_jobs} uploads and game "
                               "starts are running or waiting; try again in a moment")
            self.heavy_jobs += 1
        try:
            return await asyncio.wrap_future(self._heavy.submit(call))
        finally:
            with self._lock:
                self.heavy_jobs -= 1

    async def answer(self, call: Callable[[], T]) -> T:
        """Run ``call`` (an answer's work) on the answers' lane."""
        return await asyncio.wrap_future(self._answers.submit(call))

    def close(self) -> None:
        self._heavy.shutdown(wait=False, cancel_futures=True)
        self._answers.shutdown(wait=False, cancel_futures=True)


@dataclass
class Server:
    """The app's state: the sessions and their games and replays, the policy files given at
    start, the bots' lanes and budget."""

    files: dict[str, Path]
    limits: Limits = field(default_factory=Limits)
    sessions: Sessions = field(init=False)
    bots: Bots = field(init=False)
    budget: SearchBudget = field(init=False)
    work: Work = field(init=False)

    def __post_init__(self) -> None:
        self.sessions = Sessions(self.limits)
        self.bots = Bots(self.limits.search_workers)
        self.budget = self.limits.budget()
        self.work = Work(self.limits.heavy_workers)
        self._replay_policies: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self._replay_lock = threading.Lock()

    def close(self) -> None:
        self.bots.close()
        self.work.close()

    def live(self) -> int:
        return self.sessions.live()

    def items(self) -> dict[str, Match | Replay]:
        """Every live game and replay by id (for tests and the console)."""
        return {k: v for s in self.sessions.by_token.values() for k, v in s.items.items()}

    def submit(self, session: Session, match: Match
               ) -> Callable[[Callable[[], int], bool], Future[int]]:
        """How ``match`` (of ``session``) hands a decision to the bots (``Match.start_bot``)."""

        def submit(call: Callable[[], int], search: bool) -> Future[int]:
            return self.bots.submit(call, search=search, address=session.address,
                                    session=session.token, cancel=match.stop)

        return submit

    # ---- games and policies ------------------------------------------------------------------
    def policies_for(self, spec: Any) -> list[dict[str, str]]:
        from cahoots_envs.policies.loading import list_policies

        found = [{"id": "random", "label": "random moves"},
                 {"id": "heuristic", "label": "rule-based bot"}]
        if spec.has("world_sampler"):
            found.append({"id": "search", "label": "search bot (the game's default search)"})
        for meta in list_policies():
            if meta.get("env_id") == spec.env_id:
                found.append({"id": meta["spec"], "label": f"zoo network {meta['name']}"})
        found += [{"id": key, "label": f"policy file {path.name}"} for key, path in self.files.items()]
        return found

    def policy_spec(self, policy_id: Any, spec: Any) -> tuple[str, str]:
        """The ``load_policy`` spec of a policy id (a ``file:`` id becomes its path here, and
        only here: the client never names a path) and the id as played: a search id with its
        settings clamped to the server's budget (``SearchBudget``)."""
        if not isinstance(policy_id, str) or not policy_id.strip():
            raise WebError(400, f"a policy is named by its id (a string such as 'heuristic'), "
                           f"got {json.dumps(policy_id)[:40]}")
        if policy_id == "search" or policy_id.startswith(("search:", "search@")):
            from cahoots_envs.search import parse_search_spec

            head, _, inner = policy_id.partition(":")
            try:
                knobs = self.budget.clamp(parse_search_spec(head)[0])
            except ValueError as e:
                raise WebError(400, f"policy {policy_id[:60]!r}: {str(e)[:300]}") from None
            head = "search@" + ",".join(f"{k}={_written(v)}" for k, v in knobs.items())
            if not inner:  # plain search: the game's default blueprint (load_search_policy)
                return head, head
            load, shown = self.policy_spec(inner, spec)
            return f"{head}:{load}", f"{head}:{shown}"
        if policy_id in ("random", "heuristic") or policy_id.startswith("zoo:"):
            return policy_id, policy_id
        if policy_id in self.files:
            return str(self.files[policy_id]), policy_id
        known = ", ".join(p["id"] for p in self.policies_for(spec))
        raise WebError(400, f"unknown policy {policy_id[:60]!r}; policies for {spec.name}: {known} "
                       "(a search bot over one: search:<id>)")

    def load(self, policy_id: Any, spec: Any, options: dict[str, Any],
             seed: int | None) -> tuple[Any, str]:
        """The policy of a seat, within the server's budget, and its id as played."""
        from cahoots_envs.policies.loading import load_policy

        text, shown = self.policy_spec(policy_id, spec)
        try:
            policy = load_policy(text, spec.env_id, options, seed=seed)
        except Exception as e:  # noqa: BLE001 (a policy that cannot play this game, however)
            raise WebError(400, f"policy {str(policy_id)[:60]!r} cannot play {spec.name} with "
                           f"these options: {str(e)[:300]}") from None
        if getattr(policy, "needs_infoset", False):
            self.budget.enforce(policy)  # the game's default settings too
        return policy, shown

    def replay_policy(self, replay_options: dict[str, Any], env_id: str) -> Callable[[str, int], Any]:
        """How a replay loads the policy a log names for a seat: a ``zoo:`` id or a file given
        to ``serve`` (never a path from the log); None otherwise. Loaded policies are shared by
        every replay (the ``REPLAY_POLICIES`` used last), not loaded again for each upload."""
        options = json.dumps(replay_options, sort_keys=True, default=str)

        def load(name: str, seat: int) -> Any:
            if not (name.startswith("zoo:") or name in self.files):
                return None
            key = (name, env_id, options)
            with self._replay_lock:
                if key in self._replay_policies:
                    self._replay_policies.move_to_end(key)
                    return self._replay_policies[key]
            from cahoots_envs.policies.loading import load_policy

            try:
                policy = load_policy(str(self.files.get(name, name)), env_id, replay_options)
            except Exception:  # noqa: BLE001 (no probabilities shown, the replay goes on)
                policy = None
            with self._replay_lock:
                self._replay_policies[key] = policy
                while len(self._replay_policies) > REPLAY_POLICIES:
                    self._replay_policies.popitem(last=False)
            return policy

        return load


def _written(value: Any) -> str:
    """A search setting as a spec writes it (``parse_value`` reads it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:.10g}" if isinstance(value, float) else str(value)


