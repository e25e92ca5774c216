"""Practise your mistakes: the exercises a review offers (the seat's
inaccuracies, mistakes and blunders, from its view only), a try judged by the
review's own search through ReviewGame's ``decisions`` on a real server, and
the terminal's practice loop."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from test_review import unseen_by

from cacaoai.api import DecisionReview, Limit
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.client import CacaoClient
from cacaoai.client.practice import PRACTISED, attempt, exercises, judge, verdict
from cacaoai.client.requests import review_request
from cacaoai.client.review import practise
from cacaoai.engine import Action, Position

pytestmark = pytest.mark.integration

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
# decision 10 of RECORD (seat 0), as tests/test_review.py knows it: the best action of a
# 2,000-iteration search and the worst it tried often
BEST_10 = Action.from_json({"type": "place", "seat": 0, "tile": "1111", "x": 1, "y": -2, "rot": 0,
                            "fills": [{"x": 0, "y": -2, "tile": "water"}, {"x": 2, "y": -2, "tile": "plantation-2"}]})
BLUNDER_10 = Action.from_json({"type": "place", "seat": 0, "tile": "2101", "x": 1, "y": -2, "rot": 3,
                               "fills": [{"x": 0, "y": -2, "tile": "water"},
                                         {"x": 2, "y": -2, "tile": "plantation-2"}]})
LIMIT = Limit(iterations=2000)


def planted(record: dict, index: int, action: Action) -> dict:
    """`record`'s first `index` actions, then `action`, then the rest as far as they stay legal."""
    position = Position.from_record(record, upto=index)
    position.apply(action)
    return position.record()


def decision(index: int, seat: int, classification: str, action: Action) -> DecisionReview:
    return DecisionReview(index=index, seat=seat, action=action, classification=classification,
                          best_action=action)


def test_the_exercises_are_the_seats_losing_decisions_from_its_view_only():
    record = planted(RECORD, 10, BLUNDER_10)
    taken = [Action.from_json(a) for a in record["actions"]]
    reviewed = [decision(10, 0, "blunder", BLUNDER_10), decision(3, 1, "mistake", taken[3]),
                decision(4, 0, "good", taken[4]), decision(7, 0, "inaccuracy", taken[7])]
    items = exercises(record, reviewed, seats=[0])
    assert [(e.index, e.classification) for e in items] == [(7, "inaccuracy"), (10, "blunder")]
    assert {e.classification for e in exercises(record, reviewed)} <= set(PRACTISED)
    blunder = items[1]
    assert blunder.record["actions"] == record["actions"][:10] and "result" not in blunder.record
    assert blunder.taken == BLUNDER_10 and BLUNDER_10 in blunder.legal_actions()
    view = blunder.view()
    assert view["view"] == 0 and view["seats"][0].get("hand")
    assert view["seats"][1].get("hand") is None  # the other seat's hand stays hidden
    with pytest.raises(ValueError, match="not a legal action"):
        attempt(blunder, Action.discard(1, "1111"))


def test_a_review_of_chosen_decisions_reviews_those_only_and_names_a_bad_index(cacao_server, cacao_stub):
    request = review_request(RECORD, LIMIT, seed=4, seats=[0], decisions=[10])
    reports = list(cacao_stub.ReviewGame(request, timeout=120))
    assert [r.decision.index for r in reports if r.HasField("decision")] == [10]
    assert reports[-1].HasField("summary") and reports[0].decisions == 1
    for decisions, problem in (([999], "not the index of an action"), ([2], "that seat is not reviewed"),
                               ([10, 10], "listed twice")):
        with pytest.raises(grpc.RpcError) as caught:
            list(cacao_stub.ReviewGame(review_request(RECORD, LIMIT, seed=4, seats=[0], decisions=decisions),
                                       timeout=60))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert problem in caught.value.details()


def test_a_try_is_judged_by_the_reviews_search_the_best_solves_and_the_blunder_does_not(cacao_server):
    record = planted(RECORD, 10, BLUNDER_10)
    item = exercises(record, [decision(10, 0, "blunder", BLUNDER_10)])[0]
    with CacaoClient(cacao_server[1], retries=0) as client:
        good = judge(client, item, BEST_10, LIMIT, seed=4)
        bad = judge(client, item, BLUNDER_10, LIMIT, seed=4)
        again = judge(client, item, BLUNDER_10, LIMIT, seed=4)
    assert good.solved and good.classification in ("best", "good")
    assert not bad.solved and bad.classification in PRACTISED and bad.win_loss > 0
    assert bad.best_action != BLUNDER_10 and bad.explanation is not None
    assert again == bad  # the same try, the same verdict: the review's seed and budget


def test_a_try_is_judged_from_the_seats_view_only(cacao_server):
    """The same try at the same decision of two games that differ only where
    the player could not see (another seat's pile, the jungle deck's order)
    gets the same verdict, explanation included."""
    variant = unseen_by(RECORD, 0, 11)
    taken = Action.from_json(RECORD["actions"][10])
    items = [exercises(record, [decision(10, 0, "mistake", taken)])[0] for record in (RECORD, variant)]
    assert items[0].view() == items[1].view() and items[0].record != items[1].record
    with CacaoClient(cacao_server[1], retries=0) as client:
        for tried in (BEST_10, BLUNDER_10):
            first, second = (judge(client, item, tried, LIMIT, seed=4) for item in items)
            assert (first.solved, first.classification, first.win_loss, first.best_action) == \
                (second.solved, second.classification, second.win_loss, second.best_action)
            assert first.explanation == second.explanation


def test_where_the_solver_proved_the_values_only_the_exactly_best_try_solves():
    good = DecisionReview(index=30, seat=0, action=BEST_10, classification="good", best_action=BLUNDER_10,
                          win_loss=0.01)
    assert verdict(good).solved and not verdict(replace(good, exact=True)).solved
    assert verdict(replace(good, classification="best", exact=True)).solved
    assert not verdict(replace(good, classification="inaccuracy")).solved


def test_the_terminal_practice_offers_each_mistake_shows_the_best_after_two_misses_and_accepts_the_best(
        cacao_server):
    record = planted(RECORD, 10, BLUNDER_10)
    item = exercises(record, [decision(10, 0, "blunder", BLUNDER_10)])[0]
    legal = item.legal_actions()
    typed = iter(["nonsense here", str(legal.index(BLUNDER_10) + 1), str(legal.index(BLUNDER_10) + 1)])
    out = io.StringIO()
    with CacaoClient(cacao_server[1], retries=0) as client:
        solved, offered = practise(client, [item], lambda _prompt: next(typed, None), out, LIMIT, seed=4)
        assert (solved, offered) == (0, 1)
        text = out.getvalue()
        assert "decision 11, red to act" in text and "Not yet:" in text and "The best:" in text
        best = iter([str(legal.index(BEST_10) + 1)])
        out = io.StringIO()
        assert practise(client, [item], lambda _prompt: next(best, None), out, LIMIT, seed=4) == (1, 1)
        assert "Solved:" in out.getvalue()
    assert pb.ReviewGameRequest(decisions=[1]).decisions == [1]
