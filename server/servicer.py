"""The gRPC side: servicer, server construction and graceful shutdown.

:class:`CacaoServicer` is a thin adapter: it turns the gRPC context into a
:class:`~.service.Call` (deadline, and a stop flag set by the client's
cancellation through ``context.add_callback``), calls
:class:`~.service.CacaoApi`, and turns an :class:`~.errors.ApiError` into a
rich ``google.rpc.Status``. :func:`create_server` builds a server with the
Cacao service, health checking and reflection; :func:`serve` runs one until
SIGTERM or SIGINT.

Thread-safety: the servicer holds no state of its own; handlers run
concurrently in the server's thread pool.
"""

from __future__ import annotations

import logging
import signal
import threading
from concurrent import futures
from typing import Any, Callable, Iterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.search import StopFlag

from .errors import ApiError
from .http import start_page
from .options import ServerOptions
from .service import CacaoApi, Call

log = logging.getLogger("cacaoai.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["CacaoService"].full_name


def _call(context: grpc.ServicerContext) -> Call:
    """The Call of an RPC: its deadline, and a stop flag its end sets."""
    stop = StopFlag()
    if not context.add_callback(stop.set):
        stop.set()  # the RPC has already ended
    return Call(time_remaining=context.time_remaining, stop=stop)


def _abort(context: grpc.ServicerContext, error: ApiError, method: str) -> None:
    log.info("%s: %s", method, error)
    context.abort_with_status(rpc_status.to_status(error.to_status()))


def _internal(context: grpc.ServicerContext, method: str) -> None:
    log.exception("%s failed", method)
    context.abort(grpc.StatusCode.INTERNAL, "internal error; the server log has the details")


class CacaoServicer(pb_grpc.CacaoServiceServicer):
    """cacao.v1.CacaoService over a :class:`CacaoApi`."""

    def __init__(self, api: CacaoApi):
        self.api = api

    def _unary(self, method: str, handler: Callable[[], Any], context: grpc.ServicerContext) -> Any:
        try:
            return handler()
        except ApiError as error:
            _abort(context, error, method)
        except Exception:  # one bad request never harms the next
            _internal(context, method)

    def GetServerInfo(self, request, context):
        return self._unary("GetServerInfo", lambda: self.api.get_server_info(request), context)

    def NewGame(self, request, context):
        return self._unary("NewGame", lambda: self.api.new_game(request), context)

    def ListLegalActions(self, request, context):
        return self._unary("ListLegalActions", lambda: self.api.list_legal_actions(request), context)

    def ApplyAction(self, request, context):
        return self._unary("ApplyAction", lambda: self.api.apply_action(request), context)

    def SuggestAction(self, request, context):
        call = _call(context)
        return self._unary("SuggestAction", lambda: self.api.suggest_action(request, call), context)

    def ValidateRecord(self, request, context):
        return self._unary("ValidateRecord", lambda: self.api.validate_record(request), context)

    def AnalyzePosition(self, request, context) -> Iterator[pb.AnalyzePositionResponse]:
        call = _call(context)
        try:
            yield from self.api.analyze_position(request, call)
        except ApiError as error:
            _abort(context, error, "AnalyzePosition")
        except Exception:
            _internal(context, "AnalyzePosition")


def create_server(address: str = "127.0.0.1:0",
                  options: ServerOptions | None = None) -> tuple[grpc.Server, int]:
    """Builds a server with the Cacao service, health checking and reflection.

    The server is not started. Its health servicer is ``server.cacao_health``
    (serve() uses it to announce a shutdown) and its request handlers
    ``server.cacao_api`` (tests read its search gate).

    Args:
        address: "host:port" to listen on; port 0 picks a free port.
        options: limits and threads (defaults: ServerOptions()).

    Returns:
        (server, bound port).

    Raises:
        OSError: the address cannot be bound (a port in use is an error: the
            SO_REUSEPORT default of gRPC is switched off).
    """
    options = options or ServerOptions()
    api = CacaoApi(options)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=options.worker_threads,
                                   thread_name_prefix="cacao-rpc"),
        options=[
            ("grpc.max_receive_message_length", options.max_message_bytes),
            ("grpc.max_send_message_length", options.max_message_bytes),
            ("grpc.so_reuseport", 0),
        ],
        # a bound on queued calls too: beyond it gRPC answers RESOURCE_EXHAUSTED
        maximum_concurrent_rpcs=4 * options.worker_threads,
    )
    pb_grpc.add_CacaoServiceServicer_to_server(CacaoServicer(api), server)
    health_servicer = health.HealthServicer(
        experimental_non_blocking=True,
        experimental_thread_pool=futures.ThreadPoolExecutor(max_workers=1,
                                                            thread_name_prefix="cacao-health"),
    )
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as error:
        raise OSError(f"cannot listen on {address}: {error}") from None
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.cacao_health = health_servicer  # type: ignore[attr-defined]
    server.cacao_api = api  # type: ignore[attr-defined]
    return server, port


def format_address(host: str, port: int) -> str:
    """host:port, with brackets around an IPv6 host."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def serve(host: str, port: int, options: ServerOptions | None = None) -> int:
    """Runs a server until SIGTERM or SIGINT, then shuts down gracefully.

    On the signal, health turns NOT_SERVING, new calls are refused, and calls
    in flight get ``options.grace_s`` seconds to finish; after that they are
    cancelled (their searches stop at once).

    Returns:
        0, the exit status.
    """
    options = options or ServerOptions()
    server, bound = create_server(format_address(host, port), options)
    stopped = threading.Event()

    def shut_down(signum: int, _frame: Any) -> None:
        if stopped.is_set():
            return
        log.info("%s: shutting down, grace %.1f s", signal.Signals(signum).name, options.grace_s)
        server.cacao_health.enter_graceful_shutdown()
        done = server.stop(options.grace_s)
        threading.Thread(target=lambda: (done.wait(), stopped.set()), daemon=True).start()

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)
    server.start()
    log.info("serving on %s", format_address(host, bound))
    web = start_page(server.cacao_api, host, options.http_port)
    while not stopped.wait(0.5):
        pass
    if web is not None:
        web.shutdown()
    log.info("stopped")
    return 0
