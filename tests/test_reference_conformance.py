"""The reference implementation agrees with the shared conformance vectors."""

import hashlib
import json
import pathlib
from collections import defaultdict

import pytest
from reference import RefGame, canonical

DATA = pathlib.Path(__file__).parent / "data"
RECORDS = [json.loads(line) for line in (DATA / "records.jsonl").read_text().splitlines() if line]
PERFT = [json.loads(line) for line in (DATA / "legal.jsonl").read_text().splitlines() if line]
EXAMPLES = [json.loads(line) for line in (DATA / "legal-examples.jsonl").read_text().splitlines() if line]


def digest(actions: list) -> str:
    """SHA-256 of the sorted canonical forms joined with newlines."""
    return hashlib.sha256("\n".join(sorted(canonical(a) for a in actions)).encode()).hexdigest()


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_reference_replays_every_record_to_its_result(index):
    record = RECORDS[index]
    game = RefGame.from_record_header(record)
    for i, action in enumerate(record["actions"]):
        assert not game.is_over(), f"game over before action {i}"
        legal = {canonical(a) for a in game.legal_actions()}
        assert canonical(action) in legal, f"action {i} {canonical(action)} not legal"
        game.apply(action)
    assert game.is_over()
    assert game.legal_actions() == []
    assert game.result() == record["result"]


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_reference_matches_every_perft_point_of_a_record(index):
    points = [p for p in PERFT if p["record"] == index]
    by_step = defaultdict(list)
    for p in points:
        by_step[p["at"]].append(p)
    record = RECORDS[index]
    game = RefGame.from_record_header(record)
    for k in range(len(record["actions"]) + 1):
        for p in by_step.get(k, []):
            legal = game.legal_actions()
            assert len(legal) == p["legal_count"], f"count at {k}"
            assert digest(legal) == p["sha256"], f"digest at {k}"
        if k < len(record["actions"]):
            game.apply(record["actions"][k])


def test_every_perft_point_is_checked():
    assert len(PERFT) == 300
    assert {p["record"] for p in PERFT} <= set(range(len(RECORDS)))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"r{e['record']}-at{e['at']}")
def test_reference_lists_exactly_the_example_actions(example):
    game = RefGame.replay(RECORDS[example["record"]], upto=example["at"])
    ours = sorted(canonical(a) for a in game.legal_actions())
    theirs = sorted(canonical(a) for a in example["legal"])
    assert ours == theirs


def test_reference_lists_no_duplicate_actions():
    for record in RECORDS[::7]:
        game = RefGame.from_record_header(record)
        for action in record["actions"]:
            forms = [canonical(a) for a in game.legal_actions()]
            assert len(forms) == len(set(forms))
            game.apply(action)


def test_reference_rejects_an_illegal_action():
    game = RefGame.from_record_header(RECORDS[0])
    bad = dict(RECORDS[0]["actions"][0], x=50)
    with pytest.raises(ValueError):
        game.apply(bad)
