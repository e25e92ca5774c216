"""The search (cacaoai.search): determinism, budgets, legality at every decision
type, consistent evaluations, hidden information, bots and the arena.

Runs against the installed package; budgets are small so the file stays fast.
"""

import json
import os
import random
import sys
import threading
import time
from dataclasses import replace

import pytest
from support import poll_until, wait_until

from cacaoai.engine import Position
from cacaoai.lab.arena import run as arena_run
from cacaoai.lab.arena import wilson
from cacaoai.search import (
    NO_MODEL,
    Limit,
    Question,
    Run,
    SearchSettings,
    StopFlag,
    _mcts,
    driver,
    search,
)
from cacaoai.search.bots import LEVELS, GreedyBot, MCTSBot, RandomBot, parse_bot
from cacaoai.search.driver import FINISHING, FinishTimes

FAST = Limit(iterations=200)


def played(players, seed, plies):
    """A position after `plies` random actions of a seeded game."""
    position = Position.new(players, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if position.is_over:
            break
        position.apply(rng.choice(position.legal_actions()))
    return position


def finished(players, seed):
    position = Position.new(players, seed)
    rng = random.Random(seed)
    while not position.is_over:
        position.apply(rng.choice(position.legal_actions()))
    return position


def comparable(result):
    """A result's JSON without the timing fields."""
    out = result.to_json()
    for key in ("elapsed_s", "iterations_per_second"):
        out.pop(key)
    return out


def sealed(hand):
    """4 players; every cell next to the start tiles is taken by seat 1, so seat 0
    can only discard (an engine convention of docs/rules.md; legal play never
    gets here, so the position is loaded into the core directly)."""
    types = ("1111", "2101", "3001", "3100")
    workers = [(0, -1, 0), (-1, 0, 0), (1, 0, 0), (0, 1, 1), (2, 1, 1), (1, 2, 1)]
    tiles = [(0, 0, 1), (1, 1, 3)] + [(x, y, 0x80 | 1 << 4 | t << 2) for x, y, t in workers]
    seats = []
    for s in range(4):
        counts = [0, 0, 0, 0]
        for t in (hand if s == 0 else ["2101"]):
            counts[types.index(t)] += 1
        seats.append({"gold": 0, "cacao": 0, "sun": 0, "water": 0, "hand": counts,
                      "pile": [], "discarded": [0, 0, 0, 0]})
    core = Position.new(4, 1).core.clone()
    core.load(4, 0, 6, 0, 0, tiles, {}, [1, 2], [4, 5, 6], seats, [])
    return Position(core)


# --- determinism and budgets ---------------------------------------------------------


def test_the_same_seed_gives_the_same_result_with_one_thread():
    position = played(2, 3, 9)
    a = search(position, FAST, seed=11)
    b = search(position, FAST, seed=11)
    assert comparable(a) == comparable(b)


def test_an_iteration_budget_split_over_threads_is_deterministic_too():
    position = played(3, 4, 7)
    limits = Limit(iterations=301, threads=2)
    a = search(position, limits, seed=5)
    b = search(position, limits, seed=5)
    assert a.iterations == 301
    assert comparable(a) == comparable(b)


def test_different_seeds_search_differently():
    position = Position.new(2, 1)
    a = search(position, FAST, seed=1)
    b = search(position, FAST, seed=2)
    assert [c.visits for c in a.candidates] != [c.visits for c in b.candidates] or \
        a.win_probability != b.win_probability


@pytest.mark.parametrize("threads", [1, 2])
def test_the_iteration_budget_is_exact(threads):
    result = search(Position.new(4, 2), Limit(iterations=123, threads=threads), seed=1)
    assert result.iterations == 123
    assert result.stopped_by == "iterations"
    assert sum(c.visits for c in result.candidates) == 123


def test_the_time_budget_is_honoured():
    # how late it stops depends on the machine's load: only the lower bound is
    # certain (the trees stop at most a fifth of the budget early, for the report)
    result = search(Position.new(2, 5), Limit(time_s=0.25), seed=1)
    assert result.stopped_by == "time"
    assert result.elapsed_s >= 0.25 * (1 - FINISHING.max_share)
    assert result.iterations > 0


def test_a_time_budget_counts_from_the_runs_start():
    # a budget that began 5 s ago is spent: the trees stop before their first iteration
    position = Position.new(2, 5)
    result = search(position, Limit(time_s=1.0), seed=1, run=Run(started=time.monotonic() - 5))
    assert result.stopped_by == "time" and result.iterations == 0
    assert result.elapsed_s >= 5 and result.best_action in position.legal_actions()
    # one that begins now leaves the iterations their budget
    counted = search(position, Limit(time_s=600, iterations=50), seed=1, run=Run(started=time.monotonic()))
    assert counted.stopped_by == "iterations" and counted.iterations == 50
    for bad in (True, "now", float("nan")):
        with pytest.raises(ValueError, match="started"):
            Run(started=bad)


@pytest.mark.parametrize("threads", [1, 2])
def test_reports_while_searching_leave_the_result_unchanged(threads):
    position = played(2, 4, 3)
    limit = Limit(iterations=6000, threads=threads)
    reports = []
    a = search(position, limit, seed=9)
    b = search(position, limit, seed=9, run=Run(on_report=reports.append, report_every_iterations=1000))
    assert comparable(a) == comparable(b) and b.stopped_by == "iterations"
    assert [r.iterations for r in reports] == [1000, 2000, 3000, 4000, 5000]
    assert {r.stopped_by for r in reports} == {""} and not any(r.final for r in reports)
    for r in reports:  # the trees only grow: no root action loses visits
        visits = {c.action: c.visits for c in b.candidates}
        assert all(c.visits <= visits.get(c.action, 0) for c in r.candidates)
    with pytest.raises(ValueError, match="report_every_s"):
        search(position, limit, seed=9, run=Run(on_report=reports.append, report_every_s=0))
    with pytest.raises(ValueError, match="report_every_iterations"):
        search(position, limit, seed=9, run=Run(on_report=reports.append, report_every_iterations=0))


def test_timed_reports_leave_the_result_unchanged():
    """Reports by the clock pause the trees as reports by iterations do: the
    final result is still the one of the same search without reports."""
    position = played(2, 4, 3)
    limit = Limit(iterations=3000, threads=2)
    reports = []
    plain = search(position, limit, seed=9)
    timed = search(position, limit, seed=9, run=Run(on_report=reports.append, report_every_s=0.001))
    assert comparable(plain) == comparable(timed)
    counts = [r.iterations for r in reports] + [timed.iterations]
    assert counts == sorted(counts) and counts[-1] == 3000


def test_reports_by_iterations_without_an_iteration_limit_end_at_the_stop():
    position = played(2, 4, 3)
    stop = StopFlag()
    reports = []

    def report(result):
        reports.append(result.iterations)
        if len(reports) == 3:
            stop.set()

    result = search(position, Limit(), seed=1, run=Run(stop=stop, on_report=report, report_every_iterations=500))
    assert reports == [500, 1000, 1500] and result.stopped_by == "stop"
    assert result.iterations == 1500


def _task_priorities() -> dict[int, tuple[int, int]]:
    out = {}
    for tid in map(int, os.listdir("/proc/self/task")):
        try:
            out[tid] = (os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid))
        except OSError:  # the thread has just ended
            pass
    return out


@pytest.mark.skipif(sys.platform != "linux", reason="thread priorities are Linux's")
@pytest.mark.parametrize("priority, lowered, nice", [("idle", "SCHED_IDLE", 0),
                                                     ("low", "SCHED_OTHER", 19),
                                                     ("reduced", "SCHED_OTHER", 5)])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_trees_grow_on_threads_of_the_priority_asked_for(priority, lowered, nice, threads):
    """The search's threads lower themselves to the priority asked for before
    they grow their trees: a watcher reads every thread's priority (the
    kernel's view, by native thread id) until it sees the search's threads
    lowered, all at once; then it stops the search. What is checked is the
    priority they were given, not how far their trees grew: next to busy
    processes an idle thread may not run for seconds."""
    normal = (os.SCHED_OTHER, 0)
    expected = (getattr(os, lowered), nice)
    # threads that other tests of this process left lowered (a pool's idle
    # worker, say) are not this search's: only threads lowered since count
    before = {t: p for t, p in _task_priorities().items() if p != normal}

    def lowered_since() -> dict[int, tuple[int, int]]:
        return {t: p for t, p in _task_priorities().items() if p != normal and before.get(t) != p}

    looks: list[dict[int, tuple[int, int]]] = []  # the threads lowered since, at each look
    stop = StopFlag()

    def all_lowered() -> bool:
        looks.append(lowered_since())
        return len(looks[-1]) == threads

    watcher = threading.Thread(target=lambda: (poll_until(all_lowered), stop.set()))
    watcher.start()
    result = search(Position.new(2, 3), Limit(threads=threads), seed=1,
                    run=Run(stop=stop, cpu_priority=priority))
    watcher.join()
    assert result.stopped_by == "stop"                   # it ran until the watcher had seen them
    assert len(looks[-1]) == threads, looks[-1]          # the search's threads, seen at once
    assert max(len(look) for look in looks) == threads   # only the search's own threads
    assert {p for look in looks for p in look.values()} == {expected}
    wait_until(lambda: not lowered_since(), "the search's threads to be gone")
    with pytest.raises(ValueError, match="priority"):
        search(Position.new(2, 3), Limit(iterations=1), seed=1, run=Run(cpu_priority="urgent"))


def test_the_stop_flag_ends_a_search_from_another_thread():
    stop = StopFlag()
    first_report = threading.Event()
    stopper = threading.Thread(target=lambda: (first_report.wait(), stop.set()))
    stopper.start()
    result = search(Position.new(2, 6), Limit(time_s=600, threads=2), seed=1,
                    run=Run(stop=stop, on_report=lambda _: first_report.set(), report_every_iterations=200))
    stopper.join()
    assert result.stopped_by == "stop"  # long before its 600 seconds
    assert stop.is_set() and result.iterations >= 200
    assert result.best_action in Position.new(2, 6).legal_actions()


def test_a_stop_flag_alone_is_a_budget_and_a_set_flag_still_answers_legally():
    stop = StopFlag()
    stop.set()
    position = played(2, 8, 5)
    result = search(position, Limit(), seed=1, run=Run(stop=stop))
    assert result.iterations == 0
    assert result.best_action in position.legal_actions()


def test_a_search_needs_some_budget():
    with pytest.raises(ValueError):
        search(Position.new(2, 1), Limit(), seed=1)


# --- legality at every decision type --------------------------------------------------


def test_search_and_bots_never_play_an_illegal_action():
    seen = set()
    bots = [GreedyBot(), RandomBot(), parse_bot("flat:iterations=40"),
            parse_bot("mcts:iterations=40,playout=random")]
    for seed in range(12):
        for players in (2, 3, 4):
            position = Position.new(players, seed)
            rng = random.Random(seed)
            ply = 0
            while not position.is_over:
                legal = position.legal_actions()
                kinds = {a.type for a in legal}
                if ply % 5 == 0 or kinds - seen:
                    seen |= kinds
                    result = search(position, Limit(iterations=40), seed=seed + ply)
                    assert result.best_action in legal
                    assert all(c.action in legal for c in result.candidates)
                    bot = bots[ply % len(bots)]
                    assert bot.choose(position, ply) in legal
                position.apply(rng.choice(legal))
                ply += 1
    assert {"place", "overbuild", "resolve"} <= seen
    position = sealed(["1111", "2101"])
    legal = position.legal_actions()
    assert {a.type for a in legal} == {"discard"}
    for bot in bots:
        assert bot.choose(position, 1) in legal
    assert search(position, FAST, seed=1).best_action in legal


def test_one_step_values_leave_positions_unchanged_and_previews_agree():
    # in-place evaluation restores the position byte for byte, and the
    # playout's values from position_preview (the action is never applied)
    # equal seat_value after position_apply, exactly
    for players in (2, 3, 4):
        for seed in range(3):
            for blind in (False, True):
                checked, changed, mismatched = _mcts.check_values(
                    Position.new(players, seed).core, seed, 400, blind)
                assert checked > 1000 and changed == 0 and mismatched == 0


# --- evaluations -----------------------------------------------------------------------


def test_evaluations_are_in_range_and_consistent():
    for players in (2, 3, 4):
        position = played(players, 10 + players, 6 * players)
        result = search(position, Limit(iterations=300), seed=3)
        assert len(result.win_probability) == players
        assert sum(result.win_probability) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= p <= 1.0 for p in result.win_probability)
        assert all(-40 <= g <= 150 for g in result.expected_gold)
        assert result.candidates[0].visits >= result.candidates[-1].visits
        for c in result.candidates:
            assert 0.0 <= c.win_probability <= 1.0
            weight = SearchSettings().margin_weight_for(players)
            assert c.mean_value == pytest.approx(c.win_probability + weight * c.score_lead / 20)
        assert result.best_action == result.candidates[0].action
        assert result.principal_variation[0] == result.best_action
        assert result.iterations_per_second > 0
        json.dumps(result.to_json())


def test_a_won_position_is_seen_as_won():
    # near the end, the seat far ahead in gold should see a high win probability
    for seed in range(40):
        position = played(2, seed, 30)
        if position.is_over or position.to_act is None:
            continue
        golds = [position.snapshot()["seats"][s]["gold"] for s in range(2)]
        if golds[position.to_act] - golds[1 - position.to_act] >= 25:
            result = search(position, Limit(iterations=300), seed=1)
            assert result.win_probability[position.to_act] > 0.8
            return
    pytest.skip("no lopsided position found")


def test_the_principal_variation_is_a_legal_line_for_some_determinization():
    position = played(2, 21, 4)
    result = search(position, Limit(iterations=2000), seed=2)
    assert len(result.principal_variation) >= 2
    assert result.principal_variation[0] == result.best_action


def test_playable_prefix_counts_the_legal_steps_of_a_line_without_changing_the_position():
    from cacaoai.search._mcts import playable_prefix

    rng = random.Random(5)
    for players in (2, 3, 4):
        position = played(players, 60 + players, 3)
        before = position.snapshot()
        core = position.core.clone()
        line = []
        for _ in range(6):
            code = rng.choice(core.legal_codes())
            line.append(code)
            core.apply_code(code)
        assert playable_prefix(position.core, line) == 6
        assert playable_prefix(position.core, line[:3] + [0xFFFFFFFF] + line[3:]) == 3
        assert playable_prefix(position.core, [-1]) == 0
        assert playable_prefix(position.core, []) == 0
        assert position.snapshot() == before


# --- hidden information ----------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_hidden_information_is_not_used(players):
    original = played(players, 30 + players, 7)
    seat = original.to_act
    view = original.observation(seat)
    others = [Position.from_observation(view, seed=s) for s in (1, 2)]
    snapshots = [p.snapshot() for p in [original] + others]
    assert snapshots[0] != snapshots[1] != snapshots[2]       # the hidden parts differ
    results = [comparable(search(p, Limit(iterations=250), seed=9)) for p in [original] + others]
    assert results[0] == results[1] == results[2]


def test_hidden_information_is_not_used_when_searching_for_a_seat_not_to_act():
    original = played(3, 40, 4)
    seat = (original.to_act + 1) % 3
    view = original.observation(seat)
    other = Position.from_observation(view, seed=3)
    limits = Limit(iterations=200)
    a = search(original, limits, seed=4, question=Question(seat=seat))
    b = search(other, limits, seed=4, question=Question(seat=seat))
    assert comparable(a) == comparable(b)
    assert a.seat == seat


def test_known_hands_are_used_when_given():
    original = played(2, 60, 5)
    seat = original.to_act
    opponent = 1 - seat
    view = original.observation(seat)
    hand = original.snapshot()["seats"][opponent]["hand"]
    other = next(p for p in (Position.from_observation(view, seed=k) for k in range(50))
                 if p.snapshot()["seats"][opponent]["hand"] != hand)
    limits = Limit(iterations=300)
    a = search(original, limits, seed=1, question=Question(known_hands=[opponent]))
    b = search(other, limits, seed=1, question=Question(known_hands=[opponent]))
    assert comparable(a) != comparable(b)
    with pytest.raises(ValueError):
        search(original, limits, seed=1, question=Question(known_hands=[7]))


def _tried_below_root(widen_inner):
    """Actions tried (children) at the root's children of a 2,000-iteration
    tree, summed."""
    position = played(2, 5, 6)
    tree = _mcts.Tree()
    tree.reset(position.core, observer=position.to_act, known_hands=0, seed=3,
               settings=replace(NO_MODEL, widen_inner=widen_inner))
    tree.run(2000)
    return sum(len(tree.children([code])) for code, *_ in tree.root_children())


def test_inner_widening_tries_fewer_actions_below_the_root():
    # without it, a node below the root tries every action once before selecting
    plain, widened = _tried_below_root(0.0), _tried_below_root(1.0)
    assert 0 < widened < plain / 2


def test_a_tree_laid_out_again_keeps_every_node_and_its_statistics():
    # 20,000 iterations: the pool is laid out again at 8,192 and 16,384 nodes
    position = played(2, 5, 6)
    tree = _mcts.Tree()
    tree.reset(position.core, observer=position.to_act, known_hands=0, seed=3, settings=NO_MODEL)
    tree.run(20000)
    reached, stack = 1, [([], tree.root_stats()[0])]
    while stack:
        path, visits = stack.pop()
        children = tree.children(path)
        reached += len(children)
        if children:     # a node's visits: its children's, plus the one that expanded it
            assert visits - 1 <= sum(child[2] for child in children) <= visits
        stack.extend((path + [child[0]], child[2]) for child in children)
    assert reached == tree.nodes == 20001


def test_a_node_with_many_children_finds_each_by_its_code():
    # Searching for the seat not to act, the root's children are the codes the
    # other hands allow over every determinization: far more than 16, so the
    # root's block of children carries a hash index. A look-up that missed
    # would grow a second child for the same code.
    position = played(2, 5, 6)
    other = 1 - position.to_act
    tree = _mcts.Tree()
    tree.reset(position.core, observer=other, known_hands=0, seed=4, settings=NO_MODEL)
    tree.run(20000)
    stack, reached = [[]], 1
    while stack:
        path = stack.pop()
        codes = [child[0] for child in tree.children(path)]
        assert len(set(codes)) == len(codes), path
        reached += len(codes)
        stack.extend(path + [code] for code in codes)
    assert reached == tree.nodes
    root = tree.children()
    assert len(root) > 16
    assert sum(child[2] for child in root) == tree.root_stats()[0] == 20000


def test_bad_limits_are_refused():
    for bad in ({"iterations": 0}, {"time_s": -1}, {"threads": 0}, {"threads": 65},
                {"iterations": 1.5}):
        with pytest.raises(ValueError):
            Limit(**bad)
    for bad in ({"playout": "psychic"}, {"algorithm": "alphabeta"}, {"temperature": -1},
                {"samples": 0}, {"widen_inner": -1}):
        with pytest.raises(ValueError):
            SearchSettings(**bad)
    with pytest.raises(ValueError):
        search(Position.new(2, 1), FAST, seed=-1)
    with pytest.raises(ValueError):
        search(Position.new(2, 1), FAST, seed=1, question=Question(seat=2))


# --- instant answers --------------------------------------------------------------------


def test_a_finished_game_answers_at_once_with_its_result():
    position = finished(3, 1)
    result = search(position, Limit(iterations=10**9), seed=1)
    assert result.best_action is None and result.stopped_by == "terminal"
    assert result.iterations == 0  # nothing searched (a billion iterations would not end)
    final = position.result()
    assert list(result.expected_gold) == [float(g) for g in final.gold]
    assert sum(result.win_probability) == pytest.approx(1.0)


def test_a_single_legal_action_answers_at_once():
    position = sealed(["3001"])
    assert len(position.legal_actions()) == 1
    result = search(position, Limit(time_s=30), seed=1)
    assert result.best_action == position.legal_actions()[0]
    assert result.iterations == 0 and result.stopped_by == "single-action"


# --- bots, levels and the arena ----------------------------------------------------------


def test_greedy_takes_the_best_immediate_value_without_peeking_at_blind_draws():
    for plies in range(0, 40, 3):
        position = played(2, 50, plies)
        if position.is_over:
            break
        codes = position.legal_codes()
        values = _mcts.action_values(position.core, codes, position.to_act, blind=True)
        chosen = {GreedyBot().choose(position, seed) for seed in range(6)}
        for action in chosen:
            assert values[codes.index(position.encode(action))] == max(values)
        # the deck order is hidden: another order gives the same choice
        view = position.observation(position.to_act)
        other = Position.from_observation(view, seed=plies + 1)
        assert GreedyBot().choose(other, 7) == GreedyBot().choose(position, 7)


def test_the_default_exploration_follows_what_values_the_leaves():
    """0.1 with the learned value, 0.7 with playouts alone; an explicit one is kept, and
    a search with the default gives the same answer as with its constant spelled out."""
    assert SearchSettings().ucb_constant == 0.1
    assert NO_MODEL.ucb_constant == 0.7
    assert SearchSettings(value=0.5).ucb_constant == 0.1
    assert SearchSettings(exploration=0.3, value=0).ucb_constant == 0.3
    assert SearchSettings(exploration=0.0).ucb_constant == 0.0
    assert parse_bot("mcts:exploration=0.25").settings.exploration == 0.25
    with pytest.raises(ValueError, match="exploration"):
        SearchSettings(exploration=-1.0)
    position = Position.new(2, 5)
    for implicit, explicit in ((SearchSettings(), SearchSettings(exploration=0.1)),
                               (NO_MODEL, replace(NO_MODEL, exploration=0.7))):
        a = search(position, Limit(iterations=300), implicit, seed=3)
        b = search(position, Limit(iterations=300), explicit, seed=3)
        assert (a.best_action, a.win_probability) == (b.best_action, b.win_probability)
        assert implicit.tree_key() == explicit.tree_key()
    low = search(position, Limit(iterations=300), SearchSettings(exploration=0.1), seed=3)
    high = search(position, Limit(iterations=300), SearchSettings(exploration=0.7), seed=3)
    assert [c.visits for c in low.candidates] != [c.visits for c in high.candidates]


def test_the_default_expansion_follows_what_chooses_the_actions_tried():
    """With the model's prior a node tries few actions, each the best of 32; with
    the one-step value the best of 4 and more of them. An explicit setting is kept,
    and the default searches as its values spelled out do."""
    assert SearchSettings().expansion == (32, 0.75)
    assert NO_MODEL.expansion == (4, 3.0)
    assert SearchSettings(prior="greedy").expansion == (4, 3.0)
    assert SearchSettings(expand_samples=8, widen_inner=0.0).expansion == (8, 0.0)
    spec = parse_bot("mcts:expand_samples=12,widen_inner=1").settings
    assert (spec.expand_samples, spec.widen_inner, spec.expansion) == (12, 1.0, (12, 1.0))
    for bad in ({"expand_samples": 0}, {"expand_samples": 65}, {"widen_inner": -0.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SearchSettings(**bad)
    position = played(2, 5, 6)
    for implicit, explicit in ((SearchSettings(), SearchSettings(expand_samples=32, widen_inner=0.75)),
                               (NO_MODEL, replace(NO_MODEL, expand_samples=4, widen_inner=3.0))):
        a = search(position, Limit(iterations=400), implicit, seed=3)
        b = search(position, Limit(iterations=400), explicit, seed=3)
        assert [(c.action, c.visits) for c in a.candidates] == [(c.action, c.visits) for c in b.candidates]
        assert implicit.tree_key() == explicit.tree_key()
    old = search(position, Limit(iterations=400), SearchSettings(expand_samples=4, widen_inner=3.0), seed=3)
    new = search(position, Limit(iterations=400), SearchSettings(), seed=3)
    assert [c.visits for c in old.candidates] != [c.visits for c in new.candidates]


@pytest.mark.parametrize("players, weight", [(2, 0.3), (3, 1.0), (4, 1.0)])
def test_the_default_margin_weight_follows_the_number_of_players(players, weight):
    """0.3 with two players, 1 with more; an explicit weight is kept whatever the
    players, the search without the model keeps 1, and a search with the default
    gives the same answer and values as with its weight spelled out."""
    assert SearchSettings().margin_weight_for(players) == weight
    assert SearchSettings(margin_weight=0.5).margin_weight_for(players) == 0.5
    assert NO_MODEL.margin_weight_for(players) == 1.0
    assert parse_bot("mcts:margin_weight=0.7").settings.margin_weight == 0.7
    with pytest.raises(ValueError, match="margin_weight"):
        SearchSettings(margin_weight=-0.1)
    position = played(players, 5, 6)

    def answer(settings):
        r = search(position, Limit(iterations=300), settings, seed=3)
        return [(c.action, c.visits, c.mean_value) for c in r.candidates]

    assert answer(SearchSettings()) == answer(SearchSettings(margin_weight=weight))
    assert answer(SearchSettings()) != answer(SearchSettings(margin_weight=0.65 if weight == 0.3 else 0.3))


def test_greedy_beats_random():
    summary = arena_run(["greedy", "random"], players=2, games=8, processes=1, progress=False)
    assert summary["bots"][0]["win_rate"] >= 0.75


def test_bot_specs_parse_and_bad_ones_are_refused():
    assert parse_bot("greedy").spec == "greedy"
    bot = parse_bot("mcts:iterations=1000,exploration=0.5,playout=random")
    assert isinstance(bot, MCTSBot)
    assert (bot.limit.iterations, bot.settings.exploration, bot.settings.playout) == (1000, 0.5, "random")
    assert parse_bot("flat:iterations=10").settings.algorithm == "flat"
    assert parse_bot("level:strong").spec == "level:strong"
    assert parse_bot("casual").spec == "level:casual"
    for bad in ("mcts:iterations=x", "mcts:bogus=1", "level:godlike", "chess", "greedy:x=1",
                "mcts:playout=psychic"):
        with pytest.raises(ValueError):
            parse_bot(bad)


def test_levels_are_named_and_weakest_first():
    """The four first names keep working and keep their order; the weak levels
    search without the model, the strong ones with it and more iterations."""
    names = list(LEVELS)
    assert len(names) >= 6 and names[0] == "beginner" and names[-1] == "max"
    assert [n for n in names if n in ("beginner", "casual", "strong", "max")] == ["beginner", "casual", "strong", "max"]
    bots = [parse_bot(f"level:{name}") for name in names]
    free = [b for b in bots if b.settings.value == 0]
    assert free == bots[:len(free)] and 0 < len(free) < len(bots)
    for group in (free, bots[len(free):]):
        budgets = [b.limit.iterations for b in group]
        assert budgets == sorted(budgets)


def test_the_arena_rotates_seats_and_writes_records(tmp_path):
    summary = arena_run(["greedy", "random", "random"], players=3, games=3, processes=1,
                        records=str(tmp_path), progress=False)
    assert summary["games"] == 3
    assert sum(b["win_rate"] for b in summary["bots"]) == pytest.approx(1.0)
    for b in summary["bots"]:
        assert b["ci95"][0] <= b["win_rate"] <= b["ci95"][1]
    files = sorted(tmp_path.iterdir())
    assert len(files) == 3
    for f in files:
        record = json.loads(f.read_text())
        assert record["format"] == "cacao-record/1"
        Position.from_record(record)                  # replays to its result
    firsts = {json.loads(f.read_text())["first_player"] for f in files}
    assert len(firsts) == 1                           # one deal, three seatings


def test_the_wilson_interval_matches_known_values():
    lo, hi = wilson(75, 100)
    assert lo == pytest.approx(0.6569, abs=1e-3) and hi == pytest.approx(0.8245, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0


@pytest.mark.parametrize("threads", [1, 2])
def test_a_paused_search_goes_on_where_it_was_and_answers_the_same(threads):
    """A scheduler pauses a search to give the cores to more urgent work: the
    trees stop at once, on_pause runs, and the answer is the one of the same
    search never paused."""
    position = played(2, 4, 3)
    limit = Limit(iterations=4000, threads=threads)
    pause = StopFlag()
    seen: list[int] = []

    def on_report(result):
        if len(seen) < 3:
            pause.set()      # as a scheduler would, from any thread

    def on_pause():
        seen.append(1)
        pause.clear()

    plain = search(position, limit, seed=9)
    paused = search(position, limit, seed=9,
                    run=Run(on_report=on_report, report_every_iterations=700, pause=pause, on_pause=on_pause))
    assert len(seen) == 3 and comparable(paused) == comparable(plain)
    with pytest.raises(ValueError, match="pause and on_pause"):
        search(position, limit, seed=9, run=Run(pause=pause))


def test_a_time_budget_stops_its_trees_early_by_a_high_quantile_of_the_measured_finishes():
    """The trees of a timed search stop the search's finishing time (report,
    trees kept) before the budget ends, so the answer is ready at its end."""
    times = FinishTimes(keep=8, quantile=0.75, first_s=0.001, max_share=0.2)
    assert times.reserve((2, 1, 1), 0.05) == 0.001  # nothing measured yet
    for ms in (1, 2, 3, 4, 5, 6, 7, 8, 30, 40):  # only the last 8 count
        times.add((2, 1, 1), ms / 1000)
    assert times.reserve((2, 1, 1), 1.0) == 0.030  # the 75th percentile of 3..8, 30 and 40 ms
    assert times.reserve((2, 1, 1), 0.02) == pytest.approx(0.004)  # at most a fifth of the budget
    assert times.reserve((4, 1, 1), 1.0) == 0.001  # kept per kind of search
    # the caller's own time after the search (a server's reply) is reserved too, within the cap
    assert times.reserve((2, 1, 1), 1.0, 0.002) == pytest.approx(0.032)
    assert times.reserve((2, 1, 1), 0.05, 0.002) == pytest.approx(0.01)
    assert times.expected((2, 1, 1)) == 0.030


def test_a_callers_answer_time_stops_the_trees_that_much_earlier():
    """A budget whose answer time is all of it (what the caller needs after the
    search, past the cap of a fifth) leaves the trees a fifth less; the
    answer time is checked."""
    position = Position.new(2, 5)
    seen = []
    original = driver._run

    def spy(trees, limit, run, start, on_report_due=None, reserve=0.0):
        seen.append(reserve)
        return original(trees, limit, run, start, on_report_due, reserve)

    driver._run = spy
    try:
        search(position, Limit(time_s=0.05, iterations=20), seed=1, run=Run(answer_s=0.003))
        search(position, Limit(time_s=0.05, iterations=20), seed=1)
    finally:
        driver._run = original
    assert seen[0] == pytest.approx(seen[1] + 0.003) or seen[0] == pytest.approx(0.05 * FINISHING.max_share)
    for bad in (-0.001, float("inf"), True, "1"):
        with pytest.raises(ValueError, match="answer_s"):
            Run(answer_s=bad)


def test_only_searches_that_ran_to_their_time_teach_the_finishing_reserve():
    """A search its iterations ended never used the reserve, and its small
    tree finishes at once: its finishing time would cut the reserve of the
    searches of the same kind that run to their time short, and they would
    end late."""
    position = Position.new(players=3, seed=17)
    key = (3, 3, 1)
    before = list(FINISHING._times.get(key, ()))
    search(position, Limit(iterations=5), seed=1, question=Question(multipv=3))
    assert list(FINISHING._times.get(key, ())) == before
    search(position, Limit(time_s=60.0, iterations=5), seed=1, question=Question(multipv=3))
    assert list(FINISHING._times.get(key, ())) == before  # timed, but its iterations ended it
    search(position, Limit(time_s=0.001), seed=1, question=Question(multipv=3))
    assert len(FINISHING._times[key]) == min(len(before) + 1, FINISHING.keep)
