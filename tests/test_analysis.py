"""Analysis through the wire: the stoppable bidi Analyze, the per-candidate
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
from support import server_options

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position

DATA = Path(__file__).parent / "data"
RECORDS = [json.loads(line) for line in (DATA / "records.jsonl").read_text().splitlines()]

pytestmark = pytest.mark.integration


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


def start(source: pb.Position | pb.GameRecord, **fields) -> pb.AnalyzeRequest:
    kind = "record" if isinstance(source, pb.GameRecord) else "position"
    request = pb.AnalyzePositionRequest(**{kind: source}, **fields)
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
    analysed = list(cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=game.position, seed=5, limits=pb.SearchLimits(iterations=3_000))))[-1].evaluation
    assert final.best_action == analysed.best_action  # the same search as AnalyzePosition's
    assert [c.visits for c in final.candidates] == [c.visits for c in analysed.candidates]


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


# --- per-candidate figures, MultiPV -------------------------------------------

def record_message(upto: int, index: int = 0) -> pb.GameRecord:
    data = dict(RECORDS[index], actions=RECORDS[index]["actions"][:upto])
    data.pop("result", None)
    return convert.record_from_json(data)


def test_every_candidate_carries_its_figures_and_the_first_ones_their_lines(cacao_stub):
    record = record_message(6)
    reply = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        record=record, seed=1, limits=pb.SearchLimits(iterations=3_000), max_candidates=100))
    evaluation = reply.evaluation
    legal_here = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(record=record)).actions
    assert len(evaluation.candidates) == len(legal_here)  # every root action, ranked
    assert sum(c.prior for c in evaluation.candidates) == pytest.approx(1.0, abs=1e-6)
    assert [c.order for c in evaluation.candidates] == list(range(len(evaluation.candidates)))
    assert evaluation.candidates[0].action == reply.action
    lines = [list(c.principal_variation) for c in evaluation.candidates]
    assert all(line and line[0] == c.action for line, c in zip(lines[:100], evaluation.candidates)
               if c.visits >= 2)
    for c in evaluation.candidates:
        if c.visits:
            assert c.HasField("lcb") and c.lcb <= c.win_probability
            assert c.HasField("expected_gold")
    root = evaluation.root
    assert root.visits == 3_000 and root.reused_visits == 0
    assert 0 <= root.win_probability <= 1 and root.expected_gold > 0


def test_max_candidates_is_the_multipv_count(cacao_stub):
    reply = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        record=record_message(6), seed=1, limits=pb.SearchLimits(iterations=3_000),
        max_candidates=2))
    assert len(reply.evaluation.candidates) == 2
    assert all(c.principal_variation[0] == c.action for c in reply.evaluation.candidates)


# --- allow / avoid ----------------------------------------------------------------

def test_allow_and_avoid_restrict_the_root(cacao_stub):
    game = new_game(cacao_stub)
    actions = legal(cacao_stub, game.position)
    free = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=game.position, seed=3, limits=pb.SearchLimits(iterations=1_000)))
    avoided = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=game.position, seed=3, limits=pb.SearchLimits(iterations=1_000),
        avoid=[free.action]))
    assert avoided.action != free.action and avoided.action in actions
    assert free.action not in [c.action for c in avoided.evaluation.candidates]
    chosen = [a for a in actions if a != free.action][:2]
    allowed = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=game.position, seed=3, limits=pb.SearchLimits(iterations=1_000), allow=chosen))
    assert allowed.action in chosen
    assert {c.action.SerializeToString() for c in allowed.evaluation.candidates} == {
        a.SerializeToString() for a in chosen}


def refused(call, request) -> tuple[grpc.StatusCode, str, list[str], str]:
    with pytest.raises(grpc.RpcError) as caught:
        reply = call(request, timeout=30)
        if not hasattr(reply, "ListFields"):
            list(reply)
    return status_of(caught.value)


def test_a_bad_allow_or_avoid_is_invalid_argument_naming_the_field(cacao_stub, cacao_server):
    game = new_game(cacao_stub)
    good = legal(cacao_stub, game.position)[0]
    far = pb.Action()
    far.CopyFrom(good)
    far.place.x = 30  # no jungle tile next to it
    seat_wrong = pb.Action()
    seat_wrong.CopyFrom(good)
    seat_wrong.seat = 1 - good.seat
    cases = [
        (dict(allow=[good, far]), ["allow[1].place.x", "allow[1].place.y"], "ILLEGAL_ACTION"),
        (dict(avoid=[seat_wrong]), ["avoid[0].seat"], "ILLEGAL_ACTION"),
        (dict(allow=[pb.Action(seat=0)]), ["allow[0]"], "INVALID_ACTION"),
        (dict(allow=[good], avoid=[good]), ["avoid"], "INVALID_REQUEST"),
        (dict(avoid=legal(cacao_stub, game.position)), ["avoid"], "INVALID_REQUEST"),
    ]
    for fields, paths, reason in cases:
        for call, kind in ((cacao_stub.SuggestAction, pb.SuggestActionRequest),
                           (cacao_stub.AnalyzePosition, pb.AnalyzePositionRequest)):
            request = kind(position=game.position, limits=pb.SearchLimits(iterations=100),
                           **fields)
            code, message, named, why = refused(call, request)
            assert (code, named, why) == (grpc.StatusCode.INVALID_ARGUMENT, paths, reason), message
            assert message.startswith(paths[0])
    first = start(game.position, avoid=[far])
    code, _, named, _ = refused(cacao_stub.Analyze, iter([first]))
    assert named == ["start.avoid[0].place.x", "start.avoid[0].place.y"]
    assert cacao_server[0].cacao_api.gate.running == 0
    assert new_game(cacao_stub).position == game.position


# --- tree reuse and pondering -------------------------------------------------------

def test_a_seeded_request_is_fresh_and_deterministic(cacao_stub):
    record = record_message(10)
    request = pb.SuggestActionRequest(record=record, seed=4, limits=pb.SearchLimits(iterations=500))
    first, second = cacao_stub.SuggestAction(request), cacao_stub.SuggestAction(request)
    assert first.evaluation.root.reused_visits == second.evaluation.root.reused_visits == 0
    for reply in (first, second):
        reply.evaluation.ClearField("elapsed")
        reply.evaluation.iterations_per_second = 0
    assert first == second


def test_the_same_observation_continues_its_tree_unless_told_not_to(cacao_stub, cacao_server):
    cacao_server[0].cacao_api.trees.clear()
    game = Position.from_record(RECORDS[1], upto=12)
    position = convert.position_from_json(game.observation(game.to_act))
    ask = dict(position=position, seed=5, limits=pb.SearchLimits(iterations=400))
    first = cacao_stub.SuggestAction(pb.SuggestActionRequest(**ask, reuse_tree=True))
    assert first.evaluation.root.reused_visits == 0
    again = cacao_stub.SuggestAction(pb.SuggestActionRequest(**ask, reuse_tree=True))
    assert again.evaluation.root.reused_visits == 400 and again.evaluation.root.visits == 800
    assert again.evaluation.iterations == 400  # the budget counts new iterations
    fresh = cacao_stub.SuggestAction(pb.SuggestActionRequest(**ask, reuse_tree=False))
    assert fresh.evaluation.root.reused_visits == 0 and fresh.evaluation.root.visits == 400
    kept = cacao_stub.SuggestAction(pb.SuggestActionRequest(**ask, reuse_tree=True))
    assert kept.evaluation.root.reused_visits == 800  # reuse_tree=false kept nothing


def test_a_record_request_continues_the_tree_of_an_analysed_record(cacao_stub, cacao_server):
    cacao_server[0].cacao_api.trees.clear()  # the server is shared: no tree of other tests
    analysed = start(record_message(8), seed=1, limits=pb.SearchLimits(iterations=2_000),
                     reuse_tree=True)
    reports = list(cacao_stub.Analyze(iter([analysed]), timeout=30))
    assert reports[-1].evaluation.final and reports[-1].evaluation.root.reused_visits == 0
    # a suggestion plays with other settings than an analysis: it starts afresh
    suggested = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        record=record_message(9), seed=2, limits=pb.SearchLimits(iterations=500),
        reuse_tree=True))
    assert suggested.evaluation.root.reused_visits == 0
    following = start(record_message(9), seed=2, limits=pb.SearchLimits(iterations=500),
                      reuse_tree=True)
    root = list(cacao_stub.Analyze(iter([following]), timeout=30))[-1].evaluation.root
    assert root.reused_visits > 0 and root.visits == 500 + root.reused_visits


def test_ponder_for_the_seat_not_to_act_then_its_suggestion_continues_the_tree(cacao_stub,
                                                                              cacao_server):
    cacao_server[0].cacao_api.trees.clear()
    record = record_message(7)  # seat 0 is to act; seat 1 ponders
    request = pb.AnalyzePositionRequest(record=record, seat=1, seed=1, reuse_tree=True,
                                        limits=pb.SearchLimits(iterations=2_000))
    reports = list(cacao_stub.AnalyzePosition(request, timeout=30))
    final = reports[-1]
    assert final.seat == 0 and final.evaluation.seat == 1 and final.evaluation.to_act == 0
    assert final.evaluation.iterations == 2_000 and final.evaluation.root.reused_visits == 0
    reply = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        record=record_message(8), seed=2, limits=pb.SearchLimits(iterations=300),
        reuse_tree=True))
    assert reply.seat == 1 and reply.evaluation.root.reused_visits > 0


def test_a_waiting_seat_ponders_from_its_own_observation(cacao_stub):
    game = Position.from_record(RECORDS[0], upto=7)
    waiting = 1 - game.to_act
    observation = convert.position_from_json(game.observation(waiting))
    request = pb.AnalyzePositionRequest(position=observation, seat=waiting, seed=1,
                                        limits=pb.SearchLimits(iterations=500))
    final = list(cacao_stub.AnalyzePosition(request, timeout=30))[-1].evaluation
    assert final.final and final.seat == waiting and final.iterations == 500
    # without seat, the hidden hand of the seat to act is still refused
    request.ClearField("seat")
    code, _, _, _ = refused(cacao_stub.AnalyzePosition, request)
    assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_a_bad_ponder_seat_is_invalid_argument_on_seat(cacao_stub):
    game = Position.from_record(RECORDS[0], upto=7)
    observation = convert.position_from_json(game.observation(0))
    for source, seat in ((dict(record=record_message(7)), 2),
                         (dict(position=observation), 1)):
        code, message, named, _ = refused(cacao_stub.AnalyzePosition, pb.AnalyzePositionRequest(
            **source, seat=seat, limits=pb.SearchLimits(iterations=100)))
        assert (code, named) == (grpc.StatusCode.INVALID_ARGUMENT, ["seat"]), message


def test_server_info_reports_the_tree_cache(cacao_stub, cacao_server):
    info = cacao_stub.GetServerInfo(pb.GetServerInfoRequest())
    assert info.limits.tree_cache_bytes == 256 * 2**20
    assert cacao_server[0].cacao_api.trees.stats()["max_bytes"] == 256 * 2**20


def test_the_tree_cache_size_is_a_flag_and_an_environment_variable():
    from cacaoai.server.options import ServerOptions, parse_args

    assert parse_args([])[2].tree_cache_mb == 256
    assert parse_args(["--tree-cache-mb", "0"])[2].tree_cache_bytes == 0
    assert parse_args([], {"CACAO_TREE_CACHE_MB": "64"})[2].tree_cache_bytes == 64 * 2**20
    with pytest.raises(ValueError, match="tree_cache_mb"):
        ServerOptions(tree_cache_mb=-1)


def test_a_server_without_a_tree_cache_searches_afresh_every_time():
    from cacaoai.server import create_server

    server, port = create_server("127.0.0.1:0", server_options(
        worker_threads=4, max_searches=2, tree_cache_mb=0, grace_s=0.0))
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            from cacaoai.api.cacao.v1 import cacao_pb2_grpc

            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            assert stub.GetServerInfo(pb.GetServerInfoRequest()).limits.tree_cache_bytes == 0
            request = pb.SuggestActionRequest(record=record_message(8), reuse_tree=True,
                                              limits=pb.SearchLimits(iterations=200))
            for _ in range(2):
                assert stub.SuggestAction(request).evaluation.root.reused_visits == 0
    finally:
        server.stop(None).wait()


def test_a_record_replayed_for_its_history_names_a_bad_action_or_result(cacao_stub):
    """A search request that may reuse trees replays its record once, keeping
    its last 16 positions: its errors are those of a plain replay."""
    for cut, bad in ((30, 29), (30, 3)):  # within the last 16 actions, and before them
        record = record_message(cut)
        record.actions[bad].seat = 1 - record.actions[bad].seat
        answers = [refused(cacao_stub.SuggestAction, pb.SuggestActionRequest(
            record=record, reuse_tree=reuse, limits=pb.SearchLimits(iterations=10)))
            for reuse in (True, False)]
        assert answers[0] == answers[1]  # the same error with or without the history
        code, _, named, reason = answers[0]
        assert (code, named, reason) == (grpc.StatusCode.INVALID_ARGUMENT,
                                         [f"record.actions[{bad}]"], "INVALID_RECORD")
    finished = convert.record_from_json(RECORDS[0])
    finished.result.seats[0].gold += 1
    finished.actions.pop()  # the game is not over: the written result disagrees
    code, message, named, _ = refused(cacao_stub.SuggestAction, pb.SuggestActionRequest(
        record=finished, reuse_tree=True, limits=pb.SearchLimits(iterations=10)))
    assert (code, named) == (grpc.StatusCode.INVALID_ARGUMENT, ["record.result"]), message
