"""Helpers the tests share: waiting for a condition, system programs, and a
fresh interpreter for code that must not share the test process.

Tests never sleep to let something happen and never assert on how long
something took: they wait for an event, a report or a condition. A wait's
timeout is only a guard against a hang, far above the time the thing takes
on a loaded machine; reaching it fails the test with what was waited for.
"""

from __future__ import annotations

import copy
import os
import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from cacaoai.server import ServerOptions

T = TypeVar("T")

GUARD_S = 30.0  # far above anything a test waits for, even on a loaded machine
POLL_S = 0.01

#: What a test's server runs with unless its test is about these options.
#: Its searches run at normal CPU priority: at the product's default, idle, a
#: search beside busy processes gets almost no core (4,000 iterations took
#: over 5 s next to two busy loops), so an iteration budget would be cut by
#: the longest search time, or take minutes, and a stopped search might not
#: even notice its stop in time. Its longest search is ten minutes, far above
#: any test's need: an iteration budget is always spent, never cut by the clock.
TEST_SERVER = {"search_priority": "normal", "background_priority": "normal", "max_time_s": 600.0}
#: The same for a ``cacao-server`` process (LocalServer), as flags.
TEST_SERVER_FLAGS = ("--search-priority", "normal", "--background-priority", "normal",
                     "--max-time", "600")


def server_options(**settings: Any) -> ServerOptions:
    """``ServerOptions(**settings)`` for a test's server: :data:`TEST_SERVER`
    unless `settings` say otherwise."""
    from cacaoai.server import ServerOptions

    return ServerOptions(**{**TEST_SERVER, **settings})


def poll_until(condition: Callable[[], T], timeout: float = GUARD_S) -> T | None:
    """Polls ``condition()`` until it returns a true value, and returns that
    value; None when ``timeout`` seconds pass first (usable in any thread).

    For states that have no event to wait on (another process, the kernel's
    view of threads). The timeout is a guard, never the thing tested.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(POLL_S)


def wait_until(condition: Callable[[], T], what: str, timeout: float = GUARD_S) -> T:
    """:func:`poll_until` in the test's thread: fails the test, naming
    ``what``, when the guard's ``timeout`` passes first."""
    value = poll_until(condition, timeout)
    if not value:
        pytest.fail(f"still waiting after {timeout:g} s for {what}")
    return value


def json_places(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every path into a JSON document (the empty path first), as key and index tuples."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_places(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_places(item, path + (i,))


def json_replaced(document: Any, path: tuple, new: Any) -> Any:
    """A deep copy of `document` with the value at `path` replaced by `new`."""
    if not path:
        return new
    out = copy.deepcopy(document)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return out


def in_ci() -> bool:
    """Whether the tests run in CI (``CI=true``), where nothing may be skipped
    for a missing program."""
    return os.environ.get("CI", "").lower() == "true"


def require_tool(name: str) -> str:
    """The path of the system program ``name``. Without it the test is
    skipped with the reason, or fails under ``CI=true`` (CI installs every
    program the tests need: .ci/system_deps.sh)."""
    path = shutil.which(name)
    if path:
        return path
    reason = f"{name} is not installed (.ci/system_deps.sh installs what the tests need)"
    if in_ci():
        pytest.fail(reason + "; CI=true, so a missing program is an error", pytrace=False)
    pytest.skip(reason)


_FRESH = """
import importlib, pickle, sys
module, name, args, kwargs = pickle.load(sys.stdin.buffer)
result = getattr(importlib.import_module(module), name)(*args, **kwargs)
sys.stdout.buffer.write(pickle.dumps(result))
"""


def call_in_fresh_python(module: str, name: str, *args: object, **kwargs: object) -> object:
    """``module.name(*args, **kwargs)`` called in a new Python process, and its
    (picklable) result.

    Ray starts gRPC threads and forks helpers in the process that calls
    ``ray.init``; in the test process, beside other tests' gRPC servers and
    earlier Ray sessions, that can crash Ray. A fresh interpreter per call
    keeps each cluster on its own.
    """
    done = subprocess.run([sys.executable, "-c", _FRESH], input=pickle.dumps((module, name, args, kwargs)),
                          stdout=subprocess.PIPE, check=False)
    if done.returncode != 0:
        pytest.fail(f"{module}.{name} in a fresh Python exited with {done.returncode} (its stderr is above)")
    return pickle.loads(done.stdout)
