"""Practise your mistakes (lichess's "Learn from your mistakes"): after a
review, the player is put back before each of their inaccuracies, mistakes
and blunders in turn, from their seat's view only, and tries to find a better
action.

A try is judged by the same search as the review: the record up to the
mistake with the try in its place, that one decision reviewed (ReviewGame's
``decisions``) at the review's budget and seed. It is *solved* when it loses
less than an inaccuracy against the best action found (its class is best or
good); where the endgame solver proved both values (the decision is
``exact``), only an exactly best try solves. A miss may be tried again; then :attr:`Verdict.best_action` and its
explanation show what was better.

Thread-safety: immutable values and functions of their arguments; a judge
call uses the client it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cacaoai.api import DecisionReview, Explanation, Limit
from cacaoai.engine import Action, Position

__all__ = ["PRACTISED", "SOLVED", "Exercise", "Verdict", "exercises", "judge", "judge_async"]

#: The classes of the decisions a practice offers, in the order of the game.
PRACTISED = ("inaccuracy", "mistake", "blunder")
#: The classes of a try that solves an exercise: it loses less than an inaccuracy
#: (only "best" where the solver proved the values: an exact loss is no estimate).
SOLVED = ("best", "good")


@dataclass(frozen=True)
class Exercise:
    """One decision to practise: the game before it, whose seat chose, what
    it chose and how the review classed it.

    Attributes:
        index: the decision's index in the record's actions.
        seat: the seat that chose (the player).
        classification: its class in the review (inaccuracy, mistake, blunder).
        taken: the action the player chose in the game.
        record: the game up to the decision (a cacao-record/1 dict, no result).
    """

    index: int
    seat: int
    classification: str
    taken: Action
    record: Mapping[str, Any]

    def position(self) -> Position:
        """The game before the decision (complete: for judging, never to show)."""
        return Position.from_record(dict(self.record))

    def view(self) -> dict[str, Any]:
        """What the player saw when choosing: their seat's observation."""
        return self.position().observation(self.seat)

    def legal_actions(self) -> list[Action]:
        """The actions the player may try."""
        return self.position().legal_actions()


@dataclass(frozen=True)
class Verdict:
    """A try judged.

    Attributes:
        solved: it loses less than an inaccuracy against the best action
            (is exactly as good as the best, where the solver proved both).
        classification: its class, as the review would class it.
        win_loss: the win probability it loses against the best action.
        best_action: the best action the search found.
        explanation: why the best action is better (None for a solved try
            that is the best).
        decision: the review of the try, whole.
    """

    solved: bool
    classification: str
    win_loss: float
    best_action: Action
    explanation: Explanation | None
    decision: DecisionReview


def exercises(record: Mapping[str, Any], decisions: Iterable[DecisionReview],
              seats: Sequence[int] = ()) -> list[Exercise]:
    """The decisions of a review to practise: the inaccuracies, mistakes and
    blunders of `seats` (empty: every seat), in the order of the game.

    Raises:
        ValueError: a decision's index is not an action of `record`.
    """
    actions = list(record["actions"])
    out = []
    for d in sorted(decisions, key=lambda d: d.index):
        if d.classification not in PRACTISED or (seats and d.seat not in seats):
            continue
        if not 0 <= d.index < len(actions):
            raise ValueError(f"decision {d.index} is not an action of the record ({len(actions)} actions)")
        before = Position.from_record(dict(record), upto=d.index).record()
        out.append(Exercise(d.index, d.seat, d.classification, d.action, before))
    return out


def attempt(exercise: Exercise, action: Action | Mapping[str, Any]) -> tuple[dict[str, Any], list[int], list[int]]:
    """The record, seats and decisions that judge `action` as the decision of
    `exercise` (ReviewGame's request).

    Raises:
        ValueError: `action` is not legal there.
    """
    position = exercise.position()
    tried = action if isinstance(action, Action) else Action.from_json(dict(action))
    if tried not in position.legal_actions():
        raise ValueError(f"{tried} is not a legal action of seat {exercise.seat} here")
    position.apply(tried)
    return position.record(), [exercise.seat], [exercise.index]


def verdict(decision: DecisionReview) -> Verdict:
    """The Verdict of a try's review."""
    solved = decision.classification == "best" if decision.exact else decision.classification in SOLVED
    return Verdict(solved=solved, classification=decision.classification,
                   win_loss=decision.win_loss, best_action=decision.best_action,
                   explanation=decision.explanation, decision=decision)


def judge(client: Any, exercise: Exercise, action: Action | Mapping[str, Any], limit: Limit | None = None, *,
          seed: int | None = None) -> Verdict:
    """Judges `action` as the player's try at `exercise`, through a
    :class:`~cacaoai.client.CacaoClient`, by the review's search (`limit`
    and `seed`: the review's, so the same try gets the same verdict).

    Raises:
        ValueError: `action` is not legal there.
        CacaoClientError: the server refused or failed.
    """
    record, seats, decisions = attempt(exercise, action)
    for report in client.review_game(record, limit, seed=seed, seats=seats, decisions=decisions):
        if report.decision is not None:
            return verdict(report.decision)
    raise RuntimeError("the review of the try reported no decision")


async def judge_async(client: Any, exercise: Exercise, action: Action | Mapping[str, Any],
                      limit: Limit | None = None, *, seed: int | None = None) -> Verdict:
    """As :func:`judge`, through an :class:`~cacaoai.client.AsyncCacaoClient`."""
    record, seats, decisions = attempt(exercise, action)
    async for report in client.review_game(record, limit, seed=seed, seats=seats, decisions=decisions):
        if report.decision is not None:
            return verdict(report.decision)
    raise RuntimeError("the review of the try reported no decision")
