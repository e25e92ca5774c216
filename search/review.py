"""Game review: every decision of a recorded game judged by the search, from
the deciding seat's view only.

:func:`review` replays a cacao-record/1 and, for each decision (an action
of the seat to act), searches the position as that seat saw it: the search
is given the seat's observation only (``search(..., question=Question(seat=...))`` determinizes
what the seat could not see), so a review never reveals another seat's
hand or a draw order. For each decision it yields a :class:`DecisionReview`:

- ``win_before``: the mover's win probability before the decision (the
  search's root);
- the best action and its win probability, and ``win_after``: the win
  probability of the action taken. When the taken action is not the
  search's best, a second search (PAIR_SHARE of the budget) continues the
  same tree restricted to the two actions, so that both are judged on the
  same determinizations with enough visits; its choice between them is the
  best action;
- ``win_loss`` = best - after (at least 0) and ``gold_loss`` (the best
  action's expected final gold minus the taken action's; may be negative);
- in the endgame, once nothing is hidden and the endgame solver proves the
  position within the budget, both actions' values are exact (``exact``):
  the first search's when it valued the taken action too, else the second
  search's, which the solver values exactly for the two;
- a classification by the loss in win probability (CLASSES, thresholds
  INACCURACY_LOSS, MISTAKE_LOSS, BLUNDER_LOSS), and the move's accuracy
  (:func:`move_accuracy`);
- an :class:`~cacaoai.search.explain.Explanation` of what the best action's
  line gives that the taken action's does not.

A decision with a single legal action is ``forced``: no search, no loss,
left out of accuracies and counts. After the decisions it yields a
:class:`ReviewSummary`: per seat, the accuracy (:func:`game_accuracy`: the
mean of the move accuracies, each weighted by what was at stake) and the
counts per class.

Win probabilities are the tree's own (uncalibrated) win shares, so that
before, best and after are on one scale. Each seat's trees are kept in a
TreeCache of its own and continued at the seat's next decision along the
actions played since (cacaoai.search.reuse), so the review of a seat is the
same whether or not the other seats are reviewed. For a seed, settings and an
iteration budget the review is the same on every run. A set stop flag ends
it: the decision being searched is dropped and no summary follows.

Thread-safety: a review owns its trees; run several in several threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cacaoai.engine import Action, CacaoError, Position, derive_seed, parse_record

from ._mcts import StopFlag
from .driver import search
from .explain import Explanation, explain
from .limits import ANALYSIS, Limit, SearchSettings
from .request import Question, Reuse, Run
from .results import Candidate, SearchResult
from .reuse import TreeCache

__all__ = ["BLUNDER_LOSS", "CLASSES", "DEFAULT_LIMIT", "FORCED", "INACCURACY_LOSS", "MISTAKE_LOSS",
           "PAIR_SHARE", "DecisionReview", "ReviewSummary", "SeatReview", "classify", "game_accuracy", "move_accuracy",
           "review", "review_game", "stakes", "weighted_accuracy"]

#: The classes of a searched decision, best first.
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
#: The class of a decision with one legal action.
FORCED = "forced"
#: Loss in win probability (0..1) from which a decision that is not the best
#: is an inaccuracy, a mistake, a blunder (below INACCURACY_LOSS: good); why
#: these: docs/decisions/review-thresholds.md.
INACCURACY_LOSS = 0.05
MISTAKE_LOSS = 0.10
BLUNDER_LOSS = 0.20
#: The review's budget per decision when none is given.
DEFAULT_LIMIT = Limit(iterations=2400)
#: The share of the budget the second search (best against taken) gets.
PAIR_SHARE = 0.5
#: The fewest iterations the second search gets.
PAIR_MIN_ITERATIONS = 32
#: Memory for the trees a review keeps from one decision to the seat's next
#: (every seat's together), unless the caller gives its own bound.
CACHE_BYTES = 512 * 2**20
#: lichess's accuracy curve (lichess.org/page/accuracy), of a loss in percentage points.
ACCURACY_SCALE, ACCURACY_RATE, ACCURACY_OFFSET = 103.1668, 0.04354, 3.1669


@dataclass(frozen=True)
class DecisionReview:
    """The review of one decision: action `index` of the record, by `seat`.

    Win probabilities and expected gold are the mover's; None for a forced
    decision (not searched). `best_line` and `line` are the expected lines of
    the best and the taken action (the first action of each included).
    `exact`: the endgame solver proved both actions' values, so the loss is
    exact (with 3-4 players: against all the other seats together).
    """

    index: int
    seat: int
    action: Action
    classification: str
    best_action: Action
    win_before: float | None = None
    win_after: float | None = None
    best_win: float | None = None
    win_loss: float = 0.0
    gold_after: float | None = None
    best_gold: float | None = None
    gold_loss: float = 0.0
    accuracy: float | None = None
    best_line: tuple[Action, ...] = ()
    line: tuple[Action, ...] = ()
    explanation: Explanation | None = None
    iterations: int = 0
    reused_visits: int = 0
    exact: bool = False

    @property
    def forced(self) -> bool:
        return self.classification == FORCED

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seat": self.seat, "action": self.action.to_json(),
                "classification": self.classification, "best_action": self.best_action.to_json(),
                "win_before": self.win_before, "win_after": self.win_after, "best_win": self.best_win,
                "win_loss": self.win_loss, "gold_after": self.gold_after, "best_gold": self.best_gold,
                "gold_loss": self.gold_loss, "accuracy": self.accuracy,
                "best_line": [a.to_json() for a in self.best_line], "line": [a.to_json() for a in self.line],
                "explanation": self.explanation.to_json() if self.explanation else None,
                "iterations": self.iterations, "reused_visits": self.reused_visits, "exact": self.exact}


@dataclass(frozen=True)
class SeatReview:
    """One seat's decisions summed up: `decisions` searched ones (`forced`
    left out), their accuracy (:func:`game_accuracy`), mean losses and
    counts per class."""

    seat: int
    decisions: int
    forced: int
    accuracy: float | None
    mean_win_loss: float | None
    mean_gold_loss: float | None
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "decisions": self.decisions, "forced": self.forced,
                "accuracy": self.accuracy, "mean_win_loss": self.mean_win_loss,
                "mean_gold_loss": self.mean_gold_loss, "counts": dict(self.counts)}


@dataclass(frozen=True)
class ReviewSummary:
    """The end of a review: each reviewed seat's summary and the iterations spent."""

    seats: tuple[SeatReview, ...]
    iterations: int

    def to_json(self) -> dict[str, Any]:
        return {"seats": [s.to_json() for s in self.seats], "iterations": self.iterations}


def move_accuracy(win_loss: float) -> float:
    """A decision's accuracy in percent from its loss in win probability
    (0..1): lichess's curve, 103.1668 * exp(-0.04354 * loss in points) -
    3.1669, clipped to 0..100 (100 for no loss, about 81 for 5 points, 63
    for 10, 40 for 20)."""
    points = 100.0 * max(0.0, win_loss)
    value = ACCURACY_SCALE * math.exp(-ACCURACY_RATE * points) - ACCURACY_OFFSET
    return min(100.0, max(0.0, value))


def stakes(win: float | None, players: int) -> float:
    """How much a decision made at win probability `win` tells of its
    player: 1 at an even share (1 / players), falling toward 0 as the game
    is decided (where every move loses little, however good; lichess weights
    its game accuracy by the position's volatility for the same reason).
    None (not known) counts fully."""
    if win is None:
        return 1.0
    even = 1.0 / players
    return min(1.0, win * (1.0 - win) / (even * (1.0 - even)))


def game_accuracy(decisions: Iterable[DecisionReview], players: int) -> float | None:
    """A seat's accuracy over `decisions` (:func:`weighted_accuracy` of the
    judged ones); None when none was judged."""
    return weighted_accuracy([(d.accuracy, d.win_before) for d in decisions
                              if not d.forced and d.accuracy is not None], players)


def weighted_accuracy(moves: Sequence[tuple[float, float | None]], players: int) -> float | None:
    """The mean of `moves`' accuracies, given as (move accuracy, the mover's
    win probability before it), each weighted by :func:`stakes`. A plain
    mean would let a player who is far behind look accurate (every move
    loses little in a decided game). The plain mean when every move was made
    in a decided game; None for no moves."""
    if not moves:
        return None
    weights = [stakes(win, players) for _, win in moves]
    weight = sum(weights)
    if weight <= 0.0:
        return sum(a for a, _ in moves) / len(moves)
    return sum(a * w for (a, _), w in zip(moves, weights)) / weight


def classify(win_loss: float, is_best: bool) -> str:
    """The class of a searched decision from its loss in win probability."""
    if is_best:
        return "best"
    if win_loss >= BLUNDER_LOSS:
        return "blunder"
    if win_loss >= MISTAKE_LOSS:
        return "mistake"
    if win_loss >= INACCURACY_LOSS:
        return "inaccuracy"
    return "good"


def review(record: Mapping[str, Any] | str, limit: Limit = DEFAULT_LIMIT,
           settings: SearchSettings = ANALYSIS, *, seed: int, seats: Sequence[int] | None = None,
           stop: StopFlag | None = None, priority: str = "normal",
           explanations: bool = True, pause: StopFlag | None = None,
           on_pause: Callable[[], None] | None = None,
           keep_bytes: int = CACHE_BYTES,
           decisions: Collection[int] | None = None) -> Iterator[DecisionReview | ReviewSummary]:
    """Review the decisions of `record` (a cacao-record/1, dict or text):
    an iterator of one DecisionReview per decision of the `seats` reviewed
    (default: all), in the record's order, then a ReviewSummary. The
    arguments are checked at the call; the searches run as it is iterated.

    Args:
        record: the game; it need not be finished.
        limit: the budget of each decision's search (plus PAIR_SHARE of it
            for a second search when the taken action is not the best).
        settings: how the search judges (default: the analysis settings).
        seed: seeds every search (0 <= seed < 2**64).
        seats: the seats whose decisions are reviewed.
        stop: a flag that ends the review when set (from any thread).
        priority: the CPU priority of the search threads (see search()).
        explanations: build an Explanation for each decision that is not the best.
        pause, on_pause: pause the searches as ``Run`` does (a scheduler's
            flag, to give the cores to more urgent work).
        keep_bytes: the most memory of the trees kept between decisions,
            every seat's together (a server's memory budget sets it).
        decisions: review only the decisions at these indices of the
            record's actions (each a decision of a seat reviewed: practising a
            mistake judges one decision); None: every decision.

    Raises:
        RecordError: the record is malformed or an action is illegal.
        ValueError: a bad seat, seed or budget.
    """
    data = parse_record(record)
    Position.from_record(data)       # checks every action and the result before any search
    return review_game(Position.from_record(data, 0), [Action.from_json(a) for a in data["actions"]],
                       limit, settings, seed=seed, seats=seats, stop=stop, priority=priority,
                       explanations=explanations, pause=pause, on_pause=on_pause, keep_bytes=keep_bytes,
                       decisions=decisions)


def review_game(start: Position, actions: Sequence[Action | Mapping[str, Any]], limit: Limit = DEFAULT_LIMIT,
                settings: SearchSettings = ANALYSIS, *, seed: int, seats: Sequence[int] | None = None,
                stop: StopFlag | None = None, priority: str = "normal",
                explanations: bool = True, pause: StopFlag | None = None,
                on_pause: Callable[[], None] | None = None,
                keep_bytes: int = CACHE_BYTES,
                decisions: Collection[int] | None = None) -> Iterator[DecisionReview | ReviewSummary]:
    """Review `actions` played from `start` (not modified) as :func:`review`
    reviews a record's: decision `index` is ``actions[index]``. For games
    that do not start at a deal (a snapshot, a hand-made position).

    Raises ValueError naming the first action that is not legal, a bad
    seat, seed or budget."""
    reviewed = _seats(seats, start.players)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: must be an integer in 0..2**64-1, got {seed!r}")
    if not isinstance(limit, Limit) or not limit.bounded:
        raise ValueError(f"limit: must be a Limit with iterations or time_s, got {limit!r}")
    played = _played(start, actions)
    chosen = None if decisions is None else _decisions(start, played, reviewed, decisions)
    run = Run(stop=stop, pause=pause, on_pause=on_pause, cpu_priority=priority)
    return _review(start, played, limit, settings, seed, reviewed, run, explanations, TreeCache(keep_bytes),
                   chosen)


def _review(start: Position, played: list[Action], limit: Limit, settings: SearchSettings, seed: int,
            reviewed: list[int], run: Run, explanations: bool, cache: TreeCache,
            chosen: frozenset[int] | None = None) -> Iterator[DecisionReview | ReviewSummary]:
    pair_limit = _pair_limit(limit)
    histories: dict[int, list[tuple[Position, Action]]] = {s: [] for s in reviewed}
    done: list[DecisionReview] = []
    iterations = 0
    position = start.clone()
    for index, action in enumerate(played):
        seat = position.to_act
        assert seat is not None
        if seat in reviewed and (chosen is None or index in chosen):
            if run.stop is not None and run.stop.is_set():
                return
            decision = _decision(position, index, seat, action, limit, pair_limit, settings,
                                 derive_seed(seed, index), run, cache,
                                 histories[seat], explanations)
            if decision is None:
                return
            if not decision.forced:
                histories[seat] = []
            iterations += decision.iterations
            done.append(decision)
            yield decision
        before = position.clone()
        position.apply(action)
        for s in reviewed:
            histories[s].append((before, action))
    yield ReviewSummary(tuple(_summary(s, [d for d in done if d.seat == s], position.players)
                              for s in reviewed), iterations)


def _played(start: Position, actions: Sequence[Action | Mapping[str, Any]]) -> list[Action]:
    """`actions` as Actions, each checked legal where it is played;
    ValueError naming the first that is not."""
    position = start.clone()
    out = []
    for i, raw in enumerate(actions):
        try:
            action = raw if isinstance(raw, Action) else Action.from_json(raw)
            position.apply(action)
        except CacaoError as exc:
            raise ValueError(f"actions[{i}]: {exc}") from None
        out.append(action)
    return out


def movers(start: Position, actions: Sequence[Action | Mapping[str, Any]]) -> list[int]:
    """The seat that chose each of `actions` (legal, played from `start`)."""
    position = start.clone()
    out = []
    for action in actions:
        assert position.to_act is not None  # nobody acts only once the game is over
        out.append(position.to_act)
        position.apply(action)
    return out


def _decisions(start: Position, played: list[Action], reviewed: list[int],
               decisions: Collection[int]) -> frozenset[int]:
    """The indices asked for, each checked to be a decision of a seat
    reviewed; ValueError naming the first that is not."""
    chooser = movers(start, played)
    for i, index in enumerate(decisions):
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(played):
            raise ValueError(f"decisions[{i}]: must be the index of an action, 0..{len(played) - 1}, "
                             f"got {index!r}")
        if chooser[index] not in reviewed:
            raise ValueError(f"decisions[{i}]: action {index} is seat {chooser[index]}'s, "
                             f"a seat not reviewed")
    return frozenset(decisions)


def _seats(seats: Sequence[int] | None, players: int) -> list[int]:
    if seats is None:
        return list(range(players))
    out = []
    for i, s in enumerate(seats):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise ValueError(f"seats[{i}]: must be a seat in 0..{players - 1}, got {s!r}")
        if s not in out:
            out.append(s)
    return sorted(out)


def _pair_limit(limit: Limit) -> Limit:
    """The second search's budget: PAIR_SHARE of `limit`."""
    iterations = (None if limit.iterations is None
                  else max(PAIR_MIN_ITERATIONS, round(limit.iterations * PAIR_SHARE)))
    time_s = None if limit.time_s is None else limit.time_s * PAIR_SHARE
    return replace(limit, iterations=iterations, time_s=time_s)


def _decision(position: Position, index: int, seat: int, action: Action, limit: Limit,
              pair_limit: Limit, settings: SearchSettings, seed: int, run: Run,
              cache: TreeCache, history: list[tuple[Position, Action]],
              explanations: bool) -> DecisionReview | None:
    """One decision's review; None when the stop flag ended its search."""
    if len(position.legal_codes()) == 1:
        return DecisionReview(index, seat, action, FORCED, action)
    question = Question(seat=seat, multipv=1, calibrated=False)
    first = search(position, limit, settings, seed=seed, run=run, reuse=Reuse(cache, history), question=question)
    if first.stopped_by == "stop":
        return None
    if first.best_action is not None and not _tried(first, (first.best_action,)):
        # a time budget on a busy machine can end before the root tried an action
        first = search(position, replace(limit, iterations=PAIR_MIN_ITERATIONS, time_s=None), settings, seed=seed,
                       run=run, reuse=Reuse(cache, history), question=question)
        if first.stopped_by == "stop":
            return None
    reused = first.root.reused_visits if first.root else 0
    best = first.best_action
    assert best is not None
    judged, spent = first, first.iterations
    exact = _exact(first, (best, action))
    if best != action and not exact:
        pair = Question(seat=seat, multipv=2, calibrated=False, allow=[best, action])
        judged = search(position, pair_limit, settings, seed=derive_seed(seed, 1), run=run,
                        reuse=Reuse(cache), question=pair)
        if judged.stopped_by != "stop" and not _tried(judged, (best, action)):
            # a time budget on a busy machine can end before both were tried
            judged = search(position, replace(pair_limit, iterations=PAIR_MIN_ITERATIONS, time_s=None),
                            settings, seed=derive_seed(seed, 1), run=run, reuse=Reuse(cache),
                            question=pair)
        if judged.stopped_by == "stop":
            return None
        spent += judged.iterations
        best = judged.best_action
        assert best is not None
        exact = _exact(judged, (best, action))
    top, taken = _candidate(judged, best), _candidate(judged, action)
    if exact and (taken.win_probability, taken.score_lead) == (top.win_probability, top.score_lead):
        best, top = action, taken           # exactly as good as the best: one of the best
    best_win, after = top.win_probability, taken.win_probability
    loss = max(0.0, best_win - after) if best_win is not None and after is not None else 0.0
    gold_loss = (top.expected_gold - taken.expected_gold
                 if top.expected_gold is not None and taken.expected_gold is not None else 0.0)
    best_line = top.principal_variation or (best,)
    line = taken.principal_variation or (action,)
    explanation = (explain(position, seat, best_line, line, seed=derive_seed(seed, 2))
                   if explanations and best != action else None)
    return DecisionReview(
        index, seat, action, classify(loss, best == action), best,
        win_before=_win(first, seat), win_after=after, best_win=best_win, win_loss=loss,
        gold_after=taken.expected_gold, best_gold=top.expected_gold, gold_loss=gold_loss,
        accuracy=move_accuracy(loss), best_line=best_line, line=line, explanation=explanation,
        iterations=spent, reused_visits=reused, exact=exact)


def _exact(result: SearchResult, actions: Sequence[Action]) -> bool:
    """Whether the endgame solver valued each of `actions` exactly in `result`."""
    known = {c.action for c in result.candidates if c.exact}
    return result.exact and all(a in known for a in actions)


def _tried(result: SearchResult, actions: Sequence[Action]) -> bool:
    """Whether the search's root has a candidate for each of `actions`."""
    seen = {c.action for c in result.candidates}
    return all(a in seen for a in actions)


def _candidate(result: SearchResult, action: Action) -> Candidate:
    """The candidate of `action` (the second search's root holds two actions
    and expands the second at its second iteration, so both have visits)."""
    found = next((c for c in result.candidates if c.action == action), None)
    if found is None:
        raise RuntimeError(f"the review's search never tried {action}")
    return found


def _win(result: SearchResult, seat: int) -> float | None:
    return None if result.win_probability is None else result.win_probability[seat]


def _summary(seat: int, decisions: list[DecisionReview], players: int) -> SeatReview:
    searched = [d for d in decisions if not d.forced]
    counts = {c: sum(d.classification == c for d in searched) for c in CLASSES}
    n = len(searched)
    return SeatReview(seat, n, len(decisions) - n, game_accuracy(searched, players),
                      sum(d.win_loss for d in searched) / n if n else None,
                      sum(d.gold_loss for d in searched) / n if n else None, counts)
