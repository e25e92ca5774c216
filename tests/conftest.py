"""Shared pytest fixtures."""

import pytest


@pytest.fixture(scope="session")
def cacao_server():
    """A real Cacao gRPC server on a free localhost port, in this process.

    Yields (server, "127.0.0.1:PORT"). Small limits keep the tests fast.
    """
    from cacaoai.server import ServerOptions, create_server

    options = ServerOptions(worker_threads=8, max_searches=2, max_iterations=200_000,
                            max_time_s=5.0, grace_s=0.0)
    server, port = create_server("127.0.0.1:0", options)
    server.start()
    yield server, f"127.0.0.1:{port}"
    server.stop(None).wait()


@pytest.fixture
def cacao_stub(cacao_server):
    """A CacaoService stub on a fresh channel to :func:`cacao_server`."""
    import grpc

    from cacaoai.api.cacao.v1 import cacao_pb2_grpc

    with grpc.insecure_channel(cacao_server[1]) as channel:
        yield cacao_pb2_grpc.CacaoServiceStub(channel)
