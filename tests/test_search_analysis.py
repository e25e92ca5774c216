"""The search's analysis figures: per-candidate expected gold, prior, lcb,
order and principal variations (MultiPV), the root info, and the allow/avoid
restriction of the root's actions.

Runs against the installed package; budgets are small so the file stays fast.
"""

import random
from dataclasses import replace

import pytest

from cacaoai.engine import Position
from cacaoai.search import NO_MODEL, Limit, Question, Run, SearchSettings, StopFlag, search
from cacaoai.search._mcts import Tree, action_values, principal_codes, run_trees

# the search without the learned model, whose root priors come from the greedy
# one-step values


def played(players, seed, plies, choices=1):
    """A position after `plies` random actions of a seeded game, and then
    more until there are at least `choices` legal actions."""
    position = Position.new(players, seed)
    rng = random.Random(seed)
    for _ in range(plies):
        position.apply(rng.choice(position.legal_actions()))
    while len(position.legal_codes()) < choices:
        position.apply(rng.choice(position.legal_actions()))
    return position


# --- per-candidate figures and the root info ---------------------------------------------


def test_every_candidate_carries_its_figures_and_the_first_ones_a_line():
    position = played(2, 5, 6)
    result = search(position, Limit(iterations=1500), seed=3, question=Question(multipv=3))
    to_act = position.to_act
    assert len(result.candidates) > 3
    for k, c in enumerate(result.candidates):
        assert c.order == k and c.visits > 0
        assert 0.0 <= c.lcb <= c.win_probability <= 1.0
        assert 0.0 < c.prior <= 1.0
        assert 0.0 <= c.expected_gold <= 200.0
        if k < 3:
            assert c.principal_variation[0] == c.action
        else:
            assert c.principal_variation == ()
    assert result.candidates[0].action == result.best_action
    assert result.candidates[0].principal_variation == result.principal_variation
    # a fresh tree counts every iteration in the gold of the child it went through
    total = sum(c.visits for c in result.candidates)
    root = result.root
    assert root.visits == result.iterations == total == 1500 and root.reused_visits == 0
    assert root.expected_gold == pytest.approx(
        sum(c.expected_gold * c.visits for c in result.candidates) / total)
    assert root.expected_gold == pytest.approx(result.expected_gold[to_act])
    assert root.win_probability == pytest.approx(result.win_probability[to_act])
    assert root.score_lead == pytest.approx(result.score_lead[to_act])


def test_the_lcb_is_below_the_win_rate_and_tightens_with_visits():
    position = played(2, 8, 4)
    result = search(position, Limit(iterations=1200), seed=1)
    for c in result.candidates:
        assert c.lcb < c.win_probability or c.win_probability == 0.0
    mixed = [c for c in result.candidates if 0.0 < c.win_probability < 1.0]
    many = max(mixed, key=lambda c: c.visits)
    few = min(mixed, key=lambda c: c.visits)
    assert many.visits > 4 * few.visits
    assert many.win_probability - many.lcb < few.win_probability - few.lcb


def test_priors_are_a_softmax_of_one_step_values_summing_to_one():
    position = Position.new(players=2, seed=11)
    # 2,000 iterations widen the root to all its ~30 actions, so every prior shows
    result = search(position, Limit(iterations=2000), NO_MODEL, seed=1, question=Question(multipv=0))
    codes = position.legal_codes()
    assert len(result.candidates) == len(codes)
    assert sum(c.prior for c in result.candidates) == pytest.approx(1.0)
    values = dict(zip(codes, action_values(position.core, codes, position.to_act, blind=True)))
    by_value = sorted(result.candidates, key=lambda c: values[position.encode(c.action)])
    priors = [c.prior for c in by_value]
    assert priors == sorted(priors)                   # a better value never has a smaller prior
    best, worst = by_value[-1], by_value[0]
    gap = values[position.encode(best.action)] - values[position.encode(worst.action)]
    assert best.prior / worst.prior == pytest.approx(2.718281828459045 ** gap)


def test_without_widening_the_priors_are_uniform():
    position = Position.new(players=2, seed=12)
    result = search(position, Limit(iterations=300), replace(NO_MODEL, widen=0), seed=1)
    n = len(position.legal_codes())
    assert {round(c.prior * n, 9) for c in result.candidates} == {1.0}


def test_multipv_zero_gives_no_candidate_a_line_but_the_result_keeps_its_own():
    position = played(2, 9, 2)
    result = search(position, Limit(iterations=500), seed=2, question=Question(multipv=0))
    assert all(c.principal_variation == () for c in result.candidates)
    assert result.principal_variation[0] == result.best_action
    with pytest.raises(ValueError, match="^multipv: "):
        search(position, Limit(iterations=10), seed=2, question=Question(multipv=-1))


def test_a_candidate_limit_keeps_the_best_ones_and_changes_nothing_else():
    position = played(2, 5, 6)
    full = search(position, Limit(iterations=800), seed=4, question=Question(multipv=2))
    few = search(position, Limit(iterations=800), seed=4, question=Question(multipv=2, candidates=3))
    assert len(full.candidates) > 3 and few.candidates == full.candidates[:3]
    assert replace(few, candidates=(), elapsed_s=0.0, iterations_per_second=0.0) == replace(
        full, candidates=(), elapsed_s=0.0, iterations_per_second=0.0)
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match="^candidates: "):
            Question(candidates=bad)


@pytest.mark.parametrize("threads", [1, 3])
def test_the_compiled_principal_variation_walks_the_trees_as_the_python_one_did(threads):
    """principal_codes against the walk it replaced: at each node the child
    with the most visits summed over the trees, the lower code on a tie."""
    def reference(trees, first, plies, min_visits):
        codes = [first]
        while len(codes) < plies:
            merged = {}
            for tree in trees:
                for code, _seat, visits, *_ in tree.children(codes):
                    merged[code] = merged.get(code, 0) + visits
            if not merged:
                break
            code = max(merged, key=lambda c: (merged[c], -c))
            if merged[code] < min_visits:
                break
            codes.append(code)
        return codes

    lengths = []
    for seed in range(4):
        position = played(2 + seed % 3, 20 + seed, 3 * seed)
        trees = [Tree() for _ in range(threads)]
        for k, tree in enumerate(trees):
            tree.reset(position.core, observer=position.to_act, known_hands=0, seed=seed * 10 + k,
                       settings=NO_MODEL)
        run_trees(trees, [600] * threads)
        for first, *_ in trees[0].root_children():
            for plies, min_visits in ((1, 1), (4, 2), (12, 1), (12, 5)):
                codes = principal_codes(trees, first, plies, min_visits)
                assert codes == reference(trees, first, plies, min_visits)
                lengths.append(len(codes))
    assert max(lengths) > 4  # some lines went deep


def test_the_chosen_action_comes_first_even_when_sampled():
    position = played(2, 10, 4)
    limits = Limit(iterations=300), SearchSettings(temperature=1.0, floor=0.0)
    for seed in range(12):
        result = search(position, *limits, seed=seed, question=Question(multipv=1))
        assert result.candidates[0].action == result.best_action
        assert [c.order for c in result.candidates] == list(range(len(result.candidates)))
        rest = [c.visits for c in result.candidates[1:]]
        assert rest == sorted(rest, reverse=True)


def test_a_seat_not_to_act_gets_figures_without_priors():
    position = played(3, 40, 4)
    seat = (position.to_act + 1) % 3
    result = search(position, Limit(iterations=300), seed=4, question=Question(seat=seat))
    assert result.candidates and all(c.prior is None for c in result.candidates)
    assert all(c.expected_gold is not None for c in result.candidates)
    assert result.root.visits == 300


# --- allow / avoid ----------------------------------------------------------------------


def test_allow_keeps_the_search_within_the_allowed_actions():
    for seed in range(16):
        position = played(2, 100 + seed, seed % 7, choices=5)
        legal = position.legal_actions()
        allowed = random.Random(seed).sample(legal, 3)
        threads = 1 + seed % 2
        result = search(position, Limit(iterations=200, threads=threads), seed=seed, question=Question(allow=allowed))
        assert result.best_action in allowed
        assert {c.action for c in result.candidates} <= set(allowed)
        assert abs(sum(c.prior for c in result.candidates) - 1.0) < 1e-9 or len(result.candidates) < 3


def test_avoid_keeps_the_search_off_the_avoided_actions():
    for seed in range(16):
        position = played(2, 200 + seed, seed % 5, choices=4)
        plain = search(position, Limit(iterations=200), seed=seed)
        avoided = [c.action for c in plain.candidates[:2]]
        result = search(position, Limit(iterations=200), seed=seed, question=Question(avoid=avoided))
        assert result.best_action not in avoided
        assert not {c.action for c in result.candidates} & set(avoided)
        assert result.root.visits == 200


def test_sampling_and_the_fallback_stay_within_the_restriction():
    position = played(2, 31, 3)
    legal = position.legal_actions()
    allowed = legal[-4:]
    sampling = Limit(iterations=100), SearchSettings(temperature=2.0, floor=0.0)
    for seed in range(20):
        assert search(position, *sampling, seed=seed, question=Question(allow=allowed)).best_action in allowed
    stop = StopFlag()
    stop.set()                                          # no iteration runs: the greedy fallback
    for seed in range(5):
        result = search(position, Limit(iterations=100), seed=seed,
                        question=Question(allow=allowed),
                        run=Run(stop=stop))
        assert result.iterations == 0 and result.best_action in allowed
        result = search(position, Limit(iterations=100), seed=seed,
                        question=Question(avoid=legal[:-1]),
                        run=Run(stop=stop))
        assert result.best_action == legal[-1] and result.stopped_by == "single-action"


def test_one_action_left_answers_like_a_single_legal_action():
    position = played(2, 3, 2)
    legal = position.legal_actions()
    result = search(position, Limit(iterations=10**9), seed=1, question=Question(allow=[legal[5]]))
    assert result.best_action == legal[5] and result.stopped_by == "single-action"
    assert result.iterations == 0 and result.candidates[0].prior == 1.0


def test_a_restriction_is_deterministic():
    position = played(2, 14, 5)
    avoid = position.legal_actions()[:4]
    a = search(position, Limit(iterations=300), seed=7, question=Question(avoid=avoid))
    b = search(position, Limit(iterations=300), seed=7, question=Question(avoid=avoid))
    assert a.candidates == b.candidates and a.best_action == b.best_action


def test_bad_restrictions_are_refused_naming_the_field():
    position = played(2, 4, 2)
    legal = position.legal_actions()
    foreign = replace(legal[0], x=20, y=20)           # far from every tile
    assert foreign not in legal
    limits = Limit(iterations=50)
    with pytest.raises(ValueError, match=r"^allow\[1\]: .* is not legal here"):
        search(position, limits, seed=1, question=Question(allow=[legal[0], foreign]))
    with pytest.raises(ValueError, match=r"^avoid\[0\]: .* is not legal here"):
        search(position, limits, seed=1, question=Question(avoid=[foreign]))
    with pytest.raises(ValueError, match="^avoid: "):
        search(position, limits, seed=1, question=Question(avoid=legal))
    with pytest.raises(ValueError, match="^avoid: "):
        search(position, limits, seed=1, question=Question(allow=legal[:2], avoid=legal[:2]))
    with pytest.raises(ValueError, match="^allow: "):
        search(position, limits, seed=1, question=Question(seat=1 - position.to_act, allow=legal[:2]))
    with pytest.raises(ValueError, match="^avoid: "):
        search(position, limits, seed=1, question=Question(seat=1 - position.to_act, avoid=legal[:2]))
    # with the seat to act's hand known, the root's actions are known
    result = search(position, limits, seed=1,
                    question=Question(seat=1 - position.to_act, known_hands=[position.to_act], allow=legal[:2]))
    assert result.best_action in legal[:2]
