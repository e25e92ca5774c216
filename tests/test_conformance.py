"""The engine agrees with the shared conformance vectors (tests/data, in the
record format of docs/record-format.md)."""

import copy
import hashlib
import json
import pathlib

import pytest
from reference import canonical

engine = pytest.importorskip("cacaoai.engine")
Position = engine.Position
RecordError = engine.RecordError

DATA = pathlib.Path(__file__).parent / "data"


def load(name):
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


RECORDS = load("records.jsonl")
PERFT = load("legal.jsonl")
EXAMPLES = load("legal-examples.jsonl")


def forms(pos):
    """Sorted canonical forms of the legal actions."""
    return sorted(canonical(a.to_json()) for a in pos.legal_actions())


def digest(lines):
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def error_index(error):
    """The action index a RecordError names (-1 for a bad header)."""
    return error.index if hasattr(error, "index") else error.args[0]


def normalized(record):
    """A record with every ``fills`` sorted by x, then y: fills are a set (docs/record-format.md).

    The shared records list fills in direction order, while writers sort them.
    """
    record = copy.deepcopy(record)
    for action in record.get("actions", []):
        if "fills" in action:
            action["fills"].sort(key=lambda f: (f["x"], f["y"]))
    return record


def as_result(result):
    return {"gold": list(result.gold), "cacao": list(result.cacao), "winners": list(result.winners)}


def test_the_conformance_data_is_complete():
    assert len(RECORDS) == 60 and len(PERFT) == 300 and len(EXAMPLES) == 12
    assert sorted(r["players"] for r in RECORDS) == [2] * 20 + [3] * 20 + [4] * 20


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_every_record_replays_to_its_result(index):
    record = RECORDS[index]
    pos = Position.from_record(record)
    assert pos.is_over and pos.phase == "over" and pos.to_act is None
    assert pos.legal_actions() == []
    assert as_result(pos.result()) == record["result"]


@pytest.mark.parametrize("index", range(0, len(RECORDS), 3))
def test_every_record_action_is_among_the_legal_actions(index):
    record = RECORDS[index]
    header = {k: v for k, v in record.items() if k not in ("actions", "result")}
    pos = Position.from_record(dict(header, actions=[]))
    for i, action in enumerate(record["actions"]):
        assert pos.to_act == action["seat"], f"seat at action {i}"
        assert canonical(action) in forms(pos), f"action {i}"
        pos.apply(action)
    assert as_result(pos.result()) == record["result"]


@pytest.mark.parametrize("point", PERFT, ids=lambda p: f"r{p['record']}-at{p['at']}")
def test_perft_point_has_the_listed_legal_actions(point):
    pos = Position.from_record(RECORDS[point["record"]], upto=point["at"])
    lines = forms(pos)
    assert len(lines) == point["legal_count"]
    assert digest(lines) == point["sha256"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"r{e['record']}-at{e['at']}")
def test_example_points_list_exactly_the_example_actions(example):
    pos = Position.from_record(RECORDS[example["record"]], upto=example["at"])
    assert forms(pos) == sorted(canonical(a) for a in example["legal"])


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_a_replayed_record_writes_itself_back_unchanged(index):
    record = RECORDS[index]
    assert Position.from_record(record).record() == normalized(record)


@pytest.mark.parametrize("index", [0, 25, 59])
def test_an_unfinished_record_writes_itself_back_unchanged(index):
    record = copy.deepcopy(RECORDS[index])
    del record["result"]
    record["actions"] = record["actions"][: len(record["actions"]) // 2]
    pos = Position.from_record(record)
    assert not pos.is_over
    assert pos.record() == normalized(record)
    assert Position.from_record(json.dumps(record)).record() == normalized(record)


def test_a_record_is_accepted_as_json_text():
    pos = Position.from_record(json.dumps(RECORDS[1]))
    assert as_result(pos.result()) == RECORDS[1]["result"]


def test_an_illegal_action_is_reported_with_its_index():
    record = copy.deepcopy(RECORDS[0])
    record["actions"][5] = dict(record["actions"][5], x=40, y=41)
    with pytest.raises(RecordError) as caught:
        Position.from_record(record)
    assert error_index(caught.value) == 5


def test_a_wrong_result_is_reported_at_the_end_of_the_actions():
    record = copy.deepcopy(RECORDS[0])
    record["result"]["gold"][0] += 1
    with pytest.raises(RecordError) as caught:
        Position.from_record(record)
    assert error_index(caught.value) == len(record["actions"])


@pytest.mark.parametrize("change", [
    lambda r: r.update(colour="red"),                    # unknown field
    lambda r: r.update(players=5),
    lambda r: r["jungle_deck"].pop(),                    # wrong deck multiset
    lambda r: r["worker_piles"][0].__setitem__(0, "3001") if r["worker_piles"][0][0] != "3001"
    else r["worker_piles"][0].__setitem__(0, "1111"),    # wrong pile multiset
])
def test_a_bad_header_is_reported_at_index_minus_one(change):
    record = copy.deepcopy(RECORDS[0])
    change(record)
    with pytest.raises(RecordError) as caught:
        Position.from_record(record)
    assert error_index(caught.value) == -1


@pytest.mark.parametrize("index", [3, 30, 50])
def test_snapshots_round_trip_at_every_step_of_a_record(index):
    record = RECORDS[index]
    header = {k: v for k, v in record.items() if k not in ("actions", "result")}
    pos = Position.from_record(dict(header, actions=[]))
    for action in record["actions"]:
        snap = pos.snapshot()
        again = Position.from_snapshot(snap)
        assert again.snapshot() == snap
        assert forms(again) == forms(pos)
        pos.apply(action)
    assert Position.from_snapshot(pos.snapshot()).snapshot() == pos.snapshot()
