"""The search scheduler and the memory budget in a real server: moves before
analysis, waiting and refusing by the deadline, caps per client and role, the
trees' memory, over gRPC and HTTP alike.

Searches that must still be running when the test looks are given long
budgets (ten minutes) and ended by a stop or a cancel; the tests wait on the
scheduler (``wait_for``) or on a report, never for a while; a deadline that
must pass is an injected clock moved by hand.
"""

from __future__ import annotations

import http.client
import json
import threading
import time

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from support import GUARD_S, TEST_SERVER_FLAGS, server_options
from test_server import position_message, seconds

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.server import ServerOptions, create_server, errors
from cacaoai.server.handlers import CacaoApi, Call
from cacaoai.server.scheduler import BACKGROUND, INTERACTIVE, Request

pytestmark = pytest.mark.integration

INTERACTIVE_PRIORITY, BACKGROUND_PRIORITY = pb.SEARCH_PRIORITY_INTERACTIVE, pb.SEARCH_PRIORITY_BACKGROUND


def started(**settings):
    """A started in-process server whose searches may run ten minutes (a test's
    server, support.TEST_SERVER); (server, stub, channel)."""
    options = server_options(**{"worker_threads": 12, "max_searches": 2, "grace_s": 0.0, **settings})
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return server, cacao_pb2_grpc.CacaoServiceStub(channel), channel


@pytest.fixture
def two_slots():
    server, stub, channel = started()
    yield server, stub
    channel.close()
    server.stop(0).wait()


@pytest.fixture
def one_busy_slot():
    """One slot that a move cannot take: an interactive analysis holds it, of
    2,000,000 iterations (40 s expected, at the scheduler's cautious speed)."""
    server, stub, channel = started(max_searches=1, interactive_max_time_s=600.0,
                                    max_queue_wait_s=600.0)
    holder = stub.AnalyzePosition(analysis(600, iterations=2_000_000, priority=INTERACTIVE_PRIORITY))
    next(holder)  # it runs
    yield server, stub, holder
    holder.cancel()
    channel.close()
    server.stop(0).wait()


def analysis(time_s: float | None = None, iterations: int | None = None, **fields) -> pb.AnalyzePositionRequest:
    message, _ = position_message(upto=6)
    limits = pb.SearchLimits(iterations=iterations or 0)
    if time_s is not None:
        limits.time.CopyFrom(seconds(time_s))
    return pb.AnalyzePositionRequest(position=message, report_interval=seconds(0.05), limits=limits,
                                     **fields)


def move(iterations: int = 300, **fields) -> pb.SuggestActionRequest:
    message, _ = position_message(upto=6)
    return pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(iterations=iterations),
                                   **fields)


class Stoppable:
    """An Analyze call: reports come in on a thread, ``stop()`` sends its stop."""

    def __init__(self, stub, request: pb.AnalyzePositionRequest):
        self._stop = threading.Event()
        self.reports: list[pb.AnalyzePositionResponse] = []
        self.first = threading.Event()

        def messages():
            yield pb.AnalyzeRequest(start=request)
            self._stop.wait()
            yield pb.AnalyzeRequest(stop=pb.StopAnalysis())

        self._call = stub.Analyze(messages(), timeout=120)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for report in self._call:
            self.reports.append(report)
            self.first.set()

    def stop(self) -> pb.Evaluation:
        self._stop.set()
        self._thread.join(GUARD_S)
        assert [r.evaluation.final for r in self.reports].count(True) == 1
        return self.reports[-1].evaluation


def status_details(error: grpc.RpcError) -> dict:
    found = {}
    for packed in rpc_status.from_call(error).details:
        for kind in (error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo):
            if packed.Is(kind.DESCRIPTOR):
                message = kind()
                packed.Unpack(message)
                found[kind.__name__] = message
    return found


# --- moves before analysis ------------------------------------------------------------

def test_a_move_is_answered_while_analyses_fill_every_slot_and_they_go_on_after(two_slots):
    server, stub = two_slots
    gate = server.cacao_api.gate
    analyses = [Stoppable(stub, analysis(600)) for _ in range(2)]
    for a in analyses:
        assert a.first.wait(GUARD_S)  # both run: every slot is taken
    reply = stub.SuggestAction(move(), timeout=60)
    assert reply.evaluation.iterations == 300 and reply.evaluation.final
    assert reply.evaluation.priority == INTERACTIVE_PRIORITY
    assert gate.preemptions == 1  # one analysis paused for it, not both
    assert gate.wait_for(lambda g: g.running == 2 and g.paused == 0, GUARD_S)  # and it goes on
    finals = [a.stop() for a in analyses]
    assert [f.stopped_by for f in finals] == ["stop", "stop"]
    assert all(f.priority == BACKGROUND_PRIORITY for f in finals)
    assert sorted(f.paused.ToNanoseconds() > 0 for f in finals) == [False, True]
    assert gate.wait_running(0, GUARD_S)


def test_a_paused_analysis_ends_with_its_whole_budget_and_the_answer_it_gives_unpaused():
    """Paused after its first report (a move takes its one slot), resumed when
    the move ends: its final report is the answer of the same seeded
    analysis never paused."""
    api = CacaoApi(server_options(worker_threads=8, max_searches=1, max_iterations=10**6, tree_cache_mb=0))
    request = analysis(iterations=60_000, seed=5)
    paused_by: list = []
    ready = threading.Event()

    def on_report() -> None:  # in the analysis' own thread, after each report
        if not paused_by:
            paused_by.append(api.gate.submit(Request("a move", INTERACTIVE)))
        ready.set()

    running = api.start_analysis(request, Call(), on_report)
    assert api.gate.wait_for(lambda g: g.paused == 1, GUARD_S)
    api.gate.release(paused_by[0])
    reports = []
    while not running.finished:
        assert ready.wait(GUARD_S)
        ready.clear()
        reports += running.take()
    final = reports[-1].evaluation
    assert final.final and final.stopped_by == "iterations" and final.iterations == 60_000
    assert final.paused.ToNanoseconds() > 0
    again, unpaused_reports = api.start_analysis(request, Call(), ready.set), []
    while not again.finished:
        assert ready.wait(GUARD_S)
        ready.clear()
        unpaused_reports += again.take()
    unpaused = (unpaused_reports + again.take())[-1].evaluation
    assert unpaused.final and unpaused.paused.ToNanoseconds() == 0
    assert final.best_action == unpaused.best_action and final.nodes == unpaused.nodes
    assert [c.visits for c in final.candidates] == [c.visits for c in unpaused.candidates]


# --- waiting and refusing ---------------------------------------------------------------

def test_a_move_waits_for_the_busy_slot_and_starts_when_it_frees(one_busy_slot):
    server, stub, holder = one_busy_slot
    gate = server.cacao_api.gate
    waiting = stub.SuggestAction.future(move(), timeout=120)
    assert gate.wait_for(lambda g: g.queued(INTERACTIVE) == 1, GUARD_S)
    holder.cancel()
    reply = waiting.result(GUARD_S)
    assert reply.evaluation.iterations == 300 and reply.evaluation.queued.ToNanoseconds() > 0


def test_a_move_that_could_not_start_before_its_deadline_is_refused_at_once_with_when_to_retry(
        one_busy_slot):
    server, stub, _ = one_busy_slot
    with pytest.raises(grpc.RpcError) as refused:
        stub.SuggestAction(move(), timeout=5)  # the holder expects 40 s more
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = status_details(refused.value)
    info = details["ErrorInfo"]
    assert info.reason == "TOO_MANY_SEARCHES"
    assert dict(info.metadata) == {"cause": "wait_too_long", "class": "interactive"}
    assert 30 < details["RetryInfo"].retry_delay.ToNanoseconds() / 1e9 <= 40  # when it should end
    # the refusal comes before the request is read: a request without a position gets it too
    with pytest.raises(grpc.RpcError) as unread:
        stub.SuggestAction(pb.SuggestActionRequest(), timeout=5)
    assert unread.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert server.cacao_api.gate.queued() == 0 and server.cacao_api.gate.running == 1


def test_with_no_queue_a_search_that_cannot_start_is_refused_at_once():
    server, stub, channel = started(max_searches=1, max_queue=0, interactive_max_time_s=600.0)
    try:
        holder = stub.AnalyzePosition(analysis(600, priority=INTERACTIVE_PRIORITY))
        next(holder)
        with pytest.raises(grpc.RpcError) as refused:
            stub.SuggestAction(move(), timeout=120)
        info = status_details(refused.value)["ErrorInfo"]
        assert info.metadata["cause"] == "queue_full"
        holder.cancel()
        assert server.cacao_api.gate.wait_running(0, GUARD_S)
        assert stub.SuggestAction(move(), timeout=60).evaluation.iterations == 300
    finally:
        channel.close()
        server.stop(0).wait()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_move_still_waiting_when_its_deadline_nears_is_refused_then():
    clock = Clock()
    api = CacaoApi(ServerOptions(worker_threads=8, max_searches=1), clock=clock)
    holder = api.gate.acquire(Request("someone", INTERACTIVE, expected_s=0.5))
    deadline = clock.now + 2.0
    outcome: list = []

    def ask() -> None:
        try:
            outcome.append(api.suggest_action(move(), Call(time_remaining=lambda: deadline - clock())))
        except errors.ApiError as error:
            outcome.append(error)

    thread = threading.Thread(target=ask)
    thread.start()
    assert api.gate.wait_for(lambda g: g.queued(INTERACTIVE) == 1, GUARD_S)
    clock.now += 2.0  # the holder overran its half second; the deadline has come
    api.gate.poke()
    thread.join(GUARD_S)
    (error,) = outcome
    assert isinstance(error, errors.ApiError) and error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.metadata["cause"] == "wait_too_long" and error.retry_after_s == 0.05
    api.gate.release(holder)
    assert api.gate.active == 0


def test_a_time_budget_counts_from_the_calls_arrival_less_its_wait_for_a_slot():
    clock = Clock()
    api = CacaoApi(server_options(worker_threads=8, max_searches=1, max_queue_wait_s=600.0), clock=clock)
    timed = move(iterations=300)
    timed.limits.time.CopyFrom(seconds(10.0))
    # a move and an analysis whose calls arrived 20 s ago have spent their 10 s
    spent = api.suggest_action(timed, Call(arrived=time.monotonic() - 20)).evaluation
    assert spent.stopped_by == "time" and spent.iterations == 0
    ready = threading.Event()
    running = api.start_analysis(analysis(10.0, iterations=300), Call(arrived=time.monotonic() - 20), ready.set)
    reports = []
    while not running.finished:
        assert ready.wait(GUARD_S)
        ready.clear()
        reports += running.take()
    assert reports[-1].evaluation.stopped_by == "time" and reports[-1].evaluation.iterations == 0
    # but 20 s spent waiting for a slot do not count: the move keeps its budget
    holder = api.gate.acquire(Request("someone", INTERACTIVE, expected_s=0.5))
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(
        api.suggest_action(timed, Call(arrived=time.monotonic() - 20))))
    thread.start()
    assert api.gate.wait_for(lambda g: g.queued(INTERACTIVE) == 1, GUARD_S)
    clock.now += 20.0
    api.gate.release(holder)
    thread.join(GUARD_S)
    (reply,) = outcome
    assert reply.evaluation.stopped_by == "iterations" and reply.evaluation.iterations == 300
    assert reply.evaluation.queued.ToSeconds() == 20


def test_the_reply_time_of_timed_moves_is_learned_for_their_reserve_and_only_theirs():
    """A move its time ended teaches the server how long its reply takes to
    build (apart for explained moves); one its iterations ended does not."""
    api = CacaoApi(server_options(worker_threads=8, max_searches=1))
    timed = move(iterations=300)
    timed.limits.time.CopyFrom(seconds(10.0))
    counted = api.suggest_action(move(iterations=50), Call()).evaluation
    assert counted.stopped_by == "iterations" and api.answering._times == {}
    spent = api.suggest_action(timed, Call(arrived=time.monotonic() - 20)).evaluation
    assert spent.stopped_by == "time"
    assert list(api.answering._times) == [(0,)] and len(api.answering._times[(0,)]) == 1
    assert api.answering.expected((0,)) >= 0 and api.answering.expected((1,)) == api.answering.first_s


def test_a_stopped_analysis_that_waited_for_a_slot_still_answers(one_busy_slot):
    server, stub, _ = one_busy_slot
    waiting = Stoppable(stub, analysis(600))
    assert server.cacao_api.gate.wait_for(lambda g: g.queued(BACKGROUND) == 1, GUARD_S)
    final = waiting.stop()
    assert final.stopped_by == "stop" and final.iterations == 0 and final.best_action.seat >= 0


# --- who gets interactive -----------------------------------------------------------

def test_the_request_its_budget_and_its_clients_share_decide_the_class():
    api = CacaoApi(server_options(worker_threads=8, max_searches=4, max_client_interactive=1,
                                  interactive_max_time_s=0.01))

    def priority(request, client="x") -> int:
        return api.suggest_action(request, Call(client=client)).evaluation.priority

    assert priority(move(iterations=300)) == INTERACTIVE_PRIORITY  # 6 ms at the cautious speed
    assert priority(move(iterations=300, priority=BACKGROUND_PRIORITY)) == BACKGROUND_PRIORITY
    # 20 ms: longer than the server lets run at interactive priority, whatever it asks
    assert priority(move(iterations=1000, priority=INTERACTIVE_PRIORITY)) == BACKGROUND_PRIORITY
    held = api.gate.submit(Request("x", INTERACTIVE))  # x has its one interactive search
    assert priority(move()) == BACKGROUND_PRIORITY and priority(move(), "y") == INTERACTIVE_PRIORITY
    api.gate.release(held)
    ready = threading.Event()
    running = api.start_analysis(analysis(iterations=300), Call(), ready.set)
    reports = []
    while not running.finished:
        assert ready.wait(GUARD_S)
        ready.clear()
        reports += running.take()
    assert reports[-1].evaluation.priority == BACKGROUND_PRIORITY  # an analysis, unless it asks


def test_a_token_with_the_background_role_searches_in_the_background(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("player-secret\nanalyst-secret background\n")
    server, stub, channel = started(auth_tokens=str(tokens))
    try:
        for token, expected in (("player-secret", INTERACTIVE_PRIORITY),
                                ("analyst-secret", BACKGROUND_PRIORITY)):
            reply = stub.SuggestAction(move(priority=INTERACTIVE_PRIORITY), timeout=60,
                                       metadata=[("authorization", f"Bearer {token}")])
            assert reply.evaluation.priority == expected
    finally:
        channel.close()
        server.stop(0).wait()


# --- memory ---------------------------------------------------------------------------------

def test_under_a_small_budget_a_tree_stops_growing_and_the_search_goes_on_with_playouts():
    server, stub, channel = started(max_searches=1, memory_budget_mb=16)
    try:
        limits = stub.GetServerInfo(pb.GetServerInfoRequest()).limits
        assert limits.memory_budget_bytes == 16 * 2**20 and limits.max_tree_nodes == 32_768
        first = stub.SuggestAction(move(iterations=36_000, seed=1), timeout=60).evaluation
        assert first.iterations == 36_000 and first.nodes == 32_768 and first.stopped_by == "iterations"
        again = stub.SuggestAction(move(iterations=36_000, seed=1), timeout=60).evaluation
        assert again.best_action == first.best_action and again.nodes == first.nodes
    finally:
        channel.close()
        server.stop(0).wait()


def test_the_tree_cache_holds_what_the_running_searches_leave_of_the_budget(two_slots):
    server, stub = two_slots
    api = server.cacao_api
    budget = api.options.memory_budget_bytes
    assert api.trees.stats()["max_bytes"] == api.options.tree_cache_bytes
    running = Stoppable(stub, analysis(600))  # no seed: it keeps its tree, at the cap
    assert running.first.wait(GUARD_S)
    reserved = api.memory.reserved
    assert reserved == api.memory.tree_cap() * 180 + 1_310_720
    assert api.trees.stats()["max_bytes"] == min(api.options.tree_cache_bytes, budget - reserved)
    final = running.stop()
    assert final.nodes <= api.memory.tree_cap()
    assert api.gate.wait_running(0, GUARD_S)
    assert api.memory.reserved == 0 and api.trees.stats()["trees"] == 1  # its tree was kept
    assert api.trees.stats()["bytes"] <= api.trees.stats()["max_bytes"] <= budget


# --- any transport --------------------------------------------------------------------------

def test_a_move_over_http_pauses_an_analysis_as_one_over_grpc_does():
    with LocalServer(*TEST_SERVER_FLAGS, "--max-searches", "1", http=True) as server, \
            grpc.insecure_channel(server.address) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        running = Stoppable(stub, analysis(600))
        assert running.first.wait(GUARD_S)
        message, _ = position_message(upto=6)
        body = json.dumps({"position": json.loads(_to_json(message)), "limits": {"iterations": 300}})
        host, port = server.http_url.split("//")[1].rstrip("/").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        connection.request("POST", "/cacao.v1.CacaoService/SuggestAction", body,
                           {"Content-Type": "application/json"})
        reply = connection.getresponse()
        evaluation = json.loads(reply.read())["evaluation"]
        connection.close()
        assert reply.status == 200 and evaluation["priority"] == "SEARCH_PRIORITY_INTERACTIVE"
        final = running.stop()
        assert final.stopped_by == "stop" and final.paused.ToNanoseconds() > 0


def _to_json(message) -> str:
    from google.protobuf import json_format

    return json_format.MessageToJson(message)
