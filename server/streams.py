"""Reports from a search's thread to a transport's stream: one mechanism
for analyses and reviews.

A :class:`ReportStream` takes what its search thread :meth:`~ReportStream.put`
and, at its end, :meth:`~ReportStream.finish`; the transport's stream
:meth:`~ReportStream.take` s them as messages (:func:`stream_reports` on the
event loop) until the last. An :class:`Analysis` keeps only its newest
interim report (a reader slower than the search skips some, and memory stays
bounded) and ends with its final evaluation; a review
(:class:`~.reviews.ReviewStream`) keeps every decision until taken.

Thread-safety: a ReportStream is thread-safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from concurrent.futures import Future
from typing import Any, ClassVar, Generic, TypeVar

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.search import SearchResult

from . import budgets, errors
from .scheduler import Ticket
from .searching import SearchPlan, scheduling

T = TypeVar("T")
Item = TypeVar("Item")
Message = TypeVar("Message")


class ReportStream(Generic[Item, Message]):
    """Items from a search's thread, taken by a stream as messages.

    The search thread calls :meth:`put` and then :meth:`finish` with its
    future; the stream calls :meth:`take` until :attr:`finished`. A subclass
    says how an item becomes a message (:meth:`message`), what the search's
    result adds at the end (:meth:`last`), and whether every item waits to be
    taken (:attr:`keep_all`) or only the newest.
    """

    #: every item waits to be taken (else only the newest)
    keep_all: ClassVar[bool] = False

    def __init__(self, notify: Callable[[], None]):
        self._notify = notify
        self._lock = threading.Lock()
        self._ready: list[Item] = []
        self._done: Future[Any] | None = None
        self._sequence = 0
        self.finished = False  # the last message has been taken

    def put(self, item: Item) -> None:
        with self._lock:
            if self.keep_all:
                self._ready.append(item)
            else:
                self._ready = [item]
        self._notify()

    def finish(self, done: Future[Any]) -> None:
        with self._lock:
            self._done = done
        self._notify()

    def take(self) -> list[Message]:
        """The messages ready now, in order; at the end, the last ones.

        Raises:
            Exception: the search's own error, after the messages before it.
        """
        with self._lock:
            if self.finished:
                return []
            done = self._done
            ending = done is not None and not (self.keep_all and self._ready)
            ready, self._ready = ([], []) if ending else (self._ready, [])
            first, self._sequence = self._sequence, self._sequence + len(ready) + ending
            self.finished = ending
        if done is not None and ending:
            return self.last(done.result(), first)
        if done is not None:
            self._notify()  # the end comes with the next take
        return [self.message(item, first + i) for i, item in enumerate(ready)]

    def message(self, item: Item, sequence: int) -> Message:
        raise NotImplementedError

    def last(self, result: Any, sequence: int) -> list[Message]:
        """The messages the search's result ends the stream with (none by default)."""
        return []


class Analysis(ReportStream[SearchResult, pb.AnalyzePositionResponse]):
    """A running AnalyzePosition search: its newest interim report, then its
    final evaluation (the search thread puts the interim results and
    finishes with the final one)."""

    def __init__(self, plan: SearchPlan, notify: Callable[[], None], ticket: Ticket | None = None,
                 clock: Callable[[], float] | None = None):
        super().__init__(notify)
        self._max_candidates, self._loaded, self._hash = plan.max_candidates, plan.loaded, plan.hash
        self.budget = plan.budget  # fitted to the deadline when the search starts after its wait
        self._ticket, self._clock = ticket, clock

    def report(self, result: SearchResult) -> None:
        self.put(result)

    def message(self, item: SearchResult, sequence: int, final: bool = False) -> pb.AnalyzePositionResponse:
        evaluation = convert.evaluation_to_proto(budgets.answer(item, self.budget, final=final),
                                                 self._max_candidates)
        if self._ticket is not None and self._clock is not None:
            scheduling(evaluation, self._ticket, self._clock())
        return pb.AnalyzePositionResponse(position_hash=self._hash, seat=self._loaded.position.to_act,
                                          sequence=sequence, evaluation=evaluation)

    def last(self, result: SearchResult, sequence: int) -> list[pb.AnalyzePositionResponse]:
        return [self.message(result, sequence, final=True)]


async def stream_reports(start: Callable[[Callable[[], None]], Awaitable[ReportStream[Any, Any]]],
                         problems: list[errors.ApiError] | None = None,
                         within: str = "") -> AsyncGenerator[Any, None]:
    """An analysis's reports (or a review's messages) on the event loop, as
    the search makes them ready, until the final one: what the gRPC and the
    HTTP transports stream.

    Args:
        start: ``start(notify)`` starts the analysis (see
            :meth:`CacaoApi.start_analysis`); ``notify`` may be called from
            any thread.
        problems: filled by another task when the client sends something
            wrong mid-stream: the reports then end with that error.
        within: the field holding the request in the call's message (its
            errors name their fields under it).

    Raises:
        errors.ApiError: the start's, or the first of ``problems``.
    """
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()

    def notify() -> None:  # from the search thread
        with contextlib.suppress(RuntimeError):  # the loop has closed
            loop.call_soon_threadsafe(ready.set)

    try:
        analysis = await start(notify)
    except errors.ApiError as error:
        raise (errors.within(error, within) if within else error) from None
    while not analysis.finished:
        await ready.wait()
        ready.clear()
        for report in analysis.take():
            if problems:
                raise problems[0]
            yield report


def start_thread(name: str, work: Callable[[], T]) -> Future[T]:
    """Runs ``work()`` on a new daemon thread; its future."""
    future: Future[T] = Future()

    def body() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work())
        except BaseException as error:  # noqa: BLE001 - the future raises it in the caller
            future.set_exception(error)

    threading.Thread(target=body, name=name, daemon=True).start()
    return future
