"""Who may call: TLS credentials, bearer tokens, and the client key of a call.

- :func:`server_credentials` reads the PEM files of ``--tls-cert``,
  ``--tls-key`` and ``--tls-client-ca`` for gRPC, :func:`ssl_context` the same
  files for the HTTP side.
- :class:`Tokens` holds the accepted bearer tokens and their roles;
  :class:`TokenInterceptor` refuses a call without a valid token
  (UNAUTHENTICATED) or whose token's role does not cover the method
  (PERMISSION_DENIED: the API's method table, :mod:`cacaoai.api.methods`,
  says which roles may call what). Health checks stay open: probes carry no token and
  reveal nothing but "serving".
- :func:`client_key` names the client a per-client search limit counts
  against: its token, else its IP address.

Thread-safety: everything here is immutable once built.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_status import rpc_status

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.api.methods import BY_PATH, ROLES

from .errors import ApiError

OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise ValueError(f"cannot read the {what} {path}: {error.strerror}") from None


def server_credentials(cert: str, key: str, client_ca: str | None) -> grpc.ServerCredentials:
    """TLS credentials of the server; with ``client_ca``, clients must show a
    certificate signed by it.

    Raises:
        ValueError: a file cannot be read.
    """
    chain = _read(cert, "TLS certificate")
    private = _read(key, "TLS key")
    roots = _read(client_ca, "client CA") if client_ca else None
    return grpc.ssl_server_credentials([(private, chain)], root_certificates=roots,
                                       require_client_auth=roots is not None)


def ssl_context(cert: str, key: str, client_ca: str | None) -> ssl.SSLContext:
    """The HTTP side's TLS context from the same files as :func:`server_credentials`.

    Raises:
        ValueError: a file cannot be read or does not hold what it should.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
        if client_ca:
            context.load_verify_locations(client_ca)
            context.verify_mode = ssl.CERT_REQUIRED
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"cannot use the TLS files {cert}, {key}"
                         f"{', ' + client_ca if client_ca else ''}: {error}") from None
    return context


@dataclass(frozen=True)
class Tokens:
    """Accepted bearer tokens: sha256 of the token -> (role, short id)."""

    roles: dict[bytes, tuple[str, str]]

    @classmethod
    def load(cls, path: str) -> Tokens:
        """Reads a token file: one token a line, optionally a space and its role;
        blank lines and lines starting with # are skipped.

        Raises:
            ValueError: the file cannot be read, names an unknown role, or
                holds no token.
        """
        roles: dict[bytes, tuple[str, str]] = {}
        text = _read(path, "token file").decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            role = words[1] if len(words) > 1 else "all"
            if role not in ROLES or len(words) > 2:
                raise ValueError(f"{path} line {number}: expected TOKEN [ROLE], ROLE one of "
                                 f"{', '.join(ROLES)}")
            digest = hashlib.sha256(words[0].encode()).digest()
            roles[digest] = (role, "token-" + digest.hex()[:8])
        if not roles:
            raise ValueError(f"{path}: no token in the file")
        return cls(roles)

    def check(self, metadata: Any, method: str) -> tuple[str, ApiError | None]:
        """(client id, None) for a call allowed with this metadata, else
        ("", the error to answer)."""
        header = ""
        for key, value in metadata or ():
            if key == "authorization":
                header = value if isinstance(value, str) else value.decode("latin-1")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "", ApiError(grpc.StatusCode.UNAUTHENTICATED,
                                "this server needs a token: send the metadata "
                                "'authorization: Bearer TOKEN'", ErrorReason.UNAUTHENTICATED)
        digest = hashlib.sha256(token.strip().encode()).digest()
        found = None
        for known, entry in self.roles.items():  # compare every one, in constant time
            if hmac.compare_digest(known, digest):
                found = entry
        if found is None:
            return "", ApiError(grpc.StatusCode.UNAUTHENTICATED,
                                "the token is not one this server accepts", ErrorReason.UNAUTHENTICATED)
        role, client = found
        rpc = BY_PATH.get(method)
        if rpc is not None and not rpc.allows(role):
            return "", ApiError(grpc.StatusCode.PERMISSION_DENIED,
                                f"the token's role ({role}) does not allow searches ({rpc.name})",
                                ErrorReason.PERMISSION_DENIED)
        return client, None


def _refusal(handler: grpc.RpcMethodHandler, error: ApiError) -> grpc.RpcMethodHandler:
    """A handler of the same kind as ``handler`` that answers ``error``."""
    status = rpc_status.to_status(error.to_status())

    async def refuse(_request: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(status.code, status.details, status.trailing_metadata)

    async def refuse_stream(_requests: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(status.code, status.details, status.trailing_metadata)

    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(refuse_stream)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(refuse_stream)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(refuse)
    return grpc.unary_unary_rpc_method_handler(refuse)


class TokenInterceptor(grpc.aio.ServerInterceptor):
    """Lets through calls with an accepted bearer token (health: always)."""

    def __init__(self, tokens: Tokens):
        self.tokens = tokens

    async def intercept_service(
            self, continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
            details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith(OPEN_PREFIXES):
            return handler
        _, error = self.tokens.check(details.invocation_metadata, details.method)
        return handler if error is None else _refusal(handler, error)


def client_key(peer: str, metadata: Any, tokens: Tokens | None) -> str:
    """Who a call counts as for per-client limits: its token's id when tokens
    are required, else its IP address (without the port)."""
    if tokens is not None:
        client, error = tokens.check(metadata, "")
        if error is None:
            return client
    kind, _, address = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        host = address.rsplit(":", 1)[0].strip("[]")
        return host
    return peer


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
