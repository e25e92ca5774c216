"""A forecast of every temple and score part (KataGo's ownership map, for
Cacao): per temple on the board, each seat's chance to win its majority and
to take the second place's 3 gold; per seat, the expected final score by part
(temples, water, sun, gold held, the total) with its spread.

It is drawn from the search's own playouts: `playouts` games played to the
end with the search's informed playout policy (with :data:`SAMPLES`
candidates a turn), each from a determinization of
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

__all__ = ["PARTS", "Forecast", "PartForecast", "SeatForecast", "TempleForecast", "forecast", "temple_places"]

#: The score parts a seat's forecast gives, as the engine counts them (Position.scores()).
PARTS = ("temples", "water", "sun", "gold", "total")
#: Playouts of a forecast when the caller gives none.
DEFAULT_PLAYOUTS = 128
#: Candidates per turn of a forecast's informed playouts: more than the
#: search's own (8) plays closer to strong play at the end (the expected total
#: score's error on strong self-play halves: BENCHMARKS.md, "Forecast") for
#: a few milliseconds per 128 playouts.
SAMPLES = 32


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


#: Per player count, the monotone maps (knots of predicted -> happened) that
#: correct the playouts' first- and second-place shares toward what strong
#: play makes of them. Written by ``benchmarks/forecast_calibration.py --fit``
#: on strong self-play games other than those BENCHMARKS.md measures on.
MAPS: dict[int, tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]] = {
    2: (
        ((0.0, 0.0), (0.0036, 0.2701), (0.0263, 0.2892), (0.0897, 0.4174), (0.2279, 0.4492), (0.438, 0.4719),
         (0.5597, 0.526), (0.7673, 0.5508), (0.9076, 0.5773), (0.9727, 0.7055), (0.996, 0.732), (1.0, 1.0)),
        ((0.0, 0.0), (0.0084, 0.2617), (0.0363, 0.286), (0.0724, 0.2945), (0.1604, 0.3612), (0.2922, 0.3983),
         (0.4316, 0.464), (0.7199, 0.5403), (0.9454, 0.7225), (0.9973, 0.8411), (1.0, 1.0)),
    ),
    3: (
        ((0.0, 0.0), (0.012, 0.1729), (0.0503, 0.2634), (0.1037, 0.3096), (0.1926, 0.3285), (0.3713, 0.3578),
         (0.5209, 0.43), (0.7632, 0.444), (0.9414, 0.6373), (0.994, 0.8591), (1.0, 1.0)),
        ((0.0, 0.0), (0.0, 0.0601), (0.0121, 0.1729), (0.0382, 0.1883), (0.0669, 0.2428), (0.1114, 0.2869),
         (0.246, 0.2897), (0.4408, 0.3225), (0.6006, 0.4207), (0.9222, 0.732), (0.9984, 0.9371), (1.0, 1.0)),
    ),
    4: (
        ((0.0, 0.0), (0.0066, 0.1518), (0.0292, 0.161), (0.0677, 0.1929), (0.1215, 0.2093), (0.1817, 0.2386),
         (0.2476, 0.2787), (0.3261, 0.3141), (0.4355, 0.3316), (0.6376, 0.4504), (0.9451, 0.7073),
         (0.9998, 0.9629), (1.0, 1.0)),
        ((0.0, 0.0), (0.005, 0.1057), (0.0257, 0.1605), (0.0614, 0.1746), (0.1165, 0.2109), (0.2065, 0.2857),
         (0.3259, 0.291), (0.4517, 0.3495), (0.6749, 0.4795), (0.9848, 0.8647), (1.0, 1.0)),
    ),
}


def _mapped(value: float, knots: Sequence[tuple[float, float]]) -> float:
    """`value` through the piecewise-linear map of `knots` (sorted by x; a
    repeated x is a step, passed over, so that 0 and 1 take the nearest
    bin's rate)."""
    for (x0, y0), (x1, y1) in zip(knots, knots[1:]):
        if value <= x1 and x1 > x0:
            return y0 + (y1 - y0) * (max(value, x0) - x0) / (x1 - x0)
    return knots[-1][1]


def calibrate(shares: Sequence[float], knots: Sequence[tuple[float, float]] | None) -> tuple[float, ...]:
    """A temple's seats' shares of a place, each through the map on its own
    (the map is fitted to each seat's chance, so that each is calibrated; the
    seats' chances then sum to about, not exactly, what the playouts gave)."""
    if not knots:
        return tuple(shares)
    return tuple(_mapped(v, knots) for v in shares)


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
             known_hands: Sequence[int] = (), samples: int = SAMPLES, calibrated: bool = True) -> Forecast:
    """The forecast of `position` from `seat`'s view (and the hands of
    `known_hands`), from `playouts` informed playouts seeded from `seed`;
    the temples' shares corrected by :data:`MAPS` (`calibrated`) where it
    has the player count's maps.

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

    first_map, second_map = MAPS.get(players, (None, None)) if calibrated else (None, None)
    return Forecast(
        playouts,
        tuple(TempleForecast(x, y, calibrate([v / playouts for v in firsts[x, y]], first_map),
                             calibrate([v / playouts for v in seconds[x, y]], second_map))
              for x, y in sorted(board)),
        tuple(SeatForecast(s, *(part(s, i) for i in range(len(PARTS)))) for s in range(players)))
