#!/usr/bin/env python3
"""Iterations per CPU second of the search with each of several models, same
settings, one run: what a network costs at equal time.

Each model (a shipped name or a .npz path) searches the same positions (2 and
4 players, the opening and the mid-game of bench_search.py) with the play
settings and only the model changed, for about --seconds of CPU time of the
searching thread; the rounds alternate between the models (--repeat), so a
machine that slows down slows all of them alike. Prints the median of the
rounds per model and position, and each model's ratio to the first; and
each model's size on disk (its .npz and manifest) and the time to load it
(read, checked and handed to the search; the median of --loads loads).

    python benchmarks/model_speed.py cacao ../gen-loop/gen3/model.npz --repeat 3 --markdown
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_search import position_named
from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.engine import Position
from cacaoai.search import Limit, SearchSettings, search
from cacaoai.search.model import _read, load_model, model_path

POSITIONS = ((2, "opening"), (2, "mid-game"), (4, "opening"), (4, "mid-game"))


def cpu_rate(position: Position, model: str, seconds: float) -> float:
    """Iterations per CPU second of one search thread with `model`."""
    settings = SearchSettings(model=model)
    iterations = 200
    while True:
        start = time.thread_time()
        search(position, Limit(iterations=iterations), settings, seed=1)
        spent = time.thread_time() - start
        if spent >= seconds:
            return iterations / spent
        iterations = int(iterations * min(10.0, 1.5 * seconds / max(spent, 1e-3)))


def load_ms(name: str, loads: int) -> float:
    """The median milliseconds to read and check the model, uncached, as a server does at its start."""
    times = []
    for _ in range(loads):
        start = time.perf_counter()
        _read(model_path(name))
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def describe(name: str) -> str:
    """A model's name with its networks' layer widths (from its manifest)."""
    sizes = load_model(name).manifest["sizes"]
    return f"{name} ({'-'.join(map(str, sizes['value']))}, {'-'.join(map(str, sizes['policy']))})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="shipped model names or .npz paths; the first is the baseline")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a measurement (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--loads", type=int, default=20, help="loads timed a model (default 20)")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["model-speed"])
    positions = {key: position_named(*key) for key in POSITIONS}
    for model in args.models:       # load each once before timing, and fail early on a bad name
        SearchSettings(model=model)
        cpu_rate(positions[POSITIONS[0]], model, 0.05)
    rates: dict[tuple[str, tuple[int, str]], list[float]] = {}
    for _ in range(args.repeat):
        for key, position in positions.items():
            for model in args.models:
                rates.setdefault((model, key), []).append(cpu_rate(position, model, args.seconds))
    rows = []
    for players, name in POSITIONS:
        base = statistics.median(rates[args.models[0], (players, name)])
        for model in args.models:
            runs = rates[model, (players, name)]
            median = statistics.median(runs)
            rows.append([str(players), name, describe(model), f"{median:,.0f}", f"{min(runs):,.0f}–{max(runs):,.0f}",
                         f"{median / base:.2f}"])
    body = (table(["players", "position", "model", "iterations / CPU s (median)", "runs", "against the first"],
                  rows, [True, False, False, True, True, True])
            + f"\n\n{args.repeat} alternating rounds of about {args.seconds:g} CPU s a measurement.\n\n"
            + table(["model", "parameters", "on disk (.npz + manifest)", "load (median)"],
                    [[describe(model), f"{load_model(model).manifest['sizes']['parameters']:,}",
                      f"{sum(f.stat().st_size for f in (path, path.with_suffix('.json'))) / 1000:.0f} KB",
                      f"{load_ms(model, args.loads):.1f} ms"]
                     for model in args.models for path in [model_path(model)]],
                    [False, True, True, True])
            + f"\n\nLoad: the median of {args.loads} loads, uncached.")
    print(body)
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"model-speed": body})
    return 0


if __name__ == "__main__":
    sys.exit(main())
