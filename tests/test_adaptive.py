"""The adaptive level (cacaoai.search.adaptive): its estimate of the other
seats' play follows scripted opponents (blunders pull it toward the weak
levels, a search's best moves toward the strong ones), decided positions
count less, the rubber band plays weaker when ahead and stronger when
behind, its choice is the same for a game and a seed, and the server and
the bot specs offer it."""

import json
from pathlib import Path

import pytest

from cacaoai.api import LEVEL_NAMES, convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Position
from cacaoai.search import ANALYSIS, Limit, Question, adaptive, search
from cacaoai.search.bots import LEVELS, AdaptiveBot, levels, parse_bot, rungs

RECORD = json.loads((Path(__file__).parent / "data" / "records.jsonl").read_text().splitlines()[0])
REVIEW = Limit(iterations=60, threads=1)     # small budgets: the tests judge direction, not figures
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


def test_blunders_pull_the_estimate_weaker_and_good_moves_stronger():
    prior = adaptive.rung_of(adaptive.PRIOR_ACCURACY)
    bad = adaptive.estimate(scripted_game(blunder=True), limit=REVIEW)
    good = adaptive.estimate(scripted_game(blunder=False), limit=REVIEW)
    assert bad.decisions >= 6 and good.decisions >= 6
    assert bad.accuracy < good.accuracy
    assert bad.rung < prior < good.rung
    assert adaptive.RUNGS[int(bad.rung)][0] in ("beginner", "easy")


def test_no_game_yet_gives_the_prior_and_a_snapshot_knows_no_game():
    start = Position.new(2, 3)
    found = adaptive.estimate(start, limit=REVIEW)
    assert found.decisions == 0 and found.accuracy is None
    assert found.rung == adaptive.rung_of(adaptive.PRIOR_ACCURACY)
    later = Position.from_record({k: v for k, v in RECORD.items() if k != "result"}, 12)
    snapshot = Position.from_snapshot(later.snapshot())
    assert adaptive.estimate(snapshot, limit=REVIEW).decisions == 0
    assert adaptive.estimate(later, limit=REVIEW).decisions > 0


def test_the_choice_is_the_same_for_a_game_and_a_seed_memo_or_not():
    position = Position.from_record({k: v for k, v in RECORD.items() if k != "result"}, 20)
    first = adaptive.choose_level(position, seed=5, limit=REVIEW)
    adaptive._memo.clear()
    again = adaptive.choose_level(position, seed=5, limit=REVIEW)
    assert first == again and first.win is not None and 0.0 <= first.win <= 1.0
    assert first.level == adaptive.pick(first.target, 5)
    bot, other = AdaptiveBot(), AdaptiveBot()
    assert bot.choose(position, 9) == other.choose(position, 9)
    assert bot.chosen == other.chosen and bot.chosen[0] in rungs()


def test_decided_positions_count_less_than_open_ones():
    assert adaptive.stakes(0.5, 2) == 1.0 and adaptive.stakes(None, 2) == 1.0
    assert adaptive.stakes(0.95, 2) == pytest.approx(0.19) and adaptive.stakes(0.05, 2) == pytest.approx(0.19)
    assert adaptive.stakes(1 / 3, 3) == pytest.approx(1.0) and adaptive.stakes(0.9, 3) < 0.5


def test_the_band_plays_weaker_ahead_and_stronger_behind_within_the_ladder():
    top = len(adaptive.RUNGS) - 1
    assert adaptive.band(None, 2) == adaptive.LEAN
    assert adaptive.band(0.8, 2) < adaptive.band(0.5, 2) == adaptive.LEAN < adaptive.band(0.2, 2)
    assert adaptive.band(1 / 3, 3) == adaptive.LEAN and adaptive.band(0.5, 3) < adaptive.LEAN
    assert adaptive.target_rung(3.0, 0.3, 2) > 3.0 > adaptive.target_rung(3.0, 0.7, 2)
    assert adaptive.target_rung(top, 0.0, 2) == top and adaptive.target_rung(0.0, 1.0, 2) == 0.0
    # the estimate alone stays within the fixed levels; only the band reaches the rungs beyond them
    assert adaptive.rung_of(0.0) == adaptive.FLOOR and adaptive.rung_of(100.0) == adaptive.CEILING
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
