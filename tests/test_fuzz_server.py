"""Fuzzing, bounded for CI: mutated requests of all seven RPCs, raw bytes and
oversized messages against a real server process on a real port, and hostile
JSON values against the engine's loaders. No case may crash the server, answer
INTERNAL or UNKNOWN, or hang. benchmarks/fuzz_server.py runs the long version.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import fuzz_requests
import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import json_places, json_replaced

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.client.local import LocalServer, serving
from cacaoai.engine import CacaoError, Position

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats()
    | st.text(max_size=20) | st.sampled_from(["place", "1111", "market-2", "turn", "x" * 5000]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@pytest.fixture(scope="module")
def fuzz_server():
    """A server process with short search limits: (process, address)."""
    with LocalServer(*fuzz_requests.SERVER_FLAGS) as server:
        yield server.process, server.address


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_a_bounded_fuzz_run_finds_no_crash_internal_error_or_hang(fuzz_server):
    process, address = fuzz_server
    count = int(os.environ.get("CACAO_FUZZ_CASES", "1500"))  # .ci/asan_check.sh: fewer
    outcomes = fuzz_requests.run(address, seed=2026, count=count,
                                 alive=lambda: process.poll() is None)
    assert outcomes.requests == count
    assert outcomes.failed() == 0, outcomes.failures[:5]
    assert outcomes.counts["OK"] > count // 20 and outcomes.counts["INVALID_ARGUMENT"] > count // 20
    assert process.poll() is None and serving(address)


def test_every_rpc_is_fuzzed():
    methods = {method for method, _ in fuzz_requests.cases(seed=1, count=400)}
    assert methods == set(fuzz_requests.METHODS) == {
        m.name for m in pb.DESCRIPTOR.services_by_name["CacaoService"].methods}


@pytest.mark.integration
@FUZZ
@given(method=st.sampled_from(fuzz_requests.METHODS), data=st.binary(max_size=400))
def test_raw_request_bytes_get_a_clear_answer(fuzz_server, method, data):
    _, address = fuzz_server
    with grpc.insecure_channel(address) as channel:
        outcome = fuzz_requests.send(channel, method, data, timeout=20)
    assert outcome not in fuzz_requests.FAILURES, (method, data)


RECORDS = (Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()
SNAPSHOT = Position.from_record(json.loads(RECORDS[0]), upto=30)
SNAP_PLACES = list(json_places(SNAPSHOT.snapshot()))
RECORD = SNAPSHOT.record()
RECORD_PLACES = list(json_places(RECORD))


@FUZZ
@given(where=st.sampled_from(SNAP_PLACES), value=JSON)
def test_any_json_value_anywhere_in_a_snapshot_gives_an_engine_error_or_a_position(where, value):
    document = json_replaced(SNAPSHOT.snapshot(), where, value)
    try:
        Position.from_snapshot(document)
        Position.from_snapshot(json.dumps(document))
    except CacaoError:
        pass


@FUZZ
@given(where=st.sampled_from(RECORD_PLACES), value=JSON)
def test_any_json_value_anywhere_in_a_record_gives_an_engine_error_or_a_position(where, value):
    document = json_replaced(RECORD, where, value)
    try:
        Position.from_record(json.dumps(document))
    except CacaoError:
        pass
