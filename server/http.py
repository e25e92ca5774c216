"""The cacao.v1 API over HTTP (the Connect protocol) and the board page.

A thin adapter, like the gRPC servicer: every method of ``cacao.v1.CacaoService``
is found in the service descriptor and answered by the :class:`~.service.CacaoApi`
method of the same name in snake_case, so there is no second hand-written API.

What is served (a subset of the Connect protocol, version 1):

- ``POST /cacao.v1.CacaoService/<Method>`` for unary methods, with
  ``Content-Type: application/json`` (proto3 JSON) or ``application/proto``.
  The answer is 200 with the response message, or a Connect error: an HTTP
  status mapped from the code and a JSON body ``{"code", "message",
  "details"}``; each detail carries ``type``, ``value`` (base64 of the packed
  message) and ``debug`` (its JSON), so ``google.rpc.BadRequest`` field paths,
  ``PreconditionFailure`` and ``ErrorInfo`` reach the browser as they reach a
  gRPC client.
- The server-streaming ``AnalyzePosition`` with ``application/connect+json`` or
  ``application/connect+proto``: enveloped messages (1 flag byte, 4-byte
  big-endian length), closed by an end-of-stream envelope holding ``{}`` or
  ``{"error": ...}``.
- ``Connect-Timeout-Ms`` becomes the call's deadline; a client that closes its
  connection stops its search.
- Security as on gRPC: with ``--tls-cert``/``--tls-key`` the HTTP side speaks
  HTTPS (and asks for client certificates with ``--tls-client-ca``); with
  ``--auth-tokens`` every call needs ``Authorization: Bearer TOKEN``
  (``unauthenticated``/``permission_denied`` otherwise; the page's files stay
  open), and a call counts against ``--max-client-searches`` as its token,
  else its IP address.
- Not served: GET requests for unary calls, compression (a compressed request
  gets ``unimplemented``), and the bidirectional ``Analyze``: streaming requests
  while answers stream back needs HTTP/2, so its calls get ``unimplemented``
  saying so (use ``AnalyzePosition`` and close the connection to stop it).

Every other GET is a file of the built page (``static/``, from ``web/``).

Thread-safety: one thread per connection (``ThreadingHTTPServer``); the shared
:class:`CacaoApi` is thread-safe and its search gate bounds the searches.
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import json
import logging
import mimetypes
import re
import select
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.search import StopFlag

from . import observe, security
from .errors import ApiError
from .service import CacaoApi, Call

log = logging.getLogger("cacaoai.server.http")

STATIC_DIR = Path(__file__).with_name("static")
SERVICE = pb.DESCRIPTOR.services_by_name["CacaoService"]

# Connect error codes -> HTTP status (connectrpc.com/docs/protocol, "Error Codes")
HTTP_STATUS = {
    "canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504,
    "not_found": 404, "already_exists": 409, "permission_denied": 403,
    "resource_exhausted": 429, "failed_precondition": 400, "aborted": 409,
    "out_of_range": 400, "unimplemented": 501, "internal": 500, "unavailable": 503,
    "data_loss": 500, "unauthenticated": 401,
}
UNARY_TYPES = {"application/json": "json", "application/proto": "proto"}
STREAM_TYPES = {"application/connect+json": "json", "application/connect+proto": "proto"}
END_STREAM = 0x02
# error details the page may show; any other packed detail keeps its type and value
_DETAIL_TYPES = {m.DESCRIPTOR.full_name: m for m in (
    error_details_pb2.BadRequest, error_details_pb2.PreconditionFailure,
    error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo)}


def _snake(name: str) -> str:
    """``ListLegalActions`` -> ``list_legal_actions``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True)
class Method:
    """One RPC of the service and the CacaoApi function that answers it."""

    descriptor: MethodDescriptor
    request_type: type[Message]
    handler: Callable[..., Any] | None
    takes_call: bool

    @property
    def streaming(self) -> bool:
        return self.descriptor.server_streaming

    @property
    def bidi(self) -> bool:
        """The client streams too (not servable over HTTP/1.1: no handler)."""
        return self.descriptor.client_streaming


def methods(api: CacaoApi) -> dict[str, Method]:
    """Every method of cacao.v1.CacaoService, by URL path, bound to ``api``
    (a method whose client streams has no handler: it is refused)."""
    found = {}
    for descriptor in SERVICE.methods:
        handler = None if descriptor.client_streaming else getattr(api, _snake(descriptor.name))
        takes_call = handler is not None and len(inspect.signature(handler).parameters) > 1
        found[f"/{SERVICE.full_name}/{descriptor.name}"] = Method(
            descriptor, message_factory.GetMessageClass(descriptor.input_type),
            handler, takes_call)
    return found


class ConnectError(Exception):
    """A Connect error: a code name (``invalid_argument``), a message, details."""

    def __init__(self, code: str, message: str, details: list | None = None):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details or []

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> ConnectError:
        code = code_pb2.Code.Name(status.code).lower()
        return cls(code, status.message, list(status.details))

    def to_json(self) -> dict[str, Any]:
        """The Connect JSON error object, with base64 values and debug JSON."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = [_detail_json(d) for d in self.details]
        return out


def _detail_json(packed: Any) -> dict[str, Any]:
    type_name = packed.type_url.rpartition("/")[2]
    detail: dict[str, Any] = {
        "type": type_name,
        "value": base64.b64encode(packed.value).decode().rstrip("="),
    }
    kind = _DETAIL_TYPES.get(type_name)
    if kind is not None:
        message = kind()
        packed.Unpack(message)
        detail["debug"] = json_format.MessageToDict(message)
    return detail


def _decode(body: bytes, codec: str, request_type: type[Message]) -> Message:
    request = request_type()
    try:
        if codec == "json":
            json_format.Parse(body.decode("utf-8") or "{}", request)
        else:
            request.ParseFromString(body)
    except (json_format.ParseError, DecodeError, UnicodeDecodeError) as error:
        raise ConnectError("invalid_argument",
                           f"request: not a valid {request_type.DESCRIPTOR.full_name} "
                           f"({codec}): {error}") from None
    return request


def _encode(message: Message, codec: str) -> bytes:
    if codec == "json":
        return json_format.MessageToJson(message, indent=None).encode()
    return message.SerializeToString()


def _envelope(flags: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def _unenvelope(body: bytes) -> bytes:
    if len(body) < 5:
        raise ConnectError("invalid_argument", "request: a streaming request is one enveloped "
                           "message (1 flag byte, 4-byte length, payload)")
    flags, size = struct.unpack(">BI", body[:5])
    if flags & 0x01:
        raise ConnectError("unimplemented", "compressed messages are not supported")
    if len(body) != 5 + size:
        raise ConnectError("invalid_argument",
                           f"request: envelope says {size} bytes, body has {len(body) - 5}")
    return body[5:]


class _Watch:
    """Sets ``stop`` when the client closes its connection while a call runs."""

    def __init__(self, connection: socket.socket, stop: Any):
        self.connection, self.stop, self.done = connection, stop, threading.Event()
        threading.Thread(target=self._run, name="cacao-http-watch", daemon=True).start()

    def _run(self) -> None:
        while not self.done.is_set() and not self.stop.is_set():
            try:
                readable, _, _ = select.select([self.connection], [], [], 0.2)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    self.stop.set()  # end of file: the client is gone
                elif readable:
                    time.sleep(0.2)  # a pipelined request waits for us; not a close
            except (OSError, ValueError):
                self.stop.set()

    def close(self) -> None:
        self.done.set()


class Handler(BaseHTTPRequestHandler):
    """One HTTP connection: Connect calls by POST, page files by GET."""

    protocol_version = "HTTP/1.1"
    server: CacaoHttpServer

    def setup(self) -> None:
        # a connection may stay silent (an idle keep-alive, a stalled upload or
        # TLS handshake, an unread answer) as long as a gRPC call may take to
        # send its request: then its thread is free again
        self.timeout = self.server.api.options.request_timeout_s
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        log.debug("%s %s", self.address_string(), format % args)

    # --- page ---

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        if path.startswith(f"/{SERVICE.full_name}/"):
            self._send_error(ConnectError("unimplemented", "GET is not served: POST the request"),
                             status=405)
            return
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        file = (STATIC_DIR / name).resolve()
        if STATIC_DIR.resolve() not in file.parents or not file.is_file():
            self._send(404, b"not found\n", "text/plain; charset=utf-8")
            return
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        self._send(200, file.read_bytes(), kind, cache="no-cache")

    # --- Connect ---

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        method = self.server.methods.get(self.path.split("?", 1)[0])
        observers = self.server.observers
        if method is None or not observers.hooks:
            self._post(method)
            return
        started = time.perf_counter()
        self._code, self._reply = "UNKNOWN", None  # set as the call is answered
        try:
            self._post(method)
        finally:
            observers.finish(observe.call_record(
                f"/{SERVICE.full_name}/{method.descriptor.name}", self._code,
                time.perf_counter() - started, self._reply,
                f"http:{self.client_address[0]}:{self.client_address[1]}"))

    def _post(self, method: Method | None) -> None:
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        streaming = method is not None and method.streaming
        try:
            if method is None:
                self._body()
                raise ConnectError("unimplemented", f"{self.path}: no such method of "
                                   f"{SERVICE.full_name}")
            self._authorize(method)
            body = self._body()
            if method.bidi:
                raise ConnectError(
                    "unimplemented", f"{method.descriptor.name} streams requests and answers "
                    "both ways, which needs HTTP/2: call it over gRPC, or use AnalyzePosition "
                    "here and close the connection to stop the search")
            codec = (STREAM_TYPES if streaming else UNARY_TYPES).get(content_type)
            if codec is None:
                self._code = "INVALID_ARGUMENT"
                accepted = ", ".join(STREAM_TYPES if streaming else UNARY_TYPES)
                self._send(415, f"Content-Type must be one of {accepted}\n".encode(),
                           "text/plain; charset=utf-8", extra={"Accept-Post": accepted})
                return
            encoding = self.headers.get("Content-Encoding" if not streaming
                                        else "Connect-Content-Encoding", "identity")
            if encoding.lower() != "identity":
                raise ConnectError("unimplemented", f"{encoding} compression is not supported")
            if streaming:
                body = _unenvelope(body)
            request = _decode(body, codec, method.request_type)
        except ConnectError as error:
            # a bidi call sent as a unary one (no envelope) gets a unary error
            if streaming and (content_type in STREAM_TYPES or not method.bidi):
                self._stream_error(error, content_type if content_type in STREAM_TYPES
                                   else "application/connect+json")
            else:
                self._send_error(error)
            return
        if streaming:
            self._stream(method, request, codec, content_type)
        else:
            self._unary(method, request, codec, content_type)

    def _body(self) -> bytes:
        length = (self.headers.get("Content-Length") or "0").strip()
        if not length.isdigit():
            self.close_connection = True
            raise ConnectError("invalid_argument", f"Content-Length: {length!r} is not a number "
                               "of bytes (chunked requests are not read)")
        size = int(length)
        limit = self.server.api.options.max_message_bytes
        if size > limit:
            self.close_connection = True  # the unread body must not be taken for a request
            raise ConnectError("resource_exhausted",
                               f"request: {size} bytes, more than the limit of {limit}")
        return self.rfile.read(size)

    def _authorize(self, method: Method) -> None:
        """Refuses the call when the server needs a token and this one has none
        that allows the method; remembers the client the call counts as."""
        tokens = self.server.tokens
        self._client = self.client_address[0]
        if tokens is None:
            return
        header = [("authorization", self.headers.get("Authorization") or "")]
        client, error = tokens.check(header, f"/{SERVICE.full_name}/{method.descriptor.name}")
        if error is not None:
            self.close_connection = True  # its body is left unread
            raise ConnectError.from_status(error.to_status())
        self._client = client

    def _call(self, method: Method) -> tuple[Call, _Watch | None]:
        """The Call of a request (its Connect-Timeout-Ms deadline), and for a
        method that takes one, a watch that stops it when the client leaves."""
        stop = StopFlag()
        timeout_ms = self.headers.get("Connect-Timeout-Ms")
        deadline = (time.monotonic() + int(timeout_ms) / 1000
                    if timeout_ms and timeout_ms.isdigit() else None)

        def time_remaining() -> float | None:
            return None if deadline is None else deadline - time.monotonic()

        watch = _Watch(self.connection, stop) if method.takes_call else None
        return Call(time_remaining=time_remaining, stop=stop, client=self._client), watch

    def _run(self, method: Method, request: Message, call: Call) -> Any:
        return method.handler(request, call) if method.takes_call else method.handler(request)

    def _unary(self, method: Method, request: Message, codec: str, content_type: str) -> None:
        call, watch = self._call(method)
        try:
            response = self._run(method, request, call)
        except ApiError as error:
            log.info("%s: %s", method.descriptor.name, error)
            self._send_error(ConnectError.from_status(error.to_status()))
            return
        except Exception:  # one bad request never harms the next
            log.exception("%s failed", method.descriptor.name)
            self._send_error(_internal())
            return
        finally:
            if watch is not None:
                watch.close()
        self._code, self._reply = "OK", response
        self._send(200, _encode(response, codec), content_type)

    def _stream(self, method: Method, request: Message, codec: str, content_type: str) -> None:
        call, watch = self._call(method)
        self._start_chunked(content_type)
        end: dict[str, Any] = {}
        try:
            for message in self._run(method, request, call):
                self._reply = message
                self._chunk(_envelope(0, _encode(message, codec)))
        except ApiError as error:
            log.info("%s: %s", method.descriptor.name, error)
            end = {"error": ConnectError.from_status(error.to_status()).to_json()}
        except OSError:  # the client went away: its search has stopped
            call.stop.set()
            self.close_connection = True
            self._code = "CANCELLED"
            return
        except Exception:
            log.exception("%s failed", method.descriptor.name)
            end = {"error": _internal().to_json()}
        finally:
            if watch is not None:
                watch.close()
        self._code = end["error"]["code"].upper() if end else "OK"
        try:
            self._chunk(_envelope(END_STREAM, json.dumps(end).encode()))
            self._chunk(b"")
        except OSError:
            self.close_connection = True

    def _stream_error(self, error: ConnectError, content_type: str) -> None:
        self._code = error.code.upper()
        self._start_chunked(content_type)
        self._chunk(_envelope(END_STREAM, json.dumps({"error": error.to_json()}).encode()))
        self._chunk(b"")

    # --- writing ---

    def _send_error(self, error: ConnectError, status: int | None = None) -> None:
        self._code = error.code.upper()  # Connect's codes are gRPC's, in lower case
        body = json.dumps(error.to_json()).encode()
        self._send(status or HTTP_STATUS.get(error.code, 500), body, "application/json")

    def _send(self, status: int, body: bytes, content_type: str, cache: str = "no-store",
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _start_chunked(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _internal() -> ConnectError:
    return ConnectError("internal", "internal error; the server log has the details")


class CacaoHttpServer(ThreadingHTTPServer):
    """An HTTP server that answers the Connect calls with one CacaoApi.

    Each connection has a thread; beyond ``max_connections`` at once a new
    connection is answered 503 (Connect ``unavailable``) and closed, so a flood
    of connections cannot take the process's threads.
    """

    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: CacaoApi, max_connections: int = 0,
                 tokens: security.Tokens | None = None, tls: ssl.SSLContext | None = None,
                 observers: observe.Observers | None = None):
        self.api = api
        self.tokens = tokens
        self.observers = observers or observe.Observers()
        self.methods = methods(api)
        self.max_connections = max_connections or 4 * api.options.worker_threads
        self._connections = threading.BoundedSemaphore(self.max_connections)
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        if tls is not None:  # the handshake happens in the connection's thread, not in accept
            self.socket = tls.wrap_socket(self.socket, server_side=True,
                                          do_handshake_on_connect=False)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._connections.acquire(blocking=False):
            body = json.dumps({"code": "unavailable", "message": f"more than "
                               f"{self.max_connections} connections at once; retry shortly"})
            with contextlib.suppress(OSError):
                request.sendall(f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                                f"application/json\r\nContent-Length: {len(body)}\r\n"
                                f"Connection: close\r\n\r\n{body}".encode())
                # read what the client sent before closing: closing on unread bytes
                # resets the connection, and the client would see no 503 at all
                request.shutdown(socket.SHUT_WR)
                request.settimeout(0.1)
                until = time.monotonic() + 0.2  # a client that keeps sending gets no more
                while request.recv(65536) and time.monotonic() < until:
                    pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()


def start_http(api: CacaoApi, host: str, port: int, max_connections: int = 0,
               tokens: security.Tokens | None = None, tls: ssl.SSLContext | None = None,
               observers: observe.Observers | None = None) -> CacaoHttpServer:
    """Starts serving the API and the page on ``host:port`` (0: any free port)
    in a background thread; ``server.server_address[1]`` is the bound port.

    Raises:
        OSError: the address cannot be bound.
    """
    server = CacaoHttpServer((host, port), api, max_connections, tokens, tls, observers)
    threading.Thread(target=server.serve_forever, name="cacao-http", daemon=True).start()
    return server


def start_page(api: CacaoApi, host: str, port: int, tokens: security.Tokens | None = None,
               observers: observe.Observers | None = None) -> CacaoHttpServer | None:
    """cacao-server's HTTP side: :func:`start_http` with the API's TLS files
    and the server's tokens, logged; None when ``port`` is 0 or cannot be
    bound (gRPC goes on serving; the log says why)."""
    if not port:
        return None
    o = api.options
    tls = security.ssl_context(o.tls_cert, o.tls_key, o.tls_client_ca) if o.tls else None
    try:
        server = start_http(api, host, port, tokens=tokens, tls=tls, observers=observers)
    except OSError as error:
        log.warning("no HTTP API or board page: cannot listen on %s:%d (%s); "
                    "choose another with --http-port", host, port, error.strerror or error)
        return None
    shown = f"[{host}]" if ":" in host else host
    log.info("board page and Connect API on %s://%s:%d/", "https" if tls else "http", shown,
             server.server_address[1])
    return server


def iter_stream(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Splits a Connect streaming body into (flags, payload) envelopes."""
    offset = 0
    while offset < len(body):
        flags, size = struct.unpack(">BI", body[offset:offset + 5])
        yield flags, body[offset + 5:offset + 5 + size]
        offset += 5 + size


__all__ = ["CacaoHttpServer", "ConnectError", "HTTP_STATUS", "iter_stream", "methods",
           "start_http", "start_page"]
