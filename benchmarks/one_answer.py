#!/usr/bin/env python3
"""One position, one answer, the long run: random positions of 2, 3 and 4
players in every phase, each searched from a record, a complete position, the
observation of the seat to act and a complete position with its hidden parts
drawn again (tests/one_answer.py). Prints the number of positions and of
differences, and each difference; exit status 1 on any.

    python benchmarks/one_answer.py --positions 5000 --service 500 [--markdown]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import grpc  # noqa: E402
import one_answer  # noqa: E402
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

from cacaoai.api.cacao.v1 import cacao_pb2_grpc  # noqa: E402
from cacaoai.client.local import LocalServer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=5000, help="positions for search() (default 5000)")
    parser.add_argument("--service", type=int, default=0,
                        help="positions for SuggestAction and AnalyzePosition on a cacao-server (default 0)")
    parser.add_argument("--seed", type=int, default=10**6, help="the first position's seed")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["differences"])
    for name in ("positions", "service"):
        if getattr(args, name) < 0:
            parser.error(f"--{name} must be 0 or more, got {getattr(args, name)}")
    differences: list[str] = []
    started = time.perf_counter()
    for seed in range(args.seed, args.seed + args.positions):
        differences += one_answer.search_differences(seed)
    rows = [["`search()`", f"{args.positions:,}", len(differences), f"{time.perf_counter() - started:.0f} s"]]
    print(f"search()            {args.positions:6d} positions  {len(differences):4d} differences  "
          f"{time.perf_counter() - started:7.1f} s")
    if args.service:
        before = len(differences)
        started = time.perf_counter()
        with LocalServer("--max-searches", "2") as server, grpc.insecure_channel(server.address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            for seed in range(args.seed, args.seed + args.service):
                differences += one_answer.service_differences(stub, seed)
        print(f"SuggestAction, AnalyzePosition {args.service:6d} positions  {len(differences) - before:4d} "
              f"differences  {time.perf_counter() - started:7.1f} s")
        rows.append(["SuggestAction and AnalyzePosition", f"{args.service:,}", len(differences) - before,
                     f"{time.perf_counter() - started:.0f} s"])
    for line in differences:
        print(line)
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"differences": table(
            ["calls", "positions", "differences", "time"], rows, right=[False, True, True, True])})
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
