#!/usr/bin/env python3
"""Which reading of a search predicts a 2-player game's outcome best?

cacao-calibration scores what the search reports: the root's mean win share.
This probe scores, on the same positions, the readings one might use
instead, so a change to how the service predicts can be judged first:

- ``tree``: the root's mean win share (what the search reports, raw);
- ``best``: the mean win share of the most visited root action;
- ``network``: the value network alone, on the seat's view (no search);
- ``blend w``: tree and network mixed in logit space, w of the tree.

Besides the reading alone, two logistic maps per third of the game read
more of what the search gives: ``+ to act`` adds whether seat 0 is the seat
to act (the tree favours the seat it searches for), ``+ lead`` also the
root's mean score lead of seat 0 (in 20 gold). If the lead held what the
win share misses, the second would score above the first.

Games are played as cacao-calibration plays them (``--player`` at both
seats; every 4th decision evaluated by ``--evaluator`` from the view of the
seat to act; game g dealt from ``derive_seed(seed, g)``), so with iteration
budgets a seed gives the same figures. Each reading is scored raw, and with a
temperature per third of the game's progress fitted on half of the games and
scored on the other half (and the other way round): the Brier skill over the
base rate, overall and (the staged column) per third of the game's decisions.
The logistic maps are fitted the same way, half against half.

    python benchmarks/calibration_probes.py --games 600 --seed 11 \\
        --player nomodel:iterations=300
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from cacaoai.engine import Position
from cacaoai.lab import calibration as cal
from cacaoai.lab.pool import run_tasks
from cacaoai.search import calibration_map as cm
from cacaoai.search.bots import MCTSBot, parse_bot
from cacaoai.search.model import load_model
from cacaoai.search.results import SearchResult

BLENDS = (0.8, 0.6)


def play(task: tuple[int, int, str, str, int]) -> list[tuple[float, ...]]:
    """One game: per evaluated position (game, progress, share of the game's
    decisions, tree, best, network: seat 0's probabilities; 1 if seat 0 is to
    act, else -1; seat 0's score lead / 20; seat 0's outcome)."""
    seed, game, player, evaluator, every = task
    judge = parse_bot(evaluator)
    assert isinstance(judge, MCTSBot), "the evaluator must be a search"
    model = load_model(judge.settings.model)
    rows: list[list[float]] = []

    def visit(position: Position, ply: int, result: SearchResult, _: int) -> None:
        if result.win_probability is None or not result.candidates:
            return
        seat = position.to_act
        assert seat is not None
        best = max(result.candidates, key=lambda c: c.visits).win_probability
        network = model.handle.value(position.core, seat)[0]
        rows.append([game, position.progress, ply, result.win_probability[0],
                     best if seat == 0 else 1.0 - best, network[0], 1.0 if seat == 0 else -1.0,
                     result.score_lead[0] / 20.0])

    final, decisions = cal.play_evaluated(2, seed, game, player, evaluator, every, True, visit)
    share = cal.win_shares(final)[0]
    return [tuple(r[:2]) + (r[2] / decisions,) + tuple(r[3:]) + (share,) for r in rows]


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def _skill(p: np.ndarray, y: np.ndarray, base: float) -> float:
    return 1.0 - float(np.mean((p - y) ** 2)) / float(np.mean((base - y) ** 2))


def _pair(q: np.ndarray) -> np.ndarray:
    return np.stack([q, 1 - q], axis=1)


def _staged(p: np.ndarray, y: np.ndarray, stage: np.ndarray, half: np.ndarray) -> np.ndarray:
    """p corrected by a temperature per stage, fitted on the other half of the games."""
    out = np.empty_like(p)
    for h in (0, 1):
        for s in range(3):
            fit, use = (half != h) & (stage == s), (half == h) & (stage == s)
            if use.any():
                t = cm.fit_temperature(_pair(p[fit]), _pair(y[fit]))
                out[use] = cm.apply_entry({"kind": "temperature", "t": t}, _pair(p[use]))[:, 0]
    return out


def _logistic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Weights of a logistic regression of y (in [0, 1]) on x (with a constant
    column), by Newton's method on the log loss (a little ridge keeps it finite)."""
    w = np.zeros(x.shape[1])
    for _ in range(30):
        q = 1 / (1 + np.exp(-(x @ w)))
        hessian = x.T @ (x * (q * (1 - q))[:, None]) + 1e-6 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, x.T @ (q - y))
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def _stacked(columns: list[np.ndarray], y: np.ndarray, stage: np.ndarray, half: np.ndarray) -> np.ndarray:
    """A logistic map per stage on these columns, fitted on the other half of the games."""
    x = np.column_stack(columns + [np.ones_like(y)])
    out = np.empty_like(y)
    for h in (0, 1):
        for s in range(3):
            fit, use = (half != h) & (stage == s), (half == h) & (stage == s)
            if use.any():
                out[use] = 1 / (1 + np.exp(-(x[use] @ _logistic(x[fit], y[fit]))))
    return out


def report(rows: np.ndarray) -> str:
    game, progress, share, tree, best, network, sign, lead, y = rows.T
    base = float(y.mean())
    readings = {"tree": tree, "best": best, "network": network}
    for w in BLENDS:
        readings[f"blend {w}"] = 1 / (1 + np.exp(-(w * _logit(tree) + (1 - w) * _logit(network))))
    stage = cm.stage_of(progress)
    half = (np.unique(game, return_inverse=True)[1] % 2).astype(int)
    third = np.minimum((share * 3).astype(int), 2)
    lines = [f"{len(np.unique(game))} games, {len(y)} positions; Brier skill (raw | a temperature per stage, "
             "fitted on the other half of the games)",
             f"  {'reading':<10} {'raw':>6} {'staged':>7} {'+ to act':>9} {'+ lead':>7}   "
             f"{'first':>6} {'middle':>7} {'last':>6}"]
    for name, p in readings.items():
        fitted = _staged(p, y, stage, half)
        to_act = _stacked([_logit(p), sign], y, stage, half)
        with_lead = _stacked([_logit(p), sign, lead], y, stage, half)
        thirds = [_skill(fitted[third == k], y[third == k], base) for k in range(3)]
        lines.append(f"  {name:<10} {_skill(p, y, base):6.3f} {_skill(fitted, y, base):7.3f} "
                     f"{_skill(to_act, y, base):9.3f} {_skill(with_lead, y, base):7.3f}   "
                     + " ".join(f"{v:6.3f}" for v in thirds))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player", default="mcts:iterations=300")
    parser.add_argument("--evaluator", default="mcts:iterations=1500")
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    tasks = [(args.seed, g, args.player, args.evaluator, args.every) for g in range(args.games)]
    rows = [r for game in run_tasks(play, tasks, args.processes) for r in game]
    print(report(np.asarray(sorted(rows), dtype=np.float64)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
