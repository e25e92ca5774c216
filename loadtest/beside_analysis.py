"""Moves beside background analysis: the figure of docs/benchmarks/load.md.

    python loadtest/beside_analysis.py                       # 3 pairs of 60 s runs, about 7 minutes
    python loadtest/beside_analysis.py --pairs 1 --duration 20s

Runs ``loadtest/run.py`` in pairs, each on a server of its own with two search
slots: 2 users asking for 50 ms moves (SuggestAction only, a closed loop),
first alone, then while 2 background analyses (``--analyses 2``, 30 s
budgets, back to back) fill both slots. Each pair waits for the machine to be
quiet first. Prints per run the moves' requests, refusals and p50/p95/p99,
and the verdict on the medians of the pairs: no refusal, and the p99 beside
the analyses at most 1.25 times the p99 alone. The runs' folders stay in
``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "benchmarks"))

import run  # noqa: E402  (loadtest/run.py)
import sweep  # noqa: E402  (waiting for a quiet machine)
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

MOVES = "suggest_short=1,suggest_normal=0,legal=0,apply=0"
NAME = "SuggestAction 50ms"
GOAL = 1.25


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="loadtest/beside_analysis.py", description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--duration", default="60s")
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument("--analyses", type=int, default=2)
    parser.add_argument("--wait-quiet", type=float, default=600.0,
                        help="longest wait for a quiet machine before each pair, s")
    parser.add_argument("--out", default=None)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["pairs"])
    out = Path(args.out or HERE / "out" / (time.strftime("%Y%m%d-%H%M%S") + "-beside-analysis")).resolve()
    rows: list[dict[str, Any]] = []
    for k in range(args.pairs):
        busy = sweep.wait_for_quiet(args.wait_quiet)
        for analyses in (0, args.analyses):
            folder = out / f"pair{k}-analyses{analyses}"
            flags = ["--users", str(args.users), "--duration", args.duration, "--weights", MOVES,
                     "--max-searches", "2", "--out", str(folder)]
            if analyses:
                flags += ["--analyses", str(analyses)]
            run.main(flags)
            summary = json.loads((folder / "summary.json").read_text())
            moves = summary["load"]["rpcs"].get(NAME, {})
            rows.append({"pair": k, "analyses": analyses, "busy_before_percent": round(busy),
                         "others_percent": round(sweep.others_percent(summary)),
                         "requests": moves.get("requests", 0), "refused": moves.get("rejected", 0),
                         "failed": moves.get("failed", 0), "p50_ms": moves.get("p50_ms"),
                         "p95_ms": moves.get("p95_ms"), "p99_ms": moves.get("p99_ms"),
                         "paused_s": (summary.get("background_analyses") or {}).get("paused_s"),
                         "analyses_finished": (summary.get("background_analyses") or {}).get("finished")})
    alone = [r for r in rows if not r["analyses"]]
    beside = [r for r in rows if r["analyses"]]
    p99_alone = statistics.median(r["p99_ms"] for r in alone)
    p99_beside = statistics.median(r["p99_ms"] for r in beside)
    refused = sum(r["refused"] + r["failed"] for r in beside)
    ratio = p99_beside / p99_alone
    ok = refused == 0 and ratio <= GOAL
    print("\n| run | analyses | moves | refused | p50 / p95 / p99 ms | other processes |")
    print("|---|---:|---:|---:|---|---:|")
    for r in rows:
        print(f"| {r['pair']} | {r['analyses']} | {r['requests']} | {r['refused']} | "
              f"{r['p50_ms']} / {r['p95_ms']} / {r['p99_ms']} | {r['others_percent']}% |")
    print(f"\nmedian p99: alone {p99_alone} ms, beside {args.analyses} analyses {p99_beside} ms "
          f"(x{ratio:.2f}); refused or failed beside them: {refused}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "beside_analysis.json").write_text(json.dumps(
        {"rows": rows, "p99_alone_ms": p99_alone, "p99_beside_ms": p99_beside, "ratio": round(ratio, 3),
         "refused": refused, "ok": ok}, indent=2) + "\n")
    print(("PASS" if ok else "FAIL") + f": goal 0 refusals and p99 at most x{GOAL}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"pairs": markdown_part(rows, args.analyses, ratio)})
    return 0 if ok else 1


def markdown_part(rows: list[dict[str, Any]], analyses: int, ratio: float) -> str:
    """The runs as docs/benchmarks/load.md shows them: alone and beside the analyses, then the medians' ratio."""
    body = [[r["pair"] + 1, r["analyses"] or "none", f"{r['requests']:,}", r["refused"] + r["failed"],
             f"{r['p50_ms']} / {r['p95_ms']} / {r['p99_ms']}"] for r in rows]
    alone = statistics.median(r["p99_ms"] for r in rows if not r["analyses"])
    beside = statistics.median(r["p99_ms"] for r in rows if r["analyses"])
    return (table(["pair", "analyses", "moves", "refused", "p50 / p95 / p99 ms"], body,
                  right=[True, True, True, True, False])
            + f"\n\nMedian p99: {alone} ms alone, {beside} ms beside {analyses} analyses "
              f"(× {ratio:.2f}; the goal is at most × {GOAL}).")


if __name__ == "__main__":
    sys.exit(main())
