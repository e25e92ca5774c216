"""The one error of the client: :class:`CacaoClientError`, and how a failed
gRPC call becomes one (status code, the server's message, and the rich
status details it sent: field violations, preconditions, a reason).
:class:`ErrorReason` is the API's enum of the reasons the service sends.

Thread-safety: immutable values and pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason

__all__ = ["CacaoClientError", "ErrorReason", "cancelled", "error_from_rpc", "not_ready"]


class CacaoClientError(Exception):
    """A call that failed: the gRPC status code, the server's message and details.

    Attributes:
        code: the ``grpc.StatusCode``.
        message: the server's message (or the client's, for a server that
            cannot be reached or a deadline that passed).
        field_violations: (field path, description) pairs of a
            ``google.rpc.BadRequest`` detail, such as
            ``("action.place.x", "illegal action: ...")``.
        reason: the ``google.rpc.ErrorInfo`` reason as sent, the name of an
            :class:`ErrorReason` value (``"ILLEGAL_ACTION"``, ...), or "" when
            the server sent none; :attr:`error_reason` is the enum value.
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

    @property
    def error_reason(self) -> ErrorReason:
        """:attr:`reason` as an :class:`ErrorReason` value, such as
        ``ErrorReason.ILLEGAL_ACTION``: ``ERROR_REASON_UNSPECIFIED`` when the
        server sent no reason or one newer than this client."""
        known = self.reason in ErrorReason.keys()
        return ErrorReason.Value(self.reason) if known else ErrorReason.ERROR_REASON_UNSPECIFIED


def error_from_rpc(error: grpc.RpcError, target: str, attempts: int) -> CacaoClientError:
    """The CacaoClientError of a failed call to ``target``, with the rich
    status details unpacked.

    Args:
        attempts: the most tries the retry policy allowed the call (said in
            the message of an UNAVAILABLE server).
    """
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


def not_ready(target: str, timeout: float) -> CacaoClientError:
    """The error of a channel that did not connect within ``timeout`` seconds."""
    return CacaoClientError(grpc.StatusCode.UNAVAILABLE,
                            f"the Cacao server at {target} did not answer within {timeout:g} s")


def cancelled() -> CacaoClientError:
    """The error of waiting for an analysis that ended without its final report."""
    return CacaoClientError(grpc.StatusCode.CANCELLED,
                            "the analysis ended without a final report (cancelled)")
