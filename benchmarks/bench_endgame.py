"""How many placements before the end the exact endgame solver proves in time.

For each player count, ``--positions`` seeded random games are played until
every draw pile is empty; then, for 1, 2, ... worker tiles left (placements
before the end), the position is solved with a node cap and timed on one
core. A game's figure is the most placements left proved within 50 ms (and
within 1 s); the script prints the median and 90th percentile over games.

    nice -n 10 .venv/bin/python benchmarks/bench_endgame.py --positions 20
"""

from __future__ import annotations

import argparse
import random
import statistics

from cacaoai.engine import Position
from cacaoai.search import endgame


def positions_by_left(players: int, seed: int) -> dict[int, Position]:
    """The same seeded random game at each count of worker tiles left (a placement to choose)."""
    rng = random.Random(seed)
    position = Position.new(players, seed)
    out: dict[int, Position] = {}
    while not position.is_over:
        left = position.core.tiles_left()[0]
        if endgame.fully_known(position) and position.core.phase == 0 and left not in out:
            out[left] = position.clone()
        position.apply(rng.choice(position.legal_codes()))
    return out


def proved_within(players: int, seed: int, limits: tuple[float, ...], max_nodes: int) -> list[int]:
    """For each time limit, the most placements left proved within it (0 if none)."""
    best = [0] * len(limits)
    for left, position in sorted(positions_by_left(players, seed).items()):
        result = endgame.solve(position, max_nodes=max_nodes)
        if not result.proved:
            break
        for i, limit in enumerate(limits):
            if result.elapsed <= limit:
                best[i] = max(best[i], left)
        if result.elapsed > max(limits):
            break
    return best


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=500, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--max-nodes", type=int, default=20_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    limits = (0.05, 1.0)
    for players in args.players:
        rows = [proved_within(players, args.seed + i, limits, args.max_nodes) for i in range(args.positions)]
        for i, limit in enumerate(limits):
            values = [r[i] for r in rows]
            print(f"{players} players, within {limit:g} s: placements left proved "
                  f"median {statistics.median(values):g}, p90 {percentile(values, 0.9):g} "
                  f"(n={len(values)})", flush=True)


if __name__ == "__main__":
    main()
