#!/usr/bin/env python3
"""How much of the skill the search misses is in who plays the games?

``cacao-calibration --replays K`` gives the ceiling of a population of games:
each evaluated position replayed K times by the games' own players, the
hidden tiles redrawn from the view of the seat to act. No evaluator that does
not know those players reaches it. This probe replays the same positions K
times more with another player (``--replayer``, by default today's search)
and scores, against the real outcomes, the mean of each set of replays as a
prediction (less its own noise, the replays' variance / K):

- ``players' replays``: the best prediction for these games (about the ceiling);
- ``replayer's replays``: a prediction that is exact for the replayer's play,
  raw and with a temperature per third of the game fitted on the other half of
  the games (as a calibration map would correct it).

The gap between the second and the first is what knowing the players is
worth; the evaluator's own skill (as the search reports it, calibration map
included) is printed beside them. Games and seeds are cacao-calibration's, so
``--seed 1`` gives the positions and replays of
``cacao-calibration --seed 1 --replays K`` with the same players.

    python benchmarks/replay_decomposition.py --games 300 --seed 1 --replays 16 \\
        --player nomodel:iterations=300
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from calibration_probes import _staged  # the sibling probe's cross-fitted temperature per third

from cacaoai.engine import Position
from cacaoai.lab import calibration as cal
from cacaoai.lab.pool import run_tasks
from cacaoai.search.results import SearchResult


def play(task: tuple[int, int, str, str, str, int, int]) -> list[tuple[float, ...]]:
    """One 2-player game: per evaluated position (game, progress, third, the
    evaluator's p, the players' replays' mean and variance, the replayer's,
    all for seat 0; seat 0's outcome)."""
    seed, game, player, replayer, evaluator, every, replays = task
    rows: list[list[float]] = []

    def visit(position: Position, ply: int, result: SearchResult, replay_seed: int) -> None:
        if result.win_probability is None:
            return
        own = cal.replay(position, player, replays, replay_seed)
        other = cal.replay(position, replayer, replays, replay_seed)
        rows.append([game, position.progress, ply, result.win_probability[0],
                     own["mean"][0], own["var"][0], other["mean"][0], other["var"][0]])

    final, decisions = cal.play_evaluated(2, seed, game, player, evaluator, every, False, visit)
    outcome = cal.win_shares(final)[0]
    return [tuple(r[:2]) + (cal.phase_of(int(r[2]), decisions),) + tuple(r[3:]) + (outcome,) for r in rows]


def report(rows: np.ndarray, replays: int) -> str:
    game, _, third, p, own, own_var, other, other_var, y = rows.T
    half = (np.unique(game, return_inverse=True)[1] % 2).astype(int)
    fitted = _staged(other, y, third, half)
    parts = {"all": np.ones(len(y), bool), **{name: third == k for k, name in
                                                enumerate(("first third", "middle third", "last third"))}}
    lines = [f"{len(np.unique(game))} games, {len(y)} positions, {replays} replays each; "
             "Brier skill over the base rate",
             f"  {'':<13} {'evaluator':>9} {'ceiling':>8} {'players':>8} {'replayer':>9} {'staged':>7} "
             f"{'its ceiling':>12}"]
    for name, m in parts.items():
        base = float(np.mean((y[m] - y[m].mean()) ** 2))
        briers = [np.mean((p[m] - y[m]) ** 2), np.mean(own_var[m]),
                  np.mean((own[m] - y[m]) ** 2) - np.mean(own_var[m]) / replays,
                  np.mean((other[m] - y[m]) ** 2) - np.mean(other_var[m]) / replays,
                  np.mean((fitted[m] - y[m]) ** 2) - np.mean(other_var[m]) / replays,
                  np.mean(other_var[m])]
        figures = [1.0 - b / base if base > 0 else float("nan") for b in briers]    # nan: one outcome only
        lines.append(f"  {name:<13} " + " ".join(f"{v:{w}.3f}" for v, w in zip(figures, (9, 8, 8, 9, 7, 12))))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player", default="mcts:iterations=300", help="both seats of the games")
    parser.add_argument("--replayer", default="mcts:iterations=300", help="both seats of the other replays")
    parser.add_argument("--evaluator", default="mcts:iterations=1500")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--replays", type=int, default=16)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    if args.replays < 2:
        parser.error("--replays: give 2 or more (their variance is the noise taken off)")
    tasks = [(args.seed, g, args.player, args.replayer, args.evaluator, args.every, args.replays)
             for g in range(args.games)]
    rows = [r for game in run_tasks(play, tasks, args.processes) for r in game]
    print(report(np.asarray(sorted(rows), dtype=np.float64), args.replays))
    return 0


if __name__ == "__main__":
    sys.exit(main())
