"""Shared pytest fixtures and the ``requires_tool`` marker.

The tiers (markers registered in pyproject.toml; docs/development.md):
unmarked tests are unit tests, ``integration`` tests talk to a real server on
a real port, ``e2e`` tests drive outside programs or many processes.
"""

import pytest
from hypothesis import HealthCheck, settings
from support import require_tool, server_options

# Property tests never fail on speed: no per-example deadline, and a slow
# example on a loaded machine is not a failed health check.
settings.register_profile("cacao", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cacao")


def pytest_collection_modifyitems(items):
    """A test on a shared server fixture is an integration test, marked or not."""
    for item in items:
        on_the_server = {"cacao_server", "puzzle_server"} & set(getattr(item, "fixturenames", ()))
        if on_the_server and not item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.integration)


def pytest_runtest_setup(item):
    """``@pytest.mark.requires_tool("nginx")``: skip without the program, or
    fail under CI=true (see support.require_tool)."""
    for marker in item.iter_markers("requires_tool"):
        for name in marker.args:
            require_tool(name)


@pytest.fixture(scope="session")
def cacao_server():
    """A real Cacao gRPC server on a free localhost port, in this process.

    Yields (server, "127.0.0.1:PORT"). A test's server (support.TEST_SERVER):
    its searches at normal CPU priority and ten minutes at most, so that an
    iteration budget is spent however busy the machine; small limits besides.
    """
    from cacaoai.server import create_server

    options = server_options(worker_threads=8, max_searches=2, max_iterations=200_000, grace_s=0.0)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    yield server, f"127.0.0.1:{port}"
    server.stop(None).wait()


@pytest.fixture(scope="session")
def puzzle_server():
    """A real server of the test puzzles (tests/data/puzzles.jsonl, ``--puzzles``)
    with gRPC and HTTP on free localhost ports, in this process.

    Yields ("127.0.0.1:PORT", "http://127.0.0.1:PORT"): its gRPC address and
    its HTTP side's URL (the Connect API and the board page).
    """
    from pathlib import Path

    from cacaoai.server import create_server
    from cacaoai.server.http import start_http

    puzzles = Path(__file__).resolve().parent / "data" / "puzzles.jsonl"
    options = server_options(worker_threads=6, max_searches=1, grace_s=0.0, puzzles=str(puzzles))
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    http = start_http(server.cacao_api, "127.0.0.1", 0)
    yield f"127.0.0.1:{port}", f"http://127.0.0.1:{http.server_address[1]}"
    http.shutdown()
    server.stop(0).wait()


@pytest.fixture
def cacao_stub(cacao_server):
    """A CacaoService stub on a fresh channel to :func:`cacao_server`."""
    import grpc

    from cacaoai.api.cacao.v1 import cacao_pb2_grpc

    with grpc.insecure_channel(cacao_server[1]) as channel:
        yield cacao_pb2_grpc.CacaoServiceStub(channel)
