#!/usr/bin/env python3
"""Instructions per search iteration, by phase, counted by callgrind.

Instruction counts repeat from run to run and do not depend on the load of
the machine, so two builds can be compared on a busy machine. For each
position (2 and 4 players, opening and mid-game, informed playouts, one
thread), runs a search of --iterations under ``valgrind --tool=callgrind`` and
splits the instructions of ``tree_iterate`` into

    determinize   position_determinize (the copy of the root is in "tree")
    tree          selection: legal actions, child look-up, UCB, applying the
                  tree's actions, the root copy and the backup loop
    expansion     _pick_untried (one-step values of a few untried actions)
    playout       playout_informed
    result        position_result (the final scores that are backed up)

    python benchmarks/profile_search.py [--iterations 2000] [--old-path DIR] [--branches] [--json]

With --old-path, the same is measured for the build in DIR (see
compare_builds.py) and the ratio old / new is printed. Needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

POSITIONS = ("2 opening", "2 mid-game", "4 opening", "4 mid-game")
PHASES = {
    "determinize": ("position_determinize",),
    "expansion": ("_pick_untried",),
    "playout": ("playout_informed",),
    "result": ("position_result",),
}

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from bench_search import limits, midgame
from cacaoai.engine import Position
from cacaoai.search import search
players, where, iterations = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
position = Position.new(players, 3) if where == "opening" else midgame(players)
search(position, *limits(iterations=iterations), seed=1)
"""


def measure(name: str, iterations: int, path: str | None,
            branches: bool = False) -> dict[str, float]:
    """Instructions per iteration by phase for one position and build; with
    `branches`, also "mispredicted": conditional branches callgrind's branch
    simulator mispredicts per iteration (a simple predictor, so only a guide)."""
    players, where = name.split()
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        *(["--branch-sim=yes"] if branches else []),
                        "--toggle-collect=*job_main*", sys.executable, "-c", CHILD,
                        os.path.dirname(os.path.abspath(__file__)), players, where, str(iterations)],
                       env=env, check=True, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = subprocess.run(["callgrind_annotate", "--tree=calling", "--inclusive=yes", out],
                              check=True, capture_output=True, text=True).stdout
    total = mispredicted = 0
    callees: dict[str, int] = {}
    inside = False
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) .*?([*>])\s+\S+:(\S+)", line)
        if not m:
            if inside and not line.strip():
                break
            continue
        count, mark, function = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        if mark == "*":
            if inside:
                break
            inside = function.endswith("_mcts_tree_iterate")
            total = count if inside else 0
            if inside and branches:
                # Ir Bc Bcm Bi Bim, each maybe followed by a percentage
                counts = re.findall(r"([\d,]+)(?:\s+\([^)]*\))?\s", line.split(mark)[0])
                mispredicted = int(counts[2].replace(",", ""))
        elif inside:
            callees[function] = callees.get(function, 0) + count
    if not total:
        raise RuntimeError("no tree_iterate in the profile (was the build stripped?)")
    phases = {phase: sum(v for f, v in callees.items() if f.endswith(names))
              for phase, names in PHASES.items()}
    phases["tree"] = total - sum(phases.values())
    phases["total"] = total
    if branches:
        phases["mispredicted"] = mispredicted
    return {k: v / iterations for k, v in phases.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--old-path", default=None, help="folder holding another build's cacaoai")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--branches", action="store_true",
                        help="also count mispredicted branches (callgrind --branch-sim=yes)")
    args = parser.parse_args()
    rows = []
    for name in POSITIONS:
        row = {"position": name, "new": measure(name, args.iterations, None, args.branches)}
        if args.old_path:
            row["old"] = measure(name, args.iterations, args.old_path, args.branches)
        rows.append(row)
    if args.json:
        print(json.dumps(rows))
        return 0
    order = ("determinize", "tree", "expansion", "playout", "result", "total")
    if args.branches:
        order += ("mispredicted",)
    print("instructions per iteration (callgrind, informed playouts, 1 thread)")
    print(f"{'position':<12} {'build':<5} " + " ".join(f"{p:>11}" for p in order))
    for row in rows:
        for build in ("old", "new"):
            if build in row:
                print(f"{row['position']:<12} {build:<5} "
                      + " ".join(f"{row[build][p]:>11,.0f}" for p in order))
        if "old" in row:
            print(f"{row['position']:<12} {'ratio':<5} "
                  + " ".join(f"{row['old'][p] / row['new'][p]:>10.2f}x" if row["new"][p] else f"{'-':>11}"
                             for p in order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
