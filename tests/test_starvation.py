"""The starvation guard: when timed searches may run at a low CPU priority."""

from __future__ import annotations

import logging

from cacaoai.server.starvation import StarvationGuard


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_late_low_priority_search_holds_timed_searches_at_reduced_for_a_while(caplog):
    clock = Clock()
    guard = StarvationGuard(clock, late_s=0.02, hold_s=30.0, max_hold_s=100.0)
    guard.observe("idle", late_s=0.005)  # on time: nothing changes
    assert not guard.starved()
    with caplog.at_level(logging.WARNING, logger="cacaoai.server"):
        guard.observe("idle", late_s=0.8)
    assert guard.starved() and guard.holds == 1
    assert "800 ms after its budget" in caplog.text and "30 s" in caplog.text
    clock.now += 29.9
    assert guard.starved()
    clock.now += 0.2
    assert not guard.starved()


def test_the_hold_doubles_while_searches_stay_starved_and_resets_once_one_keeps_its_time():
    clock = Clock()
    guard = StarvationGuard(clock, late_s=0.02, hold_s=30.0, max_hold_s=100.0)
    holds = []
    for late in (1.0, 1.0, 1.0, 1.0):  # late again each time the hold ends
        guard.observe("low", late_s=late)
        start = clock.now
        while guard.starved():
            clock.now += 1.0
        holds.append(clock.now - start)
    assert holds == [30.0, 60.0, 100.0, 100.0]
    guard.observe("idle", late_s=-0.001)  # kept its time
    guard.observe("idle", late_s=1.0)
    start = clock.now
    while guard.starved():
        clock.now += 1.0
    assert clock.now - start == 30.0


def test_searches_at_reduced_or_normal_priority_and_those_ending_during_a_hold_do_not_count():
    clock = Clock()
    guard = StarvationGuard(clock, late_s=0.02, hold_s=30.0)
    for priority in ("reduced", "normal"):
        guard.observe(priority, late_s=5.0)
    assert not guard.starved()
    guard.observe("idle", late_s=1.0)
    clock.now += 10
    guard.observe("idle", late_s=1.0)  # ran when the hold began: the same starvation
    assert guard.holds == 1
    clock.now += 21
    assert not guard.starved()
