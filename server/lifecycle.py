"""A server's life: building it (the Cacao service, health, reflection, TLS,
tokens, metrics and the call log), starting it, draining and stopping it, and
the signals of ``cacao-server``.

:func:`create_server` builds a :class:`CacaoServer` whose grpc.aio event loop
runs on a thread of its own, so that synchronous code (tests, scripts) can
start and stop it; :meth:`CacaoServer.start_http` adds the HTTP side (the
Connect API and the board page, :mod:`.http`) over the same API, thread pool,
tokens and observers, which then drains and stops with it; :func:`serve` runs
one until SIGTERM or SIGINT.

Thread-safety: CacaoServer's methods may be called from any thread.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import logging
import signal
import socket
import threading
from collections.abc import Callable, Coroutine
from concurrent import futures
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import security
from .grpc_transport import SERVICE_NAME, CacaoServicer
from .handlers import CacaoApi
from .http import HttpServer, announce_page, start_page
from .logs import CallLog
from .metrics import Metrics
from .observe import CallHook, Observers
from .options import ServerOptions

T = TypeVar("T")

log = logging.getLogger("cacaoai.server")

FINAL_REPORT_S = 0.5  # after a shutdown stops the searches: time for their answers


def observers(options: ServerOptions, gate: Any = None,
              trees: Any = None) -> tuple[Observers, Metrics | None]:
    """The observers a server's options ask for, and its Metrics (or None).

    Metrics are kept when ``options.metrics_port`` is set (with the search
    gate's slots and the tree cache's figures, when given); the call log when
    ``options.log_format`` is "json".
    """
    hooks: list[CallHook] = []
    metrics = None
    if options.metrics_port is not None:
        metrics = Metrics(gate, trees=trees)
        hooks.append(metrics)
    if options.log_format == "json":
        hooks.append(CallLog())
    return Observers(hooks), metrics


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
        self.observers, self.cacao_metrics = observers(options, self.cacao_api.gate,
                                                       self.cacao_api.trees)
        self.tokens = security.Tokens.load(options.auth_tokens) if options.auth_tokens else None
        credentials: grpc.ServerCredentials | None = None
        if options.tls:
            # ServerOptions refuses a certificate without its key, and tls means a certificate
            assert options.tls_cert is not None and options.tls_key is not None
            credentials = security.server_credentials(options.tls_cert, options.tls_key,
                                                      options.tls_client_ca)
        self._pool = futures.ThreadPoolExecutor(max_workers=options.worker_threads,
                                                thread_name_prefix="cacao-rpc")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="cacao-grpc",
                                        daemon=True)
        self._thread.start()
        self._stopped = threading.Event()
        self._stopping: futures.Future | None = None
        self.http: HttpServer | None = None
        self.serving = True  # health, as the HTTP side's /healthz reads it
        try:
            probe_port(address)  # a port in use: an OSError here, not gRPC's own log line
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

    def start_http(self, host: str, port: int | None, announce: bool = True) -> HttpServer | None:
        """Starts the HTTP side on ``host:port`` (0: any free port; None: none)
        with this server's API, thread pool, TLS files, tokens and observers; it
        drains and stops with the gRPC side. None when there is none (port None).

        Raises:
            OSError: the port cannot be bound (in use, say).
        """
        self.http = start_page(self.cacao_api, host, port, self.tokens, self.observers,
                               pool=self._pool, announce=announce, serving=lambda: self.serving)
        return self.http

    def set_serving(self, serving: bool) -> None:
        """Health SERVING or NOT_SERVING while calls are still answered
        (NOT_SERVING drains: balancers that check health send no new calls)."""
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)

        async def set_all() -> None:
            for name in ("", SERVICE_NAME):
                await self.cacao_health.set(name, status)

        self._wait(set_all())
        self.serving = serving
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

            def close(_: futures.Future[None]) -> None:
                self._close_loop()
                self._stopped.set()

            self._stopping.add_done_callback(close)
        return self._stopped

    async def _shut_down(self, drain_s: float, grace_s: float) -> None:
        self.serving = False
        await self.cacao_health.enter_graceful_shutdown()
        if drain_s > 0:
            log.info("draining: health NOT_SERVING for %.1f s", drain_s)
            await asyncio.sleep(drain_s)
        stopping = [asyncio.ensure_future(self._server.stop(grace_s + FINAL_REPORT_S))]
        if self.http is not None:
            stopping.append(asyncio.ensure_future(self.http.stop(grace_s + FINAL_REPORT_S)))
        _, running = await asyncio.wait(stopping, timeout=grace_s)
        if running:
            self.cacao_api.gate.stop_all()
        await asyncio.gather(*stopping)

    def _close_loop(self) -> None:
        if self.http is not None:
            self.http.shutdown(0.0)  # at once if the drain has not stopped it yet
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
            SO_REUSEPORT default of gRPC is switched off); errno EADDRINUSE
            for a port in use.
        ValueError: a TLS or token file cannot be read.
    """
    server = CacaoServer(address, options or ServerOptions())
    return server, server.port


def format_address(host: str, port: int) -> str:
    """host:port, with brackets around an IPv6 host."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def probe_port(address: str) -> None:
    """Checks that gRPC can bind ``address`` ("host:port", "[v6]:port") by
    binding it as gRPC does, then letting it go: SO_REUSEADDR on and
    SO_REUSEPORT off (the server switches gRPC's off), so that a listener on
    the port, even one with SO_REUSEPORT, makes it fail while connections in
    TIME_WAIT do not; like gRPC, one address of a name that resolves to
    several is enough. Port 0 (any free port) is not checked.

    Without it, gRPC would say why in a log line of its C core before raising
    an error that does not.

    Raises:
        OSError: no address could be bound (errno EADDRINUSE: the port is in use).
    """
    host, _, port_text = address.rpartition(":")
    if not port_text.isdigit() or int(port_text) == 0:
        return
    try:
        found = socket.getaddrinfo(host.strip("[]") or None, int(port_text),
                                   type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return  # a name that does not resolve: gRPC's own error says so
    failures: list[OSError] = []
    for family, kind, proto, _, sockaddr in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(sockaddr)
            except OSError as error:
                failures.append(error)
                continue
        return
    if failures:
        taken = next((e for e in failures if e.errno == errno.EADDRINUSE), failures[0])
        raise OSError(taken.errno, taken.strerror, address)


def cannot_listen(what: str, host: str, port: int, flag: str, error: OSError) -> OSError:
    """The one-line error of a side that cannot listen on ``host:port``: for
    a port in use, which port, that it is taken and the flag that moves it."""
    where = format_address(host, port)
    if error.errno == errno.EADDRINUSE:
        return OSError(f"port {port} is taken: cannot serve {what} on {where}; stop what listens "
                       f"there, or choose another port with {flag}")
    return OSError(f"cannot serve {what} on {where} ({flag}): {error.strerror or error}")


def listening(what: str, host: str, port: int, flag: str, start: Callable[[], T]) -> T:
    """``start()``, its OSError turned into :func:`cannot_listen`'s."""
    try:
        return start()
    except OSError as error:
        raise cannot_listen(what, host, port, flag, error) from None


def serve(host: str, port: int, options: ServerOptions | None = None) -> int:
    """Runs a server until SIGTERM or SIGINT, then drains and shuts down.

    On the signal, health turns NOT_SERVING for ``options.drain_s`` seconds
    while calls are still served; then new calls are refused and calls in
    flight get ``options.grace_s`` seconds; then searches stop and answer
    with what they have. SIGUSR1 turns health NOT_SERVING while the server
    keeps answering (a drain without a stop), SIGUSR2 turns it back.

    Every port is bound before the server accepts calls: a port in use (gRPC,
    HTTP or metrics) raises OSError with one line that names it, and nothing
    is served.

    Returns:
        0, the exit status.

    Raises:
        OSError: a port cannot be bound.
    """
    options = options or ServerOptions()
    if not security.is_loopback(host) and not options.tls:
        log.warning("listening on %s without TLS: anyone on the network can read and forge the "
                    "calls (tokens included); pass --tls-cert and --tls-key", host)
    if not security.is_loopback(host) and not options.auth_tokens:
        log.warning("listening on %s without --auth-tokens: anyone who reaches the port may "
                    "call it", host)
    server, bound = listening("gRPC", host, port, "--port",
                              lambda: create_server(format_address(host, port), options))
    try:
        metrics_port = None
        if server.cacao_metrics is not None:  # --metrics-port was given
            metrics = server.cacao_metrics
            metrics_port = listening("metrics", host, options.metrics_port or 0, "--metrics-port",
                                     lambda: metrics.serve(host, options.metrics_port or 0))
        http_port = options.http_port  # None: --http-port off; 0: any free port, logged below
        web = None if http_port is None else listening(
            "the board page and Connect API", host, http_port, "--http-port",
            lambda: server.start_http(host, http_port, announce=False))
    except BaseException:
        if server.cacao_metrics is not None:
            server.cacao_metrics.close()
        server.stop(0).wait()
        raise
    stopped = threading.Event()

    def shut_down(signum: int, _frame: Any) -> None:
        if stopped.is_set():
            return
        log.info("%s: shutting down: drain %.1f s, grace %.1f s", signal.Signals(signum).name,
                 options.drain_s, options.grace_s)
        done = server.shut_down(options.drain_s, options.grace_s)

        def wait_then_stop() -> None:
            done.wait()
            stopped.set()

        threading.Thread(target=wait_then_stop, daemon=True).start()

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)
    # set_serving waits on the loop thread: never from the signal handler itself
    signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(
        target=server.set_serving, args=(False,), daemon=True).start())
    signal.signal(signal.SIGUSR2, lambda *_: threading.Thread(
        target=server.set_serving, args=(True,), daemon=True).start())
    if metrics_port is not None:
        log.info("metrics on http://%s/metrics", format_address(host, metrics_port))
    # What exists now (modules, the model, the tables) lives as long as the
    # process: out of the garbage collector's sight, a full collection (no
    # thread runs Python meanwhile) walks only what calls left behind.
    gc.collect()
    gc.freeze()
    # every side listens before the line that tools wait for
    server.start()
    log.info("serving on %s%s", format_address(host, bound), " (TLS)" if options.tls else "")
    if web is not None:
        announce_page(web, host)
    while not stopped.wait(0.5):
        pass
    log.info("stopped")
    return 0
