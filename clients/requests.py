"""The request messages of the client, built from the caller's values.

The position or record a request is about (its *source*), actions, budgets
and durations go into the messages through :mod:`cacaoai.api.convert`, the
one conversion the server reads them back with; this module only says which
request field gets what. The sync and the asyncio client build their
requests here, so the two cannot drift apart.

Thread-safety: pure functions (each call builds a new message).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from cacaoai.api import Limit, convert, parse_strength
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.engine import Action, Position

__all__ = [
    "STOP", "Actions", "Source", "apply_request", "as_strength", "check_puzzle_request", "legal_actions_request",
    "new_game_request", "ponder_seat", "puzzle_request", "search_request", "validate_request",
]

#: What a method accepts as a position: an engine Position (sent complete), a
#: ``cacao-position/1`` dict (complete, or an observation with ``view``), or a
#: ``cacao-record/1`` dict (replayed by the server).
Source = Position | Mapping[str, Any]

#: Actions as engine Actions or their record dicts (``allow``, ``avoid``).
Actions = Sequence[Action | Mapping[str, Any]]

T = TypeVar("T")

#: The message that stops a running Analyze call (it then sends its final report).
STOP = pb.AnalyzeRequest(stop=pb.StopAnalysis())


def as_strength(strength: Limit | str | None) -> Limit | str | None:
    """A strength as a request carries it: a Limit, a level name, or None
    (the server's default level). Text is read by
    :func:`cacaoai.api.parse_strength`: ``"strong"`` (a level), ``"500"``
    (iterations), ``"2s"`` (seconds), ``"iterations=500,time=2,threads=2"``.

    Raises:
        ValueError: text that is neither a limit nor a level name.
    """
    return parse_strength(strength) if isinstance(strength, str) else strength


def ponder_seat(source: Source, seat: int | None) -> int:
    """The seat to ponder for: ``seat``, else the observation's view.

    Raises:
        ValueError: no seat given and the source is not an observation.
    """
    if seat is not None:
        return seat
    view = source.get("view") if isinstance(source, Mapping) else None
    if view is None:
        raise ValueError("ponder: give seat=, or an observation (a position dict with a view)")
    return view


def new_game_request(players: int, seed: int | None) -> pb.NewGameRequest:
    """A NewGame request (no seed: the server picks one)."""
    request = pb.NewGameRequest(players=players)
    if seed is not None:
        request.seed = seed
    return request


def legal_actions_request(source: Source) -> pb.ListLegalActionsRequest:
    """A ListLegalActions request about ``source``."""
    request = pb.ListLegalActionsRequest()
    convert.set_source(request, source)
    return request


def apply_request(source: Source, action: Action | Mapping[str, Any],
                  expected_position_hash: str = "") -> pb.ApplyActionRequest:
    """An ApplyAction request: ``action`` on ``source``."""
    request = pb.ApplyActionRequest(action=_action_message(action),
                                    expected_position_hash=expected_position_hash)
    convert.set_source(request, source)
    return request


def validate_request(record: Mapping[str, Any] | str) -> pb.ValidateRecordRequest:
    """A ValidateRecord request: a record dict as a message, its JSON text as text
    (which the server then checks strictly)."""
    if isinstance(record, str):
        return pb.ValidateRecordRequest(record_json=record)
    return pb.ValidateRecordRequest(record=convert.record_from_json(dict(record)))


def review_request(record: Mapping[str, Any] | str, limit: Limit | None = None, *,
                   seed: int | None = None, seats: Sequence[int] = (),
                   decisions: Sequence[int] = ()) -> pb.ReviewGameRequest:
    """A ReviewGame request: the record (a dict as a message, JSON text as
    text), each decision's budget (None: the server's default), seed, seats,
    and the decisions reviewed (empty: all of the seats')."""
    request = pb.ReviewGameRequest(seats=list(seats), decisions=list(decisions))
    if isinstance(record, str):
        request.record_json = record
    else:
        request.record.CopyFrom(convert.record_from_json(dict(record)))
    if limit is not None:
        request.limits.CopyFrom(convert.limit_to_proto(limit))
    if seed is not None:
        request.seed = seed
    return request


def puzzle_request(*, theme: str | None = None, min_rating: int | None = None, max_rating: int | None = None,
                   players: int | None = None, exclude: Sequence[str] = (),
                   seed: int | None = None) -> pb.GetPuzzleRequest:
    """A GetPuzzle request: its filters (None: not filtered on) and the ids
    of the puzzles not to draw.

    Raises:
        ValueError: `exclude` given as one string instead of a list of ids.
    """
    if isinstance(exclude, str):
        raise ValueError(f"exclude: give a list of puzzle ids, not the text {exclude!r}")
    request = pb.GetPuzzleRequest(theme=theme or "", exclude=list(exclude))
    for name, value in (("min_rating", min_rating), ("max_rating", max_rating), ("players", players),
                        ("seed", seed)):
        if value is not None:
            setattr(request, name, value)
    return request


def check_puzzle_request(puzzle_id: str, action: Action | Mapping[str, Any]) -> pb.CheckPuzzleRequest:
    """A CheckPuzzle request: ``action`` tried at puzzle ``puzzle_id``."""
    return pb.CheckPuzzleRequest(puzzle_id=puzzle_id, action=_action_message(action))


#: The search priorities a request may ask for (SearchPriority): before or after other searches.
PRIORITIES = {"interactive": pb.SEARCH_PRIORITY_INTERACTIVE, "background": pb.SEARCH_PRIORITY_BACKGROUND}


def search_request(request: T, source: Source, strength: Limit | str | None = None, *,
                   seed: int | None = None, max_candidates: int = 0, allow: Actions = (),
                   avoid: Actions = (), reuse_tree: bool | None = None,
                   report_interval: float | None = None, seat: int | None = None,
                   priority: str | None = None, levels: Sequence[str] = (),
                   settings: str = "", explain: bool = False, forecast: int = 0) -> T:
    """Fills a SuggestAction or AnalyzePosition request (``report_interval``
    and ``seat`` are AnalyzePosition's, ``explain`` SuggestAction's) and
    returns it.

    Raises:
        ValueError: a strength text that is neither a limit nor a level name,
            or a priority other than "interactive" and "background".
    """
    message: Any = request
    convert.set_source(message, source)
    convert.set_budget(message, as_strength(strength))
    message.max_candidates = max_candidates
    if seed is not None:
        message.seed = seed
    message.allow.extend(_action_message(a) for a in allow)
    message.avoid.extend(_action_message(a) for a in avoid)
    if reuse_tree is not None:
        message.reuse_tree = reuse_tree
    if report_interval is not None:
        message.report_interval.CopyFrom(convert.seconds_to_duration(report_interval))
    if seat is not None:
        message.seat = seat
    if priority is not None:
        if priority not in PRIORITIES:
            raise ValueError(f"priority: {priority!r} is not one of {', '.join(PRIORITIES)}")
        message.priority = PRIORITIES[priority]
    if isinstance(levels, str):
        raise ValueError(f"levels: give one level name a seat, not the text {levels!r}")
    message.levels.extend(levels)
    message.settings = settings
    if explain:
        message.explain = True
    if forecast:
        message.forecast = forecast
    return request


def _action_message(action: Action | Mapping[str, Any]) -> pb.Action:
    """The Action message of an engine Action or its dict (checked by the engine's reading)."""
    data = action.to_json() if isinstance(action, Action) else Action.from_json(action).to_json()
    return convert.action_from_json(data)
