"""Server settings, each declared once: its default, type, help, flag and
environment variable, and where the docs show it.

A field of :class:`ServerOptions` is declared with :func:`option`; ``host`` and
``port``, which name where the server listens rather than how it runs, are
declared beside it (:data:`HOST`, :data:`PORT`). :data:`OPTIONS` lists them all,
in the order ``cacao-server --help`` and docs/operations.md show them. From it
:func:`parse_args` builds the flags, their help and the reading of the
environment: every flag has a variable, ``CACAO_`` + the flag in upper case
with underscores (``--max-time``: ``CACAO_MAX_TIME``), and a flag given on the
command line wins over it. ``python -m cacaoai.server.options_docs`` writes the
docs tables from the same list, and tests/test_options.py checks the docs and
the deploy files against it.

Thread-safety: :class:`ServerOptions` is frozen.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar, cast

from cacaoai.engine.cli import add_version_option
from cacaoai.search import PRIORITIES
from cacaoai.search.bots import LEVELS

from . import memory
from .cores import usable_cores

T = TypeVar("T")

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


# --- how a flag's text becomes a value -------------------------------------------

def port_or_off(text: str) -> int | None:
    """The --http-port value: a port (0: any free one, as for --port), or None
    for "off" (no HTTP server; "none", as --help shows it, too)."""
    return None if text.strip().lower() in ("off", "none") else int(text)


port_or_off.__name__ = "port or off"

#: A web origin: scheme, host and an optional port, nothing after.
ORIGIN = re.compile(r"https?://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?")


def origins(text: str) -> tuple[str, ...]:
    """The --http-cors-origins value: origins separated by commas or spaces."""
    return tuple(o.rstrip("/") for o in re.split(r"[,\s]+", text.strip()) if o)


origins.__name__ = "origin list"


def switch(text: str) -> bool:
    """A flag's on/off value: 1/0, true/false, yes/no, on/off."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not on or off")


switch.__name__ = "on/off"


# --- the declaration ---------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One server setting, as the code, ``cacao-server --help`` and the docs know it.

    Attributes:
        name: the :class:`ServerOptions` field ("host" and "port": parse_args' own).
        flag: the flag without its dashes; None: set only from Python.
        default: the value when neither a flag nor a variable gives one.
        help: what it sets, one or two sentences; plain text (the docs tick the
            flags and the status codes it names).
        parse: turns a flag's or a variable's text into the value.
        shown: the default in words, where the value alone would mislead
            (a default computed from the machine or from other settings).
        limit: the ``ServerLimits`` field that reports it to clients
            (docs/protocol.md's table of them shows its default too).
        see: (words, anchor) of the docs/operations.md section that says more.
    """

    name: str
    flag: str | None
    default: Any
    help: str
    parse: Callable[[str], Any]
    shown: str | None = None
    limit: str | None = None
    see: tuple[str, str] | None = None

    @property
    def env(self) -> str | None:
        """The environment variable: ``max-time`` -> ``CACAO_MAX_TIME`` (None: no flag)."""
        return env_name(self.flag) if self.flag else None

    def show(self, value: Any) -> str:
        """A value as --help and the docs write it: on/off, 60 (not 60.0), none."""
        if value == self.default and self.shown:
            return self.shown
        if value is None or value == ():
            return "none"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, tuple):
            return ",".join(value)
        return str(value)


def env_name(flag: str) -> str:
    """The environment variable of a flag: ``max-time`` -> ``CACAO_MAX_TIME``."""
    return "CACAO_" + flag.upper().replace("-", "_")


def _parser_of(default: Any) -> Callable[[str], Any]:
    if isinstance(default, bool):
        return switch
    if isinstance(default, (int, float, str)):
        return type(default)
    raise TypeError(f"say how to parse a default of {default!r}")


def option(flag: str | None, default: T, help: str, *,
           parse: Callable[[str], Any] | None = None, shown: str | None = None,
           limit: str | None = None, see: tuple[str, str] | None = None) -> T:
    """A :class:`ServerOptions` field with its :class:`Option` (typed as its
    default, so that type checkers see a plain default)."""
    declared = {"default": default, "help": help, "flag": flag,
                "parse": parse or _parser_of(default), "shown": shown, "limit": limit, "see": see}
    return cast(T, field(default=default, metadata={"option": declared}))


def workers_needed(max_searches: int, max_queue: int) -> int:
    """Handler threads that leave two for quick calls whatever the searches do:
    one per search running, one per search paused behind an interactive one,
    one per search waiting in either queue."""
    return 2 * max_searches + 2 * max_queue + 2


def _first_level() -> str:
    """The level of a SuggestAction without a budget when none is set:
    "casual" if the search has it, else its first level."""
    return "casual" if "casual" in LEVELS else next(iter(LEVELS))


#: Fits the Kubernetes manifest's 512 MiB with the base RSS and headroom
#: (memory.pod_memory_mib; docs/operations.md, "Memory").
DEFAULT_MEMORY_BUDGET_MB = 320
DEFAULT_PRIORITY = "idle"
DEFAULT_BACKGROUND_PRIORITY = "idle"

HOST = Option(name="host", flag="host", default="127.0.0.1", parse=str,
              help="address to listen on, for gRPC, HTTP and metrics (0.0.0.0: every IPv4 address)")
PORT = Option(name="port", flag="port", default=50051, parse=int,
              help="gRPC port; 0: any free port (the log says which)")


@dataclass(frozen=True)
class ServerOptions:
    """What a server allows and how it runs: every field is an :class:`Option`
    (its help is in its declaration below; docs/operations.md tabulates them).

    The defaults are cacao-server's: ``serve(host, port, ServerOptions())`` runs
    what ``cacao-server`` runs, the board page on port 8080 included.
    ``create_server`` starts no HTTP side whatever ``http_port`` says (its
    server's ``start_http`` does); ``http_port=None`` is cacao-server's
    ``--http-port off``.
    """

    # where it serves, besides gRPC on (host, port)
    http_port: int | None = option(
        "http-port", 8080, "port of the HTTP server (the Connect API and the board page), "
        "on the same host; 0: any free port (the log says which); off: no HTTP server",
        parse=port_or_off)
    http_cors_origins: tuple[str, ...] = option(
        "http-cors-origins", (), "origins of other sites whose pages may call the HTTP API "
        "from a browser (https://game.example, comma-separated; * for any); none: the "
        "board page's own origin only", parse=origins)
    # searches: slots, queues, memory
    worker_threads: int = option(
        "worker-threads", 0, "threads that run the handlers (a SuggestAction waits for its "
        "slot in one); 0: the default, to which cacao-server also raises a lower value",
        shown="2 × --max-searches + 2 × --max-queue + 2",
        see=("threads", "moves-before-analysis-the-search-scheduler"))
    max_searches: int = option(
        "max-searches", usable_cores(), "searches growing trees at once "
        "(search slots); more wait or are refused; the usable cores are the CPUs of the "
        "process's affinity, cut to its cgroup's CPU quota", shown="the usable cores",
        limit="max_concurrent_searches",
        see=("scheduler", "moves-before-analysis-the-search-scheduler"))
    max_queue: int = option(
        "max-queue", 4, "searches of one priority class (interactive, background) that may "
        "wait for a slot; one more that cannot start is refused with RESOURCE_EXHAUSTED; "
        "0: none waits", limit="max_queued_searches")
    max_queue_wait_s: float = option(
        "max-queue-wait", 10.0, "longest wait of a search for a slot, seconds (a call's "
        "deadline may cut it shorter)", limit="max_queue_wait")
    interactive_max_time_s: float = option(
        "interactive-max-time", 5.0, "longest search, seconds of budget (iterations count "
        "at 50,000 a second a thread), that runs at interactive priority, before "
        "background searches; longer ones run as background", limit="interactive_max_time")
    max_client_interactive: int = option(
        "max-client-interactive", 0, "interactive searches of one client at once, running "
        "or waiting; more run as background; 0: no limit", limit="max_client_interactive")
    memory_budget_mb: int = option(
        "memory-budget-mb", DEFAULT_MEMORY_BUDGET_MB, "MiB for every search tree together: "
        "the trees of running and paused searches plus the tree cache; a search's "
        "max_nodes comes from it; 0: no budget (each tree up to 2,000,000 nodes, the cache "
        "up to --tree-cache-mb)", limit="memory_budget_bytes", see=("memory", "memory"))
    tree_cache_mb: int = option(
        "tree-cache-mb", 256, "MiB of search trees kept for later searches to continue "
        "(the same observation, a record's continuation, a pondering seat's next move), "
        "at most what the running searches leave of --memory-budget-mb; 0: none kept",
        limit="tree_cache_bytes")
    # one search
    search_threads: int = option(
        "search-threads", 1, "most threads one search may use; a request or level asking "
        "for more gets this many", limit="search_threads")
    max_iterations: int = option(
        "max-iterations", 2_000_000, "largest iteration budget of one search (more is "
        "clamped)", limit="max_iterations")
    max_time_s: float = option(
        "max-time", 60.0, "longest time budget of one search, seconds (more is clamped)",
        limit="max_time")
    default_level: str | None = option(
        "default-level", None, "strength level of a SuggestAction that names no budget: "
        + ", ".join(LEVELS), parse=str, shown=_first_level())
    search_priority: str = option(
        "search-priority", DEFAULT_PRIORITY, "CPU priority of the threads of interactive "
        "searches against the threads that answer calls: normal, reduced (nice 5), low (nice "
        "19) or idle (a quick call never waits for a core); while other processes keep a "
        "low or idle search from its time (one ends over 250 ms late), searches with a time "
        "budget or a deadline run at reduced for 5 s, doubled while it lasts", limit="search_priority",
        see=("search priority", "search-priority"))
    background_priority: str = option(
        "background-priority", DEFAULT_BACKGROUND_PRIORITY, "CPU priority of the threads of "
        "background searches (analyses, reviews, long budgets), as --search-priority",
        see=("search priority", "search-priority"))
    # calls
    max_calls: int = option(
        "max-calls", 100, "calls in progress at once, of every method (each costs no "
        "thread while it waits for its request); one more gets RESOURCE_EXHAUSTED",
        limit="max_concurrent_calls")
    max_client_searches: int = option(
        "max-client-searches", 0, "searches of one client at once (its token when tokens "
        "are required, else its IP address), running, paused or waiting; one more is "
        "refused at once; 0: no limit but --max-searches", limit="max_client_searches")
    max_client_calls: int = option(
        "max-client-calls", 0, "calls in progress at once of one client (as for "
        "--max-client-searches); 0: no limit but --max-calls", limit="max_client_calls")
    request_timeout_s: float = option(
        "request-timeout", 10.0, "seconds a call may take to send its request after "
        "opening; then it ends with DEADLINE_EXCEEDED")
    max_message_bytes: int = option(
        "max-message-bytes", 256 * 1024, "largest message received or sent (the largest "
        "real record is about 6 KB as JSON)", limit="max_message_bytes")
    min_report_interval_s: float = option(
        None, 0.05, "shortest interval between AnalyzePosition reports, seconds; shorter "
        "requests are raised to it", limit="min_report_interval")
    deadline_margin_s: float = option(
        None, 0.02, "seconds kept back from a client's deadline for the reply")
    # puzzles
    puzzles: str | None = option(
        "puzzles", None, "JSONL file of the puzzles GetPuzzle and CheckPuzzle serve, one a line "
        "(as cacao-puzzles generate writes them); read once at startup, a bad one stops the server",
        parse=str, shown="the set the package ships")
    # stopping
    drain_s: float = option(
        "drain", 2.0, "seconds health says NOT_SERVING after SIGTERM while calls are still "
        "served, so that load balancers stop sending")
    grace_s: float = option(
        "grace", 5.0, "seconds calls in flight may finish after the drain; then searches "
        "stop and answer with what they have")
    # security
    tls_cert: str | None = option(
        "tls-cert", None, "PEM certificate chain of the server (TLS on; with --tls-key)",
        parse=str, shown="none (plaintext)")
    tls_key: str | None = option(
        "tls-key", None, "PEM private key of the server (with --tls-cert)", parse=str)
    tls_client_ca: str | None = option(
        "tls-client-ca", None, "PEM CA bundle: clients must present a certificate it "
        "signed (mutual TLS)", parse=str)
    auth_tokens: str | None = option(
        "auth-tokens", None, "file of accepted bearer tokens, one a line, each optionally "
        "followed by a space and a role (all, the default, or rules: no searches)",
        parse=str, shown="none (no token needed)")
    reflection: bool = option(
        "reflection", True, "serve gRPC reflection (lists and describes the API): on or off")
    # watching
    metrics_port: int | None = option(
        "metrics-port", None, "port of the Prometheus /metrics endpoint, on the server's "
        "host; 0: any free port", parse=int, shown="none (no metrics)")
    log_format: str = option(
        "log-format", "text", "text, or json: one JSON object a line and a line per call")

    def __post_init__(self) -> None:
        if self.worker_threads == 0:
            object.__setattr__(self, "worker_threads",
                               workers_needed(self.max_searches, self.max_queue))
        check(self)

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


def check(o: Any, name: Callable[[str], str] = str) -> None:
    """Raises ValueError for the first setting of `o` (a :class:`ServerOptions`
    or anything with its fields as attributes) out of its range, naming each
    setting by ``name(field)``: the field itself by default, the flag or the
    environment variable the value came from for :func:`parse_args`."""
    for field_name in ("worker_threads", "search_threads", "max_iterations", "max_searches",
                       "max_message_bytes", "max_calls"):
        if getattr(o, field_name) < 1:
            raise ValueError(f"{name(field_name)} must be at least 1, got {getattr(o, field_name)}")
    if o.worker_threads <= o.max_searches:
        raise ValueError(
            f"{name('worker_threads')} ({o.worker_threads}) must exceed {name('max_searches')} "
            f"({o.max_searches}) so that quick calls are answered while searches run"
        )
    for field_name in ("search_priority", "background_priority"):
        if getattr(o, field_name) not in PRIORITIES:
            raise ValueError(f"{name(field_name)} must be one of {', '.join(PRIORITIES)}, "
                             f"got {getattr(o, field_name)!r}")
    for field_name in ("metrics_port", "http_port"):  # None: not served
        port = getattr(o, field_name)
        if port is not None and not 0 <= port <= 65535:
            raise ValueError(f"{name(field_name)} must be 0-65535, got {port}")
    if o.log_format not in ("text", "json"):
        raise ValueError(f"{name('log_format')} must be text or json, got {o.log_format!r}")
    for field_name in ("max_time_s", "max_queue_wait_s", "request_timeout_s"):
        if getattr(o, field_name) <= 0:
            raise ValueError(f"{name(field_name)} must be positive, got {getattr(o, field_name)}")
    for field_name in ("grace_s", "drain_s", "interactive_max_time_s", "max_client_searches",
                       "max_client_calls", "tree_cache_mb", "max_queue", "max_client_interactive",
                       "memory_budget_mb"):
        if getattr(o, field_name) < 0:
            raise ValueError(f"{name(field_name)} must not be negative, got {getattr(o, field_name)}")
    least = memory.least_budget_mb(o.max_searches)
    if o.memory_budget_mb and o.memory_budget_mb < least:
        raise ValueError(f"{name('memory_budget_mb')} ({o.memory_budget_mb}) is too small for "
                         f"{o.max_searches} searches at once ({name('max_searches')}): give at "
                         f"least {least}, or 0 for no budget")
    if bool(o.tls_cert) != bool(o.tls_key):
        raise ValueError(f"{name('tls_cert')} and {name('tls_key')} go together: give both or neither")
    if o.tls_client_ca and not o.tls_cert:
        raise ValueError(f"{name('tls_client_ca')} needs {name('tls_cert')} and {name('tls_key')} "
                         "(mutual TLS is TLS)")
    for origin in o.http_cors_origins:
        if origin != "*" and not ORIGIN.fullmatch(origin):
            raise ValueError(f"{name('http_cors_origins')}: {origin!r} is not an origin such as "
                             "https://game.example or http://localhost:3000 (or *)")


#: Every server setting, in the order --help and docs/operations.md show them.
OPTIONS: tuple[Option, ...] = (HOST, PORT, *(Option(name=f.name, **f.metadata["option"])
                                              for f in fields(ServerOptions)))
DEFAULT_HOST = HOST.default
DEFAULT_PORT = PORT.default
DEFAULT_HTTP_PORT = ServerOptions.http_port


def reported_limits(options: ServerOptions) -> dict[str, int | float | str]:
    """Each ``ServerLimits`` field an option reports (its :attr:`Option.limit`), with
    the option's value in the field's unit: bytes for a ``_mb`` option, seconds for a
    ``_s`` one (the field is a Duration)."""
    out: dict[str, int | float | str] = {}
    for o in OPTIONS:
        if o.limit:
            value = getattr(options, o.name)
            out[o.limit] = value * 2**20 if o.name.endswith("_mb") else value
    return out


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


def parse_args(argv: list[str] | None = None,
               environ: dict[str, str] | None = None) -> tuple[str, int, ServerOptions]:
    """Reads flags and environment variables, as :data:`OPTIONS` declares them.

    Args:
        argv: command-line arguments without the program name (default: sys.argv[1:]).
        environ: the environment (default: os.environ).

    Returns:
        (host, port, options).
    """
    environ = dict(os.environ if environ is None else environ)
    parser = argparse.ArgumentParser(
        prog="cacao-server",
        description="Serve the Cacao rules and AI over gRPC (API cacao.v1).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_version_option(parser)
    flagged = [o for o in OPTIONS if o.flag]
    from_environ: dict[str, Any] = {}
    for o in flagged:
        assert o.flag is not None and o.env is not None
        raw = environ.get(o.env)
        if raw is not None:
            try:
                from_environ[o.name] = o.parse(raw)
            except ValueError:
                parser.error(f"{o.env}={raw!r} is not a valid {o.parse.__name__}")
        # no argparse default: what is absent from the parsed flags was not typed
        parser.add_argument(f"--{o.flag}", type=o.parse, default=argparse.SUPPRESS, dest=o.name,
                            metavar=o.flag.upper().replace("-", "_"),
                            help=f"{o.help} [{o.env}, default {o.show(from_environ.get(o.name, o.default))}]")
    typed = vars(parser.parse_args(argv))
    values = {o.name: typed.get(o.name, from_environ.get(o.name, o.default)) for o in flagged}

    def named(name: str) -> str:
        """A setting as the user gave it: the flag typed, else the variable set, else the flag."""
        o = next(o for o in OPTIONS if o.name == name)
        if name not in typed and name in from_environ:
            return o.env or name
        return f"--{o.flag}" if o.flag else name

    host, port = values.pop("host"), values.pop("port")
    if not 0 <= port <= 65535:
        parser.error(f"{named('port')} must be 0-65535, got {port}")
    # keep the documented rule when only one is raised: a thread for each search
    # running, paused or waiting (gRPC's SuggestAction waits in a handler thread),
    # and two more for quick calls
    values["worker_threads"] = max(values["worker_threads"], workers_needed(
        values["max_searches"], values["max_queue"]))
    try:
        check(argparse.Namespace(**values), named)
        options = ServerOptions(**values)
    except ValueError as error:
        parser.error(str(error))
    return host, port, options
