"""The Cacao gRPC service (API ``cacao.v1``), installed as ``cacaoai.server``.

    from cacaoai.server import create_server, ServerOptions
    server, port = create_server("127.0.0.1:0", ServerOptions(max_searches=2))
    server.start()

Layers: :mod:`.handlers` answers each RPC with plain functions (validate ->
convert -> engine/search -> convert); :mod:`.methods` is the table of the
methods that both transports serve, :mod:`.grpc_transport` on gRPC and
:mod:`.connect_transport` on Connect (deadlines, cancellation, rich
errors); :mod:`.lifecycle` builds, starts,
drains and stops a server (health, reflection, metrics, signals);
:mod:`.asgi` answers the same API over HTTP in the Connect protocol
(connectrpc) with the board page, and :mod:`.http` serves it (Hypercorn);
:mod:`.security` holds TLS credentials, bearer tokens and client keys;
:mod:`.main` is the ``cacao-server`` command.
"""

from typing import Any

from .options import ServerOptions

__all__ = ["ServerOptions", "create_server", "serve"]


def __getattr__(name: str) -> Any:
    """Load the server (and with it the search) only when asked for."""
    if name in ("create_server", "serve"):
        from . import lifecycle

        return getattr(lifecycle, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
