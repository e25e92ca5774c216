"""Run independent tasks (games) in this process, a pool of local processes, or on Ray.

:func:`run_tasks` hands out at most `window` tasks at a time and yields the
results as they finish, so a caller that stops early (the SPRT) leaves little
work behind: closing the iterator ends the pool. Finishing order depends on
the machine; callers that want the same results for a seed order them
themselves (by game).
"""

from __future__ import annotations

import multiprocessing
import queue
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["run_tasks"]


def run_tasks(fn: Callable[[Any], Any], tasks: Iterable[Any], processes: int = 1,
              ray_address: str | None = None, window: int | None = None) -> Iterator[Any]:
    """Yield ``fn(task)`` for each task, in finishing order.

    Args:
        fn: a module-level function (sent to other processes by name).
        tasks: read only as tasks are handed out.
        processes: local worker processes (1: run in this process, in order).
        ray_address: run as Ray tasks on this cluster instead ("local" starts
            a one-machine cluster, stopped afterwards; "auto"; "ray://...").
        window: most tasks handed out and not yet finished (default: twice
            the processes; unbounded on Ray unless given).
    """
    if ray_address:
        yield from _ray(fn, tasks, ray_address, window)
    elif processes <= 1:
        yield from map(fn, tasks)
    else:
        yield from _local(fn, tasks, processes, window or 2 * processes)


def _local(fn: Callable[[Any], Any], tasks: Iterable[Any], processes: int, window: int) -> Iterator[Any]:
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    done: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    pending = iter(tasks)
    with ctx.Pool(processes) as pool:       # leaving the block terminates the pool
        running = 0
        exhausted = False
        while True:
            while not exhausted and running < window:
                try:
                    task = next(pending)
                except StopIteration:
                    exhausted = True
                    break
                pool.apply_async(fn, (task,), callback=lambda r: done.put((True, r)),
                                 error_callback=lambda e: done.put((False, e)))
                running += 1
            if running == 0:
                return
            ok, value = done.get()
            running -= 1
            if not ok:
                raise value
            yield value


def _ray(fn: Callable[[Any], Any], tasks: Iterable[Any], address: str, window: int | None) -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'cacaoai[ray]'") from None
    started = not ray.is_initialized()
    running: list[Any] = []
    if started:
        ray.init(address=None if address == "local" else address, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    try:
        remote = ray.remote(fn)
        pending_tasks = iter(tasks)
        exhausted = False
        while True:
            while not exhausted and (window is None or len(running) < window):
                try:
                    running.append(remote.remote(next(pending_tasks)))
                except StopIteration:
                    exhausted = True
            if not running:
                return
            ready, running = ray.wait(running, num_returns=1)
            yield ray.get(ready[0])
    finally:
        for ref in running:                 # a caller that stopped early: drop the rest
            ray.cancel(ref)
        if started:
            ray.shutdown()
