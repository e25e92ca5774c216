"""Prints how fast a stopped analysis answers, over gRPC on loopback.

    python benchmarks/measure_analysis.py [--analyses 20] [--markdown]

An in-process server; each analysis (Analyze, a 30 s budget) is stopped
right after its first report, and the time from ``Analysis.stop()`` to the
final report is measured. Wall-clock figures: noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.client import CacaoClient, Limit
from cacaoai.engine import Position
from cacaoai.server import ServerOptions, create_server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--analyses", type=int, default=20)
    add_markdown_option(parser)
    args = parser.parse_args()
    require_parts(parser, args.markdown, script_name(__file__), ["stop"])
    server, port = create_server("127.0.0.1:0", ServerOptions(worker_threads=4, max_searches=2))
    server.start()
    waits, iterations = [], []
    try:
        with CacaoClient(f"127.0.0.1:{port}") as client:
            game = Position.new(players=2, seed=7)
            for _ in range(args.analyses):
                analysis = client.start_analysis(game, Limit(time_s=30), report_interval=0.1)
                next(analysis)
                started = time.perf_counter()
                analysis.stop()
                final = analysis.wait()
                waits.append((time.perf_counter() - started) * 1000)
                assert final.evaluation.stopped_by == "stop"
                iterations.append(final.evaluation.iterations)
    finally:
        server.stop(None).wait()
    waits.sort()
    print(f"stop -> final report ({args.analyses} analyses): "
          f"p50 {statistics.median(waits):.2f} ms, max {waits[-1]:.2f} ms; "
          f"iterations at the stop: median {statistics.median(iterations):.0f}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"stop": table(
            ["stop → final report", "p50 ms", "max ms"],
            [[f"{args.analyses} analyses", f"{statistics.median(waits):.2f}", f"{waits[-1]:.2f}"]],
            right=[False, True, True])})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
