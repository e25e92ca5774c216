"""The exact endgame solver on positions of `strong` self-play: its reach, and
how far from perfect the search plays where it proves the result.

Positions: seeded games of `strong` self-play (its 300 iterations a move,
the search alone), taken where every draw pile is empty and the seat to act
places a tile, once at each count of placements left.

``reach`` (2, 3 and 4 players): each game's positions are solved on one
thread (the best action and its value, the rest proved worse, as a search
asks), from 1 placement left up, until a solve takes more than 1 s of CPU
or is not proved within ``--max-nodes``. A game's figure is the most
placements left proved within 50 ms and within 1 s of CPU time; the median
and 90th percentile over games are printed, and then the median
nodes to prove each count (``endgame.PROVES_WITHIN``).

``truth`` (2 players): at 2, 3, 4, 5 and 6 placements left of each game,
the exact value of the best action and of each action the searches choose
is the ground truth; `strong` and `max` choose with the search alone
(``endgame=0``) and with their defaults (the solver where it proves the
result in their budget). Printed per placements left: the share of exactly
optimal choices and the win share lost in all.

``latency`` (2, 3 and 4 players; run it on an idle machine): 50 ms searches
of the play settings in-process on every such position with 1 to 6
placements left, with the solver (the default) and without it: the
elapsed time's median and 99th percentile, and the share answered exactly.

    nice -n 10 .venv/bin/python benchmarks/bench_endgame.py reach --games 500 --processes 2 --markdown
    nice -n 10 .venv/bin/python benchmarks/bench_endgame.py truth --games 200 --processes 2 --markdown
    .venv/bin/python benchmarks/bench_endgame.py latency --games 60 --markdown
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from multiprocessing import Pool
from typing import Any

import markdown

from cacaoai.engine import Position, derive_seed
from cacaoai.search import endgame, search
from cacaoai.search.bots import levels
from cacaoai.search.limits import PLAY, Limit

SCRIPT = "benchmarks/bench_endgame.py"
LIMITS = (0.05, 1.0)
TRUTH_LEFT = (2, 3, 4, 5, 6)
TRUTH_NODES = 2_000_000_000


def selfplay_endgame(players: int, seed: int) -> dict[int, Position]:
    """Game `seed` of `strong` self-play (the search alone): its positions
    with nothing hidden and a tile to place, by placements left."""
    level = levels()["strong"]
    settings = replace(level.settings, endgame=0.0)
    position = Position.new(players, seed)
    out: dict[int, Position] = {}
    k = 0
    while not position.is_over:
        if endgame.fully_known(position) and position.core.phase == 0:
            out.setdefault(endgame.placements_left(position), position.clone())
        codes = position.legal_codes()
        if len(codes) == 1:
            position.apply(codes[0])
        else:
            result = search(position, level.limit, settings, seed=derive_seed(seed, k))
            assert result.best_action is not None
            position.apply(result.best_action)
        k += 1
    return out


def reach_game(job: tuple[int, int, int]) -> tuple[list[int], dict[int, int]]:
    """(the most placements left proved within each of LIMITS, nodes to prove by placements left)."""
    players, seed, max_nodes = job
    best = [0] * len(LIMITS)
    nodes: dict[int, int] = {}
    for left, position in sorted(selfplay_endgame(players, seed).items()):
        if left == 0:
            continue
        start = time.process_time()
        result = endgame.solve(position, max_nodes=max_nodes, values=0)
        cpu = time.process_time() - start
        if not result.proved:
            break
        nodes[left] = result.nodes
        for i, limit in enumerate(LIMITS):
            if cpu <= limit:
                best[i] = max(best[i], left)
        if cpu > max(LIMITS):
            break
    return best, nodes


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def reach(args: argparse.Namespace) -> dict[str, str]:
    rows, fits = [], []
    with Pool(args.processes) as pool:
        for players in args.players:
            jobs = [(players, args.seed + i, args.max_nodes) for i in range(args.games)]
            games = pool.map(reach_game, jobs, chunksize=4)
            cells: list[Any] = [players, len(games)]
            for i, limit in enumerate(LIMITS):
                values = [g[0][i] for g in games]
                cells += [f"{statistics.median(values):g}", f"{percentile(values, 0.9):g}"]
                print(f"{players} players, within {limit:g} s CPU: placements left proved median "
                      f"{statistics.median(values):g}, p90 {percentile(values, 0.9):g} (games={len(games)})",
                      flush=True)
            rows.append(cells)
            medians = {}
            for left in range(1, 10):
                needed = [g[1].get(left, args.max_nodes + 1) for g in games]
                median = statistics.median(needed)
                if median > args.max_nodes:
                    break
                medians[left] = int(median)
            fits.append(f"    {players}: {{0: 1, " + ", ".join(f"{k}: {v:_}" for k, v in medians.items()) + "},")
    print("PROVES_WITHIN (median nodes to prove):")
    print("\n".join(fits))
    header = ["players", "games", "50 ms: median", "50 ms: p90", "1 s: median", "1 s: p90"]
    return {"endgame-reach": markdown.table(header, rows, [True] * len(header))}


def truth_game(seed: int) -> list[tuple[int, str, bool, float, bool]]:
    """Per placements left and player (strong or max, alone or with the solver):
    (left, player, exactly optimal, win share lost, the result was exact)."""
    named = levels()
    players = {
        "strong alone": (named["strong"].limit, replace(named["strong"].settings, endgame=0.0)),
        "max alone": (named["max"].limit, replace(named["max"].settings, endgame=0.0)),
        "strong": (named["strong"].limit, named["strong"].settings),
        "max": (named["max"].limit, named["max"].settings),
    }
    out = []
    for left, position in sorted(selfplay_endgame(2, seed).items()):
        if left not in TRUTH_LEFT:
            continue
        exact = endgame.solve(position, max_nodes=TRUTH_NODES, values=0)
        if not exact.proved:
            continue
        top = exact.actions[0]
        for name, (limit, settings) in players.items():
            result = search(position, limit, settings, seed=derive_seed(seed, left))
            assert result.best_action is not None
            code = position.encode(result.best_action)
            value = exact.value(code) or endgame.solve(position, max_nodes=TRUTH_NODES, codes=[code]).actions[0]
            optimal = code in exact.best
            out.append((left, name, optimal, top.share - value.share, result.exact))
    return out


def truth(args: argparse.Namespace) -> dict[str, str]:
    with Pool(args.processes) as pool:
        games = pool.map(truth_game, [args.seed + i for i in range(args.games)], chunksize=2)
    rows = []
    names = ["strong alone", "max alone", "strong", "max"]
    for left in TRUTH_LEFT:
        cells: list[Any] = [left]
        for name in names:
            found = [r for g in games for r in g if r[0] == left and r[1] == name]
            if not found:
                cells += ["", ""]
                continue
            optimal = sum(r[2] for r in found) / len(found)
            lost = sum(r[3] for r in found)
            exact = [r for r in found if r[4]]
            cells += [f"{100 * optimal:.1f}%", f"{lost:.2f}"]
            if name in ("strong", "max"):
                cells[-2] += f" ({100 * len(exact) / len(found):.0f}% exact)"
                assert all(r[2] for r in exact), "an exact result chose an action that is not optimal"
        cells.insert(1, len([r for g in games for r in g if r[0] == left and r[1] == names[0]]))
        rows.append(cells)
        print(" | ".join(str(c) for c in cells), flush=True)
    header = ["placements left", "positions"]
    for name in names:
        header += [f"{name}: optimal", f"{name}: share lost"]
    return {"endgame-truth": markdown.table(header, rows, [True] * len(header))}


def latency(args: argparse.Namespace) -> dict[str, str]:
    rows = []
    limit = Limit(time_s=args.time)
    for players in args.players:
        games = [selfplay_endgame(players, args.seed + i) for i in range(args.games)]   # positions do not pickle
        positions = [p for g in games for left, p in sorted(g.items()) if 1 <= left <= 6]
        for name, settings in (("with the solver", PLAY), ("without", replace(PLAY, endgame=0.0))):
            elapsed, exact = [], 0
            for i, position in enumerate(positions):
                start = time.perf_counter()
                result = search(position, limit, settings, seed=i)
                elapsed.append(1000 * (time.perf_counter() - start))
                exact += result.exact
            rows.append([players, name, len(positions), f"{statistics.median(elapsed):.2f}",
                         f"{percentile(elapsed, 0.99):.2f}", f"{100 * exact / len(positions):.0f}%"])
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    header = ["players", "search", "positions", "p50 ms", "p99 ms", "answered exactly"]
    return {"endgame-latency": markdown.table(header, rows, [True, False, True, True, True, True])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["reach", "truth", "latency"])
    parser.add_argument("--games", type=int, default=500, help="games of self-play a player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], help="reach: player counts")
    parser.add_argument("--max-nodes", type=int, default=20_000_000, help="reach: the most nodes a solve")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--time", type=float, default=0.05, help="latency: seconds a search")
    markdown.add_markdown_option(parser)
    args = parser.parse_args()
    markdown.require_parts(parser, args.markdown, SCRIPT, [f"endgame-{args.mode}"])
    parts = {"reach": reach, "truth": truth, "latency": latency}[args.mode](args)
    if args.markdown:
        markdown.write_sections(args.markdown, SCRIPT, parts)


if __name__ == "__main__":
    main()
