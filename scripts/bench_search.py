#!/usr/bin/env python3
"""Search speed: iterations per second and memory, printed as a table.

For 2 and 4 players, from the opening and from a mid-game position (half the
tiles placed by greedy play), with random and informed playouts, on 1 and 2
threads (root-parallel), each for --seconds of wall time. Then the memory of
one tree: bytes per node, and the whole tree after a 1-second search.

    python scripts/bench_search.py [--seconds 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = []
    for players in (2, 4):
        positions = {"opening": Position.new(players, 3), "mid-game": midgame(players)}
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
