"""One memory budget for every search tree: the trees of the running (and
paused) searches plus the tree cache.

A search tree grows by about one node an iteration and takes at most
``BYTES_PER_NODE`` bytes a node (88 for the node, its edge in its parent's
block of children, the pools' spare capacity and the copy made when a tree
doubles; measured: 164-168 bytes a node at the top of a tree, BENCHMARKS.md),
plus ``TREE_BYTES`` of buffers. A tree stops growing at its ``max_nodes`` and
the search goes on with playouts from its leaves, so ``max_nodes`` bounds a
tree's memory. The budget works with that bound:

- **At admission** a search reserves ``threads × tree_bytes(max_nodes)`` (one
  tree a thread), with ``max_nodes`` from what it needs (its iterations, or
  its time at a fast speed) within a cap per search (the budget over twice the
  slots: a slot's running search and one paused behind an interactive search
  fit together), and from what is left of the budget. A request that must stay
  deterministic (a seed and an iteration budget) gets exactly what it needs or
  waits; another one takes less when less is left.
- **A search that continues and keeps trees** (tree reuse) grows its trees to
  the cap (``max_nodes`` is the cap, so that trees are kept and found under one
  key: the key holds ``max_nodes``), but reserves only what it grows: the nodes
  it needs, and the trees it takes from the cache, at ``BYTES_PER_NODE`` a node,
  when it takes them (their bytes leave the cache and join its reservation, and
  the cache shrinks for the spare capacity they may take as they grow). For a
  time budget this relies on ``FAST_ITERATIONS_PER_SECOND`` being above the
  machine's speed (250,000 a thread; the project's machine does 56,000-188,000).
- **The tree cache** holds what the reservations leave (and at most
  ``--tree-cache-mb``): each reservation shrinks it, evicting the least
  recently used trees; each release lets it grow. A search that keeps its
  trees hands its reservation over to them when it puts them in the cache.

So the reserved bytes plus the cache's bytes never exceed the budget. The
server's base memory (the interpreter, gRPC, buffers of calls) comes on top;
:func:`pod_memory_mib` is the arithmetic of the Kubernetes manifest.

glibc returns freed large blocks to the system only when they were mapped on
their own; its default threshold for that grows with every large block freed,
after which freed trees stay in the process as fragments (RSS crept up to
793 MiB under a cancel storm). :func:`tune_malloc` fixes the threshold.

Thread-safety: :class:`MemoryBudget` and :class:`BudgetCache` are thread-safe.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from cacaoai.search import SearchSettings, TreeCache

MIB = 2**20
#: Upper bound of a tree's bytes a node at its largest (measured 164-168).
BYTES_PER_NODE = 180
#: A tree's buffers and first pools (measured 1.17 MiB).
TREE_BYTES = 1_310_720
#: The search's own limit of a tree's nodes.
MAX_TREE_NODES = SearchSettings().max_nodes
#: The smallest max_nodes given for a need (every level's iterations fit in it),
#: so that small searches share one tree-cache key.
MIN_TREE_NODES = 65_536
#: The smallest max_nodes a search is shrunk to when memory is short.
FLOOR_TREE_NODES = 4_096
#: Iterations a second of one thread, above any measured speed: a time
#: budget's tree is sized at this speed, so that it is never cut short.
FAST_ITERATIONS_PER_SECOND = 250_000
#: glibc's mallopt parameter for the mmap threshold, and the threshold set.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 512 * 1024

#: The Kubernetes arithmetic (docs/operations.md, "Memory"): the server's base
#: RSS (measured 69 MiB at rest with the model, its HTTP side and metrics)
#: rounded up, and the headroom for what the accounting leaves out
#: (Python objects of the calls, messages up to --max-message-bytes, malloc's
#: own overhead).
BASE_RSS_MIB = 80
HEADROOM_FRACTION = 0.25


def tree_bytes(nodes: int) -> int:
    """Most bytes a tree of ``nodes`` nodes takes."""
    return TREE_BYTES + nodes * BYTES_PER_NODE


def nodes_within(nbytes: float) -> int:
    """Most nodes of a tree that fits in ``nbytes`` (0 if none)."""
    return max(0, int((nbytes - TREE_BYTES) // BYTES_PER_NODE))


def _steps() -> list[int]:
    """The sizes max_nodes takes: 2**k and 1.5 * 2**k, up to the search's own limit."""
    steps: list[int] = []
    k = 12
    while True:
        for size in (2**k, 3 * 2 ** (k - 1)):
            if size >= MAX_TREE_NODES:
                return [*steps, MAX_TREE_NODES]
            steps.append(size)
        k += 1


STEPS = _steps()


def step_up(nodes: int) -> int:
    """The smallest step of at least ``nodes`` (and MIN_TREE_NODES)."""
    return next(s for s in STEPS if s >= max(nodes, MIN_TREE_NODES) or s == MAX_TREE_NODES)


def step_down(nodes: int) -> int:
    """The largest step of at most ``nodes`` (0 below the smallest step)."""
    return max((s for s in STEPS if s <= nodes), default=0)


def least_budget_mb(slots: int) -> int:
    """The smallest budget, in MiB, for ``slots`` searches at once (each with
    a tree of FLOOR_TREE_NODES, twice: running and paused)."""
    return math.ceil(2 * slots * tree_bytes(FLOOR_TREE_NODES) / MIB)


def pod_memory_mib(budget_mb: int) -> int:
    """The memory a server process needs with ``--memory-budget-mb``: its base
    RSS, the budget, and a quarter of the budget for what the accounting
    leaves out, in MiB (the Kubernetes manifest's request and limit)."""
    return BASE_RSS_MIB + budget_mb + math.ceil(HEADROOM_FRACTION * budget_mb)


@dataclass(frozen=True)
class Need:
    """What a search asks of the budget.

    Attributes:
        nodes: nodes one of its trees grows with its whole budget
            (iterations a tree + 1, or its time at FAST_ITERATIONS_PER_SECOND).
        threads: its trees, one a thread.
        exact: it must get ``nodes`` (up to the cap) or wait: a seeded
            search with an iteration budget gives the same answer only with
            the same max_nodes.
        reuse: it continues and keeps trees: its max_nodes is the cap, the
            one under which trees are kept, and it reserves ``nodes`` (and
            the trees it takes from the cache, when it takes them).
    """

    nodes: int
    threads: int = 1
    exact: bool = False
    reuse: bool = False


@dataclass
class Reservation:
    """Bytes taken from the budget for one search and the max_nodes of its trees."""

    max_nodes: int
    nbytes: int
    released: bool = False


class MemoryBudget:
    """The budget: reservations of running searches, and the tree cache in
    what they leave.

    Args:
        budget_bytes: the bound of the trees and the cache together.
        slots: searches running at once (the cap of one search is
            budget / (2 × slots)).
        cache_bytes: the cache's own limit (``--tree-cache-mb``); 0: no cache.
        on_release: called (without a lock held) when bytes are given back,
            so that a search waiting for memory is looked at again.

    Raises:
        ValueError: a budget too small for a tree of FLOOR_TREE_NODES per slot.
    """

    def __init__(self, budget_bytes: int, slots: int, cache_bytes: int = 0,
                 on_release: Callable[[], None] = lambda: None):
        if budget_bytes < least_budget_mb(slots) * MIB:
            raise ValueError(
                f"a memory budget of {budget_bytes / MIB:g} MiB is too small for {slots} searches "
                f"at once: give at least {least_budget_mb(slots)} MiB")
        self.budget_bytes = budget_bytes
        self.slots = slots
        self.cache_bytes = cache_bytes
        self.cap_bytes = budget_bytes // (2 * slots)
        self.on_release = on_release
        self._lock = threading.Lock()
        self._reserved = 0
        self._local = threading.local()
        self.cache: BudgetCache | None = BudgetCache(self._cache_limit(), self) if cache_bytes else None

    @property
    def reserved(self) -> int:
        """Bytes reserved by searches now."""
        return self._reserved

    def tree_cap(self, threads: int = 1) -> int:
        """Most nodes of one tree of a search with ``threads`` trees."""
        return min(step_down(nodes_within(self.cap_bytes / threads)), MAX_TREE_NODES)

    def _cache_limit(self) -> int:
        return max(0, min(self.cache_bytes, self.budget_bytes - self._reserved))

    def reserve(self, need: Need) -> Reservation | None:
        """Takes the memory of a search now: its max_nodes and bytes; None
        when too little is left (for an exact need: less than it needs)."""
        threads = max(1, need.threads)
        cap = self.tree_cap(threads)
        # (max_nodes, nodes reserved a tree): a reusing search grows to the cap, reserves its need
        want, grows = (cap, min(need.nodes, cap)) if need.reuse else (min(step_up(need.nodes), cap),) * 2
        with self._lock:
            left = self.budget_bytes - self._reserved
            if threads * tree_bytes(grows) > left:
                if need.exact:
                    return None
                want = grows = step_down(nodes_within(left / threads))
                if want < FLOOR_TREE_NODES:
                    return None
            reservation = Reservation(want, threads * tree_bytes(grows))
            self._reserved += reservation.nbytes
            if self.cache is not None:
                self.cache.resize(self._cache_limit())
        return reservation

    def release(self, reservation: Reservation | None) -> None:
        """Gives a reservation back (once; later calls do nothing)."""
        with self._lock:
            if reservation is None or reservation.released:
                return
            reservation.released = True
            self._reserved -= reservation.nbytes
            if self.cache is not None:
                self.cache.resize(self._cache_limit())
        self.on_release()

    @contextmanager
    def holding(self, reservation: Reservation | None) -> Iterator[None]:
        """Marks ``reservation`` as the calling thread's for the body: trees
        this thread puts into the cache take its place."""
        self._local.reservation = reservation
        try:
            yield
        finally:
            self._local.reservation = None

    def hand_over(self) -> None:
        """The calling thread's search puts its trees in the cache: its
        reservation ends (the trees now count as the cache's)."""
        self.release(getattr(self._local, "reservation", None))

    def take_over(self, nodes: int, trees: int) -> None:
        """The calling thread's search took ``trees`` trees of ``nodes`` nodes
        in all from the cache: they count as its reservation now, at
        BYTES_PER_NODE a node (the spare capacity they may take as they
        grow), and the cache shrinks to fit."""
        reservation = getattr(self._local, "reservation", None)
        if reservation is None or reservation.released:
            return
        extra = nodes * BYTES_PER_NODE + trees * TREE_BYTES
        with self._lock:
            reservation.nbytes += extra
            self._reserved += extra
            if self.cache is not None:
                self.cache.resize(self._cache_limit())


class BudgetCache(TreeCache):
    """A TreeCache whose limit is what the running searches leave of the budget."""

    def __init__(self, max_bytes: int, budget: MemoryBudget):
        super().__init__(max_bytes)
        self.budget = budget

    def take(self, key: bytes) -> list | None:
        trees = super().take(key)
        if trees:  # they leave the cache for the search that continues them
            self.budget.take_over(sum(tree.nodes for tree in trees), len(trees))
        return trees

    def put(self, key: bytes, trees: list) -> None:
        for tree in trees:  # to their final size before their reservation ends
            tree.compact()
        self.budget.hand_over()
        super().put(key, trees)


_tuned = False


def tune_malloc() -> bool:
    """Fixes glibc's mmap threshold (once per process), so that every large
    block (a tree's pools) is mapped on its own and its memory goes back to
    the system when it is freed; False where that cannot be done."""
    global _tuned
    if _tuned:
        return True
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        _tuned = bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
    except (OSError, AttributeError):  # not glibc
        _tuned = False
    return _tuned
