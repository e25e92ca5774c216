"""What the nginx hop costs a call: the same calls direct to a replica and through nginx.

    python benchmarks/bench_nginx.py --calls 1000

Starts ``cacao-replicas --replicas 1`` (nginx in front of one replica),
then makes ``--calls`` GetServerInfo calls (transport only) and as many
1-iteration SuggestAction calls, one at a time, alternating between a channel
to the replica and a channel to nginx, so that both see the same machine load.
Prints p50 and p99 in milliseconds for each, and the difference.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import grpc
import numpy as np
from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import ServiceProcess

REPLICAS = [sys.executable, "-m", "cacaoai.deploy.replicas"]  # cacao-replicas


def start_front() -> tuple[ServiceProcess, str, str]:
    """cacao-replicas with one replica; returns it, the replica's and nginx's addresses."""
    front = ServiceProcess([*REPLICAS, "--replicas", "1", "--port", "0"],
                           r"^ready$", name="cacao-replicas")
    lines = front.startup_log
    replica = next(re.search(r"on (\S+)", line).group(1) for line in lines
                   if line.startswith("replica 0"))
    nginx = next(re.search(r"on (\S+)", line).group(1) for line in lines
                 if line.startswith("nginx pid"))
    return front, replica, nginx


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["hop"])
    rows = []
    process, replica, front = start_front()
    try:
        game = None
        times: dict[tuple[str, str], list[float]] = {}
        with grpc.insecure_channel(replica) as direct, grpc.insecure_channel(front) as via:
            stubs = {"direct": cacao_pb2_grpc.CacaoServiceStub(direct),
                     "nginx": cacao_pb2_grpc.CacaoServiceStub(via)}
            game = stubs["direct"].NewGame(pb.NewGameRequest(players=2, seed=7))
            calls = {
                "GetServerInfo": lambda s: s.GetServerInfo(pb.GetServerInfoRequest()),
                "SuggestAction 1 iteration": lambda s: s.SuggestAction(pb.SuggestActionRequest(
                    position=game.position, limits=pb.SearchLimits(iterations=1), seed=1)),
            }
            for name, call in calls.items():
                for route in stubs:  # warm up both channels
                    call(stubs[route])
                for _ in range(args.calls):
                    for route, stub in stubs.items():
                        begin = time.perf_counter()
                        call(stub)
                        times.setdefault((name, route), []).append(
                            (time.perf_counter() - begin) * 1000)
        print(f"{'call':<28}{'route':<8}{'calls':>7}{'p50 ms':>9}{'p99 ms':>9}")
        for name in calls:
            p = {route: np.percentile(times[(name, route)], [50, 99]) for route in stubs}
            for route in stubs:
                print(f"{name:<28}{route:<8}{args.calls:>7}{p[route][0]:>9.2f}{p[route][1]:>9.2f}")
            extra = p["nginx"] - p["direct"]
            print(f"{name:<28}{'+nginx':<8}{'':>7}{extra[0]:>9.2f}{extra[1]:>9.2f}")
            rows.append([name.replace("SuggestAction 1", "SuggestAction, 1"),
                         f"{p['direct'][0]:.2f} → {p['nginx'][0]:.2f}", f"{p['direct'][1]:.2f} → {p['nginx'][1]:.2f}"])
    finally:
        process.stop(30)
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"hop": table(
            ["call", "p50 direct → through nginx, ms", "p99 direct → through nginx, ms"], rows)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
