"""Exact endgame solver: the friendly face of the compiled ``_endgame`` module.

``solve(position, seat, max_nodes)`` gives each root action's exact win share
and gold margin for ``seat`` once nothing is hidden (``fully_known``: every
draw pile is empty), with the jungle deck's draws as chance nodes. Values are
compared as (win share, margin); with 3-4 players the other seats are taken
as one coalition against ``seat`` (paranoid), so a 3-4 player value is a
guaranteed lower bound of what ``seat`` gets, exact only against that rule.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cacaoai.engine import Position
from cacaoai.search import _endgame


@dataclass(frozen=True)
class ActionValue:
    """One root action's exact value for the solving seat."""

    code: int
    share: float    # expected win share (1 sole win, 1/n shared, 0 lost)
    margin: float   # expected final gold minus the best other seat's


@dataclass(frozen=True)
class EndgameResult:
    """What a solve found; ``actions`` is empty unless ``proved``."""

    proved: bool
    seat: int
    actions: tuple[ActionValue, ...]
    nodes: int
    elapsed: float
    stopped: str    # "proved" or "nodes" (the node budget ended it)

    @property
    def best(self) -> tuple[int, ...]:
        """Codes of every action with the best (share, margin)."""
        if not self.actions:
            return ()
        top = max((a.share, a.margin) for a in self.actions)
        return tuple(a.code for a in self.actions
                     if abs(a.share - top[0]) < 1e-9 and abs(a.margin - top[1]) < 1e-6)


def fully_known(position: Position) -> bool:
    """True when nothing is hidden from any seat: every draw pile is empty."""
    return _endgame.fully_known(position.core)


def solve(position: Position, seat: int | None = None, max_nodes: int = 1_000_000) -> EndgameResult:
    """Solve `position` for `seat` (default: the seat to act) within `max_nodes`
    searched nodes; ValueError naming the field on bad input."""
    if seat is None:
        seat = position.to_act if position.to_act is not None else -1
    start = time.perf_counter()
    codes, shares, margins, nodes, proved = _endgame.solve_root(position.core, seat, max_nodes)
    actions = tuple(ActionValue(c, s, m) for c, s, m in zip(codes, shares, margins)) if proved else ()
    return EndgameResult(proved, seat, actions, nodes, time.perf_counter() - start,
                         "proved" if proved else "nodes")
