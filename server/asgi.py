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

   - :class:`CallGuard`, a metadata interceptor that runs before the request
     is read: the bearer token (``--auth-tokens``), ``--max-calls`` and
     ``--max-client-calls`` (a client is its token, else its IP address);
   - the request must arrive within ``--request-timeout`` of the call
     (``DEADLINE_EXCEEDED``, reason ``REQUEST_TIMEOUT``): the whole body of a
     unary call or a server stream, the first message of Analyze;
   - every call that reaches a method is handed to the observers (metrics,
     the JSON call log) with its gRPC code name, like a gRPC call.

3. **Health**: ``GET /healthz`` is 200 ``SERVING`` or 503 ``NOT_SERVING`` (the
   gRPC health service's status; a draining server is NOT_SERVING), with no
   token: for probes that speak HTTP(S), such as Kubernetes' ``httpGet``
   (its gRPC probes cannot speak TLS).
4. **The page**: any other ``GET`` is a file of ``static/`` (the built board
   page), gzipped when the browser takes it.

:class:`CacaoConnect` is the service: each method is the
:class:`~.service.CacaoApi` function of the same name, run in a thread pool
(the API is synchronous; a search holds its thread, or a thread of its own for
an analysis). Its :class:`~.errors.ApiError` becomes a ``ConnectError`` with
the same code, message and ``google.rpc`` details (BadRequest,
PreconditionFailure, ErrorInfo, and any other such as RetryInfo), each with its
JSON as ``debug``.

The gRPC and gRPC-Web protocols that connectrpc also speaks are not served here
(415): gRPC has its own port, with health and reflection.

Thread-safety: the application runs on one event loop; the per-client counts
are only touched there. CacaoApi is thread-safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import logging
import mimetypes
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent import futures
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.request import RequestContext
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2
from protobuf.wkt import Any as AnyMessage

from cacaoai.api import error_details_pb as rpc
from cacaoai.api.cacao.v1 import cacao_connect
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.search import StopFlag

from . import errors, observe, security
from .errors import ApiError
from .service import Analysis, CacaoApi, Call, analysis_reports

T = TypeVar("T")

log = logging.getLogger("cacaoai.server.http")

STATIC_DIR = Path(__file__).with_name("static")
SERVICE = pb.DESCRIPTOR.services_by_name["CacaoService"]
PREFIX = f"/{SERVICE.full_name}/"
GZIP_MIN_BYTES = 1024  # smaller page files go as they are
HEALTH_PATH = "/healthz"

# the google.rpc details a client may get, as the protobuf-py messages that
# connectrpc's errors hold (each is also written as JSON, "debug")
_DETAILS = {kind.desc().type_name: kind for kind in (
    rpc.BadRequest, rpc.PreconditionFailure, rpc.ErrorInfo, rpc.RetryInfo, rpc.QuotaFailure,
    rpc.ResourceInfo, rpc.RequestInfo, rpc.Help, rpc.LocalizedMessage, rpc.DebugInfo)}

# HTTP status of an answer that no handler or guard saw (connectrpc refused it
# first) -> the gRPC code name its call record gets
_STATUS_CODES = {200: "OK", 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED",
                 403: "PERMISSION_DENIED", 404: "UNIMPLEMENTED", 405: "UNIMPLEMENTED",
                 408: "DEADLINE_EXCEEDED", 409: "ABORTED", 415: "INVALID_ARGUMENT",
                 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 501: "UNIMPLEMENTED",
                 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


# --- errors -------------------------------------------------------------------

def connect_code(code: grpc.StatusCode | int) -> Code:
    """The Connect code of a gRPC status code (an enum or its number)."""
    name = code.name if isinstance(code, grpc.StatusCode) else code_pb2.Code.Name(code)
    return Code.CANCELED if name == "CANCELLED" else Code[name]


def grpc_code_name(code: Code) -> str:
    """The gRPC name of a Connect code (what call records and metrics show)."""
    return "CANCELLED" if code is Code.CANCELED else code.name


def connect_error(error: ApiError) -> ConnectError:
    """An API error as a Connect error: the same code and message, and its
    ``google.rpc`` details (each kept whole, and readable as ``debug`` when it
    is one of the standard details)."""
    status = error.to_status()
    details = []
    for packed in status.details:
        kind = _DETAILS.get(packed.type_url.rpartition("/")[2])
        message = (kind.from_binary(packed.value) if kind is not None
                   else AnyMessage(type_url=packed.type_url, value=packed.value))
        details.append(ErrorDetail(message))
    return ConnectError(connect_code(status.code), status.message, details)


def _internal(method: str) -> ConnectError:
    log.exception("%s failed", method)
    return ConnectError(Code.INTERNAL, "internal error; the server log has the details")


# --- codecs -------------------------------------------------------------------

class JsonCodec:
    """proto3 JSON on one line, as the gRPC side's JSON tools write it; a request
    that does not parse (an unknown field included) is INVALID_ARGUMENT naming
    the message and the reason. An empty body is an empty message."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        message = message_class()
        try:
            json_format.Parse(bytes(data).decode("utf-8") or "{}", message)
        except (json_format.ParseError, UnicodeDecodeError) as error:
            raise _undecodable(message_class, "json", error) from None
        return message


class ProtoCodec:
    """Binary protobuf; bytes that do not decode are INVALID_ARGUMENT."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Message:
        try:
            return message_class.FromString(bytes(data))
        except DecodeError as error:
            raise _undecodable(message_class, "proto", error) from None


def _undecodable(message_class: type[Message], codec: str, error: Exception) -> ConnectError:
    return connect_error(errors.invalid(
        "request", f"not a valid {message_class.DESCRIPTOR.full_name} ({codec}): {error}",
        ErrorReason.UNDECODABLE_REQUEST))


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


_CURRENT: ContextVar[HttpCall | None] = ContextVar("cacao_http_call", default=None)


def _current() -> HttpCall:
    call = _CURRENT.get()
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
        self.tokens, self.max_calls, self.max_client_calls = tokens, max_calls, max_client_calls
        self.calls = 0
        self.per_client: dict[str, int] = {}

    async def on_start(self, ctx: RequestContext) -> str:
        call = _current()
        try:
            call.client = self._admit(call, ctx)
        except ConnectError as error:
            call.code = grpc_code_name(error.code)
            raise
        self.calls += 1
        self.per_client[call.client] = self.per_client.get(call.client, 0) + 1
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
        if self.max_client_calls and self.per_client.get(client, 0) >= self.max_client_calls:
            raise connect_error(ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this client ({client}) already has its maximum of {self.max_client_calls} "
                "calls in progress; wait for one to end", ErrorReason.TOO_MANY_CLIENT_CALLS))
        return client

    async def on_end(self, client: str, ctx: RequestContext, error: Exception | None) -> None:
        self.calls -= 1
        left = self.per_client[client] - 1
        if left:
            self.per_client[client] = left
        else:
            del self.per_client[client]
        call = _current()
        if error is None:
            call.code = "OK"
        elif isinstance(error, ConnectError):
            call.code = grpc_code_name(error.code)
        else:
            call.code = "UNKNOWN"


# --- the service ------------------------------------------------------------------

class CacaoConnect:
    """cacao.v1.CacaoService for connectrpc (``cacao_connect.CacaoService``):
    each method runs the :class:`CacaoApi` function of its name in ``pool``."""

    def __init__(self, api: CacaoApi, pool: futures.Executor):
        self.api, self.pool = api, pool

    def _call(self, ctx: RequestContext) -> Call:
        """The Call of an RPC: its deadline (``Connect-Timeout-Ms``), its
        client and a fresh stop flag."""
        remaining = ctx.timeout_ms
        deadline = None if remaining is None else time.monotonic() + remaining / 1000
        return Call(
            time_remaining=(lambda: None) if deadline is None else (lambda: deadline - time.monotonic()),
            stop=StopFlag(), client=_current().client)

    async def _unary(self, method: str, work: Callable[[], T], call: Call | None = None) -> T:
        try:
            reply = await asyncio.get_running_loop().run_in_executor(self.pool, work)
        except ApiError as error:
            log.info("%s: %s", method, error)
            raise connect_error(error) from None
        except (asyncio.CancelledError, ConnectError):
            raise
        except Exception:  # one bad request never harms the next
            raise _internal(method) from None
        finally:
            if call is not None:
                call.stop.set()  # a cancelled call (a hang-up, its deadline) ends its search
        _current().reply = reply
        return reply

    async def get_server_info(self, request: pb.GetServerInfoRequest,
                              ctx: RequestContext) -> pb.GetServerInfoResponse:
        return await self._unary("GetServerInfo", lambda: self.api.get_server_info(request))

    async def new_game(self, request: pb.NewGameRequest, ctx: RequestContext) -> pb.NewGameResponse:
        return await self._unary("NewGame", lambda: self.api.new_game(request))

    async def list_legal_actions(self, request: pb.ListLegalActionsRequest,
                                 ctx: RequestContext) -> pb.ListLegalActionsResponse:
        return await self._unary("ListLegalActions", lambda: self.api.list_legal_actions(request))

    async def apply_action(self, request: pb.ApplyActionRequest,
                           ctx: RequestContext) -> pb.ApplyActionResponse:
        return await self._unary("ApplyAction", lambda: self.api.apply_action(request))

    async def suggest_action(self, request: pb.SuggestActionRequest,
                             ctx: RequestContext) -> pb.SuggestActionResponse:
        call = self._call(ctx)
        return await self._unary("SuggestAction", lambda: self.api.suggest_action(request, call),
                                 call)

    async def validate_record(self, request: pb.ValidateRecordRequest,
                              ctx: RequestContext) -> pb.ValidateRecordResponse:
        return await self._unary("ValidateRecord", lambda: self.api.validate_record(request))

    async def analyze_position(self, request: pb.AnalyzePositionRequest,
                               ctx: RequestContext) -> AsyncIterator[pb.AnalyzePositionResponse]:
        """The analysis' reports as they come; the search runs (and ends,
        freeing its slot) whether or not the client reads them."""
        async for report in self._analysis("AnalyzePosition", request, self._call(ctx)):
            yield report

    async def analyze(self, requests: AsyncIterator[pb.AnalyzeRequest],
                      ctx: RequestContext) -> AsyncIterator[pb.AnalyzePositionResponse]:
        """AnalyzePosition started by the first message, which a later ``stop``
        ends at once with its final report (the end of the requests lets it run)."""
        messages = aiter(requests)
        first = await anext(messages, None)
        if first is None:
            raise connect_error(errors.invalid("start", "the call sent no request: the first "
                                               "message must be start"))
        if first.WhichOneof("kind") != "start":
            raise connect_error(errors.invalid(
                "start", "the first message must be start (an AnalyzePositionRequest); "
                "stop comes after it"))
        call = self._call(ctx)
        problems: list[ApiError] = []
        listening = asyncio.ensure_future(_listen(messages, call, problems))
        try:
            async for report in self._analysis("Analyze", first.start, call, problems, "start"):
                yield report
        finally:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listening

    async def _analysis(self, name: str, request: pb.AnalyzePositionRequest, call: Call,
                        problems: list[ApiError] | None = None,
                        within: str = "") -> AsyncIterator[pb.AnalyzePositionResponse]:
        """Starts an analysis and yields its reports until the final one.

        Args:
            problems: filled by another task when the client sends something
                wrong mid-stream: the call then ends with that error.
            within: the field holding the request in the call's message (its
                errors name their fields under it).
        """
        loop = asyncio.get_running_loop()

        def start(notify: Callable[[], None]) -> Awaitable[Analysis]:
            return loop.run_in_executor(self.pool, lambda: self.api.start_analysis(request, call, notify))

        record = _current()
        try:
            async with contextlib.aclosing(analysis_reports(start, problems, within)) as reports:
                async for report in reports:
                    record.reply = report
                    yield report
        except ApiError as error:
            log.info("%s: %s", name, error)
            raise connect_error(error) from None
        except (asyncio.CancelledError, GeneratorExit, ConnectError):
            raise
        except Exception:
            raise _internal(name) from None
        finally:
            call.stop.set()  # a hang-up, a deadline or an early end stops the search


async def _listen(messages: AsyncIterator[pb.AnalyzeRequest], call: Call,
                  problems: list[ApiError]) -> None:
    """Reads an Analyze call's messages after its start: ``stop`` sets the
    call's stop flag; the end of the requests changes nothing (the search
    runs to its budget); anything else is a problem that ends the call."""
    try:
        message = await anext(messages, None)
    except ConnectError as error:
        if error.code is Code.CANCELED:  # the client went away: connectrpc ends the call
            call.stop.set()
            return
        message = None
        problems.append(errors.invalid(
            "stop", f"a message that is not a valid cacao.v1.AnalyzeRequest: {error.message}",
            ErrorReason.UNDECODABLE_REQUEST))
    if message is None and not problems:
        return
    if message is not None and message.WhichOneof("kind") != "stop":
        kind = message.WhichOneof("kind")
        problems.append(errors.invalid(
            kind or "stop", "only the first message may be start" if kind else
            "an empty message: send stop to end the analysis"))
    call.stop.set()


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
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


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
        self.connect = cacao_connect.CacaoServiceASGIApplication(
            CacaoConnect(api, self.pool), interceptors=[self.guard],
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
            respond = _draining(watched, body)

        started = time.perf_counter()
        token = _CURRENT.set(call)
        try:
            await self.connect(scope, body.receive, respond)
        finally:
            _CURRENT.reset(token)
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


def _draining(send: Send, body: RequestBody) -> Send:
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
            raise connect_error(ApiError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the request did not arrive within {self.timeout_s:g} s of the call",
                ErrorReason.REQUEST_TIMEOUT)) from None
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


__all__ = ["HEALTH_PATH", "CacaoAsgi", "CacaoConnect", "CallGuard", "Cors", "HttpCall", "JsonCodec", "PREFIX",
           "ProtoCodec", "SERVICE", "connect_code", "connect_error", "grpc_code_name"]
