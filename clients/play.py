"""``cacao-play``: play Cacao in a terminal against 1-3 AI seats.

    cacao-play                              # 2 players, you against the server's default level
    cacao-play --players 4 --level strong   # three strong AI seats
    cacao-play --iterations 500             # AI budget per move: iterations ...
    cacao-play --time 2                     # ... or seconds
    cacao-play --ai beginner --ai 2s        # one strength per AI seat
    cacao-play --hint-level max             # hints from the strongest level
    cacao-play --server 10.0.0.5:50051      # use a running server
    cacao-play --load game.json             # go on with a saved game
    cacao-play --puzzles --theme water      # puzzles: find the best move (cacaoai.client.puzzles)

Without ``--server`` a server is started in its own process on a free local
port and stopped at the end. The true game is kept here, in an engine Position;
the server only ever receives the observation of the AI seat that decides
(its own hand, the public board and counts), so it cannot peek at your hand
or the order of the draw piles, exactly like any front end should use the API.

While the AI thinks, a line shows its search as it goes (iterations, time,
each seat's chance to win): rewritten in place on a terminal, a plain line
every few seconds of search otherwise. The AI plays the move its search ends
with.

With ``--puzzles`` it is a puzzle trainer instead (:mod:`.puzzles`): the
server draws positions where one action is clearly best (``--theme``,
``--rating``, ``--players`` filter them), shown from the seat's view as a
game's positions are; two tries each, then the solution and why; a streak
and a puzzle rating that follows each puzzle as Elo follows a game.

Type ``help`` at the prompt for the action notation and the commands.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from cacaoai.api import LEVEL_NAMES, Limit, action_text, parse_strength, sentence
from cacaoai.engine import Action, CacaoError, Position, RecordError, Report, derive_seed, record_text
from cacaoai.engine.cli import add_version_option

from . import board, notation, puzzles
from .client import CacaoClient
from .connection import add_connection_flags, connection_settings
from .console import StatusLine, run_command, shielded, thinking_text
from .errors import CacaoClientError
from .local import LocalServer, StartError
from .replies import Evaluation, ServerInfo
from .requests import Source
from .review import show_review
from .text import evaluation_lines, strength_text

#: The level of hints unless --hint-level says otherwise (the server's default
#: level when it has no such level).
DEFAULT_HINT_LEVEL = "strong"
#: Suggestions a hint lists (h1 ... h5).
HINT_CANDIDATES = 5
#: Seconds between two reports of a running search (the thinking line).
REPORT_INTERVAL_S = 0.2

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
  h2                 suggestion h2 of the last hint (see hint)
Commands:
  list        the legal actions, numbered 1, 2, 3 ... (a bare number plays from it)
  hint        the AI's evaluation of your position and its suggestions, numbered
              h1, h2 ... (type h1 to play the first)
  hint LEVEL  the same at another strength, this once: hint strong, hint 2s, hint 5000
  score       each seat's gold if the game ended now: gold, temples, sun, water, total
  board       draw the board again
  undo        take back your last decision (and the AI moves after it)
  save FILE   save the game (cacao-record/1)    load FILE  go on with a saved game
  review      at the end: every decision judged (best ... blunder) and each seat's accuracy
  help        this text                         quit       leave the game (or Ctrl-C)
While the AI thinks, a line shows its iterations and each seat's chance to win."""


@dataclass
class Settings:
    """How a session plays: who sits where, how strong the AI is, how things look."""

    human: int
    strengths: list[Limit | str | None]
    hint: Limit | str | None
    colour: bool
    seed: int | None
    levels: Sequence[str] = ()
    """The server's level names (to check ``hint LEVEL``); empty: not checked."""
    review: Limit | None = None
    """The budget of each decision of the review at the end (None: the server's)."""


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
        self.status = StatusLine(out)
        # the last hint's suggestions (h1, h2, ...) and the position they are for
        self.hints: tuple[str, list[Action]] | None = None

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
        """Each seat's name, its colour, as the board page and docs/rules.md name it."""
        return [board.seat_name(s) for s in range(self.game.players)]

    def seat_levels(self) -> list[str]:
        """Who plays each seat, as a search request names it (the win chances then assume
        those players): an AI seat's level, "" for the person and for an AI on limits."""
        return ["" if s == self.human or not isinstance(level := self.strength(s), str) else level
                for s in range(self.game.players)]

    def role(self, seat: int) -> str:
        return "you" if seat == self.human else "AI"

    def who(self, seat: int) -> str:
        """A seat's name and who plays it, as the board page's story writes them:
        "red (you)", "yellow (AI)"."""
        return f"{board.seat_name(seat)} ({self.role(seat)})"

    def seat_labels(self) -> list[str]:
        """Each seat's name and who plays it, for the seats' table."""
        return [self.who(s) for s in range(self.game.players)]

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
                line = self.next_line("game over (review, save FILE, undo, load FILE, quit)> ")
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
        players = range(self.game.players)
        seats = ", ".join(
            f"seat {s} {board.seat_name(s)} "
            + ("(you)" if s == self.human else f"(AI, {strength_text(self.strength(s))})") for s in players)
        self.say(f"Cacao, {self.game.players} players: {seats}.")
        self.say(f"{board.seat_name(self.game.first_player).capitalize()} moves first. "
                 f"Hints: {strength_text(self.settings.hint)}. Type help for the notation and the commands.")
        self.say(board.legend([self.role(s) for s in players], colour=self.settings.colour))

    # --- showing ---

    def show(self) -> None:
        """Draws the position as the person sees it (their observation)."""
        self.dirty = False
        view = self.game.observation(self.human)
        legal = self.game.legal_actions()
        open_cells = notation.place_cells(legal)
        self.say()
        self.say(board.draw_position(view, self.seat_labels(), open_cells, viewer=self.human,
                                     colour=self.settings.colour))
        for line in notation.offer_lines(legal):
            self.say(line)
        if self.game.phase != "resolve":
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
        self.say("Game over. Final scores (the most gold wins; cacao left breaks a tie):")
        self.say("\n".join(self.score_table(result.winners)))
        winners = " and ".join(self.who(s) for s in result.winners)
        self.say(f"{winners} {'wins' if len(result.winners) == 1 else 'share the win'}.")
        self.say("Type review to have every decision of the game judged: where it was won or lost, "
                 "and each seat's accuracy.")

    def review(self) -> None:
        """The game reviewed by the server, as a table (at the server's default budget)."""
        self.say("Reviewing the game (each decision searched as its seat saw it)...")
        try:
            show_review(self.client, self.game.record(), self.out, self.settings.review,
                        seed=self.settings.seed, names=self.names())
        except CacaoClientError as error:
            self.say(f"No review: {error}")

    def score_table(self, winners: Sequence[int] | None = None) -> list[str]:
        """Each seat's gold by part (gold, temples, sun, water, total) and cacao."""
        seats = self.game.observation(self.human)["seats"]
        return board.score_lines(self.game.scores(), self.names(), [s["cacao"] for s in seats],
                                 self.game.temples(), winners)

    def show_score(self) -> None:
        over = self.game.is_over
        self.say("Final scores:" if over else
                 "If the game ended now (temples, sun and water are scored at the end):")
        result = self.game.result()
        self.say("\n".join(self.score_table(result.winners if result else None)))

    def show_board_only(self) -> None:
        view = self.game.observation(self.human)
        self.say()
        self.say(board.draw_position(view, self.seat_labels(), (), viewer=self.human,
                                     colour=self.settings.colour))

    def announce(self, seat: int, report: Report, legal: Sequence[Action]) -> None:
        """One line for an applied action and what it gained."""
        a = report.action
        who = self.who(seat)
        if a.type == "resolve":
            text = f"{who} takes {notation.resolve_text(a)}"
        elif a.type == "discard":
            text = f"{who} discards {a.tile}"
        else:
            verb = "places" if a.type == "place" else "overbuilds with"
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
        if head in ("help", "?") or (head == "h" and not rest):
            self.say(HELP)
        elif head in ("board", "b"):
            self.show() if not over else self.show_board_only()
        elif head == "save":
            self.save(rest)
        elif head == "load":
            self.load(rest)
        elif head in ("undo", "u"):
            self.undo()
        elif head in ("score", "scores"):
            self.show_score()
        elif head == "review" and over:
            self.review()
        elif over:
            self.say("The game is over: review, score, save FILE, undo, load FILE or quit.")
        elif head in ("list", "l", "ls"):
            self.show_list()
        elif head == "hint":
            self.hint(rest)
        elif m := re.fullmatch(r"h\s*(\d+)", line.strip().lower()):
            self.play_hint(int(m.group(1)))
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
        self.apply_mine(action, legal)

    def apply_mine(self, action: Action, legal: Sequence[Action]) -> None:
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

    def hint(self, spec: str = "") -> None:
        """The AI's evaluation of the person's position and its suggestions
        h1, h2, ..., at the hint level or at ``spec`` (a strength text)."""
        strength = self.settings.hint
        if spec:
            try:
                strength = parse_strength(spec)
            except ValueError as error:
                self.say(f"hint {spec}: {error}")
                return
            levels = self.settings.levels
            if isinstance(strength, str) and levels and strength not in levels:
                self.say(f"hint {spec}: no such level; this server has {', '.join(levels)} "
                         "(or give iterations, 5000, or seconds, 2s).")
                return
        legal = self.game.legal_actions()
        self.say(f"Asking the AI ({strength_text(strength)}) about your position...")
        if self.status.tty:
            self.status.show(f"The AI is thinking ({strength_text(strength)})...")
        try:
            reply = self.client.suggest(self.game.observation(self.human), strength, seed=self.ai_seed(),
                                        max_candidates=HINT_CANDIDATES, levels=self.seat_levels(), explain=True)
        except CacaoClientError as error:
            self.say(f"No hint: {error}")
            return
        finally:
            self.status.clear()
        evaluation = reply.evaluation
        suggestions = [c.action for c in evaluation.candidates[:HINT_CANDIDATES]]

        def write(action: Action) -> str:
            return f"{notation.write(action, legal)} (list {legal.index(action) + 1})"

        self.say("\n".join(evaluation_lines(evaluation, self.names(), write,
                                            top=HINT_CANDIDATES, label="h")))
        best = evaluation.best_action
        assert best is not None
        if best not in suggestions:
            suggestions.append(best)
        self.hints = (self.game.hash(), suggestions)
        why = reply.explanation
        if why is not None and why.other_line:  # what the suggestion gives that the runner-up does not
            other = why.other_line[0]
            against = f"h{suggestions.index(other) + 1}" if other in suggestions else action_text(other)
            self.say(f"Why h{suggestions.index(best) + 1} rather than {against}: {sentence(why, self.names())}.")
        self.say(f"Suggested: h{suggestions.index(best) + 1}, {notation.write(best, legal)}. "
                 f"Type h1..h{len(suggestions)} to play a suggestion (a bare number plays from list).")

    def play_hint(self, number: int) -> None:
        """Plays suggestion ``number`` (h1 is 1) of the last hint, if it was for this position."""
        if self.hints is None or self.hints[0] != self.game.hash():
            self.say("No hint for this position yet: type hint first (h1, h2 ... are its suggestions).")
            return
        suggestions = self.hints[1]
        if not 1 <= number <= len(suggestions):
            self.say(f"There is no h{number}: the hint suggested h1..h{len(suggestions)}.")
            return
        self.apply_mine(suggestions[number - 1], self.game.legal_actions())

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
        self.say(f"Loaded {path}: {game.players} players, {len(game.history)} actions; you play "
                 f"{board.seat_name(self.human)} (seat {self.human}).")
        self.dirty = True

    # --- the AI ---

    def ai_seed(self) -> int | None:
        """A search seed that makes a seeded game repeatable (None: random)."""
        seed = self.settings.seed
        if seed is None:
            return None
        return derive_seed(seed, len(self.game.history))

    def think(self, who: str, source: Source, strength: Limit | str | None) -> Evaluation:
        """Searches ``source`` for its seat to act while a status line follows
        the search; the final evaluation (its ``best_action`` is the answer).

        Raises:
            CacaoClientError: the search failed.
        """
        status = self.status
        names = self.names()
        if status.tty:
            status.show(f"{who} is thinking ({strength_text(strength)})...")
        try:
            with shielded():
                analysis = self.client.start_analysis(
                    source, strength, seed=self.ai_seed(), report_interval=REPORT_INTERVAL_S,
                    levels=self.seat_levels())
            try:
                while True:
                    with shielded():
                        report = next(analysis, None)
                    if report is None:
                        break
                    if not report.evaluation.final:
                        status.show(thinking_text(who, report.evaluation, names,
                                                  report.sequence, spinner=status.tty),
                                    report.evaluation.elapsed_s)
                with shielded():
                    return analysis.wait().evaluation
            finally:
                if analysis.final is None:
                    with shielded():
                        analysis.cancel()
        finally:
            status.clear()

    def ai_move(self, seat: int) -> bool:
        """Asks the server for ``seat``'s decision, sending only its observation;
        the decision is the action the search ends with."""
        legal = self.game.legal_actions()
        who = self.who(seat)
        while True:
            try:
                evaluation = self.think(who, self.game.observation(seat), self.strength(seat))
                break
            except CacaoClientError as error:
                self.say(f"{self.who(seat)} could not move: {error}")
                line = self.read("Enter to try again, or save FILE, load FILE, undo, quit> ")
                if line is None:
                    return False
                if line.strip():
                    return self.command(line, over=True)
        assert evaluation.best_action is not None
        report = self.game.apply(evaluation.best_action)
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

EXAMPLES = """\
examples:
  cacao-play                            you against the server's default level, 2 players
  cacao-play --players 4 --level strong three AI seats at level strong
  cacao-play --time 2                   the AI thinks 2 seconds a move
  cacao-play --ai beginner --ai 2s      two AI seats, one strength each (3 players)
  cacao-play --hint-level max           hints from the strongest level
  cacao-play --seed 7 --seat 1          a repeatable deal, and you move second in seat order
  cacao-play --load game.json           go on with a game saved with save FILE
  cacao-play --server 10.0.0.5:50051    use a running server instead of starting one
  cacao-play --puzzles                  puzzles: find the best move, two tries each
  cacao-play --puzzles --theme "temple majority" --rating 1000-1600 --players 2

At the prompt: an action (2101 3,4 r1), a number from list, h1 from hint,
hint [LEVEL], score, undo, save FILE, load FILE, help, quit. Ctrl-C leaves.
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cacao-play", description="Play Cacao in a terminal against 1-3 AI seats.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("--players", type=int, choices=(2, 3, 4),
                        help="players, you included (default 2, or one more than the --ai given)")
    parser.add_argument("--seat", type=int, default=0,
                        help="your seat, 0-based; the deal decides who moves first (default 0)")
    strength = parser.add_argument_group(
        "AI strength (default: the server's default level; give a level, or limits, or --ai)")
    strength.add_argument("--level", help="a named level for every AI seat, from beginner to max, or "
                                          "adaptive (those of the server; an unknown name lists them)")
    strength.add_argument("--iterations", type=int, help="search iterations per AI move")
    strength.add_argument("--time", type=float, metavar="SECONDS",
                          help="search seconds per AI move")
    strength.add_argument("--threads", type=int, help="search threads per AI move (the server "
                                                      "may allow fewer)")
    strength.add_argument("--ai", action="append", default=[], metavar="SPEC",
                          help="strength of the next AI seat: a level (strong), iterations (500) or "
                               "time (2s); repeat for each AI seat")
    parser.add_argument("--hint-level", "--hint", dest="hint_level", metavar="SPEC",
                        help=f"strength of the hint command: a level, iterations (5000) or time "
                             f"(2s) (default: level {DEFAULT_HINT_LEVEL}, or the server's default "
                             "level without one); 'hint SPEC' at the prompt asks once at another")
    parser.add_argument("--seed", type=int,
                        help="seed of the deal and of the AI's searches: the same seed deals the "
                             "same game, and with an iteration budget the AI plays it the same way "
                             "(default: a random one, printed at the start)")
    parser.add_argument("--load", metavar="FILE", help="go on with a saved game (cacao-record/1)")
    parser.add_argument("--review-iterations", type=int, metavar="N",
                        help="search iterations per decision of the review offered at the end "
                             "(default: the server's, 600)")
    trainer = parser.add_argument_group(
        "puzzles (a puzzle trainer instead of a game: the server's puzzles, two tries each, a "
        "streak and a puzzle rating)")
    trainer.add_argument("--puzzles", "--puzzle", action="store_true", dest="puzzles",
                         help="train on puzzles: positions where one move is clearly best; --players "
                              "filters them by the players of their game, --seed makes the draws repeatable")
    trainer.add_argument("--theme", help="only puzzles of this theme: temple majority, water, overbuilding "
                                         "with sun, market timing, denying an opponent, exact endgame")
    trainer.add_argument("--rating", metavar="RANGE", type=_rating_range,
                         help="only puzzles rated in this range: 1000-1600, 1000- or -1600 (600 is "
                              "the level beginner's, 1800 max's, 2200 beyond)")
    trainer.add_argument("--puzzle-rating", type=int, metavar="R",
                         help=f"your puzzle rating to start from (default {puzzles.START_RATING}; the "
                              "end of a session says where it got to)")
    parser.add_argument("--server", metavar="ADDR",
                        help="a running server (host:port); default: start one on a free local "
                             "port for the game")
    add_connection_flags(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="ANSI colours on the board (default auto: when the output is a "
                             "terminal and NO_COLOR is not set)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="most seconds to wait for one AI move or hint (default 120; "
                             "a time budget longer than that gets 10 s more than it)")
    return parser.parse_args(argv)


def _rating_range(text: str) -> tuple[int | None, int | None]:
    """--rating's value (:func:`.puzzles.rating_range`), its error said by argparse."""
    try:
        return puzzles.rating_range(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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


def unknown_level(strengths: Sequence[Limit | str | None], levels: Collection[str]) -> str | None:
    """The first strength that names a level not in ``levels``, or None."""
    return next((s for s in strengths if isinstance(s, str) and s not in levels), None)


def check_strengths(info: ServerInfo, strengths: list[Limit | str | None]) -> str | None:
    """A message if a strength names a level the server does not have.

    Strengths that name nothing become the server's default level, by name.
    """
    unknown = unknown_level(strengths, info.levels)
    if unknown is not None:
        return f"unknown level {unknown!r}: this server has {', '.join(info.levels)}"
    strengths[:] = [info.default_level if s is None else s for s in strengths]
    return None


def hint_strength(info: ServerInfo, given: Limit | str | None) -> Limit | str | None:
    """The hints' strength: the one given, else DEFAULT_HINT_LEVEL if the
    server has it, else its default level."""
    if given is not None:
        return given
    return DEFAULT_HINT_LEVEL if DEFAULT_HINT_LEVEL in info.levels else info.default_level


def start_game(client: CacaoClient, args: argparse.Namespace, players: int) -> Position:
    """A new game dealt by the server (seeded with --seed), or the game of --load."""
    if args.load:
        return load_game(args.load)
    deal = client.new_game(players, args.seed)
    return Position.from_record(deal.record)


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None,
         out: TextIO | None = None) -> int:
    """Runs ``cacao-play``; returns the exit status (130 after Ctrl-C)."""
    return run_command("cacao-play", lambda: _main(argv, inp or sys.stdin, out or sys.stdout))


def _main(argv: Sequence[str] | None, inp: TextIO, out: TextIO) -> int:
    args = parse_args(argv)
    if args.puzzles:
        return _with_server(args, out, lambda target: _puzzles(target, args, inp, out))
    try:
        strengths = _strengths(args)
        hint = parse_strength(args.hint_level) if args.hint_level else None
        args.connection = connection_settings(args) if args.server else {}
    except ValueError as error:
        print(f"cacao-play: {error}", file=sys.stderr)
        return 2
    players = args.players or (len(args.ai) + 1 if args.ai else 2)
    if not 0 <= args.seat < players:
        print(f"cacao-play: --seat must be 0..{players - 1}", file=sys.stderr)
        return 2
    unknown = None if args.server else unknown_level([*strengths, hint], LEVEL_NAMES)
    if unknown is not None:  # the local server would have these levels: refused before starting it
        print(f"cacao-play: unknown level {unknown!r}: the levels are {', '.join(LEVEL_NAMES)}",
              file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(31)
    args.seed = seed
    return _with_server(args, out, lambda target: _play(target, args, players, strengths, hint, inp, out))


def _with_server(args: argparse.Namespace, out: TextIO, session: Callable[[str], int]) -> int:
    """``session(target)`` with --server's address, else a local server's (started and stopped here)."""
    try:
        if args.server:
            return session(args.server)
        with local_server() as local:
            print(f"Started a local Cacao server on {local.address}.", file=out, flush=True)
            return session(local.address)
    except StartError as error:
        print(f"cacao-play: no local server: {error}", file=sys.stderr)
        return 1


def _puzzles(target: str, args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """The puzzle trainer (--puzzles) on the server at `target`."""
    try:
        connection = connection_settings(args) if args.server else {}
    except ValueError as error:
        print(f"cacao-play: {error}", file=sys.stderr)
        return 2
    low, high = args.rating or (None, None)
    filters = puzzles.Filters(args.theme, low, high, args.players)
    progress = puzzles.Progress(rating=max(puzzles.FLOOR, args.puzzle_rating or puzzles.START_RATING))
    client = CacaoClient(target, timeout=args.timeout, **connection)
    try:
        trainer = puzzles.Trainer(client, filters, make_reader(inp, out), out, _colour(args.color, out),
                                  args.seed, progress)
        return trainer.run()
    finally:
        with shielded():
            client.close()


def _play(target: str, args: argparse.Namespace, players: int,
          strengths: list[Limit | str | None], hint: Limit | str | None, inp: TextIO,
          out: TextIO) -> int:
    client = CacaoClient(target, search_timeout=args.timeout, **args.connection)
    try:
        try:
            with shielded():
                info = client.get_server_info()
                every = [*strengths, hint_strength(info, hint)]
                problem = check_strengths(info, every)
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
        settings = Settings(human, strengths, hint, _colour(args.color, out), args.seed,
                            tuple(info.levels),
                            Limit(iterations=args.review_iterations) if args.review_iterations else None)
        print(f"Game seed {args.seed} (play this deal again with --seed {args.seed}).", file=out)
        return Session(client, game, settings, make_reader(inp, out), out).run()
    finally:
        with shielded():  # closing waits for the calls still open to end: see console.py
            client.close()


if __name__ == "__main__":
    sys.exit(main())
