#!/usr/bin/env python3
"""Where should a review draw its lines? The loss distribution by level.

Plays 2-player games between the named levels (seats rotated, as the arena
plays them), reviews every game with cacaoai.search.review at the given
budget, and prints per level: the decisions reviewed (forced ones apart),
the share the search judged best, quantiles of the loss in win probability,
the share of losses at or above each candidate threshold, the accuracy (as a review weighs it),
and the classes by today's thresholds. The thresholds in
cacaoai.search.review were chosen from this table (docs/search.md, "Game
review and explanations").

With --planted N it plants one blunder in each of N games of strong
self-play (an action a --judge-iteration search judges PLANT_LOSS worse
than its best, checked on the two actions alone and confirmed by a fresh
search of another seed; kept in --plants FILE),
reviews each planted move and prints how the review judges them; with
--untouched N it also reviews N of those games whole, as strong played
them, and counts the blunders it marks. --speed N times whole reviews of N
games of strong self-play for 2, 3 and 4 players at the default budget.

    python benchmarks/review_thresholds.py --games 4 --pair beginner,strong --pair casual,strong \\
        --pair advanced,strong
    python benchmarks/review_thresholds.py --games 0 --planted 300 --untouched 300 --plants plants.jsonl \\
        --processes 2
    python benchmarks/review_thresholds.py --games 0 --speed 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np
from markdown import add_markdown_option, require_parts, script_name, table, write_sections

from cacaoai.engine import Action, Position, derive_seed
from cacaoai.lab.arena import play_game
from cacaoai.lab.pool import run_tasks
from cacaoai.search import ANALYSIS, Limit, Question, Reuse, SearchResult, TreeCache, search
from cacaoai.search.bots import LEVELS
from cacaoai.search.review import (
    CLASSES,
    DEFAULT_LIMIT,
    DecisionReview,
    ReviewSummary,
    review,
    review_game,
    weighted_accuracy,
)

CUTS = (0.02, 0.05, 0.10, 0.15, 0.20, 0.30)
QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)
PLANT_LOSS = 0.20
PLANT_VISITS = 10
PLANT_TRIES = 4
PLANT_PROPOSALS = 3
VERIFY_SHARE = 0.25
CONFIRM_SHARE = 0.5


def reviewed_game(task: tuple[int, int, tuple[str, str], int]) -> list[tuple[str, float, float, bool, str, float, str,
                                                                           float | None]]:
    """One game between the two levels, reviewed: per searched decision
    (level, loss in win probability, gold loss, judged best, class, accuracy, pair,
    the mover's win probability before it)."""
    g, seed, pair, iterations = task
    game = play_game((g, 2, seed, [LEVELS[name] for name in pair]))
    seat_level = {s: pair[game["seating"][s]] for s in range(2)}
    rows = []
    for item in review(game["record"], Limit(iterations=iterations), seed=seed + g, explanations=False):
        if isinstance(item, DecisionReview) and not item.forced:
            rows.append((seat_level[item.seat], item.win_loss, item.gold_loss,
                         item.classification == "best", item.classification, item.accuracy or 0.0,
                         ",".join(pair), item.win_before))
    return rows


def plant(task: tuple[int, int, int, int]) -> dict[str, Any]:
    """One game of strong self-play and, at a decision drawn at random (up
    to PLANT_TRIES decisions until one has one), the action to plant.

    A `judge`-iteration search of the mover's view proposes the actions it
    tried at least PLANT_VISITS times and values at least PLANT_LOSS below
    its best, most visited first; each is checked by continuing the judge's
    tree VERIFY_SHARE of `judge` more iterations restricted to the best and
    the proposed action (a value from a few visits is noise, and picking
    the large ones picks noise). A loss that holds at PLANT_LOSS there is
    confirmed by a fresh tree of another seed, CONFIRM_SHARE of `judge`
    iterations on the two actions alone: the continued tree keeps the few
    early visits that made the proposed action look bad, and an independent
    search does not reproduce about a quarter of those losses. The first
    proposal confirmed is planted. The game's record, and the plant (its
    index, action, the confirming search's loss as the judge's, and the
    continued tree's) or None."""
    g, seed, players, judge = task
    game = play_game((g, players, seed, [LEVELS["strong"]] * players))
    count = len(game["record"]["actions"])
    out: dict[str, Any] = {"game": g, "record": game["record"], "plant": None}
    for k in random.Random(derive_seed(seed, g)).sample(range(count), min(PLANT_TRIES, count)):
        position = Position.from_record(game["record"], k)
        cache = TreeCache(1 << 30)
        judged = search(position, Limit(iterations=judge), ANALYSIS, seed=seed + g, reuse=Reuse(cache),
                        question=Question(calibrated=False, multipv=0))
        top = judged.candidates[0]
        worse = [c for c in judged.candidates[1:]
                 if c.visits >= PLANT_VISITS and c.win_probability <= top.win_probability - PLANT_LOSS]
        for proposed in sorted(worse, key=lambda c: -c.visits)[:PLANT_PROPOSALS]:
            pair = search(position, Limit(iterations=round(judge * VERIFY_SHARE)), ANALYSIS, seed=seed + g,
                          reuse=Reuse(cache), question=Question(calibrated=False, multipv=0,
                                                                allow=[top.action, proposed.action]))
            verified = pair_loss(pair, top.action, proposed.action)
            if verified < PLANT_LOSS:
                continue
            fresh = search(position, Limit(iterations=round(judge * CONFIRM_SHARE)), ANALYSIS,
                           seed=derive_seed(seed + g, k), question=Question(
                               calibrated=False, multipv=0, allow=[top.action, proposed.action]))
            confirmed = pair_loss(fresh, top.action, proposed.action)
            if confirmed >= PLANT_LOSS:
                out["plant"] = {"index": k, "action": proposed.action.to_json(), "judge_loss": confirmed,
                                "verify_loss": verified, "judge_visits": proposed.visits, "judge": judge}
                return out
    return out


def pair_loss(result: SearchResult, best: Action, taken: Action) -> float:
    """How much lower `result` values `taken` than `best` (both at its root)."""
    values = {c.action: c.win_probability for c in result.candidates}
    return values[best] - values[taken]


def review_plant(task: tuple[dict[str, Any], int, int]) -> tuple[float, float, str, int, float]:
    """A planted move reviewed alone (a fresh review from the position
    before it) at `iterations`: (the judge's loss, the review's loss, the
    review's class, the game, and how far into its actions the plant is)."""
    game, seed, iterations = task
    planted = game["plant"]
    position = Position.from_record(game["record"], planted["index"])
    *_, decision, _summary = review_game(position, [planted["action"]], Limit(iterations=iterations),
                                         seed=seed + game["game"], explanations=False)
    assert isinstance(decision, DecisionReview)
    return (planted["judge_loss"], decision.win_loss, decision.classification, game["game"],
            planted["index"] / len(game["record"]["actions"]))


def review_untouched(task: tuple[dict[str, Any], int, int]) -> list[str]:
    """The game as strong played it, reviewed whole: the class of each searched decision."""
    game, seed, iterations = task
    return [item.classification for item in review(game["record"], Limit(iterations=iterations),
                                                   seed=seed + game["game"], explanations=False)
            if isinstance(item, DecisionReview) and not item.forced]


def plants(args: argparse.Namespace) -> list[dict[str, Any]]:
    """args.planted games with their plants: read from args.plants when it
    exists, else made (and written there when given)."""
    if args.plants and os.path.exists(args.plants):
        with open(args.plants) as f:
            games = sorted((json.loads(line) for line in f), key=lambda game: game["game"])
        if len(games) < args.planted:
            sys.exit(f"--plants: {args.plants} holds {len(games)} games, fewer than --planted {args.planted}")
        if any(game["plant"] is not None and "verify_loss" not in game["plant"] for game in games):
            sys.exit(f"--plants: {args.plants} was planted before plants were confirmed by a fresh search; "
                     "remove it to plant again")
        return games[:args.planted]
    tasks = [(g, args.seed + 77, 2, args.judge) for g in range(args.planted)]
    games = []
    with open(args.plants or os.devnull, "w") as f:
        for game in run_tasks(plant, tasks, args.processes):   # written as they finish
            f.write(json.dumps(game) + "\n")
            f.flush()
            games.append(game)
    return sorted(games, key=lambda game: game["game"])


def planted_blunders(args: argparse.Namespace) -> None:
    """Plant, review the planted moves and the untouched games; print how the review judges them."""
    started = time.monotonic()
    games = plants(args)
    found = [g for g in games if g["plant"] is not None]
    judge = found[0]["plant"]["judge"] if found else args.judge
    print(f"planted blunders (a {judge}-iteration search: >= {PLANT_LOSS:.2f} worse, "
          f"confirmed by a fresh one): {len(found)} "
          f"of {len(games)} games had one ({time.monotonic() - started:.0f} s)")
    started = time.monotonic()
    rows = list(run_tasks(review_plant, [(g, args.seed + 77, args.iterations) for g in found], args.processes))
    if rows:
        judge_loss = np.array([r[0] for r in rows])
        loss = np.array([r[1] for r in rows])
        caught = sum(r[2] in ("mistake", "blunder") for r in rows)
        print(f"reviewed at {args.iterations} iterations ({time.monotonic() - started:.0f} s): "
              f"mistake or blunder {caught} of {len(rows)} ({caught / len(rows):.1%})")
        print(f"judge's loss mean {judge_loss.mean():.3f}; review's loss q05/q10/q25/q50 "
              + "/".join(f"{q:.3f}" for q in np.quantile(loss, (0.05, 0.1, 0.25, 0.5)))
              + " | " + " / ".join(f">={c:.2f} {np.mean(loss >= c):.1%}" for c in CUTS)
              + " | " + " / ".join(f"{c} {sum(r[2] == c for r in rows)}" for c in CLASSES))
        if args.misses:
            for judge_loss, loss, cls, g, progress in sorted(rows, key=lambda r: r[4]):
                if cls not in ("mistake", "blunder"):
                    print(f"missed: game {g}, {progress:.0%} into it, judge's loss {judge_loss:.3f}, "
                          f"review's {loss:.3f} ({cls})")
    if args.untouched:
        started = time.monotonic()
        tasks = [(g, args.seed + 77, args.iterations) for g in games[:args.untouched]]
        classes = [c for game in run_tasks(review_untouched, tasks, args.processes) for c in game]
        blunders = sum(c == "blunder" for c in classes)
        print(f"untouched strong moves of {len(tasks)} games ({time.monotonic() - started:.0f} s): "
              f"{len(classes)} decisions, blunder {blunders} ({blunders / max(1, len(classes)):.1%}), "
              + " / ".join(f"{c} {classes.count(c)}" for c in CLASSES))


def speed(args: argparse.Namespace) -> None:
    """Whole games of strong self-play, 2 to 4 players, reviewed at the
    review's default budget in this process: seconds and the share of each class."""
    print("players | games | decisions | iterations | seconds a game, 1 thread / 2 threads (CPU s) | "
          + " / ".join(CLASSES))
    for players in (2, 3, 4):
        games = [play_game((g, players, args.seed + 5, [LEVELS["strong"]] * players))["record"]
                 for g in range(args.speed)]
        seconds = []
        for threads in (1, 2):
            started, cpu = time.monotonic(), time.process_time()
            items = [item for g, record in enumerate(games)
                     for item in review(record, replace(DEFAULT_LIMIT, threads=threads), seed=args.seed + g)]
            seconds.append(f"{(time.monotonic() - started) / len(games):.1f} "
                           f"({(time.process_time() - cpu) / len(games):.1f})")
        decisions = [i for i in items if isinstance(i, DecisionReview) and not i.forced]
        iterations = sum(i.iterations for i in items if isinstance(i, ReviewSummary))
        shares = " / ".join(f"{sum(d.classification == c for d in decisions) / len(decisions):.1%}" for c in CLASSES)
        print(f"{players} | {len(games)} | {len(decisions)} | {iterations} | "
              f"{seconds[0]} / {seconds[1]} | {shares}")


def accuracy_of(rows: list[Any]) -> float:
    """The accuracy of a level's decisions (rows of :func:`reviewed_game`), as a review's summary weighs them."""
    accuracy = weighted_accuracy([(r[5], r[7]) for r in rows], 2)
    assert accuracy is not None
    return accuracy


def by_level(pairs: list[tuple[str, ...]], args: argparse.Namespace) -> str:
    """Play and review args.games games a pair; print the losses by level and each pair's accuracies.
    Returns them as markdown tables (the part "levels" of BENCHMARKS.md)."""
    tasks = [(g, args.seed + 1000 * k, pair, args.iterations)
             for k, pair in enumerate(pairs) for g in range(args.games)]
    started = time.monotonic()
    rows: list[Any] = [row for game in run_tasks(reviewed_game, tasks, args.processes) for row in game]
    elapsed = time.monotonic() - started
    print(f"{len(tasks)} games, {args.iterations} iterations a decision, {elapsed:.0f} s")
    print("level | decisions | best | loss q50/q75/q90/q95/q99 | "
          + " / ".join(f">={c:.2f}" for c in CUTS) + " | mean loss | mean gold loss | accuracy | "
          + " / ".join(CLASSES))
    levels, paired = [], []
    for level in [name for name in LEVELS if any(r[0] == name for r in rows)]:
        mine = [r for r in rows if r[0] == level]
        loss = np.array([r[1] for r in mine])
        gold = np.array([r[2] for r in mine])
        quantiles = "/".join(f"{q:.3f}" for q in np.quantile(loss, QUANTILES))
        shares = " / ".join(f"{np.mean(loss >= c):.1%}" for c in CUTS)
        classes = " / ".join(str(sum(r[4] == c for r in mine)) for c in CLASSES)
        level_accuracy = accuracy_of(mine)
        print(f"{level} | {len(mine)} | {np.mean([r[3] for r in mine]):.1%} | {quantiles} | {shares} | "
              f"{loss.mean():.3f} | {gold.mean():.2f} | {level_accuracy:.1f} | {classes}")
        levels.append([level, f"{len(mine):,}", f"{np.mean([r[3] for r in mine]):.1%}", f"{np.mean(loss >= 0.10):.1%}",
                       f"{loss.mean():.3f}", f"{gold.mean():.2f}", f"{level_accuracy:.1f}", classes])
    print("pair | accuracy of the first / the second level | mean loss of the first / the second")
    for pair in pairs:
        mine = [r for r in rows if r[6] == ",".join(pair)]
        accuracy = [accuracy_of([r for r in mine if r[0] == name]) for name in pair]
        loss = [np.mean([r[1] for r in mine if r[0] == name]) for name in pair]
        print(f"{','.join(pair)} | {accuracy[0]:.1f} / {accuracy[1]:.1f} | {loss[0]:.3f} / {loss[1]:.3f}")
        paired.append([f"{pair[0]} / {pair[1]}", f"{accuracy[0]:.1f} / {accuracy[1]:.1f}",
                       f"{loss[0]:.3f} / {loss[1]:.3f}"])
    return (f"{len(tasks)} games, {args.iterations} iterations a decision.\n\n"
            + table(["level", "decisions", "judged best", "loss ≥ 0.10", "mean loss", "mean gold loss", "accuracy",
                     " / ".join(CLASSES)], levels, right=[False] + [True] * 6 + [False])
            + "\n\n" + table(["pair", "accuracy, the first / the second", "mean loss, the first / the second"], paired))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per pair (0: only the planted blunders)")
    parser.add_argument("--pair", action="append", help="two levels, e.g. beginner,strong (repeat)")
    parser.add_argument("--iterations", type=int, default=DEFAULT_LIMIT.iterations,
                        help="the review's budget per decision (default: the review's own)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--planted", type=int, default=0,
                        help="also plant a blunder in this many games of strong self-play")
    parser.add_argument("--judge", type=int, default=20000, help="the planting search's iterations")
    parser.add_argument("--speed", type=int, default=0,
                        help="review this many whole games of strong self-play for 2, 3 and 4 players, timed")
    parser.add_argument("--misses", action="store_true",
                        help="with --planted: also print each plant the review does not mark a mistake or a blunder")
    parser.add_argument("--plants", help="a JSONL file of the planted games: read when it exists, else written")
    parser.add_argument("--untouched", type=int, default=0,
                        help="also review this many of the planted games whole, as strong played them")
    add_markdown_option(parser)
    args = parser.parse_args(argv)
    require_parts(parser, args.markdown, script_name(__file__), ["levels"] if args.games else [])
    pairs = [tuple(p.split(",")) for p in (args.pair or ["beginner,strong"])]
    for pair in pairs:
        if len(pair) != 2 or any(name not in LEVELS for name in pair):
            parser.error(f"--pair: two levels of {', '.join(LEVELS)}, got {','.join(pair)}")
    if args.games:
        levels = by_level(pairs, args)
        if args.markdown:
            write_sections(args.markdown, script_name(__file__), {"levels": levels})
    if args.planted:
        planted_blunders(args)
    if args.speed:
        speed(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
