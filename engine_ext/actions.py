"""Actions in the docs/record-format.md form.

An :class:`Action` is a small immutable value that round-trips exactly through
its JSON form (``Action.from_json(a.to_json()) == a``). Two actions are equal
exactly when their canonical forms are equal, so they can key dicts and sets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import CacaoError
from .formats import int_problem
from .rules import JUNGLE_KIND, WORKER_TILES, WORKER_TYPE

ACTION_TYPES = ("place", "overbuild", "discard", "resolve")
_FIELDS = {
    "place": ("type", "seat", "tile", "x", "y", "rot", "fills"),
    "overbuild": ("type", "seat", "tile", "x", "y", "rot"),
    "discard": ("type", "seat", "tile"),
    "resolve": ("type", "seat", "gold", "cacao"),
}


class ActionFormatError(CacaoError):
    """An action that is not well-formed (independent of any position)."""


@dataclass(frozen=True, order=True)
class Fill:
    """A cell that receives a display tile during a placement."""

    x: int
    y: int
    tile: str

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "tile": self.tile}


@dataclass(frozen=True)
class Action:
    """One decision: ``place``, ``overbuild``, ``discard`` or ``resolve``.

    Fields that the type does not use are None (``fills`` is empty)."""

    type: str
    seat: int
    tile: str | None = None
    x: int | None = None
    y: int | None = None
    rot: int | None = None
    fills: tuple[Fill, ...] = ()
    gold: int | None = None
    cacao: int | None = None

    @classmethod
    def place(cls, seat: int, tile: str, x: int, y: int, rot: int = 0,
              fills: tuple[Fill, ...] | list[Fill] = ()) -> Action:
        return cls("place", seat, tile, x, y, rot, tuple(sorted(fills)))

    @classmethod
    def overbuild(cls, seat: int, tile: str, x: int, y: int, rot: int = 0) -> Action:
        return cls("overbuild", seat, tile, x, y, rot)

    @classmethod
    def discard(cls, seat: int, tile: str) -> Action:
        return cls("discard", seat, tile)

    @classmethod
    def resolve(cls, seat: int, gold: int, cacao: int) -> Action:
        return cls("resolve", seat, gold=gold, cacao=cacao)

    def to_json(self) -> dict[str, Any]:
        """The docs/record-format.md form, keys in the order docs/record-format.md writes them."""
        out: dict[str, Any] = {"type": self.type, "seat": self.seat}
        if self.type == "resolve":
            out["gold"] = self.gold
            out["cacao"] = self.cacao
            return out
        out["tile"] = self.tile
        if self.type == "discard":
            return out
        out.update(x=self.x, y=self.y, rot=self.rot)
        if self.type == "place":
            out["fills"] = [f.to_json() for f in self.fills]
        return out

    def canonical(self) -> str:
        """Sorted-key compact JSON, as the conformance vectors hash it."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse the docs/record-format.md form. Raises ActionFormatError naming the field."""
        if not isinstance(data, Mapping):
            raise ActionFormatError("action must be a JSON object")
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise ActionFormatError(f"type: must be one of {', '.join(ACTION_TYPES)}, got {kind!r}")
        allowed = _FIELDS[kind]
        for key in data:
            if key not in allowed:
                raise ActionFormatError(f"{key}: unknown field for a {kind} action")
        for key in allowed:
            if key not in data:
                raise ActionFormatError(f"{key}: missing from a {kind} action")
        seat = _int(data, "seat", 0, 3)
        if kind == "resolve":
            return cls.resolve(seat, _int(data, "gold", 0, 255), _int(data, "cacao", 0, 5))
        tile = data["tile"]
        if not isinstance(tile, str) or tile not in WORKER_TYPE:
            raise ActionFormatError(f"tile: must be a worker tile ({', '.join(WORKER_TILES)}), got {tile!r}")
        if kind == "discard":
            return cls.discard(seat, tile)
        x, y, rot = _int(data, "x"), _int(data, "y"), _int(data, "rot", 0, 3)
        if kind == "overbuild":
            return cls.overbuild(seat, tile, x, y, rot)
        fills = data["fills"]
        if not isinstance(fills, list):
            raise ActionFormatError("fills: must be a list")
        parsed = []
        for i, f in enumerate(fills):
            if not isinstance(f, Mapping) or set(f) != {"x", "y", "tile"}:
                raise ActionFormatError(f"fills[{i}]: must be an object with exactly x, y and tile")
            if not isinstance(f["tile"], str) or f["tile"] not in JUNGLE_KIND:
                raise ActionFormatError(f"fills[{i}].tile: not a jungle tile: {f['tile']!r}")
            parsed.append(Fill(_int(f, "x", field=f"fills[{i}].x"), _int(f, "y", field=f"fills[{i}].y"), f["tile"]))
        return cls.place(seat, tile, x, y, rot, parsed)

    def __str__(self) -> str:
        if self.type == "resolve":
            return f"seat {self.seat} resolve: +{self.gold} gold, keep {self.cacao} cacao"
        if self.type == "discard":
            return f"seat {self.seat} discard {self.tile}"
        text = f"seat {self.seat} {self.type} {self.tile} at ({self.x},{self.y}) rot {self.rot}"
        for f in self.fills:
            text += f", {f.tile} to ({f.x},{f.y})"
        return text


_new = object.__new__


def trusted_fill(x: int, y: int, tile: str) -> Fill:
    """A Fill from fields known good (the engine's own decoding): the same
    value as ``Fill(x, y, tile)``, built without the dataclass's checks."""
    fill = _new(Fill)
    fill.__dict__.update(x=x, y=y, tile=tile)
    return fill


def trusted_action(type: str, seat: int, tile: str | None = None, x: int | None = None,
                   y: int | None = None, rot: int | None = None, fills: tuple[Fill, ...] = (),
                   gold: int | None = None, cacao: int | None = None) -> Action:
    """An Action from fields known good, ``fills`` already sorted (the
    engine's own decoding, on the hot path of every legal-action list): the
    same value as ``Action(...)``, built about five times faster."""
    action = _new(Action)
    action.__dict__.update(type=type, seat=seat, tile=tile, x=x, y=y, rot=rot, fills=fills,
                           gold=gold, cacao=cacao)
    return action


def _int(data: Mapping[str, Any], key: str, lo: int | None = None, hi: int | None = None,
         field: str | None = None) -> int:
    value = data[key]
    name = field or key
    problem = int_problem(value, lo, hi)
    if problem:
        raise ActionFormatError(f"{name}: {problem}")
    return value
