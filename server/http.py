"""The HTTP side of cacao-server: :class:`~.asgi.CacaoAsgi` (the Connect API
and the board page) on Hypercorn, an ASGI server that speaks HTTP/1.1 and
HTTP/2: h2c (cleartext, with prior knowledge or by upgrade) and h2 over TLS
(ALPN), so that the bidirectional Analyze works over HTTP/2.

:class:`HttpServer` runs it on an event loop of its own, on a thread of its
own, so that synchronous code (cacao-server, tests) can start and stop it:

- the socket is bound before :func:`start_http` returns (a port in use raises
  ``OSError`` there);
- with TLS (``--tls-cert``/``--tls-key``) it speaks HTTPS with the gRPC side's
  files, offers h2 and http/1.1 by ALPN, and asks for client certificates with
  ``--tls-client-ca``;
- at most ``max_connections`` connections at once: one more is answered 503
  ``unavailable`` and closed (connections hold no thread, only memory and a
  file descriptor);
- a connection silent for ``--request-timeout`` seconds (no request yet, or
  between requests) is closed; a request that does not arrive in that time
  after its call opened is refused (:mod:`.asgi`);
- :meth:`HttpServer.shutdown` stops accepting, closes idle connections, lets
  calls in flight finish for ``grace_s`` seconds, then cancels the rest (a
  cancelled search stops).

Each connection is one Hypercorn ``TCPServer`` (HTTP/1.1 or HTTP/2 chosen per
connection) under our accept loop, which is what lets the connection limit
answer before a request is read; the rest is Hypercorn's.

Thread-safety: :class:`HttpServer`'s public methods may be called from any
thread; everything else runs on its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import ssl
import struct
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

from hypercorn.app_wrappers import ASGIWrapper
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.asyncio.worker_context import WorkerContext
from hypercorn.config import Config

from . import observe, security
from .asgi import PREFIX, SERVICE, CacaoAsgi
from .handlers import CacaoApi

log = logging.getLogger("cacaoai.server.http")

ALPN = ["h2", "http/1.1"]
CONNECTIONS_PER_CALL = 4  # default connection limit: this many per --max-calls
REFUSAL_DRAIN_S = 0.2  # a refused connection's request is read this long before closing
DEFAULT_GRACE_S = 1.0


class _Connection(TCPServer):
    """One Hypercorn connection that also ends its idle timer once the client
    has gone: Hypercorn's own keeps the task of an idle HTTP/1.1 connection
    whose client closed it until the keep-alive timeout, and it would count
    against the connection limit until then."""

    async def _read_data(self) -> None:
        await super()._read_data()
        await self.idle_task.stop()


class HttpServer:
    """An ASGI application served by Hypercorn on a loop thread of its own.

    Attributes:
        server_address: (host, port) bound.
        app: the application.
        tls: whether it speaks HTTPS.
        connections: connections open now.
    """

    def __init__(self, app: Any, host: str, port: int, *, tls: ssl.SSLContext | None = None,
                 max_connections: int = 400, idle_timeout_s: float = 10.0):
        self.app = app
        self.tls = tls is not None
        self.max_connections = max_connections
        self.connections = 0
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.create_server((host.strip("[]"), port), family=family, backlog=128)
        self.server_address = self._socket.getsockname()[:2]
        self._tls = tls
        self._config = Config()
        self._config.keep_alive_timeout = idle_timeout_s  # silent connections close
        self._config.ssl_handshake_timeout = idle_timeout_s
        self._config.errorlog = log
        self._config.include_server_header = False
        self._asgi = ASGIWrapper(app)
        self._tasks: set[asyncio.Task] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="cacao-http", daemon=True)
        self._thread.start()
        self._stopped: futures.Future | None = None
        try:
            self._call(self._start())
        except BaseException:
            self._close_loop()
            raise

    def _call(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    async def _start(self) -> None:
        self._context = WorkerContext(None)
        self._server = await asyncio.start_server(
            self._connection, sock=self._socket, ssl=self._tls,
            ssl_handshake_timeout=self._config.ssl_handshake_timeout if self._tls else None)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self.connections >= self.max_connections or self._context.terminated.is_set():
            await _refuse(reader, writer, self.max_connections)
            return
        self.connections += 1
        try:
            await _Connection(self._asgi, self._loop, self._config, self._context, {}, reader, writer)
        finally:
            self.connections -= 1

    def shutdown(self, grace_s: float = DEFAULT_GRACE_S) -> None:
        """Stops accepting, closes idle connections (HTTP/2: GOAWAY), gives calls
        in flight ``grace_s`` seconds, then cancels them; returns when done
        (later calls return at once)."""
        if self._stopped is None:
            self._stopped = asyncio.run_coroutine_threadsafe(self._stop(grace_s), self._loop)
        with contextlib.suppress(futures.CancelledError, RuntimeError):
            self._stopped.result()
        self._close_loop()

    async def stop(self, grace_s: float) -> None:
        """:meth:`shutdown` from another event loop (cacao-server's)."""
        if self._stopped is None:
            self._stopped = asyncio.run_coroutine_threadsafe(self._stop(grace_s), self._loop)
        with contextlib.suppress(futures.CancelledError, RuntimeError):
            await asyncio.wrap_future(self._stopped)

    async def _stop(self, grace_s: float) -> None:
        self._server.close()
        await self._context.terminated.set()  # idle connections close, busy ones after their answer
        pending = {t for t in self._tasks if t is not asyncio.current_task()}
        if pending:
            _, late = await asyncio.wait(pending, timeout=grace_s)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late, timeout=grace_s + 1.0)
        await self._server.wait_closed()

    def server_close(self) -> None:
        """Shuts down at once if still serving, and releases the socket."""
        self.shutdown(0.0)

    def _close_loop(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5.0)
        with contextlib.suppress(OSError):
            self._socket.close()
        close = getattr(self.app, "close", None)
        if close is not None:
            close()


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limit: int) -> None:
    """Answers 503 ``unavailable`` on a connection beyond the limit, and closes it."""
    body = json.dumps({"code": "unavailable", "message": f"more than {limit} connections at "
                       "once; retry shortly"}).encode()
    with contextlib.suppress(OSError, RuntimeError, asyncio.TimeoutError, ssl.SSLError):
        writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        # read what the client sent before closing: closing on unread bytes resets
        # the connection, and the client would see no 503 at all
        if writer.can_write_eof():
            writer.write_eof()
        async with asyncio.timeout(REFUSAL_DRAIN_S):
            while await reader.read(65536):
                pass
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()


def tls_context(cert: str, key: str, client_ca: str | None) -> ssl.SSLContext:
    """The HTTP side's TLS context: the gRPC side's files, TLS 1.2 or later,
    h2 and http/1.1 offered by ALPN.

    Raises:
        ValueError: a file cannot be read or does not hold what it should.
    """
    context = security.ssl_context(cert, key, client_ca)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.options |= ssl.OP_NO_COMPRESSION
    context.set_alpn_protocols(ALPN)
    return context


def start_http(api: CacaoApi, host: str, port: int, max_connections: int = 0,
               tokens: security.Tokens | None = None, tls: ssl.SSLContext | None = None,
               observers: observe.Observers | None = None,
               pool: futures.Executor | None = None,
               serving: Callable[[], bool] = lambda: True) -> HttpServer:
    """Starts serving the API and the page on ``host:port`` (0: any free port);
    ``server.server_address[1]`` is the bound port.

    Args:
        max_connections: connections at once (0: 4 x ``--max-calls``).
        pool: where the API's handlers run (default: a pool of the server's
            ``worker_threads``, stopped with the server).
        serving: the health status ``/healthz`` answers (default: serving).

    Raises:
        OSError: the address cannot be bound.
    """
    o = api.options
    app = CacaoAsgi(api, pool, tokens, observers, serving=serving)
    try:
        return HttpServer(app, host, port, tls=tls,
                          max_connections=max_connections or CONNECTIONS_PER_CALL * o.max_calls,
                          idle_timeout_s=o.request_timeout_s)
    except BaseException:
        app.close()
        raise


def start_page(api: CacaoApi, host: str, port: int | None, tokens: security.Tokens | None = None,
               observers: observe.Observers | None = None,
               pool: futures.Executor | None = None, announce: bool = True,
               serving: Callable[[], bool] = lambda: True) -> HttpServer | None:
    """cacao-server's HTTP side: :func:`start_http` with the API's TLS files
    and the server's tokens on ``port`` (0: any free port); None when
    ``port`` is None (``--http-port off``). With ``announce`` it logs where it
    serves, the bound port (else call :func:`announce_page` later).

    Raises:
        OSError: the port cannot be bound (cacao-server then exits, naming it).
    """
    if port is None:
        return None
    o = api.options
    tls = tls_context(o.tls_cert, o.tls_key, o.tls_client_ca) if o.tls_cert and o.tls_key else None
    server = start_http(api, host, port, tokens=tokens, tls=tls, observers=observers,
                        pool=pool, serving=serving)
    if announce:
        announce_page(server, host)
    return server


def announce_page(server: HttpServer, host: str) -> None:
    """Logs the line tools wait for: where the page and the Connect API are."""
    shown = f"[{host}]" if ":" in host else host
    log.info("board page and Connect API on %s://%s:%d/", "https" if server.tls else "http", shown,
             server.server_address[1])


def iter_stream(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Splits a Connect streaming body into (flags, payload) envelopes."""
    offset = 0
    while offset < len(body):
        flags, size = struct.unpack(">BI", body[offset:offset + 5])
        yield flags, body[offset + 5:offset + 5 + size]
        offset += 5 + size


__all__ = ["PREFIX", "SERVICE", "HttpServer", "announce_page", "iter_stream", "start_http",
           "start_page", "tls_context"]
