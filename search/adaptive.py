"""The adaptive level: plays about as well as its opponents have played so far.

At each of its moves, :func:`estimate` reviews the other seats' decisions
of the game so far (the position carries its game: its deal and actions),
each from the deciding seat's view with a small budget (REVIEW_LIMIT, no
explanations; :mod:`cacaoai.search.review`), and takes their mean accuracy,
drawn toward PRIOR_ACCURACY by PRIOR_WEIGHT decisions' worth (the first
moves know little). That accuracy is placed on the ladder of RUNGS: the
fixed levels from ``beginner`` to ``strong`` with the mean accuracy each
shows under the same review (measured by ``benchmarks/adaptive.py
--calibrate``). Between two rungs the estimate is a fraction, and
:func:`choose_level` plays the stronger rung with that probability (drawn
from the move's seed): settings between two levels, on average. The target:
any fixed level from ``beginner`` to ``strong`` wins 40-60% of 2-player
games against it (BENCHMARKS.md says how close it comes).

Cost: one review of each other seat's decision (the last WINDOW of them),
REVIEW_LIMIT iterations each plus half of that when the move was not the
review's best. Each decision's review is seeded by its place in the game,
so it depends on the game alone; reviews are kept in a small in-process
memo (a pure function's cache), and a bot or server answering the moves of
one game reviews each decision once.

Determinism: for a position (with its game), a seed and the budgets here,
the level chosen and the move are the same on every run.

Thread-safety: the memo has a lock; the rest is pure.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass

from cacaoai.engine import Action, Position, derive_seed

from .limits import ANALYSIS, Limit
from .review import DecisionReview, review_game

__all__ = ["ADAPTIVE", "PRIOR_ACCURACY", "PRIOR_WEIGHT", "REVIEW_LIMIT", "RUNGS", "WINDOW", "Estimate",
           "choose_level", "estimate", "reviewed_accuracy", "rung_of"]

#: The adaptive level's name.
ADAPTIVE = "adaptive"
#: The budget of each reviewed decision (plus half of it when the move was not the best).
REVIEW_LIMIT = Limit(iterations=200, threads=1)
#: The most recent decisions of the other seats that are reviewed.
WINDOW = 24
#: The fixed levels it plays, weakest first, with their mean accuracy under
#: this review (20 2-player games of each level against itself, every
#: decision reviewed at REVIEW_LIMIT: benchmarks/adaptive.py --calibrate 20).
#: beginner and easy cannot be told apart by it: they are set half a point
#: apart to keep the ladder increasing (docs/decisions/levels.md).
RUNGS: tuple[tuple[str, float], ...] = (
    ("beginner", 81.5),
    ("easy", 82.0),
    ("casual", 85.8),
    ("club", 90.9),
    ("advanced", 93.8),
    ("strong", 95.4),
)
#: What it assumes before the opponents have moved, and how many decisions' worth.
PRIOR_ACCURACY = 88.0
PRIOR_WEIGHT = 4.0
#: Seeds of the reviews (by decision index) and of the draw between two rungs.
REVIEW_SEED = 0xADA
MIX_INDEX = 0xADA
MEMO_SIZE = 100_000

_memo: OrderedDict[tuple[str, int, str, str], float | None] = OrderedDict()
_memo_lock = threading.Lock()


@dataclass(frozen=True)
class Estimate:
    """What the adaptive level made of the other seats' play.

    Attributes:
        decisions: the other seats' searched decisions reviewed.
        accuracy: their mean accuracy (None: none yet).
        estimated: the accuracy drawn toward PRIOR_ACCURACY.
        rung: where that stands on RUNGS (0: the first, len - 1: the last; fractional between).
    """

    decisions: int
    accuracy: float | None
    estimated: float
    rung: float


def reviewed_accuracy(before: Position, index: int, action: Action, limit: Limit = REVIEW_LIMIT) -> float | None:
    """The accuracy of `action` played from `before` (decision `index` of its
    game), judged from the mover's view at `limit`; None for a forced one.
    A pure function of its arguments, memoized."""
    key = (before.hash(), index, str(action.to_json()), str(limit))
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
    seat = before.to_act
    assert seat is not None
    first = next(review_game(before, [action], limit, ANALYSIS, seed=derive_seed(REVIEW_SEED, index),
                             seats=[seat], explanations=False))
    assert isinstance(first, DecisionReview)
    accuracy = None if first.forced else first.accuracy
    with _memo_lock:
        _memo[key] = accuracy
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return accuracy


def estimate(position: Position, seat: int | None = None, limit: Limit = REVIEW_LIMIT) -> Estimate:
    """How well the seats other than `seat` (default: the seat to act) have
    played in `position`'s game so far: the last WINDOW of their searched
    decisions, each reviewed at `limit`. A position without its game (from a
    snapshot or an observation) gives the prior."""
    me = position.to_act if seat is None else seat
    played = position.history
    decisions: list[tuple[Position, int, Action]] = []
    if played:
        replay = Position.from_record(position.record(), 0)
        for index, action in enumerate(played):
            if replay.to_act != me and len(replay.legal_codes()) > 1:
                decisions.append((replay.clone(), index, action))
            replay.apply(action)
    scores: list[float] = []
    for before, index, action in reversed(decisions):
        if len(scores) == WINDOW:
            break
        accuracy = reviewed_accuracy(before, index, action, limit)
        if accuracy is not None:
            scores.append(accuracy)
    mean = sum(scores) / len(scores) if scores else None
    estimated = (sum(scores) + PRIOR_WEIGHT * PRIOR_ACCURACY) / (len(scores) + PRIOR_WEIGHT)
    return Estimate(len(scores), mean, estimated, rung_of(estimated))


def rung_of(accuracy: float) -> float:
    """Where `accuracy` stands on RUNGS, interpolated linearly between the
    two rungs around it, clipped to the ladder's ends."""
    values = [a for _, a in RUNGS]
    if accuracy <= values[0]:
        return 0.0
    for i in range(1, len(values)):
        if accuracy <= values[i]:
            return i - 1 + (accuracy - values[i - 1]) / (values[i] - values[i - 1])
    return float(len(values) - 1)


def choose_level(position: Position, seed: int, seat: int | None = None,
                 limit: Limit = REVIEW_LIMIT) -> tuple[str, Estimate]:
    """The fixed level the adaptive level plays this move with, and the
    estimate behind it: the rung below the estimate, or the one above with
    the probability of the fraction between them (drawn from `seed`)."""
    found = estimate(position, seat, limit)
    low = math.floor(found.rung)
    upper = random.Random(derive_seed(seed, MIX_INDEX)).random() < found.rung - low
    return RUNGS[min(low + upper, len(RUNGS) - 1)][0], found
