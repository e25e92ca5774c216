"""The gRPC side: servicer, server construction, drain and shutdown.

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

:func:`create_server` builds a :class:`CacaoServer` (service, health,
optional reflection, TLS and tokens) whose loop runs on a thread of its own,
so that synchronous code (tests, ``cacao-play``) can start and stop it;
:func:`serve` runs one until SIGTERM or SIGINT.

Thread-safety: the servicer holds no state of its own besides the pool and
the large-request semaphore; CacaoServer's methods may be called from any
thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from concurrent import futures
from typing import Any, Callable, Coroutine, TypeVar

import grpc
from google.protobuf import message_factory
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.search import StopFlag

from . import errors, observe, security
from .errors import ApiError
from .http import start_page
from .options import ServerOptions
from .service import CacaoApi, Call

T = TypeVar("T")

log = logging.getLogger("cacaoai.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["CacaoService"].full_name
INLINE_REQUEST_BYTES = 8 * 1024  # handled on the loop: every real request but searches
LARGE_REQUEST_BYTES = 32 * 1024  # five times the largest real record
LARGE_REQUESTS = 1  # large requests converted at once
FINAL_REPORT_S = 0.5  # after a shutdown stops the searches: time for their answers
TOO_MANY_CLIENT_CALLS = "TOO_MANY_CLIENT_CALLS"
REQUEST_TIMEOUT = "REQUEST_TIMEOUT"


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
               request_class: type, counts: dict[str, int], max_client_calls: int,
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
                    "in progress; wait for one to end", TOO_MANY_CLIENT_CALLS), name)
            counts[client] = counts.get(client, 0) + 1
            try:
                try:
                    request = await asyncio.wait_for(context.read(), request_timeout_s)
                except asyncio.TimeoutError:
                    request = None
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # the bytes do not decode as the request message
                    await _abort(context, errors.invalid(
                        "request", f"the request bytes are not a valid "
                        f"{request_class.DESCRIPTOR.full_name} message: {error}",
                        errors.UNDECODABLE_REQUEST), name)
                if request is None:
                    await _abort(context, ApiError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"the request did not arrive within {request_timeout_s:g} s of the call",
                        REQUEST_TIMEOUT), name)
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
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def notify() -> None:  # from the search thread
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(ready.set)

        try:
            try:
                analysis = await self._run(
                    request, lambda: self.api.start_analysis(request, call, notify))
            except ApiError as error:
                raise errors.within(error, within) if within else error
            while not analysis.finished:
                await ready.wait()
                ready.clear()
                for response in analysis.take():
                    if problems:
                        raise problems[0]
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
            errors.UNDECODABLE_REQUEST))
    if message is grpc.aio.EOF:
        return
    if message is not None and message.WhichOneof("kind") != "stop":
        kind = message.WhichOneof("kind")
        problems.append(errors.invalid(
            kind or "stop", "only the first message may be start" if kind else
            "an empty message: send stop to end the analysis"))
    call.stop.set()


class CacaoServer:
    """A grpc.aio server whose event loop runs on a thread of its own.

    Attributes:
        port: the bound port.
        cacao_api: the request handlers (tests read its search gate).
        cacao_health: the health servicer (NOT_SERVING during a drain).
        options: the server's options.
    """

    def __init__(self, address: str, options: ServerOptions):
        self.options = options
        self.cacao_api = CacaoApi(options)
        self.observers, self.cacao_metrics = observe.build(options, self.cacao_api.gate,
                                                           self.cacao_api.trees)
        self.tokens = security.Tokens.load(options.auth_tokens) if options.auth_tokens else None
        credentials = (security.server_credentials(options.tls_cert, options.tls_key,
                                                   options.tls_client_ca)
                       if options.tls else None)
        self._pool = futures.ThreadPoolExecutor(max_workers=options.worker_threads,
                                                thread_name_prefix="cacao-rpc")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="cacao-grpc",
                                        daemon=True)
        self._thread.start()
        self._stopped = threading.Event()
        self._stopping: futures.Future | None = None
        try:
            self.port = self._wait(self._build(address, credentials))
        except BaseException:
            self._close_loop()
            raise

    def _wait(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    async def _build(self, address: str, credentials: grpc.ServerCredentials | None) -> int:
        o = self.options
        interceptors = [security.TokenInterceptor(self.tokens)] if self.tokens else []
        self._server = grpc.aio.server(
            interceptors=interceptors,
            options=[
                ("grpc.max_receive_message_length", o.max_message_bytes),
                ("grpc.max_send_message_length", o.max_message_bytes),
                ("grpc.so_reuseport", 0),
            ],
            # calls waiting for a request or a turn hold no thread; this bounds their memory
            maximum_concurrent_rpcs=o.max_calls,
        )
        servicer = CacaoServicer(self.cacao_api, self._pool, self.tokens, self.observers)
        self._server.add_generic_rpc_handlers(
            (servicer.generic_handler(o.max_client_calls, o.request_timeout_s),))
        self.cacao_health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.cacao_health, self._server)
        for name in ("", SERVICE_NAME):
            await self.cacao_health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if o.reflection:
            reflection.enable_server_reflection(
                (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server)
        try:
            if credentials is None:
                port = self._server.add_insecure_port(address)
            else:
                port = self._server.add_secure_port(address, credentials)
        except RuntimeError as error:
            raise OSError(f"cannot listen on {address}: {error}") from None
        if port == 0:
            raise OSError(f"cannot listen on {address}")
        return port

    def start(self) -> None:
        self._wait(self._server.start())

    def set_serving(self, serving: bool) -> None:
        """Health SERVING or NOT_SERVING while calls are still answered
        (NOT_SERVING drains: balancers that check health send no new calls)."""
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)

        async def set_all() -> None:
            for name in ("", SERVICE_NAME):
                await self.cacao_health.set(name, status)

        self._wait(set_all())
        log.info("health: %s", health_pb2.HealthCheckResponse.ServingStatus.Name(status))

    def stop(self, grace: float | None = None) -> threading.Event:
        """Stops without a drain (see :meth:`shut_down`); an Event set when stopped."""
        return self.shut_down(0.0, grace or 0.0)

    def shut_down(self, drain_s: float, grace_s: float) -> threading.Event:
        """Starts the shutdown once (later calls return the same Event).

        1. health turns NOT_SERVING while calls are still served, ``drain_s``
           seconds (load balancers see it and send elsewhere);
        2. new calls are refused, calls in flight get ``grace_s`` seconds;
        3. running searches stop and answer with what they have (a
           suggestion, an analysis' final report), FINAL_REPORT_S at most;
           then anything left is cancelled.
        """
        if self._stopping is None:
            self._stopping = asyncio.run_coroutine_threadsafe(
                self._shut_down(drain_s, grace_s), self._loop)
            self._stopping.add_done_callback(lambda _: (self._close_loop(), self._stopped.set()))
        return self._stopped

    async def _shut_down(self, drain_s: float, grace_s: float) -> None:
        await self.cacao_health.enter_graceful_shutdown()
        if drain_s > 0:
            log.info("draining: health NOT_SERVING for %.1f s", drain_s)
            await asyncio.sleep(drain_s)
        stopping = asyncio.ensure_future(self._server.stop(grace_s + FINAL_REPORT_S))
        done, _ = await asyncio.wait([stopping], timeout=grace_s)
        if not done:
            self.cacao_api.gate.stop_all()
        await stopping

    def _close_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._pool.shutdown(wait=False, cancel_futures=True)


def create_server(address: str = "127.0.0.1:0",
                  options: ServerOptions | None = None) -> tuple[CacaoServer, int]:
    """Builds a server with the Cacao service, health checking and (unless
    switched off) reflection, on TLS when the options name a certificate.

    The server is not started: call ``start()``, and ``stop(grace).wait()``
    or ``shut_down(drain, grace).wait()`` at the end.

    Args:
        address: "host:port" to listen on; port 0 picks a free port.
        options: limits, threads and security (defaults: ServerOptions()).

    Returns:
        (server, bound port).

    Raises:
        OSError: the address cannot be bound (a port in use is an error: the
            SO_REUSEPORT default of gRPC is switched off).
        ValueError: a TLS or token file cannot be read.
    """
    server = CacaoServer(address, options or ServerOptions())
    return server, server.port


def format_address(host: str, port: int) -> str:
    """host:port, with brackets around an IPv6 host."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def serve(host: str, port: int, options: ServerOptions | None = None) -> int:
    """Runs a server until SIGTERM or SIGINT, then drains and shuts down.

    On the signal, health turns NOT_SERVING for ``options.drain_s`` seconds
    while calls are still served; then new calls are refused and calls in
    flight get ``options.grace_s`` seconds; then searches stop and answer
    with what they have. SIGUSR1 turns health NOT_SERVING while the server
    keeps answering (a drain without a stop), SIGUSR2 turns it back.

    Returns:
        0, the exit status.
    """
    options = options or ServerOptions()
    if not security.is_loopback(host) and not options.tls:
        log.warning("listening on %s without TLS: anyone on the network can read and forge the "
                    "calls (tokens included); pass --tls-cert and --tls-key", host)
    if not security.is_loopback(host) and not options.auth_tokens:
        log.warning("listening on %s without --auth-tokens: anyone who reaches the port may "
                    "call it", host)
    server, bound = create_server(format_address(host, port), options)
    stopped = threading.Event()

    def shut_down(signum: int, _frame: Any) -> None:
        if stopped.is_set():
            return
        log.info("%s: shutting down: drain %.1f s, grace %.1f s", signal.Signals(signum).name,
                 options.drain_s, options.grace_s)
        done = server.shut_down(options.drain_s, options.grace_s)
        threading.Thread(target=lambda: (done.wait(), stopped.set()), daemon=True).start()

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)
    # set_serving waits on the loop thread: never from the signal handler itself
    signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(
        target=server.set_serving, args=(False,), daemon=True).start())
    signal.signal(signal.SIGUSR2, lambda *_: threading.Thread(
        target=server.set_serving, args=(True,), daemon=True).start())
    if server.cacao_metrics is not None:  # --metrics-port was given
        metrics_port = server.cacao_metrics.serve(host, options.metrics_port or 0)
        log.info("metrics on http://%s/metrics", format_address(host, metrics_port))
    server.start()
    log.info("serving on %s%s", format_address(host, bound), " (TLS)" if options.tls else "")
    web = start_page(server.cacao_api, host, options.http_port, server.tokens, server.observers)
    while not stopped.wait(0.5):
        pass
    if web is not None:
        web.shutdown()
    log.info("stopped")
    return 0
