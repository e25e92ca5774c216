#!/usr/bin/env python3
"""Figures for the transport hardening of issue 10 (items 5 and 6).

Starts cacao-server processes on free ports and prints:

1. silent calls: health and NewGame latency while 16 calls are open that
   never send their request (twice the RPC threads);
2. bad large positions: 8 clients sending 200 KB bad positions non-stop while
   39 real searches and 200 quick calls go on: searches refused, quick-call
   latency;
3. memory: the server's RSS before, and its peak (VmHWM) after 8 requests at
   once of the largest message it accepts;
4. priority: wall time of a 0.2 s search next to busy processes, grown at
   each priority (in this process, cacaoai.search.search), and through a
   server started with --search-priority idle (which runs timed searches at
   "reduced").

    python benchmarks/bench_transport.py          # about 40 s
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import Position
from cacaoai.search import Limit, Run, search

RECORDS = Path(__file__).resolve().parent.parent / "tests" / "data" / "records.jsonl"
SERVICE = "cacao.v1.CacaoService"


def start_server(*flags: str) -> LocalServer:
    """A cacao-server process on a free port that stops without a drain."""
    return LocalServer("--drain", "0", *flags)


def position() -> pb.Position:
    record = json.loads(RECORDS.read_text().splitlines()[0])
    return convert.position_from_json(Position.from_record(record, upto=6).snapshot())


def bad_position(size: int) -> pb.Position:
    message = position()
    i = 0
    while message.ByteSize() < size:
        message.board.add(x=1000 + i, y=-7, jungle=message.board[-1].jungle)
        i += 1
    return message


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def silent_calls() -> None:
    server = start_server("--max-searches", "2", "--worker-threads", "8")
    address = server.address
    try:
        with grpc.insecure_channel(address) as channel:
            hang = threading.Event()

            def never():
                hang.wait()
                yield b""

            calls = [channel.stream_unary(f"/{SERVICE}/NewGame").future(never()) for _ in range(16)]
            time.sleep(0.3)
            health = health_pb2_grpc.HealthStub(channel)
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            times = []
            for _ in range(50):
                start = time.monotonic()
                health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                stub.NewGame(pb.NewGameRequest(players=2, seed=1), timeout=5)
                times.append(time.monotonic() - start)
            print(f"1. 16 silent calls open: 50 x (health + NewGame) answered, "
                  f"p50 {ms(times, 50):.1f} ms, max {ms(times, 100):.1f} ms")
            for call in calls:
                call.cancel()
            hang.set()
    finally:
        server.stop(30)


def bad_large_positions() -> None:
    server = start_server("--max-searches", "2", "--worker-threads", "8")
    address = server.address
    bad = pb.SuggestActionRequest(position=bad_position(200_000), limits=pb.SearchLimits(iterations=10))
    real = pb.SuggestActionRequest(position=position(), limits=pb.SearchLimits(iterations=200))
    quick = pb.ListLegalActionsRequest(position=position())
    done = threading.Event()
    bad_codes: dict[str, int] = {}
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)

            def flood():
                while not done.is_set():
                    try:
                        stub.SuggestAction(bad, timeout=10)
                        code = "OK"
                    except grpc.RpcError as error:
                        code = error.code().name
                    bad_codes[code] = bad_codes.get(code, 0) + 1

            flooders = [threading.Thread(target=flood) for _ in range(8)]
            for thread in flooders:
                thread.start()
            refused = 0
            for _ in range(39):
                try:
                    stub.SuggestAction(real, timeout=10)
                except grpc.RpcError as error:
                    refused += error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            times = []
            for _ in range(200):
                start = time.monotonic()
                stub.ListLegalActions(quick, timeout=10)
                times.append(time.monotonic() - start)
            done.set()
            for thread in flooders:
                thread.join()
        print(f"2. 8 clients sending 200 KB bad positions ({bad_codes}): "
              f"{refused} of 39 real searches refused; ListLegalActions p50 {ms(times, 50):.1f} ms, "
              f"p99 {ms(times, 99):.1f} ms")
    finally:
        server.stop(30)


def memory() -> None:
    server = start_server("--max-searches", "2", "--worker-threads", "8")
    address = server.address
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            limit = stub.GetServerInfo(pb.GetServerInfoRequest()).limits.max_message_bytes
            before = server.memory_kib("VmRSS")
            bad = pb.SuggestActionRequest(position=bad_position(limit - 1024))

            def send(_):
                try:
                    stub.SuggestAction(bad, timeout=30)
                    return "OK"
                except grpc.RpcError as error:
                    return error.code().name

            with futures.ThreadPoolExecutor(8) as pool:
                codes = list(pool.map(send, range(8)))
            peak = server.memory_kib("VmHWM")
        print(f"3. 8 requests at once of {limit // 1024} KiB ({set(codes)}): server RSS "
              f"{before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB")
    finally:
        server.stop(30)


def priority() -> None:
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(2 * (os.cpu_count() or 1))]
    game = Position.from_record(json.loads(RECORDS.read_text().splitlines()[0]), upto=6)
    try:
        time.sleep(0.5)
        for level in ("idle", "low", "reduced", "normal"):
            walls = []
            for seed in range(5):
                start = time.monotonic()
                search(game, Limit(time_s=0.2), seed=seed, run=Run(cpu_priority=level))
                walls.append(time.monotonic() - start)
            print(f"4. next to {len(busy)} busy processes, a 0.2 s search at {level:7}: wall p50 "
                  f"{ms(walls, 50):.0f} ms, max {ms(walls, 100):.0f} ms")
        server = start_server("--search-priority", "idle")
        address = server.address
        try:
            with grpc.insecure_channel(address) as channel:
                stub = cacao_pb2_grpc.CacaoServiceStub(channel)
                walls = []
                for seed in range(5):
                    start = time.monotonic()
                    stub.SuggestAction(pb.SuggestActionRequest(
                        position=convert.position_from_json(game.snapshot()), seed=seed,
                        limits=pb.SearchLimits(time=convert.seconds_to_duration(0.2))), timeout=30)
                    walls.append(time.monotonic() - start)
            print(f"   the same through a server started with --search-priority idle (runs it at reduced): wall p50 "
                  f"{ms(walls, 50):.0f} ms, max {ms(walls, 100):.0f} ms")
        finally:
            server.stop(30)
    finally:
        for p in busy:
            p.kill()
            p.wait()


def main() -> int:
    silent_calls()
    bad_large_positions()
    memory()
    priority()
    return 0


if __name__ == "__main__":
    sys.exit(main())
