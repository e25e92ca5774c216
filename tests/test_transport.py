"""The transport under misuse: nothing a client does or fails to do wedges
the server, bad requests never hold a search slot, and a shutdown drains.
Real servers on real ports; hang checks are call deadlines, not timed
asserts, and the tests wait on the search gate or on a condition, never for
a while."""

from __future__ import annotations

import signal
import threading
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support import GUARD_S, server_options, wait_until
from test_server import analyze_request, position_message, seconds, start_server_process

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.server import ServerOptions, create_server

SERVICE = "cacao.v1.CacaoService"
HANG_CHECK_S = 10.0  # a call's deadline: far above its time, only to catch a hang

pytestmark = pytest.mark.integration


@pytest.fixture
def server():
    """A fresh server (8 RPC threads, 2 searches of ten minutes at most) and its address."""
    options = server_options(worker_threads=8, max_searches=2, max_iterations=200_000,
                             grace_s=0.0, min_report_interval_s=0.02)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    yield server, f"127.0.0.1:{port}"
    server.stop(0).wait()


def never_ending():
    """A request iterator that never yields: the call is open, its request never comes."""
    threading.Event().wait()
    yield b""  # pragma: no cover


def health_status(channel: grpc.Channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=HANG_CHECK_S).status


def refused_for_too_many_calls(stub) -> bool:
    """Whether a NewGame of this client is refused for its number of calls."""
    try:
        stub.NewGame(pb.NewGameRequest(players=2, seed=1), timeout=HANG_CHECK_S)
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
            return True
        raise
    return False


def test_calls_that_never_send_their_request_wedge_nothing():
    """Twice as many silent calls as RPC threads: health, quick calls and a
    search are still answered. The per-client limit shows when the silent
    calls have reached the server: one more silent call fills it, and its
    cancel leaves room for one call at a time."""
    options = server_options(worker_threads=8, max_searches=2, grace_s=0.0, max_client_calls=17)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            silent = []
            for method in ("NewGame", "SuggestAction", "ApplyAction", "ValidateRecord"):
                call = channel.stream_unary(f"/{SERVICE}/{method}")
                silent += [call.future(never_ending()) for _ in range(4)]
            one_more = channel.stream_unary(f"/{SERVICE}/NewGame").future(never_ending())
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            wait_until(lambda: refused_for_too_many_calls(stub), "the 17 silent calls to arrive")
            one_more.cancel()
            wait_until(lambda: not refused_for_too_many_calls(stub), "the cancel to arrive")
            assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING
            assert stub.NewGame(pb.NewGameRequest(players=2, seed=1),
                                timeout=HANG_CHECK_S).position_hash
            message, _ = position_message(upto=6)
            suggestion = stub.SuggestAction(pb.SuggestActionRequest(
                position=message, limits=pb.SearchLimits(iterations=50)), timeout=HANG_CHECK_S)
            assert suggestion.evaluation.iterations == 50
            assert not any(call.done() for call in silent)
            for call in silent:
                call.cancel()
    finally:
        server.stop(0).wait()


def test_a_call_whose_request_never_comes_ends_after_the_request_timeout():
    server, port = create_server("127.0.0.1:0", ServerOptions(grace_s=0.0, request_timeout_s=0.3))
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            silent = channel.stream_unary(f"/{SERVICE}/SuggestAction").future(never_ending())
            error = silent.exception(timeout=HANG_CHECK_S)
            assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert "did not arrive within 0.3 s" in error.details()
    finally:
        server.stop(0).wait()


def test_one_client_cannot_hold_every_call():
    """--max-client-calls: silent calls of one client count against it, and
    its next call is refused with the reason; health still answers."""
    options = ServerOptions(grace_s=0.0, max_client_calls=3)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            silent = [channel.stream_unary(f"/{SERVICE}/NewGame").future(never_ending())
                      for _ in range(3)]
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)

            def refusal() -> grpc.RpcError | None:
                try:
                    stub.NewGame(pb.NewGameRequest(players=2, seed=1), timeout=HANG_CHECK_S)
                except grpc.RpcError as error:
                    return error
                return None

            refused = wait_until(refusal, "the three silent calls to arrive")
            assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "maximum of 3 calls" in refused.details()
            assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING
            for call in silent:
                call.cancel()

            def server_info() -> pb.GetServerInfoResponse | None:
                try:
                    return stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=HANG_CHECK_S)
                except grpc.RpcError:
                    return None

            info = wait_until(server_info, "the cancels to arrive")
            assert info.limits.max_client_calls == 3
    finally:
        server.stop(0).wait()


def test_undecodable_request_bytes_are_invalid_argument(server):
    with grpc.insecure_channel(server[1]) as channel:
        for method in ("NewGame", "SuggestAction", "AnalyzePosition"):
            kind = channel.unary_stream if method == "AnalyzePosition" else channel.unary_unary
            with pytest.raises(grpc.RpcError) as caught:
                result = kind(f"/{SERVICE}/{method}")(b"\x08", timeout=HANG_CHECK_S)
                list(result) if method == "AnalyzePosition" else None
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a valid cacao.v1." in caught.value.details()
        assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING


def test_analyses_nobody_reads_give_back_their_slots_when_their_budget_ends(server):
    api = server[0].cacao_api
    with grpc.insecure_channel(server[1]) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        message, _ = position_message(upto=6)
        request = pb.AnalyzePositionRequest(position=message, report_interval=seconds(0.02),
                                            max_candidates=100,
                                            limits=pb.SearchLimits(time=seconds(1.5)))
        streams = [stub.AnalyzePosition(request) for _ in range(2)]  # never read
        assert api.gate.wait_running(2, GUARD_S)
        assert api.gate.wait_running(0, GUARD_S)  # both budgets ended; nobody read a report
        suggestion = stub.SuggestAction(pb.SuggestActionRequest(
            position=message, limits=pb.SearchLimits(iterations=20)), timeout=HANG_CHECK_S)
        assert suggestion.evaluation.iterations == 20
        for stream in streams:  # read late: the newest reports, then exactly one final
            reports = list(stream)
            assert [r.evaluation.final for r in reports].count(True) == 1
            assert reports[-1].evaluation.final
            assert [r.sequence for r in reports] == list(range(len(reports)))


def bad_large_position() -> pb.Position:
    """A position far above the large-request size, with a board no game reaches."""
    message, _ = position_message(upto=6)
    for i in range(6000):
        message.board.add(x=1000 + i, y=-7, jungle=message.board[-1].jungle)
    assert message.ByteSize() > 32 * 1024
    return message


def test_bad_large_positions_never_take_a_search_slot(server, monkeypatch):
    """Sixteen bad 60 KB positions at once against two slots: every one is
    INVALID_ARGUMENT (none refused for capacity), no slot is ever taken (the
    gate's own acquire, watched), and a real search right after runs."""
    api = server[0].cacao_api
    bad = pb.SuggestActionRequest(position=bad_large_position(), limits=pb.SearchLimits(iterations=10))
    taken = []
    acquire = api.gate.acquire
    monkeypatch.setattr(api.gate, "acquire", lambda *args, **kwargs: taken.append(args) or
                        acquire(*args, **kwargs))
    with grpc.insecure_channel(server[1]) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)

        def send(_):
            try:
                stub.SuggestAction(bad, timeout=HANG_CHECK_S)
            except grpc.RpcError as error:
                return error.code()
            return grpc.StatusCode.OK

        with futures.ThreadPoolExecutor(16) as pool:
            codes = list(pool.map(send, range(16)))
        assert codes == [grpc.StatusCode.INVALID_ARGUMENT] * 16
        assert taken == []
        message, _ = position_message(upto=6)
        assert stub.SuggestAction(pb.SuggestActionRequest(
            position=message, limits=pb.SearchLimits(iterations=30)),
            timeout=HANG_CHECK_S).evaluation.iterations == 30
        assert len(taken) == 1  # the real search took its slot


def test_a_request_above_the_message_limit_is_refused_by_the_transport(server):
    options = server[0].options
    with grpc.insecure_channel(server[1]) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        info = stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=HANG_CHECK_S)
        assert info.limits.max_message_bytes == options.max_message_bytes == 256 * 1024
        request = pb.ValidateRecordRequest(record_json="x" * (options.max_message_bytes + 1))
        with pytest.raises(grpc.RpcError) as caught:
            stub.ValidateRecord(request, timeout=HANG_CHECK_S)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert health_status(channel) == health_pb2.HealthCheckResponse.SERVING


# --- shutdown ----------------------------------------------------------------------

def test_sigterm_drains_then_ends_an_analysis_with_one_final_report():
    """Health says NOT_SERVING while calls are still answered (the drain); then
    a running analysis ends with exactly one final report, and the process exits 0.
    The drain's 2 seconds are far more than the calls made in it take."""
    process, port = start_server_process("--drain", "2.0", "--grace", "0.2")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            stream = stub.AnalyzePosition(analyze_request(seconds_budget=30), timeout=60)
            first = next(stream)
            assert not first.evaluation.final
            assert health_status(channel, SERVICE) == health_pb2.HealthCheckResponse.SERVING
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service=SERVICE), timeout=HANG_CHECK_S)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            process.send_signal(signal.SIGTERM)
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING  # the drain
            watch.cancel()
            assert health_status(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
            assert stub.NewGame(pb.NewGameRequest(players=3, seed=2), timeout=HANG_CHECK_S).position_hash
            rest = list(stream)  # no error: the stream ends with its final report
            assert [r.evaluation.final for r in rest].count(True) == 1 and rest[-1].evaluation.final
            assert rest[-1].evaluation.stopped_by == "stop" and rest[-1].evaluation.iterations > 0
        assert process.wait(timeout=HANG_CHECK_S) == 0
    finally:
        if process.poll() is None:
            process.kill()


def test_the_transport_free_analysis_streams_to_a_final_report_and_closing_it_frees_the_slot(server):
    """CacaoApi.analyze_position (for fronts other than gRPC) gives the same
    reports; closing it early stops the search and gives back the slot."""
    from cacaoai.server.handlers import Call

    api = server[0].cacao_api
    message, _ = position_message(upto=6)
    request = pb.AnalyzePositionRequest(position=message, report_interval=seconds(0.02),
                                        limits=pb.SearchLimits(iterations=3000), seed=3)
    reports = list(api.analyze_position(request, Call()))
    assert [r.evaluation.final for r in reports].count(True) == 1 and reports[-1].evaluation.final
    assert reports[-1].evaluation.iterations == 3000
    assert [r.sequence for r in reports] == list(range(len(reports)))
    long = pb.AnalyzePositionRequest(position=message, report_interval=seconds(0.02),
                                     limits=pb.SearchLimits(time=seconds(600)))
    stream = api.analyze_position(long, Call())
    next(stream)
    assert api.gate.running == 1
    stream.close()
    assert api.gate.wait_running(0, GUARD_S)  # far sooner than its ten minutes
