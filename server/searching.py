"""Search budgets, the search gate, and search results as API evaluations.

- :func:`resolve_budget` turns a request's limits or level into the
  :class:`Budget` actually searched: clamped to the server's maximums and cut
  to the client's deadline (minus a margin for the reply).
- :class:`SearchGate` bounds the searches running at once, in all and per
  client; one more is refused at once with RESOURCE_EXHAUSTED (never queued).
  It also knows every running search's stop flag, so a shutdown can end them
  all (each still gives its answer).
- :func:`priority` picks the CPU priority a search may run at without
  breaking its time promise.
- :func:`answer` completes a search result for the API (the limit it ran
  with, final or not); :mod:`cacaoai.api.convert` makes it an Evaluation
  message.

Thread-safety: SearchGate is shared by all RPC threads and is thread-safe;
everything else is per-request.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from cacaoai.api import convert
from cacaoai.search import Limit, SearchResult, SearchSettings
from cacaoai.search.bots import Level

from . import errors
from .options import ServerOptions

MIN_DEADLINE_S = 0.002  # a reply takes about 1-2 ms on loopback
TOO_MANY_CLIENT_SEARCHES = "TOO_MANY_CLIENT_SEARCHES"


@dataclass(frozen=True)
class Budget:
    """What a search request resolves to: its clamped :class:`Limit` (every
    field set), the settings it plays with, and whether it promised a time.

    Attributes:
        limit: iterations, time and threads after the server's clamps.
        settings: the level's settings (the search's defaults for explicit limits).
        timed: the search promised a time: the request or its level set a
            time, or the client set a deadline (the server's max_time cap
            alone is no promise). See :func:`priority`.
    """

    limit: Limit
    settings: SearchSettings = SearchSettings()
    timed: bool = False


def level_budgets(levels: dict[str, Level], options: ServerOptions) -> dict[str, Budget]:
    """The named levels of the search as clamped budgets."""
    return {name: clamp(level.limit, options, level.settings, timed=level.limit.time_s is not None)
            for name, level in levels.items()}


def clamp(limit: Limit, options: ServerOptions, settings: SearchSettings | None = None,
          timed: bool = False) -> Budget:
    """The budget within the server's limits; no limit at all means the maximum."""
    iterations = options.max_iterations if limit.iterations is None else min(
        limit.iterations, options.max_iterations)
    time_s = options.max_time_s if limit.time_s is None else min(limit.time_s, options.max_time_s)
    threads = options.search_threads if limit.threads is None else min(
        limit.threads, options.search_threads)
    return Budget(Limit(iterations, time_s, threads), settings or SearchSettings(), timed)


def resolve_budget(request: Any, levels: dict[str, Budget], options: ServerOptions,
                   default_level: str | None) -> Budget:
    """The budget a SuggestAction or AnalyzePosition request asks for, clamped.

    Args:
        request: a request with the ``budget`` oneof (limits or level).
        levels: the clamped level budgets.
        options: the server's limits.
        default_level: the level when the request names none (None: the maximum).

    Raises:
        errors.ApiError: INVALID_ARGUMENT for an unknown level or negative limits.
    """
    kind = request.WhichOneof("budget")
    if kind == "level" or (kind is None and default_level):
        name = request.level if kind == "level" else default_level
        if name not in levels:
            raise errors.invalid(
                "level", f"unknown level {name!r}; the levels are {', '.join(levels)}",
                errors.UNKNOWN_LEVEL)
        return levels[name]
    if kind is None:
        return clamp(Limit(), options)
    with errors.request_fields():
        limit = convert.limit_from_proto(request.limits)
    return clamp(limit, options, timed=limit.time_s is not None)


def fit_deadline(budget: Budget, time_remaining: float | None, margin_s: float) -> Budget:
    """The budget cut so that the reply leaves before the client's deadline.

    Raises:
        errors.ApiError: DEADLINE_EXCEEDED when less than MIN_DEADLINE_S is
            left: no reply could arrive in time, so nothing is searched.
    """
    if time_remaining is None:
        return budget
    if time_remaining < MIN_DEADLINE_S:
        raise errors.deadline_exceeded(
            f"the call's deadline leaves {max(time_remaining, 0.0) * 1000:.1f} ms: no time to "
            f"search and reply (at least {MIN_DEADLINE_S * 1000:g} ms)")
    usable = max(time_remaining - margin_s - 0.05 * time_remaining, 0.001)
    limit = budget.limit
    time_s = usable if limit.time_s is None else min(usable, limit.time_s)
    return replace(budget, limit=replace(limit, time_s=time_s), timed=True)


def priority(budget: Budget, configured: str) -> str:
    """The CPU priority a search runs its trees at: ``configured``, except
    that a search that promised a time runs no lower than "reduced".

    A thread at "idle" or "low" only runs when the cores are free of normal
    work: next to other busy processes it may not run for seconds, and so
    cannot stop on time (a 0.2 s search took over 1 s). "reduced" (nice 5)
    still yields a core to the threads that answer calls, but its share
    never drops to nothing, so it notices its deadline within a few
    scheduler slices. An unprivileged thread cannot raise its priority again
    once lowered, so this is decided before the search starts.
    """
    if budget.timed and configured in ("low", "idle"):
        return "reduced"
    return configured


class SearchGate:
    """At most ``limit`` searches at once, and ``per_client`` (0: no such
    limit) for one client; one more is refused, never queued.

    Thread-safe.
    """

    def __init__(self, limit: int, per_client: int = 0):
        self.limit = limit
        self.per_client = per_client
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a slot was taken or given back
        self._tickets = itertools.count()
        self._running: dict[int, tuple[str, Any]] = {}  # ticket -> (client, stop flag)
        self.stopping = False

    @property
    def running(self) -> int:
        """Searches running now."""
        return len(self._running)

    def check(self, client: str = "") -> None:
        """Refuses at once when a search of ``client`` could not start now
        (cheap: call it before reading a large request).

        Raises:
            errors.ApiError: RESOURCE_EXHAUSTED, with the reason.
        """
        with self._lock:
            self._check(client)

    def _check(self, client: str) -> None:
        if len(self._running) >= self.limit:
            raise errors.resource_exhausted(
                f"the server already runs its maximum of {self.limit} searches; "
                "retry shortly or ask another replica")
        if self.per_client and sum(c == client for c, _ in self._running.values()) >= self.per_client:
            raise replace(errors.resource_exhausted(
                f"this client ({client}) already runs its maximum of {self.per_client} "
                "searches at once; wait for one to end"), reason=TOO_MANY_CLIENT_SEARCHES)

    def acquire(self, client: str = "", stop: Any = None) -> int:
        """Takes a slot for a search of ``client`` whose stop flag is ``stop``;
        its ticket for :meth:`release`.

        Raises:
            errors.ApiError: RESOURCE_EXHAUSTED when no slot is free.
        """
        with self._lock:
            self._check(client)
            ticket = next(self._tickets)
            self._running[ticket] = (client, stop)
            self._changed.notify_all()
        if stop is not None and self.stopping:
            stop.set()
        return ticket

    def release(self, ticket: int) -> None:
        with self._lock:
            self._running.pop(ticket, None)
            self._changed.notify_all()

    def wait_running(self, count: int, timeout: float | None = None) -> bool:
        """Waits until exactly ``count`` searches run; False if ``timeout``
        seconds pass first. (For callers that must know when searches have
        started or ended, such as tests, instead of polling ``running``.)"""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._running) == count, timeout)

    @contextmanager
    def slot(self, client: str = "", stop: Any = None) -> Iterator[None]:
        """Holds one search slot for the body (see :meth:`acquire`)."""
        ticket = self.acquire(client, stop)
        try:
            yield
        finally:
            self.release(ticket)

    def stop_all(self) -> None:
        """Stops every running search and any started from now on: each
        ends at once with the best it has (a shutdown's last step)."""
        with self._lock:
            self.stopping = True
            flags = [stop for _, stop in self._running.values() if stop is not None]
        for stop in flags:
            stop.set()


def answer(result: SearchResult, budget: Budget, *, final: bool) -> SearchResult:
    """`result` as the API reports it: with the limit it ran with and whether it is final."""
    return replace(result, limit=budget.limit, final=final)
