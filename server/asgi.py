"""The cacao.v1 API over HTTP as an ASGI application, on the official Connect
implementation for Python (``connectrpc``), and the board page.

:class:`CacaoAsgi` is what :mod:`.http` serves. A request goes through:

1. **CORS** (:class:`Cors`): a preflight (``OPTIONS`` with
   ``Access-Control-Request-Method``) from an allowed origin is answered 204
   with the Connect headers allowed; every answer to an allowed origin carries
   ``Access-Control-Allow-Origin``. With no origins configured only the page's
   own origin may call (browsers refuse the others at the preflight).
2. **Connect** (``/cacao.v1.CacaoService/<Method>``): the generated
   ``CacaoServiceASGIApplication`` (``cacaoai.api.cacao.v1.cacao_connect``,
   from ``protoc-gen-connectrpc``) decodes the request (JSON or binary,
   gzip, ``GET`` for the side-effect-free methods, envelopes for streams),
   applies ``Connect-Timeout-Ms`` as the deadline, cancels the handler when
   the client hangs up, and writes the answer or the error. Around it:

   - :class:`~.connect_guard.CallGuard`, a metadata interceptor that runs
     before the request is read: the bearer token (``--auth-tokens``),
     ``--max-calls`` and ``--max-client-calls`` (a client is its token, else
     its IP address);
   - the request must arrive within ``--request-timeout`` of the call
     (:class:`~.connect_guard.RequestBody`; ``DEADLINE_EXCEEDED``, reason
     ``REQUEST_TIMEOUT``): the whole body of a unary call or a server
     stream, the first message of Analyze;
   - :class:`~.connect_transport.CacaoConnect`, the methods of the table
     (:mod:`.methods`), with the codecs of :mod:`.connect_codecs`;
   - every call that reaches a method is handed to the observers (metrics,
     the JSON call log) with its gRPC code name, like a gRPC call.

3. **Health**: ``GET /healthz`` is 200 ``SERVING`` or 503 ``NOT_SERVING`` (the
   gRPC health service's status; a draining server is NOT_SERVING), with no
   token: for probes that speak HTTP(S), such as Kubernetes' ``httpGet``
   (its gRPC probes cannot speak TLS).
4. **The page**: any other ``GET`` is a file of ``static/`` (the built board
   page), gzipped when the browser takes it.

The gRPC and gRPC-Web protocols that connectrpc also speaks are not served here
(415): gRPC has its own port, with health and reflection.

Thread-safety: the application runs on one event loop; the per-client counts
are only touched there. CacaoApi is thread-safe.
"""

from __future__ import annotations

import gzip
import mimetypes
import time
from collections.abc import Callable, Iterable
from concurrent import futures
from pathlib import Path
from typing import Any, cast

from cacaoai.api.cacao.v1 import cacao_connect

from . import observe, security
from .connect_codecs import JsonCodec, ProtoCodec
from .connect_guard import CURRENT_CALL, PREFIX, CallGuard, HttpCall, Receive, RequestBody, Send, draining
from .connect_transport import CacaoConnect
from .handlers import CacaoApi
from .methods import SERVICE

STATIC_DIR = Path(__file__).with_name("static")
GZIP_MIN_BYTES = 1024  # smaller page files go as they are
HEALTH_PATH = "/healthz"

# HTTP status of an answer that no handler or guard saw (connectrpc refused it
# first) -> the gRPC code name its call record gets
_STATUS_CODES = {200: "OK", 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED",
                 403: "PERMISSION_DENIED", 404: "UNIMPLEMENTED", 405: "UNIMPLEMENTED",
                 408: "DEADLINE_EXCEEDED", 409: "ABORTED", 415: "INVALID_ARGUMENT",
                 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 501: "UNIMPLEMENTED",
                 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


# --- CORS ---------------------------------------------------------------------------

# what a Connect client in a browser sends and reads (connect-es's list, and the token)
ALLOWED_HEADERS = ("Content-Type", "Connect-Protocol-Version", "Connect-Timeout-Ms",
                   "Connect-Content-Encoding", "Connect-Accept-Encoding", "Grpc-Timeout",
                   "X-Grpc-Web", "X-User-Agent", "Authorization")
EXPOSED_HEADERS = ("Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin",
                   "Connect-Content-Encoding", "Content-Encoding")
PREFLIGHT_MAX_AGE_S = 7200


class Cors:
    """Which other origins' pages may call the API: none by default (the
    page's own origin needs no CORS), a list of origins, or every one ("*").
    No credentials (cookies) are involved: a token travels as a header."""

    def __init__(self, origins: Iterable[str] = ()):
        self.origins = frozenset(o.rstrip("/").lower() for o in origins)
        self.any = "*" in self.origins

    def allowed(self, origin: str) -> bool:
        return bool(origin) and (self.any or origin.rstrip("/").lower() in self.origins)

    def response_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        """The headers every answer to ``origin`` carries (none for another origin)."""
        if not self.allowed(origin):
            return []
        return [(b"access-control-allow-origin", b"*" if self.any else origin.encode()),
                (b"access-control-expose-headers", ", ".join(EXPOSED_HEADERS).encode()),
                (b"vary", b"Origin")]

    def preflight_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        """A preflight's answer headers: empty for an origin not allowed (the
        browser then refuses the call)."""
        if not self.allowed(origin):
            return [(b"vary", b"Origin")]
        return [(b"access-control-allow-origin", b"*" if self.any else origin.encode()),
                (b"access-control-allow-methods", b"GET, POST"),
                (b"access-control-allow-headers", ", ".join(ALLOWED_HEADERS).encode()),
                (b"access-control-max-age", str(PREFLIGHT_MAX_AGE_S).encode()),
                (b"vary", b"Origin, Access-Control-Request-Method, Access-Control-Request-Headers")]


# --- the application ------------------------------------------------------------------

Scope = dict[str, Any]


class CacaoAsgi:
    """The HTTP side as one ASGI application: CORS, the Connect API over
    :class:`CacaoApi`, the board page.

    Args:
        api: the request handlers (shared with the gRPC side).
        pool: where the handlers run (default: a pool of ``worker_threads``).
        tokens: accepted bearer tokens (None: no token needed).
        observers: hooks handed every finished call.
        cors_origins: other origins whose pages may call (default:
            ``api.options.http_cors_origins``).
        serving: whether the server is serving (health; default: always).
    """

    def __init__(self, api: CacaoApi, pool: futures.Executor | None = None,
                 tokens: security.Tokens | None = None,
                 observers: observe.Observers | None = None,
                 cors_origins: Iterable[str] | None = None,
                 serving: Callable[[], bool] = lambda: True):
        o = api.options
        self.api = api
        self.serving = serving
        self.own_pool = pool is None
        self.pool = pool or futures.ThreadPoolExecutor(o.worker_threads,
                                                       thread_name_prefix="cacao-http")
        self.observers = observers or observe.Observers()
        self.cors = Cors(o.http_cors_origins if cors_origins is None else cors_origins)
        self.request_timeout_s = o.request_timeout_s
        self.guard = CallGuard(tokens, o.max_calls, o.max_client_calls)
        service = cast(cacao_connect.CacaoService, CacaoConnect(api, self.pool))  # its methods come from the table
        self.connect = cacao_connect.CacaoServiceASGIApplication(
            service, interceptors=[self.guard],
            read_max_bytes=o.max_message_bytes, codecs=[ProtoCodec(), JsonCodec()])
        self.methods = {m.name: m for m in SERVICE.methods}
        self._gzipped: dict[Path, tuple[float, bytes]] = {}

    def close(self) -> None:
        """Stops the pool's threads, when the pool is the application's own."""
        if self.own_pool:
            self.pool.shutdown(wait=False, cancel_futures=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets
        headers = _headers(scope)
        origin = headers.get("origin", "")
        path = scope["path"]
        if path.startswith(PREFIX):
            if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
                await _answer(send, 204, self.cors.preflight_headers(origin))
                return
            await self._connect(scope, receive, _with_headers(send, self.cors.response_headers(origin)),
                                headers)
            return
        if path == HEALTH_PATH and scope["method"] in ("GET", "HEAD"):
            serving = self.serving()
            body = b"SERVING\n" if serving else b"NOT_SERVING\n"
            await _answer(send, 200 if serving else 503,
                          [(b"content-type", b"text/plain; charset=utf-8"),
                           (b"cache-control", b"no-store")],
                          b"" if scope["method"] == "HEAD" else body, length=len(body))
            return
        await self._page(scope, send, headers)

    # --- Connect ---

    async def _connect(self, scope: Scope, receive: Receive, send: Send,
                       headers: dict[str, str]) -> None:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type.startswith("application/grpc"):
            await _answer(send, 415, [(b"accept-post", b"application/json, application/proto, "
                                       b"application/connect+json, application/connect+proto")])
            return
        name = scope["path"][len(PREFIX):]
        if name not in self.methods:
            await self.connect(scope, receive, send)  # connectrpc's answer: 404
            return
        host, port = scope.get("client") or ("", 0)
        call = HttpCall(name, f"http:{host}:{port}", host)
        streaming = content_type.startswith("application/connect+")
        bidi = self.methods[name].client_streaming
        status = 0

        async def watched(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        body = RequestBody(receive, self.request_timeout_s, streaming and bidi,
                           self.api.options.max_message_bytes)
        respond: Send = watched
        if scope.get("http_version", "1.1").startswith("1") or not (streaming and bidi):
            respond = draining(watched, body)

        started = time.perf_counter()
        token = CURRENT_CALL.set(call)
        try:
            await self.connect(scope, body.receive, respond)
        finally:
            CURRENT_CALL.reset(token)
            if self.observers.hooks:
                code = call.code or _STATUS_CODES.get(status, "UNKNOWN" if status else "CANCELLED")
                self.observers.finish(observe.call_record(
                    PREFIX + name, code, time.perf_counter() - started, call.reply, call.peer))

    # --- the page ---

    async def _page(self, scope: Scope, send: Send, headers: dict[str, str]) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _answer(send, 405, [(b"allow", b"GET, HEAD")])
            return
        path = scope["path"]
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        file = (STATIC_DIR / name).resolve()
        if STATIC_DIR.resolve() not in file.parents or not file.is_file():
            await _answer(send, 404, [(b"content-type", b"text/plain; charset=utf-8")],
                          b"not found\n")
            return
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        textual = kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml",
                                                       "application/json")
        if textual:
            kind += "; charset=utf-8"
        response = [(b"content-type", kind.encode()), (b"cache-control", b"no-cache")]
        body = file.read_bytes()
        if textual and len(body) >= GZIP_MIN_BYTES:
            response.append((b"vary", b"Accept-Encoding"))
            if "gzip" in headers.get("accept-encoding", ""):
                body = self._gzip(file, body)
                response.append((b"content-encoding", b"gzip"))
        await _answer(send, 200, response, b"" if scope["method"] == "HEAD" else body,
                      length=len(body))

    def _gzip(self, file: Path, body: bytes) -> bytes:
        modified = file.stat().st_mtime
        kept = self._gzipped.get(file)
        if kept is None or kept[0] != modified:
            kept = (modified, gzip.compress(body, mtime=0))
            self._gzipped[file] = kept
        return kept[1]


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the last of repeated ones)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    """``send`` adding ``extra`` headers to the response's start (a ``vary``
    joins the response's own)."""
    if not extra:
        return send

    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            for name, value in extra:
                at = next((i for i, (n, _) in enumerate(headers) if n.lower() == name), None)
                if name == b"vary" and at is not None:
                    headers[at] = (headers[at][0], headers[at][1] + b", " + value)
                else:
                    headers.append((name, value))
            message = {**message, "headers": headers}
        await send(message)

    return sending


async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b"",
                  length: int | None = None) -> None:
    size = len(body) if length is None else length
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(size).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


__all__ = ["HEALTH_PATH", "PREFIX", "SERVICE", "CacaoAsgi", "Cors"]
