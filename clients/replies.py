"""What the server answers, as small frozen dataclasses instead of protobuf,
and the functions that read each reply message into them.

Actions are engine :class:`~cacaoai.engine.Action` objects; positions,
records and results are the project's JSON forms (``cacao-position/1`` and
``cacao-record/1`` dicts), read by :mod:`cacaoai.api.convert`, the
conversion the server uses too. A search's answer (:data:`Evaluation`) is
:class:`cacaoai.api.SearchResult`, the type the search itself returns.

A reply that cannot be read (a server of another API version, say) raises
:class:`~cacaoai.client.errors.CacaoClientError` UNKNOWN naming its fields.

Thread-safety: immutable values and pure functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import grpc
from google.protobuf import duration_pb2

from cacaoai.api import DecisionReview, Explanation, Limit, ReviewSummary, SearchResult, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Action

from .errors import CacaoClientError

__all__ = [
    "Activation", "AnalysisReport", "Applied", "CoveredWorker", "Evaluation", "JungleTileFacts",
    "LegalActions", "NewGame", "Placement", "ReviewReport", "RulesFacts", "SeatScore", "ServerInfo",
    "ServerLimits", "Standing", "Suggestion", "TempleStanding", "Validation", "WorkerTileFacts",
    "read_applied", "read_legal_actions", "read_new_game", "read_report", "read_server_info",
    "read_review", "read_suggestion", "read_validation",
]

T = TypeVar("T")

_TILE_SOURCES = {pb.TILE_SOURCE_HAND: "hand", pb.TILE_SOURCE_DISPLAY: "display",
                 pb.TILE_SOURCE_DECK: "deck"}
_DIRECTIONS = {pb.DIRECTION_N: "N", pb.DIRECTION_E: "E", pb.DIRECTION_S: "S",
               pb.DIRECTION_W: "W"}


@dataclass(frozen=True)
class ServerLimits:
    """What the server enforces on every request (docs/protocol.md, GetServerInfo);
    the Durations of the message are seconds here (``max_time_s``, ...)."""

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
    max_queued_searches: int = 0
    max_queue_wait_s: float = 0.0
    interactive_max_time_s: float = 0.0
    max_client_interactive: int = 0
    memory_budget_bytes: int = 0
    max_tree_nodes: int = 0


@dataclass(frozen=True)
class WorkerTileFacts:
    """One worker tile type: ``tile`` is its name as this client reads the
    enum ("?" for a tile it does not know), ``name`` as the server writes it;
    ``faces``, the workers on the sides N, E, S, W at rotation 0; ``per_seat``,
    the tiles of this type each seat plays with in a game of 2, 3 and 4 players."""

    tile: str
    name: str
    faces: tuple[int, ...]
    per_seat: tuple[int, ...]


@dataclass(frozen=True)
class JungleTileFacts:
    """One jungle tile kind: ``tile`` and ``name`` as for WorkerTileFacts;
    ``count``, the tiles of this kind in a game of 2, 3 and 4 players (start
    tiles included); ``start``, those on the board at the start of every game."""

    tile: str
    name: str
    count: tuple[int, ...]
    start: int


@dataclass(frozen=True)
class RulesFacts:
    """The rules' numbers as the server's engine plays them (GetServerInfo).

    Attributes:
        worker_tiles: the worker tile types.
        jungle_tiles: the jungle tile kinds.
        water_track: gold at the end of the game for each space of the water
            track, from the start space (index 0) on.
        max_cacao: most cacao a seat may store.
        max_sun: most sun tokens a seat may store.
        temple_awards: gold for the most and the second most workers facing a temple.
        sun_gold: gold for each sun token left at the end of the game.
    """

    worker_tiles: tuple[WorkerTileFacts, ...]
    jungle_tiles: tuple[JungleTileFacts, ...]
    water_track: tuple[int, ...]
    max_cacao: int
    max_sun: int
    temple_awards: tuple[int, ...]
    sun_gold: int


@dataclass(frozen=True)
class ServerInfo:
    """Versions, limits and strength levels of a server (GetServerInfo).

    ``rules`` holds the rules' numbers as its engine plays them (None from a
    server that sends none); ``model_version``, the learned evaluation the
    levels use ("name-version"; "" when the server has none).
    """

    api_version: str
    server_version: str
    engine_version: str
    rules_version: str
    record_format: str
    position_format: str
    limits: ServerLimits
    levels: dict[str, Limit]
    default_level: str
    instance: str
    rules: RulesFacts | None = None
    model_version: str = ""


@dataclass(frozen=True)
class SeatScore:
    """A seat's gold if the game ended now, by part: ``total`` is ``gold`` +
    ``temples`` + ``sun`` + ``water`` (at the end of the game, the result's gold);
    ``cacao`` held breaks ties."""

    seat: int
    gold: int
    temples: int
    sun: int
    water: int
    total: int
    cacao: int


@dataclass(frozen=True)
class TempleStanding:
    """A temple at (x, y): the workers each seat has facing it, and the gold
    each seat would get for it if the game ended now."""

    x: int
    y: int
    workers: tuple[int, ...]
    gold: tuple[int, ...]


@dataclass(frozen=True)
class Standing:
    """How the game stands: each seat's score if the game ended now (in seat
    order) and each temple's majority (by cell); public facts only."""

    seats: tuple[SeatScore, ...]
    temples: tuple[TempleStanding, ...]


@dataclass(frozen=True)
class NewGame:
    """A new deal (NewGame): the complete position and the record with no actions."""

    position: dict[str, Any]
    position_hash: str
    record: dict[str, Any]


@dataclass(frozen=True)
class LegalActions:
    """The legal actions of the seat to act (ListLegalActions), and how the
    game stands in the position (None from a server that sends none)."""

    position_hash: str
    phase: str
    to_act: int | None
    actions: tuple[Action, ...]
    standing: Standing | None = None


@dataclass(frozen=True)
class CoveredWorker:
    """The worker tile under an overbuild (it belongs to the top tile's seat)."""

    tile: str
    rot: int


@dataclass(frozen=True)
class Placement:
    """A tile an action put on the board; ``source`` is hand, display or deck.
    A worker tile has its ``seat`` and ``rot``, and ``covers`` when it was
    laid by an overbuild."""

    x: int
    y: int
    tile: str
    source: str
    seat: int | None = None
    rot: int | None = None
    covers: CoveredWorker | None = None


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
        standing: how the game stands after the action (None from a server
            that sends none).
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
    standing: Standing | None = None


Evaluation: TypeAlias = SearchResult
"""What a search found: the one result type of search, server and client
(:class:`cacaoai.api.SearchResult`; ``limit`` is the budget actually used,
its None fields meaning no limit, and ``threads`` the search threads used)."""


@dataclass(frozen=True)
class Suggestion:
    """SuggestAction's answer: the action for ``seat`` and the evaluation
    behind it; ``explanation``: what the action gives that the runner-up does
    not, when asked (``explain=True``; None otherwise, or with fewer than two
    candidates; ``sentence`` words it)."""

    position_hash: str
    seat: int
    action: Action
    evaluation: Evaluation
    explanation: Explanation | None = None


@dataclass(frozen=True)
class AnalysisReport:
    """One report of AnalyzePosition (``evaluation.final`` on the last one)."""

    position_hash: str
    seat: int
    sequence: int
    evaluation: Evaluation


@dataclass(frozen=True)
class ReviewReport:
    """One message of ReviewGame: a reviewed ``decision`` (the search's
    :class:`~cacaoai.api.DecisionReview`), or the ``summary`` at the end;
    ``decisions`` is how many decisions the review reports in all."""

    sequence: int
    decisions: int
    decision: DecisionReview | None = None
    summary: ReviewSummary | None = None


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
        standing: how the game stands after the legal actions (None if the
            header was bad).
        record: the record as read, the legal actions canonical (None if the
            header was bad).
        record_json: the same record as canonical ``cacao-record/1`` text:
            what to save ("" if the header was bad).
    """

    valid: bool
    error_index: int
    error_message: str
    actions_replayed: int
    position: dict[str, Any] | None
    position_hash: str
    result: dict[str, Any] | None
    standing: Standing | None = None
    record: dict[str, Any] | None = None
    record_json: str = ""


# --- reading the messages ------------------------------------------------------

def read_server_info(r: pb.GetServerInfoResponse) -> ServerInfo:
    """The ServerInfo of a GetServerInfo reply."""
    return ServerInfo(
        api_version=r.api_version, server_version=r.server_version,
        engine_version=r.engine_version, rules_version=r.rules_version,
        record_format=r.record_format, position_format=r.position_format,
        limits=_limits(r.limits),
        levels={level.name: _reply(convert.limit_from_proto, level.limits)
                for level in r.levels},
        default_level=r.default_level, instance=r.instance,
        rules=_rules(r.rules) if r.HasField("rules") else None, model_version=r.model_version)


def read_new_game(r: pb.NewGameResponse) -> NewGame:
    """The NewGame of a NewGame reply."""
    return NewGame(_reply(convert.position_to_json, r.position), r.position_hash,
                   _reply(convert.record_to_json, r.record))


def read_legal_actions(r: pb.ListLegalActionsResponse) -> LegalActions:
    """The LegalActions of a ListLegalActions reply."""
    return LegalActions(r.position_hash, convert.PHASE_NAMES.get(r.phase, "?"),
                        r.to_act if r.HasField("to_act") else None,
                        tuple(_action(a) for a in r.actions), _standing(r))


def read_applied(r: pb.ApplyActionResponse) -> Applied:
    """The Applied of an ApplyAction reply."""
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
        record=_reply(convert.record_to_json, r.record) if r.HasField("record") else None,
        standing=_standing(r))


def read_suggestion(r: pb.SuggestActionResponse) -> Suggestion:
    """The Suggestion of a SuggestAction reply."""
    return Suggestion(r.position_hash, r.seat, _action(r.action), _evaluation(r.evaluation),
                      _reply(convert.explanation_from_proto, r.explanation)
                      if r.HasField("explanation") else None)


def read_review(r: pb.ReviewGameResponse) -> ReviewReport:
    """The ReviewReport of one ReviewGame reply."""
    kind = r.WhichOneof("kind")
    return ReviewReport(
        r.sequence, r.decisions,
        decision=_reply(convert.decision_review_from_proto, r.decision) if kind == "decision" else None,
        summary=convert.review_summary_from_proto(r.summary) if kind == "summary" else None)


def read_report(r: pb.AnalyzePositionResponse) -> AnalysisReport:
    """The AnalysisReport of one AnalyzePosition (or Analyze) reply."""
    return AnalysisReport(r.position_hash, r.seat, r.sequence, _evaluation(r.evaluation))


def read_validation(r: pb.ValidateRecordResponse) -> Validation:
    """The Validation of a ValidateRecord reply."""
    has_position = r.HasField("position")
    return Validation(
        valid=r.valid, error_index=r.error_index, error_message=r.error_message,
        actions_replayed=r.actions_replayed,
        position=_reply(convert.position_to_json, r.position) if has_position else None,
        position_hash=r.position_hash,
        result=convert.result_to_json(r.result) if r.HasField("result") else None,
        standing=_standing(r),
        record=_reply(convert.record_to_json, r.record) if r.HasField("record") else None,
        record_json=r.record_json)


def _reply(read: Callable[[Any], T], message: Any) -> T:
    """`read` (a convert.*_to_json function) applied to part of a server's answer.

    Raises:
        CacaoClientError: UNKNOWN naming the fields, when the answer is malformed
            (a server of another API version, say).
    """
    try:
        return read(message)
    except convert.ConversionError as error:
        raise CacaoClientError(grpc.StatusCode.UNKNOWN,
                               f"malformed answer from the server: {error}",
                               error.violations, reason=pb.ErrorReason.Name(error.reason)) from None


def _action(message: pb.Action) -> Action:
    return _reply(convert.action_from_proto, message)


def _evaluation(message: pb.Evaluation) -> Evaluation:
    return _reply(convert.evaluation_from_proto, message)


def _placement(message: pb.TilePlacement) -> Placement:
    tile = message.tile
    source = _TILE_SOURCES.get(message.source, "unknown")
    if tile.WhichOneof("tile") == "worker":
        worker = tile.worker
        covers = (CoveredWorker(convert.WORKER_NAMES.get(worker.covers.tile, "?"),
                                worker.covers.rotation)
                  if worker.HasField("covers") else None)
        return Placement(tile.x, tile.y, convert.WORKER_NAMES.get(worker.tile, "?"), source,
                         worker.seat, worker.rotation, covers)
    return Placement(tile.x, tile.y, convert.JUNGLE_NAMES.get(tile.jungle, "?"), source)


def _limits(lim: pb.ServerLimits) -> ServerLimits:
    return ServerLimits(
        max_iterations=lim.max_iterations, max_time_s=_seconds(lim.max_time),
        search_threads=lim.search_threads, max_concurrent_searches=lim.max_concurrent_searches,
        max_message_bytes=lim.max_message_bytes,
        min_report_interval_s=_seconds(lim.min_report_interval),
        search_priority=lim.search_priority, max_client_searches=lim.max_client_searches,
        max_concurrent_calls=lim.max_concurrent_calls, max_client_calls=lim.max_client_calls,
        tree_cache_bytes=lim.tree_cache_bytes, max_queued_searches=lim.max_queued_searches,
        max_queue_wait_s=_seconds(lim.max_queue_wait),
        interactive_max_time_s=_seconds(lim.interactive_max_time),
        max_client_interactive=lim.max_client_interactive,
        memory_budget_bytes=lim.memory_budget_bytes, max_tree_nodes=lim.max_tree_nodes)


def _rules(message: pb.RulesFacts) -> RulesFacts:
    return RulesFacts(
        worker_tiles=tuple(WorkerTileFacts(convert.WORKER_NAMES.get(t.tile, "?"), t.name,
                                           tuple(t.faces), tuple(t.per_seat))
                           for t in message.worker_tiles),
        jungle_tiles=tuple(JungleTileFacts(convert.JUNGLE_NAMES.get(t.tile, "?"), t.name,
                                           tuple(t.count), t.start)
                           for t in message.jungle_tiles),
        water_track=tuple(message.water_track), max_cacao=message.max_cacao,
        max_sun=message.max_sun, temple_awards=tuple(message.temple_awards),
        sun_gold=message.sun_gold)


def _standing(reply: Any) -> Standing | None:
    """The ``standing`` of a reply (None when the server sent none)."""
    if not reply.HasField("standing"):
        return None
    standing = reply.standing
    return Standing(
        seats=tuple(SeatScore(s.seat, s.gold, s.temples, s.sun, s.water, s.total, s.cacao)
                    for s in standing.seats),
        temples=tuple(TempleStanding(t.x, t.y, tuple(t.workers), tuple(t.gold))
                      for t in standing.temples))


def _seconds(duration: duration_pb2.Duration) -> float:
    return duration.ToNanoseconds() / 1e9
