"""``cacao-review``: a saved game reviewed by the service, as a table in the
terminal (``cacao-play`` offers the same at the end of a game).

For each decision: the seat, the action, its class, the mover's win chance
before and after it, the loss against the best action ("(exact)" after the
action when the endgame solver proved both actions' values), the best action
when it was not taken and, under it, what the best action would have given in
words; then each seat's accuracy and counts per class. A status line shows
the progress while the server reviews. A record that cannot be reviewed is
refused with one line on standard error, before any server starts or any of
the table is written.

Thread-safety: the functions write to the stream they are given; one review at a time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from cacaoai.api import CLASSES, DecisionReview, Limit, ReviewSummary, action_text, sentence
from cacaoai.engine import CacaoError, Position, parse_record
from cacaoai.engine.cli import add_version_option

from . import notation
from .board import SEAT_COLOUR_NAMES, draw_position
from .client import CacaoClient
from .connection import add_connection_flags, connection_settings
from .console import StatusLine, run_command, shielded
from .errors import CacaoClientError
from .local import LocalServer, StartError
from .practice import Exercise, exercises, judge

#: Class names as the table writes them.
CLASS_WORDS = {"best": "best", "good": "good", "inaccuracy": "inaccuracy", "mistake": "MISTAKE",
               "blunder": "BLUNDER", "forced": "forced"}


#: The table's header, written once the server has accepted the record.
HEADER = f"{'#':>4}  {'seat':<7} {'class':<10} {'before → after':>14} {'loss':>6}  action\n"


def decision_lines(d: DecisionReview, names: Sequence[str] = SEAT_COLOUR_NAMES) -> list[str]:
    """One decision as a table row, and its explanation under it."""
    who = names[d.seat] if d.seat < len(names) else f"seat {d.seat}"
    row = f"{d.index + 1:>4}  {who:<7} {CLASS_WORDS.get(d.classification, d.classification):<10} "
    if d.forced or d.win_before is None or d.win_after is None:
        return [row + f"{'':<19}{action_text(d.action)} (the only choice)"]
    loss = f"{-d.win_loss:+.0%}" if d.win_loss >= 0.005 else "0%"
    row += f"{d.win_before:>4.0%} → {d.win_after:>4.0%} {loss:>6}  {action_text(d.action)}"
    lines = [row + ("  (exact)" if d.exact else "")]
    if d.best_action != d.action:
        best = f"{d.best_win:.0%}" if d.best_win is not None else "?"
        lines.append(f"{'':<24}best: {action_text(d.best_action)} ({best}{', exact' if d.exact else ''})")
    if d.explanation is not None:
        lines.append(f"{'':<24}{sentence(d.explanation, names)}")
    return lines


def summary_lines(summary: ReviewSummary, names: Sequence[str] = SEAT_COLOUR_NAMES) -> list[str]:
    """Each seat's accuracy and counts per class."""
    lines = [f"{'seat':<8}{'accuracy':>9}  " + "  ".join(f"{c:>10}" for c in CLASSES)]
    for s in summary.seats:
        who = names[s.seat] if s.seat < len(names) else f"seat {s.seat}"
        accuracy = f"{s.accuracy:.1f}%" if s.accuracy is not None else "-"
        lines.append(f"{who:<8}{accuracy:>9}  " + "  ".join(f"{s.counts.get(c, 0):>10}" for c in CLASSES))
    return lines


def show_review(client: CacaoClient, record: dict | str, out: TextIO, limit: Limit | None = None, *,
                seed: int | None = None, seats: Sequence[int] = (),
                names: Sequence[str] = SEAT_COLOUR_NAMES) -> ReviewSummary | None:
    """Reviews `record` through `client` and writes the table to `out`, with
    a progress line while it runs; the summary (None if the stream ended
    without one).

    Raises:
        CacaoClientError: the server refused or failed.
    """
    return review_table(client, record, out, limit, seed=seed, seats=seats, names=names)[0]


def review_table(client: CacaoClient, record: dict | str, out: TextIO, limit: Limit | None = None, *,
                 seed: int | None = None, seats: Sequence[int] = (),
                 names: Sequence[str] = SEAT_COLOUR_NAMES) -> tuple[ReviewSummary | None, list[DecisionReview]]:
    """As :func:`show_review`, with the decisions reviewed."""
    status = StatusLine(out)
    summary, decisions = None, []
    headed = False
    for report in client.review_game(record, limit, seed=seed, seats=seats):
        status.clear()
        if not headed:  # after the server has accepted the record: a refusal gets no table
            out.write(HEADER)
            headed = True
        if report.decision is not None:
            decisions.append(report.decision)
            out.write("\n".join(decision_lines(report.decision, names)) + "\n")
            status.show(f"reviewing: {report.sequence + 1}/{report.decisions} decisions")
        elif report.summary is not None:
            summary = report.summary
            out.write("\n" + "\n".join(summary_lines(summary, names)) + "\n")
        out.flush()
    status.clear()
    return summary, decisions


#: Tries at one exercise before the best action is shown.
TRIES = 2


def practise(client: CacaoClient, items: Sequence[Exercise], read: Any, out: TextIO, limit: Limit | None, *,
             seed: int | None, names: Sequence[str] = SEAT_COLOUR_NAMES) -> tuple[int, int]:
    """Puts the player before each exercise in turn, from their seat's view:
    `read(prompt)` gives a line they typed (None: no more input); each try is
    judged by the review's search; after TRIES misses, the best action and
    why. Returns (solved, offered)."""
    solved = 0
    out.write(f"\nPractise: {len(items)} decision{'s' * (len(items) != 1)} to try again, from your seat's "
              "view. Type an action as in cacao-play, 'skip' or 'quit'.\n")
    for number, item in enumerate(items, 1):
        view, legal = item.view(), item.legal_actions()
        who = names[item.seat] if item.seat < len(names) else f"seat {item.seat}"
        out.write(f"\n[{number}/{len(items)}] decision {item.index + 1}, {who} to act "
                  f"(in the game: {action_text(item.taken)}, a {item.classification})\n")
        out.write(draw_position(view, names, viewer=item.seat) + "\n")
        tries = 0
        while tries < TRIES:
            line = read("your try> ")
            if line is None or line.strip() == "quit":
                return solved, number - 1
            if line.strip() == "skip":
                break
            parsed = notation.parse(line, legal, view, item.seat)
            if parsed.action is None:
                out.write((parsed.error or parsed.prompt or "Several actions fit: say which.") + "\n")
                continue
            verdict = judge(client, item, parsed.action, limit, seed=seed)
            tries += 1
            if verdict.solved:
                solved += 1
                out.write(f"Solved: {action_text(parsed.action)} is {verdict.classification}"
                          f"{'' if verdict.classification == 'best' else f' ({-verdict.win_loss:+.0%})'}.\n")
                break
            out.write(f"Not yet: {action_text(parsed.action)} is a {verdict.classification} "
                      f"({-verdict.win_loss:+.0%} against the best).\n")
            if tries == TRIES:
                out.write(f"The best: {action_text(verdict.best_action)}")
                if verdict.explanation is not None:
                    out.write(f": {sentence(verdict.explanation, names)}")
                out.write(".\n")
        out.flush()
    out.write(f"\nPractice done: {solved} of {len(items)} solved.\n")
    return solved, len(items)


EXAMPLES = """\
examples:
  cacao-review game.json                 every decision of a saved game, at the server's default budget
  cacao-review game.json --iterations 2000 --seed 1   a deeper review, the same on every run
  cacao-review game.json --seat 0        only seat 0's decisions
  cacao-review game.json --server 10.0.0.5:50051      on a running server
  cacao-review game.json --seat 0 --practise          then try again at seat 0's mistakes
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cacao-review", description="Review a saved Cacao game (cacao-record/1): each "
        "decision's class, the win chances, the best action and why, each seat's accuracy.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("record", help="the game, a cacao-record/1 JSON file ('-': standard input)")
    parser.add_argument("--iterations", type=int, help="search iterations per decision "
                        "(default: the server's, 2400)")
    parser.add_argument("--time", type=float, metavar="SECONDS", help="search seconds per decision")
    parser.add_argument("--seed", type=int, help="seed of the searches: with iterations, the same "
                        "review on every run (default: a random one)")
    parser.add_argument("--seat", type=int, action="append", default=[], dest="seats",
                        help="review only this seat's decisions (repeat for more)")
    parser.add_argument("--practise", "--practice", action="store_true", dest="practise",
                        help="after the review, try again at each inaccuracy, mistake and blunder of the "
                        "--seat seats (default: every seat), from that seat's view; each try is judged by "
                        "the review's search")
    parser.add_argument("--server", metavar="ADDR", help="a running server (host:port); default: "
                        "start one on a free local port")
    add_connection_flags(parser)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Runs ``cacao-review``; returns the exit status."""
    return run_command("cacao-review", lambda: _main(argv, out or sys.stdout))


def _main(argv: Sequence[str] | None, out: TextIO) -> int:
    args = parse_args(argv)
    try:
        limit = (Limit(iterations=args.iterations, time_s=args.time)
                 if args.iterations is not None or args.time is not None else None)
        connection = connection_settings(args) if args.server else {}
    except ValueError as error:
        print(f"cacao-review: {error}", file=sys.stderr)
        return 2
    if args.practise and args.record == "-":
        print("cacao-review: --practise reads your tries from standard input: give the record as a file",
              file=sys.stderr)
        return 2
    try:
        if args.record == "-":
            record = sys.stdin.read()
        else:
            with open(args.record, encoding="utf-8") as file:
                record = file.read()
    except OSError as error:
        print(f"cacao-review: could not read {args.record}: {error.strerror or error}", file=sys.stderr)
        return 1
    problem = record_problem(record, args.seats)
    if problem:  # before any server starts and before the table's header
        source = "standard input" if args.record == "-" else args.record
        print(f"cacao-review: {source}: {problem}", file=sys.stderr)
        return 1
    try:
        if args.server:
            return _review(args.server, connection, record, limit, args, out)
        with LocalServer("--drain", "0", "--grace", "0", isolated=True) as local:
            return _review(local.address, {}, record, limit, args, out)
    except StartError as error:
        print(f"cacao-review: no local server: {error}", file=sys.stderr)
        return 1


def record_problem(record: str, seats: Sequence[int] = ()) -> str | None:
    """Why `record` (cacao-record/1 JSON text) cannot be reviewed for `seats`,
    as the server would refuse it (a record that does not parse or replay, a
    seat the game does not have); None when it can."""
    try:
        players = Position.from_record(parse_record(record)).players
    except CacaoError as error:
        return f"not a valid cacao-record/1 game: {error}"
    for seat in seats:
        if not 0 <= seat < players:
            return f"--seat {seat}: the game has seats 0..{players - 1}"
    return None


def _review(target: str, connection: dict, record: str, limit: Limit | None,
            args: argparse.Namespace, out: TextIO) -> int:
    client = CacaoClient(target, **connection)
    try:
        if not args.practise:
            show_review(client, record, out, limit, seed=args.seed, seats=args.seats)
            return 0
        seed = args.seed if args.seed is not None else random.randrange(2**63)  # the tries' search is the review's
        _, decisions = review_table(client, record, out, limit, seed=seed, seats=args.seats)
        try:
            items = exercises(json.loads(record), decisions, args.seats)
        except ValueError as error:
            print(f"cacao-review: {error}", file=sys.stderr)
            return 1
        practise(client, items, _read_line, out, limit, seed=seed)
        return 0
    except CacaoClientError as error:
        print(f"cacao-review: {error}", file=sys.stderr)
        return 1
    finally:
        with shielded():
            client.close()


def _read_line(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


if __name__ == "__main__":
    sys.exit(main())
