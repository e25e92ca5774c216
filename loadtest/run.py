"""Run the Cacao load test in one command and summarise it.

    python loadtest/run.py --users 4 --duration 30s            # own server on a free port
    python loadtest/run.py --users 1 --weights suggest_short=1,suggest_normal=0,legal=0,apply=0
    python loadtest/run.py --overload                          # 16 users against 2 search slots
    python loadtest/run.py --users 4 --host 127.0.0.1:50051    # a server that is already running
    python loadtest/run.py --users 4 --replicas 2 --max-searches 1 --workers 2
                            # nginx + 2 replicas (cacao-replicas), locust master + 2 workers
    python loadtest/run.py --users 2 --analyses 2 --weights suggest_short=1,suggest_normal=0,legal=0,apply=0
                            # moves while background analyses fill every search slot

Steps: start ``cacao-server`` on a free loopback port (unless ``--host`` names
one; with ``--replicas N``, nginx in front of N replicas by
``cacao-replicas``, each with ``--max-searches`` slots), wait until its health
check says SERVING, run locust headless on
``loadtest/locustfile.py`` as a subprocess (``--headless -u -r -t --csv
--only-summary``; with ``--workers N`` in locust's distributed mode: a
``--master`` and N ``--worker`` processes on loopback) while sampling the server's CPU time from ``/proc/PID/stat``
and probing its health every second (under overload ten times a second, with a
50 ms suggestion from a plain client each time; with ``--analyses N``, N
background analyses run back to back beside locust, each stopped at the end
and checked to give its final report), then probe it once more (health and a
50 ms suggestion) after the load has stopped, stop it with SIGTERM, and write

    OUT/locust_stats.csv, locust_failures.csv, ...   locust's own CSV files
    OUT/raw.<pid>.csv      one line per request, exact latency in microseconds
    OUT/summary.json       the summary printed as a table at the end
    OUT/server.log, OUT/locust.log

Percentiles come from the raw latencies (locust rounds below 100 ms), of
the calls that start after the first ``--warmup`` second (clients
connecting, first calls filling the server's caches: counted and printed
apart; their failures still count), and the plain client's probes of the
same window.
RESOURCE_EXHAUSTED answers to SuggestAction are *rejections*: counted
separately, with their own latencies. They are expected with ``--overload`` (or
``--allow-rejections``) and failures otherwise. DEADLINE_EXCEEDED answers are
also counted as *timeouts*.

Exit status 0 only when every request succeeded (rejections aside where
allowed), locust ran cleanly, and the server answered its health check and a
suggestion after the load. Only loopback targets are accepted.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import numpy as np
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cacaoai.client import CacaoClient, CacaoClientError, Limit
from cacaoai.client.local import LocalServer, ServiceProcess, StartError, free_port, stop_process
from cacaoai.engine import core
from cacaoai.server.options import ServerOptions

HERE = Path(__file__).resolve().parent
REPLICAS = [sys.executable, "-m", "cacaoai.deploy.replicas"]  # cacao-replicas
LOCUSTFILE = HERE / "locustfile.py"
POSITIONS = HERE / "positions.jsonl"
WEIGHT_KEYS = ("suggest_short", "suggest_normal", "legal", "apply", "review")
DEFAULT_WEIGHTS = "suggest_short=3,suggest_normal=1,legal=4,apply=4,review=0.2"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+$")


# --- settings ------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="loadtest/run.py", description="Load-test the Cacao gRPC service with locust.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--users", "-u", type=int, default=None,
                        help="simulated users (default 4; 16 with --overload)")
    parser.add_argument("--spawn-rate", "-r", type=float, default=None,
                        help="users started per second (default: all at once)")
    parser.add_argument("--duration", "-t", default="30s", help="run time, locust's form (30s, 2m)")
    parser.add_argument("--host", default=None,
                        help="target host:port of a running server (loopback only); "
                             "default: start one on a free port")
    parser.add_argument("--out", default=None,
                        help="output folder (default loadtest/out/<time>-u<users>)")
    parser.add_argument("--overload", action="store_true",
                        help="more users than search slots: rejections are expected "
                             "(default 16 users, --max-searches 2)")
    parser.add_argument("--allow-rejections", action="store_true",
                        help="count RESOURCE_EXHAUSTED as expected rejections, not failures")
    parser.add_argument("--client-cpus", type=parse_cpus, default=None, metavar="LIST",
                        help="run the load generator (locust and the plain client) on these "
                             "CPUs only (taskset's form: 1 or 0,2-3), so that it does not take "
                             "the cores the server answers on; the server keeps every CPU. "
                             "Default: the generator shares every core")
    server = parser.add_argument_group("the server started here")
    server.add_argument("--replicas", type=int, default=0,
                        help="start nginx in front of this many replicas (cacao-replicas) "
                             "and load that; 0: one server, no nginx")
    server.add_argument("--balance", default="least_conn", choices=("least_conn", "round_robin"),
                        help="nginx's balancing method with --replicas")
    server.add_argument("--max-searches", type=int, default=None,
                        help="searches at once, per replica (default: the server's own, the "
                             "usable cores; 2 with --overload)")
    server.add_argument("--max-queue", type=int, default=None,
                        help="searches that may wait, a priority class, per replica (default: "
                             "the number of users, so that a closed loop waits instead of being "
                             "refused; the server's own, 4, with --overload)")
    server.add_argument("--search-threads", type=int, default=1, help="threads per search")
    server.add_argument("--search-priority", default="idle", choices=("idle", "low", "reduced", "normal"),
                        help="CPU priority of searches against the RPC threads")
    server.add_argument("--worker-threads", type=int, default=None,
                        help="threads that run the handlers (default: the server's own, "
                             "enough for every search slot and queue place)")
    traffic = parser.add_argument_group("traffic (passed to the locustfile)")
    traffic.add_argument("--suggest-short-ms", type=float, default=50.0)
    traffic.add_argument("--suggest-normal-ms", type=float, default=500.0)
    traffic.add_argument("--weights", default=DEFAULT_WEIGHTS,
                         help=f"operation weights, keys {', '.join(WEIGHT_KEYS)}")
    traffic.add_argument("--warmup", type=float, default=1.0,
                         help="seconds from the first call whose calls the latency figures "
                              "leave out (clients connecting, caches filling); counted apart")
    traffic.add_argument("--think-ms", type=float, default=0.0,
                         help="pause of a user between calls (0: closed loop)")
    traffic.add_argument("--reject-backoff-ms", type=float, default=100.0,
                         help="pause of a user after a rejection")
    traffic.add_argument("--processes", type=int, default=None,
                         help="locust worker processes (-1: one per core; default: one for "
                              f"every {USERS_PER_PROCESS} users)")
    traffic.add_argument("--workers", type=int, default=0,
                         help="locust's distributed mode: a master and this many worker "
                              "processes (0: one locust process, or --processes)")
    traffic.add_argument("--retries", type=int, default=0,
                         help="retries of the client library's retry policy in locust's users "
                              "(0: one request is one RPC)")
    traffic.add_argument("--seeded", action="store_true", help="give every suggestion a seed")
    traffic.add_argument("--analyses", type=int, default=0,
                         help="background analyses running back to back during the load, "
                              "each stopped at the end (they fill the search slots)")
    traffic.add_argument("--analysis-s", type=float, default=30.0,
                         help="time budget of each background analysis, seconds")
    traffic.add_argument("--positions", default=str(POSITIONS))
    args = parser.parse_args(argv)
    args.users = args.users or (16 if args.overload else 4)
    args.spawn_rate = args.spawn_rate or float(args.users)
    defaults = ServerOptions()
    if args.max_searches is None:
        args.max_searches = 2 if args.overload else defaults.max_searches
    if args.max_queue is None:
        args.max_queue = defaults.max_queue if args.overload else max(args.users, defaults.max_queue)
    args.allow_rejections = args.allow_rejections or args.overload
    args.duration_s = parse_duration(args.duration)
    args.weight_values = parse_weights(args.weights)
    if args.users < 1 or args.spawn_rate <= 0:
        parser.error("--users and --spawn-rate must be positive")
    if args.warmup < 0:
        parser.error(f"--warmup: {args.warmup:g} seconds is negative (0: every call counts)")
    if args.processes is None:
        args.processes = 1 if args.workers else -(-args.users // USERS_PER_PROCESS)
    if args.workers and args.processes != 1:
        parser.error("--workers and --processes are two ways to the same end: give one")
    if args.client_cpus is not None:
        usable = os.sched_getaffinity(0)
        if not args.client_cpus <= usable:
            parser.error(f"--client-cpus: CPU {min(args.client_cpus - usable)} is not one this "
                         f"process may use ({format_cpus(usable)})")
        if args.client_cpus == usable:
            parser.error(f"--client-cpus: {format_cpus(usable)} is every CPU this process may use: "
                         "the generator would still share every core")
    if args.host and args.replicas:
        parser.error("--host loads a running server; --replicas starts its own: give one")
    if args.host and not LOOPBACK.match(args.host):
        parser.error(f"--host {args.host}: only loopback targets (127.x.x.x:PORT, localhost:PORT)")
    return args


def parse_duration(text: str) -> float:
    """Seconds of a locust run time: "30s", "2m", "1h30m", "45"."""
    if re.fullmatch(r"\d+", text):
        return float(text)
    parts = re.findall(r"(\d+)\s*([hms])", text)
    if not parts or "".join(n + u for n, u in parts) != text.replace(" ", ""):
        raise argparse.ArgumentTypeError(f"bad duration {text!r}: use 30s, 2m or 1h30m")
    return float(sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts))


def parse_cpus(text: str) -> set[int]:
    """CPU numbers in taskset's list form: "1", "0,2", "2-3"."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            first, last = int(low), int(high if dash else low)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a CPU list (such as 1 or 0,2-3)") from None
        if first < 0 or last < first:
            raise argparse.ArgumentTypeError(f"{text!r}: {part.strip()!r} is not a CPU or a rising range")
        cpus.update(range(first, last + 1))
    return cpus


def format_cpus(cpus: set[int]) -> str:
    """``cpus`` in taskset's list form."""
    return ",".join(str(c) for c in sorted(cpus))


@contextlib.contextmanager
def confined(cpus: set[int] | None) -> Iterator[None]:
    """Every thread of this process on ``cpus`` (processes started meanwhile
    inherit them), as before on leaving; None: nothing changes. (Linux sets
    a CPU affinity thread by thread.)"""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)

    def pin(mask: set[int]) -> None:
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
                os.sched_setaffinity(int(task), mask)

    pin(cpus)
    try:
        yield
    finally:
        pin(before)


def parse_weights(text: str) -> dict[str, float]:
    weights = dict(kv.split("=", 1) for kv in text.replace(" ", "").split(",") if kv)
    unknown = set(weights) - set(WEIGHT_KEYS)
    if unknown:
        raise SystemExit(f"--weights: unknown {', '.join(sorted(unknown))}; "
                         f"keys are {', '.join(WEIGHT_KEYS)}")
    return {key: float(weights.get(key, 0)) for key in WEIGHT_KEYS}


#: Users a locust process runs by default. One process's gevent loop with
#: many calls outstanding (searches waiting for a slot) delays every call's
#: timing: at 16 users in one process, ListLegalActions the server answered in
#: 4 ms p50 (a plain client beside it) took 130 ms as locust timed it.
USERS_PER_PROCESS = 4


# --- the server ----------------------------------------------------------------

def server_flags(args: argparse.Namespace) -> list[str]:
    """The cacao-server flags of a replica started here."""
    flags = ["--max-searches", str(args.max_searches), "--max-queue", str(args.max_queue),
             "--search-threads", str(args.search_threads),
             "--search-priority", args.search_priority]
    return flags + (["--worker-threads", str(args.worker_threads)] if args.worker_threads else [])


class Server:
    """A cacao-server subprocess on a free loopback port (with ``--replicas``:
    cacao-replicas, nginx in front of that many; ``pid`` is then the
    script's, whose process tree holds nginx and the replicas), its output
    in ``OUT/server.log``.

    Raises:
        StartError: it exited, or did not serve within 30 s.
    """

    def __init__(self, args: argparse.Namespace, out: Path):
        self.log = open(out / "server.log", "w")
        try:
            if args.replicas:
                command = [*REPLICAS, "--replicas", str(args.replicas),
                           "--port", "0", "--balance", args.balance, "--", *server_flags(args)]
                self.process = ServiceProcess(command, r"nginx pid \d+ on (\S+)",
                                              name="cacao-replicas", log=self.log.write,
                                              timeout=30.0)
                self.address = self.process.ready.group(1)
            else:
                self.process = LocalServer(*server_flags(args), log=self.log.write, timeout=30.0)
                self.address = self.process.address
        except StartError:
            self.log.close()
            raise
        self.command = self.process.command
        self.pid = self.process.pid

    def stop(self, grace: float = 15.0) -> int:
        """SIGTERM, then SIGKILL after ``grace`` seconds; returns the exit status."""
        code = self.process.stop(grace)
        self.log.close()
        return code


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process so far, from /proc/PID/stat.

    With ``pid`` None: the busy time of the whole machine, from /proc/stat.
    """
    if pid is None:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
        return (sum(ticks[:8]) - ticks[3] - ticks[4]) / CLOCK_TICKS  # all but idle, iowait
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def steal_seconds() -> float:
    """CPU time the hypervisor gave other guests while this machine's CPUs
    wanted to run (the steal column of /proc/stat), in seconds so far."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return ticks[7] / CLOCK_TICKS if len(ticks) > 7 else 0.0


def process_tree(pid: int) -> list[int]:
    """``pid`` and its live descendants (locust's worker processes), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    tree = [pid]
    for member in tree:
        tree.extend(children.get(member, []))
    return tree


class CpuSampler(threading.Thread):
    """Samples a process's (or with None the machine's) CPU time while running.

    With ``tree``, the process's live descendants count too.
    """

    def __init__(self, pid: int | None, interval: float = 0.5, tree: bool = False,
                 peers: list[int] | None = None):
        super().__init__(daemon=True)
        self.pid, self.interval, self.tree = pid, interval, tree
        self.peers = peers or []
        self.samples: list[tuple[float, float]] = []
        self.done = threading.Event()

    def run(self) -> None:
        children: dict[int, float] = {}  # last CPU time seen of each child, kept after it exits
        while not self.done.is_set():
            cpu = cpu_seconds(self.pid)
            if cpu is None:
                return
            if self.tree and self.pid is not None:
                others = [p for peer in self.peers for p in process_tree(peer)]
                for child in process_tree(self.pid)[1:] + others:
                    children[child] = cpu_seconds(child) or children.get(child, 0.0)
                cpu += sum(children.values())
            self.samples.append((time.time(), cpu))
            self.done.wait(self.interval)

    def summary(self, start: float, end: float) -> dict[str, Any]:
        """CPU% (100 = one core) over [start, end]: mean, and peak over 1 s windows."""
        inside = [(t, c) for t, c in self.samples if start <= t <= end]
        if len(inside) < 2:
            return {"samples": len(inside)}
        (t0, c0), (t1, c1) = inside[0], inside[-1]
        peaks = []
        step = max(1, int(round(1.0 / self.interval)))
        for (ta, ca), (tb, cb) in zip(inside, inside[step:], strict=False):
            peaks.append(100 * (cb - ca) / (tb - ta))
        return {"samples": len(inside), "mean_percent": round(100 * (c1 - c0) / (t1 - t0), 1),
                "peak_1s_percent": round(max(peaks), 1) if peaks else None,
                "seconds_above_100_percent": round(sum(p > 100 for p in peaks) * self.interval, 1)}


class HealthProber(threading.Thread):
    """Asks the server's health and a position's legal actions every
    ``interval`` s; with ``suggest`` also for a suggestion.

    The calls come from a plain client outside the locust process, so their
    latencies (admitted or rejected) carry no queueing inside locust's event
    loop: a reference for the locust figures. The suggestions take a search
    slot, so they are only asked where rejections are expected (overload).
    """

    def __init__(self, address: str, positions: str, budget_s: float, suggest: bool,
                 interval: float = 1.0):
        super().__init__(daemon=True)
        self.address, self.interval, self.budget_s = address, interval, budget_s
        self.suggest = suggest
        with open(positions) as f:
            self.samples = [json.loads(line)["observation"] for line in f if line.strip()]
        # (when it started, unix seconds; its status; ms)
        self.results: list[tuple[float, str, float]] = []
        self.legal: list[tuple[float, float]] = []
        self.suggestions: list[tuple[float, str, float]] = []
        self.done = threading.Event()

    def run(self) -> None:
        strength = Limit(time_s=self.budget_s)
        with grpc.insecure_channel(self.address) as channel, CacaoClient(
                self.address, retries=0, timeout=5.0) as client:
            n = 0
            while not self.done.wait(self.interval):
                self.results.append((time.time(), *health_check(channel)))
                sample = self.samples[n % len(self.samples)]
                n += 1
                when, begin = time.time(), time.perf_counter()
                try:
                    client.legal_actions(sample)
                    self.legal.append((when, (time.perf_counter() - begin) * 1000))
                except CacaoClientError:  # not timed: the health series shows an outage
                    pass
                if not self.suggest:
                    continue
                when, begin = time.time(), time.perf_counter()
                try:
                    client.suggest(sample, strength, timeout=self.budget_s + 5)
                    status = "OK"
                except CacaoClientError as error:
                    status = error.code.name
                self.suggestions.append((when, status, (time.perf_counter() - begin) * 1000))

    def summary(self, start: float = 0.0, end: float = float("inf")) -> dict[str, Any]:
        """The probes that started between ``start`` and ``end`` (unix seconds)."""
        results = [(status, ms) for when, status, ms in self.results if start <= when <= end]
        legal = [ms for when, ms in self.legal if start <= when <= end]
        suggestions = [(status, ms) for when, status, ms in self.suggestions if start <= when <= end]
        latencies = [ms for status, ms in results if status == "SERVING"]
        out: dict[str, Any] = {
            "probes": len(results), "serving": len(latencies), "p50_ms": _pct(latencies, 50),
            "p99_ms": _pct(latencies, 99), "max_ms": round(max(latencies), 2) if latencies else None,
            "legal_actions": {"n": len(legal), "p50_ms": _pct(legal, 50), "p99_ms": _pct(legal, 99),
                              "max_ms": round(max(legal), 2) if legal else None}}
        for status in sorted({s for s, _ in suggestions}):
            ms = [m for s, m in suggestions if s == status]
            out[f"suggest_{status.lower()}"] = {"n": len(ms), "p50_ms": _pct(ms, 50),
                                                "p95_ms": _pct(ms, 95), "p99_ms": _pct(ms, 99),
                                                "max_ms": round(max(ms), 2)}
        return out


class BackgroundAnalyses:
    """``count`` analyses (AnalyzePosition started by Analyze, background
    priority) running back to back on sampled positions until :meth:`stop`,
    which stops the running ones: each must still end with one final report."""

    def __init__(self, address: str, positions: str, count: int, budget_s: float):
        from cacaoai.api import convert
        from cacaoai.api.cacao.v1 import cacao_pb2 as pb
        from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc

        self.pb = pb
        with open(positions) as f:
            self.samples = [convert.position_from_json(json.loads(line)["observation"])
                            for line in f if line.strip()]
        self.budget_s = budget_s
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.CacaoServiceStub(self.channel)
        self.done = threading.Event()
        self.finals: list[Any] = []
        self.errors: dict[str, int] = {}
        self.missing_final = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(count)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def _run(self, index: int) -> None:
        pb = self.pb
        n = index
        while not self.done.is_set():
            request = pb.AnalyzePositionRequest(position=self.samples[n % len(self.samples)])
            request.limits.time.FromNanoseconds(int(self.budget_s * 1e9))
            request.report_interval.FromNanoseconds(500_000_000)
            n += len(self.threads)

            def messages() -> Any:
                yield pb.AnalyzeRequest(start=request)  # noqa: B023 - used before the next loop
                self.done.wait()
                yield pb.AnalyzeRequest(stop=pb.StopAnalysis())

            finals = []
            try:
                for report in self.stub.Analyze(messages(), timeout=self.budget_s + 60):
                    if report.evaluation.final:
                        finals.append(report.evaluation)
            except grpc.RpcError as error:
                with self.lock:
                    self.errors[error.code().name] = self.errors.get(error.code().name, 0) + 1
                self.done.wait(0.1)
                continue
            with self.lock:
                self.finals += finals
                self.missing_final += len(finals) != 1

    def stop(self) -> dict[str, Any]:
        self.done.set()
        for thread in self.threads:
            thread.join(self.budget_s + 90)
        self.channel.close()
        by = [f.stopped_by for f in self.finals]
        return {"analyses": len(self.threads), "finished": len(self.finals),
                "stopped_by": {k: by.count(k) for k in sorted(set(by))},
                "without_one_final_report": self.missing_final, "errors": self.errors,
                "iterations": sum(f.iterations for f in self.finals),
                "paused_s": round(sum(f.paused.ToNanoseconds() for f in self.finals) / 1e9, 2),
                "queued_s": round(sum(f.queued.ToNanoseconds() for f in self.finals) / 1e9, 2)}


def health_check(channel: grpc.Channel, timeout: float = 2.0) -> tuple[str, float]:
    """(status name, milliseconds) of one grpc.health.v1 Check of the whole server."""
    stub = health_pb2_grpc.HealthStub(channel)
    begin = time.perf_counter()
    try:
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    except grpc.RpcError as error:
        status = error.code().name
    return status, (time.perf_counter() - begin) * 1000


def wait_until_serving(address: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    with grpc.insecure_channel(address) as channel:
        while time.monotonic() < deadline:
            if health_check(channel, timeout=1.0)[0] == "SERVING":
                return
            time.sleep(0.1)
    raise RuntimeError(f"{address} is not SERVING after {timeout:g} s")


def probe_cores(seconds: float = 0.5) -> dict[str, Any]:
    """Random games of the rules core on every usable CPU at once (a thread
    each; the core releases the GIL), just before the load: the machine's
    throughput with every core busy, which on a shared machine moves from
    one hour to the next while one quiet call's latency stays the same."""
    rates: list[float] = []

    def play() -> None:
        games, spent = 0, 0.0
        while spent < seconds:
            elapsed, _ = core.bench_random_games(2, 500, games + 1)
            games, spent = games + 500, spent + elapsed
        rates.append(games / spent)

    threads = [threading.Thread(target=play) for _ in os.sched_getaffinity(0)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"cpus": len(rates), "kgames_per_s": round(statistics.mean(rates) / 1000, 1),
            "lowest_kgames_per_s": round(min(rates) / 1000, 1)}


def probe_before(address: str, calls: int = 300) -> dict[str, Any]:
    """Health checks one at a time on the quiet server, just before the load:
    its unloaded latency at the time of the run, beside the cores' throughput
    (:func:`probe_cores`)."""
    times = []
    with grpc.insecure_channel(address) as channel:
        for i in range(calls + calls // 10):
            status, ms = health_check(channel)
            if status != "SERVING":
                return {"calls": 0, "status": status}
            if i >= calls // 10:  # the first tenth warms the channel up
                times.append(ms)
    return {"calls": len(times), "p50_ms": _pct(times, 50), "p99_ms": _pct(times, 99)}


def probe_after(address: str, positions: str, budget_s: float) -> dict[str, Any]:
    """Health, then one suggestion, right after the load stopped: the recovery."""
    with grpc.insecure_channel(address) as channel:
        status, health_ms = health_check(channel)
    with open(positions) as f:
        sample = json.loads(next(line for line in f if line.strip()))
    begin = time.perf_counter()
    try:
        with CacaoClient(address, retries=0, timeout=5.0) as client:
            client.suggest(sample["observation"], Limit(time_s=budget_s), timeout=budget_s + 5)
        suggest = "OK"
    except CacaoClientError as error:
        suggest = error.code.name
    return {"health": status, "health_ms": round(health_ms, 2), "suggest": suggest,
            "suggest_ms": round((time.perf_counter() - begin) * 1000, 2)}


# --- locust --------------------------------------------------------------------

def locust_commands(args: argparse.Namespace, address: str, out: Path) -> list[list[str]]:
    """The locust command, or with ``--workers`` the master's and then each worker's."""
    # let a user finish its call in flight (the longest search) when the time is up
    stop_timeout = int(max(args.suggest_short_ms, args.suggest_normal_ms) / 1000) + 2
    command = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless",
        "-u", str(args.users), "-r", f"{args.spawn_rate:g}", "-t", args.duration,
        "--csv", str(out / "locust"), "--only-summary", "--host", address,
        "--stop-timeout", f"{stop_timeout}s", "--exit-code-on-error", "1", *traffic_flags(args, out)]
    if args.processes != 1:
        command += ["--processes", str(args.processes)]
    if not args.workers:
        return [command]
    port = str(free_port())
    master = [*command, "--master", "--expect-workers", str(args.workers),
              "--master-bind-host", "127.0.0.1", "--master-bind-port", port]
    worker = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--worker",
              "--master-host", "127.0.0.1", "--master-port", port, *traffic_flags(args, out)]
    return [master] + [worker] * args.workers


def traffic_flags(args: argparse.Namespace, out: Path) -> list[str]:
    """The locustfile's own flags (every locust process, master or worker, gets them)."""
    w = args.weight_values
    return [
        "--positions", args.positions, "--raw-latencies", str(out / "raw.csv"),
        "--suggest-short-ms", f"{args.suggest_short_ms:g}",
        "--suggest-normal-ms", f"{args.suggest_normal_ms:g}",
        "--weight-suggest-short", f"{w['suggest_short']:g}",
        "--weight-suggest-normal", f"{w['suggest_normal']:g}",
        "--weight-legal", f"{w['legal']:g}", "--weight-apply", f"{w['apply']:g}",
        "--weight-review", f"{w['review']:g}",
        "--think-ms", f"{args.think_ms:g}", "--reject-backoff-ms", f"{args.reject_backoff_ms:g}",
        "--retries", str(args.retries), *(["--seeded"] if args.seeded else []),
    ]


def run_locust(commands: list[list[str]], out: Path,
               duration_s: float) -> tuple[int, float, float, CpuSampler]:
    """Runs locust (the first command; any others are its workers) to its end (bounded).

    Returns:
        (exit status of the first, start, end in Unix time, the CPU samples of
        locust and its workers).
    """
    start = time.time()
    with open(out / "locust.log", "w") as log:
        processes = [subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                      cwd=HERE.parent) for command in commands]
        # with --processes the workers are the first one's children; with --workers, its peers
        sampler = CpuSampler(processes[0].pid, tree=True, peers=[p.pid for p in processes[1:]])
        sampler.start()
        try:
            code = processes[0].wait(duration_s + 90)
        except subprocess.TimeoutExpired:
            code = -1
        for process in processes:  # workers quit with their master; stop any that did not
            stop_process(process, 10.0)
    end = time.time()
    sampler.done.set()
    return code, start, end, sampler


# --- the summary ---------------------------------------------------------------

def _pct(values: list[float] | np.ndarray, q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if len(values) else None


def read_raw(out: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(glob.glob(str(out / "raw.*.csv"))):
        with open(path) as f:
            rows.extend(csv.DictReader(f))
    return rows


def summarise(rows: list[dict[str, Any]], allow_rejections: bool,
              warmup_s: float = 0.0) -> dict[str, Any]:
    """Per RPC name: counts, rate, exact percentiles, rejections and failures,
    of the calls that started after the first ``warmup_s`` seconds (all of
    them when none did); the warm-up's calls are counted apart, and their
    failures count too."""
    if not rows:
        return {"requests": 0, "window_s": 0.0, "rpcs": {}, "failures": 0, "rejections": 0,
                "timeouts": 0}
    first = min(float(r["start_unix_s"]) for r in rows)
    early = [r for r in rows if float(r["start_unix_s"]) < first + warmup_s]
    steady = [r for r in rows if float(r["start_unix_s"]) >= first + warmup_s] or rows
    if steady is rows:
        early = []
    warmup = {"s": warmup_s, "requests": len(early),
              "failures": sum(r["status"] not in ("OK", "RESOURCE_EXHAUSTED") or
                              (r["status"] == "RESOURCE_EXHAUSTED" and not allow_rejections)
                              for r in early),
              "max_ms": round(max(int(r["latency_us"]) for r in early) / 1000, 2) if early else None}
    rows = steady
    starts = np.array([float(r["start_unix_s"]) for r in rows])
    ends = starts + np.array([int(r["latency_us"]) for r in rows]) / 1e6
    window = float(ends.max() - starts.min()) or 1e-9
    rpcs: dict[str, Any] = {}
    totals = {"failures": 0, "rejections": 0, "timeouts": 0}
    for name in sorted({r["name"] for r in rows}):
        mine = [r for r in rows if r["name"] == name]
        ok = np.array([int(r["latency_us"]) / 1000 for r in mine if r["status"] == "OK"])
        rejected = np.array([int(r["latency_us"]) / 1000 for r in mine
                             if r["status"] == "RESOURCE_EXHAUSTED"])
        by_status: dict[str, int] = {}
        for r in mine:
            if r["status"] != "OK":
                by_status[r["status"]] = by_status.get(r["status"], 0) + 1
        failed = sum(n for s, n in by_status.items()
                     if not (allow_rejections and s == "RESOURCE_EXHAUSTED"))
        iterations = [int(r["iterations"]) for r in mine if r["iterations"]]
        rpcs[name] = {
            "requests": len(mine), "ok": len(ok), "failed": failed,
            "rejected": len(rejected), "timeouts": by_status.get("DEADLINE_EXCEEDED", 0),
            "statuses": by_status,
            "per_s": round(len(mine) / window, 2), "ok_per_s": round(len(ok) / window, 2),
            "p50_ms": _pct(ok, 50), "p95_ms": _pct(ok, 95), "p99_ms": _pct(ok, 99),
            "max_ms": round(float(ok.max()), 2) if len(ok) else None,
            "mean_iterations": round(float(np.mean(iterations))) if iterations else None,
            "rejected_p50_ms": _pct(rejected, 50), "rejected_p99_ms": _pct(rejected, 99),
            "rejected_max_ms": round(float(rejected.max()), 2) if len(rejected) else None,
        }
        totals["failures"] += failed
        totals["rejections"] += len(rejected)
        totals["timeouts"] += rpcs[name]["timeouts"]
    totals["failures"] += warmup["failures"]
    return {"requests": len(rows), "window_s": round(window, 2), "warmup": warmup,
            "first_start": float(starts.min()), "last_end": float(ends.max()),
            "requests_per_s": round(len(rows) / window, 2), "rpcs": rpcs, **totals}


def locust_exceptions(out: Path) -> int:
    """Rows of locust's exceptions CSV: errors raised in the locustfile itself."""
    path = out / "locust_exceptions.csv"
    if not path.exists():
        return 0
    with open(path) as f:
        return sum(1 for _ in csv.DictReader(f))


#: What each column of the table after RPC says, printed under it (in the words of
#: docs/operations.md, "Load testing").
LEGEND = (
    ("reqs", "requests"),
    ("req/s", "requests a second"),
    ("p50 .. max ms", "latency of the requests answered OK, in ms (from the raw latencies: "
                      "locust rounds below 100 ms)"),
    ("fail", "failures: answers other than OK (refusals too, unless --overload or "
             "--allow-rejections)"),
    ("rej", "refusals: RESOURCE_EXHAUSTED answers, searches that could neither start nor wait"),
    ("rej p99", "p99 latency of the refusals, in ms"),
    ("iters", "iterations a search, the mean"),
)


def legend_lines() -> list[str]:
    """The legend of the table's columns: a line each."""
    width = max(len(name) for name, _ in LEGEND)
    return [f"  {name:<{width}}  {meaning}" for name, meaning in LEGEND]


def print_table(summary: dict[str, Any]) -> None:
    def cell(value: Any, fmt: str = "{:.1f}") -> str:
        return "-" if value is None else fmt.format(value)

    head = (f"{'RPC':<24}{'reqs':>7}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
            f"{'max ms':>9}{'fail':>6}{'rej':>6}{'rej p99':>9}{'iters':>8}")
    print(head)
    print("-" * len(head))
    for name, r in summary["load"]["rpcs"].items():
        print(f"{name:<24}{r['requests']:>7}{r['per_s']:>8.1f}{cell(r['p50_ms']):>9}"
              f"{cell(r['p95_ms']):>9}{cell(r['p99_ms']):>9}{cell(r['max_ms']):>9}"
              f"{r['failed']:>6}{r['rejected']:>6}{cell(r['rejected_p99_ms']):>9}"
              f"{cell(r['mean_iterations'], '{:.0f}'):>8}")
    load = summary["load"]
    print(f"{'all':<24}{load['requests']:>7}{load.get('requests_per_s', 0):>8.1f}"
          f"   over {load['window_s']} s; failures {load['failures']}, "
          f"rejections {load['rejections']}, timeouts {load['timeouts']}")
    warmup = load.get("warmup") or {}
    if warmup.get("requests"):
        print(f"warm-up: {warmup['requests']} requests in the first {warmup['s']:g} s, left out of "
              f"the figures above (slowest {cell(warmup['max_ms'])} ms)")
    print("\n".join(legend_lines()))
    cpu = summary.get("server_cpu") or {}
    if cpu.get("mean_percent") is not None:
        print(f"server CPU: mean {cpu['mean_percent']}%, peak {cpu['peak_1s_percent']}% "
              f"(100% = one core; {summary['machine']['cpus']} cores), "
              f"{cpu['seconds_above_100_percent']} s above 100%")
    client = summary.get("locust_cpu") or {}
    if client.get("mean_percent") is not None:
        cpus = summary["settings"].get("client_cpus")
        print(f"locust CPU: mean {client['mean_percent']}%, peak {client['peak_1s_percent']}% "
              + (f"(the load generator on CPU {cpus} only)" if cpus else
                 "(the load generator shares the cores)"))
    whole = summary.get("machine_cpu") or {}
    if whole.get("mean_percent") is not None:
        others = whole["mean_percent"] - (cpu.get("mean_percent") or 0) - (
            client.get("mean_percent") or 0)
        print(f"machine CPU: mean {whole['mean_percent']}%, of which other processes "
              f"about {max(others, 0):.0f}% (should be near 0 for a clean measurement)")
    steal = summary["machine"].get("steal_percent")
    if steal is not None:
        print(f"steal: {steal}% of a core went to other virtual machines while locust ran")
    cores = summary.get("cores_before_load") or {}
    if cores.get("cpus"):
        print(f"cores before load: {cores['kgames_per_s']}k random games/s a core with all "
              f"{cores['cpus']} busy (lowest {cores['lowest_kgames_per_s']}k; the machine's "
              "throughput at the time of the run)")
    quiet = summary.get("health_before_load") or {}
    if quiet.get("calls"):
        print(f"health before load, one call at a time: p50 {quiet['p50_ms']} ms, "
              f"p99 {quiet['p99_ms']} ms ({quiet['calls']} calls; the quiet server's latency "
              "at the time of the run)")
    during, after = summary["health_during_load"], summary["after_load"]
    print(f"health during load: {during['serving']}/{during['probes']} SERVING, "
          f"p50 {cell(during['p50_ms'])} ms, p99 {cell(during.get('p99_ms'))} ms, "
          f"max {cell(during['max_ms'])} ms")
    legal = during.get("legal_actions") or {}
    if legal.get("n"):
        print(f"ListLegalActions from outside locust: {legal['n']}, p50 {cell(legal['p50_ms'])} ms, "
              f"p99 {cell(legal['p99_ms'])} ms, max {cell(legal['max_ms'])} ms")
    probes = [f"{k[8:]} {v['n']} (p50 {cell(v['p50_ms'])} ms, p99 {cell(v['p99_ms'])} ms, "
              f"max {cell(v['max_ms'])} ms)"
              for k, v in during.items() if k.startswith("suggest_")]
    if probes:
        print("probe suggestions from outside locust: " + ", ".join(probes))
    background = summary.get("background_analyses")
    if background:
        print(f"background analyses: {background['finished']} finished "
              f"({background['stopped_by']}), paused {background['paused_s']} s in all, "
              f"{background['without_one_final_report']} without one final report, "
              f"errors {background['errors']}")
    print(f"after load: health {after.get('health')} in {after.get('health_ms')} ms, "
          f"suggestion {after.get('suggest')} in {after.get('suggest_ms')} ms")
    print(f"load average before/after: {summary['machine']['loadavg_before']} / "
          f"{summary['machine']['loadavg_after']}")
    print(("PASS" if summary["ok"] else "FAIL") + ": " + "; ".join(summary["verdict"]))


# --- main ----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tag = time.strftime("%Y%m%d-%H%M%S") + f"-u{args.users}" + ("-overload" if args.overload else "")
    out = Path(args.out or HERE / "out" / tag).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in glob.glob(str(out / "raw.*.csv")):
        os.remove(old)
    loadavg_before = [round(x, 2) for x in os.getloadavg()]
    try:
        server = Server(args, out) if args.host is None else None
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    address = server.address if server else args.host
    summary: dict[str, Any] = {}
    try:
        try:
            wait_until_serving(address)
        except RuntimeError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        cores = probe_cores()  # on every CPU, as the server runs
        with confined(args.client_cpus):  # the server started before: it keeps every CPU
            before = probe_before(address)
            # with --replicas: the script, nginx and every replica
            sampler = CpuSampler(server.pid, tree=bool(args.replicas)) if server else None
            machine = CpuSampler(None)
            prober = HealthProber(address, args.positions, args.suggest_short_ms / 1000,
                                  suggest=args.overload,
                                  interval=0.1 if args.overload else 0.25)
            machine.start()
            if sampler:
                sampler.start()
            prober.start()
            analyses = (BackgroundAnalyses(address, args.positions, args.analyses, args.analysis_s)
                        if args.analyses else None)
            if analyses:
                analyses.start()
            commands = locust_commands(args, address, out)
            print(f"load test: {args.users} users against {address} for {args.duration} "
                  f"(output in {out})", flush=True)
            stolen = steal_seconds()
            code, start, end, locust_sampler = run_locust(commands, out, args.duration_s)
            steal_percent = round(100 * (steal_seconds() - stolen) / max(end - start, 1e-9), 1)
            background = analyses.stop() if analyses else None
            prober.done.set()
            machine.done.set()
            if sampler:
                sampler.done.set()
            after = probe_after(address, args.positions, args.suggest_short_ms / 1000)
            load = summarise(read_raw(out), args.allow_rejections, args.warmup)
            # CPU use while requests were in flight (not locust's start-up and shut-down)
            start, end = load.get("first_start", start), load.get("last_end", end)
            summary = {
                "target": address,
                "settings": {
                    "users": args.users, "spawn_rate": args.spawn_rate, "duration": args.duration,
                    "suggest_short_ms": args.suggest_short_ms,
                    "suggest_normal_ms": args.suggest_normal_ms, "weights": args.weight_values,
                    "think_ms": args.think_ms, "reject_backoff_ms": args.reject_backoff_ms,
                    "overload": args.overload, "allow_rejections": args.allow_rejections,
                    "locust_processes": args.processes, "locust_workers": args.workers,
                    "retries": args.retries, "seeded": args.seeded,
                    "client_cpus": format_cpus(args.client_cpus) if args.client_cpus else None,
                    "analyses": args.analyses, "analysis_s": args.analysis_s,
                },
                "server": ({"command": server.command[1:], "pid": server.pid,
                            "replicas": args.replicas or 1,
                            "balance": args.balance if args.replicas else None,
                            "max_searches": args.max_searches, "max_queue": args.max_queue,
                            "search_threads": args.search_threads}
                           if server else {"external": True}),
                "machine": {"cpus": os.cpu_count(), "loadavg_before": loadavg_before,
                            "steal_percent": steal_percent},
                "health_before_load": before,
                "cores_before_load": cores,
                "locust_exit_code": code, "locust_exceptions": locust_exceptions(out),
                "load": load,
                "server_cpu": sampler.summary(start, end) if sampler else None,
                "locust_cpu": locust_sampler.summary(start, end),
                "machine_cpu": machine.summary(start, end),
                "health_during_load": prober.summary(start, end),
                "after_load": after,
                "background_analyses": background,
            }
    finally:
        if server:
            summary["server_exit_code"] = server.stop()
    summary["machine"]["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    problems = problems_of(summary)
    summary["ok"] = not problems
    summary["verdict"] = problems or ["all requests succeeded"] + (
        [f"{summary['load']['rejections']} rejections (expected)"]
        if summary["load"]["rejections"] else [])
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print_table(summary)
    print(f"summary: {out / 'summary.json'}")
    return 0 if summary["ok"] else 1


def problems_of(summary: dict[str, Any]) -> list[str]:
    """What went wrong; empty when all went well."""
    load, problems = summary["load"], []
    if load["requests"] == 0:
        problems.append("no request was made")
    if load["failures"]:
        problems.append(f"{load['failures']} requests failed")
    if summary["locust_exit_code"] not in (0, 1):
        problems.append(f"locust exited with {summary['locust_exit_code']}")
    if summary["locust_exit_code"] == 1 and not (load["failures"] or load["rejections"]):
        problems.append("locust reported errors (see locust.log)")
    if summary["locust_exceptions"]:
        problems.append(f"{summary['locust_exceptions']} exceptions in the locustfile")
    background = summary.get("background_analyses")
    if background and (background["without_one_final_report"] or background["errors"]):
        problems.append(f"background analyses: {background['without_one_final_report']} without "
                        f"exactly one final report, errors {background['errors']}")
    after = summary["after_load"]
    if after["health"] != "SERVING" or after["suggest"] != "OK":
        problems.append(f"after the load: health {after['health']}, suggestion {after['suggest']}")
    if summary.get("server_exit_code") not in (None, 0):
        problems.append(f"the server exited with {summary['server_exit_code']}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
