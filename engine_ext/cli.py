"""``cacao-engine``: random games, replay, legal actions, benchmark, demo; and
``add_version_option``, the ``--version`` every installed command shares.

Ctrl-C ends a command with one line and status 130; a reader that goes away
(``cacao-engine legal FILE | head -3``) ends it quietly with status 141, as
a program killed by SIGPIPE.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import textwrap
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

from . import core
from .errors import CacaoError, RecordError
from .position import Position, replay
from .seeds import derive_seed


def add_version_option(parser: argparse.ArgumentParser) -> None:
    """Gives a command ``--version``, which prints ``<command> <version>`` (the
    installed release of the package, from its metadata) and exits."""
    parser.add_argument("--version", action="version",
                        version=f"{parser.prog} {metadata.version('cacaoai')}",
                        help="print the command's name and the installed release, and exit")


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


BENCH_CHUNK = 10_000  # games a call into the core: Ctrl-C is seen between calls


def bench_games(players: int, games: int, seed: int) -> tuple[float, int]:
    """Seconds and actions of ``games`` random games, played in chunks so that
    a Ctrl-C stops a long run at once."""
    seconds, actions = 0.0, 0
    for index, start in enumerate(range(0, games, BENCH_CHUNK)):
        part_s, part_actions = core.bench_random_games(players, min(BENCH_CHUNK, games - start),
                                                       derive_seed(seed, index))
        seconds += part_s
        actions += part_actions
    return seconds, actions


def cmd_bench(args: argparse.Namespace) -> int:
    clone_ns = core.bench_clone(1_000_000) / 1_000_000 * 1e9
    if not args.json:
        print(f"{args.games:,} uniformly random games a player count, seed {args.seed}", flush=True)
    for players in (2, 3, 4):
        seconds, actions = bench_games(players, args.games, args.seed)
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


DESCRIPTION = "The Cacao rules engine on the command line: random games, replay, legal actions, " \
              "a benchmark, a demo."
EXAMPLES = """\
examples:
  cacao-engine random --players 2 --seed 7 > game.json   a random game's record
  cacao-engine replay game.json                          check it; print its result
  cacao-engine replay - < game.json                      the same, from standard input
  cacao-engine legal game.json --at 1                    the legal actions after 1 action
  cacao-engine demo --players 3 --seed 2                 a random game, move by move
  cacao-engine bench --games 20000 --json                random games per second

'cacao-engine COMMAND --help' explains a command's options.
"""
PLAYERS_HELP = "number of players, 2-4 (default 2)"


def _fill(text: str) -> str:
    """A paragraph wrapped for a terminal (the help keeps the examples' own lines)."""
    return textwrap.fill(text, 79)


def _command(sub: Any, name: str, summary: str, description: str,
             example: str) -> argparse.ArgumentParser:
    """A subcommand's parser: its line in the list, its description and an example."""
    return sub.add_parser(name, help=summary, description=_fill(description),
                          epilog=f"example: {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cacao-engine", description=_fill(DESCRIPTION),
                                     epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = _command(sub, "random", "print one uniformly random game as a cacao-record/1",
                 "Plays one game choosing uniformly among the legal actions at every decision "
                 "and prints its record (cacao-record/1) as one line of JSON.",
                 "cacao-engine random --players 3 --seed 7 > game.json")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help=PLAYERS_HELP)
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the deal and of the random choices: the same seed gives the "
                        "same game (default 1)")
    p.set_defaults(run=cmd_random)
    p = _command(sub, "replay", "validate a record (FILE or - for stdin) and print its result",
                 "Replays a record and prints its result as JSON ({gold, cacao, winners}, or "
                 "{over: false, actions} for an unfinished game); for a bad record, the index and "
                 "reason of the first problem, with status 1.",
                 "cacao-engine replay game.json")
    p.add_argument("file", metavar="FILE", help="the record (cacao-record/1); - reads standard input")
    p.set_defaults(run=cmd_replay)
    p = _command(sub, "legal", "print the legal actions after the first K actions of a record",
                 "Replays the first K actions of a record and prints the legal actions of the "
                 "seat to act then, one JSON object a line.",
                 "cacao-engine legal game.json --at 0 | head -3")
    p.add_argument("file", metavar="FILE", help="the record (cacao-record/1); - reads standard input")
    p.add_argument("--at", type=int, required=True, metavar="K",
                   help="how many of the record's actions to replay first (0: the deal)")
    p.set_defaults(run=cmd_legal)
    p = _command(sub, "bench", "uniformly random games per second on one core",
                 "Plays uniformly random games for 2, 3 and 4 players on one core and prints "
                 "games per second, actions per game, time per action and the position's size; "
                 "then the time to copy a position.",
                 "cacao-engine bench --games 20000")
    p.add_argument("--games", type=int, default=100_000,
                   help="games per player count (default 100000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per player count instead of text (no clone time)")
    p.set_defaults(run=cmd_bench)
    p = _command(sub, "demo", "print a random game move by move with the final scores",
                 "Plays a random game and prints each action with what it gained, then each "
                 "seat's final gold and cacao and the winners.",
                 "cacao-engine demo --players 2 --seed 7 | tail -3")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help=PLAYERS_HELP)
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the deal and of the random choices (default 1)")
    p.set_defaults(run=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``cacao-engine``; its exit status (130 after Ctrl-C, 141 when the
    reader of the output went away)."""
    return _quietly(lambda: _main(argv))


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except CacaoError as exc:
        print(f"cacao-engine: {exc}", file=sys.stderr)
        return 2


def _quietly(run: Callable[[], int]) -> int:
    """``run()``, with Ctrl-C and a closed output ending it without a traceback."""
    try:
        return run()
    except KeyboardInterrupt:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")  # erase the ^C the terminal echoed
        sys.stderr.write("cacao-engine: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away: no more output, and none at exit either (the
        # final flush of stdout would fail again)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141


if __name__ == "__main__":
    sys.exit(main())
