"""Information-set Monte Carlo tree search for Cacao.

    >>> from cacaoai.engine import Position
    >>> from cacaoai.search import SearchLimits, search
    >>> pos = Position.new(players=2, seed=7)
    >>> result = search(pos, SearchLimits(iterations=1000), seed=1)
    >>> pos.apply(result.best_action)

The algorithm is single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012),
compiled in ``_mcts.pyx``: each iteration determinizes what the searching seat
cannot see, walks one tree of action codes with availability-count UCB (every
seat maximises its own value), plays out to the end and backs up the win share
and the gold margin of every seat. See ``_mcts.pyx`` for the details.

Threads: ``SearchLimits.threads = N`` runs N independent trees (root
parallelism), each on a C thread of its own that never takes the GIL (at the
CPU priority the caller asks for), seeded ``seed + i``, and sums their root
statistics. Unlike a shared tree this needs no locks, scales almost linearly
on these machines, and with an iteration budget stays deterministic for any
N (the budget is split evenly).

Thread-safety: ``search`` may run in several threads at once (each call owns
its trees); a :class:`StopFlag` may be set from any thread.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cacaoai.api.results import Candidate, SearchResult
from cacaoai.engine import Action, Position

from ._mcts import PRIORITIES, StopFlag, Tree, greedy_code, monotonic, run_trees

__all__ = ["PRIORITIES", "Candidate", "SearchLimits", "SearchResult", "StopFlag", "search"]

PLAYOUTS = {"random": 0, "informed": 1}
ALGORITHMS = ("mcts", "flat")
PV_PLIES = 8
PV_MIN_VISITS = 2
PV_DETERMINIZATIONS = 32


@dataclass(frozen=True)
class SearchLimits:
    """Budget and settings of one search. Whichever budget ends first stops it.

    Attributes:
        iterations: total iterations over all threads (None: no limit).
        time_s: wall-clock seconds (None: no limit).
        threads: independent trees searched in parallel (root parallelism).
        playout: "informed" (best one-step value among `samples` random
            actions per turn) or "random" (the engine's uniform playout).
        temperature: 0 plays the most visited action; T > 0 samples an action
            with probability proportional to visits ** (1 / T) among the
            candidates with at least `floor` x the most visits.
        exploration: the UCB constant c (values are win shares in [0, 1]).
        samples: candidate actions per informed playout turn.
        margin_weight: weight of the gold margin (in units of `margin_scale`
            gold) added to the win share in the tree's values.
        algorithm: "mcts", or "flat" for flat Monte Carlo (root children only,
            played round-robin).
        expand_samples: a node expands the best (by one-step value) of this
            many untried actions drawn at random; 1 draws one.
        widen: when > 0, the root considers only its ceil(widen * sqrt(visits))
            best actions by the greedy bot's one-step value (progressive
            widening); 0 considers all.
        floor: see `temperature`.
        max_nodes: node pool limit per tree (88 bytes a node); beyond it the
            tree stops growing and the search goes on with playouts.
    """

    iterations: int | None = None
    time_s: float | None = None
    threads: int = 1
    playout: str = "informed"
    temperature: float = 0.0
    exploration: float = 0.7
    samples: int = 8
    margin_weight: float = 1.0
    margin_scale: float = 20.0
    algorithm: str = "mcts"
    expand_samples: int = 4
    widen: float = 2.0
    floor: float = 0.25
    max_nodes: int = 2_000_000

    def __post_init__(self) -> None:
        if self.iterations is not None and (isinstance(self.iterations, bool) or self.iterations < 1):
            raise ValueError(f"iterations: must be a positive integer or None, got {self.iterations!r}")
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"time_s: must be positive or None, got {self.time_s!r}")
        if not 1 <= self.threads <= 64:
            raise ValueError(f"threads: must be in 1..64, got {self.threads!r}")
        if self.playout not in PLAYOUTS:
            raise ValueError(f"playout: must be one of {', '.join(PLAYOUTS)}, got {self.playout!r}")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm: must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if not self.temperature >= 0:
            raise ValueError(f"temperature: must be >= 0, got {self.temperature!r}")
        if not self.exploration >= 0:
            raise ValueError(f"exploration: must be >= 0, got {self.exploration!r}")
        if not 1 <= self.samples <= 64:
            raise ValueError(f"samples: must be in 1..64, got {self.samples!r}")
        if not 1 <= self.expand_samples <= 64:
            raise ValueError(f"expand_samples: must be in 1..64, got {self.expand_samples!r}")
        if not self.widen >= 0:
            raise ValueError(f"widen: must be >= 0, got {self.widen!r}")
        if not 0 <= self.floor <= 1:
            raise ValueError(f"floor: must be in 0..1, got {self.floor!r}")
        if self.max_nodes < 2:
            raise ValueError(f"max_nodes: must be at least 2, got {self.max_nodes!r}")


def search(position: Position, limits: SearchLimits, *, seed: int,
           stop: StopFlag | None = None, seat: int | None = None,
           known_hands: Sequence[int] = (),
           on_report: Callable[[SearchResult], None] | None = None,
           report_every_s: float = 0.5, priority: str = "normal") -> SearchResult:
    """Search `position` for `seat` (default: the seat to act) and report.

    The search sees only `seat`'s observation, plus the hands of the seats in
    `known_hands`: two positions that differ only in what it cannot see give
    the same result for the same seed. With one thread and an iteration
    budget, the same seed gives the same result.

    Args:
        position: the position to search; it is not modified.
        limits: budgets and settings; at least one of iterations, time_s or
            `stop` must bound the search.
        seed: seeds the determinizations and playouts (0 <= seed < 2**64).
        stop: a flag that ends the search when set (from any thread).
        seat: the observer.
        known_hands: seats whose hands the observer may see.
        on_report: called in the searching thread with the result so far
            every `report_every_s` seconds while the search goes on (not at
            its end: the final result is returned). The trees go on growing
            between reports, so reports only add to each other, and the
            final result is the one the same search gives without reports.
        report_every_s: seconds between reports (positive).
        priority: CPU priority of the threads that grow the trees: "normal",
            "reduced" (nice 5: yields to normal work but is never starved,
            so a time budget still holds), "low" (nice 19) or "idle"
            (Linux's SCHED_IDLE: only when nothing else wants a core). A server lowers its searches so that quick
            calls never wait for a core; those threads never take the GIL,
            and the search's Python work stays in the calling thread.

    Returns:
        A SearchResult. A finished game returns at once with its exact
        result and no action; a single legal action returns at once.

    Raises:
        ValueError: a bad seat, seed or budget.
        MemoryError: the node pool could not grow.
    """
    start = monotonic()
    if limits.iterations is None and limits.time_s is None and stop is None:
        raise ValueError("limits: give iterations, time_s or a stop flag")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: must be an integer in 0..2**64-1, got {seed!r}")
    if priority not in PRIORITIES:
        raise ValueError(f"priority: must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    if on_report is not None and not report_every_s > 0:
        raise ValueError(f"report_every_s: must be positive, got {report_every_s!r}")
    observer = position.to_act if seat is None else seat
    if position.is_over:
        return _terminal(position, 0 if observer is None else observer, start, limits.threads)
    if isinstance(observer, bool) or not isinstance(observer, int) or not 0 <= observer < position.players:
        raise ValueError(f"seat: must be in 0..{position.players - 1}, got {seat!r}")
    mask = 0
    for s in known_hands:
        if not 0 <= s < position.players:
            raise ValueError(f"known_hands: {s!r} is not a seat")
        mask |= 1 << s
    to_act = position.to_act
    assert to_act is not None
    if observer == to_act or (mask >> to_act) & 1:
        codes = position.legal_codes()
        if len(codes) == 1:
            return _single(position, observer, codes[0], start, limits.threads)

    def report(trees: list[tuple[Tree, str]]) -> SearchResult:
        return _report(position, limits, seed, observer, mask, trees, start)

    trees = _run(position, limits, seed, stop, observer, mask, start,
                 (lambda trees: on_report(replace(report(trees), stopped_by="")))
                 if on_report else None, report_every_s, priority)
    return report(trees)


def _run(position: Position, limits: SearchLimits, seed: int, stop: StopFlag | None,
         observer: int, mask: int, start: float,
         on_pause: Callable[[list[tuple[Tree, str]]], None] | None = None,
         pause_every_s: float = 0.0, priority: str = "normal") -> list[tuple[Tree, str]]:
    """Run `limits.threads` trees to the budget; [(tree, why it stopped)].

    With `on_pause`, the trees stop every `pause_every_s` seconds for
    `on_pause(trees)` and then go on where they were.
    """
    n = limits.threads
    trees = []
    for i in range(n):
        tree = Tree()
        tree.reset(position.core, observer=observer, known_hands=mask, seed=(seed + i) % 2**64,
                   playout=PLAYOUTS[limits.playout], samples=limits.samples,
                   flat=limits.algorithm == "flat", exploration=limits.exploration,
                   margin_weight=limits.margin_weight, margin_scale=limits.margin_scale,
                   expand_samples=limits.expand_samples, widen=limits.widen,
                   max_nodes=limits.max_nodes)
        trees.append(tree)
    budgets = [-1] * n
    if limits.iterations is not None:
        budgets = [limits.iterations // n + (1 if i < limits.iterations % n else 0) for i in range(n)]
    deadline = start + limits.time_s if limits.time_s is not None else 0.0
    while True:
        until = deadline
        if on_pause is not None:
            pause = monotonic() + pause_every_s
            if deadline == 0.0 or pause < deadline:
                until = pause
        reasons = run_trees(trees, budgets, until, stop, priority)
        paused = until != deadline and "time" in reasons and "stop" not in reasons
        if not paused:
            return list(zip(trees, reasons))
        assert on_pause is not None
        on_pause(list(zip(trees, reasons)))


def _merge(trees: list[tuple[Tree, str]], path: Sequence[int] = ()) -> dict[int, list[Any]]:
    """Children of the node at `path`, summed over the trees: code -> [seat, visits, win, margin]."""
    merged: dict[int, list[Any]] = {}
    for tree, _ in trees:
        for code, seat, visits, _avail, win, margin in tree.children(path):
            entry = merged.get(code)
            if entry is None:
                merged[code] = [seat, visits, list(win), list(margin)]
            else:
                entry[1] += visits
                entry[2] = [a + b for a, b in zip(entry[2], win)]
                entry[3] = [a + b for a, b in zip(entry[3], margin)]
    return merged


def _report(position: Position, limits: SearchLimits, seed: int, observer: int, mask: int,
            trees: list[tuple[Tree, str]], start: float) -> SearchResult:
    players = position.players
    visits = 0
    win = [0.0] * players
    margin = [0.0] * players
    gold = [0.0] * players
    for tree, _ in trees:
        v, w, m, g = tree.root_stats()
        visits += v
        win = [a + b for a, b in zip(win, w)]
        margin = [a + b for a, b in zip(margin, m)]
        gold = [a + b for a, b in zip(gold, g)]
    iterations = sum(tree.iterations for tree, _ in trees)
    nodes = sum(tree.nodes for tree, _ in trees)
    reasons = [r for _, r in trees]
    stopped_by = "stop" if "stop" in reasons else ("time" if "time" in reasons else "iterations")

    to_act = position.to_act
    assert to_act is not None
    scale = limits.margin_weight / limits.margin_scale
    children = _merge(trees)
    order = sorted(children, key=lambda c: (-children[c][1], -_mean(children[c], to_act, scale), c))
    candidates = tuple(
        Candidate(position.decode(code), children[code][1], _mean(children[code], to_act, scale),
                  children[code][2][to_act] / children[code][1],
                  children[code][3][to_act] / children[code][1])
        for code in order if children[code][1] > 0)

    best_code = _choose(order, children, limits, seed)
    if best_code is None and (observer == to_act or (mask >> to_act) & 1):
        best_code = greedy_code(position.core, seed)   # no iteration ran: a sensible fallback
    best = position.decode(best_code) if best_code is not None else None
    pv = _principal_variation(position, trees, best_code, observer, mask, seed)

    elapsed = monotonic() - start
    have = visits > 0
    return SearchResult(
        best_action=best, seat=observer, to_act=to_act,
        win_probability=tuple(w / visits for w in win) if have else None,
        expected_gold=tuple(g / visits for g in gold) if have else None,
        score_lead=tuple(m / visits for m in margin) if have else None,
        candidates=candidates, principal_variation=pv, iterations=iterations,
        elapsed_s=elapsed, iterations_per_second=iterations / elapsed if elapsed > 0 else 0.0,
        stopped_by=stopped_by, threads=limits.threads, nodes=nodes)


def _mean(entry: list[Any], seat: int, scale: float) -> float:
    return (entry[2][seat] + scale * entry[3][seat]) / entry[1]


def _choose(order: list[int], children: dict[int, list[Any]], limits: SearchLimits,
            seed: int) -> int | None:
    """The most visited code, or a sample by visits ** (1 / temperature)."""
    if not order or children[order[0]][1] == 0:
        return None
    if limits.temperature <= 0:
        return order[0]
    top = children[order[0]][1]
    pool = [c for c in order if children[c][1] >= limits.floor * top]
    weights = [(children[c][1] / top) ** (1.0 / limits.temperature) for c in pool]
    return random.Random(seed ^ 0x5EA5C4).choices(pool, weights)[0]


def _principal_variation(position: Position, trees: list[tuple[Tree, str]], first: int | None,
                         observer: int, mask: int, seed: int) -> tuple[Action, ...]:
    if first is None:
        return ()
    codes = [first]
    while len(codes) < PV_PLIES:
        children = _merge(trees, codes)
        if not children:
            break
        code = max(children, key=lambda c: (children[c][1], -c))
        if children[code][1] < PV_MIN_VISITS:
            break
        codes.append(code)
    # Decode in a determinization where the whole line is legal (hidden parts
    # drawn from the observer's view only); keep the longest legal prefix.
    best: list[Action] = [position.decode(first)]
    for k in range(PV_DETERMINIZATIONS if len(codes) > 1 else 0):
        core = position.core.clone()
        core.determinize(observer, mask | (1 << observer), (seed * 7919 + k) % 2**64)
        view = Position(core)
        line = []
        for code in codes:
            if code not in core.legal_codes():
                break
            line.append(view.decode(code))
            core.apply_code(code)
        if len(line) > len(best):
            best = line
        if len(best) == len(codes):
            break
    return tuple(best)


def _terminal(position: Position, observer: int, start: float, threads: int) -> SearchResult:
    result = position.result()
    assert result is not None
    n = position.players
    win = tuple(1.0 / len(result.winners) if s in result.winners else 0.0 for s in range(n))
    lead = tuple(float(result.gold[s] - max(result.gold[o] for o in range(n) if o != s)) for s in range(n))
    return SearchResult(None, observer, None, win, tuple(float(g) for g in result.gold), lead,
                        (), (), 0, monotonic() - start, 0.0, "terminal", threads, 0)


def _single(position: Position, observer: int, code: int, start: float, threads: int) -> SearchResult:
    action = position.decode(code)
    return SearchResult(action, observer, position.to_act, None, None, None,
                        (Candidate(action, 0, None, None, None),), (action,), 0,
                        monotonic() - start, 0.0, "single-action", threads, 0)

