"""Watching calls: one :class:`CallRecord` per finished call, handed to hooks.

A hook is any ``Callable[[CallRecord], None]``: :class:`.metrics.Metrics`
counts and times calls for Prometheus, :class:`.logs.CallLog` writes one
structured log line per call. Hooks know nothing of gRPC, so another transport
(an HTTP front, say) reuses them by building a :class:`CallRecord` with
:func:`call_record` and calling :meth:`Observers.finish`.

:class:`~.grpc_transport.CacaoServicer` is the gRPC side: the guard of every
method times the call, reads its status code and its (last) reply, and calls
the hooks. :mod:`.asgi` does the same for the Connect calls over HTTP.

Thread-safety: :class:`Observers` holds only immutable state after
construction; hooks must be thread-safe (both shipped ones are).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("cacaoai.server")

@dataclass(frozen=True)
class CallRecord:
    """What one finished call did, in plain values.

    Attributes:
        service: full service name, e.g. ``cacao.v1.CacaoService``.
        method: method name, e.g. ``SuggestAction``.
        code: status code name, e.g. ``OK``, ``INVALID_ARGUMENT``.
        seconds: wall time from the call's arrival to its end.
        position_hash: the hash of the position in the (last) reply, or "".
        iterations: search iterations of the (last) reply's evaluation (a
            review's: of its summary), or 0.
        search_seconds: search time of that evaluation (a review's: the
            call's time), or 0.
        stopped_by: why that search stopped ("iterations", "time", ...), or "".
        peer: the client's address as the transport names it.
    """

    service: str
    method: str
    code: str
    seconds: float
    position_hash: str = ""
    iterations: int = 0
    search_seconds: float = 0.0
    stopped_by: str = ""
    peer: str = ""


CallHook = Callable[[CallRecord], None]


def call_record(full_method: str, code: str, seconds: float, reply: Any = None,
                peer: str = "") -> CallRecord:
    """A CallRecord from a ``/package.Service/Method`` name and a cacao.v1 reply (or None)."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    position_hash = getattr(reply, "position_hash", "") if reply is not None else ""
    iterations, search_seconds, stopped_by = 0, 0.0, ""
    evaluation = getattr(reply, "evaluation", None)
    if evaluation is not None and reply.HasField("evaluation"):
        iterations = evaluation.iterations
        search_seconds = evaluation.elapsed.ToTimedelta().total_seconds()
        stopped_by = evaluation.stopped_by
    summary = getattr(reply, "summary", None)  # a review's last message
    if summary is not None and reply.HasField("summary"):
        iterations, search_seconds = summary.iterations, seconds
    return CallRecord(service=service, method=method, code=code, seconds=seconds,
                      position_hash=position_hash, iterations=iterations,
                      search_seconds=search_seconds, stopped_by=stopped_by, peer=peer)


class Observers:
    """The hooks of one server; a hook that fails is logged and never fails the call."""

    def __init__(self, hooks: Sequence[CallHook] = ()):
        self.hooks = tuple(hooks)

    def finish(self, record: CallRecord) -> None:
        """Hands a finished call to every hook."""
        for hook in self.hooks:
            try:
                hook(record)
            except Exception:  # observing must never break serving
                log.exception("call hook %r failed", hook)
