"""Game records in the cacao-record/1 format (RECORD.md): check and replay."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable, Mapping

from .actions import JUNGLE_TILES, WORKER_TILES, Action, ActionFormatError
from .errors import CacaoError, RecordError

RECORD_FORMAT = "cacao-record/1"
RECORD_FIELDS = ("format", "players", "first_player", "worker_piles", "jungle_deck", "actions", "result")

# worker tiles per seat (RULES.md), in WORKER_TILES order
WORKERS_PER_SEAT = {2: (4, 5, 1, 1), 3: (3, 5, 1, 1), 4: (3, 4, 1, 1)}
# the jungle deck after the start tiles (and with 2 players the 7 box tiles) are out
JUNGLE_DECK = {
    2: (3, 2, 1, 3, 1, 1, 1, 2, 1, 4),
    3: (5, 2, 1, 4, 1, 2, 1, 3, 2, 5),
    4: (5, 2, 1, 4, 1, 2, 1, 3, 2, 5),
}


def load_json(text: str | bytes, error: Callable[[str], Exception]) -> Any:
    """Parse JSON text; anything unparsable (bad syntax or encoding, nesting too
    deep, an integer too long to convert) raises ``error(reason)``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise error("not valid JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digit limit
        raise error(f"not valid JSON: {str(exc)[:200]}") from None


def seat_tiles(players: int) -> Counter[str]:
    """The multiset of worker tiles each seat starts with."""
    return Counter({t: n for t, n in zip(WORKER_TILES, WORKERS_PER_SEAT[players])})


def deck_tiles(players: int) -> Counter[str]:
    """The multiset of the jungle deck at the start (display included)."""
    return Counter({t: n for t, n in zip(JUNGLE_TILES, JUNGLE_DECK[players])})


def multiset_problem(got: list[Any], want: Counter[str]) -> str | None:
    """Why `got` is not exactly the multiset `want`, or None."""
    if not isinstance(got, list):
        return "must be a list"
    unknown = [t for t in got if not isinstance(t, str) or t not in want]
    if unknown:
        return f"unknown or misplaced tile {unknown[0]!r}"
    have = Counter(got)
    if have != want:
        extra = have - want
        missing = want - have
        parts = []
        if extra:
            parts.append("too many " + ", ".join(f"{t} (+{n})" for t, n in sorted(extra.items())))
        if missing:
            parts.append("missing " + ", ".join(f"{t} (-{n})" for t, n in sorted(missing.items())))
        return "wrong tiles: " + "; ".join(parts)
    return None


def check_deal(header: Mapping[str, Any]) -> None:
    """Check players, first_player, worker_piles and jungle_deck. Raises RecordError(-1, ...)."""
    players = header.get("players")
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise RecordError(-1, f"players: must be 2, 3 or 4, got {players!r}")
    first = header.get("first_player")
    if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
        raise RecordError(-1, f"first_player: must be a seat in 0..{players - 1}, got {first!r}")
    piles = header.get("worker_piles")
    if not isinstance(piles, list) or len(piles) != players:
        raise RecordError(-1, f"worker_piles: must be a list of {players} piles")
    for s, pile in enumerate(piles):
        problem = multiset_problem(pile, seat_tiles(players))
        if problem:
            raise RecordError(-1, f"worker_piles[{s}]: {problem}")
    problem = multiset_problem(header.get("jungle_deck"), deck_tiles(players))
    if problem:
        raise RecordError(-1, f"jungle_deck: {problem}")


def parse_record(record: Mapping[str, Any] | str) -> dict[str, Any]:
    """JSON text or dict -> dict with a checked header and an action list."""
    if isinstance(record, (str, bytes)):
        record = load_json(record, lambda why: RecordError(-1, why))
    if not isinstance(record, Mapping):
        raise RecordError(-1, "a record must be a JSON object")
    for key in record:
        if key not in RECORD_FIELDS:
            raise RecordError(-1, f"{key}: unknown field")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(-1, f"format: must be {RECORD_FORMAT!r}, got {record.get('format')!r}")
    for key in ("players", "first_player", "worker_piles", "jungle_deck", "actions"):
        if key not in record:
            raise RecordError(-1, f"{key}: missing")
    check_deal(record)
    if not isinstance(record["actions"], list):
        raise RecordError(-1, "actions: must be a list")
    return dict(record)


def replay(record: Mapping[str, Any] | str, upto: int | None = None):
    """Replay a record to its end (or its first `upto` actions), checking every
    action and, for a full replay, the written result. Returns the Position."""
    from .position import Position

    data = parse_record(record)
    actions = data["actions"]
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= len(actions)):
        raise RecordError(-1, f"at: must be in 0..{len(actions)}, got {upto!r}")
    position = Position.from_deal(data["players"], data["first_player"], data["worker_piles"], data["jungle_deck"])
    for index, raw in enumerate(actions[:upto] if upto is not None else actions):
        try:
            position.apply(Action.from_json(raw))
        except CacaoError as exc:
            raise RecordError(index, str(exc)) from None
    if upto is None and "result" in data:
        check_result(data["result"], position, len(actions))
    return position


def check_result(written: Any, position, index: int) -> None:
    """A written result must be what the replay reached."""
    result = position.result()
    if result is None:
        raise RecordError(index, "result: the record has a result but the game is not over")
    if not isinstance(written, Mapping) or set(written) != {"gold", "cacao", "winners"}:
        raise RecordError(index, "result: must be an object with exactly gold, cacao and winners")
    if dict(written) != result.to_json():
        raise RecordError(index, f"result: the record says {json.dumps(written)} but the replay gives {json.dumps(result.to_json())}")
