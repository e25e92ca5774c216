"""Puzzles in the terminal (``cacao-play --puzzles``): a position from one
seat's view where one action is clearly best, drawn by the server
(GetPuzzle), the player's try judged by it (CheckPuzzle); and the player's
puzzle rating and streak, as the board page's Puzzles view keeps them.

Two tries a puzzle, as on lichess: a wrong first try may be tried again;
after a second miss (or ``skip``) the solution is shown with why it is best.
The player's **puzzle rating** follows each puzzle as an Elo rating follows a
game against an opponent rated as the puzzle (:func:`new_rating`): with the
player's rating R and the puzzle's P the expected score is
``E = 1 / (1 + 10 ** ((P - R) / 400))``; a puzzle solved at the first try
scores 1, any other 0, and R becomes ``round(R + 32 * (score - E))``, never
below 100 (a first rating is 1200). The **streak** counts the puzzles
solved at the first try in a row. docs/protocol.md ("CheckPuzzle") says the
same, and the TypeScript client's ``newRating`` computes it alike.

Thread-safety: :class:`Progress` is immutable; a :class:`Trainer` is one
person's session at one terminal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

import grpc

from cacaoai.api import action_text
from cacaoai.engine import Action, Position, derive_seed

from . import board, notation
from .client import CacaoClient
from .errors import CacaoClientError, ErrorReason
from .replies import Puzzle, PuzzleCheck

__all__ = ["FLOOR", "K", "START_RATING", "TRIES", "Filters", "Progress", "Trainer", "expected_score",
           "new_rating", "rating_range"]

#: A player's first puzzle rating.
START_RATING = 1200
#: How far one puzzle moves the rating (the Elo K-factor).
K = 32
#: The lowest rating.
FLOOR = 100
#: Tries at one puzzle before its solution is shown.
TRIES = 2


def expected_score(rating: int, puzzle_rating: int) -> float:
    """The chance a player of `rating` solves a puzzle of `puzzle_rating` at
    the first try, as Elo expects a game's score: 0.5 for equal ratings,
    about 0.76 for a puzzle rated 200 below the player."""
    return 1 / (1 + math.pow(10, (puzzle_rating - rating) / 400))


def new_rating(rating: int, puzzle_rating: int, solved: bool) -> int:
    """The player's rating after a puzzle: `solved` at the first try scores 1,
    anything else 0 (module docstring); never below FLOOR."""
    return max(FLOOR, round(rating + K * (int(solved) - expected_score(rating, puzzle_rating))))


@dataclass(frozen=True)
class Progress:
    """A player's puzzle rating, streak and counts so far."""

    rating: int = START_RATING
    streak: int = 0
    best_streak: int = 0
    solved: int = 0
    played: int = 0

    def after(self, puzzle_rating: int, first_try: bool) -> Progress:
        """The progress after a puzzle, solved at the first try or not."""
        streak = self.streak + 1 if first_try else 0
        return Progress(new_rating(self.rating, puzzle_rating, first_try), streak, max(self.best_streak, streak),
                        self.solved + first_try, self.played + 1)


def rating_range(text: str) -> tuple[int | None, int | None]:
    """A rating range as ``cacao-play --rating`` takes it: "1000-1600",
    "1000-" (at least), "-1600" (at most) or "1400" (exactly).

    Raises:
        ValueError: anything else, or a low end above the high one.
    """
    found = re.fullmatch(r"\s*(\d*)\s*(-?)\s*(\d*)\s*", text)
    if not found or not (found.group(1) or found.group(3)) or (not found.group(2) and found.group(3)):
        raise ValueError(f"{text!r}: give LOW-HIGH (1000-1600), LOW- or -HIGH")
    low = int(found.group(1)) if found.group(1) else None
    high = int(found.group(3)) if found.group(3) else (None if found.group(2) else low)
    if low is not None and high is not None and low > high:
        raise ValueError(f"{text!r}: {low} is above {high}")
    return low, high


@dataclass(frozen=True)
class Filters:
    """Which puzzles to draw (None: any)."""

    theme: str | None = None
    min_rating: int | None = None
    max_rating: int | None = None
    players: int | None = None


HELP = """\
Find the best move for the seat you play. Type an action as in cacao-play:
  2101 3,4 r1        place tile 2101 at x=3, y=4, turned r1 (0-3 quarter turns clockwise)
  2101 3,4           leave out what you like: the choices left are listed for you
  ob 3001 2,1 r2     overbuild your tile at (2,1)       r 2   result 2 of your activations
  7                  action 7 of the numbered list (see list)
Commands: list (the legal actions, numbered), board (draw it again), skip (show the
solution: a miss), help, quit. Two tries a puzzle; the rating moves only with the first."""


@dataclass
class Trainer:
    """A puzzle session at the keyboard: draw, show, read tries, judge, rate.

    Args:
        client: a connected CacaoClient.
        filters: which puzzles to draw.
        read: reads one line after a prompt; None at end of input.
        out: where to write.
        colour: ANSI colours on the board.
        seed: seed of the draws (None: random ones): the same seed and
            filters give the same puzzles in the same order.
        progress: the rating and streak to start from.
    """

    client: CacaoClient
    filters: Filters
    read: Callable[[str], str | None]
    out: TextIO
    colour: bool = False
    seed: int | None = None
    progress: Progress = field(default_factory=Progress)
    seen: list[str] = field(default_factory=list)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> int:
        """Puzzle after puzzle until the player quits, input ends or no puzzle
        is left; the exit status (2: a filter the server refuses, 1: the server failed)."""
        self.say(f"Puzzles: find the best move. Your puzzle rating: {self.progress.rating}. "
                 "Type help for the notation and the commands.")
        try:
            while True:
                puzzle = self.draw()
                if puzzle is None:
                    return 0
                if not self.play(puzzle):
                    return 0
                line = self.read("Enter for the next puzzle, or quit> ")
                if line is None or line.strip().lower() in ("quit", "q", "exit"):
                    return 0
        except CacaoClientError as error:
            if error.code is grpc.StatusCode.INVALID_ARGUMENT and not self.progress.played:
                self.say(f"No such puzzles: {error.message}")  # a filter the server's set cannot have
                return 2
            self.say(f"The server failed: {error}")
            return 1
        finally:
            self.goodbye()

    def draw(self) -> Puzzle | None:
        """The next puzzle not seen yet (all seen: they come again); None when
        none passes the filters."""
        f = self.filters
        seed = None if self.seed is None else derive_seed(self.seed, len(self.seen))
        for again in (False, True):
            try:
                draw = self.client.get_puzzle(theme=f.theme, min_rating=f.min_rating, max_rating=f.max_rating,
                                              players=f.players, exclude=self.seen, seed=seed)
            except CacaoClientError as error:
                if error.error_reason != ErrorReason.PUZZLE_NOT_FOUND:
                    raise
                if again or not self.seen:
                    self.say(f"No puzzle: {error.message}")
                    return None
                self.say(f"You have seen all {len(self.seen)} puzzles that fit: they come again.")
                self.seen.clear()
                continue
            self.seen.append(draw.puzzle.id)
            return draw.puzzle
        return None

    def play(self, puzzle: Puzzle) -> bool:
        """One puzzle: up to TRIES tries, the verdict, the new rating; False to leave."""
        view, seat = puzzle.position, puzzle.seat
        legal = Position.from_observation(view, 0).legal_actions()  # the seat's own: any determinization
        self.show(puzzle, legal)
        misses = 0
        while True:
            line = self.read("your move> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word in ("quit", "q", "exit"):
                return False
            if word in ("help", "?", "h"):
                self.say(HELP)
            elif word in ("board", "b"):
                self.show(puzzle, legal)
            elif word in ("list", "l", "ls"):
                for i, a in enumerate(legal, 1):
                    self.say(f"{i:>3}) {notation.describe(a, view, legal)}")
            elif word == "skip":  # the solutions come with any try's verdict; a skip is a miss
                self.conclude(self.client.check_puzzle(puzzle.id, legal[0]), legal, misses=TRIES)
                return True
            elif (action := self.parse(line, legal, view, seat)) is not None:
                verdict = self.client.check_puzzle(puzzle.id, action)
                misses += not verdict.correct
                if verdict.correct or misses == TRIES:
                    self.conclude(verdict, legal, misses)
                    return True
                self.say(f"Not this one: {notation.write(action, legal)}. Try once more.")

    def parse(self, line: str, legal: Sequence[Action], view: dict, seat: int) -> Action | None:
        """The action a line names; when several fit, the one the player picks
        from the list; None (said why) when none does."""
        parsed = notation.parse(line, legal, view, seat)
        if parsed.error:
            self.say(parsed.error)
            return None
        if parsed.action is not None:
            return parsed.action
        self.say(parsed.prompt or "Which one?")
        for i, a in enumerate(parsed.choices, 1):
            self.say(f"  {i}) {notation.describe(a, view, legal)}")
        pick = self.read(f"1-{len(parsed.choices)}, or Enter to cancel> ")
        text = (pick or "").strip()
        if text.isdigit() and 1 <= int(text) <= len(parsed.choices):
            return parsed.choices[int(text) - 1]
        return None

    def show(self, puzzle: Puzzle, legal: Sequence[Action]) -> None:
        """The puzzle's facts and its board from the seat's view, as cacao-play draws a position."""
        seat = puzzle.seat
        names = [f"{board.seat_name(s)}{' (you)' if s == seat else ''}" for s in range(puzzle.players)]
        self.say()
        self.say(f"Puzzle {puzzle.id} · rated {puzzle.rating} · {', '.join(puzzle.themes)} · "
                 f"{puzzle.players} players, you play {board.seat_name(seat)} (seat {seat})")
        self.say(board.draw_position(puzzle.position, names, notation.place_cells(legal), viewer=seat,
                                     colour=self.colour))
        for line in notation.offer_lines(legal):
            self.say(line)
        self.say(f"Find the best move (e.g. {notation.write(legal[0], legal)}).")

    def conclude(self, verdict: PuzzleCheck, legal: Sequence[Action], misses: int) -> None:
        """The verdict after `misses` misses (TRIES: not solved), the solution
        and why, and the rating and streak after it (solved only at the first try)."""
        why = verdict.sentence[:1].upper() + verdict.sentence[1:]
        proof = " (proved by the endgame solver)" if verdict.exact else ""
        if misses == 0:
            self.say(f"Right! {why}{proof}.")
        elif misses < TRIES:
            self.say(f"Right at the second try. {why}{proof}.")
        else:
            shown = " or ".join(notation.write(a, legal) if a in legal else action_text(a)
                                for a in verdict.solutions)
            self.say(f"The solution: {shown}. {why}{proof}.")
        before = self.progress.rating
        self.progress = self.progress.after(verdict.rating, misses == 0)
        self.say(f"Puzzle rating {before} -> {self.progress.rating} ({self.progress.rating - before:+d}); "
                 f"streak {self.progress.streak}.")

    def goodbye(self) -> None:
        p = self.progress
        if p.played:
            self.say(f"\n{p.solved} of {p.played} puzzles solved at the first try; best streak {p.best_streak}. "
                     f"Your puzzle rating: {p.rating} (go on from it with --puzzle-rating {p.rating}).")

