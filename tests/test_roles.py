"""Every call guarded by what it does: the role matrix of docs/operations.md
(written from the API's method table) against a real server, for every RPC ×
every kind of caller × both transports (gRPC, and Connect over HTTP); and the
review path held to the same search limits, refusals, metrics and memory as
any other search."""

from __future__ import annotations

import asyncio
import hashlib
import re
from pathlib import Path

import grpc
import pytest
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from pyqwest import Client, HTTPTransport, HTTPVersion
from support import server_options
from test_metrics import value
from test_security import code_and_reason

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.api.cacao.v1.cacao_connect import CacaoServiceClient
from cacaoai.api.methods import BY_NAME, ROLES, RPCS, SEARCHES
from cacaoai.engine import Position
from cacaoai.search import puzzles
from cacaoai.server import create_server, methods_docs, reviews
from cacaoai.server.http import start_http
from cacaoai.server.memory import Reservation, least_budget_mb, tree_bytes
from cacaoai.server.scheduler import BACKGROUND, INTERACTIVE, Request
from cacaoai.server.security import Tokens

pytestmark = pytest.mark.integration

CALL_S = 30.0  # a call's deadline: only catches a hang
ROOT = Path(__file__).resolve().parents[1]
SECRETS = {"all": "all-secret", "rules": "rules-secret", "background": "background-secret"}
#: Every kind of caller: a token of each role, none, and one the server does not accept.
CALLERS = (*ROLES, "no token", "unknown token")
TRANSPORTS = ("grpc", "connect")


def secret(caller: str) -> str | None:
    return SECRETS.get(caller, "guessed-secret" if caller == "unknown token" else None)


def documented(caller: str) -> dict[str, str]:
    """The matrix's row for `caller`: every RPC's answer."""
    role = caller if caller in ROLES else None
    return {rpc.name: methods_docs.answer(rpc, role) for rpc in RPCS}


def requests() -> dict[str, object]:
    """A small valid request of every RPC, from one short game (searches ask
    for interactive priority where they may, so that a background answer is
    the server's doing)."""
    position = Position.new(players=2, seed=5)
    for _ in range(3):
        position.apply(position.legal_actions()[0])
    record = convert.record_from_json(position.record())
    action = convert.action_to_proto(position.legal_actions()[0])
    limits = pb.SearchLimits(iterations=20)
    analysis = pb.AnalyzePositionRequest(record=record, seed=1, limits=limits,
                                         priority=pb.SEARCH_PRIORITY_INTERACTIVE)
    puzzle = puzzles.load()[0]  # the shipped set, which the server serves
    made = {
        "GetServerInfo": pb.GetServerInfoRequest(),
        "NewGame": pb.NewGameRequest(players=2, seed=1),
        "ListLegalActions": pb.ListLegalActionsRequest(record=record),
        "ApplyAction": pb.ApplyActionRequest(record=record, action=action),
        "ValidateRecord": pb.ValidateRecordRequest(record=record),
        "SuggestAction": pb.SuggestActionRequest(record=record, seed=1, limits=limits,
                                                 priority=pb.SEARCH_PRIORITY_INTERACTIVE),
        "AnalyzePosition": analysis,
        "Analyze": pb.AnalyzeRequest(start=analysis),
        "ReviewGame": pb.ReviewGameRequest(record=record, seed=1, limits=limits),
        "GetPuzzle": pb.GetPuzzleRequest(seed=1),
        "CheckPuzzle": pb.CheckPuzzleRequest(puzzle_id=puzzle.id,
                                             action=convert.action_to_proto(puzzle.solutions[0])),
    }
    assert set(made) == set(BY_NAME), "a new RPC needs its request here"
    return made


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A server that needs tokens, with its HTTP side, and the queue class of
    every search as it starts (the scheduler's own hook)."""
    path = tmp_path_factory.mktemp("roles") / "tokens"
    path.write_text("".join(f"{token} {role}\n" for role, token in SECRETS.items()))
    options = server_options(worker_threads=8, max_searches=2, max_iterations=100_000, grace_s=0.0,
                             auth_tokens=str(path))
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    started: list[str] = []
    server.cacao_api.gate.on_start.append(lambda ticket: started.append(ticket.klass))
    http = start_http(server.cacao_api, "127.0.0.1", 0, tokens=Tokens.load(str(path)))
    yield f"127.0.0.1:{port}", f"http://127.0.0.1:{http.server_address[1]}", started
    http.shutdown()
    server.stop(0).wait()


def grpc_call(address: str, name: str, request: object, token: str | None) -> str:
    """The call's status code name, having read every reply."""
    metadata = [("authorization", f"Bearer {token}")] if token else None
    rpc = BY_NAME[name]
    with grpc.insecure_channel(address) as channel:
        method = getattr(cacao_pb2_grpc.CacaoServiceStub(channel), name)
        try:
            reply = method(iter([request]) if rpc.client_streaming else request, timeout=CALL_S,
                           metadata=metadata)
            if rpc.server_streaming:
                list(reply)
        except grpc.RpcError as error:
            return error.code().name
    return "OK"


def connect_call(url: str, name: str, request: object, token: str | None) -> str:
    """The same over HTTP with the official Connect client."""
    rpc = BY_NAME[name]
    headers = {"authorization": f"Bearer {token}"} if token else {}
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()

    async def call() -> None:
        http = Client(HTTPTransport(http_version=HTTPVersion.HTTP1))
        async with CacaoServiceClient(url, codec=google_protobuf_binary_codec(), http_client=http) as cacao:
            method = getattr(cacao, snake)
            if rpc.client_streaming:
                async def one():
                    yield request
                [_ async for _ in method(one(), headers=headers)]
            elif rpc.server_streaming:
                [_ async for _ in method(request, headers=headers)]
            else:
                await method(request, headers=headers)

    try:
        asyncio.run(call())
    except ConnectError as error:
        return error.code.name
    return "OK"


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_call_answers_every_caller_as_the_matrix_says(guarded, transport, caller):
    address, url, started = guarded
    answers = {}
    for name, request in requests().items():
        started.clear()
        code = (grpc_call(address, name, request, secret(caller)) if transport == "grpc"
                else connect_call(url, name, request, secret(caller)))
        if code != "OK":
            answers[name] = code
            assert not started, f"{name} refused with {code} started a search"
            continue
        assert len(started) == (name in SEARCHES), f"{name}: searches started {started}"
        answers[name] = "OK, background" if started == [BACKGROUND] else "OK"
    assert answers == documented(caller)


@pytest.mark.parametrize("caller", CALLERS)
def test_health_stays_open_and_reflection_needs_an_accepted_token(guarded, caller):
    address, _, _ = guarded
    token = secret(caller)
    metadata = [("authorization", f"Bearer {token}")] if token else None
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=CALL_S,
                            metadata=metadata).status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        listing = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        try:
            services = [s.name for reply in reflection.ServerReflectionInfo(listing, timeout=CALL_S,
                                                                             metadata=metadata)
                        for s in reply.list_services_response.service]
            code = "OK"
        except grpc.RpcError as error:
            code, services = error.code().name, []
    assert code == ("OK" if caller in ROLES else "UNAUTHENTICATED")
    assert ("cacao.v1.CacaoService" in services) == (caller in ROLES)


def test_the_docs_matrix_and_the_typescript_facts_are_written_from_the_table():
    assert methods_docs.stale(ROOT) == []
    table = methods_docs.roles_table()
    for rpc in RPCS:
        assert f"| `{rpc.name}` |" in table
    # the security fix: a rules token may run nothing that searches, a review included
    assert methods_docs.answer(BY_NAME["ReviewGame"], "rules") == "PERMISSION_DENIED"


def test_no_list_of_method_names_is_written_by_hand_outside_the_table():
    """The names of the calls that search stand in the table only (and in
    what is generated from it, the docs' prose about them, and the tests)."""
    searching = sorted(SEARCHES)
    listed = re.compile(r"""["']({})["']\s*,\s*["']({})["']""".format("|".join(searching), "|".join(searching)))
    allowed = {Path("proto/methods.py"), Path("clients/typescript/src/gen/cacao/v1/cacao_methods.ts")}
    found = []
    for folder, pattern in (("server", "*.py"), ("clients", "*.py"), ("search", "*.py"), ("proto", "*.py"),
                            ("clients/typescript/src", "*.ts"), ("web/src", "*.ts"), ("loadtest", "*.py")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            relative = path.relative_to(ROOT)
            if relative in allowed or "node_modules" in path.parts or path.name.endswith("_pb.ts"):
                continue
            if listed.search(path.read_text()):
                found.append(str(relative))
    assert found == []


# --- the review path --------------------------------------------------------------

def review_request(players: int = 2, actions: int = 3, iterations: int = 20, seats=()) -> pb.ReviewGameRequest:
    position = Position.new(players=players, seed=11)
    for _ in range(actions):
        if position.is_over:
            break
        position.apply(position.legal_actions()[0])
    return pb.ReviewGameRequest(record=convert.record_from_json(position.record()), seed=2,
                                limits=pb.SearchLimits(iterations=iterations), seats=list(seats))


def started_server(**settings):
    options = server_options(**{"worker_threads": 8, "max_iterations": 100_000, "grace_s": 0.0,
                                "metrics_port": 0, **settings})
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    return server, f"127.0.0.1:{port}"


def test_a_review_is_refused_as_any_search_when_the_slots_are_full_and_the_metrics_count_it():
    server, address = started_server(max_searches=1, max_queue=0)
    api = server.cacao_api
    holder = api.gate.acquire(Request("someone else", INTERACTIVE, expected_s=600.0))
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            refusals = {}
            for name, call in (("ReviewGame", lambda: list(stub.ReviewGame(review_request(), timeout=CALL_S))),
                               ("SuggestAction", lambda: stub.SuggestAction(pb.SuggestActionRequest(
                                   record=review_request().record, limits=pb.SearchLimits(iterations=20)),
                                   timeout=CALL_S))):
                with pytest.raises(grpc.RpcError) as caught:
                    call()
                refusals[name] = (*code_and_reason(caught.value), retry_hint(caught.value) > 0)
            assert refusals["ReviewGame"] == refusals["SuggestAction"] == (
                grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_SEARCHES", True)
            api.gate.release(holder)
            holder = None
            reports = list(stub.ReviewGame(review_request(iterations=30), timeout=CALL_S))
            assert reports[-1].HasField("summary") and reports[-1].summary.iterations > 0
        text = server.cacao_metrics.exposition().decode()
        assert value(text, "cacao_search_refusals_total", grpc_method="ReviewGame") == 1
        assert value(text, "cacao_search_iterations_count", grpc_method="ReviewGame") == 1
        assert value(text, "cacao_search_iterations_sum", grpc_method="ReviewGame") == \
            reports[-1].summary.iterations
    finally:
        if holder is not None:
            api.gate.release(holder)
        server.stop(0).wait()


def test_a_review_counts_against_the_clients_search_limit(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("alpha-secret\nbeta-secret\n")
    server, address = started_server(max_searches=3, max_client_searches=1, auth_tokens=str(path))
    api = server.cacao_api
    alpha = client_of("alpha-secret")
    assert alpha in {client for _, client in Tokens.load(str(path)).roles.values()}
    holder = api.gate.acquire(Request(alpha, BACKGROUND, expected_s=600.0))
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                list(stub.ReviewGame(review_request(), timeout=CALL_S,
                                     metadata=[("authorization", "Bearer alpha-secret")]))
            assert code_and_reason(caught.value) == (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                     "TOO_MANY_CLIENT_SEARCHES")
            reports = list(stub.ReviewGame(review_request(), timeout=CALL_S,
                                           metadata=[("authorization", "Bearer beta-secret")]))
            assert reports[-1].HasField("summary")  # another client still reviews
    finally:
        api.gate.release(holder)
        server.stop(0).wait()


def client_of(token: str) -> str:
    """The client a token's calls count as (its hash's short id)."""
    return "token-" + hashlib.sha256(token.encode()).hexdigest()[:8]


def retry_hint(error: grpc.RpcError) -> float:
    """The RetryInfo delay an error carries, seconds (0: none)."""
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.ToNanoseconds() / 1e9
    return 0.0


@pytest.mark.timeout(180)
def test_a_long_four_player_review_at_the_largest_budget_holds_to_the_memory_budget():
    """A record of a whole 4-player game, every decision of one seat, at the
    server's largest iteration budget, on the smallest memory budget the
    server accepts: the review's reservation stays within the budget, and the
    trees it grows and keeps stay within its reservation."""
    budget_mb = least_budget_mb(1)
    server, address = started_server(max_searches=1, max_iterations=3_000, memory_budget_mb=budget_mb)
    api = server.cacao_api
    seen: list[tuple[int, int, int]] = []  # reserved, reservation bytes, max_nodes at each start
    api.gate.on_start.append(lambda t: seen.append((api.memory.reserved, t.reservation.nbytes,
                                                     t.reservation.max_nodes)))
    request = review_request(players=4, actions=10_000, iterations=10**9, seats=[0])
    assert Position.from_record(convert.record_to_json(request.record)).is_over
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            reports = list(stub.ReviewGame(request, timeout=170))
        assert reports[-1].HasField("summary")
        decisions = [r.decision for r in reports if r.HasField("decision")]
        assert decisions and all(d.iterations <= 3_000 * 2 for d in decisions)  # clamped (and its pair search)
        assert len(seen) == 1
        reserved, nbytes, max_nodes = seen[0]
        assert reserved <= api.memory.budget_bytes and nbytes <= api.memory.budget_bytes
        budget = reviews.review_budget(request, api.options)
        kept = reviews.keep_bytes(Reservation(max_nodes, nbytes), budget)
        grown = reviews.grown_nodes(Reservation(max_nodes, nbytes))
        assert 0 < kept and kept + tree_bytes(grown) <= nbytes  # the tree grown and the trees kept, within
    finally:
        server.stop(0).wait()
