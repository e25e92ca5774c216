"""The endgame solver inside the search, the review and the levels: a proved
position is answered exactly, and only by the settings that use the solver."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from cacaoai.engine import Position
from cacaoai.search import endgame, search
from cacaoai.search.bots import levels
from cacaoai.search.limits import NO_MODEL, PLAY, Limit
from cacaoai.search.request import Question
from cacaoai.search.review import review_game


def late(players: int, seed: int, left: int) -> tuple[Position, list]:
    """A seeded random game played until `left` placements are left with
    nothing hidden and a placement to choose: (that position, the actions)."""
    rng = random.Random(seed)
    position = Position.new(players, seed)
    actions = []
    while not (endgame.fully_known(position) and endgame.placements_left(position) <= left
               and position.core.phase == 0):
        action = position.decode(rng.choice(position.legal_codes()))
        actions.append(action)
        position.apply(action)
    return position, actions


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_two_players_get_the_exact_answer(seed: int) -> None:
    position, _ = late(2, seed, 3)
    exact = endgame.solve(position, max_nodes=10_000_000)
    result = search(position, Limit(iterations=300), PLAY, seed=9)
    assert result.exact and result.stopped_by == "exact" and result.iterations == 0
    assert position.encode(result.best_action) in exact.best
    assert result.candidates and all(c.exact for c in result.candidates)
    for candidate in result.candidates:
        value = exact.value(position.encode(candidate.action))
        assert value is not None
        assert (candidate.win_probability, candidate.score_lead) == pytest.approx((value.share, value.margin))
    to_act = position.to_act
    assert result.win_probability[to_act] == pytest.approx(exact.actions[0].share)
    assert sum(result.win_probability) == pytest.approx(1.0)
    again = search(position, Limit(iterations=300), PLAY, seed=9)
    assert again.best_action == result.best_action and again.candidates == result.candidates


def test_the_solver_spends_the_same_nodes_however_the_position_was_sent() -> None:
    # a position replayed from its record keeps the emptied display's old kinds in the
    # engine, where a restored snapshot has none: the solver's table must not see them
    import one_answer
    seed = 2796430                              # three placements left, resolving, display empty
    position = one_answer.random_position(seed)
    assert position.snapshot()["display"] == [] and endgame.placements_left(position) == 3
    nodes = {source: endgame.solve(q, max_nodes=60_000, values=1).nodes
             for source, q in one_answer.sources(position, seed).items()}
    assert len(set(nodes.values())) == 1, nodes


def test_settings_without_the_solver_search_as_before() -> None:
    position, _ = late(2, 1, 3)
    for settings in (replace(PLAY, endgame=0.0), NO_MODEL):
        result = search(position, Limit(iterations=200), settings, seed=9)
        assert not result.exact and result.stopped_by == "iterations"
        assert not any(c.exact for c in result.candidates)
    named = levels()
    assert named["strong"].settings.endgame > 0 and named["max"].settings.endgame > 0
    assert named["adaptive"].settings.endgame > 0
    for model_level in ("club", "advanced"):       # the last placements exactly, as a club player counts them
        assert named[model_level].settings.endgame > 0
    for playouts in ("beginner", "easy", "casual"):
        assert named[playouts].settings.endgame == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_club_plays_the_last_two_placements_by_the_solver_and_casual_does_not(players: int) -> None:
    position, _ = late(players, 4, 2)
    assert endgame.placements_left(position) <= 2
    named = levels()
    club = search(position, named["club"].limit, named["club"].settings, seed=1)
    assert club.exact and position.encode(club.best_action) in endgame.solve(position).best
    casual = search(position, named["casual"].limit, named["casual"].settings, seed=1)
    assert not casual.exact


def test_a_restricted_search_values_each_allowed_action_exactly() -> None:
    position, _ = late(2, 2, 3)
    exact = endgame.solve(position, max_nodes=10_000_000)
    pair = [position.decode(exact.actions[-1].code), position.decode(exact.actions[0].code)]
    result = search(position, Limit(iterations=300), PLAY, seed=3, question=Question(allow=pair))
    assert result.exact and {c.action for c in result.candidates} == set(pair)
    assert result.best_action == pair[1] or position.encode(result.best_action) in exact.best


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_correct_the_tree_with_the_paranoid_values(players: int) -> None:
    position, _ = late(players, 3, 3)
    exact = endgame.solve(position, max_nodes=10_000_000)
    result = search(position, Limit(iterations=300), PLAY, seed=5)
    assert result.exact and result.stopped_by == "iterations" and result.iterations > 0
    assert position.encode(result.best_action) in exact.best
    to_act = position.to_act
    assert result.win_probability[to_act] == pytest.approx(exact.actions[0].share)
    assert sum(result.win_probability) == pytest.approx(1.0)
    assert result.candidates[0].action == result.best_action and result.candidates[0].exact


def test_a_time_budget_still_answers_when_the_solver_cannot_prove() -> None:
    position, _ = late(2, 1, 6)
    result = search(position, Limit(time_s=0.02), PLAY, seed=1)
    assert result.best_action is not None and not result.exact      # 6 placements: not tried in 20 ms


def test_the_review_judges_endgame_decisions_exactly() -> None:
    position, actions = late(2, 4, 3)
    rng = random.Random(4)
    start = Position.new(2, 4)
    while not position.is_over:
        action = position.decode(rng.choice(position.legal_codes()))
        actions.append(action)
        position.apply(action)
    reviews = [d for d in review_game(start, actions, Limit(iterations=300), seed=2, explanations=False)
               if hasattr(d, "index")]
    replay = start.clone()
    decided = 0
    for index, action in enumerate(actions):
        decision = next((d for d in reviews if d.index == index), None)
        if decision is not None and not decision.forced:
            known = endgame.fully_known(replay)
            assert decision.exact <= known, index                   # never while anything is hidden
            if known and endgame.placements_left(replay) <= 3:
                assert decision.exact, index                        # proved within the budget
            if decision.exact:
                exact = endgame.solve(replay, max_nodes=10_000_000)
                taken = exact.value(replay.encode(action))
                assert taken is not None
                assert decision.win_loss == pytest.approx(exact.actions[0].share - taken.share)
                assert (decision.classification == "best") == (replay.encode(action) in exact.best)
                decided += 1
        replay.apply(action)
    assert decided >= 2
