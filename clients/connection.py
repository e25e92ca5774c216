"""How a client reaches a server: the channel, its retry policy, TLS and tokens.

- :func:`retry_service_config`: the gRPC service config that retries calls
  that found no server (UNAVAILABLE) and searches refused while every search
  slot was busy (RESOURCE_EXHAUSTED); gRPC itself retries, with jitter.
- :class:`Connection`: what the sync and the asyncio client share: target,
  deadlines, retry settings, the channel they open (on TLS when asked) and
  the :class:`~cacaoai.client.CacaoClientError` of a failed call.
- A bearer-token interceptor for the sync client (the asyncio one sends the
  token in each call's metadata).
- :func:`add_connection_flags` and :func:`connection_settings`: the same
  options for command-line tools (``--tls``, ``--tls-ca``, ``--tls-cert``,
  ``--tls-key``, ``--token-file``; the token may also come from ``CACAO_TOKEN``).

Thread-safety: a Connection's settings do not change after it is made.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from cacaoai.api import Limit
from cacaoai.api.methods import RPCS, SERVICE_NAME

from .errors import CacaoClientError, error_from_rpc

__all__ = [
    "DEFAULT_TARGET", "MAX_RETRIES", "BearerToken", "Connection", "add_connection_flags",
    "connection_settings", "retry_service_config",
]

DEFAULT_TARGET = "127.0.0.1:50051"
MAX_RETRIES = 4  # gRPC tries a call at most 5 times


def retry_service_config(retries: int, backoff: float, max_backoff: float) -> str:
    """The gRPC service config (JSON) that retries calls of the Cacao service.

    Each method is retried on the codes of its row of the API's method table
    (:mod:`cacaoai.api.methods`): every method on UNAVAILABLE (no server
    listening, a connection lost); the calls that search (suggestions,
    analyses, reviews) also on RESOURCE_EXHAUSTED, the server's answer while
    all its search slots are busy. gRPC waits a random time (jitter) up to
    ``backoff`` before the first retry, doubling up to ``max_backoff``. A
    stream is retried only before its first report. ``retries`` 0: none.
    """
    if retries <= 0:
        return json.dumps({"methodConfig": []})

    def policy(codes: list[str]) -> dict[str, Any]:
        return {"maxAttempts": 1 + min(retries, MAX_RETRIES),
                "initialBackoff": f"{max(backoff, 0.001):.3f}s",
                "maxBackoff": f"{max(max_backoff, backoff, 0.001):.3f}s",
                "backoffMultiplier": 2, "retryableStatusCodes": codes}

    by_codes: dict[tuple[str, ...], list[str]] = {}
    for rpc in RPCS:
        by_codes.setdefault(rpc.retry_codes, []).append(rpc.name)
    return json.dumps({"methodConfig": [
        {"name": [{"service": SERVICE_NAME, "method": name} for name in names],
         "retryPolicy": policy(list(codes))}
        for codes, names in by_codes.items()]})


class Connection:
    """What both clients share: deadlines, the retry policy, the channel's
    options and credentials, and the error of a failed call.

    Raises:
        ValueError: a deadline that is not positive, negative retries or
            backoff, or a client certificate without its key (or the reverse).
    """

    def __init__(self, target: str, timeout: float, search_timeout: float, retries: int,
                 backoff: float, max_backoff: float, client_cert: str | None,
                 client_key: str | None):
        if retries < 0 or backoff < 0 or timeout <= 0 or search_timeout <= 0:
            raise ValueError("timeouts must be positive, retries and backoff not negative")
        if bool(client_cert) != bool(client_key):
            raise ValueError("client_cert and client_key go together")
        self.target = target
        self.timeout = timeout
        self.search_timeout = search_timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff

    def _open(self, kind: Any, load_balancing: str | None, tls: bool, ca_cert: str | None,
              client_cert: str | None, client_key: str | None) -> Any:
        """A channel from ``kind`` (the ``grpc`` or the ``grpc.aio`` module) with
        the retry policy, on TLS when asked."""
        options: list[tuple[str, Any]] = [
            ("grpc.enable_retries", 1),
            ("grpc.service_config",
             retry_service_config(self.retries, self.backoff, self.max_backoff))]
        if load_balancing:
            options.append(("grpc.lb_policy_name", load_balancing))
        if not (tls or ca_cert or client_cert):
            return kind.insecure_channel(self.target, options=options)
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read(ca_cert) if ca_cert else None,
            private_key=_read(client_key) if client_key else None,
            certificate_chain=_read(client_cert) if client_cert else None)
        return kind.secure_channel(self.target, credentials, options=options)

    def _error(self, error: grpc.RpcError) -> CacaoClientError:
        """The CacaoClientError of a failed call."""
        code = error.code() if callable(getattr(error, "code", None)) else None
        attempts = 1 + self.retries if code == grpc.StatusCode.UNAVAILABLE else 1
        return error_from_rpc(error, self.target, attempts)

    def _search_timeout(self, strength: Limit | str | None, timeout: float | None) -> float:
        """The deadline of a search: ``timeout``, else ``search_timeout``
        raised to cover a time budget plus ``timeout``."""
        if timeout is not None:
            return timeout
        wanted = (strength.time_s or 0.0) if isinstance(strength, Limit) else 0.0
        return max(self.search_timeout, wanted + self.timeout)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.target}>"


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


class BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                  grpc.StreamStreamClientInterceptor):
    """Adds ``authorization: Bearer TOKEN`` to every call's metadata."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _with_token(self, details: Any) -> Any:
        metadata = [*(details.metadata or ()), self._header]
        return _CallDetails(details.method, details.timeout, metadata, details.credentials,
                            getattr(details, "wait_for_ready", None),
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._with_token(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._with_token(details), request)

    def intercept_stream_stream(self, continuation, details, request_iterator):
        return continuation(self._with_token(details), request_iterator)


@dataclass(frozen=True)
class _CallDetails(grpc.ClientCallDetails):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: Any
    compression: Any


def add_connection_flags(parser: argparse.ArgumentParser) -> None:
    """Adds the TLS and token flags of the command-line clients to ``parser``."""
    group = parser.add_argument_group("connection security")
    group.add_argument("--tls", action="store_true",
                       help="speak TLS to --server (system root certificates unless --tls-ca)")
    group.add_argument("--tls-ca", metavar="PEM", help="CA certificate of the server (implies --tls)")
    group.add_argument("--tls-cert", metavar="PEM", help="client certificate (mutual TLS)")
    group.add_argument("--tls-key", metavar="PEM", help="key of the client certificate")
    group.add_argument("--token-file", metavar="FILE",
                       help="file holding the bearer token to send (default: $CACAO_TOKEN)")


def connection_settings(args: argparse.Namespace,
                        environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The CacaoClient keyword arguments of :func:`add_connection_flags`'s flags.

    Raises:
        ValueError: the token file cannot be read or is empty.
    """
    environ = os.environ if environ is None else environ
    token = environ.get("CACAO_TOKEN") or None
    if args.token_file:
        try:
            token = _read(args.token_file).decode().strip()
        except OSError as error:
            raise ValueError(f"cannot read the token file {args.token_file}: {error.strerror}") from None
        if not token:
            raise ValueError(f"the token file {args.token_file} is empty")
    return {"tls": args.tls, "ca_cert": args.tls_ca, "client_cert": args.tls_cert,
            "client_key": args.tls_key, "token": token}
