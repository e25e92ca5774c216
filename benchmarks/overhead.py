#!/usr/bin/env python3
"""The service's own overhead per RPC, against a bare grpc.aio server's floor.

Starts a cacao-server process on a free port and, as the floor, a grpc.aio
server in another process that serves only the health service. One client
(raw gRPC stubs, requests built beforehand, so that no client-side
conversion is timed) calls every method in turn, round after round:
GetServerInfo, Health.Check, ListLegalActions, ApplyAction, SuggestAction at
1 iteration and at a 50 ms budget, and AnalyzePosition at 1 iteration (to its
final report); and the floor's Health.Check; then ListLegalActions and
ApplyAction once more through the client library (``CacaoClient``, from the
positions' dicts), so that its conversions show too. For a search the overhead is
the latency minus the search's own elapsed time (the reply's
``evaluation.elapsed``); for a 50 ms budget the overrun (elapsed - 50 ms) is
printed too. It measures unloaded, then with each ``--loaders`` count of
concurrent clients (in a process of their own) looping on 50 ms suggestions
against the same server (a loader refused waits 50 ms, the shortest retry
hint); refusals (RESOURCE_EXHAUSTED) are counted, not timed.

    python benchmarks/overhead.py                       # unloaded and 2, 16 loaders
    python benchmarks/overhead.py --loaders 0 --rounds 400
    python benchmarks/overhead.py --quick               # a smoke test

The figures move with whatever else runs on the machine: the header prints
the load average, and every phase repeats the floor in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client import CacaoClient
from cacaoai.client.local import LocalServer, ServiceProcess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import percentile, positions  # noqa: E402
from markdown import add_markdown_option, require_parts, script_name, write_sections  # noqa: E402

FLOOR_READY = "floor serving on port "
LOAD_READY = "loaders running"
BUDGET_50MS = 0.05
REFUSED_PAUSE_S = 0.05  # the scheduler's shortest retry hint


# --- the floor and the loaders, each run as a process of its own ---------------

async def _serve_floor() -> None:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"{FLOOR_READY}{port}", flush=True)
    await server.wait_for_termination()


def _run_loaders(address: str, count: int) -> None:
    """``count`` threads looping on 50 ms suggestions until stdin closes; then
    prints a JSON line of how many were answered and refused."""
    requests = [request for request in suggest_requests(20, 0.0, BUDGET_50MS, seed=11)]
    done = threading.Event()
    counts = {"answered": 0, "refused": 0, "failed": 0}
    lock = threading.Lock()

    def loop(i: int) -> None:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            n = i
            while not done.is_set():
                try:
                    stub.SuggestAction(requests[n % len(requests)], timeout=30)
                    outcome = "answered"
                except grpc.RpcError as error:
                    outcome = ("refused" if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                               else "failed")
                with lock:
                    counts[outcome] += 1
                if outcome != "answered":
                    done.wait(REFUSED_PAUSE_S)  # as a client honouring the retry hint
                n += 1

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    print(LOAD_READY, flush=True)
    sys.stdin.read()
    done.set()
    for thread in threads:
        thread.join(timeout=60)
    print(json.dumps(counts), flush=True)


# --- what is sent -------------------------------------------------------------

def _limits(iterations: int, time_s: float) -> pb.SearchLimits:
    limits = pb.SearchLimits(iterations=iterations)
    if time_s:
        limits.time.CopyFrom(convert.seconds_to_duration(time_s))
    return limits


def suggest_requests(count: int, iterations: int, time_s: float,
                     seed: int = 1) -> list[pb.SuggestActionRequest]:
    return [pb.SuggestActionRequest(position=convert.position_from_json(p.snapshot()),
                                    limits=_limits(int(iterations), time_s), seed=7)
            for p in positions(count, seed)]


@dataclass
class Series:
    """One row: latencies, and for a search its overheads and overruns (ms)."""
    name: str
    latency: list[float] = field(default_factory=list)
    overhead: list[float] = field(default_factory=list)
    overrun: list[float] = field(default_factory=list)
    refused: int = 0


def _elapsed_ms(evaluation: pb.Evaluation) -> float:
    return evaluation.elapsed.seconds * 1000 + evaluation.elapsed.nanos / 1e6


def calls(cacao: cacao_pb2_grpc.CacaoServiceStub, server_health: health_pb2_grpc.HealthStub,
          floor: health_pb2_grpc.HealthStub, count: int, client: CacaoClient
          ) -> list[tuple[str, Callable[[int], pb.Evaluation | None]]]:
    """Each measured call as (row name, call(i)), returning the search's
    evaluation when there is one; the last rows ask the same through the
    client library, from the positions' dicts (its conversions are timed)."""
    sample = positions(count, seed=3)
    snapshots = [p.snapshot() for p in sample]
    moves = [random.Random(i).choice(p.legal_actions()) for i, p in enumerate(sample)]
    messages = [convert.position_from_json(s) for s in snapshots]
    legal = [pb.ListLegalActionsRequest(position=m) for m in messages]
    apply = [pb.ApplyActionRequest(position=m, action=convert.action_to_proto(a))
             for m, a in zip(messages, moves)]
    one = [pb.SuggestActionRequest(position=m, limits=_limits(1, 0.0), seed=7) for m in messages]
    timed = [pb.SuggestActionRequest(position=m, limits=_limits(0, BUDGET_50MS), seed=7)
             for m in messages]
    analyze = [pb.AnalyzePositionRequest(position=m, limits=_limits(1, 0.0), seed=7)
               for m in messages]
    info = pb.GetServerInfoRequest()
    check = health_pb2.HealthCheckRequest()

    def final(i: int) -> pb.Evaluation:
        last = None
        for reply in cacao.AnalyzePosition(analyze[i % count], timeout=30):
            last = reply
        assert last is not None and last.evaluation.final
        return last.evaluation

    return [
        ("floor: bare grpc.aio Health.Check", lambda i: floor.Check(check, timeout=30) and None),
        ("Health.Check", lambda i: server_health.Check(check, timeout=30) and None),
        ("GetServerInfo", lambda i: cacao.GetServerInfo(info, timeout=30) and None),
        ("ListLegalActions", lambda i: cacao.ListLegalActions(legal[i % count], timeout=30)
         and None),
        ("ApplyAction", lambda i: cacao.ApplyAction(apply[i % count], timeout=30) and None),
        ("SuggestAction, 1 iteration",
         lambda i: cacao.SuggestAction(one[i % count], timeout=30).evaluation),
        ("SuggestAction, 50 ms",
         lambda i: cacao.SuggestAction(timed[i % count], timeout=30).evaluation),
        ("AnalyzePosition, 1 iteration", final),
        ("ListLegalActions through CacaoClient",
         lambda i: client.legal_actions(snapshots[i % count]) and None),
        ("ApplyAction through CacaoClient",
         lambda i: client.apply_action(snapshots[i % count], moves[i % count]) and None),
    ]


def measure(measured: list[tuple[str, Callable[[int], pb.Evaluation | None]]], rounds: int,
            slow_every: int) -> list[Series]:
    """Round after round, every call once (the 50 ms suggestion every
    ``slow_every`` rounds), so that noise falls on every row alike."""
    series = [Series(name) for name, _ in measured]
    for i in range(rounds):
        for (name, call), row in zip(measured, series):
            if name.endswith("50 ms") and i % slow_every:
                continue
            start = time.perf_counter()
            try:
                evaluation = call(i)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                row.refused += 1
                continue
            latency = (time.perf_counter() - start) * 1000
            row.latency.append(latency)
            if evaluation is not None:
                elapsed = _elapsed_ms(evaluation)
                row.overhead.append(latency - elapsed)
                if name.endswith("50 ms"):
                    row.overrun.append(elapsed - BUDGET_50MS * 1000)
    return series


def _cell(values: list[float], q: float) -> str:
    return f"{percentile(values, q):.2f}" if values else "-"


def table(phase: str, series: list[Series]) -> list[str]:
    lines = []
    for row in series:
        overhead = row.overhead or row.latency
        lines.append(f"| {phase} | {row.name} | {len(row.latency)} | {row.refused} "
                     f"| {_cell(row.latency, 50)} | {_cell(row.latency, 99)} "
                     f"| {_cell(overhead, 50)} | {_cell(overhead, 99)} "
                     f"| {_cell(row.overrun, 50)} | {_cell(row.overrun, 99)} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds of calls per phase")
    parser.add_argument("--loaders", default="2,16",
                        help="comma-separated counts of concurrent 50 ms loaders (0: none)")
    parser.add_argument("--quick", action="store_true", help="20 rounds, 2 loaders")
    parser.add_argument("--server-flag", action="append", default=[], metavar="FLAG",
                        help="a flag for cacao-server (repeat: --server-flag=--max-searches "
                             "--server-flag=4)")
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--load", nargs=2, metavar=("ADDRESS", "COUNT"), help=argparse.SUPPRESS)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["overhead"])
    if args.serve_floor:
        asyncio.run(_serve_floor())
        return 0
    if args.load:
        _run_loaders(args.load[0], int(args.load[1]))
        return 0
    rounds = 20 if args.quick else args.rounds
    loaders = [2] if args.quick else [int(n) for n in args.loaders.split(",") if n.strip()]
    phases = [0] + [n for n in loaders if n > 0]

    me = [sys.executable, os.path.abspath(__file__)]
    server = LocalServer("--search-threads", "1", *args.server_flag)
    floor = ServiceProcess([*me, "--serve-floor"], FLOOR_READY + r"(\d+)", name="floor")
    floor_address = f"127.0.0.1:{floor.ready.group(1)}"
    try:
        with grpc.insecure_channel(server.address) as channel, \
                grpc.insecure_channel(floor_address) as floor_channel, \
                CacaoClient(server.address, retries=0) as client:
            measured = calls(cacao_pb2_grpc.CacaoServiceStub(channel),
                             health_pb2_grpc.HealthStub(channel),
                             health_pb2_grpc.HealthStub(floor_channel), count=20, client=client)
            measure(measured, 5, 1)  # warm up: channels, caches, the model
            print(f"cacao-server {server.address}, floor {floor_address}; {rounds} rounds "
                  f"(the 50 ms suggestion every 4th); {os.cpu_count()} CPUs")
            lines = ["| loaders | call | calls | refused | p50 ms | p99 ms | overhead p50 "
                     "| overhead p99 | overrun p50 | overrun p99 |",
                     "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            print("\n".join(lines))
            for count in phases:
                load = None
                if count:
                    load = subprocess.Popen([*me, "--load", server.address, str(count)],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            text=True)
                    assert load.stdout is not None and load.stdin is not None
                    if load.stdout.readline().strip() != LOAD_READY:
                        raise RuntimeError("the loaders did not start")
                before = os.getloadavg()[0]
                series = measure(measured, rounds, 4)
                after = os.getloadavg()[0]
                loaded = ""
                if load is not None:
                    out, _ = load.communicate("", timeout=120)
                    loaded = f", loaders' calls {out.strip()}"
                rows = [*table(str(count), series),
                        f"|  | load average {before:.2f} before, {after:.2f} after{loaded} |"
                        "  |  |  |  |  |  |  |  |"]
                print("\n".join(rows), flush=True)
                lines += rows
    finally:
        floor.stop()
        server.stop()
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"overhead": "\n".join(lines)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
