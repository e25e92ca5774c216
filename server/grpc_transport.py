"""The gRPC adapter: :class:`CacaoServicer` serves :data:`~.methods.METHODS`
on grpc.aio.

One event loop receives every request and sends every answer, so a client
that opens a call and never sends its request (or never reads its answer)
holds no thread, and health keeps answering. How a method's handler runs
(on the loop, in the ``worker_threads`` pool, on a search thread) is the
method table's (:mod:`.methods`).

Every method is served as one that streams its requests (the wire format is
the same; clients see the methods of the proto), so that a guard runs as
soon as a call opens: it counts the call against ``max_client_calls`` of
its client, gives the request ``request_timeout_s`` to arrive, and answers
INVALID_ARGUMENT for bytes that do not decode. The adapter makes the
:class:`~.searching.Call` (the gRPC deadline, the client, a stop flag) and
turns an :class:`~.errors.ApiError` into a rich ``google.rpc.Status``.

Building, starting, draining and stopping a server is :mod:`.lifecycle`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import message_factory
from grpc_status import rpc_status

from . import errors, observe, security
from .errors import ApiError
from .handlers import CacaoApi
from .methods import (
    METHODS,
    SERVICE,
    ClientCalls,
    Dispatcher,
    InternalError,
    Method,
    new_call,
    request_timeout,
    undecodable,
)

log = logging.getLogger("cacaoai.server")

SERVICE_NAME = SERVICE.full_name


class CacaoServicer:
    """cacao.v1.CacaoService over a :class:`CacaoApi`, on grpc.aio."""

    def __init__(self, api: CacaoApi, pool: futures.Executor,
                 tokens: security.Tokens | None = None,
                 observers: observe.Observers | None = None):
        self.api, self.tokens = api, tokens
        self.dispatch = Dispatcher(api, pool)
        self.observers = observers or observe.Observers()

    def generic_handler(self, max_client_calls: int, request_timeout_s: float) -> grpc.GenericRpcHandler:
        """A handler for every method of the table."""
        calls = ClientCalls(max_client_calls)
        handlers = {}
        for method in METHODS:
            descriptor = SERVICE.methods_by_name[method.name]
            request_class = message_factory.GetMessageClass(descriptor.input_type)
            kind = (grpc.stream_stream_rpc_method_handler if method.streams
                    else grpc.stream_unary_rpc_method_handler)
            handlers[method.name] = kind(self._behavior(method, calls, request_timeout_s),
                                         request_deserializer=request_class.FromString,
                                         response_serializer=lambda m: m.SerializeToString())
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _behavior(self, method: Method, calls: ClientCalls,
                  timeout_s: float) -> Callable[[Any, Any], Coroutine[Any, Any, Any]]:
        """One method's behavior: the guard, the call, the answer; every call
        that ends is handed to the observers."""
        message_name = SERVICE.methods_by_name[method.name].input_type.full_name

        async def answer(context: grpc.aio.ServicerContext, last: list[Any]) -> Any:
            client = security.client_key(context.peer(), context.invocation_metadata(), self.tokens)
            calls.enter(client)
            try:
                try:
                    async with asyncio.timeout(timeout_s):  # no task of its own, as wait_for makes
                        request = await context.read()
                except TimeoutError:
                    raise request_timeout(timeout_s) from None
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # the bytes do not decode as the request message
                    raise undecodable("request", message_name, error) from None
                call = new_call(context.time_remaining(), client)
                if request is grpc.aio.EOF:
                    request = None
                if not method.streams:
                    if request is None:
                        raise errors.invalid("request", "the call sent no request")
                    return await self.dispatch.unary(method, request, call)
                later = _later(context, message_name) if method.start_then_stop else None
                async for report in self.dispatch.stream(method, request, call, later):
                    last[:] = [report]
                    await context.write(report)
                return None
            finally:
                calls.leave(client)

        async def behavior(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            started = time.perf_counter()
            reply, code, last = None, grpc.StatusCode.UNKNOWN, [None]
            try:
                reply = await answer(context, last)
                code = grpc.StatusCode.OK
                return reply
            except ApiError as error:
                status = rpc_status.to_status(error.to_status())
                code = status.code
                await context.abort(status.code, status.details, status.trailing_metadata)
            except InternalError as error:
                code = grpc.StatusCode.INTERNAL
                await context.abort(code, str(error))
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            finally:
                if self.observers.hooks:  # a stream's record shows its final report
                    self.observers.finish(observe.call_record(
                        f"/{SERVICE_NAME}/{method.name}", code.name, time.perf_counter() - started,
                        reply if reply is not None else last[0], context.peer()))

        return behavior


async def _later(context: grpc.aio.ServicerContext, message_name: str) -> AsyncIterator[Any]:
    """A call's messages after its first, until the client's half-close."""
    while True:
        try:
            message = await context.read()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the bytes do not decode
            raise undecodable("stop", message_name, error) from None
        if message is grpc.aio.EOF:
            return
        yield message
