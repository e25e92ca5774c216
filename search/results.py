"""What a search answer is: one family of plain dataclasses shared by the
search (which builds them), the server (which sends them) and the client
(which receives them); :mod:`cacaoai.api.convert` converts them to and from
the ``cacao.v1`` Evaluation message, in one place.

This module imports neither protobuf nor the search extension.

Thread-safety: immutable values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cacaoai.engine import Action

from .forecast import Forecast
from .limits import Limit

__all__ = ["Candidate", "RootInfo", "SearchResult", "SeatOutlook"]


@dataclass(frozen=True)
class SeatOutlook:
    """One seat's prospects under a search."""

    seat: int
    win_probability: float
    expected_gold: float
    score_lead: float


@dataclass(frozen=True)
class Candidate:
    """One root action with its statistics, from the view of the seat choosing it
    (KataGo's moveInfos, python-chess's multipv info).

    Attributes:
        action: the action.
        visits: iterations that went through it (kept ones of a reused tree
            included).
        mean_value: the value the tree maximises (win share plus the weighted
            gold margin).
        win_probability: mean win share of the seat choosing it.
        score_lead: mean final gold margin over the best other seat.
        expected_gold: mean final gold of the seat choosing it.
        prior: the search's preference before any iteration (the share the
            root's progressive widening gives the action, from the greedy
            one-step values); sums to 1 over the root's actions.
        lcb: a lower confidence bound of `win_probability` (the search's
            robust choice measure, as KataGo's lcb).
        order: rank of the candidate in the search's choice, 0 = the best.
        exact: True when `win_probability`, `score_lead` and `expected_gold`
            are the endgame solver's exact values (2 players; with 3-4, what
            the seat choosing gets against all the others together).
        principal_variation: the expected line starting with `action` (only
            for the first MultiPV candidates; empty for the others).

    Figures are None when the action was not searched.
    """

    action: Action
    visits: int
    mean_value: float | None
    win_probability: float | None
    score_lead: float | None
    expected_gold: float | None = None
    prior: float | None = None
    lcb: float | None = None
    order: int = 0
    principal_variation: tuple[Action, ...] = ()
    exact: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "visits": self.visits,
                "mean_value": self.mean_value, "win_probability": self.win_probability,
                "score_lead": self.score_lead, "expected_gold": self.expected_gold,
                "prior": self.prior, "lcb": self.lcb, "order": self.order,
                "principal_variation": [a.to_json() for a in self.principal_variation],
                "exact": self.exact}


@dataclass(frozen=True)
class RootInfo:
    """The root of the search, from the view of the seat to act (KataGo's rootInfo).

    Attributes:
        visits: iterations through the root (kept ones of a reused tree included).
        mean_value, win_probability, score_lead, expected_gold: as for a Candidate.
        reused_visits: visits the root already had when this search started
            (a tree kept from an earlier search continued; 0: a fresh tree).
    """

    visits: int
    mean_value: float
    win_probability: float
    score_lead: float
    expected_gold: float
    reused_visits: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"visits": self.visits, "mean_value": self.mean_value,
                "win_probability": self.win_probability, "score_lead": self.score_lead,
                "expected_gold": self.expected_gold, "reused_visits": self.reused_visits}


@dataclass(frozen=True)
class SearchResult:
    """What a search found.

    Attributes:
        best_action: the action to play (None when the game is over).
        seat: the searching seat (the observer); to_act: the seat choosing now.
        win_probability, expected_gold, score_lead: per seat, estimated over
            the search (exact for a finished game; None when nothing was
            searched, such as a single legal action). Win probabilities sum
            to 1 (shared wins are split).
        candidates: root actions, most visited first (exact ones: best first).
        principal_variation: the most visited line, up to 8 plies. Plies after
            the first are decoded in one determinization in which they are legal,
            so the tiles they take from a future display are a guess.
        stopped_by: "iterations", "time", "stop", "single-action", "exact" or "terminal";
            "" in a report of a search that goes on.
        threads: search threads actually used; nodes: tree nodes built.
        limit: the budget the search ran with, as a server reports it
            (after its clamps and the client's deadline; None: not given, as
            for a direct call of ``cacaoai.search.search``, whose caller
            knows it).
        final: False on an interim report of a search that goes on.
        root: the root's figures (None when nothing was searched).
        population: whose play the win probabilities assume from here on,
            once corrected by a calibration map: "strong" (every seat as the
            level strong plays), a level's name (every seat as it plays) or
            "A vs B" (one seat A, the others B); "" when no map corrected
            them (calibration_map.choose_map).
        settings: the named settings the search ran with (a preset of
            :data:`~cacaoai.search.limits.PRESETS`: "mcts", "analysis",
            "nomodel"), as a server reports it; "" when not given (a direct
            call of ``cacaoai.search.search``, whose caller knows them).
        forecast: every temple's and every seat's score parts' forecast,
            when the question asked for one (Question.forecast).
        exact: True when the endgame solver proved the result: the best
            action is exactly best and the candidates marked exact carry
            exact values. With 2 players every figure is exact (stopped_by
            "exact", no tree searched, `nodes` counts the solver's); with
            3-4, the seat to act's figures are what it gets against all the
            others together (paranoid), the other seats' the tree's, scaled
            to sum to 1.
    """

    best_action: Action | None
    seat: int
    to_act: int | None
    win_probability: tuple[float, ...] | None
    expected_gold: tuple[float, ...] | None
    score_lead: tuple[float, ...] | None
    candidates: tuple[Candidate, ...]
    principal_variation: tuple[Action, ...]
    iterations: int
    elapsed_s: float
    iterations_per_second: float
    stopped_by: str
    threads: int
    nodes: int
    limit: Limit | None = None
    final: bool = True
    root: RootInfo | None = None
    population: str = ""
    settings: str = ""
    forecast: Forecast | None = None
    exact: bool = False

    @property
    def seats(self) -> tuple[SeatOutlook, ...]:
        """Per seat outlooks (empty when nothing was searched)."""
        if self.win_probability is None or self.expected_gold is None:
            return ()
        leads = self.score_lead or (0.0,) * len(self.win_probability)
        return tuple(SeatOutlook(s, w, g, lead) for s, (w, g, lead) in
                     enumerate(zip(self.win_probability, self.expected_gold, leads)))

    def to_json(self) -> dict[str, Any]:
        return {
            "best_action": self.best_action.to_json() if self.best_action else None,
            "seat": self.seat, "to_act": self.to_act,
            "win_probability": _list(self.win_probability),
            "expected_gold": _list(self.expected_gold),
            "score_lead": _list(self.score_lead),
            "candidates": [c.to_json() for c in self.candidates],
            "principal_variation": [a.to_json() for a in self.principal_variation],
            "iterations": self.iterations, "elapsed_s": self.elapsed_s,
            "iterations_per_second": self.iterations_per_second,
            "stopped_by": self.stopped_by, "threads": self.threads, "nodes": self.nodes,
            "limit": self.limit.to_json() if self.limit else None, "final": self.final,
            "root": self.root.to_json() if self.root else None, "population": self.population,
            "settings": self.settings, "exact": self.exact,
        }


def _list(values: tuple[float, ...] | None) -> list[float] | None:
    return None if values is None else list(values)
