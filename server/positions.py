"""Turning a request's position source (a Position message or a GameRecord)
into an engine position, with errors that name the field at fault.

Thread-safety: pure functions; each call builds its own engine objects.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from typing import Any

import grpc

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import (
    ActionFormatError,
    CacaoError,
    IllegalActionError,
    Position,
    RecordError,
    SnapshotError,
    position_hash,
)
from cacaoai.engine.records import check_result

from . import errors

HISTORY_PLIES = 16  # positions of a record kept for a search to find a kept tree by


@dataclass
class Loaded:
    """An engine position built from a request.

    Attributes:
        position: a complete engine position; for an observation, one
            determinization of it (hidden parts drawn at random).
        view: the observing seat, None for a complete position or a record.
        known_hands: seats other than ``view`` whose hands the client gave.
        from_record: True when the source was a record (the position can write
            its record).
        history: for a record loaded with ``history``, its last positions
            before the end, each with the action played from it, oldest first
            (the last leads to ``position``); empty otherwise.
    """

    position: Position
    view: int | None = None
    known_hands: tuple[int, ...] = ()
    from_record: bool = False
    history: tuple[tuple[Position, Any], ...] = ()

    @functools.cached_property
    def hash(self) -> str:
        """Short hash of what the client sent (the complete position, or the
        observation), computed when a reply needs it."""
        return self.position.hash(self.view)


def random_seed() -> int:
    """A fresh 63-bit seed for requests that give none."""
    return random.SystemRandom().getrandbits(63)


def load(request: Any, seed: int | None = None, history: int = 0) -> Loaded:
    """The position of a request with a ``source`` oneof (position or record).

    Args:
        request: a request message with the ``source`` oneof.
        seed: seed of the determinization of an observation (random if None).
        history: for a record, how many of its last positions to keep in
            ``Loaded.history`` (taken during the one replay).

    Raises:
        errors.ApiError: INVALID_ARGUMENT when the source is missing, malformed
            or impossible.
    """
    kind = request.WhichOneof("source")
    if kind is None:
        raise errors.invalid("position", "required: a position or a record")
    if kind == "record":
        with errors.request_fields():
            data = convert.record_to_json(request.record)
        if history:
            position, past = load_record_tail(data, history)
            return Loaded(position, from_record=True, history=past)
        position = load_record(data)
        return Loaded(position, from_record=True)
    message: pb.Position = request.position
    with errors.request_fields():
        snap = convert.position_to_json(message)
    if not message.HasField("view"):
        position = _engine_call(Position.from_snapshot, snap)
        return Loaded(position)
    seed = random_seed() if seed is None else seed
    position = _engine_call(Position.from_observation, snap, seed)
    return Loaded(position, view=message.view, known_hands=convert.known_hands(message))


def searched_hash(loaded: Loaded, seat: int) -> str:
    """Short hash of what a search for `seat` sees: its observation, with the
    hands of ``loaded.known_hands``. A record, a complete position and that
    observation of one position hash alike, as the search answers them alike."""
    if seat == loaded.view and not loaded.known_hands:
        return loaded.hash  # the observation the client sent
    observation = loaded.position.observation(seat)
    if loaded.known_hands:
        complete = loaded.position.snapshot()
        for s in loaded.known_hands:
            observation["seats"][s]["hand"] = complete["seats"][s]["hand"]
    return position_hash(observation)


def _engine_call(fn, *args) -> Position:
    try:
        return fn(*args)
    except SnapshotError as error:
        path = snapshot_field_path(error.field)
        raise errors.invalid(path, error.reason, ErrorReason.INVALID_POSITION) from None
    except CacaoError as error:
        raise errors.invalid("position", str(error), ErrorReason.INVALID_POSITION) from None


def load_record(record: dict | str, upto: int | None = None) -> Position:
    """Replays a record for a request that needs its position.

    Raises:
        errors.ApiError: INVALID_ARGUMENT naming the first bad action.
    """
    try:
        return Position.from_record(record, upto)
    except RecordError as error:
        raise errors.invalid(record_field_path(error.index, record), error.reason,
                             ErrorReason.INVALID_RECORD) from None
    except CacaoError as error:
        raise errors.invalid("record", str(error), ErrorReason.INVALID_RECORD) from None


def load_record_tail(record: dict, plies: int) -> tuple[Position, tuple[tuple[Position, Any], ...]]:
    """Replays a record once, keeping its last `plies` positions before the
    end with the action played from each (oldest first).

    Raises:
        errors.ApiError: INVALID_ARGUMENT naming the first bad action, or a
            result that disagrees, as :func:`load_record`.
    """
    actions = record["actions"]
    start = max(len(actions) - plies, 0)
    position = load_record(record, upto=start)
    past = []
    for index in range(start, len(actions)):
        before = position.clone()
        try:
            position.apply(actions[index])
        except CacaoError as error:
            raise errors.invalid(record_field_path(index, record), str(error),
                                 ErrorReason.INVALID_RECORD) from None
        past.append((before, position.history[-1]))
    if "result" in record:
        try:
            check_result(record["result"], position, len(actions))
        except RecordError as error:
            raise errors.invalid(record_field_path(error.index, record), error.reason,
                                 ErrorReason.INVALID_RECORD) from None
    return position, tuple(past)


def snapshot_field_path(field: str) -> str:
    """The proto field path of a snapshot field named by the engine.

    ``board[3].rot`` -> ``position.board[3].worker.rotation``;
    ``seats[1].cacao`` -> ``position.seats[1].cacao``.
    """
    if field in ("(document)", "format", ""):
        return "position"
    path = re.sub(r"\brot\b", "rotation", field)
    path = re.sub(r"^(board\[\d+\])\.(seat|rotation|covers)", r"\1.worker.\2", path)
    path = re.sub(r"^(board\[\d+\])\.tile$", r"\1", path)
    return "position." + path


def record_field_path(index: int, record: dict | str) -> str:
    """The proto field path of a record error at action ``index``."""
    if index < 0:
        return "record"
    actions = record.get("actions", []) if isinstance(record, dict) else None
    if actions is not None and index >= len(actions):
        return "record.result"
    return f"record.actions[{index}]"


# Engine reasons for an illegal action start with the docs/record-format.md field at
# fault ("tile: ...", "x/y: ..."); these are the proto fields they stand for.
_ILLEGAL_FIELDS = {
    "seat": ["seat"],
    "type": ["{kind}"],  # the kind of action is not allowed now
    "tile": ["{kind}.tile"],
    "rot": ["{kind}.rotation"],
    "x/y": ["{kind}.x", "{kind}.y"],
    "fills": ["{kind}.fills"],
    "gold/cacao": ["{kind}.gold", "{kind}.cacao"],
}


def apply(position: Position, action: pb.Action, action_json: dict) -> Any:
    """Applies a client's action, turning a refusal into INVALID_ARGUMENT.

    Returns:
        The engine's Report.

    Raises:
        errors.ApiError: INVALID_ARGUMENT (ILLEGAL_ACTION) naming the field.
    """
    try:
        return position.apply(action_json)
    except (IllegalActionError, ActionFormatError) as error:
        raise illegal_action(str(error), action.WhichOneof("kind") or "") from None


def illegal_action(reason: str, kind: str, path: str = "action") -> errors.ApiError:
    """INVALID_ARGUMENT for an action (the request's field `path`) the
    position does not allow."""
    head, sep, rest = reason.partition(": ")
    names = _ILLEGAL_FIELDS.get(head) if sep else None
    if names is None:
        fields, text = [path], reason
    else:
        fields = [(f"{path}." + n.format(kind=kind)).rstrip(".") for n in names]
        text = rest
    return errors.ApiError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{fields[0]}: illegal action: {text}",
        ErrorReason.ILLEGAL_ACTION,
        violations=[(f, text) for f in fields],
    )
