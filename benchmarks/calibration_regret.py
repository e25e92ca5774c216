#!/usr/bin/env python3
"""Why is the search optimistic for the seat to act? Its players' regret.

The root's mean win share assumes that the seat to act plays about as well
as the search does. On games between weaker players it does not, and the
search's prediction for that seat runs above what the seat wins
(docs/search.md, "Calibration"). This probe measures both on the same
positions: at each evaluated position (played and evaluated as
cacao-calibration does, raw), the games' player chooses its move again
(with another seed), and the evaluator's own value of that move is compared
with its best move's.

Printed per player: the root's mean win share for the seat to act, the
share that seat won, the mean of the best move's and of the player's move's
win share by the evaluator's candidates, their gap (the regret), and how
often the player chose the evaluator's move. A position where the player's
move is none of the evaluator's candidates (it never tried it: possible at
small budgets) counts in "unvalued" and not in the means.

    python benchmarks/calibration_regret.py --games 300 --seed 11 \\
        --player nomodel:iterations=300 --player mcts:iterations=300
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from cacaoai.engine import Position, derive_seed
from cacaoai.lab import calibration as cal
from cacaoai.lab.pool import run_tasks
from cacaoai.search.bots import parse_bot
from cacaoai.search.results import SearchResult


def play(task: tuple[int, int, str, str]) -> list[tuple[float, float, float, float, bool]]:
    """One game: per evaluated position (root, outcome, best, played: the
    seat to act's win shares; whether the player chose the evaluator's move)."""
    seed, game, player, evaluator = task
    bot = parse_bot(player)
    rows: list[tuple[int, float, float, float, bool]] = []

    def visit(position: Position, ply: int, result: SearchResult, replay_seed: int) -> None:
        if result.win_probability is None:
            return
        seat = position.to_act
        assert seat is not None
        value = {c.action: c.win_probability for c in result.candidates}
        action = bot.choose(position, derive_seed(replay_seed, 7))
        rows.append((seat, result.win_probability[seat], result.candidates[0].win_probability,
                     value.get(action, np.nan), action == result.best_action))

    final, _ = cal.play_evaluated(2, seed, game, player, evaluator, 4, True, visit)
    outcome = cal.win_shares(final)
    return [(root, outcome[seat], best, played, same) for seat, root, best, played, same in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--player", action="append", help="the games' players (repeat for several)")
    parser.add_argument("--evaluator", default=cal.DEFAULT_EVALUATOR)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games: must be at least 1, got {args.games}")
    print("player | positions | root's mean | won | best move | player's move | regret | same move | unvalued")
    for player in args.player or [cal.DEFAULT_PLAYER]:
        tasks = [(args.seed, g, player, args.evaluator) for g in range(args.games)]
        rows = np.array([row for game in run_tasks(play, tasks, args.processes) for row in game],
                        dtype=np.float64)
        valued = ~np.isnan(rows[:, 3])
        root, won, best, played, same = rows.T
        print(f"{player} | {len(rows)} | {root.mean():.3f} | {won.mean():.3f} | {best[valued].mean():.3f} | "
              f"{played[valued].mean():.3f} | {(best - played)[valued].mean():.3f} | {same.mean():.1%} | "
              f"{1 - valued.mean():.1%}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
