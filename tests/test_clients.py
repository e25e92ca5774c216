"""The clients: the client library, cacao-play, cacao-match and the embedding example.

Everything runs against a real server (the ``cacao_server`` fixture of
conftest.py, on a free port) and the installed package; the programs run as
subprocesses driven through their real input. Budgets are tiny (20 iterations
a move) so that whole games take a second or two.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from support import server_options

from cacaoai.client import CacaoClient, CacaoClientError, Limit, board, notation
from cacaoai.client.local import LocalServer, free_port
from cacaoai.engine import Action, Position, faces, record_text

FAST = Limit(iterations=20)
EXAMPLE = Path(__file__).resolve().parents[1] / "clients" / "examples" / "embed.py"


@pytest.fixture
def client(cacao_server):
    with CacaoClient(cacao_server[1], timeout=10.0, retries=1, backoff=0.05) as c:
        yield c


def command(name: str) -> list[str]:
    """The installed entry point ``name``, or ``python -m`` of its module."""
    script = Path(sys.executable).parent / name
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", f"cacaoai.client.{name.split('-')[1]}"]


def _position_message(game: Position):
    from cacaoai.api import convert

    return convert.position_from_json(game.snapshot())


def random_game(seed: int, players: int = 2, stop_at: int | None = None) -> Position:
    rng = random.Random(seed)
    game = Position.new(players=players, seed=seed)
    while not game.is_over and (stop_at is None or len(game.history) < stop_at):
        game.apply(rng.choice(game.legal_actions()))
    return game


# --- the client library -------------------------------------------------------

def test_the_client_package_does_not_load_the_server():
    probe = ("import sys, cacaoai.client, cacaoai.client.match, cacaoai.client.play, "
             "cacaoai.client.local\n"
             "print(sorted(m for m in sys.modules if m.startswith('cacaoai.server')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert "cacaoai.api.convert" in subprocess.run(
        [sys.executable, "-c", "import sys, cacaoai.client; print(list(sys.modules))"],
        capture_output=True, text=True, check=True).stdout


def test_a_malformed_message_is_a_conversion_error_naming_the_fields():
    from cacaoai.api import convert
    from cacaoai.api.cacao.v1 import cacao_pb2 as pb

    with pytest.raises(convert.ConversionError) as caught:
        convert.action_to_json(pb.Action(seat=-1, discard=pb.Action.Discard()))
    assert caught.value.reason == pb.ErrorReason.INVALID_ACTION
    assert [f for f, _ in caught.value.violations] == ["action.seat", "action.discard.tile"]
    assert str(caught.value).startswith("action.seat: seat -1 is negative")


def test_actions_read_at_once_are_the_actions_the_checked_path_gives():
    """action_from_proto's quick reading of well-formed messages gives what
    Action.from_json(action_to_json(...)) gives, and the same errors."""
    import random

    from cacaoai.api import convert
    from cacaoai.api.cacao.v1 import cacao_pb2 as pb
    from cacaoai.engine import Action, ActionFormatError, Position

    def checked(message: pb.Action) -> Action:
        return Action.from_json(convert.action_to_json(message))

    rng, kinds = random.Random(4), set()
    for game in range(6):
        position = Position.new(players=2 + game % 3, seed=game)
        while not position.is_over:
            for action in position.legal_actions():
                message = convert.action_to_proto(action)
                if len(action.fills) > 1:  # any order of the fills on the wire
                    fills = [pb.Fill(x=f.x, y=f.y, tile=f.tile) for f in message.place.fills]
                    del message.place.fills[:]
                    message.place.fills.extend(reversed(fills))
                assert convert.action_from_proto(message) == checked(message) == action
                kinds.add(action.type)
            position.apply(rng.choice(position.legal_actions()))
    assert kinds >= {"place", "overbuild", "resolve"}
    discard = Action.discard(2, "3100")  # legal only when no placement is
    assert convert.action_from_proto(convert.action_to_proto(discard)) == discard

    place = pb.Action(seat=1, place=pb.Action.Place(tile=pb.WORKER_TILE_1111, x=2, y=-1, rotation=1))
    bad_fill = pb.Action(seat=1, place=pb.Action.Place(
        tile=pb.WORKER_TILE_1111, fills=[pb.Fill(x=1, y=1, tile=999)]))
    wrongs = [pb.Action(seat=-1, discard=pb.Action.Discard()), pb.Action(seat=1),
              pb.Action(seat=9, discard=pb.Action.Discard(tile=pb.WORKER_TILE_1111)),
              pb.Action(seat=1, resolve=pb.Action.Resolve(gold=1, cacao=6)),
              pb.Action(seat=1, overbuild=pb.Action.Overbuild(tile=pb.WORKER_TILE_1111, rotation=4)),
              bad_fill]
    for wrong in wrongs:
        with pytest.raises((convert.ConversionError, ActionFormatError)) as quick:
            convert.action_from_proto(wrong)
        with pytest.raises(type(quick.value)) as slow:
            checked(wrong)
        assert str(quick.value) == str(slow.value)
    assert convert.action_from_proto(place) == checked(place)

def test_server_info_lists_levels_and_limits(client):
    info = client.get_server_info()
    assert info.api_version == "cacao.v1"
    assert info.record_format == "cacao-record/1"
    assert info.levels and info.default_level in info.levels
    assert info.limits.max_iterations > 0 and info.limits.max_concurrent_searches >= 1
    assert info.limits.search_priority == "normal" and info.limits.max_client_searches == 0  # the fixture's


def test_server_info_carries_every_limit_the_rules_facts_and_the_model(client, cacao_stub):
    from cacaoai.api.cacao.v1 import cacao_pb2 as pb
    from cacaoai.engine import rules
    from cacaoai.server import ServerOptions

    info, defaults = client.get_server_info(), ServerOptions()
    limits = info.limits
    assert (limits.max_time_s, limits.min_report_interval_s) == (600.0, defaults.min_report_interval_s)
    assert (limits.max_queued_searches, limits.max_client_interactive) == (defaults.max_queue, 0)
    assert (limits.max_queue_wait_s, limits.interactive_max_time_s) == (
        defaults.max_queue_wait_s, defaults.interactive_max_time_s)
    assert limits.memory_budget_bytes == defaults.memory_budget_bytes and limits.max_tree_nodes > 0
    facts = info.rules
    assert [(t.tile, t.name, t.faces) for t in facts.worker_tiles] == [
        (name, name, rules.WORKER_FACES[name]) for name in rules.WORKER_TILES]
    assert all(len(t.per_seat) == 3 for t in facts.worker_tiles)
    assert [(t.tile, t.name) for t in facts.jungle_tiles] == [(n, n) for n in rules.JUNGLE_TILES]
    assert sum(t.start for t in facts.jungle_tiles) == len(rules.START_TILES)
    assert (facts.water_track, facts.max_cacao, facts.max_sun, facts.temple_awards,
            facts.sun_gold) == (tuple(rules.WATER_TRACK), rules.MAX_CACAO, rules.MAX_SUN,
                                tuple(rules.TEMPLE_AWARDS), rules.SUN_GOLD)
    assert info.model_version and info.model_version == cacao_stub.GetServerInfo(
        pb.GetServerInfoRequest()).model_version


def _standing(game: Position) -> tuple:
    """The engine's own standing of a game, in the shape of the client's Standing."""
    held = [seat["cacao"] for seat in game.snapshot()["seats"]]
    seats = tuple((seat, s.gold, s.temples, s.sun, s.water, s.total, held[seat])
                  for seat, s in enumerate(game.scores()))
    return seats, tuple((t.x, t.y, t.workers, t.awards) for t in game.temples())


def _client_standing(standing) -> tuple:
    return (tuple((s.seat, s.gold, s.temples, s.sun, s.water, s.total, s.cacao)
                  for s in standing.seats),
            tuple((t.x, t.y, t.workers, t.gold) for t in standing.temples))


def test_new_game_record_replays_to_the_same_position(client):
    deal = client.new_game(3, seed=11)
    game = Position.from_record(deal.record)
    assert game.snapshot() == deal.position
    assert game.hash() == deal.position_hash


def test_legal_actions_are_engine_actions_equal_to_the_local_ones(client):
    game = random_game(3, stop_at=5)
    listed = client.legal_actions(game)
    assert listed.to_act == game.to_act and listed.phase == game.phase
    assert list(listed.actions) == game.legal_actions()
    assert all(isinstance(a, Action) for a in listed.actions)
    assert _client_standing(listed.standing) == _standing(game)


def test_apply_action_on_a_record_agrees_with_the_local_engine(client):
    game = Position.new(players=2, seed=5)
    record = game.record()
    for _ in range(6):
        action = game.legal_actions()[-1]
        applied = client.apply_action(record, action, expected_position_hash=game.hash())
        report = game.apply(action)
        assert applied.action == action
        assert applied.position == game.snapshot()
        assert applied.record == game.record()
        assert applied.gains == {s: g for s, g in enumerate(report.gains) if any(g.values())}
        assert _client_standing(applied.standing) == _standing(game)
        record = applied.record


def test_an_overbuild_places_a_tile_that_names_the_one_it_covers(client):
    rng = random.Random(2)
    for seed in range(40):
        game = Position.new(players=2, seed=seed)
        while not game.is_over:
            legal = game.legal_actions()
            overbuilds = [a for a in legal if a.type == "overbuild"]
            if overbuilds:
                break
            game.apply(rng.choice(legal))
        if overbuilds:
            break
    action = overbuilds[0]
    under = next(t for t in game.snapshot()["board"] if (t["x"], t["y"]) == (action.x, action.y))
    placed = client.apply_action(game, action).placed
    top = next(p for p in placed if p.source == "hand")
    assert (top.x, top.y, top.tile, top.seat, top.rot) == (action.x, action.y, action.tile,
                                                           action.seat, action.rot)
    assert top.covers is not None and (top.covers.tile, top.covers.rot) == (under["tile"], under["rot"])
    assert all(p.covers is None for p in placed if p is not top)


def test_illegal_action_raises_invalid_argument_naming_the_field(client):
    game = Position.new(players=2, seed=5)
    seat = game.to_act
    tile = game.observation(seat)["seats"][seat]["hand"][0]
    with pytest.raises(CacaoClientError) as caught:
        client.apply_action(game, Action.place(seat, tile, 40, 40, 0))
    error = caught.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "ILLEGAL_ACTION"
    assert any(f.startswith("action.place") for f, _ in error.field_violations)
    assert "40" in error.message


def test_suggest_from_an_observation_returns_a_legal_action(client):
    game = random_game(8, stop_at=7)
    seat = game.to_act
    suggestion = client.suggest(game.observation(seat), FAST, seed=1, max_candidates=3)
    assert suggestion.seat == seat
    assert suggestion.action in game.legal_actions()
    evaluation = suggestion.evaluation
    assert evaluation.final and evaluation.best_action == suggestion.action
    assert len(evaluation.candidates) <= 3
    assert len(evaluation.seats) == 2


def test_suggest_for_a_seat_whose_hand_is_hidden_fails_its_precondition(client):
    game = Position.new(players=2, seed=5)
    other = 1 - game.to_act
    with pytest.raises(CacaoClientError) as caught:
        client.suggest(game.observation(other), FAST)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.preconditions


def test_unknown_level_is_invalid_argument_on_the_level_field(client):
    with pytest.raises(CacaoClientError) as caught:
        client.suggest(Position.new(players=2, seed=1), "no-such-level")
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [f for f, _ in caught.value.field_violations] == ["level"]


def test_analyze_streams_reports_ending_with_one_final(client):
    game = Position.new(players=2, seed=9)
    reports = list(client.analyze(game, Limit(iterations=3000), report_interval=0.05, seed=3))
    assert reports and reports[-1].evaluation.final
    assert [r.sequence for r in reports] == list(range(len(reports)))
    assert not any(r.evaluation.final for r in reports[:-1])


def test_leaving_an_analysis_early_cancels_it_quietly(client):
    game = Position.new(players=2, seed=9)
    for report in client.analyze(game, "20s", report_interval=0.05):
        assert report.sequence == 0
        break
    assert client.get_server_info().api_version == "cacao.v1"  # the channel still works


def test_a_suggestion_carries_the_whole_search_result(client):
    from cacaoai.api import SearchResult

    game = Position.new(players=3, seed=12)
    evaluation = client.suggest(game, Limit(iterations=200), seed=4).evaluation
    assert isinstance(evaluation, SearchResult) and evaluation.final
    assert evaluation.stopped_by == "iterations" and evaluation.iterations == 200
    assert evaluation.seat == game.to_act == evaluation.to_act
    assert len(evaluation.score_lead) == 3 and evaluation.seats[1].score_lead == evaluation.score_lead[1]
    assert evaluation.limit.iterations == 200 and evaluation.threads == 1 and evaluation.nodes > 0
    assert all(c.score_lead is not None for c in evaluation.candidates)


def test_a_search_reports_the_threads_it_used_within_the_servers_allowance(client):
    game = Position.new(players=2, seed=3)
    assert client.get_server_info().limits.search_threads == 1
    one = client.suggest(game, Limit(iterations=100, threads=2), seed=1).evaluation
    assert one.threads == 1 and one.limit.threads == 1  # asked for 2, allowed 1: reported
    from cacaoai.server import create_server

    server, port = create_server("127.0.0.1:0", server_options(worker_threads=4, max_searches=1,
                                                               search_threads=2, grace_s=0.0))
    server.start()
    try:
        with CacaoClient(f"127.0.0.1:{port}") as wider:
            assert wider.get_server_info().limits.search_threads == 2
            two = wider.suggest(game, "iterations=100,threads=8", seed=1).evaluation
            assert two.threads == 2 and two.limit.threads == 2
            assert wider.suggest(game, Limit(iterations=100, threads=1), seed=1).evaluation.threads == 1
    finally:
        server.stop(None).wait()


def test_validate_record_reports_the_first_illegal_action(client):
    record = random_game(4).record()
    good = client.validate_record(record)
    assert good.valid and good.result == record["result"]
    assert good.actions_replayed == len(record["actions"])
    bad = json.loads(json.dumps(record))
    bad["actions"][2]["x"] = 40
    answer = client.validate_record(json.dumps(bad))
    assert not answer.valid and answer.error_index == 2 and answer.actions_replayed == 2


def test_validate_record_gives_the_record_as_read_its_text_and_the_standing(client):
    game = random_game(4)
    record = game.record()
    good = client.validate_record(json.dumps({k: record[k] for k in reversed(list(record))}))
    assert good.record == record and good.record_json == record_text(record)
    assert _client_standing(good.standing) == _standing(game)
    assert [s.total for s in good.standing.seats] == record["result"]["gold"]
    bad_header = client.validate_record(json.dumps({**record, "players": 7}))
    assert not bad_header.valid and bad_header.error_index == -1
    assert (bad_header.standing, bad_header.record, bad_header.record_json) == (None, None, "")


def test_a_server_that_is_down_gives_unavailable_after_bounded_retries():
    target = f"127.0.0.1:{free_port()}"
    with CacaoClient(target, timeout=2.0, retries=2, backoff=0.05) as c:
        with pytest.raises(CacaoClientError) as caught:
            c.get_server_info()
    error = caught.value
    assert error.code == grpc.StatusCode.UNAVAILABLE
    assert error.attempts == 3
    assert target in error.message and "tried up to 3 times" in error.message


def test_a_search_refused_while_the_slots_are_busy_is_retried_by_grpc_until_one_frees():
    import threading

    from cacaoai.api.cacao.v1 import cacao_pb2 as pb
    from cacaoai.api.cacao.v1 import cacao_pb2_grpc
    from cacaoai.server import create_server

    # one slot and no queue: a search that cannot start is refused at once
    server, port = create_server("127.0.0.1:0", server_options(
        worker_threads=4, max_searches=1, max_queue=0, interactive_max_time_s=600.0, grace_s=0.0))
    server.start()
    target = f"127.0.0.1:{port}"
    game = Position.new(players=2, seed=6)
    try:
        with grpc.insecure_channel(target) as channel:
            # interactive, so that the move requests below cannot pause it
            hold = cacao_pb2_grpc.CacaoServiceStub(channel).AnalyzePosition(
                pb.AnalyzePositionRequest(position=_position_message(game),
                                          limits=pb.SearchLimits(iterations=10**7),
                                          priority=pb.SEARCH_PRIORITY_INTERACTIVE), timeout=60)
            next(hold)  # the one search slot is taken
            assert server.cacao_api.gate.running == 1
            with CacaoClient(target, retries=0) as impatient:
                with pytest.raises(CacaoClientError) as caught:
                    impatient.suggest(game, Limit(iterations=50), seed=1)
            assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            threading.Timer(0.4, hold.cancel).start()  # the slot frees while the client retries
            with CacaoClient(target, retries=4, backoff=0.5, max_backoff=2.0) as patient:
                suggestion = patient.suggest(game, Limit(iterations=50), seed=1)
            assert suggestion.evaluation.iterations == 50
    finally:
        server.stop(None).wait()


def test_a_search_request_asks_for_its_priority_by_name():
    from cacaoai.api.cacao.v1 import cacao_pb2 as pb
    from cacaoai.client.requests import search_request

    game = Position.new(players=2, seed=6)
    for name, value in (("interactive", pb.SEARCH_PRIORITY_INTERACTIVE),
                        ("background", pb.SEARCH_PRIORITY_BACKGROUND), (None, 0)):
        assert search_request(pb.SuggestActionRequest(), game, priority=name).priority == value
        assert search_request(pb.AnalyzePositionRequest(), game, priority=name).priority == value
    with pytest.raises(ValueError, match="priority: 'urgent'"):
        search_request(pb.SuggestActionRequest(), game, priority="urgent")


def test_the_retry_policy_is_a_grpc_service_config():
    from cacaoai.client.connection import retry_service_config

    config = json.loads(retry_service_config(9, 0.1, 2.0))
    every, search = config["methodConfig"]
    assert search["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]
    # every call that searches, reviews too: a full server refuses them all alike
    assert {n["method"] for n in search["name"]} == {"SuggestAction", "AnalyzePosition", "Analyze", "ReviewGame"}
    assert every["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert {n["method"] for n in every["name"]} == {
        "GetServerInfo", "NewGame", "ListLegalActions", "ApplyAction", "ValidateRecord", "GetPuzzle", "CheckPuzzle"}
    assert every["retryPolicy"]["maxAttempts"] == 5  # gRPC's limit
    assert json.loads(retry_service_config(0, 0.1, 2.0)) == {"methodConfig": []}


def test_an_expired_deadline_is_deadline_exceeded_and_not_retried(client):
    game = Position.new(players=2, seed=2)
    with pytest.raises(CacaoClientError) as caught:
        client.suggest(game, Limit(time_s=5.0), timeout=0.001)
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.attempts == 1
    assert "deadline" in caught.value.message


def test_a_strength_text_becomes_a_level_or_limits_in_the_request():
    from cacaoai.api.cacao.v1 import cacao_pb2 as pb
    from cacaoai.client.requests import search_request

    game = Position.new(players=2, seed=1)

    def budget(strength):
        request = search_request(pb.SuggestActionRequest(), game, strength)
        kind = request.WhichOneof("budget")
        return request.level if kind == "level" else kind and request.limits

    assert budget("strong") == budget("level=Strong") == "strong"
    assert budget("500") == pb.SearchLimits(iterations=500)
    assert budget("2s").time.ToNanoseconds() == 2 * 10**9
    assert budget("250ms").time.ToNanoseconds() == 250 * 10**6
    limits = budget("iterations=5000,time=3,threads=2")
    assert (limits.iterations, limits.time.seconds, limits.threads) == (5000, 3, 2)
    assert budget(Limit(5000, 3.0, 2)) == limits
    assert budget("") is None and budget(None) is None  # the server's default level
    for limit in (Limit(iterations=7, time_s=1.5), Limit(threads=2)):
        assert budget(str(limit)) == budget(limit)
    with pytest.raises(ValueError, match="level name"):
        budget("fast=3")
    with pytest.raises(ValueError):
        budget("strong,500")
    with pytest.raises(ValueError, match="2.5s for seconds"):
        budget("2.5")


# --- a server in its own process ---------------------------------------------

def test_a_local_server_serves_until_stopped_and_its_log_is_read_throughout():
    lines: list[str] = []
    with LocalServer("--max-searches", "1", http=True, log=lines.append) as server:
        assert server.serving()
        assert server.address == f"127.0.0.1:{server.port}"
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", server.http_url)
        assert any("serving on" in line for line in server.startup_log)
        assert "board page" in server.startup_log[-1]
        with CacaoClient(server.address) as client:
            assert client.get_server_info().limits.max_concurrent_searches == 1
        assert server.memory_kib() > 0
    assert server.process.returncode == 0
    assert lines[:len(server.startup_log)] == server.startup_log
    assert "stopped" in lines[-1]  # read to the end: the lines after the start too


def test_a_local_server_that_cannot_start_raises_with_its_log():
    from cacaoai.client.local import StartError

    with pytest.raises(StartError, match="exited with 2") as caught:
        LocalServer("--max-searches", "many")
    assert "invalid int value" in str(caught.value)


# --- notation and board -------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_action_written_in_notation_reads_back(players):
    rng = random.Random(players)
    for seed in range(3):
        game = Position.new(players=players, seed=seed + 10 * players)
        while not game.is_over:
            legal = game.legal_actions()
            seat = game.to_act
            view = game.observation(seat)
            for action in legal:
                parsed = notation.parse(notation.write(action, legal), legal, view, seat)
                assert parsed.action == action, (notation.write(action, legal), parsed)
            game.apply(rng.choice(legal))


def test_list_numbers_pick_the_legal_action_in_order():
    game = Position.new(players=2, seed=3)
    legal = game.legal_actions()
    view = game.observation(game.to_act)
    assert notation.parse("2", legal, view, game.to_act).action == legal[1]
    assert "no action number" in notation.parse("999", legal, view, game.to_act).error


def test_mistakes_get_messages_that_say_what_is_wrong():
    game = Position.new(players=2, seed=3)
    seat = game.to_act
    legal = game.legal_actions()
    view = game.observation(seat)
    hand = view["seats"][seat]["hand"]
    missing = next(t for t in notation.WORKER_TILES if t not in hand)

    def error(text: str) -> str:
        parsed = notation.parse(text, legal, view, seat)
        assert parsed.action is None and parsed.error, text
        return parsed.error

    assert "no " + missing + " in hand" in error(f"{missing} 0,1 r0")
    assert "already holds a plantation-1" in error(f"{hand[0]} 0,0")
    assert "not next to any jungle tile" in error(f"{hand[0]} 9,9 r1")
    assert "0 to 3" in error(f"{hand[0]} 0,1 r7")
    assert "not a worker tile" in error("1234 0,1")
    assert "don't understand" in error("fly away")
    assert "No resolution" in error("r 2")


def test_missing_parts_leave_choices_to_pick_from():
    game = Position.new(players=2, seed=3)
    seat = game.to_act
    legal = game.legal_actions()
    view = game.observation(seat)
    tile = next(t for t in view["seats"][seat]["hand"] if t != "1111")
    cell = next((a.x, a.y) for a in legal if a.tile == tile)
    parsed = notation.parse(f"{tile} {cell[0]},{cell[1]}", legal, view, seat)
    assert parsed.action is None and len(parsed.choices) >= 4
    assert all(a.tile == tile and (a.x, a.y) == cell for a in parsed.choices)
    oriented = "".join(map(str, faces(tile, 1)))
    picked = notation.parse(f"{tile} at ({cell[0]}, {cell[1]}) {oriented}", legal, view, seat)
    assert picked.choices == [] or all(a.rot == 1 for a in picked.choices)
    assert picked.action is None or picked.action.rot == 1
    same = notation.parse(f"{tile}@{cell[0]},{cell[1]} r1", legal, view, seat)
    assert (same.action, same.choices) == (picked.action, picked.choices)


def test_board_shows_tiles_open_cells_and_owners():
    game = random_game(6, stop_at=6)
    view = game.observation(0)
    open_cells = {(a.x, a.y) for a in game.legal_actions() if a.type == "place"}
    plain = board.draw_position(view, ["red (you)", "yellow (AI)"], open_cells, viewer=0)
    for x, y in open_cells:
        assert f"{x},{y}" in plain
    assert "plant" in plain and "market" in plain
    assert re.search(r"\[[01]\]", plain)
    assert "Your hand:" in plain and "gold" in plain and "water" in plain
    coloured = board.draw_position(view, ["red (you)", "yellow (AI)"], open_cells, viewer=0, colour=True)
    assert "\x1b[41" in coloured and "\x1b[42" in coloured
    assert "\x1b" not in plain


def test_the_score_table_adds_each_seats_parts_up_to_the_final_gold():
    game = random_game(5, players=3)
    result = game.result()
    cacao = [seat["cacao"] for seat in game.snapshot()["seats"]]
    lines = board.score_lines(game.scores(), ["red", "yellow", "purple"], cacao, game.temples(),
                              result.winners)
    assert lines[0].split() == ["gold", "temples", "sun", "water", "total", "cacao"]
    rows = [line.split() for line in lines[1:4]]
    for seat, row in enumerate(rows):
        assert row[0] == board.SEAT_COLOUR_NAMES[seat]
        gold, temples, sun, water, total, left = map(int, row[1:7])
        assert gold + temples + sun + water == total == result.gold[seat]
        assert left == result.cacao[seat]
        assert (row[-1] == "winner") == (seat in result.winners)
    temples = [t for t in game.temples() if any(t.awards)]
    assert len(lines) == 4 + len(temples)
    for t, line in zip(temples, lines[4:]):
        assert line.strip().startswith(f"temple at {t.x},{t.y}: workers")


def test_the_status_line_rewrites_itself_on_a_terminal_and_prints_now_and_then_elsewhere():
    import io

    from cacaoai.client.console import CLEAR_LINE, StatusLine

    screen = io.StringIO()
    line = StatusLine(screen, tty=True, width=lambda: 20)
    line.show("AI 1 is thinking")
    line.show("AI 1 is thinking: 1,234 iterations")
    line.clear()
    assert screen.getvalue() == (CLEAR_LINE + "AI 1 is thinking" + CLEAR_LINE
                                 + "AI 1 is thinking: …" + CLEAR_LINE)  # cut to the width
    log = io.StringIO()
    plain = StatusLine(log, tty=False, every_s=2.0)
    for elapsed in (0.2, 1.9, 2.1, 2.3, 4.5, 4.6, 9.0):
        plain.show(f"at {elapsed}", elapsed)
    plain.clear()
    plain.show("next search", 0.4)
    plain.show("always", 0.5, always=True)
    assert log.getvalue().splitlines() == ["at 2.1", "at 4.5", "at 9.0", "always"]


def test_the_thinking_line_gives_iterations_time_and_win_chances_but_no_moves():
    from dataclasses import replace

    from cacaoai.client.console import thinking_text
    from cacaoai.search import search

    game = Position.new(players=2, seed=4)
    result = replace(search(game, Limit(iterations=300), seed=1), elapsed_s=1.25, final=False)
    text = thinking_text("yellow (AI)", result, ["red", "yellow"], tick=1)
    wins = [round(100 * s.win_probability) for s in result.seats]
    assert text == (f"/ yellow (AI) is thinking: 300 iterations, 1.2 s; win chances red {wins[0]}%, "
                    f"yellow {wins[1]}%")
    assert thinking_text("yellow (AI)", result, ["red", "yellow"], spinner=False).startswith("yellow (AI) is")
    assert result.best_action.tile not in text


def test_saved_record_text_is_the_record():
    record = random_game(2).record()
    assert json.loads(record_text(record)) == record
    assert Position.from_record(record_text(record)).is_over


# --- cacao-play through its real input ---------------------------------------

class Terminal:
    """Drives a program through pipes: wait for its prompt, then type a line."""

    PROMPT = re.compile(r"(your move|your choice|game over[^\n]*|[^\n]*cancel|[^\n]*quit)> $")

    def __init__(self, args: list[str], cwd: Path):
        self.proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.text = ""

    def prompt(self, timeout: float = 30.0) -> str:
        """Output up to and including the next prompt."""
        start = len(self.text)
        deadline = time.monotonic() + timeout
        while not self.PROMPT.search(self.text[start:]):
            left = deadline - time.monotonic()
            assert left > 0, f"no prompt; output so far:\n{self.text[-3000:]}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the program ended:\n{self.text[-3000:]}"
                self.text += chunk.decode()
        return self.text[start:]

    def type(self, line: str) -> str:
        """Types a line and returns the output up to the next prompt."""
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return self.prompt()

    def close(self, line: str = "quit") -> int:
        rest, _ = self.proc.communicate((line + "\n").encode(), timeout=30)
        self.text += rest.decode()
        return self.proc.returncode


def test_a_whole_game_of_cacao_play_with_mistakes_undo_and_save_load(cacao_server, tmp_path):
    term = Terminal([*command("cacao-play"), "--server", cacao_server[1], "--iterations", "20",
                     "--hint-level", "50", "--seed", "11", "--players", "2", "--color", "never"],
                    tmp_path)
    try:
        first = term.prompt()
        assert "Your hand:" in first and "x=" in first and "<" in first
        assert "Hints: 50 iterations" in first
        # the seats named as the board page names them: colour, and who plays it
        assert "seat 0 red (you), seat 1 yellow (AI, 20 iterations)" in first
        assert "Owners: [0] red (you), [1] yellow (AI)." in first
        assert re.search(r"^> red \(you\) +gold", first, re.M), first
        assert "not next to any jungle tile" in term.type("2101 99,99 r1")
        assert "I don't understand 'zz'" in term.type("zz 1,1")
        hint = term.type("hint")
        assert "win chances" in hint and "h1) " in hint and "(list " in hint
        assert "1)" in term.type("list")
        out = term.type("1")
        assert "red (you) places" in out or "red (you) takes" in out
        assert "Took back" in term.type("undo")
        term.type("1")
        assert "Saved" in term.type("save mid.json")
        out = ""
        for _ in range(3):  # play on a little, then go back to the saved game
            out = term.type("1")
        assert "Loaded mid.json" in term.type("load mid.json")
        assert "If the game ended now" in term.type("score")
        moves = 0
        while "game over" not in out:
            out = term.type("1")
            moves += 1
            assert moves < 100
        assert "Game over." in term.text and "gold" in out
        assert "Saved" in term.type("save final.json")
    finally:
        code = term.close("quit")
    assert code == 0, term.text[-2000:]
    assert "\x1b" not in term.text  # no colours and no status line on a pipe
    assert "AI 1" not in term.text and "You place" not in term.text  # no names but the page's
    mid = json.loads((tmp_path / "mid.json").read_text())
    final = json.loads((tmp_path / "final.json").read_text())
    assert Position.from_record(mid).turn > 0
    assert Position.from_record(final).is_over and "result" in final
    assert final["actions"][: len(mid["actions"])] == mid["actions"]
    # the final table: each seat's parts add up to its final gold
    end = term.text[term.text.index("Game over."):]
    rows = re.findall(r"^  (red|yellow) +(\d+) +([+-]\d+) +([+-]\d+) +([+-]\d+) +(\d+) +(\d+)", end,
                      re.MULTILINE)
    assert [r[0] for r in rows] == ["red", "yellow"], end
    for seat, (_, gold, temples, sun, water, total, cacao) in enumerate(rows):
        assert int(gold) + int(temples) + int(sun) + int(water) == int(total)
        assert int(total) == final["result"]["gold"][seat]
        assert int(cacao) == final["result"]["cacao"][seat]


def test_cacao_play_hints_are_numbered_h1_and_a_bare_number_stays_the_lists(cacao_server, tmp_path):
    term = Terminal([*command("cacao-play"), "--server", cacao_server[1], "--iterations", "20",
                     "--seed", "11", "--color", "never"], tmp_path)
    try:
        first = term.prompt()
        assert "Hints: level strong" in first  # not the opponent's 20 iterations
        assert "No hint for this position yet" in term.type("h1")
        levels = "beginner, easy, casual, club, advanced, strong, max"
        assert f"no such level; this server has {levels}" in term.type("hint nope")
        assert "hint 2.5:" in term.type("hint 2.5")
        hint = term.type("hint 300")
        assert "Asking the AI (300 iterations)" in hint
        suggestions = re.findall(r"^h(\d)\) (\S+) (-?\d+),(-?\d+)(?: r(\d))?.*?\(list (\d+)\)",
                                 hint, re.MULTILINE)
        assert [int(s[0]) for s in suggestions] == list(range(1, len(suggestions) + 1)), hint
        assert "Type h1..h" in hint and "a bare number plays from list" in hint
        # why the suggestion, against the runner-up, in the service's words
        assert re.search(r"^Why h\d rather than \S+.*: .+\.$", hint, re.MULTILINE), hint
        assert "win chances if every seat plays as strong: red " in hint  # whose play they assume
        assert "There is no h9" in term.type("h9")
        _, tile, x, y, rot, number = suggestions[-1]
        listed = term.type("list")
        assert re.search(rf"^ *{number}\) {tile} {x},{y}", listed, re.MULTILINE), listed
        played = term.type(f"h{len(suggestions)}")
        assert f"red (you) places {tile} at {x},{y} r{rot or 0}" in played, played
        assert "No hint for this position yet" in term.type("h1")  # that hint was for the last one
        helped = term.type("help")
        assert "h2 " in helped and "hint LEVEL" in helped and "score" in helped
    finally:
        code = term.close("quit")
    assert code == 0, term.text[-2000:]


def test_cacao_play_starts_its_own_server_without_one_given(tmp_path):
    done = subprocess.run([*command("cacao-play"), "--iterations", "20", "--seed", "1"],
                          input="quit\n", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Started a local Cacao server" in done.stdout and "Bye." in done.stdout


def test_cacao_play_names_the_levels_for_an_unknown_one(cacao_server, tmp_path):
    done = subprocess.run([*command("cacao-play"), "--server", cacao_server[1], "--level", "nope"],
                          input="", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown level 'nope'" in done.stderr


def test_cacao_play_reports_a_server_that_is_down(tmp_path):
    done = subprocess.run([*command("cacao-play"), "--server", f"127.0.0.1:{free_port()}"],
                          input="", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1 and "unavailable" in done.stderr


# --- cacao-match and the embedding example -----------------------------------

def test_cacao_match_plays_games_and_writes_valid_records(cacao_server, tmp_path):
    out_dir = tmp_path / "games"
    done = subprocess.run([*command("cacao-match"), "--server", cacao_server[1], "-s", "20",
                           "-s", "iterations=40", "--games", "2", "--rotate", "--seed", "4",
                           "--out", str(out_dir)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    files = sorted(out_dir.glob("game-*.json"))
    assert [f.name for f in files] == ["game-001.json", "game-002.json"]
    for f in files:
        assert Position.from_record(f.read_text()).is_over
    assert "Results over 2 games" in done.stdout and "won by" in done.stdout
    assert "red: " in done.stdout and "seat 0" not in done.stdout  # seats named as on the board page


def test_the_embedding_example_plays_a_whole_game(cacao_server):
    done = subprocess.run([sys.executable, str(EXAMPLE), "--server", cacao_server[1],
                           "--iterations", "20", "--seed", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "AI seat 1:" in done.stdout and "valid" in done.stdout
