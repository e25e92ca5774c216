"""Text for people: a search's evaluation and a strength in words, as
cacao-play and cacao-match print them (a figure the endgame solver proved
marked "(exact)").

Thread-safety: pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cacaoai.api import Limit
from cacaoai.engine import Action

from .replies import Evaluation

__all__ = ["evaluation_lines", "exact_seats", "population_text", "strength_text"]


def strength_text(strength: Limit | str | None) -> str:
    """A strength in words: "level strong", "500 iterations, 2 s a move",
    or "server default" (None)."""
    if strength is None:
        return "server default"
    if isinstance(strength, str):
        return f"level {strength}"
    return strength.describe()


def population_text(population: str) -> str:
    """Whose play a win chance assumes (an evaluation's ``population``), in words:
    "if every seat plays as strong", "if one seat plays as strong and the others as
    casual"; "" for none (as the board page says it)."""
    if not population:
        return ""
    one, _, others = population.partition(" vs ")
    return (f"if one seat plays as {one} and the others as {others}" if others
            else f"if every seat plays as {one}")


def exact_seats(evaluation: Evaluation) -> frozenset[int]:
    """The seats whose figures in `evaluation` the endgame solver proved: every
    seat with 2 players, the seat to act with 3-4 (what it gets against all the
    other seats together); none when the evaluation is not ``exact``."""
    if not evaluation.exact:
        return frozenset()
    if len(evaluation.seats) == 2 or evaluation.to_act is None:
        return frozenset(s.seat for s in evaluation.seats)
    return frozenset((evaluation.to_act,))


def evaluation_lines(evaluation: Evaluation, names: Sequence[str] | None = None,
                     notation: Callable[[Action], str] = str, top: int = 5,
                     label: str = "") -> list[str]:
    """Lines for people describing an evaluation: outlook per seat, then candidates.

    Args:
        evaluation: what a search found.
        names: a name per seat (default "seat N").
        notation: how to write an action.
        top: most candidates to list.
        label: written before each candidate's number ("h": ``h1)``, ``h2)``).
    """
    def name(seat: int) -> str:
        return names[seat] if names and seat < len(names) else f"seat {seat}"

    if evaluation.stopped_by == "exact":  # the endgame solver alone: no tree
        lines = [f"solved exactly by the endgame solver: {evaluation.nodes:,} positions in "
                 f"{evaluation.elapsed_s:.2f} s"]
    else:
        lines = [f"{evaluation.iterations} iterations in {evaluation.elapsed_s:.2f} s"]
    exact = exact_seats(evaluation)
    if evaluation.seats:
        whose = population_text(evaluation.population)
        every = len(exact) == len(evaluation.seats)
        lines.append(f"win chances{' ' + whose if whose else ''}{' (exact)' if every else ''}: " + ", ".join(
            f"{name(s.seat)} {100 * s.win_probability:.0f}%{' (exact)' if s.seat in exact and not every else ''}"
            for s in evaluation.seats))
        lines.append("expected final gold: " + ", ".join(
            f"{name(s.seat)} {s.expected_gold:.1f}" for s in evaluation.seats))
        if exact and not every:
            seat = name(next(iter(exact)))
            lines.append(f"exact for {seat}: what {seat} gets if all the other seats play together against it")
    for i, c in enumerate(evaluation.candidates[:top], 1):
        win = "" if c.win_probability is None else f", win {100 * c.win_probability:.0f}%"
        sure = (" (exact)" if c.exact else "" if c.lcb is None
                else f" (at least {100 * c.lcb:.0f}%)")
        lines.append(f"{label}{i}) {notation(c.action):<28} visits {c.visits:>6}{win}{sure}")
    root = evaluation.root
    if root is not None and root.reused_visits:
        lines.append(f"continued a kept search tree: {root.reused_visits} of {root.visits} "
                     "visits were already there")
    return lines

