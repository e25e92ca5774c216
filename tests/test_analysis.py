"""Issue 12 through the wire: the stoppable bidi Analyze, the per-candidate
figures, allow/avoid, MultiPV lines, tree reuse and pondering, against a real
gRPC server on a free port (the ``cacao_server`` fixture of conftest.py).

The client library's side (stop from another thread, the asyncio client) is
in test_client_analysis.py.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Action, Position

DATA = Path(__file__).parent / "data"
RECORDS = [json.loads(line) for line in (DATA / "records.jsonl").read_text().splitlines()]


@pytest.fixture(autouse=True)
def no_error_logs(caplog):
    """An error-level log from the server fails the test."""
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


class Requests:
    """The request stream of an Analyze call, fed from the test."""

    def __init__(self, *first: pb.AnalyzeRequest):
        self._queue: queue.Queue = queue.Queue()
        for message in first:
            self._queue.put(message)

    def send(self, message: pb.AnalyzeRequest | None) -> None:
        """Sends a message; None half-closes the stream."""
        self._queue.put(message)

    def __iter__(self):
        while (message := self._queue.get()) is not None:
            yield message


def start(position: pb.Position, **fields) -> pb.AnalyzeRequest:
    request = pb.AnalyzePositionRequest(position=position, **fields)
    request.report_interval.FromMilliseconds(50)
    return pb.AnalyzeRequest(start=request)


STOP = pb.AnalyzeRequest(stop=pb.StopAnalysis())


def new_game(stub, seed: int = 7) -> pb.NewGameResponse:
    return stub.NewGame(pb.NewGameRequest(players=2, seed=seed))


def legal(stub, position: pb.Position) -> list[pb.Action]:
    return list(stub.ListLegalActions(pb.ListLegalActionsRequest(position=position)).actions)


def status_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, list[str], str]:
    """(code, message, fields named, reason) of a failed call."""
    status = rpc_status.from_call(error)
    fields, reason = [], ""
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
    return error.code(), error.details(), fields, reason


# --- Analyze: stop and still get the answer -----------------------------------

def test_a_stop_from_another_thread_ends_the_analysis_with_one_final_report(cacao_stub,
                                                                           cacao_server):
    game = new_game(cacao_stub)
    first = start(game.position)
    first.start.limits.time.FromSeconds(60)
    requests = Requests(first)
    reports = []
    for report in cacao_stub.Analyze(iter(requests), timeout=30):
        reports.append(report)
        if len(reports) == 2:  # mid-analysis: stop from another thread
            threading.Thread(target=requests.send, args=(STOP,)).start()
    requests.send(None)
    finals = [r for r in reports if r.evaluation.final]
    assert len(finals) == 1 and reports[-1].evaluation.final
    final = finals[0].evaluation
    assert final.stopped_by == "stop" and final.iterations > 0
    assert final.iterations >= reports[-2].evaluation.iterations
    assert final.best_action in legal(cacao_stub, game.position)
    assert [r.sequence for r in reports] == list(range(len(reports)))
    assert cacao_server[0].cacao_api.gate.running == 0  # the slot is free again
    assert new_game(cacao_stub).position == game.position  # and the server goes on


def test_a_stop_before_any_report_still_gives_one_final_report(cacao_stub):
    game = new_game(cacao_stub, seed=11)
    first = start(game.position)
    first.start.limits.time.FromSeconds(60)
    first.start.report_interval.FromSeconds(30)
    reports = list(cacao_stub.Analyze(iter([first, STOP]), timeout=30))
    assert len(reports) == 1
    final = reports[0].evaluation
    assert final.final and final.stopped_by == "stop"
    assert final.best_action in legal(cacao_stub, game.position)


def test_a_half_close_without_stop_runs_to_the_budget(cacao_stub):
    game = new_game(cacao_stub)
    reports = list(cacao_stub.Analyze(
        iter([start(game.position, seed=5, limits=pb.SearchLimits(iterations=3_000))]), timeout=30))
    final = reports[-1].evaluation
    assert final.final and final.stopped_by == "iterations" and final.iterations == 3_000
    suggestion = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=game.position, seed=5, limits=pb.SearchLimits(iterations=3_000)))
    assert final.best_action == suggestion.action  # the same search as AnalyzePosition's


def test_a_first_message_that_is_not_start_is_invalid_argument(cacao_stub):
    for first in (STOP, pb.AnalyzeRequest()):
        with pytest.raises(grpc.RpcError) as caught:
            list(cacao_stub.Analyze(iter([first]), timeout=10))
        code, message, fields, _ = status_of(caught.value)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and fields == ["start"]
        assert "first message must be start" in message


def test_an_analysis_error_names_its_field_under_start(cacao_stub):
    game = new_game(cacao_stub)
    first = start(game.position, level="grandmaster")
    with pytest.raises(grpc.RpcError) as caught:
        list(cacao_stub.Analyze(iter([first]), timeout=10))
    code, _, fields, reason = status_of(caught.value)
    assert (code, fields, reason) == (grpc.StatusCode.INVALID_ARGUMENT, ["start.level"],
                                      "UNKNOWN_LEVEL")


def test_a_second_start_ends_the_call_with_invalid_argument(cacao_stub, cacao_server):
    game = new_game(cacao_stub)
    first = start(game.position)
    first.start.limits.time.FromSeconds(60)
    with pytest.raises(grpc.RpcError) as caught:
        list(cacao_stub.Analyze(iter([first, first]), timeout=30))
    code, message, fields, _ = status_of(caught.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and fields == ["start"]
    assert "only the first message" in message
    assert new_game(cacao_stub).position == game.position
