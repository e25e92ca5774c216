#!/usr/bin/env python3
"""The calibration of the win probabilities by population: a table and
reliability diagrams from cacao-calibration sample files.

Each file holds games of one population of players (``cacao-calibration
--raw --out FILE``, with ``--player`` and maybe ``--opponent``), evaluated by
one search. The tree's own probabilities are corrected by the shipped model's
map for the evaluator's settings (``--map analysis``, or ``play``), as the
service reports them, and measured per player count: ECE with its floor (what
perfect predictions show on as many games), Brier skill with its 95%
interval. The table is printed in Markdown; ``--svg`` also draws one
reliability diagram per row (predicted against won, per tenth, the dot's
area by its count).

With ``--markdown`` the table, a row a population and a column a player
count, replaces the part of docs/benchmarks/calibration.md named after the map (``analysis``
or ``play``).

    python benchmarks/calibration_table.py --map analysis out/pop-*.json --svg docs/img/calibration-populations.svg
"""

from __future__ import annotations

import argparse
import html
import math
import sys
from typing import Any

from markdown import add_markdown_option, require_parts, script_name, write_sections

from cacaoai.lab import calibration
from cacaoai.search import calibration_map as cm
from cacaoai.search.bots import LEVELS
from cacaoai.search.model import load_model

PANEL, MARGIN, GAP, COLUMNS = 150, 24, 70, 4


def _levels(population: str, players: int, game: int) -> list[str]:
    """Each seat's level in game `game` of a population of levels ("level:strong vs level:easy")."""
    return [spec.removeprefix("level:") if spec.startswith("level:") else ""
            for spec in calibration.seat_specs(population, players, game)]


def rows(paths: list[str], map_name: str, resamples: int) -> list[dict[str, Any]]:
    """One row per file and player count: the population, the map the service
    corrects its probabilities by when a request names the players (the
    population's, or the settings' map), the measures and the reliability table."""
    maps = load_model().manifest.get("calibration")
    if cm.select_map(maps, map_name) is None:
        raise ValueError(f"the shipped model has no {map_name!r} map")
    out = []
    for path in paths:
        games = calibration.read_samples([path])
        if not games:
            raise ValueError(f"{path}: no games")
        if not all(g.get("raw") for g in games):
            raise ValueError(f"{path}: the samples must be the tree's own (cacao-calibration --raw)")
        population, _ = calibration.made_by(games)
        entries, used = {}, {}
        for n in sorted({g["players"] for g in games}):
            choice = cm.choose_map(maps, map_name, _levels(population, n, 0), n)
            entry = (choice.map or {}).get("players", {}).get(str(n))
            if entry is not None:
                entries[str(n)] = entry
            used[n] = choice.population
        for players, found in calibration.report(games, {"version": cm.MAP_VERSION, "players": entries},
                                                 resamples).items():
            out.append({"population": population, "players": int(players), "games": found["games"],
                        "map": used[int(players)],
                        "positions": found["positions"], **found["all"],
                        "reliability": found["reliability"]})
    return out


def _name(population: str) -> str:
    """A population as people read it: "strong", "strong against casual"."""
    def one(spec: str) -> str:
        named = {text: name for name, text in LEVELS.items()}
        return named.get(spec, spec.removeprefix("level:"))
    if calibration.VERSUS in population:
        a, b = population.split(calibration.VERSUS, 1)
        return f"{one(a)} against {one(b)}"
    return f"{one(population)} self-play"


def markdown(table: list[dict[str, Any]]) -> str:
    lines = ["| population | players | games | positions | map | ECE (floor) | Brier skill [95%] |",
             "|---|---:|---:|---:|---|---|---|"]
    for r in table:
        lo, hi = r.get("ci95", {}).get("skill", [math.nan, math.nan])
        lines.append(f"| {_name(r['population'])} | {r['players']} | {r['games']:,} | {r['positions']:,} | "
                     f"{'its own' if r['map'] != cm.DEFAULT_POPULATION else 'strong self-play'} | "
                     f"{r['ece']:.3f} ({r.get('ece_floor', math.nan):.3f}) | "
                     f"{r['skill']:.3f} [{lo:.3f}, {hi:.3f}] |")
    return "\n".join(lines)


def by_population(table: list[dict[str, Any]]) -> str:
    """The table as docs/benchmarks/calibration.md shows it: a row a population, a column a
    player count; a cell is the ECE (its floor), starred where the population
    has a map of its own, then the Brier skill [95%]."""
    counts = sorted({r["players"] for r in table})
    cells: dict[str, dict[int, str]] = {}
    for r in table:
        lo, hi = r.get("ci95", {}).get("skill", [math.nan, math.nan])
        own = "*" if r["map"] != cm.DEFAULT_POPULATION else ""
        cells.setdefault(_name(r["population"]), {})[r["players"]] = (
            f"{r['ece']:.3f} ({r.get('ece_floor', math.nan):.3f}){own} · {r['skill']:.3f} [{lo:.3f}, {hi:.3f}]")
    lines = ["| population | " + " | ".join(f"{n} players" for n in counts) + " |",
             "|---|" + "---|" * len(counts)]
    lines += [f"| {name} | " + " | ".join(row.get(n, "") for n in counts) + " |" for name, row in cells.items()]
    return "\n".join(lines)


def svg(table: list[dict[str, Any]]) -> str:
    """Reliability diagrams, one panel per row, as an SVG document."""
    rows_n = math.ceil(len(table) / COLUMNS)
    width, height = COLUMNS * (PANEL + GAP) + MARGIN, rows_n * (PANEL + 2 * MARGIN + 12) + MARGIN
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="10">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, r in enumerate(table):
        x0 = MARGIN + (i % COLUMNS) * (PANEL + GAP)
        y0 = MARGIN + (i // COLUMNS) * (PANEL + 2 * MARGIN + 12) + 12
        title = f"{_name(r['population'])}, {r['players']} players"
        parts += [f'<text x="{x0}" y="{y0 - 6}" font-weight="bold">{html.escape(title)}</text>',
                  f'<rect x="{x0}" y="{y0}" width="{PANEL}" height="{PANEL}" fill="none" stroke="#999"/>',
                  f'<line x1="{x0}" y1="{y0 + PANEL}" x2="{x0 + PANEL}" y2="{y0}" stroke="#bbb" '
                  f'stroke-dasharray="3,3"/>']
        total = sum(b["count"] for b in r["reliability"]) or 1
        points = []
        for b in r["reliability"]:
            if not b["count"]:
                continue
            px, py = x0 + b["predicted"] * PANEL, y0 + (1 - b["observed"]) * PANEL
            points.append(f"{px:.1f},{py:.1f}")
            radius = 1.5 + 6 * math.sqrt(b["count"] / total)
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{radius:.1f}" fill="#1f6fb2" '
                         f'fill-opacity="0.7"/>')
        parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#1f6fb2"/>')
        parts.append(f'<text x="{x0}" y="{y0 + PANEL + 13}">predicted →, won ↑</text>')
        parts.append(f'<text x="{x0}" y="{y0 + PANEL + 26}">ECE {r["ece"]:.3f}, {r["games"]:,} games</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="cacao-calibration --raw sample files, one population each")
    parser.add_argument("--map", default="analysis", choices=("play", "analysis"),
                        help="the shipped model's map for the evaluator's settings (default analysis)")
    parser.add_argument("--bootstrap", type=int, default=200, help="resamples for the intervals and the floor")
    parser.add_argument("--svg", help="write the reliability diagrams here")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), [args.map])
    if args.bootstrap < 1:
        parser.error(f"--bootstrap must be at least 1, got {args.bootstrap}")
    try:
        table = rows(args.files, args.map, args.bootstrap)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    print(markdown(table))
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(table))
        print(f"\nreliability diagrams written to {args.svg}")
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {args.map: by_population(table)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
