"""Soak: moderate mixed traffic for a long time, and whether the server stays flat.

    python loadtest/soak.py --duration 1h                 # the hour in docs/benchmarks/load.md
    python loadtest/soak.py --duration 40s --interval 2s --warmup 10s   # the CI run

Starts ``cacao-server`` (two search slots, the default memory budget), runs
locust's game-client mix (without reviews) through the client library at a moderate
pace (``--users`` users, ``--think-ms`` between calls) and ``--analyses``
background analyses back to back beside it, and every ``--interval`` records
the server's RSS, threads and open files (the largest of the samples taken
four times a second in the interval, so that a search's short-lived threads
do not make the line jump), the mean RSS of those samples (the level of the
server's memory, which a search's tree growing and being freed within the
interval does not move) and, from the exact latencies
of the requests that started in the interval, their count, failures and
p50/p95/p99.

Writes ``OUT/soak.csv`` (one line an interval) and ``OUT/soak.json`` (the
same, the settings and the verdict), and prints each line as it comes. The
verdict: after ``--warmup``, the mean RSS, threads and open files each stay
within 10% (their largest value at most 1.10 times their smallest); the peak
RSS stays within the RSS before the traffic plus the server's memory budget
(the running searches' trees come and go inside that budget, so the peak
swings by up to two trees whatever the hour); and no request failed. Exit
status 0 when it holds.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "benchmarks"))

import run as loadrun  # noqa: E402  (loadtest/run.py: locust, exact latencies)
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

from cacaoai.client.local import LocalServer  # noqa: E402
from cacaoai.server.options import DEFAULT_MEMORY_BUDGET_MB  # noqa: E402

#: The traffic: a game client's calls for a move (run.py's default mix without its reviews).
MOVES = "suggest_short=3,suggest_normal=1,legal=4,apply=4"
FLAT = 0.10
FLAT_KEYS = ("rss_mean_mib", "threads", "open_files")  # the peak RSS is held to the budget instead
COLUMNS = ("minute", "t_s", "rss_mib", "rss_mean_mib", "threads", "open_files", "requests", "failed",
           "p50_ms", "p95_ms", "p99_ms", "suggest_p99_ms")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="loadtest/soak.py", description=__doc__.split("\n")[0])
    parser.add_argument("--duration", default="1h", help="run time (40s, 10m, 1h)")
    parser.add_argument("--interval", default="60s", help="one line every this long")
    parser.add_argument("--budget-mb", type=int, default=DEFAULT_MEMORY_BUDGET_MB,
                        help="the server's --memory-budget-mb; the peak RSS may exceed the RSS "
                             "before the traffic by this much")
    parser.add_argument("--warmup", default=None,
                        help="left out of the verdict (default: a sixth of the run, at most 10m)")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--think-ms", type=float, default=250.0,
                        help="pause of a user between calls (moderate traffic)")
    parser.add_argument("--analyses", type=int, default=1, help="background analyses beside it")
    parser.add_argument("--analysis-s", type=float, default=20.0)
    parser.add_argument("--server-flag", action="append", default=[],
                        help="one more cacao-server flag (repeat it), e.g. --server-flag=--tree-cache-mb=16")
    parser.add_argument("--out", default=None, help="output folder (default loadtest/out/<time>-soak)")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["hour"])
    args.duration_s = loadrun.parse_duration(args.duration)
    args.interval_s = loadrun.parse_duration(args.interval)
    args.warmup_s = (loadrun.parse_duration(args.warmup) if args.warmup
                     else min(args.duration_s / 6, 600.0))
    if args.interval_s <= 0 or args.warmup_s >= args.duration_s:
        parser.error("--interval must be positive and --warmup shorter than --duration")
    return args


def process_figures(pid: int) -> tuple[float, int, int]:
    """(RSS in MiB, threads, open files) of a process, from /proc."""
    rss, threads = 0.0, 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads, len(os.listdir(f"/proc/{pid}/fd"))


class Recorder(threading.Thread):
    """Samples the server four times a second; keeps each interval's largest
    figures and its mean RSS."""

    def __init__(self, pid: int, interval_s: float, began: float):
        super().__init__(daemon=True)
        self.pid, self.interval_s, self.began = pid, interval_s, began
        self.intervals: list[dict[str, Any]] = []
        self.done = threading.Event()
        self.printed = threading.Event()

    def run(self) -> None:
        peak, total, samples = (0.0, 0, 0), 0.0, 0
        end = self.began + self.interval_s
        while not self.done.wait(min(0.25, max(0.0, end - time.time()))):
            try:
                now = process_figures(self.pid)
            except OSError:  # the server is gone
                return
            peak = tuple(max(a, b) for a, b in zip(peak, now))  # type: ignore[assignment]
            total, samples = total + now[0], samples + 1
            if time.time() >= end:
                self.intervals.append({"t_s": round(end - self.began, 1), "rss_mib": round(peak[0], 1),
                                       "rss_mean_mib": round(total / samples, 1), "threads": peak[1],
                                       "open_files": peak[2]})
                print(f"  {end - self.began:8.0f} s  RSS {peak[0]:7.1f} MiB (mean {total / samples:7.1f})  "
                      f"threads {peak[1]:3d}  open files {peak[2]:3d}", flush=True)
                peak, total, samples, end = (0.0, 0, 0), 0.0, 0, end + self.interval_s


def latencies(rows: list[dict[str, Any]], began: float, interval_s: float) -> dict[int, dict[str, Any]]:
    """Per interval (its index): requests started in it, failures, percentiles."""
    buckets: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        buckets.setdefault(int((float(row["start_unix_s"]) - began) // interval_s), []).append(row)
    out = {}
    for k, mine in buckets.items():
        ok = [int(r["latency_us"]) / 1000 for r in mine if r["status"] == "OK"]
        moves = [int(r["latency_us"]) / 1000 for r in mine
                 if r["status"] == "OK" and r["name"].startswith("SuggestAction 50")]
        out[k] = {"requests": len(mine), "failed": len(mine) - len(ok),
                  "p50_ms": _pct(ok, 50), "p95_ms": _pct(ok, 95), "p99_ms": _pct(ok, 99),
                  "suggest_p99_ms": _pct(moves, 99)}
    return out


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def verdict(lines: list[dict[str, Any]], warmup_s: float, rss_limit_mib: float
            ) -> tuple[bool, dict[str, Any]]:
    """Whether the mean RSS, threads and open files stay within 10% after the
    warm-up, the peak RSS within `rss_limit_mib`, and nothing failed."""
    after = [line for line in lines if line["t_s"] > warmup_s]
    spread = {}
    for key in ("rss_mean_mib", "threads", "open_files", "rss_mib"):
        values = [line[key] for line in after]
        quarter = max(1, len(values) // 4)
        spread[key] = {"min": min(values), "max": max(values),
                       "ratio": round(max(values) / min(values), 3),
                       # growth, not swing: the median of the last quarter over that of the first
                       "trend": round(float(np.median(values[-quarter:]) / np.median(values[:quarter])), 3),
                       } if values and min(values) else None
    failed = sum(line.get("failed") or 0 for line in lines)
    flat = bool(after) and all(spread[key] is not None and spread[key]["ratio"] <= 1 + FLAT
                               for key in FLAT_KEYS)
    peak = max((line["rss_mib"] for line in lines), default=0.0)
    bounded = peak <= rss_limit_mib
    return flat and bounded and not failed, {
        "after_warmup_intervals": len(after), "spread": spread, "flat": flat,
        "peak_rss_mib": peak, "rss_limit_mib": round(rss_limit_mib, 1), "failed_requests": failed}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out or HERE / "out" / (time.strftime("%Y%m%d-%H%M%S") + "-soak")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("raw.*.csv"):
        old.unlink()
    run_args = loadrun.parse_args(["--users", str(args.users), "--duration", args.duration,
                                   "--think-ms", f"{args.think_ms:g}", "--out", str(out),
                                   "--weights", MOVES])
    flags = ["--max-searches", "2", "--search-priority", "idle", "--memory-budget-mb", str(args.budget_mb),
             *args.server_flag]
    loadavg = [round(x, 2) for x in os.getloadavg()]
    with open(out / "server.log", "w") as log, \
            LocalServer(*flags, isolated=True, log=log.write, timeout=60) as server:
        print(f"soak: {args.users} users (think {args.think_ms:g} ms) and {args.analyses} analyses "
              f"against pid {server.pid} for {args.duration}, a line every {args.interval} "
              f"(output in {out})", flush=True)
        analyses = (loadrun.BackgroundAnalyses(server.address, str(loadrun.POSITIONS), args.analyses,
                                               args.analysis_s) if args.analyses else None)
        base = process_figures(server.pid)[0]
        began = time.time()
        recorder = Recorder(server.pid, args.interval_s, began)
        recorder.start()
        if analyses:
            analyses.start()
        code, _, _, _ = loadrun.run_locust(loadrun.locust_commands(run_args, server.address, out), out,
                                           args.duration_s)
        background = analyses.stop() if analyses else None
        recorder.done.set()
        recorder.join()
        server_code = server.stop(30.0)
    by_interval = latencies(loadrun.read_raw(out), began, args.interval_s)
    lines = []
    for k, figures in enumerate(recorder.intervals):
        lines.append({"minute": round(figures["t_s"] / 60, 2), **figures,
                      **by_interval.get(k, {"requests": 0, "failed": 0, "p50_ms": None, "p95_ms": None,
                                            "p99_ms": None, "suggest_p99_ms": None})})
    ok, details = verdict(lines, args.warmup_s, base + args.budget_mb)
    details["base_rss_mib"] = round(base, 1)
    problems = []
    if not details["flat"]:
        problems.append("not flat within 10% after the warm-up")
    if details["peak_rss_mib"] > details["rss_limit_mib"]:
        problems.append(f"peak RSS {details['peak_rss_mib']} MiB above the base {base:.1f} MiB "
                        f"plus the budget ({args.budget_mb} MiB)")
    if details["failed_requests"]:
        problems.append(f"{details['failed_requests']} requests failed")
    if background and (background["without_one_final_report"] or background["errors"]):
        ok = False
        problems.append(f"background analyses: {background}")
    if server_code != 0:
        ok = False
        problems.append(f"the server exited with {server_code}")
    with open(out / "soak.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows({c: line.get(c) for c in COLUMNS} for line in lines)
    summary = {"settings": {k: v for k, v in vars(args).items()}, "locust_exit_code": code,
               "loadavg_before": loadavg, "loadavg_after": [round(x, 2) for x in os.getloadavg()],
               "intervals": lines, "background_analyses": background, "verdict": details,
               "ok": ok, "problems": problems}
    (out / "soak.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{'t s':>8}{'RSS MiB':>9}{'mean':>7}{'thr':>5}{'fds':>5}{'reqs':>7}{'fail':>5}{'p50':>8}{'p95':>8}"
          f"{'p99':>8}")
    for line in lines:
        print(f"{line['t_s']:>8.0f}{line['rss_mib']:>9.1f}{line['rss_mean_mib']:>7.1f}{line['threads']:>5}"
              f"{line['open_files']:>5}"
              f"{line['requests']:>7}{line['failed']:>5}{line['p50_ms'] or 0:>8.1f}"
              f"{line['p95_ms'] or 0:>8.1f}{line['p99_ms'] or 0:>8.1f}")
    for key, spread in details["spread"].items():
        if spread:
            print(f"after {args.warmup_s:g} s of warm-up: {key} {spread['min']}..{spread['max']} "
                  f"(x{spread['ratio']}; last quarter's median over the first's x{spread['trend']})")
    print(f"peak RSS {details['peak_rss_mib']} MiB; limit {details['rss_limit_mib']} MiB "
          f"(base {base:.1f} + budget {args.budget_mb})")
    print(("PASS: flat within 10%, peak within the budget" if ok else "FAIL: " + "; ".join(problems))
          + f"; {details['failed_requests']} failed requests; {out / 'soak.csv'}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__),
                       {"hour": markdown_part(lines, details, background, ok, problems)})
    return 0 if ok else 1


def markdown_part(lines: list[dict[str, Any]], details: dict[str, Any], background: dict[str, Any] | None,
                  ok: bool, problems: list[str]) -> str:
    """The soak as docs/benchmarks/load.md shows it: each figure's range after the warm-up
    and its growth (the last quarter's median over the first's), then the verdict."""
    spread = details["spread"]

    def rows(key: str, label: str, unit: str = "") -> list[str]:
        s = spread.get(key)
        if not s:
            return [label, "-", "-"]
        return [label, f"{s['min']}–{s['max']}{unit} (× {s['ratio']})", f"× {s['trend']}"]

    body = [rows("rss_mean_mib", "RSS, mean", " MiB"),
            rows("rss_mib", f"RSS, peak (limit {details['rss_limit_mib']} MiB)", " MiB"),
            rows("threads", "threads"), rows("open_files", "open files")]
    requests = sum(line.get("requests") or 0 for line in lines)
    analyses = (f"; {background['finished']} background analyses, "
                f"{background['without_one_final_report']} without their final report") if background else ""
    verdict = "PASS" if ok else "FAIL: " + "; ".join(problems)
    return (table(["after the warm-up", "range over the intervals", "last quarter's median / first quarter's"],
                  body)
            + f"\n\n{requests:,} requests, {details['failed_requests']} failed{analyses}. Verdict: {verdict}.")


if __name__ == "__main__":
    sys.exit(main())
