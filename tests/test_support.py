"""The tests' own helpers (tests/support.py) and the server hook they wait on
(SearchGate.wait_running): waiting never depends on speed, and a missing
program skips a test locally but fails it in CI."""

from __future__ import annotations

import threading

import pytest
from support import TEST_SERVER, TEST_SERVER_FLAGS, require_tool, server_options, wait_until

from cacaoai.server.scheduler import Request, SearchScheduler

ABSENT = "cacao-no-such-program"


def test_a_missing_program_skips_the_test_with_its_reason(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"{ABSENT} is not installed"):
        require_tool(ABSENT)


def test_under_ci_a_missing_program_fails_the_test(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=f"{ABSENT} is not installed.*CI=true"):
        require_tool(ABSENT)


def test_a_program_that_is_there_gives_its_path(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_tool("sh").endswith("/sh")


def test_a_test_server_process_runs_as_an_in_process_test_server_does():
    """The flags of a test's cacao-server process set what a test's in-process
    server has: searches at normal priority, ten minutes at most."""
    from cacaoai.server.options import parse_args

    options = parse_args(list(TEST_SERVER_FLAGS), {})[2]
    assert {name: getattr(options, name) for name in TEST_SERVER} == TEST_SERVER
    assert server_options(max_searches=1) == parse_args([*TEST_SERVER_FLAGS, "--max-searches", "1"], {})[2]
    assert TEST_SERVER["search_priority"] != parse_args([], {})[2].search_priority  # not the default


def test_waiting_returns_the_first_true_value_and_fails_naming_what_never_came():
    values = iter([0, None, "", 5, 6])
    assert wait_until(lambda: next(values), "a value") == 5
    with pytest.raises(pytest.fail.Exception, match="still waiting after 0 s for nothing"):
        wait_until(lambda: False, "nothing", timeout=0)


def test_the_search_scheduler_wakes_who_waits_for_searches_to_start_or_end():
    gate = SearchScheduler(slots=2)
    assert gate.wait_running(0, timeout=0)
    assert not gate.wait_running(1, timeout=0)
    taken, release = [], threading.Event()

    def search():
        with gate.slot(Request(client="client")):
            taken.append(True)
            release.wait()

    thread = threading.Thread(target=search)
    thread.start()
    assert gate.wait_running(1, timeout=30) and taken == [True]
    release.set()
    assert gate.wait_running(0, timeout=30)
    thread.join()
