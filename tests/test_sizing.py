"""cacao-size: the fleet simulation against queueing theory, and the plans it gives."""

from __future__ import annotations

import math

import pytest

from cacaoai.deploy import sizing


def erlang_c(slots: int, offered: float) -> float:
    """The probability that a call waits in an M/M/c queue (Erlang C)."""
    top = offered ** slots / math.factorial(slots) * slots / (slots - offered)
    return top / (sum(offered ** k / math.factorial(k) for k in range(slots)) + top)


@pytest.mark.parametrize("slots,rate", [(1, 0.7), (3, 2.0), (6, 4.5)])
def test_the_simulation_of_random_budgets_waits_as_erlang_c_says(slots, rate):
    """With exponential service times the simulated queue is M/M/c, whose
    wait beyond t has probability C·exp(-(c·μ - λ)·t)."""
    quantile = 1.0 - erlang_c(slots, rate) / 4  # a quarter of the calls that wait
    expected = math.log(4.0) / (slots - rate)  # μ = 1
    simulated = sizing.wait_quantile(1, slots, rate, 1.0, quantile, calls=100_000, exponential=True)
    assert simulated == pytest.approx(expected, rel=0.15)


def test_fixed_budgets_wait_less_than_random_ones():
    fixed = sizing.wait_quantile(1, 2, 1.5, 1.0)
    random_ = sizing.wait_quantile(1, 2, 1.5, 1.0, exponential=True)
    assert 0 < fixed < random_


def test_replicas_wait_at_least_as_long_as_one_pool_of_their_slots():
    """A call waits for a slot of its own replica. With every search as long
    as the next, round robin gives call i the slot call i - 8 held, as one
    pool of 8 slots would; least_conn may send it where calls end later."""
    pooled = sizing.wait_quantile(1, 8, 5.6, 1.0)
    assert sizing.wait_quantile(4, 2, 5.6, 1.0, balance="round_robin") == pooled
    assert sizing.wait_quantile(4, 2, 5.6, 1.0, balance="least_conn") > pooled


def test_slots_that_cannot_keep_up_wait_forever():
    assert sizing.wait_quantile(2, 2, 4.0, 1.0) == math.inf
    with pytest.raises(ValueError, match="rate: must be finite and not negative"):
        sizing.wait_quantile(2, 2, -1.0, 1.0)


def test_a_plan_is_the_fewest_replicas_that_meet_the_wait():
    plan = sizing.plan(13.3, 0.5, 0.05, cores_per_replica=2)
    assert plan.wait_p99_s <= 0.05
    fewer = sizing.wait_quantile(plan.replicas - 1, 2, 13.3, 0.5)
    assert fewer > 0.05 or 13.3 * 0.5 > sizing.MAX_BUSY * 2 * (plan.replicas - 1)
    assert plan.slots == 2 * plan.replicas
    assert plan.latency_p99_s == pytest.approx((plan.wait_p99_s + 0.5 + sizing.ANSWER_P99_S,))
    assert sizing.plan(13.3, 0.5, 0.05, cores_per_replica=2) == plan  # seeded: the same plan


def test_quick_calls_alone_can_ask_for_replicas():
    """A replica's quick calls share one event loop: a plan keeps each at
    LOOP_SHARE of it whatever its cores."""
    plan = sizing.plan(1.0, 0.001, 0.0, quick_per_s=5_000, cores_per_replica=8)
    assert plan.replicas == math.ceil(5_000 * sizing.QUICK_CALL_CPU_S / sizing.LOOP_SHARE)
    assert plan.loop_share <= sizing.LOOP_SHARE


def test_plan_names_the_argument_out_of_range():
    with pytest.raises(ValueError, match="budgets: a budget must be positive"):
        sizing.plan(1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="budgets: a weight"):
        sizing.plan(1.0, [(0.05, -1.0)], 0.1)
    with pytest.raises(ValueError, match="balance"):
        sizing.plan(1.0, 0.1, 0.1, balance="random")
    with pytest.raises(ValueError, match="beyond this tool"):
        sizing.plan(1e9, 50.0, 0.1)


def test_cacao_size_prints_a_plan(capsys):
    assert sizing.main(["--games", "200", "--moves-per-minute", "4", "--budget-ms", "500"]) == 0
    out = capsys.readouterr().out
    assert "13.3 suggestions/s at 500 ms" in out
    assert "behind least_conn" in out
    assert "a suggestion's p99 latency" in out


def test_a_mix_of_budgets_holds_the_slots_for_its_mean_budget():
    """One budget given as a mix is that budget; 50 ms and 500 ms at 3:1
    keep the slots busy as a 162.5 ms one would, and least_conn, which
    steers calls away from a replica held by long searches, needs no more
    replicas than round robin."""
    assert sizing.wait_quantile(2, 2, 30.0, [(0.05, 1.0)]) == sizing.wait_quantile(2, 2, 30.0, 0.05)
    mix = [(0.05, 3.0), (0.5, 1.0)]
    least = sizing.plan(13.3, mix, 0.05)
    turns = sizing.plan(13.3, mix, 0.05, balance="round_robin")
    assert least.busy_slots == pytest.approx(13.3 * 0.1625)
    assert least.budgets == ((0.05, 0.75), (0.5, 0.25))
    assert least.replicas <= turns.replicas
    assert least.latency_p99_s[1] - least.latency_p99_s[0] == pytest.approx(0.45)


@pytest.mark.parametrize("argv,flag", [
    (["--games", "10", "--budget-ms", "0"], "--budget-ms"),
    (["--games", "10", "--budget-ms", "50:inf"], "--budget-ms"),
    (["--games", "10", "--budget-ms", "50:x"], "--budget-ms"),
    (["--games", "-1", "--budget-ms", "50"], "--games"),
    (["--games", "inf", "--budget-ms", "50"], "--games"),
    (["--suggestions-per-s", "nan", "--budget-ms", "50"], "--suggestions-per-s"),
    (["--games", "10", "--budget-ms", "50", "--cores-per-replica", "0"], "--cores-per-replica"),
])
def test_cacao_size_names_the_flag_at_fault(argv, flag, capsys):
    with pytest.raises(SystemExit) as exit_:
        sizing.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {flag}: must" in err or f"error: argument {flag}: " in err, err
