"""``cacao-server``: serve the Cacao rules and AI over gRPC.

    cacao-server                       # 127.0.0.1:50051
    cacao-server --host 0.0.0.0 --port 6000 --max-searches 2
    CACAO_PORT=6000 cacao-server       # every flag has a CACAO_* variable

``cacao-server --help`` lists the flags.
"""

from __future__ import annotations

import logging
import sys

from .lifecycle import serve
from .logs import configure
from .options import parse_args


def main(argv: list[str] | None = None) -> int:
    """Parses flags and environment, then serves until SIGTERM; returns 0."""
    host, port, options = parse_args(argv)
    configure(options.log_format)
    try:
        return serve(host, port, options)
    except (OSError, ValueError) as error:  # a port in use, an unknown default level
        logging.getLogger("cacaoai.server").error("%s", error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
