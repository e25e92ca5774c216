#!/usr/bin/env python3
"""How true the forecast is: its temple chances' calibration and its score
parts' error, on fresh games of `strong` self-play.

Each game is played to the end by the level `strong` (every seat); at a few
decisions drawn at random (seeded), the seat to act's forecast is taken. At
the end, every temple that was on the board at a forecast is scored as the
rules score it (who took first place, who second), and each seat's final score
by part is read. The forecast's first-place chances are then binned in tenths
(ECE: the gap between predicted and won, weighted by the bins' counts; the
same for second place), and each part's expected value is compared with the
final one (mean absolute error, gold).

    python benchmarks/forecast_calibration.py --players 2 --games 300
    python benchmarks/forecast_calibration.py --players 4 --games 300 --markdown

Prints one Markdown row per player count (the header with ``--markdown``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cacaoai.engine import Position, derive_seed
from cacaoai.search import search
from cacaoai.search.bots import levels
from cacaoai.search.forecast import PARTS, forecast, temple_places

BINS = 10
FORECAST_PY = Path(__file__).resolve().parent.parent / "search" / "forecast.py"


@dataclass
class Tally:
    """Predicted against happened, over every forecast of a run."""

    first: list[tuple[float, float]] = field(default_factory=list)
    second: list[tuple[float, float]] = field(default_factory=list)
    errors: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in PARTS})
    forecasts: int = 0


def ece(pairs: list[tuple[float, float]]) -> float:
    """Expected calibration error in tenths: sum over bins of |mean predicted
    - mean happened| weighted by the bin's share of the pairs."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(BINS)]
    for p, y in pairs:
        bins[min(BINS - 1, int(p * BINS))].append((p, y))
    total = len(pairs)
    return sum(abs(sum(p for p, _ in b) - sum(y for _, y in b)) / total for b in bins if b)


def isotonic(pairs: list[tuple[float, float]], knots: int = 16) -> tuple[tuple[float, float], ...]:
    """A monotone map from predicted to happened: the unanimous playouts (a
    share of exactly 0 or 1) a block each, the others in `knots` blocks of
    equal count, then pool-adjacent-violators on the blocks' means. The map
    is flat beyond its first and last blocks: a share of 0 is what the
    playouts said, not a certainty, and gets what such shares won."""
    def block(chunk: list[tuple[float, float]]) -> list[float]:
        return [sum(p for p, _ in chunk) / len(chunk), sum(y for _, y in chunk) / len(chunk), len(chunk)]

    ordered = sorted(pairs)
    inner = [(p, y) for p, y in ordered if 0.0 < p < 1.0]
    size = max(1, len(inner) // knots)
    blocks = ([block([(p, y) for p, y in ordered if p <= 0.0])] if ordered and ordered[0][0] <= 0.0 else []) \
        + [block(inner[i:i + size]) for i in range(0, len(inner), size)] \
        + ([block([(p, y) for p, y in ordered if p >= 1.0])] if ordered and ordered[-1][0] >= 1.0 else [])
    merged: list[list[float]] = []
    for b in blocks:
        merged.append(b)
        while len(merged) > 1 and merged[-2][1] > merged[-1][1]:
            b2, a = merged.pop(), merged.pop()
            n = a[2] + b2[2]
            merged.append([(a[0] * a[2] + b2[0] * b2[2]) / n, (a[1] * a[2] + b2[1] * b2[2]) / n, n])
    points = [(round(x, 4), round(y, 4)) for x, y, _ in merged]
    if not points:
        return ((0.0, 0.0), (1.0, 1.0))
    if points[0][0] > 0.0:
        points.insert(0, (0.0, points[0][1]))
    if points[-1][0] < 1.0:
        points.append((1.0, points[-1][1]))
    return tuple(points)


def play(players: int, game: int, seed: int, per_game: int, playouts: int, tally: Tally,
         calibrated: bool = True) -> None:
    """One game of strong self-play, its forecasts and what happened."""
    strong = levels()["strong"]
    position = Position.new(players=players, seed=derive_seed(seed, game))
    rng = random.Random(derive_seed(seed, 10_000 + game))
    taken = []
    ply = 0
    while not position.is_over:
        if position.phase == "turn" and rng.random() < per_game / 40:
            seat = position.to_act
            assert seat is not None
            taken.append((seat, forecast(position, seat, seed=derive_seed(seed, 20_000 + game * 1000 + ply),
                                         playouts=playouts, calibrated=calibrated)))
        result = search(position, strong.limit, strong.settings, seed=derive_seed(seed, game * 1000 + ply))
        position.apply(result.best_action)
        ply += 1
    places = {(t.x, t.y): temple_places(t.workers) for t in position.temples()}
    scores = position.scores()
    for _seat, made in taken:
        tally.forecasts += 1
        for t in made.temples:
            first, second = places[t.x, t.y]
            tally.first.extend(zip(t.first, first))
            tally.second.extend(zip(t.second, second))
        for s in made.seats:
            final = scores[s.seat]
            for name in PARTS:
                tally.errors[name].append(abs(getattr(s, name).mean - getattr(final, name)))


def write_maps(path: Path, maps: dict[int, tuple[tuple[tuple[float, float], ...], ...]]) -> None:
    """Replace the MAPS assignment of `path` (search/forecast.py) by `maps`, wrapped at 120 columns."""
    def knots(values: tuple[tuple[float, float], ...]) -> list[str]:
        items = [f"({x!r}, {y!r})" for x, y in values]
        lines, line = [], "        ("
        for i, item in enumerate(items):
            piece = item + (", " if i < len(items) - 1 else "),")
            if len(line) + len(piece.rstrip()) > 120:
                lines.append(line.rstrip())
                line = "         " + piece
            else:
                line += piece
        return lines + [line.rstrip()]

    out = ["MAPS: dict[int, tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]]] = {"]
    for players in sorted(maps):
        out.append(f"    {players}: (")
        for values in maps[players]:
            out += knots(values)
        out.append("    ),")
    out.append("}")
    text = path.read_text()
    start = text.index("MAPS: dict[int")
    end = text.index("\n}\n", start) + 3
    path.write_text(text[:start] + "\n".join(out) + "\n" + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--per-game", type=float, default=6.0, help="forecasts a game, on average")
    parser.add_argument("--playouts", type=int, default=128)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--markdown", action="store_true", help="print the table's header too")
    parser.add_argument("--fit", action="store_true", help="fit the forecast's maps on these games (use a "
                        "seed other than the measuring run's) and print them as search/forecast.py's MAPS")
    parser.add_argument("--write", action="store_true", help="with --fit: also write the maps into "
                        "search/forecast.py's MAPS")
    parser.add_argument("--raw", help="with --fit: also write the uncorrected pairs (predicted, happened) "
                        "to this JSON file, to try other fits without playing again")
    args = parser.parse_args(argv)
    if args.games < 1 or args.playouts < 1 or not all(2 <= p <= 4 for p in args.players):
        parser.error("--games and --playouts must be positive, --players 2, 3 or 4")
    if args.write and not args.fit:
        parser.error("--write: writes the maps --fit fits; give --fit too")
    if args.markdown:
        print("| players | games | forecasts | temple-seat pairs | ECE first | ECE second | "
              + " | ".join(f"MAE {name}" for name in PARTS) + " | seconds |")
        print("|" + "---|" * (7 + len(PARTS)))
    fitted: dict[int, tuple[tuple[tuple[float, float], ...], ...]] = {}
    raw: dict[int, dict[str, list[tuple[float, float]]]] = {}
    for players in args.players:
        tally, started = Tally(), time.monotonic()
        for game in range(args.games):
            play(players, game, derive_seed(args.seed, players), args.per_game, args.playouts, tally,
                 calibrated=not args.fit)
        if args.fit:
            fitted[players] = (isotonic(tally.first), isotonic(tally.second))
            raw[players] = {"first": tally.first, "second": tally.second}
            continue
        errors = " | ".join(f"{sum(v) / max(len(v), 1):.2f}" for v in tally.errors.values())
        print(f"| {players} | {args.games} | {tally.forecasts} | {len(tally.first)} | {ece(tally.first):.3f} | "
              f"{ece(tally.second):.3f} | {errors} | {time.monotonic() - started:.0f} |", flush=True)
    if fitted:
        print(f"MAPS = {fitted!r}")
        if args.write:
            write_maps(FORECAST_PY, fitted)
            print(f"written to {FORECAST_PY}")
    if args.raw and raw:
        with open(args.raw, "w") as f:
            json.dump(raw, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
