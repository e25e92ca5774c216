"""Exact endgame solver: the friendly face of the compiled ``_endgame`` module.

``solve(position, seat, ...)`` gives each root action's exact win share and
gold margin for ``seat`` once nothing is hidden (``fully_known``: every draw
pile is empty), with the jungle deck's draws as chance nodes. Values are
compared as (win share, margin); with 3-4 players the other seats are taken
as one coalition against ``seat`` (paranoid), so a 3-4 player value is a
guaranteed lower bound of what ``seat`` gets, exact only against that rule.

A solve ends at the first of its node budget, its time and a stop flag; it is
``proved`` only when every root action asked for was solved. With ``threads``
the root actions are shared out round-robin, each thread with a node budget
and a transposition table of its own, so a node budget proves or not the same
way on every run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from cacaoai.engine import Position
from cacaoai.search import _endgame
from cacaoai.search._mcts import PRIORITIES, StopFlag, action_values, monotonic

__all__ = ["NODES_PER_ITERATION", "NODES_PER_SECOND", "PROVES_WITHIN", "ActionValue", "EndgameResult",
           "fully_known", "node_budget", "placements_left", "solve", "worth_trying"]

#: The nodes a search's solver may spend for each iteration of an iteration
#: budget (a late-game iteration of `strong` costs about as much time as 60
#: nodes; the solver is given more, as an exact answer is worth more).
NODES_PER_ITERATION = 200
#: The nodes a second of a time budget stands for (about the rate of one core
#: here, 7 M a second, less a margin; only to decide whether to try: the solve
#: itself stops at its deadline).
NODES_PER_SECOND = 6_000_000
#: The most nodes a search's solver spends (an analysis without a budget).
MAX_NODES = 20_000_000
#: By player count and placements left, the nodes within which the solver
#: proves half of the positions of `strong` self-play (their median, 500
#: games a player count), printed by ``benchmarks/bench_endgame.py reach``;
#: it is tried only where its budget reaches them, and not beyond the table.
PROVES_WITHIN: dict[int, dict[int, int]] = {
    2: {0: 1, 1: 73, 2: 712, 3: 16_835, 4: 100_358, 5: 2_201_227},
    3: {0: 1, 1: 118, 2: 704, 3: 29_900, 4: 426_856, 5: 7_785_464},
    4: {0: 1, 1: 76, 2: 372, 3: 10_544, 4: 544_999, 5: 6_458_799},
}


@dataclass(frozen=True)
class ActionValue:
    """One root action's exact value for the solving seat."""

    code: int
    share: float    # expected win share (1 sole win, 1/n shared, 0 lost)
    margin: float   # expected final gold minus the best other seat's
    gold: float     # expected final gold along the lines valued (ties in share
                    # and margin may hide other golds: it is not compared)


@dataclass(frozen=True)
class EndgameResult:
    """What a solve found; ``actions`` is empty unless ``proved``, and then
    best first (by share, then margin, then code). ``worse``: the codes
    proved worse than the best without their exact values (a solve asked
    for only some values)."""

    proved: bool
    seat: int
    actions: tuple[ActionValue, ...]
    nodes: int
    elapsed: float
    stopped: str    # "proved", or what ended it first: "nodes", "time" or "stop"
    worse: tuple[int, ...] = ()

    @property
    def best(self) -> tuple[int, ...]:
        """Codes of every action with the best (share, margin)."""
        if not self.actions:
            return ()
        top = self.actions[0]
        return tuple(a.code for a in self.actions
                     if abs(a.share - top.share) < 1e-9 and abs(a.margin - top.margin) < 1e-6)

    def value(self, code: int) -> ActionValue | None:
        """The value of root action `code` (None when not solved)."""
        return next((a for a in self.actions if a.code == code), None)


def fully_known(position: Position) -> bool:
    """True when nothing is hidden from any seat: every draw pile is empty."""
    return _endgame.fully_known(position.core)


def placements_left(position: Position) -> int:
    """Worker tiles left in every hand: with empty draw piles, the placements before the end."""
    return _endgame.placements_left(position.core)


def solve(position: Position, seat: int | None = None, max_nodes: int = 1_000_000, *,
          time_s: float | None = None, deadline: float = 0.0, stop: StopFlag | None = None,
          threads: int = 1, codes: Sequence[int] | None = None, priority: str = "normal",
          values: int | None = None) -> EndgameResult:
    """Solve `position` for `seat` (default: the seat to act).

    Args:
        max_nodes: the most searched nodes over all threads.
        time_s, deadline: the most seconds, or a ``monotonic()`` time to stop at.
        stop: a flag that ends the solve when set (from any thread).
        threads: threads sharing the root actions (each its own table).
        codes: the root actions to solve (default: every legal one).
        priority: the CPU priority of the solving threads ("normal",
            "reduced", "low", "idle"); below normal the solve runs on
            threads of its own.
        values: None: every root action's exact value; k: the exact values
            of the best action and its equals and of the k first by the
            one-step value, the others only proved worse (far faster:
            alpha-beta at the root too).

    Raises:
        ValueError naming the field: a finished game, a hidden draw pile,
        a bad seat, budget or code.
    """
    start = time.perf_counter()
    if seat is None:
        seat = position.to_act if position.to_act is not None else -1
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads: must be a positive integer, got {threads!r}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes: must be a positive integer, got {max_nodes!r}")
    if values is not None and (isinstance(values, bool) or not isinstance(values, int) or values < 0):
        raise ValueError(f"values: must be None or an integer >= 0, got {values!r}")
    if priority not in PRIORITIES:
        raise ValueError(f"priority: must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    if time_s is not None:
        if not time_s > 0:
            raise ValueError(f"time_s: must be positive, got {time_s!r}")
        deadline = min(deadline or float("inf"), monotonic() + time_s)
    legal = position.legal_codes() if not position.is_over else []
    if codes is None:
        codes = legal
    else:
        known = set(legal)
        for i, code in enumerate(codes):
            if code not in known:
                raise ValueError(f"codes[{i}]: {code} is not a legal action here")
    order = _ordered(position, list(codes))
    threads = max(1, min(threads, len(order)))
    parts = [order[i::threads] for i in range(threads)]
    budget = max(1, max_nodes // threads)
    level = PRIORITIES[priority]
    first = -1 if values is None else max(0, -(-values // threads))
    outs: list[tuple[list[float], list[float], list[float], list[bool], int, str] | BaseException] = \
        [([], [], [], [], 0, "")] * threads

    def work(i: int) -> None:
        try:
            outs[i] = _endgame.solve_root(position.core, seat, parts[i], budget, deadline, stop, level, first)
        except BaseException as exc:  # re-raised in the caller's thread
            outs[i] = exc

    if threads == 1 and level == 0:
        work(0)
    else:
        runners = [threading.Thread(target=work, args=(i,), name=f"endgame-{i}") for i in range(threads)]
        for runner in runners:
            runner.start()
        for runner in runners:
            runner.join()
    nodes, stopped, found, worse = 0, "proved", [], []
    for part, out in zip(parts, outs):
        if isinstance(out, BaseException):
            raise out
        shares, margins, golds, exact, used, why = out
        nodes += used
        if why != "proved" and stopped == "proved":
            stopped = why
        for code, share, margin, gold, valued in zip(part, shares, margins, golds, exact):
            if valued:
                found.append(ActionValue(code, share, margin, gold))
            else:
                worse.append(code)
    proved = stopped == "proved"
    found.sort(key=lambda a: (-a.share, -a.margin, a.code))
    return EndgameResult(proved, seat, tuple(found) if proved else (), nodes,
                         time.perf_counter() - start, stopped, tuple(sorted(worse)) if proved else ())


def _ordered(position: Position, codes: list[int]) -> list[int]:
    """`codes` by the mover's one-step value, best first (the greedy prior):
    good actions solved first leave the table entries the others use."""
    if position.is_over or len(codes) < 2:
        return codes
    assert position.to_act is not None
    values = action_values(position.core, codes, position.to_act, blind=True)
    return [c for _, c in sorted(zip(values, codes), key=lambda vc: (-vc[0], vc[1]))]


def node_budget(iterations: int | None, time_s: float | None, share: float) -> int:
    """The nodes a search with this budget lets its solver spend: NODES_PER_ITERATION
    for each iteration, `share` of the time at NODES_PER_SECOND (the
    smaller of the two when both are given), MAX_NODES without either."""
    budgets = []
    if iterations is not None:
        budgets.append(iterations * NODES_PER_ITERATION)
    if time_s is not None:
        budgets.append(int(share * time_s * NODES_PER_SECOND))
    return max(1, min([MAX_NODES, *budgets]))


def worth_trying(position: Position, nodes: int) -> bool:
    """Whether a solve of `position` in `nodes` is likely to prove it (PROVES_WITHIN)."""
    if not fully_known(position) or position.is_over:
        return False
    need = PROVES_WITHIN.get(position.players, {}).get(placements_left(position))
    return need is not None and need <= nodes
