"""The endgame solver's "exact" marks, end to end: a real server on real ports
(the session's gRPC ``cacao_server`` and the HTTP side over it, as cacao-server
serves both) answers SuggestAction, AnalyzePosition and ReviewGame through gRPC
and through Connect (binary and JSON) with ``Evaluation.exact``,
``Candidate.exact`` and ``DecisionReview.exact`` where the solver proved the
result, and the Python client's replies and its terminal text carry them.

The positions are random seeded games played on until every draw pile is
empty and at most 3 placements are left: the solver proves them in
milliseconds, so each call is quick.
"""

from __future__ import annotations

import asyncio
import random
from functools import cache

import grpc
import pytest
from test_connect import client as connect_client

from cacaoai.api import Candidate, Limit, SearchResult, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2_grpc import CacaoServiceStub
from cacaoai.client import CacaoClient, evaluation_lines
from cacaoai.client.replies import read_report, read_review, read_suggestion
from cacaoai.client.review import decision_lines
from cacaoai.engine import Action, Position
from cacaoai.search import endgame, search
from cacaoai.search.limits import PLAY
from cacaoai.server.http import start_http

pytestmark = pytest.mark.integration

TRANSPORTS = ("grpc", "connect-binary", "connect-json")
#: Each RPC used: the Connect client's method, and whether it streams its answer.
METHODS = {"SuggestAction": ("suggest_action", False), "AnalyzePosition": ("analyze_position", True),
           "ReviewGame": ("review_game", True)}
#: A review's budget a decision: enough for the solver to be tried at 3 placements left.
REVIEW = pb.SearchLimits(iterations=300)


@pytest.fixture(scope="module")
def http_url(cacao_server):
    """The HTTP (Connect) side over the gRPC fixture's CacaoApi, on a port of its own."""
    server = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def call(cacao_server, http_url):
    """call(transport, method, request): the answer (a list of them for a stream)
    of one RPC through gRPC or Connect ("connect-binary", "connect-json")."""
    def answer(transport: str, method: str, request):
        name, streams = METHODS[method]
        if transport == "grpc":
            with grpc.insecure_channel(cacao_server[1]) as channel:
                reply = getattr(CacaoServiceStub(channel), method)(request, timeout=60)
                return list(reply) if streams else reply

        async def connect():
            async with connect_client(http_url, transport.removeprefix("connect-")) as cacao:
                rpc = getattr(cacao, name)
                return [r async for r in rpc(request)] if streams else await rpc(request)

        return asyncio.run(connect())

    return answer


@cache
def endgame_game(players: int, seed: int) -> tuple[Position, dict]:
    """A seeded game of random legal actions: the first position where every draw
    pile is empty, at most 3 placements are left and a seat is to place; and the
    whole game played to its end from there (its record)."""
    rng = random.Random(seed)
    position = Position.new(players, seed)
    while not (endgame.fully_known(position) and endgame.placements_left(position) <= 3
               and position.core.phase == 0):
        position.apply(rng.choice(position.legal_codes()))
    end = position.clone()
    while not end.is_over:
        end.apply(rng.choice(end.legal_codes()))
    return position, end.record()


def endgame_position(players: int, seed: int = 3) -> Position:
    return endgame_game(players, seed)[0]


def record_of(position: Position) -> pb.GameRecord:
    return convert.record_from_json(position.record())


def solved_best(position: Position) -> set[Action]:
    """The actions the endgame solver proves best (all of equal value)."""
    return {position.decode(code) for code in endgame.solve(position).best}


def suggest(position: Position, level: str) -> pb.SuggestActionRequest:
    return pb.SuggestActionRequest(record=record_of(position), level=level, seed=1)


# --- evaluations -----------------------------------------------------------------------

@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_two_player_endgame_at_strong_is_solved_exactly(call, transport):
    position = endgame_position(2)
    reply = call(transport, "SuggestAction", suggest(position, "strong"))
    e = reply.evaluation
    assert e.exact and e.stopped_by == "exact" and e.final
    assert e.iterations == 0 and e.nodes > 0 and not e.HasField("root")  # no tree: the solver's nodes
    assert e.candidates and all(c.exact for c in e.candidates)
    assert convert.action_from_proto(reply.action) in solved_best(position)
    assert convert.action_from_proto(e.best_action) == convert.action_from_proto(reply.action)
    assert sum(s.win_probability for s in e.seats) == pytest.approx(1)
    # the exact candidates' values are the solver's, best first
    assert e.candidates[0].win_probability == pytest.approx(e.seats[position.to_act].win_probability)
    assert e.candidates[0].lcb == e.candidates[0].win_probability
    # an analysis of the same position: one final report, exact as well
    reports = call(transport, "AnalyzePosition", pb.AnalyzePositionRequest(
        record=record_of(position), level="strong", seed=1))
    last = reports[-1].evaluation
    assert last.final and last.exact and last.stopped_by == "exact"
    assert all(c.exact for c in last.candidates)
    assert convert.action_from_proto(last.best_action) in solved_best(position)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_level_without_the_solver_searches_the_same_endgame(call, transport):
    position = endgame_position(2)
    e = call(transport, "SuggestAction", suggest(position, "casual")).evaluation
    assert not e.exact and e.stopped_by != "exact" and e.iterations > 0
    assert not any(c.exact for c in e.candidates)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_four_player_endgame_at_strong_is_exact_for_the_seat_to_act(call, transport):
    position = endgame_position(4)
    reply = call(transport, "SuggestAction", suggest(position, "strong"))
    e = reply.evaluation
    assert e.exact and e.stopped_by == "iterations" and e.iterations > 0  # the tree searched, then corrected
    assert e.HasField("root")
    assert all(c.exact for c in e.candidates)
    assert convert.action_from_proto(reply.action) in solved_best(position)
    # the seat to act's chance is its paranoid value; the others' the tree's, scaled to sum to 1
    assert e.seats[position.to_act].win_probability == pytest.approx(e.candidates[0].win_probability)
    assert sum(s.win_probability for s in e.seats) == pytest.approx(1)


# --- reviews -----------------------------------------------------------------------------

def endgame_decisions(record: dict) -> tuple[list[int], int]:
    """The decisions of `record` made where the solver proves the position (every draw
    pile empty, at most 3 placements left, a choice of placements), and the first
    decision with a choice."""
    late, first = [], None
    for i in range(len(record["actions"])):
        position = Position.from_record(record, upto=i)
        if len(position.legal_codes()) < 2:
            continue
        if first is None:
            first = i
        if (endgame.fully_known(position) and endgame.placements_left(position) <= 3
                and position.core.phase == 0):
            late.append(i)
    assert late and first is not None and first < late[0]
    return late, first


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_review_marks_its_endgame_decisions_exact_and_an_early_one_not(call, transport):
    record = endgame_game(2, 11)[1]
    late, first = endgame_decisions(record)
    reports = call(transport, "ReviewGame", pb.ReviewGameRequest(
        record=convert.record_from_json(record), limits=REVIEW, seed=1, decisions=[first, *late]))
    decisions = {r.decision.index: r.decision for r in reports if r.HasField("decision")}
    assert sorted(decisions) == sorted([first, *late])
    assert not decisions[first].exact
    assert all(decisions[i].exact for i in late), {i: decisions[i].exact for i in late}
    for i in late:  # an exact loss: the best action's value against the taken one's, both proved
        d = decisions[i]
        assert d.win_loss == pytest.approx(max(0.0, d.best_win - d.win_after))


def test_a_four_player_review_marks_its_endgame_decisions_exact(cacao_server):
    record = endgame_game(4, 11)[1]
    late, first = endgame_decisions(record)
    with CacaoClient(cacao_server[1], timeout=60) as client:
        reports = list(client.review_game(record, Limit(iterations=300), seed=1, decisions=[first, *late]))
    decisions = {r.decision.index: r.decision for r in reports if r.decision is not None}
    assert not decisions[first].exact and all(decisions[i].exact for i in late)


# --- the Python client ---------------------------------------------------------------------

def test_the_python_clients_replies_and_text_carry_exact(cacao_server, call):
    position = endgame_position(2)
    with CacaoClient(cacao_server[1], timeout=60) as client:
        reply = client.suggest(position.record(), "strong", seed=1)
        four = client.suggest(endgame_position(4).record(), "strong", seed=1)
        casual = client.suggest(position.record(), "casual", seed=1)
        analysis = list(client.analyze(position.record(), "strong", seed=1))
        record = endgame_game(2, 11)[1]
        late, first = endgame_decisions(record)
        reviewed = [r.decision for r in client.review_game(record, Limit(iterations=300), seed=1,
                                                           decisions=[first, late[-1]]) if r.decision]
    e = reply.evaluation
    assert isinstance(e, SearchResult) and e.exact and e.stopped_by == "exact" and e.root is None
    assert all(isinstance(c, Candidate) and c.exact for c in e.candidates)
    # an exact candidate has no visits (no tree) but its values: the solver's
    assert all(c.visits == 0 and c.win_probability is not None and c.expected_gold is not None
               for c in e.candidates)
    assert reply.action in solved_best(position)
    assert four.evaluation.exact and not casual.evaluation.exact
    assert analysis[-1].evaluation.exact
    assert [d.exact for d in reviewed] == [False, True]
    # the same through Connect, read by the client's readers
    over_connect = read_suggestion(call("connect-binary", "SuggestAction", suggest(position, "strong")))
    assert over_connect.evaluation.exact and all(c.exact for c in over_connect.evaluation.candidates)
    assert over_connect.evaluation.candidates == e.candidates
    assert read_report(call("connect-json", "AnalyzePosition", pb.AnalyzePositionRequest(
        record=record_of(position), level="strong", seed=1))[-1]).evaluation.exact
    assert [read_review(r).decision.exact for r in call("connect-json", "ReviewGame", pb.ReviewGameRequest(
        record=convert.record_from_json(record), limits=REVIEW, seed=1, decisions=[first, late[-1]]))
        if r.HasField("decision")] == [False, True]
    # cacao-play's hint and cacao-review's rows say so
    lines = evaluation_lines(e, ["red", "yellow"])
    assert lines[0].startswith("solved exactly by the endgame solver")
    assert "(exact)" in lines[1] and all(line.endswith("(exact)") for line in lines[3:])
    four_lines = evaluation_lines(four.evaluation, ["red", "yellow", "purple", "white"])
    assert any(line.startswith("exact for ") for line in four_lines)
    assert not any("exact" in line for line in evaluation_lines(casual.evaluation))
    assert decision_lines(reviewed[1])[0].endswith("(exact)")
    assert "exact" not in decision_lines(reviewed[0])[0]


def test_exact_survives_the_conversion_both_ways():
    position = endgame_position(2)
    result = search(position, Limit(iterations=300), PLAY, seed=1)
    assert result.exact
    message = convert.evaluation_to_proto(result)
    assert message.exact and all(c.exact for c in message.candidates)
    back = convert.evaluation_from_proto(message)
    assert back.exact and back.candidates == result.candidates[:len(back.candidates)]
    message.exact = message.candidates[0].exact = False
    plain = convert.evaluation_from_proto(message)
    assert not plain.exact and not plain.candidates[0].exact
    assert plain.candidates[0].win_probability is None  # neither exact nor visited: no values
