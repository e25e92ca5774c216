"""ReviewGame through a real server on a real port (the session's
``cacao_server``), read by the Python client: one report per decision then a
summary, the same review for a seed and an iteration budget, a cancel that
frees the search slot, clear errors for bad records and budgets, a planted
blunder found; and SuggestAction's explanation."""

from __future__ import annotations

import asyncio
import io
import json
import re
from dataclasses import replace

import pytest
from support import wait_until
from test_review import BLUNDER_10, RECORD, prefix

from cacaoai.api import CLASSES, FORCED, DecisionReview, Explanation, Limit, sentence
from cacaoai.client import AsyncCacaoClient, CacaoClient, CacaoClientError, ErrorReason
from cacaoai.search.review import game_accuracy

CHEAP = Limit(iterations=30)


@pytest.fixture
def client(cacao_server):
    with CacaoClient(cacao_server[1], timeout=10.0, retries=1, backoff=0.05) as c:
        yield c


def test_one_report_per_decision_then_the_summary(client):
    reports = list(client.review_game(prefix(RECORD, 8), CHEAP, seed=1))
    *decisions, last = reports
    assert [r.sequence for r in reports] == list(range(9))
    assert all(r.decisions == 8 for r in reports)
    assert [r.decision.index for r in decisions] == list(range(8))
    assert all(r.summary is None for r in decisions) and last.decision is None
    players = RECORD["players"]
    for r in decisions:
        d = r.decision
        assert isinstance(d, DecisionReview) and d.classification in (*CLASSES, FORCED)
        assert d.forced or (0 <= d.win_after <= 1 and d.win_loss == pytest.approx(max(0, d.best_win - d.win_after)))
        assert (d.explanation is None) == (d.best_action == d.action or d.forced)
    summary = last.summary
    assert [s.seat for s in summary.seats] == list(range(players))
    for s in summary.seats:
        mine = [r.decision for r in decisions if r.decision.seat == s.seat and not r.decision.forced]
        assert s.decisions == len(mine) and sum(s.counts.values()) == len(mine)
        assert s.accuracy == pytest.approx(game_accuracy(mine, players))
    assert summary.iterations == sum(r.decision.iterations for r in decisions)


def test_the_same_seed_and_budget_give_the_same_review_and_seats_filter(client):
    record = json.dumps(prefix(RECORD, 6))          # the JSON text form of the record
    first = [r.decision.to_json() if r.decision else r.summary.to_json()
             for r in client.review_game(record, CHEAP, seed=5)]
    again = [r.decision.to_json() if r.decision else r.summary.to_json()
             for r in client.review_game(record, CHEAP, seed=5)]
    assert first == again
    alone = [r.decision.to_json() for r in client.review_game(record, CHEAP, seed=5, seats=[1]) if r.decision]
    assert alone == [d for d in first[:-1] if d["seat"] == 1]


def test_a_planted_blunder_is_classed_a_mistake_or_a_blunder(client):
    reports = list(client.review_game(prefix(RECORD, 10, BLUNDER_10), Limit(iterations=100), seed=3,
                                      seats=[0]))
    planted = reports[-2].decision
    assert planted.index == 10 and planted.action.to_json() == BLUNDER_10
    assert planted.classification in ("mistake", "blunder")
    assert isinstance(planted.explanation, Explanation)
    assert sentence(planted.explanation)                 # words for the front ends


def test_cancelling_the_review_ends_its_search(client, cacao_server):
    gate = cacao_server[0].cacao_api.gate
    reports = client.review_game(RECORD, Limit(iterations=20_000), seed=1)
    first = next(reports)
    assert first.decision is not None and first.decisions == len(RECORD["actions"])
    assert gate.running == 1                             # the next decision is being searched
    reports.close()                                      # cancels the call
    wait_until(lambda: gate.running == 0, "the review's search to end after the cancel")


@pytest.mark.parametrize(("kwargs", "field", "reason"), [
    ({"record": "{"}, "record_json", ErrorReason.INVALID_RECORD),
    ({"record": prefix(RECORD, 3, BLUNDER_10)}, "record.actions[3]", ErrorReason.INVALID_RECORD),
    ({"limit": Limit(threads=1)}, "limits", ErrorReason.INVALID_REQUEST),
    ({"seats": [2]}, "seats[0]", ErrorReason.INVALID_REQUEST),
    ({"seats": [1, 1]}, "seats[1]", ErrorReason.INVALID_REQUEST),
])
def test_bad_records_budgets_and_seats_are_refused_naming_the_field(client, kwargs, field, reason):
    args = {"record": prefix(RECORD, 4), "limit": CHEAP, "seats": (), **kwargs}
    with pytest.raises(CacaoClientError) as caught:
        list(client.review_game(args["record"], args["limit"], seed=1, seats=args["seats"]))
    error = caught.value
    assert error.code.name == "INVALID_ARGUMENT" and error.error_reason == reason
    assert field in [f for f, _ in error.field_violations]


def test_the_async_client_reviews_too(cacao_server):
    async def main():
        async with AsyncCacaoClient(cacao_server[1]) as client:
            return [r async for r in client.review_game(prefix(RECORD, 3), CHEAP, seed=2)]

    reports = asyncio.run(main())
    assert [r.decision.index for r in reports[:-1]] == [0, 1, 2] and reports[-1].summary is not None


def test_a_suggestion_asked_to_explain_explains_its_action_against_the_runner_up(client):
    suggestion = client.suggest(prefix(RECORD, 10), Limit(iterations=300), seed=1, explain=True)
    why = suggestion.explanation
    assert why is not None and why.seat == suggestion.seat
    assert why.line[0] == suggestion.action and why.other_line[0] != suggestion.action
    assert sentence(why)
    single = client.suggest(prefix(RECORD, 10), Limit(iterations=300), seed=1, max_candidates=1,
                            explain=True)
    assert single.explanation is None


def test_a_suggestion_not_asked_to_explain_has_no_explanation_and_the_same_evaluation(client):
    asked = client.suggest(prefix(RECORD, 10), Limit(iterations=300), seed=1, explain=True)
    plain = client.suggest(prefix(RECORD, 10), Limit(iterations=300), seed=1)
    assert asked.explanation is not None and plain.explanation is None
    # timings aside: the time limit is the call's deadline less its reply's margin
    def timeless(evaluation):
        return replace(evaluation, elapsed_s=0.0, iterations_per_second=0.0,
                       limit=replace(evaluation.limit, time_s=None))

    assert timeless(plain.evaluation) == timeless(asked.evaluation)


# --- the terminal -------------------------------------------------------------------

def test_cacao_review_prints_a_row_per_decision_and_each_seats_accuracy(cacao_server, tmp_path):
    from cacaoai.client import review as cacao_review

    path = tmp_path / "game.json"
    path.write_text(json.dumps(prefix(RECORD, 10, BLUNDER_10)))
    out = io.StringIO()
    status = cacao_review.main([str(path), "--server", cacao_server[1], "--iterations", "100",
                                "--seed", "3", "--seat", "0"], out=out)
    lines = out.getvalue().splitlines()
    assert status == 0
    rows = [line for line in lines if re.match(r"\s*\d+\s+red\s", line)]
    assert len(rows) == sum(1 for r in client_reviews(cacao_server, 10, BLUNDER_10) if r.decision)
    assert re.match(r"\s*11\s+red\s+(MISTAKE|BLUNDER)\s", rows[-1])
    assert re.match(r"red\s+\d+\.\d%", lines[-1]) and "blunder" in lines[-2]


def client_reviews(cacao_server, n, last):
    with CacaoClient(cacao_server[1]) as client:
        return list(client.review_game(prefix(RECORD, n, last), Limit(iterations=100), seed=3, seats=[0]))


def test_cacao_play_offers_a_review_when_the_game_is_over(cacao_server, tmp_path):
    from cacaoai.client import play

    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))                 # a finished game
    out = io.StringIO()
    status = play.main(["--server", cacao_server[1], "--load", str(path), "--iterations", "20",
                        "--review-iterations", "20", "--seed", "1"], inp=io.StringIO("review\nquit\n"), out=out)
    text = out.getvalue()
    assert status == 0 and "Type review" in text
    rows = [line for line in text.splitlines() if re.match(r"\s*\d+\s+(red|yellow)\s", line)]
    assert len(rows) == len(RECORD["actions"])
    assert re.search(r"^red\s+\d+\.\d%", text, re.M) and re.search(r"^yellow\s+\d+\.\d%", text, re.M)
