"""The puzzle calls, GetPuzzle and CheckPuzzle, over the set of puzzles a
server loads once at startup (``--puzzles``, else the set the package ships).

What a puzzle is, how one is drawn and how a try is checked is
:mod:`cacaoai.search.puzzles`' business; this module only translates the
requests and the answers and guards them: a filter the search refuses is
INVALID_ARGUMENT naming its field, an unknown id and an empty draw are
NOT_FOUND, a try that is not legal in the puzzle's position is
INVALID_ARGUMENT naming the part of the action at fault. A reply never holds
a puzzle's solutions before a try is checked, and its position is always the
stored view of the puzzle's seat (no other seat's hand, no draw order).

Thread-safety: a :class:`PuzzleCalls` holds immutable values (the puzzles,
their themes' counts) and a thread-safe cache of which pass each filter;
every call builds its own engine position.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cacaoai.api import convert
from cacaoai.api.cacao.v1 import cacao_pb2 as pb
from cacaoai.api.cacao.v1.cacao_pb2 import ErrorReason
from cacaoai.engine import Position
from cacaoai.search import puzzles
from cacaoai.search.puzzles import Puzzle

from . import errors, positions


@contextmanager
def search_fields() -> Iterator[None]:
    """Turns the puzzles module's ValueError, whose text starts with the
    field at fault ("theme: must be one of ..."), into INVALID_ARGUMENT on
    that field."""
    try:
        yield
    except ValueError as error:
        field, sep, text = str(error).partition(": ")
        raise (errors.invalid(field, text) if sep else errors.invalid("request", str(error))) from None


class PuzzleCalls:
    """GetPuzzle and CheckPuzzle over one set of puzzles.

    Args:
        path: the set's JSONL file (one puzzle a line); None: the shipped set.

    Raises:
        ValueError: the file holds a bad puzzle (naming its line and field).
        OSError: the file cannot be read.
    """

    def __init__(self, path: str | Path | None = None):
        #: the puzzles served, in the file's order
        try:
            self.puzzles: tuple[Puzzle, ...] = puzzles.load(path)
        except OSError as error:  # not the port's: serve() binds it around this
            raise ValueError(f"--puzzles {path}: cannot read it: {error.strerror or error}") from None
        self._by_id = {p.id: p for p in self.puzzles}
        self._themes = [pb.PuzzleTheme(name=name, puzzles=count)
                        for name, count in puzzles.theme_counts(self.puzzles).items()]
        # which pass a filter, kept for the few kinds of filters that are asked again and again
        self._passing = functools.lru_cache(maxsize=64)(self._passing_now)

    def get_puzzle(self, request: pb.GetPuzzleRequest) -> pb.GetPuzzleResponse:
        filters: dict[str, Any] = {
            "theme": request.theme or None,
            "min_rating": request.min_rating if request.HasField("min_rating") else None,
            "max_rating": request.max_rating if request.HasField("max_rating") else None,
            "players": request.players if request.HasField("players") else None,
        }
        seed = request.seed if request.HasField("seed") else positions.random_seed()
        with search_fields():
            chosen = puzzles.pick(self.puzzles, **filters, exclude=request.exclude, seed=seed)
        if chosen is None:
            raise errors.not_found("", self._none_left(filters, request.exclude), ErrorReason.PUZZLE_NOT_FOUND)
        response = pb.GetPuzzleResponse(matching=self._count(filters, request.exclude), themes=self._themes)
        puzzle = response.puzzle
        puzzle.id, puzzle.players, puzzle.seat, puzzle.rating = chosen.id, chosen.players, chosen.seat, chosen.rating
        puzzle.position.CopyFrom(convert.position_from_json(dict(chosen.view)))
        puzzle.themes.extend(chosen.themes)
        return response

    def check_puzzle(self, request: pb.CheckPuzzleRequest) -> pb.CheckPuzzleResponse:
        if not request.puzzle_id:
            raise errors.invalid("puzzle_id", "required: the id of a puzzle GetPuzzle sent")
        puzzle = self._by_id.get(request.puzzle_id)
        if puzzle is None:
            raise errors.not_found("puzzle_id", f"no puzzle {request.puzzle_id!r} on this server",
                                   ErrorReason.PUZZLE_NOT_FOUND)
        if not request.HasField("action"):
            raise errors.invalid("action", "required: the action tried")
        with errors.request_fields():
            action_json = convert.action_to_json(request.action)
        # legal in the puzzle's position? The seat's own hand and everything public decide it,
        # so any determinization of the view answers alike
        positions.apply(Position.from_observation(dict(puzzle.view), 0), request.action, action_json)
        with search_fields():
            correct = puzzles.check(puzzle, action_json)
        return pb.CheckPuzzleResponse(
            correct=correct, solutions=[convert.action_to_proto(a) for a in puzzle.solutions],
            sentence=puzzle.sentence, gap=puzzle.gap, exact=puzzle.exact, rating=puzzle.rating)

    # --- counting, with pick itself as the filter (so the count and the draw never disagree) ---

    def _count(self, filters: dict[str, Any], exclude: Any) -> int:
        return len(self._passing(**filters) - set(exclude))

    def _passing_now(self, theme: str | None, min_rating: int | None, max_rating: int | None,
                     players: int | None) -> frozenset[str]:
        """The ids of the puzzles that pass the filters (each asked of pick alone)."""
        return frozenset(p.id for p in self.puzzles if puzzles.pick(
            (p,), theme=theme, min_rating=min_rating, max_rating=max_rating, players=players) is not None)

    def _none_left(self, filters: dict[str, Any], exclude: Any) -> str:
        """Why the draw found nothing, in a sentence: the filters, and whether
        the excluded puzzles are all that pass them."""
        said = [f"theme {filters['theme']!r}" if filters["theme"] else "",
                _rating_words(filters["min_rating"], filters["max_rating"]),
                f"{filters['players']} players" if filters["players"] else ""]
        wanted = ", ".join(s for s in said if s) or "no filter"
        if not self.puzzles:
            return "this server has no puzzles"
        seen = len(self._passing(**filters))
        if seen:
            return (f"every puzzle that passes the filters ({wanted}) is excluded: all {seen} seen; "
                    "send fewer ids in exclude to see them again")
        return f"no puzzle of this server's {len(self.puzzles)} passes the filters ({wanted})"


def _rating_words(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"rated {low} to {high}"
    if low is not None:
        return f"rated at least {low}"
    return f"rated at most {high}" if high is not None else ""


__all__ = ["PuzzleCalls", "search_fields"]
