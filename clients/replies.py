"""What the server answers, as small frozen dataclasses instead of protobuf,
and the functions that read each reply message into them.

Each type mirrors a message: its attributes are named after the message's
fields, and that is how they are read (below, "reading the messages"), so a
new field of a reply message is one line here, its attribute.

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

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeAlias, TypeVar, cast, get_args, get_type_hints

import grpc
from google.protobuf import duration_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from cacaoai.api import DecisionReview, Explanation, Limit, ReviewSummary, SearchResult, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Action

from .errors import CacaoClientError

__all__ = [
    "Activation", "AnalysisReport", "Applied", "CoveredWorker", "Evaluation", "JungleTileFacts",
    "LegalActions", "NewGame", "Placement", "Puzzle", "PuzzleCheck", "PuzzleDraw", "PuzzleTheme", "ReviewReport",
    "RulesFacts", "SeatScore", "ServerInfo", "ServerLimits", "Standing", "Suggestion", "TempleStanding",
    "Validation", "WorkerTileFacts", "read_applied", "read_legal_actions", "read_new_game", "read_puzzle_check",
    "read_puzzle_draw", "read_report", "read_server_info", "read_review", "read_suggestion", "read_validation",
]

T = TypeVar("T")


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


@dataclass(frozen=True)
class Puzzle:
    """A puzzle as the player gets it (GetPuzzle): ``seat`` is to act in
    ``position``, that seat's observation (a ``cacao-position/1`` dict with
    ``view``), and should find the best action; never its solutions.
    ``rating``: its difficulty (600 beginner ... 1800 max, 2200 unsolved by
    every level); ``themes``: what it is about."""

    id: str
    players: int
    seat: int
    position: dict[str, Any]
    themes: tuple[str, ...]
    rating: int


@dataclass(frozen=True)
class PuzzleTheme:
    """One theme of a server's puzzles and how many puzzles have it."""

    name: str
    puzzles: int


@dataclass(frozen=True)
class PuzzleDraw:
    """GetPuzzle's answer: the ``puzzle`` drawn, how many puzzles pass the
    filters and are not excluded (``matching``, this one included), and every
    theme of the server's set with its count (``themes``)."""

    puzzle: Puzzle
    matching: int
    themes: tuple[PuzzleTheme, ...]


@dataclass(frozen=True)
class PuzzleCheck:
    """CheckPuzzle's verdict on a try: ``correct`` when it is one of
    ``solutions`` (every accepted action), with why the solution is best
    (``sentence``), by how much (``gap``, a win share), whether the endgame
    solver proved it (``exact``) and the puzzle's ``rating``."""

    correct: bool
    solutions: tuple[Action, ...]
    sentence: str
    gap: float
    exact: bool
    rating: int


# --- reading the messages ------------------------------------------------------
#
# A reply type is read from its message field by field, by name: each attribute
# takes the field it is named after (RENAMED and attribute_name say how a name
# may differ), converted by the field's type: a message another reply type
# mirrors into that type, an enum into its name, a Duration into seconds, a
# position, record, action or evaluation into the client's form (_CONVERTERS),
# a repeated field into a tuple. An attribute whose type allows None is None
# when the message does not have the field. _SPECIAL reads the few attributes
# that are not one field. So a new field of a reply message is one line: its
# attribute in the type above (tests/test_api_coverage.py names any missing).

#: The messages each reply type mirrors: the one it is read from, then those it
#: flattens into attributes of its own (Applied: Draws; Placement: BoardTile and
#: PlacedWorker).
MESSAGES: dict[type, tuple[Descriptor, ...]] = {
    ServerInfo: (pb.GetServerInfoResponse.DESCRIPTOR,),
    ServerLimits: (pb.ServerLimits.DESCRIPTOR,),
    RulesFacts: (pb.RulesFacts.DESCRIPTOR,),
    WorkerTileFacts: (pb.WorkerTileFacts.DESCRIPTOR,),
    JungleTileFacts: (pb.JungleTileFacts.DESCRIPTOR,),
    NewGame: (pb.NewGameResponse.DESCRIPTOR,),
    LegalActions: (pb.ListLegalActionsResponse.DESCRIPTOR,),
    Standing: (pb.Standing.DESCRIPTOR,),
    SeatScore: (pb.SeatScore.DESCRIPTOR,),
    TempleStanding: (pb.TempleStanding.DESCRIPTOR,),
    Applied: (pb.ApplyActionResponse.DESCRIPTOR, pb.Draws.DESCRIPTOR),
    Placement: (pb.TilePlacement.DESCRIPTOR, pb.BoardTile.DESCRIPTOR, pb.PlacedWorker.DESCRIPTOR),
    CoveredWorker: (pb.CoveredWorker.DESCRIPTOR,),
    Activation: (pb.Activation.DESCRIPTOR,),
    Suggestion: (pb.SuggestActionResponse.DESCRIPTOR,),
    AnalysisReport: (pb.AnalyzePositionResponse.DESCRIPTOR,),
    ReviewReport: (pb.ReviewGameResponse.DESCRIPTOR,),
    Validation: (pb.ValidateRecordResponse.DESCRIPTOR,),
    PuzzleDraw: (pb.GetPuzzleResponse.DESCRIPTOR,),
    Puzzle: (pb.Puzzle.DESCRIPTOR,),
    PuzzleTheme: (pb.PuzzleTheme.DESCRIPTOR,),
    PuzzleCheck: (pb.CheckPuzzleResponse.DESCRIPTOR,),
}

#: Fields whose attribute has another name ("Message.field": attribute).
RENAMED = {
    "Draws.worker_tile": "worker_tile_drawn",  # the tile drawn, None when none was
    "BoardTile.jungle": "tile",  # a jungle tile's or a worker tile's name
    "PlacedWorker.rotation": "rot",  # as in the record's JSON form
    "CoveredWorker.rotation": "rot",
}


def attribute_name(message: Descriptor, field: FieldDescriptor) -> str:
    """The attribute that carries `field` of `message`: its RENAMED name, else
    ``<field>_s`` for a Duration (float seconds), else the field's own name."""
    key = f"{message.full_name.removeprefix(pb.DESCRIPTOR.package + '.')}.{field.name}"
    if key in RENAMED:
        return RENAMED[key]
    if field.message_type is duration_pb2.Duration.DESCRIPTOR:
        return f"{field.name}_s"
    return field.name


def _seconds(duration: duration_pb2.Duration) -> float:
    return duration.ToNanoseconds() / 1e9


def _names(names: Mapping[Any, str], unknown: str = "?") -> Callable[[int], str]:
    """An enum's reader: the value's name, `unknown` for a value this client does not know."""
    return lambda value: names.get(value, unknown)


#: How a field of each type that no reply type mirrors is read (messages and enums).
_CONVERTERS: dict[Any, Callable[[Any], Any]] = {
    duration_pb2.Duration.DESCRIPTOR: _seconds,
    pb.Position.DESCRIPTOR: convert.position_to_json,
    pb.GameRecord.DESCRIPTOR: convert.record_to_json,
    pb.GameResult.DESCRIPTOR: convert.result_to_json,
    pb.Action.DESCRIPTOR: convert.action_from_proto,
    pb.Evaluation.DESCRIPTOR: convert.evaluation_from_proto,
    pb.Explanation.DESCRIPTOR: convert.explanation_from_proto,
    pb.DecisionReview.DESCRIPTOR: convert.decision_review_from_proto,
    pb.ReviewSummary.DESCRIPTOR: convert.review_summary_from_proto,
    pb.WorkerTile.DESCRIPTOR: _names(convert.WORKER_NAMES),
    pb.JungleTile.DESCRIPTOR: _names(convert.JUNGLE_NAMES),
    pb.Phase.DESCRIPTOR: _names(convert.PHASE_NAMES),
    pb.Direction.DESCRIPTOR: _names({pb.DIRECTION_N: "N", pb.DIRECTION_E: "E", pb.DIRECTION_S: "S",
                                     pb.DIRECTION_W: "W"}),
    pb.TileSource.DESCRIPTOR: _names({pb.TILE_SOURCE_HAND: "hand", pb.TILE_SOURCE_DISPLAY: "display",
                                      pb.TILE_SOURCE_DECK: "deck"}, "unknown"),
}


def _placement(message: pb.TilePlacement) -> Placement:
    """A Placement: its BoardTile holds a jungle tile or a worker tile (a oneof)."""
    tile = message.tile
    source = _CONVERTERS[pb.TileSource.DESCRIPTOR](message.source)
    if tile.WhichOneof("tile") == "worker":
        worker = tile.worker
        covers = _read(CoveredWorker, worker.covers) if worker.HasField("covers") else None
        return Placement(tile.x, tile.y, _CONVERTERS[pb.WorkerTile.DESCRIPTOR](worker.tile), source,
                         worker.seat, worker.rotation, covers)
    return Placement(tile.x, tile.y, _CONVERTERS[pb.JungleTile.DESCRIPTOR](tile.jungle), source)


#: Attributes that are not one field of their message, each read from the whole message.
_SPECIAL: dict[tuple[type, str], Callable[[Any], Any]] = {
    (ServerInfo, "levels"): lambda r: {level.name: _reply(convert.limit_from_proto, level.limits)
                                       for level in r.levels},
    (Applied, "gains"): lambda r: {g.seat: {"gold": g.gold, "cacao": g.cacao, "sun": g.sun, "water": g.water}
                                   for g in r.gains},
    (Applied, "worker_tile_drawn"): lambda r: (convert.WORKER_NAMES.get(r.draws.worker_tile)
                                               if r.draws.worker_tile_drawn else None),
    (Applied, "display_refill"): lambda r: tuple(map(_CONVERTERS[pb.JungleTile.DESCRIPTOR], r.draws.display_refill)),
}


def _field_reader(field: FieldDescriptor, optional: bool) -> Callable[[Any], Any]:
    """What reads `field` from its message into an attribute (None when `optional`
    and the message does not have the field)."""
    name, kind = field.name, field.message_type or field.enum_type
    mirror = next((cls for cls, messages in MESSAGES.items() if messages[0] is kind), None)
    one: Callable[[Any], Any]
    if mirror is Placement:
        one = _placement
    elif mirror is not None:
        one = partial(_read, mirror)
    elif kind is not None:
        one = partial(_reply, _CONVERTERS[kind])
    else:
        one = _plain
    if field.is_repeated:
        return lambda r: tuple(map(one, getattr(r, name)))
    if optional and field.has_presence:
        return lambda r: one(getattr(r, name)) if r.HasField(name) else None
    return lambda r: one(getattr(r, name))


def _plain(value: T) -> T:
    """A number, text or bool field's value, as it is."""
    return value


def _readers(cls: type) -> dict[str, Callable[[Any], Any]]:
    """Each attribute of reply type `cls` and what reads it from its message."""
    message = MESSAGES[cls][0]
    fields = {attribute_name(message, f): f for f in message.fields}
    hints = get_type_hints(cls)
    readers = {}
    for attribute in dataclasses.fields(cls):
        if (cls, attribute.name) in _SPECIAL:
            readers[attribute.name] = _SPECIAL[cls, attribute.name]
        elif attribute.name in fields:
            readers[attribute.name] = _field_reader(fields[attribute.name],
                                                    type(None) in get_args(hints[attribute.name]))
        else:
            raise TypeError(f"{cls.__name__}.{attribute.name}: no field of {message.name} has that name")
    return readers


def _read(cls: type[T], message: Any) -> T:
    """The reply type `cls` read from `message`, attribute by attribute."""
    make: Any = cls
    return cast(T, make(**{name: read(message) for name, read in _READERS[cls].items()}))


def _reply(read: Callable[[Any], T], message: Any) -> T:
    """`read` (a convert.* function) applied to part of a server's answer.

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


# each reply type's readers, made once (Placement has its own: _placement)
_READERS = {cls: _readers(cls) for cls in MESSAGES if cls is not Placement}


def read_server_info(r: pb.GetServerInfoResponse) -> ServerInfo:
    """The ServerInfo of a GetServerInfo reply."""
    return _read(ServerInfo, r)


def read_new_game(r: pb.NewGameResponse) -> NewGame:
    """The NewGame of a NewGame reply."""
    return _read(NewGame, r)


def read_legal_actions(r: pb.ListLegalActionsResponse) -> LegalActions:
    """The LegalActions of a ListLegalActions reply."""
    return _read(LegalActions, r)


def read_applied(r: pb.ApplyActionResponse) -> Applied:
    """The Applied of an ApplyAction reply."""
    return _read(Applied, r)


def read_suggestion(r: pb.SuggestActionResponse) -> Suggestion:
    """The Suggestion of a SuggestAction reply."""
    return _read(Suggestion, r)


def read_review(r: pb.ReviewGameResponse) -> ReviewReport:
    """The ReviewReport of one ReviewGame reply."""
    return _read(ReviewReport, r)


def read_report(r: pb.AnalyzePositionResponse) -> AnalysisReport:
    """The AnalysisReport of one AnalyzePosition (or Analyze) reply."""
    return _read(AnalysisReport, r)


def read_validation(r: pb.ValidateRecordResponse) -> Validation:
    """The Validation of a ValidateRecord reply."""
    return _read(Validation, r)


def read_puzzle_draw(r: pb.GetPuzzleResponse) -> PuzzleDraw:
    """The PuzzleDraw of a GetPuzzle reply."""
    return _read(PuzzleDraw, r)


def read_puzzle_check(r: pb.CheckPuzzleResponse) -> PuzzleCheck:
    """The PuzzleCheck of a CheckPuzzle reply."""
    return _read(PuzzleCheck, r)
