"""What the record and snapshot formats share: phase names, JSON parsing and
a board tile's JSON form.

It sits below position.py, records.py and snapshot.py, so that each of them
imports the others in one direction only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .rules import JUNGLE_TILES, WORKER_TILES

# phase names, in the core's phase order (a position's ``phase`` is an index here)
PHASES = ("turn", "resolve", "over")


def load_json(text: str | bytes, error: Callable[[str], Exception]) -> Any:
    """Parse JSON text; anything unparsable (bad syntax or encoding, nesting too
    deep, an integer too long to convert) raises ``error(reason)``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise error("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digit limit
        raise error(f"not valid JSON: {str(exc)[:200]}") from None


def int_problem(value: Any, lo: int | None = None, hi: int | None = None) -> str | None:
    """Why `value` (any JSON value) is not an integer in lo..hi, or None when it
    is one. A JSON integer only: ``3.0``, ``true`` and ``"3"`` are refused, so a
    document the engine accepts writes back exactly as it was read."""
    if type(value) is not int:
        return f"must be an integer, got {value!r}"
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return f"must be in {lo}..{hi}, got {value}"
    return None


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON text (``5.0`` is not ``5``, ``false`` not ``0``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def tile_json(x: int, y: int, b: int, covered: Mapping[tuple[int, int], int]) -> dict[str, Any]:
    """The board tile with grid byte `b` at (x, y) in snapshot form; `covered`
    maps overbuilt cells to the worker byte underneath."""
    if b < 0x80:
        return {"x": x, "y": y, "tile": JUNGLE_TILES[b - 1]}
    tile: dict[str, Any] = {"x": x, "y": y, "tile": WORKER_TILES[(b >> 2) & 3],
                            "seat": (b >> 4) & 3, "rot": b & 3}
    under = covered.get((x, y))
    if under is not None:
        tile["covers"] = {"tile": WORKER_TILES[(under >> 2) & 3], "rot": under & 3}
    return tile
