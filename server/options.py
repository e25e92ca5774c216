"""Server settings: defaults, command-line flags and environment variables.

Every flag has an environment variable (``CACAO_`` + the flag name in upper
case, dashes as underscores); a flag given on the command line wins.

Thread-safety: :class:`ServerOptions` is frozen.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from importlib import metadata
from typing import Any

from cacaoai.search import PRIORITIES
from cacaoai.search.bots import LEVELS

from . import memory

DEFAULT_PRIORITY = "normal"
#: Fits the Kubernetes manifest's 512 MiB with the base RSS and headroom
#: (memory.pod_memory_mib; docs/operations.md, "Memory").
DEFAULT_MEMORY_BUDGET_MB = 320
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 50051
DEFAULT_HTTP_PORT = 8080


def http_port(text: str) -> int:
    """The --http-port value: a port, or 0/"off" for no HTTP server."""
    return 0 if text.strip().lower() == "off" else int(text)


#: A web origin: scheme, host and an optional port, nothing after.
ORIGIN = re.compile(r"https?://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?")


def origins(text: str) -> tuple[str, ...]:
    """The --http-cors-origins value: origins separated by commas or spaces."""
    return tuple(o.rstrip("/") for o in re.split(r"[,\s]+", text.strip()) if o)


origins.__name__ = "origin list"


@dataclass(frozen=True)
class ServerOptions:
    """What a server allows and how it runs.

    Attributes:
        worker_threads: threads answering RPCs (searches run in them).
        search_threads: search threads given to each search.
        max_iterations: largest iteration budget of one search (larger: clamped).
        max_time_s: longest time budget of one search, seconds (longer: clamped).
        max_searches: searches at once; one more gets RESOURCE_EXHAUSTED.
        max_client_searches: searches at once of one client (its token when
            tokens are required, else its IP address); 0: only max_searches.
        max_calls: calls in progress at once (each costs no thread while it
            waits for its request); one more gets RESOURCE_EXHAUSTED.
        max_client_calls: calls in progress at once of one client (as for
            max_client_searches); 0: only max_calls.
        request_timeout_s: how long a call may take to send its request
            after opening; then it ends with DEADLINE_EXCEEDED.
        max_message_bytes: largest message received or sent (the largest
            real record is about 6 KB as JSON).
        drain_s: after SIGTERM, how long health answers NOT_SERVING while
            calls are still served, so that load balancers stop sending.
        grace_s: how long in-flight RPCs may finish after the drain; then
            searches stop and answer with what they have.
        min_report_interval_s: shortest AnalyzePosition report interval.
        default_level: the level of a SuggestAction that names no budget (None:
            "casual" if the search has it, else its first level).
        deadline_margin_s: time kept back from a client's deadline for the reply.
        search_priority: CPU priority of the search threads against the RPC
            threads: "normal" (default), "reduced" (nice 5), "low" (nice 19)
            or "idle" (a quick call never waits for a core; see
            ``cacaoai.search.search``). "low" and "idle" apply to searches
            bounded by iterations alone: a search with a time budget or a
            deadline runs at "reduced" then, as a thread lowered further
            cannot keep a time promise next to busy processes.
        metrics_port: port of the Prometheus ``/metrics`` endpoint (None: off;
            0: any free port), on the server's host.
        log_format: "text", or "json" (one JSON object a line, one line per call).
        tls_cert, tls_key: PEM files of the server's certificate chain and
            key (both or neither); None: plaintext.
        tls_client_ca: PEM file of the CA that client certificates must be
            signed by (mutual TLS); None: no client certificates.
        auth_tokens: file of accepted bearer tokens, one a line, each
            optionally followed by a space and a role ("all", the default,
            or "rules": no searches); None: no token needed.
        reflection: serve gRPC reflection (lists and describes the API).
        http_port: port of the HTTP server (Connect API and board page) on the
            same host; 0: none (cacao-server's flag defaults to 8080).
        http_cors_origins: origins (``https://game.example``) of other sites whose
            pages may call the HTTP API from a browser (CORS), or "*" for any;
            empty: only the board page's own origin.
        tree_cache_mb: memory for search trees kept after their search, in
            MiB, so that a later request for the same observation, a
            record's continuation or a pondering seat's next move continues
            a tree (least recently used trees go first); 0: none kept. Within
            memory_budget_mb, the cache holds at most what the running
            searches leave.
        max_queue: searches of one priority class (interactive, background)
            that may wait for a slot at once; one more that cannot start is
            refused with RESOURCE_EXHAUSTED; 0: none waits.
        max_queue_wait_s: longest wait of a search for a slot, seconds (its
            call's deadline may cut it shorter).
        interactive_max_time_s: the longest search (its time budget, or its
            iterations at a cautious speed) that runs at interactive priority;
            longer ones run at background priority whatever they ask.
        max_client_interactive: interactive searches one client may run or
            queue at once (as for max_client_searches); more run at background
            priority; 0: no limit.
        memory_budget_mb: MiB for every search tree together: the trees of
            running and paused searches plus the tree cache; a search's
            max_nodes comes from it (cacaoai.server.memory); 0: no budget
            (each tree up to the search's own 2,000,000 nodes, the cache up to
            tree_cache_mb).
    """

    worker_threads: int = 8
    search_threads: int = 1
    max_iterations: int = 2_000_000
    max_time_s: float = 60.0
    max_searches: int = max(1, os.cpu_count() or 1)
    max_client_searches: int = 0
    max_calls: int = 100
    max_client_calls: int = 0
    request_timeout_s: float = 10.0
    max_message_bytes: int = 256 * 1024
    drain_s: float = 2.0
    grace_s: float = 5.0
    min_report_interval_s: float = 0.05
    default_level: str | None = None
    deadline_margin_s: float = 0.02
    search_priority: str = DEFAULT_PRIORITY
    metrics_port: int | None = None
    log_format: str = "text"
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    auth_tokens: str | None = None
    reflection: bool = True
    http_port: int = 0
    http_cors_origins: tuple[str, ...] = ()
    tree_cache_mb: int = 256
    max_queue: int = 4
    max_queue_wait_s: float = 10.0
    interactive_max_time_s: float = 5.0
    max_client_interactive: int = 0
    memory_budget_mb: int = DEFAULT_MEMORY_BUDGET_MB

    def __post_init__(self) -> None:
        for name in ("worker_threads", "search_threads", "max_iterations", "max_searches",
                     "max_message_bytes", "max_calls"):
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
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics_port must be 0-65535, got {self.metrics_port}")
        if self.log_format not in ("text", "json"):
            raise ValueError(f"log_format must be text or json, got {self.log_format!r}")
        if self.max_time_s <= 0 or self.grace_s < 0 or self.drain_s < 0:
            raise ValueError("max_time_s must be positive, grace_s and drain_s not negative")
        for name in ("max_client_searches", "max_client_calls", "tree_cache_mb", "max_queue",
                     "max_client_interactive", "memory_budget_mb"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.max_queue_wait_s <= 0 or self.interactive_max_time_s < 0:
            raise ValueError("max_queue_wait_s must be positive, interactive_max_time_s not negative")
        least = memory.least_budget_mb(self.max_searches)
        if self.memory_budget_mb and self.memory_budget_mb < least:
            raise ValueError(f"memory_budget_mb ({self.memory_budget_mb}) is too small for "
                             f"{self.max_searches} searches at once: give at least {least}, or 0 "
                             "for no budget")
        if self.request_timeout_s <= 0:
            raise ValueError(f"request_timeout_s must be positive, got {self.request_timeout_s}")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: give both or neither")
        if self.tls_client_ca and not self.tls_cert:
            raise ValueError("tls_client_ca needs tls_cert and tls_key (mutual TLS is TLS)")
        for origin in self.http_cors_origins:
            if origin != "*" and not ORIGIN.fullmatch(origin):
                raise ValueError(f"http_cors_origins: {origin!r} is not an origin such as "
                                 "https://game.example or http://localhost:3000 (or *)")

    @property
    def tree_cache_bytes(self) -> int:
        """The tree cache's size in bytes (0: no cache)."""
        return self.tree_cache_mb * 2**20

    @property
    def memory_budget_bytes(self) -> int:
        """The memory budget in bytes (0: none)."""
        return self.memory_budget_mb * 2**20

    @property
    def tls(self) -> bool:
        """The server speaks TLS."""
        return bool(self.tls_cert)


def _switch(text: str) -> bool:
    """A flag's on/off value: 1/0, true/false, yes/no, on/off."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not on or off")


_switch.__name__ = "on/off"


_FLAGS: dict[str, tuple[str | None, Callable[[str], Any], str]] = {
    # flag: (options field or None, type, help)
    "host": (None, str, "address to listen on (0.0.0.0: every IPv4 address)"),
    "port": (None, int, "gRPC port to listen on, 0 for any free port"),
    "worker-threads": ("worker_threads", int, "threads answering RPCs"),
    "search-threads": ("search_threads", int, "search threads per request"),
    "max-iterations": ("max_iterations", int, "largest iteration budget of one search"),
    "max-time": ("max_time_s", float, "longest time budget of one search, seconds"),
    "max-searches": ("max_searches", int, "searches at once; more get RESOURCE_EXHAUSTED"),
    "max-client-searches": ("max_client_searches", int,
                            "searches at once of one client (token, else IP address); 0: no limit"),
    "max-calls": ("max_calls", int, "calls in progress at once; more get RESOURCE_EXHAUSTED"),
    "max-client-calls": ("max_client_calls", int,
                         "calls in progress at once of one client (token, else IP address); "
                         "0: no limit"),
    "request-timeout": ("request_timeout_s", float,
                        "seconds a call may take to send its request after opening"),
    "max-message-bytes": ("max_message_bytes", int, "largest message received or sent"),
    "drain": ("drain_s", float,
              "seconds health says NOT_SERVING after SIGTERM while calls are still served"),
    "grace": ("grace_s", float,
              "seconds in-flight calls may finish after the drain; then searches stop"),
    "default-level": ("default_level", str,
                      "strength level of a SuggestAction that names no budget: "
                      + ", ".join(LEVELS)),
    "search-priority": ("search_priority", str,
                        "CPU priority of the search threads: normal, reduced (nice 5), "
                        "low (nice 19) or idle (quick calls always come first); with low "
                        "or idle, searches with a time budget or a deadline run at reduced"),
    "metrics-port": ("metrics_port", int, "port of the Prometheus /metrics endpoint "
                     "(0: any free port; unset: no metrics)"),
    "log-format": ("log_format", str, "text, or json: one JSON object a line and a line per call"),
    "tls-cert": ("tls_cert", str, "PEM certificate chain of the server (TLS on)"),
    "tls-key": ("tls_key", str, "PEM private key of the server"),
    "tls-client-ca": ("tls_client_ca", str,
                      "PEM CA bundle: clients must present a certificate it signed (mutual TLS)"),
    "auth-tokens": ("auth_tokens", str,
                    "file of accepted bearer tokens, one a line, optional role: all or rules"),
    "reflection": ("reflection", _switch, "serve gRPC reflection: on or off"),
    "http-port": ("http_port", http_port,
                  "port of the HTTP API (Connect) and the board page; 0 or off: none"),
    "http-cors-origins": ("http_cors_origins", origins,
                          "origins of other sites whose pages may call the HTTP API "
                          "(https://game.example, comma-separated; * for any); "
                          "none: the board page's own origin only"),
    "tree-cache-mb": ("tree_cache_mb", int,
                      "MiB of search trees kept for later searches to continue (tree reuse, "
                      "pondering); 0: none"),
    "max-queue": ("max_queue", int,
                  "searches of one priority class (interactive, background) that may wait for a "
                  "slot; one more is refused with RESOURCE_EXHAUSTED; 0: none waits"),
    "max-queue-wait": ("max_queue_wait_s", float,
                       "longest wait of a search for a slot, seconds (a deadline may cut it shorter)"),
    "interactive-max-time": ("interactive_max_time_s", float,
                             "longest search (seconds of budget) that runs at interactive "
                             "priority, before background searches; longer ones are background"),
    "max-client-interactive": ("max_client_interactive", int,
                               "interactive searches of one client at once; more run as "
                               "background; 0: no limit"),
    "memory-budget-mb": ("memory_budget_mb", int,
                         "MiB for every search tree: running and paused searches' trees plus the "
                         "tree cache; 0: no budget"),
}


EXAMPLES = """\
Every flag can also be set by its environment variable (shown in brackets); a
flag given on the command line wins over it. Ctrl-C or SIGTERM drains, then stops.

examples:
  cacao-server                                  gRPC on 127.0.0.1:50051, the board page on :8080
  cacao-server --port 6000 --http-port off      another port, no HTTP side
  cacao-server --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem --auth-tokens tokens.txt
  cacao-server --max-searches 2 --default-level strong --metrics-port 9100
  CACAO_PORT=6000 CACAO_LOG_FORMAT=json cacao-server
"""


def _default_level_shown() -> str:
    """The level a server uses when --default-level is not given ("casual"
    if the search has it, else its first level; see ServerOptions)."""
    return "casual" if "casual" in LEVELS else next(iter(LEVELS))


def workers_needed(max_searches: int, max_queue: int) -> int:
    """Handler threads that leave two for quick calls whatever the searches do:
    one per search running, one per search paused behind an interactive one,
    one per search waiting in either queue."""
    return 2 * max_searches + 2 * max_queue + 2


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
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {metadata.version('cacaoai')}")
    for flag, (name, kind, text) in _FLAGS.items():
        default: Any = {"host": DEFAULT_HOST, "port": DEFAULT_PORT,
                        "http-port": DEFAULT_HTTP_PORT}.get(flag, defaults.get(name or ""))
        raw = environ.get(env_name(flag))
        if raw is not None:
            try:
                default = kind(raw)
            except ValueError:
                parser.error(f"{env_name(flag)}={raw!r} is not a valid {kind.__name__}")
        shown = {True: "on", False: "off"}.get(default, default) if kind is _switch else default
        if kind is origins:
            shown = ",".join(default) or "none"
        if flag == "default-level" and default is None:
            shown = _default_level_shown()
        where = f"default {shown}" if shown is not None else "unset by default"
        parser.add_argument(f"--{flag}", type=kind, default=default,
                            help=f"{text} [{env_name(flag)}, {where}]")
    args = parser.parse_args(argv)
    values = {name: getattr(args, flag.replace("-", "_"))
              for flag, (name, _, _) in _FLAGS.items() if name}
    if "max_searches" in values and "worker_threads" in values:
        # keep the documented rule when only one is raised: a thread for each search
        # running, paused or waiting (gRPC's SuggestAction waits in a handler thread),
        # and two more for quick calls
        values["worker_threads"] = max(values["worker_threads"], workers_needed(
            values["max_searches"], values.get("max_queue", ServerOptions.max_queue)))
    try:
        options = ServerOptions(**values)
    except ValueError as error:
        parser.error(str(error))
    return args.host, args.port, options
