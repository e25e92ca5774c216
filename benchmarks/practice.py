#!/usr/bin/env python3
"""Does practice offer the planted mistakes, and does it accept the best action?

On the planted-mistake games of the review's benchmark (review_thresholds.py
--planted: games of strong self-play, each with one action a 20,000-iteration
judge finds at least 0.20 worse than its best), a player practises as a user
of the service would, through a real cacao-server on a free port and the
Python client's practice module:

1. the game up to the plant, with the planted action played, is reviewed for
   the planting seat (ReviewGame at the review's default budget and a seed);
2. the practice is made of that review (``practice.exercises``): the plant is
   *offered* when it is there (an inaccuracy, a mistake or a blunder);
3. the review's best action is tried (``practice.judge``, the review's budget
   and seed): it must be *accepted* (solved);
4. the planted action is tried again: it must be refused.

    python benchmarks/practice.py --planted 300 --plants plants.jsonl --processes 2 --markdown

``--plants`` is review_thresholds.py's file (read when it exists, else
planted and written); the same ``--seed`` and ``--judge`` give the same games.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from markdown import add_markdown_option, require_parts, script_name, table, write_sections
from review_thresholds import plants

from cacaoai.client import CacaoClient, practice
from cacaoai.client.local import LocalServer
from cacaoai.engine import Action, Position, derive_seed

SALT = 5157


@dataclass(frozen=True)
class Outcome:
    """One planted game practised."""

    classification: str          # the review's class of the planted action
    offered: bool                # practice put the player at it
    best_accepted: bool | None   # the review's best action, tried: solved (None: not offered)
    planted_refused: bool | None  # the planted action, tried again: not solved


def practise(client: CacaoClient, game: dict[str, Any], seed: int) -> Outcome:
    """The planted game reviewed for its planting seat, its practice made, and
    the best and the planted action tried there."""
    plant = game["plant"]
    position = Position.from_record(game["record"], plant["index"])
    seat = position.to_act
    assert seat is not None
    position.apply(Action.from_json(plant["action"]))
    record = position.record()
    review_seed = derive_seed(seed, game["game"])
    decision = next(r.decision for r in client.review_game(record, seed=review_seed, seats=[seat],
                                                            decisions=[plant["index"]])
                    if r.decision is not None)
    offered = practice.exercises(record, [decision], seats=[seat])
    if not offered:
        return Outcome(decision.classification, False, None, None)
    exercise = offered[0]
    best = practice.judge(client, exercise, decision.best_action, seed=review_seed)
    again = practice.judge(client, exercise, exercise.taken, seed=review_seed)
    return Outcome(decision.classification, True, best.solved, not again.solved)


def share(count: int, total: int) -> str:
    return f"{count} of {total} ({100 * count / total:.1f}%)" if total else "0 of 0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--planted", type=int, default=300, help="planted games (default: 300)")
    parser.add_argument("--plants", help="review_thresholds.py's JSONL file of planted games: read when it "
                        "exists, else planted and written")
    parser.add_argument("--judge", type=int, default=20000, help="the planting search's iterations")
    parser.add_argument("--seed", type=int, default=1, help="the planting seed (review_thresholds.py's)")
    parser.add_argument("--processes", type=int, default=1,
                        help="processes that plant, and reviews at once on the server (default: 1)")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["practice"])
    if args.planted < 1 or args.processes < 1:
        parser.error("--planted and --processes must be at least 1")
    started = time.monotonic()
    kept = bool(args.plants) and os.path.exists(args.plants)
    found = [g for g in plants(args) if g["plant"] is not None]
    planting = "the plants read from --plants" if kept else f"planting: {time.monotonic() - started:.0f} s"
    started = time.monotonic()
    seed = derive_seed(args.seed, SALT)
    with LocalServer("--max-searches", str(args.processes), "--search-threads", "1") as server, \
            CacaoClient(server.address) as client, ThreadPoolExecutor(args.processes) as pool:
        outcomes = []
        for outcome in pool.map(lambda game: practise(client, game, seed), found):
            outcomes.append(outcome)
            sys.stderr.write(f"\rpractice: {len(outcomes)}/{len(found)} games ")
    sys.stderr.write("\n")
    offered = [o for o in outcomes if o.offered]
    confirmed = [o for o in outcomes if o.classification in ("mistake", "blunder")]
    rows = [
        ["planted mistakes offered (reviewed an inaccuracy or worse)", share(len(offered), len(outcomes))],
        ["of them, confirmed by the review (a mistake or a blunder), offered",
         share(sum(o.offered for o in confirmed), len(confirmed))],
        ["the review's best action, tried: accepted", share(sum(bool(o.best_accepted) for o in offered),
                                                            len(offered))],
        ["the planted action, tried again: refused", share(sum(bool(o.planted_refused) for o in offered),
                                                          len(offered))],
    ]
    body = (f"{len(found)} planted games of {args.planted} (a {args.judge:,}-iteration judge, seed {args.seed}); "
            "reviews and tries at the server's default review budget, one seed a game.\n\n"
            + table(["figure", "result"], rows, [False, True])
            + f"\n\n{time.monotonic() - started:.0f} s of practice on a server with {args.processes} search "
            f"slot{'s' if args.processes > 1 else ''} ({planting}).")
    print(body)
    if args.markdown:
        write_sections(args.markdown, script_name(__file__), {"practice": body})
    return 0


if __name__ == "__main__":
    sys.exit(main())
