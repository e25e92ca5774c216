"""Request errors and their translation into the gRPC rich error model.

A handler raises :class:`ApiError` (or one of its helpers) for anything that is
the client's fault; the transports turn it into a ``google.rpc.Status`` with a
``BadRequest`` (field violations) or ``PreconditionFailure`` detail and an
``ErrorInfo`` (domain ``cacao.v1``, a stable reason), as AIP-193 describes.

Thread-safety: everything here is immutable or per-request.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from cacaoai.api import convert
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.api.convert import ConversionError
from cacaoai.engine.errors import clip

DOMAIN = "cacao.v1"

# An error answer travels in the response trailers (grpc-message and
# grpc-status-details-bin), which gRPC limits to 8 KiB by default: beyond it the
# client sees RESOURCE_EXHAUSTED instead. Whatever a request holds, an answer
# stays well under that: texts are clipped and at most MAX_VIOLATIONS listed.
# Non-ASCII characters are written as escapes so that a character counts as a byte.
MAX_MESSAGE_CHARS = 600
MAX_FIELD_CHARS = 100
MAX_DESCRIPTION_CHARS = 300
MAX_VIOLATIONS = 6


@dataclass
class ApiError(Exception):
    """An error answer: a status code, a message and the fields at fault.

    Attributes:
        code: the gRPC status code.
        message: one sentence for people; names the field when there is one.
        reason: why, sent as the ErrorInfo reason (the value's name).
        violations: (field path, description) pairs for a BadRequest detail.
        preconditions: (type, subject, description) triples for a
            PreconditionFailure detail.
        metadata: ErrorInfo metadata (short keys and values).
        retry_after_s: when a retry may succeed, in seconds: a RetryInfo
            detail. (Not gRPC's ``grpc-retry-pushback-ms`` trailer: an
            estimate that is too long would hold a client's retry that long.)
    """

    code: grpc.StatusCode
    message: str
    reason: ErrorReason = ErrorReason.INVALID_REQUEST
    violations: list[tuple[str, str]] = field(default_factory=list)
    preconditions: list[tuple[str, str, str]] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    retry_after_s: float | None = None

    def __post_init__(self) -> None:
        self.message = _text(self.message, MAX_MESSAGE_CHARS)
        self.violations = _clip_items(self.violations)
        self.preconditions = _clip_items(self.preconditions)

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def to_status(self) -> status_pb2.Status:
        """The ``google.rpc.Status`` for this error, with its details packed."""
        details = []
        if self.violations:
            bad = error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                    for f, d in self.violations
                ]
            )
            details.append(_pack(bad))
        if self.preconditions:
            failure = error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type=t, subject=s, description=d
                    )
                    for t, s, d in self.preconditions
                ]
            )
            details.append(_pack(failure))
        details.append(_pack(error_details_pb2.ErrorInfo(
            reason=ErrorReason.Name(self.reason), domain=DOMAIN, metadata=self.metadata)))
        if self.retry_after_s is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromNanoseconds(round(self.retry_after_s * 1e9))
            details.append(_pack(retry))
        return status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=self.message, details=details
        )


def _text(value: object, limit: int) -> str:
    """`value` as ASCII text (other characters escaped), clipped to `limit` characters."""
    return clip(str(value).encode("ascii", "backslashreplace").decode("ascii"), limit)


def _clip_items(items: list) -> list:
    """At most MAX_VIOLATIONS items with clipped texts (the last text is the
    description); a last item counts those left out."""
    out = [tuple(_text(v, MAX_FIELD_CHARS) for v in item[:-1])
           + (_text(item[-1], MAX_DESCRIPTION_CHARS),) for item in items[:MAX_VIOLATIONS]]
    if len(items) > MAX_VIOLATIONS:
        out.append(out[-1][:-1] + (f"and {len(items) - MAX_VIOLATIONS} more problems not listed",))
    return out


def _pack(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def invalid(field_path: str, description: str, reason: ErrorReason = ErrorReason.INVALID_REQUEST) -> ApiError:
    """INVALID_ARGUMENT naming one field."""
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{field_path}: {description}",
        reason,
        violations=[(field_path, description)],
    )


def invalid_fields(violations: list[tuple[str, str]], reason: ErrorReason) -> ApiError:
    """INVALID_ARGUMENT naming several fields; the message lists the first ones."""
    shown = "; ".join(f"{f}: {d}" for f, d in violations[:3])
    more = f" (and {len(violations) - 3} more)" if len(violations) > 3 else ""
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT, shown + more, reason, violations=list(violations)
    )


def failed_precondition(subject: str, description: str, reason: ErrorReason) -> ApiError:
    """FAILED_PRECONDITION: the request is well-formed but does not fit the position."""
    return ApiError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"{subject}: {description}",
        reason,
        preconditions=[(ErrorReason.Name(reason), subject, description)],
    )


def not_found(field_path: str, description: str, reason: ErrorReason) -> ApiError:
    """NOT_FOUND: nothing the service has fits the request; `field_path`
    names the field whose value found nothing ("": the request as a whole,
    no BadRequest detail)."""
    return ApiError(
        grpc.StatusCode.NOT_FOUND,
        f"{field_path}: {description}" if field_path else description,
        reason,
        violations=[(field_path, description)] if field_path else [],
    )


def resource_exhausted(description: str, retry_after_s: float | None = None, cause: str = "",
                       klass: str = "") -> ApiError:
    """RESOURCE_EXHAUSTED: no capacity now; the client may retry later (after
    ``retry_after_s``, when given) or elsewhere. ``cause`` and ``klass`` (the
    search's priority class) go into the ErrorInfo's metadata."""
    metadata = {k: v for k, v in (("cause", cause), ("class", klass)) if v}
    return ApiError(grpc.StatusCode.RESOURCE_EXHAUSTED, description, ErrorReason.TOO_MANY_SEARCHES,
                    metadata=metadata, retry_after_s=retry_after_s)


def deadline_exceeded(description: str) -> ApiError:
    """DEADLINE_EXCEEDED: the call's deadline leaves no time for the work."""
    return ApiError(grpc.StatusCode.DEADLINE_EXCEEDED, description, ErrorReason.DEADLINE_TOO_SHORT)


@contextmanager
def request_fields() -> Iterator[None]:
    """Turns a :class:`~cacaoai.api.convert.ConversionError` raised inside into
    INVALID_ARGUMENT with the same field violations and reason."""
    try:
        yield
    except ConversionError as error:
        raise invalid_fields(error.violations, error.reason) from None


class Violations(convert.Violations):
    """Collects field violations of a request, then raises them as INVALID_ARGUMENT."""

    def raise_if_any(self, reason: ErrorReason) -> None:
        if self.items:
            raise invalid_fields(self.items, reason)


def within(error: ApiError, parent: str) -> ApiError:
    """`error` of a message nested in field `parent` of the request: its field
    paths (violations, precondition subjects) start with ``parent.``."""
    return replace(error,
                   violations=[(f"{parent}.{f}", d) for f, d in error.violations],
                   preconditions=[(t, f"{parent}.{s}", d) for t, s, d in error.preconditions])
