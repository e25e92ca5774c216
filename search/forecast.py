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
#: on strong self-play games other than those BENCHMARKS.md measures on. The
#: ends are fitted too: when every playout gives a seat the place (a share of
#: 1), strong play still loses it about one time in 15 with 2 players.
MAPS: dict[int, tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]] = {
    2: (
        ((0.0, 0.0674), (0.0073, 0.1839), (0.0247, 0.2558), (0.0605, 0.3601), (0.1244, 0.4583), (0.2317, 0.4606),
         (0.3531, 0.476), (0.465, 0.4772), (0.5088, 0.5216), (0.602, 0.5232), (0.8197, 0.5437), (0.9385, 0.6229),
         (0.9747, 0.7473), (0.9924, 0.8161), (1.0, 0.933)),
        ((0.0, 0.0523), (0.0078, 0.0914), (0.0296, 0.2258), (0.0673, 0.2742), (0.094, 0.3208), (0.1288, 0.3566),
         (0.1739, 0.3674), (0.2255, 0.3763), (0.2868, 0.3835), (0.3614, 0.4194), (0.458, 0.4319), (0.6255, 0.4642),
         (0.8402, 0.5358), (0.9446, 0.7222), (0.9861, 0.81), (1.0, 0.9292)),
    ),
    3: (
        ((0.0, 0.0257), (0.0055, 0.0328), (0.014, 0.1859), (0.0391, 0.2218), (0.0804, 0.2921), (0.125, 0.3217),
         (0.1865, 0.3408), (0.2577, 0.3553), (0.3856, 0.3575), (0.5857, 0.4123), (0.8823, 0.5453), (0.9563, 0.6994),
         (0.9899, 0.8603), (1.0, 0.9562)),
        ((0.0, 0.0265), (0.0059, 0.0382), (0.0113, 0.1511), (0.0267, 0.1765), (0.0575, 0.2243), (0.0931, 0.265),
         (0.129, 0.2912), (0.2534, 0.3001), (0.4207, 0.3009), (0.5612, 0.4062), (0.8751, 0.6385), (0.9779, 0.8666),
         (1.0, 0.9496)),
    ),
    4: (
        ((0.0, 0.0165), (0.0063, 0.0941), (0.0272, 0.1325), (0.0606, 0.2037), (0.0913, 0.2043), (0.1263, 0.208),
         (0.1633, 0.2362), (0.202, 0.2452), (0.2425, 0.2613), (0.2886, 0.3008), (0.3408, 0.3155), (0.4059, 0.3198),
         (0.4866, 0.4154), (0.6287, 0.4314), (0.8749, 0.58), (0.9779, 0.7957), (1.0, 0.9578)),
        ((0.0, 0.0181), (0.006, 0.0332), (0.0238, 0.154), (0.0571, 0.162), (0.0842, 0.1765), (0.109, 0.2039),
         (0.1479, 0.2442), (0.2117, 0.2769), (0.2865, 0.2878), (0.3507, 0.3001), (0.4295, 0.314), (0.5006, 0.4219),
         (0.6827, 0.4475), (0.9398, 0.7287), (1.0, 0.9402)),
    ),
}


def _mapped(value: float, knots: Sequence[tuple[float, float]]) -> float:
    """`value` through the piecewise-linear map of `knots` (sorted by x,
    from 0 to 1; a repeated x is a step, passed over)."""
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
