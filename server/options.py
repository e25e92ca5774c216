"""Server settings: defaults, command-line flags and environment variables.

Every flag has an environment variable (``CACAO_`` + the flag name in upper
case, dashes as underscores); a flag given on the command line wins.

Thread-safety: :class:`ServerOptions` is frozen.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, fields

from cacaoai.search import PRIORITIES

DEFAULT_PRIORITY = "idle"

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_HTTP_PORT = 8080


def http_port(text: str) -> int:
    """The --http-port value: a port, or 0/"off" for no HTTP server."""
    return 0 if text.strip().lower() == "off" else int(text)


@dataclass(frozen=True)
class ServerOptions:
    """What a server allows and how it runs.

    Attributes:
        worker_threads: threads answering RPCs (searches run in them).
        search_threads: search threads given to each search.
        max_iterations: largest iteration budget of one search (larger: clamped).
        max_time_s: longest time budget of one search, seconds (longer: clamped).
        max_searches: searches at once; one more gets RESOURCE_EXHAUSTED.
        max_message_bytes: largest message received or sent.
        grace_s: how long in-flight RPCs may finish after SIGTERM.
        min_report_interval_s: shortest AnalyzePosition report interval.
        default_level: the level of a SuggestAction that names no budget (None:
            "casual" if the search has it, else its first level).
        deadline_margin_s: time kept back from a client's deadline for the reply.
        search_priority: CPU priority of the search threads against the RPC
            threads: "idle" (default: a quick call never waits for a core),
            "low" or "normal" (see ``cacaoai.search.search``).
        http_port: port of the HTTP server (Connect API and board page) on the
            same host; 0: none (cacao-server's flag defaults to 8080).
    """

    worker_threads: int = 8
    search_threads: int = 1
    max_iterations: int = 2_000_000
    max_time_s: float = 60.0
    max_searches: int = max(1, os.cpu_count() or 1)
    max_message_bytes: int = 4 * 1024 * 1024
    grace_s: float = 5.0
    min_report_interval_s: float = 0.05
    default_level: str | None = None
    deadline_margin_s: float = 0.02
    search_priority: str = DEFAULT_PRIORITY
    http_port: int = 0

    def __post_init__(self) -> None:
        for name in ("worker_threads", "search_threads", "max_iterations", "max_searches",
                     "max_message_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.worker_threads <= self.max_searches:
            raise ValueError(
                f"worker_threads ({self.worker_threads}) must exceed max_searches "
                f"({self.max_searches}) so that quick calls are answered while searches run"
            )
        if self.search_priority not in PRIORITIES:
            raise ValueError(f"search_priority must be one of {', '.join(PRIORITIES)}, "
                             f"got {self.search_priority!r}")
        if self.max_time_s <= 0 or self.grace_s < 0:
            raise ValueError("max_time_s must be positive and grace_s not negative")


_FLAGS = {
    # flag: (options field or None, type, help)
    "host": (None, str, f"address to listen on (default {DEFAULT_HOST})"),
    "port": (None, int, f"port to listen on, 0 for any free port (default {DEFAULT_PORT})"),
    "worker-threads": ("worker_threads", int, "threads answering RPCs"),
    "search-threads": ("search_threads", int, "search threads per request"),
    "max-iterations": ("max_iterations", int, "largest iteration budget of one search"),
    "max-time": ("max_time_s", float, "longest time budget of one search, seconds"),
    "max-searches": ("max_searches", int, "searches at once; more get RESOURCE_EXHAUSTED"),
    "max-message-bytes": ("max_message_bytes", int, "largest message received or sent"),
    "grace": ("grace_s", float, "seconds in-flight calls may finish after SIGTERM"),
    "default-level": ("default_level", str, "strength level when a request names no budget"),
    "search-priority": ("search_priority", str,
                        "CPU priority of searches: idle (quick calls always come first), "
                        "low (nice 19) or normal"),
    "http-port": ("http_port", http_port,
                  "port of the HTTP API (Connect) and the board page; 0 or off: none"),
}


def env_name(flag: str) -> str:
    """The environment variable of a flag: ``max-time`` -> ``CACAO_MAX_TIME``."""
    return "CACAO_" + flag.upper().replace("-", "_")


def parse_args(argv: list[str] | None = None,
               environ: dict[str, str] | None = None) -> tuple[str, int, ServerOptions]:
    """Reads flags and environment variables.

    Args:
        argv: command-line arguments without the program name (default: sys.argv[1:]).
        environ: the environment (default: os.environ).

    Returns:
        (host, port, options).
    """
    environ = dict(os.environ if environ is None else environ)
    defaults = {f.name: f.default for f in fields(ServerOptions)}
    defaults["max_searches"] = ServerOptions().max_searches
    parser = argparse.ArgumentParser(
        prog="cacao-server",
        description="Serve the Cacao rules and AI over gRPC (API cacao.v1).",
        epilog="Every flag can also be set by its environment variable, e.g. CACAO_PORT=50052.",
    )
    for flag, (name, kind, text) in _FLAGS.items():
        default = {"host": DEFAULT_HOST, "port": DEFAULT_PORT,
                   "http-port": DEFAULT_HTTP_PORT}.get(flag, defaults.get(name or ""))
        raw = environ.get(env_name(flag))
        if raw is not None:
            try:
                default = kind(raw)
            except ValueError:
                parser.error(f"{env_name(flag)}={raw!r} is not a valid {kind.__name__}")
        parser.add_argument(f"--{flag}", type=kind, default=default,
                            help=f"{text} [{env_name(flag)}, default {default}]")
    args = parser.parse_args(argv)
    values = {name: getattr(args, flag.replace("-", "_"))
              for flag, (name, _, _) in _FLAGS.items() if name}
    if "max_searches" in values and "worker_threads" in values:
        # keep the documented rule (workers > searches) when only one is raised
        values["worker_threads"] = max(values["worker_threads"], values["max_searches"] + 2)
    try:
        options = ServerOptions(**values)
    except ValueError as error:
        parser.error(str(error))
    return args.host, args.port, options
