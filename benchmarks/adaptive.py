#!/usr/bin/env python3
"""Does the adaptive level keep the game even? Each fixed level against it.

For each fixed level (standing in for a human), plays N 2-player games
against ``adaptive`` (seats rotated, each deal played from both seats, as
the arena plays them) and prints the fixed level's win rate (a shared win
counts half) with its 95% Wilson interval, the rung adaptive placed it on
at its last move (its estimate, beside the level's own rung), and how often
adaptive played each rung; with every level from ``beginner`` to ``strong``,
also the ladder of placements (search/adaptive.py's RUNGS) fitted to the
run, on which each level's games stand on its own rung on average. The
target (docs/search.md): 40-60% for every level. --tune NAME=VALUE changes
a setting of search/adaptive.py for the run (GAIN_UP, GAIN_DOWN, LEAN, MIX,
EPSILON_WEAK...).

    python benchmarks/adaptive.py --games 20 --processes 2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.engine import derive_seed
from cacaoai.lab.arena import play_deal, wilson
from cacaoai.lab.pool import run_tasks
from cacaoai.search import adaptive
from cacaoai.search.adaptive import RUNGS
from cacaoai.search.bots import LEVELS, AdaptiveBot, parse_bot

RUNG_NAMES = tuple(name for name, _, _ in RUNGS)
FIXED = tuple(name for name in RUNG_NAMES if name in LEVELS)


def adaptive_game(task: tuple[str, int, int, dict[str, float]]) -> tuple[str, float, list[str], list[float]]:
    """Game `g` of `level` against adaptive (with its settings changed as `tune` says):
    (level, the level's share of the win, the rungs adaptive played, and the
    rung it placed the level on at its last move: [] if it never moved)."""
    level, g, seed, tune = task
    for key, value in tune.items():
        setattr(adaptive, key, type(getattr(adaptive, key))(value))
    deal_seed = derive_seed(seed, g // 2)
    game_seed = derive_seed(deal_seed, g)
    seating = [(s - g) % 2 for s in range(2)]      # seat -> bot index (0: the level, 1: adaptive)
    ours = AdaptiveBot()
    final = play_deal(2, deal_seed, game_seed, seating, [parse_bot(level), ours])
    result = final.result()
    assert result is not None
    seat = seating.index(0)
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return level, share, ours.chosen, [ours.choices[-1].estimate.placed] if ours.choices else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games against each level (default 20)")
    parser.add_argument("--levels", default=",".join(FIXED), help="the fixed levels, comma-separated")
    parser.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                        help="change a setting of search/adaptive.py (GAIN_UP, GAIN_DOWN, LEAN, MIX, EPSILON_WEAK...)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["levels"] if args.games else [])
    names = [n.strip() for n in args.levels.split(",") if n.strip()]
    unknown = [n for n in names if n not in RUNG_NAMES]
    if unknown:
        parser.error(f"--levels: unknown level {unknown[0]!r}; the levels are {', '.join(RUNG_NAMES)}")
    started = time.monotonic()
    if args.games:
        shares: dict[str, list[float]] = {n: [] for n in names}
        played: dict[str, Counter[str]] = {n: Counter() for n in names}
        seen: dict[str, list[float]] = {n: [] for n in names}
        tune = {}
        for item in args.tune:
            key, _, value = item.partition("=")
            if not hasattr(adaptive, key.strip()) or not value:
                parser.error(f"--tune: {item!r} is not NAME=VALUE with NAME a setting of search/adaptive.py")
            tune[key.strip()] = float(value)
        tasks2 = [(n, g, args.seed, tune) for n in names for g in range(args.games)]
        for level, share, chosen, placed_at in run_tasks(adaptive_game, tasks2, args.processes):
            shares[level].append(share)
            played[level].update(chosen)
            seen[level] += placed_at
        print(f"{args.games} games a level against adaptive{' ' + str(tune) if tune else ''}, "
              f"{time.monotonic() - started:.0f} s")
        header = ["level", "games", "the level's win rate", "95% interval", "placed on rung",
                  "adaptive's moves by rung"]
        print(" | ".join(header))
        rows = []
        for n in names:
            wins, games = sum(shares[n]), len(shares[n])
            low, high = wilson(wins, games)
            total = sum(played[n].values()) or 1
            rungs = " ".join(f"{r}:{100 * played[n][r] / total:.0f}%" for r in RUNG_NAMES if played[n][r])
            placed = sum(seen[n]) / max(1, len(seen[n]))
            rows.append([n, games, f"{100 * wins / games:.1f}%", f"{100 * low:.1f}–{100 * high:.1f}%",
                         f"{placed:.2f} (own {RUNG_NAMES.index(n)})", rungs])
            print(f"{n} | {games} | {100 * wins / games:.1f}% | {100 * low:.1f}-{100 * high:.1f}% | "
                  f"{placed:.2f} (own {RUNG_NAMES.index(n)}) | {rungs}")
        if all(seen.get(name) for name in RUNG_NAMES[adaptive.FLOOR:adaptive.CEILING + 1]):
            ladder = adaptive.fit_ladder({i: seen[RUNG_NAMES[i]] for i in range(adaptive.FLOOR, adaptive.CEILING + 1)})
            print("the ladder that places each level's games on its own rung on average (RUNGS' placements): "
                  + ", ".join(f"{RUNG_NAMES[i]} {ladder[i]:.2f}" for i in range(adaptive.FLOOR, adaptive.CEILING + 1)))
        if args.markdown:
            write_sections(args.markdown, script_name(__file__), {"levels": table(
                header, rows, right=[False, True, True, True, True, False])})
    return 0


if __name__ == "__main__":
    sys.exit(main())
