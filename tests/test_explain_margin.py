"""Explanations that argue for their advice: a sentence says what a line gains
on what decides the game (the margin over the other seat in 2 players, the gap
to the leader and the place in 3-4), and when the gain is in the chances
rather than the score; the seats' totals come from the engine's own scores."""

from __future__ import annotations

import json
from pathlib import Path

from cacaoai.api import convert
from cacaoai.engine import Action, Position
from cacaoai.search.explain import Explanation, Part, TempleChange, explain, sentence

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
PLACE = Action.place(0, "2101", 1, -2, 0, [])
DISCARD = Action.discard(0, "3001")


def why(totals, other_totals, parts=(), temples=()) -> Explanation:
    return Explanation(seat=0, line=(PLACE,), other_line=(DISCARD,), plies=1, other_plies=1, turn=5,
                       parts=tuple(parts), temples=tuple(temples), totals=tuple(totals),
                       other_totals=tuple(other_totals))


def test_two_players_the_sentence_speaks_of_the_margin_not_of_ones_own_gold():
    gains = why((20, 14), (11, 17), parts=(Part("water", 2, -1), Part("water_space", 4, 2), Part("total", 20, 11)),
                temples=(TempleChange(1, -1, (6, 3), (3, 6)),))
    assert sentence(gains, ("red", "yellow")) == (
        "2101 at (1,-2) takes the majority of the temple at (1,-1) from yellow (+3 gold at the end) "
        "and moves your water carrier to 4 instead of 2 (+3), +12 in the margin over yellow at the end")
    # less gold for the seat, but more than the rival loses: the advice says both, and is not against itself
    denies = why((18, 10), (20, 16), parts=(Part("total", 18, 20),))
    assert sentence(denies, ("red", "yellow")) == (
        "2101 at (1,-2) instead of discarding 3001: \N{MINUS SIGN}2 gold for you but +4 in the margin "
        "over yellow at the end")
    # no gain on the margin: the gain is in the chances
    level = why((15, 15), (16, 15), parts=(Part("total", 15, 16),))
    assert sentence(level, ("red", "yellow")) == (
        "2101 at (1,-2) instead of discarding 3001: \N{MINUS SIGN}1 in the margin over yellow at the end; "
        "its gain is in the chances after these lines")


def test_three_and_four_players_the_sentence_speaks_of_the_leader_and_the_place():
    climbs = why((20, 22, 12), (16, 22, 18))
    assert sentence(climbs) == ("2101 at (1,-2) instead of discarding 3001: +4 against the leader at the end "
                                "(second instead of third)")
    leads = why((25, 19, 20, 3), (21, 19, 20, 3))
    assert sentence(leads) == "2101 at (1,-2) instead of discarding 3001: +4 against the leader at the end"
    assert leads.edge(leads.totals) == 5 and leads.rank(leads.totals) == 1
    behind = why((10, 19, 20, 3), (12, 19, 20, 3))
    assert sentence(behind).endswith("\N{MINUS SIGN}2 against the leader at the end; "
                                     "its gain is in the chances after these lines")


def test_an_explanation_without_totals_keeps_the_older_words():
    older = why((), (), parts=(Part("total", 8, 11),))
    assert sentence(older) == ("2101 at (1,-2) scores 3 gold less than discarding 3001 along the expected "
                               "lines; its gain is in the chances after them")


def test_explain_gives_every_seats_score_at_each_lines_end_and_they_cross_the_wire():
    position = Position.from_record(RECORD, 10)
    line = (position.legal_actions()[0],)
    other = (position.legal_actions()[-1],)
    explained = explain(position, 0, line, other, seed=3)
    assert len(explained.totals) == len(explained.other_totals) == position.players
    own = explained.part("total")
    if own is not None:  # the seat's own total is the part the explanation already had
        assert (explained.totals[0], explained.other_totals[0]) == (own.best, own.other)
    else:
        assert explained.totals[0] == explained.other_totals[0]
    assert convert.explanation_from_proto(convert.explanation_to_proto(explained)) == explained
    assert json.loads(json.dumps(explained.to_json()))["totals"] == list(explained.totals)
