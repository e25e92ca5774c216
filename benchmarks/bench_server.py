#!/usr/bin/env python3
"""Latency of SuggestAction over gRPC, and its overhead over the raw search.

Starts a cacao-server process on a free port (or uses --address), then for a
1-iteration budget and a 100 ms budget sends SuggestAction requests one at a
time over a fixed set of positions and runs the same searches in this process
with cacaoai.search.search. Prints p50/p99 latency of both and the difference
(the cost of the RPC: conversion, validation, transport). A trivial RPC
(GetServerInfo) is timed as the transport baseline.

    python benchmarks/bench_server.py                 # about 30 s
    python benchmarks/bench_server.py --quick         # fewer calls, for a smoke test
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import grpc
from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import Position
from cacaoai.search import Limit, search


def positions(count: int, seed: int = 1) -> list[Position]:
    """Positions from random games at various points, none finished."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        position = Position.new(players=rng.choice((2, 3, 4)), seed=rng.getrandbits(32))
        for _ in range(rng.randrange(0, 40)):
            if position.is_over:
                break
            position.apply(rng.choice(position.legal_actions()))
        if not position.is_over and len(position.legal_codes()) > 1:
            out.append(position)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def time_pairs(rpc, raw, items, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds of rpc(item) and raw(item) back to back, for each item and
    round; returns (rpc times, raw times, per-call differences)."""
    rpc_ms, raw_ms, diff_ms = [], [], []
    for _ in range(repeat):
        for item in items:
            start = time.perf_counter()
            rpc(item)
            middle = time.perf_counter()
            raw(item)
            end = time.perf_counter()
            rpc_ms.append((middle - start) * 1000)
            raw_ms.append((end - middle) * 1000)
            diff_ms.append(rpc_ms[-1] - raw_ms[-1])
    return rpc_ms, raw_ms, diff_ms


def row(name: str, values: list[float]) -> str:
    return (f"{name:<38} {len(values):>5} {statistics.median(values):>9.2f} "
            f"{percentile(values, 99):>9.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="benchmark a running server instead of starting one")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["latency"])
    measured: list[tuple[str, list[float]]] = []

    sample = positions(args.positions)
    messages = [convert.position_from_json(p.snapshot()) for p in sample]
    server = None
    address = args.address
    if address is None:
        server = LocalServer("--search-threads", "1")
        address = server.address
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            grpc.channel_ready_future(channel).result(timeout=10)
            budgets = [("1 iteration", 1, None, 1 if args.quick else 10),
                       ("100 ms", None, 0.1, 1 if args.quick else 3)]
            stub.GetServerInfo(pb.GetServerInfoRequest())  # warm up
            print(f"server {address}; {len(sample)} positions (2-4 players, random points); "
                  f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
            print(f"{'':<38} {'calls':>5} {'p50 ms':>9} {'p99 ms':>9}")
            info = pb.GetServerInfoRequest()
            trivial, _, _ = time_pairs(lambda _: stub.GetServerInfo(info), lambda _: None,
                                       sample, 5 if args.quick else 25)
            print(row("GetServerInfo (transport only)", trivial))
            measured.append(("GetServerInfo (transport only)", trivial))
            for name, iterations, time_s, repeat in budgets:
                limits = pb.SearchLimits(iterations=iterations or 0)
                if time_s:
                    limits.time.CopyFrom(convert.seconds_to_duration(time_s))
                raw_limits = Limit(iterations=iterations, time_s=time_s)
                pairs = [(pb.SuggestActionRequest(position=m, limits=limits, seed=7), p)
                         for m, p in zip(messages, sample)]
                rpc, raw, diff = time_pairs(lambda pair: stub.SuggestAction(pair[0]),
                                            lambda pair, limit=raw_limits: search(pair[1], limit, seed=7),
                                            pairs, repeat)
                print(row(f"SuggestAction, {name}", rpc))
                print(row(f"raw search in-process, {name}", raw))
                print(row("RPC overhead (per-call difference)", diff))
                measured += [(f"SuggestAction, {name}", rpc), (f"raw search in-process, {name}", raw),
                             ("RPC overhead (per-call difference)", diff)]
    finally:
        if server is not None:
            server.stop()
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"latency": table(
            ["call", "calls", "p50 ms", "p99 ms"],
            [[name, len(values), f"{statistics.median(values):.2f}", f"{percentile(values, 99):.2f}"]
             for name, values in measured], right=[False, True, True, True])})
    return 0


if __name__ == "__main__":
    sys.exit(main())
