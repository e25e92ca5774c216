"""One load test run several times: the spread of its latencies, and which runs meet a mark.

    python loadtest/repeat.py --runs 5 -- --overload --duration 30s
    python loadtest/repeat.py --runs 5 --mark 'SuggestAction*.refusals_p99<=10' --mark 'health.p99<=10' \\
        -- --overload --duration 30s --weights suggest_short=3,suggest_normal=1,legal=4,apply=4,review=0

The p99 of one 30 s run on a shared 2-core machine moves from one run to the
next by more than most changes to the server (the overload run's refusals
gave 7.7 to 15.3 ms over 21 runs of one build in one evening), so a latency
mark is judged on several runs, not one. Each run is ``loadtest/run.py`` with
the arguments after ``--`` (its own server, started afresh), in
``OUT/run-K``, after waiting for the machine to be quiet as ``sweep.py``
does. The table gives, for each figure, the lowest, the median and the
highest value over the runs, and every run's value in order.

Figures (in ms unless named otherwise, from each run's ``summary.json``): ``<RPC>.p50`` and
``<RPC>.p99`` of the answers locust timed (``SuggestAction 50ms.p99``),
``<RPC>.refusals_p99`` where a call was refused, and the plain client's
probes beside locust: ``health.p50``, ``health.p99``,
``plain.ListLegalActions.p99``, ``plain.refusals_p99``; and the machine's
state at the time of the run: ``cores_before.kgames_per_s``, thousands of
random games a second a core of the rules core on every CPU at once just
before the load (the machine's throughput then, which moves from one
hour to the next), ``health_before.p50``, health checks one at a time
on the quiet server (its unloaded latency then), and ``steal_percent``, the
CPU time other virtual machines took during the load (percent of a core).

A mark ``NAME<=VALUE`` (or ``>=``) names figures with shell-style wildcards
(``*`` crosses dots: ``*.refusals_p99`` names the plain client's
``plain.refusals_p99`` too, ``SuggestAction*.refusals_p99`` only locust's);
a run meets it when every figure it names is within the bound in that run.
The exit status is 0 only when every run passed (``run.py``'s own verdict)
and every mark is met by the median run (in at least half the runs).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run  # noqa: E402  (loadtest/run.py)
import sweep  # noqa: E402  (loadtest/sweep.py)
from markdown import add_markdown_option, require_parts, script_name, write_sections  # noqa: E402

MARK = re.compile(r"^\s*(?P<name>[^<>=]+?)\s*(?P<op><=|>=)\s*(?P<value>[-+0-9.eE]+)\s*$")


def figures(summary: dict[str, Any]) -> dict[str, float]:
    """The latency figures of one run's summary, by name (ms); absent ones left out."""
    out: dict[str, float] = {}
    for name, r in summary["load"]["rpcs"].items():
        for key, figure in (("p50_ms", "p50"), ("p99_ms", "p99"), ("rejected_p99_ms", "refusals_p99")):
            if r.get(key) is not None:
                out[f"{name}.{figure}"] = float(r[key])
    quiet = summary.get("health_before_load") or {}
    if quiet.get("p50_ms") is not None:
        out["health_before.p50"] = float(quiet["p50_ms"])
    cores = summary.get("cores_before_load") or {}
    if cores.get("kgames_per_s") is not None:
        out["cores_before.kgames_per_s"] = float(cores["kgames_per_s"])
    steal = (summary.get("machine") or {}).get("steal_percent")
    if steal is not None:
        out["steal_percent"] = float(steal)
    during = summary.get("health_during_load") or {}
    for key, figure in (("p50_ms", "health.p50"), ("p99_ms", "health.p99")):
        if during.get(key) is not None:
            out[figure] = float(during[key])
    for part, figure in (("legal_actions", "plain.ListLegalActions.p99"),
                         ("suggest_resource_exhausted", "plain.refusals_p99")):
        value = (during.get(part) or {}).get("p99_ms")
        if value is not None:
            out[figure] = float(value)
    return out


@dataclass(frozen=True)
class Mark:
    """A bound on the figures a wildcard pattern names."""

    pattern: str
    op: str
    bound: float

    def __str__(self) -> str:
        return f"{self.pattern}{self.op}{self.bound:g}"

    def worst(self, values: dict[str, float]) -> float | None:
        """The named figure furthest from the bound in one run; None when it names none."""
        named = [v for k, v in values.items() if fnmatch.fnmatchcase(k, self.pattern)]
        if not named:
            return None
        return max(named) if self.op == "<=" else min(named)

    def within(self, value: float) -> bool:
        return value <= self.bound if self.op == "<=" else value >= self.bound


def parse_mark(text: str) -> Mark:
    """``NAME<=VALUE`` or ``NAME>=VALUE``; an error that says what a mark looks like."""
    match = MARK.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"bad mark {text!r}: write NAME<=VALUE or NAME>=VALUE, as 'health.p99<=10'")
    try:
        bound = float(match["value"])
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad mark {text!r}: {match['value']!r} is not a number") from None
    if not math.isfinite(bound):
        raise argparse.ArgumentTypeError(f"bad mark {text!r}: the bound must be a finite number")
    return Mark(match["name"], match["op"], bound)


@dataclass(frozen=True)
class Verdict:
    """A mark over the runs: each run's worst named figure and whether the median run meets it."""

    mark: Mark
    values: list[float | None]

    @property
    def met_runs(self) -> int:
        return sum(1 for v in self.values if v is not None and self.mark.within(v))

    @property
    def median(self) -> float | None:
        known = [v for v in self.values if v is not None]
        return statistics.median(known) if known else None

    @property
    def met(self) -> bool:
        return bool(self.values) and 2 * self.met_runs >= len(self.values)


def judge(mark: Mark, runs: Sequence[dict[str, float]]) -> Verdict:
    return Verdict(mark, [mark.worst(values) for values in runs])


def read_run(folder: Path) -> dict[str, float]:
    """The figures of the run in `folder`; none when it wrote no summary (it
    stopped before its load, as when its server never served)."""
    path = folder / "summary.json"
    return figures(json.loads(path.read_text())) if path.exists() else {}


def spread_table(runs: Sequence[dict[str, float]]) -> str:
    """A markdown table: every figure's lowest, median and highest value, and each run's."""
    names = sorted({name for values in runs for name in values})
    lines = [f"| figure (ms) | min | median | max | runs 1..{len(runs)} |", "|---|---:|---:|---:|---|"]
    for name in names:
        per_run = [figs.get(name) for figs in runs]
        known = [v for v in per_run if v is not None]
        digits = 2 if max(known) < 1 else 1  # a quiet health check's half millisecond
        each = ", ".join("-" if v is None else f"{v:.{digits}f}" for v in per_run)
        lines.append(f"| {name} | {min(known):.{digits}f} | {statistics.median(known):.{digits}f} | "
                     f"{max(known):.{digits}f} | {each} |")
    return "\n".join(lines)


def verdict_lines(verdicts: Sequence[Verdict]) -> list[str]:
    lines = []
    for v in verdicts:
        if v.median is None:
            lines.append(f"{v.mark}: names no figure of any run: not met")
            continue
        lines.append(f"{v.mark}: within it in {v.met_runs} of {len(v.values)} runs, median "
                     f"{v.median:.1f}: {'met' if v.met else 'not met'}")
    return lines


#: The parts of BENCHMARKS.md a repetition's marks may replace, by the load.
PARTS = ("one-user", "two-users", "sixteen-users", "overload")


def marks_part(verdicts: Sequence[Verdict]) -> str:
    """The marks as BENCHMARKS.md lists them: each run's worst named figure,
    the median run and how many runs were within the mark."""
    lines = []
    for v in verdicts:
        each = ", ".join("-" if x is None else f"{x:.1f}" for x in v.values)
        median = "no figure" if v.median is None else f"median {v.median:.1f}"
        lines.append(f"- `{v.mark}`: {each} ms ({median}): within it in {v.met_runs} of {len(v.values)} runs")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    argv = list(sys.argv[1:] if argv is None else argv)
    passed: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, passed = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(
        description="Run one load test several times and print the spread of its latencies.",
        epilog="Arguments after -- go to loadtest/run.py (not --out: each run has its own folder).")
    parser.add_argument("--runs", type=int, default=5, help="how many runs (at least 2)")
    parser.add_argument("--mark", type=parse_mark, action="append", default=[],
                        help="a bound, NAME<=VALUE or NAME>=VALUE (wildcards in NAME), "
                             "judged run by run; repeatable")
    parser.add_argument("--out", default=None, help="folder (default loadtest/out/repeat-<time>)")
    parser.add_argument("--wait-quiet", type=float, default=120.0,
                        help="longest wait for an idle machine before each run, s")
    add_markdown_option(parser)
    parser.add_argument("--part", default=None, metavar="NAME",
                        help="with --markdown: the part of BENCHMARKS.md the marks replace (one of PARTS)")
    args = parser.parse_args(argv)
    if args.markdown and args.part not in PARTS:
        parser.error(f"--markdown needs --part, one of {', '.join(PARTS)} (the load the marks are of)")
    if args.markdown:
        require_parts(parser, args.markdown, script_name(__file__), [args.part])
    if args.runs < 2:
        parser.error(f"--runs: at least 2 (a spread needs two runs), got {args.runs}")
    if args.wait_quiet < 0:
        parser.error(f"--wait-quiet: must be 0 or more seconds, got {args.wait_quiet:g}")
    if any(a == "--out" or a.startswith("--out=") for a in passed):
        parser.error("--out after --: each run writes to OUT/run-K; give --out before --")
    return args, passed


def main(argv: list[str] | None = None) -> int:
    args, passed = parse_args(argv)
    run.parse_args(passed)  # bad run.py arguments fail here, before the first run
    out = Path(args.out or run.HERE / "out" / time.strftime("repeat-%Y%m%d-%H%M%S"))
    runs: list[dict[str, float]] = []
    failed = 0
    for k in range(1, args.runs + 1):
        sweep.wait_for_quiet(args.wait_quiet)
        print(f"\n== run {k} of {args.runs}", flush=True)
        where = out / f"run-{k}"
        (where / "summary.json").unlink(missing_ok=True)  # an older repetition's
        failed += run.main(passed + ["--out", str(where)]) != 0
        runs.append(read_run(where))
    verdicts = [judge(mark, runs) for mark in args.mark]
    report = spread_table(runs)
    lines = verdict_lines(verdicts)
    print(f"\n{args.runs} runs of run.py {' '.join(passed)}\n\n{report}")
    if lines:
        print("\nmarks (a run meets one when every figure it names is within it):\n  "
              + "\n  ".join(lines))
    out.mkdir(parents=True, exist_ok=True)
    (out / "repeat.json").write_text(json.dumps({
        "run_arguments": passed, "runs": runs, "failed_runs": failed,
        "marks": [{"mark": str(v.mark), "values": v.values, "met_runs": v.met_runs,
                   "met": v.met} for v in verdicts]}, indent=2))
    print(f"\n{failed} of {args.runs} runs failed; figures in {out / 'repeat.json'}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {args.part: marks_part(verdicts)})
    return 0 if failed == 0 and all(v.met for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
