#!/usr/bin/env python3
"""Search speed: iterations per second and memory, printed as a table.

For 2 and 4 players, from the opening and from a mid-game position (half the
tiles placed by greedy play), with leaves valued by the model (the defaults)
and by playouts without it (informed and random), on 1 and 2 threads
(root-parallel), each for --seconds of wall time. Then the memory of
one tree: bytes per node, and the whole tree after a 1-second search.

With --old-path DIR (a folder holding another build's cacaoai, see
compare_builds.py; may be given more than once), each row is measured for
this build and then for each other one, each in a fresh child process, as
iterations per second of CPU time of the searching thread (one thread, a fixed
budget of iterations), plus rows of uniformly random games per CPU second
(2-4 players): on a machine busy with other work, wall-clock rates measure the
load, CPU time much less so. --repeat N alternates the builds N times per row
and prints medians.

With --cpu-time (or --games-only) and no --old-path, this build alone is
measured that way: the figures a shared machine can still give.

--markdown writes the run's tables into their parts of BENCHMARKS.md
(benchmarks/markdown.py): per CPU second, "random-games" and "iterations";
by the wall clock, "threads" and "memory".

    python benchmarks/bench_search.py [--seconds 2] [--json] [--old-path DIR ...] [--repeat N] [--games-only]
    python benchmarks/bench_search.py --evaluations model,analysis   # play against analysis settings
    python benchmarks/bench_search.py --cpu-time --repeat 3 --evaluations model,informed,random,analysis --markdown
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict

from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.engine import Position, core
from cacaoai.search import search

try:
    from cacaoai.search import Limit, SearchSettings

    def limits(iterations=None, time_s=None, threads=None, **settings):
        return (Limit(iterations, time_s, threads), SearchSettings(**settings))
except ImportError:  # an older build (--old-path) with one type for both
    from cacaoai.search import SearchLimits

    def limits(iterations=None, time_s=None, threads=None, **settings):
        return (SearchLimits(iterations=iterations, time_s=time_s, threads=threads or 1, **settings),)
try:  # the search without the learned evaluation (its preset), where this build has one
    from cacaoai.search import NO_MODEL
    WITHOUT_MODEL = asdict(NO_MODEL)
except ImportError:
    NO_MODEL = None
    WITHOUT_MODEL = {}
from cacaoai.search._mcts import Tree, monotonic
from cacaoai.search.bots import GreedyBot


def midgame(players: int, seed: int = 3) -> Position:
    """A position after half the worker tiles are placed, by greedy play."""
    position = Position.new(players, seed)
    bot = GreedyBot()
    tiles = {2: 22, 3: 30, 4: 36}[players]
    ply = 0
    while position.turn < tiles // 2:
        position.apply(bot.choose(position, ply))
        ply += 1
    while position.phase != "turn":
        position.apply(bot.choose(position, ply))
        ply += 1
    return position


# how a leaf is valued: the defaults (the model's value network, where the
# build has one), or playouts without the model, informed or uniformly random;
# "analysis" (with --evaluations): the analysis settings, cacaoai.search.ANALYSIS
EVALUATIONS = ("model", "informed", "random")


def settings_of(evaluation: str) -> dict:
    if evaluation == "analysis":
        from cacaoai.search import ANALYSIS
        return asdict(ANALYSIS)
    return {} if evaluation == "model" else {**WITHOUT_MODEL, "playout": evaluation}


def rate(position: Position, evaluation: str, threads: int, seconds: float) -> float:
    result = search(position, *limits(time_s=seconds, threads=threads, **settings_of(evaluation)), seed=1)
    return result.iterations_per_second


def cpu_rate(position: Position, evaluation: str, seconds: float) -> float:
    """Iterations per CPU second of the searching thread (one thread runs its
    tree in the calling thread), over about `seconds` of CPU time."""
    iterations = 200
    while True:
        start = time.thread_time()
        search(position, *limits(iterations=iterations, **settings_of(evaluation)), seed=1)
        spent = time.thread_time() - start
        if spent >= seconds:
            return iterations / spent
        iterations = int(iterations * min(10.0, 1.5 * seconds / max(spent, 1e-3)))


def position_named(players: int, name: str) -> Position:
    return Position.new(players, 3) if name == "opening" else midgame(players)


def games_rate(players: int, seconds: float) -> float:
    """Uniformly random games from fresh deals per CPU second of this thread."""
    games = 2000
    while True:
        start = time.thread_time()
        core.bench_random_games(players, games, 1)
        spent = time.thread_time() - start
        if spent >= seconds:
            return games / spent
        games = int(games * min(10.0, 1.5 * seconds / max(spent, 1e-3)))


def row_rate(row: str, seconds: float) -> float:
    """One row of the comparison: 'players,position,evaluation' or 'games,players'."""
    parts = row.split(",")
    if parts[0] == "games":
        return games_rate(int(parts[1]), seconds)
    return cpu_rate(position_named(int(parts[0]), parts[1]), parts[2], seconds)


def rate_in(path: str | None, row: str, seconds: float) -> float:
    """row_rate measured in a child process importing the build in `path`
    (None: this interpreter's installed build)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--row", row,
                          "--seconds", str(seconds)],
                         env=env, cwd="/", check=True, capture_output=True, text=True).stdout
    return float(out)


def compare(paths: list[str], seconds: float, repeat: int, as_json: bool, games_only: bool = False,
            evaluations: tuple[str, ...] = EVALUATIONS, markdown: str | None = None) -> None:
    """Each row: this build and each build in `paths`, one after the other in
    fresh processes, `repeat` rounds; medians per build and their ratios."""
    rows = []
    specs = [] if games_only else [f"{p},{n},{k}" for p in (2, 4) for n in ("opening", "mid-game")
                                   for k in evaluations]
    specs += [f"games,{p}" for p in (2, 3, 4)]
    for spec in specs:
        runs: dict[str, list[float]] = {"new": [], **{path: [] for path in paths}}
        for _ in range(repeat):
            runs["new"].append(rate_in(None, spec, seconds))
            for path in paths:
                runs[path].append(rate_in(path, spec, seconds))
        new = statistics.median(runs["new"])
        rows.append({"row": spec, "new": round(new), "runs_new": [round(x) for x in runs["new"]],
                     "old": {path: {"rate": round(statistics.median(runs[path])),
                                    "runs": [round(x) for x in runs[path]],
                                    "ratio": round(new / statistics.median(runs[path]), 2)}
                             for path in paths}})
    if markdown:
        write_sections(markdown, script_name(__file__), cpu_parts(rows, paths, repeat))
    if as_json:
        print(json.dumps({"cpus": os.cpu_count(), "old_paths": paths, "repeat": repeat,
                          "rows": rows}))
        return
    print(f"per CPU second of one thread (iterations, or random games for 'games' rows); "
          f"median of {repeat} alternating runs of about {seconds:g} CPU s each")
    for i, path in enumerate(paths):
        print(f"  old{i + 1} = {path}")
    print(f"{'row':<28} {'new':>9} " + " ".join(f"{'old' + str(i + 1):>9} {'new/old' + str(i + 1):>9}"
                                               for i in range(len(paths))))
    for r in rows:
        print(f"{r['row']:<28} {r['new']:>9,} " + " ".join(
            f"{r['old'][p]['rate']:>9,} {r['old'][p]['ratio']:>8.2f}x" for p in paths))


LEAVES = {"model": "the defaults (the model)", "informed": "informed playouts, no model",
          "random": "random playouts, no model", "analysis": "the analysis settings"}


def _runs(rates: list[int]) -> str:
    return f"{min(rates):,}–{max(rates):,}" if len(rates) > 1 else f"{rates[0]:,}"


def cpu_parts(rows: list[dict], paths: list[str], repeat: int) -> dict[str, str]:
    """The markdown parts of a per-CPU-second run: "random-games" (games rows)
    and, when iterations were measured, "iterations"; with other builds, a
    column of each build's median and this build's ratio to it."""
    others = [f"old{i + 1}" for i in range(len(paths))]
    extra = [h for name in others for h in (name, f"new / {name}")]

    def compared(row: dict) -> list[str]:
        return [c for p in paths for c in (f"{row['old'][p]['rate']:,}", f"{row['old'][p]['ratio']:.2f}×")]

    median = f"median of {repeat}" if repeat > 1 else "one run"
    parts = {"random-games": table(
        ["players", f"random games / CPU s ({median})", "runs", *extra],
        [[r["row"].split(",")[1], f"{r['new']:,}", _runs(r["runs_new"]), *compared(r)]
         for r in rows if r["row"].startswith("games,")],
        right=[True, True, True, *[True] * len(extra)])}
    searched = [r for r in rows if not r["row"].startswith("games,")]
    if searched:
        model = {tuple(r["row"].split(",")[:2]): r["new"] for r in searched if r["row"].endswith(",model")}
        body = []
        for r in searched:
            players, position, leaves = r["row"].split(",")
            base = model.get((players, position))
            body.append([players, position, LEAVES[leaves], f"{r['new']:,}", _runs(r["runs_new"]),
                         f"{r['new'] / base:.2f}" if base else "", *compared(r)])
        parts["iterations"] = table(
            ["players", "position", "leaves", f"iterations / CPU s ({median})", "runs", "against the defaults",
             *extra], body, right=[True, False, False, True, True, True, *[True] * len(extra)])
    return parts


def wall_parts(rows: list[dict], memory: dict, seconds: float) -> dict[str, str]:
    """The markdown parts of a wall-clock run: "threads" and "memory"."""
    threads = table(
        ["players", "position", "leaves", "legal actions", "1 thread", "2 threads", "speed-up"],
        [[r["players"], r["position"], LEAVES[r["evaluation"]], r["legal_actions"], f"{r['ips_1_thread']:,}",
          f"{r['ips_2_threads']:,}", f"{r['speedup']:.2f}×"] for r in rows],
        right=[True, False, False, True, True, True, True])
    nodes = memory["nodes_after_1s"]
    size = table(["tree", "nodes", "memory", "bytes a node"],
                 [["1-second search, 2 players, opening, informed playouts, one thread", f"{nodes:,}",
                   f"{memory['tree_bytes_after_1s'] / 2**20:.1f} MiB",
                   f"{memory['tree_bytes_after_1s'] / nodes:.0f}"]], right=[False, True, True, True])
    return {"threads": f"Iterations a second, {seconds:g} s a measurement.\n\n{threads}",
            "memory": f"A node is {memory['node_bytes']} bytes, plus its edge in its parent's block.\n\n{size}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--old-path", action="append", default=[],
                        help="compare with the build in this folder (may be given more than once)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="per CPU second: alternating rounds per row (medians are printed)")
    parser.add_argument("--evaluations", default=",".join(EVALUATIONS),
                        help="the table's leaf valuations, from model, analysis (the analysis "
                             f"settings), informed, random (default {','.join(EVALUATIONS)})")
    parser.add_argument("--games-only", action="store_true",
                        help="per CPU second, only the rows of random games")
    parser.add_argument("--cpu-time", action="store_true",
                        help="per CPU second of the searching thread in fresh processes, as with --old-path, "
                             "for this build alone when no --old-path is given")
    parser.add_argument("--row", default=None, help=argparse.SUPPRESS)   # see row_rate
    add_markdown_option(parser)
    args = parser.parse_args()
    evaluations = [e.strip() for e in args.evaluations.split(",") if e.strip()]
    unknown = sorted(set(evaluations) - {*EVALUATIONS, "analysis"})
    if unknown or not evaluations:
        parser.error(f"--evaluations: unknown {', '.join(unknown) or 'nothing given'}; "
                     "choose from model, analysis, informed, random")

    if args.row:
        print(row_rate(args.row, args.seconds))
        return
    per_cpu = bool(args.old_path or args.games_only or args.cpu_time)
    require_parts(parser, args.markdown, script_name(__file__),
                  (["random-games"] if args.games_only else ["random-games", "iterations"]) if per_cpu
                  else ["threads", "memory"])
    if per_cpu:
        compare(args.old_path, args.seconds, args.repeat, args.json, args.games_only, tuple(evaluations),
                args.markdown)
        return

    rows = []
    for players in (2, 4):
        positions = {name: position_named(players, name) for name in ("opening", "mid-game")}
        for name, position in positions.items():
            for evaluation in evaluations:
                one = rate(position, evaluation, 1, args.seconds)
                two = rate(position, evaluation, 2, args.seconds)
                rows.append({"players": players, "position": name, "evaluation": evaluation,
                             "legal_actions": len(position.legal_codes()),
                             "ips_1_thread": round(one), "ips_2_threads": round(two),
                             "speedup": round(two / one, 2)})

    tree = Tree()
    position = Position.new(2, 3)
    tree.reset(position.core, observer=position.to_act, known_hands=0, seed=1, settings=NO_MODEL)
    tree.run(-1, monotonic() + 1.0)
    memory = {"node_bytes": Tree.node_bytes(), "nodes_after_1s": tree.nodes,
              "iterations_after_1s": tree.iterations,
              "tree_bytes_after_1s": tree.memory_bytes()}

    if args.markdown:
        write_sections(args.markdown, script_name(__file__), wall_parts(rows, memory, args.seconds))
    if args.json:
        print(json.dumps({"cpus": os.cpu_count(), "rows": rows, "memory": memory}))
        return
    print(f"iterations per second ({args.seconds:g} s each, {os.cpu_count()} CPUs)")
    print(f"{'players':>7} {'position':<9} {'leaves':<9} {'actions':>7} "
          f"{'1 thread':>9} {'2 threads':>9} {'speed-up':>8}")
    for r in rows:
        print(f"{r['players']:>7} {r['position']:<9} {r['evaluation']:<9} {r['legal_actions']:>7} "
              f"{r['ips_1_thread']:>9,} {r['ips_2_threads']:>9,} {r['speedup']:>7.2f}x")
    print(f"memory: {memory['node_bytes']} bytes per node, plus its edge in its parent's block; "
          f"a 1-second search (2 players, opening, informed, 1 thread): "
          f"{memory['iterations_after_1s']:,} iterations, {memory['nodes_after_1s']:,} nodes, "
          f"{memory['tree_bytes_after_1s'] / 2**20:.1f} MiB in total (node and edge pools with "
          f"their spare capacity, buffers), "
          f"{memory['tree_bytes_after_1s'] / memory['nodes_after_1s']:.0f} bytes a node")


if __name__ == "__main__":
    main()
