"""``cacao-engine``: random games, replay, legal actions, benchmark, demo."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

from . import core
from .errors import CacaoError, RecordError
from .position import Position, replay


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def random_game(players: int, seed: int) -> Position:
    """A game played uniformly at random over the legal actions at every decision.

    The seed deals the game and then chooses the actions."""
    position = Position.new(players, seed)
    rng = random.Random(seed)
    while not position.is_over:
        codes = position.legal_codes()
        position.apply(codes[rng.randrange(len(codes))])
    return position


def cmd_random(args: argparse.Namespace) -> int:
    print(json.dumps(random_game(args.players, args.seed).record()))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        position = replay(_read(args.file))
    except RecordError as exc:
        print(json.dumps({"index": exc.index, "error": exc.reason}))
        return 1
    except OSError as exc:
        print(json.dumps({"index": -1, "error": f"cannot read {args.file}: {exc.strerror}"}))
        return 1
    result = position.result()
    print(json.dumps(result.to_json() if result else {"over": False, "actions": len(position.history)}))
    return 0


def cmd_legal(args: argparse.Namespace) -> int:
    try:
        position = replay(_read(args.file), upto=args.at)
    except RecordError as exc:
        print(json.dumps({"index": exc.index, "error": exc.reason}), file=sys.stderr)
        return 1
    for action in position.legal_actions():
        print(json.dumps(action.to_json()))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    clone_ns = core.bench_clone(1_000_000) / 1_000_000 * 1e9
    for players in (2, 3, 4):
        seconds, actions = core.bench_random_games(players, args.games, args.seed)
        row = {"players": players, "games_per_second": round(args.games / seconds),
               "actions_per_game": round(actions / args.games, 2),
               "position_bytes": core.position_bytes()}
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{players} players: {row['games_per_second']:>8,} random games/s on one core, "
                  f"{row['actions_per_game']:.1f} actions/game, "
                  f"{1e9 * seconds / actions:.0f} ns/action, position {row['position_bytes']} bytes")
    if not args.json:
        print(f"clone: {clone_ns:.0f} ns")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Print a random game move by move, with the final scores."""
    position = Position.new(args.players, args.seed)
    rng = random.Random(args.seed)
    print(f"Cacao, {args.players} players, seed {args.seed}; seat {position.first_player} starts")
    while not position.is_over:
        actions = position.legal_actions()
        report = position.apply(actions[rng.randrange(len(actions))])
        line = str(report.action)
        gains = [f"seat {s}: " + ", ".join(f"{v:+d} {k}" for k, v in g.items() if v)
                 for s, g in enumerate(report.gains) if any(g.values())]
        print(f"{len(position.history):3d}. {line}" + (f"   [{'; '.join(gains)}]" if gains else ""))
    result = position.result()
    assert result is not None
    for s in range(position.players):
        print(f"seat {s}: {result.gold[s]} gold, {result.cacao[s]} cacao")
    print("winner" + ("s" if len(result.winners) > 1 else "") + ": " + ", ".join(f"seat {s}" for s in result.winners))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cacao-engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("random", help="print one uniformly random game as a cacao-record/1")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=cmd_random)
    p = sub.add_parser("replay", help="validate a record (FILE or - for stdin) and print its result")
    p.add_argument("file")
    p.set_defaults(run=cmd_replay)
    p = sub.add_parser("legal", help="print the legal actions after the first K actions of a record")
    p.add_argument("file")
    p.add_argument("--at", type=int, required=True)
    p.set_defaults(run=cmd_legal)
    p = sub.add_parser("bench", help="uniformly random games per second on one core")
    p.add_argument("--games", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="one JSON object per player count")
    p.set_defaults(run=cmd_bench)
    p = sub.add_parser("demo", help="print a random game move by move with the final scores")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(run=cmd_demo)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CacaoError as exc:
        print(f"cacao-engine: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
