"""``cacao-play``: play Cacao in a terminal against 1-3 AI seats.

    cacao-play                              # 2 players, you against the server's default level
    cacao-play --players 4 --level strong   # three strong AI seats
    cacao-play --iterations 500             # AI budget per move: iterations ...
    cacao-play --time 2                     # ... or seconds
    cacao-play --ai beginner --ai 2s        # one strength per AI seat
    cacao-play --server 10.0.0.5:50051      # use a running server
    cacao-play --load game.json             # go on with a saved game

Without ``--server`` a server is started in its own process on a free local
port and stopped at the end. The true game is kept here, in an engine Position;
the server only ever receives the observation of the AI seat that decides
(its own hand, the public board and counts), so it cannot peek at your hand
or the order of the draw piles, exactly like any front end should use the API.

Type ``help`` at the prompt for the action notation and the commands.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from cacaoai.api import Limit, parse_strength
from cacaoai.engine import Action, CacaoError, Position, RecordError, Report, derive_seed, record_text

from . import board, notation
from .client import CacaoClient
from .connection import add_connection_flags, connection_settings
from .errors import CacaoClientError
from .local import LocalServer, StartError
from .text import evaluation_lines, strength_text

HELP = """\
Actions (the board marks with <x,y> the empty cells you may play):
  2101 3,4 r1        place tile 2101 at x=3, y=4, turned r1 (0-3 quarter turns clockwise)
  2101 3,4 1210      the same, giving the workers that face N, E, S, W
  2101 3,4           leave out what you like: the choices left are listed for you
  2101 3,4 r1 m3@-1,1  choose fills inline: put the display's market-3 on (-1,1)
                     (p1 p2 plantation, m2 m3 m4 market, g1 g2 gold mine, w water,
                      s sun, t temple)
  ob 3001 2,1 r2     overbuild your tile at (2,1) (needs an empty deck and display, 1 sun)
  discard 2101       only when nothing can be placed
  r 2                choose result 2 of your activations (when asked)
  7                  action 7 of the numbered list (see list)
Commands:
  list       the legal actions, numbered        board   draw the board again
  hint       the AI's evaluation and its top suggestions for you
  undo       take back your last decision (and the AI moves after it)
  save FILE  save the game (cacao-record/1)     load FILE  go on with a saved game
  help       this text                          quit      leave the game"""


@dataclass
class Settings:
    """How a session plays: who sits where, how strong the AI is, how things look."""

    human: int
    strengths: list[Limit | str | None]
    hint: Limit | str | None
    colour: bool
    seed: int | None


class Session:
    """One game at the keyboard: the true game, the prompt loop and the AI moves.

    Args:
        client: a connected CacaoClient.
        game: the true game (an engine Position made from a deal or a record).
        settings: seats, strengths and display options.
        read: reads one line after a prompt; returns None at end of input.
        out: where to write.
    """

    def __init__(self, client: CacaoClient, game: Position, settings: Settings,
                 read: Callable[[str], str | None], out: TextIO):
        self.client = client
        self.game = game
        self.settings = settings
        self.read = read
        self.out = out
        self.dirty = True
        self.pending: str | None = None

    # --- seats ---

    @property
    def human(self) -> int:
        return self.settings.human

    def strength(self, seat: int) -> Limit | str | None:
        """The AI strength of a seat (seats after the human share the list in order)."""
        ai_seats = [s for s in range(self.game.players) if s != self.human]
        index = ai_seats.index(seat)
        strengths = self.settings.strengths
        return strengths[min(index, len(strengths) - 1)]

    def names(self) -> list[str]:
        return ["you" if s == self.human else f"AI {s}" for s in range(self.game.players)]

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # --- the loop ---

    def run(self) -> int:
        """Plays until the person quits or input ends; returns the exit status."""
        self.intro()
        ended_shown = False
        while True:
            if self.game.is_over:
                if not ended_shown:
                    self.show_end()
                    ended_shown = True
                line = self.next_line("game over (save FILE, undo, load FILE, quit)> ")
                if line is None:
                    return 0
                if not self.command(line, over=True):
                    return 0
                ended_shown = not self.dirty  # undo or load: a new position
                continue
            seat = self.game.to_act
            assert seat is not None
            if seat != self.human:
                if not self.ai_move(seat):
                    return 1
                continue
            if self.dirty:
                self.show()
            prompt = "your choice> " if self.game.phase == "resolve" else "your move> "
            line = self.next_line(prompt)
            if line is None:
                self.say("\nEnd of input: leaving the game.")
                return 0
            if not self.command(line, over=False):
                return 0

    def next_line(self, prompt: str) -> str | None:
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        return self.read(prompt)

    def intro(self) -> None:
        names = self.names()
        seats = ", ".join(
            f"seat {s}: " + ("you" if s == self.human else f"AI ({strength_text(self.strength(s))})")
            for s in range(self.game.players))
        self.say(f"Cacao, {self.game.players} players. {seats}.")
        self.say(f"Seat {self.game.first_player} moves first. Type help for the notation.")
        self.say(board.legend(names, colour=self.settings.colour))

    # --- showing ---

    def show(self) -> None:
        """Draws the position as the person sees it (their observation)."""
        self.dirty = False
        view = self.game.observation(self.human)
        legal = self.game.legal_actions()
        open_cells = notation.place_cells(legal)
        self.say()
        self.say(board.draw_position(view, self.names(), open_cells, viewer=self.human,
                                     colour=self.settings.colour))
        if self.game.phase == "resolve":
            self.say("Choose the result of your activations (r N):")
            for i, a in enumerate(legal, 1):
                self.say(f"  {i}) {notation.resolve_text(a)}")
            return
        overbuilds = sorted({(a.x, a.y) for a in legal if a.type == "overbuild"})
        if overbuilds:
            cells = ", ".join(f"{x},{y}" for x, y in overbuilds)
            self.say(f"You may overbuild (1 sun): ob TILE X,Y rR on one of {cells}")
        if legal and all(a.type == "discard" for a in legal):
            self.say("No tile can be placed: discard one (discard TILE).")
        self.say(f"Turn {self.game.turn + 1}: your move (e.g. {notation.write(legal[0], legal)}).")

    def show_list(self) -> None:
        legal = self.game.legal_actions()
        view = self.game.observation(self.human)
        for i, a in enumerate(legal, 1):
            self.say(f"{i:>3}) {notation.describe(a, view, legal)}")

    def show_end(self) -> None:
        result = self.game.result()
        assert result is not None
        self.show_board_only()
        self.dirty = False
        self.say("Game over. Final scores (gold after temples, sun and water; cacao breaks ties):")
        names = self.names()
        seats = self.game.observation(self.human)["seats"]
        for s in range(self.game.players):
            mark = "  winner" if s in result.winners else ""
            scoring = result.gold[s] - seats[s]["gold"]
            self.say(f"  {names[s]:<6} {result.gold[s]:>3} gold ({seats[s]['gold']} in play "
                     f"{scoring:+d} from temples, sun and water), {result.cacao[s]} cacao{mark}")
        if self.human in result.winners:
            self.say("You win!" if len(result.winners) == 1 else "You share the win!")
        else:
            self.say("The AI wins.")

    def show_board_only(self) -> None:
        view = self.game.observation(self.human)
        self.say()
        self.say(board.draw_position(view, self.names(), (), viewer=self.human,
                                     colour=self.settings.colour))

    def announce(self, seat: int, report: Report, legal: Sequence[Action]) -> None:
        """One line for an applied action and what it gained."""
        a = report.action
        you = seat == self.human
        who = "You" if you else self.names()[seat]
        if a.type == "resolve":
            text = f"{who} {'take' if you else 'takes'} {notation.resolve_text(a)}"
        elif a.type == "discard":
            text = f"{who} {'discard' if you else 'discards'} {a.tile}"
        else:
            verb = ("place" if a.type == "place" else "overbuild with") + ("" if you else "s")
            verb = verb.replace("overbuild withs", "overbuilds with")
            text = f"{who} {verb} {a.tile} at {a.x},{a.y} r{a.rot}"
            for tile in report.placed:
                if tile["tile"] in notation.ABBREV and (tile["x"], tile["y"]) != (a.x, a.y):
                    source = "from the deck" if tile.get("blind") else "from the display"
                    text += f"; {tile['tile']} {source} to {tile['x']},{tile['y']}"
        gains = []
        names = self.names()
        for s, g in enumerate(report.gains):
            parts = [f"{v:+d} {k}" for k, v in g.items() if v]
            if parts:
                gains.append(f"{names[s]}: " + " ".join(parts))
        self.say(text + (" (" + "; ".join(gains) + ")" if gains else ""))

    # --- commands ---

    def command(self, line: str, over: bool) -> bool:
        """Acts on one line; False to leave."""
        words = line.strip().split(maxsplit=1)
        if not words:
            return True
        head = words[0].lower()
        rest = words[1].strip() if len(words) > 1 else ""
        if head in ("quit", "q", "exit"):
            self.say("Bye.")
            return False
        if head in ("help", "h", "?"):
            self.say(HELP)
        elif head in ("board", "b"):
            self.show() if not over else self.show_board_only()
        elif head == "save":
            self.save(rest)
        elif head == "load":
            self.load(rest)
        elif head in ("undo", "u"):
            self.undo()
        elif over:
            self.say("The game is over: save FILE, undo, load FILE or quit.")
        elif head in ("list", "l", "ls"):
            self.show_list()
        elif head == "hint":
            self.hint()
        else:
            self.play(line)
        return True

    def play(self, line: str) -> None:
        legal = self.game.legal_actions()
        view = self.game.observation(self.human)
        parsed = notation.parse(line, legal, view, self.human)
        if parsed.error:
            self.say(parsed.error)
            return
        action = parsed.action or self.choose(parsed, view, legal)
        if action is None:
            return
        report = self.game.apply(action)
        self.announce(self.human, report, legal)
        self.dirty = True

    def choose(self, parsed: notation.Parsed, view: dict[str, Any],
               legal: Sequence[Action]) -> Action | None:
        """Offers the actions that fit; a number picks one, anything else is a new command."""
        self.say(parsed.prompt or "Which one?")
        for i, a in enumerate(parsed.choices, 1):
            self.say(f"  {i}) {notation.describe(a, view, legal)}")
        line = self.read(f"1-{len(parsed.choices)}, or Enter to cancel> ")
        if line is None or not line.strip():
            return None
        text = line.strip()
        if text.isdigit() and 1 <= int(text) <= len(parsed.choices):
            return parsed.choices[int(text) - 1]
        self.pending = line
        return None

    def hint(self) -> None:
        legal = self.game.legal_actions()
        strength = self.settings.hint
        self.say(f"Asking the AI ({strength_text(strength)}) about your position...")
        try:
            s = self.client.suggest(self.game.observation(self.human), strength,
                                    seed=self.ai_seed(), max_candidates=5)
        except CacaoClientError as error:
            self.say(f"No hint: {error}")
            return
        lines = evaluation_lines(s.evaluation, self.names(),
                                 lambda a: notation.write(a, legal))
        self.say("\n".join(lines))
        self.say(f"Suggested: {notation.write(s.action, legal)}")

    def undo(self) -> None:
        record = self.game.record()
        mine = [i for i, a in enumerate(record["actions"]) if a["seat"] == self.human]
        if not mine:
            self.say("Nothing to undo: you have not decided anything yet.")
            return
        back = len(record["actions"]) - mine[-1]
        record.pop("result", None)
        self.game = Position.from_record(record, upto=mine[-1])
        self.say(f"Took back {back} action{'s' if back != 1 else ''}: your last decision "
                 "and what followed.")
        self.dirty = True

    def save(self, path: str) -> None:
        if not path:
            self.say("Save where? Type save FILE.")
            return
        try:
            with open(os.path.expanduser(path), "w", encoding="utf-8") as f:
                f.write(record_text(self.game.record()))
        except OSError as error:
            self.say(f"Could not save to {path}: {error.strerror or error}")
            return
        self.say(f"Saved {len(self.game.history)} actions to {path} (cacao-record/1).")

    def load(self, path: str) -> None:
        if not path:
            self.say("Load what? Type load FILE.")
            return
        try:
            game = load_game(path)
        except (OSError, CacaoError) as error:
            self.say(str(error))
            return
        if self.human >= game.players:
            self.settings.human = 0
        self.game = game
        self.say(f"Loaded {path}: {game.players} players, {len(game.history)} actions, you are "
                 f"seat {self.human}.")
        self.dirty = True

    # --- the AI ---

    def ai_seed(self) -> int | None:
        """A search seed that makes a seeded game repeatable (None: random)."""
        seed = self.settings.seed
        if seed is None:
            return None
        return derive_seed(seed, len(self.game.history))

    def ai_move(self, seat: int) -> bool:
        """Asks the server for ``seat``'s decision, sending only its observation."""
        legal = self.game.legal_actions()
        while True:
            try:
                s = self.client.suggest(self.game.observation(seat), self.strength(seat),
                                        seed=self.ai_seed())
                break
            except CacaoClientError as error:
                self.say(f"The AI (seat {seat}) could not move: {error}")
                line = self.read("Enter to try again, or save FILE, load FILE, undo, quit> ")
                if line is None:
                    return False
                if line.strip():
                    return self.command(line, over=True)
        report = self.game.apply(s.action)
        self.announce(seat, report, legal)
        self.dirty = True
        return True


# --- records -------------------------------------------------------------------

def load_game(path: str) -> Position:
    """The game of a saved record.

    Raises:
        OSError: the file cannot be read (the message names it).
        CacaoError: not a valid record (the message names the action at fault).
    """
    try:
        with open(os.path.expanduser(path), encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise OSError(f"Could not read {path}: {error.strerror or error}") from None
    try:
        return Position.from_record(text)
    except RecordError as error:
        where = "its header" if error.index < 0 else f"action {error.index}"
        raise CacaoError(f"{path} is not a valid game record ({where}: {error.reason})") from None
    except CacaoError as error:
        raise CacaoError(f"{path} is not a valid game record: {error}") from None


# --- command line ----------------------------------------------------------------

def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cacao-play", description="Play Cacao in a terminal against 1-3 AI seats.",
        epilog="At the prompt, type help for the action notation.")
    parser.add_argument("--players", type=int, choices=(2, 3, 4),
                        help="players, you included (default 2, or one more than --ai given)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    strength = parser.add_argument_group("AI strength (default: the server's default level)")
    strength.add_argument("--level", help="a named level (the server lists them at the start)")
    strength.add_argument("--iterations", type=int, help="search iterations per move")
    strength.add_argument("--time", type=float, help="search seconds per move")
    strength.add_argument("--threads", type=int, help="search threads")
    strength.add_argument("--ai", action="append", default=[], metavar="SPEC",
                          help="strength of the next AI seat: a level, iterations (500) or "
                               "time (2s); repeat for each AI seat")
    parser.add_argument("--hint", metavar="SPEC", help="strength of hints (default: the first AI's)")
    parser.add_argument("--seed", type=int, help="seed of the deal and of the AI (repeatable games)")
    parser.add_argument("--load", metavar="FILE", help="go on with a saved game (cacao-record/1)")
    parser.add_argument("--server", metavar="ADDR",
                        help="a running server (host:port); default: start one here")
    add_connection_flags(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="ANSI colours (default: when the output is a terminal)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds to wait for one AI move (default 120)")
    return parser.parse_args(argv)


def _strengths(args: argparse.Namespace) -> list[Limit | str | None]:
    """The strength of each AI seat: one a --ai, else --level or the limits.

    Raises:
        ValueError: a bad --ai text, a bad limit, or a level and limits both.
    """
    if args.ai:
        return [parse_strength(spec) for spec in args.ai]
    limits = (args.iterations, args.time, args.threads)
    if args.level and any(v is not None for v in limits):
        raise ValueError("give a level or limits (iterations, time, threads), not both")
    if any(v is not None for v in limits):
        return [Limit(args.iterations, args.time, args.threads)]
    return [args.level]


def _colour(choice: str, out: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return out.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def make_reader(inp: TextIO, out: TextIO) -> Callable[[str], str | None]:
    """Reads lines after a prompt; echoes them when the input is not a terminal."""
    interactive = inp.isatty()

    def read(prompt: str) -> str | None:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:
            return None
        if not interactive:
            out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\n")

    return read


def local_server() -> LocalServer:
    """A cacao-server in its own process on a free local port, for a session
    without --server: configured by its defaults alone (not the caller's
    CACAO_* variables), quick to stop, its log kept out of the game's output."""
    return LocalServer("--drain", "0", "--grace", "0", isolated=True)


def check_strengths(client: CacaoClient, strengths: list[Limit | str | None]) -> str | None:
    """A message if a strength names a level the server does not have.

    Strengths that name nothing become the server's default level, by name.
    """
    info = client.get_server_info()
    for i, s in enumerate(strengths):
        if s is None:
            strengths[i] = info.default_level
        elif isinstance(s, str) and s not in info.levels:
            return f"unknown level {s!r}: this server has {', '.join(info.levels)}"
    return None


def start_game(client: CacaoClient, args: argparse.Namespace, players: int) -> Position:
    """A new game dealt by the server (seeded with --seed), or the game of --load."""
    if args.load:
        return load_game(args.load)
    deal = client.new_game(players, args.seed)
    return Position.from_record(deal.record)


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None,
         out: TextIO | None = None) -> int:
    """Runs ``cacao-play``; returns the exit status."""
    args = parse_args(argv)
    inp = inp or sys.stdin
    out = out or sys.stdout
    try:
        strengths = _strengths(args)
        hint = parse_strength(args.hint) if args.hint else strengths[0]
        args.connection = connection_settings(args) if args.server else {}
    except ValueError as error:
        print(f"cacao-play: {error}", file=sys.stderr)
        return 2
    players = args.players or (len(args.ai) + 1 if args.ai else 2)
    if not 0 <= args.seat < players:
        print(f"cacao-play: --seat must be 0..{players - 1}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(31)
    args.seed = seed
    try:
        if args.server:
            return _play(args.server, args, players, strengths, hint, inp, out)
        with local_server() as local:
            print(f"Started a local Cacao server on {local.address}.", file=out)
            return _play(local.address, args, players, strengths, hint, inp, out)
    except StartError as error:
        print(f"cacao-play: no local server: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted.", file=out)
        return 130


def _play(target: str, args: argparse.Namespace, players: int,
          strengths: list[Limit | str | None], hint: Limit | str | None, inp: TextIO,
          out: TextIO) -> int:
    with CacaoClient(target, search_timeout=args.timeout, **args.connection) as client:
        try:
            every = [*strengths, hint]
            problem = check_strengths(client, every)
            if problem:
                print(f"cacao-play: {problem}", file=sys.stderr)
                return 2
            strengths, hint = every[:-1], every[-1]
            game = start_game(client, args, players)
        except CacaoClientError as error:
            print(f"cacao-play: {error}", file=sys.stderr)
            return 1
        except (OSError, CacaoError) as error:
            print(f"cacao-play: {error}", file=sys.stderr)
            return 1
        human = args.seat if args.seat < game.players else 0
        settings = Settings(human, strengths, hint, _colour(args.color, out), args.seed)
        print(f"Game seed {args.seed} (play this deal again with --seed {args.seed}).", file=out)
        return Session(client, game, settings, make_reader(inp, out), out).run()


if __name__ == "__main__":
    sys.exit(main())
