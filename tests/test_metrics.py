"""Metrics and call logs: a real server counts, times and logs its calls.

In-process servers show what each metric counts; a cacao-server process shows
the flags, the HTTP ``/metrics`` endpoint and the JSON log lines end to end.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import urllib.request

import grpc
import pytest
from google.protobuf import duration_pb2
from prometheus_client.parser import text_string_to_metric_families
from support import GUARD_S, server_options, wait_until

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1 import cacao_pb2_grpc
from cacaoai.client.local import LocalServer
from cacaoai.engine import Position
from cacaoai.server import ServerOptions, create_server
from cacaoai.server.logs import CALL_LOGGER, JsonFormatter
from cacaoai.server.observe import Observers, call_record
from cacaoai.server.options import parse_args

SERVICE = "cacao.v1.CacaoService"

pytestmark = pytest.mark.integration


def value(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 if absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return 0.0


def position() -> pb.Position:
    from cacaoai.api import convert

    pos = Position.new(players=2, seed=3)
    for _ in range(4):
        pos.apply(pos.legal_actions()[0])
    return convert.position_from_json(pos.snapshot())


@pytest.fixture
def observed_server():
    """An in-process server with metrics and the JSON call log, one search slot."""
    options = server_options(worker_threads=4, max_searches=1, grace_s=0.0, metrics_port=0,
                             log_format="json")
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield server, cacao_pb2_grpc.CacaoServiceStub(channel)
    server.stop(None).wait()


def test_calls_errors_latency_and_searches_are_counted(observed_server, caplog):
    server, stub = observed_server
    metrics = server.cacao_metrics
    caplog.set_level(logging.INFO, logger=CALL_LOGGER)
    stub.GetServerInfo(pb.GetServerInfoRequest())
    game = stub.NewGame(pb.NewGameRequest(players=2, seed=7))
    with pytest.raises(grpc.RpcError) as bad:
        stub.NewGame(pb.NewGameRequest(players=9))
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    reply = stub.SuggestAction(pb.SuggestActionRequest(
        position=position(), limits=pb.SearchLimits(iterations=300), seed=1))
    text = metrics.exposition().decode()

    def handled(method: str, code: str) -> float:
        return value(text, "grpc_server_handled_total", grpc_service=SERVICE,
                     grpc_method=method, grpc_code=code)

    assert handled("GetServerInfo", "OK") == 1
    assert handled("NewGame", "OK") == 1 and handled("NewGame", "INVALID_ARGUMENT") == 1
    assert handled("SuggestAction", "OK") == 1
    assert value(text, "grpc_server_handling_seconds_count", grpc_method="NewGame") == 2
    assert value(text, "grpc_server_handling_seconds_sum", grpc_method="SuggestAction") > 0
    assert value(text, "cacao_search_iterations_sum", grpc_method="SuggestAction") == 300
    assert value(text, "cacao_search_iterations_bucket", grpc_method="SuggestAction",
                 le="1000.0") == 1
    assert value(text, "cacao_search_seconds_count", grpc_method="SuggestAction") == 1
    assert value(text, "cacao_search_slots") == 1

    lines = [r for r in caplog.records if r.name == CALL_LOGGER]
    assert [r.method.rsplit("/", 1)[1] for r in lines] == [
        "GetServerInfo", "NewGame", "NewGame", "SuggestAction"]
    assert [r.code for r in lines] == ["OK", "OK", "INVALID_ARGUMENT", "OK"]
    assert lines[1].position_hash == game.position_hash and lines[2].position_hash == ""
    assert lines[3].position_hash == reply.position_hash and lines[3].iterations == 300
    entry = json.loads(JsonFormatter().format(lines[3]))
    assert entry["method"] == f"{SERVICE}/SuggestAction" and entry["duration_ms"] > 0
    assert entry["stopped_by"] == "iterations" and entry["level"] == "INFO"


def test_slots_queue_waits_pauses_and_refusals_are_counted():
    """A move pauses the one running analysis; a second analysis that could
    not start before its deadline is refused at once; the metrics say so."""
    options = server_options(worker_threads=8, max_searches=1, grace_s=0.0, metrics_port=0)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    metrics, gate = server.cacao_metrics, server.cacao_api.gate
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = cacao_pb2_grpc.CacaoServiceStub(channel)
            stream = stub.AnalyzePosition(pb.AnalyzePositionRequest(
                position=position(), report_interval=duration_pb2.Duration(nanos=50_000_000),
                limits=pb.SearchLimits(time=duration_pb2.Duration(seconds=600))))
            next(stream)  # the one slot is taken, by a background search
            assert value(metrics.exposition().decode(), "cacao_search_slots_in_use") == 1
            reply = stub.SuggestAction(pb.SuggestActionRequest(position=position(),
                                                               limits=pb.SearchLimits(iterations=1)))
            assert reply.evaluation.priority == pb.SEARCH_PRIORITY_INTERACTIVE
            # the first may search 40 s more: a second one cannot start within its 10 s deadline
            with pytest.raises(grpc.RpcError) as refused:
                list(stub.AnalyzePosition(pb.AnalyzePositionRequest(
                    position=position(), limits=pb.SearchLimits(iterations=1000)), timeout=10))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert gate.wait_for(lambda g: g.paused == 0 and g.running == 1, GUARD_S)  # resumed
            stream.cancel()
            assert gate.wait_running(0, GUARD_S)

            def with_the_cancel_counted() -> str:
                # the call is counted when the server sees the cancel, apart from its search's end
                text = metrics.exposition().decode()
                return text if value(text, "grpc_server_handled_total", grpc_method="AnalyzePosition",
                                     grpc_code="CANCELLED") else ""

            text = wait_until(with_the_cancel_counted, "the cancelled call to be counted")
    finally:
        server.stop(None).wait()
    background, interactive = {"class": "background"}, {"class": "interactive"}
    assert value(text, "cacao_search_refusals_total", grpc_method="AnalyzePosition") == 1
    assert value(text, "cacao_search_queue_refusals_total", cause="wait_too_long", **background) == 1
    assert value(text, "cacao_search_preemptions_total") == 1
    assert value(text, "cacao_search_queue_wait_seconds_count", **interactive) == 1
    assert value(text, "cacao_search_queue_wait_seconds_count", **background) == 1
    assert value(text, "cacao_search_queue_length", **background) == 0
    assert value(text, "cacao_search_slots_in_use") == 0 and value(text, "cacao_search_paused") == 0
    assert value(text, "cacao_memory_budget_bytes") == options.memory_budget_bytes
    assert value(text, "cacao_memory_reserved_bytes") == 0

def test_a_stopped_analysis_and_the_tree_cache_are_counted(observed_server, caplog):
    server, stub = observed_server
    caplog.set_level(logging.INFO, logger=CALL_LOGGER)
    request = pb.SuggestActionRequest(position=position(), reuse_tree=True,
                                      limits=pb.SearchLimits(iterations=200))
    stub.SuggestAction(request)
    stub.SuggestAction(request)  # the same observation: its tree goes on
    start = pb.AnalyzePositionRequest(position=position(),
                                      report_interval=duration_pb2.Duration(nanos=50_000_000),
                                      limits=pb.SearchLimits(time=duration_pb2.Duration(seconds=4)))
    first_report = threading.Event()

    def requests():
        yield pb.AnalyzeRequest(start=start)
        first_report.wait()
        yield pb.AnalyzeRequest(stop=pb.StopAnalysis())

    reports = []
    for report in stub.Analyze(requests()):
        reports.append(report)
        first_report.set()
    text = server.cacao_metrics.exposition().decode()
    assert value(text, "cacao_tree_cache_hits_total") >= 1
    assert value(text, "cacao_tree_cache_misses_total") >= 1
    assert 0 < value(text, "cacao_tree_cache_bytes") <= value(text, "cacao_tree_cache_max_bytes")
    assert value(text, "cacao_tree_cache_trees") >= 1
    assert value(text, "grpc_server_handled_total", grpc_method="Analyze", grpc_code="OK") == 1
    assert value(text, "cacao_search_seconds_count", grpc_method="Analyze") == 1
    line = [r for r in caplog.records if r.name == CALL_LOGGER][-1]
    assert line.stopped_by == "stop" and line.iterations == reports[-1].evaluation.iterations


def test_a_failing_hook_is_logged_and_the_other_hooks_still_run(caplog):
    seen = []

    def broken(_call):
        raise RuntimeError("boom")

    Observers([broken, seen.append]).finish(call_record("/s.S/M", "OK", 0.01))
    assert [c.method for c in seen] == ["M"]
    assert "call hook" in caplog.text


def test_without_the_flags_nothing_is_observed():
    server, _ = create_server("127.0.0.1:0", ServerOptions(worker_threads=4, max_searches=1))
    assert server.cacao_metrics is None


def test_metrics_and_log_format_are_flags_and_environment_variables():
    _, _, options = parse_args(["--metrics-port", "9100", "--log-format", "json"], {})
    assert (options.metrics_port, options.log_format) == (9100, "json")
    _, _, options = parse_args([], {"CACAO_METRICS_PORT": "0", "CACAO_LOG_FORMAT": "json"})
    assert (options.metrics_port, options.log_format) == (0, "json")
    assert parse_args([], {})[2].metrics_port is None
    for bad in (["--log-format", "yaml"], ["--metrics-port", "70000"]):
        with pytest.raises(SystemExit):
            parse_args(bad, {})


def test_a_server_process_serves_metrics_over_http_and_logs_json_lines():
    rest: list[str] = []
    with LocalServer("--metrics-port", "0", "--log-format", "json", "--max-searches", "1",
                     log=rest.append) as server:
        lines = [json.loads(line) for line in server.startup_log]
        metrics_url = re.search(r"http://\S+/metrics", lines[0]["message"]).group(0)
        port = int(re.search(r"serving on 127\.0\.0\.1:(\d+)", lines[1]["message"]).group(1))
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            game = cacao_pb2_grpc.CacaoServiceStub(channel).NewGame(
                pb.NewGameRequest(players=3, seed=1))
        text = urllib.request.urlopen(metrics_url, timeout=GUARD_S).read().decode()
        assert value(text, "grpc_server_handled_total", grpc_method="NewGame", grpc_code="OK") == 1
        assert server.stop(GUARD_S) == 0  # SIGTERM; the log is then read to its end
    calls = [json.loads(line) for line in rest if '"logger": "cacaoai.server.calls"' in line]
    assert len(calls) == 1
    assert calls[0]["method"] == f"{SERVICE}/NewGame" and calls[0]["code"] == "OK"
    assert calls[0]["position_hash"] == game.position_hash
