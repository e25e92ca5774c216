"""Prometheus metrics of a server: calls, errors, latency, searches, search slots.

The call metrics follow the names of go-grpc-prometheus, so the usual gRPC
dashboards read them:

- ``grpc_server_handled_total{grpc_service, grpc_method, grpc_code}``: finished
  calls by status code (errors are the codes other than OK; calls still running
  are not counted);
- ``grpc_server_handling_seconds{grpc_service, grpc_method}``: latency histogram;

and the search adds:

- ``cacao_search_iterations{grpc_method}`` and ``cacao_search_seconds{grpc_method}``:
  histograms of each finished search (the final evaluation of a call);
- ``cacao_search_slots_in_use`` and ``cacao_search_slots``: searches running now
  and the ``--max-searches`` limit (read from the search gate at scrape time);
- ``cacao_search_refusals_total{grpc_method}``: search calls refused with
  RESOURCE_EXHAUSTED because every slot was taken (and they could not wait);
- the scheduler's queues (read from it at scrape time, but the wait times):
  ``cacao_search_queue_length{class}`` searches waiting now,
  ``cacao_search_queue_wait_seconds{class}`` a histogram of each started
  search's wait for a slot, ``cacao_search_queue_refusals_total{class, cause}``
  refusals by cause (``queue_full``, ``wait_too_long``, ``client_limit``),
  ``cacao_search_paused`` background searches paused now and
  ``cacao_search_preemptions_total`` how often one was paused for an
  interactive search;
- the memory budget: ``cacao_memory_budget_bytes`` and
  ``cacao_memory_reserved_bytes`` (what running and paused searches reserved
  for their trees; the tree cache holds at most the rest);
- ``cacao_tree_cache_hits_total`` and ``cacao_tree_cache_misses_total``:
  searches with the tree cache that did or did not find a tree to continue;
  ``cacao_tree_cache_bytes``, ``cacao_tree_cache_max_bytes`` and
  ``cacao_tree_cache_trees``: what it keeps now (read at scrape time; absent
  with ``--tree-cache-mb 0``).

Each server has its own registry, so several servers in one process (tests)
never mix their counts. :meth:`Metrics.serve` exposes ``/metrics`` over HTTP.

Thread-safety: prometheus_client's metrics are thread-safe; :meth:`Metrics.__call__`
is the call hook and runs in the RPC threads.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from cacaoai.api.methods import SEARCHES

from .observe import CallRecord

#: Latency buckets, seconds: quick calls (~1 ms) up to long searches (60 s).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0)
#: Wait buckets, seconds: none (a free slot) up to the longest wait.
WAIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0, 30.0)
#: Iteration buckets: beginner (~100) up to the 2,000,000 default limit.
ITERATION_BUCKETS = (10, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000,
                     2_000_000)

_LABELS = ("grpc_service", "grpc_method")


class Metrics:
    """The metrics of one server, fed by the call hook and read from its search gate.

    Args:
        gate: the server's search gate (``running`` and ``limit`` are read at scrape time).
        registry: where the metrics live (default: a new registry of their own).
        trees: the server's tree cache (its ``stats()`` are read at scrape time).
    """

    def __init__(self, gate: Any = None, registry: CollectorRegistry | None = None,
                 trees: Any = None):
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.handled = Counter("grpc_server_handled", "Calls finished, by status code.",
                               (*_LABELS, "grpc_code"), registry=r)
        self.latency = Histogram("grpc_server_handling_seconds",
                                 "Time from a call's arrival to its end.", _LABELS,
                                 buckets=LATENCY_BUCKETS, registry=r)
        self.iterations = Histogram("cacao_search_iterations", "Iterations of each finished search.",
                                    ("grpc_method",), buckets=ITERATION_BUCKETS, registry=r)
        self.search_seconds = Histogram("cacao_search_seconds", "Time of each finished search.",
                                        ("grpc_method",), buckets=LATENCY_BUCKETS, registry=r)
        self.refusals = Counter("cacao_search_refusals",
                                "Search calls refused because every search slot was taken.",
                                ("grpc_method",), registry=r)
        self.http_port: int | None = None
        self._http: Any = None
        if gate is not None:
            Gauge("cacao_search_slots_in_use", "Searches running now (paused ones hold no slot).",
                  registry=r).set_function(lambda: gate.running)
            Gauge("cacao_search_slots", "Searches allowed at once (--max-searches).",
                  registry=r).set_function(lambda: gate.limit)
            Gauge("cacao_search_paused", "Background searches paused now for interactive ones.",
                  registry=r).set_function(lambda: gate.paused)
            self.queue_wait = Histogram("cacao_search_queue_wait_seconds",
                                        "Time each started search waited for a slot.", ("class",),
                                        buckets=WAIT_BUCKETS, registry=r)
            gate.on_start.append(lambda ticket: self.queue_wait.labels(ticket.klass).observe(
                ticket.queued_s))
            r.register(_SchedulerCollector(gate))
        if trees is not None:
            r.register(_TreeCacheCollector(trees))

    def __call__(self, call: CallRecord) -> None:
        """The call hook: counts and times one finished call."""
        labels = (call.service, call.method)
        self.handled.labels(*labels, call.code).inc()
        self.latency.labels(*labels).observe(call.seconds)
        if call.method in SEARCHES:
            if call.code == "RESOURCE_EXHAUSTED":
                self.refusals.labels(call.method).inc()
            elif call.iterations:
                self.iterations.labels(call.method).observe(call.iterations)
                self.search_seconds.labels(call.method).observe(call.search_seconds)

    def exposition(self) -> bytes:
        """The metrics in Prometheus' text format (what ``/metrics`` answers)."""
        return generate_latest(self.registry)

    def serve(self, host: str, port: int) -> int:
        """Serves ``/metrics`` over HTTP on a daemon thread; returns the bound port."""
        self._http, _thread = start_http_server(port, addr=host, registry=self.registry)
        self.http_port = self._http.server_address[1]
        return self.http_port

    def close(self) -> None:
        """Stops the HTTP endpoint, if any."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None


class _SchedulerCollector(Collector):
    """The scheduler's queues, pauses, refusals and memory, read at scrape time."""

    def __init__(self, gate: Any):
        self.gate = gate

    def collect(self) -> Any:
        gate = self.gate
        length = GaugeMetricFamily("cacao_search_queue_length", "Searches waiting for a slot now.",
                                   labels=("class",))
        refusals = CounterMetricFamily("cacao_search_queue_refusals",
                                       "Searches refused because they could not wait for a slot.",
                                       labels=("class", "cause"))
        for klass, causes in gate.refusals.items():
            length.add_metric((klass,), gate.queued(klass))
            for cause, count in causes.items():
                refusals.add_metric((klass, cause), count)
        yield length
        yield refusals
        yield CounterMetricFamily("cacao_search_preemptions",
                                  "Background searches paused for an interactive search.",
                                  value=gate.preemptions)
        if gate.memory is not None:
            yield GaugeMetricFamily("cacao_memory_budget_bytes",
                                    "Memory for every search tree (--memory-budget-mb).",
                                    value=gate.memory.budget_bytes)
            yield GaugeMetricFamily("cacao_memory_reserved_bytes",
                                    "Memory reserved by running and paused searches' trees.",
                                    value=gate.memory.reserved)


class _TreeCacheCollector(Collector):
    """The tree cache's figures, read from its ``stats()`` at scrape time."""

    def __init__(self, trees: Any):
        self.trees = trees

    def collect(self) -> Any:
        stats = self.trees.stats()
        for name, text in (("hits", "Searches that continued a kept tree."),
                           ("misses", "Searches with the tree cache that found no tree.")):
            yield CounterMetricFamily(f"cacao_tree_cache_{name}", text, value=stats[name])
        for name, key, text in (("bytes", "bytes", "Memory of the trees kept now."),
                                ("max_bytes", "max_bytes", "The cache's limit now (--tree-cache-mb, "
                                 "within what the searches leave of --memory-budget-mb)."),
                                ("trees", "trees", "Trees kept now.")):
            yield GaugeMetricFamily(f"cacao_tree_cache_{name}", text, value=stats[key])
