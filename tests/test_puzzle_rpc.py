"""GetPuzzle and CheckPuzzle through a real server on real ports, over gRPC and
over Connect (HTTP, JSON and binary): the filters (theme, rating range,
players, exclude) and the count of what passes them, NOT_FOUND when nothing
does, a reply that never holds a solution or another seat's hand, the
verdicts (right, wrong, an unknown id, an illegal try), the Python clients'
methods, and a bad puzzle file stopping the server at startup.

The server (conftest.puzzle_server) serves tests/data/puzzles.jsonl: five hand-made
puzzles from random seeded games (2, 2, 3, 4 and 3 players; ratings 800, 1200,
1600, 2000 and 1000; the first four a placement without fills as their one
solution, the last a result to choose), so that every expectation is known
here without the shipped set.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from support import server_options
from test_connect import client as connect_client
from test_connect import details

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client import AsyncCacaoClient, CacaoClient, CacaoClientError, ErrorReason
from cacaoai.client.errors import error_from_rpc
from cacaoai.client.replies import PuzzleCheck, PuzzleDraw
from cacaoai.engine import Action, Position
from cacaoai.search import puzzles
from cacaoai.server.handlers import CacaoApi

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parent / "data" / "puzzles.jsonl"
SET = puzzles.load(DATA)
BY_ID = {p.id: p for p in SET}
TRANSPORTS = ("grpc", "connect json", "connect binary")
SEEDS = range(12)


@pytest.fixture
def served(puzzle_server):
    """The session's server of the test set (conftest.puzzle_server)."""
    return puzzle_server


class Refused(Exception):
    """A call's error, alike from either transport: its code's name, reason and fields."""

    def __init__(self, code: str, reason: str, fields: list[str], message: str):
        super().__init__(f"{code} {reason} {fields}: {message}")
        self.code, self.reason, self.fields, self.message = code, reason, fields, message


def call(served: tuple[str, str], transport: str, name: str, request: Any) -> Any:
    """One unary call over `transport`; its reply, or Refused."""
    if transport == "grpc":
        with grpc.insecure_channel(served[0]) as channel:
            try:
                return getattr(cacao_pb2_grpc.CacaoServiceStub(channel), name)(request, timeout=30)
            except grpc.RpcError as error:
                problem = error_from_rpc(error, served[0], 1)  # the rich details, read as the client reads them
                raise Refused(error.code().name, problem.reason, [f for f, _ in problem.field_violations],
                              error.details()) from None
    codec = transport.split()[1]
    snake = "get_puzzle" if name == "GetPuzzle" else "check_puzzle"

    async def connect() -> Any:
        async with connect_client(served[1], codec) as cacao:
            return await getattr(cacao, snake)(request)

    try:
        return asyncio.run(connect())
    except ConnectError as error:
        found = details(error)
        info = found.get("google.rpc.ErrorInfo")
        bad = found.get("google.rpc.BadRequest")
        code = "CANCELLED" if error.code is Code.CANCELED else error.code.name
        raise Refused(code, info.reason if info else "", [v.field for v in bad.field_violations] if bad else [],
                      error.message) from None


def refused(served, transport, name, request) -> Refused:
    with pytest.raises(Refused) as caught:
        call(served, transport, name, request)
    return caught.value


def messages_in(descriptor: Descriptor, seen: set[str] | None = None) -> set[str]:
    """Every message type a message can hold, itself included."""
    seen = set() if seen is None else seen
    if descriptor.full_name not in seen:
        seen.add(descriptor.full_name)
        for field in descriptor.fields:
            if field.message_type is not None:
                messages_in(field.message_type, seen)
    return seen


def wrong_try(puzzle: puzzles.Puzzle) -> Action:
    """A legal action of the puzzle's seat that is not a solution."""
    legal = Position.from_observation(dict(puzzle.view), 0).legal_actions()
    return next(a for a in legal if a not in puzzle.solutions)


# --- GetPuzzle ----------------------------------------------------------------------

def test_no_reply_of_get_puzzle_can_hold_an_action():
    """The message itself has no place for a solution (nor for a record, whose
    piles and deck would tell what the seat cannot see)."""
    held = messages_in(pb.GetPuzzleResponse.DESCRIPTOR)
    assert "cacao.v1.Action" not in held and "cacao.v1.GameRecord" not in held
    assert "cacao.v1.Position" in held


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_puzzle_comes_as_its_seats_view_only(served, transport):
    drawn = set()
    for seed in SEEDS:
        reply = call(served, transport, "GetPuzzle", pb.GetPuzzleRequest(seed=seed))
        puzzle = reply.puzzle
        stored = BY_ID[puzzle.id]
        drawn.add(puzzle.id)
        assert (puzzle.players, puzzle.seat, puzzle.rating, tuple(puzzle.themes)) == \
               (stored.players, stored.seat, stored.rating, stored.themes)
        view = convert.position_to_json(puzzle.position)
        assert view == dict(stored.view)
        # exactly the seat's observation: what any position it could be shows that seat
        assert view == Position.from_observation(view, seed).observation(stored.seat)
        assert view["view"] == stored.seat == view["to_act"]
        for s, seat in enumerate(view["seats"]):
            assert "pile" not in seat and ("hand" in seat) == (s == stored.seat)  # no other hand
        assert "jungle_deck" not in view
        words = json_format.MessageToJson(reply)
        assert "solution" not in words and stored.sentence not in words
        assert reply.matching == len(SET)
        assert [(t.name, t.puzzles) for t in reply.themes] == list(puzzles.theme_counts(SET).items())
    assert drawn == set(BY_ID)  # twelve seeds draw every one of four


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_same_filters_and_seed_draw_the_same_puzzle(served, transport):
    request = pb.GetPuzzleRequest(players=2, seed=5)
    assert call(served, transport, "GetPuzzle", request) == call(served, "grpc", "GetPuzzle", request)


FILTERS = [
    ({"theme": "temple majority"}, lambda p: "temple majority" in p.themes),
    ({"theme": "water"}, lambda p: "water" in p.themes),
    ({"min_rating": 1200}, lambda p: p.rating >= 1200),
    ({"max_rating": 1200}, lambda p: p.rating <= 1200),
    ({"min_rating": 1000, "max_rating": 1700}, lambda p: 1000 <= p.rating <= 1700),
    ({"players": 2}, lambda p: p.players == 2),
    ({"players": 4, "theme": "exact endgame"}, lambda p: p.players == 4),
    ({"exclude": ["2p-test-0001", "4p-test-0004", "no-such-id"]},
     lambda p: p.id not in ("2p-test-0001", "4p-test-0004")),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("fields", "passes"), FILTERS, ids=[json.dumps(f) for f, _ in FILTERS])
def test_every_filter_draws_only_puzzles_that_pass_it_and_counts_them(served, transport, fields, passes):
    expected = {p.id for p in SET if passes(p)}
    drawn = set()
    for seed in SEEDS:
        reply = call(served, transport, "GetPuzzle", pb.GetPuzzleRequest(**fields, seed=seed))
        drawn.add(reply.puzzle.id)
        assert reply.matching == len(expected)
    assert drawn == expected


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_nothing_left_is_not_found_saying_why(served, transport):
    none = refused(served, transport, "GetPuzzle", pb.GetPuzzleRequest(theme="overbuilding with sun"))
    assert (none.code, none.reason) == ("NOT_FOUND", "PUZZLE_NOT_FOUND")
    assert "'overbuilding with sun'" in none.message and "passes the filters" in none.message
    both = refused(served, transport, "GetPuzzle", pb.GetPuzzleRequest(players=3, min_rating=1700))
    assert "rated at least 1700" in both.message and "3 players" in both.message
    seen = refused(served, transport, "GetPuzzle",
                   pb.GetPuzzleRequest(players=2, exclude=["2p-test-0001", "2p-test-0002"]))
    assert seen.code == "NOT_FOUND" and "excluded: all 2 seen" in seen.message


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("fields", "field"), [
    ({"theme": "tempel"}, "theme"),
    ({"min_rating": 1600, "max_rating": 1000}, "min_rating"),
    ({"players": 5}, "players"),
    ({"players": 0}, "players"),
])
def test_a_filter_the_set_cannot_have_is_invalid_naming_it(served, transport, fields, field):
    bad = refused(served, transport, "GetPuzzle", pb.GetPuzzleRequest(**fields))
    assert (bad.code, bad.reason, bad.fields) == ("INVALID_ARGUMENT", "INVALID_REQUEST", [field])


def test_get_puzzle_may_be_a_get_over_http(served):
    async def get() -> pb.GetPuzzleResponse:
        async with connect_client(served[1], "json") as cacao:
            return await cacao.get_puzzle(pb.GetPuzzleRequest(players=3, min_rating=1500, seed=1), use_get=True)

    assert asyncio.run(get()).puzzle.id == "3p-test-0003"


# --- CheckPuzzle --------------------------------------------------------------------

def check(puzzle_id: str, action: Action | pb.Action) -> pb.CheckPuzzleRequest:
    message = action if isinstance(action, pb.Action) else convert.action_to_proto(action)
    return pb.CheckPuzzleRequest(puzzle_id=puzzle_id, action=message)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_solution_is_correct_and_a_legal_other_action_is_not(served, transport):
    for stored in SET:
        solutions = [convert.action_to_proto(a) for a in stored.solutions]
        right = call(served, transport, "CheckPuzzle", check(stored.id, stored.solutions[0]))
        assert right.correct and list(right.solutions) == solutions
        assert (right.sentence, right.exact, right.rating) == (stored.sentence, stored.exact, stored.rating)
        assert right.gap == pytest.approx(stored.gap)
        wrong = call(served, transport, "CheckPuzzle", check(stored.id, wrong_try(stored)))
        assert not wrong.correct and list(wrong.solutions) == solutions and wrong.sentence == stored.sentence


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_unknown_or_missing_puzzle_id_is_refused_naming_it(served, transport):
    action = SET[0].solutions[0]
    unknown = refused(served, transport, "CheckPuzzle", check("2p-no-such-puzzle", action))
    assert (unknown.code, unknown.reason, unknown.fields) == ("NOT_FOUND", "PUZZLE_NOT_FOUND", ["puzzle_id"])
    assert "'2p-no-such-puzzle'" in unknown.message
    empty = refused(served, transport, "CheckPuzzle", check("", action))
    assert (empty.code, empty.fields) == ("INVALID_ARGUMENT", ["puzzle_id"])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_try_that_is_not_legal_in_the_puzzle_is_invalid_naming_the_part_at_fault(served, transport):
    stored = BY_ID["2p-test-0001"]
    far = Action.from_json({**stored.solutions[0].to_json(), "x": 40, "y": 40})
    off = refused(served, transport, "CheckPuzzle", check(stored.id, far))
    assert (off.code, off.reason) == ("INVALID_ARGUMENT", "ILLEGAL_ACTION")
    assert off.fields == ["action.place.x", "action.place.y"]
    other_seat = Action.from_json({**stored.solutions[0].to_json(), "seat": 1 - stored.seat})
    seat = refused(served, transport, "CheckPuzzle", check(stored.id, other_seat))
    assert (seat.reason, seat.fields) == ("ILLEGAL_ACTION", ["action.seat"])
    none = refused(served, transport, "CheckPuzzle", pb.CheckPuzzleRequest(puzzle_id=stored.id))
    assert (none.code, none.fields) == ("INVALID_ARGUMENT", ["action"])
    malformed = refused(served, transport, "CheckPuzzle", check(stored.id, pb.Action(seat=stored.seat)))
    assert (malformed.reason, malformed.fields) == ("INVALID_ACTION", ["action"])


def test_check_puzzle_may_be_a_get_over_http(served):
    stored = SET[0]

    async def get() -> pb.CheckPuzzleResponse:
        async with connect_client(served[1], "binary") as cacao:
            return await cacao.check_puzzle(check(stored.id, stored.solutions[0]), use_get=True)

    assert asyncio.run(get()).correct


# --- the Python clients -------------------------------------------------------------

def test_the_python_client_draws_and_checks_puzzles(served):
    with CacaoClient(served[0], timeout=10.0) as client:
        draw = client.get_puzzle(theme="temple majority", max_rating=1000, seed=3)
        assert isinstance(draw, PuzzleDraw) and draw.matching == 1
        puzzle = draw.puzzle
        assert puzzle.id == "2p-test-0001" and puzzle.position == dict(BY_ID[puzzle.id].view)
        assert puzzle.themes == ("temple majority",) and puzzle.rating == 800
        assert dict((t.name, t.puzzles) for t in draw.themes) == puzzles.theme_counts(SET)
        assert client.get_puzzle(players=2, exclude=["2p-test-0001"]).puzzle.id == "2p-test-0002"
        stored = BY_ID[puzzle.id]
        verdict = client.check_puzzle(puzzle.id, stored.solutions[0].to_json())  # a dict does too
        assert isinstance(verdict, PuzzleCheck) and verdict.correct
        assert verdict.solutions == stored.solutions and verdict.sentence == stored.sentence
        assert not client.check_puzzle(puzzle.id, wrong_try(stored)).correct
        with pytest.raises(CacaoClientError) as caught:
            client.get_puzzle(theme="overbuilding with sun")
        assert caught.value.code is grpc.StatusCode.NOT_FOUND
        assert caught.value.error_reason == ErrorReason.PUZZLE_NOT_FOUND
        with pytest.raises(CacaoClientError) as caught:
            client.check_puzzle("nope", stored.solutions[0])
        assert caught.value.field_violations[0][0] == "puzzle_id"
        with pytest.raises(ValueError, match="exclude"):
            client.get_puzzle(exclude="2p-test-0001")


def test_the_async_client_draws_and_checks_puzzles(served):
    async def main() -> tuple[PuzzleDraw, PuzzleCheck]:
        async with AsyncCacaoClient(served[0]) as client:
            draw = await client.get_puzzle(players=4)
            stored = BY_ID[draw.puzzle.id]
            return draw, await client.check_puzzle(draw.puzzle.id, stored.solutions[0])

    draw, verdict = asyncio.run(main())
    assert draw.puzzle.id == "4p-test-0004" and draw.matching == 1 and verdict.correct and verdict.exact


# --- the set the server loads -------------------------------------------------------

def test_a_bad_puzzle_file_stops_the_server_naming_its_line_and_field(tmp_path):
    lines = DATA.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["rating"] = "hard"
    path = tmp_path / "puzzles.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(broken)]) + "\n")
    with pytest.raises(ValueError, match=r"puzzles\.jsonl:2: rating"):
        CacaoApi(server_options(puzzles=str(path)))
    with pytest.raises(ValueError, match=r"--puzzles .*missing\.jsonl: cannot read it"):
        CacaoApi(server_options(puzzles=str(tmp_path / "missing.jsonl")))


def test_the_server_serves_the_shipped_set_by_default():
    api = CacaoApi(server_options())
    assert api.puzzles.puzzles == puzzles.load()
