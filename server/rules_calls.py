"""The calls that answer from the rules alone: a new game, the legal
actions, one action applied, a record validated. Each is a function of its
request message (the service is stateless) that checks what it reads and
raises :class:`~.errors.ApiError` naming the field at fault.

Thread-safety: pure functions of per-request values.
"""

from __future__ import annotations

import json
from typing import Any

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import CacaoError, Position, RecordError, record_text

from . import errors, positions
from .positions import Loaded


def new_game(request: pb.NewGameRequest) -> pb.NewGameResponse:
    if not 2 <= request.players <= 4:
        raise errors.invalid("players", f"{request.players} players: must be 2, 3 or 4")
    seed = request.seed if request.HasField("seed") else positions.random_seed()
    position = Position.new(players=request.players, seed=seed)
    return pb.NewGameResponse(
        position=convert.position_from_json(position.snapshot()),
        position_hash=position.hash(),
        record=convert.record_from_json(position.record()),
    )

def list_legal_actions(request: pb.ListLegalActionsRequest) -> pb.ListLegalActionsResponse:
    loaded = positions.load(request, seed=0)
    position = loaded.position
    response = pb.ListLegalActionsResponse(
        position_hash=loaded.hash, phase=convert.PHASES[position.phase],
        standing=convert.standing_to_proto(position))  # public facts only: safe for an observation
    if position.is_over:
        return response
    require_decider_visible(loaded)
    assert position.to_act is not None  # None only once the game is over
    response.to_act = position.to_act
    convert.legal_actions_to_proto(position, response)
    return response

def apply_action(request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
    if request.WhichOneof("source") == "position" and request.position.HasField("view"):
        raise errors.failed_precondition(
            "position.view",
            "ApplyAction needs a complete position or a record: an observation hides "
            "the tiles the action would draw", ErrorReason.HIDDEN_INFORMATION)
    with errors.request_fields():
        action_json = convert.action_to_json(request.action)
    loaded = positions.load(request)
    if request.expected_position_hash and request.expected_position_hash != loaded.hash:
        raise errors.failed_precondition(
            "expected_position_hash",
            f"the position sent hashes to {loaded.hash}, not {request.expected_position_hash}",
            ErrorReason.POSITION_MISMATCH)
    position = loaded.position
    require_not_over(position)
    turn = position.turn
    report = positions.apply(position, request.action, action_json)
    response = pb.ApplyActionResponse(
        position=convert.position_from_json(position.snapshot()),
        position_hash=position.hash(),
        action=convert.action_to_proto(report.action),
        standing=convert.standing_to_proto(position),
    )
    _describe(response, report, turn_ended=position.turn > turn or position.is_over)
    if position.is_over:
        response.result.CopyFrom(convert.result_from_json(position.result()))
    if loaded.from_record:
        response.record.CopyFrom(convert.record_from_json(position.record()))
    return response

def validate_record(request: pb.ValidateRecordRequest) -> pb.ValidateRecordResponse:
    kind = request.WhichOneof("source")
    if kind is None:
        raise errors.invalid("record", "required: a record or record_json")
    data: dict | str
    with errors.request_fields():
        data = convert.record_to_json(request.record) if kind == "record" else request.record_json
    try:
        position = Position.from_record(data)
    except RecordError as error:
        response = pb.ValidateRecordResponse(
            valid=False, error_index=error.index, error_message=error.reason)
        if error.index >= 0:
            partial = Position.from_record(data, upto=_count_actions(data, error.index))
            response.actions_replayed = len(partial.history)
            _set_final(response, partial)
        return response
    except CacaoError as error:
        return pb.ValidateRecordResponse(valid=False, error_index=-1, error_message=str(error))
    response = pb.ValidateRecordResponse(valid=True, actions_replayed=len(position.history))
    _set_final(response, position)
    return response


# --- helpers ------------------------------------------------------------------

def require_not_over(position: Position) -> None:
    if position.is_over:
        raise errors.failed_precondition(
            "position.phase", "the game is over: nobody acts", ErrorReason.GAME_OVER)


def require_decider_visible(loaded: Loaded) -> None:
    """An observation must show the hand of the seat that places."""
    position = loaded.position
    if loaded.view is None or position.phase != "turn":
        return
    to_act = position.to_act
    if to_act == loaded.view or to_act in loaded.known_hands:
        return
    raise errors.failed_precondition(
        "position.view",
        f"seat {to_act} is to act but its hand is hidden from seat {loaded.view}: send seat "
        f"{to_act}'s observation, or its hand in position.seats[{to_act}].hand",
        ErrorReason.HIDDEN_INFORMATION)


def _count_actions(data: dict | str, index: int) -> int:
    """How many actions of a record replay before the error at ``index``."""
    record: dict
    if isinstance(data, str):
        try:
            record = json.loads(data)
        except ValueError:
            return 0
    else:
        record = data
    return min(index, len(record.get("actions", [])))


def _set_final(response: pb.ValidateRecordResponse, position: Position) -> None:
    """The position after the legal actions, how it stands, and the record so far."""
    response.position.CopyFrom(convert.position_from_json(position.snapshot()))
    response.position_hash = position.hash()
    response.standing.CopyFrom(convert.standing_to_proto(position))
    record = position.record()
    response.record.CopyFrom(convert.record_from_json(record))
    response.record_json = record_text(record)
    if position.is_over:
        response.result.CopyFrom(convert.result_from_json(position.result()))


def _describe(response: pb.ApplyActionResponse, report: Any, turn_ended: bool) -> None:
    """Fills what happened: tiles placed, activations, gains and draws."""
    for tile in report.placed:
        if tile["tile"] in convert.WORKER_TILES:
            source = pb.TILE_SOURCE_HAND
        elif tile.get("blind"):
            source = pb.TILE_SOURCE_DECK
        else:
            source = pb.TILE_SOURCE_DISPLAY
        clean = {k: v for k, v in tile.items() if k != "blind"}
        response.placed.add(tile=convert.board_tile_from_json(clean), source=source)
    for a in report.activations:
        response.activations.add(
            seat=a["seat"], x=a["x"], y=a["y"], direction=convert.direction_enum(a["side"]),
            jungle=convert.JUNGLE_TILES[a["tile"]], workers=a["workers"])
    for seat, gains in enumerate(report.gains):
        if any(gains.values()):
            response.gains.add(seat=seat, **gains)
    response.turn_ended = turn_ended
    if turn_ended:
        draws = pb.Draws(worker_tile_drawn=bool(report.drew))
        if report.drawn is not None:
            draws.worker_tile = convert.WORKER_TILES[report.drawn]
        draws.display_refill.extend(convert.JUNGLE_TILES[t] for t in report.refill)
        response.draws.CopyFrom(draws)
