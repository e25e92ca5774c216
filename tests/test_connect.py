"""The HTTP side as the official Connect implementation serves it: the Python
``connectrpc`` client (its generated ``CacaoServiceClient``) makes every kind
of call to a real server over HTTP/1.1 and HTTP/2, and the protocol's other
parts are checked on the wire: GET, gzip, CORS, the request timeout, the
per-client call limit, the page's files.

The servers run in this process on free ports (``start_http``, the same code
cacao-server runs), each over the shared gRPC fixture's CacaoApi or one of its
own when a test needs other options.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import http.client
import json
import socket
import urllib.parse
from collections.abc import AsyncIterator

import pytest
from connectrpc.code import Code
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from connectrpc.errors import ConnectError
from google.protobuf import json_format
from google.rpc import error_details_pb2
from pyqwest import Client, HTTPTransport, HTTPVersion
from support import GUARD_S, server_options, wait_until

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_connect import CacaoServiceClient
from cacaoai.server import ServerOptions
from cacaoai.server.handlers import CacaoApi
from cacaoai.server.http import start_http

pytestmark = pytest.mark.integration

PATH = "/cacao.v1.CacaoService/"
CODECS = {"json": google_protobuf_json_codec, "binary": google_protobuf_binary_codec}
VERSIONS = {"HTTP/1.1": HTTPVersion.HTTP1, "HTTP/2": HTTPVersion.HTTP2}


@pytest.fixture(scope="module")
def url(cacao_server):
    """The HTTP side over the gRPC fixture's CacaoApi (one search gate)."""
    server = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def long_url():
    """A server of its own whose searches may run ten minutes: a search that
    ends early was ended by the client."""
    api = CacaoApi(server_options(max_searches=2))
    server = start_http(api, "127.0.0.1", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}", api
    server.shutdown()


def client(url: str, codec: str = "binary", version: str = "HTTP/1.1") -> CacaoServiceClient:
    """The generated Connect client over pyqwest, in ``codec`` over ``version``
    (HTTP/2 on a plaintext port is h2c with prior knowledge)."""
    http = Client(HTTPTransport(http_version=VERSIONS[version]))
    return CacaoServiceClient(url, codec=CODECS[codec](), http_client=http)


def details(error: ConnectError) -> dict[str, object]:
    """The error's google.rpc details by type name, decoded."""
    kinds = {k.DESCRIPTOR.full_name: k for k in (
        error_details_pb2.BadRequest, error_details_pb2.PreconditionFailure,
        error_details_pb2.ErrorInfo, error_details_pb2.RetryInfo)}
    return {d.type_name: kinds[d.type_name].FromString(d.message_bytes) for d in error.details}


def game_of(seed: int = 7) -> pb.NewGameResponse:
    return CacaoApi(ServerOptions(max_searches=1)).new_game(pb.NewGameRequest(players=2, seed=seed))


# --- every kind of call, with the official Python client ------------------------------

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("codec", CODECS)
def test_the_python_client_makes_unary_calls_as_grpc_answers_them(url, cacao_stub, codec, version):
    async def calls() -> None:
        async with client(url, codec, version) as cacao:
            info = await cacao.get_server_info(pb.GetServerInfoRequest())
            assert info.api_version == "cacao.v1" and info.levels
            game = await cacao.new_game(pb.NewGameRequest(players=3, seed=11))
            assert game == cacao_stub.NewGame(pb.NewGameRequest(players=3, seed=11))
            legal = pb.ListLegalActionsRequest(record=game.record)
            listed = await cacao.list_legal_actions(legal, use_get=True)  # a GET
            assert listed == cacao_stub.ListLegalActions(legal) and listed.actions
            applied = await cacao.apply_action(pb.ApplyActionRequest(record=game.record,
                                                                     action=listed.actions[0]))
            assert len(applied.record.actions) == 1
            valid = await cacao.validate_record(pb.ValidateRecordRequest(record=applied.record),
                                                use_get=True)
            assert valid.valid and valid.actions_replayed == 1
            suggested = await cacao.suggest_action(pb.SuggestActionRequest(
                record=game.record, seed=3, limits=pb.SearchLimits(iterations=300)))
            assert suggested.evaluation.iterations == 300 and suggested.action.WhichOneof("kind")

    asyncio.run(calls())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("codec", CODECS)
def test_the_python_client_streams_an_analysis_to_its_final_report(url, codec, version):
    game = game_of()
    request = pb.AnalyzePositionRequest(record=game.record, seed=5,
                                        limits=pb.SearchLimits(iterations=4_000))
    request.report_interval.FromMilliseconds(50)

    async def analyse() -> list[pb.AnalyzePositionResponse]:
        async with client(url, codec, version) as cacao:
            return [report async for report in cacao.analyze_position(request)]

    reports = asyncio.run(analyse())
    assert [r.sequence for r in reports] == list(range(len(reports)))
    assert [r.evaluation.final for r in reports] == [False] * (len(reports) - 1) + [True]
    assert reports[-1].evaluation.iterations == 4_000


@pytest.mark.parametrize("codec", CODECS)
def test_the_python_client_gets_errors_with_their_details(url, codec):
    game = game_of()
    seat = game.position.to_act
    illegal = pb.Action(seat=seat, place=pb.Action.Place(tile=game.position.seats[seat].hand[0],
                                                         x=5, y=6))

    async def refused() -> tuple[ConnectError, ConnectError]:
        async with client(url, codec) as cacao:
            with pytest.raises(ConnectError) as unary:
                await cacao.apply_action(pb.ApplyActionRequest(record=game.record, action=illegal))
            with pytest.raises(ConnectError) as streamed:
                async for _ in cacao.analyze_position(pb.AnalyzePositionRequest(
                        record=game.record, level="grandmaster")):
                    pytest.fail("a report for an unknown level")
            return unary.value, streamed.value

    unary, streamed = asyncio.run(refused())
    assert unary.code is Code.INVALID_ARGUMENT
    found = details(unary)
    assert [v.field for v in found["google.rpc.BadRequest"].field_violations] == [
        "action.place.x", "action.place.y"]
    assert found["google.rpc.ErrorInfo"].reason == "ILLEGAL_ACTION"
    assert found["google.rpc.ErrorInfo"].domain == "cacao.v1"
    assert streamed.code is Code.INVALID_ARGUMENT and "grandmaster" in streamed.message
    assert details(streamed)["google.rpc.ErrorInfo"].reason == "UNKNOWN_LEVEL"


def test_the_python_clients_deadline_cuts_the_search_budget(long_url):
    """A far deadline shows in the time limit the search reports (the search
    ends by its iterations, so nothing races the machine's speed)."""
    url, _ = long_url
    game = game_of()
    request = pb.SuggestActionRequest(record=game.record, limits=pb.SearchLimits(iterations=500))
    request.limits.time.FromSeconds(120)

    async def ask() -> pb.SuggestActionResponse:
        async with client(url) as cacao:
            return await cacao.suggest_action(request, timeout_ms=50_000)

    reply = asyncio.run(ask())
    assert reply.evaluation.final and reply.evaluation.iterations == 500
    assert reply.evaluation.limits.time.ToTimedelta().total_seconds() < 50


def test_a_deadline_that_has_passed_ends_the_call(url):
    async def ask() -> None:
        async with client(url) as cacao:
            await cacao.suggest_action(pb.SuggestActionRequest(record=game_of().record, level="max"),
                                       headers={"connect-timeout-ms": "0"})

    with pytest.raises(ConnectError) as error:
        asyncio.run(ask())
    assert error.value.code is Code.DEADLINE_EXCEEDED


def test_the_bidirectional_analyze_over_http_2_stops_when_the_client_says_so(long_url):
    """Full duplex over h2c: the client sends start, reads a report, then sends
    stop; a ten-minute search ends at once with one final report."""
    url, api = long_url
    game = game_of()
    start = pb.AnalyzeRequest(start=pb.AnalyzePositionRequest(record=game.record))
    start.start.limits.time.FromSeconds(600)
    start.start.report_interval.FromMilliseconds(50)

    async def analyse() -> list[pb.AnalyzePositionResponse]:
        first_report = asyncio.Event()

        async def requests() -> AsyncIterator[pb.AnalyzeRequest]:
            yield start
            await first_report.wait()
            yield pb.AnalyzeRequest(stop=pb.StopAnalysis())

        reports = []
        async with client(url, "binary", "HTTP/2") as cacao:
            async for report in cacao.analyze(requests()):
                reports.append(report)
                first_report.set()
        return reports

    reports = asyncio.run(analyse())
    assert reports[-1].evaluation.final and reports[-1].evaluation.stopped_by == "stop"
    assert not any(r.evaluation.final for r in reports[:-1])
    assert api.gate.wait_running(0, GUARD_S)


def test_an_analyze_that_does_not_start_with_start_is_refused(url):
    async def analyse() -> None:
        async def requests() -> AsyncIterator[pb.AnalyzeRequest]:
            yield pb.AnalyzeRequest(stop=pb.StopAnalysis())

        async with client(url, "json", "HTTP/2") as cacao:
            async for _ in cacao.analyze(requests()):
                pytest.fail("a report without a start")

    with pytest.raises(ConnectError) as error:
        asyncio.run(analyse())
    assert error.value.code is Code.INVALID_ARGUMENT
    assert [v.field for v in details(error.value)["google.rpc.BadRequest"].field_violations] == [
        "start"]


# --- the protocol on the wire ---------------------------------------------------------

def request(url: str, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, bytes]:
    parsed = urllib.parse.urlparse(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    try:
        connection.request(method, path, body, headers or {})
        reply = connection.getresponse()
        return reply.status, reply.headers, reply.read()
    finally:
        connection.close()


def test_side_effect_free_calls_may_be_gets_and_the_others_may_not(url, cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    message = json_format.MessageToJson(pb.ListLegalActionsRequest(record=game.record), indent=None)
    query = urllib.parse.urlencode({"encoding": "json", "message": message})
    status, headers, body = request(url, "GET", f"{PATH}ListLegalActions?{query}")
    assert status == 200 and headers["Content-Type"] == "application/json"
    expected = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(record=game.record))
    assert json_format.Parse(body, pb.ListLegalActionsResponse()) == expected
    binary = base64.urlsafe_b64encode(pb.GetServerInfoRequest().SerializeToString()).decode()
    status, headers, body = request(url, "GET", f"{PATH}GetServerInfo?encoding=proto&base64=1"
                                                f"&message={binary}")
    assert status == 200 and pb.GetServerInfoResponse.FromString(body).api_version == "cacao.v1"
    query = urllib.parse.urlencode({"encoding": "json", "message": '{"players": 2}'})
    status, headers, _ = request(url, "GET", f"{PATH}NewGame?{query}")
    assert status == 405 and headers["Allow"] == "POST"


def test_answers_are_gzipped_for_clients_that_take_gzip_and_gzipped_requests_are_read(url):
    body = gzip.compress(json.dumps({"players": 2, "seed": 7}).encode())
    status, headers, reply = request(url, "POST", PATH + "NewGame", body, {
        "Content-Type": "application/json", "Content-Encoding": "gzip",
        "Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    game = json.loads(gzip.decompress(reply))
    assert game["position"]["players"] == 2 and len(game["positionHash"]) == 16
    status, headers, reply = request(url, "POST", PATH + "NewGame", b'{"players": 2}',
                                     {"Content-Type": "application/json"})
    assert status == 200 and headers["Content-Encoding"] in (None, "identity")
    assert json.loads(reply)["position"]["players"] == 2


def test_the_pages_files_are_gzipped_for_browsers(url):
    status, headers, body = request(url, "GET", "/app.js", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert b"AnalyzePosition" in gzip.decompress(body)
    status, headers, body = request(url, "HEAD", "/")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0
    assert request(url, "POST", "/", b"")[0] == 405


def test_only_the_configured_origins_may_call_from_another_sites_page():
    api = CacaoApi(ServerOptions(max_searches=1,
                                 http_cors_origins=("https://game.example", "http://localhost:3000")))
    server = start_http(api, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type,connect-protocol-version,authorization"}
    try:
        status, headers, _ = request(url, "OPTIONS", PATH + "NewGame",
                                     headers={"Origin": "https://game.example", **preflight})
        assert status == 204 and headers["Access-Control-Allow-Origin"] == "https://game.example"
        allowed = {h.strip().lower() for h in headers["Access-Control-Allow-Headers"].split(",")}
        assert {"content-type", "connect-protocol-version", "connect-timeout-ms",
                "authorization"} <= allowed
        assert "POST" in headers["Access-Control-Allow-Methods"]
        status, headers, body = request(url, "POST", PATH + "NewGame", b'{"players": 2}', {
            "Origin": "http://localhost:3000", "Content-Type": "application/json"})
        assert status == 200 and headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
        assert "Origin" in headers["Vary"]
        # another site: no permission, so its browser refuses the call
        status, headers, _ = request(url, "OPTIONS", PATH + "NewGame",
                                     headers={"Origin": "https://evil.example", **preflight})
        assert "Access-Control-Allow-Origin" not in headers
        status, headers, _ = request(url, "POST", PATH + "NewGame", b'{"players": 2}', {
            "Origin": "https://evil.example", "Content-Type": "application/json"})
        assert "Access-Control-Allow-Origin" not in headers
    finally:
        server.shutdown()


def test_by_default_no_other_origin_may_call(url):
    status, headers, _ = request(url, "OPTIONS", PATH + "NewGame", headers={
        "Origin": "https://game.example", "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in headers


def test_every_origin_may_call_with_a_star():
    api = CacaoApi(ServerOptions(max_searches=1, http_cors_origins=("*",)))
    server = start_http(api, "127.0.0.1", 0)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        status, headers, _ = request(url, "OPTIONS", PATH + "NewGame", headers={
            "Origin": "https://anyone.example", "Access-Control-Request-Method": "POST"})
        assert status == 204 and headers["Access-Control-Allow-Origin"] == "*"
    finally:
        server.shutdown()


def test_a_request_that_does_not_arrive_in_time_is_deadline_exceeded():
    """A call whose body stops coming is answered once --request-timeout has
    passed since it opened, and holds nothing after that."""
    api = CacaoApi(ServerOptions(max_searches=1, request_timeout_s=0.5))
    server = start_http(api, "127.0.0.1", 0)
    try:
        with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=GUARD_S) as sock:
            sock.sendall(f"POST {PATH}NewGame HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                         f"\r\nContent-Length: 100\r\n\r\n{{\"players\"".encode())
            reply = b""
            while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 504")
        error = json.loads(reply[reply.index(b"{"):reply.rindex(b"}") + 1])
        assert error["code"] == "deadline_exceeded"
        reasons = [d["debug"]["reason"] for d in error["details"] if d["type"] == "google.rpc.ErrorInfo"]
        assert reasons == ["REQUEST_TIMEOUT"]
    finally:
        server.shutdown()


def test_a_client_with_its_most_calls_in_progress_is_refused_another():
    api = CacaoApi(ServerOptions(max_searches=1, max_client_calls=1))
    server = start_http(api, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with socket.create_connection(("127.0.0.1", server.server_address[1])) as sock:
            # a call that opened and whose request is still coming counts
            sock.sendall(f"POST {PATH}NewGame HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         f"application/json\r\nContent-Length: 20\r\n\r\n{{".encode())
            wait_until(lambda: server.app.guard.calls == 1, "the first call to be admitted")
            status, _, body = request(url, "POST", PATH + "NewGame", b'{"players": 2}',
                                      {"Content-Type": "application/json"})
            assert status == 429
            error = json.loads(body)
            assert error["code"] == "resource_exhausted" and "127.0.0.1" in error["message"]
            assert [d["debug"]["reason"] for d in error["details"]] == ["TOO_MANY_CLIENT_CALLS"]
        wait_until(lambda: server.app.guard.calls == 0, "the first call to end with its connection")
        assert request(url, "POST", PATH + "NewGame", b'{"players": 2}',
                       {"Content-Type": "application/json"})[0] == 200
    finally:
        server.shutdown()


def test_grpc_and_grpc_web_are_left_to_the_grpc_port(url):
    for kind in ("application/grpc", "application/grpc-web+proto"):
        status, _, _ = request(url, "POST", PATH + "GetServerInfo", b"\0\0\0\0\0", {"Content-Type": kind})
        assert status == 415, kind
