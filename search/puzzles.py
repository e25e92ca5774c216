"""Puzzles: positions from self-play where one action is clearly best, for a
player to find ("find the best move"), with the set the package ships.

A :class:`Puzzle` is one seat's view of a position (its observation: never
another seat's hand or a draw order), the accepted actions (the clearly best
one and any exactly equal to it), its themes, a difficulty rating and the
sentence that says why the solution is best. The shipped set
(``search/puzzle_set/puzzles.jsonl``, one puzzle a line, sorted by id) is made by
``cacao-puzzles generate`` (:mod:`cacaoai.lab.puzzles`, docs/puzzles.md):

- **unique**: the best action's win share is at least :data:`MIN_GAP` above
  every other action's, proved by the endgame solver (``exact``) or found by
  two deep searches at different seeds from the seat's view;
- **themes**: :func:`themes_of` reads them off the explanation of the best
  line against the best other line (:mod:`.explain`) and the action;
- **rating**: from the weakest level that finds the solution at both of two
  seeds, :func:`rating_for` (600 for ``beginner``, 200 more a level, 1800 for
  ``max``, :data:`UNSOLVED_RATING` when even ``max`` misses it).

The functions here are what a server or a client needs: :func:`load`,
:func:`pick`, :func:`check`, :func:`by_id`, :func:`theme_counts`; and
:func:`solves` (does a level find a puzzle's solution), for the rating and its
benchmark. No gRPC or protobuf here: the server converts.

Thread-safety: immutable values and pure functions (``load`` caches the
shipped set once).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from cacaoai.engine import Action, Position

from .bots import parse_bot
from .explain import Explanation

__all__ = ["LEVEL_ORDER", "MIN_GAP", "THEMES", "UNSOLVED_RATING", "Puzzle", "by_id", "check", "load", "pick",
           "rating_for", "solves", "theme_counts", "themes_of"]

THEMES = ("temple majority", "water", "overbuilding with sun", "market timing", "denying an opponent",
          "exact endgame")
#: The least win share by which a puzzle's solution beats every other action.
MIN_GAP = 0.20
#: The levels a rating counts in, weakest first (cacaoai.search.bots.LEVELS).
LEVEL_ORDER = ("beginner", "easy", "casual", "club", "advanced", "strong", "max")
#: The rating of the weakest level (LEVEL_ORDER[0]) and the step from one level to the next.
RATING_BASE, RATING_STEP = 600, 200
#: The rating of a puzzle that no level finds at both seeds.
UNSOLVED_RATING = 2200
PLAYER_COUNTS = (2, 3, 4)

_FIELDS = ("id", "players", "seat", "view", "solutions", "themes", "rating", "gap", "exact", "sentence", "source")


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: `seat` is to act in the position `view` shows (its
    observation) and should find one of `solutions`.

    Attributes:
        id: stable and unique, ``"<players>p-<level>-<game>-<decision>"``.
        players: seats in the game.
        seat: the seat that plays the puzzle (to act in it).
        view: ``position.observation(seat)``: all the player may see.
        solutions: every accepted action: the clearly best one and any
            exactly equal to it (the solver's equals).
        themes: a subset of THEMES, at least one (:func:`themes_of`).
        rating: the difficulty, from the weakest level that solves it (:func:`rating_for`).
        gap: the best action's win share minus the best other action's (>= MIN_GAP).
        exact: the endgame solver proved the values (with 3-4 players: against
            all the other seats together).
        sentence: why the solution is best, in words (the explanation's sentence).
        source: where it came from, e.g. "strong self-play, 2 players, game 17, decision 31".
    """

    id: str
    players: int
    seat: int
    view: Mapping[str, Any]
    solutions: tuple[Action, ...]
    themes: tuple[str, ...]
    rating: int
    gap: float
    exact: bool
    sentence: str
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"id: must be a non-empty string, got {self.id!r}")
        if isinstance(self.players, bool) or self.players not in PLAYER_COUNTS:
            raise ValueError(f"players: must be 2, 3 or 4, got {self.players!r}")
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 0 <= self.seat < self.players:
            raise ValueError(f"seat: must be in 0..{self.players - 1}, got {self.seat!r}")
        if not isinstance(self.view, Mapping) or self.view.get("view") != self.seat:
            raise ValueError(f"view: must be seat {self.seat}'s observation (a snapshot with view {self.seat})")
        if not self.solutions or not all(isinstance(a, Action) and a.seat == self.seat for a in self.solutions):
            raise ValueError(f"solutions: must hold at least one action of seat {self.seat}")
        if not self.themes or any(t not in THEMES for t in self.themes):
            raise ValueError(f"themes: must be at least one of {', '.join(THEMES)}, got {self.themes!r}")
        if isinstance(self.rating, bool) or not isinstance(self.rating, int):
            raise ValueError(f"rating: must be an integer, got {self.rating!r}")
        if isinstance(self.gap, bool) or not isinstance(self.gap, (int, float)) or not 0 <= self.gap <= 1:
            raise ValueError(f"gap: must be a win share in 0..1, got {self.gap!r}")

    def position(self, seed: int = 0) -> Position:
        """A complete position consistent with the view (what the seat cannot
        see drawn from `seed`): where a searching player starts from."""
        return Position.from_observation(self.view, seed)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "players": self.players, "seat": self.seat, "view": dict(self.view),
                "solutions": [a.to_json() for a in self.solutions], "themes": list(self.themes),
                "rating": self.rating, "gap": self.gap, "exact": self.exact, "sentence": self.sentence,
                "source": self.source}

    @classmethod
    def from_json(cls, data: Any) -> Puzzle:
        """A puzzle from its JSON form; ValueError naming the field."""
        if not isinstance(data, Mapping):
            raise ValueError("puzzle: must be a JSON object")
        for name in _FIELDS:
            if name not in data:
                raise ValueError(f"{name}: missing from the puzzle")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown field of a puzzle")
        solutions, themes = data["solutions"], data["themes"]
        if not isinstance(solutions, list):
            raise ValueError("solutions: must be a list of actions")
        if not isinstance(themes, list) or not all(isinstance(t, str) for t in themes):
            raise ValueError("themes: must be a list of theme names")
        actions = []
        for i, raw in enumerate(solutions):
            try:
                actions.append(Action.from_json(raw))
            except ValueError as exc:
                raise ValueError(f"solutions[{i}]: {exc}") from None
        for name, kind in (("exact", bool), ("sentence", str), ("source", str)):
            if not isinstance(data[name], kind):
                raise ValueError(f"{name}: must be a {kind.__name__}, got {data[name]!r}")
        return cls(data["id"], data["players"], data["seat"], data["view"], tuple(actions), tuple(themes),
                   data["rating"], data["gap"], data["exact"], data["sentence"], data["source"])


# --- the shipped set ---

def _shipped() -> Path:
    return Path(str(resources.files("cacaoai.search") / "puzzle_set" / "puzzles.jsonl"))


def load(path: str | Path | None = None) -> tuple[Puzzle, ...]:
    """The puzzles of a JSONL file (one puzzle a line), in its order; the
    shipped set by default (read once, then cached). ValueError naming the
    file, line and field of the first bad puzzle or a repeated id."""
    if path is None:
        return _load_shipped()
    return _read(Path(path))


@functools.cache
def _load_shipped() -> tuple[Puzzle, ...]:
    return _read(_shipped())


def _read(path: Path) -> tuple[Puzzle, ...]:
    out: list[Puzzle] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                puzzle = Puzzle.from_json(json.loads(line))
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None
            if puzzle.id in seen:
                raise ValueError(f"{path}:{number}: id: {puzzle.id!r} is repeated")
            seen.add(puzzle.id)
            out.append(puzzle)
    return tuple(out)


# --- choosing and checking ---

def pick(puzzles: Iterable[Puzzle], *, theme: str | None = None, min_rating: int | None = None,
         max_rating: int | None = None, players: int | None = None, exclude: Collection[str] = (),
         seed: int = 0) -> Puzzle | None:
    """One puzzle drawn from those with `theme`, a rating in
    ``min_rating..max_rating`` (both included), `players` seats and an id
    not in `exclude` (a player's solved ones); None when none is left. The
    same puzzles (in any order) and seed give the same puzzle.

    Raises ValueError naming the field: an unknown theme, min_rating above
    max_rating, a player count not 2, 3 or 4, a seed that is not an integer."""
    if theme is not None and theme not in THEMES:
        raise ValueError(f"theme: must be one of {', '.join(THEMES)}, got {theme!r}")
    for name, value in (("min_rating", min_rating), ("max_rating", max_rating)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{name}: must be an integer or None, got {value!r}")
    if min_rating is not None and max_rating is not None and min_rating > max_rating:
        raise ValueError(f"min_rating: {min_rating} is above max_rating {max_rating}")
    if players is not None and (isinstance(players, bool) or players not in PLAYER_COUNTS):
        raise ValueError(f"players: must be 2, 3 or 4, got {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed: must be an integer, got {seed!r}")
    if isinstance(exclude, str):
        raise ValueError("exclude: must be a collection of puzzle ids, not one string")
    excluded = set(exclude)
    fitting = sorted((p for p in puzzles
                      if (theme is None or theme in p.themes)
                      and (min_rating is None or p.rating >= min_rating)
                      and (max_rating is None or p.rating <= max_rating)
                      and (players is None or p.players == players)
                      and p.id not in excluded), key=lambda p: p.id)
    return random.Random(seed).choice(fitting) if fitting else None


def check(puzzle: Puzzle, action: Action | Mapping[str, Any]) -> bool:
    """Whether `action` (an Action or its JSON form) is one of the puzzle's
    solutions. Raises ValueError (ActionFormatError) naming the field of a
    malformed action."""
    given = Action.from_json(action.to_json() if isinstance(action, Action) else action)
    return any(given == Action.from_json(s.to_json()) for s in puzzle.solutions)


def by_id(puzzles: Iterable[Puzzle], id: str) -> Puzzle | None:
    """The puzzle called `id`, or None."""
    return next((p for p in puzzles if p.id == id), None)


def theme_counts(puzzles: Iterable[Puzzle]) -> dict[str, int]:
    """Puzzles per theme, every theme of THEMES included (a puzzle counts once
    for each of its themes)."""
    counts = dict.fromkeys(THEMES, 0)
    for puzzle in puzzles:
        for theme in puzzle.themes:
            counts[theme] += 1
    return counts


# --- themes and ratings ---

def themes_of(explanation: Explanation, action: Action, exact: bool) -> tuple[str, ...]:
    """The themes of a puzzle whose solution is `action`, from the
    explanation of its line against the best other action's line (for the
    puzzle's seat), in THEMES order:

    - "temple majority": a temple's awards differ between the lines' ends,
      and the seat gets more there or another seat gets less;
    - "water": the seat's water carrier ends further up the track (or its
      water gold is higher);
    - "overbuilding with sun": the action is an overbuild (it spends a sun token);
    - "market timing": the seat sells more cacao at markets along the line, or
      the action is a resolution (which cacao to sell, and where, now);
    - "denying an opponent": the best other seat's loss (its score at the
      end of the other line minus at the end of this one) is above 0 and
      above the seat's own gain;
    - "exact endgame": the endgame solver proved it (`exact`).

    May be empty (a line whose gains lie only in the chances after it)."""
    seat = explanation.seat
    found = set()
    if any(t.best[seat] > t.other[seat] or any(b < o for s, (b, o) in enumerate(zip(t.best, t.other)) if s != seat)
           for t in explanation.temples) or _gains(explanation, "temples"):
        found.add("temple majority")
    if _gains(explanation, "water_space") or _gains(explanation, "water"):
        found.add("water")
    if action.type == "overbuild":
        found.add("overbuilding with sun")
    if _gains(explanation, "markets") or action.type == "resolve":
        found.add("market timing")
    if len(explanation.totals) == len(explanation.other_totals) >= 2:
        own = explanation.totals[seat] - explanation.other_totals[seat]
        loss = max(explanation.other_totals[s] - explanation.totals[s]
                   for s in range(len(explanation.totals)) if s != seat)
        if loss > 0 and loss > own:
            found.add("denying an opponent")
    if exact:
        found.add("exact endgame")
    return tuple(t for t in THEMES if t in found)


def _gains(explanation: Explanation, name: str) -> bool:
    part = explanation.part(name)
    return part is not None and part.difference > 0


def rating_for(level: str | None) -> int:
    """The rating of a puzzle whose weakest solving level is `level` (None:
    no level solves it): RATING_BASE + RATING_STEP x its place in
    LEVEL_ORDER (beginner 600 ... max 1800), else UNSOLVED_RATING."""
    if level is None:
        return UNSOLVED_RATING
    if level not in LEVEL_ORDER:
        raise ValueError(f"level: must be one of {', '.join(LEVEL_ORDER)} or None, got {level!r}")
    return RATING_BASE + RATING_STEP * LEVEL_ORDER.index(level)


def solves(puzzle: Puzzle, level: str, seed: int) -> bool:
    """Whether the named level, playing the puzzle's seat from its view (the
    hidden parts drawn from `seed`), chooses one of the solutions."""
    if level not in LEVEL_ORDER:
        raise ValueError(f"level: must be one of {', '.join(LEVEL_ORDER)}, got {level!r}")
    return check(puzzle, parse_bot(f"level:{level}").choose(puzzle.position(seed), seed))
