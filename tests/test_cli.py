"""The installed commands as a person at a terminal meets them: every
``--help`` explains every option, ``--version`` names the installed version,
what a command cannot do is said in one line before it starts anything (a
port already taken, an unknown level), and Ctrl-C or a reader that goes away
ends a command with a line at most, never a traceback.

The commands run as real processes of the installed package. Ctrl-C is
SIGINT sent to the command's whole process group, as a terminal sends it
(so a local server or a pool of workers that the command started gets it
too), once the command has said it is ready or waiting; nothing sleeps.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from support import GUARD_S, server_options, wait_until

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENTRY_POINTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
INTERRUPTED, BROKEN_PIPE = 130, 141


def every_entry_point() -> list[str]:
    return sorted(ENTRY_POINTS)


# --- --help ----------------------------------------------------------------------

class _Parsed(Exception):
    """Raised in place of parsing: the parser a command built."""


def parser_of(entry: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The argument parser that the entry point ``module:function`` builds
    (caught where it would parse the command line)."""
    module, function = entry.split(":")
    main = getattr(importlib.import_module(module), function)
    built: list[argparse.ArgumentParser] = []

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        built.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Parsed):
        main([])
    monkeypatch.undo()
    return built[0]


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    """(words after the program name, parser) of the parser and its subcommands."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*words, name))


def help_text(name: str, words: tuple[str, ...]) -> str:
    done = subprocess.run([str(BIN / name), *words, "--help"], capture_output=True, text=True,
                          timeout=GUARD_S)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", every_entry_point())
def test_every_option_of_every_command_is_explained_in_its_help(name, monkeypatch):
    parser = parser_of(ENTRY_POINTS[name], monkeypatch)
    assert parser.prog == name
    assert parser.epilog and "example" in parser.epilog, f"{name}: no examples after the options"
    for words, command in commands(parser):
        shown = help_text(name, words)
        where = " ".join((name, *words))
        assert "``" not in shown and not re.search(r"default:? None\b", shown), shown
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, f"{where} {choice.dest}: no help"
                    assert choice.dest in shown
                continue
            label = "/".join(action.option_strings) or action.metavar or action.dest
            assert action.help and action.help != argparse.SUPPRESS and action.help.strip(), \
                f"{where} {label}: no help text"
            for option in action.option_strings:
                assert re.search(rf"(^|[\s,\[]){re.escape(option)}\b", shown), \
                    f"{where}: --help does not mention {option}"
            if not action.option_strings:
                assert str(action.metavar or action.dest) in shown


def test_the_servers_help_names_its_default_level():
    shown = help_text("cacao-server", ())
    assert re.search(r"\[CACAO_DEFAULT_LEVEL,\s+default\s+casual\]", shown), shown


# --- --version, and refusals before anything starts --------------------------------

@pytest.mark.parametrize("name", ["cacao-server", "cacao-play"])
def test_version_names_the_installed_package_version(name):
    done = subprocess.run([str(BIN / name), "--version"], capture_output=True, text=True,
                          timeout=GUARD_S)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert done.stdout == f"{name} {metadata.version('cacaoai')}\n"


@pytest.mark.integration
@pytest.mark.parametrize("flag", ["--port", "--http-port", "--metrics-port"])
def test_cacao_server_exits_with_one_line_when_a_port_it_should_serve_is_taken(flag):
    """Whichever side's port another program listens on, the server serves
    nothing and exits non-zero with one line naming the port (no gRPC log
    line of its own, no traceback); the other ports are 0 (any free one) or off."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        ports = {"--port": "0", "--http-port": "off", flag: str(port)}
        done = subprocess.run([str(BIN / "cacao-server"), *(w for p in ports.items() for w in p)],
                              capture_output=True, text=True, timeout=GUARD_S,
                              stdin=subprocess.DEVNULL)
    lines = (done.stdout + done.stderr).splitlines()
    assert done.returncode == 1, lines
    assert len(lines) == 1, lines
    assert f"port {port} is taken" in lines[0] and f"127.0.0.1:{port}" in lines[0], lines
    assert f"choose another port with {flag}" in lines[0], lines


@pytest.mark.parametrize("flags", [["--level", "grandmaster"], ["--ai", "grandmaster"],
                                   ["--hint-level", "grandmaster"]])
def test_cacao_play_refuses_an_unknown_level_before_starting_a_server(flags, tmp_path):
    from cacaoai.api import LEVEL_NAMES

    done = subprocess.run([str(BIN / "cacao-play"), *flags], input="quit\n", capture_output=True,
                          text=True, timeout=GUARD_S, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""  # no "Started a local Cacao server": none was started
    assert done.stderr == (f"cacao-play: unknown level 'grandmaster': the levels are "
                           f"{', '.join(LEVEL_NAMES)}\n")


def test_cacao_match_refuses_an_unknown_level_before_starting_a_server(tmp_path):
    from cacaoai.api import LEVEL_NAMES

    done = subprocess.run([str(BIN / "cacao-match"), "--strength", "strong", "--strength", "grandmaster"],
                          capture_output=True, text=True, timeout=GUARD_S, cwd=tmp_path,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""  # no "Started a local Cacao server": none was started
    assert done.stderr == (f"cacao-match: unknown level 'grandmaster': the levels are "
                           f"{', '.join(LEVEL_NAMES)}\n")


# --- a reader that goes away ----------------------------------------------------

def closed_pipe_run(args: list[str]) -> subprocess.CompletedProcess:
    """Runs ``args`` with its standard output on a pipe nobody reads any more
    (the reader closed it before the first line, as ``| head -0`` would)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(args, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=GUARD_S, stdin=subprocess.DEVNULL)
    finally:
        os.close(write_end)


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "game.json"
    done = subprocess.run([str(BIN / "cacao-engine"), "random", "--seed", "3"], capture_output=True,
                          text=True, check=True, timeout=GUARD_S)
    path.write_text(done.stdout)
    return path


def test_cacao_engine_ends_quietly_when_its_reader_has_gone(record):
    for words in (["legal", str(record), "--at", "0"], ["demo", "--seed", "2"]):
        done = closed_pipe_run([str(BIN / "cacao-engine"), *words])
        assert done.returncode == BROKEN_PIPE, done.stderr
        assert done.stderr == ""


def test_cacao_engine_legal_into_head_prints_three_lines_and_no_traceback(record):
    done = subprocess.run(["bash", "-c", f"'{BIN / 'cacao-engine'}' legal '{record}' --at 0 | head -3; "
                                         "echo status ${PIPESTATUS[0]}"],
                          capture_output=True, text=True, timeout=GUARD_S)
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and all(line.startswith("{") for line in lines[:3]), done.stdout
    assert lines[3] in ("status 0", f"status {BROKEN_PIPE}")  # 0 when it wrote all before head left
    assert done.stderr == ""


def test_cacao_match_ends_quietly_when_its_reader_has_gone(cacao_server):
    done = closed_pipe_run([str(BIN / "cacao-match"), "--server", cacao_server[1], "-s", "20",
                            "-s", "20", "--games", "1", "--seed", "1"])
    assert done.returncode == BROKEN_PIPE, done.stderr
    assert done.stderr == ""


# --- Ctrl-C -------------------------------------------------------------------------

SIGINT_AS_A_TERMINALS = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                         "os.execvp(sys.argv[1], sys.argv[1:])")


class Program:
    """A command in a process group of its own, its output (stdout and
    stderr together) read as it comes."""

    def __init__(self, args: list[str], cwd: Path | None = None):
        # SIGINT as a terminal's foreground program has it, even when the tests
        # run where it is ignored (a background job of a script ignores it, and
        # its children inherit that, so Python would install no handler). A
        # small Python sets it and becomes the program (exec); a preexec_fn
        # would run Python between fork and exec of this process, whose gRPC
        # threads may hold locks then (a loaded run's child died there).
        self.proc = subprocess.Popen([sys.executable, "-c", SIGINT_AS_A_TERMINALS, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True, cwd=cwd,
                                     env=dict(os.environ, PYTHONUNBUFFERED="1"))
        self.text = ""

    def wait_for(self, pattern: str) -> str:
        """Reads until the output has a match of ``pattern``; the output so far."""
        deadline = time.monotonic() + GUARD_S
        while not re.search(pattern, self.text):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in the output:\n{self.text[-3000:]}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the program ended before {pattern!r}:\n{self.text[-3000:]}"
                self.text += chunk.decode(errors="replace")
        return self.text

    def ctrl_c(self) -> tuple[int, str]:
        """SIGINT to the process group, as a terminal's Ctrl-C; the exit status
        and the output after it."""
        os.killpg(self.proc.pid, signal.SIGINT)
        rest, _ = self.proc.communicate(timeout=GUARD_S)
        after = rest.decode(errors="replace")
        self.text += after
        return self.proc.returncode, after

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def interrupted(program: Program, ready: str, name: str) -> str:
    """Waits for ``ready``, presses Ctrl-C, and checks the one-line ending;
    the output after Ctrl-C."""
    try:
        program.wait_for(ready)
        code, after = program.ctrl_c()
    finally:
        program.kill()
    assert "Traceback" not in program.text and "Error" not in after, program.text[-3000:]
    assert code == INTERRUPTED, program.text[-3000:]
    lines = [line for line in after.splitlines() if line.strip()]
    assert lines and lines[-1] == f"{name}: interrupted", after
    return after


def test_ctrl_c_stops_cacao_engine_with_one_line():
    program = Program([str(BIN / "cacao-engine"), "bench", "--games", "1000000000"])  # hours: never ends first
    interrupted(program, r"random games a player count, seed 1\n", "cacao-engine")


def test_ctrl_c_stops_cacao_arena_and_its_worker_processes_with_one_line(tmp_path):
    program = Program([str(BIN / "cacao-arena"), "--games", "200", "--processes", "2",
                       "--no-records", "mcts:iterations=5000", "greedy"], cwd=tmp_path)
    after = interrupted(program, r"0/200 games", "cacao-arena")
    assert "ForkPoolWorker" not in after


@pytest.mark.integration
def test_ctrl_c_stops_cacao_match_and_its_local_server_with_one_line(tmp_path):
    program = Program([str(BIN / "cacao-match"), "-s", "60s", "-s", "60s", "--games", "2",
                       "--parallel", "2", "--seed", "1"], cwd=tmp_path)
    interrupted(program, r"players: .*\n", "cacao-match")


def test_ctrl_c_at_the_prompt_of_cacao_play_leaves_with_one_line(cacao_server, tmp_path):
    program = Program([str(BIN / "cacao-play"), "--server", cacao_server[1], "--iterations", "20",
                       "--seed", "1", "--color", "never"], cwd=tmp_path)
    interrupted(program, r"your move> $", "cacao-play")


@pytest.mark.integration
def test_ctrl_c_stops_cacao_server_after_a_drain_without_a_traceback(tmp_path):
    program = Program([str(BIN / "cacao-server"), "--port", "0", "--http-port", "off",
                       "--drain", "0", "--grace", "0"], cwd=tmp_path)
    try:
        program.wait_for(r"serving on \S+")
        code, after = program.ctrl_c()
    finally:
        program.kill()
    # a graceful stop, as on SIGTERM: its exit status is the server's own
    assert "Traceback" not in program.text, program.text
    assert "SIGINT: shutting down" in after and "stopped" in after, after


# --- cacao-play on a terminal -------------------------------------------------

class Tty:
    """A command on a pseudo-terminal (standard input, output and error), in a
    process group of its own, 200 columns wide."""

    PROMPT = r"your (move|choice)> $"

    def __init__(self, args: list[str], cwd: Path):
        master, slave = pty.openpty()
        env = dict(os.environ, COLUMNS="200", LINES="50", TERM="xterm")
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                                     start_new_session=True, env=env)
        os.close(slave)
        self.master = master
        self.text = ""
        self.mark = 0

    def _read(self, timeout: float) -> bool:
        """Waits up to ``timeout`` s for output and reads it; False once the
        output has ended (the program has gone and the terminal reads EIO)."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:
            return False
        self.text += chunk.decode(errors="replace")
        return bool(chunk)

    def wait_for(self, pattern: str) -> str:
        """Reads until the output after the last match has a match of
        ``pattern``; that output, up to the end of the match."""
        deadline = time.monotonic() + GUARD_S
        while not (match := re.search(pattern, self.text[self.mark:])):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in the output:\n{self.text[-3000:]!r}"
            assert self._read(left), f"the program ended before {pattern!r}:\n{self.text[-3000:]!r}"
        seen = self.text[self.mark:self.mark + match.end()]
        self.mark += match.end()
        return seen

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def ctrl_c(self) -> tuple[int, str]:
        """SIGINT to the process group; the exit status and the output after it."""
        start = len(self.text)
        os.killpg(self.proc.pid, signal.SIGINT)
        self.proc.wait(timeout=GUARD_S)
        deadline = time.monotonic() + GUARD_S
        while self._read(max(deadline - time.monotonic(), 0.0)):  # to the end of the output
            assert time.monotonic() < deadline, "the terminal never read as closed"
        return self.proc.returncode, self.text[start:]

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


def ai_thinks(tty: Tty) -> str:
    """Plays the first listed action at each prompt until the AI thinks; the
    output up to its thinking line."""
    tty.wait_for(Tty.PROMPT)
    for _ in range(5):
        tty.type("1")
        seen = tty.wait_for(rf"is thinking|{Tty.PROMPT}")
        if "is thinking" in seen:
            return seen
    raise AssertionError(f"the AI never moved:\n{tty.text[-3000:]!r}")


def test_cacao_play_shows_the_ai_thinking_on_one_line_that_it_rewrites(cacao_server, tmp_path):
    tty = Tty([str(BIN / "cacao-play"), "--server", cacao_server[1], "--iterations", "20",
               "--seed", "5", "--color", "never"], tmp_path)
    try:
        ai_thinks(tty)
        after = tty.wait_for(r"yellow \(AI\) (places|takes|discards|overbuilds)")
        tty.wait_for(Tty.PROMPT)
    finally:
        tty.type("quit")
        tty.proc.wait(timeout=GUARD_S)
        tty.close()
    thinking = tty.text[tty.text.index("yellow (AI) is thinking"):]
    # the line starts erased, is rewritten by each report, and erased before the move is told
    assert tty.text[:tty.text.index("yellow (AI) is thinking")].endswith("\r\x1b[K")
    assert thinking.startswith("yellow (AI) is thinking (20 iterations)...")
    assert re.search(r"\r\x1b\[Kyellow \(AI\) (places|takes|discards|overbuilds)", after), after
    assert "\n" not in thinking[:thinking.index("yellow (AI) ", 5)], thinking  # all on one line


@pytest.mark.integration
def test_ctrl_c_while_the_ai_thinks_cancels_its_search_and_leaves_with_one_line(tmp_path):
    from cacaoai.server import create_server

    server, port = create_server("127.0.0.1:0", server_options(worker_threads=4, max_searches=1,
                                                               grace_s=0.0))
    server.start()
    tty = Tty([str(BIN / "cacao-play"), "--server", f"127.0.0.1:{port}", "--time", "600",
               "--timeout", "700", "--seed", "5", "--color", "never"], tmp_path)
    try:
        ai_thinks(tty)
        wait_until(lambda: server.cacao_api.gate.running == 1, "the AI's search to start")
        code, after = tty.ctrl_c()
        wait_until(lambda: server.cacao_api.gate.running == 0, "the AI's search to be cancelled")
    finally:
        tty.close()
        server.stop(None).wait()
    assert code == INTERRUPTED, tty.text[-3000:]
    assert "Traceback" not in tty.text
    lines = [re.sub(r"\x1b\[K", "", line) for line in after.splitlines()]
    assert [line for line in lines if line.strip()][-1] == "cacao-play: interrupted", repr(after)
