"""Quick-call latency while searches run, measured by plain threads (no locust).

    python loadtest/plain_probe.py --searches 16 --priority idle
    python loadtest/plain_probe.py --searches 16 --priority normal

Starts ``cacao-server`` with ``--max-searches`` equal to ``--searches``, keeps
that many threads looping on 50 ms suggestions, and times one
ListLegalActions every 10 ms from another thread. It prints the percentiles
of those times. It is a reference for the locust figures: no event loop of a
load generator sits between the call and its timer.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import numpy as np

from cacaoai.client import CacaoClient, Limit
from cacaoai.client.local import LocalServer

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=16, help="searches kept running")
    parser.add_argument("--priority", default="idle", choices=("idle", "low", "normal"))
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--port", type=int, default=0, help="the server's port (0: a free one)")
    args = parser.parse_args(argv)

    with open(HERE / "positions.jsonl") as f:
        observations = [json.loads(line)["observation"] for line in f if line.strip()]
    server = LocalServer("--port", str(args.port), "--max-searches", str(args.searches),
                         "--worker-threads", str(args.searches + 8),
                         "--search-priority", args.priority)
    target = server.address
    try:
        end = time.monotonic() + args.seconds
        latencies: list[float] = []

        def search(i: int) -> None:
            with CacaoClient(target, retries=0) as client:
                while time.monotonic() < end:
                    client.suggest(observations[i % len(observations)], Limit(time_s=0.05))

        def quick() -> None:
            with CacaoClient(target, retries=0) as client:
                time.sleep(1.0)  # let the searches start
                i = 0
                while time.monotonic() < end - 1.0:
                    begin = time.perf_counter()
                    client.legal_actions(observations[i % len(observations)])
                    latencies.append((time.perf_counter() - begin) * 1000)
                    i += 1
                    time.sleep(0.01)

        threads = [threading.Thread(target=search, args=(i,)) for i in range(args.searches)]
        threads.append(threading.Thread(target=quick))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.stop()
    ms = np.array(latencies)
    p50, p90, p99 = np.percentile(ms, [50, 90, 99])
    print(f"{args.searches} searches at {args.priority}: {len(ms)} ListLegalActions, "
          f"p50 {p50:.2f} ms, p90 {p90:.2f} ms, p99 {p99:.2f} ms, max {ms.max():.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
