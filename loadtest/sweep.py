"""The sweep of docs/benchmarks/load.md: a series of load-test runs and their tables.

    python loadtest/sweep.py                    # about 6 minutes; tables on stdout
    python loadtest/sweep.py --duration 10s --users 1,4

Runs ``loadtest/run.py`` (its own server each time) for

- suggestion-only traffic at the 50 ms and the 500 ms budget, for each user
  count (the server as deployed: a search slot a core, and a queue as long as
  the users, so nothing is refused: searches beyond the cores wait for a
  slot, and the cost shows as latency, not as fewer iterations);
- the default mixed traffic (3 short and 1 normal suggestion per 4
  ListLegalActions and 4 ApplyAction) for each user count;
- one overload run: 16 users against 2 search slots,

and prints markdown tables of requests/s, p50/p95/p99 per RPC, failures,
rejections, mean iterations per search and the server's CPU use. Every run's
files stay in the output folder. ``--markdown`` also writes the two tables
of docs/benchmarks/load.md's "Load test sweep" ("suggestions" and "mixed").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run  # noqa: E402  (loadtest/run.py)
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

QUIET_PERCENT = 15.0  # other processes' CPU (100 = one core) a clean measurement allows
#: The mixed runs' traffic: a game client's calls for a move, without the reviews of run.py's default mix.
MIXED = "suggest_short=3,suggest_normal=1,legal=4,apply=4"


def machine_busy_percent(seconds: float = 3.0) -> float:
    """CPU use of the whole machine over ``seconds`` (100 = one core)."""
    before, start = run.cpu_seconds(None), time.monotonic()
    time.sleep(seconds)
    return 100 * (run.cpu_seconds(None) - before) / (time.monotonic() - start)


def wait_for_quiet(limit_s: float) -> float:
    """Waits (at most ``limit_s``) until other jobs leave the cores idle; returns the busy %."""
    deadline = time.monotonic() + limit_s
    busy = machine_busy_percent()
    while busy > QUIET_PERCENT and time.monotonic() < deadline:
        print(f"machine busy ({busy:.0f}% CPU): waiting for quiet", flush=True)
        time.sleep(10)
        busy = machine_busy_percent()
    return busy


def others_percent(s: dict[str, Any]) -> float:
    """CPU use of processes other than the server and locust during a run."""
    return ((s.get("machine_cpu") or {}).get("mean_percent") or 0) - (
        (s.get("server_cpu") or {}).get("mean_percent") or 0) - (
        (s.get("locust_cpu") or {}).get("mean_percent") or 0)


def measure(argv: list[str], folder: Path, attempts: int, wait_s: float) -> tuple[int, dict]:
    """One run.py run, repeated (up to ``attempts``) while other jobs disturbed it.

    Returns the exit status and summary of the least disturbed attempt.
    """
    best: tuple[int, dict] | None = None
    for attempt in range(attempts):
        wait_for_quiet(wait_s)
        where = folder if attempt == 0 else folder.with_name(f"{folder.name}-try{attempt + 1}")
        code = run.main(argv + ["--out", str(where)])
        summary = json.loads((where / "summary.json").read_text())
        if best is None or others_percent(summary) < others_percent(best[1]):
            best = (code, summary)
        if others_percent(summary) <= QUIET_PERCENT:
            break
        print(f"other processes used {others_percent(summary):.0f}% CPU: measuring again",
              flush=True)
    assert best is not None
    return best


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


def row(label: str, users: int, name: str, s: dict[str, Any]) -> str:
    r = s["load"]["rpcs"].get(name)
    cpu = (s.get("server_cpu") or {}).get("mean_percent")
    others = others_percent(s)
    if r is None:
        return f"| {label} | {users} | {name} | no requests | | | | | | | | |"
    return (f"| {label} | {users} | {name} | {r['ok_per_s']:.1f} | {_ms(r['p50_ms'])} | "
            f"{_ms(r['p95_ms'])} | {_ms(r['p99_ms'])} | {r['failed']} | {r['rejected']} | "
            f"{r['mean_iterations'] if r['mean_iterations'] is not None else '-'} | "
            f"{'-' if cpu is None else f'{cpu:.0f}%'} | {max(others, 0):.0f}% |")


OUTSIDE_HEADER = ("| traffic | users | health p50 / p99 / max ms | ListLegalActions p50 / p99 / max ms |\n"
                  "|---|---:|---|---|")


def outside_row(label: str, users: int, s: dict[str, Any]) -> str:
    """The plain client's probes of a run: the server's answers without locust's own queueing."""
    during = s["health_during_load"]
    legal = during.get("legal_actions") or {}
    return (f"| {label} | {users} | {_ms(during['p50_ms'])} / {_ms(during.get('p99_ms'))} / "
            f"{_ms(during['max_ms'])} | "
            f"{_ms(legal.get('p50_ms'))} / {_ms(legal.get('p99_ms'))} / {_ms(legal.get('max_ms'))} |")


HEADER = ("| traffic | users | RPC | ok req/s | p50 ms | p95 ms | p99 ms | failed | rejected "
          "| iterations/search | server CPU | other CPU |\n"
          "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def _cell(s: dict[str, Any], name: str) -> str:
    """One RPC of a run as "req/s · p50/p95/p99 ms · iterations"."""
    r = s["load"]["rpcs"].get(name)
    if r is None:
        return "no requests"
    iterations = "-" if r["mean_iterations"] is None else f"{r['mean_iterations']:,}"
    return f"{r['ok_per_s']:.1f} · {_ms(r['p50_ms'])}/{_ms(r['p95_ms'])}/{_ms(r['p99_ms'])} · {iterations}"


def _p50_p99(r: dict[str, Any] | None) -> str:
    return "-" if not r else f"{_ms(r.get('p50_ms'))} / {_ms(r.get('p99_ms'))}"


def markdown_parts(found: dict[tuple[str, int], dict[str, Any]], users: list[int]) -> dict[str, str]:
    """The sweep as docs/benchmarks/load.md shows it: a row a user count, the suggestion-only
    runs ("suggestions") and the mixed runs with the plain client's probes ("mixed")."""
    def cpu(s: dict[str, Any] | None) -> str:
        percent = ((s or {}).get("server_cpu") or {}).get("mean_percent")
        return "-" if percent is None else f"{percent:.0f}%"

    parts = {}
    alone = [n for n in users if ("suggest50", n) in found or ("suggest500", n) in found]
    if alone:
        parts["suggestions"] = table(
            ["users", "50 ms budget: req/s · p50/p95/p99 ms · iterations",
             "500 ms budget: req/s · p50/p95/p99 ms · iterations", "server CPU (100% = a core), 50 ms / 500 ms"],
            [[n, *(_cell(found[(k, n)], f"SuggestAction {b}ms") if (k, n) in found else "-"
                   for k, b in (("suggest50", 50), ("suggest500", 500))),
              f"{cpu(found.get(('suggest50', n)))} / {cpu(found.get(('suggest500', n)))}"] for n in alone],
            right=[True, False, False, True])
    mixed = [n for n in users if ("mixed", n) in found]
    if mixed:
        rows = []
        for n in mixed:
            s = found[("mixed", n)]
            rpcs, during = s["load"]["rpcs"], s["health_during_load"]
            rows.append([n, _p50_p99(rpcs.get("ListLegalActions")), _p50_p99(rpcs.get("ApplyAction")),
                         _p50_p99(rpcs.get("SuggestAction 50ms")),
                         f"{_p50_p99(during)}, {_p50_p99(during.get('legal_actions'))}",
                         sum(r["failed"] for r in rpcs.values())])
        parts["mixed"] = table(
            ["users", "ListLegalActions p50 / p99 ms", "ApplyAction p50 / p99 ms", "50 ms suggestions p50 / p99 ms",
             "plain client: health p50 / p99, ListLegalActions p50 / p99 ms", "failed requests"],
            rows, right=[True, False, False, False, False, True])
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the load-test series of docs/benchmarks/load.md.")
    parser.add_argument("--duration", default="20s")
    parser.add_argument("--users", default="1,2,4,16", help="user counts, comma-separated")
    parser.add_argument("--out", default=None, help="folder (default loadtest/out/sweep-<time>)")
    parser.add_argument("--skip-suggest", action="store_true", help="no suggestion-only runs")
    parser.add_argument("--skip-mixed", action="store_true", help="no mixed-traffic runs")
    parser.add_argument("--skip-overload", action="store_true")
    parser.add_argument("--attempts", type=int, default=3,
                        help="runs of one measurement while other jobs disturb it")
    parser.add_argument("--wait-quiet", type=float, default=120.0,
                        help="longest wait for an idle machine before each run, s")
    parser.add_argument("--client-cpus", default=None, metavar="LIST",
                        help="run.py's --client-cpus for every run: the load generator on these CPUs only")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__),
                  [p for p, skip in (("suggestions", args.skip_suggest), ("mixed", args.skip_mixed)) if not skip])
    extra = ["--client-cpus", args.client_cpus] if args.client_cpus else []
    run.parse_args(extra)  # a bad list is refused before the first run
    out = Path(args.out or run.HERE / "out" / time.strftime("sweep-%Y%m%d-%H%M%S"))
    users = [int(u) for u in args.users.split(",")]
    plans: list[tuple[str, str, int, str, list[str]]] = []
    for budget, key in ((50, "suggest_short"), (500, "suggest_normal")):
        for n in users if not args.skip_suggest else ():
            plans.append((f"suggest {budget} ms only", f"suggest{budget}", n, f"{key}=1",
                          [f"SuggestAction {budget}ms"]))
    if not args.skip_mixed:
        for n in users:
            plans.append(("mixed 3:1:4:4", "mixed", n, MIXED,
                          ["SuggestAction 50ms", "SuggestAction 500ms", "ListLegalActions",
                           "ApplyAction"]))
    lines = [HEADER]
    outside = [OUTSIDE_HEADER]
    found: dict[tuple[str, int], dict[str, Any]] = {}
    failed = 0
    for label, slug, n, weights, names in plans:
        code, summary = measure(["--users", str(n), "--duration", args.duration,
                                 "--weights", weights, *extra], out / f"{slug}-u{n}",
                                args.attempts, args.wait_quiet)
        failed += code != 0
        found[(slug, n)] = summary
        lines += [row(label, n, name, summary) for name in names]
        outside.append(outside_row(label, n, summary))
    print("\n" + "\n".join(lines))
    print("\nfrom a plain client beside locust (four times a second):\n" + "\n".join(outside))
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), markdown_parts(found, users))
    if not args.skip_overload:
        code, s = measure(["--overload", "--duration", args.duration, *extra], out / "overload-u16",
                          args.attempts, args.wait_quiet)
        failed += code != 0
        print("\noverload (16 users, --max-searches 2):\n" + HEADER)
        for name in s["load"]["rpcs"]:
            print(row("overload", 16, name, s))
        r = s["load"]["rpcs"]
        print(f"\nrejections {s['load']['rejections']}, timeouts {s['load']['timeouts']}, "
              "rejected p50/p99/max ms: " + ", ".join(
                  f"{n}: {_ms(v['rejected_p50_ms'])}/{_ms(v['rejected_p99_ms'])}/"
                  f"{_ms(v['rejected_max_ms'])}" for n, v in r.items() if v["rejected"]))
        print(f"health during: {s['health_during_load']}; after: {s['after_load']}")
        print("\n" + OUTSIDE_HEADER + "\n" + outside_row("overload", 16, s))
    print(f"\nload average now: {os.getloadavg()}; runs in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
