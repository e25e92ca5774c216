"""The Cacao API as plain functions: validate -> convert -> engine/search -> convert.

:class:`CacaoApi` answers each RPC from its request message alone (the service
is stateless; the tree cache only lets a search continue earlier work). It
knows nothing about the transports: each serves the method table
(:mod:`.methods`), which hands a search handler a :class:`Call` (time left
before the client's deadline and a stop flag that the client's cancellation
sets), and turns its :class:`~.errors.ApiError` into its own error answer.

The rules calls are :mod:`.rules_calls`' functions, the puzzle calls those of
:mod:`.puzzle_calls` (over the puzzles read at startup). Every call that searches
(a suggestion, an analysis, a review) goes through the same steps here and
the :class:`~.scheduler.SearchScheduler` (``gate``): admitted cheaply
(``_check``: a refusal under overload costs next to nothing), then read once
(``_plan``, with :mod:`.searching`'s checks), then queued in its queue class
until a slot (and its trees' memory, under the memory budget) is free; a
background search gives its slot to a waiting interactive one by pausing.
Analyses and reviews report through :mod:`.streams`. Every transport that
calls CacaoApi gets the same scheduling.

Thread-safety: one CacaoApi serves all RPC threads at once. Its only shared
mutable state is the scheduler, the memory budget and the search's
:class:`~cacaoai.search.TreeCache` (trees kept for reuse and pondering), all
thread-safe; every request builds its own engine positions. Searches release
the GIL, so concurrent searches use all cores.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, TypeVar

from cacaoai.api import convert, methods
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.methods import Rpc
from cacaoai.engine import (
    derive_seed,
)
from cacaoai.search import (
    FinishTimes,
    Question,
    Reuse,
    Run,
    SearchResult,
    TreeCache,
    search,
)
from cacaoai.search.adaptive import ADAPTIVE, choose_level
from cacaoai.search.bots import levels as search_levels
from cacaoai.search.bots import rungs as adaptive_rungs
from cacaoai.search.explain import explain_result
from cacaoai.search.review import review

from . import budgets, errors, info, memory, positions, reviews, rules_calls, security, streams
from .budgets import Budget
from .options import ServerOptions
from .puzzle_calls import PuzzleCalls
from .scheduler import BACKGROUND, Request, SearchScheduler, Ticket
from .searching import (
    Admitted,
    Call,
    SearchPlan,
    budget_start,
    forecast_playouts,
    ponder_seat,
    restriction,
    scheduling,
    seat_levels,
)
from .starvation import StarvationGuard
from .streams import Analysis

T = TypeVar("T")

DEFAULT_REPORT_INTERVAL_S = 0.5


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
        self._info: pb.GetServerInfoResponse | None = None
        #: the puzzles served (read once: a bad file stops the server here)
        self.puzzles = PuzzleCalls(o.puzzles)

    # --- information ---

    def get_server_info(self, request: pb.GetServerInfoRequest) -> pb.GetServerInfoResponse:
        """The server's facts, built on the first call: they never change while
        it runs (the reply is shared; nothing may change it)."""
        if self._info is None:
            self._info = info.server_info(self.options, self.levels, self.default_level, self.memory)
        return self._info

    # --- rules ---

    def new_game(self, request: pb.NewGameRequest) -> pb.NewGameResponse:
        return rules_calls.new_game(request)

    def list_legal_actions(self, request: pb.ListLegalActionsRequest) -> pb.ListLegalActionsResponse:
        return rules_calls.list_legal_actions(request)

    def apply_action(self, request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
        return rules_calls.apply_action(request)

    def validate_record(self, request: pb.ValidateRecordRequest) -> pb.ValidateRecordResponse:
        return rules_calls.validate_record(request)

    # --- puzzles ---

    def get_puzzle(self, request: pb.GetPuzzleRequest) -> pb.GetPuzzleResponse:
        return self.puzzles.get_puzzle(request)

    def check_puzzle(self, request: pb.CheckPuzzleRequest) -> pb.CheckPuzzleResponse:
        return self.puzzles.check_puzzle(request)

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
        searched = len(request.decisions) or actions
        return self._check(call, budget, BACKGROUND, budgets.expected_seconds(budget) * max(searched, 1), None)

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
        scheduling(evaluation, ticket, self.gate.clock())
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
                               keep_bytes=reviews.keep_bytes(ticket.reservation, budget),
                               decisions=read.only):
                stream.add(item)

        self._run_behind(ticket, "cacao-review", work, stream.finish)
        return stream

    def _run_behind(self, ticket: Ticket, name: str, work: Callable[[], T],
                    finish: Callable[[Future[T]], None]) -> None:
        """Runs ``work()`` (which waits for `ticket`'s slot) on a thread of its
        own; when it ends, releases the ticket and calls ``finish`` with its future."""
        try:
            running = streams.start_thread(name, work)
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
        rules_calls.require_not_over(loaded.position)
        seat = ponder_seat(request, loaded)
        if seat is None:
            rules_calls.require_decider_visible(loaded)
        levels = seat_levels(request, loaded.position.players, self.levels)
        allow, avoid = restriction(request, loaded, seat)
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
            explain=getattr(request, "explain", False), forecast=forecast_playouts(request))

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
                            multipv=plan.multipv, candidates=plan.multipv, levels=plan.levels,
                            forecast=plan.forecast)
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



