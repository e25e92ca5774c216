"""The service's methods, once for every transport: :data:`METHODS` binds
each row of the API's method table (:mod:`cacaoai.api.methods`: how a call is
admitted, whether it searches and at what priority, whether it streams, where
its errors point) to the :class:`~.handlers.CacaoApi` functions that answer
it; :class:`Dispatcher` runs a method so, on the transport's event loop.

The gRPC adapter (:mod:`.grpc_transport`) and the Connect adapter
(:mod:`.connect_transport`) only translate: a call's deadline, client and
cancellation into a :class:`~.searching.Call`, its bytes into a request
message, and what :class:`Dispatcher` returns or raises into their answers.
Adding an RPC: docs/architecture.md ("Adding an RPC") lists every place.

What every method shares, on every transport:

- a client has at most ``max_client_calls`` calls in progress
  (:class:`ClientCalls`; RESOURCE_EXHAUSTED, ``TOO_MANY_CLIENT_CALLS``), and
  its request must arrive within ``request_timeout_s`` of the call
  (:func:`request_timeout`: DEADLINE_EXCEEDED, ``REQUEST_TIMEOUT``);
- an :class:`~.errors.ApiError` is the client's fault and goes back with its
  details; any other exception is logged and answered INTERNAL
  (:class:`InternalError`), and never harms the next call;
- a call that searches (SuggestAction, the analyses, ReviewGame) is admitted
  on the event loop, before any thread hop (its ``admit``): when the
  scheduler would refuse it (RESOURCE_EXHAUSTED, ``TOO_MANY_SEARCHES``), the
  refusal waits for no worker thread, however busy they are;
- a search's call end (its deadline, a cancel, a hang-up) sets its stop
  flag, so its search ends at once.

Thread-safety: a Dispatcher belongs to one event loop (its semaphore); the
handlers it calls are thread-safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent import futures
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.api.methods import RPCS, SERVICE, Kind, Rpc
from cacaoai.search import StopFlag

from . import errors
from .errors import ApiError
from .handlers import CacaoApi
from .searching import Call
from .streams import ReportStream, stream_reports

T = TypeVar("T")

log = logging.getLogger("cacaoai.server")

INLINE_REQUEST_BYTES = 8 * 1024  # handled on the loop: every real request but searches
LARGE_REQUEST_BYTES = 32 * 1024  # five times the largest real record
LARGE_REQUESTS = 1  # large requests converted at once, per transport


#: How a method's handler gets to run (the API table's kinds).
Admission = Kind


class Deadline(enum.Enum):
    """What a call's deadline does to a method."""

    #: the transport ends the call at its deadline; the handler never sees it
    TRANSPORT = "transport"
    #: the search's budget is fitted to it (the handler gets the Call), and
    #: the call's end stops the search
    FITS_BUDGET = "fits budget"


@dataclass(frozen=True)
class Method:
    """One RPC as every transport serves it: its row of the API's table
    (:data:`cacaoai.api.methods.RPCS`) bound to its :class:`CacaoApi` functions.

    Attributes:
        rpc: the row: its name, kind, priority, roles and retry codes.
        handler: the function that answers it: ``(api, request)`` for QUICK,
            ``(api, request, call)`` for SEARCH, ``(api, request, call,
            notify)`` for STREAM (a running :class:`~.streams.ReportStream`).
        admit: ``(api, request, call)``, which refuses a search at once when
            the scheduler would (a lock and some arithmetic), run on the event
            loop before any thread hop so that refusals under overload wait
            for no worker; what it returns goes to the handler as
            ``admitted``. None for a call that does not search.
    """

    rpc: Rpc
    handler: Callable[..., Any]
    admit: Callable[..., Any] | None = None

    @property
    def name(self) -> str:
        return self.rpc.name

    @property
    def admission(self) -> Kind:
        return self.rpc.kind

    @property
    def deadline(self) -> Deadline:
        return Deadline.FITS_BUDGET if self.rpc.searches else Deadline.TRANSPORT

    @property
    def streams(self) -> bool:
        """It answers with a stream of reports, the last one final."""
        return self.rpc.server_streaming

    @property
    def start_then_stop(self) -> bool:
        """Its first message holds the request in ``start``, and a later
        ``stop`` ends the analysis at once (a half-close lets it run)."""
        return self.rpc.client_streaming

    @property
    def errors_under(self) -> str:
        return self.rpc.errors_under

    def admitted(self, api: CacaoApi, request: Any, call: Call) -> dict[str, Any]:
        """The handler's keyword arguments after :attr:`admit` (run here, on
        the caller's thread): none without one."""
        return {} if self.admit is None else {"admitted": self.admit(api, request, call)}


def _bound(rpc: Rpc) -> Method:
    return Method(rpc, getattr(CacaoApi, rpc.handler), getattr(CacaoApi, rpc.admit) if rpc.admit else None)


METHODS: tuple[Method, ...] = tuple(_bound(rpc) for rpc in RPCS)
BY_NAME = {method.name: method for method in METHODS}


class InternalError(Exception):
    """A handler failed for a reason that is not the client's (logged)."""

    MESSAGE = "internal error; the server log has the details"


class Hangup(Exception):
    """Raised by a transport's stream of later messages: the client went away."""


class ClientCalls:
    """The calls in progress per client, at most ``limit`` each (0: no limit).
    Only touched on one event loop."""

    def __init__(self, limit: int):
        self.limit = limit
        self.counts: dict[str, int] = {}

    def enter(self, client: str) -> None:
        """Counts a call of `client`.

        Raises:
            ApiError: RESOURCE_EXHAUSTED when the client has its maximum.
        """
        if self.limit and self.counts.get(client, 0) >= self.limit:
            raise ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"this client ({client}) already has its maximum of {self.limit} calls "
                           "in progress; wait for one to end", ErrorReason.TOO_MANY_CLIENT_CALLS)
        self.counts[client] = self.counts.get(client, 0) + 1

    def leave(self, client: str) -> None:
        left = self.counts[client] - 1
        if left:
            self.counts[client] = left
        else:
            del self.counts[client]


def new_call(remaining_s: float | None, client: str) -> Call:
    """The Call of an RPC whose request the server has now and whose deadline
    is `remaining_s` seconds away (None: none), for `client`, with a fresh
    stop flag. Its arrival is now: a search's time budget counts from it."""
    now = time.monotonic()
    deadline = None if remaining_s is None else now + remaining_s
    return Call(time_remaining=(lambda: None) if deadline is None else (lambda: deadline - time.monotonic()),
                stop=StopFlag(), client=client, arrived=now)


def request_timeout(seconds: float) -> ApiError:
    """The error of a call whose request did not arrive in time."""
    return ApiError(grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"the request did not arrive within {seconds:g} s of the call",
                    ErrorReason.REQUEST_TIMEOUT)


def undecodable(field: str, message: str, detail: object) -> ApiError:
    """INVALID_ARGUMENT for bytes that are not a valid `message`."""
    return errors.invalid(field, f"the request bytes are not a valid {message} message: {detail}",
                          ErrorReason.UNDECODABLE_REQUEST)


def _log_client_error(method: Method, error: ApiError) -> None:
    """A client's error at INFO; an overload refusal (RESOURCE_EXHAUSTED) at
    DEBUG only: under overload there are a hundred a second, the metrics count
    them, and each line would be written by the event loop that answers calls."""
    level = logging.DEBUG if error.code is grpc.StatusCode.RESOURCE_EXHAUSTED else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "%s: %s", method.name, error)


class Dispatcher:
    """Runs the methods of :data:`METHODS` over a :class:`CacaoApi` for one
    transport (on its event loop), with its worker pool."""

    def __init__(self, api: CacaoApi, pool: futures.Executor):
        self.api, self.pool = api, pool
        self._large = asyncio.Semaphore(LARGE_REQUESTS)

    async def _run(self, request: Any, work: Callable[[], T], blocks: bool = False) -> T:
        """``work()``: on the loop when it is quick, else in the pool; large
        requests wait for their turn first (the rest wait without a thread,
        which bounds the memory of many large requests at once)."""
        size = request.ByteSize()
        if size <= INLINE_REQUEST_BYTES and not blocks:
            return work()
        guard = self._large if size > LARGE_REQUEST_BYTES else contextlib.nullcontext()
        async with guard:
            return await asyncio.get_running_loop().run_in_executor(self.pool, work)

    async def unary(self, method: Method, request: Any, call: Call) -> Any:
        """The one reply of a method that does not stream.

        Raises:
            ApiError: the client's fault.
            InternalError: anything else (logged).
        """
        searches = method.admission is Admission.SEARCH
        try:
            admitted = method.admitted(self.api, request, call)  # on the loop: refusals wait for no thread
            work: Callable[[], Any] = ((lambda: method.handler(self.api, request, call, **admitted)) if searches
                                       else (lambda: method.handler(self.api, request)))
            return await self._run(request, work, blocks=searches)
        except ApiError as error:
            _log_client_error(method, error)
            raise
        except asyncio.CancelledError:
            raise
        except Exception:  # one bad request never harms the next
            log.exception("%s failed", method.name)
            raise InternalError(InternalError.MESSAGE) from None
        finally:
            call.stop.set()  # a cancelled call's search ends at once

    async def stream(self, method: Method, request: Any, call: Call,
                     later: AsyncIterator[Any] | None = None) -> AsyncIterator[Any]:
        """The reports of a streaming method until the final one; the search
        runs (and ends, freeing its slot) whether or not the client reads them.

        Args:
            request: the call's first message (None: the call sent none).
            later: the call's later messages (``start_then_stop``), which
                raise an ApiError for one that does not decode, or
                :class:`Hangup`.

        Raises:
            ApiError: the client's fault.
            InternalError: anything else (logged).
        """
        problems: list[ApiError] = []
        listening: asyncio.Future[None] | None = None
        try:
            if method.start_then_stop:
                if request is None:
                    raise errors.invalid("start", "the call sent no request: the first message must be start")
                if request.WhichOneof("kind") != "start":
                    raise errors.invalid("start", "the first message must be start (an "
                                         "AnalyzePositionRequest); stop comes after it")
                request = request.start
                if later is not None:
                    listening = asyncio.ensure_future(_listen(later, call, problems))
            elif request is None:
                raise errors.invalid("request", "the call sent no request")

            async def start(notify: Callable[[], None]) -> ReportStream[Any, Any]:
                admitted = method.admitted(self.api, request, call)  # on the loop, as in unary
                return await self._run(request, lambda: method.handler(self.api, request, call, notify,
                                                                       **admitted))

            async with contextlib.aclosing(stream_reports(start, problems, method.errors_under)) as reports:
                async for report in reports:
                    yield report
        except ApiError as error:
            _log_client_error(method, error)
            raise
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception:
            log.exception("%s failed", method.name)
            raise InternalError(InternalError.MESSAGE) from None
        finally:
            call.stop.set()  # a hang-up, a deadline or an early end stops the search
            if listening is not None:
                listening.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await listening


async def _listen(later: AsyncIterator[Any], call: Call, problems: list[ApiError]) -> None:
    """Reads a call's messages after its start: ``stop`` sets the call's stop
    flag; the end of the requests changes nothing (the search runs to its
    budget); anything else is a problem that ends the call."""
    try:
        message = await anext(later, None)
    except Hangup:
        call.stop.set()
        return
    except ApiError as error:
        problems.append(error)
        call.stop.set()
        return
    if message is None:
        return
    kind = message.WhichOneof("kind")
    if kind != "stop":
        problems.append(errors.invalid(
            kind or "stop", "only the first message may be start" if kind else
            "an empty message: send stop to end the analysis"))
    call.stop.set()


__all__ = ["BY_NAME", "METHODS", "SERVICE", "Admission", "ClientCalls", "Deadline", "Dispatcher",
           "Hangup", "InternalError", "Method", "new_call", "request_timeout", "undecodable"]
