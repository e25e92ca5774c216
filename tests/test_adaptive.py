"""The adaptive level (cacaoai.search.adaptive): its estimate of the other
seats' play follows scripted opponents (blunders pull it toward the weak
levels, a search's best moves toward the strong ones), each rung's chances
of the moves form a distribution, the ladder is fitted so that each level
stands on its own rung, the rubber band plays weaker when ahead and
stronger when behind, its choice is the same for a game and a seed, and the
server and the bot specs offer it."""

import json
import math
from pathlib import Path

import pytest

from cacaoai.api import LEVEL_NAMES, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position
from cacaoai.search import ANALYSIS, Limit, Question, adaptive, search
from cacaoai.search.bots import LEVELS, AdaptiveBot, levels, parse_bot, rungs
from cacaoai.search.limits import level_search

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
SCRIPT = Limit(iterations=150)


def scripted_game(blunder: bool, decisions: int = 6, deal: int = 11) -> Position:
    """A 2-player game from a deal until the opponent (seat 1) has made
    `decisions` searched decisions and seat 0 is to act: seat 0 plays
    beginner; seat 1 plays a search's best action, or (`blunder`) the
    action that search judges worst among those it tried."""
    position = Position.new(2, deal)
    mine = parse_bot("beginner")
    made, ply = 0, 0
    while not position.is_over and not (made >= decisions and position.to_act == 0):
        if position.to_act == 0:
            action = mine.choose(position, ply)
        elif len(position.legal_codes()) == 1:
            action = position.legal_actions()[0]
        else:
            result = search(position, SCRIPT, ANALYSIS, seed=ply, question=Question(multipv=0))
            tried = [c for c in result.candidates if c.visits >= 3 and c.win_probability is not None]
            action = (min(tried, key=lambda c: c.win_probability).action if blunder
                      else result.best_action)
            made += 1
        position.apply(action)
        ply += 1
    assert not position.is_over and made >= decisions
    return position


def prior_rung() -> float:
    """Where the prior over the estimated rungs is placed."""
    return adaptive.rung_of(sum((adaptive.FLOOR + k) * p for k, p in enumerate(adaptive.prior())))


def test_blunders_pull_the_estimate_weaker_and_good_moves_stronger():
    bad = adaptive.estimate(scripted_game(blunder=True))
    good = adaptive.estimate(scripted_game(blunder=False))
    assert bad.decisions >= 6 and good.decisions >= 6
    assert bad.placed < good.placed
    assert bad.rung < prior_rung() < good.rung
    assert adaptive.RUNGS[int(bad.rung)][0] in ("beginner", "easy")
    assert bad.posterior[0] + bad.posterior[1] > 0.5 and sum(bad.posterior) == pytest.approx(1.0)


def test_the_prior_leans_to_the_strong_rungs_by_its_tilt(monkeypatch):
    prior = adaptive.prior()
    assert len(prior) == adaptive.CEILING - adaptive.FLOOR + 1 and sum(prior) == pytest.approx(1.0)
    assert all(upper / lower == pytest.approx(math.exp(adaptive.PRIOR_TILT)) for lower, upper in zip(prior, prior[1:]))
    assert adaptive.PRIOR_TILT > 0 and prior_rung() > adaptive.rung_of((adaptive.FLOOR + adaptive.CEILING) / 2)
    monkeypatch.setattr(adaptive, "PRIOR_TILT", 0.0)
    assert len(set(adaptive.prior())) == 1


def test_each_rungs_chances_of_the_legal_actions_sum_to_one_and_weaker_rungs_spread_them():
    position = Position.from_record({k: v for k, v in RECORD.items() if k != "result"}, 28)
    actions = position.legal_actions()
    assert 2 <= len(actions) <= 40
    table = [adaptive.likelihoods(position, 28, a) for a in actions]
    assert all(row is not None and all(0 < p <= 1 for p in row) for row in table)
    for rung in range(adaptive.CEILING - adaptive.FLOOR + 1):
        assert sum(row[rung] for row in table) == pytest.approx(1.0)
    # a rung's least likely action: the uniform share, larger for the weaker rungs
    lowest = [min(row[rung] for row in table) for rung in range(adaptive.CEILING - adaptive.FLOOR + 1)]
    assert lowest[0] > lowest[-1]


def test_the_fitted_ladder_places_each_levels_games_on_its_own_rung():
    floor, ceiling = adaptive.FLOOR, adaptive.CEILING
    # levels whose games are placed unevenly around an increasing centre, some far off
    placements = {i: [1.0 + 0.7 * (i - floor) + d for d in (-0.6, -0.1, 0.0, 0.2, 0.9)]
                  for i in range(floor, ceiling + 1)}
    ladder = adaptive.fit_ladder(placements)
    assert ladder[floor] == pytest.approx(sum(placements[floor]) / 5)
    assert ladder[ceiling] == pytest.approx(sum(placements[ceiling]) / 5)
    for i in range(floor + 1, ceiling):
        mean = sum(adaptive.rung_of(p, ladder) for p in placements[i]) / 5
        assert mean == pytest.approx(i, abs=0.01)
    assert ladder[floor:ceiling + 1] == sorted(ladder[floor:ceiling + 1])


def test_no_game_yet_gives_the_prior_and_a_snapshot_knows_no_game():
    start = Position.new(2, 3)
    found = adaptive.estimate(start)
    assert found.decisions == 0 and found.posterior == pytest.approx(adaptive.prior())
    assert found.rung == pytest.approx(prior_rung())
    later = Position.from_record({k: v for k, v in RECORD.items() if k != "result"}, 12)
    snapshot = Position.from_snapshot(later.snapshot())
    assert adaptive.estimate(snapshot).decisions == 0
    assert adaptive.estimate(later).decisions > 0


def test_the_choice_is_the_same_for_a_game_and_a_seed_memo_or_not():
    position = Position.from_record({k: v for k, v in RECORD.items() if k != "result"}, 20)
    first = adaptive.choose_level(position, seed=5)
    adaptive._memo.clear()
    again = adaptive.choose_level(position, seed=5)
    assert first == again and first.win is not None and 0.0 <= first.win <= 1.0
    assert first.level == adaptive.pick(first.target, 5)
    bot, other = AdaptiveBot(), AdaptiveBot()
    assert bot.choose(position, 9) == other.choose(position, 9)
    assert bot.chosen == other.chosen and bot.chosen[0] in rungs()


def test_the_band_plays_weaker_ahead_and_stronger_behind_within_the_ladder():
    top = len(adaptive.RUNGS) - 1
    assert adaptive.band(None, 2) == 0.0
    assert adaptive.band(0.8, 2) < adaptive.band(0.5, 2) == 0.0 < adaptive.band(0.2, 2)
    assert adaptive.band(1 / 3, 3) == 0.0 and adaptive.band(0.5, 3) < 0.0
    assert adaptive.target_rung(3.0, 0.3, 2) > 3.0 > adaptive.target_rung(3.0, 0.7, 2)
    # the lean upward grows with the player's rung above LEAN_FROM: none for a beginner
    middle = (adaptive.LEAN_FROM + adaptive.CEILING) / 2
    assert adaptive.lean(adaptive.FLOOR) == adaptive.lean(adaptive.LEAN_FROM) == 0.0
    assert 0.0 < adaptive.lean(middle) < adaptive.lean(adaptive.CEILING) == adaptive.LEAN
    assert adaptive.target_rung(adaptive.CEILING, 0.5, 2) == adaptive.CEILING + adaptive.LEAN
    assert adaptive.target_rung(top, 0.0, 2) == top and adaptive.target_rung(0.0, 1.0, 2) == 0.0
    # the estimate alone stays within the fixed levels; only the band reaches the rungs beyond them
    assert adaptive.rung_of(0.0) == adaptive.FLOOR and adaptive.rung_of(7.0) == adaptive.CEILING
    assert adaptive.RUNGS[adaptive.FLOOR][0] == "beginner" and adaptive.RUNGS[adaptive.CEILING][0] == "strong"
    assert adaptive.target_rung(adaptive.FLOOR, 1.0, 2) < adaptive.FLOOR
    assert adaptive.target_rung(adaptive.CEILING, 0.0, 2) > adaptive.CEILING


def test_a_target_between_two_rungs_plays_the_nearest_or_draws_one(monkeypatch):
    values = [a for _, _, a in adaptive.RUNGS]
    assert values == sorted(values) and len(set(values)) == len(values)
    middle = (values[3] + values[4]) / 2
    assert adaptive.rung_of(middle) == pytest.approx(3.5)
    names = [name for name, _, _ in adaptive.RUNGS]
    assert {adaptive.pick(3.3, seed) for seed in range(20)} == {names[3]}
    assert {adaptive.pick(3.7, seed) for seed in range(20)} == {names[4]}
    monkeypatch.setattr(adaptive, "MIX", True)
    assert {adaptive.pick(3.5, seed) for seed in range(40)} == {names[3], names[4]}


def test_the_level_is_named_wherever_levels_are():
    assert "adaptive" in LEVEL_NAMES and "adaptive" not in LEVELS
    assert isinstance(parse_bot("adaptive"), AdaptiveBot) and isinstance(parse_bot("level:Adaptive"), AdaptiveBot)
    assert parse_bot("adaptive").spec == "level:adaptive"
    assert levels()["adaptive"].limit == rungs()[adaptive.RUNGS[-1][0]].limit
    assert [name for name in rungs()] == [name for name, _, _ in adaptive.RUNGS]
    with pytest.raises(ValueError, match="adaptive"):
        parse_bot("level:grandmaster")


def test_the_server_plays_the_adaptive_level_from_a_record(cacao_stub):
    info = cacao_stub.GetServerInfo(pb.GetServerInfoRequest())
    assert "adaptive" in [level.name for level in info.levels]
    data = {k: v for k, v in RECORD.items() if k != "result"}
    data["actions"] = data["actions"][:20]
    request = pb.SuggestActionRequest(record=convert.record_from_json(data), level="adaptive", seed=4)
    first, second = cacao_stub.SuggestAction(request), cacao_stub.SuggestAction(request)
    assert first.action == second.action
    played = first.evaluation.limits.iterations
    assert played in {level.limit.iterations for level in rungs().values()}


def test_a_levels_spec_is_read_with_one_thread_and_a_bad_one_is_named():
    limit, settings = level_search("casual")
    assert (limit.iterations, limit.threads, settings.temperature) == (400, 1, 0.5)
    assert level_search("mcts:iterations=60,threads=2")[0].threads == 2
    for spec, problem in [("grandmaster:iterations=5", "a level is one of"), ("mcts:iterations=5,reuse=1", "reuse"),
                          ("nomodel:temperature=0.5", "needs iterations or time"),
                          ("mcts:iterations=many", "iterations must be a int")]:
        with pytest.raises(ValueError, match=problem):
            level_search(spec)
