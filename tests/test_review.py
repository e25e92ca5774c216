"""The game review (cacaoai.search.review) and the explanations (cacaoai.search.explain):
forced decisions cost nothing, a review is deterministic, a planted blunder is
found, and a seat's review depends on what that seat could see only."""

import itertools
import json
import math
from pathlib import Path

import pytest
from test_search import sealed

from cacaoai.engine import Action, Position, RecordError
from cacaoai.search import ANALYSIS, Limit, Question, StopFlag, search
from cacaoai.search.explain import Explanation, Part, TempleChange, explain, explain_result, sentence
from cacaoai.search.review import (
    CLASSES,
    DecisionReview,
    ReviewSummary,
    game_accuracy,
    move_accuracy,
    review,
    review_game,
    stakes,
)

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
CHEAP = Limit(iterations=40)
#: Decision 10 of RECORD (seat 0): the best action of a 2,000-iteration search
#: (win probability 0.62) and the worst it tried 15 times or more (0.45).
BEST_10 = {"type": "place", "seat": 0, "tile": "1111", "x": 1, "y": -2, "rot": 0,
           "fills": [{"x": 0, "y": -2, "tile": "water"}, {"x": 2, "y": -2, "tile": "plantation-2"}]}
BLUNDER_10 = {"type": "place", "seat": 0, "tile": "2101", "x": 1, "y": -2, "rot": 3,
              "fills": [{"x": 0, "y": -2, "tile": "water"}, {"x": 2, "y": -2, "tile": "plantation-2"}]}


def prefix(record, n, last=None):
    """The record's first `n` actions (then `last`, when given), without its result."""
    out = {k: v for k, v in record.items() if k != "result"}
    out["actions"] = record["actions"][:n] + ([last] if last is not None else [])
    return out


def split(items):
    *decisions, summary = items
    assert all(isinstance(d, DecisionReview) for d in decisions) and isinstance(summary, ReviewSummary)
    return decisions, summary


def test_forced_decisions_cost_no_search():
    start = sealed(["3001", "3001"])        # seat 0 can only discard (legal play never gets here)
    actions = []
    game = start.clone()
    for _ in range(3):
        (only,) = game.legal_actions()
        actions.append(only)
        game.apply(only)
    decisions, summary = split(review_game(start, actions, Limit(iterations=10**9), seed=1))
    assert len(decisions) == 3 and all(d.forced and d.classification == "forced" for d in decisions)
    assert all(d.iterations == 0 and d.win_before is None and d.win_loss == 0 for d in decisions)
    assert summary.iterations == 0
    assert sum(s.forced for s in summary.seats) == 3 and all(s.decisions == 0 for s in summary.seats)


def test_a_review_judges_every_decision_and_sums_each_seat_up():
    decisions, summary = split(review(prefix(RECORD, 6), CHEAP, seed=1))
    assert [d.index for d in decisions] == list(range(6))
    for d in decisions:
        assert d.classification in CLASSES and d.iterations >= CHEAP.iterations
        assert 0 <= d.win_after <= 1 and 0 <= d.best_win <= 1 and d.win_loss >= 0
        assert d.win_loss == pytest.approx(max(0.0, d.best_win - d.win_after))
        assert d.accuracy == pytest.approx(move_accuracy(d.win_loss))
        assert (d.classification == "best") == (d.best_action == d.action)
        assert d.line[0] == d.action and d.best_line[0] == d.best_action
    for seat in summary.seats:
        mine = [d for d in decisions if d.seat == seat.seat]
        assert seat.decisions == len(mine) and sum(seat.counts.values()) == len(mine)
        # each move's accuracy weighted by 4w(1-w) of the mover's win chance before it (2 players)
        weights = [min(1.0, 4 * d.win_before * (1 - d.win_before)) for d in mine]
        assert seat.accuracy == pytest.approx(sum(d.accuracy * w for d, w in zip(mine, weights)) / sum(weights))
    assert summary.iterations == sum(d.iterations for d in decisions)


def test_a_seats_accuracy_weighs_each_move_by_what_was_at_stake():
    def judged(accuracy: float, win_before: float | None) -> DecisionReview:
        return DecisionReview(0, 0, Action.resolve(0, 0, 0), "good", Action.resolve(0, 0, 0), win_before=win_before,
                              accuracy=accuracy)
    even, decided = judged(40.0, 0.5), judged(100.0, 0.99)
    # a blunder in an even game is not made good by accurate moves once the game was decided
    assert game_accuracy([even, decided, decided], 2) == pytest.approx(
        (40.0 + 2 * 100.0 * 4 * 0.99 * 0.01) / (1 + 2 * 4 * 0.99 * 0.01))
    assert game_accuracy([even, decided, decided], 2) < 50.0 < (40.0 + 200.0) / 3
    assert game_accuracy([judged(80.0, 1 / 3)], 3) == pytest.approx(80.0)       # an even share with 3 seats
    assert stakes(1 / 4, 4) == pytest.approx(1.0) and stakes(0.5, 4) == pytest.approx(1.0)
    assert game_accuracy([judged(90.0, 1.0), judged(70.0, 0.0)], 2) == pytest.approx(80.0)   # all decided
    assert game_accuracy([judged(70.0, None)], 2) == pytest.approx(70.0)
    assert game_accuracy([], 2) is None


def test_a_time_budget_too_short_to_try_the_played_move_still_judges_it():
    # a timed review on a busy machine can stop its second search before it
    # has tried the move played; the review then completes it by iterations
    decisions, _ = split(review(prefix(RECORD, 12), Limit(time_s=1e-9), seed=3))
    assert [d.index for d in decisions] == list(range(12))
    judged = [d for d in decisions if not d.forced and d.best_action != d.action]
    assert judged and all(d.win_after is not None and d.best_win is not None for d in judged)


def test_the_same_seed_and_budget_give_the_same_review():
    first = [item.to_json() for item in review(prefix(RECORD, 8), CHEAP, seed=7)]
    again = [item.to_json() for item in review(prefix(RECORD, 8), CHEAP, seed=7)]
    assert first == again
    assert any(d.get("reused_visits") for d in first[:-1])     # the trees were continued


def test_a_seats_review_is_the_same_whether_or_not_the_others_are_reviewed():
    both = [d.to_json() for d in review(prefix(RECORD, 8), CHEAP, seed=7) if isinstance(d, DecisionReview)]
    alone = [d.to_json() for d in review(prefix(RECORD, 8), CHEAP, seed=7, seats=[1])
             if isinstance(d, DecisionReview)]
    assert alone == [d for d in both if d["seat"] == 1]


def test_a_planted_blunder_is_classed_worse_than_the_best_move():
    budget = Limit(iterations=100)
    reviews = {}
    for name, action in (("best", BEST_10), ("blunder", BLUNDER_10)):
        decisions, _ = split(review(prefix(RECORD, 10, action), budget, seed=3, seats=[0]))
        reviews[name] = decisions[-1]
        assert decisions[-1].index == 10 and decisions[-1].action == Action.from_json(action)
    best, blunder = reviews["best"], reviews["blunder"]
    assert best.classification in ("best", "good")
    assert blunder.classification in ("mistake", "blunder")
    assert CLASSES.index(blunder.classification) > CLASSES.index(best.classification)
    assert blunder.win_loss > best.win_loss and blunder.accuracy < best.accuracy
    # the explanation compares the best line with the blunder's, for seat 0
    why = blunder.explanation
    assert why is not None and why.seat == 0
    assert why.line[0] == blunder.best_action and why.other_line[0] == blunder.action
    assert why.parts and sentence(why).startswith(f"{blunder.best_action.tile} at (")


def unseen_by(record, seat, n):
    """A record of the same first `n` actions whose hidden parts differ for
    `seat`: another seat's draw pile swapped where its actions stay legal and
    the undrawn jungle deck reversed, such that `seat` sees the same at every
    decision of its own while another seat's hand differs at one of them."""
    base = prefix(record, n)
    end = Position.from_record(base)
    undrawn = len(end.core.deck())
    for other in (s for s in range(record["players"]) if s != seat):
        pile = record["worker_piles"][other]
        for p, q in itertools.combinations(range(len(pile)), 2):
            if pile[p] == pile[q]:
                continue
            swapped = list(pile)
            swapped[p], swapped[q] = pile[q], pile[p]
            variant = json.loads(json.dumps(base))
            variant["worker_piles"][other] = swapped
            if undrawn > 1:
                variant["jungle_deck"][-undrawn:] = variant["jungle_deck"][-undrawn:][::-1]
            try:
                Position.from_record(variant)
            except RecordError:
                continue
            same = True
            hands_differ = False
            for k in range(n):
                a, b = Position.from_record(base, k), Position.from_record(variant, k)
                if a.to_act == seat:
                    same = same and a.observation(seat) == b.observation(seat)
                    hands_differ = hands_differ or a.core.seat(other)["hand"] != b.core.seat(other)["hand"]
            if same and hands_differ:
                return variant
    raise AssertionError("no variant found")


def test_a_seats_review_never_depends_on_what_it_could_not_see():
    n = 8
    variant = unseen_by(RECORD, 0, n)
    assert variant["worker_piles"] != RECORD["worker_piles"]
    seen = [item.to_json() for item in review(prefix(RECORD, n), CHEAP, seed=5, seats=[0])]
    unseen = [item.to_json() for item in review(variant, CHEAP, seed=5, seats=[0])]
    assert seen == unseen


def test_a_stop_flag_ends_the_review_without_a_summary():
    stop = StopFlag()
    items = []
    for item in review(prefix(RECORD, 6), CHEAP, seed=1, stop=stop):
        items.append(item)
        stop.set()
    assert len(items) == 1 and isinstance(items[0], DecisionReview)


def test_bad_arguments_are_refused_at_the_call_naming_the_field():
    with pytest.raises(ValueError, match=r"seats\[0\]"):
        review(RECORD, CHEAP, seed=1, seats=[2])
    with pytest.raises(ValueError, match="seed"):
        review(RECORD, CHEAP, seed=-1)
    with pytest.raises(ValueError, match="limit"):
        review(RECORD, Limit(), seed=1)
    with pytest.raises(ValueError, match=r"actions\[1\]"):
        review_game(Position.from_record(RECORD, 0), [RECORD["actions"][0], RECORD["actions"][0]], seed=1)
    with pytest.raises(RecordError):
        review({**RECORD, "players": 5}, CHEAP, seed=1)


def test_move_accuracy_follows_lichess_curve():
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(0.10) == pytest.approx(103.1668 * math.exp(-0.04354 * 10) - 3.1669)
    assert move_accuracy(1.0) == 0.0
    assert move_accuracy(0.05) > move_accuracy(0.10) > move_accuracy(0.20)


def test_an_explanation_of_a_line_against_itself_is_empty_and_seat_bound():
    position = Position.from_record(RECORD, 10)
    line = (Action.from_json(BEST_10),)
    same = explain(position, 0, line, line, seed=1)
    assert same.parts == () and same.temples == ()
    assert "scores as much as" in sentence(same)
    with pytest.raises(ValueError, match="other_line"):
        explain(position, 0, line, (Action.from_json(RECORD["actions"][0]),), seed=1)
    # drawn from seat 0's view: a position that differs only in what seat 0 cannot see explains the same
    other = Position.from_observation(position.observation(0), seed=99)
    blunder = (Action.from_json(BLUNDER_10),)
    assert explain(position, 0, line, blunder, seed=1) == explain(other, 0, line, blunder, seed=1)


def test_a_sentence_names_what_the_line_gains():
    place = Action.place(0, "2101", 1, -2, 0, [])
    why = Explanation(seat=0, line=(place,), other_line=(Action.discard(0, "3001"),), plies=1, other_plies=1,
                      turn=5, parts=(Part("water", 2, -1), Part("water_space", 4, 2), Part("sun", 0, 1),
                                     Part("total", 20, 11)),
                      temples=(TempleChange(1, -1, (6, 3), (3, 6)),))
    assert sentence(why, ("red", "yellow")) == (
        "2101 at (1,-2) takes the majority of the temple at (1,-1) from yellow (+3 gold at the end) "
        "and moves your water carrier to 4 instead of 2 (+3), +9 gold in all at the end")
    assert json.loads(json.dumps(why.to_json()))["temples"] == [{"x": 1, "y": -1, "best": [6, 3], "other": [3, 6]}]
    # a line that gains nothing the parts show and scores less never "scores more"
    behind = Explanation(seat=0, line=(place,), other_line=(Action.discard(0, "3001"),), plies=1, other_plies=1,
                         turn=5, parts=(Part("total", 8, 11),), temples=())
    assert sentence(behind) == ("2101 at (1,-2) scores 3 gold less than discarding 3001 along the expected "
                                "lines; its gain is in the chances after them")


def test_a_suggestion_is_explained_against_its_runner_up():
    position = Position.from_record(RECORD, 10)
    result = search(position, Limit(iterations=60), ANALYSIS, seed=2, question=Question(multipv=2))
    why = explain_result(position, result, seed=2)
    assert why is not None and why.seat == result.seat == 0
    assert why.line[0] == result.best_action and why.other_line[0] == result.candidates[1].action
    unlined = search(position, Limit(iterations=60), ANALYSIS, seed=2, question=Question(multipv=0))
    assert explain_result(position, unlined, seed=2) is None


def test_a_time_budget_that_tries_no_action_still_judges_the_move():
    # the move played is the one a search that tried nothing would name: the first
    # search alone would judge it, and must then be completed by iterations too
    position = Position.from_record(prefix(RECORD, 9))
    seat = position.to_act
    untried = search(position, Limit(time_s=1e-9), ANALYSIS, seed=3,
                     question=Question(seat=seat, multipv=1, calibrated=False))
    assert untried.iterations == 0 and not untried.candidates
    record = prefix(RECORD, 9, last=untried.best_action.to_json())
    decisions, _ = split(review(record, Limit(time_s=1e-9), seed=3, decisions=[9]))
    (d,) = decisions
    assert d.action == untried.best_action and d.win_after is not None and d.best_win is not None


def test_decided_positions_count_less_than_open_ones():
    assert stakes(0.5, 2) == 1.0 and stakes(None, 2) == 1.0
    assert stakes(0.95, 2) == pytest.approx(0.19) and stakes(0.05, 2) == pytest.approx(0.19)
    assert stakes(1 / 3, 3) == pytest.approx(1.0) and stakes(0.9, 3) < 0.5
