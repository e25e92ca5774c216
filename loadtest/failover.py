"""Failover under load: replicas killed and drained while locust plays, and
not one move request may fail.

    python loadtest/failover.py                                  # 3 replicas, 60 s, 3 kills, 1 drain
    python loadtest/failover.py --duration 20s --kills 3 --drains 1 --users 2   # the CI run

Starts nginx in front of ``--replicas`` cacao-server replicas
(``cacao-replicas --restart``: a replica whose process ends is started again
on its port, as a supervisor or Kubernetes would), then runs locust through
nginx with the project's client library and its retry policy (``--retries``:
UNAVAILABLE retried for every call, RESOURCE_EXHAUSTED for searches; every
suggestion seeded, so that a retry on another replica asks for the same
answer). While locust runs, at even intervals:

- ``--kills`` times, ``kill -9`` one replica (in turn): its calls in flight
  break, nginx answers them 502 (UNAVAILABLE to the client, which retries
  elsewhere), the health checks take it out of the upstreams, it is started
  again, and the test waits until it is back among the serving upstreams;
- ``--drains`` times, SIGTERM one replica: it drains (health NOT_SERVING,
  calls still answered), nginx stops sending to it, it ends its calls and
  exits, and is started again; then SIGUSR1 (a drain without a stop) and
  SIGUSR2 (back) on another one.

It writes ``OUT/summary.json`` and locust's files (as ``run.py``), prints per
call the requests, failures and latencies, each event with the time the
replica took to come back, and ends with PASS when no move request
(SuggestAction) failed, no other call failed, and every replica came back.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "benchmarks"))

import run as loadrun  # noqa: E402  (loadtest/run.py: locust, the summary)
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

from cacaoai.client.local import ServiceProcess, StartError  # noqa: E402

REPLICA = re.compile(r"^replica (\d+) pid (\d+) on (\S+)$")
EXITED = re.compile(r"^replica (\d+) exited with (-?\d+)$")
UPSTREAM = re.compile(r"^upstream serving (\S+) down (\S+)$")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="loadtest/failover.py", description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--duration", default="60s", help="locust's run time (30s, 2m)")
    parser.add_argument("--kills", type=int, default=3, help="replicas killed with SIGKILL")
    parser.add_argument("--drains", type=int, default=1,
                        help="replicas drained with SIGTERM (and one SIGUSR1/SIGUSR2 cycle)")
    parser.add_argument("--max-searches", type=int, default=1, help="search slots of each replica")
    parser.add_argument("--weights", default="suggest_short=4,suggest_normal=1,legal=2,apply=2",
                        help="locust's mix (keys as run.py's)")
    parser.add_argument("--retries", type=int, default=4, help="the client's retries (at most 4)")
    parser.add_argument("--back-within", type=float, default=60.0,
                        help="seconds a replica may take to serve again after an event")
    parser.add_argument("--out", default=None, help="output folder (default loadtest/out/<time>-failover)")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["calls"])
    args.duration_s = loadrun.parse_duration(args.duration)
    if args.replicas < 2:
        parser.error("--replicas must be at least 2: one must serve while another is away")
    return args


class Replicas:
    """cacao-replicas in its own process, and what its output says: each
    replica's pid and whether nginx sends to it."""

    def __init__(self, args: argparse.Namespace, log: Any):
        self.changed = threading.Condition()
        self.pids: dict[int, int] = {}
        self.serving: set[int] = set()
        self.events: list[tuple[float, str]] = []
        self._log = log
        flags = ["--max-searches", str(args.max_searches), "--search-priority", "idle",
                 "--worker-threads", str(2 * args.max_searches + 12)]
        command = [*loadrun.REPLICAS, "--replicas", str(args.replicas), "--port", "0", "--restart",
                   "--poll", "0.25", "--keep", "--", *flags]
        self.process = ServiceProcess(command, r"^ready$", name="cacao-replicas", log=self._line,
                                      timeout=60.0)
        for line in self.process.startup_log:
            self._read(line)
        nginx = next(m for m in (re.match(r"nginx pid \d+ on (\S+) \(config in (\S+)\)", line)
                                 for line in self.process.startup_log) if m)
        self.address, self.folder = nginx.group(1), Path(nginx.group(2))

    def _line(self, line: str) -> None:
        self._log(line)
        self._read(line)

    def _read(self, line: str) -> None:
        text = line.strip()
        with self.changed:
            if m := REPLICA.match(text):
                self.pids[int(m.group(1))] = int(m.group(2))
            elif m := UPSTREAM.match(text):
                self.serving = {int(i) for i in m.group(1).split(",") if i != "-"}
            else:
                return
            self.events.append((time.time(), text))
            self.changed.notify_all()

    def wait(self, condition: Any, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(condition, timeout)

    def stop(self) -> int:
        return self.process.stop(30.0)

    def broken_calls(self) -> dict[str, int]:
        """From nginx's access log (kept until now, then removed): calls whose
        replica went away with them (no gRPC status from it: nginx answered
        UNAVAILABLE and the client retried), and calls by the replicas' gRPC status."""
        statuses: dict[str, int] = {}
        try:
            with open(self.folder / "access.log") as f:
                for line in f:
                    m = re.search(r"grpc_status=(\S+)", line)
                    if m:
                        statuses[m.group(1)] = statuses.get(m.group(1), 0) + 1
        except OSError:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
        return {"broken": statuses.pop("-", 0),
                **{f"grpc_status_{k}": v for k, v in sorted(statuses.items())}}


def plan(args: argparse.Namespace) -> list[tuple[float, str, int]]:
    """(seconds after the start, what, replica) of each event, evenly over the
    run between a warm-up and a tail where nothing happens."""
    kinds = ["kill"] * args.kills + ["drain"] * args.drains + (["pause"] if args.drains else [])
    warm, tail = min(3.0, args.duration_s / 10), min(5.0, args.duration_s / 6)
    step = (args.duration_s - warm - tail) / max(len(kinds), 1)
    return [(warm + k * step, kind, k % args.replicas) for k, kind in enumerate(kinds)]


def act(replicas: Replicas, kind: str, index: int, back_within: float) -> dict[str, Any]:
    """One event on replica ``index``; what happened and how long it took to serve again."""
    with replicas.changed:
        pid = replicas.pids[index]
    began = time.monotonic()
    record: dict[str, Any] = {"event": kind, "replica": index, "pid": pid, "at": time.time()}
    if kind == "pause":  # a drain without a stop: out of nginx, then back
        os.kill(pid, signal.SIGUSR1)
        record["left"] = replicas.wait(lambda: index not in replicas.serving, back_within)
        os.kill(pid, signal.SIGUSR2)
        record["back"] = replicas.wait(lambda: index in replicas.serving, back_within)
    else:
        os.kill(pid, signal.SIGKILL if kind == "kill" else signal.SIGTERM)
        record["left"] = replicas.wait(lambda: index not in replicas.serving, back_within)
        record["back"] = replicas.wait(
            lambda: replicas.pids.get(index) != pid and index in replicas.serving, back_within)
        record["new_pid"] = replicas.pids.get(index)
    record["back_s"] = round(time.monotonic() - began, 2)
    return record


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out or HERE / "out" / (time.strftime("%Y%m%d-%H%M%S") + "-failover")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("raw.*.csv"):
        old.unlink()
    run_args = loadrun.parse_args(["--users", str(args.users), "--duration", args.duration,
                                   "--weights", args.weights, "--retries", str(args.retries),
                                   "--seeded", "--out", str(out)])
    log = open(out / "server.log", "w")
    try:
        replicas = Replicas(args, log.write)
    except StartError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    events: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    try:
        loadrun.wait_until_serving(replicas.address)
        print(f"failover: {args.users} users through nginx {replicas.address} to {args.replicas} "
              f"replicas for {args.duration}; {args.kills} kills, {args.drains} drains "
              f"(output in {out})", flush=True)
        outcome: dict[str, Any] = {}

        def locust() -> None:
            outcome["locust"] = loadrun.run_locust(loadrun.locust_commands(run_args, replicas.address, out),
                                                   out, args.duration_s)

        runner = threading.Thread(target=locust)
        began = time.monotonic()
        runner.start()
        for at, kind, index in plan(args):
            time.sleep(max(0.0, began + at - time.monotonic()))
            record = act(replicas, kind, index, args.back_within)
            events.append(record)
            print(f"  {kind:<5} replica {index} (pid {record['pid']}): out of nginx "
                  f"{'yes' if record['left'] else 'NO'}, back {'yes' if record['back'] else 'NO'} "
                  f"after {record['back_s']} s", flush=True)
        runner.join()
        code = outcome["locust"][0]
        load = loadrun.summarise(loadrun.read_raw(out), allow_rejections=False)
        moves = {n: r for n, r in load["rpcs"].items() if n.startswith("SuggestAction")}
        summary = {
            "settings": {k: v for k, v in vars(args).items() if k != "duration_s"},
            "target": replicas.address, "locust_exit_code": code, "load": load,
            "events": events, "replica_events": [e for _, e in replicas.events],
            "failed_moves": sum(r["failed"] for r in moves.values()),
            "moves": sum(r["requests"] for r in moves.values()),
            "kills": sum(e["event"] == "kill" for e in events),
        }
    finally:
        summary["replicas_exit_code"] = replicas.stop()
        summary["nginx"] = replicas.broken_calls()
        log.close()
    problems = []
    if summary["failed_moves"]:
        problems.append(f"{summary['failed_moves']} move requests failed")
    if summary["load"]["failures"] - summary["failed_moves"]:
        problems.append(f"{summary['load']['failures'] - summary['failed_moves']} other requests failed")
    if not summary["moves"]:
        problems.append("no move request was made")
    missing = [e for e in events if not (e["left"] and e["back"])]
    if missing:
        problems.append(f"{len(missing)} events without the replica leaving and coming back")
    summary["ok"] = not problems
    summary["verdict"] = problems or [f"0 failed move requests of {summary['moves']} over "
                                      f"{summary['kills']} kills and {args.drains} drains"]
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{'RPC':<24}{'reqs':>7}{'fail':>6}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}  statuses")
    for name, r in summary["load"]["rpcs"].items():
        print(f"{name:<24}{r['requests']:>7}{r['failed']:>6}{r['p50_ms'] or 0:>9.1f}"
              f"{r['p99_ms'] or 0:>9.1f}{r['max_ms'] or 0:>9.1f}  {r['statuses'] or ''}")
    print(f"nginx: {summary['nginx'].get('broken', 0)} calls broken by a replica going away "
          f"(answered UNAVAILABLE; the client retried them); gRPC statuses from the replicas "
          f"{ {k[12:]: v for k, v in summary['nginx'].items() if k.startswith('grpc_status_')} }")
    print(("PASS" if summary["ok"] else "FAIL") + ": " + "; ".join(summary["verdict"]))
    print(f"summary: {out / 'summary.json'}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"calls": markdown_part(summary)})
    return 0 if summary["ok"] else 1


def markdown_part(summary: dict[str, Any]) -> str:
    """The run as docs/benchmarks/load.md shows it: each call's requests, failures and
    latency, then how the events went and the verdict."""
    body = [[name, f"{r['requests']:,}", r["failed"], f"{r['p50_ms'] or 0:.1f} / {r['p99_ms'] or 0:.1f}"]
            for name, r in summary["load"]["rpcs"].items()]
    events = summary["events"]
    back = [e["back_s"] for e in events if e["left"] and e["back"]]
    timing = (f"{len(back)} of {len(events)} events took their replica out of nginx's upstreams and back"
              + (f", within {min(back)}–{max(back)} s" if back else ""))
    broken = summary["nginx"].get("broken", 0)
    return (table(["calls", "requests", "failed", "p50 / p99 ms"], body, right=[False, True, True, False])
            + f"\n\n{timing}; {broken} calls in flight on a replica that went away were answered "
              f"`UNAVAILABLE` by nginx and retried by the client. "
            + ("PASS" if summary["ok"] else "FAIL") + ": " + "; ".join(summary["verdict"]) + ".")


if __name__ == "__main__":
    sys.exit(main())
