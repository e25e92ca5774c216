"""The server's memory under the load that used to grow it without a bound,
against its memory budget.

    python loadtest/memory.py                         # the default budget
    python loadtest/memory.py --budget-mb 0           # no budget (trees up to 2,000,000 nodes)
    python loadtest/memory.py --searches 4 --search-s 2 --cancels 60 --mixed-s 5   # short

Starts ``cacao-server`` (two search slots, ``--memory-budget-mb``), measures
its RSS at rest, then runs four phases while sampling ``/proc/PID/status``
(VmRSS) every 50 ms:

1. **long searches**: ``--searches`` SuggestAction calls of ``--search-s``
   seconds without a seed (so each keeps its tree in the cache), two at a
   time, each on a fresh deal;
2. **cancel storm**: ``--cancels`` long searches (a minute each) cancelled by
   their client soon after they start, eight at a time;
3. **long deadlines**: ``--searches`` searches of ``--search-s`` seconds
   with a deadline of ten minutes, two at a time;
4. **mixed traffic**: ``--mixed-s`` seconds of four clients asking for 50 ms
   and 500 ms suggestions, legal actions and moves, beside a 3-second
   analysis now and then.

It prints the base RSS, the peak of each phase and of the whole run (VmHWM),
the RSS at rest after it, and the verdict: the peak above the base within the
budget, and the peak within the memory the Kubernetes manifest asks for a
server with this budget (``cacaoai.server.memory.pod_memory_mib``). The
figures go to ``--out`` as JSON. Exit status 0 when both hold (with
``--budget-mb 0``: always, as a reference).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import Position
from cacaoai.server.memory import pod_memory_mib
from cacaoai.server.options import DEFAULT_MEMORY_BUDGET_MB

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from markdown import add_markdown_option, require_parts, script_name, table, write_sections  # noqa: E402

HERE = Path(__file__).resolve().parent
MIB = 1024  # /proc reports KiB


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="loadtest/memory.py", description=__doc__.split("\n")[0])
    parser.add_argument("--budget-mb", type=int, default=DEFAULT_MEMORY_BUDGET_MB,
                        help="the server's --memory-budget-mb (0: none)")
    parser.add_argument("--searches", type=int, default=8, help="long searches in phases 1 and 3")
    parser.add_argument("--search-s", type=float, default=8.0, help="their time budget, seconds")
    parser.add_argument("--cancels", type=int, default=300, help="cancelled searches in phase 2")
    parser.add_argument("--mixed-s", type=float, default=30.0, help="seconds of mixed traffic")
    parser.add_argument("--out", default=None, help="write the figures here as JSON")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the traffic")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["phases"])
    return args


class Sampler(threading.Thread):
    """RSS of a process every ``interval`` seconds, with the phase it was taken in."""

    def __init__(self, server: LocalServer, interval: float = 0.05):
        super().__init__(daemon=True)
        self.server, self.interval = server, interval
        self.phase = "start"
        self.samples: list[tuple[float, str, int]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            self.samples.append((time.monotonic(), self.phase, self.server.memory_kib()))

    def peak_mib(self, phase: str | None = None) -> float:
        values = [kib for _, p, kib in self.samples if phase in (None, p)]
        return round(max(values, default=0) / MIB, 1)


def deal(rng: random.Random) -> pb.Position:
    position = Position.new(players=rng.choice((2, 3, 4)), seed=rng.randrange(2**32))
    return convert.position_from_json(position.observation(position.to_act))


def suggestion(position: pb.Position, seconds: float) -> pb.SuggestActionRequest:
    request = pb.SuggestActionRequest(position=position)  # no seed: the tree is kept
    request.limits.time.FromNanoseconds(int(seconds * 1e9))
    return request


NODES: list[int] = []  # the tree nodes of each long search's answer


def long_searches(stub: Any, rng: random.Random, count: int, seconds: float, deadline: float) -> list[str]:
    """``count`` searches of ``seconds``, two at a time; their status codes."""
    def one(position: pb.Position) -> str:
        try:
            reply = stub.SuggestAction(suggestion(position, seconds), timeout=deadline)
            NODES.append(reply.evaluation.nodes)
            return "OK"
        except grpc.RpcError as error:
            return error.code().name

    with futures.ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, [deal(rng) for _ in range(count)]))


def cancel_storm(stub: Any, rng: random.Random, count: int) -> int:
    """``count`` minute-long searches, eight at a time, each cancelled soon after it was sent."""
    cancelled = 0
    positions = [deal(rng) for _ in range(16)]
    for start in range(0, count, 8):
        calls = [stub.SuggestAction.future(suggestion(positions[(start + i) % 16], 60.0), timeout=120)
                 for i in range(min(8, count - start))]
        time.sleep(rng.uniform(0.05, 0.3))  # they are queued or searching by now
        for call in calls:
            cancelled += call.cancel()
    return cancelled


def mixed(stub: Any, rng: random.Random, seconds: float) -> dict[str, int]:
    """Four clients of mixed calls for ``seconds``, and an analysis now and then; status counts."""
    with open(HERE / "positions.jsonl") as f:
        samples = [json.loads(line) for line in f if line.strip()]
    counts: dict[str, int] = {}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client(k: int) -> None:
        local = random.Random(rng.random() + k)
        while time.monotonic() < end:
            sample = local.choice(samples)
            observation = convert.position_from_json(sample["observation"])
            kind = local.choice(("short", "short", "normal", "legal", "apply", "analysis"))
            try:
                if kind in ("short", "normal"):
                    stub.SuggestAction(suggestion(observation, 0.05 if kind == "short" else 0.5),
                                       timeout=10)
                elif kind == "legal":
                    stub.ListLegalActions(pb.ListLegalActionsRequest(position=observation), timeout=10)
                elif kind == "apply":
                    stub.ApplyAction(pb.ApplyActionRequest(
                        position=convert.position_from_json(sample["position"]),
                        action=convert.action_from_json(sample["action"])), timeout=10)
                else:
                    request = pb.AnalyzePositionRequest(position=observation)
                    request.limits.time.FromNanoseconds(3_000_000_000)
                    list(stub.AnalyzePosition(request, timeout=30))
                status = "OK"
            except grpc.RpcError as error:
                status = error.code().name
            with lock:
                counts[status] = counts.get(status, 0) + 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    flags = ["--max-searches", "2", "--memory-budget-mb", str(args.budget_mb), "--search-priority", "idle"]
    figures: dict[str, Any] = {"settings": vars(args)}
    with LocalServer(*flags, isolated=True, timeout=60) as server, \
            grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.CacaoServiceStub(channel)
        stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=10)
        time.sleep(1.0)  # the RSS of a server at rest
        base = round(server.memory_kib() / MIB, 1)
        sampler = Sampler(server)
        sampler.start()
        print(f"server pid {server.pid}, --memory-budget-mb {args.budget_mb}; RSS at rest {base} MiB",
              flush=True)
        sampler.phase = "long searches"
        figures["long_searches"] = long_searches(stub, rng, args.searches, args.search_s, args.search_s + 30)
        print(f"long searches: {figures['long_searches'].count('OK')} of {args.searches} OK; "
              f"peak {sampler.peak_mib('long searches')} MiB", flush=True)
        sampler.phase = "cancel storm"
        figures["cancelled"] = cancel_storm(stub, rng, args.cancels)
        print(f"cancel storm: {figures['cancelled']} of {args.cancels} cancelled; "
              f"peak {sampler.peak_mib('cancel storm')} MiB", flush=True)
        sampler.phase = "long deadlines"
        figures["long_deadlines"] = long_searches(stub, rng, args.searches, args.search_s, 600.0)
        print(f"long deadlines: {figures['long_deadlines'].count('OK')} of {args.searches} OK; "
              f"peak {sampler.peak_mib('long deadlines')} MiB", flush=True)
        sampler.phase = "mixed"
        figures["mixed"] = mixed(stub, rng, args.mixed_s)
        print(f"mixed traffic: {figures['mixed']}; peak {sampler.peak_mib('mixed')} MiB", flush=True)
        sampler.phase = "rest"
        time.sleep(2.0)
        sampler.done.set()
        sampler.join()
        rest = round(server.memory_kib() / MIB, 1)
        hwm = round(server.memory_kib("VmHWM") / MIB, 1)
    phases = ("long searches", "cancel storm", "long deadlines", "mixed")
    figures.update({
        "base_mib": base, "peak_mib": hwm, "rest_mib": rest,
        "phase_peaks_mib": {p: sampler.peak_mib(p) for p in phases},
        "budget_mib": args.budget_mb, "pod_memory_mib": pod_memory_mib(args.budget_mb),
        "peak_above_base_mib": round(hwm - base, 1),
        "largest_tree_nodes": max(NODES, default=0),
    })
    ok = not args.budget_mb or (hwm - base <= args.budget_mb and hwm <= pod_memory_mib(args.budget_mb))
    figures["ok"] = ok
    print(f"RSS: base {base} MiB, peak {hwm} MiB (+{hwm - base:.1f}), at rest after {rest} MiB; "
          f"the largest tree of a long search: {max(NODES, default=0):,} nodes")
    if args.budget_mb:
        print(f"budget {args.budget_mb} MiB: peak above base {'within' if hwm - base <= args.budget_mb else 'OVER'}; "
              f"the pod's {pod_memory_mib(args.budget_mb)} MiB: peak "
              f"{'within' if hwm <= pod_memory_mib(args.budget_mb) else 'OVER'}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print("PASS" if ok else "FAIL")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"phases": phases_part(figures, args)})
    return 0 if ok else 1


def phases_part(figures: dict[str, Any], args: argparse.Namespace) -> str:
    """The run as docs/benchmarks/load.md shows it: each phase's outcome and peak RSS, then the verdict."""
    peaks = figures["phase_peaks_mib"]
    mixed_calls = sum(figures["mixed"].values())
    others = {k: v for k, v in figures["mixed"].items() if k != "OK"}
    rows = [["at rest, before", "", f"{figures['base_mib']} MiB"],
            [f"{args.searches} long unseeded searches, two at a time",
             f"{figures['long_searches'].count('OK')} of {args.searches} answered", f"{peaks['long searches']} MiB"],
            [f"{args.cancels} calls cancelled at random moments",
             f"{figures['cancelled']} cancelled in flight, the rest answered", f"{peaks['cancel storm']} MiB"],
            [f"{args.searches} searches with long deadlines",
             f"{figures['long_deadlines'].count('OK')} of {args.searches} answered", f"{peaks['long deadlines']} MiB"],
            [f"{args.mixed_s:g} s of mixed traffic",
             f"{mixed_calls} calls, " + (", ".join(f"{n} {k}" for k, n in others.items()) or "all OK"),
             f"{peaks['mixed']} MiB"],
            ["at rest, after", "", f"{figures['rest_mib']} MiB"]]
    verdict = (f"The peak, {figures['peak_mib']} MiB, is {figures['peak_above_base_mib']} MiB above the base: "
               f"{'within' if figures['ok'] else 'not within'} the {args.budget_mb} MiB budget and the pod's "
               f"{figures['pod_memory_mib']} MiB.") if args.budget_mb else "No budget: a reference run."
    return table(["phase", "outcome", "peak RSS"], rows, right=[False, False, True]) + "\n\n" + verdict


if __name__ == "__main__":
    sys.exit(main())
