"""Bad input: no request crashes the server, answers INTERNAL, overflows the
error trailers, or slips an impossible position past the checks; and the
engine never leaves its grid whatever Python passes.
"""

from __future__ import annotations

import copy
import json
import logging
import random
from collections import Counter

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import CacaoError, Position, SnapshotError, core
from cacaoai.server import errors

SERVICE = "/cacao.v1.CacaoService/"
FAR = (-2**31, 2**31 - 1)


def first_record() -> dict:
    """The deal of NewGame(players=2, seed=7) as a record, no actions yet."""
    return Position.new(2, 7).record()


def place_far(x: int, seat: int = 1) -> dict:
    return {"type": "place", "seat": seat, "tile": "2101", "x": x, "y": 0, "rot": 0, "fills": []}


def status_of(error: grpc.RpcError) -> tuple[grpc.StatusCode, list, str]:
    """(code, BadRequest field violations, message) of a failed call."""
    violations = []
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations = list(bad.field_violations)
    return error.code(), violations, error.details()


# --- 1. coordinates that used to crash the server ---------------------------------

@pytest.mark.integration
def test_far_coordinates_are_refused_and_the_server_process_lives_on():
    with LocalServer() as server, grpc.insecure_channel(server.address) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        game = stub.NewGame(pb.NewGameRequest(players=2, seed=7))
        assert game.position.to_act == 1
        for x in FAR:
            action = pb.Action(seat=1, place=pb.Action.Place(tile=pb.WORKER_TILE_2101, x=x, y=x))
            with pytest.raises(grpc.RpcError) as info:
                stub.ApplyAction(pb.ApplyActionRequest(position=game.position, action=action))
            code, violations, message = status_of(info.value)
            assert code == grpc.StatusCode.INVALID_ARGUMENT, message
            assert [v.field for v in violations] == ["action.place.x", "action.place.y"]

            record = first_record()
            record["actions"] = [place_far(x)]
            by_message = stub.ValidateRecord(pb.ValidateRecordRequest(record=convert.record_from_json(record)))
            by_json = stub.ValidateRecord(pb.ValidateRecordRequest(record_json=json.dumps(record)))
            for reply in (by_message, by_json):
                assert not reply.valid and reply.error_index == 0
                assert "not an empty cell" in reply.error_message
        assert server.process.poll() is None and server.serving()


def test_the_engine_reads_any_python_int_coordinate_safely():
    c = Position.new(2, 7).core
    for x in (-2**31, 2**31, -2**63, 2**64, 10**40, 31, -33):
        assert c.cell(x, 0) == 0 and c.cell(0, x) == 0
    with pytest.raises(IndexError):
        c.seat(4)
    with pytest.raises(IndexError):
        c.full_pile(-1)


def test_the_engine_applies_only_legal_codes():
    position = Position.new(3, 11)
    legal = set(position.legal_codes())
    for code in (0, 0xFFFFFFFF, (4095 << 6), max(legal) + 1, -1, 2**40):
        if code not in legal:
            with pytest.raises(ValueError):
                position.core.apply_code(code)
    assert set(position.legal_codes()) == legal  # the position is untouched


# --- 2. INTERNAL answers ---------------------------------------------------------

def record_json_cases() -> list[str]:
    record = first_record()
    legal = Position.new(2, 7).legal_actions()[0].to_json()
    cases = []
    for change in ({"x": 2**31}, {"x": -2**63 - 1}, {"type": []}, {"tile": []}, {"tile": {}},
                   {"seat": {}}, {"fills": [{"x": 0, "y": 0, "tile": {}}]},
                   {"fills": [{"x": 0, "y": 0, "tile": []}]}):
        bad = dict(legal, **change)
        cases.append(json.dumps(dict(record, actions=[bad])))
    cases += ["[" * 100_000, "{\"a\":" * 50_000, "1" * 5000, json.dumps(dict(record, players="1" * 5000)),
              "", "null", json.dumps(dict(record, worker_piles=[[[]], [{}]]))]
    cases.append(json.dumps(record).replace("\"actions\": []", "\"actions\": [" + "1" * 5000 + "]"))
    return cases


@pytest.mark.integration
def test_undecodable_record_json_is_an_invalid_record_not_internal(cacao_stub):
    for text in record_json_cases():
        reply = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=text))
        assert not reply.valid and reply.error_message, text[:80]
        assert len(reply.error_message) < 1000


@pytest.mark.parametrize("method", ["NewGame", "ListLegalActions", "ApplyAction", "SuggestAction",
                                    "AnalyzePosition", "ValidateRecord", "GetServerInfo"])
@pytest.mark.integration
def test_undecodable_request_bytes_are_invalid_argument_naming_the_message(cacao_server, method):
    with grpc.insecure_channel(cacao_server[1]) as channel:
        streaming = method == "AnalyzePosition"
        call = (channel.unary_stream if streaming else channel.unary_unary)(SERVICE + method)
        for data in (b"\x08", b"\xff\xff\xff", b"\x0a\x05ab"):
            with pytest.raises(grpc.RpcError) as info:
                result = call(data, timeout=10)
                if streaming:
                    list(result)
            code, violations, message = status_of(info.value)
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (data, message)
            assert f"cacao.v1.{method}Request" in message
            assert [v.field for v in violations] == ["request"]


# --- 3. errors stay small --------------------------------------------------------

@pytest.mark.integration
def test_huge_echoed_values_and_many_violations_give_the_real_error_in_small_form(cacao_stub, caplog):
    caplog.set_level(logging.INFO, logger="cacaoai.server")
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    action = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=game.position)).actions[0]
    bad_seats = copy.deepcopy(game.position)
    bad_seats.seats[0].discarded.extend([99] * 500)
    calls = [
        (cacao_stub.SuggestAction, pb.SuggestActionRequest(position=game.position, level="x" * 20000),
         grpc.StatusCode.INVALID_ARGUMENT),
        (cacao_stub.ApplyAction, pb.ApplyActionRequest(position=game.position, action=action,
                                                       expected_position_hash="f" * 20000),
         grpc.StatusCode.FAILED_PRECONDITION),
        (cacao_stub.ListLegalActions, pb.ListLegalActionsRequest(position=bad_seats),
         grpc.StatusCode.INVALID_ARGUMENT),
    ]
    for call, request, want in calls:
        with pytest.raises(grpc.RpcError) as info:
            call(request)
        code, violations, message = status_of(info.value)
        assert code == want, message
        assert len(message) <= errors.MAX_MESSAGE_CHARS
        assert len(violations) <= errors.MAX_VIOLATIONS + 1
        assert all(len(v.description) <= errors.MAX_DESCRIPTION_CHARS for v in violations)
    assert "more problems not listed" in violations[-1].description
    assert all(len(r.getMessage()) < 1000 for r in caplog.records)


def test_an_api_error_clips_every_text():
    error = errors.invalid_fields([("f" * 500, "d" * 5000)] * 50, pb.ErrorReason.INVALID_POSITION)
    status = error.to_status()
    assert len(status.SerializeToString()) < 4000
    assert len(error.violations) == errors.MAX_VIOLATIONS + 1


# --- 4. impossible positions ------------------------------------------------------

def island_snapshot(x0: int = 20) -> dict:
    """Turn 2 of a 2-player game whose only tiles lie on an island at (x0, 0):
    every count fits the turn, but no order of placements builds the board."""
    snap = Position.new(2, 7).snapshot()
    kind = snap["jungle_deck"].pop(0)
    snap["jungle_deck_count"] -= 1
    snap["board"].append({"x": x0, "y": 0, "tile": kind})
    for s, dx in ((0, -1), (1, 1)):
        seat = snap["seats"][s]
        tile = seat["hand"].pop(0)
        seat["hand"].append(seat["pile"].pop(0))
        seat["pile_count"] -= 1
        snap["board"].append({"x": x0 + dx, "y": 0, "tile": tile, "seat": s, "rot": 0})
    snap["board"].sort(key=lambda t: (t["x"], t["y"]))
    snap["turn"] = 2
    return snap


def test_a_board_no_placement_order_can_build_is_refused():
    with pytest.raises(SnapshotError) as info:
        Position.from_snapshot(island_snapshot())
    assert info.value.field == "board" and "cannot be reached" in info.value.reason


def test_a_board_with_more_tiles_than_a_game_has_is_refused_before_any_board_check():
    snap = Position.new(4, 3).snapshot()
    snap["board"] += [{"x": x, "y": y, "tile": "1111", "seat": 0, "rot": 0}
                      for x in range(-28, 29) for y in range(-28, 29) if (x + y) % 2 and (x, y) != (1, 0)]
    with pytest.raises(SnapshotError) as info:
        Position.from_snapshot(snap)
    assert info.value.field == "board" and "at most 64" in info.value.reason


def test_taking_any_laid_jungle_tile_back_into_the_deck_is_refused():
    """A cell next to two worker tiles is filled while jungle tiles remain, so a
    real position without one of its jungle tiles is never valid."""
    records = [json.loads(line) for line in (_data() / "records.jsonl").read_text().splitlines()[:6]]
    reasons = Counter()
    for record in records:
        for upto in (12, 18, 24):
            snap = Position.from_record(record, upto=upto).snapshot()
            if not snap["jungle_deck"]:
                continue
            for tile in snap["board"]:
                if "seat" in tile or (tile["x"], tile["y"]) in ((0, 0), (1, 1)):
                    continue
                bad = copy.deepcopy(snap)
                bad["board"].remove(tile)
                bad["jungle_deck"].append(tile["tile"])
                bad["jungle_deck_count"] += 1
                with pytest.raises(SnapshotError) as info:
                    Position.from_snapshot(bad)
                reasons[info.value.reason.split(" ")[-1]] += 1
    assert reasons["remain"] > 0, reasons  # "... was not filled while jungle tiles remain"


def test_gains_must_fit_the_worker_tiles_laid():
    snap = Position.new(2, 7).snapshot()
    for key, value in (("gold", 9999), ("gold", 1), ("cacao", 1), ("sun", 1), ("water", 1)):
        bad = copy.deepcopy(snap)
        bad["seats"][1][key] = value
        with pytest.raises(SnapshotError) as info:
            Position.from_snapshot(bad)
        assert info.value.field == "seats[1]", info.value
    later = Position.from_record(json.loads((_data() / "records.jsonl").read_text().splitlines()[0]), upto=8)
    snap = later.snapshot()
    laid = sum(1 for t in snap["board"] if t.get("seat") == 0)
    snap["seats"][0]["gold"] = 16 * laid + 1
    with pytest.raises(SnapshotError) as info:
        Position.from_snapshot(snap)
    assert info.value.field == "seats[0].gold"


@pytest.mark.integration
def test_the_server_refuses_an_island_and_impossible_gold(cacao_stub):
    for snap in (island_snapshot(), _with(Position.new(2, 7).snapshot(), gold=9999)):
        with pytest.raises(grpc.RpcError) as info:
            cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=convert.position_from_json(snap)))
        code, violations, message = status_of(info.value)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, message
        assert violations[0].field in ("position.board", "position.seats[0]")


@pytest.mark.integration
def test_every_position_the_server_returns_it_accepts_back(cacao_stub):
    rng = random.Random(5)
    for players in (2, 3, 4):
        position = cacao_stub.NewGame(pb.NewGameRequest(players=players, seed=players)).position
        while position.phase != pb.PHASE_OVER:
            actions = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=position)).actions
            position = cacao_stub.ApplyAction(
                pb.ApplyActionRequest(position=position, action=rng.choice(actions))).position
        assert cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=position)).phase == pb.PHASE_OVER


def test_the_engine_loads_nothing_off_its_grid_and_never_walks_off_it():
    parts = dict(players=2, first_player=0, turn=0, mover=0, phase=0, covered={},
                 display=[1, 2], deck=[3] * 20, pending=[],
                 seats=[{"gold": 0, "cacao": 0, "sun": 0, "water": 0, "hand": [3, 0, 0, 0],
                         "discarded": [0] * 4, "pile": [0] * 8}] * 2)
    for far in (29, 40, -2**31, 2**40):
        with pytest.raises((ValueError, OverflowError)):
            core.CorePosition().load(**dict(parts, tiles=[(far, 0, 1)]))
    with pytest.raises(ValueError):
        core.CorePosition().load(**dict(parts, tiles=[(0, 0, 1)], display=[1, 2, 3]))
    with pytest.raises(ValueError):
        core.CorePosition().load(**dict(parts, tiles=[(0, 0, 1)], players=5))
    with pytest.raises(ValueError):  # more jungle tiles to lay than position_t holds
        core.CorePosition().load(**dict(parts, tiles=[(0, 0, 1)], deck=[3] * 26))
    with pytest.raises(ValueError):  # more worker tiles to lay than position_t holds
        core.CorePosition().load(**dict(parts, tiles=[(0, 0, 1)], seats=[dict(
            parts["seats"][0], hand=[11, 11, 0, 0], pile=[0] * 11)] * 2))
    # a board at the edge of what load accepts, far from a real game: random play
    # from it keeps every tile within the grid's placement reach
    for seed in range(20):
        c = core.CorePosition()
        c.load(**dict(parts, tiles=[(28, 28, 1), (-28, -28, 1), (28, -28, 1), (-28, 28, 1)]))
        rng = random.Random(seed)
        while c.phase != 2:
            c.apply_code(rng.choice(c.legal_codes()))
            assert all(abs(x) <= 30 and abs(y) <= 30 for x, y, _ in c.tiles())


def test_json_values_of_any_shape_give_engine_errors_only():
    snap = Position.new(2, 7).snapshot()
    odd = [[], {}, None, "x", 2**70, -1, 1.5, True, [[]], {"a": []}]
    for key in list(snap):
        for value in odd:
            if value == snap[key] and type(value) is type(snap[key]):
                continue
            with pytest.raises(CacaoError):
                Position.from_snapshot(dict(snap, **{key: value}))
    for value in odd:
        board = snap["board"] + [{"x": 0, "y": 1, "tile": value, "seat": 0, "rot": 0}]
        with pytest.raises(CacaoError):
            Position.from_snapshot(dict(snap, board=board))
        with pytest.raises(CacaoError):
            Position.from_snapshot(dict(snap, seats=[dict(snap["seats"][0], hand=[value]), snap["seats"][1]]))


def _with(snap: dict, **seat0) -> dict:
    snap["seats"][0].update(seat0)
    return snap


def _data():
    from pathlib import Path

    return Path(__file__).parent / "data"
