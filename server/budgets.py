"""Search budgets, the search gate, and search results as API evaluations.

- :func:`resolve_budget` turns a request's limits or level, and the
  settings it names, into the :class:`Budget` actually searched, clamped to
  the server's maximums (:func:`request_settings` is the one rule of which
  settings a request searches with);
  :func:`fit_deadline` cuts it to the client's deadline (minus a margin for
  the reply) when the search starts.
- :func:`queue_class`, :func:`expected_seconds` and :func:`tree_need`
  say what the scheduler (:mod:`.scheduler`) needs of a search: its queue
  class (interactive or background), how long it expects to run, and its
  trees' memory.
- :func:`class_priority` and :func:`cpu_priority` pick the CPU priority
  (niceness) a search's threads run at: its queue class's, without breaking
  its time promise. (Two "priorities", kept
  apart by name: the queue class says which search gets a slot first, the
  CPU priority how its threads share the cores.)
- :func:`answer` completes a search result for the API (the limit it ran
  with, final or not); :mod:`cacaoai.api.convert` makes it an Evaluation
  message.

Thread-safety: pure functions of per-request values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.api.methods import Priority, Rpc
from cacaoai.search import ANALYSIS, PLAY, Limit, SearchResult, SearchSettings
from cacaoai.search.bots import Level
from cacaoai.search.limits import PRESETS

from . import errors
from .memory import FAST_ITERATIONS_PER_SECOND, MAX_TREE_NODES, Need
from .options import ServerOptions
from .scheduler import BACKGROUND, INTERACTIVE

MIN_DEADLINE_S = 0.002  # a reply takes about 1-2 ms on loopback
#: A cautious speed of one search thread, iterations a second (slower than any
#: measured one), to turn an iteration budget into the time it may take.
CAUTIOUS_ITERATIONS_PER_SECOND = 50_000
#: The proto's SearchPriority values and the scheduler's queue classes.
QUEUE_CLASSES = {pb.SEARCH_PRIORITY_INTERACTIVE: INTERACTIVE,
                 pb.SEARCH_PRIORITY_BACKGROUND: BACKGROUND}
QUEUE_CLASS_VALUES = {v: k for k, v in QUEUE_CLASSES.items()}


@dataclass(frozen=True)
class Budget:
    """What a search request resolves to: its clamped :class:`Limit` (every
    field set), the settings it plays with, and whether it promised a time.

    Attributes:
        limit: iterations, time and threads after the server's clamps.
        settings: the level's settings; for explicit limits the search's
            defaults, or the analysis settings (``ANALYSIS``) for an analysis.
        timed: the search promised a time: the request or its level set a
            time, or the client set a deadline (the server's max_time cap
            alone is no promise). See :func:`cpu_priority`.
    """

    limit: Limit
    settings: SearchSettings = PLAY
    timed: bool = False

    @property
    def preset(self) -> str:
        """The name of the preset the settings are (a level's: the one they
        are built on, its temperature aside); "" for other settings."""
        return preset_name(self.settings)


def preset_name(settings: SearchSettings) -> str:
    """The name in PRESETS of `settings`, their temperature aside ("" for none)."""
    for name, preset in PRESETS.items():
        if replace(settings, temperature=preset.temperature) == preset:
            return name
    return ""


def level_budgets(levels: dict[str, Level], options: ServerOptions) -> dict[str, Budget]:
    """The named levels of the search as clamped budgets."""
    return {name: clamp(level.limit, options, level.settings, timed=level.limit.time_s is not None)
            for name, level in levels.items()}


def clamp(limit: Limit, options: ServerOptions, settings: SearchSettings | None = None,
          timed: bool = False) -> Budget:
    """The budget within the server's limits; no limit at all means the maximum."""
    iterations = options.max_iterations if limit.iterations is None else min(
        limit.iterations, options.max_iterations)
    time_s = options.max_time_s if limit.time_s is None else min(limit.time_s, options.max_time_s)
    threads = options.search_threads if limit.threads is None else min(
        limit.threads, options.search_threads)
    return Budget(Limit(iterations, time_s, threads), settings or PLAY, timed)


def request_settings(request: Any) -> SearchSettings:
    """The settings a SuggestAction or AnalyzePosition request's limits (or
    no budget) search with: the preset its ``settings`` names; else an
    analysis judges the position with ANALYSIS, while pondering (its
    ``seat``) prepares a move, and the suggestion that continues its tree
    plays with PLAY, as every SuggestAction does.

    Raises:
        errors.ApiError: INVALID_ARGUMENT on ``settings`` for an unknown name.
    """
    if request.settings:
        if request.settings not in PRESETS:
            raise errors.invalid("settings", f"unknown settings {request.settings!r}; the "
                                 f"settings are {', '.join(PRESETS)}")
        return PRESETS[request.settings]
    if isinstance(request, pb.AnalyzePositionRequest) and not request.HasField("seat"):
        return ANALYSIS
    return PLAY


def resolve_budget(request: Any, levels: dict[str, Budget], options: ServerOptions,
                   default_level: str | None) -> Budget:
    """The budget a SuggestAction or AnalyzePosition request asks for, clamped:
    a level's (with its own settings), or limits with the settings of
    :func:`request_settings`.

    Args:
        request: a request with the ``budget`` oneof (limits or level) and ``settings``.
        levels: the clamped level budgets.
        options: the server's limits.
        default_level: the level when the request names none (None: the maximum).

    Raises:
        errors.ApiError: INVALID_ARGUMENT for an unknown level, negative
            limits, or settings that are unknown or named with a level.
    """
    kind = request.WhichOneof("budget")
    if kind == "level" or (kind is None and default_level):
        name = request.level if kind == "level" else default_level
        if name not in levels:
            raise errors.invalid(
                "level", f"unknown level {name!r}; the levels are {', '.join(levels)}",
                ErrorReason.UNKNOWN_LEVEL)
        if request.settings:
            raise errors.invalid("settings", f"the level {name!r}"
                                 f"{'' if kind else ' (no budget given: the default level)'} plays "
                                 "with its own settings: give limits with settings, or no settings")
        return levels[name]
    settings = request_settings(request)
    if kind is None:
        return clamp(Limit(), options, settings)
    with errors.request_fields():
        limit = convert.limit_from_proto(request.limits)
    return clamp(limit, options, settings, timed=limit.time_s is not None)


def require_time(time_remaining: float | None) -> None:
    """Refuses a search whose deadline leaves no time to search and reply.

    Raises:
        errors.ApiError: DEADLINE_EXCEEDED when less than MIN_DEADLINE_S is
            left: no reply could arrive in time, so nothing is searched.
    """
    if time_remaining is not None and time_remaining < MIN_DEADLINE_S:
        raise errors.deadline_exceeded(
            f"the call's deadline leaves {max(time_remaining, 0.0) * 1000:.1f} ms: no time to "
            f"search and reply (at least {MIN_DEADLINE_S * 1000:g} ms)")


def fit_deadline(budget: Budget, time_remaining: float | None, margin_s: float) -> Budget:
    """The budget cut so that the reply leaves before the client's deadline.

    Raises:
        errors.ApiError: see :func:`require_time`.
    """
    if time_remaining is None:
        return budget
    require_time(time_remaining)
    usable = max(time_remaining - margin_s - 0.05 * time_remaining, 0.001)
    limit = budget.limit
    time_s = usable if limit.time_s is None else min(usable, limit.time_s)
    return replace(budget, limit=replace(limit, time_s=time_s), timed=True)


def class_priority(klass: str, options: ServerOptions) -> str:
    """The configured CPU priority of a queue class's searches:
    ``--search-priority`` for interactive ones, ``--background-priority`` for
    background ones (see :func:`cpu_priority` for what a time promise does)."""
    return options.search_priority if klass == INTERACTIVE else options.background_priority


def cpu_priority(budget: Budget, deadline: bool, configured: str, starved: bool = False) -> str:
    """The CPU priority a search runs its trees at: ``configured``, except
    that a search that promised a time (its budget's, or a client's
    ``deadline``) runs no lower than "reduced" while ``starved`` (a
    :class:`~.starvation.StarvationGuard` saw low-priority timed searches
    miss their time).

    A thread at "idle" or "low" yields a core at once to the threads that
    answer calls, but next to other busy processes it may not run for
    seconds, and so cannot stop on time. "reduced" (nice 5) still yields
    a core to the threads that answer calls, but its share never drops to
    nothing, so it notices its deadline within a few scheduler slices. An
    unprivileged thread cannot raise its priority again once lowered, so
    this is decided before the search starts.
    """
    if starved and (budget.timed or deadline) and configured in ("low", "idle"):
        return "reduced"
    return configured


def expected_seconds(budget: Budget) -> float:
    """How long a search of ``budget`` may take: its time budget, or its
    iterations at a cautious speed when that is shorter."""
    limit = budget.limit
    threads = limit.threads or 1
    seconds = limit.time_s if limit.time_s is not None else math.inf
    if limit.iterations is not None:
        seconds = min(seconds, limit.iterations / (CAUTIOUS_ITERATIONS_PER_SECOND * threads))
    return seconds


def queue_class(asked: pb.SearchPriority, budget: Budget, options: ServerOptions, rpc: Rpc,
                role: str = "") -> str:
    """The queue class a search of `rpc` waits in: what the request asks
    (``asked``, a SearchPriority), else the method's default (its row of the
    API's method table: interactive for a SuggestAction, background for an
    analysis or a review); but background where the table holds the method
    or the token's `role` to it (a review, a "background" token), and for a
    search longer than ``interactive_max_time_s``."""
    if rpc.priority_for(role) is Priority.BACKGROUND:
        return BACKGROUND
    wanted = QUEUE_CLASSES.get(asked, INTERACTIVE if rpc.priority is Priority.INTERACTIVE else BACKGROUND)
    if wanted == INTERACTIVE and expected_seconds(budget) > options.interactive_max_time_s:
        return BACKGROUND
    return wanted


def tree_need(budget: Budget, *, seeded: bool, reuse: bool) -> Need:
    """What the trees of a search of ``budget`` need of the memory budget: as
    many nodes a tree as iterations (a tree grows a node an iteration at
    most), or as its time allows at a fast speed; exactly that when the search
    must be reproducible (a seed, no time promised), the server's one size
    when it continues and keeps trees."""
    limit = budget.limit
    threads = limit.threads or 1
    nodes = MAX_TREE_NODES
    if limit.iterations is not None:
        nodes = min(nodes, -(-limit.iterations // threads) + 1)
    if limit.time_s is not None:
        nodes = min(nodes, math.ceil(limit.time_s * FAST_ITERATIONS_PER_SECOND) + 1)
    return Need(nodes, threads, exact=seeded and not budget.timed, reuse=reuse)


def answer(result: SearchResult, budget: Budget, *, final: bool) -> SearchResult:
    """`result` as the API reports it: with the limit and the named settings
    it ran with, and whether it is final."""
    return replace(result, limit=budget.limit, settings=budget.preset, final=final)
