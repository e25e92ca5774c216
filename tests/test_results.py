"""The one search result type and the one budget type (cacaoai.search.results,
cacaoai.search.limits) and their single conversion to and from the messages
(cacaoai.api.convert)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cacaoai.api import Limit, RootInfo, SearchResult, convert, parse_strength
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position
from cacaoai.search import search


def searched(upto_seed: int = 7) -> SearchResult:
    position = Position.new(players=3, seed=upto_seed)
    result = search(position, Limit(iterations=300), seed=2)
    return replace(result, limit=Limit(300, None, 1), final=True, settings="mcts")


def test_a_search_result_survives_the_message_unchanged():
    result = searched()
    message = convert.evaluation_to_proto(result, max_candidates=len(result.candidates))
    back = convert.evaluation_from_proto(pb.Evaluation.FromString(message.SerializeToString()))
    assert back.elapsed_s == pytest.approx(result.elapsed_s, abs=1e-9)
    assert replace(back, elapsed_s=result.elapsed_s) == result
    assert back.score_lead is not None and len(back.score_lead) == 3
    assert back.stopped_by == "iterations" and back.threads == 1 and back.nodes > 0
    assert back.root is not None and back.candidates[0].principal_variation
    assert back.population == "strong" and back.settings == "mcts"


def test_no_limit_is_none_in_python_and_unset_on_the_wire():
    message = convert.limit_to_proto(Limit(None, None, 2))
    assert not message.HasField("time") and message.iterations == 0
    assert convert.limit_from_proto(message) == Limit(None, None, 2)
    assert convert.limit_from_proto(pb.SearchLimits(iterations=50)) == Limit(50, None, None)
    assert convert.limit_from_proto(pb.SearchLimits()) == Limit()


def test_a_negative_limit_on_the_wire_is_a_conversion_error_naming_the_field():
    with pytest.raises(convert.ConversionError) as caught:
        convert.limit_from_proto(pb.SearchLimits(iterations=-5, threads=-1))
    assert [f for f, _ in caught.value.violations] == ["limits.iterations", "limits.threads"]


@pytest.mark.parametrize("text, limit", [
    ("500", Limit(iterations=500)), ("2s", Limit(time_s=2.0)), ("250ms", Limit(time_s=0.25)),
    ("iterations=5000,time=3s,threads=2", Limit(5000, 3.0, 2)), ("time=0.5", Limit(time_s=0.5)),
])
def test_a_limit_reads_back_from_its_text(text, limit):
    assert Limit.parse(text) == limit
    assert Limit.parse(str(limit)) == limit
    assert parse_strength(text) == limit


def test_a_strength_is_a_limit_a_level_name_or_nothing():
    assert parse_strength("strong") == "strong" and parse_strength("level=Max") == "max"
    assert parse_strength("") is None and parse_strength(None) is None
    for bad in ("0.5", "iterations=x", "time=fast", "2 apples", "threads=2,bogus=1"):
        with pytest.raises(ValueError):
            parse_strength(bad)


def test_candidates_beyond_the_count_are_left_out_and_non_finite_values_sent_as_zero():
    result = searched()
    first = replace(result.candidates[0], score_lead=float("nan"))
    message = convert.evaluation_to_proto(replace(result, candidates=(first, *result.candidates[1:])),
                                          max_candidates=1)
    assert len(message.candidates) == 1 and message.candidates[0].score_lead == 0.0


def test_a_malformed_action_in_an_evaluation_is_a_conversion_error_naming_it():
    message = convert.evaluation_to_proto(searched())
    message.principal_variation[0].ClearField("seat")
    message.principal_variation[0].ClearField(message.principal_variation[0].WhichOneof("kind"))
    with pytest.raises(convert.ConversionError) as caught:
        convert.evaluation_from_proto(message)
    assert caught.value.violations[0][0] == "evaluation.principal_variation[0]"


def test_the_richer_figures_root_info_and_per_candidate_lines_survive_the_message():
    result = searched()
    best, second, *rest = result.candidates
    line = result.principal_variation
    first = replace(best, expected_gold=31.5, prior=0.25, lcb=0.4, order=0, principal_variation=line)
    other = replace(second, expected_gold=29.0, prior=0.125, lcb=0.3, order=1,
                    principal_variation=())
    unvisited = replace(rest[0], visits=0, mean_value=None, win_probability=None, score_lead=None,
                        expected_gold=None, prior=0.0625, lcb=None, order=2,
                        principal_variation=())
    rich = replace(result, candidates=(first, other, unvisited),
                   root=RootInfo(300, 0.5, 0.55, 1.5, 30.25, reused_visits=120))
    message = convert.evaluation_to_proto(rich, max_candidates=3)
    wire = pb.Evaluation.FromString(message.SerializeToString())
    assert wire.root.reused_visits == 120 and wire.candidates[0].prior == 0.25
    assert not wire.candidates[2].HasField("lcb") and wire.candidates[2].HasField("prior")
    assert [len(c.principal_variation) for c in wire.candidates] == [len(line), 0, 0]
    back = convert.evaluation_from_proto(wire)
    assert replace(back, elapsed_s=rich.elapsed_s) == rich


@pytest.mark.parametrize("players", [2, 4])
def test_actions_become_the_messages_their_json_form_gives(players):
    """action_to_proto builds in place what the JSON path builds, byte for
    byte: every kind, with and without fills, along a played game; and
    legal_actions_to_proto, which keeps them by action key, gives the same."""
    position = Position.new(players, 5)
    kinds = set()
    while not position.is_over:
        actions = position.legal_actions()
        listed = pb.ListLegalActionsResponse()
        convert.actions_to_proto(actions, listed.actions)
        assert [m.SerializeToString() for m in listed.actions] == [
            convert.action_from_json(a.to_json()).SerializeToString() for a in actions]
        assert all(convert.action_to_proto(a) == m for a, m in zip(actions, listed.actions))
        kept = pb.ListLegalActionsResponse()  # from the messages kept by action key
        convert.legal_actions_to_proto(position, kept)
        assert kept == listed
        kinds |= {(a.type, bool(a.fills)) for a in actions}
        position.apply(actions[len(actions) // 2])
    assert {("place", True), ("place", False), ("resolve", False)} <= kinds
