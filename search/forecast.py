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
        ((0.0, 0.0726), (0.0078, 0.1519), (0.0281, 0.2785), (0.0646, 0.3689), (0.125, 0.4615), (0.3735, 0.4819),
         (0.6255, 0.5174), (0.8737, 0.5341), (0.9347, 0.6378), (0.9715, 0.7148), (0.992, 0.8511), (1.0, 0.9276)),
        ((0.0, 0.0574), (0.0078, 0.1017), (0.0162, 0.2241), (0.0374, 0.2302), (0.066, 0.3276), (0.0931, 0.3276),
         (0.1273, 0.3397), (0.1938, 0.3733), (0.2772, 0.3741), (0.4517, 0.4201), (0.802, 0.5293), (0.9342, 0.7241),
         (0.9848, 0.8845), (0.9999, 0.9367), (1.0, 0.9367)),
    ),
    3: (
        ((0.0, 0.027), (0.0056, 0.0427), (0.0153, 0.1664), (0.0317, 0.2122), (0.0556, 0.2293), (0.0889, 0.3069),
         (0.138, 0.3388), (0.199, 0.3515), (0.3117, 0.3538), (0.4321, 0.3543), (0.4898, 0.4002), (0.6029, 0.4077),
         (0.862, 0.4927), (0.9496, 0.7112), (0.9893, 0.8784), (1.0, 0.9556)),
        ((0.0, 0.0315), (0.0057, 0.0342), (0.0147, 0.1434), (0.0296, 0.1968), (0.0437, 0.2113), (0.0618, 0.2513),
         (0.085, 0.2709), (0.1175, 0.2757), (0.2359, 0.3094), (0.396, 0.3257), (0.5518, 0.4057), (0.8744, 0.6467),
         (0.9772, 0.8783), (1.0, 0.9494)),
    ),
    4: (
        ((0.0, 0.017), (0.0067, 0.089), (0.0198, 0.1453), (0.039, 0.1575), (0.0636, 0.1751), (0.0945, 0.2351),
         (0.1291, 0.2396), (0.1855, 0.2422), (0.2449, 0.2712), (0.2895, 0.2765), (0.3372, 0.2988), (0.3976, 0.3078),
         (0.4745, 0.3608), (0.5682, 0.4146), (0.8397, 0.541), (0.9731, 0.7894), (1.0, 0.953)),
        ((0.0, 0.0207), (0.0059, 0.0346), (0.012, 0.139), (0.027, 0.1588), (0.0463, 0.1721), (0.0727, 0.1943),
         (0.1114, 0.2357), (0.1581, 0.2659), (0.2271, 0.2898), (0.3207, 0.296), (0.4212, 0.3177), (0.5423, 0.4074),
         (0.9103, 0.7155), (1.0, 0.9428)),
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
