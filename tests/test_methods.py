"""The method table is the one list of the service's methods: every method of
cacao.v1.CacaoService has its row, and every row is served by both
transports (the grpc.aio servicer and the Connect application), which build
their handlers from the table alone.

No server: the two adapters are built over one CacaoApi and asked for each
method's handler, as grpc.aio and connectrpc ask them.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent import futures
from dataclasses import dataclass

import grpc
import pytest
from support import wait_until
from test_server import position_message, seconds

from cacaoai.api.cacao.v1 import cacao_connect
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.server.connect_transport import CacaoConnect, snake_case
from cacaoai.server.errors import ApiError
from cacaoai.server.grpc_transport import CacaoServicer
from cacaoai.server.handlers import CacaoApi
from cacaoai.server.methods import (
    BY_NAME,
    INLINE_REQUEST_BYTES,
    METHODS,
    SERVICE,
    Admission,
    Deadline,
    Dispatcher,
    new_call,
)
from cacaoai.server.options import ServerOptions
from cacaoai.server.scheduler import INTERACTIVE, Request


@dataclass
class _Details(grpc.HandlerCallDetails):
    method: str
    invocation_metadata: tuple = ()


@pytest.fixture(scope="module")
def adapters():
    api = CacaoApi()
    with futures.ThreadPoolExecutor(1) as pool:
        yield CacaoServicer(api, pool), CacaoConnect(api, pool)


def test_every_method_of_the_service_has_one_row_in_the_table():
    assert sorted(m.name for m in SERVICE.methods) == sorted(m.name for m in METHODS)
    assert len({m.name for m in METHODS}) == len(METHODS)


def test_each_row_says_what_the_proto_says_of_its_streams():
    for method in METHODS:
        descriptor = SERVICE.methods_by_name[method.name]
        assert method.streams == descriptor.server_streaming, method.name
        assert method.start_then_stop == descriptor.client_streaming, method.name
        # a method whose deadline cuts a search budget is one that searches
        assert (method.deadline is Deadline.FITS_BUDGET) == (method.admission is not Admission.QUICK)


def test_the_grpc_servicer_serves_every_row(adapters):
    handler = adapters[0].generic_handler(max_client_calls=0, request_timeout_s=1.0)
    for method in METHODS:
        served = handler.service(_Details(f"/{SERVICE.full_name}/{method.name}"))
        assert served is not None, method.name
        assert served.response_streaming == method.streams, method.name
    assert handler.service(_Details(f"/{SERVICE.full_name}/NoSuchMethod")) is None


def test_the_connect_application_serves_every_row(adapters):
    """The generated application asks the service object for every method of
    the proto by its snake_case name; the adapter has one for each row."""
    connect = adapters[1]
    endpoints = cacao_connect.CacaoServiceASGIApplication(connect)._endpoints(connect)
    assert sorted(endpoints) == sorted(f"/{SERVICE.full_name}/{m.name}" for m in METHODS)
    for method in METHODS:
        endpoint = endpoints[f"/{SERVICE.full_name}/{method.name}"]
        assert endpoint.function.__name__ == snake_case(method.name)
        assert endpoint.function is getattr(connect, snake_case(method.name))


def test_searches_are_refused_on_the_loop_while_every_worker_is_busy():
    """With every search slot taken and no queue, SuggestAction and
    AnalyzePosition (a large one too, which the pool would convert) are
    refused with the scheduler's own error while the only worker thread is
    blocked: the admission runs before any thread hop."""
    api = CacaoApi(ServerOptions(max_searches=1, max_queue=0))
    holder = api.gate.acquire(Request("holder", INTERACTIVE, expected_s=600.0))
    large = pb.AnalyzePositionRequest(position=pb.Position(board=[pb.BoardTile(x=1, y=1)] * 3000))
    assert large.ByteSize() > INLINE_REQUEST_BYTES
    blocked, release = threading.Event(), threading.Event()

    async def refusals(dispatcher: Dispatcher) -> list[ApiError]:
        out = []
        try:
            await dispatcher.unary(BY_NAME["SuggestAction"], pb.SuggestActionRequest(), new_call(None, "c"))
        except ApiError as error:
            out.append(error)
        for request in (pb.AnalyzePositionRequest(), large):
            try:
                async for _ in dispatcher.stream(BY_NAME["AnalyzePosition"], request, new_call(None, "c")):
                    pass
            except ApiError as error:
                out.append(error)
        return out

    with futures.ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: (blocked.set(), release.wait()))
        assert blocked.wait(60)
        try:
            errors = asyncio.run(refusals(Dispatcher(api, pool)))
        finally:
            release.set()
            api.gate.release(holder)
    assert [e.code for e in errors] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
    assert {e.reason for e in errors} == {ErrorReason.TOO_MANY_SEARCHES}
    assert [e.metadata["cause"] for e in errors] == ["queue_full"] * 3


def test_the_time_before_a_calls_search_starts_counts_against_its_budget():
    """A SuggestAction's time budget counts from the call's arrival: here its
    search waits for the only worker thread, held until the 50 ms budget has
    passed, and so stops before its first iteration (with an answer)."""
    api = CacaoApi()
    message, _ = position_message(upto=6)
    request = pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(time=seconds(0.05)))
    blocked, release = threading.Event(), threading.Event()

    async def ask(dispatcher: Dispatcher) -> pb.SuggestActionResponse:
        call = new_call(None, "c")
        assert call.arrived is not None
        reply = asyncio.ensure_future(dispatcher.unary(BY_NAME["SuggestAction"], request, call))
        await asyncio.to_thread(wait_until, lambda: time.monotonic() > call.arrived + 0.05, "the budget to pass")
        release.set()
        return await reply

    with futures.ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: (blocked.set(), release.wait()))
        assert blocked.wait(60)
        try:
            evaluation = asyncio.run(ask(Dispatcher(api, pool))).evaluation
        finally:
            release.set()
    assert evaluation.stopped_by == "time" and evaluation.iterations == 0
    assert evaluation.best_action.WhichOneof("kind")
