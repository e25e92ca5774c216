"""What stands in front of the Connect methods: a call's record
(:class:`HttpCall`), the guard that admits a call before its request is read
(:class:`CallGuard`), and the request body that must arrive in time
(:class:`RequestBody`).

Thread-safety: one event loop; the counts are only touched there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import grpc
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason

from . import security
from .connect_codecs import connect_error, grpc_code_name
from .errors import ApiError
from .methods import SERVICE, ClientCalls, request_timeout

PREFIX = f"/{SERVICE.full_name}/"

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


# --- one call's record ----------------------------------------------------------

@dataclass
class HttpCall:
    """What the layers learn about one Connect call, for its observers and its
    handler: set by :class:`CacaoAsgi`, filled in by the guard and the service.

    Attributes:
        method: the method's name, e.g. ``SuggestAction``.
        peer: ``http:ADDRESS:PORT``.
        address: the client's IP address.
        client: who the call counts as (its token's id, else its IP address).
        code: the gRPC code name of its end, once known.
        reply: the (last) reply sent.
    """

    method: str
    peer: str
    address: str
    client: str = ""
    code: str | None = None
    reply: Any = None


CURRENT_CALL: ContextVar[HttpCall | None] = ContextVar("cacao_http_call", default=None)


def current() -> HttpCall:
    """The Connect call this task serves."""
    call = CURRENT_CALL.get()
    if call is None:  # only CacaoAsgi calls the Connect application
        raise RuntimeError("a Connect call outside CacaoAsgi")
    return call


# --- the guard --------------------------------------------------------------------

class CallGuard:
    """A connectrpc metadata interceptor: runs before the request is read.

    Refuses a call without an accepted token (UNAUTHENTICATED) or whose
    token's role does not cover the method (PERMISSION_DENIED), and one more
    call than ``max_calls`` in all or ``max_client_calls`` of its client
    (RESOURCE_EXHAUSTED); records every call's end code.
    """

    def __init__(self, tokens: security.Tokens | None, max_calls: int, max_client_calls: int):
        self.tokens, self.max_calls = tokens, max_calls
        self.calls = 0
        self.client_calls = ClientCalls(max_client_calls)

    async def on_start(self, ctx: RequestContext) -> str:
        call = current()
        try:
            call.client = self._admit(call, ctx)
        except ConnectError as error:
            call.code = grpc_code_name(error.code)
            raise
        self.calls += 1
        return call.client

    def _admit(self, call: HttpCall, ctx: RequestContext) -> str:
        client = call.address
        if self.tokens is not None:
            header = [("authorization", ctx.request_headers.get("authorization") or "")]
            client, refusal = self.tokens.check(header, PREFIX + ctx.method.name)
            if refusal is not None:
                raise connect_error(refusal)
        if self.calls >= self.max_calls:
            raise connect_error(ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server already has its maximum of {self.max_calls} HTTP calls in "
                "progress; retry shortly", ErrorReason.TOO_MANY_CALLS))
        try:
            self.client_calls.enter(client)
        except ApiError as error:
            raise connect_error(error) from None
        return client

    async def on_end(self, client: str, ctx: RequestContext, error: Exception | None) -> None:
        self.calls -= 1
        self.client_calls.leave(client)
        call = current()
        if error is None:
            call.code = "OK"
        elif isinstance(error, ConnectError):
            call.code = grpc_code_name(error.code)
        else:
            call.code = "UNKNOWN"


# --- the request body ---------------------------------------------------------------

class RequestBody:
    """A call's ``receive``, which ends the call with DEADLINE_EXCEEDED
    (REQUEST_TIMEOUT) when the request has not arrived ``timeout_s`` seconds
    after the call opened: its whole body, or with ``first_message_only`` (a
    stream of requests) its first enveloped message.

    :meth:`drain` reads what is left of a body the call did not read (an early
    refusal), so that an HTTP/1.1 connection can carry the next call.
    """

    def __init__(self, receive: Receive, timeout_s: float, first_message_only: bool,
                 max_bytes: int):
        self._receive, self.timeout_s = receive, timeout_s
        self.first_message_only, self.max_bytes = first_message_only, max_bytes
        self.deadline = asyncio.get_running_loop().time() + timeout_s
        self.arrived = False  # the request (or its first message) is in: no more deadline
        self.complete = False  # the body has ended, or the client has gone
        self._header = bytearray()  # the first envelope's 5 bytes: flags and length
        self._received = 0

    async def receive(self) -> dict[str, Any]:
        if self.arrived:
            return self._note(await self._receive())
        try:
            async with asyncio.timeout_at(self.deadline):
                message = self._note(await self._receive())
        except TimeoutError:
            self.arrived = True
            raise connect_error(request_timeout(self.timeout_s)) from None
        if self.complete:
            self.arrived = True
        elif self.first_message_only:
            body = message.get("body", b"")
            self._header.extend(body[:5 - len(self._header)])
            self._received += len(body)
            self.arrived = (len(self._header) == 5 and
                            self._received >= 5 + int.from_bytes(self._header[1:5], "big"))
        return message

    def _note(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.complete = True
        return message

    async def drain(self) -> None:
        """Reads the rest of the body (at most ``max_bytes``, until the request's
        deadline); what is not read by then makes the server close the connection."""
        read = 0
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(max(self.deadline, asyncio.get_running_loop().time())):
                while not self.complete and read <= self.max_bytes:
                    read += len(self._note(await self._receive()).get("body", b""))


def draining(send: Send, body: RequestBody) -> Send:
    """``send`` that reads what is left of the request body before the end of
    the response. On HTTP/1.1 the connection then carries the next request; on
    HTTP/2 a request's data that arrives after its stream has closed makes
    Hypercorn (0.18) drop the whole connection (a KeyError on the closed
    stream), so a refused unary call reads its body first there too. A stream
    of requests is not drained on HTTP/2: its client may keep it open."""

    async def sending(message: dict[str, Any]) -> None:
        if (message["type"] == "http.response.body" and not message.get("more_body", False)
                and not body.complete):
            await body.drain()
        await send(message)

    return sending


__all__ = ["CURRENT_CALL", "PREFIX", "CallGuard", "HttpCall", "RequestBody", "current", "draining"]
