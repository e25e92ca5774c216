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

from cacaoai.api import Limit, SearchResult, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Action

from .errors import CacaoClientError

__all__ = [
    "Activation", "AnalysisReport", "Applied", "Evaluation", "LegalActions", "NewGame",
    "Placement", "ServerInfo", "ServerLimits", "Suggestion", "Validation", "read_applied",
    "read_legal_actions", "read_new_game", "read_report", "read_server_info", "read_suggestion",
    "read_validation",
]

T = TypeVar("T")

_TILE_SOURCES = {pb.TILE_SOURCE_HAND: "hand", pb.TILE_SOURCE_DISPLAY: "display",
                 pb.TILE_SOURCE_DECK: "deck"}
_DIRECTIONS = {pb.DIRECTION_N: "N", pb.DIRECTION_E: "E", pb.DIRECTION_S: "S",
               pb.DIRECTION_W: "W"}


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
    levels: dict[str, Limit]
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


Evaluation: TypeAlias = SearchResult
"""What a search found: the one result type of search, server and client
(:class:`cacaoai.api.SearchResult`; ``limit`` is the budget actually used,
its None fields meaning no limit, and ``threads`` the search threads used)."""


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


# --- reading the messages ------------------------------------------------------

def read_server_info(r: pb.GetServerInfoResponse) -> ServerInfo:
    """The ServerInfo of a GetServerInfo reply."""
    lim = r.limits
    return ServerInfo(
        api_version=r.api_version, server_version=r.server_version,
        engine_version=r.engine_version, rules_version=r.rules_version,
        record_format=r.record_format, position_format=r.position_format,
        limits=ServerLimits(lim.max_iterations, _seconds(lim.max_time), lim.search_threads,
                            lim.max_concurrent_searches, lim.max_message_bytes,
                            _seconds(lim.min_report_interval), lim.search_priority,
                            lim.max_client_searches, lim.max_concurrent_calls,
                            lim.max_client_calls, lim.tree_cache_bytes),
        levels={level.name: _reply(convert.limit_from_proto, level.limits)
                for level in r.levels},
        default_level=r.default_level, instance=r.instance)


def read_new_game(r: pb.NewGameResponse) -> NewGame:
    """The NewGame of a NewGame reply."""
    return NewGame(_reply(convert.position_to_json, r.position), r.position_hash,
                   _reply(convert.record_to_json, r.record))


def read_legal_actions(r: pb.ListLegalActionsResponse) -> LegalActions:
    """The LegalActions of a ListLegalActions reply."""
    return LegalActions(r.position_hash, convert.PHASE_NAMES.get(r.phase, "?"),
                        r.to_act if r.HasField("to_act") else None,
                        tuple(_action(a) for a in r.actions))


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
        record=_reply(convert.record_to_json, r.record) if r.HasField("record") else None)


def read_suggestion(r: pb.SuggestActionResponse) -> Suggestion:
    """The Suggestion of a SuggestAction reply."""
    return Suggestion(r.position_hash, r.seat, _action(r.action), _evaluation(r.evaluation))


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
        result=convert.result_to_json(r.result) if r.HasField("result") else None)


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
                               error.violations, reason=error.reason) from None


def _action(message: pb.Action) -> Action:
    return Action.from_json(_reply(convert.action_to_json, message))


def _evaluation(message: pb.Evaluation) -> Evaluation:
    return _reply(convert.evaluation_from_proto, message)


def _placement(message: pb.TilePlacement) -> Placement:
    tile = message.tile
    source = _TILE_SOURCES.get(message.source, "unknown")
    if tile.WhichOneof("tile") == "worker":
        return Placement(tile.x, tile.y, convert.WORKER_NAMES.get(tile.worker.tile, "?"), source,
                         tile.worker.seat, tile.worker.rotation)
    return Placement(tile.x, tile.y, convert.JUNGLE_NAMES.get(tile.jungle, "?"), source)


def _seconds(duration: duration_pb2.Duration) -> float:
    return duration.ToNanoseconds() / 1e9
