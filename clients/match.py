"""``cacao-match``: AI-vs-AI games through a Cacao server.

    cacao-match --strength beginner --strength strong --games 10 --out games/
    cacao-match --players 3 --strength 200 --strength 1000 --strength 2s --rotate
    cacao-match --server 10.0.0.5:50051 --strength casual --strength strong --parallel 2

Each ``--strength`` is one player (a level, iterations such as ``500``, or
time per move such as ``2s``); player i sits in seat i, or, with
``--rotate``, players move round the table from game to game so that each
plays every seat. Every game runs wholly through the API: NewGame deals it,
SuggestAction chooses each decision from the record so far (the search sees
only what the seat to act may see), ApplyAction plays it, and ValidateRecord
checks the finished record. Records go to ``--out`` as ``game-NNN.json``.

Without ``--server`` a server is started in its own process on a free port.
Ctrl-C stops the match (the searches in flight are cancelled) with one line
and status 130.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO, TypeAlias

from cacaoai.api import LEVEL_NAMES, Limit, parse_strength
from cacaoai.engine import derive_seed, record_text
from cacaoai.engine.cli import add_version_option

from .board import seat_name
from .client import CacaoClient
from .connection import add_connection_flags, connection_settings
from .console import run_command, shielded
from .errors import CacaoClientError
from .local import StartError
from .play import local_server, unknown_level
from .text import strength_text

#: A player's strength: a Limit, a level name, or None (the server's default level).
Player: TypeAlias = Limit | str | None

# A search refused while every slot of the server is busy is retried by gRPC
# (CacaoClient's retry service config), with jitter: up to 4 retries waiting at
# most 1, 2, 4 and 8 s.
BUSY_RETRIES, BUSY_BACKOFF_S, BUSY_MAX_BACKOFF_S = 4, 1.0, 8.0


@dataclass
class GameOutcome:
    """One finished game: who sat where and how it ended."""

    number: int
    seed: int
    seats: list[int]  # player index per seat
    record: dict[str, Any]
    path: str | None
    valid: bool


def play_game(client: CacaoClient, players: Sequence[Player], seats: list[int], seed: int,
              number: int) -> dict[str, Any]:
    """Plays one game through the API; returns its finished record.

    Args:
        client: a connected client.
        players: the strengths of the players.
        seats: the player index of each seat.
        seed: seed of the deal and of every search.
        number: the game's number (for the search seeds).

    Raises:
        CacaoClientError: a call failed (a busy server is retried by the client's
            channel, up to its retry budget).
    """
    deal = client.new_game(len(seats), seed)
    record = deal.record
    position = deal.position
    while position["phase"] != "over":
        seat = position["to_act"]
        search_seed = derive_seed(seed, len(record["actions"]))
        suggestion = client.suggest(record, players[seats[seat]], seed=search_seed)
        applied = client.apply_action(record, suggestion.action)
        assert applied.record is not None
        record, position = applied.record, applied.position
    return record


def seating(players: int, seat_count: int, game: int, rotate: bool) -> list[int]:
    """The player index of each seat in game ``game`` (0-based)."""
    shift = game if rotate else 0
    return [(s + shift) % players for s in range(seat_count)]


def summary_lines(outcomes: Sequence[GameOutcome], players: Sequence[Player]) -> list[str]:
    """A table: per player, games, wins (shared wins split) and mean final gold."""
    wins = [0.0] * len(players)
    gold = [0.0] * len(players)
    games = [0] * len(players)
    for o in outcomes:
        result = o.record["result"]
        for seat, player in enumerate(o.seats):
            games[player] += 1
            gold[player] += result["gold"][seat]
            if seat in result["winners"]:
                wins[player] += 1 / len(result["winners"])
    lines = [f"Results over {len(outcomes)} games:",
             f"  {'player':<28} {'games':>5} {'wins':>6} {'win %':>6} {'mean gold':>9}"]
    for p, strength in enumerate(players):
        if games[p]:
            lines.append(f"  {p} {strength_text(strength):<26} {games[p]:>5} {wins[p]:>6.1f} "
                         f"{100 * wins[p] / games[p]:>5.0f}% {gold[p] / games[p]:>9.1f}")
    return lines


def game_line(o: GameOutcome, players: Sequence[Player]) -> str:
    result = o.record["result"]
    seats = ", ".join(f"{seat_name(s)}: {strength_text(players[p])} {result['gold'][s]} gold"
                      for s, p in enumerate(o.seats))
    winners = " and ".join(seat_name(w) for w in result["winners"])
    where = f" -> {o.path}" if o.path else ""
    check = "" if o.valid else " (RECORD DID NOT VALIDATE)"
    return (f"game {o.number}: {len(o.record['actions'])} actions; {seats}; "
            f"won by {winners}{check}{where}")


def run_match(client: CacaoClient, players: Sequence[Player], *, games: int, seat_count: int,
              seed: int, rotate: bool, out_dir: str | None, parallel: int,
              out: TextIO) -> list[GameOutcome]:
    """Plays the games (``parallel`` at once), writes the records, prints a line per game."""
    lock = threading.Lock()
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)

    def one(g: int) -> GameOutcome:
        seats = seating(len(players), seat_count, g, rotate)
        game_seed = derive_seed(seed, g)
        record = play_game(client, players, seats, game_seed, g + 1)
        path = None
        if out_dir:
            path = os.path.join(out_dir, f"game-{g + 1:03d}.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(record_text(record))
        valid = client.validate_record(record).valid
        outcome = GameOutcome(g + 1, game_seed, seats, record, path, valid)
        with lock:
            print(game_line(outcome, players), file=out, flush=True)
        return outcome

    pool = ThreadPoolExecutor(max_workers=max(1, parallel))
    try:
        return list(pool.map(one, range(games)))
    finally:
        # after Ctrl-C or a failed game: no game starts any more, and the
        # games in flight end with the client's channel (closed by the caller)
        pool.shutdown(wait=False, cancel_futures=True)


EXAMPLES = """\
examples:
  cacao-match                                     beginner against strong, 2 games
  cacao-match -s casual -s strong -n 20 --rotate  20 games, seats swapped every game
  cacao-match -s 200 -s 1000 -s 2s --out games/   3 players, records in games/
  cacao-match -s strong -s max --parallel 2 --server 10.0.0.5:50051

Prints a line per game and a table per player: games, wins (a shared win
counts as a fraction), win rate and mean final gold. Exits 1 if a call
failed or a record did not validate, 130 after Ctrl-C.
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cacao-match", description="Play AI-vs-AI games of Cacao through a server.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("--strength", "-s", action="append", default=[], metavar="SPEC",
                        help="one player: a level (strong), iterations (500) or time a move "
                             "(2s); give it 2-4 times, one per player (default: beginner and "
                             "strong)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4),
                        help="seats per game (default: the number of --strength); with more "
                             "seats than players, the players take the seats in turn")
    parser.add_argument("--games", "-n", type=int, default=2, help="games to play (default 2)")
    parser.add_argument("--rotate", action="store_true",
                        help="move the players one seat on after each game, so that each "
                             "plays every seat (default: player i always sits in seat i)")
    parser.add_argument("--seed", type=int,
                        help="seed of the match: each game's deal and searches derive from it "
                             "(default: a random one, printed at the start)")
    parser.add_argument("--out", metavar="DIR",
                        help="folder for the records, game-001.json ... (default: none written)")
    parser.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="games played at once (default 1; the server's search slots "
                             "bound what helps)")
    parser.add_argument("--server", metavar="ADDR",
                        help="a running server (host:port); default: start one on a free local "
                             "port for the match")
    add_connection_flags(parser)
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="most seconds to wait for one AI move (default 300)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Runs ``cacao-match``; returns the exit status (1 if a call failed or a
    record did not validate, 130 after Ctrl-C)."""
    return run_command("cacao-match", lambda: _main(argv, out or sys.stdout))


def _main(argv: Sequence[str] | None, out: TextIO) -> int:
    args = parse_args(argv)
    try:
        players = [parse_strength(s) for s in (args.strength or ["beginner", "strong"])]
        args.connection = connection_settings(args) if args.server else {}
    except ValueError as error:
        print(f"cacao-match: {error}", file=sys.stderr)
        return 2
    seat_count = args.players or max(2, min(4, len(players)))
    if not 2 <= len(players) <= 4 and not args.players:
        print("cacao-match: give 2 to 4 --strength, or --players", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(31)
    if args.server:
        return _run(args.server, args, players, seat_count, seed, out)
    unknown = unknown_level(players, LEVEL_NAMES)  # a local server has this package's levels
    if unknown is not None:
        print(f"cacao-match: unknown level {unknown!r}: the levels are {', '.join(LEVEL_NAMES)}",
              file=sys.stderr)
        return 2
    try:
        with local_server() as local:
            print(f"Started a local Cacao server on {local.address}.", file=out, flush=True)
            return _run(local.address, args, players, seat_count, seed, out)
    except StartError as error:
        print(f"cacao-match: no local server: {error}", file=sys.stderr)
        return 1


def _run(target: str, args: argparse.Namespace, players: list[Player], seat_count: int,
         seed: int, out: TextIO) -> int:
    client = CacaoClient(target, search_timeout=args.timeout, retries=BUSY_RETRIES,
                         backoff=BUSY_BACKOFF_S, max_backoff=BUSY_MAX_BACKOFF_S, **args.connection)
    try:
        with shielded():
            info = client.get_server_info()
        unknown = unknown_level(players, info.levels)
        if unknown is not None:
            print(f"cacao-match: unknown level {unknown!r}: this server has "
                  f"{', '.join(info.levels)}", file=sys.stderr)
            return 2
        print(f"{args.games} games, {seat_count} seats, seed {seed}; players: "
              + ", ".join(f"{i} {strength_text(p)}" for i, p in enumerate(players)), file=out,
              flush=True)
        outcomes = run_match(client, players, games=args.games, seat_count=seat_count,
                             seed=seed, rotate=args.rotate, out_dir=args.out,
                             parallel=args.parallel, out=out)
    except CacaoClientError as error:
        print(f"cacao-match: {error}", file=sys.stderr)
        return 1
    finally:
        with shielded():  # cancels the calls in flight, and waits for them to end
            client.close()
    print("\n".join(summary_lines(outcomes, players)), file=out)
    return 0 if all(o.valid for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
