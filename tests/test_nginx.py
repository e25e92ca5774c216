"""nginx in front of three cacao-server replicas, started by cacao-replicas.

Real processes all the way: the script starts the replicas and Debian's nginx
(grpc_pass), and its health supervisor drains a replica that reports
NOT_SERVING (SIGUSR1), takes it back (SIGUSR2), and marks a dead one down.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import grpc
import pytest

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.engine import Position, position_hash

REPLICAS = [sys.executable, "-m", "cacaoai.deploy.replicas"]  # cacao-replicas

pytestmark = [pytest.mark.e2e, pytest.mark.requires_tool("nginx"), pytest.mark.timeout(180)]


class Replicas:
    """cacao-replicas as a subprocess, its stdout lines in a queue."""

    def __init__(self, count: int, http: bool = False):
        self.process = subprocess.Popen(
            [*REPLICAS, "--replicas", str(count), "--port", "0", *(["--http-port", "0"] if http else []),
             "--poll", "0.2", "--", "--max-searches", "1", "--grace", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.pids, self.ports = {}, {}
        for _ in range(count):
            index, pid, port = re.fullmatch(r"replica (\d+) pid (\d+) on 127\.0\.0\.1:(\d+)",
                                            self.expect(r"replica .*")).groups()
            self.pids[int(index)], self.ports[int(index)] = int(pid), int(port)
        self.front = re.search(r"on (127\.0\.0\.1:\d+)", self.expect(r"nginx pid .*")).group(1)
        self.http = self.expect(r"nginx http on (\S+)").split()[-1] if http else ""
        self.expect("ready")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def expect(self, pattern: str, timeout: float = 60.0) -> str:
        """The next stdout line, which must match ``pattern`` (lines before it are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            if re.fullmatch(pattern, line):
                return line

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def instance_of(port: int) -> str:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        return cacao_pb2_grpc.CacaoServiceStub(channel).GetServerInfo(
            pb.GetServerInfoRequest()).instance


def answers_through(front: str, calls: int = 30) -> dict[str, int]:
    """Instance -> calls it answered, of ``calls`` GetServerInfo calls on a fresh channel."""
    with grpc.insecure_channel(front) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        seen = [stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=5).instance
                for _ in range(calls)]
    return {instance: seen.count(instance) for instance in set(seen)}


@pytest.fixture(scope="module")
def replicas():
    running = Replicas(3)
    yield running
    assert running.stop() == 0


def test_every_replica_answers_through_nginx(replicas):
    instances = {instance_of(port) for port in replicas.ports.values()}
    counts = answers_through(replicas.front)
    assert set(counts) == instances and min(counts.values()) >= 5, counts
    with grpc.insecure_channel(replicas.front) as channel:
        stub = cacao_pb2_grpc.CacaoServiceStub(channel)
        game = stub.NewGame(pb.NewGameRequest(players=2, seed=7))
        reply = stub.SuggestAction(pb.SuggestActionRequest(
            position=game.position, limits=pb.SearchLimits(iterations=50), seed=1))
        searched = Position.from_snapshot(convert.position_to_json(game.position)).observation(reply.seat)
        assert reply.position_hash == position_hash(searched) and reply.evaluation.iterations == 50
        with pytest.raises(grpc.RpcError) as bad:  # status and message pass through nginx
            stub.NewGame(pb.NewGameRequest(players=9))
        assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "players" in bad.value.details()


def test_a_replica_reporting_not_serving_gets_no_new_calls_until_it_serves_again(replicas):
    drained = instance_of(replicas.ports[0])
    os.kill(replicas.pids[0], signal.SIGUSR1)
    replicas.expect(r"upstream serving 1,2 down 0")
    counts = answers_through(replicas.front)
    assert drained not in counts and len(counts) == 2, counts
    assert instance_of(replicas.ports[0]) == drained  # draining: it still answers direct calls
    os.kill(replicas.pids[0], signal.SIGUSR2)
    replicas.expect(r"upstream serving 0,1,2 down -")
    assert drained in answers_through(replicas.front)


def test_a_dead_replica_is_marked_down_and_calls_still_succeed(replicas):
    os.kill(replicas.pids[2], signal.SIGKILL)
    replicas.expect(r"upstream serving 0,1 down 2")
    counts = answers_through(replicas.front)
    assert sum(counts.values()) == 30 and len(counts) == 2, counts


def test_the_http_side_of_the_replicas_is_served_through_nginx_too():
    """With --http-port, nginx also proxies the replicas' HTTP sides: the page,
    Connect calls spread over the replicas, and a streamed analysis."""
    import http.client
    import json
    import struct
    import urllib.parse

    from cacaoai.server.http import iter_stream

    replicas = Replicas(2, http=True)
    try:
        url = urllib.parse.urlparse(replicas.http)

        def post(method: str, body: bytes, content_type: str = "application/json") -> tuple[int, bytes]:
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            try:
                connection.request("POST", f"/cacao.v1.CacaoService/{method}", body,
                                   {"Content-Type": content_type})
                reply = connection.getresponse()
                return reply.status, reply.read()
            finally:
                connection.close()

        seen = {json.loads(post("GetServerInfo", b"{}")[1])["instance"] for _ in range(20)}
        assert len(seen) == 2  # both replicas answered
        status, game = post("NewGame", b'{"players": 2, "seed": 7}')
        assert status == 200
        request = json.dumps({"record": json.loads(game)["record"], "seed": 1,
                              "limits": {"iterations": 1000}}).encode()
        status, body = post("AnalyzePosition", struct.pack(">BI", 0, len(request)) + request,
                            "application/connect+json")
        frames = list(iter_stream(body))
        assert status == 200 and frames[-1] == (2, b"{}")
        assert json.loads(frames[-2][1])["evaluation"]["final"]
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        connection.request("GET", "/")
        page = connection.getresponse()
        assert page.status == 200 and b"app.js" in page.read()
        connection.close()
    finally:
        assert replicas.stop() == 0
