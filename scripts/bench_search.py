#!/usr/bin/env python3
"""Search speed: iterations per second and memory, printed as a table.

For 2 and 4 players, from the opening and from a mid-game position (half the
tiles placed by greedy play), with random and informed playouts, on 1 and 2
threads (root-parallel), each for --seconds of wall time. Then the memory of
one tree: bytes per node, and the whole tree after a 1-second search.

With --old-path DIR (a folder holding another build's cacaoai, see
compare_builds.py), each row is measured for this build and then for that one
in a child process, as iterations per second of CPU time of the searching
thread (one thread, a fixed budget of iterations): on a machine busy with
other work, wall-clock rates measure the load, CPU time much less so.

    python scripts/bench_search.py [--seconds 2] [--json] [--old-path DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from cacaoai.engine import Position
from cacaoai.search import SearchLimits, search
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


def rate(position: Position, playout: str, threads: int, seconds: float) -> float:
    result = search(position, SearchLimits(time_s=seconds, threads=threads, playout=playout), seed=1)
    return result.iterations_per_second


def cpu_rate(position: Position, playout: str, seconds: float) -> float:
    """Iterations per CPU second of the searching thread (one thread runs its
    tree in the calling thread), over about `seconds` of CPU time."""
    iterations = 200
    while True:
        start = time.thread_time()
        search(position, SearchLimits(iterations=iterations, playout=playout), seed=1)
        spent = time.thread_time() - start
        if spent >= seconds:
            return iterations / spent
        iterations = int(iterations * min(10.0, 1.5 * seconds / max(spent, 1e-3)))


def position_named(players: int, name: str) -> Position:
    return Position.new(players, 3) if name == "opening" else midgame(players)


def old_rate(path: str, players: int, name: str, playout: str, seconds: float) -> float:
    """One thread's iterations per CPU second with the build in `path`."""
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--row",
                          f"{players},{name},{playout}", "--seconds", str(seconds)],
                         env=env, cwd="/", check=True, capture_output=True, text=True).stdout
    return float(out)


def compare(path: str, seconds: float, as_json: bool) -> None:
    rows = []
    for players in (2, 4):
        for name in ("opening", "mid-game"):
            position = position_named(players, name)
            for playout in ("random", "informed"):
                new = cpu_rate(position, playout, seconds)
                old = old_rate(path, players, name, playout, seconds)
                rows.append({"players": players, "position": name, "playout": playout,
                             "ips_old": round(old), "ips_new": round(new),
                             "ratio": round(new / old, 2)})
    if as_json:
        print(json.dumps({"cpus": os.cpu_count(), "old_path": path, "rows": rows}))
        return
    print(f"iterations per CPU second of one searching thread, old build ({path}) vs this one, "
          f"about {seconds:g} CPU s each")
    print(f"{'players':>7} {'position':<9} {'playout':<9} {'old':>9} {'new':>9} {'new/old':>8}")
    for r in rows:
        print(f"{r['players']:>7} {r['position']:<9} {r['playout']:<9} {r['ips_old']:>9,} "
              f"{r['ips_new']:>9,} {r['ratio']:>7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--old-path", default=None, help="compare with the build in this folder")
    parser.add_argument("--row", default=None, help=argparse.SUPPRESS)   # players,position,playout
    args = parser.parse_args()

    if args.row:
        players, name, playout = args.row.split(",")
        print(cpu_rate(position_named(int(players), name), playout, args.seconds))
        return
    if args.old_path:
        compare(args.old_path, args.seconds, args.json)
        return

    rows = []
    for players in (2, 4):
        positions = {name: position_named(players, name) for name in ("opening", "mid-game")}
        for name, position in positions.items():
            for playout in ("random", "informed"):
                one = rate(position, playout, 1, args.seconds)
                two = rate(position, playout, 2, args.seconds)
                rows.append({"players": players, "position": name, "playout": playout,
                             "legal_actions": len(position.legal_codes()),
                             "ips_1_thread": round(one), "ips_2_threads": round(two),
                             "speedup": round(two / one, 2)})

    tree = Tree()
    position = Position.new(2, 3)
    tree.reset(position.core, observer=position.to_act, known_hands=0, seed=1)
    tree.run(-1, monotonic() + 1.0)
    memory = {"node_bytes": Tree.node_bytes(), "nodes_after_1s": tree.nodes,
              "iterations_after_1s": tree.iterations,
              "tree_bytes_after_1s": tree.memory_bytes()}

    if args.json:
        print(json.dumps({"cpus": os.cpu_count(), "rows": rows, "memory": memory}))
        return
    print(f"iterations per second ({args.seconds:g} s each, {os.cpu_count()} CPUs)")
    print(f"{'players':>7} {'position':<9} {'playout':<9} {'actions':>7} "
          f"{'1 thread':>9} {'2 threads':>9} {'speed-up':>8}")
    for r in rows:
        print(f"{r['players']:>7} {r['position']:<9} {r['playout']:<9} {r['legal_actions']:>7} "
              f"{r['ips_1_thread']:>9,} {r['ips_2_threads']:>9,} {r['speedup']:>7.2f}x")
    print(f"memory: {memory['node_bytes']} bytes per node; a 1-second search "
          f"(2 players, opening, informed, 1 thread): {memory['iterations_after_1s']:,} iterations, "
          f"{memory['nodes_after_1s']:,} nodes, {memory['tree_bytes_after_1s'] / 2**20:.1f} MiB "
          f"in total (node pool capacity and buffers)")


if __name__ == "__main__":
    main()
