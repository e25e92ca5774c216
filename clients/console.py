"""Terminal plumbing of the command-line clients (cacao-play, cacao-match).

- :class:`StatusLine`: one line of status kept up to date while something
  runs (a search): rewritten in place on a terminal, printed now and then as
  a plain line anywhere else (a pipe, a file, a log).
- :func:`thinking_text`: a search's report in words, for that line.
- :func:`run_command`: runs a program's main so that Ctrl-C ends it with one
  line and status 130, and a reader that went away (``| head``) ends it
  quietly with status 141, as a program killed by SIGPIPE; never a traceback.
- :func:`shielded`: a block that Ctrl-C does not break into (it takes
  effect when the block ends), for the main thread's gRPC calls.

Why shield gRPC calls: Ctrl-C raises KeyboardInterrupt in the main thread
wherever it is. Raised inside grpc's own bookkeeping of a call (while it
opens the call, or starts the thread that reads the call's events), it can
leave the channel believing a call is still open that nobody will ever
finish, and closing the channel then waits for it forever. Shielded, the
interrupt waits for the call's step to end (a report of a running search
comes every fraction of a second) and is raised between two steps, where
grpc's state is whole; a second Ctrl-C breaks in at once.

Thread-safety: a StatusLine belongs to one thread; :func:`shielded` acts in
the main thread only (elsewhere it does nothing: Python raises
KeyboardInterrupt in the main thread alone); the functions are pure except
for the writes to the standard streams and the SIGINT handler.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from .replies import Evaluation

__all__ = ["BROKEN_PIPE", "INTERRUPTED", "PLAIN_EVERY_S", "StatusLine", "run_command",
           "shielded", "thinking_text"]

#: Exit status after Ctrl-C (128 + SIGINT, as a shell reports a program it interrupted).
INTERRUPTED = 130
#: Exit status when the reader of the output went away (128 + SIGPIPE).
BROKEN_PIPE = 141
#: Off a terminal, seconds of search between two plain status lines.
PLAIN_EVERY_S = 2.0
#: Erases the terminal's current line and returns to its start.
CLEAR_LINE = "\r\x1b[K"
SPINNER = "|/-\\"


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or fake stream)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class StatusLine:
    """A line of status that follows a running task.

    On a terminal (``tty``), :meth:`show` rewrites the line in place (cut to
    the terminal's width so that it never wraps) and :meth:`clear` erases it,
    leaving the cursor where the line began. Elsewhere, :meth:`show` prints a
    plain line only when asked to (``always``) or once ``every_s`` more
    seconds of the task have passed (``elapsed_s``, the task's own clock,
    such as a search's ``elapsed_s``), and :meth:`clear` does nothing.

    Args:
        out: where to write.
        tty: rewrite in place (default: whether ``out`` is a terminal).
        every_s: off a terminal, seconds between two plain lines.
        width: the terminal's width in columns (default: asked each time).
    """

    def __init__(self, out: TextIO, tty: bool | None = None, every_s: float = PLAIN_EVERY_S,
                 width: Callable[[], int] | None = None):
        self.out = out
        self.tty = is_terminal(out) if tty is None else tty
        self.every_s = every_s
        self._width = width or (lambda: shutil.get_terminal_size((80, 24)).columns)
        self._shown = False
        self._next_plain_s = every_s

    def show(self, text: str, elapsed_s: float = 0.0, *, always: bool = False) -> None:
        """Shows ``text`` (see the class)."""
        if self.tty:
            width = max(self._width() - 1, 10)
            if len(text) > width:
                text = text[:width - 1] + "…"
            self.out.write(CLEAR_LINE + text)
            self.out.flush()
            self._shown = True
        elif always or elapsed_s >= self._next_plain_s:
            while self._next_plain_s <= elapsed_s:
                self._next_plain_s += self.every_s
            self.out.write(text + "\n")
            self.out.flush()

    def clear(self) -> None:
        """Erases the line on a terminal (elsewhere there is nothing to erase)."""
        if self.tty and self._shown:
            self.out.write(CLEAR_LINE)
            self.out.flush()
        self._shown = False
        self._next_plain_s = self.every_s


def thinking_text(who: str, evaluation: Evaluation, names: Sequence[str], tick: int = 0,
                  spinner: bool = True) -> str:
    """A report of a running search in one line:
    ``| yellow (AI) is thinking: 12,345 iterations, 1.2 s; win chances red 44%, yellow 56%``.

    Only the outlook per seat is given, never the moves being weighed: they
    would show the tiles in the thinking seat's hand.

    Args:
        who: who thinks ("yellow (AI)").
        evaluation: the newest report's evaluation.
        names: a name per seat.
        tick: the report's number (turns the spinner).
        spinner: start with a turning mark (on a terminal).
    """
    text = f"{who} is thinking: {evaluation.iterations:,} iterations, {evaluation.elapsed_s:.1f} s"
    if evaluation.seats:
        text += "; win chances " + ", ".join(
            f"{names[s.seat] if s.seat < len(names) else f'seat {s.seat}'} "
            f"{100 * s.win_probability:.0f}%" for s in evaluation.seats)
    return f"{SPINNER[tick % len(SPINNER)]} {text}" if spinner else text


def _silence_stdout() -> None:
    """Points standard output at /dev/null, so that the flush at exit finds
    no closed pipe to fail on."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


class _Interrupts:
    """The SIGINT handler of :func:`run_command`: KeyboardInterrupt at once,
    or, inside :func:`shielded` blocks, when the outermost one ends (a
    second SIGINT meanwhile raises at once)."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False

    def handler(self, signum: int, frame: Any) -> None:
        if self.depth and not self.pending:
            self.pending = True
            return
        self.pending = False
        raise KeyboardInterrupt

    @contextmanager
    def shielded(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth and self.pending:
                self.pending = False
                raise KeyboardInterrupt


_interrupts = _Interrupts()


def shielded() -> Any:
    """A ``with`` block that Ctrl-C does not break into: under
    :func:`run_command`, a SIGINT that comes during the block raises
    KeyboardInterrupt when the block ends (a second one raises at once).
    For the main thread's gRPC calls (see the module's notes); in other
    threads, and outside run_command, it changes nothing."""
    return _interrupts.shielded()


def run_command(prog: str, main: Callable[[], int]) -> int:
    """Runs ``main`` (a program's whole work, argument parsing included);
    its exit status.

    Ctrl-C (KeyboardInterrupt, wherever it lands, :func:`shielded` blocks
    apart) ends the program with one line on standard error,
    ``PROG: interrupted``, and status 130; on a terminal the line that was
    being typed or shown is erased first. A closed standard output (the
    reader went away: ``cacao-match | head -1``) ends it without a word and
    with status 141. Cleanups (``with`` blocks: the client's channel, a
    local server) run before either.
    """
    installed = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, _interrupts.handler) if installed else None
    try:
        return main()
    except KeyboardInterrupt:
        if is_terminal(sys.stderr):
            sys.stderr.write(CLEAR_LINE)
        sys.stderr.write(f"{prog}: interrupted\n")
        sys.stderr.flush()
        return INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE
    finally:
        if installed:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
