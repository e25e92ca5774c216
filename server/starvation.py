"""Whether timed searches may run at a low CPU priority: :class:`StarvationGuard`.

A search thread at "idle" (SCHED_IDLE) or "low" (nice 19) yields a core at
once to every thread that answers calls, so that under overload health,
refusals and rules calls are not kept waiting by searches. Its cost shows
only when other busy processes share the cores: then such a thread may not
run for long stretches, and a search with a time budget cannot stop on time
(a 0.2 s search took 1.6 s next to four busy processes). The guard watches
for exactly that: a timed search at a low priority that ends more than
``late_s`` after its budget. From then on timed searches run at "reduced"
(nice 5, whose share never drops to nothing) for ``hold_s``, doubled (up to
``max_hold_s``) each time a low-priority search is late again right after a
hold, and reset once one keeps its time.

Thread-safe: search threads report, request handlers ask.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("cacaoai.server")

LOW_PRIORITIES = ("low", "idle")
LATE_S = 0.25         # a timed search this late at a low priority was starved of the CPU
HOLD_S = 5.0          # how long timed searches then run at "reduced" (doubled while it lasts)
MAX_HOLD_S = 600.0


class StarvationGuard:
    """Decides, from how late recent low-priority timed searches ended,
    whether timed searches must run at "reduced" for now."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, late_s: float = LATE_S,
                 hold_s: float = HOLD_S, max_hold_s: float = MAX_HOLD_S):
        self._clock, self.late_s, self.min_hold_s, self.max_hold_s = clock, late_s, hold_s, max_hold_s
        self._lock = threading.Lock()
        self._until = float("-inf")  # timed searches run at "reduced" until then
        self._hold = hold_s          # the next hold's length
        self.holds = 0               # how many holds there were

    def starved(self) -> bool:
        """True while timed searches must not run at a low priority."""
        return self._clock() < self._until

    def observe(self, priority: str, late_s: float) -> None:
        """Takes a timed search's end: the priority it ran at and how long
        after its time budget it ended (negative: before)."""
        if priority not in LOW_PRIORITIES:
            return
        with self._lock:
            now = self._clock()
            if now < self._until:  # started before the hold: already counted
                return
            if late_s <= self.late_s:
                self._hold = self.min_hold_s
                return
            self._until = now + self._hold
            hold, self._hold = self._hold, min(self._hold * 2, self.max_hold_s)
            self.holds += 1
        log.warning("a timed search at CPU priority %r ended %.0f ms after its budget: other "
                    "processes keep the cores busy, so timed searches run at 'reduced' for %.0f s",
                    priority, late_s * 1000, hold)
