"""The rules of Cacao (RULES.md) for 2-4 players, compiled with Cython.

    >>> from cacaoai.engine import Position
    >>> pos = Position.new(players=2, seed=7)
    >>> action = pos.legal_actions()[0]
    >>> report = pos.apply(action)

Public API: Position, Action, Fill, Result, Report, the errors, and the record
and snapshot helpers. The C-level API for searches is ``cacaoai.engine.core``
(core.pxd).
"""

from .actions import Action, ActionFormatError, Fill
from .errors import CacaoError, IllegalActionError, RecordError, SnapshotError
from .position import Position, Report, Result, position_hash, replay
from .records import RECORD_FORMAT, parse_record
from .rules import DIRECTIONS, JUNGLE_TILES, WORKER_TILES
from .snapshot import SNAPSHOT_FORMAT

ENGINE_VERSION = "0.1.0"
RULES_VERSION = "cacao-rules/2015-base"

__all__ = [
    "Action", "ActionFormatError", "CacaoError", "DIRECTIONS", "ENGINE_VERSION", "Fill",
    "IllegalActionError", "JUNGLE_TILES", "Position", "RECORD_FORMAT", "RULES_VERSION",
    "RecordError", "Report", "Result", "SNAPSHOT_FORMAT", "SnapshotError", "WORKER_TILES",
    "parse_record", "position_hash", "replay",
]
