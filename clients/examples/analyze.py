"""KataGo-style analysis through the service: stop, MultiPV, allow/avoid, ponder.

    python clients/examples/analyze.py --server 127.0.0.1:50051
    python clients/examples/analyze.py --local        # starts a server of its own

What it does, on a record of a real game (tests/data/records.jsonl, game 0,
after 8 actions):

1. ``start_analysis`` (the bidi ``Analyze`` RPC) with 2 MultiPV lines; after
   the second report a thread calls ``stop()``: the search ends at once and
   the stream still ends with one final report, ``stopped_by`` "stop". The
   request and that final report are printed as proto3 JSON, as grpcurl
   would show them.
2. "What if I play here": the same position with ``avoid`` = the best action.
3. Pondering: the seat that waits thinks on the opponent's time
   (``ponder``), then asks for its own move on the record continued by the
   opponent's move: the server continues the pondered tree
   (``root.reused_visits``).
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Sequence
from pathlib import Path

from google.protobuf import json_format

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.client import CacaoClient, Limit
from cacaoai.client.local import LocalServer
from cacaoai.client.requests import search_request

RECORDS = Path(__file__).resolve().parents[2] / "tests" / "data" / "records.jsonl"


def record_upto(n: int) -> dict:
    """Game 0 of the test records, cut after `n` actions."""
    record = json.loads(RECORDS.read_text().splitlines()[0])
    record.pop("result", None)
    return dict(record, actions=record["actions"][:n])


ACTION_KEYS = {"place", "overbuild", "discard", "resolve"}


def show(title: str, message: object) -> None:
    """`message` as proto3 JSON (what grpcurl and the Connect API show), each
    action on one line, a record shortened to its length."""
    print(f"--- {title}")
    actions: list[str] = []

    def fold(value: object) -> object:
        if isinstance(value, dict):
            if ACTION_KEYS & value.keys():
                actions.append(json.dumps(value, separators=(", ", ": ")))
                return f"@{len(actions) - 1}@"
            if "workerPiles" in value:
                return f"(a record: {len(value.get('actions', []))} actions)"
            return {k: fold(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fold(v) for v in value]
        return value

    text = json.dumps(fold(json_format.MessageToDict(message)), indent=2)
    for i, action in enumerate(actions):
        text = text.replace(f'"@{i}@"', action)
    print(text)


def run(client: CacaoClient) -> None:
    record = record_upto(8)
    strength = Limit(time_s=30)
    # 1. an analysis that the client stops; the request as it goes on the wire
    show("Analyze request (first message: start)", pb.AnalyzeRequest(start=search_request(
        pb.AnalyzePositionRequest(), record, strength, max_candidates=2, report_interval=0.2)))
    analysis = client.start_analysis(record, strength, max_candidates=2, report_interval=0.2)
    for count, _report in enumerate(analysis, 1):
        if count == 2:
            threading.Thread(target=analysis.stop).start()  # from any thread
    final = analysis.wait()
    evaluation = convert.evaluation_to_proto(final.evaluation, max_candidates=2)
    show("final report after stop()", pb.AnalyzePositionResponse(
        position_hash=final.position_hash, seat=final.seat, sequence=final.sequence,
        evaluation=evaluation))
    best = final.evaluation.best_action
    assert best is not None, "a position with a seat to act has a best action"
    # 2. what if the best action is not played
    other = client.suggest(record, Limit(iterations=2_000), avoid=[best], max_candidates=1)
    print(f"--- avoid {best}: best is now {other.action}, win "
          f"{other.evaluation.candidates[0].win_probability:.3f} against "
          f"{final.evaluation.candidates[0].win_probability:.3f}")
    # 3. the waiting seat ponders on the opponent's time, then asks for its move
    pondering = client.ponder(record_upto(7), Limit(iterations=20_000), seat=1)
    pondered = pondering.wait()
    move = client.suggest(record_upto(8), Limit(iterations=2_000))
    root = move.evaluation.root
    assert root is not None, "a suggestion reports its root"
    print(f"--- ponder: seat 1 searched {pondered.evaluation.iterations} iterations while "
          f"seat 0 was to act; its own search then continued that tree: "
          f"root.reused_visits {root.reused_visits}, root.visits {root.visits}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port of cacao-server")
    parser.add_argument("--local", action="store_true",
                        help="start a server in its own process on a free port")
    args = parser.parse_args(argv)
    if not args.local:
        with CacaoClient(args.server) as client:
            run(client)
        return 0
    with LocalServer() as server, CacaoClient(server.address) as client:
        run(client)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
