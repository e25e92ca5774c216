"""The Cacao API as plain functions: validate -> convert -> engine/search -> convert.

:class:`CacaoApi` answers each RPC from its request message alone (the service
is stateless; the tree cache only lets a search continue earlier work). It
knows nothing about the transports: each serves the method table
(:mod:`.methods`), which hands a search handler a :class:`Call` (time left
before the client's deadline and a stop flag that the client's cancellation
sets), and turns its :class:`~.errors.ApiError` into its own error answer.

Searches go through the :class:`~.scheduler.SearchScheduler` (``gate``):
a search request is checked cheaply (a refusal under overload costs next to
nothing), then read, then queued in its queue class until a slot (and its
trees' memory, under the memory budget) is free; a background search gives
its slot to a waiting interactive one by pausing. Every transport that calls
CacaoApi gets the same scheduling.

Thread-safety: one CacaoApi serves all RPC threads at once. Its only shared
mutable state is the scheduler, the memory budget and the search's
:class:`~cacaoai.search.TreeCache` (trees kept for reuse and pondering), all
thread-safe; every request builds its own engine positions. Searches release
the GIL, so concurrent searches use all cores.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import socket
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, TypeVar

from cacaoai import engine
from cacaoai.api import convert, methods
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.api.methods import Rpc
from cacaoai.engine import (
    Action,
    ActionFormatError,
    CacaoError,
    IllegalActionError,
    Position,
    RecordError,
    derive_seed,
    record_text,
)
from cacaoai.search import (
    FinishTimes,
    Question,
    Reuse,
    Run,
    SearchResult,
    StopFlag,
    TreeCache,
    search,
)
from cacaoai.search.adaptive import ADAPTIVE, choose_level
from cacaoai.search.bots import levels as search_levels
from cacaoai.search.bots import rungs as adaptive_rungs
from cacaoai.search.explain import explain_result
from cacaoai.search.model import load_model
from cacaoai.search.review import review

from . import budgets, errors, memory, positions, reviews, security
from .budgets import Budget
from .options import ServerOptions, reported_limits
from .positions import Loaded
from .scheduler import BACKGROUND, Request, SearchScheduler, Ticket
from .starvation import StarvationGuard

T = TypeVar("T")

API_VERSION = "cacao.v1"
#: ServerLimits fields that no option reports: computed from the options when the server starts
#: (max_tree_nodes: the most nodes a tree of a search with every thread may grow to in the memory budget).
COMPUTED_LIMITS = ("max_tree_nodes",)
DEFAULT_REPORT_INTERVAL_S = 0.5
INSTANCE = f"{socket.gethostname()}/{os.getpid()}"


@dataclass
class Call:
    """What a handler may know of its RPC.

    Attributes:
        time_remaining: seconds left before the client's deadline, or None.
        stop: set when the client cancels or the server shuts down; searches
            poll it and end at once.
        client: who the call counts as for the per-client search limit
            (the transport decides: a token's id, an IP address); a token's
            id also names its role (a "background" token's searches run at
            background priority).
        arrived: when the server had the request (:func:`time.monotonic`
            seconds; None: not known). A search's time budget counts from
            it, less the search's wait for a slot (:func:`budget_start`).
    """

    time_remaining: Callable[[], float | None] = lambda: None
    stop: Any = field(default_factory=StopFlag)
    client: str = ""
    arrived: float | None = None


@dataclass(frozen=True)
class Admitted:
    """A search request past the scheduler's check: its budget and what the
    scheduler needs to know of it (see :meth:`CacaoApi.admit_suggestion`)."""

    budget: Budget
    order: Request


@dataclass(frozen=True)
class SearchPlan:
    """A search request read and checked once, and passed down: what to
    search, for whom, how much, how urgently and by when.

    Attributes:
        call: the call: its deadline (``time_remaining``), stop flag and client.
        seed: the search's seed.
        loaded: the request's source read into a position (and, for a
            record, its last positions).
        budget: the limit and settings (budgets.resolve_budget), clamped to
            the server's; fitted to the deadline when the search starts (after
            its wait for a slot).
        order: what the scheduler knows of the search: its queue class,
            expected time, latest reply and memory need.
        cpu_priority: the CPU priority its trees run at.
        seat: the searching seat (None: the observation's view, else the seat to act).
        allow, avoid: the root's restriction.
        multipv: candidates with a line of their own.
        max_candidates: candidates the reply carries (0: the default).
        cache: the tree cache when this search continues and keeps trees.
        hash: short hash of what the searching seat sees (positions.searched_hash).
        levels: who plays each seat, by level name ("" not known; empty: not said).
        explain: build the suggestion's explanation.
    """

    call: Call
    seed: int
    loaded: Loaded
    budget: Budget
    order: Request
    cpu_priority: str
    seat: int | None = None
    allow: tuple[Action, ...] = ()
    avoid: tuple[Action, ...] = ()
    multipv: int = convert.DEFAULT_CANDIDATES
    max_candidates: int = 0
    cache: TreeCache | None = None
    hash: str = ""
    levels: tuple[str, ...] = ()
    explain: bool = False


def _model_version(settings: Any) -> str:
    """The version of the learned model the levels use ("" for none)."""
    names = sorted({s.model for s in settings if s.uses_model})
    return ", ".join(load_model(name).version for name in names)


@functools.cache
def _version() -> str:
    """The installed cacaoai's version (read once: the package metadata takes
    milliseconds to parse)."""
    try:
        return metadata.version("cacaoai")
    except metadata.PackageNotFoundError:
        return "unknown"


class CacaoApi:
    """Request handlers of the cacao.v1 CacaoService, free of transport code."""

    def __init__(self, options: ServerOptions | None = None, clock: Callable[[], float] | None = None):
        self.options = o = options or ServerOptions()
        memory.tune_malloc()
        cache_bytes = o.tree_cache_bytes
        # the memory budget owns the tree cache, whose limit is what searches leave of it
        self.memory = (memory.MemoryBudget(o.memory_budget_bytes, o.max_searches, cache_bytes)
                       if o.memory_budget_mb else None)
        if self.memory is not None:
            self.trees: TreeCache | None = self.memory.cache  # kept search trees
        else:
            self.trees = TreeCache(cache_bytes) if cache_bytes else None
        scheduler_clock: dict[str, Any] = {"clock": clock} if clock else {}
        #: the search scheduler (slots, queues, pausing, memory)
        self.gate = SearchScheduler(
            o.max_searches, per_client=o.max_client_searches, max_queue=o.max_queue,
            max_wait_s=o.max_queue_wait_s, per_client_interactive=o.max_client_interactive,
            memory=self.memory, **scheduler_clock)
        # token id -> role, so that any transport's Call.client names its role
        self.roles = ({client: role for role, client in security.Tokens.load(o.auth_tokens).roles.values()}
                      if o.auth_tokens else {})
        self.levels = budgets.level_budgets(search_levels(), self.options)
        #: how long a suggestion's reply takes to build once its search returns,
        #: by whether it explains: its time budget's trees stop that much earlier
        self.answering = FinishTimes()
        #: whether timed searches may run at a low CPU priority (other processes may starve them)
        self.starvation = StarvationGuard()
        self.rungs = budgets.level_budgets(adaptive_rungs(), self.options)  # what adaptive plays
        self.default_level = self.options.default_level or (
            "casual" if "casual" in self.levels else next(iter(self.levels)))
        if self.default_level not in self.levels:
            raise ValueError(f"default level {self.default_level!r} is not one of "
                             f"{', '.join(self.levels)}")
        self.rules = convert.rules_facts_to_proto()
        self.model_version = _model_version(level.settings for level in search_levels().values())
        self._info: pb.GetServerInfoResponse | None = None

    # --- information ---

    def get_server_info(self, request: pb.GetServerInfoRequest) -> pb.GetServerInfoResponse:
        """The server's facts, built on the first call: they never change while
        it runs (the reply is shared; nothing may change it)."""
        if self._info is None:
            self._info = self._server_info()
        return self._info

    def _server_info(self) -> pb.GetServerInfoResponse:
        return pb.GetServerInfoResponse(
            api_version=API_VERSION,
            server_version=_version(),
            engine_version=engine.ENGINE_VERSION,
            rules_version=engine.RULES_VERSION,
            record_format=convert.RECORD_FORMAT,
            position_format=convert.POSITION_FORMAT,
            limits=self._limits(),
            levels=[pb.StrengthLevel(name=n, limits=convert.limit_to_proto(b.limit))
                    for n, b in self.levels.items()],
            default_level=self.default_level,
            instance=INSTANCE,
            rules=self.rules,
            model_version=self.model_version,
        )

    def _limits(self) -> pb.ServerLimits:
        """Every field an option reports, from the options' declaration
        (``options.reported_limits``), and the ones computed here (:data:`COMPUTED_LIMITS`)."""
        o = self.options
        limits = pb.ServerLimits(
            max_tree_nodes=self.memory.tree_cap(o.search_threads) if self.memory else 0)
        for name, value in reported_limits(o).items():
            if limits.DESCRIPTOR.fields_by_name[name].message_type is not None:  # a Duration
                getattr(limits, name).CopyFrom(convert.seconds_to_duration(float(value)))
            else:
                setattr(limits, name, value)
        return limits

    # --- rules ---

    def new_game(self, request: pb.NewGameRequest) -> pb.NewGameResponse:
        if not 2 <= request.players <= 4:
            raise errors.invalid("players", f"{request.players} players: must be 2, 3 or 4")
        seed = request.seed if request.HasField("seed") else positions.random_seed()
        position = Position.new(players=request.players, seed=seed)
        return pb.NewGameResponse(
            position=convert.position_from_json(position.snapshot()),
            position_hash=position.hash(),
            record=convert.record_from_json(position.record()),
        )

    def list_legal_actions(self, request: pb.ListLegalActionsRequest) -> pb.ListLegalActionsResponse:
        loaded = positions.load(request, seed=0)
        position = loaded.position
        response = pb.ListLegalActionsResponse(
            position_hash=loaded.hash, phase=convert.PHASES[position.phase],
            standing=convert.standing_to_proto(position))  # public facts only: safe for an observation
        if position.is_over:
            return response
        _require_decider_visible(loaded)
        assert position.to_act is not None  # None only once the game is over
        response.to_act = position.to_act
        convert.legal_actions_to_proto(position, response)
        return response

    def apply_action(self, request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
        if request.WhichOneof("source") == "position" and request.position.HasField("view"):
            raise errors.failed_precondition(
                "position.view",
                "ApplyAction needs a complete position or a record: an observation hides "
                "the tiles the action would draw", ErrorReason.HIDDEN_INFORMATION)
        with errors.request_fields():
            action_json = convert.action_to_json(request.action)
        loaded = positions.load(request)
        if request.expected_position_hash and request.expected_position_hash != loaded.hash:
            raise errors.failed_precondition(
                "expected_position_hash",
                f"the position sent hashes to {loaded.hash}, not {request.expected_position_hash}",
                ErrorReason.POSITION_MISMATCH)
        position = loaded.position
        _require_not_over(position)
        turn = position.turn
        report = positions.apply(position, request.action, action_json)
        response = pb.ApplyActionResponse(
            position=convert.position_from_json(position.snapshot()),
            position_hash=position.hash(),
            action=convert.action_to_proto(report.action),
            standing=convert.standing_to_proto(position),
        )
        _describe(response, report, turn_ended=position.turn > turn or position.is_over)
        if position.is_over:
            response.result.CopyFrom(convert.result_from_json(position.result()))
        if loaded.from_record:
            response.record.CopyFrom(convert.record_from_json(position.record()))
        return response

    def validate_record(self, request: pb.ValidateRecordRequest) -> pb.ValidateRecordResponse:
        kind = request.WhichOneof("source")
        if kind is None:
            raise errors.invalid("record", "required: a record or record_json")
        data: dict | str
        with errors.request_fields():
            data = convert.record_to_json(request.record) if kind == "record" else request.record_json
        try:
            position = Position.from_record(data)
        except RecordError as error:
            response = pb.ValidateRecordResponse(
                valid=False, error_index=error.index, error_message=error.reason)
            if error.index >= 0:
                partial = Position.from_record(data, upto=_count_actions(data, error.index))
                response.actions_replayed = len(partial.history)
                _set_final(response, partial)
            return response
        except CacaoError as error:
            return pb.ValidateRecordResponse(valid=False, error_index=-1, error_message=str(error))
        response = pb.ValidateRecordResponse(valid=True, actions_replayed=len(position.history))
        _set_final(response, position)
        return response

    # --- search ---

    def admit_suggestion(self, request: pb.SuggestActionRequest, call: Call) -> Admitted:
        """A SuggestAction request's budget, refused at once when the
        scheduler would refuse it now: a lock and some arithmetic, so the
        transports run it on the event loop, and a refusal under overload
        waits for no thread.

        Raises:
            errors.ApiError: INVALID_ARGUMENT for a bad budget,
                RESOURCE_EXHAUSTED when no search can start or wait now.
        """
        return self._admit(request, call, methods.BY_NAME["SuggestAction"], self.default_level)

    def admit_analysis(self, request: pb.AnalyzePositionRequest, call: Call) -> Admitted:
        """An AnalyzePosition request's budget, refused at once as
        :meth:`admit_suggestion` says."""
        return self._admit(request, call, methods.BY_NAME["AnalyzePosition"], None)

    def admit_review(self, request: pb.ReviewGameRequest, call: Call) -> Admitted:
        """A ReviewGame request's budget (each decision's), refused at once as
        :meth:`admit_suggestion` says: a review counts against the same slots
        and per-client limits as any search, and always runs as background
        work. Its expected time counts the record's actions when they came as
        a message (JSON text is read later, with the rest of the request)."""
        budget = reviews.review_budget(request, self.options)
        actions = len(request.record.actions) if request.WhichOneof("source") == "record" else 1
        return self._check(call, budget, BACKGROUND, budgets.expected_seconds(budget) * max(actions, 1), None)

    def suggest_action(self, request: pb.SuggestActionRequest, call: Call,
                       admitted: Admitted | None = None) -> pb.SuggestActionResponse:
        """Searches and suggests an action; the search waits for a slot in its
        queue class (interactive unless the request, its budget or its token
        say otherwise) while its deadline allows. `admitted`: the request's
        :meth:`admit_suggestion`, when it ran already."""
        plan = self._plan(request, call, admitted or self.admit_suggestion(request, call))
        kind = (int(plan.explain),)
        ticket = self.gate.acquire(plan.order)
        try:
            budget = self._fitted(plan)
            result = self._search(plan, budget, ticket, answer_s=self.answering.expected(kind))
        finally:
            self.gate.release(ticket)
        searched = time.monotonic()
        evaluation = convert.evaluation_to_proto(budgets.answer(result, budget, final=True),
                                                 plan.max_candidates)
        _scheduling(evaluation, ticket, self.gate.clock())
        response = pb.SuggestActionResponse(
            position_hash=plan.hash, seat=plan.loaded.position.to_act,
            action=evaluation.best_action, evaluation=evaluation)
        if plan.explain:  # milliseconds of Python: only when asked
            explanation = explain_result(plan.loaded.position, result, seed=derive_seed(plan.seed, 1))
            if explanation is not None:
                response.explanation.CopyFrom(convert.explanation_to_proto(explanation))
        if result.stopped_by == "time":  # the searches whose reserve this is
            self.answering.add(kind, time.monotonic() - searched)
        return response

    def start_analysis(self, request: pb.AnalyzePositionRequest, call: Call,
                       notify: Callable[[], None] = lambda: None,
                       admitted: Admitted | None = None) -> Analysis:
        """Checks an AnalyzePosition request and starts its search; the running Analysis.

        The search runs on a thread of its own, which first waits for a slot
        (background unless the request asks otherwise); it holds the slot
        until its budget ends (or ``call.stop``), whether or not anybody
        reads its reports, and gives it up while paused for an interactive
        search. ``notify()`` is called from that thread whenever a report is
        ready to :meth:`Analysis.take`; a search refused after waiting
        finishes the Analysis with that error. `admitted`: the request's
        :meth:`admit_analysis`, when it ran already.

        Raises:
            errors.ApiError: the request is refused at once (nothing runs).
        """
        plan = self._plan(request, call, admitted or self.admit_analysis(request, call))
        interval = DEFAULT_REPORT_INTERVAL_S
        if request.HasField("report_interval"):
            interval = request.report_interval.ToNanoseconds() / 1e9
        interval = max(interval, self.options.min_report_interval_s)
        ticket = self.gate.submit(plan.order)
        analysis = Analysis(plan, notify, ticket, self.gate.clock)

        def work() -> SearchResult:
            self.gate.wait(ticket)
            analysis.budget = self._fitted(plan)
            return self._search(plan, analysis.budget, ticket, on_report=analysis.report,
                                report_every_s=interval)

        self._run_behind(ticket, "cacao-analysis", work, analysis.finish)
        return analysis

    def review_game(self, request: pb.ReviewGameRequest, call: Call,
                    notify: Callable[[], None] = lambda: None,
                    admitted: Admitted | None = None) -> reviews.ReviewStream:
        """Checks a ReviewGame request and starts the review; its running stream.

        The review runs on a thread of its own as one background search: it
        waits for a slot, pauses while interactive searches wait, and ends
        at once when ``call.stop`` is set (no summary then). `admitted`: the
        request's :meth:`admit_review`, when it ran already.

        Raises:
            errors.ApiError: the request is refused at once (nothing runs).
        """
        admitted = admitted or self.admit_review(request, call)
        read = reviews.read_request(request, self.options)
        budget = read.budget
        remaining = call.time_remaining()
        seeded = request.HasField("seed")
        need = None
        if self.memory is not None:
            need = reviews.tree_need(budget, seeded=seeded)
        order = replace(admitted.order, need=need,
                        expected_s=budgets.expected_seconds(budget) * max(read.decisions, 1))
        budgets.require_time(remaining)
        seed = request.seed if seeded else positions.random_seed()
        priority = budgets.cpu_priority(budget, remaining is not None,
                                        budgets.class_priority(order.klass, self.options),
                                        starved=self.starvation.starved())
        ticket = self.gate.submit(order)
        stream = reviews.ReviewStream(read.decisions, notify)

        def work() -> None:
            self.gate.wait(ticket)
            settings = budget.settings
            if ticket.reservation is not None:
                settings = replace(settings, max_nodes=reviews.grown_nodes(ticket.reservation))
            for item in review(read.record, budget.limit, settings, seed=seed, seats=read.seats,
                               stop=call.stop, priority=priority, pause=ticket.pause,
                               on_pause=lambda: self.gate.on_pause(ticket),
                               keep_bytes=reviews.keep_bytes(ticket.reservation, budget)):
                stream.add(item)

        self._run_behind(ticket, "cacao-review", work, stream.finish)
        return stream

    def _run_behind(self, ticket: Ticket, name: str, work: Callable[[], T],
                    finish: Callable[[Future[T]], None]) -> None:
        """Runs ``work()`` (which waits for `ticket`'s slot) on a thread of its
        own; when it ends, releases the ticket and calls ``finish`` with its future."""
        try:
            running = _start_thread(name, work)
        except BaseException:
            self.gate.release(ticket)
            raise

        def finished(done: Future[T]) -> None:
            self.gate.release(ticket)
            finish(done)

        running.add_done_callback(finished)

    def analyze_position(self, request: pb.AnalyzePositionRequest,
                         call: Call) -> Iterator[pb.AnalyzePositionResponse]:
        """Streams the evaluation of one growing search, every report interval.

        Each report adds to the one before (the same trees go on growing);
        the last one is final: when the budget is spent, in time for the
        client's deadline, or when ``call.stop`` ends the search. A reader
        slower than the reports gets the newest one (older ones are
        dropped). Closing the iterator early stops the search.
        """
        ready = threading.Event()
        analysis = self.start_analysis(request, call, ready.set)
        try:
            while not analysis.finished:
                ready.wait()
                ready.clear()
                yield from analysis.take()
        finally:
            call.stop.set()  # ends the search when the stream ends early

    def _admit(self, request: Any, call: Call, rpc: Rpc, default_level: str | None) -> Admitted:
        """A search request's budget (a level's, or limits with the settings
        of budgets.request_settings), past the scheduler's check."""
        budget = budgets.resolve_budget(request, self.levels, self.options, default_level)
        klass = budgets.queue_class(request.priority, budget, self.options, rpc,
                                    role=self.roles.get(call.client, ""))
        return self._check(call, budget, klass, budgets.expected_seconds(budget), budget.limit.time_s)

    def _check(self, call: Call, budget: Budget, klass: str, expected_s: float,
               time_s: float | None) -> Admitted:
        """What the scheduler needs to know of a search, past
        :meth:`SearchScheduler.check`, so that a refusal under overload costs
        next to nothing: every call that searches comes through here."""
        remaining = call.time_remaining()
        order = Request(
            client=call.client, stop=call.stop, time_s=time_s, threads=budget.limit.threads or 1,
            klass=klass, expected_s=expected_s,
            reply_by=(None if remaining is None
                      else self.gate.clock() + remaining - self.options.deadline_margin_s))
        self.gate.check(order)
        return Admitted(budget, order)

    def _plan(self, request: Any, call: Call, admitted: Admitted) -> SearchPlan:
        """An admitted search request read and checked, once, without a slot
        (so that bad requests never hold one): its position, seat, the seats'
        players, restriction and tree reuse."""
        budget, order = admitted.budget, admitted.order
        if request.max_candidates < 0:
            raise errors.invalid("max_candidates", f"{request.max_candidates} is negative: give "
                                 "how many candidates to send (0: the default, "
                                 f"{convert.DEFAULT_CANDIDATES})")
        seed = request.seed if request.HasField("seed") else positions.random_seed()
        cache = self._cache(request)
        loaded = positions.load(request, seed=seed,
                                history=positions.HISTORY_PLIES if cache is not None else 0)
        _require_not_over(loaded.position)
        seat = _ponder_seat(request, loaded)
        if seat is None:
            _require_decider_visible(loaded)
        levels = _seat_levels(request, loaded.position.players, self.levels)
        allow, avoid = _restriction(request, loaded, seat)
        budgets.require_time(call.time_remaining())
        observer = seat if seat is not None else (loaded.view if loaded.view is not None
                                                  else loaded.position.to_act)
        assert observer is not None  # to_act is None only once the game is over, refused above
        seeded = request.HasField("seed")
        if self.memory is not None:
            order = replace(order, need=budgets.tree_need(budget, seeded=seeded,
                                                            reuse=cache is not None))
        return SearchPlan(
            call=call, seed=seed, loaded=loaded, budget=budget, order=order,
            cpu_priority=budgets.cpu_priority(budget, call.time_remaining() is not None,
                                              budgets.class_priority(order.klass, self.options),
                                              starved=self.starvation.starved()),
            seat=seat, allow=allow, avoid=avoid,
            multipv=request.max_candidates or convert.DEFAULT_CANDIDATES,
            max_candidates=request.max_candidates, cache=cache,
            hash=positions.searched_hash(loaded, observer), levels=levels,
            explain=getattr(request, "explain", False))

    def _fitted(self, plan: SearchPlan) -> Budget:
        """The plan's budget fitted to what is left of its deadline now, as
        its search starts (after its wait for a slot); the adaptive level's
        is the level it picks for this move from the game so far."""
        budget = plan.budget
        if budget is self.levels.get(ADAPTIVE):  # the adaptive level's own object (strong's budget is equal)
            budget = self.rungs[choose_level(plan.loaded.position, plan.seed, plan.seat).level]
        return budgets.fit_deadline(budget, plan.call.time_remaining(),
                                      self.options.deadline_margin_s)

    def _cache(self, request: Any) -> TreeCache | None:
        """The tree cache if the request continues and keeps trees: as it
        says, else when it gives no seed (a seeded search stays deterministic)."""
        if request.HasField("reuse_tree"):
            return self.trees if request.reuse_tree else None
        return None if request.HasField("seed") else self.trees

    def _search(self, plan: SearchPlan, budget: Budget, ticket: Ticket,
                on_report: Callable[[SearchResult], None] | None = None,
                report_every_s: float = DEFAULT_REPORT_INTERVAL_S, answer_s: float = 0.0) -> SearchResult:
        """Searches as `plan` says with `budget` (the plan's, fitted to the
        deadline), under `ticket` (its pause flag, its trees' max_nodes and
        memory); its result (and the interim ones to `on_report`), each with
        a best action. `answer_s`: the time the reply takes to build after
        it (``Run.answer_s``).

        The search's Python work runs in the calling thread, its trees on
        threads at the plan's CPU priority.
        """
        loaded = plan.loaded
        settings = budget.settings
        if ticket.max_nodes is not None:
            settings = replace(settings, max_nodes=ticket.max_nodes)

        def complete(result: SearchResult) -> SearchResult:
            # No best action only when no iteration ran and the searching seat is not
            # the one choosing (no safe default of its own); the actions are public then.
            if result.best_action is not None:
                return result
            return replace(result, best_action=loaded.position.legal_actions()[0])

        question = Question(seat=loaded.view if plan.seat is None else plan.seat,
                            known_hands=loaded.known_hands, allow=plan.allow, avoid=plan.avoid,
                            multipv=plan.multipv, candidates=plan.multipv, levels=plan.levels)
        run = Run(stop=plan.call.stop, pause=ticket.pause, on_pause=lambda: self.gate.on_pause(ticket),
                  on_report=(lambda r: on_report(complete(r))) if on_report else None,
                  report_every_s=report_every_s, cpu_priority=plan.cpu_priority,
                  started=budget_start(plan.call, ticket), answer_s=answer_s)
        reuse = Reuse(plan.cache, loaded.history) if plan.cache is not None else None
        holding = self.memory.holding(ticket.reservation) if self.memory else contextlib.nullcontext()
        with holding:  # trees put in the cache take the search's reservation
            result = search(loaded.position, budget.limit, settings, seed=plan.seed,
                            question=question, run=run, reuse=reuse)
        if result.stopped_by == "time" and budget.limit.time_s is not None and ticket.paused_s == 0:
            self.starvation.observe(plan.cpu_priority, result.elapsed_s - budget.limit.time_s)
        return complete(result)


class Analysis:
    """A running AnalyzePosition search and the reports it has ready.

    The search thread calls :meth:`report` and :meth:`finish`; the stream
    calls :meth:`take`. Only the newest report waits to be taken: a client
    slower than the search skips reports, and memory stays bounded.

    Thread-safe.
    """

    def __init__(self, plan: SearchPlan, notify: Callable[[], None], ticket: Ticket | None = None,
                 clock: Callable[[], float] | None = None):
        self._max_candidates, self._loaded, self._hash = plan.max_candidates, plan.loaded, plan.hash
        self.budget = plan.budget  # fitted to the deadline when the search starts after its wait
        self._notify = notify
        self._ticket, self._clock = ticket, clock
        self._lock = threading.Lock()
        self._latest: SearchResult | None = None
        self._final: Future[SearchResult] | None = None
        self._sequence = 0
        self.finished = False  # the final report has been taken

    def report(self, result: SearchResult) -> None:
        with self._lock:
            self._latest = result
        self._notify()

    def finish(self, done: Future[SearchResult]) -> None:
        with self._lock:
            self._final = done
        self._notify()

    def take(self) -> list[pb.AnalyzePositionResponse]:
        """The reports ready now: the newest interim one, or the final one.

        Raises:
            Exception: the search's own error, with the final report.
        """
        with self._lock:
            if self.finished:
                return []
            if self._final is not None:
                self.finished = True
                result, final = self._final.result(), True
            elif self._latest is not None:
                result, final = self._latest, False
            else:
                return []
            self._latest = None
            sequence, self._sequence = self._sequence, self._sequence + 1
        evaluation = convert.evaluation_to_proto(budgets.answer(result, self.budget, final=final),
                                                 self._max_candidates)
        if self._ticket is not None and self._clock is not None:
            _scheduling(evaluation, self._ticket, self._clock())
        return [pb.AnalyzePositionResponse(
            position_hash=self._hash,
            seat=self._loaded.position.to_act,
            sequence=sequence,
            evaluation=evaluation,
        )]


async def analysis_reports(start: Callable[[Callable[[], None]], Awaitable[Analysis | reviews.ReviewStream]],
                           problems: list[errors.ApiError] | None = None,
                           within: str = "") -> AsyncGenerator[Any, None]:
    """An analysis's reports (or a review's messages) on the event loop, as
    the search makes them ready, until the final one: what the gRPC and the
    HTTP transports stream.

    Args:
        start: ``start(notify)`` starts the analysis (see
            :meth:`CacaoApi.start_analysis`); ``notify`` may be called from
            any thread.
        problems: filled by another task when the client sends something
            wrong mid-stream: the reports then end with that error.
        within: the field holding the request in the call's message (its
            errors name their fields under it).

    Raises:
        errors.ApiError: the start's, or the first of ``problems``.
    """
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()

    def notify() -> None:  # from the search thread
        with contextlib.suppress(RuntimeError):  # the loop has closed
            loop.call_soon_threadsafe(ready.set)

    try:
        analysis = await start(notify)
    except errors.ApiError as error:
        raise (errors.within(error, within) if within else error) from None
    while not analysis.finished:
        await ready.wait()
        ready.clear()
        for report in analysis.take():
            if problems:
                raise problems[0]
            yield report


# --- helpers ------------------------------------------------------------------

def _start_thread(name: str, work: Callable[[], T]) -> Future[T]:
    """Runs ``work()`` on a new daemon thread; its future."""
    future: Future[T] = Future()

    def body() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work())
        except BaseException as error:  # noqa: BLE001 - the future raises it in the caller
            future.set_exception(error)

    threading.Thread(target=body, name=name, daemon=True).start()
    return future


def budget_start(call: Call, ticket: Ticket) -> float | None:
    """When a search's time budget began (time.monotonic() seconds): the
    call's arrival plus the search's wait for a slot, so that reading and
    admitting the request count and waiting in the queue does not (a queued
    search under load keeps its whole budget); never later than now. None
    when the call does not know its arrival: the search's own start."""
    if call.arrived is None:
        return None
    return min(time.monotonic(), call.arrived + max(0.0, ticket.queued_s))


def _scheduling(evaluation: pb.Evaluation, ticket: Ticket, now: float) -> None:
    """The class a search ran at, its wait for a slot and its pauses so far
    (each absent when none), into its evaluation."""
    evaluation.priority = budgets.QUEUE_CLASS_VALUES[ticket.klass]
    if ticket.queued_s > 0:
        evaluation.queued.CopyFrom(convert.seconds_to_duration(ticket.queued_s))
    paused = ticket.paused_s + (now - ticket.paused_at if ticket.paused_at is not None else 0.0)
    if paused > 0:
        evaluation.paused.CopyFrom(convert.seconds_to_duration(paused))


def _require_not_over(position: Position) -> None:
    if position.is_over:
        raise errors.failed_precondition(
            "position.phase", "the game is over: nobody acts", ErrorReason.GAME_OVER)


def _ponder_seat(request: Any, loaded: Loaded) -> int | None:
    """The seat an AnalyzePosition request ponders for (None: not given).

    Raises:
        errors.ApiError: INVALID_ARGUMENT on ``seat`` for no such seat, or a
            seat whose observation the request does not give.
    """
    if "seat" not in request.DESCRIPTOR.fields_by_name or not request.HasField("seat"):
        return None
    seat, players = request.seat, loaded.position.players
    if not 0 <= seat < players:
        raise errors.invalid("seat", f"seat {seat} does not exist: the game has seats "
                             f"0..{players - 1}")
    if loaded.view is not None and seat != loaded.view:
        raise errors.invalid(
            "seat", f"the position is seat {loaded.view}'s observation: pondering for seat "
            f"{seat} needs seat {seat}'s observation (or a complete position or a record)")
    return seat


def _seat_levels(request: Any, players: int, known: Collection[str]) -> tuple[str, ...]:
    """Who plays each seat, as the request's ``levels`` say: one level name
    (of `known`) or "" a seat, or nothing.

    Raises:
        errors.ApiError: INVALID_ARGUMENT on ``levels`` for another length, on
            ``levels[i]`` (reason UNKNOWN_LEVEL) for an unknown name.
    """
    levels = tuple(request.levels)
    if not levels:
        return ()
    if len(levels) != players:
        raise errors.invalid("levels", f"{len(levels)} level{'s' * (len(levels) != 1)} for "
                             f"{players} seats: give one a "
                             "seat (\"\" for a player not known), or none")
    for i, name in enumerate(levels):
        if name and name not in known:
            raise errors.invalid(f"levels[{i}]", f"unknown level {name!r}; the levels are "
                                 f"{', '.join(known)}", ErrorReason.UNKNOWN_LEVEL)
    return levels


def _restriction(request: Any, loaded: Loaded,
                 seat: int | None) -> tuple[tuple[Action, ...], tuple[Action, ...]]:
    """The request's allow and avoid lists as engine actions, each checked
    legal, with something left to search.

    Raises:
        errors.ApiError: INVALID_ARGUMENT naming the field (``allow[1].place.x``;
            reason ILLEGAL_ACTION for an illegal action), or on ``avoid`` when
            no action is left.
    """
    if not request.allow and not request.avoid:
        return (), ()
    position = loaded.position
    field = "allow" if request.allow else "avoid"
    observer = position.to_act if seat is None else seat
    if observer != position.to_act and position.to_act not in loaded.known_hands:
        raise errors.invalid(field, f"seat {observer} cannot see the hand of seat "
                             f"{position.to_act}, the seat to act, so its actions are not known")
    lists = []
    for name in ("allow", "avoid"):
        chosen = []
        for i, message in enumerate(getattr(request, name)):
            path = f"{name}[{i}]"
            with errors.request_fields():
                data = convert.action_to_json(message, path)
            try:
                position.encode(data)
            except (IllegalActionError, ActionFormatError) as error:
                raise positions.illegal_action(str(error), message.WhichOneof("kind") or "",
                                               path) from None
            chosen.append(Action.from_json(data))
        lists.append(tuple(chosen))
    allow, avoid = lists
    if not any((not allow or a in allow) and a not in avoid for a in position.legal_actions()):
        raise errors.invalid("avoid", "no legal action is left to search"
                             + (" of those allowed" if allow else ""))
    return allow, avoid


def _require_decider_visible(loaded: Loaded) -> None:
    """An observation must show the hand of the seat that places."""
    position = loaded.position
    if loaded.view is None or position.phase != "turn":
        return
    to_act = position.to_act
    if to_act == loaded.view or to_act in loaded.known_hands:
        return
    raise errors.failed_precondition(
        "position.view",
        f"seat {to_act} is to act but its hand is hidden from seat {loaded.view}: send seat "
        f"{to_act}'s observation, or its hand in position.seats[{to_act}].hand",
        ErrorReason.HIDDEN_INFORMATION)


def _count_actions(data: dict | str, index: int) -> int:
    """How many actions of a record replay before the error at ``index``."""
    record: dict
    if isinstance(data, str):
        try:
            record = json.loads(data)
        except ValueError:
            return 0
    else:
        record = data
    return min(index, len(record.get("actions", [])))


def _set_final(response: pb.ValidateRecordResponse, position: Position) -> None:
    """The position after the legal actions, how it stands, and the record so far."""
    response.position.CopyFrom(convert.position_from_json(position.snapshot()))
    response.position_hash = position.hash()
    response.standing.CopyFrom(convert.standing_to_proto(position))
    record = position.record()
    response.record.CopyFrom(convert.record_from_json(record))
    response.record_json = record_text(record)
    if position.is_over:
        response.result.CopyFrom(convert.result_from_json(position.result()))


def _describe(response: pb.ApplyActionResponse, report: Any, turn_ended: bool) -> None:
    """Fills what happened: tiles placed, activations, gains and draws."""
    for tile in report.placed:
        if tile["tile"] in convert.WORKER_TILES:
            source = pb.TILE_SOURCE_HAND
        elif tile.get("blind"):
            source = pb.TILE_SOURCE_DECK
        else:
            source = pb.TILE_SOURCE_DISPLAY
        clean = {k: v for k, v in tile.items() if k != "blind"}
        response.placed.add(tile=convert.board_tile_from_json(clean), source=source)
    for a in report.activations:
        response.activations.add(
            seat=a["seat"], x=a["x"], y=a["y"], direction=convert.direction_enum(a["side"]),
            jungle=convert.JUNGLE_TILES[a["tile"]], workers=a["workers"])
    for seat, gains in enumerate(report.gains):
        if any(gains.values()):
            response.gains.add(seat=seat, **gains)
    response.turn_ended = turn_ended
    if turn_ended:
        draws = pb.Draws(worker_tile_drawn=bool(report.drew))
        if report.drawn is not None:
            draws.worker_tile = convert.WORKER_TILES[report.drawn]
        draws.display_refill.extend(convert.JUNGLE_TILES[t] for t in report.refill)
        response.draws.CopyFrom(draws)
