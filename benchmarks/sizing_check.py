#!/usr/bin/env python3
"""Does ``cacao-size``'s queue model hold for a real server?

Starts a cacao-server with ``--slots`` search slots (and a queue long enough
that nothing is refused) and sends it suggestions at random times (an open
loop: the next call does not wait for the last answer), at each of
``--rates`` a second, for ``--duration`` seconds each. Every answer says how
long its search waited for a slot (``evaluation.queued``) and searched
(``evaluation.elapsed``); the script prints the waits' p50/p90/p99 against
what ``cacao-size`` plans with (:func:`cacaoai.deploy.sizing.wait_quantile`
for the same rate and slots, each search holding its slot for its budget),
the searches' mean time and the calls' latency.

    python benchmarks/sizing_check.py                     # 50 ms, 2 slots, 3 rates, 60 s each
    python benchmarks/sizing_check.py --budget-ms 50:3,500:1 --rates 4,6,8
    python benchmarks/sizing_check.py --quick             # a smoke test

The client runs on the machine's cores too: at the higher rates its own
work and the searches' share the cores, as in the load tests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

import grpc
from markdown import add_markdown_option, require_parts, script_name, write_sections

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.deploy.sizing import budget_mix, budget_option, mean_budget, quantile_of, wait_quantile

ROOT = Path(__file__).resolve().parents[1]
QUANTILES = (0.5, 0.9, 0.99)


def run_rate(stub: cacao_pb2_grpc.CacaoServiceStub, requests: list[list[pb.SuggestActionRequest]],
             weights: list[float], rate: float, duration_s: float,
             seed: int) -> list[tuple[float, float, float]]:
    """Suggestions at random times, `rate` a second for `duration_s`, each
    of a budget drawn by `weights` (``requests[b]``: the requests of budget
    b); (latency, queued, elapsed) in seconds of each answered call."""
    rng = random.Random(seed)
    answers: list[tuple[float, float, float]] = []
    failures: list[str] = []
    pending = threading.Semaphore(0)
    sent = 0

    def done(future: grpc.Future, started: float) -> None:
        latency = time.monotonic() - started
        try:
            reply = future.result()
            evaluation = reply.evaluation
            answers.append((latency, evaluation.queued.ToNanoseconds() / 1e9,
                            evaluation.elapsed.ToNanoseconds() / 1e9))
        except grpc.RpcError as error:
            failures.append(f"{error.code().name}: {error.details()}")
        pending.release()

    start = time.monotonic()
    at = 0.0
    while True:
        at += rng.expovariate(rate)
        if at >= duration_s:
            break
        delay = start + at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        started = time.monotonic()
        # one budget draws nothing: its arrival times are those of a seed alone
        of_budget = requests[rng.choices(range(len(requests)), weights)[0] if len(requests) > 1 else 0]
        future = stub.SuggestAction.future(of_budget[sent % len(of_budget)], timeout=30)
        future.add_done_callback(lambda f, s=started: done(f, s))
        sent += 1
    for _ in range(sent):
        pending.acquire()
    if failures:
        raise SystemExit(f"{len(failures)} of {sent} calls failed, first: {failures[0]}")
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="10,20,28", help="suggestions a second, one run each")
    parser.add_argument("--budget-ms", type=budget_option, default=[(50.0, 1.0)], metavar="MS[:WEIGHT],...",
                        help="each suggestion's time budget, or a mix such as 50:3,500:1 (default 50)")
    parser.add_argument("--slots", type=int, default=2, help="the server's --max-searches")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds a rate")
    parser.add_argument("--seed", type=int, default=1, help="seed of the arrival times")
    parser.add_argument("--quick", action="store_true", help="one rate (5 a second) for 3 s")
    add_markdown_option(parser)
    args = parser.parse_args()
    require_parts(parser, args.markdown, script_name(__file__), ["queue"])
    rates = [5.0] if args.quick else [float(r) for r in args.rates.split(",")]
    duration = 3.0 if args.quick else args.duration
    mix = budget_mix([(ms / 1000.0, weight) for ms, weight in args.budget_ms])
    samples = [json.loads(line) for line in (ROOT / "loadtest" / "positions.jsonl").read_text().splitlines()]
    positions = [convert.position_from_json(s["observation"]) for s in samples]
    requests = [[pb.SuggestActionRequest(position=p, limits=pb.SearchLimits(
        time=convert.seconds_to_duration(seconds))) for p in positions] for seconds, _ in mix]
    server = LocalServer("--max-searches", str(args.slots), "--max-queue", "512", "--search-threads", "1")
    try:
        stub = cacao_pb2_grpc.CacaoServiceStub(grpc.insecure_channel(server.address))
        budgets = " and ".join(f"{seconds * 1000:g} ms ({share:.0%})" for seconds, share in mix)
        print(f"cacao-server {server.address}, {args.slots} slots, suggestions at {budgets}, "
              f"{duration:g} s a rate; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
        head = " | ".join(f"wait p{int(q * 100)} ms (model)" for q in QUANTILES)
        lines = [f"| rate /s | calls | search ms, mean | slots busy | {head} | latency p50 / p99 ms |",
                 "|---:|---:|---:|---:|" + "---:|" * len(QUANTILES) + "---|"]
        print("\n".join(lines))
        for index, rate in enumerate(rates):
            answers = run_rate(stub, requests, [share for _, share in mix], rate, duration, args.seed + index)
            searched = sum(a[2] for a in answers) / len(answers)
            waits = [a[1] for a in answers]
            latencies = [a[0] for a in answers]
            cells = " | ".join(
                f"{quantile_of(waits, q) * 1000:.1f} ({wait_quantile(1, args.slots, rate, mix, q) * 1000:.1f})"
                for q in QUANTILES)
            busy = rate * mean_budget(mix) / args.slots
            lines.append(f"| {rate:g} | {len(answers)} | {searched * 1000:.1f} | {busy:.0%} | {cells} | "
                         f"{quantile_of(latencies, 0.5) * 1000:.1f} / {quantile_of(latencies, 0.99) * 1000:.1f} |")
            print(lines[-1], flush=True)
    finally:
        server.stop()
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"queue": "\n".join(lines)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
