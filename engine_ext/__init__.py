"""The rules of Cacao (docs/rules.md) for 2-4 players, compiled with Cython.

    >>> from cacaoai.engine import Position
    >>> pos = Position.new(players=2, seed=7)
    >>> action = pos.legal_actions()[0]
    >>> report = pos.apply(action)

Public API: Position (with its Result, Report, Score and Temple values),
Action, Fill, the errors, the record and snapshot helpers, the rules' facts
(``cacaoai.engine.rules``, the most used also here), derive_seed, and the
names of the features a learned evaluation reads (``cacaoai.engine.features``). The
C-level API for searches is ``cacaoai.engine.core`` (core.pxd).
"""

from . import features, rules
from .actions import Action, ActionFormatError, Fill
from .errors import CacaoError, IllegalActionError, RecordError, SnapshotError
from .features import ACTION_FEATURES, FEATURES_VERSION, N_ACTION_FEATURES, N_FEATURES, POSITION_FEATURES
from .position import Position, Report, Result, Score, Temple, position_hash, replay
from .records import RECORD_FORMAT, parse_record, record_text
from .rules import (
    DIRECTIONS,
    JUNGLE_COUNTS,
    JUNGLE_TILES,
    MAX_CACAO,
    MAX_SUN,
    SEAT_COLOURS,
    START_TILES,
    TEMPLE_AWARDS,
    WATER_TRACK,
    WORKER_COUNTS,
    WORKER_TILES,
    faces,
)
from .seeds import derive_seed
from .snapshot import SNAPSHOT_FORMAT

ENGINE_VERSION = "0.1.0"
RULES_VERSION = "cacao-rules/2015-base"

__all__ = [
    "ACTION_FEATURES",
    "DIRECTIONS",
    "ENGINE_VERSION",
    "FEATURES_VERSION",
    "JUNGLE_COUNTS",
    "JUNGLE_TILES",
    "MAX_CACAO",
    "MAX_SUN",
    "N_ACTION_FEATURES",
    "N_FEATURES",
    "POSITION_FEATURES",
    "RECORD_FORMAT",
    "RULES_VERSION",
    "SEAT_COLOURS",
    "SNAPSHOT_FORMAT",
    "START_TILES",
    "TEMPLE_AWARDS",
    "WATER_TRACK",
    "WORKER_COUNTS",
    "WORKER_TILES",
    "Action",
    "ActionFormatError",
    "CacaoError",
    "Fill",
    "IllegalActionError",
    "Position",
    "RecordError",
    "Report",
    "Result",
    "Score",
    "SnapshotError",
    "Temple",
    "derive_seed",
    "faces",
    "features",
    "parse_record",
    "position_hash",
    "record_text",
    "replay",
    "rules",
]
