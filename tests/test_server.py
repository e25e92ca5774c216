"""The gRPC service against a real server on a localhost port (see conftest).

Covers every RPC, a whole game played through ApplyAction, each class of bad
input with its status code and message, deadlines and cancellation, health,
reflection, concurrency, graceful shutdown and client-side round_robin over two
server processes.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from support import GUARD_S, TEST_SERVER_FLAGS, server_options, wait_until

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import Position, position_hash
from cacaoai.search import ANALYSIS, Limit, search
from cacaoai.server import create_server, errors
from cacaoai.server.handlers import Call
from cacaoai.server.options import ServerOptions, parse_args

DATA = Path(__file__).parent / "data"
RECORDS = [json.loads(line) for line in (DATA / "records.jsonl").read_text().splitlines()]
SERVICE = "cacao.v1.CacaoService"

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_error_logs(caplog):
    """An error-level log from the server fails the test."""
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


# --- helpers ------------------------------------------------------------------

def record_message(index: int = 0, upto: int | None = None, result: bool = True) -> pb.GameRecord:
    data = dict(RECORDS[index])
    if upto is not None:
        data["actions"] = data["actions"][:upto]
        data.pop("result", None)
    if not result:
        data.pop("result", None)
    return convert.record_from_json(data)


def position_message(record_index: int = 0, upto: int = 6) -> tuple[pb.Position, Position]:
    position = Position.from_record(RECORDS[record_index], upto=upto)
    return convert.position_from_json(position.snapshot()), position


def seconds(value: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(int(value * 1e9))
    return d


def error_of(call, *args, **kwargs) -> tuple[grpc.StatusCode, str, dict]:
    """Calls an RPC that must fail; returns (code, message, details by type)."""
    with pytest.raises(grpc.RpcError) as info:
        result = call(*args, **kwargs)
        if hasattr(result, "__iter__") and not hasattr(result, "ListFields"):
            list(result)
    error = info.value
    status = rpc_status.from_call(error)
    details = {}
    for any_detail in status.details if status else ():
        for kind in (error_details_pb2.BadRequest, error_details_pb2.ErrorInfo,
                     error_details_pb2.PreconditionFailure):
            if any_detail.Is(kind.DESCRIPTOR):
                message = kind()
                any_detail.Unpack(message)
                details[kind.__name__] = message
    return error.code(), error.details(), details


def violated_fields(details: dict) -> list[str]:
    return [v.field for v in details["BadRequest"].field_violations]


def legal_actions(stub, position: pb.Position) -> list[pb.Action]:
    return list(stub.ListLegalActions(pb.ListLegalActionsRequest(position=position)).actions)


# --- information and new games -----------------------------------------------

def test_server_info_names_versions_limits_and_levels(cacao_stub, cacao_server):
    options = cacao_server[0].cacao_api.options  # the fixture's: ten minutes, normal priority
    info = cacao_stub.GetServerInfo(pb.GetServerInfoRequest())
    assert info.api_version == "cacao.v1"
    assert info.engine_version and info.rules_version and info.server_version
    assert (info.record_format, info.position_format) == ("cacao-record/1", "cacao-position/1")
    assert info.limits.max_iterations == 200_000
    assert info.limits.max_time.ToNanoseconds() == options.max_time_s * 10**9 == 600 * 10**9
    assert info.limits.max_concurrent_searches == 2
    assert info.limits.search_priority == options.search_priority == "normal"
    assert info.limits.max_concurrent_calls == 100
    names = [level.name for level in info.levels]
    assert {"beginner", "casual", "strong", "max"} <= set(names)
    assert info.default_level in names
    for level in info.levels:  # levels are shown after the server's clamps
        assert 0 < level.limits.iterations <= 200_000
        assert level.limits.time.ToNanoseconds() <= options.max_time_s * 10**9


def test_new_game_returns_the_position_its_hash_and_the_deal(cacao_stub):
    response = cacao_stub.NewGame(pb.NewGameRequest(players=3, seed=11))
    snap = convert.position_to_json(response.position)
    position = Position.from_snapshot(snap)
    assert position.hash() == response.position_hash == Position.new(3, 11).hash()
    assert len(response.record.worker_piles) == 3 and not response.record.actions
    replayed = Position.from_record(convert.record_to_json(response.record))
    assert replayed.hash() == response.position_hash


def test_new_game_without_a_seed_deals_at_random(cacao_stub):
    hashes = {cacao_stub.NewGame(pb.NewGameRequest(players=2)).position_hash for _ in range(3)}
    assert len(hashes) > 1


# --- rules ----------------------------------------------------------------------

def test_list_legal_actions_of_a_record_matches_the_conformance_count(cacao_stub):
    point = json.loads((DATA / "legal.jsonl").read_text().splitlines()[0])
    record = record_message(point["record"], upto=point["at"])
    response = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(record=record))
    assert len(response.actions) == point["legal_count"]
    forms = sorted(convert.action_key(convert.action_to_json(a)) for a in response.actions)
    import hashlib

    assert hashlib.sha256("\n".join(forms).encode()).hexdigest() == point["sha256"]
    assert response.HasField("to_act") and response.phase in (pb.PHASE_TURN, pb.PHASE_RESOLVE)


def test_list_legal_actions_accepts_an_observation_of_the_seat_to_act(cacao_stub):
    _, position = position_message(upto=4)
    seat = position.to_act
    observation = convert.position_from_json(position.observation(seat))
    response = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=observation))
    assert len(response.actions) == len(position.legal_actions())
    assert response.position_hash == position_hash(position.observation(seat))


def test_a_whole_game_plays_through_apply_action(cacao_stub):
    rng = random.Random(5)
    response = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=3))
    position, digest = response.position, response.position_hash
    record = response.record
    applied = 0
    while position.phase != pb.PHASE_OVER:
        action = rng.choice(legal_actions(cacao_stub, position))
        step = cacao_stub.ApplyAction(pb.ApplyActionRequest(
            position=position, action=action, expected_position_hash=digest))
        record.actions.append(step.action)
        position, digest = step.position, step.position_hash
        applied += 1
    assert applied > 20
    assert step.HasField("result") and step.result.winners
    check = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record=record))
    assert check.valid and check.position_hash == digest
    assert check.result == step.result


def test_apply_action_reports_tiles_activations_gains_and_draws(cacao_stub):
    data = RECORDS[0]
    # action 4 of record 0: a place that fills (1,-1) with a market-3 from the display
    position = Position.from_record(data, upto=4)
    message = convert.position_from_json(position.snapshot())
    action = convert.action_from_json(data["actions"][4])
    step = cacao_stub.ApplyAction(pb.ApplyActionRequest(position=message, action=action))
    sources = {(p.tile.x, p.tile.y): p.source for p in step.placed}
    assert sources[(0, -1)] == pb.TILE_SOURCE_HAND
    assert sources[(1, -1)] == pb.TILE_SOURCE_DISPLAY
    assert step.activations and all(a.workers > 0 for a in step.activations)
    engine_report = position.apply(data["actions"][4])
    assert len(step.activations) == len(engine_report.activations)
    assert step.position_hash == position.hash()
    # the resolve that follows ends the turn: the mover draws, the display refills
    follow = cacao_stub.ApplyAction(pb.ApplyActionRequest(
        position=step.position, action=convert.action_from_json(data["actions"][5])))
    assert follow.turn_ended and follow.draws.worker_tile_drawn
    assert follow.draws.worker_tile != pb.WORKER_TILE_UNSPECIFIED
    assert len(follow.draws.display_refill) == 1
    assert [g.seat for g in follow.gains] == [0] and follow.gains[0].gold == 3


def test_apply_action_to_a_record_extends_the_record(cacao_stub):
    record = record_message(0, upto=10)
    action = convert.action_from_json(RECORDS[0]["actions"][10])
    step = cacao_stub.ApplyAction(pb.ApplyActionRequest(record=record, action=action))
    assert len(step.record.actions) == 11
    assert step.position_hash == Position.from_record(RECORDS[0], upto=11).hash()


def test_validate_record_accepts_every_kind_of_player_count(cacao_stub):
    for index in (0, 20, 40):  # 2, 3 and 4 players
        response = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record=record_message(index)))
        assert response.valid, response.error_message
        assert response.actions_replayed == len(RECORDS[index]["actions"])
        assert list(response.result.winners) == RECORDS[index]["result"]["winners"]


def test_validate_record_reports_the_first_illegal_action(cacao_stub):
    data = json.loads(json.dumps(RECORDS[1]))
    data["actions"][7]["seat"] = 1 - data["actions"][7]["seat"]
    response = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=json.dumps(data)))
    assert not response.valid and response.error_index == 7
    assert "seat" in response.error_message
    assert response.actions_replayed == 7
    assert response.position_hash == Position.from_record(RECORDS[1], upto=7).hash()


def test_validate_record_reports_a_bad_header_and_a_wrong_result(cacao_stub):
    data = dict(RECORDS[2], surprise=1)
    response = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=json.dumps(data)))
    assert not response.valid and response.error_index == -1 and "surprise" in response.error_message
    record = record_message(2)
    record.result.seats[0].gold += 1
    response = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record=record))
    assert not response.valid and response.error_index == len(record.actions)
    assert "result" in response.error_message


# --- search ---------------------------------------------------------------------

def test_suggest_action_returns_a_legal_action_and_an_evaluation(cacao_stub):
    message, position = position_message(upto=6)
    response = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(iterations=200), seed=1, max_candidates=3))
    legal = {convert.action_key(a.to_json()) for a in position.legal_actions()}
    assert convert.action_key(convert.action_to_json(response.action)) in legal
    evaluation = response.evaluation
    assert evaluation.final and evaluation.best_action == response.action
    # the hash of what the search saw: the observation of the seat to act
    assert response.seat == position.to_act
    assert response.position_hash == position_hash(position.observation(position.to_act))
    assert len(evaluation.seats) == position.players
    assert 0.0 <= evaluation.seats[0].win_probability <= 1.0
    assert 0 < len(evaluation.candidates) <= 3
    assert 0 < evaluation.iterations <= 200
    assert evaluation.principal_variation[0] == response.action
    assert evaluation.limits.iterations == 200


def test_suggest_action_runs_one_iteration_or_a_named_level(cacao_stub):
    message, _ = position_message(upto=2)
    quick = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(iterations=1), seed=2))
    assert quick.evaluation.iterations == 1
    named = cacao_stub.SuggestAction(pb.SuggestActionRequest(record=record_message(0, upto=2),
                                                              level="beginner", seed=2))
    assert named.action.WhichOneof("kind")


def test_suggest_action_for_an_observation_plays_fair(cacao_stub):
    _, position = position_message(upto=6)
    seat = position.to_act
    observation = convert.position_from_json(position.observation(seat))
    response = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=observation, limits=pb.SearchLimits(iterations=50), seed=3))
    assert response.seat == seat
    legal = {convert.action_key(a.to_json()) for a in position.legal_actions()}
    assert convert.action_key(convert.action_to_json(response.action)) in legal


def test_budgets_above_the_limits_are_clamped(cacao_stub):
    message, _ = position_message(upto=2)
    response = cacao_stub.SuggestAction(
        pb.SuggestActionRequest(position=message, seed=4,
                                limits=pb.SearchLimits(iterations=10**9, time=seconds(0.2), threads=64)),
        timeout=10)
    limits = response.evaluation.limits
    assert limits.iterations == 200_000 and limits.threads == 1
    assert limits.time.ToNanoseconds() == 200_000_000


def test_analyze_position_streams_reports_while_it_searches_and_ends_with_one_final(
        cacao_stub, cacao_server):
    message, position = position_message(upto=6)
    # a search of ten minutes: its reports come every 50 ms long before it ends
    running = cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=message, limits=pb.SearchLimits(time=seconds(600)),
        report_interval=seconds(0.05), seed=5))
    reports = [next(running) for _ in range(3)]
    running.cancel()
    assert not any(r.evaluation.final for r in reports)
    assert [r.sequence for r in reports] == [0, 1, 2]
    iterations = [r.evaluation.iterations for r in reports]
    assert iterations == sorted(iterations)
    assert all(r.position_hash == position_hash(position.observation(position.to_act)) for r in reports)
    assert cacao_server[0].cacao_api.gate.wait_running(0, GUARD_S)  # the cancel ended it
    # a search that runs to its budget: as many reports as came, then exactly one final
    reports = list(cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=message, limits=pb.SearchLimits(iterations=2_000),
        report_interval=seconds(0.05), seed=5)))
    assert [r.evaluation.final for r in reports] == [False] * (len(reports) - 1) + [True]
    assert [r.sequence for r in reports] == list(range(len(reports)))
    iterations = [r.evaluation.iterations for r in reports]
    assert iterations == sorted(iterations) and iterations[-1] == 2_000
    assert all(r.position_hash == position_hash(position.observation(position.to_act)) for r in reports)


def test_analyze_position_with_an_iteration_budget_ends_when_it_is_spent(cacao_stub):
    message, _ = position_message(upto=6)
    reports = list(cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=message, limits=pb.SearchLimits(iterations=300), seed=6)))
    assert reports[-1].evaluation.final and reports[-1].evaluation.iterations == 300


def test_an_analysis_grows_one_search_with_the_analysis_settings(cacao_stub, cacao_server):
    """The reports come from one search that goes on growing, so with the same
    seed and iterations its final evaluation is that of one search with the
    analysis settings; a suggestion searches with the play settings."""
    message, position = position_message(upto=8)
    limits = pb.SearchLimits(iterations=20_000)
    reports = list(cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=message, limits=limits, report_interval=seconds(0.05), seed=17)))
    threads = cacao_server[0].cacao_api.options.search_threads
    direct = search(position, Limit(iterations=20_000, threads=threads), ANALYSIS, seed=17)
    suggested = cacao_stub.SuggestAction(pb.SuggestActionRequest(
        position=message, limits=limits, seed=17)).evaluation
    # how many reports came depends on the machine's speed; that each only adds
    # to the one before is certain (an interim report for sure: the next test)
    final = reports[-1].evaluation
    assert [c.visits for c in final.candidates] == [c.visits for c in direct.candidates][:len(final.candidates)]
    assert [s.win_probability for s in final.seats] == pytest.approx(direct.win_probability, abs=1e-6)
    assert [c.visits for c in suggested.candidates] != [c.visits for c in final.candidates]
    for report in reports[:-1]:
        assert not report.evaluation.final and report.evaluation.stopped_by == ""
        best = {c.action.SerializeToString(): c.visits for c in final.candidates}
        for c in report.evaluation.candidates:  # visits only grow
            assert c.visits <= best.get(c.action.SerializeToString(), c.visits)


def test_every_interim_report_of_an_analysis_adds_to_the_one_before_up_to_the_final(
        cacao_server, cacao_stub):
    """Read where the search makes them (in its own thread, before it goes on),
    so that no report is dropped: reports by the clock within a time budget,
    at least one before the budget ends. The final one is the analysis of
    the same seed and as many iterations."""
    api = cacao_server[0].cacao_api
    message, _ = position_message(upto=8)
    request = pb.AnalyzePositionRequest(position=message, limits=pb.SearchLimits(time=seconds(0.3)),
                                        report_interval=seconds(0.05), seed=17)
    started, ended, taken = threading.Event(), threading.Event(), []
    analysis = None

    def take_in_the_search_thread():
        started.wait()
        taken.extend(analysis.take())
        if taken and taken[-1].evaluation.final:
            ended.set()

    analysis = api.start_analysis(request, Call(), take_in_the_search_thread)
    started.set()
    assert ended.wait(GUARD_S)
    reports = [r.evaluation for r in taken]
    assert len(reports) >= 2 and [r.final for r in reports] == [False] * (len(reports) - 1) + [True]
    assert [r.sequence for r in taken] == list(range(len(taken)))
    final = reports[-1]
    assert final.stopped_by == "time" and final.iterations > 0
    for report in reports[:-1]:
        assert report.stopped_by == "" and report.iterations <= final.iterations
        best = {c.action.SerializeToString(): c.visits for c in final.candidates}
        for c in report.candidates:  # visits only grow
            assert c.visits <= best.get(c.action.SerializeToString(), c.visits)
    counted = list(cacao_stub.AnalyzePosition(pb.AnalyzePositionRequest(
        position=message, limits=pb.SearchLimits(iterations=final.iterations), seed=17)))[-1].evaluation
    assert [(c.action, c.visits) for c in final.candidates] == \
        [(c.action, c.visits) for c in counted.candidates]


# --- bad input ------------------------------------------------------------------

def test_a_missing_position_is_invalid_argument(cacao_stub):
    code, message, details = error_of(cacao_stub.ListLegalActions, pb.ListLegalActionsRequest())
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "position" in message
    assert violated_fields(details) == ["position"]
    assert details["ErrorInfo"].domain == "cacao.v1"


def test_a_malformed_position_names_its_fields(cacao_stub):
    message, _ = position_message(upto=6)
    message.seats[1].hand.append(pb.WORKER_TILE_UNSPECIFIED)
    message.board[0].ClearField(message.board[0].WhichOneof("tile"))
    code, text, details = error_of(cacao_stub.ListLegalActions,
                                   pb.ListLegalActionsRequest(position=message))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert set(violated_fields(details)) == {"position.board[0]", "position.seats[1].hand[3]"}
    assert details["ErrorInfo"].reason == "INVALID_POSITION"


def test_an_impossible_position_is_invalid_argument_naming_the_field(cacao_stub):
    message, _ = position_message(upto=6)
    message.seats[0].cacao = 9
    code, text, details = error_of(cacao_stub.SuggestAction,
                                   pb.SuggestActionRequest(position=message))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violated_fields(details) == ["position.seats[0].cacao"]
    assert "position.seats[0].cacao" in text


def test_a_bad_record_is_invalid_argument_naming_the_action(cacao_stub):
    record = record_message(0, upto=12)
    record.actions[5].seat = 1
    code, text, details = error_of(cacao_stub.SuggestAction, pb.SuggestActionRequest(record=record))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violated_fields(details) == ["record.actions[5]"]


def test_an_unknown_action_is_invalid_argument(cacao_stub):
    message, _ = position_message(upto=6)
    code, text, details = error_of(cacao_stub.ApplyAction,
                                   pb.ApplyActionRequest(position=message, action=pb.Action(seat=0)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "action" in text
    assert violated_fields(details) == ["action"]
    bad = pb.Action(seat=0, place=pb.Action.Place(tile=9, x=1, y=0, rotation=5))
    code, text, details = error_of(cacao_stub.ApplyAction,
                                   pb.ApplyActionRequest(position=message, action=bad))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert set(violated_fields(details)) == {"action.place.tile", "action.place.rotation"}


def test_an_illegal_action_is_invalid_argument_naming_the_field(cacao_stub):
    message, position = position_message(upto=6)
    legal = position.legal_actions()[0].to_json()
    wrong_seat = convert.action_from_json(dict(legal, seat=1 - legal["seat"]))
    code, text, details = error_of(cacao_stub.ApplyAction,
                                   pb.ApplyActionRequest(position=message, action=wrong_seat))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "illegal" in text
    assert violated_fields(details) == ["action.seat"]
    assert details["ErrorInfo"].reason == "ILLEGAL_ACTION"
    far = convert.action_from_json(dict(legal, x=20, y=21, fills=[]))
    code, text, details = error_of(cacao_stub.ApplyAction,
                                   pb.ApplyActionRequest(position=message, action=far))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violated_fields(details) == ["action.place.x", "action.place.y"]
    # a kind of action the position does not allow now is named by its kind
    resolve = pb.Action(seat=legal["seat"], resolve=pb.Action.Resolve(gold=0, cacao=0))
    code, text, details = error_of(cacao_stub.ApplyAction,
                                   pb.ApplyActionRequest(position=message, action=resolve))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details["ErrorInfo"].reason == "ILLEGAL_ACTION"
    assert violated_fields(details) == ["action.resolve"]


def test_a_finished_game_is_failed_precondition(cacao_stub):
    record = record_message(0)
    code, text, details = error_of(cacao_stub.SuggestAction, pb.SuggestActionRequest(record=record))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "over" in text
    assert details["PreconditionFailure"].violations[0].type == "GAME_OVER"
    listed = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(record=record))
    assert not listed.actions and listed.phase == pb.PHASE_OVER and not listed.HasField("to_act")


def test_an_observation_cannot_apply_or_decide_for_a_hidden_hand(cacao_stub):
    _, position = position_message(upto=6)
    other = 1 - position.to_act
    observation = convert.position_from_json(position.observation(other))
    action = convert.action_from_json(position.legal_actions()[0].to_json())
    code, text, _ = error_of(cacao_stub.ApplyAction,
                             pb.ApplyActionRequest(position=observation, action=action))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "position.view" in text
    code, text, _ = error_of(cacao_stub.SuggestAction, pb.SuggestActionRequest(position=observation))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "hidden" in text


def test_a_stale_position_hash_is_failed_precondition(cacao_stub):
    message, position = position_message(upto=6)
    action = convert.action_from_json(position.legal_actions()[0].to_json())
    code, text, _ = error_of(cacao_stub.ApplyAction, pb.ApplyActionRequest(
        position=message, action=action, expected_position_hash="0000000000000000"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and position.hash() in text


def test_bad_budgets_are_invalid_argument(cacao_stub):
    message, _ = position_message(upto=6)
    code, text, details = error_of(cacao_stub.SuggestAction,
                                   pb.SuggestActionRequest(position=message, level="grandmaster"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "beginner" in text
    assert violated_fields(details) == ["level"]
    code, _, details = error_of(cacao_stub.SuggestAction, pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(iterations=-5)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violated_fields(details) == ["limits.iterations"]


def test_a_new_game_for_five_players_is_invalid_argument(cacao_stub):
    code, text, details = error_of(cacao_stub.NewGame, pb.NewGameRequest(players=5))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and violated_fields(details) == ["players"]


# --- deadlines, cancellation, capacity ------------------------------------------

def analyze_request(seconds_budget: float = 4.0) -> pb.AnalyzePositionRequest:
    message, _ = position_message(upto=6)
    return pb.AnalyzePositionRequest(position=message, report_interval=seconds(0.05),
                                     limits=pb.SearchLimits(time=seconds(seconds_budget)))


@pytest.fixture
def long_searches():
    """A fresh server whose searches may run ten minutes, and a stub: a test
    that must see a search end early (a cancel, a stop) waits far less than that."""
    options = server_options(worker_threads=8, max_searches=2, grace_s=0.0)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield server, cacao_pb2_grpc.CacaoServiceStub(channel)
    server.stop(0).wait()


def test_a_deadline_sizes_the_search(cacao_stub, cacao_server):
    api = cacao_server[0].cacao_api
    margin = api.options.deadline_margin_s
    message, _ = position_message(upto=6)
    # 0.4 s left: the search gets them less the reply's margin, and stops by the clock
    reply = api.suggest_action(
        pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(time=seconds(4.0))),
        Call(time_remaining=lambda: 0.4))
    evaluation = reply.evaluation
    assert evaluation.limits.time.ToNanoseconds() / 1e9 == pytest.approx(0.4 - margin - 0.02)
    assert evaluation.stopped_by == "time"
    # over gRPC, the call's deadline reaches the search: a far one shows in its budget
    response = cacao_stub.SuggestAction(
        pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(iterations=100)),
        timeout=60)
    assert 0 < response.evaluation.limits.time.ToNanoseconds() < 60e9
    assert response.evaluation.iterations == 100 and response.evaluation.stopped_by == "iterations"


def test_a_deadline_too_short_to_reply_is_deadline_exceeded_without_a_search(cacao_server):
    api = cacao_server[0].cacao_api
    message, _ = position_message(upto=6)
    request = pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(iterations=1))
    with pytest.raises(errors.ApiError) as caught:
        api.suggest_action(request, Call(time_remaining=lambda: 0.0015))
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.reason == pb.ErrorReason.DEADLINE_TOO_SHORT and "1.5 ms" in caught.value.message
    assert api.gate.running == 0
    assert api.suggest_action(request, Call(time_remaining=lambda: 0.5)).evaluation.iterations == 1


def test_an_analysis_ends_with_a_final_report_before_the_deadline(cacao_stub, cacao_server):
    api = cacao_server[0].cacao_api
    reports = list(api.analyze_position(analyze_request(), Call(time_remaining=lambda: 0.5)))
    assert reports[-1].evaluation.final
    assert [r.evaluation.final for r in reports].count(True) == 1
    final = reports[-1].evaluation
    assert final.stopped_by == "time" and final.limits.time.ToNanoseconds() < 0.5e9
    # over gRPC, the call's deadline reaches the analysis: a far one shows in its budget
    request = analyze_request()
    request.limits.Clear()
    request.limits.iterations = 300
    final = list(cacao_stub.AnalyzePosition(request, timeout=60))[-1].evaluation
    assert final.final and final.iterations == 300
    assert 0 < final.limits.time.ToNanoseconds() < 60e9


def test_a_cancelled_suggestion_frees_its_thread(long_searches):
    """The search ends at once, and every thread the call brought ends with it
    but the server pool's workers, which the pool keeps for the next calls: the
    one that served the call, and perhaps one more (a thread pool starts a
    worker when work arrives while its workers are busy, and a loaded
    machine's timing decides whether that happened)."""
    server, stub = long_searches
    gate = server.cacao_api.gate
    threads_before = set(threading.enumerate())
    message, _ = position_message(upto=6)
    future = stub.SuggestAction.future(pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(time=seconds(600))))
    assert gate.wait_running(1, GUARD_S)
    future.cancel()
    assert gate.wait_running(0, GUARD_S)  # far sooner than its ten minutes
    new = [t for t in threading.enumerate() if t not in threads_before]
    workers = [t for t in new if t.name.startswith("cacao-rpc")]
    assert len(workers) <= 2
    for thread in new:
        if thread not in workers:  # e.g. the client's channel thread: it ends, if not at once
            thread.join(GUARD_S)
            assert not thread.is_alive(), thread.name


def test_concurrent_requests_are_answered_correctly(cacao_stub):
    messages = [position_message(i, upto=4 + i % 7) for i in range(12)]

    def work(i):
        message, position = messages[i % len(messages)]
        listed = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=message))
        assert len(listed.actions) == len(position.legal_actions())
        step = cacao_stub.ApplyAction(pb.ApplyActionRequest(position=message, action=listed.actions[0]))
        return step.position_hash

    with futures.ThreadPoolExecutor(16) as pool:
        hashes = list(pool.map(work, range(48)))
    assert hashes[:12] == hashes[12:24] == hashes[36:48]


def test_quick_calls_are_answered_while_a_search_runs(long_searches):
    """The search releases the GIL: a search holding it would block this call
    for the ten minutes of its budget."""
    server, stub = long_searches
    message, _ = position_message(upto=6)
    future = stub.SuggestAction.future(pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(time=seconds(600))))
    assert server.cacao_api.gate.wait_running(1, GUARD_S)
    listed = stub.ListLegalActions(pb.ListLegalActionsRequest(position=message), timeout=GUARD_S)
    assert listed.actions
    assert not future.done() and server.cacao_api.gate.running == 1  # the search goes on
    future.cancel()
    assert server.cacao_api.gate.wait_running(0, GUARD_S)


def lowered_tasks() -> list[int]:
    """Threads of this process (server included) at SCHED_IDLE."""
    out = []
    for tid in os.listdir("/proc/self/task"):
        try:
            if os.sched_getscheduler(int(tid)) == os.SCHED_IDLE:
                out.append(int(tid))
        except OSError:  # the thread has just ended
            pass
    return out


@pytest.fixture
def idle_server():
    """A fresh server whose searches may run at idle priority (for ten minutes at
    most: the tests cancel them), and a stub."""
    options = ServerOptions(worker_threads=8, max_searches=2, max_iterations=10**9,
                            max_time_s=600.0, grace_s=0.0, search_priority="idle",
                            background_priority="idle")
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield server, cacao_pb2_grpc.CacaoServiceStub(channel)
    server.stop(0).wait()


def reduced_tasks() -> list[int]:
    """Threads of this process (server included) at nice 5 ("reduced")."""
    out = []
    for tid in os.listdir("/proc/self/task"):
        try:
            if os.getpriority(os.PRIO_PROCESS, int(tid)) == 5:
                out.append(int(tid))
        except OSError:  # the thread has just ended
            pass
    return out


def lowered_while_searching(server, stub, limits: pb.SearchLimits, timeout: float | None,
                            priority: int = 0) -> tuple[list[int], list[int]]:
    """The threads seen at idle and at reduced priority while a SuggestAction
    with ``limits`` (and the queue class ``priority``) runs, until its search
    thread is seen lowered; then the call is cancelled."""
    message, _ = position_message(upto=6)
    future = stub.SuggestAction.future(
        pb.SuggestActionRequest(position=message, limits=limits, priority=priority), timeout=timeout)
    idle: set[int] = set()
    reduced: set[int] = set()

    def lowered() -> bool:
        idle.update(lowered_tasks())
        reduced.update(reduced_tasks())
        return bool(idle or reduced)

    wait_until(lowered, "the search's thread at a lowered priority")
    assert not future.done()
    future.cancel()
    assert server.cacao_api.gate.wait_running(0, GUARD_S)
    # an ended thread may still be listed for a moment
    wait_until(lambda: not lowered_tasks() and not reduced_tasks(), "the search thread to end")
    return sorted(idle), sorted(reduced)


@pytest.mark.skipif(sys.platform != "linux", reason="SCHED_IDLE is Linux's")
def test_an_idle_search_bounded_by_iterations_grows_its_trees_below_the_rpc_threads(idle_server):
    server, stub = idle_server
    message, _ = position_message(upto=6)
    future = stub.SuggestAction.future(pb.SuggestActionRequest(
        position=message, limits=pb.SearchLimits(iterations=10**9)))
    lowered = wait_until(lowered_tasks, "the search's thread at idle priority")
    rpc_policies = {os.sched_getscheduler(t.native_id)  # the search's Python part runs there
                    for t in threading.enumerate() if t.name.startswith("cacao-rpc")}
    future.cancel()
    assert len(lowered) == 1  # one search, one thread
    assert rpc_policies == {os.SCHED_OTHER}
    assert server.cacao_api.gate.wait_running(0, GUARD_S)
    wait_until(lambda: lowered_tasks() == [], "the search thread to end with the search")


@pytest.mark.skipif(sys.platform != "linux", reason="SCHED_IDLE is Linux's")
def test_background_searches_grow_their_trees_at_the_background_priority():
    options = ServerOptions(worker_threads=8, max_searches=2, max_iterations=10**9, grace_s=0.0,
                            interactive_max_time_s=10.0**6,  # 10**9 iterations stay interactive
                            search_priority="reduced", background_priority="idle")
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            limits = pb.SearchLimits(iterations=10**9)
            idle, reduced = lowered_while_searching(server, stub, limits, None,
                                                    pb.SEARCH_PRIORITY_BACKGROUND)
            assert len(idle) == 1 and reduced == []
            idle, reduced = lowered_while_searching(server, stub, limits, None)  # interactive
            assert idle == [] and len(reduced) == 1
    finally:
        server.stop(0).wait()


@pytest.mark.skipif(sys.platform != "linux", reason="SCHED_IDLE is Linux's")
def test_a_search_that_promised_a_time_runs_at_reduced_priority_only_while_searches_are_starved(idle_server):
    """A timed search grows its trees at idle, the default, until one at idle
    ends well after its budget (other processes hold the cores); then a time
    budget or a deadline grows them at "reduced" (nice 5), never starved."""
    assert ServerOptions().search_priority == "idle"
    server, stub = idle_server
    idle, reduced = lowered_while_searching(server, stub, pb.SearchLimits(time=seconds(600)), None)
    assert len(idle) == 1 and reduced == []
    server.cacao_api.starvation.observe("idle", late_s=1.0)  # a 1 s late search, as next to busy processes
    idle, reduced = lowered_while_searching(server, stub, pb.SearchLimits(time=seconds(600)), None)
    assert idle == [] and len(reduced) == 1
    # the budget of the test above, cut by a deadline
    idle, reduced = lowered_while_searching(server, stub, pb.SearchLimits(iterations=10**9), 300.0)
    assert idle == [] and len(reduced) == 1


def test_the_search_priority_is_a_flag_and_an_environment_variable():
    with pytest.raises(ValueError, match="search_priority"):
        ServerOptions(search_priority="urgent")
    assert parse_args(["--search-priority", "low"], {})[2].search_priority == "low"
    assert parse_args([], {"CACAO_SEARCH_PRIORITY": "normal"})[2].search_priority == "normal"


# --- health and reflection ------------------------------------------------------

def test_health_reports_serving_for_the_server_and_the_service(cacao_server):
    with grpc.insecure_channel(cacao_server[1]) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICE):
            status = stub.Check(health_pb2.HealthCheckRequest(service=service)).status
            assert status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_and_describes_the_service(cacao_server):
    with grpc.insecure_channel(cacao_server[1]) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)]
        listed, described = list(stub.ServerReflectionInfo(iter(requests)))
    names = {s.name for s in listed.list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health"} <= names
    assert described.file_descriptor_response.file_descriptor_proto


# --- processes: flags, round robin, SIGTERM --------------------------------------

def test_flags_and_environment_variables_set_the_options():
    host, port, options = parse_args(["--max-searches", "3"],
                                     {"CACAO_PORT": "6001", "CACAO_MAX_TIME": "2.5"})
    assert (host, port) == ("127.0.0.1", 6001)
    assert options.max_searches == 3 and options.max_time_s == 2.5
    assert options.worker_threads > options.max_searches
    assert parse_args([], {})[:2] == ("127.0.0.1", 50051)
    assert ServerOptions().search_threads == 1


def start_server_process(*flags: str) -> tuple[subprocess.Popen, int]:
    """A cacao-server process on a free port, a test's server (support.TEST_SERVER_FLAGS):
    (process, port)."""
    server = LocalServer(*TEST_SERVER_FLAGS, *flags)
    return server.process, server.port


def test_round_robin_over_two_server_processes_uses_both():
    processes = [start_server_process() for _ in range(2)]
    try:
        ports = [port for _, port in processes]
        config = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
        target = "ipv4:" + ",".join(f"127.0.0.1:{p}" for p in ports)
        with grpc.insecure_channel(target, options=[("grpc.service_config", config)]) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            instances: set[str] = set()

            def both_answer() -> bool:  # both connected: the first one may answer alone before
                reply = stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=GUARD_S)
                instances.add(reply.instance)
                return len(instances) == 2

            wait_until(both_answer, "both processes to answer through round_robin")
            seen = [stub.GetServerInfo(pb.GetServerInfoRequest()).instance for _ in range(20)]
            record = record_message(0, upto=3)
            hashes = {stub.ListLegalActions(pb.ListLegalActionsRequest(record=record)).position_hash
                      for _ in range(4)}
        counts = {instance: seen.count(instance) for instance in set(seen)}
        assert len(counts) == 2 and min(counts.values()) >= 8, counts
        assert len(hashes) == 1  # stateless: every replica gives the same answer
    finally:
        for process, _ in processes:
            process.send_signal(signal.SIGTERM)
        assert [process.wait(timeout=GUARD_S) for process, _ in processes] == [0, 0]


def test_sigterm_stops_a_running_search_after_the_grace_period_and_exits_0():
    process, port = start_server_process("--grace", "0.3", "--drain", "0")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            stream = stub.AnalyzePosition(analyze_request(seconds_budget=30))
            next(stream)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=GUARD_S) == 0
            assert list(stream)[-1].evaluation.final  # stopped, answered, not cut
    finally:
        if process.poll() is None:
            process.kill()
