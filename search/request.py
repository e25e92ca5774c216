"""What :func:`~cacaoai.search.search` is asked besides the position, its
:class:`~cacaoai.search.Limit` and its :class:`~cacaoai.search.SearchSettings`,
in three groups that check themselves when made:

- :class:`Question`: for whom the search looks, which root actions it
  weighs and how much of its answer it spells out;
- :class:`Run`: how it runs: stopping, pausing, interim reports and the CPU
  priority of its threads;
- :class:`Reuse`: the trees it continues and keeps between searches.

The checks that need the position (the seat, ``known_hands``, the actions,
the history) are the search's own.

Thread-safety: immutable values (a Run's flags may be set from any thread).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cacaoai.engine import Action, Position

from ._mcts import PRIORITIES, StopFlag
from .results import SearchResult
from .reuse import TreeCache

#: Candidates with a line of their own when a Question does not say.
DEFAULT_MULTIPV = 5


@dataclass(frozen=True)
class Question:
    """What the search answers.

    Attributes:
        seat: the observer (None: the seat to act). The search sees only its
            observation, plus the hands of the seats in `known_hands`.
        known_hands: seats whose hands the observer may see.
        allow: when not empty, the root considers only these actions ("what
            if I play here"); each must be legal.
        avoid: the root never considers these actions; each must be legal.
            Both need the root's actions to be known: the observer is the
            seat to act or knows its hand (`known_hands`).
        multipv: how many of the best candidates get a principal variation
            of their own (0: none; the result's own line is always given).
        candidates: most candidates in the result, the best first (None:
            every root action the search visited). A caller that sends a
            few builds only those: each costs the report an Action and its
            figures.
        calibrated: correct the per-seat win probabilities by the model's
            calibration map, when it has one (False: the tree's own, which
            is what a map is fitted to).
        levels: who plays each seat, by level name ("" for a seat whose
            player is not known; empty: nobody is known). The win
            probabilities of an analysis or a suggestion then hold for those
            players where the model's map for the search's settings has one
            for their population (calibration_map.population);
            the search itself is the same.
        forecast: playouts of a forecast of every temple and score part
            from the observer's view (:mod:`.forecast`; 0: none).
    """

    seat: int | None = None
    known_hands: Sequence[int] = ()
    allow: Sequence[Action] = ()
    avoid: Sequence[Action] = ()
    multipv: int = DEFAULT_MULTIPV
    candidates: int | None = None
    calibrated: bool = True
    levels: Sequence[str] = ()
    forecast: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.levels, (str, bytes)) or not all(isinstance(v, str) for v in self.levels):
            raise ValueError(f"levels: must be a sequence of level names, got {self.levels!r}")
        if isinstance(self.forecast, bool) or not isinstance(self.forecast, int) or not 0 <= self.forecast <= 100_000:
            raise ValueError(f"forecast: must be a number of playouts in 0..100000, got {self.forecast!r}")
        if isinstance(self.multipv, bool) or not isinstance(self.multipv, int) or self.multipv < 0:
            raise ValueError(f"multipv: must be a non-negative integer, got {self.multipv!r}")
        if self.candidates is not None and (isinstance(self.candidates, bool) or not isinstance(
                self.candidates, int) or self.candidates < 1):
            raise ValueError(f"candidates: must be a positive integer or None, got {self.candidates!r}")
        for name in ("allow", "avoid"):
            actions = getattr(self, name)
            if isinstance(actions, (str, bytes, Action)):
                raise ValueError(f"{name}: must be a sequence of actions, got {actions!r}")


@dataclass(frozen=True)
class Run:
    """How the search runs.

    Attributes:
        stop: a flag that ends the search when set (from any thread).
        pause: a flag that pauses the search when set (from any thread): the
            trees stop at once, `on_pause()` is called in the searching
            thread, and the search goes on where it was when it returns (the
            caller clears the flag). A scheduler uses it to let more urgent
            work have the cores; a time budget keeps running meanwhile.
        on_pause: see `pause`; required with it.
        on_report: called in the searching thread with the result so far
            every `report_every_s` seconds (or `report_every_iterations`)
            while the search goes on (not at its end: the final result is
            returned). The trees go on growing between reports, so reports
            only add to each other, and the final result is the one the
            same search gives without reports.
        report_every_s: seconds between reports (positive).
        report_every_iterations: when given, report after every this many
            iterations (over all threads) instead: a deterministic schedule.
        cpu_priority: the CPU priority of the threads that grow the trees:
            "normal", "reduced" (nice 5: yields to normal work but is never
            starved, so a time budget still holds), "low" (nice 19) or
            "idle" (Linux's SCHED_IDLE: only when nothing else wants a
            core). A server lowers its searches so that quick calls never
            wait for a core; those threads never take the GIL, and the
            search's Python work stays in the calling thread.
        started: when the time budget began, in :func:`time.monotonic`
            seconds (the search's clock); None: when
            :func:`~cacaoai.search.search` is called. A server passes the
            request's arrival (less its wait for a slot), so that the time
            spent reading the request counts too. The deadline and the
            result's ``elapsed_s`` count from it.
        answer_s: seconds the caller needs after the search returns to
            deliver its answer (a server's reply); a time budget's trees
            stop that much earlier too, so that the answer, not only the
            search, is ready when the budget ends.
    """

    stop: StopFlag | None = None
    pause: StopFlag | None = None
    on_pause: Callable[[], None] | None = None
    on_report: Callable[[SearchResult], None] | None = None
    report_every_s: float = 0.5
    report_every_iterations: int | None = None
    cpu_priority: str = "normal"
    started: float | None = None
    answer_s: float = 0.0

    def __post_init__(self) -> None:
        answer = self.answer_s
        if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not 0 <= answer < math.inf:
            raise ValueError(f"answer_s: must be a finite number of seconds >= 0, got {answer!r}")
        started = self.started
        if started is not None and (isinstance(started, bool) or not isinstance(started, (int, float))
                                    or not math.isfinite(started)):
            raise ValueError(f"started: must be a time.monotonic() time or None, got {started!r}")
        if self.cpu_priority not in PRIORITIES:
            raise ValueError(f"cpu_priority: must be one of {', '.join(PRIORITIES)}, "
                             f"got {self.cpu_priority!r}")
        if self.on_report is not None and not self.report_every_s > 0:
            raise ValueError(f"report_every_s: must be positive, got {self.report_every_s!r}")
        if (self.pause is None) != (self.on_pause is None):
            raise ValueError("pause and on_pause: give both or neither")
        every = self.report_every_iterations
        if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
            raise ValueError(f"report_every_iterations: must be a positive integer or None, got {every!r}")


@dataclass(frozen=True)
class Reuse:
    """Trees kept for later searches (:mod:`cacaoai.search.reuse`).

    Attributes:
        cache: where the trees are kept; the search continues the trees of
            its position itself, else of the newest `history` entry that
            has some, descended along the actions played since. The budget
            counts new iterations only.
        history: the positions before the searched one with the action
            played from each (an Action or its code), oldest first, the last
            one leading to the searched position. Read as far as the look-up
            goes back.
    """

    cache: TreeCache
    history: Sequence[tuple[Position, Action]] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.cache, TreeCache):
            raise ValueError(f"cache: must be a TreeCache, got {type(self.cache).__name__}")
