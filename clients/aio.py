"""The asyncio client of the Cacao service (grpc.aio), installed as
``cacaoai.client.aio``.

    from cacaoai.client.aio import AsyncCacaoClient

    async with AsyncCacaoClient("127.0.0.1:50051") as client:
        analysis = await client.start_analysis(observation, "strong")
        async for report in analysis:
            if report.evaluation.iterations > 5_000:
                await analysis.stop()          # the final report still comes
        print(analysis.final.evaluation.best_action)

:class:`AsyncCacaoClient` has the methods of
:class:`~cacaoai.client.CacaoClient` as coroutines, with the same arguments,
the same answers (the dataclasses of :mod:`cacaoai.client.replies`) and the
same errors (:class:`~cacaoai.client.CacaoClientError`); it builds its
requests (:mod:`.requests`), reads its answers (:mod:`.replies`) and opens
its channel (:mod:`.connection`) with the same functions, so the two cannot
drift apart. Tokens go in each call's metadata (grpc.aio channels take no
synchronous interceptors).

Thread-safety: use a client and its analyses from the event loop that
created them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import grpc

from cacaoai.api import Limit
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.engine import Action

from .analysis import LatestReport
from .connection import DEFAULT_TARGET, Connection
from .errors import not_ready
from .replies import (
    AnalysisReport,
    Applied,
    LegalActions,
    NewGame,
    PuzzleCheck,
    PuzzleDraw,
    ReviewReport,
    ServerInfo,
    Suggestion,
    Validation,
    read_applied,
    read_legal_actions,
    read_new_game,
    read_puzzle_check,
    read_puzzle_draw,
    read_report,
    read_review,
    read_server_info,
    read_suggestion,
    read_validation,
)
from .requests import (
    STOP,
    Actions,
    Source,
    apply_request,
    as_strength,
    check_puzzle_request,
    legal_actions_request,
    new_game_request,
    ponder_seat,
    puzzle_request,
    review_request,
    search_request,
    validate_request,
)

__all__ = ["AsyncAnalysis", "AsyncCacaoClient"]


class AsyncCacaoClient(Connection):
    """A grpc.aio connection to a Cacao server; the arguments are
    :class:`~cacaoai.client.CacaoClient`'s (but ``channel``: a grpc.aio one).

    Use as ``async with``, or ``await close()``.
    """

    def __init__(self, target: str = DEFAULT_TARGET, *, timeout: float = 10.0,
                 search_timeout: float = 120.0, retries: int = 3, backoff: float = 0.1,
                 max_backoff: float = 2.0, load_balancing: str | None = None,
                 channel: grpc.aio.Channel | None = None, tls: bool = False,
                 ca_cert: str | None = None, client_cert: str | None = None,
                 client_key: str | None = None, token: str | None = None):
        super().__init__(target, timeout, search_timeout, retries, backoff, max_backoff,
                         client_cert, client_key)
        if channel is None:
            channel = self._open(grpc.aio, load_balancing, tls, ca_cert, client_cert,
                                 client_key)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._channel = channel
        self._stub = pb_grpc.CacaoServiceStub(channel)

    # --- lifetime ---

    async def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        await self._channel.close()

    async def __aenter__(self) -> AsyncCacaoClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def wait_until_ready(self, timeout: float = 10.0) -> None:
        """Waits until the channel connects (UNAVAILABLE when it does not in time)."""
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout)
        except TimeoutError:
            raise not_ready(self.target, timeout) from None

    async def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return await method(request, timeout=timeout or self.timeout,
                                metadata=self._metadata)
        except grpc.RpcError as error:
            raise self._error(error) from None

    # --- the RPCs (see CacaoClient for each) ---

    async def get_server_info(self, *, timeout: float | None = None) -> ServerInfo:
        """As :meth:`CacaoClient.get_server_info`."""
        return read_server_info(
            await self._call(self._stub.GetServerInfo, pb.GetServerInfoRequest(), timeout))

    async def new_game(self, players: int, seed: int | None = None, *,
                       timeout: float | None = None) -> NewGame:
        """As :meth:`CacaoClient.new_game`."""
        return read_new_game(await self._call(
            self._stub.NewGame, new_game_request(players, seed), timeout))

    async def legal_actions(self, source: Source, *,
                            timeout: float | None = None) -> LegalActions:
        """As :meth:`CacaoClient.legal_actions`."""
        return read_legal_actions(await self._call(
            self._stub.ListLegalActions, legal_actions_request(source), timeout))

    async def apply_action(self, source: Source, action: Action | Mapping[str, Any], *,
                           expected_position_hash: str = "",
                           timeout: float | None = None) -> Applied:
        """As :meth:`CacaoClient.apply_action`."""
        return read_applied(await self._call(
            self._stub.ApplyAction, apply_request(source, action, expected_position_hash),
            timeout))

    async def suggest(self, source: Source, strength: Limit | str | None = None, *,
                      seed: int | None = None, max_candidates: int = 0, allow: Actions = (),
                      avoid: Actions = (), reuse_tree: bool | None = None,
                      priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                      explain: bool = False, forecast: int = 0, timeout: float | None = None) -> Suggestion:
        """As :meth:`CacaoClient.suggest`."""
        strength = as_strength(strength)
        request = search_request(pb.SuggestActionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree, priority=priority, levels=levels,
                                 settings=settings, explain=explain, forecast=forecast)
        return read_suggestion(await self._call(
            self._stub.SuggestAction, request, self._search_timeout(strength, timeout)))

    async def analyze(self, source: Source, strength: Limit | str | None = None, *,
                      report_interval: float | None = None, seed: int | None = None,
                      max_candidates: int = 0, allow: Actions = (), avoid: Actions = (),
                      seat: int | None = None, reuse_tree: bool | None = None,
                      priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                      forecast: int = 0, timeout: float | None = None) -> AsyncIterator[AnalysisReport]:
        """As :meth:`CacaoClient.analyze` (AnalyzePosition): ``async for`` its reports."""
        strength = as_strength(strength)
        request = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree, report_interval=report_interval,
                                 seat=seat, priority=priority, levels=levels, settings=settings,
                                 forecast=forecast)
        stream = self._stub.AnalyzePosition(request, metadata=self._metadata,
                                            timeout=self._search_timeout(strength, timeout))
        try:
            async for r in stream:
                yield read_report(r)
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            stream.cancel()

    async def review_game(self, record: Mapping[str, Any] | str, limit: Limit | None = None, *,
                          seed: int | None = None, seats: Sequence[int] = (), decisions: Sequence[int] = (),
                          timeout: float | None = None) -> AsyncIterator[ReviewReport]:
        """As :meth:`CacaoClient.review_game` (ReviewGame): ``async for`` its reports."""
        stream = self._stub.ReviewGame(review_request(record, limit, seed=seed, seats=seats, decisions=decisions),
                                       metadata=self._metadata, timeout=timeout)
        try:
            async for r in stream:
                yield read_review(r)
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            stream.cancel()

    async def start_analysis(self, source: Source, strength: Limit | str | None = None, *,
                             report_interval: float | None = None, seed: int | None = None,
                             max_candidates: int = 0, allow: Actions = (), avoid: Actions = (),
                             seat: int | None = None, reuse_tree: bool | None = None,
                             priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                             forecast: int = 0, timeout: float | None = None) -> AsyncAnalysis:
        """As :meth:`CacaoClient.start_analysis` (Analyze): ``async for`` the
        reports; ``await analysis.stop()`` ends the search with its final report."""
        strength = as_strength(strength)
        start = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                               max_candidates=max_candidates, allow=allow, avoid=avoid,
                               reuse_tree=reuse_tree, report_interval=report_interval, seat=seat,
                               priority=priority, levels=levels, settings=settings,
                               forecast=forecast)
        call = self._stub.Analyze(metadata=self._metadata,
                                  timeout=self._search_timeout(strength, timeout))
        analysis = AsyncAnalysis(call, self._error)
        await analysis._send(pb.AnalyzeRequest(start=start))
        return analysis

    async def ponder(self, observation: Source, strength: Limit | str | None = None, *,
                     seat: int | None = None, report_interval: float | None = None,
                     max_candidates: int = 0, timeout: float | None = None) -> AsyncAnalysis:
        """As :meth:`CacaoClient.ponder`."""
        return await self.start_analysis(
            observation, strength, report_interval=report_interval,
            max_candidates=max_candidates, seat=ponder_seat(observation, seat),
            reuse_tree=True, timeout=timeout)

    async def validate_record(self, record: Mapping[str, Any] | str, *,
                              timeout: float | None = None) -> Validation:
        """As :meth:`CacaoClient.validate_record`."""
        return read_validation(await self._call(
            self._stub.ValidateRecord, validate_request(record), timeout))

    async def get_puzzle(self, *, theme: str | None = None, min_rating: int | None = None,
                         max_rating: int | None = None, players: int | None = None, exclude: Sequence[str] = (),
                         seed: int | None = None, timeout: float | None = None) -> PuzzleDraw:
        """Draws a puzzle (GetPuzzle), as :meth:`CacaoClient.get_puzzle`."""
        request = puzzle_request(theme=theme, min_rating=min_rating, max_rating=max_rating, players=players,
                                 exclude=exclude, seed=seed)
        return read_puzzle_draw(await self._call(self._stub.GetPuzzle, request, timeout))

    async def check_puzzle(self, puzzle_id: str, action: Action | Mapping[str, Any], *,
                           timeout: float | None = None) -> PuzzleCheck:
        """Judges a try at a puzzle (CheckPuzzle), as :meth:`CacaoClient.check_puzzle`."""
        request = check_puzzle_request(puzzle_id, action)
        return read_puzzle_check(await self._call(self._stub.CheckPuzzle, request, timeout))


class AsyncAnalysis(LatestReport):
    """A running analysis of :meth:`AsyncCacaoClient.start_analysis`:
    ``async for`` its reports (the last one final), ``await stop()`` to end
    the search with its answer, ``await wait()`` for the final report,
    ``cancel()`` to end it without one."""

    def __init__(self, call: Any, error: Any):
        super().__init__()
        self._call, self._error = call, error
        self._stopped = False

    async def _send(self, message: pb.AnalyzeRequest) -> None:
        try:
            await self._call.write(message)
        except grpc.RpcError as error:
            raise self._error(error) from None

    def __aiter__(self) -> AsyncAnalysis:
        return self

    async def __anext__(self) -> AnalysisReport:
        try:
            r = await self._call.read()
        except grpc.RpcError as error:
            raise self._error(error) from None
        if r is grpc.aio.EOF:
            raise StopAsyncIteration
        self.latest = read_report(r)
        return self.latest

    async def stop(self) -> None:
        """Ends the search at once; the final report follows. More than once,
        or after the end, is harmless."""
        if self._stopped or self._call.done():
            return
        self._stopped = True
        with contextlib.suppress(asyncio.InvalidStateError, grpc.RpcError):
            await self._call.write(STOP)
            await self._call.done_writing()

    async def wait(self) -> AnalysisReport:
        """Reads the reports to the end; the final report."""
        async for _ in self:
            pass
        return self._final_or_error()

    def cancel(self) -> None:
        """Ends the call without a final report."""
        self._call.cancel()

    async def __aenter__(self) -> AsyncAnalysis:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.final is None:
            self.cancel()
