"""A typed Python client of the Cacao service (API ``cacao.v1``).

    from cacaoai.client import CacaoClient, Strength
    from cacaoai.engine import Position

    game = Position.new(players=2, seed=7)                  # the true game stays here
    with CacaoClient("127.0.0.1:50051") as client:
        seat = game.to_act
        move = client.suggest(game.observation(seat), Strength.parse("strong"))
        game.apply(move.action)                             # an engine Action

Every method mirrors one RPC of ``cacao.v1.CacaoService`` and returns a small
frozen dataclass instead of protobuf: actions are engine
:class:`~cacaoai.engine.Action` objects, positions and records are the
project's JSON forms (``cacao-position/1`` and ``cacao-record/1`` dicts), the
same the engine reads and writes. A position argument (a *source*) may be an
engine :class:`~cacaoai.engine.Position` (sent complete), a position or
observation dict, or a record dict.

Calls carry a deadline (``timeout``); calls that fail with ``UNAVAILABLE``
(no server listening, a connection lost), and searches refused with
``RESOURCE_EXHAUSTED`` (every search slot busy), are retried by gRPC itself
(the channel's retry service config: a bounded number of times, exponential
backoff with jitter); every other failure is raised at once as a
:class:`CacaoClientError` with the status code, the server's message and the
fields it named.

Conversions between messages and JSON forms are :mod:`cacaoai.api.convert`,
shared with the server (so both sides agree on every field); the client
imports neither the server nor the search. A search's answer
(:class:`Evaluation`) is :class:`cacaoai.api.results.SearchResult`, the same
type ``cacaoai.search.search`` returns: per-seat win probability, expected gold
and score lead, candidates, principal variation, ``stopped_by``, the
``threads`` actually used, and ``limits``, the budget searched (``None``: no
limit).

Security: ``tls=True`` (or a ``ca_cert``) speaks TLS, ``client_cert`` and
``client_key`` present a client certificate (mutual TLS), and ``token``
sends ``authorization: Bearer TOKEN`` with every call.
:func:`add_connection_flags` and :func:`connection_settings` give command-line
tools the same options (``--tls``, ``--tls-ca``, ``--tls-cert``,
``--tls-key``, ``--token-file``; the token may also come from ``CACAO_TOKEN``).

Thread-safety: a CacaoClient may be shared by threads (gRPC channels and stubs
are thread-safe; the client keeps no other mutable state).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar, Union

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.api.results import Candidate, RootInfo, SearchBudget, SearchResult, SeatOutlook
from cacaoai.engine import Action, Position
from cacaoai.api import convert

__all__ = [
    "add_connection_flags", "connection_settings", "Activation", "Analysis", "AnalysisReport",
    "Applied", "CacaoClient", "CacaoClientError", "Candidate", "Evaluation", "LegalActions",
    "NewGame", "Placement", "RootInfo", "SearchBudget", "SeatOutlook", "ServerInfo",
    "ServerLimits", "Source", "Strength", "Suggestion", "Validation", "evaluation_lines",
]

DEFAULT_TARGET = "127.0.0.1:50051"

#: What a method accepts as a position: an engine Position (sent complete), a
#: ``cacao-position/1`` dict (complete, or an observation with ``view``), or a
#: ``cacao-record/1`` dict (replayed by the server).
Source = Union[Position, Mapping[str, Any]]

T = TypeVar("T")

_TILE_SOURCES = {pb.TILE_SOURCE_HAND: "hand", pb.TILE_SOURCE_DISPLAY: "display",
                 pb.TILE_SOURCE_DECK: "deck"}
_DIRECTIONS = {pb.DIRECTION_N: "N", pb.DIRECTION_E: "E", pb.DIRECTION_S: "S",
               pb.DIRECTION_W: "W"}


# --- errors --------------------------------------------------------------------

class CacaoClientError(Exception):
    """A call that failed: the gRPC status code, the server's message and details.

    Attributes:
        code: the ``grpc.StatusCode``.
        message: the server's message (or the client's, for a server that
            cannot be reached or a deadline that passed).
        field_violations: (field path, description) pairs of a
            ``google.rpc.BadRequest`` detail, such as
            ``("action.place.x", "illegal action: ...")``.
        reason: the ``google.rpc.ErrorInfo`` reason (``ILLEGAL_ACTION``, ...),
            or "" when the server sent none.
        preconditions: (type, subject, description) triples of a
            ``google.rpc.PreconditionFailure`` detail.
        attempts: the most tries the channel's retry policy allowed the call
            (1 for a code that is not retried).
    """

    def __init__(self, code: grpc.StatusCode, message: str,
                 field_violations: Sequence[tuple[str, str]] = (), *, reason: str = "",
                 preconditions: Sequence[tuple[str, str, str]] = (), attempts: int = 1):
        super().__init__(code, message, list(field_violations))
        self.code = code
        self.message = message
        self.field_violations = list(field_violations)
        self.reason = reason
        self.preconditions = list(preconditions)
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


def _error_from_rpc(error: grpc.RpcError, target: str, attempts: int) -> CacaoClientError:
    """The CacaoClientError of a failed call, with the rich status details unpacked."""
    call = error if callable(getattr(error, "code", None)) else None
    code = call.code() if call is not None else grpc.StatusCode.UNKNOWN
    message = (call.details() if call is not None else None) or str(error)
    violations: list[tuple[str, str]] = []
    preconditions: list[tuple[str, str, str]] = []
    reason = ""
    try:
        status = rpc_status.from_call(call) if call is not None else None
    except ValueError:
        status = None
    details: Sequence[any_pb2.Any] = status.details if status is not None else ()
    for detail in details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations += [(v.field, v.description) for v in bad.field_violations]
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            preconditions += [(v.type, v.subject, v.description) for v in failure.violations]
        elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
    if code == grpc.StatusCode.UNAVAILABLE:
        tries = f" (tried up to {attempts} times)" if attempts > 1 else ""
        message = f"the Cacao server at {target} is unavailable{tries}: {message}"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        message = f"no answer from {target} before the deadline: {message}"
    return CacaoClientError(code, message, violations, reason=reason,
                            preconditions=preconditions, attempts=attempts)


# --- budgets -------------------------------------------------------------------

@dataclass(frozen=True)
class Strength:
    """How hard the AI searches: a named level or explicit limits (not both).

    Neither given: the server's default level.

    Attributes:
        level: a level name the server lists (``ServerInfo.levels``).
        iterations: most search iterations.
        time_s: most seconds of search.
        threads: search threads (None: the server's setting).
    """

    level: str | None = None
    iterations: int | None = None
    time_s: float | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.level is not None and (self.iterations or self.time_s or self.threads):
            raise ValueError("give a level or limits (iterations, time, threads), not both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"time must be positive, got {self.time_s}")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads must be at least 1, got {self.threads}")

    @classmethod
    def parse(cls, text: str | None) -> "Strength":
        """A strength from short text.

        ``"strong"`` or ``"level=strong"`` (a level); ``"500"`` or
        ``"iterations=500"`` (iterations); ``"2s"``, ``"250ms"`` or
        ``"time=2"`` (seconds per move); ``"threads=2"``; combine limits with
        commas: ``"iterations=5000,time=3s,threads=2"``. Empty: the server's
        default level.

        Raises:
            ValueError: text that is none of these, with what was expected.
        """
        values: dict[str, Any] = {}
        for part in (text or "").replace(" ", "").split(","):
            if not part:
                continue
            key, sep, value = part.partition("=")
            if not sep:
                try:
                    key, value = _strength_key(part), part
                except ValueError as error:
                    raise ValueError(f"bad strength {text!r}: {error}") from None
            key = {"i": "iterations", "iters": "iterations", "t": "time", "seconds": "time"}.get(
                key.lower(), key.lower())
            try:
                if key == "level":
                    values["level"] = value
                elif key == "iterations":
                    values["iterations"] = int(value)
                elif key == "time":
                    values["time_s"] = _seconds(value)
                elif key == "threads":
                    values["threads"] = int(value)
                else:
                    raise ValueError(f"unknown setting {key!r}")
            except ValueError as error:
                raise ValueError(
                    f"bad strength {text!r} ({error}): give a level name such as 'strong', "
                    "iterations such as '500', or time per move such as '2s'") from None
        return cls(**values)

    def describe(self) -> str:
        """Short words for people: "level strong", "500 iterations, 2 s/move"."""
        if self.level:
            return f"level {self.level}"
        parts = []
        if self.iterations:
            parts.append(f"{self.iterations} iterations")
        if self.time_s:
            parts.append(f"{self.time_s:g} s/move")
        if self.threads:
            parts.append(f"{self.threads} threads")
        return ", ".join(parts) or "server default"

    def spec(self) -> str:
        """The text that :meth:`parse` turns back into this strength."""
        if self.level:
            return self.level
        parts = []
        if self.iterations:
            parts.append(f"iterations={self.iterations}")
        if self.time_s:
            parts.append(f"time={self.time_s:g}")
        if self.threads:
            parts.append(f"threads={self.threads}")
        return ",".join(parts)

    def apply_to(self, request: Any) -> None:
        """Sets the ``budget`` oneof of a SuggestAction or AnalyzePosition request."""
        if self.level:
            request.level = self.level
        elif self.iterations or self.time_s or self.threads:
            request.limits.iterations = self.iterations or 0
            request.limits.threads = self.threads or 0
            if self.time_s:
                request.limits.time.CopyFrom(_duration(self.time_s))
            request.limits.SetInParent()


def _strength_key(part: str) -> str:
    if re.fullmatch(r"\d+", part):
        return "iterations"
    if re.fullmatch(r"\d*\.\d+", part):
        raise ValueError(f"a bare {part} is neither iterations nor time: write {part}s for seconds")
    if re.fullmatch(r"\d*\.?\d+(s|ms|sec)", part, re.IGNORECASE):
        return "time"
    return "level"


def _seconds(text: str) -> float:
    match = re.fullmatch(r"(\d*\.?\d+)\s*(ms|s|sec)?", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"not a time: {text!r}")
    value = float(match.group(1))
    return value / 1000 if (match.group(2) or "").lower() == "ms" else value


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(round(seconds * 1e9)))
    return duration


def _secs(duration: duration_pb2.Duration) -> float:
    return duration.ToNanoseconds() / 1e9


# --- results -------------------------------------------------------------------

@dataclass(frozen=True)
class ServerLimits:
    """What the server enforces on every request."""

    max_iterations: int
    max_time_s: float
    search_threads: int
    max_concurrent_searches: int
    max_message_bytes: int
    min_report_interval_s: float
    search_priority: str = ""
    max_client_searches: int = 0
    max_concurrent_calls: int = 0
    max_client_calls: int = 0
    tree_cache_bytes: int = 0


@dataclass(frozen=True)
class ServerInfo:
    """Versions, limits and strength levels of a server (GetServerInfo)."""

    api_version: str
    server_version: str
    engine_version: str
    rules_version: str
    record_format: str
    position_format: str
    limits: ServerLimits
    levels: dict[str, SearchBudget]
    default_level: str
    instance: str


@dataclass(frozen=True)
class NewGame:
    """A new deal (NewGame): the complete position and the record with no actions."""

    position: dict[str, Any]
    position_hash: str
    record: dict[str, Any]


@dataclass(frozen=True)
class LegalActions:
    """The legal actions of the seat to act (ListLegalActions)."""

    position_hash: str
    phase: str
    to_act: int | None
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Placement:
    """A tile an action put on the board; ``source`` is hand, display or deck."""

    x: int
    y: int
    tile: str
    source: str
    seat: int | None = None
    rot: int | None = None


@dataclass(frozen=True)
class Activation:
    """One worker side that an action activated; ``direction`` is N, E, S or W."""

    seat: int
    x: int
    y: int
    direction: str
    jungle: str
    workers: int


@dataclass(frozen=True)
class Applied:
    """What ApplyAction did.

    Attributes:
        position: the complete position after the action (``cacao-position/1``).
        position_hash: its hash.
        action: the action as applied (canonical).
        placed: tiles put on the board.
        activations: worker sides activated.
        gains: seat -> {"gold", "cacao", "sun", "water"} changes, for seats
            whose state changed.
        turn_ended: True when the action ended the mover's turn.
        worker_tile_drawn: the tile the mover drew at the end of the turn, if any.
        display_refill: jungle tiles moved from the deck to the display.
        result: the record's ``result`` form when the game ended, else None.
        record: the record with the action appended, when a record was sent.
    """

    position: dict[str, Any]
    position_hash: str
    action: Action
    placed: tuple[Placement, ...]
    activations: tuple[Activation, ...]
    gains: dict[int, dict[str, int]]
    turn_ended: bool
    worker_tile_drawn: str | None
    display_refill: tuple[str, ...]
    result: dict[str, Any] | None
    record: dict[str, Any] | None


Evaluation = SearchResult
"""What a search found: the one result type of search, server and client
(:class:`cacaoai.api.results.SearchResult`; ``limits`` is the budget actually
used, None meaning no limit, and ``threads`` the search threads used)."""


@dataclass(frozen=True)
class Suggestion:
    """SuggestAction's answer: the action for ``seat`` and the evaluation behind it."""

    position_hash: str
    seat: int
    action: Action
    evaluation: Evaluation


@dataclass(frozen=True)
class AnalysisReport:
    """One report of AnalyzePosition (``evaluation.final`` on the last one)."""

    position_hash: str
    seat: int
    sequence: int
    evaluation: Evaluation


@dataclass(frozen=True)
class Validation:
    """ValidateRecord's answer.

    Attributes:
        valid: every action legal and the result, if any, agrees.
        error_index: the first illegal action (-1: a bad header; the number of
            actions: a result that disagrees); meaningful when not valid.
        error_message: why, when not valid.
        actions_replayed: actions replayed legally.
        position: the position after them (None if the header was bad).
        position_hash: its hash ("" if none).
        result: the result when the game is finished, else None.
    """

    valid: bool
    error_index: int
    error_message: str
    actions_replayed: int
    position: dict[str, Any] | None
    position_hash: str
    result: dict[str, Any] | None


# --- message <-> friendly values ---------------------------------------------

def _reply(read: Callable[[Any], T], message: Any) -> T:
    """`read` (a convert.*_to_json function) applied to part of a server's answer.

    Raises:
        CacaoClientError: UNKNOWN naming the fields, when the answer is malformed
            (a server of another API version, say).
    """
    try:
        return read(message)
    except convert.ConversionError as error:
        raise CacaoClientError(grpc.StatusCode.UNKNOWN, f"malformed answer from the server: {error}",
                               error.violations, reason=error.reason) from None


def _action(message: pb.Action) -> Action:
    return Action.from_json(_reply(convert.action_to_json, message))


def _action_message(action: Action | Mapping[str, Any]) -> pb.Action:
    data = action.to_json() if isinstance(action, Action) else Action.from_json(action).to_json()
    return convert.action_from_json(data)


def _is_record(data: Mapping[str, Any]) -> bool:
    return data.get("format") == convert.RECORD_FORMAT or "worker_piles" in data


def _set_source(request: Any, source: Source) -> None:
    """Fills the ``source`` oneof of a request from an engine Position or a dict."""
    if isinstance(source, Position):
        request.position.CopyFrom(convert.position_from_json(source.snapshot()))
    elif isinstance(source, Mapping) and _is_record(source):
        request.record.CopyFrom(convert.record_from_json(dict(source)))
    elif isinstance(source, Mapping):
        request.position.CopyFrom(convert.position_from_json(dict(source)))
    else:
        raise TypeError(f"a position source must be an engine Position or a dict, "
                        f"not {type(source).__name__}")


def _evaluation(message: pb.Evaluation) -> Evaluation:
    return _reply(convert.evaluation_from_proto, message)


def _placement(message: pb.TilePlacement) -> Placement:
    tile = message.tile
    source = _TILE_SOURCES.get(message.source, "unknown")
    if tile.WhichOneof("tile") == "worker":
        return Placement(tile.x, tile.y, convert.WORKER_NAMES.get(tile.worker.tile, "?"), source,
                         tile.worker.seat, tile.worker.rotation)
    return Placement(tile.x, tile.y, convert.JUNGLE_NAMES.get(tile.jungle, "?"), source)


# --- connection settings -------------------------------------------------------

def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


class _BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
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


# --- the client ----------------------------------------------------------------

MAX_RETRIES = 4  # gRPC tries a call at most 5 times
SERVICE = "cacao.v1.CacaoService"
SEARCH_METHODS = ("SuggestAction", "AnalyzePosition", "Analyze")


def retry_service_config(retries: int, backoff: float, max_backoff: float) -> str:
    """The gRPC service config (JSON) that retries calls of the Cacao service.

    Every method is retried on UNAVAILABLE (no server listening, a connection
    lost); the searches also on RESOURCE_EXHAUSTED, the server's answer while
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

    return json.dumps({"methodConfig": [
        {"name": [{"service": SERVICE, "method": m} for m in SEARCH_METHODS],
         "retryPolicy": policy(["UNAVAILABLE", "RESOURCE_EXHAUSTED"])},
        {"name": [{"service": SERVICE}], "retryPolicy": policy(["UNAVAILABLE"])},
    ]})


class _Settings:
    """What both clients share: deadlines, the retry policy, the channel's
    options and credentials, and the error of a failed call."""

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

    def _error(self, error: grpc.RpcError) -> "CacaoClientError":
        """The CacaoClientError of a failed call."""
        code = error.code() if callable(getattr(error, "code", None)) else None
        attempts = 1 + self.retries if code == grpc.StatusCode.UNAVAILABLE else 1
        return _error_from_rpc(error, self.target, attempts)

    def _search_timeout(self, strength: Strength | None, timeout: float | None) -> float:
        if timeout is not None:
            return timeout
        wanted = (strength.time_s or 0.0) if strength else 0.0
        return max(self.search_timeout, wanted + self.timeout)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.target}>"


class CacaoClient(_Settings):
    """A connection to a Cacao server, with one method per RPC.

    Args:
        target: "host:port" (or any gRPC target, such as
            "ipv4:10.0.0.1:50051,10.0.0.2:50051" with ``load_balancing="round_robin"``).
        timeout: deadline in seconds of quick calls (everything but searches).
        search_timeout: deadline of SuggestAction and AnalyzePosition; raised
            to cover a requested time budget plus ``timeout``.
        retries: how many times a call that failed with UNAVAILABLE is tried
            again (0: never; at most 4, gRPC's limit), and a search that the
            server refused with RESOURCE_EXHAUSTED (all its search slots busy).
            Other failures are never retried. gRPC retries by the channel's
            service config (:func:`retry_service_config`), with jitter.
        backoff: most seconds before the first retry (gRPC waits a random
            time up to it); doubled for each further one.
        max_backoff: longest wait between two tries.
        load_balancing: a gRPC load-balancing policy, such as "round_robin".
        channel: an existing channel to use instead of opening one (it is
            closed with the client all the same).
        tls: speak TLS (with the system's root certificates unless ``ca_cert``).
        ca_cert: PEM file of the CA that signed the server's certificate
            (implies ``tls``).
        client_cert, client_key: PEM files of a client certificate and its
            key, for a server that asks for one (mutual TLS).
        token: a bearer token sent with every call.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, target: str = DEFAULT_TARGET, *, timeout: float = 10.0,
                 search_timeout: float = 120.0, retries: int = 3, backoff: float = 0.1,
                 max_backoff: float = 2.0, load_balancing: str | None = None,
                 channel: grpc.Channel | None = None, tls: bool = False,
                 ca_cert: str | None = None, client_cert: str | None = None,
                 client_key: str | None = None, token: str | None = None):
        super().__init__(target, timeout, search_timeout, retries, backoff, max_backoff,
                         client_cert, client_key)
        if channel is None:
            channel = self._open(grpc, load_balancing, tls, ca_cert, client_cert, client_key)
        if token:
            channel = grpc.intercept_channel(channel, _BearerToken(token))
        self._channel = channel
        self._stub = pb_grpc.CacaoServiceStub(self._channel)

    # --- lifetime ---

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> "CacaoClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_until_ready(self, timeout: float = 10.0) -> None:
        """Blocks until the channel connects.

        Raises:
            CacaoClientError: UNAVAILABLE when it does not connect in time.
        """
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise _not_ready(self.target, timeout) from None

    def _call(self, method: Callable[..., T], request: Any, timeout: float | None) -> T:
        """One unary call with a deadline (the channel's retry policy retries it)."""
        try:
            return method(request, timeout=timeout or self.timeout)
        except grpc.RpcError as error:
            raise self._error(error) from None

    # --- the RPCs ---

    def get_server_info(self, *, timeout: float | None = None) -> ServerInfo:
        """Versions, limits and strength levels of the server (GetServerInfo)."""
        return read_server_info(
            self._call(self._stub.GetServerInfo, pb.GetServerInfoRequest(), timeout))

    def new_game(self, players: int, seed: int | None = None, *,
                 timeout: float | None = None) -> NewGame:
        """Deals a new game (NewGame). The same seed gives the same deal on one server version.

        Raises:
            CacaoClientError: INVALID_ARGUMENT for a player count outside 2..4.
        """
        return read_new_game(self._call(self._stub.NewGame, new_game_request(players, seed),
                                        timeout))

    def legal_actions(self, source: Source, *, timeout: float | None = None) -> LegalActions:
        """The legal actions of the seat to act (ListLegalActions).

        Args:
            source: a complete position, an observation of the seat to act, or a record.
        """
        return read_legal_actions(self._call(self._stub.ListLegalActions,
                                             legal_actions_request(source), timeout))

    def apply_action(self, source: Source, action: Action | Mapping[str, Any], *,
                     expected_position_hash: str = "", timeout: float | None = None) -> Applied:
        """Applies one action (ApplyAction) and reports what happened.

        Args:
            source: a complete position or a record (an observation is refused:
                the draws the action makes are hidden from any one seat).
            action: an engine Action or its RECORD.md dict.
            expected_position_hash: if given, the server refuses a position
                that does not hash to it (FAILED_PRECONDITION).

        Raises:
            CacaoClientError: INVALID_ARGUMENT (reason ILLEGAL_ACTION) with the
                field at fault for an illegal action.
        """
        return read_applied(self._call(
            self._stub.ApplyAction, apply_request(source, action, expected_position_hash),
            timeout))

    def suggest(self, source: Source, strength: Strength | str | None = None, *,
                seed: int | None = None, max_candidates: int = 0,
                allow: Sequence[Action | Mapping[str, Any]] = (),
                avoid: Sequence[Action | Mapping[str, Any]] = (),
                reuse_tree: bool | None = None, timeout: float | None = None) -> Suggestion:
        """Searches and suggests an action for the seat to act (SuggestAction).

        Args:
            source: best the observation of the seat to act
                (``position.observation(seat)``): the hidden state never leaves
                the caller. A complete position or a record also works; the
                search still sees only what the seat to act sees.
            strength: a Strength, its text (see :meth:`Strength.parse`), or
                None for the server's default level.
            seed: seed of the search (with one thread and an iteration budget,
                the same seed gives the same answer).
            max_candidates: most candidates to report, each with its own
                principal variation (MultiPV; 0: the server's 5).
            allow: the only actions to consider ("what if I play one of these").
            avoid: actions to leave out.
            reuse_tree: continue a search tree the server kept (None: when
                no seed is given; False: a fresh tree, not kept).
            timeout: deadline in seconds (default: see ``search_timeout``);
                the server fits its search into it.

        Raises:
            CacaoClientError: FAILED_PRECONDITION when the game is over or the
                seat to act has a hidden hand; INVALID_ARGUMENT for an unknown
                level, or an illegal allow/avoid action (naming it, as
                ``allow[0].place.x``).
        """
        strength = _strength(strength)
        request = search_request(pb.SuggestActionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree)
        return read_suggestion(self._call(self._stub.SuggestAction, request,
                                          self._search_timeout(strength, timeout)))

    def analyze(self, source: Source, strength: Strength | str | None = None, *,
                report_interval: float | None = None, seed: int | None = None,
                max_candidates: int = 0, allow: Sequence[Action | Mapping[str, Any]] = (),
                avoid: Sequence[Action | Mapping[str, Any]] = (), seat: int | None = None,
                reuse_tree: bool | None = None,
                timeout: float | None = None) -> Iterator[AnalysisReport]:
        """Streams evaluations of a position as the search goes on (AnalyzePosition).

        Closing the iterator early (``break``) cancels the search on the server
        (no final report: :meth:`start_analysis` can stop and still answer).
        gRPC retries the call (UNAVAILABLE, or RESOURCE_EXHAUSTED while the
        server's search slots are busy) only before the first report.

        Args:
            source: as for :meth:`suggest`.
            strength: the whole budget; None is the server's maximum, so give
                one (or break out of the loop) for a bounded analysis.
            report_interval: seconds between reports (None: the server's 0.5 s).
            seat: ponder: analyse for this seat while another is to act (see
                :meth:`ponder`).
            seed, max_candidates, allow, avoid, reuse_tree, timeout: as for
                :meth:`suggest`.

        Yields:
            AnalysisReport, the last one with ``evaluation.final`` set.
        """
        strength = _strength(strength)
        request = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree, report_interval=report_interval,
                                 seat=seat)
        stream = self._stub.AnalyzePosition(request,
                                            timeout=self._search_timeout(strength, timeout))
        try:
            for r in stream:
                yield read_report(r)
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            stream.cancel()

    def start_analysis(self, source: Source, strength: Strength | str | None = None, *,
                       report_interval: float | None = None, seed: int | None = None,
                       max_candidates: int = 0,
                       allow: Sequence[Action | Mapping[str, Any]] = (),
                       avoid: Sequence[Action | Mapping[str, Any]] = (),
                       seat: int | None = None, reuse_tree: bool | None = None,
                       timeout: float | None = None) -> "Analysis":
        """Starts an analysis that can be stopped with its answer (Analyze).

        Iterate the returned :class:`Analysis` for its reports; its
        :meth:`~Analysis.stop` (from any thread) ends the search at once,
        and the last report is then the final one, with the best action so
        far (``stopped_by`` "stop"); :meth:`~Analysis.wait` returns it.

        Args: as for :meth:`analyze`.
        """
        strength = _strength(strength)
        start = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                               max_candidates=max_candidates, allow=allow, avoid=avoid,
                               reuse_tree=reuse_tree, report_interval=report_interval, seat=seat)
        requests = _Requests(pb.AnalyzeRequest(start=start))
        stream = self._stub.Analyze(iter(requests), timeout=self._search_timeout(strength, timeout))
        requests.call = stream
        return Analysis(stream, requests, self._error)

    def ponder(self, observation: Source, strength: Strength | str | None = None, *,
               seat: int | None = None, report_interval: float | None = None,
               max_candidates: int = 0, timeout: float | None = None) -> "Analysis":
        """Thinks on the opponent's time: analyses ``observation`` for ``seat``
        (default: its ``view``) while another seat is to act, and has the
        server keep the tree for this seat's next request (without a seed, or
        with ``reuse_tree=True``). The server finds the tree from a record:
        ponder on the record, then ask with the record continued by the moves
        played since (up to 16); a position message finds only a tree of
        exactly the same observation. Stop the returned Analysis when the
        opponent has moved.

        Raises:
            ValueError: no seat given and the source is not an observation.
        """
        seat = _ponder_seat(observation, seat)
        return self.start_analysis(observation, strength, report_interval=report_interval,
                                   max_candidates=max_candidates, seat=seat, reuse_tree=True,
                                   timeout=timeout)

    def validate_record(self, record: Mapping[str, Any] | str, *,
                        timeout: float | None = None) -> Validation:
        """Replays a record on the server (ValidateRecord).

        Args:
            record: a ``cacao-record/1`` dict, or its JSON text (then checked
                exactly as RECORD.md says: unknown fields are errors).

        Returns:
            A Validation; an invalid record is an answer, not an exception.
        """
        return read_validation(self._call(self._stub.ValidateRecord,
                                          validate_request(record), timeout))


class _Requests:
    """The request stream of a synchronous Analyze call: its start, then a
    stop when asked (from any thread); ends when the call ends, even one
    that nobody reads to its end (gRPC's thread that sends it is then free)."""

    def __init__(self, start: pb.AnalyzeRequest):
        self._queue: queue.SimpleQueue[pb.AnalyzeRequest | None] = queue.SimpleQueue()
        self._queue.put(start)
        self.call: Any = None  # the call, once started

    def __iter__(self) -> Iterator[pb.AnalyzeRequest]:
        while True:
            try:
                message = self._queue.get(timeout=0.5)
            except queue.Empty:
                if self.call is not None and self.call.done():
                    return
                continue
            if message is None:
                return
            yield message

    def stop(self) -> None:
        self._queue.put(STOP)

    def close(self) -> None:
        self._queue.put(None)


class Analysis:
    """A running analysis (:meth:`CacaoClient.start_analysis`).

    Iterate it for its reports, the last with ``evaluation.final`` set;
    :meth:`stop` ends the search with its answer; :meth:`wait` returns the
    final report; :meth:`cancel` (or leaving a ``with`` block early) ends it
    without one.

    Thread-safety: :meth:`stop` and :meth:`cancel` may be called from any
    thread while another iterates; the reports are read by one thread at a
    time (each report goes to one reader).
    """

    def __init__(self, stream: Any, requests: _Requests,
                 error: Callable[[grpc.RpcError], CacaoClientError]):
        self._stream, self._requests, self._error = stream, requests, error
        self._lock = threading.Lock()
        self._reports = self._read()
        self.latest: AnalysisReport | None = None
        """The newest report read so far."""

    def _read(self) -> Iterator[AnalysisReport]:
        try:
            for r in self._stream:
                self.latest = read_report(r)
                yield self.latest
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            self._requests.close()

    def __iter__(self) -> "Analysis":
        return self

    def __next__(self) -> AnalysisReport:
        with self._lock:
            return next(self._reports)

    @property
    def final(self) -> AnalysisReport | None:
        """The final report once read, else None."""
        latest = self.latest
        return latest if latest is not None and latest.evaluation.final else None

    def stop(self) -> None:
        """Ends the search at once; the final report (the best action so far,
        ``stopped_by`` "stop") follows. Any thread; more than once is harmless."""
        self._requests.stop()

    def wait(self) -> AnalysisReport:
        """Reads the reports to the end; the final report.

        Raises:
            CacaoClientError: the call failed (or was cancelled).
        """
        for _ in self:
            pass
        final = self.final
        if final is None:
            raise CacaoClientError(grpc.StatusCode.CANCELLED, "the analysis ended without a "
                                   "final report (cancelled)")
        return final

    def cancel(self) -> None:
        """Ends the call without a final report."""
        self._stream.cancel()
        self._requests.close()

    def __enter__(self) -> "Analysis":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.final is None:
            self.cancel()


# --- requests and replies, shared by CacaoClient and AsyncCacaoClient -----------

STOP = pb.AnalyzeRequest(stop=pb.StopAnalysis())


def _strength(strength: Strength | str | None) -> Strength | None:
    return Strength.parse(strength) if isinstance(strength, str) else strength


def _not_ready(target: str, timeout: float) -> CacaoClientError:
    return CacaoClientError(grpc.StatusCode.UNAVAILABLE,
                            f"the Cacao server at {target} did not answer within {timeout:g} s")


def _ponder_seat(source: Source, seat: int | None) -> int:
    """The seat to ponder for: ``seat``, else the observation's view."""
    if seat is not None:
        return seat
    view = source.get("view") if isinstance(source, Mapping) else None
    if view is None:
        raise ValueError("ponder: give seat=, or an observation (a position dict with a view)")
    return view


def new_game_request(players: int, seed: int | None) -> pb.NewGameRequest:
    request = pb.NewGameRequest(players=players)
    if seed is not None:
        request.seed = seed
    return request


def legal_actions_request(source: Source) -> pb.ListLegalActionsRequest:
    request = pb.ListLegalActionsRequest()
    _set_source(request, source)
    return request


def apply_request(source: Source, action: Action | Mapping[str, Any],
                  expected_position_hash: str) -> pb.ApplyActionRequest:
    request = pb.ApplyActionRequest(action=_action_message(action),
                                    expected_position_hash=expected_position_hash)
    _set_source(request, source)
    return request


def validate_request(record: Mapping[str, Any] | str) -> pb.ValidateRecordRequest:
    if isinstance(record, str):
        return pb.ValidateRecordRequest(record_json=record)
    return pb.ValidateRecordRequest(record=convert.record_from_json(dict(record)))


def search_request(request: T, source: Source, strength: Strength | None, *,
                   seed: int | None, max_candidates: int,
                   allow: Sequence[Action | Mapping[str, Any]],
                   avoid: Sequence[Action | Mapping[str, Any]], reuse_tree: bool | None,
                   report_interval: float | None = None, seat: int | None = None) -> T:
    """Fills a SuggestAction or AnalyzePosition request (the last two
    arguments are AnalyzePosition's)."""
    message: Any = request
    _set_source(message, source)
    message.max_candidates = max_candidates
    if strength is not None:
        strength.apply_to(message)
    if seed is not None:
        message.seed = seed
    message.allow.extend(_action_message(a) for a in allow)
    message.avoid.extend(_action_message(a) for a in avoid)
    if reuse_tree is not None:
        message.reuse_tree = reuse_tree
    if report_interval is not None:
        message.report_interval.CopyFrom(_duration(report_interval))
    if seat is not None:
        message.seat = seat
    return request


def read_server_info(r: pb.GetServerInfoResponse) -> ServerInfo:
    lim = r.limits
    return ServerInfo(
        api_version=r.api_version, server_version=r.server_version,
        engine_version=r.engine_version, rules_version=r.rules_version,
        record_format=r.record_format, position_format=r.position_format,
        limits=ServerLimits(lim.max_iterations, _secs(lim.max_time), lim.search_threads,
                            lim.max_concurrent_searches, lim.max_message_bytes,
                            _secs(lim.min_report_interval), lim.search_priority,
                            lim.max_client_searches, lim.max_concurrent_calls,
                            lim.max_client_calls, lim.tree_cache_bytes),
        levels={level.name: convert.budget_from_proto(level.limits) for level in r.levels},
        default_level=r.default_level, instance=r.instance)


def read_new_game(r: pb.NewGameResponse) -> NewGame:
    return NewGame(_reply(convert.position_to_json, r.position), r.position_hash,
                   _reply(convert.record_to_json, r.record))


def read_legal_actions(r: pb.ListLegalActionsResponse) -> LegalActions:
    return LegalActions(r.position_hash, convert.PHASE_NAMES.get(r.phase, "?"),
                        r.to_act if r.HasField("to_act") else None,
                        tuple(_action(a) for a in r.actions))


def read_applied(r: pb.ApplyActionResponse) -> Applied:
    draws = r.draws if r.HasField("draws") else None
    drawn = (convert.WORKER_NAMES.get(draws.worker_tile)
             if draws is not None and draws.worker_tile_drawn else None)
    return Applied(
        position=_reply(convert.position_to_json, r.position), position_hash=r.position_hash,
        action=_action(r.action), placed=tuple(_placement(p) for p in r.placed),
        activations=tuple(Activation(a.seat, a.x, a.y, _DIRECTIONS.get(a.direction, "?"),
                                     convert.JUNGLE_NAMES.get(a.jungle, "?"), a.workers)
                          for a in r.activations),
        gains={g.seat: {"gold": g.gold, "cacao": g.cacao, "sun": g.sun, "water": g.water}
               for g in r.gains},
        turn_ended=r.turn_ended, worker_tile_drawn=drawn,
        display_refill=tuple(convert.JUNGLE_NAMES.get(t, "?")
                             for t in (draws.display_refill if draws is not None else ())),
        result=convert.result_to_json(r.result) if r.HasField("result") else None,
        record=_reply(convert.record_to_json, r.record) if r.HasField("record") else None)


def read_suggestion(r: pb.SuggestActionResponse) -> Suggestion:
    return Suggestion(r.position_hash, r.seat, _action(r.action), _evaluation(r.evaluation))


def read_report(r: pb.AnalyzePositionResponse) -> AnalysisReport:
    return AnalysisReport(r.position_hash, r.seat, r.sequence, _evaluation(r.evaluation))


def read_validation(r: pb.ValidateRecordResponse) -> Validation:
    has_position = r.HasField("position")
    return Validation(
        valid=r.valid, error_index=r.error_index, error_message=r.error_message,
        actions_replayed=r.actions_replayed,
        position=_reply(convert.position_to_json, r.position) if has_position else None,
        position_hash=r.position_hash,
        result=convert.result_to_json(r.result) if r.HasField("result") else None)


def evaluation_lines(evaluation: Evaluation, names: Sequence[str] | None = None,
                     notation: Callable[[Action], str] = str, top: int = 5) -> list[str]:
    """Lines for people describing an evaluation: outlook per seat, then candidates.

    Args:
        evaluation: what a search found.
        names: a name per seat (default "seat N").
        notation: how to write an action.
        top: most candidates to list.
    """
    def name(seat: int) -> str:
        return names[seat] if names and seat < len(names) else f"seat {seat}"

    lines = [f"{evaluation.iterations} iterations in {evaluation.elapsed_s:.2f} s"]
    if evaluation.seats:
        lines.append("win chances: " + ", ".join(
            f"{name(s.seat)} {100 * s.win_probability:.0f}%" for s in evaluation.seats))
        lines.append("expected final gold: " + ", ".join(
            f"{name(s.seat)} {s.expected_gold:.1f}" for s in evaluation.seats))
    for i, c in enumerate(evaluation.candidates[:top], 1):
        win = "" if c.win_probability is None else f", win {100 * c.win_probability:.0f}%"
        sure = "" if c.lcb is None else f" (at least {100 * c.lcb:.0f}%)"
        lines.append(f"{i}) {notation(c.action):<28} visits {c.visits:>6}{win}{sure}")
    root = evaluation.root
    if root is not None and root.reused_visits:
        lines.append(f"continued a kept search tree: {root.reused_visits} of {root.visits} "
                     "visits were already there")
    return lines

