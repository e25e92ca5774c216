"""One position, one answer: a position gives the same progress, the same
search and the same service replies however it arrives (a record, a complete
position, the observation of the seat to act, or a complete position whose
hidden parts are drawn again); and a record or position whose integers are not
JSON integers is refused, naming the field. benchmarks/one_answer.py runs the
long version of the source check.
"""

from __future__ import annotations

import json
import random

import grpc
import one_answer
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import json_places, json_replaced

from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import CacaoError, Position, RecordError, SnapshotError

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# the server fixtures are shared on purpose: the calls change nothing on the server
ON_SERVER = [HealthCheck.function_scoped_fixture]


@settings(max_examples=300, derandomize=True)
@given(seed=SEEDS)
def test_progress_is_the_same_from_every_source(seed):
    position = one_answer.random_position(seed)
    progress = {name: q.progress for name, q in one_answer.sources(position, seed).items()}
    assert set(progress.values()) == {position.progress}, progress
    assert 0.0 <= position.progress <= 1.0  # 1.0 while the last placement resolves


def test_progress_counts_the_tiles_the_rules_deal():
    for players, dealt in ((2, 22), (3, 30), (4, 36)):
        position = Position.new(players, seed=players)
        # a full hand each is dealt from the piles, but nothing has left a hand yet
        assert position.progress == 0.0
        observed = Position.from_observation(position.observation(0), 1)
        assert observed.progress == 0.0
        rng = random.Random(players)
        while not position.is_over:
            position.apply(rng.choice(position.legal_codes()))
            snapshot = Position.from_snapshot(position.snapshot())
            assert snapshot.progress == position.progress
        assert position.progress == 1.0, dealt


@pytest.mark.timeout(240)
@settings(max_examples=2000, derandomize=True)
@given(seed=SEEDS)
def test_search_answers_the_same_from_every_source(seed):
    assert list(one_answer.search_differences(seed)) == []


@pytest.mark.timeout(240)
@settings(max_examples=120, derandomize=True, suppress_health_check=ON_SERVER)
@given(seed=SEEDS)
def test_suggestions_and_analyses_answer_the_same_from_every_source(cacao_stub, seed):
    assert list(one_answer.service_differences(cacao_stub, seed)) == []


def test_the_reply_hash_is_the_hash_of_what_the_search_saw(cacao_stub):
    from cacaoai.engine import position_hash

    position = one_answer.random_position(7)
    seat = position.to_act
    for fields in one_answer.messages(position, 7).values():
        reply = cacao_stub.SuggestAction(pb.SuggestActionRequest(
            seed=1, limits=pb.SearchLimits(iterations=5), **fields))
        assert reply.position_hash == position_hash(position.observation(seat))


# --- integers: a JSON integer or nothing -------------------------------------------


def _integer_places(document):
    """Every path to an integer in a JSON document."""
    return [path for path in json_places(document) if type(_at(document, path)) is int]


def _at(document, path):
    for key in path:
        document = document[key]
    return document


def _mutated(document, path, mutate):
    return json_replaced(document, path, mutate(_at(document, path)))


MUTATIONS = {
    "a float": float,
    "true": lambda v: True,
    "false": lambda v: False,
    "a string": str,
    "too large": lambda v: v + 10**9,
    "far below": lambda v: v - 10**9,
    "beyond 64 bits": lambda v: 2**70,
}


def _documents(seed: int) -> dict:
    """A finished game's record and a position's record, snapshot and observation."""
    finished = Position.new(2 + seed % 3, seed=seed)
    rng = random.Random(seed)
    while not finished.is_over:
        finished.apply(rng.choice(finished.legal_codes()))
    position = one_answer.random_position(seed)
    return {"finished record": finished.record(), "record": position.record(),
            "snapshot": position.snapshot(), "observation": position.observation(position.to_act)}


LOADERS = {
    "finished record": Position.from_record, "record": Position.from_record,
    "snapshot": Position.from_snapshot, "observation": lambda d: Position.from_observation(d, 1),
}


def _field(path) -> str:
    return str(path[0]) if path and isinstance(path[0], str) else "?"


@settings(max_examples=400, derandomize=True)
@given(seed=st.integers(0, 50), kind=st.sampled_from(sorted(LOADERS)), data=st.data(),
       mutation=st.sampled_from(sorted(MUTATIONS)))
def test_an_integer_that_is_not_a_json_integer_in_range_is_refused_naming_its_field(seed, kind, data, mutation):
    document = _documents(seed)[kind]
    path = data.draw(st.sampled_from(list(_integer_places(document))))
    changed = _mutated(document, path, MUTATIONS[mutation])
    for given_as in (changed, json.dumps(changed)):
        with pytest.raises(CacaoError) as refused:
            LOADERS[kind](given_as)
        error = refused.value
        # the error names where: the snapshot field, or the record's action or header field
        if isinstance(error, SnapshotError):
            assert error.field.split("[")[0].split(".")[0] == _field(path), (path, error)
        elif isinstance(error, RecordError) and path[0] != "actions":
            assert error.reason.startswith(_field(path)), (path, error)


def test_a_float_player_count_is_refused_as_the_issue_found_it():
    record = Position.new(3, seed=1).record()
    record["players"] = 3.0
    with pytest.raises(RecordError, match=r"players: must be 2, 3 or 4, got 3\.0"):
        Position.from_record(json.dumps(record))


@pytest.mark.timeout(180)
@settings(max_examples=150, derandomize=True, suppress_health_check=ON_SERVER)
@given(seed=st.integers(0, 20), data=st.data(), mutation=st.sampled_from(sorted(MUTATIONS)))
def test_no_mutated_record_json_reaches_internal(cacao_stub, seed, data, mutation):
    kind = data.draw(st.sampled_from(["finished record", "record"]))
    document = _documents(seed)[kind]
    path = data.draw(st.sampled_from(list(_integer_places(document))))
    text = json.dumps(_mutated(document, path, MUTATIONS[mutation]))
    try:
        reply = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=text))
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, mutation, error.details())
        return
    assert not reply.valid and reply.error_message, (path, mutation)
    if path[0] != "actions":
        assert reply.error_message.startswith(_field(path)), (path, reply.error_message)
