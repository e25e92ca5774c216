#!/usr/bin/env python3
"""Where should a review draw its lines? The loss distribution by level.

Plays 2-player games between the named levels (seats rotated, as the arena
plays them), reviews every game with cacaoai.search.review at the given
budget, and prints per level: the decisions reviewed (forced ones apart),
the share the search judged best, quantiles of the loss in win probability,
the share of losses at or above each candidate threshold, the mean accuracy,
and the classes by today's thresholds. The thresholds in
cacaoai.search.review were chosen from this table (docs/review.md).

With --planted N it also plants one blunder in each of N games of strong
self-play (an action a bigger search judges PLANT_LOSS worse than its best)
and prints how the review judges them.

    python benchmarks/review_thresholds.py --games 4 --pair beginner,strong --pair casual,strong \\
        --pair advanced,strong --iterations 600 --planted 20
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

import numpy as np

from cacaoai.engine import Position, derive_seed
from cacaoai.lab.arena import play_game
from cacaoai.lab.pool import run_tasks
from cacaoai.search import ANALYSIS, Limit, Question, search
from cacaoai.search.bots import LEVELS
from cacaoai.search.review import CLASSES, DecisionReview, review, review_game

CUTS = (0.02, 0.05, 0.10, 0.15, 0.20, 0.30)
QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)
PLANT_LOSS = 0.20
PLANT_VISITS = 10
PLANT_TRIES = 4


def reviewed_game(task: tuple[int, int, tuple[str, str], int]) -> list[tuple[str, float, float, bool, str, float, str]]:
    """One game between the two levels, reviewed: per searched decision
    (level, loss in win probability, gold loss, judged best, class, accuracy, pair)."""
    g, seed, pair, iterations = task
    game = play_game((g, 2, seed, [LEVELS[name] for name in pair]))
    seat_level = {s: pair[game["seating"][s]] for s in range(2)}
    rows = []
    for item in review(game["record"], Limit(iterations=iterations), seed=seed + g, explanations=False):
        if isinstance(item, DecisionReview) and not item.forced:
            rows.append((seat_level[item.seat], item.win_loss, item.gold_loss,
                         item.classification == "best", item.classification, item.accuracy or 0.0,
                         ",".join(pair)))
    return rows


def planted(task: tuple[int, int, int, int, int]) -> tuple[float, float, str] | None:
    """One game of strong self-play with one move replaced: among the
    actions a `judge`-iteration search tried at least PLANT_VISITS times at
    a decision drawn at random (up to PLANT_TRIES decisions until one has
    one), the most visited one it judges at least PLANT_LOSS worse than its
    best. Reviewed alone at `iterations`: (the judge's loss, the review's
    loss, the review's class); None when no drawn decision had such an action."""
    g, seed, players, iterations, judge = task
    game = play_game((g, players, seed, [LEVELS["strong"]] * players))
    count = len(game["record"]["actions"])
    for k in random.Random(derive_seed(seed, g)).sample(range(count), min(PLANT_TRIES, count)):
        position = Position.from_record(game["record"], k)
        judged = search(position, Limit(iterations=judge), ANALYSIS, seed=seed + g,
                        question=Question(calibrated=False, multipv=0))
        top = judged.candidates[0].win_probability
        worse = [c for c in judged.candidates
                 if c.visits >= PLANT_VISITS and c.win_probability <= top - PLANT_LOSS]
        if worse:
            plant = max(worse, key=lambda c: c.visits)
            *_, decision, _summary = review_game(position, [plant.action], Limit(iterations=iterations),
                                                 seed=seed + g, explanations=False)
            assert isinstance(decision, DecisionReview)
            return top - plant.win_probability, decision.win_loss, decision.classification
    return None


def by_level(pairs: list[tuple[str, ...]], args: argparse.Namespace) -> None:
    """Play and review args.games games a pair; print the losses by level and each pair's accuracies."""
    tasks = [(g, args.seed + 1000 * k, pair, args.iterations)
             for k, pair in enumerate(pairs) for g in range(args.games)]
    started = time.monotonic()
    rows: list[Any] = [row for game in run_tasks(reviewed_game, tasks, args.processes) for row in game]
    elapsed = time.monotonic() - started
    print(f"{len(tasks)} games, {args.iterations} iterations a decision, {elapsed:.0f} s")
    print("level | decisions | best | loss q50/q75/q90/q95/q99 | "
          + " / ".join(f">={c:.2f}" for c in CUTS) + " | mean loss | mean gold loss | accuracy | "
          + " / ".join(CLASSES))
    for level in [name for name in LEVELS if any(r[0] == name for r in rows)]:
        mine = [r for r in rows if r[0] == level]
        loss = np.array([r[1] for r in mine])
        gold = np.array([r[2] for r in mine])
        quantiles = "/".join(f"{q:.3f}" for q in np.quantile(loss, QUANTILES))
        shares = " / ".join(f"{np.mean(loss >= c):.1%}" for c in CUTS)
        classes = " / ".join(str(sum(r[4] == c for r in mine)) for c in CLASSES)
        print(f"{level} | {len(mine)} | {np.mean([r[3] for r in mine]):.1%} | {quantiles} | {shares} | "
              f"{loss.mean():.3f} | {gold.mean():.2f} | {np.mean([r[5] for r in mine]):.1f} | {classes}")
    print("pair | accuracy of the first / the second level | mean loss of the first / the second")
    for pair in pairs:
        mine = [r for r in rows if r[6] == ",".join(pair)]
        accuracy = [np.mean([r[5] for r in mine if r[0] == name]) for name in pair]
        loss = [np.mean([r[1] for r in mine if r[0] == name]) for name in pair]
        print(f"{','.join(pair)} | {accuracy[0]:.1f} / {accuracy[1]:.1f} | {loss[0]:.3f} / {loss[1]:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per pair (0: only the planted blunders)")
    parser.add_argument("--pair", action="append", help="two levels, e.g. beginner,strong (repeat)")
    parser.add_argument("--iterations", type=int, default=600, help="the review's budget per decision")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--planted", type=int, default=0,
                        help="also plant a blunder in this many games of strong self-play")
    parser.add_argument("--judge", type=int, default=4000, help="the planting search's iterations")
    args = parser.parse_args(argv)
    pairs = [tuple(p.split(",")) for p in (args.pair or ["beginner,strong"])]
    for pair in pairs:
        if len(pair) != 2 or any(name not in LEVELS for name in pair):
            parser.error(f"--pair: two levels of {', '.join(LEVELS)}, got {','.join(pair)}")
    if args.games:
        by_level(pairs, args)
    if args.planted:
        tasks = [(g, args.seed + 77, 2, args.iterations, args.judge) for g in range(args.planted)]
        found = [r for r in run_tasks(planted, tasks, args.processes) if r is not None]
        print(f"planted blunders (a {args.judge}-iteration search: >= {PLANT_LOSS:.2f} worse): {len(found)} "
              f"of {args.planted} games had one")
        if found:
            judge_loss = np.array([r[0] for r in found])
            loss = np.array([r[1] for r in found])
            print(f"judge's loss mean {judge_loss.mean():.3f}; review's loss q05/q10/q25/q50 "
                  + "/".join(f"{q:.3f}" for q in np.quantile(loss, (0.05, 0.1, 0.25, 0.5)))
                  + " | " + " / ".join(f">={c:.2f} {np.mean(loss >= c):.1%}" for c in CUTS)
                  + " | " + " / ".join(f"{c} {sum(r[2] == c for r in found)}" for c in CLASSES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
