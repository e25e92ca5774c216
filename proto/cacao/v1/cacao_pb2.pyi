import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SearchPriority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_PRIORITY_UNSPECIFIED: _ClassVar[SearchPriority]
    SEARCH_PRIORITY_INTERACTIVE: _ClassVar[SearchPriority]
    SEARCH_PRIORITY_BACKGROUND: _ClassVar[SearchPriority]

class TileSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TILE_SOURCE_UNSPECIFIED: _ClassVar[TileSource]
    TILE_SOURCE_HAND: _ClassVar[TileSource]
    TILE_SOURCE_DISPLAY: _ClassVar[TileSource]
    TILE_SOURCE_DECK: _ClassVar[TileSource]

class DecisionClass(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_CLASS_UNSPECIFIED: _ClassVar[DecisionClass]
    DECISION_CLASS_BEST: _ClassVar[DecisionClass]
    DECISION_CLASS_GOOD: _ClassVar[DecisionClass]
    DECISION_CLASS_INACCURACY: _ClassVar[DecisionClass]
    DECISION_CLASS_MISTAKE: _ClassVar[DecisionClass]
    DECISION_CLASS_BLUNDER: _ClassVar[DecisionClass]

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    INVALID_REQUEST: _ClassVar[ErrorReason]
    INVALID_POSITION: _ClassVar[ErrorReason]
    INVALID_RECORD: _ClassVar[ErrorReason]
    INVALID_ACTION: _ClassVar[ErrorReason]
    ILLEGAL_ACTION: _ClassVar[ErrorReason]
    UNKNOWN_LEVEL: _ClassVar[ErrorReason]
    UNDECODABLE_REQUEST: _ClassVar[ErrorReason]
    GAME_OVER: _ClassVar[ErrorReason]
    HIDDEN_INFORMATION: _ClassVar[ErrorReason]
    POSITION_MISMATCH: _ClassVar[ErrorReason]
    TOO_MANY_SEARCHES: _ClassVar[ErrorReason]
    TOO_MANY_CLIENT_SEARCHES: _ClassVar[ErrorReason]
    TOO_MANY_CLIENT_CALLS: _ClassVar[ErrorReason]
    TOO_MANY_CALLS: _ClassVar[ErrorReason]
    SHUTTING_DOWN: _ClassVar[ErrorReason]
    DEADLINE_TOO_SHORT: _ClassVar[ErrorReason]
    REQUEST_TIMEOUT: _ClassVar[ErrorReason]
    UNAUTHENTICATED: _ClassVar[ErrorReason]
    PERMISSION_DENIED: _ClassVar[ErrorReason]
    PUZZLE_NOT_FOUND: _ClassVar[ErrorReason]

class WorkerTile(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKER_TILE_UNSPECIFIED: _ClassVar[WorkerTile]
    WORKER_TILE_1111: _ClassVar[WorkerTile]
    WORKER_TILE_2101: _ClassVar[WorkerTile]
    WORKER_TILE_3001: _ClassVar[WorkerTile]
    WORKER_TILE_3100: _ClassVar[WorkerTile]

class JungleTile(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JUNGLE_TILE_UNSPECIFIED: _ClassVar[JungleTile]
    JUNGLE_TILE_PLANTATION_1: _ClassVar[JungleTile]
    JUNGLE_TILE_PLANTATION_2: _ClassVar[JungleTile]
    JUNGLE_TILE_MARKET_2: _ClassVar[JungleTile]
    JUNGLE_TILE_MARKET_3: _ClassVar[JungleTile]
    JUNGLE_TILE_MARKET_4: _ClassVar[JungleTile]
    JUNGLE_TILE_GOLD_1: _ClassVar[JungleTile]
    JUNGLE_TILE_GOLD_2: _ClassVar[JungleTile]
    JUNGLE_TILE_WATER: _ClassVar[JungleTile]
    JUNGLE_TILE_SUN: _ClassVar[JungleTile]
    JUNGLE_TILE_TEMPLE: _ClassVar[JungleTile]

class Direction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIRECTION_UNSPECIFIED: _ClassVar[Direction]
    DIRECTION_N: _ClassVar[Direction]
    DIRECTION_E: _ClassVar[Direction]
    DIRECTION_S: _ClassVar[Direction]
    DIRECTION_W: _ClassVar[Direction]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_TURN: _ClassVar[Phase]
    PHASE_RESOLVE: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]
SEARCH_PRIORITY_UNSPECIFIED: SearchPriority
SEARCH_PRIORITY_INTERACTIVE: SearchPriority
SEARCH_PRIORITY_BACKGROUND: SearchPriority
TILE_SOURCE_UNSPECIFIED: TileSource
TILE_SOURCE_HAND: TileSource
TILE_SOURCE_DISPLAY: TileSource
TILE_SOURCE_DECK: TileSource
DECISION_CLASS_UNSPECIFIED: DecisionClass
DECISION_CLASS_BEST: DecisionClass
DECISION_CLASS_GOOD: DecisionClass
DECISION_CLASS_INACCURACY: DecisionClass
DECISION_CLASS_MISTAKE: DecisionClass
DECISION_CLASS_BLUNDER: DecisionClass
ERROR_REASON_UNSPECIFIED: ErrorReason
INVALID_REQUEST: ErrorReason
INVALID_POSITION: ErrorReason
INVALID_RECORD: ErrorReason
INVALID_ACTION: ErrorReason
ILLEGAL_ACTION: ErrorReason
UNKNOWN_LEVEL: ErrorReason
UNDECODABLE_REQUEST: ErrorReason
GAME_OVER: ErrorReason
HIDDEN_INFORMATION: ErrorReason
POSITION_MISMATCH: ErrorReason
TOO_MANY_SEARCHES: ErrorReason
TOO_MANY_CLIENT_SEARCHES: ErrorReason
TOO_MANY_CLIENT_CALLS: ErrorReason
TOO_MANY_CALLS: ErrorReason
SHUTTING_DOWN: ErrorReason
DEADLINE_TOO_SHORT: ErrorReason
REQUEST_TIMEOUT: ErrorReason
UNAUTHENTICATED: ErrorReason
PERMISSION_DENIED: ErrorReason
PUZZLE_NOT_FOUND: ErrorReason
WORKER_TILE_UNSPECIFIED: WorkerTile
WORKER_TILE_1111: WorkerTile
WORKER_TILE_2101: WorkerTile
WORKER_TILE_3001: WorkerTile
WORKER_TILE_3100: WorkerTile
JUNGLE_TILE_UNSPECIFIED: JungleTile
JUNGLE_TILE_PLANTATION_1: JungleTile
JUNGLE_TILE_PLANTATION_2: JungleTile
JUNGLE_TILE_MARKET_2: JungleTile
JUNGLE_TILE_MARKET_3: JungleTile
JUNGLE_TILE_MARKET_4: JungleTile
JUNGLE_TILE_GOLD_1: JungleTile
JUNGLE_TILE_GOLD_2: JungleTile
JUNGLE_TILE_WATER: JungleTile
JUNGLE_TILE_SUN: JungleTile
JUNGLE_TILE_TEMPLE: JungleTile
DIRECTION_UNSPECIFIED: Direction
DIRECTION_N: Direction
DIRECTION_E: Direction
DIRECTION_S: Direction
DIRECTION_W: Direction
PHASE_UNSPECIFIED: Phase
PHASE_TURN: Phase
PHASE_RESOLVE: Phase
PHASE_OVER: Phase

class GetServerInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetServerInfoResponse(_message.Message):
    __slots__ = ("api_version", "server_version", "engine_version", "rules_version", "record_format", "position_format", "limits", "levels", "default_level", "instance", "rules", "model_version")
    API_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FORMAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FORMAT_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    MODEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    api_version: str
    server_version: str
    engine_version: str
    rules_version: str
    record_format: str
    position_format: str
    limits: ServerLimits
    levels: _containers.RepeatedCompositeFieldContainer[StrengthLevel]
    default_level: str
    instance: str
    rules: RulesFacts
    model_version: str
    def __init__(self, api_version: _Optional[str] = ..., server_version: _Optional[str] = ..., engine_version: _Optional[str] = ..., rules_version: _Optional[str] = ..., record_format: _Optional[str] = ..., position_format: _Optional[str] = ..., limits: _Optional[_Union[ServerLimits, _Mapping]] = ..., levels: _Optional[_Iterable[_Union[StrengthLevel, _Mapping]]] = ..., default_level: _Optional[str] = ..., instance: _Optional[str] = ..., rules: _Optional[_Union[RulesFacts, _Mapping]] = ..., model_version: _Optional[str] = ...) -> None: ...

class RulesFacts(_message.Message):
    __slots__ = ("worker_tiles", "jungle_tiles", "water_track", "max_cacao", "max_sun", "temple_awards", "sun_gold")
    WORKER_TILES_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_TILES_FIELD_NUMBER: _ClassVar[int]
    WATER_TRACK_FIELD_NUMBER: _ClassVar[int]
    MAX_CACAO_FIELD_NUMBER: _ClassVar[int]
    MAX_SUN_FIELD_NUMBER: _ClassVar[int]
    TEMPLE_AWARDS_FIELD_NUMBER: _ClassVar[int]
    SUN_GOLD_FIELD_NUMBER: _ClassVar[int]
    worker_tiles: _containers.RepeatedCompositeFieldContainer[WorkerTileFacts]
    jungle_tiles: _containers.RepeatedCompositeFieldContainer[JungleTileFacts]
    water_track: _containers.RepeatedScalarFieldContainer[int]
    max_cacao: int
    max_sun: int
    temple_awards: _containers.RepeatedScalarFieldContainer[int]
    sun_gold: int
    def __init__(self, worker_tiles: _Optional[_Iterable[_Union[WorkerTileFacts, _Mapping]]] = ..., jungle_tiles: _Optional[_Iterable[_Union[JungleTileFacts, _Mapping]]] = ..., water_track: _Optional[_Iterable[int]] = ..., max_cacao: _Optional[int] = ..., max_sun: _Optional[int] = ..., temple_awards: _Optional[_Iterable[int]] = ..., sun_gold: _Optional[int] = ...) -> None: ...

class WorkerTileFacts(_message.Message):
    __slots__ = ("tile", "name", "faces", "per_seat")
    TILE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    FACES_FIELD_NUMBER: _ClassVar[int]
    PER_SEAT_FIELD_NUMBER: _ClassVar[int]
    tile: WorkerTile
    name: str
    faces: _containers.RepeatedScalarFieldContainer[int]
    per_seat: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ..., name: _Optional[str] = ..., faces: _Optional[_Iterable[int]] = ..., per_seat: _Optional[_Iterable[int]] = ...) -> None: ...

class JungleTileFacts(_message.Message):
    __slots__ = ("tile", "name", "count", "start")
    TILE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    tile: JungleTile
    name: str
    count: _containers.RepeatedScalarFieldContainer[int]
    start: int
    def __init__(self, tile: _Optional[_Union[JungleTile, str]] = ..., name: _Optional[str] = ..., count: _Optional[_Iterable[int]] = ..., start: _Optional[int] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("seats", "temples")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatScore]
    temples: _containers.RepeatedCompositeFieldContainer[TempleStanding]
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., temples: _Optional[_Iterable[_Union[TempleStanding, _Mapping]]] = ...) -> None: ...

class SeatScore(_message.Message):
    __slots__ = ("seat", "gold", "temples", "sun", "water", "total", "cacao")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_FIELD_NUMBER: _ClassVar[int]
    SUN_FIELD_NUMBER: _ClassVar[int]
    WATER_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    CACAO_FIELD_NUMBER: _ClassVar[int]
    seat: int
    gold: int
    temples: int
    sun: int
    water: int
    total: int
    cacao: int
    def __init__(self, seat: _Optional[int] = ..., gold: _Optional[int] = ..., temples: _Optional[int] = ..., sun: _Optional[int] = ..., water: _Optional[int] = ..., total: _Optional[int] = ..., cacao: _Optional[int] = ...) -> None: ...

class TempleStanding(_message.Message):
    __slots__ = ("x", "y", "workers", "gold")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    workers: _containers.RepeatedScalarFieldContainer[int]
    gold: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., workers: _Optional[_Iterable[int]] = ..., gold: _Optional[_Iterable[int]] = ...) -> None: ...

class ServerLimits(_message.Message):
    __slots__ = ("max_iterations", "max_time", "search_threads", "max_concurrent_searches", "max_message_bytes", "min_report_interval", "search_priority", "max_client_searches", "max_concurrent_calls", "max_client_calls", "tree_cache_bytes", "max_queued_searches", "max_queue_wait", "interactive_max_time", "max_client_interactive", "memory_budget_bytes", "max_tree_nodes")
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_TIME_FIELD_NUMBER: _ClassVar[int]
    SEARCH_THREADS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_SEARCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MIN_REPORT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    SEARCH_PRIORITY_FIELD_NUMBER: _ClassVar[int]
    MAX_CLIENT_SEARCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_CALLS_FIELD_NUMBER: _ClassVar[int]
    MAX_CLIENT_CALLS_FIELD_NUMBER: _ClassVar[int]
    TREE_CACHE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUED_SEARCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUE_WAIT_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_MAX_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_CLIENT_INTERACTIVE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BUDGET_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_TREE_NODES_FIELD_NUMBER: _ClassVar[int]
    max_iterations: int
    max_time: _duration_pb2.Duration
    search_threads: int
    max_concurrent_searches: int
    max_message_bytes: int
    min_report_interval: _duration_pb2.Duration
    search_priority: str
    max_client_searches: int
    max_concurrent_calls: int
    max_client_calls: int
    tree_cache_bytes: int
    max_queued_searches: int
    max_queue_wait: _duration_pb2.Duration
    interactive_max_time: _duration_pb2.Duration
    max_client_interactive: int
    memory_budget_bytes: int
    max_tree_nodes: int
    def __init__(self, max_iterations: _Optional[int] = ..., max_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., search_threads: _Optional[int] = ..., max_concurrent_searches: _Optional[int] = ..., max_message_bytes: _Optional[int] = ..., min_report_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., search_priority: _Optional[str] = ..., max_client_searches: _Optional[int] = ..., max_concurrent_calls: _Optional[int] = ..., max_client_calls: _Optional[int] = ..., tree_cache_bytes: _Optional[int] = ..., max_queued_searches: _Optional[int] = ..., max_queue_wait: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., interactive_max_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_client_interactive: _Optional[int] = ..., memory_budget_bytes: _Optional[int] = ..., max_tree_nodes: _Optional[int] = ...) -> None: ...

class StrengthLevel(_message.Message):
    __slots__ = ("name", "limits")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    name: str
    limits: SearchLimits
    def __init__(self, name: _Optional[str] = ..., limits: _Optional[_Union[SearchLimits, _Mapping]] = ...) -> None: ...

class SearchLimits(_message.Message):
    __slots__ = ("iterations", "time", "threads")
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    THREADS_FIELD_NUMBER: _ClassVar[int]
    iterations: int
    time: _duration_pb2.Duration
    threads: int
    def __init__(self, iterations: _Optional[int] = ..., time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., threads: _Optional[int] = ...) -> None: ...

class NewGameRequest(_message.Message):
    __slots__ = ("players", "seed")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    players: int
    seed: int
    def __init__(self, players: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class NewGameResponse(_message.Message):
    __slots__ = ("position", "position_hash", "record")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    position: Position
    position_hash: str
    record: GameRecord
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., position_hash: _Optional[str] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("position", "record")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    position: Position
    record: GameRecord
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("position_hash", "phase", "to_act", "actions", "standing")
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    position_hash: str
    phase: Phase
    to_act: int
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    standing: Standing
    def __init__(self, position_hash: _Optional[str] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., standing: _Optional[_Union[Standing, _Mapping]] = ...) -> None: ...

class ApplyActionRequest(_message.Message):
    __slots__ = ("position", "record", "action", "expected_position_hash")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    position: Position
    record: GameRecord
    action: Action
    expected_position_hash: str
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., expected_position_hash: _Optional[str] = ...) -> None: ...

class TilePlacement(_message.Message):
    __slots__ = ("tile", "source")
    TILE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    tile: BoardTile
    source: TileSource
    def __init__(self, tile: _Optional[_Union[BoardTile, _Mapping]] = ..., source: _Optional[_Union[TileSource, str]] = ...) -> None: ...

class Activation(_message.Message):
    __slots__ = ("seat", "x", "y", "direction", "jungle", "workers")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    x: int
    y: int
    direction: Direction
    jungle: JungleTile
    workers: int
    def __init__(self, seat: _Optional[int] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., direction: _Optional[_Union[Direction, str]] = ..., jungle: _Optional[_Union[JungleTile, str]] = ..., workers: _Optional[int] = ...) -> None: ...

class SeatGains(_message.Message):
    __slots__ = ("seat", "gold", "cacao", "sun", "water")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    CACAO_FIELD_NUMBER: _ClassVar[int]
    SUN_FIELD_NUMBER: _ClassVar[int]
    WATER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    gold: int
    cacao: int
    sun: int
    water: int
    def __init__(self, seat: _Optional[int] = ..., gold: _Optional[int] = ..., cacao: _Optional[int] = ..., sun: _Optional[int] = ..., water: _Optional[int] = ...) -> None: ...

class Draws(_message.Message):
    __slots__ = ("worker_tile_drawn", "worker_tile", "display_refill")
    WORKER_TILE_DRAWN_FIELD_NUMBER: _ClassVar[int]
    WORKER_TILE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_REFILL_FIELD_NUMBER: _ClassVar[int]
    worker_tile_drawn: bool
    worker_tile: WorkerTile
    display_refill: _containers.RepeatedScalarFieldContainer[JungleTile]
    def __init__(self, worker_tile_drawn: _Optional[bool] = ..., worker_tile: _Optional[_Union[WorkerTile, str]] = ..., display_refill: _Optional[_Iterable[_Union[JungleTile, str]]] = ...) -> None: ...

class ApplyActionResponse(_message.Message):
    __slots__ = ("position", "position_hash", "action", "placed", "activations", "gains", "draws", "turn_ended", "result", "record", "standing")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    ACTIVATIONS_FIELD_NUMBER: _ClassVar[int]
    GAINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    TURN_ENDED_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    position: Position
    position_hash: str
    action: Action
    placed: _containers.RepeatedCompositeFieldContainer[TilePlacement]
    activations: _containers.RepeatedCompositeFieldContainer[Activation]
    gains: _containers.RepeatedCompositeFieldContainer[SeatGains]
    draws: Draws
    turn_ended: bool
    result: GameResult
    record: GameRecord
    standing: Standing
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., position_hash: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., placed: _Optional[_Iterable[_Union[TilePlacement, _Mapping]]] = ..., activations: _Optional[_Iterable[_Union[Activation, _Mapping]]] = ..., gains: _Optional[_Iterable[_Union[SeatGains, _Mapping]]] = ..., draws: _Optional[_Union[Draws, _Mapping]] = ..., turn_ended: _Optional[bool] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., standing: _Optional[_Union[Standing, _Mapping]] = ...) -> None: ...

class SuggestActionRequest(_message.Message):
    __slots__ = ("position", "record", "limits", "level", "seed", "max_candidates", "allow", "avoid", "reuse_tree", "priority", "levels", "settings", "explain", "forecast")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    AVOID_FIELD_NUMBER: _ClassVar[int]
    REUSE_TREE_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    FORECAST_FIELD_NUMBER: _ClassVar[int]
    position: Position
    record: GameRecord
    limits: SearchLimits
    level: str
    seed: int
    max_candidates: int
    allow: _containers.RepeatedCompositeFieldContainer[Action]
    avoid: _containers.RepeatedCompositeFieldContainer[Action]
    reuse_tree: bool
    priority: SearchPriority
    levels: _containers.RepeatedScalarFieldContainer[str]
    settings: str
    explain: bool
    forecast: int
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., limits: _Optional[_Union[SearchLimits, _Mapping]] = ..., level: _Optional[str] = ..., seed: _Optional[int] = ..., max_candidates: _Optional[int] = ..., allow: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., avoid: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., reuse_tree: _Optional[bool] = ..., priority: _Optional[_Union[SearchPriority, str]] = ..., levels: _Optional[_Iterable[str]] = ..., settings: _Optional[str] = ..., explain: _Optional[bool] = ..., forecast: _Optional[int] = ...) -> None: ...

class SeatOutlook(_message.Message):
    __slots__ = ("seat", "win_probability", "expected_gold", "score_lead")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_GOLD_FIELD_NUMBER: _ClassVar[int]
    SCORE_LEAD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    win_probability: float
    expected_gold: float
    score_lead: float
    def __init__(self, seat: _Optional[int] = ..., win_probability: _Optional[float] = ..., expected_gold: _Optional[float] = ..., score_lead: _Optional[float] = ...) -> None: ...

class Candidate(_message.Message):
    __slots__ = ("action", "visits", "mean_value", "win_probability", "score_lead", "expected_gold", "prior", "lcb", "order", "principal_variation", "exact")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    MEAN_VALUE_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    SCORE_LEAD_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_GOLD_FIELD_NUMBER: _ClassVar[int]
    PRIOR_FIELD_NUMBER: _ClassVar[int]
    LCB_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_VARIATION_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    action: Action
    visits: int
    mean_value: float
    win_probability: float
    score_lead: float
    expected_gold: float
    prior: float
    lcb: float
    order: int
    principal_variation: _containers.RepeatedCompositeFieldContainer[Action]
    exact: bool
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., visits: _Optional[int] = ..., mean_value: _Optional[float] = ..., win_probability: _Optional[float] = ..., score_lead: _Optional[float] = ..., expected_gold: _Optional[float] = ..., prior: _Optional[float] = ..., lcb: _Optional[float] = ..., order: _Optional[int] = ..., principal_variation: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., exact: _Optional[bool] = ...) -> None: ...

class RootInfo(_message.Message):
    __slots__ = ("visits", "mean_value", "win_probability", "score_lead", "expected_gold", "reused_visits")
    VISITS_FIELD_NUMBER: _ClassVar[int]
    MEAN_VALUE_FIELD_NUMBER: _ClassVar[int]
    WIN_PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    SCORE_LEAD_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_GOLD_FIELD_NUMBER: _ClassVar[int]
    REUSED_VISITS_FIELD_NUMBER: _ClassVar[int]
    visits: int
    mean_value: float
    win_probability: float
    score_lead: float
    expected_gold: float
    reused_visits: int
    def __init__(self, visits: _Optional[int] = ..., mean_value: _Optional[float] = ..., win_probability: _Optional[float] = ..., score_lead: _Optional[float] = ..., expected_gold: _Optional[float] = ..., reused_visits: _Optional[int] = ...) -> None: ...

class Evaluation(_message.Message):
    __slots__ = ("best_action", "seats", "candidates", "principal_variation", "iterations", "elapsed", "iterations_per_second", "limits", "final", "stopped_by", "seat", "to_act", "threads", "nodes", "root", "priority", "queued", "paused", "population", "settings", "forecast", "exact")
    BEST_ACTION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_VARIATION_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    STOPPED_BY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    POPULATION_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    FORECAST_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    best_action: Action
    seats: _containers.RepeatedCompositeFieldContainer[SeatOutlook]
    candidates: _containers.RepeatedCompositeFieldContainer[Candidate]
    principal_variation: _containers.RepeatedCompositeFieldContainer[Action]
    iterations: int
    elapsed: _duration_pb2.Duration
    iterations_per_second: float
    limits: SearchLimits
    final: bool
    stopped_by: str
    seat: int
    to_act: int
    threads: int
    nodes: int
    root: RootInfo
    priority: SearchPriority
    queued: _duration_pb2.Duration
    paused: _duration_pb2.Duration
    population: str
    settings: str
    forecast: Forecast
    exact: bool
    def __init__(self, best_action: _Optional[_Union[Action, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatOutlook, _Mapping]]] = ..., candidates: _Optional[_Iterable[_Union[Candidate, _Mapping]]] = ..., principal_variation: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., iterations: _Optional[int] = ..., elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., iterations_per_second: _Optional[float] = ..., limits: _Optional[_Union[SearchLimits, _Mapping]] = ..., final: _Optional[bool] = ..., stopped_by: _Optional[str] = ..., seat: _Optional[int] = ..., to_act: _Optional[int] = ..., threads: _Optional[int] = ..., nodes: _Optional[int] = ..., root: _Optional[_Union[RootInfo, _Mapping]] = ..., priority: _Optional[_Union[SearchPriority, str]] = ..., queued: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., paused: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., population: _Optional[str] = ..., settings: _Optional[str] = ..., forecast: _Optional[_Union[Forecast, _Mapping]] = ..., exact: _Optional[bool] = ...) -> None: ...

class Forecast(_message.Message):
    __slots__ = ("playouts", "temples", "seats")
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    playouts: int
    temples: _containers.RepeatedCompositeFieldContainer[TempleForecast]
    seats: _containers.RepeatedCompositeFieldContainer[SeatForecast]
    def __init__(self, playouts: _Optional[int] = ..., temples: _Optional[_Iterable[_Union[TempleForecast, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[SeatForecast, _Mapping]]] = ...) -> None: ...

class TempleForecast(_message.Message):
    __slots__ = ("x", "y", "first", "second")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    first: _containers.RepeatedScalarFieldContainer[float]
    second: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., first: _Optional[_Iterable[float]] = ..., second: _Optional[_Iterable[float]] = ...) -> None: ...

class SeatForecast(_message.Message):
    __slots__ = ("seat", "temples", "water", "sun", "gold", "total")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_FIELD_NUMBER: _ClassVar[int]
    WATER_FIELD_NUMBER: _ClassVar[int]
    SUN_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    temples: PartForecast
    water: PartForecast
    sun: PartForecast
    gold: PartForecast
    total: PartForecast
    def __init__(self, seat: _Optional[int] = ..., temples: _Optional[_Union[PartForecast, _Mapping]] = ..., water: _Optional[_Union[PartForecast, _Mapping]] = ..., sun: _Optional[_Union[PartForecast, _Mapping]] = ..., gold: _Optional[_Union[PartForecast, _Mapping]] = ..., total: _Optional[_Union[PartForecast, _Mapping]] = ...) -> None: ...

class PartForecast(_message.Message):
    __slots__ = ("mean", "spread")
    MEAN_FIELD_NUMBER: _ClassVar[int]
    SPREAD_FIELD_NUMBER: _ClassVar[int]
    mean: float
    spread: float
    def __init__(self, mean: _Optional[float] = ..., spread: _Optional[float] = ...) -> None: ...

class SuggestActionResponse(_message.Message):
    __slots__ = ("position_hash", "seat", "action", "evaluation", "explanation")
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    position_hash: str
    seat: int
    action: Action
    evaluation: Evaluation
    explanation: Explanation
    def __init__(self, position_hash: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., evaluation: _Optional[_Union[Evaluation, _Mapping]] = ..., explanation: _Optional[_Union[Explanation, _Mapping]] = ...) -> None: ...

class AnalyzePositionRequest(_message.Message):
    __slots__ = ("position", "record", "limits", "level", "report_interval", "seed", "max_candidates", "allow", "avoid", "reuse_tree", "seat", "priority", "levels", "settings", "forecast")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    REPORT_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    AVOID_FIELD_NUMBER: _ClassVar[int]
    REUSE_TREE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    FORECAST_FIELD_NUMBER: _ClassVar[int]
    position: Position
    record: GameRecord
    limits: SearchLimits
    level: str
    report_interval: _duration_pb2.Duration
    seed: int
    max_candidates: int
    allow: _containers.RepeatedCompositeFieldContainer[Action]
    avoid: _containers.RepeatedCompositeFieldContainer[Action]
    reuse_tree: bool
    seat: int
    priority: SearchPriority
    levels: _containers.RepeatedScalarFieldContainer[str]
    settings: str
    forecast: int
    def __init__(self, position: _Optional[_Union[Position, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., limits: _Optional[_Union[SearchLimits, _Mapping]] = ..., level: _Optional[str] = ..., report_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., seed: _Optional[int] = ..., max_candidates: _Optional[int] = ..., allow: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., avoid: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., reuse_tree: _Optional[bool] = ..., seat: _Optional[int] = ..., priority: _Optional[_Union[SearchPriority, str]] = ..., levels: _Optional[_Iterable[str]] = ..., settings: _Optional[str] = ..., forecast: _Optional[int] = ...) -> None: ...

class AnalyzeRequest(_message.Message):
    __slots__ = ("start", "stop")
    START_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    start: AnalyzePositionRequest
    stop: StopAnalysis
    def __init__(self, start: _Optional[_Union[AnalyzePositionRequest, _Mapping]] = ..., stop: _Optional[_Union[StopAnalysis, _Mapping]] = ...) -> None: ...

class StopAnalysis(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AnalyzePositionResponse(_message.Message):
    __slots__ = ("position_hash", "seat", "sequence", "evaluation")
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    position_hash: str
    seat: int
    sequence: int
    evaluation: Evaluation
    def __init__(self, position_hash: _Optional[str] = ..., seat: _Optional[int] = ..., sequence: _Optional[int] = ..., evaluation: _Optional[_Union[Evaluation, _Mapping]] = ...) -> None: ...

class ValidateRecordRequest(_message.Message):
    __slots__ = ("record", "record_json")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    record: GameRecord
    record_json: str
    def __init__(self, record: _Optional[_Union[GameRecord, _Mapping]] = ..., record_json: _Optional[str] = ...) -> None: ...

class ValidateRecordResponse(_message.Message):
    __slots__ = ("valid", "error_index", "error_message", "actions_replayed", "position", "position_hash", "result", "standing", "record", "record_json")
    VALID_FIELD_NUMBER: _ClassVar[int]
    ERROR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_REPLAYED_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    POSITION_HASH_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    error_index: int
    error_message: str
    actions_replayed: int
    position: Position
    position_hash: str
    result: GameResult
    standing: Standing
    record: GameRecord
    record_json: str
    def __init__(self, valid: _Optional[bool] = ..., error_index: _Optional[int] = ..., error_message: _Optional[str] = ..., actions_replayed: _Optional[int] = ..., position: _Optional[_Union[Position, _Mapping]] = ..., position_hash: _Optional[str] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., standing: _Optional[_Union[Standing, _Mapping]] = ..., record: _Optional[_Union[GameRecord, _Mapping]] = ..., record_json: _Optional[str] = ...) -> None: ...

class ReviewGameRequest(_message.Message):
    __slots__ = ("record", "record_json", "limits", "seed", "seats", "decisions")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    record: GameRecord
    record_json: str
    limits: SearchLimits
    seed: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    decisions: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, record: _Optional[_Union[GameRecord, _Mapping]] = ..., record_json: _Optional[str] = ..., limits: _Optional[_Union[SearchLimits, _Mapping]] = ..., seed: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., decisions: _Optional[_Iterable[int]] = ...) -> None: ...

class ScorePart(_message.Message):
    __slots__ = ("name", "best", "other")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    name: str
    best: int
    other: int
    def __init__(self, name: _Optional[str] = ..., best: _Optional[int] = ..., other: _Optional[int] = ...) -> None: ...

class TempleChange(_message.Message):
    __slots__ = ("x", "y", "best", "other")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    best: _containers.RepeatedScalarFieldContainer[int]
    other: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., best: _Optional[_Iterable[int]] = ..., other: _Optional[_Iterable[int]] = ...) -> None: ...

class Explanation(_message.Message):
    __slots__ = ("seat", "line", "other_line", "plies", "other_plies", "turn", "parts", "temples", "totals", "other_totals")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    OTHER_LINE_FIELD_NUMBER: _ClassVar[int]
    PLIES_FIELD_NUMBER: _ClassVar[int]
    OTHER_PLIES_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    TEMPLES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    OTHER_TOTALS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    line: _containers.RepeatedCompositeFieldContainer[Action]
    other_line: _containers.RepeatedCompositeFieldContainer[Action]
    plies: int
    other_plies: int
    turn: int
    parts: _containers.RepeatedCompositeFieldContainer[ScorePart]
    temples: _containers.RepeatedCompositeFieldContainer[TempleChange]
    totals: _containers.RepeatedScalarFieldContainer[int]
    other_totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., line: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., other_line: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., plies: _Optional[int] = ..., other_plies: _Optional[int] = ..., turn: _Optional[int] = ..., parts: _Optional[_Iterable[_Union[ScorePart, _Mapping]]] = ..., temples: _Optional[_Iterable[_Union[TempleChange, _Mapping]]] = ..., totals: _Optional[_Iterable[int]] = ..., other_totals: _Optional[_Iterable[int]] = ...) -> None: ...

class DecisionReview(_message.Message):
    __slots__ = ("index", "seat", "action", "forced", "classification", "win_before", "win_after", "best_action", "best_win", "win_loss", "gold_after", "best_gold", "gold_loss", "accuracy", "best_line", "line", "explanation", "iterations", "reused_visits", "exact")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    WIN_BEFORE_FIELD_NUMBER: _ClassVar[int]
    WIN_AFTER_FIELD_NUMBER: _ClassVar[int]
    BEST_ACTION_FIELD_NUMBER: _ClassVar[int]
    BEST_WIN_FIELD_NUMBER: _ClassVar[int]
    WIN_LOSS_FIELD_NUMBER: _ClassVar[int]
    GOLD_AFTER_FIELD_NUMBER: _ClassVar[int]
    BEST_GOLD_FIELD_NUMBER: _ClassVar[int]
    GOLD_LOSS_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    BEST_LINE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    REUSED_VISITS_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    index: int
    seat: int
    action: Action
    forced: bool
    classification: DecisionClass
    win_before: float
    win_after: float
    best_action: Action
    best_win: float
    win_loss: float
    gold_after: float
    best_gold: float
    gold_loss: float
    accuracy: float
    best_line: _containers.RepeatedCompositeFieldContainer[Action]
    line: _containers.RepeatedCompositeFieldContainer[Action]
    explanation: Explanation
    iterations: int
    reused_visits: int
    exact: bool
    def __init__(self, index: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., forced: _Optional[bool] = ..., classification: _Optional[_Union[DecisionClass, str]] = ..., win_before: _Optional[float] = ..., win_after: _Optional[float] = ..., best_action: _Optional[_Union[Action, _Mapping]] = ..., best_win: _Optional[float] = ..., win_loss: _Optional[float] = ..., gold_after: _Optional[float] = ..., best_gold: _Optional[float] = ..., gold_loss: _Optional[float] = ..., accuracy: _Optional[float] = ..., best_line: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., line: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., explanation: _Optional[_Union[Explanation, _Mapping]] = ..., iterations: _Optional[int] = ..., reused_visits: _Optional[int] = ..., exact: _Optional[bool] = ...) -> None: ...

class SeatReview(_message.Message):
    __slots__ = ("seat", "decisions", "forced", "accuracy", "mean_win_loss", "mean_gold_loss", "best", "good", "inaccuracies", "mistakes", "blunders")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    MEAN_WIN_LOSS_FIELD_NUMBER: _ClassVar[int]
    MEAN_GOLD_LOSS_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    GOOD_FIELD_NUMBER: _ClassVar[int]
    INACCURACIES_FIELD_NUMBER: _ClassVar[int]
    MISTAKES_FIELD_NUMBER: _ClassVar[int]
    BLUNDERS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    decisions: int
    forced: int
    accuracy: float
    mean_win_loss: float
    mean_gold_loss: float
    best: int
    good: int
    inaccuracies: int
    mistakes: int
    blunders: int
    def __init__(self, seat: _Optional[int] = ..., decisions: _Optional[int] = ..., forced: _Optional[int] = ..., accuracy: _Optional[float] = ..., mean_win_loss: _Optional[float] = ..., mean_gold_loss: _Optional[float] = ..., best: _Optional[int] = ..., good: _Optional[int] = ..., inaccuracies: _Optional[int] = ..., mistakes: _Optional[int] = ..., blunders: _Optional[int] = ...) -> None: ...

class ReviewSummary(_message.Message):
    __slots__ = ("seats", "iterations")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatReview]
    iterations: int
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatReview, _Mapping]]] = ..., iterations: _Optional[int] = ...) -> None: ...

class ReviewGameResponse(_message.Message):
    __slots__ = ("decision", "summary", "sequence", "decisions")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    decision: DecisionReview
    summary: ReviewSummary
    sequence: int
    decisions: int
    def __init__(self, decision: _Optional[_Union[DecisionReview, _Mapping]] = ..., summary: _Optional[_Union[ReviewSummary, _Mapping]] = ..., sequence: _Optional[int] = ..., decisions: _Optional[int] = ...) -> None: ...

class GetPuzzleRequest(_message.Message):
    __slots__ = ("theme", "min_rating", "max_rating", "players", "exclude", "seed")
    THEME_FIELD_NUMBER: _ClassVar[int]
    MIN_RATING_FIELD_NUMBER: _ClassVar[int]
    MAX_RATING_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    theme: str
    min_rating: int
    max_rating: int
    players: int
    exclude: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    def __init__(self, theme: _Optional[str] = ..., min_rating: _Optional[int] = ..., max_rating: _Optional[int] = ..., players: _Optional[int] = ..., exclude: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ...) -> None: ...

class GetPuzzleResponse(_message.Message):
    __slots__ = ("puzzle", "matching", "themes")
    PUZZLE_FIELD_NUMBER: _ClassVar[int]
    MATCHING_FIELD_NUMBER: _ClassVar[int]
    THEMES_FIELD_NUMBER: _ClassVar[int]
    puzzle: Puzzle
    matching: int
    themes: _containers.RepeatedCompositeFieldContainer[PuzzleTheme]
    def __init__(self, puzzle: _Optional[_Union[Puzzle, _Mapping]] = ..., matching: _Optional[int] = ..., themes: _Optional[_Iterable[_Union[PuzzleTheme, _Mapping]]] = ...) -> None: ...

class Puzzle(_message.Message):
    __slots__ = ("id", "players", "seat", "position", "themes", "rating")
    ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    THEMES_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    id: str
    players: int
    seat: int
    position: Position
    themes: _containers.RepeatedScalarFieldContainer[str]
    rating: int
    def __init__(self, id: _Optional[str] = ..., players: _Optional[int] = ..., seat: _Optional[int] = ..., position: _Optional[_Union[Position, _Mapping]] = ..., themes: _Optional[_Iterable[str]] = ..., rating: _Optional[int] = ...) -> None: ...

class PuzzleTheme(_message.Message):
    __slots__ = ("name", "puzzles")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PUZZLES_FIELD_NUMBER: _ClassVar[int]
    name: str
    puzzles: int
    def __init__(self, name: _Optional[str] = ..., puzzles: _Optional[int] = ...) -> None: ...

class CheckPuzzleRequest(_message.Message):
    __slots__ = ("puzzle_id", "action")
    PUZZLE_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    puzzle_id: str
    action: Action
    def __init__(self, puzzle_id: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class CheckPuzzleResponse(_message.Message):
    __slots__ = ("correct", "solutions", "sentence", "gap", "exact", "rating")
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    SOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    SENTENCE_FIELD_NUMBER: _ClassVar[int]
    GAP_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    correct: bool
    solutions: _containers.RepeatedCompositeFieldContainer[Action]
    sentence: str
    gap: float
    exact: bool
    rating: int
    def __init__(self, correct: _Optional[bool] = ..., solutions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., sentence: _Optional[str] = ..., gap: _Optional[float] = ..., exact: _Optional[bool] = ..., rating: _Optional[int] = ...) -> None: ...

class PlacedWorker(_message.Message):
    __slots__ = ("tile", "seat", "rotation", "covers")
    TILE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    COVERS_FIELD_NUMBER: _ClassVar[int]
    tile: WorkerTile
    seat: int
    rotation: int
    covers: CoveredWorker
    def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ..., seat: _Optional[int] = ..., rotation: _Optional[int] = ..., covers: _Optional[_Union[CoveredWorker, _Mapping]] = ...) -> None: ...

class CoveredWorker(_message.Message):
    __slots__ = ("tile", "rotation")
    TILE_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    tile: WorkerTile
    rotation: int
    def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ..., rotation: _Optional[int] = ...) -> None: ...

class BoardTile(_message.Message):
    __slots__ = ("x", "y", "jungle", "worker")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    jungle: JungleTile
    worker: PlacedWorker
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., jungle: _Optional[_Union[JungleTile, str]] = ..., worker: _Optional[_Union[PlacedWorker, _Mapping]] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("gold", "cacao", "sun", "water", "hand", "hand_count", "pile", "pile_count", "discarded")
    GOLD_FIELD_NUMBER: _ClassVar[int]
    CACAO_FIELD_NUMBER: _ClassVar[int]
    SUN_FIELD_NUMBER: _ClassVar[int]
    WATER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNT_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    PILE_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    gold: int
    cacao: int
    sun: int
    water: int
    hand: _containers.RepeatedScalarFieldContainer[WorkerTile]
    hand_count: int
    pile: _containers.RepeatedScalarFieldContainer[WorkerTile]
    pile_count: int
    discarded: _containers.RepeatedScalarFieldContainer[WorkerTile]
    def __init__(self, gold: _Optional[int] = ..., cacao: _Optional[int] = ..., sun: _Optional[int] = ..., water: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[WorkerTile, str]]] = ..., hand_count: _Optional[int] = ..., pile: _Optional[_Iterable[_Union[WorkerTile, str]]] = ..., pile_count: _Optional[int] = ..., discarded: _Optional[_Iterable[_Union[WorkerTile, str]]] = ...) -> None: ...

class ResolutionResult(_message.Message):
    __slots__ = ("gold", "cacao")
    GOLD_FIELD_NUMBER: _ClassVar[int]
    CACAO_FIELD_NUMBER: _ClassVar[int]
    gold: int
    cacao: int
    def __init__(self, gold: _Optional[int] = ..., cacao: _Optional[int] = ...) -> None: ...

class PendingResolution(_message.Message):
    __slots__ = ("seat", "results")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    results: _containers.RepeatedCompositeFieldContainer[ResolutionResult]
    def __init__(self, seat: _Optional[int] = ..., results: _Optional[_Iterable[_Union[ResolutionResult, _Mapping]]] = ...) -> None: ...

class Position(_message.Message):
    __slots__ = ("players", "first_player", "turn", "mover", "phase", "to_act", "board", "display", "jungle_deck", "jungle_deck_count", "seats", "pending", "view")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    MOVER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_DECK_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    players: int
    first_player: int
    turn: int
    mover: int
    phase: Phase
    to_act: int
    board: _containers.RepeatedCompositeFieldContainer[BoardTile]
    display: _containers.RepeatedScalarFieldContainer[JungleTile]
    jungle_deck: _containers.RepeatedScalarFieldContainer[JungleTile]
    jungle_deck_count: int
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    pending: _containers.RepeatedCompositeFieldContainer[PendingResolution]
    view: int
    def __init__(self, players: _Optional[int] = ..., first_player: _Optional[int] = ..., turn: _Optional[int] = ..., mover: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., board: _Optional[_Iterable[_Union[BoardTile, _Mapping]]] = ..., display: _Optional[_Iterable[_Union[JungleTile, str]]] = ..., jungle_deck: _Optional[_Iterable[_Union[JungleTile, str]]] = ..., jungle_deck_count: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[PendingResolution, _Mapping]]] = ..., view: _Optional[int] = ...) -> None: ...

class Fill(_message.Message):
    __slots__ = ("x", "y", "tile")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    x: int
    y: int
    tile: JungleTile
    def __init__(self, x: _Optional[int] = ..., y: _Optional[int] = ..., tile: _Optional[_Union[JungleTile, str]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("seat", "place", "overbuild", "discard", "resolve")
    class Place(_message.Message):
        __slots__ = ("tile", "x", "y", "rotation", "fills")
        TILE_FIELD_NUMBER: _ClassVar[int]
        X_FIELD_NUMBER: _ClassVar[int]
        Y_FIELD_NUMBER: _ClassVar[int]
        ROTATION_FIELD_NUMBER: _ClassVar[int]
        FILLS_FIELD_NUMBER: _ClassVar[int]
        tile: WorkerTile
        x: int
        y: int
        rotation: int
        fills: _containers.RepeatedCompositeFieldContainer[Fill]
        def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., rotation: _Optional[int] = ..., fills: _Optional[_Iterable[_Union[Fill, _Mapping]]] = ...) -> None: ...
    class Overbuild(_message.Message):
        __slots__ = ("tile", "x", "y", "rotation")
        TILE_FIELD_NUMBER: _ClassVar[int]
        X_FIELD_NUMBER: _ClassVar[int]
        Y_FIELD_NUMBER: _ClassVar[int]
        ROTATION_FIELD_NUMBER: _ClassVar[int]
        tile: WorkerTile
        x: int
        y: int
        rotation: int
        def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ..., x: _Optional[int] = ..., y: _Optional[int] = ..., rotation: _Optional[int] = ...) -> None: ...
    class Discard(_message.Message):
        __slots__ = ("tile",)
        TILE_FIELD_NUMBER: _ClassVar[int]
        tile: WorkerTile
        def __init__(self, tile: _Optional[_Union[WorkerTile, str]] = ...) -> None: ...
    class Resolve(_message.Message):
        __slots__ = ("gold", "cacao")
        GOLD_FIELD_NUMBER: _ClassVar[int]
        CACAO_FIELD_NUMBER: _ClassVar[int]
        gold: int
        cacao: int
        def __init__(self, gold: _Optional[int] = ..., cacao: _Optional[int] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    OVERBUILD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    place: Action.Place
    overbuild: Action.Overbuild
    discard: Action.Discard
    resolve: Action.Resolve
    def __init__(self, seat: _Optional[int] = ..., place: _Optional[_Union[Action.Place, _Mapping]] = ..., overbuild: _Optional[_Union[Action.Overbuild, _Mapping]] = ..., discard: _Optional[_Union[Action.Discard, _Mapping]] = ..., resolve: _Optional[_Union[Action.Resolve, _Mapping]] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "gold", "cacao")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    CACAO_FIELD_NUMBER: _ClassVar[int]
    seat: int
    gold: int
    cacao: int
    def __init__(self, seat: _Optional[int] = ..., gold: _Optional[int] = ..., cacao: _Optional[int] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("seats", "winners")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...

class WorkerPile(_message.Message):
    __slots__ = ("tiles",)
    TILES_FIELD_NUMBER: _ClassVar[int]
    tiles: _containers.RepeatedScalarFieldContainer[WorkerTile]
    def __init__(self, tiles: _Optional[_Iterable[_Union[WorkerTile, str]]] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("players", "first_player", "worker_piles", "jungle_deck", "actions", "result")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    WORKER_PILES_FIELD_NUMBER: _ClassVar[int]
    JUNGLE_DECK_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    players: int
    first_player: int
    worker_piles: _containers.RepeatedCompositeFieldContainer[WorkerPile]
    jungle_deck: _containers.RepeatedScalarFieldContainer[JungleTile]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    result: GameResult
    def __init__(self, players: _Optional[int] = ..., first_player: _Optional[int] = ..., worker_piles: _Optional[_Iterable[_Union[WorkerPile, _Mapping]]] = ..., jungle_deck: _Optional[_Iterable[_Union[JungleTile, str]]] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...
