"""Embedding the Cacao AI in a front end: the game stays here, the service decides.

    python clients/examples/embed.py --server 127.0.0.1:50051
    python clients/examples/embed.py --players 3 --level strong --seed 7

This is the whole pattern a real front end (a web game, a desktop app, a
bot for a chat server) follows, as a small runnable program:

1. The front end owns the *true game*: the complete position, including what
   no single player may see (the order of every draw pile and of the jungle
   deck, every hand). Here that is an engine ``Position``; a front end in
   another language keeps the same facts in the ``cacao-position/1`` form.
2. When it is an AI seat's turn, the front end sends the service only that
   seat's *observation* (``Position.observation(seat)``): the public board and
   counts plus that seat's own hand. The service fills in the unknown parts by
   sampling (determinization), so its answer cannot depend on hidden facts,
   and the front end never has to trust it with them.
3. The service answers with an action in the record format's form
   (docs/record-format.md); the front end applies it to the true game
   itself, draws, and shows the result.

The people at the front end are played here by a simple local policy (the
first legal action), so that the example runs unattended; replace
``choose_for_person`` with your user interface.

Run a server first (``cacao-server``), or let this script start one in its
own process with ``--local``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

# The client library: one class for the connection, small typed results, and
# one exception type carrying the gRPC status code and the server's message.
from cacaoai.client import CacaoClient, CacaoClientError, Limit, add_connection_flags, connection_settings
from cacaoai.client.local import LocalServer

# The rules engine: the front end's own copy of the game.
from cacaoai.engine import Action, Position, derive_seed


def choose_for_person(game: Position) -> Action:
    """A person's decision. A real front end asks its user here.

    ``game.legal_actions()`` lists every legal action in the record format's
    canonical form, so a user interface can offer exactly these and never
    send an illegal one.
    """
    return game.legal_actions()[0]


def ask_ai(client: CacaoClient, game: Position, strength: Limit | str | None,
           seed: int) -> Action:
    """The AI's decision for the seat that acts now, from that seat's view only.

    ``game.to_act`` is the seat that decides now: the mover placing a tile, or,
    after a placement activated several players' workers, a seat choosing the
    result of its activations (``phase == "resolve"``); it may be an AI seat
    during a person's turn.
    """
    seat = game.to_act
    assert seat is not None

    # What this seat knows: the public board, display and counts, and its own
    # hand. Hidden: the deck order, every draw pile, the other hands.
    observation = game.observation(seat)
    assert "jungle_deck" not in observation
    assert all("pile" not in s for s in observation["seats"])

    # SuggestAction: searches the observation within the budget (a named level
    # such as "strong", or a Limit: iterations / time per move) and returns the chosen
    # action plus the evaluation behind it. The deadline (``timeout``) bounds
    # the wait; the server fits its search into it. A seeded search with an
    # iteration budget is repeatable.
    suggestion = client.suggest(observation, strength, seed=seed, timeout=60.0)

    # ``suggestion.action`` is an engine Action (the record format's form);
    # ``suggestion.evaluation`` holds the win chances and the candidates.
    return suggestion.action


def play(client: CacaoClient, players: int, ai_seats: set[int],
         strength: Limit | str | None, seed: int) -> Position:
    """Plays one game; the seats in ``ai_seats`` are played by the service."""
    # The deal. Here the front end deals locally with the engine; it could as
    # well ask the service (``client.new_game(players, seed).record``) and
    # replay that record with ``Position.from_record``.
    game = Position.new(players=players, seed=seed)

    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        if seat in ai_seats:
            action = ask_ai(client, game, strength, seed=derive_seed(seed, len(game.history)))
            who = f"AI seat {seat}"
        else:
            action = choose_for_person(game)
            who = f"person at seat {seat}"

        # The front end applies every action to its true game: the engine
        # checks legality (IllegalActionError says why), fills the jungle,
        # draws the blind tiles and refills the display. The report says what
        # happened, for the screen.
        report = game.apply(action)
        gained = {s: g for s, g in enumerate(report.gains) if any(g.values())}
        print(f"{who}: {action}  {gained if gained else ''}".rstrip())
    return game


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port of a cacao-server")
    parser.add_argument("--local", action="store_true",
                        help="start a server in its own process on a free port")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--level", help="AI level (default: the server's default level)")
    parser.add_argument("--iterations", type=int, help="AI iterations per move instead of a level")
    parser.add_argument("--seed", type=int, default=1)
    add_connection_flags(parser)  # --tls, --tls-ca, --tls-cert, --tls-key, --token-file
    args = parser.parse_args(argv)
    # A budget is a level's name, or a Limit (iterations, time_s, threads);
    # None is the server's default level.
    if args.level and args.iterations:
        parser.error("give --level or --iterations, not both")
    strength = Limit(iterations=args.iterations) if args.iterations else args.level

    server = None
    target = args.server
    security = {}  # TLS and token settings, for a remote server only
    if not args.local:
        security = connection_settings(args)
    else:
        # A cacao-server in its own process on a free port; its address once it serves.
        server = LocalServer()
        target = server.address

    # The client is a context manager: leaving the block closes the channel.
    # Quick calls get ``timeout`` seconds; a call that finds no server
    # (UNAVAILABLE) is retried ``retries`` times with exponential backoff
    # before CacaoClientError is raised.
    try:
        with CacaoClient(target, timeout=10.0, retries=3, backoff=0.2, **security) as client:
            info = client.get_server_info()
            print(f"server {info.server_version} ({info.instance}), API {info.api_version}, "
                  f"levels: {', '.join(info.levels)}")

            # Seat 0 is the person, every other seat is the AI.
            game = play(client, args.players, set(range(1, args.players)), strength, args.seed)

            # The finished game as a cacao-record/1: portable, replayable
            # anywhere. ValidateRecord replays it on the service as a check.
            record = game.record()
            check = client.validate_record(record)
            print(f"result: {record['result']}; the service replays the record: "
                  f"{'valid' if check.valid else 'INVALID: ' + check.error_message}")
            return 0 if check.valid else 1
    except CacaoClientError as error:
        # error.code is the grpc.StatusCode; error.message the server's words;
        # error.field_violations the request fields it named.
        print(f"the service failed: {error}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
