"""Searches at a lower CPU priority than the threads that answer RPCs.

Why: a search keeps a core busy for its whole budget. When searches hold every
core, the quick work (ListLegalActions, ApplyAction, health, and refusing one
search too many with RESOURCE_EXHAUSTED) would otherwise wait behind them for
the kernel's next time slice, several milliseconds each time. At a lower
priority the searches give way at once and lose only the little CPU time that
quick work takes; their time budgets still hold, since they end by the clock.

Linux lets a thread lower its own priority but, without CAP_SYS_NICE, not
raise it again; so the trees of each search run in short-lived threads that
lower themselves first (:func:`run_all_at`, the search's runner; about 0.1 ms
per thread). Only the trees' GIL-free work runs there: a low-priority thread
holding the GIL would stall every RPC thread waiting for it (priority
inversion), so the search's Python work stays in the RPC thread. Elsewhere
than Linux every priority runs as "normal".

Priorities:
    idle: SCHED_IDLE, the search runs only when nothing else wants a core.
    low: nice 19 (SCHED_OTHER), still a small share of a busy core.
    normal: unchanged.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, wait
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

PRIORITIES = ("idle", "low", "normal")
DEFAULT_PRIORITY = "idle"
LOW_NICE = 19

SUPPORTED = hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE")


def lower_this_thread(priority: str) -> None:
    """Lowers the calling thread (only it: Linux schedules threads one by one)."""
    if priority == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif priority == "low":
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_NICE)
    elif priority != "normal":
        raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {priority!r}")


def start_at(priority: str, work: Callable[[], T], name: str = "") -> Future[T]:
    """Starts ``work()`` in a new thread of the given priority; its future.

    Raises:
        ValueError: an unknown priority.
    """
    if priority not in PRIORITIES:
        raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    future: Future[T] = Future()

    def body() -> None:
        future.set_running_or_notify_cancel()
        try:
            if SUPPORTED:
                lower_this_thread(priority)
            future.set_result(work())
        except BaseException as error:  # noqa: BLE001 - the caller's future raises it
            future.set_exception(error)

    threading.Thread(target=body, name=name or f"cacao-search-{priority}", daemon=True).start()
    return future


def run_all_at(priority: str, jobs: Sequence[Callable[[], object]]) -> None:
    """Runs every job in a thread of its own at the given priority; returns when all
    have returned, raising the first job's exception if any failed.

    This is a search runner (``cacaoai.search.search(runner=...)``): only the
    trees' GIL-free work runs at the lower priority.
    """
    running = [start_at(priority, job) for job in jobs]
    wait(running)
    for future in running:
        future.result()
