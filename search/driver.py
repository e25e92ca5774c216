"""The search driver: :func:`search` sets up the trees, runs them in C and
reads the answer out of them.

The algorithm is single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012),
compiled in ``_mcts.pyx``: each iteration determinizes what the searching seat
cannot see, walks one tree of action codes with availability-count UCB (every
seat maximises its own value), plays out to the end and backs up the win share
and the gold margin of every seat. See ``_mcts.pyx`` for the details.

Threads: ``Limit.threads = N`` runs N independent trees (root parallelism),
each on a C thread of its own that never takes the GIL (at the CPU priority
the caller asks for), seeded ``tree_seed(seed, i)`` (``seed + i``), and sums their root statistics.
Unlike a shared tree this needs no locks, scales almost linearly on these
machines, and with an iteration budget stays deterministic for any N (the
budget is split evenly).

Thread-safety: ``search`` may run in several threads at once (each call owns
its trees, also those it takes from a shared TreeCache); a :class:`StopFlag`
may be set from any thread.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from cacaoai.engine import Action, Position, derive_seed
from cacaoai.engine.seeds import salted_seed, tree_seed

from . import endgame
from ._mcts import (
    Tree,
    action_values,
    greedy_code,
    monotonic,
    playable_prefix,
    principal_codes,
    run_trees,
)
from .calibration_map import apply_map, choose_map
from .forecast import forecast
from .limits import PLAY, Limit, SearchSettings
from .model import load_model
from .request import Question, Reuse, Run
from .results import Candidate, RootInfo, SearchResult
from .reuse import check_history, find_trees

#: Salts the forecast's seed apart from the trees' (engine/seeds.salted_seed).
FORECAST_SALT = 0xF0CA57

__all__ = ["draw_weights", "search", "wilson_lower"]

PV_PLIES = 8
PV_MIN_VISITS = 2
PV_DETERMINIZATIONS = 32
LCB_Z = 1.96
ASK_NOTHING_ELSE = Question()  # the seat to act's answer, with the default lines
RUN_TO_THE_LIMIT = Run()  # no stop flag, pause or reports, at normal CPU priority


def search(position: Position, limit: Limit, settings: SearchSettings = PLAY, *,
           seed: int, question: Question = ASK_NOTHING_ELSE, run: Run = RUN_TO_THE_LIMIT,
           reuse: Reuse | None = None) -> SearchResult:
    """Search `position` for the question's seat (default: the seat to act) and report.

    The search sees only that seat's observation, plus the hands of the seats
    in ``question.known_hands``: two positions that differ only in what it
    cannot see give the same result for the same seed. With one thread and an
    iteration budget, the same seed gives the same result (with `reuse`: for
    the same cache state).

    Args:
        position: the position to search; it is not modified.
        limit: the budget; at least one of its iterations or time_s, or
            ``run.stop``, must bound the search. Its threads (default 1) are
            independent trees searched at once.
        settings: how the search plays (the defaults are the `strong` level's).
        seed: seeds the determinizations and playouts (0 <= seed < 2**64).
        question: for whom, which root actions, how many lines
            (:class:`~.request.Question`).
        run: stopping, pausing, reports, CPU priority (:class:`~.request.Run`).
        reuse: continue kept trees and keep these (:class:`~.request.Reuse`).

    Returns:
        A SearchResult. A finished game returns at once with its exact
        result and no action; a single legal action (also one left by
        allow/avoid) returns at once.

    Raises:
        ValueError: a bad seat, seed, budget, allow/avoid action (the message
            starts with the field and index, e.g. "allow[2]: ...") or history entry.
        MemoryError: the node pool could not grow.
    """
    start = monotonic() if run.started is None else run.started
    if not isinstance(limit, Limit):
        raise ValueError(f"limit: must be a Limit, got {type(limit).__name__}")
    if not isinstance(settings, SearchSettings):
        raise ValueError(f"settings: must be SearchSettings, got {type(settings).__name__}")
    if not limit.bounded and run.stop is None:
        raise ValueError("limit: give iterations, time_s or a stop flag")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: must be an integer in 0..2**64-1, got {seed!r}")
    if reuse is not None:
        check_history(reuse.history, position.players)
    threads = limit.threads or 1
    seat, multipv = question.seat, question.multipv
    observer = position.to_act if seat is None else seat
    if position.is_over:
        return _terminal(position, 0 if observer is None else observer, start, threads)
    if isinstance(observer, bool) or not isinstance(observer, int) or not 0 <= observer < position.players:
        raise ValueError(f"seat: must be in 0..{position.players - 1}, got {seat!r}")
    mask = 0
    for s in question.known_hands:
        if not 0 <= s < position.players:
            raise ValueError(f"known_hands: {s!r} is not a seat")
        mask |= 1 << s
    to_act = position.to_act
    assert to_act is not None
    fixed = observer == to_act or bool((mask >> to_act) & 1)
    allowed, avoided = _restriction(position, fixed, observer, question.allow, question.avoid)
    codes: list[int] = []
    if fixed:
        codes = [c for c in position.legal_codes()
                 if (not allowed or c in allowed) and c not in avoided]
        if len(codes) == 1:
            return _forecast(_single(position, observer, codes[0], start, threads, multipv), position,
                             observer, question, seed)
    restricted = bool(allowed or avoided)
    solved = _solve(position, limit, settings, run, start, threads, codes if restricted else None, multipv)
    if solved is not None and position.players == 2:
        return _forecast(_exact(position, settings, solved, observer, start, threads, multipv,
                                question.candidates), position, observer, question, seed)

    key, trees, reused = _trees(position, threads, settings, seed, observer, mask, allowed,
                                avoided, reuse)

    def report(trees: list[tuple[Tree, str]]) -> SearchResult:
        result = _report(position, settings, threads, seed, observer, mask, trees, start,
                         multipv, reused, codes if restricted else None, question.candidates)
        if question.calibrated:
            result = _calibrated(result, settings, position, question.levels)
        if solved is not None:
            result = _corrected(result, position, settings, solved, multipv, question.candidates)
        return _forecast(result, position, observer, question, seed)

    on_report = run.on_report
    finish_key = (position.players, multipv, threads)
    reserve = FINISHING.reserve(finish_key, limit.time_s, run.answer_s) if limit.time_s is not None else 0.0
    ran = _run(trees, limit, run, start,
               (lambda trees: on_report(replace(report(trees), stopped_by="", final=False)))
               if on_report else None, reserve)
    finishing = monotonic()
    result = report(ran)
    if reuse is not None:
        reuse.cache.put(key, trees)
    if any(reason == "time" for _, reason in ran):  # the searches the reserve serves
        FINISHING.add(finish_key, monotonic() - finishing)
    return result


class FinishTimes:
    """How long a search takes to finish after its trees stop (its report,
    the trees kept), measured, so that a time budget stops the trees that
    much earlier and the answer is ready when the budget ends.

    Kept per kind of search (players, lines asked, threads), as the last
    ``keep`` times of the searches that ran until their time ended (one
    stopped by a few iterations, or by a stop flag, finishes at once, and
    would make the reserve too short for the timed ones beside it). The
    reserve is a high quantile of them (a few slow finishes, a busy
    machine, should not shorten every search), at most
    ``max_share`` of the budget. Thread-safe (the GIL: appends and copies).
    """

    def __init__(self, keep: int = 64, quantile: float = 0.75, first_s: float = 0.001,
                 max_share: float = 0.2):
        self.keep, self.quantile, self.first_s, self.max_share = keep, quantile, first_s, max_share
        self._times: dict[tuple[int, ...], deque[float]] = {}

    def add(self, key: tuple[int, ...], seconds: float) -> None:
        times = self._times.get(key)
        if times is None:
            times = self._times.setdefault(key, deque(maxlen=self.keep))
        times.append(seconds)

    def reserve(self, key: tuple[int, ...], budget_s: float, after_s: float = 0.0) -> float:
        """Seconds before the end of ``budget_s`` at which the trees stop
        (with ``after_s``, what the caller needs once the search returns)."""
        return min(self.expected(key) + after_s, self.max_share * budget_s)

    def expected(self, key: tuple[int, ...]) -> float:
        """The finishing time expected of a search of `key`: the quantile
        of its kind's times, ``first_s`` before any was measured."""
        times = sorted(self._times.get(key, ()))
        return times[min(len(times) - 1, int(self.quantile * len(times)))] if times else self.first_s


FINISHING = FinishTimes()


def _solve(position: Position, limit: Limit, settings: SearchSettings, run: Run, start: float,
           threads: int, codes: list[int] | None, multipv: int) -> endgame.EndgameResult | None:
    """The endgame solver's proved values of the seat to act's actions, when
    the settings use it, nothing is hidden and it is likely to prove them in
    its share of the budget; else None. Exact values: every one of `codes`
    when given (a restricted search), else the best action's and its
    equals' and those of `multipv` others first by the one-step value (the
    rest are proved worse, and left out of the candidates)."""
    if not settings.endgame:
        return None
    nodes = endgame.node_budget(limit.iterations, limit.time_s, settings.endgame)
    if not endgame.worth_trying(position, nodes):
        return None
    deadline = start + settings.endgame * limit.time_s if limit.time_s is not None else 0.0
    solved = endgame.solve(position, None, nodes, deadline=deadline, stop=run.stop, threads=threads,
                           codes=codes, priority=run.cpu_priority, values=None if codes else multipv)
    return solved if solved.proved else None


def _exact_candidates(position: Position, settings: SearchSettings, solved: endgame.EndgameResult,
                      multipv: int, most: int | None, tree: dict[Action, Candidate] | None = None
                      ) -> tuple[Candidate, ...]:
    """The solved actions as candidates, best first (keeping what `tree`'s
    candidates of the same actions say of visits, prior and lines)."""
    scale = settings.margin_weight_for(position.players) / settings.margin_scale
    out = []
    for k, value in enumerate(solved.actions[:most]):
        action = position.decode(value.code)
        seen = (tree or {}).get(action)
        line = seen.principal_variation if seen is not None and seen.principal_variation else (action,)
        out.append(Candidate(action, seen.visits if seen else 0, value.share + scale * value.margin,
                             value.share, value.margin, expected_gold=value.gold,
                             prior=seen.prior if seen else None, lcb=value.share, order=k,
                             principal_variation=line if k < multipv else (), exact=True))
    return tuple(out)


def _exact(position: Position, settings: SearchSettings, solved: endgame.EndgameResult, observer: int,
           start: float, threads: int, multipv: int, most: int | None) -> SearchResult:
    """A 2-player result from the solver alone: every figure exact."""
    to_act = position.to_act
    assert to_act is not None
    best = solved.actions[0]
    candidates = _exact_candidates(position, settings, solved, multipv, most)
    other = 1 - to_act
    win = [0.0, 0.0]
    win[to_act], win[other] = best.share, 1.0 - best.share
    lead = [0.0, 0.0]
    lead[to_act], lead[other] = best.margin, -best.margin
    gold = [0.0, 0.0]
    gold[to_act], gold[other] = best.gold, best.gold - best.margin
    elapsed = monotonic() - start
    return SearchResult(candidates[0].action, observer, to_act, tuple(win), tuple(gold), tuple(lead),
                        candidates, candidates[0].principal_variation, 0, elapsed, 0.0, "exact",
                        threads, solved.nodes, exact=True)


def _corrected(result: SearchResult, position: Position, settings: SearchSettings,
               solved: endgame.EndgameResult, multipv: int, most: int | None) -> SearchResult:
    """A 3-4 player search's result with the solver's: the exactly best
    action (the most visited of equals), the seat to act's exact figures,
    the other seats' win probabilities scaled to sum to 1 with them."""
    to_act = position.to_act
    assert to_act is not None
    tree = {c.action: c for c in result.candidates}
    candidates = list(_exact_candidates(position, settings, solved, multipv, most, tree))
    best = {position.decode(code) for code in solved.best}
    ties = [c for c in candidates if c.action in best]
    first = max(ties, key=lambda c: c.visits)
    candidates.remove(first)
    candidates = [replace(c, order=k) for k, c in enumerate([first, *candidates])]
    if multipv and not candidates[0].principal_variation:
        candidates[0] = replace(candidates[0], principal_variation=(first.action,))
    value = solved.value(position.encode(first.action))
    assert value is not None
    win = list(result.win_probability or (1.0 / position.players,) * position.players)
    rest = sum(w for s, w in enumerate(win) if s != to_act)
    win = [value.share if s == to_act else (w * (1 - value.share) / rest if rest > 0 else
                                          (1 - value.share) / (len(win) - 1)) for s, w in enumerate(win)]
    lead = list(result.score_lead or (0.0,) * position.players)
    lead[to_act] = value.margin
    gold = list(result.expected_gold or (0.0,) * position.players)
    gold[to_act] = value.gold
    root = result.root
    if root is not None:
        root = replace(root, mean_value=first.mean_value or root.mean_value, win_probability=value.share,
                       score_lead=value.margin, expected_gold=value.gold)
    line = first.principal_variation or (first.action,)
    return replace(result, best_action=first.action, candidates=tuple(candidates), principal_variation=line,
                   win_probability=tuple(win), score_lead=tuple(lead), expected_gold=tuple(gold), root=root,
                   exact=True)


def _calibrated(result: SearchResult, settings: SearchSettings, position: Position,
                levels: Sequence[str]) -> SearchResult:
    """`result` with its per-seat win probabilities (and the root's) corrected
    by the calibration map of the model it used for the population `levels`
    name, when the model has one (docs/search.md, "Calibration"); the
    candidates' figures stay the tree's."""
    if not settings.uses_model or result.win_probability is None:
        return result
    chosen = choose_map(load_model(settings.model).manifest.get("calibration"), settings.calibration, levels,
                        position.players)
    if not chosen.map:
        return result
    probabilities = tuple(apply_map(chosen.map, result.win_probability, position.progress, result.to_act,
                                    chosen.one))
    root = result.root
    if root is not None and result.to_act is not None:
        root = replace(root, win_probability=probabilities[result.to_act])
    return replace(result, win_probability=probabilities, root=root, population=chosen.population)


def _restriction(position: Position, fixed: bool, observer: int, allow: Sequence[Action],
                 avoid: Sequence[Action]) -> tuple[set[int], set[int]]:
    """The codes of `allow` and `avoid`; ValueError naming the field and index."""
    if not allow and not avoid:
        return set(), set()
    field = "allow" if allow else "avoid"
    if not fixed:
        raise ValueError(f"{field}: seat {observer} does not know the hand of seat "
                         f"{position.to_act}, the seat to act, so the root's actions are not "
                         "known (search for the seat to act, or give its hand in known_hands)")
    legal = {position.decode(c): c for c in position.legal_codes()}
    sets: list[set[int]] = []
    for name, actions in (("allow", allow), ("avoid", avoid)):
        found = set()
        for i, action in enumerate(actions):
            code = legal.get(action) if isinstance(action, Action) else None
            if code is None:
                try:
                    code = position.encode(action)
                except Exception as exc:
                    raise ValueError(f"{name}[{i}]: {action} is not legal here ({exc})") from None
            found.add(code)
        sets.append(found)
    allowed, avoided = sets
    left = [c for c in legal.values() if (not allowed or c in allowed) and c not in avoided]
    if not left:
        raise ValueError("avoid: no legal action is left" + (" of those allowed" if allowed else ""))
    return allowed, avoided


def _trees(position: Position, threads: int, settings: SearchSettings, seed: int,
           observer: int, mask: int, allowed: set[int], avoided: set[int],
           reuse: Reuse | None) -> tuple[bytes, list[Tree], int]:
    """(cache key, `threads` trees ready to run, visits kept from a reused tree)."""
    key: bytes = b""
    kept: list[Tree] = []
    path: list[int] = []
    if reuse is not None:
        key, kept, path = find_trees(reuse.cache, position, reuse.history, observer, mask, settings)
    allow, avoid = sorted(allowed), sorted(avoided)
    model = load_model(settings.model).handle if settings.uses_model else None
    trees = []
    reused = 0
    for i in range(threads):
        seed_i = tree_seed(seed, i)
        tree = kept[i] if i < len(kept) else Tree()
        if i < len(kept) and tree.reroot(position.core, path, seed=seed_i, allow=allow, avoid=avoid):
            reused += tree.root_stats()[0]
        else:
            tree.reset(position.core, observer=observer, known_hands=mask, seed=seed_i,
                       settings=settings, allow=allow, avoid=avoid, model=model)
        trees.append(tree)
    if reuse is not None:
        reuse.cache.count(reused > 0)
    return key, trees, reused


def _forecast(result: SearchResult, position: Position, observer: int, question: Question,
              seed: int) -> SearchResult:
    """`result` with the forecast `question` asks for (its playouts from the
    observer's view, seeded apart from the trees)."""
    if not question.forecast:
        return result
    return replace(result, forecast=forecast(position, observer, seed=salted_seed(seed, FORECAST_SALT),
                                             playouts=question.forecast, known_hands=question.known_hands))


def _run(trees: list[Tree], limit: Limit, run: Run, start: float,
         on_report_due: Callable[[list[tuple[Tree, str]]], None] | None = None,
         reserve: float = 0.0) -> list[tuple[Tree, str]]:
    """Run the trees to the budget (new iterations); [(tree, why it stopped)].
    A time budget stops them ``reserve`` seconds before its end (the time
    the search takes to finish after them).

    With `on_report_due`, the trees stop as `run` says (every
    ``report_every_s``, or every ``report_every_iterations`` over all trees:
    a schedule that does not depend on the machine's speed) for
    `on_report_due(trees)` and then go on where they were. When ``run.pause``
    is set, the trees stop at once and ``run.on_pause()`` is called; they go
    on when it returns (it is for the caller to clear the flag).
    """
    stop, pause, on_pause = run.stop, run.pause, run.on_pause
    every_s, every_iterations = run.report_every_s, run.report_every_iterations
    n = len(trees)
    budgets = _split(limit.iterations, n) if limit.iterations is not None else [-1] * n
    deadline = start + limit.time_s - reserve if limit.time_s is not None else 0.0
    by_iterations = on_report_due is not None and every_iterations is not None
    marks = [tree.iterations + k for tree, k in zip(trees, _split(every_iterations or 1, n))]
    wake = 0.0
    while True:
        until, goals = deadline, budgets
        if by_iterations:
            goals = [m if b < 0 else min(b, m) for b, m in zip(budgets, marks)]
        elif on_report_due is not None:
            wake = wake or monotonic() + every_s
            if deadline == 0.0 or wake < deadline:
                until = wake
        reasons = run_trees(trees, goals, until, stop, run.cpu_priority, pause)
        if "stop" in reasons:
            return list(zip(trees, reasons))
        if "pause" in reasons:
            assert on_pause is not None
            on_pause()
            continue
        if by_iterations:
            due = "time" not in reasons and goals != budgets
        else:
            due = until != deadline and "time" in reasons
        if not due:
            return list(zip(trees, reasons))
        assert on_report_due is not None
        on_report_due(list(zip(trees, reasons)))
        if by_iterations:
            assert every_iterations is not None
            marks = [m + k for m, k in zip(marks, _split(every_iterations, n))]
        wake = 0.0


def _split(total: int, n: int) -> list[int]:
    """`total` iterations shared evenly by `n` trees (the first ones take the rest)."""
    return [total // n + (1 if i < total % n else 0) for i in range(n)]


def _merge_root(trees: list[tuple[Tree, str]]) -> dict[int, list[Any]]:
    """The root's children summed over the trees:
    code -> [visits, win, margin, gold sum, gold count, prior]."""
    merged: dict[int, list[Any]] = {}
    for tree, _ in trees:
        for code, visits, win, margin, gold, gold_n, prior in tree.root_children():
            _add(merged, code, [visits, win, margin, gold, gold_n, prior])
    return merged


def _add(merged: dict[int, list[Any]], code: int, figures: list[Any]) -> None:
    """Sum `figures` (counts, per-seat lists; the prior is taken once) into merged[code]."""
    entry = merged.get(code)
    if entry is None:
        merged[code] = figures
        return
    for i, value in enumerate(figures[:5]):
        entry[i] = [a + b for a, b in zip(entry[i], value)] if isinstance(value, list) else entry[i] + value


def _report(position: Position, settings: SearchSettings, threads: int, seed: int,
            observer: int, mask: int, trees: list[tuple[Tree, str]], start: float, multipv: int,
            reused: int, within: list[int] | None, most: int | None = None) -> SearchResult:
    players = position.players
    visits = gold_n = 0
    win = [0.0] * players
    margin = [0.0] * players
    gold = [0.0] * players
    for tree, _ in trees:
        v, w, m, g, gn = tree.root_stats()
        visits += v
        gold_n += gn
        win = [a + b for a, b in zip(win, w)]
        margin = [a + b for a, b in zip(margin, m)]
        gold = [a + b for a, b in zip(gold, g)]
    iterations = sum(tree.iterations for tree, _ in trees)
    nodes = sum(tree.nodes for tree, _ in trees)
    reasons = [r for _, r in trees]
    stopped_by = "stop" if "stop" in reasons else ("time" if "time" in reasons else "iterations")

    to_act = position.to_act
    assert to_act is not None
    scale = settings.margin_weight_for(position.players) / settings.margin_scale
    children = _merge_root(trees)
    order = sorted((c for c in children if children[c][0] > 0),
                   key=lambda c: (-children[c][0], -_mean(children[c], to_act, scale), c))
    best_code = _choose(order, children, settings, seed)
    if best_code is None and (observer == to_act or (mask >> to_act) & 1):
        # no iteration ran: a sensible fallback
        best_code = greedy_code(position.core, seed) if within is None else _greedy(position, within, seed)
    if best_code in order:
        order.remove(best_code)
        order.insert(0, best_code)
    best = position.decode(best_code) if best_code is not None else None
    pv = _principal_variation(position, trees, best_code, observer, mask, seed)
    candidates = tuple(
        _candidate(position, trees, children[code], code, k, to_act, scale, observer, mask, seed,
                   pv if k == 0 else None, k < multipv)
        for k, code in enumerate(order[:most]))

    elapsed = monotonic() - start
    have = visits > 0
    root = None
    if have and gold_n > 0:
        root = RootInfo(visits, (win[to_act] + scale * margin[to_act]) / visits, win[to_act] / visits,
                        margin[to_act] / visits, gold[to_act] / gold_n, reused)
    return SearchResult(
        best_action=best, seat=observer, to_act=to_act,
        win_probability=tuple(w / visits for w in win) if have else None,
        expected_gold=tuple(g / gold_n for g in gold) if gold_n else None,
        score_lead=tuple(m / visits for m in margin) if have else None,
        candidates=candidates, principal_variation=pv, iterations=iterations,
        elapsed_s=elapsed, iterations_per_second=iterations / elapsed if elapsed > 0 else 0.0,
        stopped_by=stopped_by, threads=threads, nodes=nodes, root=root)


def _candidate(position: Position, trees: list[tuple[Tree, str]], entry: list[Any], code: int,
               order: int, to_act: int, scale: float, observer: int, mask: int, seed: int,
               pv: tuple[Action, ...] | None, with_pv: bool) -> Candidate:
    """The figures of one root action (entry: see _merge_root)."""
    visits, win, margin, gold, gold_n, prior = entry
    p = win[to_act] / visits
    if with_pv and pv is None:
        pv = _principal_variation(position, trees, code, observer, mask, seed)
    return Candidate(position.decode(code), visits, _mean(entry, to_act, scale), p,
                     margin[to_act] / visits, expected_gold=gold / gold_n if gold_n else None,
                     prior=prior, lcb=wilson_lower(p, visits), order=order,
                     principal_variation=pv if with_pv and pv is not None else ())


def wilson_lower(p: float, n: int, z: float = LCB_Z) -> float:
    """The lower end of Wilson's score interval for a proportion `p` of `n`
    (z = 1.96: 95% two-sided), in [0, 1]; the candidates' `lcb`."""
    if n <= 0:
        return 0.0
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denom
    return min(1.0, max(0.0, centre - half))


def _greedy(position: Position, codes: list[int], seed: int) -> int:
    """The greedy bot's choice among `codes` (values without the jungle deck, ties at random)."""
    assert position.to_act is not None
    values = action_values(position.core, codes, position.to_act, blind=True)
    top = max(values)
    return random.Random(seed).choice([c for c, v in zip(codes, values) if v == top])


def _mean(entry: list[Any], seat: int, scale: float) -> float:
    return (entry[1][seat] + scale * entry[2][seat]) / entry[0]


def _choose(order: list[int], children: dict[int, list[Any]], settings: SearchSettings,
            seed: int) -> int | None:
    """The most visited code, or a sample by visits ** (1 / temperature)."""
    if not order or children[order[0]][0] == 0:
        return None
    if settings.temperature <= 0:
        return order[0]
    weights = draw_weights([children[c][0] for c in order], settings.temperature, settings.floor)
    return random.Random(salted_seed(seed, 0x5EA5C4)).choices(order, weights)[0]


def draw_weights(visits: Sequence[int], temperature: float, floor: float) -> list[float]:
    """The weights a level's draw gives the root's actions, `visits` in the
    search's order (the choice first): visits ** (1 / temperature) relative
    to the first, 0 below `floor` x its visits (a zero weight is never
    drawn, and draws the same as leaving it out)."""
    top = visits[0]
    return [(v / top) ** (1.0 / temperature) if v >= floor * top else 0.0 for v in visits]


def _principal_variation(position: Position, trees: list[tuple[Tree, str]], first: int | None,
                         observer: int, mask: int, seed: int) -> tuple[Action, ...]:
    if first is None:
        return ()
    codes = principal_codes([tree for tree, _ in trees], first, PV_PLIES, PV_MIN_VISITS)
    # Decode in a determinization where the whole line is legal (hidden parts
    # drawn from the observer's view only); keep the longest legal prefix,
    # the first found of that length. The codes are checked first, and only
    # the chosen determinization's line is decoded.
    longest, chosen = 1, -1
    for k in range(PV_DETERMINIZATIONS if len(codes) > 1 else 0):
        length = playable_prefix(_determinized(position, observer, mask, seed, k), codes)
        if length > longest:
            longest, chosen = length, k
        if longest == len(codes):
            break
    if chosen < 0:
        return (position.decode(first),)
    core = _determinized(position, observer, mask, seed, chosen)
    view = Position(core)
    line = []
    for code in codes[:longest]:
        line.append(view.decode(code))
        core.apply_code(code)
    return tuple(line)


def _determinized(position: Position, observer: int, mask: int, seed: int, k: int) -> Any:
    """The `k`-th determinization of the principal variation's decoding (a core)."""
    core = position.core.clone()
    core.determinize(observer, mask | (1 << observer), derive_seed(seed, k))
    return core


def _terminal(position: Position, observer: int, start: float, threads: int) -> SearchResult:
    result = position.result()
    assert result is not None
    n = position.players
    win = tuple(1.0 / len(result.winners) if s in result.winners else 0.0 for s in range(n))
    lead = tuple(float(result.gold[s] - max(result.gold[o] for o in range(n) if o != s)) for s in range(n))
    return SearchResult(None, observer, None, win, tuple(float(g) for g in result.gold), lead,
                        (), (), 0, monotonic() - start, 0.0, "terminal", threads, 0)


def _single(position: Position, observer: int, code: int, start: float, threads: int,
            multipv: int) -> SearchResult:
    action = position.decode(code)
    only = Candidate(action, 0, None, None, None, prior=1.0,
                     principal_variation=(action,) if multipv else ())
    return SearchResult(action, observer, position.to_act, None, None, None, (only,), (action,), 0,
                        monotonic() - start, 0.0, "single-action", threads, 0)

