"""What a searching call is made of, and the checks of its request: the
:class:`Call` a transport hands a handler, a request past the scheduler's
check (:class:`Admitted`), the request read and checked once
(:class:`SearchPlan`), the fields only searches have (the pondering seat,
the seats' levels, the root's restriction), when a search's time budget
begins, and the scheduling facts its evaluation reports.

Every call that searches (suggestions, analyses, reviews) is admitted by
``CacaoApi._check`` from these pieces (:mod:`.handlers`).

Thread-safety: immutable values and pure functions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import Action, ActionFormatError, IllegalActionError
from cacaoai.search import StopFlag, TreeCache

from . import budgets, errors, positions
from .budgets import Budget
from .positions import Loaded
from .scheduler import Request, Ticket


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
        forecast: playouts of the evaluation's forecast (0: none).
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
    forecast: int = 0


def budget_start(call: Call, ticket: Ticket) -> float | None:
    """When a search's time budget began (time.monotonic() seconds): the
    call's arrival plus the search's wait for a slot, so that reading and
    admitting the request count and waiting in the queue does not (a queued
    search under load keeps its whole budget); never later than now. None
    when the call does not know its arrival: the search's own start."""
    if call.arrived is None:
        return None
    return min(time.monotonic(), call.arrived + max(0.0, ticket.queued_s))


def scheduling(evaluation: pb.Evaluation, ticket: Ticket, now: float) -> None:
    """The class a search ran at, its wait for a slot and its pauses so far
    (each absent when none), into its evaluation."""
    evaluation.priority = budgets.QUEUE_CLASS_VALUES[ticket.klass]
    if ticket.queued_s > 0:
        evaluation.queued.CopyFrom(convert.seconds_to_duration(ticket.queued_s))
    paused = ticket.paused_s + (now - ticket.paused_at if ticket.paused_at is not None else 0.0)
    if paused > 0:
        evaluation.paused.CopyFrom(convert.seconds_to_duration(paused))


#: The most playouts a forecast may ask for.
MAX_FORECAST_PLAYOUTS = 100_000


def forecast_playouts(request: Any) -> int:
    """The playouts of the forecast a request asks for (0: none).

    Raises:
        errors.ApiError: INVALID_ARGUMENT on ``forecast`` for a negative or absurd count.
    """
    playouts = getattr(request, "forecast", 0)
    if not 0 <= playouts <= MAX_FORECAST_PLAYOUTS:
        raise errors.invalid("forecast", f"{playouts} playouts: give 0 (no forecast) to "
                             f"{MAX_FORECAST_PLAYOUTS:,}")
    return playouts


def ponder_seat(request: Any, loaded: Loaded) -> int | None:
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


def seat_levels(request: Any, players: int, known: Collection[str]) -> tuple[str, ...]:
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


def restriction(request: Any, loaded: Loaded,
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
