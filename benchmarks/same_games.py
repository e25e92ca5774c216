#!/usr/bin/env python3
"""Two builds play the same: seeded random games, legal actions and searches.

A change that only makes the rules faster must leave every game as it was:
the same random draws in the same order, the same legal actions in the same
order, the same search answers for a seed and an iteration budget. This plays
--games seeded random games of 2, 3 and 4 players (every legal action list
along the way, the codes drawn and the final result), the core benchmark's own
games, informed playouts, and searches of 2 to 4 players by the learned
evaluation, informed and random playouts (and, from each position loaded
from its snapshot as the server loads a request's, an analysis of two
threads and three candidates), in this build and in each
--old-path build (a folder holding another build's cacaoai, as for
compare_builds.py), each in a child process, and compares the whole outputs.
Exit status 1 on any difference.

    python benchmarks/same_games.py --old-path /tmp/old-site [--games 2000] [--searches 12]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from typing import Any


def digest(values: Any) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


def play(games: int, searches: int) -> dict[str, Any]:
    """Everything this build does for the seeds, by part (digests, plus a
    few plain values that make a difference easy to read)."""
    from cacaoai.engine import Position, core
    from cacaoai.search import ANALYSIS, Limit, SearchSettings, search
    from cacaoai.search.request import Question

    out: dict[str, Any] = {}
    for players in (2, 3, 4):
        walks = []
        for g in range(games):
            seed = 1000 * players + g
            position = core.CorePosition.deal(players, seed)
            steps = []
            while position.phase != 2:
                legal = position.legal_codes()
                code = position.random_code(seed * 7919 + len(steps))
                assert code in legal and position.count_actions() == len(legal)
                steps.append((digest(legal), len(legal), code, position.to_act))
                position.apply_code(code)
            playout = core.CorePosition.deal(players, seed)
            codes = playout.playout(seed)
            walks.append({"steps": digest(steps), "result": position.result(),
                          "playout": digest(codes), "playout_result": playout.result(),
                          "score": position.score(), "temples": position.temples()})
        out[f"walks{players}"] = digest(walks)
        out[f"walks{players}_first"] = walks[0]
        seconds, actions = core.bench_random_games(players, 10 * games, 5)
        out[f"bench{players}_actions"] = actions
    answers = []
    for s in range(searches):
        players = 2 + s % 3
        position = Position.new(players, 50 + s)
        for ply in range(s * 3):                     # some later positions
            if position.is_over:
                break
            actions = position.legal_actions()
            position.apply(actions[(ply * 31 + s) % len(actions)])
        for settings in ({}, {"playout": "informed", "value": 0.0, "prior": "greedy", "puct": 0.0},
                         {"playout": "random", "value": 0.0, "prior": "greedy", "puct": 0.0}):
            result = search(position, Limit(iterations=300 + 50 * s), SearchSettings(**settings), seed=s)
            answer = result.to_json()
            for volatile in ("elapsed_s", "iterations_per_second"):
                answer.pop(volatile)
            answer.pop("settings", None)        # the request's echo, which older builds leave out
            answers.append(answer)
        loaded = Position.from_snapshot(position.snapshot())
        result = search(loaded, Limit(iterations=300, threads=2), ANALYSIS, seed=s, question=Question(multipv=3))
        answers.append({k: v for k, v in result.to_json().items()
                        if k not in ("elapsed_s", "iterations_per_second", "settings")})
    out["searches"] = digest(answers)
    out["search_first"] = answers[0]["best_action"], answers[0]["win_probability"]
    return out


def run_in(path: str | None, games: int, searches: int) -> dict[str, Any]:
    """play() in a child process importing the build in `path` (None: this one)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    text = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                           "--games", str(games), "--searches", str(searches)],
                          env=env, cwd="/", check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-path", action="append", default=[],
                        help="compare with the build in this folder (may be given more than once)")
    parser.add_argument("--games", type=int, default=2000, help="random games per player count")
    parser.add_argument("--searches", type=int, default=12, help="positions searched (4 searches each)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(play(args.games, args.searches)))
        return 0
    if not args.old_path:
        parser.error("--old-path: give the build to compare with")
    new = run_in(None, args.games, args.searches)
    differences = 0
    for path in args.old_path:
        old = run_in(path, args.games, args.searches)
        for key in sorted(set(new) | set(old)):
            if new.get(key) != old.get(key):
                differences += 1
                print(f"{path}: {key} differs: new {new.get(key)!r}, old {old.get(key)!r}")
    print(f"{3 * args.games} random games (every legal action list), {3 * 10 * args.games} benchmark "
          f"games, {4 * args.searches} searches: {differences} differences "
          f"against {len(args.old_path)} other build(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
