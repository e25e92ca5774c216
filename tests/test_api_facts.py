"""What the service says about the rules and the standing of a game comes from
the engine: the rules' numbers in GetServerInfo, each seat's score breakdown and
the temples' majorities in ListLegalActions, ApplyAction and ValidateRecord, and
a record read back as a message and as canonical text."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position, rules

pytestmark = pytest.mark.integration

RECORDS = [json.loads(line) for line in
           (Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()]


def test_server_info_carries_the_engines_rules_facts(cacao_stub):
    facts = cacao_stub.GetServerInfo(pb.GetServerInfoRequest()).rules
    assert [t.name for t in facts.worker_tiles] == list(rules.WORKER_TILES)
    assert [tuple(t.faces) for t in facts.worker_tiles] == [rules.WORKER_FACES[n] for n in rules.WORKER_TILES]
    assert [t.name for t in facts.jungle_tiles] == list(rules.JUNGLE_TILES)
    assert list(facts.water_track) == list(rules.WATER_TRACK)
    assert (facts.max_cacao, facts.max_sun, tuple(facts.temple_awards)) == (
        rules.MAX_CACAO, rules.MAX_SUN, rules.TEMPLE_AWARDS)
    for players, index in ((2, 0), (3, 1), (4, 2)):
        # per seat and in all, as many tiles as a new game deals
        game = Position.new(players=players, seed=3).record()
        assert sum(t.per_seat[index] for t in facts.worker_tiles) == len(game["worker_piles"][0])
        in_deck = sum(t.count[index] - t.start for t in facts.jungle_tiles)
        assert in_deck == len(game["jungle_deck"])
        assert sum(t.start for t in facts.jungle_tiles) == len(rules.START_TILES)


def test_the_standing_of_a_finished_game_is_its_result(cacao_stub):
    for data in RECORDS[:12]:
        reply = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=json.dumps(data)))
        assert reply.valid
        totals = [s.total for s in reply.standing.seats]
        assert totals == data["result"]["gold"]
        assert [s.cacao for s in reply.standing.seats] == data["result"]["cacao"]
        for s in reply.standing.seats:
            assert s.total == s.gold + s.temples + s.sun + s.water
        # every temple's gold adds up to the seats' temple gold
        assert [sum(t.gold[seat] for t in reply.standing.temples) for seat in range(data["players"])] \
            == [s.temples for s in reply.standing.seats]


def test_the_standing_comes_with_the_legal_actions_and_after_each_action(cacao_stub):
    game = cacao_stub.NewGame(pb.NewGameRequest(players=3, seed=5))
    position = Position.from_snapshot(convert.position_to_json(game.position))
    rng = random.Random(1)
    message = game.position
    for _ in range(30):
        legal = cacao_stub.ListLegalActions(pb.ListLegalActionsRequest(position=message))
        assert legal.standing == convert.standing_to_proto(position)
        if not legal.actions:
            break
        action = rng.choice(list(legal.actions))
        applied = cacao_stub.ApplyAction(pb.ApplyActionRequest(position=message, action=action))
        position.apply(convert.action_to_json(action))
        assert applied.standing == convert.standing_to_proto(position)
        message = applied.position
    # an observation shows the same standing: it is made of public facts only
    view = convert.position_from_json(position.observation(0))
    assert cacao_stub.ListLegalActions(
        pb.ListLegalActionsRequest(position=view)).standing == convert.standing_to_proto(position)


def test_a_record_comes_back_as_a_message_and_as_canonical_text(cacao_stub):
    data = RECORDS[3]
    scrambled = json.dumps({k: data[k] for k in reversed(list(data))})  # any key order
    reply = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=scrambled))
    assert reply.valid and json.loads(reply.record_json) == data
    assert convert.record_to_json(reply.record) == data
    again = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record=reply.record))
    assert again.record_json == reply.record_json


def test_an_illegal_action_leaves_the_record_of_the_legal_ones(cacao_stub):
    data = json.loads(json.dumps(RECORDS[0]))
    data.pop("result")
    data["actions"][5]["x"] = 40
    reply = cacao_stub.ValidateRecord(pb.ValidateRecordRequest(record_json=json.dumps(data)))
    assert not reply.valid and reply.error_index == 5
    assert json.loads(reply.record_json)["actions"] == data["actions"][:5]
