"""Locust load test of the Cacao gRPC service, through the project's client library.

    locust -f loadtest/locustfile.py --headless -u 4 -r 4 -t 30s --host 127.0.0.1:50051
    python loadtest/run.py --users 4 --duration 30s        # starts a server too (run.py)

Follows locust's documented pattern for non-HTTP protocols: gRPC is made
gevent-friendly with ``grpc.experimental.gevent.init_gevent()`` before any
channel exists, and every call of :class:`cacaoai.client.CacaoClient` is timed
by a thin wrapper that fires locust's ``request`` event (name, response time,
response length, exception). The client is built with ``retries=0`` so that one
locust request is exactly one RPC, unless ``--retries N`` asks for the client
library's own retry policy (its gRPC service config: every call retried on
UNAVAILABLE, searches also on RESOURCE_EXHAUSTED): one locust request is then
what an application sees, retries included, as in the failover test.
``--seeded`` gives every suggestion a seed (a seeded move request is
idempotent: a retry on another replica asks for the same answer).

Each simulated user picks, per step, one operation at random by weight:

- ``SuggestAction 50ms`` / ``SuggestAction 500ms``: a search of a sampled
  observation (``positions.jsonl``) with a short or a normal time budget;
- ``ListLegalActions``: the legal actions of a sampled observation;
- ``ApplyAction``: the move the recorded game went on with, applied to the
  complete position;
- ``ReviewGame``: the first few decisions of a recorded game
  (``--review-records``) reviewed at a small iteration budget, the stream
  read to its summary (and cancelled if the user stops in the middle).

The default weights (3 short and 1 normal suggestion per 4 legal-action lists
and 4 moves applied) are one game client's traffic per move: it lists the
moves, applies the chosen one, and asks for a hint or a bot move about every
time, mostly at the short budget; a review now and then (weight 0.2: one
call in about 60) is a player looking back at a game.

Settings are locust custom arguments, each also an environment variable (run
``locust -f loadtest/locustfile.py --help``): budgets ``--suggest-short-ms`` /
``--suggest-normal-ms``, weights ``--weight-suggest-short``,
``--weight-suggest-normal``, ``--weight-legal``, ``--weight-apply``,
``--weight-review``, the review's ``--review-records``,
``--review-decisions`` and ``--review-iterations``, think time
``--think-ms``, the pause after a rejection ``--reject-backoff-ms``, deadlines
``--call-timeout``, the data ``--positions`` and ``--raw-latencies`` (a file
that receives one line per request with the exact latency in microseconds:
locust's own statistics round below 100 ms).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import grpc
import grpc.experimental.gevent as grpc_gevent

# before any gRPC object exists (locust has already monkey-patched the stdlib)
grpc_gevent.init_gevent()

from locust import User, events, task  # noqa: E402

from cacaoai.client import CacaoClient, CacaoClientError, Limit  # noqa: E402
from cacaoai.client.connection import retry_service_config  # noqa: E402

HERE = Path(__file__).resolve().parent
RAW_HEADER = "start_unix_s,name,latency_us,status,response_bytes,iterations\n"


@events.init_command_line_parser.add_listener
def _arguments(parser: Any) -> None:
    group = parser.add_argument_group("Cacao load test")
    group.add_argument("--positions", env_var="CACAO_LOAD_POSITIONS",
                       default=str(HERE / "positions.jsonl"),
                       help="sampled positions (loadtest/positions.py writes them)")
    group.add_argument("--suggest-short-ms", type=float, env_var="CACAO_LOAD_SUGGEST_SHORT_MS",
                       default=50.0, help="time budget of a short SuggestAction, ms")
    group.add_argument("--suggest-normal-ms", type=float, env_var="CACAO_LOAD_SUGGEST_NORMAL_MS",
                       default=500.0, help="time budget of a normal SuggestAction, ms")
    group.add_argument("--weight-suggest-short", type=float, env_var="CACAO_LOAD_W_SUGGEST_SHORT",
                       default=3.0, help="weight of short suggestions")
    group.add_argument("--weight-suggest-normal", type=float, env_var="CACAO_LOAD_W_SUGGEST_NORMAL",
                       default=1.0, help="weight of normal suggestions")
    group.add_argument("--weight-legal", type=float, env_var="CACAO_LOAD_W_LEGAL",
                       default=4.0, help="weight of ListLegalActions")
    group.add_argument("--weight-apply", type=float, env_var="CACAO_LOAD_W_APPLY",
                       default=4.0, help="weight of ApplyAction")
    group.add_argument("--weight-review", type=float, env_var="CACAO_LOAD_W_REVIEW",
                       default=0.2, help="weight of ReviewGame")
    group.add_argument("--review-records", env_var="CACAO_LOAD_REVIEW_RECORDS",
                       default=str(HERE.parent / "tests" / "data" / "records.jsonl"),
                       help="recorded games to review (cacao-record/1, one a line)")
    group.add_argument("--review-decisions", type=int, env_var="CACAO_LOAD_REVIEW_DECISIONS",
                       default=4, help="decisions of a game a review judges (its first ones)")
    group.add_argument("--review-iterations", type=int, env_var="CACAO_LOAD_REVIEW_ITERATIONS",
                       default=100, help="search iterations of a reviewed decision")
    group.add_argument("--think-ms", type=float, env_var="CACAO_LOAD_THINK_MS", default=0.0,
                       help="pause of a user between two calls, ms (0: closed loop)")
    group.add_argument("--reject-backoff-ms", type=float, env_var="CACAO_LOAD_REJECT_BACKOFF_MS",
                       default=100.0, help="pause of a user after a RESOURCE_EXHAUSTED answer, ms "
                                           "(a polite client retries later)")
    group.add_argument("--call-timeout", type=float, env_var="CACAO_LOAD_CALL_TIMEOUT",
                       default=5.0, help="deadline of a call, s (a search: its budget plus this)")
    group.add_argument("--retries", type=int, env_var="CACAO_LOAD_RETRIES", default=0,
                       help="retries of the client library's retry policy (0: none, one request "
                            "is one RPC)")
    group.add_argument("--seeded", action="store_true", env_var="CACAO_LOAD_SEEDED", default=False,
                       help="give every suggestion a seed")
    group.add_argument("--raw-latencies", env_var="CACAO_LOAD_RAW", default="",
                       help="file for one CSV line per request with its exact latency "
                            "(the process id is added to the name)")


# --- exact latencies -----------------------------------------------------------

class RawLatencies:
    """Appends one CSV line per request: locust rounds response times to whole ms."""

    def __init__(self) -> None:
        self.file: Any = None

    def open(self, path: str) -> None:
        stem, dot, ext = path.rpartition(".")
        target = f"{stem}.{os.getpid()}.{ext}" if dot else f"{path}.{os.getpid()}"
        self.file = open(target, "w", buffering=1 << 16)
        self.file.write(RAW_HEADER)

    def record(self, request_type: str, name: str, response_time: float, response_length: int,
               exception: BaseException | None = None, context: dict | None = None,
               start_time: float | None = None, **_: Any) -> None:
        if self.file is None:
            return
        status = "OK" if exception is None else _status(exception)
        context = context or {}
        self.file.write(f"{start_time or 0.0:.6f},{name},{round(response_time * 1000)},{status},"
                        f"{response_length},{context.get('iterations', '')}\n")

    def close(self, **_: Any) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


RAW = RawLatencies()


@events.init.add_listener
def _open_raw(environment: Any, **_: Any) -> None:
    path = getattr(environment.parsed_options, "raw_latencies", "")
    if path:
        RAW.open(path)
        environment.events.request.add_listener(RAW.record)


events.quitting.add_listener(RAW.close)


def _status(error: BaseException) -> str:
    """The gRPC status name of a failed call, else the exception's type."""
    if isinstance(error, CacaoClientError):
        return error.code.name
    return type(error).__name__


# --- the positions and records ---------------------------------------------------

_LINES: dict[str, list[dict[str, Any]]] = {}


def json_lines(path: str) -> list[dict[str, Any]]:
    """The JSON objects of ``path``, one a line (sampled positions, or
    records), read once per process."""
    if path not in _LINES:
        with open(path) as f:
            _LINES[path] = [json.loads(line) for line in f if line.strip()]
        if not _LINES[path]:
            raise ValueError(f"{path} holds nothing")
    return _LINES[path]


def opening(record: dict[str, Any], decisions: int) -> dict[str, Any]:
    """A record's first `decisions` actions, without its result (what a
    review of the start of a game is sent)."""
    out = {k: v for k, v in record.items() if k != "result"}
    out["actions"] = record["actions"][:decisions]
    return out


class _ResponseSize(grpc.UnaryUnaryClientInterceptor):
    """Remembers the size of the last unary response (one user, one call at a time)."""

    def __init__(self) -> None:
        self.last = 0

    def intercept_unary_unary(self, continuation: Callable, details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        try:
            self.last = outcome.result().ByteSize()
        except grpc.RpcError:
            self.last = 0
        return outcome


# --- the user --------------------------------------------------------------------

class CacaoUser(User):
    """A game client: lists moves, applies them and asks the AI, on sampled positions."""

    host = "127.0.0.1:50051"

    def on_start(self) -> None:
        options = self.environment.parsed_options
        self.positions = json_lines(options.positions)
        self.timeout = options.call_timeout
        self.think_s = options.think_ms / 1000
        self.reject_backoff_s = options.reject_backoff_ms / 1000
        self.operations = [
            (f"SuggestAction {options.suggest_short_ms:g}ms",
             options.weight_suggest_short, options.suggest_short_ms / 1000),
            (f"SuggestAction {options.suggest_normal_ms:g}ms",
             options.weight_suggest_normal, options.suggest_normal_ms / 1000),
            ("ListLegalActions", options.weight_legal, None),
            ("ApplyAction", options.weight_apply, None),
            ("ReviewGame", options.weight_review, None),
        ]
        self.operations = [op for op in self.operations if op[1] > 0]
        if not self.operations:
            raise ValueError("every weight is 0: nothing to do")
        if options.weight_review > 0:
            self.records = [opening(r, max(1, options.review_decisions))
                            for r in json_lines(options.review_records)]
        self.review_limit = Limit(iterations=max(1, options.review_iterations))
        self.sizes = _ResponseSize()
        self.seeded = options.seeded
        retries = max(0, options.retries)
        settings = [("grpc.enable_retries", 1),  # the client library's own policy
                    ("grpc.service_config", retry_service_config(retries, 0.1, 1.0))] if retries else []
        channel = grpc.intercept_channel(grpc.insecure_channel(self.host, options=settings), self.sizes)
        self.client = CacaoClient(self.host, channel=channel, timeout=self.timeout, retries=retries)

    def on_stop(self) -> None:
        self.client.close()

    @task
    def step(self) -> None:
        name, _, budget_s = random.choices(self.operations,
                                           weights=[op[1] for op in self.operations])[0]
        sample = random.choice(self.positions)
        if name == "ListLegalActions":
            error = self._timed(name, lambda: self.client.legal_actions(sample["observation"]))
        elif name == "ApplyAction":
            error = self._timed(name, lambda: self.client.apply_action(sample["position"], sample["action"]))
        elif name == "ReviewGame":
            error = self._timed(name, lambda: self._review(random.choice(self.records)))
        else:
            seed = random.randrange(2**32) if self.seeded else None
            error = self._timed(name, lambda: self.client.suggest(
                sample["observation"], Limit(time_s=budget_s), seed=seed,
                timeout=budget_s + self.timeout))
        rejected = isinstance(error, CacaoClientError) and (
            error.code == grpc.StatusCode.RESOURCE_EXHAUSTED)
        if rejected and self.reject_backoff_s:
            time.sleep(self.reject_backoff_s)
        elif self.think_s:
            time.sleep(self.think_s)

    def _review(self, record: dict[str, Any]) -> Any:
        """One review read to its summary (returned); a user stopped in the
        middle closes the stream, which cancels the review on the server."""
        seed = random.randrange(2**32) if self.seeded else None
        reports = self.client.review_game(record, self.review_limit, seed=seed,
                                          timeout=self.timeout * (1 + len(record["actions"])))
        with closing(reports):
            return next(r.summary for r in reports if r.summary is not None)

    def _timed(self, name: str, call: Callable[[], Any]) -> BaseException | None:
        """Runs one client call, reports it to locust as one request; returns its error."""
        context: dict[str, Any] = {}
        exception: BaseException | None = None
        result = None
        start = time.time()
        begin = time.perf_counter()
        try:
            result = call()
        except Exception as error:  # a failed request is a statistic, not a crash
            exception = error
        elapsed_ms = (time.perf_counter() - begin) * 1000
        evaluation = getattr(result, "evaluation", None)
        if evaluation is not None:
            context["iterations"] = evaluation.iterations
        streamed = name == "ReviewGame"        # the interceptor sees unary calls only
        if streamed and exception is None:
            context["iterations"] = result.iterations
        self.environment.events.request.fire(
            request_type="grpc", name=name, response_time=elapsed_ms,
            response_length=self.sizes.last if exception is None and not streamed else 0,
            exception=exception, context=context, start_time=start)
        return exception
