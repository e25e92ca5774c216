"""A typed Python client of the Cacao service (API ``cacao.v1``).

    from cacaoai.client import CacaoClient, Limit
    from cacaoai.engine import Position

    game = Position.new(players=2, seed=7)                  # the true game stays here
    with CacaoClient("127.0.0.1:50051") as client:
        seat = game.to_act
        move = client.suggest(game.observation(seat), "strong")   # or Limit(time_s=2), "2s"
        game.apply(move.action)                             # an engine Action

Every method mirrors one RPC of ``cacao.v1.CacaoService`` and returns a small
frozen dataclass instead of protobuf (:mod:`.replies`): actions are engine
:class:`~cacaoai.engine.Action` objects, positions and records are the
project's JSON forms (``cacao-position/1`` and ``cacao-record/1`` dicts), the
same the engine reads and writes. A position argument (a *source*) may be an
engine :class:`~cacaoai.engine.Position` (sent complete), a position or
observation dict, or a record dict.

A search's budget (a *strength*) is a :class:`~cacaoai.api.Limit`
(iterations, seconds, threads), the name of a level the server lists
(``ServerInfo.levels``), a strength text (``"strong"``, ``"500"``, ``"2s"``,
``"iterations=500,time=2,threads=2"``) or None for the server's default
level. A search's answer (:data:`~.replies.Evaluation`) is
:class:`cacaoai.api.SearchResult`, the type the search itself returns.

Calls carry a deadline (``timeout``); calls that fail with ``UNAVAILABLE``
(no server listening, a connection lost), and searches refused with
``RESOURCE_EXHAUSTED`` (every search slot busy), are retried by gRPC itself
(:func:`~.connection.retry_service_config`); every other failure is raised
at once as a :class:`~.errors.CacaoClientError` with the status code, the
server's message and the fields it named.

Security: ``tls=True`` (or a ``ca_cert``) speaks TLS, ``client_cert`` and
``client_key`` present a client certificate (mutual TLS), and ``token``
sends ``authorization: Bearer TOKEN`` with every call.

Thread-safety: a CacaoClient may be shared by threads (gRPC channels and stubs
are thread-safe; the client keeps no other mutable state).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import grpc

from cacaoai.api import Limit
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc as pb_grpc
from cacaoai.engine import Action

from .analysis import Analysis
from .connection import DEFAULT_TARGET, BearerToken, Connection
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

__all__ = ["CacaoClient"]

T = TypeVar("T")


class CacaoClient(Connection):
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
            service config (:func:`.connection.retry_service_config`), with jitter.
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
            channel = grpc.intercept_channel(channel, BearerToken(token))
        self._channel = channel
        self._stub = pb_grpc.CacaoServiceStub(self._channel)

    # --- lifetime ---

    def close(self) -> None:
        """Closes the channel; calls in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> CacaoClient:
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
            raise not_ready(self.target, timeout) from None

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
            action: an engine Action or its dict (docs/record-format.md).
            expected_position_hash: if given, the server refuses a position
                that does not hash to it (FAILED_PRECONDITION).

        Raises:
            CacaoClientError: INVALID_ARGUMENT (reason ILLEGAL_ACTION) with the
                field at fault for an illegal action.
        """
        return read_applied(self._call(
            self._stub.ApplyAction, apply_request(source, action, expected_position_hash),
            timeout))

    def suggest(self, source: Source, strength: Limit | str | None = None, *,
                seed: int | None = None, max_candidates: int = 0, allow: Actions = (),
                avoid: Actions = (), reuse_tree: bool | None = None,
                priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                explain: bool = False, forecast: int = 0, timeout: float | None = None) -> Suggestion:
        """Searches and suggests an action for the seat to act (SuggestAction).

        Args:
            source: best the observation of the seat to act
                (``position.observation(seat)``): the hidden state never leaves
                the caller. A complete position or a record also works; the
                search still sees only what the seat to act sees.
            strength: a :class:`~cacaoai.api.Limit`, a level name, a
                strength text (``"strong"``, ``"500"``, ``"2s"``,
                ``"iterations=500,time=2,threads=2"``), or None for the
                server's default level.
            seed: seed of the search (with one thread and an iteration budget,
                the same seed gives the same answer).
            max_candidates: most candidates to report, each with its own
                principal variation (MultiPV; 0: the server's 5).
            allow: the only actions to consider ("what if I play one of these").
            avoid: actions to leave out.
            reuse_tree: continue a search tree the server kept (None: when
                no seed is given; False: a fresh tree, not kept).
            priority: "interactive" (before other searches when the server's
                slots are busy) or "background" (after them, paused while an
                interactive one waits); None: the server decides (interactive
                for a short budget, background for an analysis).
            levels: who plays each seat, by level name ("" for a player not
                known), one a seat: the win probabilities then assume those
                players where the server's model has a map for them
                (``evaluation.population`` says whom they assume).
            settings: the named search settings for a Limit: "mcts" (play's,
                the default), "analysis" or "nomodel"; "" with a level.
            explain: also ask for ``explanation`` (what the action gives that
                the runner-up does not); it costs the server milliseconds.
            forecast: also ask for ``evaluation.forecast`` from this many
                playouts (every temple's majority chances and every seat's
                score parts; 0: none, as in :meth:`analyze` too).
            timeout: deadline in seconds (default: see ``search_timeout``);
                the server fits its search into it.

        Raises:
            CacaoClientError: FAILED_PRECONDITION when the game is over or the
                seat to act has a hidden hand; INVALID_ARGUMENT for an unknown
                level, or an illegal allow/avoid action (naming it, as
                ``allow[0].place.x``), levels of another length than the
                seats (``levels``) or unknown settings (``settings``).
        """
        strength = as_strength(strength)
        request = search_request(pb.SuggestActionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree, priority=priority, levels=levels,
                                 settings=settings, explain=explain, forecast=forecast)
        return read_suggestion(self._call(self._stub.SuggestAction, request,
                                          self._search_timeout(strength, timeout)))

    def analyze(self, source: Source, strength: Limit | str | None = None, *,
                report_interval: float | None = None, seed: int | None = None,
                max_candidates: int = 0, allow: Actions = (), avoid: Actions = (),
                seat: int | None = None, reuse_tree: bool | None = None,
                priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                forecast: int = 0, timeout: float | None = None) -> Iterator[AnalysisReport]:
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
            settings: the named search settings for a Limit (or None):
                "analysis" (the default), "mcts" (the default when pondering)
                or "nomodel"; "" with a level.
            seed, max_candidates, allow, avoid, reuse_tree, priority, levels,
            timeout: as for :meth:`suggest`.

        Yields:
            AnalysisReport, the last one with ``evaluation.final`` set.
        """
        strength = as_strength(strength)
        request = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                                 max_candidates=max_candidates, allow=allow, avoid=avoid,
                                 reuse_tree=reuse_tree, report_interval=report_interval,
                                 seat=seat, priority=priority, levels=levels, settings=settings,
                                 forecast=forecast)
        stream = self._stub.AnalyzePosition(request,
                                            timeout=self._search_timeout(strength, timeout))
        try:
            for r in stream:
                yield read_report(r)
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            stream.cancel()

    def review_game(self, record: Mapping[str, Any] | str, limit: Limit | None = None, *,
                    seed: int | None = None, seats: Sequence[int] = (), decisions: Sequence[int] = (),
                    timeout: float | None = None) -> Iterator[ReviewReport]:
        """Reviews a game (ReviewGame): one report per decision of `seats`
        (default: all) in the record's order, each with its ``decision``,
        then one with the ``summary`` (per seat: accuracy, counts per class).

        Closing the iterator early (``break``) cancels the review on the server.

        Args:
            record: a ``cacao-record/1`` dict, or its JSON text; it need not be finished.
            limit: each decision's budget (iterations or a time); None: the
                server's default (2400 iterations).
            seed: with an iteration budget, the same seed gives the same review.
            seats: the seats whose decisions are reviewed (empty: all).
            decisions: only the decisions at these indices of the record's
                actions (empty: every decision of `seats`); :mod:`.practice`
                judges a try so.
            timeout: seconds for the whole review; None: no deadline (a
                review of a long game takes a while on a busy server).
        """
        stream = self._stub.ReviewGame(review_request(record, limit, seed=seed, seats=seats, decisions=decisions),
                                       timeout=timeout)
        try:
            for r in stream:
                yield read_review(r)
        except grpc.RpcError as error:
            raise self._error(error) from None
        finally:
            stream.cancel()

    def start_analysis(self, source: Source, strength: Limit | str | None = None, *,
                       report_interval: float | None = None, seed: int | None = None,
                       max_candidates: int = 0, allow: Actions = (), avoid: Actions = (),
                       seat: int | None = None, reuse_tree: bool | None = None,
                       priority: str | None = None, levels: Sequence[str] = (), settings: str = "",
                       forecast: int = 0, timeout: float | None = None) -> Analysis:
        """Starts an analysis that can be stopped with its answer (Analyze).

        Iterate the returned :class:`Analysis` for its reports; its
        :meth:`~Analysis.stop` (from any thread) ends the search at once,
        and the last report is then the final one, with the best action so
        far (``stopped_by`` "stop"); :meth:`~Analysis.wait` returns it.

        Args: as for :meth:`analyze`.
        """
        strength = as_strength(strength)
        start = search_request(pb.AnalyzePositionRequest(), source, strength, seed=seed,
                               max_candidates=max_candidates, allow=allow, avoid=avoid,
                               reuse_tree=reuse_tree, report_interval=report_interval, seat=seat,
                               priority=priority, levels=levels, settings=settings,
                               forecast=forecast)
        return Analysis.start(self._stub.Analyze, start,
                              self._search_timeout(strength, timeout), self._error)

    def ponder(self, observation: Source, strength: Limit | str | None = None, *,
               seat: int | None = None, report_interval: float | None = None,
               max_candidates: int = 0, timeout: float | None = None) -> Analysis:
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
        seat = ponder_seat(observation, seat)
        return self.start_analysis(observation, strength, report_interval=report_interval,
                                   max_candidates=max_candidates, seat=seat, reuse_tree=True,
                                   timeout=timeout)

    def validate_record(self, record: Mapping[str, Any] | str, *,
                        timeout: float | None = None) -> Validation:
        """Replays a record on the server (ValidateRecord).

        Args:
            record: a ``cacao-record/1`` dict, or its JSON text (then checked
                exactly as docs/record-format.md says: unknown fields are errors).

        Returns:
            A Validation; an invalid record is an answer, not an exception.
        """
        return read_validation(self._call(self._stub.ValidateRecord,
                                          validate_request(record), timeout))

    def get_puzzle(self, *, theme: str | None = None, min_rating: int | None = None,
                   max_rating: int | None = None, players: int | None = None, exclude: Sequence[str] = (),
                   seed: int | None = None, timeout: float | None = None) -> PuzzleDraw:
        """Draws a puzzle from the server's set (GetPuzzle): a position from
        one seat's view where one action is clearly best, among those that
        pass the filters and are not in `exclude`; never its solutions
        (:meth:`check_puzzle` judges a try).

        Args:
            theme: only puzzles with this theme (``PuzzleDraw.themes`` lists
                the server's); None: any.
            min_rating, max_rating: only puzzles rated in this range (both
                included); None: no bound.
            players: only puzzles of games of this many players; None: any.
            exclude: ids of puzzles not to draw (those the player has seen).
            seed: the same set, filters and seed draw the same puzzle; None:
                a random draw.

        Raises:
            CacaoClientError: NOT_FOUND (reason PUZZLE_NOT_FOUND) when no
                puzzle is left; INVALID_ARGUMENT naming the filter at fault
                (an unknown theme, min_rating above max_rating, players
                outside 2..4).
        """
        request = puzzle_request(theme=theme, min_rating=min_rating, max_rating=max_rating, players=players,
                                 exclude=exclude, seed=seed)
        return read_puzzle_draw(self._call(self._stub.GetPuzzle, request, timeout))

    def check_puzzle(self, puzzle_id: str, action: Action | Mapping[str, Any], *,
                     timeout: float | None = None) -> PuzzleCheck:
        """Judges a try at a puzzle (CheckPuzzle): whether `action` is one of
        its solutions, the solutions and why the best is best.

        Raises:
            CacaoClientError: NOT_FOUND on ``puzzle_id`` for an id the
                server does not have; INVALID_ARGUMENT (reason
                ILLEGAL_ACTION) naming the part of an action that is not
                legal in the puzzle's position (``action.place.x``).
        """
        request = check_puzzle_request(puzzle_id, action)
        return read_puzzle_check(self._call(self._stub.CheckPuzzle, request, timeout))
