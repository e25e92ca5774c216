"""ReviewGame's request read and checked, and its stream of reports.

:func:`read_request` turns a ReviewGameRequest into what the review needs (the
record as a dict, the seats, the budget of each decision, the decisions it
will report), with INVALID_ARGUMENT errors that name the field at fault;
:class:`ReviewStream` carries the messages from the review's thread to the
transport's stream (a :class:`~.streams.ReportStream`, as an analysis's
reports are).

Thread-safety: ReviewStream is thread-safe; the functions are pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import CacaoError, Position, parse_record
from cacaoai.search import ANALYSIS
from cacaoai.search.review import CACHE_BYTES, DEFAULT_LIMIT, DecisionReview, ReviewSummary
from cacaoai.search.review import movers as review_movers

from . import budgets, errors, positions
from .budgets import Budget
from .memory import MAX_TREE_NODES, Need, Reservation, tree_bytes
from .options import ServerOptions
from .streams import ReportStream

#: A seat's tree is continued from one decision to its next, so it grows past
#: one search's nodes: the nodes a review's tree may grow to, in budgets.
REUSED_TREES = 4


@dataclass(frozen=True)
class ReviewRequest:
    """A ReviewGame request read: the record, the seats reviewed, the budget
    of each decision, how many decisions the review reports, and the ones
    asked for (None: every decision of the seats)."""

    record: dict
    seats: tuple[int, ...]
    budget: Budget
    decisions: int
    only: tuple[int, ...] | None = None


def read_request(request: pb.ReviewGameRequest, options: ServerOptions) -> ReviewRequest:
    """The request checked: a record that replays, seats of the game, a
    bounded budget (clamped to the server's limits).

    Raises:
        errors.ApiError: INVALID_ARGUMENT naming the field (INVALID_RECORD
            for the record, INVALID_REQUEST for the budget or a seat).
    """
    budget = review_budget(request, options)
    record = _record(request)
    players = record["players"]
    seats = []
    for i, seat in enumerate(request.seats):
        if not 0 <= seat < players:
            raise errors.invalid(f"seats[{i}]", f"seat {seat} does not exist: the game has seats "
                                 f"0..{players - 1}")
        if seat in seats:
            raise errors.invalid(f"seats[{i}]", f"seat {seat} is listed twice")
        seats.append(seat)
    reviewed = tuple(sorted(seats)) if seats else tuple(range(players))
    movers = review_movers(Position.from_record(record, 0), record["actions"])
    only = None
    if request.decisions:
        only = []
        for i, index in enumerate(request.decisions):
            if not 0 <= index < len(movers):
                raise errors.invalid(f"decisions[{i}]", f"{index} is not the index of an action: the record "
                                     f"has actions 0..{len(movers) - 1}")
            if movers[index] not in reviewed:
                raise errors.invalid(f"decisions[{i}]", f"action {index} is seat {movers[index]}'s, and "
                                     f"that seat is not reviewed")
            if index in only:
                raise errors.invalid(f"decisions[{i}]", f"action {index} is listed twice")
            only.append(index)
    count = len(only) if only is not None else sum(mover in reviewed for mover in movers)
    return ReviewRequest(record, reviewed, budget, count, None if only is None else tuple(only))


def review_budget(request: pb.ReviewGameRequest, options: ServerOptions) -> Budget:
    """Each decision's budget: the request's limits (iterations or a time
    required), else the review's default, clamped to the server's."""
    if not request.HasField("limits"):
        return budgets.clamp(DEFAULT_LIMIT, options, ANALYSIS)
    with errors.request_fields():
        limit = convert.limit_from_proto(request.limits)
    if limit.iterations is None and limit.time_s is None:
        raise errors.invalid("limits", "a review needs a budget for each decision: set "
                             "limits.iterations or limits.time (or leave limits out for "
                             f"{DEFAULT_LIMIT.iterations} iterations)")
    return budgets.clamp(limit, options, ANALYSIS, timed=limit.time_s is not None)


def tree_need(budget: Budget, *, seeded: bool) -> Need:
    """What a review's trees need of the memory budget: the tree it grows (up
    to :data:`REUSED_TREES` searches' nodes, continued from one decision to
    the seat's next), and as much again for the trees it keeps meanwhile for
    every seat's next decision (:func:`grown_nodes`, :func:`keep_bytes`)."""
    need = budgets.tree_need(budget, seeded=seeded, reuse=False)
    return replace(need, nodes=min(need.nodes * REUSED_TREES * 2, MAX_TREE_NODES))


def grown_nodes(reservation: Reservation) -> int:
    """The max_nodes of a review's trees: half its reservation's, the other
    half being for the trees it keeps."""
    return max(2, reservation.max_nodes // 2)


def keep_bytes(reservation: Reservation | None, budget: Budget) -> int:
    """The most bytes of trees a review keeps between decisions: its
    reservation less the trees it grows (each within :func:`grown_nodes`),
    so that everything it holds stays within what it reserved; the search's
    own bound when the server has no memory budget."""
    if reservation is None:
        return CACHE_BYTES
    growing = (budget.limit.threads or 1) * tree_bytes(grown_nodes(reservation))
    return max(0, reservation.nbytes - growing)


def _record(request: pb.ReviewGameRequest) -> dict:
    """The request's record as a cacao-record/1 dict that replays to its end."""
    kind = request.WhichOneof("source")
    if kind is None:
        raise errors.invalid("record", "required: a record or record_json")
    if kind == "record":
        with errors.request_fields():
            data = convert.record_to_json(request.record)
        positions.load_record(data)
        return data
    try:
        data = parse_record(request.record_json)
        Position.from_record(data)
    except CacaoError as error:
        raise errors.invalid("record_json", str(error), ErrorReason.INVALID_RECORD) from None
    return data


class ReviewStream(ReportStream[DecisionReview | ReviewSummary, pb.ReviewGameResponse]):
    """The messages of a running review: every decision, then the summary,
    each kept until taken (a review has one per decision)."""

    keep_all = True

    def __init__(self, decisions: int, notify: Callable[[], None]):
        super().__init__(notify)
        self.decisions = decisions

    def add(self, item: DecisionReview | ReviewSummary) -> None:
        self.put(item)

    def message(self, item: DecisionReview | ReviewSummary, sequence: int) -> pb.ReviewGameResponse:
        message = pb.ReviewGameResponse(decisions=self.decisions, sequence=sequence)
        if isinstance(item, ReviewSummary):
            message.summary.CopyFrom(convert.review_summary_to_proto(item))
        else:
            message.decision.CopyFrom(convert.decision_review_to_proto(item))
        return message
