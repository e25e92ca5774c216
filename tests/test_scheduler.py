"""The search scheduler and the memory budget on their own: no server, no
search, a clock the tests move by hand.

Tickets are submitted (which never blocks) and released by the test; what
blocks (a wait for a slot, a paused search's wait) runs on a thread the test
joins, woken by the scheduler itself (``poke`` after the clock moved, a
release), never by a sleep.
"""

from __future__ import annotations

import threading

import grpc
import pytest
from support import GUARD_S

from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.search import StopFlag
from cacaoai.server import errors
from cacaoai.server.memory import (
    BYTES_PER_NODE,
    MAX_TREE_NODES,
    MIN_TREE_NODES,
    MemoryBudget,
    Need,
    pod_memory_mib,
    step_down,
    step_up,
    tree_bytes,
)
from cacaoai.server.options import ServerOptions, parse_args
from cacaoai.server.scheduler import (
    BACKGROUND,
    FINISHING,
    INTERACTIVE,
    PAUSED,
    QUEUED,
    REFUSED,
    RUNNING,
    Request,
    SearchScheduler,
)

MIB = 2**20


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def scheduler(clock: Clock, slots: int = 1, **kwargs) -> SearchScheduler:
    return SearchScheduler(slots, clock=clock, **kwargs)


def refusal(call, *args) -> errors.ApiError:
    with pytest.raises(errors.ApiError) as caught:
        call(*args)
    assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    return caught.value


def in_thread(work) -> tuple[threading.Thread, list]:
    """Runs ``work()`` on a thread; its outcome lands in the list (value or exception)."""
    outcome: list = []

    def body() -> None:
        try:
            outcome.append(work())
        except Exception as error:  # noqa: BLE001 - the test looks at it
            outcome.append(error)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, outcome


# --- order -------------------------------------------------------------------------

def test_interactive_searches_start_before_background_ones_each_in_arrival_order(clock):
    gate = scheduler(clock)
    holder = gate.submit(Request("a", INTERACTIVE, expected_s=1.0))
    waiting = [gate.submit(Request(c, klass, expected_s=1.0))
               for c, klass in (("b", BACKGROUND), ("c", INTERACTIVE), ("d", BACKGROUND),
                                ("e", INTERACTIVE))]
    assert holder.state == RUNNING and [t.state for t in waiting] == [QUEUED] * 4
    assert (gate.queued(INTERACTIVE), gate.queued(BACKGROUND)) == (2, 2)
    started = []
    current = holder
    for _ in waiting:
        gate.release(current)
        (current,) = [t for t in waiting if t.state == RUNNING]
        started.append(current.request.client)
    assert started == ["c", "e", "b", "d"]


def test_a_search_that_can_start_starts_at_once_and_its_wait_is_zero(clock):
    gate = scheduler(clock, slots=2)
    first, second = gate.submit(Request("a")), gate.submit(Request("b", BACKGROUND))
    assert first.state == second.state == RUNNING and gate.running == 2
    assert first.queued_s == 0.0


def test_a_waiting_search_starts_when_a_slot_frees_and_knows_how_long_it_waited(clock):
    gate = scheduler(clock)
    holder = gate.submit(Request("a", expected_s=5.0))
    waiting = gate.submit(Request("b", expected_s=0.1, reply_by=clock.now + 60))
    thread, outcome = in_thread(lambda: gate.wait(waiting))
    clock.now += 2.5
    gate.release(holder)
    thread.join(GUARD_S)
    assert outcome == [None] and waiting.state == RUNNING and waiting.queued_s == 2.5


def test_a_waiters_own_look_wakes_the_others_only_when_a_search_moved(clock):
    # every waiter looks again each poll; were each look to wake all the
    # others, they would wake one another without end, holding the GIL
    gate = scheduler(clock)
    gate.submit(Request("a", expected_s=5.0))
    gate.submit(Request("b", expected_s=0.1, reply_by=clock.now + 60))
    stop = StopFlag()
    stopped = gate.submit(Request("c", expected_s=0.1, reply_by=clock.now + 60, stop=stop))
    wakes = []
    notify_all = gate._changed.notify_all
    gate._changed.notify_all = lambda: (wakes.append(1), notify_all())
    with gate._lock:
        gate._dispatch(clock(), quiet=True)   # nothing can start: nobody is woken
    assert wakes == [] and stopped.state == QUEUED
    stop.set()
    with gate._lock:
        gate._dispatch(clock(), quiet=True)   # the stopped search is let through: the waiters look
    assert wakes == [1] and stopped.state != QUEUED


# --- refusals -------------------------------------------------------------------------

def test_a_search_that_could_not_start_before_its_deadline_is_refused_at_once_with_when_to_retry(clock):
    gate = scheduler(clock)
    gate.submit(Request("a", expected_s=2.0))  # expects to end in 2 s
    late = Request("b", expected_s=0.5, reply_by=clock.now + 1.0)  # must start within 0.5 s
    error = refusal(gate.submit, late)
    assert error.reason == ErrorReason.TOO_MANY_SEARCHES and error.retry_after_s == 2.0
    assert error.metadata == {"cause": "wait_too_long", "class": "interactive"}
    status = error.to_status()
    assert [d.type_url.rsplit(".", 1)[-1] for d in status.details] == ["ErrorInfo", "RetryInfo"]
    assert refusal(gate.check, late).retry_after_s == 2.0  # the cheap check says the same
    assert gate.queued() == 0 and gate.refusals[INTERACTIVE]["wait_too_long"] == 2
    # with time enough it waits instead
    assert gate.submit(Request("b", expected_s=0.5, reply_by=clock.now + 3.0)).state == QUEUED


def test_a_search_waits_no_longer_than_the_longest_wait_without_a_deadline(clock):
    gate = scheduler(clock, max_wait_s=10.0)
    gate.submit(Request("a", expected_s=30.0))
    error = refusal(gate.submit, Request("b", expected_s=0.1))
    assert "longest wait of 10 s" in error.message and error.retry_after_s == 30.0


def test_a_full_queue_refuses_at_once_each_class_apart(clock):
    gate = scheduler(clock, max_queue=1)
    gate.submit(Request("a", INTERACTIVE, expected_s=1.0))
    gate.submit(Request("b", INTERACTIVE, expected_s=1.0))
    error = refusal(gate.submit, Request("c", INTERACTIVE, expected_s=1.0))
    assert error.metadata["cause"] == "queue_full" and error.retry_after_s == 2.0
    assert gate.submit(Request("d", BACKGROUND)).state == QUEUED  # the other queue has room
    none_wait = scheduler(Clock(), max_queue=0)
    none_wait.submit(Request("a"))
    assert refusal(none_wait.submit, Request("b")).metadata["cause"] == "queue_full"


def test_a_search_still_waiting_at_its_latest_start_is_refused_then_with_a_new_hint(clock):
    gate = scheduler(clock)
    holder = gate.submit(Request("a", expected_s=1.0))
    waiting = gate.submit(Request("b", expected_s=0.5, reply_by=clock.now + 2.0))
    thread, outcome = in_thread(lambda: gate.wait(waiting))
    clock.now += 1.25  # the holder overruns its estimate; 0.25 s is left to start
    gate.poke()
    assert waiting.state == QUEUED
    clock.now += 0.25
    gate.poke()
    thread.join(GUARD_S)
    assert waiting.state == REFUSED and isinstance(outcome[0], errors.ApiError)
    assert outcome[0].retry_after_s == 0.05  # the holder was expected to be done: retry soon
    assert "waited 1.5 s" in outcome[0].message
    gate.release(waiting)
    gate.release(holder)
    assert gate.active == 0 and gate.queued() == 0


def test_one_client_cannot_run_and_queue_more_than_its_share(clock):
    gate = scheduler(clock, slots=2, per_client=1)
    gate.submit(Request("alpha", BACKGROUND, expected_s=3.0))
    error = refusal(gate.submit, Request("alpha", INTERACTIVE))
    assert error.reason == ErrorReason.TOO_MANY_CLIENT_SEARCHES and error.retry_after_s == 3.0
    assert gate.submit(Request("beta")).state == RUNNING


def test_past_its_interactive_share_a_client_searches_in_the_background(clock):
    gate = scheduler(clock, slots=4, per_client_interactive=1)
    first = gate.submit(Request("alpha", INTERACTIVE))
    second = gate.submit(Request("alpha", INTERACTIVE))
    other = gate.submit(Request("beta", INTERACTIVE))
    assert (first.klass, second.klass, other.klass) == (INTERACTIVE, BACKGROUND, INTERACTIVE)
    gate.release(first)
    assert gate.submit(Request("alpha", INTERACTIVE)).klass == INTERACTIVE


# --- pausing ---------------------------------------------------------------------------

def test_an_interactive_search_pauses_the_newest_background_search_which_resumes_after(clock):
    gate = scheduler(clock, slots=2)
    older = gate.submit(Request("a", BACKGROUND, expected_s=60.0))
    clock.now += 1
    newer = gate.submit(Request("b", BACKGROUND, expected_s=60.0))
    move = gate.submit(Request("c", INTERACTIVE, expected_s=0.05))
    assert move.state == RUNNING and move.queued_s == 0.0
    assert (older.state, newer.state) == (RUNNING, PAUSED)
    assert newer.pause.is_set() and not older.pause.is_set()
    assert (gate.running, gate.paused, gate.preemptions) == (2, 1, 1)
    clock.now += 0.25
    gate.release(move)
    assert newer.state == RUNNING and not newer.pause.is_set() and newer.paused_s == 0.25


def test_a_search_takes_a_slot_for_each_thread_so_threads_never_outnumber_the_slots(clock):
    gate = scheduler(clock, slots=3)
    wide = gate.submit(Request("a", expected_s=1.0, threads=2))
    narrow = gate.submit(Request("b", expected_s=1.0))
    assert (wide.state, narrow.state, gate.running, gate.running_threads) == (RUNNING, RUNNING, 2, 3)
    late = gate.submit(Request("c", expected_s=1.0, threads=2))  # two slots: waits, not on a core
    assert late.state == QUEUED
    gate.release(narrow)
    assert late.state == QUEUED and gate.running_threads == 2  # one slot free is not enough
    gate.release(wide)
    assert late.state == RUNNING and gate.running_threads == 2
    huge = gate.submit(Request("d", BACKGROUND, expected_s=1.0, threads=8))
    assert huge.slots == 3  # all of them at most: it can start alone
    gate.release(late)
    assert huge.state == RUNNING and gate.running_threads == 3


def test_an_interactive_search_pauses_as_many_background_searches_as_its_threads_need(clock):
    gate = scheduler(clock, slots=2)
    older = gate.submit(Request("a", BACKGROUND, expected_s=60.0))
    clock.now += 1
    newer = gate.submit(Request("b", BACKGROUND, expected_s=60.0))
    move = gate.submit(Request("c", INTERACTIVE, expected_s=0.05, threads=2))
    assert move.state == RUNNING and (older.state, newer.state) == (PAUSED, PAUSED)
    assert (gate.running_threads, gate.paused, gate.preemptions) == (2, 2, 2)
    gate.release(move)
    assert (older.state, newer.state, gate.running_threads) == (RUNNING, RUNNING, 2)


def test_a_paused_search_waits_in_its_own_thread_until_it_is_resumed(clock):
    gate = scheduler(clock)
    analysis = gate.submit(Request("a", BACKGROUND, expected_s=60.0, time_s=60.0))
    move = gate.submit(Request("b"))
    thread, outcome = in_thread(lambda: gate.on_pause(analysis))  # as the search calls it
    assert gate.wait_for(lambda g: analysis.state == PAUSED, GUARD_S)
    assert thread.is_alive()  # it waits while the move runs
    gate.release(move)
    thread.join(GUARD_S)
    assert outcome == [None] and analysis.state == RUNNING


def test_a_paused_search_whose_time_is_up_finishes_without_a_slot(clock):
    gate = scheduler(clock)
    analysis = gate.submit(Request("a", BACKGROUND, expected_s=3.0, time_s=3.0))
    move = gate.submit(Request("b", expected_s=10.0))
    thread, outcome = in_thread(lambda: gate.on_pause(analysis))
    clock.now += 3.0  # its time budget ran on while it was paused
    gate.poke()
    thread.join(GUARD_S)
    assert outcome == [None] and analysis.state == FINISHING and not analysis.pause.is_set()
    assert analysis.paused_s == 3.0 and move.state == RUNNING and gate.running == 1


def test_a_paused_search_that_is_stopped_finishes_at_once(clock):
    gate = scheduler(clock)
    stop = StopFlag()
    analysis = gate.submit(Request("a", BACKGROUND, expected_s=60.0, stop=stop))
    gate.submit(Request("b"))
    thread, outcome = in_thread(lambda: gate.on_pause(analysis))
    stop.set()  # the client's stop, as a transport sets it: seen within poll_s
    thread.join(GUARD_S)
    assert outcome == [None] and analysis.state == FINISHING


def test_an_interactive_search_waits_behind_interactive_ones_only(clock):
    gate = scheduler(clock)
    gate.submit(Request("a", INTERACTIVE, expected_s=1.0))
    background = gate.submit(Request("b", BACKGROUND, expected_s=60.0))
    # interactive: 1 s until the slot frees, whatever waits in the background
    assert refusal(gate.submit, Request("c", expected_s=0.1, reply_by=clock.now + 0.5)).retry_after_s == 1.0
    assert background.state == QUEUED


def test_a_background_search_waits_for_the_paused_and_queued_ones_before_it(clock):
    gate = scheduler(clock, max_wait_s=100.0)
    paused = gate.submit(Request("a", BACKGROUND, expected_s=4.0))
    move = gate.submit(Request("b", INTERACTIVE, expected_s=1.0))
    assert paused.state == PAUSED and move.state == RUNNING
    queued = gate.submit(Request("c", BACKGROUND, expected_s=2.0))
    # 1 s for the move, 4 s for the paused one, 2 s for the queued one
    assert refusal(gate.submit, Request("d", BACKGROUND, reply_by=clock.now + 6.0)).retry_after_s == 7.0
    assert queued.state == QUEUED


# --- cancel and shutdown -------------------------------------------------------------

def test_a_waiting_search_that_is_stopped_goes_through_at_once_to_answer(clock):
    gate = scheduler(clock)
    holder = gate.submit(Request("a", expected_s=5.0))
    stop = StopFlag()
    waiting = gate.submit(Request("b", expected_s=1.0, stop=stop))
    thread, outcome = in_thread(lambda: gate.wait(waiting))
    stop.set()
    thread.join(GUARD_S)
    assert outcome == [None] and waiting.state == FINISHING and holder.state == RUNNING
    assert gate.running == 1  # it holds no slot


def test_a_shutdown_stops_the_running_searches_and_sends_the_waiting_ones_elsewhere(clock):
    gate = scheduler(clock, max_wait_s=1000.0)
    flags = [StopFlag() for _ in range(3)]
    paused = gate.submit(Request("a", BACKGROUND, expected_s=60.0, stop=flags[0]))
    running = gate.submit(Request("b", INTERACTIVE, expected_s=60.0, stop=flags[1]))
    waiting = gate.submit(Request("c", BACKGROUND, expected_s=1.0, stop=flags[2]))
    assert (paused.state, running.state, waiting.state) == (PAUSED, RUNNING, QUEUED)
    thread, outcome = in_thread(lambda: gate.wait(waiting))
    gate.stop_all()
    thread.join(GUARD_S)
    assert flags[0].is_set() and flags[1].is_set() and not flags[2].is_set()
    (error,) = outcome  # its client retries at another replica
    assert error.code == grpc.StatusCode.UNAVAILABLE and error.reason == ErrorReason.SHUTTING_DOWN
    gate.on_pause(paused)  # returns at once: the search ends and answers
    assert paused.state == FINISHING
    with pytest.raises(errors.ApiError) as late:
        gate.submit(Request("d"))
    assert late.value.code == grpc.StatusCode.UNAVAILABLE


# --- memory ------------------------------------------------------------------------------

def test_the_steps_of_max_nodes_and_a_trees_bytes():
    assert step_up(1) == step_up(251) == step_up(10_001) == MIN_TREE_NODES
    assert step_up(70_000) == 98_304 and step_up(10**9) == MAX_TREE_NODES
    assert step_down(400_000) == 393_216 and step_down(100) == 0
    assert tree_bytes(1000) - tree_bytes(0) == 1000 * BYTES_PER_NODE


def test_a_search_reserves_what_it_needs_within_its_cap_and_the_cache_holds_the_rest():
    budget = MemoryBudget(320 * MIB, slots=2, cache_bytes=256 * MIB)
    assert budget.tree_cap() == 393_216  # 80 MiB a search
    assert budget.cache.stats()["max_bytes"] == 256 * MIB
    small = budget.reserve(Need(nodes=251))
    assert small.max_nodes == MIN_TREE_NODES and small.nbytes == tree_bytes(MIN_TREE_NODES)
    big = budget.reserve(Need(nodes=10**7, threads=2))
    assert big.max_nodes == budget.tree_cap(2) and big.nbytes == 2 * tree_bytes(big.max_nodes)
    reuse = budget.reserve(Need(nodes=251, reuse=True))  # grows to the cap, reserves its need
    assert reuse.max_nodes == budget.tree_cap() and reuse.nbytes == tree_bytes(251)
    assert budget.cache.stats()["max_bytes"] == 320 * MIB - budget.reserved
    for r in (small, big, reuse, reuse):  # a second release does nothing
        budget.release(r)
    assert budget.reserved == 0 and budget.cache.stats()["max_bytes"] == 256 * MIB


def test_when_memory_is_short_a_search_takes_less_and_an_exact_one_waits():
    budget = MemoryBudget(40 * MIB, slots=1)
    first = budget.reserve(Need(nodes=10**6))
    assert first.max_nodes == budget.tree_cap() == 98_304  # 20 MiB a search
    second = budget.reserve(Need(nodes=10**6))
    assert second.max_nodes == 98_304
    assert budget.reserve(Need(nodes=70_000, exact=True)) is None  # must be 98,304 to repeat
    shrunk = budget.reserve(Need(nodes=70_000))
    assert shrunk is not None and shrunk.max_nodes < 70_000
    assert budget.reserved <= 40 * MIB


def test_a_search_waits_for_memory_and_starts_when_it_is_given_back(clock):
    memory = MemoryBudget(40 * MIB, slots=2)
    gate = scheduler(clock, slots=2, memory=memory)
    held = [memory.reserve(Need(nodes=10**6)) for _ in range(4)]  # 10 MiB a search: 1.25 MiB left
    waiting = gate.submit(Request("a", need=Need(nodes=40_000, exact=True)))
    assert waiting.state == QUEUED and gate.running == 0  # free slots, but no memory
    memory.release(held[0])  # as a search that ends gives its memory back
    assert waiting.state == RUNNING and waiting.max_nodes == 49_152


def test_trees_taken_from_the_cache_join_the_reservation_and_trees_put_back_take_its_place():
    budget = MemoryBudget(64 * MIB, slots=1, cache_bytes=64 * MIB)
    reservation = budget.reserve(Need(nodes=1000, reuse=True))
    assert budget.cache.stats()["max_bytes"] == 64 * MIB - tree_bytes(1000)
    with budget.holding(reservation):
        budget.take_over(nodes=50_000, trees=1)  # what BudgetCache.take does with what it found
        assert reservation.nbytes == tree_bytes(1000) + tree_bytes(50_000) == budget.reserved
        assert budget.cache.stats()["max_bytes"] == 64 * MIB - budget.reserved
        budget.hand_over()  # what BudgetCache.put does before it keeps the trees
    assert reservation.released and budget.reserved == 0
    assert budget.cache.stats()["max_bytes"] == 64 * MIB
    budget.take_over(nodes=50_000, trees=1)  # no search of this thread: nothing to count
    assert budget.reserved == 0


def test_the_default_budget_fits_the_memory_a_pod_asks_for():
    options = ServerOptions(max_searches=2)
    assert pod_memory_mib(options.memory_budget_mb) <= 512
    with pytest.raises(ValueError, match="too small for 2 searches"):
        ServerOptions(max_searches=2, memory_budget_mb=4)
    _, _, parsed = parse_args(["--memory-budget-mb", "0", "--max-queue", "6", "--max-searches", "3"], {})
    # a handler thread for each search running, paused or waiting, and two for quick calls
    assert parsed.memory_budget_mb == 0 and parsed.worker_threads >= 2 * 3 + 2 * 6 + 2
