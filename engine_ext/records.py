"""Game records in the cacao-record/1 format (docs/record-format.md): their header, their
result, and the checks of both. Replaying a record is ``position.replay``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import RecordError
from .formats import int_problem, load_json, same_json
from .rules import deck_tiles, seat_tiles

RECORD_FORMAT = "cacao-record/1"
RECORD_FIELDS = ("format", "players", "first_player", "worker_piles", "jungle_deck", "actions", "result")


@dataclass(frozen=True)
class Result:
    """Final gold (after temples, sun tokens and water) and cacao per seat, and
    the winning seats (more than one for a shared win): a record's ``result``."""

    gold: list[int]
    cacao: list[int]
    winners: list[int]

    def to_json(self) -> dict[str, list[int]]:
        return {"gold": list(self.gold), "cacao": list(self.cacao), "winners": list(self.winners)}


def record_text(record: Mapping[str, Any]) -> str:
    """A record as cacao-record/1 text, the form to save: its fields in the
    format's order, one action a line, keys sorted; ``json.loads`` reads it back."""
    lines = ["{"]
    fields = [k for k in RECORD_FIELDS if k in record]
    for i, key in enumerate(fields):
        end = "," if i < len(fields) - 1 else ""
        if key == "actions" and record[key]:
            actions = [json.dumps(a, sort_keys=True, separators=(", ", ": ")) for a in record[key]]
            lines.append(' "actions": [\n  ' + ",\n  ".join(actions) + f"\n ]{end}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(record[key], sort_keys=True)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


class Played(Protocol):
    """What check_result needs of a replayed game (a Position)."""

    def result(self) -> Result | None: ...


def multiset_problem(got: Any, want: Counter[str]) -> str | None:
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
    if type(players) is not int or players not in (2, 3, 4):
        raise RecordError(-1, f"players: must be 2, 3 or 4, got {players!r}")
    first = header.get("first_player")
    if int_problem(first, 0, players - 1):
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


def check_result(written: Any, position: Played, index: int) -> None:
    """A written result must be what the replay of `index` actions reached.
    Raises RecordError(index, ...)."""
    result = position.result()
    if result is None:
        raise RecordError(index, "result: the record has a result but the game is not over")
    if not isinstance(written, Mapping) or set(written) != {"gold", "cacao", "winners"}:
        raise RecordError(index, "result: must be an object with exactly gold, cacao and winners")
    if not same_json(dict(written), result.to_json()):
        raise RecordError(index, f"result: the record says {json.dumps(written)} but the replay gives "
                                 f"{json.dumps(result.to_json())}")
