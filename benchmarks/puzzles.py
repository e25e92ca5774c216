#!/usr/bin/env python3
"""Are the shipped puzzles sound and graded? Two measurements on a puzzle set
(the shipped one by default, cacaoai.search.puzzles):

- **levels**: each level (beginner ... max) plays every puzzle from its
  view at --seeds seeds (cacaoai.search.puzzles.solves); the share of
  attempts that find a solution, for all puzzles and for the exact and the
  searched ones apart. It should rise with the level, and max should solve
  nearly all (at least 95%): a puzzle max misses is suspect. The greedy
  bot (the best value one action ahead, no search) tries each puzzle too:
  the puzzles it misses need a look further ahead, and the levels' shares
  on those alone are printed as well.
- **uniqueness**: a sample of --sample searched (not exact) puzzles is
  checked again as generation checked it (cacaoai.lab.puzzles.deep_check),
  at --factor times its first deep search's iterations (generation's second
  search has twice as many) and at a seed generation never used: the share
  whose best action is still the solution and still at least 0.20 above
  every other action.

    python benchmarks/puzzles.py --seeds 1 --sample 100 --processes 2 --markdown
    python benchmarks/puzzles.py --limit 20 --sample 5       # a quick look
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time

from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.engine import derive_seed
from cacaoai.lab.arena import wilson
from cacaoai.lab.pool import run_tasks
from cacaoai.lab.puzzles import Budget, deep_check
from cacaoai.search.bots import parse_bot
from cacaoai.search.puzzles import LEVEL_ORDER, MIN_GAP, Puzzle, check, load, solves

SALT = 0xBE7C
GREEDY = "greedy"


@functools.cache
def _puzzles(path: str | None) -> tuple[Puzzle, ...]:
    """The file's puzzles, read once a process."""
    return load(path)


def attempts(task: tuple[str | None, int, tuple[str, ...], int, int]) -> tuple[int, dict[str, int]]:
    """Puzzle `index` of the file played by each level, and by the greedy
    bot (key GREEDY), at `seeds` seeds: (index, solutions found per level)."""
    path, index, levels, seeds, seed = task
    puzzle = _puzzles(path)[index]
    seeds_of = [derive_seed(derive_seed(seed, index), k) for k in range(seeds)]
    found = {level: sum(solves(puzzle, level, s) for s in seeds_of) for level in levels}
    greedy = parse_bot(GREEDY)
    found[GREEDY] = sum(check(puzzle, greedy.choose(puzzle.position(s), s)) for s in seeds_of)
    return index, found


def recheck(task: tuple[str | None, int, int, int]) -> tuple[int, bool, float | None]:
    """Puzzle `index` checked again at `iterations`: (index, whether its
    solution and gap hold, the gap found when the searches agreed)."""
    path, index, iterations, seed = task
    puzzle = _puzzles(path)[index]
    found = deep_check(puzzle.position(seed), [(iterations, derive_seed(seed, index))], min_gap=-1.0)
    if found is None:
        return index, False, None
    return index, found.best in puzzle.solutions and found.gap >= MIN_GAP, found.gap


def level_rows(puzzles: tuple[Puzzle, ...], solved: dict[int, dict[str, int]], levels: tuple[str, ...],
               seeds: int) -> list[list[str]]:
    rows = []
    for level in levels:
        cells = [level]
        for chosen in (range(len(puzzles)), [i for i, p in enumerate(puzzles) if p.exact],
                       [i for i, p in enumerate(puzzles) if not p.exact]):
            n = len(chosen) * seeds
            hits = sum(solved[i][level] for i in chosen)
            cells.append(_share(hits, n))
        low, high = wilson(sum(solved[i][level] for i in solved), len(puzzles) * seeds)
        cells.insert(2, f"{100 * low:.1f}–{100 * high:.1f}%")
        rows.append(cells)
    return rows


def _share(hits: int, n: int) -> str:
    return f"{100 * hits / n:.1f}% ({hits}/{n})" if n else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", help="a puzzle file (default: the shipped set)")
    parser.add_argument("--levels", nargs="+", default=list(LEVEL_ORDER), choices=LEVEL_ORDER, metavar="LEVEL",
                        help="the levels measured (default: all, weakest first)")
    parser.add_argument("--seeds", type=int, default=1, help="attempts of each level at a puzzle (default: 1)")
    parser.add_argument("--sample", type=int, default=100, help="searched puzzles checked again (default: 100)")
    parser.add_argument("--factor", type=int, default=4,
                        help="the re-check's iterations over generation's deep search (default: 4)")
    parser.add_argument("--limit", type=int, help="only the first N puzzles (a quick look)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the attempts and the sample (default: 1)")
    parser.add_argument("--processes", type=int, default=1, help="local worker processes (default: 1)")
    add_markdown_option(parser)
    args = parser.parse_args()
    require_parts(parser, args.markdown, script_name(__file__), ["puzzles"])
    started = time.monotonic()
    puzzles = load(args.file)[:args.limit]
    levels = tuple(name for name in LEVEL_ORDER if name in args.levels)
    seed = derive_seed(args.seed, SALT)
    solved: dict[int, dict[str, int]] = {}
    for index, found in run_tasks(attempts, [(args.file, i, levels, args.seeds, seed) for i in range(len(puzzles))],
                                  args.processes):
        solved[index] = found
        sys.stderr.write(f"\rlevels: {len(solved)}/{len(puzzles)} puzzles ")
    sys.stderr.write("\n")
    searched = [i for i, p in enumerate(puzzles) if not p.exact]
    sample = sorted(random.Random(seed).sample(searched, min(args.sample, len(searched))))
    iterations = args.factor * Budget().deep_iterations
    held, gaps = 0, []
    for _index, holds, gap in run_tasks(recheck, [(args.file, i, iterations, derive_seed(seed, 1)) for i in sample],
                                       args.processes):
        held += holds
        gaps.append(gap)
        sys.stderr.write(f"\runiqueness: {len(gaps)}/{len(sample)} puzzles ")
    sys.stderr.write("\n")
    elapsed = time.monotonic() - started
    exact = sum(p.exact for p in puzzles)
    header = ["level", "solved, all", "95% interval", "exact puzzles", "searched puzzles"]
    missed = [i for i in range(len(puzzles)) if solved[i][GREEDY] < args.seeds]
    body = (f"{len(puzzles)} puzzles ({exact} exact, {len(puzzles) - exact} searched), "
            f"{args.seeds} attempt{'s' if args.seeds > 1 else ''} a level and puzzle.\n\n"
            + table(header, level_rows(puzzles, solved, levels, args.seeds), [False, True, True, True, True])
            + f"\n\nThe greedy bot (one action ahead, no search) solves "
            f"{_share(sum(solved[i][GREEDY] for i in solved), len(puzzles) * args.seeds)}; on the "
            f"{len(missed)} puzzles it misses: "
            + ", ".join(f"{level} {_share(sum(solved[i][level] for i in missed), len(missed) * args.seeds)}"
                        for level in levels) + ".")
    low, high = wilson(held, len(sample)) if sample else (0.0, 0.0)
    body += ("\n\n" + table(["uniqueness re-check", "puzzles", "best action and gap hold", "95% interval"],
                            [[f"{iterations:,} iterations, a new seed", len(sample), _share(held, len(sample)),
                              f"{100 * low:.1f}–{100 * high:.1f}%"]], [False, True, True, True]))
    body += f"\n\n{elapsed:.0f} s on {args.processes} process{'es' if args.processes > 1 else ''}."
    print(body)
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"puzzles": body})
    return 0


if __name__ == "__main__":
    sys.exit(main())
