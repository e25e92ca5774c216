"""The Connect adapter: :class:`CacaoConnect` serves :data:`~.methods.METHODS`
to the generated ``CacaoServiceASGIApplication`` (connectrpc), which decodes
each request, applies ``Connect-Timeout-Ms`` as the deadline, cancels the
handler when the client hangs up, and writes the answer or the error.

For every method of the table it has the coroutine (or async generator) of
its snake_case name that the generated application calls: it makes the
:class:`~.searching.Call` (the Connect deadline, the client the guard
admitted, a stop flag), runs the method through the
:class:`~.methods.Dispatcher`, and turns an :class:`~.errors.ApiError` into
a ``ConnectError``. The guard, the request's arrival and the call's record
are :mod:`.connect_guard`'s; the routing, CORS and the page :mod:`.asgi`'s.

Thread-safety: one event loop (the HTTP server's).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from concurrent import futures
from typing import Any

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from .connect_codecs import connect_error
from .connect_guard import current
from .errors import ApiError
from .handlers import CacaoApi
from .methods import METHODS, SERVICE, Dispatcher, Hangup, InternalError, Method, new_call, undecodable
from .searching import Call

log = logging.getLogger("cacaoai.server.http")


def snake_case(name: str) -> str:
    """``SuggestAction`` -> ``suggest_action``: the generated application's name of a method."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class CacaoConnect:
    """cacao.v1.CacaoService for connectrpc (``cacao_connect.CacaoService``):
    one attribute per method of the table, named in snake_case."""

    def __init__(self, api: CacaoApi, pool: futures.Executor):
        self.api = api
        self.dispatch = Dispatcher(api, pool)
        for method in METHODS:
            descriptor = SERVICE.methods_by_name[method.name]
            handler = (self._stream(method, descriptor.client_streaming) if method.streams
                       else self._unary(method))
            handler.__name__ = snake_case(method.name)
            setattr(self, handler.__name__, handler)

    def _unary(self, method: Method) -> Callable[..., Any]:
        async def handler(request: Any, ctx: RequestContext) -> Any:
            try:
                reply = await self.dispatch.unary(method, request, _call(ctx))
            except ApiError as error:
                raise connect_error(error) from None
            except InternalError as error:
                raise ConnectError(Code.INTERNAL, str(error)) from None
            current().reply = reply
            return reply

        return handler

    def _stream(self, method: Method, client_streaming: bool) -> Callable[..., AsyncIterator[Any]]:
        message_name = SERVICE.methods_by_name[method.name].input_type.full_name

        async def handler(request: Any, ctx: RequestContext) -> AsyncIterator[Any]:
            later = None
            if client_streaming:  # the first message is the request; the rest come later
                messages = aiter(request)
                request = await anext(messages, None)
                later = _later(messages, message_name)
            record = current()
            try:
                async for report in self.dispatch.stream(method, request, _call(ctx), later):
                    record.reply = report
                    yield report
            except ApiError as error:
                raise connect_error(error) from None
            except InternalError as error:
                raise ConnectError(Code.INTERNAL, str(error)) from None

        return handler


def _call(ctx: RequestContext) -> Call:
    """The Call of an RPC: its deadline (``Connect-Timeout-Ms``) and its client."""
    return new_call(None if ctx.timeout_ms is None else ctx.timeout_ms / 1000, current().client)


async def _later(messages: AsyncIterator[Any], message_name: str) -> AsyncIterator[Any]:
    """A call's messages after its first: a hang-up raises Hangup, a message
    that does not decode an ApiError."""
    while True:
        try:
            message = await anext(messages, None)
        except ConnectError as error:
            if error.code is Code.CANCELED:  # the client went away: connectrpc ends the call
                raise Hangup() from None
            raise undecodable("stop", message_name, error.message) from None
        if message is None:
            return
        yield message


__all__ = ["CacaoConnect", "snake_case"]
