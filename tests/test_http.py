"""The cacao.v1 API over HTTP (Connect protocol) and the page's files.

A real HTTP server on a free port answers with the same CacaoApi as the gRPC
server; the answers are compared with the gRPC ones.
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import socket
import struct
import subprocess
import threading
from email.message import Message

import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from support import GUARD_S, server_options, wait_until

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.client.local import LocalServer, free_port
from cacaoai.server.http import SERVICE, iter_stream, start_http
from cacaoai.server.options import parse_args

PATH = "/cacao.v1.CacaoService/"

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def http_server(cacao_server):
    """The HTTP side on a free port, over the gRPC fixture's CacaoApi (one search gate)."""
    server = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0)
    yield server
    server.shutdown()
    server.server_close()


def post(server, method: str, body: bytes, content_type: str = "application/json",
         headers: dict | None = None) -> tuple[int, Message, bytes]:
    """The status, headers (names in any case: Hypercorn writes them in lower
    case) and body of one POST."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
    try:
        connection.request("POST", PATH + method, body,
                           {"Content-Type": content_type, **(headers or {})})
        reply = connection.getresponse()
        return reply.status, reply.headers, reply.read()
    finally:
        connection.close()


def post_json(server, method: str, request: dict, **kw) -> tuple[int, dict]:
    status, _, body = post(server, method, json.dumps(request).encode(), **kw)
    return status, json.loads(body)


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def detail(error: dict, kind: str):
    """The decoded detail of type `kind` (a google.rpc message class) in a Connect error."""
    for d in error.get("details", []):
        if d["type"] == kind.DESCRIPTOR.full_name:
            message = kind()
            message.ParseFromString(base64.b64decode(d["value"] + "=" * (-len(d["value"]) % 4)))
            assert json_format.MessageToDict(message) == d["debug"]
            return message
    raise AssertionError(f"no {kind.DESCRIPTOR.full_name} in {error}")


def test_every_method_of_the_service_is_served_by_the_api_function_of_its_name(cacao_server):
    """The generated Connect application (protoc-gen-connectrpc) routes every
    method of the service to the CacaoConnect method of its snake_case name,
    which calls the CacaoApi function of that name; the side-effect-free
    methods may be GETs."""
    from connectrpc.method import IdempotencyLevel

    from cacaoai.server.asgi import CacaoAsgi
    from cacaoai.server.connect_transport import CacaoConnect

    api = cacao_server[0].cacao_api
    app = CacaoAsgi(api)
    try:
        endpoints = app.connect._endpoints(CacaoConnect(api, app.pool))
    finally:
        app.close()
    assert sorted(endpoints) == sorted(PATH + m.name for m in SERVICE.methods)
    analyses = {"analyze_position", "analyze"}  # both start_analysis
    for path, endpoint in endpoints.items():
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", path.rsplit("/", 1)[1]).lower()
        assert endpoint.function.__name__ == name
        assert name in analyses or callable(getattr(api, name))
    gettable = sorted(e.method.name for e in endpoints.values()
                      if e.method.idempotency_level == IdempotencyLevel.NO_SIDE_EFFECTS)
    assert gettable == ["CheckPuzzle", "GetPuzzle", "GetServerInfo", "ListLegalActions", "ValidateRecord"]


def test_the_bidirectional_analyze_over_http_1_1_reads_its_messages_then_answers():
    """Over HTTP/1.1 a client sends Analyze's messages, then reads the reports
    (half duplex): a start and a stop end a ten-minute search at once with
    one final report, stopped by "stop"."""
    from cacaoai.server.handlers import CacaoApi

    api = CacaoApi(server_options(max_searches=1))  # searches of ten minutes
    server = start_http(api, "127.0.0.1", 0)
    try:
        game = api.new_game(pb.NewGameRequest(players=2, seed=7))
        start = pb.AnalyzeRequest(start=pb.AnalyzePositionRequest(position=game.position))
        start.start.limits.time.FromSeconds(600)
        stop = pb.AnalyzeRequest(stop=pb.StopAnalysis())
        body = envelope(start.SerializeToString()) + envelope(stop.SerializeToString())
        status, headers, reply = post(server, "Analyze", body, "application/connect+proto")
        assert status == 200 and headers["Content-Type"] == "application/connect+proto"
        frames = list(iter_stream(reply))
        assert frames[-1] == (2, b"{}")
        final = pb.AnalyzePositionResponse.FromString(frames[-2][1])
        assert final.evaluation.final and final.evaluation.stopped_by == "stop"
        assert final.evaluation.best_action.WhichOneof("kind")
        # a stream method needs a stream's content type
        assert post(server, "Analyze", start.SerializeToString(), "application/proto")[0] == 415
        assert post_json(server, "NewGame", {"players": 2})[0] == 200
    finally:
        server.shutdown()


def test_new_game_over_json_is_the_grpc_answer(http_server, cacao_stub):
    status, body = post_json(http_server, "NewGame", {"players": 2, "seed": 7})
    assert status == 200
    expected = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    assert json_format.ParseDict(body, pb.NewGameResponse()) == expected
    assert body["positionHash"] == expected.position_hash


def test_a_unary_call_in_binary_protobuf_gets_the_grpc_answer(http_server, cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=3, seed=11))
    request = pb.ListLegalActionsRequest(position=game.position)
    status, headers, body = post(http_server, "ListLegalActions", request.SerializeToString(),
                                 "application/proto")
    assert status == 200 and headers["Content-Type"] == "application/proto"
    reply = pb.ListLegalActionsResponse.FromString(body)
    assert reply == cacao_stub.ListLegalActions(request) and len(reply.actions) > 0


def test_the_analysis_options_work_over_json(http_server, cacao_stub):
    game = json_format.MessageToDict(cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7)))
    ask = {"position": game["position"], "seed": "3", "limits": {"iterations": "500"}}
    status, free = post_json(http_server, "SuggestAction", ask)
    assert status == 200 and free["evaluation"]["root"]["visits"] == "500"
    assert "prior" in free["evaluation"]["candidates"][0]
    status, other = post_json(http_server, "SuggestAction", {**ask, "avoid": [free["action"]]})
    assert status == 200 and other["action"] != free["action"]
    far = json.loads(json.dumps(free["action"]))
    far["place"]["x"] = 30
    status, error = post_json(http_server, "SuggestAction", {**ask, "allow": [far]})
    assert status == 400 and error["code"] == "invalid_argument"
    assert [v.field for v in detail(error, error_details_pb2.BadRequest).field_violations] == [
        "allow[0].place.x", "allow[0].place.y"]


def test_an_error_keeps_its_code_field_violations_and_reason(http_server):
    status, error = post_json(http_server, "NewGame", {"players": 5})
    assert status == 400 and error["code"] == "invalid_argument"
    assert "players" in error["message"]
    bad = detail(error, error_details_pb2.BadRequest)
    assert bad.field_violations[0].field == "players"
    info = detail(error, error_details_pb2.ErrorInfo)
    assert (info.domain, info.reason) == ("cacao.v1", "INVALID_REQUEST")


def test_an_illegal_action_is_explained_with_the_field_at_fault(http_server, cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    seat = game.position.to_act
    tile = pb.WorkerTile.Name(game.position.seats[seat].hand[0])
    request = {"record": json_format.MessageToDict(game.record),
               "action": {"seat": seat, "place": {"tile": tile, "x": 5, "y": 6}}}
    status, error = post_json(http_server, "ApplyAction", request)
    assert status == 400 and error["code"] == "invalid_argument"
    fields = [v.field for v in detail(error, error_details_pb2.BadRequest).field_violations]
    assert fields == ["action.place.x", "action.place.y"], error
    assert detail(error, error_details_pb2.ErrorInfo).reason == "ILLEGAL_ACTION"


def test_a_failed_precondition_carries_its_precondition_failure(http_server, cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=3))
    position = json_format.MessageToDict(game.position)
    position["view"] = 0
    legal = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=game.position))
    request = {"position": position, "action": json_format.MessageToDict(legal.actions[0])}
    status, error = post_json(http_server, "ApplyAction", request)
    assert status == 400 and error["code"] == "failed_precondition"
    failure = detail(error, error_details_pb2.PreconditionFailure)
    assert failure.violations[0].subject == "position.view"


def test_malformed_requests_name_the_problem(http_server):
    status, error = post(http_server, "NewGame", b"{not json")[0], None
    assert status == 400
    status, error = post_json(http_server, "NewGame", {"players": 2, "colour": "red"})
    assert status == 400 and error["code"] == "invalid_argument"
    assert "cacao.v1.NewGameRequest" in error["message"] and "colour" in error["message"]
    # connectrpc answers an unknown method 404 (a Connect client reads it as unimplemented)
    status, _, _ = post(http_server, "NoSuchMethod", b"{}")
    assert status == 404
    status, headers, _ = post(http_server, "NewGame", b"{}", "text/plain")
    assert status == 415 and "application/json" in headers["Accept-Post"]
    status, error = post_json(http_server, "NewGame", {"players": 2},
                              headers={"Content-Encoding": "snappy"})
    assert status == 501 and error["code"] == "unimplemented" and "snappy" in error["message"]


def test_a_too_short_connect_timeout_is_deadline_exceeded(http_server, cacao_stub):
    """connectrpc ends a call whose deadline has passed before its handler runs,
    so a deadline of 0 gets the library's own error (no ErrorInfo)."""
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    request = {"position": json_format.MessageToDict(game.position), "level": "strong"}
    status, error = post_json(http_server, "SuggestAction", request,
                              headers={"Connect-Timeout-Ms": "0"})
    assert status == 504 and error["code"] == "deadline_exceeded"


def stream(server, request: pb.AnalyzePositionRequest, codec: str) -> tuple[list, dict]:
    payload = (json_format.MessageToJson(request).encode() if codec == "json"
               else request.SerializeToString())
    status, headers, body = post(server, "AnalyzePosition", envelope(payload),
                                 f"application/connect+{codec}")
    assert status == 200 and headers["Content-Type"] == f"application/connect+{codec}"
    frames = list(iter_stream(body))
    assert [flags for flags, _ in frames] == [0] * (len(frames) - 1) + [2]
    messages = [json_format.Parse(p, pb.AnalyzePositionResponse()) if codec == "json"
                else pb.AnalyzePositionResponse.FromString(p) for _, p in frames[:-1]]
    return messages, json.loads(frames[-1][1])


@pytest.mark.parametrize("codec", ["json", "proto"])
def test_analysis_streams_reports_and_ends_with_the_grpc_analysis_answer(http_server, cacao_stub,
                                                                        codec):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    request = pb.AnalyzePositionRequest(position=game.position, seed=5,
                                        limits=pb.SearchLimits(iterations=8_000))
    request.report_interval.FromMilliseconds(50)
    messages, end = stream(http_server, request, codec)
    assert end == {}
    assert [m.sequence for m in messages] == list(range(len(messages)))
    # as many interim reports as the machine's speed gave, then the final one
    assert messages and [m.evaluation.final for m in messages][-1]
    assert not any(m.evaluation.final for m in messages[:-1])
    iterations = [m.evaluation.iterations for m in messages]
    assert iterations == sorted(iterations)
    over_grpc = list(cacao_stub.AnalyzePosition(request))[-1].evaluation
    assert messages[-1].evaluation.best_action == over_grpc.best_action
    assert [c.visits for c in messages[-1].evaluation.candidates] == [c.visits for c in over_grpc.candidates]


def test_a_stream_error_is_in_the_end_of_stream_message(http_server, cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    request = pb.AnalyzePositionRequest(position=game.position, level="grandmaster")
    messages, end = stream(http_server, request, "proto")
    assert messages == []
    assert end["error"]["code"] == "invalid_argument" and "grandmaster" in end["error"]["message"]
    assert detail(end["error"], error_details_pb2.ErrorInfo).reason == "UNKNOWN_LEVEL"


def test_a_client_that_hangs_up_stops_its_search(cacao_stub):
    from cacaoai.server.handlers import CacaoApi

    api = CacaoApi(server_options(max_searches=1))  # searches of ten minutes
    server = start_http(api, "127.0.0.1", 0)
    gate = api.gate
    game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    request = pb.AnalyzePositionRequest(position=game.position)
    request.limits.time.FromSeconds(600)
    request.report_interval.FromMilliseconds(50)
    payload = envelope(request.SerializeToString())
    with socket.create_connection(("127.0.0.1", server.server_address[1])) as sock:
        sock.sendall(f"POST {PATH}AnalyzePosition HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Type: application/connect+proto\r\n"
                     f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        received = sock.recv(4096)
        assert received.startswith(b"HTTP/1.1 200")  # headers, then reports
        while received.count(b"\r\n") < 8:  # status, 3 headers, blank line, a first chunk
            received += sock.recv(4096)
        assert gate.running == 1
    try:
        assert gate.wait_running(0, GUARD_S)  # a ten-minute search ended when its client left
    finally:
        server.shutdown()
        server.server_close()


def test_the_page_and_its_files_are_served(http_server):
    connection = http.client.HTTPConnection("127.0.0.1", http_server.server_address[1])
    for path, kind, text in [("/", "text/html", b"app.js"), ("/app.js", "javascript", b"AnalyzePosition"),
                             ("/rules.html", "text/html", b"Overbuilding")]:
        connection.request("GET", path)
        reply = connection.getresponse()
        body = reply.read()
        assert reply.status == 200 and kind in reply.getheader("Content-Type"), path
        assert text in body, path
    for path in ("/../../setup.py", "/nothing.html", "/%2e%2e/http.py"):
        connection.request("GET", path)
        reply = connection.getresponse()
        reply.read()
        assert reply.status == 404, path
    connection.close()


def test_the_http_port_is_a_flag_and_an_environment_variable():
    """A port; 0 any free one, as for --port; off none (None, as ServerOptions says it)."""
    assert parse_args([], {})[2].http_port == 8080
    assert parse_args(["--http-port", "off"], {})[2].http_port is None
    assert parse_args(["--http-port", "0"], {})[2].http_port == 0
    assert parse_args([], {"CACAO_HTTP_PORT": "9123"})[2].http_port == 9123
    assert parse_args([], {"CACAO_HTTP_PORT": "off"})[2].http_port is None
    assert parse_args([], {"CACAO_HTTP_PORT": "0"})[2].http_port == 0


@pytest.mark.e2e
@pytest.mark.requires_tool("curl")
def test_cacao_server_answers_the_readme_curl_command():
    with LocalServer(http=True) as server:
        lines = server.startup_log
        assert re.search(rf"board page and Connect API on {server.http_url}", lines[-1]), lines
        curl = subprocess.run(
            ["curl", "-s", "-H", "Content-Type: application/json", "-d", '{"players":2,"seed":7}',
             f"{server.http_url}cacao.v1.CacaoService/NewGame"],
            capture_output=True, text=True, timeout=30, check=True)
        body = json.loads(curl.stdout)
        assert body["position"]["players"] == 2 and len(body["positionHash"]) == 16
        assert server.stop(GUARD_S) == 0


def test_a_bad_content_length_is_refused_and_the_server_goes_on(http_server):
    with socket.create_connection(("127.0.0.1", http_server.server_address[1])) as sock:
        sock.sendall(f"POST {PATH}NewGame HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     f"\r\nContent-Length: lots\r\n\r\n".encode())
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 400")  # from the HTTP/1.1 parser, with no body
    assert post_json(http_server, "NewGame", {"players": 2})[0] == 200


def answers_again(server) -> bool:
    """Whether NewGame answers 200 again once the closed connections' threads
    have noticed (polled: the server has nothing to wait on for that)."""
    wait_until(lambda: post_json(server, "NewGame", {"players": 2})[0] == 200,
               "the server to take connections again")
    return True


def test_connections_beyond_the_limit_get_unavailable(cacao_server):
    server = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0, max_connections=3)
    try:
        idle = [socket.create_connection(("127.0.0.1", server.server_address[1])) for _ in range(3)]
        status, error = post_json(server, "NewGame", {"players": 2})
        assert status == 503 and error["code"] == "unavailable"
        for sock in idle:
            sock.close()
        assert answers_again(server)
    finally:
        server.shutdown()
        server.server_close()


def test_silent_connections_are_closed_after_the_request_timeout():
    """Connections that send nothing give their thread back after
    --request-timeout, so they cannot hold the HTTP side for long."""
    from cacaoai.server import ServerOptions
    from cacaoai.server.handlers import CacaoApi

    api = CacaoApi(ServerOptions(request_timeout_s=0.5, max_searches=1))
    server = start_http(api, "127.0.0.1", 0, max_connections=2)
    try:
        idle = [socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=20)
                for _ in range(2)]
        for sock in idle:
            assert sock.recv(1) == b""  # the server closed it (a hang would time out: an error)
            sock.close()
        assert answers_again(server)
    finally:
        server.shutdown()
        server.server_close()


def test_http_calls_reach_the_call_hooks_as_grpc_calls_do(cacao_server, cacao_stub):
    """Metrics and the JSON call log see the Connect calls too: one record per call,
    with its method, its gRPC code name and, for a search, its iterations.

    A call's hooks run after its answer is sent, so the test waits for each
    call's record before the next call: the records come in the order of the
    calls. Each call has a connection of its own, since a refused request
    (415) may close its connection."""
    from cacaoai.server.observe import Observers

    records: list = []
    recorded = threading.Condition()

    def record(call) -> None:
        with recorded:
            records.append(call)
            recorded.notify_all()

    server = start_http(cacao_server[0].cacao_api, "127.0.0.1", 0,
                        observers=Observers([record]))
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)

    def call(method: str, body: bytes, content_type: str = "application/json", counted: int = 0
             ) -> tuple[int, bytes]:
        """One call on a connection of its own (a refused request may close
        its connection); then waits until `counted` records are in, so that
        they come in the order of the calls."""
        nonlocal connection
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
        connection.request("POST", PATH + method, body, {"Content-Type": content_type})
        reply = connection.getresponse()
        answer = reply.status, reply.read()
        with recorded:
            assert recorded.wait_for(lambda: len(records) >= counted, GUARD_S)
        return answer

    try:
        game = cacao_stub.NewGame(pb.NewGameRequest(players=2, seed=7))
        position = json_format.MessageToDict(game.position)
        assert call("NoSuchMethod", b"{}")[0] == 404  # not a method: nothing to count it under
        assert call("ListLegalActions", json.dumps({"position": position}).encode(), counted=1)[0] == 200
        assert call("NewGame", json.dumps({"players": 9}).encode(), counted=2)[0] == 400
        assert call("NewGame", b"{}", content_type="text/plain", counted=3)[0] == 415
        request = pb.AnalyzePositionRequest(position=game.position, seed=5,
                                            limits=pb.SearchLimits(iterations=2_000))
        payload = envelope(json_format.MessageToJson(request).encode())
        status, body = call("AnalyzePosition", payload, "application/connect+json", counted=4)
        frames = list(iter_stream(body))
        assert status == 200 and json.loads(frames[-1][1]) == {}
        final = json_format.Parse(frames[-2][1], pb.AnalyzePositionResponse())
        assert final.evaluation.final
        with recorded:
            assert recorded.wait_for(lambda: len(records) >= 4, GUARD_S)
    finally:
        connection.close()
        server.shutdown()
        server.server_close()
    assert [(r.method, r.code) for r in records] == [
        ("ListLegalActions", "OK"), ("NewGame", "INVALID_ARGUMENT"),
        ("NewGame", "INVALID_ARGUMENT"), ("AnalyzePosition", "OK")]
    assert all(r.service == "cacao.v1.CacaoService" and r.peer.startswith("http:127.0.0.1:")
               and r.seconds > 0 for r in records)
    assert records[0].position_hash == game.position_hash
    assert records[-1].iterations == 2_000 and records[-1].stopped_by == "iterations"


def test_health_over_http_follows_the_grpc_health_service():
    """/healthz answers 200 SERVING, and 503 NOT_SERVING while the server drains
    (SIGUSR1, or a shutdown's drain), for probes that speak HTTP(S)."""
    from cacaoai.server import ServerOptions, create_server

    server, _ = create_server("127.0.0.1:0", ServerOptions(max_searches=1, grace_s=0.0))
    server.start()
    web = server.start_http("127.0.0.1", free_port())
    assert web is not None

    def health() -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", web.server_address[1], timeout=30)
        try:
            connection.request("GET", "/healthz")
            reply = connection.getresponse()
            return reply.status, reply.read()
        finally:
            connection.close()

    try:
        assert health() == (200, b"SERVING\n")
        server.set_serving(False)
        assert health() == (503, b"NOT_SERVING\n")
        server.set_serving(True)
        assert health() == (200, b"SERVING\n")
    finally:
        server.stop(0).wait()

