"""Conversions between the cacao.v1 messages and the engine's JSON forms.

The engine speaks the project's JSON forms (docs/record-format.md actions, the
``cacao-position/1`` snapshot, the ``cacao-record/1`` record); the API speaks
protobuf messages that mirror them field by field. Converting a request
message checks what only the message can get wrong (unset enums and oneofs,
rotations out of range, a half-given hand) and names the field at fault with
its proto path, such as ``position.seats[1].hand``; everything else (an
impossible position, an illegal action) is the engine's to judge.

A malformed message raises :class:`ConversionError`, which knows nothing of
gRPC status codes: the server turns it into INVALID_ARGUMENT with the same
field violations, a client into its own error. This module sits next to the
generated API so that clients and server share it without either importing
the other (nor the search).

Thread-safety: pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from google.protobuf import duration_pb2

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import Action, Position, rules
from cacaoai.engine.actions import trusted_action, trusted_fill
from cacaoai.search.explain import Explanation, Part, TempleChange
from cacaoai.search.forecast import PARTS as FORECAST_PARTS
from cacaoai.search.forecast import Forecast, PartForecast, SeatForecast, TempleForecast
from cacaoai.search.limits import MAX_THREADS, Limit
from cacaoai.search.results import Candidate, RootInfo, SearchResult
from cacaoai.search.review import CLASSES, FORCED, DecisionReview, ReviewSummary, SeatReview

POSITION_FORMAT = "cacao-position/1"
RECORD_FORMAT = "cacao-record/1"

# the enum of each tile name the engine knows: WORKER_TILE_2101, JUNGLE_TILE_MARKET_3
WORKER_TILES = {name: pb.WorkerTile.Value(f"WORKER_TILE_{name}") for name in rules.WORKER_TILES}
JUNGLE_TILES = {name: pb.JungleTile.Value("JUNGLE_TILE_" + name.upper().replace("-", "_"))
                for name in rules.JUNGLE_TILES}
PHASES = {"turn": pb.PHASE_TURN, "resolve": pb.PHASE_RESOLVE, "over": pb.PHASE_OVER}
DIRECTIONS = ["N", "E", "S", "W"]
DIRECTION_ENUMS = [pb.DIRECTION_N, pb.DIRECTION_E, pb.DIRECTION_S, pb.DIRECTION_W]

WORKER_NAMES = {v: k for k, v in WORKER_TILES.items()}
JUNGLE_NAMES = {v: k for k, v in JUNGLE_TILES.items()}
PHASE_NAMES = {v: k for k, v in PHASES.items()}


class ConversionError(ValueError):
    """A message that cannot be converted: the fields at fault and why.

    Attributes:
        reason: which kind of message was malformed (INVALID_ACTION, ...).
        violations: (field path, description) pairs, such as
            ``("position.seats[1].hand", "lists 2 tiles but hand_count is 3: ...")``.
    """

    def __init__(self, reason: ErrorReason, violations: list[tuple[str, str]]) -> None:
        self.reason = reason
        self.violations = list(violations)
        shown = "; ".join(f"{f}: {d}" for f, d in self.violations[:3])
        more = f" (and {len(self.violations) - 3} more)" if len(self.violations) > 3 else ""
        super().__init__(shown + more)


class Violations:
    """Collects field violations while a message is converted, then raises them all."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, field_path: str, description: str) -> None:
        self.items.append((field_path, description))

    def raise_if_any(self, reason: ErrorReason) -> None:
        if self.items:
            raise ConversionError(reason, self.items)


# --- names <-> enums -----------------------------------------------------------

def _name(names: dict[int, str], what: str, value: int, path: str, out: Violations) -> str:
    """The docs/record-format.md name of an enum value, or "?" with a violation at `path`."""
    name = names.get(value)
    if name is None:
        out.add(path, _enum_problem(value, what))
        return "?"
    return name


WORKER_WHAT = "worker tile (WORKER_TILE_1111, _2101, _3001, _3100)"
JUNGLE_WHAT = "jungle tile"


def _worker_name(value: int, path: str, out: Violations) -> str:
    return _name(WORKER_NAMES, WORKER_WHAT, value, path, out)


def _jungle_name(value: int, path: str, out: Violations) -> str:
    return _name(JUNGLE_NAMES, JUNGLE_WHAT, value, path, out)


def _names_of(names: dict[int, str], what: str, values: Any, path: str, out: Violations) -> list[str]:
    """The names of a repeated enum field's values (`path`: the field), as
    :func:`_name` gives them one by one (``path[i]``); the field's paths are
    only written when a value is unknown."""
    found = list(map(names.get, values))
    if None in found:
        return [_name(names, what, v, f"{path}[{i}]", out) for i, v in enumerate(values)]
    return found  # type: ignore[return-value]  # no None left


def _enum_problem(value: int, what: str) -> str:
    if value == 0:
        return f"required: a {what}"
    return f"unknown value {value}: not a {what}"


def _rotation(value: int, path: str, out: Violations) -> int:
    if not 0 <= value <= 3:
        out.add(path, f"rotation {value} is out of range 0..3")
    return value


def direction_enum(value: Any) -> int:
    """The Direction enum of an engine direction (0..3 or "N"/"E"/"S"/"W")."""
    if isinstance(value, str):
        value = DIRECTIONS.index(value.upper()[:1])
    return DIRECTION_ENUMS[int(value)]


# --- actions -------------------------------------------------------------------

def action_to_json(action: pb.Action, path: str = "action") -> dict:
    """The docs/record-format.md form of an Action message.

    Raises:
        ConversionError: naming the malformed fields.
    """
    out = Violations()
    result = _action_to_json(action, path, out)
    out.raise_if_any(ErrorReason.INVALID_ACTION)
    return result


def _action_to_json(action: pb.Action, path: str, out: Violations) -> dict:
    kind = action.WhichOneof("kind")
    if action.seat < 0:
        out.add(f"{path}.seat", f"seat {action.seat} is negative")
    if kind is None:
        out.add(path, "one of place, overbuild, discard or resolve is required")
        return {}
    body = getattr(action, kind)
    sub = f"{path}.{kind}"
    result: dict[str, Any] = {"type": kind, "seat": action.seat}
    if kind == "resolve":
        result.update(gold=body.gold, cacao=body.cacao)
        return result
    result["tile"] = _worker_name(body.tile, f"{sub}.tile", out)
    if kind == "discard":
        return result
    result.update(x=body.x, y=body.y, rot=_rotation(body.rotation, f"{sub}.rotation", out))
    if kind == "place":
        fills = []
        for i, fill in enumerate(body.fills):
            tile = _jungle_name(fill.tile, f"{sub}.fills[{i}].tile", out)
            fills.append({"x": fill.x, "y": fill.y, "tile": tile})
        result["fills"] = sorted(fills, key=lambda f: (f["x"], f["y"]))
    return result


def action_from_proto(action: pb.Action, path: str = "action") -> Action:
    """The engine Action of an Action message: the same value as
    ``Action.from_json(action_to_json(action))``, read at once when it is well
    formed (a client reads dozens in every ListLegalActions reply).

    Raises:
        ConversionError: naming the malformed fields.
        ActionFormatError: a value out of its range (a seat above 3, say).
    """
    out = Violations()
    read = _read_action(action, path, out)
    out.raise_if_any(ErrorReason.INVALID_ACTION)
    return _as_action(read)


def _read_action(action: pb.Action, path: str, out: Violations) -> Action | dict:
    """The Action of a well-formed message, else its checked dict (problems
    in `out`), which :func:`_as_action` turns into one once `out` is raised."""
    kind = action.WhichOneof("kind")
    seat = action.seat
    if kind is not None and 0 <= seat <= 3:
        body = getattr(action, kind)
        if kind == "resolve":
            if 0 <= body.gold <= 255 and 0 <= body.cacao <= 5:
                return trusted_action("resolve", seat, gold=body.gold, cacao=body.cacao)
        else:
            tile = WORKER_NAMES.get(body.tile)
            if tile is not None and kind == "discard":
                return trusted_action("discard", seat, tile)
            if tile is not None and 0 <= body.rotation <= 3:
                if kind == "overbuild":
                    return trusted_action("overbuild", seat, tile, body.x, body.y, body.rotation)
                fills = [trusted_fill(f.x, f.y, JUNGLE_NAMES.get(f.tile, "")) for f in body.fills]
                if all(f.tile for f in fills):
                    return trusted_action("place", seat, tile, body.x, body.y, body.rotation,
                                          tuple(sorted(fills)))
    return _action_to_json(action, path, out)


def _as_action(read: Action | dict) -> Action:
    return read if isinstance(read, Action) else Action.from_json(read)


def action_from_json(data: dict) -> pb.Action:
    """The Action message of a docs/record-format.md action (engine output, trusted)."""
    kind = data["type"]
    action = pb.Action(seat=data["seat"])
    body = getattr(action, kind)
    body.SetInParent()
    if kind == "resolve":
        body.gold, body.cacao = data["gold"], data["cacao"]
        return action
    body.tile = WORKER_TILES[data["tile"]]
    if kind == "discard":
        return action
    body.x, body.y, body.rotation = data["x"], data["y"], data.get("rot", 0)
    if kind == "place":
        for fill in data.get("fills", []):
            body.fills.add(x=fill["x"], y=fill["y"], tile=JUNGLE_TILES[fill["tile"]])
    return action


def action_to_proto(action: Action) -> pb.Action:
    """The Action message of an engine action (the same as
    ``action_from_json(action.to_json())``, without the dict in between)."""
    message = pb.Action()
    _set_action(message, action)
    return message


def actions_to_proto(actions: Any, into: Any) -> None:
    """Appends the Action messages of engine actions to a repeated field
    (``into``: e.g. a response's ``actions``), each built in place."""
    add = into.add
    for action in actions:
        _set_action(add(), action)


#: Each legal action as a ListLegalActionsResponse's ``actions`` entry (tag, length,
#: message), by the action's key (Position.legal_keys), at most _LEGAL_BYTES_MAX
#: (then forgotten at once; the GIL makes each look-up and store atomic).
_LEGAL_BYTES: dict[int, bytes] = {}
_LEGAL_BYTES_MAX = 1 << 16
_ACTIONS_TAG = bytes([pb.ListLegalActionsResponse.DESCRIPTOR.fields_by_name["actions"].number << 3 | 2])


def legal_actions_to_proto(position: Position, response: pb.ListLegalActionsResponse) -> None:
    """Appends the legal actions of `position` to ``response.actions``, as
    ``actions_to_proto(position.legal_actions(), response.actions)`` does.

    An action met before is parsed from its kept bytes (runs of them at
    once); one not met before is built in place as actions_to_proto does,
    and its bytes kept. Building ~60 messages field by field cost more than
    the rest of a ListLegalActions call.
    """
    kept = _LEGAL_BYTES
    run: list[bytes] = []
    for key, code in position.legal_keys():
        part = kept.get(key)
        if part is not None:
            run.append(part)
            continue
        if run:
            response.MergeFromString(b"".join(run))
            run = []
        message = response.actions.add()
        _set_action(message, position.decode(code))
        body = message.SerializeToString()
        if len(kept) >= _LEGAL_BYTES_MAX:
            kept.clear()
        kept[key] = _ACTIONS_TAG + _varint(len(body)) + body
    if run:
        response.MergeFromString(b"".join(run))


def _varint(n: int) -> bytes:
    """A non-negative int as a protobuf varint."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _set_action(message: pb.Action, action: Any) -> None:
    # action: an engine Action (Any: its fields of the other kinds are None)
    message.seat = action.seat
    kind = action.type
    if kind == "place":
        body = message.place
        body.tile, body.x, body.y, body.rotation = WORKER_TILES[action.tile], action.x, action.y, action.rot
        if action.fills:
            fills = body.fills
            for fill in action.fills:
                fills.add(x=fill.x, y=fill.y, tile=JUNGLE_TILES[fill.tile])
        else:
            body.SetInParent()
    elif kind == "resolve":
        message.resolve.SetInParent()
        message.resolve.gold, message.resolve.cacao = action.gold, action.cacao
    elif kind == "discard":
        message.discard.SetInParent()
        message.discard.tile = WORKER_TILES[action.tile]
    else:
        body = message.overbuild
        body.SetInParent()
        body.tile, body.x, body.y, body.rotation = WORKER_TILES[action.tile], action.x, action.y, action.rot


def action_key(data: dict) -> str:
    """A canonical string of a docs/record-format.md action, for comparing and grouping."""
    import json

    return json.dumps(data, sort_keys=True, separators=(",", ":"))


# --- positions -----------------------------------------------------------------

def position_to_json(position: pb.Position, path: str = "position") -> dict:
    """The ``cacao-position/1`` dict of a Position message.

    A complete position gives every part; an observation (``view`` set) leaves
    out the jungle deck, the piles and every hidden hand (docs/rules.md
    "Information").

    Raises:
        ConversionError: naming the malformed fields.
    """
    out = Violations()
    observation = position.HasField("view")
    snap: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "players": position.players,
        "first_player": position.first_player,
        "turn": position.turn,
        "mover": position.mover,
        "phase": PHASE_NAMES.get(position.phase, "?"),
        "to_act": position.to_act if position.HasField("to_act") else None,
        "board": [],
        "display": _names_of(JUNGLE_NAMES, JUNGLE_WHAT, position.display, f"{path}.display", out),
        "jungle_deck_count": position.jungle_deck_count,
        "seats": [],
        "pending": [],
    }
    if position.phase not in PHASE_NAMES:
        out.add(f"{path}.phase", _enum_problem(position.phase, "phase (TURN, RESOLVE, OVER)"))
    if not 2 <= position.players <= 4:
        out.add(f"{path}.players", f"{position.players} players: must be 2, 3 or 4")
    elif len(position.seats) != position.players:
        out.add(f"{path}.seats", f"{len(position.seats)} seats for {position.players} players")
    board = snap["board"]
    jungle_names, worker_names = JUNGLE_NAMES.get, WORKER_NAMES.get
    for i, cell in enumerate(position.board):
        # the common tiles at once; anything else (a cover, a problem) field by field
        kind = cell.WhichOneof("tile")
        if kind == "jungle":
            name = jungle_names(cell.jungle)
            if name is not None:
                board.append({"x": cell.x, "y": cell.y, "tile": name})
                continue
        elif kind == "worker":
            worker = cell.worker
            name, rot = worker_names(worker.tile), worker.rotation
            if name is not None and 0 <= rot <= 3 and not worker.HasField("covers"):
                board.append({"x": cell.x, "y": cell.y, "tile": name, "seat": worker.seat, "rot": rot})
                continue
        board.append(_board_tile_to_json(cell, f"{path}.board[{i}]", out))
    if observation:
        snap["view"] = position.view
        if not 0 <= position.view < max(position.players, 1):
            out.add(f"{path}.view", f"seat {position.view} does not exist")
        if position.jungle_deck:
            out.add(f"{path}.jungle_deck", "must be empty in an observation (it is hidden)")
    else:
        snap["jungle_deck"] = _names_of(JUNGLE_NAMES, JUNGLE_WHAT, position.jungle_deck, f"{path}.jungle_deck", out)
    for s, seat in enumerate(position.seats):
        own = not observation or s == position.view
        snap["seats"].append(_seat_to_json(seat, f"{path}.seats[{s}]", observation, own, out))
    for pending in position.pending:
        snap["pending"].append(
            {
                "seat": pending.seat,
                "results": [{"gold": r.gold, "cacao": r.cacao} for r in pending.results],
            }
        )
    out.raise_if_any(ErrorReason.INVALID_POSITION)
    return snap


def _board_tile_to_json(cell: pb.BoardTile, path: str, out: Violations) -> dict:
    kind = cell.WhichOneof("tile")
    entry: dict[str, Any] = {"x": cell.x, "y": cell.y}
    if kind is None:
        out.add(path, "one of jungle or worker is required")
    elif kind == "jungle":
        entry["tile"] = _jungle_name(cell.jungle, f"{path}.jungle", out)
    else:
        worker = cell.worker
        entry["tile"] = _worker_name(worker.tile, f"{path}.worker.tile", out)
        entry["seat"] = worker.seat
        entry["rot"] = _rotation(worker.rotation, f"{path}.worker.rotation", out)
        if worker.HasField("covers"):
            entry["covers"] = {
                "tile": _worker_name(worker.covers.tile, f"{path}.worker.covers.tile", out),
                "rot": _rotation(worker.covers.rotation, f"{path}.worker.covers.rotation", out),
            }
    return entry


def _seat_to_json(seat: pb.Seat, path: str, observation: bool, own: bool, out: Violations) -> dict:
    entry: dict[str, Any] = {
        "gold": seat.gold,
        "cacao": seat.cacao,
        "sun": seat.sun,
        "water": seat.water,
        "hand_count": seat.hand_count,
        "pile_count": seat.pile_count,
        "discarded": _names_of(WORKER_NAMES, WORKER_WHAT, seat.discarded, f"{path}.discarded", out),
    }
    hand = _names_of(WORKER_NAMES, WORKER_WHAT, seat.hand, f"{path}.hand", out)
    if own or len(hand) == seat.hand_count:
        entry["hand"] = hand
    elif hand:
        out.add(
            f"{path}.hand",
            f"lists {len(hand)} tiles but hand_count is {seat.hand_count}: "
            "give the whole hand or none",
        )
    if observation:
        if seat.pile:
            out.add(f"{path}.pile", "must be empty in an observation (it is hidden)")
    else:
        entry["pile"] = _names_of(WORKER_NAMES, WORKER_WHAT, seat.pile, f"{path}.pile", out)
    return entry


def known_hands(position: pb.Position) -> tuple[int, ...]:
    """Seats of an observation whose hands are given in full (the viewer excluded)."""
    if not position.HasField("view"):
        return ()
    return tuple(
        s
        for s, seat in enumerate(position.seats)
        if s != position.view and seat.hand_count > 0 and len(seat.hand) == seat.hand_count
    )


def position_from_json(snap: dict) -> pb.Position:
    """The Position message of a ``cacao-position/1`` dict (engine output, trusted)."""
    position = pb.Position(
        players=snap["players"],
        first_player=snap["first_player"],
        turn=snap["turn"],
        mover=snap["mover"],
        phase=PHASES[snap["phase"]],
        jungle_deck_count=snap["jungle_deck_count"],
    )
    if snap.get("to_act") is not None:
        position.to_act = snap["to_act"]
    if snap.get("view") is not None:
        position.view = snap["view"]
    add = position.board.add
    for entry in snap["board"]:
        _set_board_tile(add(), entry)  # in place: a message made then appended would be copied
    position.display.extend(JUNGLE_TILES[t] for t in snap["display"])
    position.jungle_deck.extend(JUNGLE_TILES[t] for t in snap.get("jungle_deck", ()))
    for seat in snap["seats"]:
        position.seats.add(
            gold=seat["gold"],
            cacao=seat["cacao"],
            sun=seat["sun"],
            water=seat["water"],
            hand=[WORKER_TILES[t] for t in seat.get("hand", ())],
            hand_count=seat["hand_count"],
            pile=[WORKER_TILES[t] for t in seat.get("pile", ())],
            pile_count=seat["pile_count"],
            discarded=[WORKER_TILES[t] for t in seat.get("discarded", ())],
        )
    for pending in snap.get("pending", ()):
        position.pending.add(
            seat=pending["seat"],
            results=[pb.ResolutionResult(gold=r["gold"], cacao=r["cacao"]) for r in pending["results"]],
        )
    return position


def board_tile_from_json(entry: dict) -> pb.BoardTile:
    """The BoardTile message of a snapshot board entry."""
    cell = pb.BoardTile()
    _set_board_tile(cell, entry)
    return cell


def _set_board_tile(cell: pb.BoardTile, entry: dict) -> None:
    """Fills an empty BoardTile message from a snapshot board entry."""
    cell.x, cell.y = entry["x"], entry["y"]
    tile = entry["tile"]
    jungle = JUNGLE_TILES.get(tile)
    if jungle is not None:
        cell.jungle = jungle
        return
    worker = cell.worker
    worker.tile, worker.seat, worker.rotation = WORKER_TILES[tile], entry["seat"], entry.get("rot", 0)
    covers = entry.get("covers")
    if covers:
        worker.covers.tile = WORKER_TILES[covers["tile"]]
        worker.covers.rotation = covers.get("rot", 0)


def set_source(request: Any, source: Position | Mapping[str, Any]) -> None:
    """Sets the ``source`` oneof of a request: an engine Position (sent
    complete) or a ``cacao-position/1`` dict (complete, or an observation)
    as ``position``; a ``cacao-record/1`` dict as ``record``.

    Raises:
        TypeError: a source of another type.
    """
    if isinstance(source, Position):
        request.position.CopyFrom(position_from_json(source.snapshot()))
    elif isinstance(source, Mapping) and (source.get("format") == RECORD_FORMAT
                                          or "worker_piles" in source):
        request.record.CopyFrom(record_from_json(dict(source)))
    elif isinstance(source, Mapping):
        request.position.CopyFrom(position_from_json(dict(source)))
    else:
        raise TypeError(f"a position source must be an engine Position or a dict, "
                        f"not {type(source).__name__}")


# --- records and results -------------------------------------------------------

def record_to_json(record: pb.GameRecord, path: str = "record") -> dict:
    """The ``cacao-record/1`` dict of a GameRecord message.

    Raises:
        ConversionError: naming the malformed fields.
    """
    out = Violations()
    data: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": record.players,
        "first_player": record.first_player,
        "worker_piles": [
            [_worker_name(t, f"{path}.worker_piles[{s}].tiles[{i}]", out) for i, t in enumerate(p.tiles)]
            for s, p in enumerate(record.worker_piles)
        ],
        "jungle_deck": [
            _jungle_name(t, f"{path}.jungle_deck[{i}]", out) for i, t in enumerate(record.jungle_deck)
        ],
        "actions": [
            _action_to_json(a, f"{path}.actions[{i}]", out) for i, a in enumerate(record.actions)
        ],
    }
    if record.HasField("result"):
        data["result"] = result_to_json(record.result)
    out.raise_if_any(ErrorReason.INVALID_RECORD)
    return data


def record_from_json(data: dict) -> pb.GameRecord:
    """The GameRecord message of a ``cacao-record/1`` dict (engine output, trusted)."""
    record = pb.GameRecord(
        players=data["players"],
        first_player=data["first_player"],
        jungle_deck=[JUNGLE_TILES[t] for t in data["jungle_deck"]],
        actions=[action_from_json(a) for a in data["actions"]],
    )
    for pile in data["worker_piles"]:
        record.worker_piles.add(tiles=[WORKER_TILES[t] for t in pile])
    if data.get("result") is not None:
        record.result.CopyFrom(result_from_json(data["result"]))
    return record


def result_to_json(result: pb.GameResult) -> dict:
    """The record's ``result`` form of a GameResult message."""
    return {
        "gold": [s.gold for s in result.seats],
        "cacao": [s.cacao for s in result.seats],
        "winners": list(result.winners),
    }


def result_from_json(data: Any) -> pb.GameResult:
    """The GameResult message of a result (the record's dict or the engine's Result)."""
    if not isinstance(data, dict):
        data = {"gold": list(data.gold), "cacao": list(data.cacao), "winners": list(data.winners)}
    result = pb.GameResult(winners=sorted(data["winners"]))
    for seat, (gold, cacao) in enumerate(zip(data["gold"], data["cacao"])):
        result.seats.add(seat=seat, gold=gold, cacao=cacao)
    return result


# --- budgets and search results --------------------------------------------------
# The one place where a budget (Limit) and a search answer (SearchResult) meet
# their messages. No limit: None in Python, an unset field (0, no Duration) on
# the wire.

DEFAULT_CANDIDATES = 5
# Candidate figures sent only when known (proto3 optional: None survives the wire)
OPTIONAL_FIGURES = ("expected_gold", "prior", "lcb")


def seconds_to_duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(round(seconds * 1e9)))
    return duration


def limit_to_proto(limit: Limit) -> pb.SearchLimits:
    """The SearchLimits message of a budget (None limits left unset)."""
    message = pb.SearchLimits(iterations=limit.iterations or 0, threads=limit.threads or 0)
    if limit.time_s:
        message.time.CopyFrom(seconds_to_duration(limit.time_s))
    return message


def limit_from_proto(message: pb.SearchLimits, path: str = "limits") -> Limit:
    """The budget of a SearchLimits message (unset limits: None).

    Raises:
        ConversionError: a negative or out-of-range limit, naming its field.
    """
    out = Violations()
    if message.iterations < 0:
        out.add(f"{path}.iterations", f"{message.iterations} is negative")
    seconds = message.time.ToNanoseconds() / 1e9
    if seconds < 0:
        out.add(f"{path}.time", "is negative")
    if message.threads < 0:
        out.add(f"{path}.threads", f"{message.threads} is negative")
    out.raise_if_any(ErrorReason.INVALID_REQUEST)
    return Limit(message.iterations or None, seconds or None,
                 min(message.threads, MAX_THREADS) or None)


def set_budget(request: Any, strength: Limit | str | None) -> None:
    """Sets the ``budget`` oneof of a SuggestAction or AnalyzePosition request:
    a level's name or a Limit (None: neither, the server's default level)."""
    if isinstance(strength, str):
        request.level = strength
    elif strength is not None:
        request.limits.CopyFrom(limit_to_proto(strength))


def evaluation_to_proto(result: SearchResult, max_candidates: int = 0) -> pb.Evaluation:
    """The Evaluation message of a search result (non-finite values sent as 0).

    Args:
        max_candidates: most candidates to send; 0 means DEFAULT_CANDIDATES.
    """
    count = max_candidates if max_candidates > 0 else DEFAULT_CANDIDATES
    message = pb.Evaluation(
        iterations=result.iterations,
        iterations_per_second=_finite(result.iterations_per_second),
        final=result.final,
        stopped_by=result.stopped_by,
        seat=result.seat,
        threads=result.threads,
        nodes=result.nodes,
        population=result.population,
        settings=result.settings,
        exact=result.exact,
    )
    if result.best_action is not None:
        message.best_action.CopyFrom(action_to_proto(result.best_action))
    if result.to_act is not None:
        message.to_act = result.to_act
    if result.limit is not None:
        message.limits.CopyFrom(limit_to_proto(result.limit))
    message.elapsed.CopyFrom(seconds_to_duration(result.elapsed_s))
    for seat in result.seats:
        message.seats.add(seat=seat.seat, win_probability=_finite(seat.win_probability),
                          expected_gold=_finite(seat.expected_gold),
                          score_lead=_finite(seat.score_lead))
    for c in result.candidates[:count]:
        candidate = message.candidates.add(
            action=action_to_proto(c.action), visits=c.visits,
            mean_value=_finite(c.mean_value), win_probability=_finite(c.win_probability),
            score_lead=_finite(c.score_lead), order=c.order,
            principal_variation=[action_to_proto(a) for a in c.principal_variation], exact=c.exact)
        for name in OPTIONAL_FIGURES:  # absent on the wire when not known
            value = getattr(c, name)
            if value is not None and math.isfinite(value):
                setattr(candidate, name, value)
    message.principal_variation.extend(
        action_to_proto(a) for a in result.principal_variation)
    if result.root is not None:
        root = result.root
        message.root.CopyFrom(pb.RootInfo(
            visits=root.visits, mean_value=_finite(root.mean_value),
            win_probability=_finite(root.win_probability), score_lead=_finite(root.score_lead),
            expected_gold=_finite(root.expected_gold), reused_visits=root.reused_visits))
    if result.forecast is not None:
        message.forecast.CopyFrom(forecast_to_proto(result.forecast))
    return message


def forecast_to_proto(forecast: Forecast) -> pb.Forecast:
    """The Forecast message of a search's forecast."""
    def part(p: PartForecast) -> pb.PartForecast:
        return pb.PartForecast(mean=_finite(p.mean), spread=_finite(p.spread))

    return pb.Forecast(
        playouts=forecast.playouts,
        temples=[pb.TempleForecast(x=t.x, y=t.y, first=t.first, second=t.second) for t in forecast.temples],
        seats=[pb.SeatForecast(seat=s.seat, **{name: part(getattr(s, name)) for name in FORECAST_PARTS})
               for s in forecast.seats])


def forecast_from_proto(message: pb.Forecast) -> Forecast:
    """The search's Forecast of a Forecast message."""
    return Forecast(
        message.playouts,
        tuple(TempleForecast(t.x, t.y, tuple(t.first), tuple(t.second)) for t in message.temples),
        tuple(SeatForecast(s.seat, *(PartForecast(getattr(s, name).mean, getattr(s, name).spread)
                                     for name in FORECAST_PARTS)) for s in message.seats))


def evaluation_from_proto(message: pb.Evaluation) -> SearchResult:
    """The search result of an Evaluation message.

    Raises:
        ConversionError: an action of the message is malformed.
    """
    out = Violations()
    best = (_read_action(message.best_action, "evaluation.best_action", out)
            if message.HasField("best_action") else None)
    moves = [_read_action(c.action, f"evaluation.candidates[{i}].action", out)
             for i, c in enumerate(message.candidates)]
    lines = [[_read_action(a, f"evaluation.candidates[{i}].principal_variation[{j}]", out)
              for j, a in enumerate(c.principal_variation)]
             for i, c in enumerate(message.candidates)]
    pv = [_read_action(a, f"evaluation.principal_variation[{i}]", out)
          for i, a in enumerate(message.principal_variation)]
    out.raise_if_any(ErrorReason.INVALID_ACTION)
    seats = sorted(message.seats, key=lambda s: s.seat)
    candidates = tuple(_candidate(move, line, c)
                       for move, line, c in zip(moves, lines, message.candidates))
    root = message.root if message.HasField("root") else None
    return SearchResult(
        best_action=_as_action(best) if best is not None else None,
        seat=message.seat,
        to_act=message.to_act if message.HasField("to_act") else None,
        win_probability=tuple(s.win_probability for s in seats) if seats else None,
        expected_gold=tuple(s.expected_gold for s in seats) if seats else None,
        score_lead=tuple(s.score_lead for s in seats) if seats else None,
        candidates=candidates,
        principal_variation=tuple(_as_action(a) for a in pv),
        iterations=message.iterations,
        elapsed_s=message.elapsed.ToNanoseconds() / 1e9,
        iterations_per_second=message.iterations_per_second,
        stopped_by=message.stopped_by,
        threads=message.threads,
        nodes=message.nodes,
        limit=limit_from_proto(message.limits, "evaluation.limits"),
        final=message.final,
        root=None if root is None else RootInfo(
            root.visits, root.mean_value, root.win_probability, root.score_lead,
            root.expected_gold, root.reused_visits),
        population=message.population,
        settings=message.settings,
        forecast=forecast_from_proto(message.forecast) if message.HasField("forecast") else None,
        exact=message.exact,
    )


def _candidate(move: Action | dict, line: list[Action | dict], c: pb.Candidate) -> Candidate:
    """The Candidate of a message (mean, win and lead None when it has no visits
    and is not exact: an exact one's values are the solver's, visited or not)."""
    def known(name: str) -> float | None:
        return getattr(c, name) if c.HasField(name) else None

    valued = c.visits > 0 or c.exact
    return Candidate(_as_action(move), c.visits,
                     mean_value=c.mean_value if valued else None,
                     win_probability=c.win_probability if valued else None,
                     score_lead=c.score_lead if valued else None,
                     expected_gold=known("expected_gold"), prior=known("prior"), lcb=known("lcb"),
                     order=c.order, principal_variation=tuple(_as_action(a) for a in line), exact=c.exact)


def _finite(value: float | None) -> float:
    return value if value is not None and math.isfinite(value) else 0.0


# --- rules facts and standings ----------------------------------------------------

def rules_facts_to_proto() -> pb.RulesFacts:
    """The RulesFacts message of the engine's rules (GetServerInfo)."""
    counts = rules.PLAYER_COUNTS
    message = pb.RulesFacts(
        water_track=rules.WATER_TRACK, max_cacao=rules.MAX_CACAO, max_sun=rules.MAX_SUN,
        temple_awards=rules.TEMPLE_AWARDS, sun_gold=rules.SUN_GOLD)
    for name in rules.WORKER_TILES:
        message.worker_tiles.add(tile=WORKER_TILES[name], name=name,
                                 faces=rules.WORKER_FACES[name],
                                 per_seat=[rules.WORKER_COUNTS[n][name] for n in counts])
    start = list(rules.START_TILES.values())
    for name in rules.JUNGLE_TILES:
        on_board = start.count(name)
        message.jungle_tiles.add(tile=JUNGLE_TILES[name], name=name, start=on_board,
                                 count=[rules.JUNGLE_COUNTS[n][name] + on_board for n in counts])
    return message


def standing_to_proto(position: Position) -> pb.Standing:
    """The Standing message of a position: each seat's gold by part if the game
    ended now, and each temple's majority (the engine's final scoring)."""
    message = pb.Standing()
    for seat, score in enumerate(position.scores()):
        cacao = position.core.seat(seat)["cacao"]  # public: cacao breaks ties
        message.seats.add(seat=seat, gold=score.gold, temples=score.temples, sun=score.sun,
                          water=score.water, total=score.total, cacao=cacao)
    for temple in position.temples():
        message.temples.add(x=temple.x, y=temple.y, workers=temple.workers, gold=temple.awards)
    return message


# --- reviews and explanations ----------------------------------------------------

#: The review's classes and their DecisionClass values (a forced decision: unspecified).
DECISION_CLASSES = {name: pb.DecisionClass.Value("DECISION_CLASS_" + name.upper()) for name in CLASSES}
DECISION_CLASS_NAMES = {v: k for k, v in DECISION_CLASSES.items()}
#: SeatReview's count field of each class.
CLASS_COUNT_FIELDS = {"best": "best", "good": "good", "inaccuracy": "inaccuracies",
                      "mistake": "mistakes", "blunder": "blunders"}


def _actions_from_json(actions: Any) -> list[pb.Action]:
    return [action_to_proto(a) for a in actions]


def _actions_to_engine(messages: Any, path: str, out: Violations) -> tuple[Action, ...]:
    return tuple(_as_action(_read_action(a, f"{path}[{i}]", out)) for i, a in enumerate(messages))


def explanation_to_proto(explanation: Explanation) -> pb.Explanation:
    """The Explanation message of the search's explanation."""
    return pb.Explanation(
        seat=explanation.seat, line=_actions_from_json(explanation.line),
        other_line=_actions_from_json(explanation.other_line), plies=explanation.plies,
        other_plies=explanation.other_plies, turn=explanation.turn,
        parts=[pb.ScorePart(name=p.name, best=p.best, other=p.other) for p in explanation.parts],
        temples=[pb.TempleChange(x=t.x, y=t.y, best=t.best, other=t.other) for t in explanation.temples],
        totals=explanation.totals, other_totals=explanation.other_totals)


def explanation_from_proto(message: pb.Explanation, path: str = "explanation") -> Explanation:
    """The search's Explanation of an Explanation message.

    Raises:
        ConversionError: an action of the message is malformed.
    """
    out = Violations()
    line = _actions_to_engine(message.line, f"{path}.line", out)
    other = _actions_to_engine(message.other_line, f"{path}.other_line", out)
    out.raise_if_any(ErrorReason.INVALID_ACTION)
    return Explanation(
        message.seat, line, other, message.plies, message.other_plies, message.turn,
        tuple(Part(p.name, p.best, p.other) for p in message.parts),
        tuple(TempleChange(t.x, t.y, tuple(t.best), tuple(t.other)) for t in message.temples),
        tuple(message.totals), tuple(message.other_totals))


_DECISION_FIGURES = ("win_before", "win_after", "best_win", "gold_after", "best_gold", "accuracy")


def decision_review_to_proto(decision: DecisionReview) -> pb.DecisionReview:
    """The DecisionReview message of one reviewed decision."""
    message = pb.DecisionReview(
        index=decision.index, seat=decision.seat, action=action_to_proto(decision.action),
        forced=decision.forced, classification=DECISION_CLASSES.get(decision.classification, 0),
        best_action=action_to_proto(decision.best_action), win_loss=decision.win_loss,
        gold_loss=decision.gold_loss, best_line=_actions_from_json(decision.best_line),
        line=_actions_from_json(decision.line), iterations=decision.iterations,
        reused_visits=decision.reused_visits, exact=decision.exact)
    for name in _DECISION_FIGURES:
        value = getattr(decision, name)
        if value is not None:
            setattr(message, name, value)
    if decision.explanation is not None:
        message.explanation.CopyFrom(explanation_to_proto(decision.explanation))
    return message


def decision_review_from_proto(message: pb.DecisionReview, path: str = "decision") -> DecisionReview:
    """The search's DecisionReview of a DecisionReview message.

    Raises:
        ConversionError: an action of the message is malformed.
    """
    out = Violations()
    action = _as_action(_read_action(message.action, f"{path}.action", out))
    best = _as_action(_read_action(message.best_action, f"{path}.best_action", out))
    best_line = _actions_to_engine(message.best_line, f"{path}.best_line", out)
    line = _actions_to_engine(message.line, f"{path}.line", out)
    out.raise_if_any(ErrorReason.INVALID_ACTION)
    figures = {name: getattr(message, name) if message.HasField(name) else None for name in _DECISION_FIGURES}
    return DecisionReview(
        message.index, message.seat, action,
        FORCED if message.forced else DECISION_CLASS_NAMES.get(message.classification, "unknown"), best,
        win_loss=message.win_loss, gold_loss=message.gold_loss, best_line=best_line, line=line,
        explanation=(explanation_from_proto(message.explanation, f"{path}.explanation")
                     if message.HasField("explanation") else None),
        iterations=message.iterations, reused_visits=message.reused_visits, exact=message.exact,
        **figures)


_SEAT_FIGURES = ("accuracy", "mean_win_loss", "mean_gold_loss")


def review_summary_to_proto(summary: ReviewSummary) -> pb.ReviewSummary:
    """The ReviewSummary message of a review's summary."""
    message = pb.ReviewSummary(iterations=summary.iterations)
    for seat in summary.seats:
        row = message.seats.add(seat=seat.seat, decisions=seat.decisions, forced=seat.forced,
                                **{CLASS_COUNT_FIELDS[c]: n for c, n in seat.counts.items()})
        for name in _SEAT_FIGURES:
            value = getattr(seat, name)
            if value is not None:
                setattr(row, name, value)
    return message


def review_summary_from_proto(message: pb.ReviewSummary) -> ReviewSummary:
    """The search's ReviewSummary of a ReviewSummary message."""
    return ReviewSummary(tuple(
        SeatReview(s.seat, s.decisions, s.forced,
                   s.accuracy if s.HasField("accuracy") else None,
                   s.mean_win_loss if s.HasField("mean_win_loss") else None,
                   s.mean_gold_loss if s.HasField("mean_gold_loss") else None,
                   {c: getattr(s, f) for c, f in CLASS_COUNT_FIELDS.items()})
        for s in message.seats), message.iterations)
