"""The adaptive level: plays about as well as its opponents, and keeps the game even.

At each of its moves it aims at a rung of RUNGS (the fixed levels from
``beginner`` to ``strong``, with ``novice`` below and ``expert`` above) in
two parts:

- :func:`estimate`, how well the other seats have played: their decisions
  of the game so far (the position carries its game: its deal and actions)
  are reviewed, each from the deciding seat's view with a small budget
  (REVIEW_LIMIT, no explanations; :mod:`cacaoai.search.review`), and their
  mean accuracy, each decision weighted by what was at stake
  (:func:`stakes`: a decided game makes every move look accurate), drawn
  toward PRIOR_ACCURACY by PRIOR_WEIGHT decisions' worth, is placed on the
  ladder of the accuracies the fixed levels show under that review in games
  against this level (``benchmarks/adaptive.py`` prints them);
- :func:`band`, a rubber band on the game itself: its own win probability,
  searched from its own view (:func:`chances`), above an even share moves
  the aim weaker (GAIN_DOWN rungs per unit), below it stronger (GAIN_UP),
  plus a constant LEAN upward (a mix of weaker and stronger moves loses more
  than it wins). Only the band reaches ``novice`` and ``expert``.

It plays the rung nearest the aim (:func:`pick`). The target: any fixed
level from ``beginner`` to ``strong`` wins 40-60% of 2-player games against
it (BENCHMARKS.md says how close it comes).

Cost: one review of each other seat's decision (the last WINDOW of them),
REVIEW_LIMIT iterations each plus half of that when the move was not the
review's best, and one CHANCES_LIMIT search a move. Each decision's review
is seeded by its place in the game, so it depends on the game alone;
reviews are kept in a small in-process memo (a pure function's cache), and
a bot or server answering the moves of one game reviews each decision once.

Determinism: for a position (with its game), a seed and the budgets here,
the rung chosen and the move are the same on every run.

Thread-safety: the memo has a lock; the rest is pure.
"""

from __future__ import annotations

import math
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass

from cacaoai.engine import Action, Position, derive_seed

from .driver import search
from .limits import ANALYSIS, Limit
from .request import Question
from .review import DecisionReview, review_game, stakes

__all__ = ["ADAPTIVE", "CEILING", "CHANCES_LIMIT", "FLOOR", "GAIN_DOWN", "GAIN_UP", "LEAN", "MIX", "PRIOR_ACCURACY",
           "PRIOR_WEIGHT", "REVIEW_LIMIT", "RUNGS", "WINDOW", "Choice", "Estimate", "band", "chances",
           "choose_level", "estimate", "pick", "reviewed", "rung_of", "stakes", "target_rung"]

#: The adaptive level's name.
ADAPTIVE = "adaptive"
#: The budget of each reviewed decision (plus half of it when the move was not the best).
REVIEW_LIMIT = Limit(iterations=200, threads=1)
#: The most recent decisions of the other seats that are reviewed.
WINDOW = 24
#: The settings it plays, weakest first: (name, bot spec, the mean accuracy
#: each shows under this review). The fixed levels from ``beginner`` to
#: ``strong`` with the weighted accuracy each showed in 200 2-player games
#: against this level (benchmarks/adaptive.py, "its accuracy seen"), except
#: that the three playout levels stand closer together than seen (74, 76
#: and 79), so that a game's few decisions tell them apart on the ladder;
#: beyond them ``novice`` and ``expert``, which only the rubber band reaches
#: (their accuracies only keep the ladder increasing): to give back a lead
#: against a beginner, to catch up against a strong player. The ``advanced``
#: rung plays as that level did when the band was tuned (60 iterations,
#: without the endgame solver; docs/decisions/levels.md).
RUNGS: tuple[tuple[str, str, float], ...] = (
    ("novice", "nomodel:iterations=4,temperature=2.0", 72.0),
    ("beginner", "beginner", 75.5),
    ("easy", "easy", 76.2),
    ("casual", "casual", 76.8),
    ("club", "club", 90.6),
    ("advanced", "mcts:iterations=60,temperature=0.5,endgame=0", 94.2),
    ("strong", "strong", 96.4),
    ("expert", "mcts:iterations=3000", 97.0),
)
#: The rubber band: rungs weaker per unit of its own win probability above an
#: even share (1 / players), stronger per unit below it, and the constant
#: lean upward (in rungs); chosen by 200-game runs of benchmarks/adaptive.py
#: (docs/decisions/levels.md).
GAIN_UP = 3.0
GAIN_DOWN = 2.5
LEAN = 0.25
#: Whether a target between two rungs draws one of them (True) or plays the nearest.
MIX = False
#: The weakest and the strongest rung the estimate alone places an opponent
#: on (beyond them: the band only).
FLOOR = 1
CEILING = 6
#: The budget and settings of the search that judges its own chances.
CHANCES_LIMIT = Limit(iterations=200, threads=1)
#: What it assumes before the opponents have moved, and how many decisions' worth.
PRIOR_ACCURACY = 87.0
PRIOR_WEIGHT = 1.0
#: Seeds of the reviews (by decision index), of the draw between two rungs and of the chances.
REVIEW_SEED = 0xADA
MIX_INDEX = 0xADA
CHANCES_INDEX = 0xC4A
MEMO_SIZE = 100_000

_memo: OrderedDict[tuple[str, int, str, str], tuple[float, float] | None] = OrderedDict()
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


def reviewed(before: Position, index: int, action: Action,
             limit: Limit = REVIEW_LIMIT) -> tuple[float, float] | None:
    """The accuracy of `action` played from `before` (decision `index` of its
    game), judged from the mover's view at `limit`, and what was at stake
    (:func:`stakes` of the mover's win probability before it); None for a
    forced one. A pure function of its arguments, memoized."""
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
    judged = None
    if not first.forced and first.accuracy is not None:
        judged = (first.accuracy, stakes(first.win_before, before.players))
    with _memo_lock:
        _memo[key] = judged
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return judged


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
    scores: list[tuple[float, float]] = []
    for before, index, action in reversed(decisions):
        if len(scores) == WINDOW:
            break
        judged = reviewed(before, index, action, limit)
        if judged is not None:
            scores.append(judged)
    weight = sum(w for _, w in scores)
    total = sum(a * w for a, w in scores)
    mean = total / weight if weight > 0 else None
    estimated = (total + PRIOR_WEIGHT * PRIOR_ACCURACY) / (weight + PRIOR_WEIGHT)
    return Estimate(len(scores), mean, estimated, rung_of(estimated))


def rung_of(accuracy: float) -> float:
    """Where `accuracy` stands on RUNGS, interpolated linearly between the
    two rungs around it, clipped to the ladder's ends."""
    values = [a for _, _, a in RUNGS]
    if accuracy <= values[FLOOR]:
        return float(FLOOR)
    for i in range(FLOOR + 1, CEILING + 1):
        if accuracy <= values[i]:
            return i - 1 + (accuracy - values[i - 1]) / (values[i] - values[i - 1])
    return float(CEILING)


@dataclass(frozen=True)
class Choice:
    """The setting the adaptive level plays a move with, and why.

    Attributes:
        level: the rung's name (RUNGS).
        estimate: what it made of the other seats' play.
        win: its own win probability, from its own view (None: not searched).
        target: the rung aimed at: the estimate's, moved by the rubber band.
    """

    level: str
    estimate: Estimate
    win: float | None
    target: float


def band(win: float | None, players: int) -> float:
    """The rubber band, in rungs: weaker (negative) when its own win
    probability `win` is above an even share, stronger below it; plus LEAN."""
    if win is None:
        return LEAN
    gap = win - 1.0 / players
    return LEAN - (GAIN_DOWN if gap > 0 else GAIN_UP) * gap


def target_rung(rung: float, win: float | None, players: int) -> float:
    """The rung aimed at: the estimate's `rung` moved by the band, within the ladder."""
    return min(max(rung + band(win, players), 0.0), float(len(RUNGS) - 1))


def pick(target: float, seed: int) -> str:
    """The rung played for a `target` between two rungs: the one above with
    the probability of the fraction between them, drawn from `seed`."""
    if not MIX:
        return RUNGS[min(math.floor(target + 0.5), len(RUNGS) - 1)][0]
    low = math.floor(target)
    upper = random.Random(derive_seed(seed, MIX_INDEX)).random() < target - low
    return RUNGS[min(low + upper, len(RUNGS) - 1)][0]


def chances(position: Position, seat: int, seed: int, limit: Limit = CHANCES_LIMIT) -> float | None:
    """`seat`'s win probability in `position`, searched from its own view
    (what it cannot see determinized); None when nothing was searched."""
    result = search(position, limit, ANALYSIS, seed=derive_seed(seed, CHANCES_INDEX) % 2**64,
                    question=Question(seat=seat, multipv=0))
    return None if result.win_probability is None else result.win_probability[seat]


def choose_level(position: Position, seed: int, seat: int | None = None,
                 limit: Limit = REVIEW_LIMIT) -> Choice:
    """The rung the adaptive level plays this move with: the estimate of the
    other seats' play (:func:`estimate`), moved by the rubber band of its own
    chances (:func:`chances`, :func:`band`), and between two rungs one of
    them drawn from `seed` (:func:`pick`)."""
    me = position.to_act if seat is None else seat
    assert me is not None, "the game is over"
    found = estimate(position, me, limit)
    win = chances(position, me, seed) if len(position.legal_codes()) > 1 else None
    target = target_rung(found.rung, win, position.players)
    return Choice(pick(target, seed), found, win, target)
