"""A running analysis that can be stopped with its answer (the bidi Analyze RPC).

:class:`Analysis` is what :meth:`CacaoClient.start_analysis
<cacaoai.client.CacaoClient.start_analysis>` returns: its reports to iterate,
:meth:`~Analysis.stop` (the search ends at once and still sends its final
report), :meth:`~Analysis.wait` and :meth:`~Analysis.cancel`.
:class:`AnalysisRequests` is the call's request stream: the start, then a
stop when asked. :class:`LatestReport` is what the sync and the asyncio
analysis share.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from cacaoai.api.cacao.v1 import cacao_pb2 as pb

from .errors import CacaoClientError, cancelled
from .replies import AnalysisReport, read_report
from .requests import STOP

__all__ = ["Analysis", "AnalysisRequests", "LatestReport"]


class AnalysisRequests:
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
        """Asks the server to stop the search (it answers with its final report)."""
        self._queue.put(STOP)

    def close(self) -> None:
        """Ends the stream (the call needs no more requests)."""
        self._queue.put(None)


class LatestReport:
    """The newest report of an analysis, and its final one once read."""

    def __init__(self) -> None:
        self.latest: AnalysisReport | None = None
        """The newest report read so far."""

    @property
    def final(self) -> AnalysisReport | None:
        """The final report once read, else None."""
        latest = self.latest
        return latest if latest is not None and latest.evaluation.final else None

    def _final_or_error(self) -> AnalysisReport:
        """The final report, after the reports were read to their end.

        Raises:
            CacaoClientError: CANCELLED, the analysis ended without one.
        """
        final = self.final
        if final is None:
            raise cancelled()
        return final


class Analysis(LatestReport):
    """A running analysis (:meth:`CacaoClient.start_analysis
    <cacaoai.client.CacaoClient.start_analysis>`).

    Iterate it for its reports, the last with ``evaluation.final`` set;
    :meth:`stop` ends the search with its answer; :meth:`wait` returns the
    final report; :meth:`cancel` (or leaving a ``with`` block early) ends it
    without one.

    Thread-safety: :meth:`stop` and :meth:`cancel` may be called from any
    thread while another iterates; the reports are read by one thread at a
    time (each report goes to one reader).
    """

    def __init__(self, stream: Any, requests: AnalysisRequests,
                 error: Callable[[grpc.RpcError], CacaoClientError]):
        super().__init__()
        self._stream, self._requests, self._error = stream, requests, error
        self._lock = threading.Lock()
        self._reports = self._read()

    @classmethod
    def start(cls, method: Any, start: pb.AnalyzePositionRequest, timeout: float,
              error: Callable[[grpc.RpcError], CacaoClientError]) -> Analysis:
        """Opens the Analyze call ``method`` (a stub's) with ``start`` as its first request."""
        requests = AnalysisRequests(pb.AnalyzeRequest(start=start))
        stream = method(iter(requests), timeout=timeout)
        requests.call = stream
        return cls(stream, requests, error)

    def _read(self) -> Iterator[AnalysisReport]:
        try:
            for r in self._stream:
                self.latest = read_report(r)
                yield self.latest
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            self._requests.close()

    def __iter__(self) -> Analysis:
        return self

    def __next__(self) -> AnalysisReport:
        with self._lock:
            return next(self._reports)

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
        return self._final_or_error()

    def cancel(self) -> None:
        """Ends the call without a final report."""
        self._stream.cancel()
        self._requests.close()

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.final is None:
            self.cancel()
