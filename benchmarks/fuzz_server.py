#!/usr/bin/env python3
"""Long fuzz run against a real cacao-server process (issue 10's "done when").

Sends N mutated requests (all seven RPCs, raw bytes, oversized messages; see
tests/fuzz_requests.py) one at a time to a server started for the run, then
prints the status counts, the server's RSS before and after, and the failures:
crashes (the process died), INTERNAL/UNKNOWN answers and hangs (a call past its
20 s deadline). Exit status 1 on any failure.

    python benchmarks/fuzz_server.py --requests 12000 --seed 1 [--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import fuzz_requests  # noqa: E402
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

from cacaoai.client.local import LocalServer, serving  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=12000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--address", help="fuzz a server already running here instead")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["fuzz"])
    if args.address:
        return report(args, None, args.address)
    with LocalServer(*fuzz_requests.SERVER_FLAGS) as server:
        return report(args, server, server.address)


def report(args, server: LocalServer | None, address: str) -> int:
    process = server.process if server else None
    rss_before = server.memory_kib() if server else 0
    start = time.monotonic()

    def progress(done: int, outcomes: fuzz_requests.Outcomes) -> None:
        if done % 1000 == 0:
            rss = f", server RSS {server.memory_kib() / 1024:.0f} MiB" \
                if server and process.poll() is None else ""
            print(f"  {done} requests, {time.monotonic() - start:.0f} s, "
                  f"failures {outcomes.failed()}{rss}", file=sys.stderr, flush=True)

    alive = (lambda: process.poll() is None) if process else (lambda: True)
    outcomes = fuzz_requests.run(address, args.seed, args.requests, progress=progress, alive=alive)
    elapsed = time.monotonic() - start
    crashed = process is not None and process.poll() is not None
    answers = not crashed and serving(address)
    print(f"requests: {outcomes.requests} in {elapsed:.0f} s (seed {args.seed})")
    for name, n in sorted(outcomes.counts.items(), key=lambda kv: -kv[1]):
        print(f"  {name:20s} {n}")
    if process:
        rss_after = server.memory_kib() if not crashed else 0
        print(f"server RSS: {rss_before / 1024:.0f} MiB before, {rss_after / 1024:.0f} MiB after")
    print(f"crashes: {int(crashed)}, INTERNAL/UNKNOWN: "
          f"{outcomes.counts['INTERNAL'] + outcomes.counts['UNKNOWN']}, "
          f"hangs: {outcomes.counts['HANG']}, serving after: {answers}")
    for outcome, method, data in outcomes.failures[:20]:
        print(f"FAIL {outcome} {method} {data[:120]!r}")
    if args.markdown:
        codes = ("INVALID_ARGUMENT", "OK", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED")
        memory = (f"{rss_before / 1024:.0f} → {rss_after / 1024:.0f} MiB" if process and not crashed
                  else "not measured" if not process else "crashed")
        write_sections(args.markdown, script_name(__file__), {"fuzz": table(
            ["requests", *codes, "INTERNAL / UNKNOWN", "hangs", "crashes", "server RSS before → after"],
            [[f"{outcomes.requests:,} in {elapsed:.0f} s", *(f"{outcomes.counts[c]:,}" for c in codes),
              outcomes.counts["INTERNAL"] + outcomes.counts["UNKNOWN"], outcomes.counts["HANG"], int(crashed),
              memory]], right=[True] * 8 + [False])})
    return 1 if crashed or outcomes.failed() or not answers else 0


if __name__ == "__main__":
    sys.exit(main())
