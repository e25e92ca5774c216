"""A forecast of every temple and score part (KataGo's ownership map, for
Cacao): per temple on the board, each seat's chance to win its majority and
to take the second place's 3 gold; per seat, the expected final score by part
(temples, water, sun, gold held, the total) with its spread.

It is drawn from the search's own playouts: `playouts` games played to the
end with the search's informed playout policy, each from a determinization of
what `seat` sees (the hidden tiles drawn anew each time, as the search draws
them), so a forecast never tells what the seat could not see.

Thread-safety: pure functions of their arguments; the playouts release the GIL.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cacaoai.engine import Position, derive_seed

from .limits import PLAY

__all__ = ["PARTS", "Forecast", "PartForecast", "SeatForecast", "TempleForecast", "forecast", "temple_places"]

#: The score parts a seat's forecast gives, as the engine counts them (Position.scores()).
PARTS = ("temples", "water", "sun", "gold", "total")
#: Playouts of a forecast when the caller gives none.
DEFAULT_PLAYOUTS = 128


@dataclass(frozen=True)
class TempleForecast:
    """One temple on the board: each seat's chance to win its majority
    (a tie for first counts as a share) and to take the second place's gold."""

    x: int
    y: int
    first: tuple[float, ...]
    second: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "first": list(self.first), "second": list(self.second)}


@dataclass(frozen=True)
class PartForecast:
    """A score part's expected value at the end and its spread (standard deviation)."""

    mean: float
    spread: float

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "spread": self.spread}


@dataclass(frozen=True)
class SeatForecast:
    """One seat's expected final score by part (:data:`PARTS`)."""

    seat: int
    temples: PartForecast
    water: PartForecast
    sun: PartForecast
    gold: PartForecast
    total: PartForecast

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, **{name: getattr(self, name).to_json() for name in PARTS}}


@dataclass(frozen=True)
class Forecast:
    """Every temple on the board and every seat's score parts, from `playouts` games."""

    playouts: int
    temples: tuple[TempleForecast, ...]
    seats: tuple[SeatForecast, ...]

    def to_json(self) -> dict[str, Any]:
        return {"playouts": self.playouts, "temples": [t.to_json() for t in self.temples],
                "seats": [s.to_json() for s in self.seats]}


def temple_places(workers: Sequence[int]) -> tuple[list[float], list[float]]:
    """Each seat's share of first and of second place at a temple whose
    facing workers per seat are `workers`, as the rules score it: only seats
    with a worker take part; a tie for first shares it and cancels second; a
    tie for second shares it."""
    players = len(workers)
    first, second = [0.0] * players, [0.0] * players
    taking = [s for s in range(players) if workers[s] > 0]
    if not taking:
        return first, second
    top = max(workers[s] for s in taking)
    firsts = [s for s in taking if workers[s] == top]
    for s in firsts:
        first[s] = 1.0 / len(firsts)
    rest = [s for s in taking if workers[s] < top]
    if len(firsts) == 1 and rest:
        runner = max(workers[s] for s in rest)
        seconds = [s for s in rest if workers[s] == runner]
        for s in seconds:
            second[s] = 1.0 / len(seconds)
    return first, second


def forecast(position: Position, seat: int, *, seed: int, playouts: int = DEFAULT_PLAYOUTS,
             known_hands: Sequence[int] = (), samples: int = PLAY.samples) -> Forecast:
    """The forecast of `position` from `seat`'s view (and the hands of
    `known_hands`), from `playouts` informed playouts seeded from `seed`.

    Raises:
        ValueError: a bad seat, seed or playout count, or a game that is over.
    """
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < position.players:
        raise ValueError(f"seat: must be in 0..{position.players - 1}, got {seat!r}")
    if isinstance(playouts, bool) or not isinstance(playouts, int) or not 1 <= playouts <= 100_000:
        raise ValueError(f"playouts: must be 1..100000, got {playouts!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: must be an integer in 0..2**64-1, got {seed!r}")
    if position.is_over:
        raise ValueError("the game is over: there is nothing to forecast")
    players = position.players
    mask = sum(1 << s for s in known_hands if 0 <= s < players)
    board = [(t.x, t.y) for t in position.temples()]
    firsts = {xy: [0.0] * players for xy in board}
    seconds = {xy: [0.0] * players for xy in board}
    sums = [[0.0] * len(PARTS) for _ in range(players)]
    squares = [[0.0] * len(PARTS) for _ in range(players)]
    for k in range(playouts):
        game = position.core.clone()
        game.determinize(seat, mask, derive_seed(seed, 2 * k))
        game.playout_informed(derive_seed(seed, 2 * k + 1), samples)
        for x, y, workers, _awards in game.temples():
            if (x, y) in firsts:
                first, second = temple_places(workers)
                for s in range(players):
                    firsts[x, y][s] += first[s]
                    seconds[x, y][s] += second[s]
        for s, (gold, temples, sun, water, total) in enumerate(game.score()):
            for i, value in enumerate((temples, water, sun, gold, total)):
                sums[s][i] += value
                squares[s][i] += value * value

    def part(s: int, i: int) -> PartForecast:
        mean = sums[s][i] / playouts
        return PartForecast(mean, math.sqrt(max(0.0, squares[s][i] / playouts - mean * mean)))

    return Forecast(
        playouts,
        tuple(TempleForecast(x, y, tuple(v / playouts for v in firsts[x, y]),
                             tuple(v / playouts for v in seconds[x, y])) for x, y in sorted(board)),
        tuple(SeatForecast(s, *(part(s, i) for i in range(len(PARTS)))) for s in range(players)))
