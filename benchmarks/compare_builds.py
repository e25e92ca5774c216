#!/usr/bin/env python3
"""Play bots of two builds of cacaoai against each other (2 players).

Each side's moves come from a worker process that imports its own build: the
"new" side from this interpreter's installed cacaoai, the "old" side from
--old-path (a folder put first on PYTHONPATH, e.g. a build of an earlier
commit installed with ``pip install --no-deps --target DIR``). The game itself
is kept by the new build; a worker gets the position as a snapshot, asks its
bot, and answers with the action code (codes are the same in both builds).
Seats rotate as in cacao-arena: game g is deal g // 2 with the new bot in
seat g % 2, so each deal is played once from each side. Time budgets
(``mcts:time=0.05``) make "equal time per move" matches; both workers run one
after the other, never at the same time, so they get the same machine. A bot
whose spec says ``reuse=1`` gets the game's last 16 positions and actions with
each move, as cacao-arena gives them, so it continues its search trees. The
workers are cacaoai.lab.builds.Worker, which ``cacao-ladder --old-path``
uses too (its SPRT mode tests a change between builds in as few games as the
evidence allows).

    git archive 4c2bd50 | tar -x -C /tmp/old
    (cd /tmp/old && pip install -q --no-deps --target /tmp/old-site .)
    python benchmarks/compare_builds.py --old-path /tmp/old-site --games 400 \\
        --new mcts:time=0.05 --old mcts:time=0.05 [--processes 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from typing import Any

from cacaoai.lab.builds import Worker

_WORKERS: dict[str, Worker] = {}


_REUSES: dict[str, bool] = {}
HISTORY_PLIES = 16      # as cacao-arena gives its bots


def _init(new: str, old: str, old_path: str) -> None:
    _WORKERS["new"] = Worker(new, None)
    _WORKERS["old"] = Worker(old, old_path)
    for side, spec in (("new", new), ("old", old)):
        _REUSES[side] = "reuse=1" in spec


def play(task: tuple[int, int]) -> dict[str, Any]:
    """Game g: deal g // 2, the new bot in seat g % 2."""
    from cacaoai.engine import Position, derive_seed

    g, seed = task
    deal_seed = derive_seed(seed, g // 2)   # each deal played once from each seat
    game_seed = derive_seed(deal_seed, g)
    new_seat = g % 2
    position = Position.new(2, deal_seed)
    ply = 0
    spent = {"new": [0.0, 0], "old": [0.0, 0]}
    history: list[tuple[dict[str, Any], int]] = []
    while not position.is_over:
        side = "new" if position.to_act == new_seat else "old"
        worker = _WORKERS[side]
        before = worker.seconds
        snapshot = position.snapshot()
        code = worker.choose(snapshot, derive_seed(game_seed, ply), g,
                             history[-HISTORY_PLIES:] if _REUSES[side] else None)
        spent[side][0] += worker.seconds - before
        spent[side][1] += 1
        history.append((snapshot, code))
        position.apply(code)
        ply += 1
    result = position.result()
    assert result is not None
    share = 1.0 / len(result.winners) if new_seat in result.winners else 0.0
    return {"game": g, "new_seat": new_seat, "new_win": share, "gold": result.gold, "spent": spent}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-path", required=True, help="folder holding the old build's cacaoai")
    parser.add_argument("--new", default="mcts:time=0.05", help="bot spec for the new build")
    parser.add_argument("--old", default="mcts:time=0.05", help="bot spec for the old build")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1, help="games played at once")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from cacaoai.lab.arena import wilson

    started = time.monotonic()
    wins = 0.0
    gold = [0.0, 0.0]                       # new, old
    spent = {"new": [0.0, 0], "old": [0.0, 0]}
    tasks = [(g, args.seed) for g in range(args.games)]
    with multiprocessing.get_context("fork").Pool(
            args.processes, initializer=_init, initargs=(args.new, args.old, args.old_path)) as pool:
        for done, outcome in enumerate(pool.imap_unordered(play, tasks), 1):
            wins += outcome["new_win"]
            gold[0] += outcome["gold"][outcome["new_seat"]]
            gold[1] += outcome["gold"][1 - outcome["new_seat"]]
            for side in spent:
                spent[side][0] += outcome["spent"][side][0]
                spent[side][1] += outcome["spent"][side][1]
            sys.stderr.write(f"\r{done}/{args.games} games, new wins {100 * wins / done:5.1f}% ")
            sys.stderr.flush()
    sys.stderr.write("\n")
    lo, hi = wilson(wins, args.games)
    summary = {
        "games": args.games, "seed": args.seed, "new": args.new, "old": args.old,
        "old_path": args.old_path, "new_win_rate": wins / args.games, "ci95": [lo, hi],
        "mean_gold": {"new": gold[0] / args.games, "old": gold[1] / args.games},
        "seconds_per_move": {side: s / n if n else 0.0 for side, (s, n) in spent.items()},
        "elapsed_s": time.monotonic() - started,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{args.games} games: new {args.new} vs old {args.old}: new wins "
              f"{100 * summary['new_win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}], mean gold "
              f"{summary['mean_gold']['new']:.1f} vs {summary['mean_gold']['old']:.1f}; seconds per move "
              f"new {summary['seconds_per_move']['new']:.3f}, old {summary['seconds_per_move']['old']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
