"""The search scheduler: a bounded queue with two priority classes in front of
the search slots, and the memory budget of the searches' trees.

- **Slots.** At most ``slots`` search threads grow trees at once (a slot is a
  core's worth of work, ``--max-searches``, the cores the process may use): a
  search takes a slot for each of its threads (all of them, at most
  ``slots``), so however many searches there are, the threads growing trees
  never outnumber the cores, and the rest wait here, not for a core.
- **Classes.** *Interactive* searches (a move a player waits for) start before
  *background* ones (analysis, pondering, long budgets). When an interactive
  search would wait for a slot, the newest running background search is
  *paused*: its trees stop at once (its pause flag, polled between
  iterations), its thread waits on a condition, so its core is free; it goes
  on where it was once no interactive search waits and a slot is free, and
  still ends with its answer (its time budget runs on while it is paused; when
  that ends, or the search is stopped, it finishes without waiting for a slot).
- **Queue.** A search that cannot start waits in its class's queue (at most
  ``max_queue`` a class; first come, first served) while it can still start
  in time: by its *latest start* (the call's deadline less the time it
  expects to search) and within ``max_wait_s``. One that cannot is refused at
  once, RESOURCE_EXHAUSTED with a retry-after hint: when the queue is full, or
  when the estimated start (the running searches' expected ends, then the
  searches ahead of it; interactive ones see running background searches as
  free slots) is past its latest start. One that waits until its latest start
  passes is refused then, with a new hint.
- **Per client.** ``per_client`` bounds the searches of one client (running,
  paused or waiting; one more is refused at once), ``per_client_interactive``
  its interactive ones (more run as background).
- **Memory.** With a :class:`~.memory.MemoryBudget`, a search starts only
  when its trees' memory can be reserved (its ``max_nodes`` comes from what
  is left); it gives the memory back when it ends (or hands it to the trees it
  keeps in the tree cache).
- **Cancel and shutdown.** A waiting search whose stop flag is set (its call
  was cancelled, an Analyze call's ``stop``) is let through at once without a
  slot: its search ends at its first step and answers with what it has
  (nothing), as a stopped search does. When the server shuts down, searches
  that have not started are refused with UNAVAILABLE (reason
  ``SHUTTING_DOWN``), which clients retry at another replica; running and
  paused ones stop and answer.

The clock is injectable (``clock``), and everything that changes state wakes
the waiters, so tests drive the scheduler with events instead of sleeps:
:meth:`SearchScheduler.wait_for` waits until a condition on the scheduler
holds, :meth:`SearchScheduler.poke` makes it look again after the clock moved.
Waiting threads also look every ``poll_s`` seconds (a stop flag is set by the
transport without telling the scheduler).

Thread-safety: every method may be called from any thread.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import grpc

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.search import StopFlag

from . import errors
from .memory import MIN_TREE_NODES, MemoryBudget, Need, Reservation

INTERACTIVE = "interactive"
BACKGROUND = "background"
CLASSES = (INTERACTIVE, BACKGROUND)

QUEUED, RUNNING, PAUSED, FINISHING, REFUSED, DONE = (
    "queued", "running", "paused", "finishing", "refused", "done")

#: Refusal causes (ErrorInfo metadata "cause", and the metrics' label).
QUEUE_FULL, WAIT_TOO_LONG, CLIENT_LIMIT = "queue_full", "wait_too_long", "client_limit"
CAUSES = (QUEUE_FULL, WAIT_TOO_LONG, CLIENT_LIMIT)
MIN_RETRY_S, MAX_RETRY_S = 0.05, 60.0


@dataclass(frozen=True)
class Request:
    """What the scheduler needs to know of a search.

    Attributes:
        client: whom it counts against (a token's id, an IP address).
        klass: INTERACTIVE or BACKGROUND.
        expected_s: how long it expects to search (its time budget, or its
            iterations at a cautious speed).
        reply_by: clock() time by which its reply must leave (the call's
            deadline less a margin); None: no deadline.
        time_s: its time budget, which runs on while it is paused; None: none.
        stop: its stop flag (set when its call is cancelled); may be None.
        need: its trees' memory; None: no memory budget.
        threads: the threads it grows its trees on, each taking a slot.
    """

    client: str = ""
    klass: str = INTERACTIVE
    expected_s: float = 0.0
    reply_by: float | None = None
    time_s: float | None = None
    stop: Any = None
    need: Need | None = None
    threads: int = 1


class Ticket:
    """One search's place in the scheduler, from its arrival to its end.

    Attributes:
        request: what was asked (its class possibly lowered: see ``klass``).
        klass: the class it runs at.
        state: queued, running, paused, finishing, refused or done.
        slots: the slots it takes while it runs (its threads, at most the scheduler's).
        pause: the flag that pauses its search (the scheduler sets and clears it).
        enqueued, started: clock() times (started: None until it starts).
        paused_s: seconds it was paused so far.
        max_nodes: the max_nodes of its trees under the memory budget (None: no budget).
        error: the refusal, for a refused ticket.
    """

    def __init__(self, number: int, request: Request, klass: str, now: float, latest_start: float,
                 slots: int = 1):
        self.number = number
        self.request = request
        self.klass = klass
        self.slots = slots
        self.state = QUEUED
        self.pause = StopFlag()
        self.enqueued = now
        self.latest_start = latest_start
        self.started: float | None = None
        self.ends_at: float | None = None
        self.paused_at: float | None = None
        self.paused_s = 0.0
        self.reservation: Reservation | None = None
        self.error: errors.ApiError | None = None

    @property
    def max_nodes(self) -> int | None:
        return self.reservation.max_nodes if self.reservation is not None else None

    @property
    def queued_s(self) -> float:
        """Seconds it waited for a slot (0 until it starts)."""
        return 0.0 if self.started is None else self.started - self.enqueued

    def remaining(self, now: float) -> float:
        """Seconds it still expects to search."""
        if self.started is None:
            left = self.request.expected_s
        else:
            ran = (self.paused_at if self.paused_at is not None else now) - self.started - self.paused_s
            left = max(0.0, self.request.expected_s - ran)
        if self.ends_at is not None:
            left = min(left, max(0.0, self.ends_at - now))
        return left

    def __repr__(self) -> str:
        return f"<Ticket {self.number} {self.klass} {self.state} {self.request.client!r}>"


class SearchScheduler:
    """The search slots, their two queues, pausing, and the memory budget.

    Args:
        slots: search threads growing trees at once.
        per_client: searches of one client at once (0: no limit).
        max_queue: searches of one class waiting at once.
        max_wait_s: longest wait for a slot.
        per_client_interactive: interactive searches of one client at once
            (0: no limit); more run as background.
        memory: the memory budget (None: none).
        clock: the clock (monotonic seconds).
        poll_s: how often a waiting thread looks at its stop flag.
    """

    def __init__(self, slots: int, per_client: int = 0, max_queue: int = 4, max_wait_s: float = 10.0,
                 per_client_interactive: int = 0, memory: MemoryBudget | None = None,
                 clock: Callable[[], float] = time.monotonic, poll_s: float = 0.05):
        self.limit = slots
        self.per_client = per_client
        self.max_queue = max_queue
        self.max_wait_s = max_wait_s
        self.per_client_interactive = per_client_interactive
        self.memory = memory
        self.clock = clock
        self.poll_s = poll_s
        # reentrant: the counts below lock it too, and are read under it (wait_for's conditions)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._numbers = itertools.count()
        self._queues: dict[str, deque[Ticket]] = {k: deque() for k in CLASSES}
        self._active: dict[int, Ticket] = {}  # admitted, not yet released
        self.stopping = False
        #: counts since the start: searches paused for an interactive one,
        #: refusals by class and cause
        self.preemptions = 0
        self.refusals = {k: dict.fromkeys(CAUSES, 0) for k in CLASSES}
        #: called (under the scheduler's lock: be quick) with each ticket that starts
        self.on_start: list[Callable[[Ticket], None]] = []
        if memory is not None:  # memory given back may let a waiting search start
            memory.on_release = self.poke

    # --- what there is -----------------------------------------------------------

    @property
    def running(self) -> int:
        """Searches holding slots now (paused ones do not)."""
        with self._lock:
            return sum(t.state == RUNNING for t in self._active.values())

    @property
    def running_threads(self) -> int:
        """Slots taken now: the threads of the running searches (never more than ``limit``)."""
        with self._lock:
            return self._taken()

    @property
    def paused(self) -> int:
        """Searches paused now."""
        with self._lock:
            return sum(t.state == PAUSED for t in self._active.values())

    @property
    def active(self) -> int:
        """Searches admitted and not ended: running, paused or finishing."""
        with self._lock:
            return len(self._active)

    def queued(self, klass: str | None = None) -> int:
        """Searches waiting now (of one class, or of both)."""
        with self._lock:
            return sum(len(q) for k, q in self._queues.items() if klass in (None, k))

    def wait_for(self, condition: Callable[[SearchScheduler], bool], timeout: float | None = None) -> bool:
        """Waits until ``condition(self)`` holds; False if ``timeout`` seconds
        pass first. (For tests and tools that must know what the scheduler
        did, instead of polling it.)"""
        with self._changed:
            return self._changed.wait_for(lambda: condition(self), timeout)

    def wait_running(self, count: int, timeout: float | None = None) -> bool:
        """Waits until exactly ``count`` searches are admitted and not ended
        (running, paused or finishing); False if ``timeout`` seconds pass first."""
        return self.wait_for(lambda s: s.active == count, timeout)

    def poke(self) -> None:
        """Looks at the queues again now (after the clock moved, memory was freed)."""
        with self._lock:
            self._dispatch(self.clock())

    # --- admission ----------------------------------------------------------------

    def check(self, request: Request) -> None:
        """Refuses at once when ``request`` would be refused at once now
        (cheap: call it before reading a large request).

        Raises:
            errors.ApiError: RESOURCE_EXHAUSTED, with a retry-after hint.
        """
        with self._lock:
            now = self.clock()
            self._admissible(request, self._class_of(request), now, self._latest_start(request, now))

    def submit(self, request: Request) -> Ticket:
        """Queues a search (it starts at once when it can); its ticket.

        Raises:
            errors.ApiError: RESOURCE_EXHAUSTED when it cannot wait (refused at once).
        """
        with self._lock:
            now = self.clock()
            klass = self._class_of(request)
            latest = self._latest_start(request, now)
            self._admissible(request, klass, now, latest)
            ticket = Ticket(next(self._numbers), request, klass, now, latest, self._slots_of(request))
            self._queues[klass].append(ticket)
            self._dispatch(now)
            if ticket.state == REFUSED:
                assert ticket.error is not None
                raise ticket.error
            return ticket

    def wait(self, ticket: Ticket) -> None:
        """Waits until ``ticket`` may search (it starts, or it is let through
        because its search was stopped).

        Raises:
            errors.ApiError: RESOURCE_EXHAUSTED when its latest start passed first.
        """
        with self._lock:
            while ticket.state == QUEUED:
                self._changed.wait(max(0.0, min(self.poll_s, ticket.latest_start - self.clock())))
                self._dispatch(self.clock(), quiet=True)
            if ticket.state == REFUSED:
                assert ticket.error is not None
                raise ticket.error

    def acquire(self, request: Request) -> Ticket:
        """:meth:`submit` and :meth:`wait`: a ticket that may search now;
        :meth:`release` it when the search ends."""
        ticket = self.submit(request)
        try:
            self.wait(ticket)
        except BaseException:
            self.release(ticket)
            raise
        return ticket

    @contextmanager
    def slot(self, request: Request | None = None) -> Iterator[Ticket]:
        """Holds an admitted ticket for the body (see :meth:`acquire`)."""
        ticket = self.acquire(request or Request())
        try:
            yield ticket
        finally:
            self.release(ticket)

    def release(self, ticket: Ticket) -> None:
        """Ends a ticket (its search ended, or it never started): its slot and
        memory go to the searches that wait."""
        with self._lock:
            queue = self._queues[ticket.klass]
            if ticket in queue:
                queue.remove(ticket)
            self._active.pop(ticket.number, None)
            if ticket.state != REFUSED:
                ticket.state = DONE
            reservation, ticket.reservation = ticket.reservation, None
        if reservation is not None and self.memory is not None:
            self.memory.release(reservation)  # outside the lock: it calls on_release
        self.poke()

    def on_pause(self, ticket: Ticket) -> None:
        """The paused search's ``on_pause``, in its searching thread: waits
        until the search may go on (resumed), or must end (stopped, or its
        time budget spent, when it finishes without a slot)."""
        with self._lock:
            while ticket.state == PAUSED:
                now = self.clock()
                stop = ticket.request.stop
                over = ticket.ends_at is not None and now >= ticket.ends_at
                if over or self.stopping or (stop is not None and stop.is_set()):
                    self._account_pause(ticket, now)
                    ticket.state = FINISHING
                    ticket.pause.clear()  # the trees see the stop or the time next
                    self._changed.notify_all()
                    break
                wait = self.poll_s if ticket.ends_at is None else min(self.poll_s, ticket.ends_at - now)
                self._changed.wait(max(0.0, wait))

    def stop_all(self) -> None:
        """Stops every running or paused search (each ends at once with the
        best it has), refuses the waiting ones and any that comes from now on
        with UNAVAILABLE (a shutdown's last step: their clients retry elsewhere)."""
        with self._lock:
            self.stopping = True
            for ticket in self._active.values():
                if ticket.request.stop is not None:
                    ticket.request.stop.set()
            self._dispatch(self.clock())

    # --- inside (the lock held) ----------------------------------------------------

    def _slots_of(self, request: Request) -> int:
        """The slots a search takes: one a thread, at most all of them (so it can start alone)."""
        return max(1, min(request.threads, self.limit))

    def _taken(self) -> int:
        return sum(t.slots for t in self._active.values() if t.state == RUNNING)

    def _class_of(self, request: Request) -> str:
        """The class it runs at: interactive unless asked otherwise, or past
        its client's interactive searches."""
        if request.klass != INTERACTIVE or not self.per_client_interactive:
            return request.klass
        mine = sum(t.klass == INTERACTIVE and t.request.client == request.client
                   for t in self._tickets())
        return INTERACTIVE if mine < self.per_client_interactive else BACKGROUND

    def _tickets(self) -> Iterator[Ticket]:
        yield from self._active.values()
        for queue in self._queues.values():
            yield from queue

    def _latest_start(self, request: Request, now: float) -> float:
        latest = now + self.max_wait_s
        if request.reply_by is not None:
            latest = min(latest, request.reply_by - request.expected_s)
        return latest

    def _admissible(self, request: Request, klass: str, now: float, latest: float) -> None:
        """Raises the refusal of a search that could not wait now."""
        client = request.client
        if self.per_client and sum(t.request.client == client for t in self._tickets()) >= self.per_client:
            ends = [now + t.remaining(now) for t in self._active.values() if t.request.client == client]
            self.refusals[klass][CLIENT_LIMIT] += 1
            raise replace(errors.resource_exhausted(
                f"this client ({client}) already runs or waits for its maximum of {self.per_client} "
                "searches at once; wait for one to end", retry_after_s=_retry(min(ends, default=now) - now),
                cause=CLIENT_LIMIT, klass=klass), reason=ErrorReason.TOO_MANY_CLIENT_SEARCHES)
        if self.stopping:
            raise _shutting_down()
        if request.stop is not None and request.stop.is_set():
            return  # let through: it ends at once
        slots = self._slots_of(request)
        if self._can_start(klass, slots):
            return
        start = self._estimate_start(klass, now, slots)
        if len(self._queues[klass]) >= self.max_queue:
            self.refusals[klass][QUEUE_FULL] += 1
            raise errors.resource_exhausted(
                f"every search slot is taken and {len(self._queues[klass])} {klass} searches wait "
                f"already (the most that may); retry in {_retry(start - now):.2g} s or ask another "
                "replica", retry_after_s=_retry(start - now), cause=QUEUE_FULL, klass=klass)
        if start > latest:
            self.refusals[klass][WAIT_TOO_LONG] += 1
            raise errors.resource_exhausted(
                f"every search slot is taken: this {klass} search would start in about "
                f"{start - now:.2g} s, {_too_late(request, latest, now, self.max_wait_s)}; retry in "
                f"{_retry(start - now):.2g} s or ask another replica",
                retry_after_s=_retry(start - now), cause=WAIT_TOO_LONG, klass=klass)

    def _can_start(self, klass: str, slots: int = 1) -> bool:
        """Whether a search of ``klass`` taking ``slots`` arriving now would
        start at once (its slots are free, or for an interactive one
        background searches can be paused, that no search ahead of it takes
        first)."""
        free = self.limit - self._taken()
        if klass == INTERACTIVE:
            free += sum(t.slots for t in self._active.values()
                        if t.state == RUNNING and t.klass == BACKGROUND)
            return free - sum(t.slots for t in self._queues[INTERACTIVE]) >= slots
        ahead = sum(t.slots for t in self._active.values() if t.state == PAUSED)
        ahead += sum(t.slots for t in self._queues[BACKGROUND])
        return not self._queues[INTERACTIVE] and free - ahead >= slots

    def _estimate_start(self, klass: str, now: float, slots: int = 1) -> float:
        """When a search of ``klass`` taking ``slots`` arriving now would
        start: each slot frees when its running search expects to end (at
        once, for an interactive search, when it runs a background one), then
        takes the searches ahead (queued interactive ones; for a background
        search also the paused ones and the queued background ones), first
        come, first served; a search starts when its last slot is free."""
        frees = []
        for t in self._active.values():
            if t.state == RUNNING:
                preemptible = klass == INTERACTIVE and t.klass == BACKGROUND
                frees += [now if preemptible else now + t.remaining(now)] * t.slots
        frees += [now] * max(0, self.limit - len(frees))
        heapq.heapify(frees)
        ahead = list(self._queues[INTERACTIVE])
        if klass == BACKGROUND:
            ahead += sorted((t for t in self._active.values() if t.state == PAUSED),
                            key=lambda t: t.paused_at or 0.0)
            ahead += self._queues[BACKGROUND]
        for t in ahead:
            start = max(heapq.heappop(frees) for _ in range(t.slots))
            for _ in range(t.slots):
                heapq.heappush(frees, start + t.remaining(now))
        return max(heapq.nsmallest(slots, frees))

    def _dispatch(self, now: float, quiet: bool = False) -> None:
        """Starts, pauses, resumes and refuses what the state now says, and wakes
        the waiters; `quiet`: wakes them only when a ticket moved (a waiter's own
        look must not wake every other waiter, which would look in turn)."""
        moved = 0
        for queue in self._queues.values():
            for t in list(queue):
                stop = t.request.stop
                if self.stopping:
                    queue.remove(t)
                    t.state, t.error = REFUSED, _shutting_down()
                    moved += 1
                elif stop is not None and stop.is_set():
                    queue.remove(t)
                    self._let_through(t, now)
                    moved += 1
        free = self.limit - self._taken()
        interactive = self._queues[INTERACTIVE]
        while interactive:
            head = interactive[0]
            victims: list[Ticket] = []
            if free < head.slots:  # the newest background searches first
                freed = free
                for t in sorted((t for t in self._active.values()
                                 if t.state == RUNNING and t.klass == BACKGROUND),
                                key=lambda t: (t.started or 0.0, t.number), reverse=True):
                    victims.append(t)
                    freed += t.slots
                    if freed >= head.slots:
                        break
                if freed < head.slots:
                    break
            if not self._reserve(head):  # before a pause, which would not help
                break
            for victim in victims:
                self._pause(victim, now)
                free += victim.slots
            self._start(interactive.popleft(), now)
            free -= head.slots
            moved += 1
        if not interactive:
            for t in sorted((t for t in self._active.values() if t.state == PAUSED),
                            key=lambda t: (t.paused_at or 0.0, t.number)):
                if free < t.slots:
                    break
                self._resume(t, now)
                free -= t.slots
                moved += 1
            background = self._queues[BACKGROUND]
            while background and free >= background[0].slots and self._reserve(background[0]):
                free -= background[0].slots
                self._start(background.popleft(), now)
                moved += 1
        for klass, queue in self._queues.items():
            for t in list(queue):
                if now >= t.latest_start:
                    queue.remove(t)
                    self._refuse_late(t, klass, now)
                    moved += 1
        if moved or not quiet:
            self._changed.notify_all()

    def _reserve(self, ticket: Ticket) -> bool:
        if self.memory is None or ticket.request.need is None:
            return True
        ticket.reservation = self.memory.reserve(ticket.request.need)
        return ticket.reservation is not None

    def _start(self, ticket: Ticket, now: float) -> None:
        ticket.state = RUNNING
        ticket.started = now
        ends = [e for e in (None if ticket.request.time_s is None else now + ticket.request.time_s,
                            ticket.request.reply_by) if e is not None]
        ticket.ends_at = min(ends) if ends else None
        self._active[ticket.number] = ticket
        for hook in self.on_start:
            hook(ticket)

    def _let_through(self, ticket: Ticket, now: float) -> None:
        """A stopped search that waited: it may run its first step without a
        slot (it ends there) and answer."""
        ticket.state = FINISHING
        ticket.started = now
        if self.memory is not None and ticket.request.need is not None:
            ticket.reservation = Reservation(MIN_TREE_NODES, 0)  # a root and nothing more
        self._active[ticket.number] = ticket

    def _pause(self, ticket: Ticket, now: float) -> None:
        ticket.state = PAUSED
        ticket.paused_at = now
        ticket.pause.set()
        self.preemptions += 1

    def _resume(self, ticket: Ticket, now: float) -> None:
        self._account_pause(ticket, now)
        ticket.state = RUNNING
        ticket.pause.clear()

    @staticmethod
    def _account_pause(ticket: Ticket, now: float) -> None:
        if ticket.paused_at is not None:
            ticket.paused_s += now - ticket.paused_at
            ticket.paused_at = None

    def _refuse_late(self, ticket: Ticket, klass: str, now: float) -> None:
        """A waiting search whose latest start has come: refused, with when to retry."""
        ticket.state = REFUSED
        self.refusals[klass][WAIT_TOO_LONG] += 1
        retry = _retry(self._estimate_start(klass, now) - now)
        why = _too_late(ticket.request, ticket.latest_start, ticket.enqueued, self.max_wait_s)
        ticket.error = errors.resource_exhausted(
            f"every search slot stayed taken: this {klass} search waited {now - ticket.enqueued:.2g} s "
            f"and could not start in time ({why}); retry in {retry:.2g} s or ask another replica",
            retry_after_s=retry, cause=WAIT_TOO_LONG, klass=klass)


def _shutting_down() -> errors.ApiError:
    return errors.ApiError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down: retry at "
                           "another replica", ErrorReason.SHUTTING_DOWN)


def _retry(seconds: float) -> float:
    """A retry-after hint: ``seconds`` within [MIN_RETRY_S, MAX_RETRY_S], rounded up to 10 ms."""
    return min(MAX_RETRY_S, max(MIN_RETRY_S, math.ceil(seconds * 100) / 100))


def _too_late(request: Request, latest: float, since: float, max_wait_s: float) -> str:
    """Why a start at ``latest`` is the last one: the deadline or the longest wait."""
    if request.reply_by is not None and latest < since + max_wait_s:
        return (f"too late for the call's deadline with the {request.expected_s:.2g} s it expects "
                "to search")
    return f"later than the server's longest wait of {max_wait_s:g} s"
