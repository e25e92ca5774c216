"""Security options of the server: TLS and mutual TLS, bearer tokens with
roles, a per-client search limit, reflection off, and the warning for a
non-loopback address without TLS. Real servers on real ports; certificates
are made at test time with the openssl command."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from support import require_tool
from test_server import analyze_request, position_message

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client import AsyncCacaoClient, CacaoClient, CacaoClientError
from cacaoai.client.local import LocalServer, free_port
from cacaoai.server import ServerOptions, create_server
from cacaoai.server.options import parse_args

CALL_S = 10.0  # deadline of a call: only catches a hang

pytestmark = pytest.mark.integration


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run([require_tool("openssl"), *args], cwd=cwd, check=True, capture_output=True)


def sign_certificate(name: str, cwd: Path, extension: str) -> None:
    """``name``.pem and ``name``.key, signed by the test CA."""
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=cwd)
    (cwd / f"{name}.ext").write_text(extension + "\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext",
            cwd=cwd)


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A test CA, a server certificate for 127.0.0.1/localhost and a client certificate."""
    cwd = tmp_path_factory.mktemp("certs")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=cacao-test-ca",
            cwd=cwd)
    sign_certificate("server", cwd, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth")
    sign_certificate("client", cwd, "extendedKeyUsage=clientAuth")
    return cwd


def running(**settings):
    """A started server with these options; (server, address)."""
    options = ServerOptions(worker_threads=8, max_searches=3, max_iterations=100_000,
                            max_time_s=5.0, grace_s=0.0, **settings)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    return server, f"127.0.0.1:{port}"


@pytest.fixture
def tokens(tmp_path) -> str:
    path = tmp_path / "tokens"
    path.write_text("# accepted tokens\nalpha-secret\nbeta-secret all\nreader-secret rules\n")
    return str(path)


def code_and_reason(error: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    status = rpc_status.from_call(error)
    reason = ""
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
    return error.code(), reason


def failure(call, *args, **kwargs) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        result = call(*args, **kwargs)
        if not hasattr(result, "ListFields"):
            list(result)
    return code_and_reason(caught.value)


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


# --- TLS ------------------------------------------------------------------------

def test_tls_serves_clients_that_trust_the_ca_and_refuses_plaintext(certs):
    server, address = running(tls_cert=str(certs / "server.pem"), tls_key=str(certs / "server.key"))
    try:
        with CacaoClient(address, ca_cert=str(certs / "ca.pem"), retries=0) as client:
            assert client.get_server_info().api_version == "cacao.v1"
            assert client.new_game(2, seed=5).position_hash
        with CacaoClient(address, retries=0, timeout=2.0) as plain:
            with pytest.raises(CacaoClientError) as caught:
                plain.get_server_info()
            assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0).wait()


def test_mutual_tls_needs_a_client_certificate_signed_by_the_client_ca(certs):
    server, address = running(tls_cert=str(certs / "server.pem"), tls_key=str(certs / "server.key"),
                              tls_client_ca=str(certs / "ca.pem"))
    try:
        with CacaoClient(address, ca_cert=str(certs / "ca.pem"), client_cert=str(certs / "client.pem"),
                         client_key=str(certs / "client.key"), retries=0) as client:
            assert client.get_server_info().api_version == "cacao.v1"
        with CacaoClient(address, ca_cert=str(certs / "ca.pem"), retries=0, timeout=2.0) as anonymous:
            with pytest.raises(CacaoClientError) as caught:
                anonymous.get_server_info()
            assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    finally:
        server.stop(0).wait()


def test_tls_flags_are_checked_and_have_environment_variables(certs):
    with pytest.raises(ValueError, match="tls_cert and tls_key"):
        ServerOptions(tls_cert="a.pem")
    with pytest.raises(ValueError, match="tls_client_ca needs"):
        ServerOptions(tls_client_ca="ca.pem")
    _, _, options = parse_args(["--tls-key", "k.pem"], {"CACAO_TLS_CERT": "c.pem",
                                                       "CACAO_REFLECTION": "off",
                                                       "CACAO_AUTH_TOKENS": "/t",
                                                       "CACAO_MAX_CLIENT_SEARCHES": "1",
                                                       "CACAO_DRAIN": "0.5",
                                                       "CACAO_MAX_CLIENT_CALLS": "7",
                                                       "CACAO_REQUEST_TIMEOUT": "2.5"})
    assert (options.tls_cert, options.tls_key, options.tls) == ("c.pem", "k.pem", True)
    assert options.reflection is False and options.auth_tokens == "/t"
    assert options.max_client_searches == 1 and options.drain_s == 0.5
    assert options.max_client_calls == 7 and options.request_timeout_s == 2.5
    with pytest.raises(ValueError, match="cannot read the TLS certificate"):
        create_server("127.0.0.1:0", ServerOptions(tls_cert=str(certs / "missing.pem"),
                                                   tls_key=str(certs / "server.key")))


# --- tokens -----------------------------------------------------------------------

def test_tokens_let_in_known_callers_and_roles_limit_what_they_may_do(tokens):
    server, address = running(auth_tokens=tokens)
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            request = pb.NewGameRequest(players=2, seed=3)
            assert failure(stub.NewGame, request, timeout=CALL_S) == (
                grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED")
            assert failure(stub.NewGame, request, timeout=CALL_S, metadata=bearer("guess"))[0] == \
                grpc.StatusCode.UNAUTHENTICATED
            assert stub.NewGame(request, timeout=CALL_S, metadata=bearer("alpha-secret")).position_hash
            message, _ = position_message(upto=6)
            search = pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(iterations=10))
            assert stub.SuggestAction(search, timeout=CALL_S,
                                      metadata=bearer("beta-secret")).evaluation.iterations == 10
            # the "rules" role may use the rules but not search
            assert stub.NewGame(request, timeout=CALL_S, metadata=bearer("reader-secret")).position_hash
            assert failure(stub.SuggestAction, search, timeout=CALL_S,
                           metadata=bearer("reader-secret")) == (
                grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED")
            assert failure(stub.AnalyzePosition, analyze_request(1.0), timeout=CALL_S,
                           metadata=bearer("reader-secret"))[0] == grpc.StatusCode.PERMISSION_DENIED
            start = iter([pb.AnalyzeRequest(start=analyze_request(1.0))])
            assert failure(stub.Analyze, start, timeout=CALL_S,
                           metadata=bearer("reader-secret"))[0] == grpc.StatusCode.PERMISSION_DENIED
            # health stays open for probes; reflection needs a token
            health = health_pb2_grpc.HealthStub(channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=CALL_S).status == \
                health_pb2.HealthCheckResponse.SERVING
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            listing = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            assert failure(reflection.ServerReflectionInfo, listing, timeout=CALL_S)[0] == \
                grpc.StatusCode.UNAUTHENTICATED
        with CacaoClient(address, token="alpha-secret", retries=0) as client:  # the client's option
            assert client.new_game(3, seed=1).position_hash
            game = client.new_game(2, seed=1).position
            analysis = client.start_analysis(game, "iterations=50")  # the bidi stream too
            assert analysis.wait().evaluation.iterations == 50

        async def with_token() -> None:
            async with AsyncCacaoClient(address, token="alpha-secret", retries=0) as client:
                game = (await client.new_game(2, seed=1)).position
                analysis = await client.start_analysis(game, "iterations=50")
                assert (await analysis.wait()).evaluation.iterations == 50
            async with AsyncCacaoClient(address, retries=0) as client:
                with pytest.raises(CacaoClientError) as caught:
                    await client.new_game(2)
                assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED

        asyncio.run(with_token())
    finally:
        server.stop(0).wait()


def test_a_token_file_without_tokens_or_with_an_unknown_role_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("# nobody\n")
    with pytest.raises(ValueError, match="no token"):
        create_server("127.0.0.1:0", ServerOptions(auth_tokens=str(empty)))
    bad = tmp_path / "bad"
    bad.write_text("secret admin\n")
    with pytest.raises(ValueError, match="line 1"):
        create_server("127.0.0.1:0", ServerOptions(auth_tokens=str(bad)))


# --- per-client limit, reflection ---------------------------------------------------

def test_one_client_cannot_take_every_search_slot(tokens):
    server, address = running(auth_tokens=tokens, max_client_searches=1)
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            stream = stub.AnalyzePosition(analyze_request(4.0), metadata=bearer("alpha-secret"))
            next(stream)  # alpha's one search runs
            message, _ = position_message(upto=6)
            search = pb.SuggestActionRequest(position=message, limits=pb.SearchLimits(iterations=10))
            code, reason = failure(stub.SuggestAction, search, timeout=CALL_S,
                                   metadata=bearer("alpha-secret"))
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_CLIENT_SEARCHES")
            # another client still gets a slot
            assert stub.SuggestAction(search, timeout=CALL_S,
                                      metadata=bearer("beta-secret")).evaluation.iterations == 10
            info = stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=CALL_S,
                                      metadata=bearer("beta-secret"))
            assert info.limits.max_client_searches == 1
            stream.cancel()
    finally:
        server.stop(0).wait()


def test_without_tokens_a_client_is_its_ip_address():
    server, address = running(max_client_searches=1)
    try:
        with grpc.insecure_channel(address) as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            stream = stub.AnalyzePosition(analyze_request(4.0))
            next(stream)
            message, _ = position_message(upto=6)
            code, reason = failure(stub.SuggestAction, pb.SuggestActionRequest(
                position=message, limits=pb.SearchLimits(iterations=10)), timeout=CALL_S)
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_CLIENT_SEARCHES")
            stream.cancel()
    finally:
        server.stop(0).wait()


def test_reflection_can_be_switched_off():
    server, address = running(reflection=False)
    try:
        with grpc.insecure_channel(address) as channel:
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            listing = iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            assert failure(reflection.ServerReflectionInfo, listing, timeout=CALL_S)[0] == \
                grpc.StatusCode.UNIMPLEMENTED
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            assert stub.NewGame(pb.NewGameRequest(players=2, seed=1), timeout=CALL_S).position_hash
    finally:
        server.stop(0).wait()


# --- processes: the non-loopback warning, the command-line clients -------------------

def server_log_until_serving(*flags: str) -> tuple[LocalServer, list[str], int]:
    server = LocalServer("--drain", "0", *flags)
    return server, server.startup_log, server.port


def stop(server: LocalServer) -> None:
    assert server.stop(CALL_S) == 0


def test_a_non_loopback_address_without_tls_is_warned_about(certs, tokens):
    process, lines, _ = server_log_until_serving("--host", "0.0.0.0")
    stop(process)
    assert any("WARNING" in line and "without TLS" in line for line in lines), lines
    process, lines, _ = server_log_until_serving(
        "--host", "0.0.0.0", "--tls-cert", str(certs / "server.pem"),
        "--tls-key", str(certs / "server.key"), "--auth-tokens", tokens)
    stop(process)
    assert not any("WARNING" in line for line in lines), lines
    process, lines, _ = server_log_until_serving()  # loopback: no warning
    stop(process)
    assert not any("WARNING" in line for line in lines), lines


def test_cacao_match_speaks_tls_with_a_token_file(certs, tokens, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("beta-secret\n")
    process, _, port = server_log_until_serving(
        "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
        "--auth-tokens", tokens)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "cacaoai.client.match", "--server", f"localhost:{port}",
             "-s", "iterations=10", "-s", "iterations=10", "--games", "1", "--seed", "2",
             "--tls-ca", str(certs / "ca.pem"), "--token-file", str(token_file)],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Results over 1 games" in done.stdout
        refused = subprocess.run(
            [sys.executable, "-m", "cacaoai.client.match", "--server", f"localhost:{port}",
             "-s", "iterations=10", "-s", "iterations=10", "--games", "1",
             "--tls-ca", str(certs / "ca.pem")],
            capture_output=True, text=True, timeout=120, env=dict(os.environ, CACAO_TOKEN=""))
        assert refused.returncode != 0 and "UNAUTHENTICATED" in refused.stdout + refused.stderr
    finally:
        stop(process)


def test_the_http_side_needs_the_same_tokens_and_speaks_tls(certs, tokens):
    """The Connect front is no way around --auth-tokens or --tls-*: HTTPS with the
    same certificate, 401/403 without an accepted token, the page's files open."""
    import http.client
    import json
    import ssl

    from cacaoai.server.http import start_page
    from cacaoai.server.security import Tokens

    options = ServerOptions(tls_cert=str(certs / "server.pem"), tls_key=str(certs / "server.key"),
                            auth_tokens=tokens, max_searches=2)
    server, _ = create_server("127.0.0.1:0", options)
    web = start_page(server.cacao_api, "127.0.0.1", free_port(), Tokens.load(tokens))
    assert web is not None
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))

    def post(method: str, request: dict, token: str | None = None) -> tuple[int, dict]:
        connection = http.client.HTTPSConnection("127.0.0.1", web.server_address[1],
                                                 context=context, timeout=30)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            connection.request("POST", f"/cacao.v1.CacaoService/{method}",
                               json.dumps(request).encode(), headers)
            reply = connection.getresponse()
            return reply.status, json.loads(reply.read())
        finally:
            connection.close()

    try:
        status, body = post("NewGame", {"players": 2, "seed": 7})
        assert (status, body["code"]) == (401, "unauthenticated")
        status, body = post("NewGame", {"players": 2, "seed": 7}, "wrong-secret")
        assert (status, body["code"]) == (401, "unauthenticated")
        status, game = post("NewGame", {"players": 2, "seed": 7}, "alpha-secret")
        assert status == 200 and game["position"]
        status, body = post("SuggestAction", {"position": game["position"],
                                              "limits": {"iterations": 10}}, "reader-secret")
        assert (status, body["code"]) == (403, "permission_denied")
        status, body = post("SuggestAction", {"position": game["position"],
                                              "limits": {"iterations": 10}}, "alpha-secret")
        assert status == 200 and body["action"]
        page = http.client.HTTPSConnection("127.0.0.1", web.server_address[1], context=context,
                                           timeout=30)
        page.request("GET", "/")
        assert page.getresponse().status == 200  # the page's files need no token
        page.close()
        plain = http.client.HTTPConnection("127.0.0.1", web.server_address[1], timeout=5)
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            plain.request("GET", "/")
            plain.getresponse()
        plain.close()
    finally:
        web.shutdown()
        web.server_close()
        server.stop(0).wait()


def test_the_http_side_speaks_http_2_over_tls_and_asks_for_client_certificates(certs, tokens):
    """With --tls-cert and --tls-client-ca the HTTP side offers HTTP/2 by ALPN
    (the bidirectional Analyze works over it) and refuses a client without a
    certificate the CA signed; tokens are needed as on gRPC. The client is
    connectrpc's own, over pyqwest."""
    from connectrpc.code import Code
    from connectrpc.errors import ConnectError
    from pyqwest import Client, HTTPTransport, HTTPVersion

    from cacaoai.api.cacao.v1.cacao_connect import CacaoServiceClient

    options = ServerOptions(tls_cert=str(certs / "server.pem"), tls_key=str(certs / "server.key"),
                            tls_client_ca=str(certs / "ca.pem"), auth_tokens=tokens, max_searches=2)
    server, _ = create_server("127.0.0.1:0", options)
    server.start()
    web = server.start_http("127.0.0.1", free_port())
    assert web is not None and web.tls
    url = f"https://localhost:{web.server_address[1]}"
    ca = (certs / "ca.pem").read_bytes()
    mine = {"tls_cert": (certs / "client.pem").read_bytes(), "tls_key": (certs / "client.key").read_bytes()}

    async def calls() -> None:
        http = Client(HTTPTransport(tls_ca_cert=ca, **mine))
        async with http.stream("GET", f"{url}/") as page:  # no token needed; HTTP/2 by ALPN
            assert page.status == 200 and page.http_version == HTTPVersion.HTTP2
        async with CacaoServiceClient(url, http_client=http) as cacao:
            with pytest.raises(ConnectError) as refused:
                await cacao.new_game(pb.NewGameRequest(players=2))
            assert refused.value.code is Code.UNAUTHENTICATED
            token = {"authorization": "Bearer alpha-secret"}
            game = await cacao.new_game(pb.NewGameRequest(players=2, seed=7), headers=token)
            start = pb.AnalyzeRequest(start=pb.AnalyzePositionRequest(
                record=game.record, limits=pb.SearchLimits(iterations=2_000)))

            async def requests():
                yield start

            reports = [r async for r in cacao.analyze(requests(), headers=token)]
            assert reports[-1].evaluation.final and reports[-1].evaluation.iterations == 2_000
        without = Client(HTTPTransport(tls_ca_cert=ca))  # no client certificate: no handshake
        with pytest.raises(Exception):  # noqa: B017 - the TLS error's type is the HTTP client's
            await without.get(f"{url}/")

    try:
        asyncio.run(calls())
    finally:
        server.stop(0).wait()
