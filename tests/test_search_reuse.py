"""Tree reuse: a TreeCache keeps search trees keyed by the searching seat's
observation, and a later search of a position reached from a kept one
continues the tree (re-rooted in C), pondering included.

Runs against the installed package; budgets are small so the file stays fast.
"""

import random
import threading

import pytest
from test_search import comparable, played  # a result without its timing fields; a seeded position

from cacaoai.engine import Position
from cacaoai.lab.arena import run as arena_run
from cacaoai.search import Limit, Question, Reuse, SearchSettings, TreeCache, search
from cacaoai.search.bots import parse_bot

LIMITS = Limit(iterations=400)
BIG = 1 << 30


def test_a_repeated_search_continues_its_tree():
    position = played(2, 1, 3)
    cache = TreeCache(BIG)
    first = search(position, LIMITS, seed=1, reuse=Reuse(cache))
    assert first.root.reused_visits == 0
    assert cache.stats() == {"trees": 1, "bytes": cache.stats()["bytes"], "max_bytes": BIG,
                             "hits": 0, "misses": 1}
    second = search(position, LIMITS, seed=2, reuse=Reuse(cache))
    assert second.iterations == 400                       # the budget counts new iterations
    assert second.root.reused_visits == 400 and second.root.visits == 800
    assert sum(c.visits for c in second.candidates) == 800
    assert cache.stats()["hits"] == 1 and cache.stats()["trees"] == 1
    third = search(position, LIMITS, seed=3, reuse=Reuse(cache))
    assert third.root.reused_visits == 800 and third.root.visits == 1200


def test_without_a_hit_the_result_is_the_one_without_a_cache():
    position = played(2, 2, 4)
    plain = search(position, LIMITS, seed=5)
    cached = search(position, LIMITS, seed=5, reuse=Reuse(TreeCache(BIG)))
    assert comparable(plain) == comparable(cached)


def test_the_same_cache_state_gives_the_same_result():
    position = played(2, 3, 4)
    results = []
    for _ in range(2):
        cache = TreeCache(BIG)
        search(position, LIMITS, seed=1, reuse=Reuse(cache))
        results.append(comparable(search(position, LIMITS, seed=2, reuse=Reuse(cache))))
    assert results[0] == results[1]


def test_a_different_observation_or_setting_misses():
    cache = TreeCache(BIG)
    position = played(2, 4, 4)
    search(position, LIMITS, seed=1, reuse=Reuse(cache))
    assert search(played(2, 4, 5), LIMITS, seed=1, reuse=Reuse(cache)).root.reused_visits == 0
    other = Limit(iterations=400), SearchSettings(exploration=0.5)
    assert search(position, *other, seed=1, reuse=Reuse(cache)).root.reused_visits == 0
    seat = 1 - position.to_act            # another observer of the same position
    assert search(position, LIMITS, seed=1, question=Question(seat=seat), reuse=Reuse(cache)).root.reused_visits == 0
    assert cache.stats()["misses"] == 4 and cache.stats()["hits"] == 0


def test_positions_that_differ_only_in_hidden_facts_share_their_trees():
    original = played(2, 30, 7)
    seat = original.to_act
    other = next(p for p in (Position.from_observation(original.observation(seat), seed=k)
                             for k in range(50)) if p.snapshot() != original.snapshot())
    a, b = TreeCache(BIG), TreeCache(BIG)
    search(original, LIMITS, seed=1, reuse=Reuse(a))
    search(original, LIMITS, seed=1, reuse=Reuse(b))
    # the same kept tree continued from either complete position: the same answer
    ra = search(original, LIMITS, seed=2, reuse=Reuse(a))
    rb = search(other, LIMITS, seed=2, reuse=Reuse(b))
    assert ra.root.reused_visits == rb.root.reused_visits == 400
    assert comparable(ra) == comparable(rb)


def test_a_kept_tree_continues_after_the_actions_played_since():
    position = played(2, 6, 4)
    me = position.to_act
    cache = TreeCache(BIG)
    history = []
    # without inner widening: with it, the node under the opponent's reply
    # has tried so few of its actions here that none survives the re-root
    # (children that fill from the display are dropped after a draw)
    narrow = Limit(iterations=400), SearchSettings(widen_inner=0)
    mine = search(position, Limit(iterations=3000), SearchSettings(widen_inner=0), seed=1, reuse=Reuse(cache))
    history.append((position.clone(), mine.best_action))
    position.apply(mine.best_action)
    line = list(mine.principal_variation[1:])
    while position.to_act != me:      # the opponent answers with the line the tree expects
        legal = position.legal_actions()
        if line and line[0] in legal:
            action = line.pop(0)
        else:
            action, line = legal[0], []
        history.append((position.clone(), action))
        position.apply(action)
    again = search(position, *narrow, seed=2, reuse=Reuse(cache, history=history))
    assert again.root.reused_visits > 0
    legal = set(position.legal_actions())
    assert again.best_action in legal and {c.action for c in again.candidates} <= legal
    assert again.root.visits == again.root.reused_visits + 400


def test_pondering_on_the_opponents_turn_is_continued_on_mine():
    hits = 0
    for seed in range(6):
        position = played(2, 50 + seed, 5)
        while position.phase != "turn":
            position.apply(position.legal_actions()[0])
        me = 1 - position.to_act
        cache = TreeCache(BIG)
        ponder = search(position, Limit(iterations=1500), seed=seed, question=Question(seat=me), reuse=Reuse(cache))
        assert ponder.seat == me and all(c.prior is None for c in ponder.candidates)
        # the opponent plays what my tree looked at most, among its real options
        legal = position.legal_actions()
        action = next((c.action for c in ponder.candidates if c.action in legal), legal[0])
        history = [(position.clone(), action)]
        position.apply(action)
        while position.to_act != me and not position.is_over:
            history.append((position.clone(), position.legal_actions()[0]))
            position.apply(history[-1][1])
        mine = search(position, LIMITS, seed=seed, reuse=Reuse(cache, history=history))
        legal = set(position.legal_actions())
        assert mine.best_action in legal and {c.action for c in mine.candidates} <= legal
        hits += mine.root.reused_visits > 0
    assert hits >= 4


def test_a_whole_game_with_reuse_plays_legal_actions_only():
    cache = TreeCache(BIG)
    position = Position.new(2, 8)
    history = []
    reused = 0
    while not position.is_over:
        result = search(position, Limit(iterations=150), seed=len(history), reuse=Reuse(cache, history=history[-16:]))
        legal = set(position.legal_actions())
        assert result.best_action in legal
        assert {c.action for c in result.candidates} <= legal
        reused += result.root.reused_visits if result.root else 0
        history.append((position.clone(), result.best_action))
        position.apply(result.best_action)
    assert reused > 0 and cache.stats()["hits"] > 10


def test_restrictions_apply_to_a_kept_tree():
    position = played(2, 9, 3)
    cache = TreeCache(BIG)
    first = search(position, Limit(iterations=1000), seed=1, reuse=Reuse(cache))
    best = first.best_action
    second = search(position, LIMITS, seed=2, question=Question(avoid=[best]), reuse=Reuse(cache))
    assert second.root.reused_visits > 0
    assert best not in {c.action for c in second.candidates} and second.best_action != best
    # the avoided child's visits left the root with it
    assert second.root.reused_visits == 1000 - first.candidates[0].visits


def test_the_cache_stays_within_its_bytes():
    positions = [played(2, 70 + k, 4) for k in range(6)]
    cache = TreeCache(BIG)
    search(positions[0], LIMITS, seed=1, reuse=Reuse(cache))
    one = cache.stats()["bytes"]
    cache = TreeCache(int(2.5 * one))
    for p in positions:
        search(p, LIMITS, seed=1, reuse=Reuse(cache))
        assert cache.stats()["bytes"] <= cache.stats()["max_bytes"]
    assert cache.stats()["trees"] == 2
    assert search(positions[-1], LIMITS, seed=1, reuse=Reuse(cache)).root.reused_visits == 400
    assert search(positions[0], LIMITS, seed=1, reuse=Reuse(cache)).root.reused_visits == 0
    tiny = TreeCache(one - 1)
    search(positions[0], LIMITS, seed=1, reuse=Reuse(tiny))
    assert tiny.stats()["trees"] == 0 and tiny.stats()["bytes"] == 0
    cache.clear()
    assert cache.stats()["trees"] == 0 and cache.stats()["bytes"] == 0


def test_a_smaller_limit_evicts_the_least_recently_used_trees_and_a_larger_one_keeps_more():
    positions = [played(2, 80 + k, 4) for k in range(3)]
    cache = TreeCache(BIG)
    for p in positions:
        search(p, LIMITS, seed=1, reuse=Reuse(cache))
    one = cache.stats()["bytes"] // 3
    cache.resize(int(1.5 * one))
    assert cache.stats()["trees"] == 1 and cache.stats()["max_bytes"] == int(1.5 * one)
    assert search(positions[2], LIMITS, seed=1, reuse=Reuse(cache)).root.reused_visits == 400  # the newest stays
    cache.resize(BIG)
    search(positions[0], LIMITS, seed=1, reuse=Reuse(cache))
    assert cache.stats()["trees"] == 2
    with pytest.raises(ValueError, match="^max_bytes: "):
        cache.resize(-1)


def test_an_entry_keeps_one_tree_per_thread_and_reuses_those_there_are():
    position = played(2, 11, 4)
    cache = TreeCache(BIG)
    search(position, Limit(iterations=400, threads=2), seed=1, reuse=Reuse(cache))
    assert cache.stats()["trees"] == 2
    three = search(position, Limit(iterations=300, threads=3), seed=1, reuse=Reuse(cache))
    assert three.root.reused_visits == 400 and three.root.visits == 700
    assert cache.stats()["trees"] == 3
    one = search(position, Limit(iterations=100, threads=1), seed=1, reuse=Reuse(cache))
    assert 0 < one.root.reused_visits < 700


def test_two_threads_can_share_a_cache():
    cache = TreeCache(BIG)
    errors = []

    def play(seed):
        try:
            position = Position.new(2, seed)
            history = []
            for _ in range(24):
                result = search(position, Limit(iterations=100), seed=seed, reuse=Reuse(cache, history=history[-16:]))
                assert result.best_action in position.legal_actions()
                history.append((position.clone(), result.best_action))
                position.apply(result.best_action)
        except Exception as exc:       # reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(s,)) for s in (21, 22)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    stats = cache.stats()
    assert stats["hits"] > 10 and stats["hits"] + stats["misses"] <= 48


def test_bad_cache_and_history_arguments_are_refused():
    position = played(2, 12, 2)
    with pytest.raises(ValueError, match="^cache: "):
        search(position, LIMITS, seed=1, reuse=Reuse({}))
    with pytest.raises(ValueError, match=r"^history\[0\]: "):
        search(position, LIMITS, seed=1, reuse=Reuse(TreeCache(BIG), history=[("x", 1)]))
    with pytest.raises(ValueError, match="^max_bytes: "):
        TreeCache(-1)
    before = played(2, 12, 1)
    wrong = next(a for a in position.legal_actions() if a not in before.legal_actions())
    with pytest.raises(ValueError, match=r"^history\[0\]: .* not legal in its position"):
        search(position, LIMITS, seed=1, reuse=Reuse(TreeCache(BIG), history=[(before, wrong)]))


# --- bots and the arena ------------------------------------------------------------------


def test_a_reusing_bot_keeps_its_trees_across_its_moves_and_forgets_them_between_games():
    bot = parse_bot("mcts:iterations=300,reuse=1")
    assert bot.spec == "mcts:iterations=300,reuse=1" and bot.cache is not None
    assert parse_bot("mcts:iterations=300,reuse=0").cache is None
    with pytest.raises(ValueError, match="reuse must be 0 or 1"):
        parse_bot("mcts:reuse=maybe")
    position = Position.new(2, 13)
    history = []
    for ply in range(12):
        action = bot.choose(position, ply, history[-16:])
        assert action in position.legal_actions()
        history.append((position.clone(), action))
        position.apply(action)
    assert bot.stats["reused_visits"] > 0 and bot.cache.stats()["trees"] > 0
    bot.new_game()
    assert bot.cache.stats()["trees"] == 0 and bot.stats["searches"] == 0


def test_the_arena_passes_the_history_and_reports_the_reused_visits():
    summary = arena_run(["mcts:iterations=150,reuse=1", "mcts:iterations=150"], players=2,
                        games=2, processes=1, records=None, progress=False)
    reusing, plain = summary["bots"]
    assert reusing["mean_reused_visits"] > 0 and plain["mean_reused_visits"] == 0
    assert reusing["mean_visits"] > plain["mean_visits"] == 150


def test_a_pondering_bot_thinks_on_the_others_turns_and_continues_on_its_own():
    bot = parse_bot("mcts:iterations=150,ponder=1")
    assert bot.spec == "mcts:iterations=150,ponder=1" and bot.cache is not None
    summary = arena_run(["mcts:iterations=150,ponder=1", "mcts:iterations=150,reuse=1"],
                        players=2, games=2, processes=1, records=None, progress=False)
    pondering, reusing = summary["bots"]
    assert pondering["mean_reused_visits"] > reusing["mean_reused_visits"] > 0


def test_history_may_give_action_codes():
    position = played(2, 14, 3)
    cache = TreeCache(BIG)
    first = search(position, Limit(iterations=1500), seed=1, reuse=Reuse(cache))
    before = position.clone()
    code = position.encode(first.best_action)
    position.apply(first.best_action)
    result = search(position, LIMITS, seed=1,
                    question=Question(seat=before.to_act),
                    reuse=Reuse(cache, history=[(before, code)]))
    assert 0 < result.root.reused_visits <= first.candidates[0].visits


def test_after_jungle_tiles_are_drawn_children_that_fill_from_the_display_start_afresh():
    """Their figures mixed every display the determinizations drew; the
    others keep theirs (drawn or not, a kept root child's visits never grow
    by re-rooting)."""
    checked = 0
    for deal in range(8):
        position = played(2, 80 + deal, 2)
        me = position.to_act
        cache = TreeCache(BIG)
        mine = search(position, Limit(iterations=2000), seed=1, reuse=Reuse(cache))
        history = [(position.clone(), mine.best_action)]
        deck = position.snapshot()["jungle_deck_count"]
        position.apply(mine.best_action)
        if position.snapshot()["jungle_deck_count"] == deck or position.to_act == me:
            continue
        ponder = search(position, Limit(iterations=1), seed=1,
                        question=Question(seat=me),
                        reuse=Reuse(cache, history=history))
        kept = [c for c in ponder.candidates if c.visits > 1]
        assert not [c for c in kept if c.action.fills]
        checked += bool(kept)
    assert checked >= 2


@pytest.mark.parametrize("players, deal, choices", [(2, 43, 3), (3, 43, 3)])
def test_a_seat_pondering_through_a_whole_game_continues_its_trees(players, deal, choices):
    """Seat 0 searches at every ply, on its turns and the others' (with blind
    draws and display refills in between): re-rooted roots only ever offer
    actions of the real position, and most searches continue a kept tree.
    (Deal 43 once re-rooted past a display refill onto codes of a display
    slot that was gone.)"""
    cache = TreeCache(BIG)
    position = Position.new(players, deal)
    history = []
    rng = random.Random(choices)
    continued = searches = 0
    while not position.is_over:
        result = search(position, Limit(iterations=200), seed=len(history),
                        question=Question(seat=0),
                        reuse=Reuse(cache, history=history[-16:]))
        if result.root is not None:
            searches += 1
            continued += result.root.reused_visits > 0
        legal = position.legal_actions()
        if position.to_act == 0:
            assert result.best_action in legal
            assert {c.action for c in result.candidates} <= set(legal)
            action = result.best_action
        else:
            # the others' candidates are actions of some hand they may hold:
            # placements and fills the real board and display allow
            for c in result.candidates:
                assert c.action.seat == position.to_act
            action = rng.choice(legal)
        history.append((position.clone(), action))
        position.apply(action)
    assert continued > searches // 2
