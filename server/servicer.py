"""The gRPC adapter: :class:`CacaoServicer` turns gRPC calls into
:class:`~.service.CacaoApi` calls and their answers and errors back.

The transport is grpc.aio: one event loop receives every request and sends
every answer, so a client that opens a call and never sends its request (or
never reads its answer) holds no thread, and health keeps answering. The
handlers of :class:`~.service.CacaoApi` run on the loop when the request is
small and nothing blocks (well under a millisecond: the GIL would serialise
them anyway, and a thread switch costs more), else in a bounded thread pool
(``worker_threads``); a search holds a pool thread (SuggestAction) or a
thread of its own (AnalyzePosition), at most ``max_searches`` at once.

:meth:`CacaoServicer.generic_handler` serves every method as one that
streams its requests, so that a guard runs as soon as a call opens: it
counts the call against ``max_client_calls`` of its client, gives the
request ``request_timeout_s`` to arrive, and answers INVALID_ARGUMENT for
bytes that do not decode.

:class:`CacaoServicer` is a thin adapter: it turns the gRPC context into a
:class:`~.service.Call` (deadline, client, and a stop flag that the client's
cancellation sets), runs :class:`~.service.CacaoApi` in the pool, and turns
an :class:`~.errors.ApiError` into a rich ``google.rpc.Status``. Requests
above ``LARGE_REQUEST_BYTES`` are converted at most ``LARGE_REQUESTS`` at a
time (the rest wait without a thread), which bounds the memory of many large
requests at once.

Building, starting, draining and stopping a server is :mod:`.lifecycle`.

Thread-safety: the servicer holds no state of its own besides the pool and
the large-request semaphore.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from concurrent import futures
from typing import Any, TypeVar

import grpc
from google.protobuf import message_factory
from google.protobuf.message import Message
from grpc_status import rpc_status

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.search import StopFlag

from . import errors, observe, security
from .errors import ApiError
from .service import Analysis, CacaoApi, Call, analysis_reports

T = TypeVar("T")

log = logging.getLogger("cacaoai.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["CacaoService"].full_name
INLINE_REQUEST_BYTES = 8 * 1024  # handled on the loop: every real request but searches
LARGE_REQUEST_BYTES = 32 * 1024  # five times the largest real record
LARGE_REQUESTS = 1  # large requests converted at once
FINAL_REPORT_S = 0.5  # after a shutdown stops the searches: time for their answers


async def _abort(context: grpc.aio.ServicerContext, error: ApiError, method: str) -> None:
    log.info("%s: %s", method, error)
    status = rpc_status.to_status(error.to_status())
    await context.abort(status.code, status.details, status.trailing_metadata)


async def _internal(context: grpc.aio.ServicerContext, method: str) -> None:
    log.exception("%s failed", method)
    await context.abort(grpc.StatusCode.INTERNAL, "internal error; the server log has the details")


class CacaoServicer(pb_grpc.CacaoServiceServicer):
    """cacao.v1.CacaoService over a :class:`CacaoApi`, on grpc.aio."""

    def __init__(self, api: CacaoApi, pool: futures.Executor,
                 tokens: security.Tokens | None = None,
                 observers: observe.Observers | None = None):
        self.api = api
        self.pool = pool
        self.tokens = tokens
        self.observers = observers or observe.Observers()
        self._last_reply: dict[int, Any] = {}  # id(context) -> last streamed reply
        self._large = asyncio.Semaphore(LARGE_REQUESTS)

    def _call(self, context: grpc.aio.ServicerContext) -> Call:
        """The Call of an RPC: its deadline, its client and a fresh stop flag."""
        remaining = context.time_remaining()
        deadline = None if remaining is None else time.monotonic() + remaining
        return Call(
            time_remaining=(lambda: None) if deadline is None else (lambda: deadline - time.monotonic()),
            stop=StopFlag(),
            client=security.client_key(context.peer(), context.invocation_metadata(), self.tokens),
        )

    async def _run(self, request: Any, work: Callable[[], T], blocks: bool = False) -> T:
        """``work()``: on the loop when it is quick (a small request that does
        not search: two thread switches would cost more than the work), else
        in the pool; large requests wait for their turn first."""
        size = request.ByteSize()
        if size <= INLINE_REQUEST_BYTES and not blocks:
            return work()
        loop = asyncio.get_running_loop()
        guard = self._large if size > LARGE_REQUEST_BYTES else contextlib.nullcontext()
        async with guard:
            return await loop.run_in_executor(self.pool, work)

    async def _unary(self, method: str, request: Any, work: Callable[[], Any],
                     context: grpc.aio.ServicerContext, call: Call | None = None) -> Any:
        try:
            return await self._run(request, work, blocks=call is not None)
        except ApiError as error:
            await _abort(context, error, method)
        except asyncio.CancelledError:
            raise
        except Exception:  # one bad request never harms the next
            await _internal(context, method)
        finally:
            if call is not None:
                call.stop.set()  # a cancelled call's search ends at once

    def generic_handler(self, max_client_calls: int, request_timeout_s: float) -> grpc.GenericRpcHandler:
        """The service's handlers, each guarded by :meth:`_guard`.

        Every method is served as one that streams its requests (the wire
        format is the same; clients see the unary methods of the proto), so
        that the guard runs as soon as a call opens, before its request
        arrives: it counts the call against its client's limit and gives
        the request ``request_timeout_s`` seconds to come.
        """
        counts: dict[str, int] = {}
        handlers = {}
        for method in pb.DESCRIPTOR.services_by_name["CacaoService"].methods:
            request_class = message_factory.GetMessageClass(method.input_type)
            behavior = self._guard(method.name, getattr(self, method.name), request_class,
                                   counts, max_client_calls, request_timeout_s)
            kind = (grpc.stream_stream_rpc_method_handler if method.server_streaming
                    else grpc.stream_unary_rpc_method_handler)
            handlers[method.name] = kind(behavior, request_deserializer=request_class.FromString,
                                         response_serializer=lambda m: m.SerializeToString())
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _guard(self, name: str, implementation: Callable[[Any, Any], Coroutine[Any, Any, Any]],
               request_class: type[Message], counts: dict[str, int], max_client_calls: int,
               request_timeout_s: float) -> Callable[[Any, Any], Coroutine[Any, Any, Any]]:
        """The behavior of one method: limits, then read the one request, then
        answer; every call that ends is handed to the observers."""
        full_method = f"/{SERVICE_NAME}/{name}"

        async def behavior(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            if not self.observers.hooks:
                return await answer(context)
            started = time.perf_counter()
            reply, code = None, grpc.StatusCode.UNKNOWN
            try:
                reply = await answer(context)
                code = grpc.StatusCode.OK
                return reply
            except grpc.aio.AbortError:
                code = context.code() or grpc.StatusCode.UNKNOWN
                raise
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            finally:
                self.observers.finish(observe.call_record(
                    full_method, code.name, time.perf_counter() - started,
                    reply if reply is not None else self._last_reply.pop(id(context), None),
                    context.peer()))

        async def answer(context: grpc.aio.ServicerContext) -> Any:
            client = security.client_key(context.peer(), context.invocation_metadata(), self.tokens)
            if max_client_calls and counts.get(client, 0) >= max_client_calls:
                await _abort(context, ApiError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"this client ({client}) already has its maximum of {max_client_calls} calls "
                    "in progress; wait for one to end", ErrorReason.TOO_MANY_CLIENT_CALLS), name)
            counts[client] = counts.get(client, 0) + 1
            try:
                try:
                    request = await asyncio.wait_for(context.read(), request_timeout_s)
                except TimeoutError:
                    request = None
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # the bytes do not decode as the request message
                    await _abort(context, errors.invalid(
                        "request", f"the request bytes are not a valid "
                        f"{request_class.DESCRIPTOR.full_name} message: {error}",
                        ErrorReason.UNDECODABLE_REQUEST), name)
                if request is None:
                    await _abort(context, ApiError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"the request did not arrive within {request_timeout_s:g} s of the call",
                        ErrorReason.REQUEST_TIMEOUT), name)
                if request is grpc.aio.EOF:
                    await _abort(context, errors.invalid("request", "the call sent no request"), name)
                return await implementation(request, context)
            finally:
                counts[client] -= 1
                if not counts[client]:
                    del counts[client]

        return behavior

    async def GetServerInfo(self, request, context):
        return await self._unary("GetServerInfo", request, lambda: self.api.get_server_info(request),
                                 context)

    async def NewGame(self, request, context):
        return await self._unary("NewGame", request, lambda: self.api.new_game(request), context)

    async def ListLegalActions(self, request, context):
        return await self._unary("ListLegalActions", request,
                                 lambda: self.api.list_legal_actions(request), context)

    async def ApplyAction(self, request, context):
        return await self._unary("ApplyAction", request, lambda: self.api.apply_action(request),
                                 context)

    async def SuggestAction(self, request, context):
        call = self._call(context)
        return await self._unary("SuggestAction", request,
                                 lambda: self.api.suggest_action(request, call), context, call)

    async def ValidateRecord(self, request, context):
        return await self._unary("ValidateRecord", request,
                                 lambda: self.api.validate_record(request), context)

    async def AnalyzePosition(self, request, context) -> None:
        """Writes the analysis' reports as they come; the search runs (and
        ends, freeing its slot) whether or not the client reads them."""
        await self._analysis("AnalyzePosition", request, self._call(context), context)

    async def Analyze(self, request, context) -> None:
        """AnalyzePosition started by the first message, which a later ``stop``
        ends at once with its final report (a half-close lets it run)."""
        if request.WhichOneof("kind") != "start":
            await _abort(context, errors.invalid(
                "start", "the first message must be start (an AnalyzePositionRequest); "
                "stop comes after it"), "Analyze")
        call = self._call(context)
        problems: list[ApiError] = []
        listening = asyncio.ensure_future(_listen(context, call, problems))
        try:
            await self._analysis("Analyze", request.start, call, context, problems, "start")
        finally:
            listening.cancel()

    async def _analysis(self, name: str, request: pb.AnalyzePositionRequest, call: Call,
                        context: grpc.aio.ServicerContext, problems: list[ApiError] | None = None,
                        within: str = "") -> None:
        """Starts an analysis and writes its reports until the final one.

        Args:
            problems: filled by another task when the client sends something
                wrong mid-stream: the call then ends with that error.
            within: the field holding the request in the call's message (its
                errors name their fields under it).
        """
        def start(notify: Callable[[], None]) -> Coroutine[Any, Any, Analysis]:
            return self._run(request, lambda: self.api.start_analysis(request, call, notify))

        try:
            async with contextlib.aclosing(analysis_reports(start, problems, within)) as reports:
                async for response in reports:
                    if self.observers.hooks:  # the call's record shows its final report
                        self._last_reply[id(context)] = response
                    await context.write(response)
        except ApiError as error:
            await _abort(context, error, name)
        except asyncio.CancelledError:
            raise
        except Exception:
            await _internal(context, name)
        finally:
            call.stop.set()


async def _listen(context: grpc.aio.ServicerContext, call: Call, problems: list[ApiError]) -> None:
    """Reads an Analyze call's messages after its start: ``stop`` sets the
    call's stop flag; the end of the requests changes nothing (the search
    runs to its budget); anything else is a problem that ends the call."""
    try:
        message = await context.read()
    except asyncio.CancelledError:
        raise
    except Exception as error:  # the bytes do not decode
        message = None
        problems.append(errors.invalid(
            "stop", f"a message that is not a valid cacao.v1.AnalyzeRequest: {error}",
            ErrorReason.UNDECODABLE_REQUEST))
    if message is grpc.aio.EOF:
        return
    if message is not None and message.WhichOneof("kind") != "stop":
        kind = message.WhichOneof("kind")
        problems.append(errors.invalid(
            kind or "stop", "only the first message may be start" if kind else
            "an empty message: send stop to end the analysis"))
    call.stop.set()
