"""Every code block of the README and docs/ runs, so that an example cannot drift
from the code.

Each document is followed as a reader follows it, top to bottom, in a scratch
folder that links the repository's top-level entries (so ``.venv/bin/...``,
``loadtest/`` and ``benchmarks/`` resolve and written files land there):

- ``sh`` blocks run in bash (``set -eo pipefail``) with the venv's ``bin`` on
  PATH. A command that starts a service (``cacao-server``, ``cacao-replicas``)
  runs in the background until it prints its ready line and stays up until the
  document ends, as it would in the reader's other terminal; ``cacao-play`` gets
  ``quit`` at its prompt. The setup steps CI has already done (making the venv,
  ``pip install``, ``.ci/system_deps.sh``) are not repeated, and the README's
  test command is checked to be the one ``.ci/run`` runs instead of being run
  from inside the tests.
- ``python`` blocks run in a fresh interpreter of the venv.
- ``json`` blocks are records, positions, observations or actions: each is
  read by the engine and written back unchanged.
- ``text`` blocks are output and ``http`` blocks wire messages: not run. A
  ``text`` block right after a ``sh`` or ``python`` block (nothing but blank
  lines between) is that block's standard output and must match it exactly;
  an output that changes from run to run (times, addresses) is shown after a
  sentence instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cacaoai.client.local import ServiceProcess, StartError
from cacaoai.engine import Action, Position

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w*)\s*$")
# setup that CI has done before the tests run: not repeated here
SETUP = [re.compile(p) for p in (
    r"python3 -m venv \.venv",
    r"(\.venv/bin/)?pip install -q \.(\[\w+(,\w+)*\]|'\.\[\w+\]'|)?",
    r"(\.venv/bin/)?pip install -q '\.\[[\w,]+\]'",
    r"\.ci/system_deps\.sh",
)]
# commands that serve until stopped, and the line that says they are ready
SERVICES = {"cacao-server": r"serving on \S+", "cacao-replicas": r"^ready$"}
BLOCK_TIMEOUT_S = 300


@dataclass
class Block:
    """One fenced code block: its language, text, and first and last (fence) lines in the file."""

    lang: str
    text: str
    line: int
    end: int


def blocks(path: Path) -> list[Block]:
    out: list[Block] = []
    lang, start, body = None, 0, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = FENCE.match(line)
        if lang is None and match:
            lang, start, body = match.group(1), number, []
        elif lang is not None and line.strip() == "```":
            out.append(Block(lang, "\n".join(body) + "\n", start, number))
            lang = None
        elif lang is not None:
            body.append(line)
    assert lang is None, f"{path.name}: a code block opened at line {start} is never closed"
    return out


def test_every_block_has_a_language_the_docs_test_knows():
    for path in DOCS:
        for block in blocks(path):
            assert block.lang in ("sh", "python", "json", "text", "http"), \
                f"{path.name}:{block.line}: fence '{block.lang}' (use sh, python, json, text or http)"


def test_the_readme_test_command_is_the_one_ci_runs():
    readme = blocks(ROOT / "README.md")[0].text
    run = (ROOT / ".ci" / "run").read_text()
    commands = [line for line in readme.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2, "the README starts with two commands: the service and the tests"
    assert commands[1] in run.splitlines(), "the README's test command must be a line of .ci/run"


@pytest.mark.parametrize("path", [p for p in DOCS if any(b.lang == "json" for b in blocks(p))],
                         ids=lambda p: p.name)
def test_every_json_example_is_read_by_the_engine_and_written_back_unchanged(path):
    for block in (b for b in blocks(path) if b.lang == "json"):
        data = json.loads(block.text)
        where = f"{path.name}:{block.line}"
        if data.get("format") == "cacao-record/1":
            assert Position.from_record(data).record() == {k: v for k, v in data.items()}, where
        elif data.get("format") == "cacao-position/1" and "view" in data:
            assert Position.from_observation(data, seed=1).observation(data["view"]) == data, where
        elif data.get("format") == "cacao-position/1":
            assert Position.from_snapshot(data).snapshot() == data, where
        else:
            assert Action.from_json(data).to_json() == data, where


def _scratch(tmp_path: Path) -> Path:
    """A folder where the repository's top-level entries and the venv
    resolve; not `out/`, where the documents' commands write, so that what an
    earlier run left there does not change what they print."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".venv", "out"):
            (tmp_path / entry.name).symlink_to(entry)
    (tmp_path / ".venv").symlink_to(VENV_BIN.parent)
    return tmp_path


def _commands(text: str) -> list[str]:
    """The block's commands, one per logical line (continuations joined),
    with the setup steps left out."""
    logical, pending = [], ""
    for raw in text.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\") or line.rstrip().endswith("|"):
            pending = line.rstrip().rstrip("\\") + (" " if line.rstrip().endswith("\\") else "\n")
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            logical.append(line)
    out = []
    for command in logical:
        steps = [s.strip() for s in command.split(" && ")]
        steps = [s for s in steps if not any(p.fullmatch(s) for p in SETUP)]
        if steps:
            out.append(" && ".join(steps))
    return out


def _service(command: str) -> str | None:
    words = command.split()
    name = Path(words[0]).name if words else ""
    return SERVICES.get(name)


class Reader:
    """Runs one document's blocks in order in `folder`, with its services up."""

    def __init__(self, path: Path, folder: Path):
        self.path, self.folder = path, folder
        self.env = dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}",
                        PYTHONUNBUFFERED="1")
        self.services: list[ServiceProcess] = []

    def run(self, block: Block) -> str:
        """Runs the block; returns its standard output (its services' apart)."""
        where = f"{self.path.name}:{block.line}"
        if block.lang == "python":
            done = subprocess.run([sys.executable, "-c", block.text], cwd=self.folder, env=self.env,
                                  capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
            self._check(done, where)
            return done.stdout
        printed = ""
        for command in _commands(block.text):
            if command.endswith("-m pytest -q"):
                continue  # the README's test command: the suite this test runs in
            ready = _service(command)
            if ready is not None:
                try:
                    self.services.append(ServiceProcess(["bash", "-c", f"exec {command}"], ready,
                                                        name=command, cwd=str(self.folder),
                                                        env=self.env, timeout=60.0))
                except StartError as error:
                    pytest.fail(f"{where}: {command!r} did not start: {error}")
                continue
            feed = "quit\n" if Path(command.split()[0]).name == "cacao-play" else ""
            done = subprocess.run(["bash", "-c", f"set -eo pipefail\n{command}"], cwd=self.folder,
                                  env=self.env, input=feed, capture_output=True, text=True,
                                  timeout=BLOCK_TIMEOUT_S)
            self._check(done, f"{where}: {command}")
            printed += done.stdout
        return printed

    @staticmethod
    def _check(done: subprocess.CompletedProcess, where: str) -> None:
        if done.returncode != 0:
            pytest.fail(f"{where} exited {done.returncode}\n--- stdout\n{done.stdout[-3000:]}"
                        f"\n--- stderr\n{done.stderr[-3000:]}")

    def close(self) -> None:
        for service in reversed(self.services):
            service.stop(sig=signal.SIGTERM)


@pytest.mark.timeout(900)
@pytest.mark.requires_tool("jq")  # the shell examples read JSON with it
@pytest.mark.parametrize("path", [p for p in DOCS if any(b.lang in ("sh", "python") for b in blocks(p))],
                         ids=lambda p: p.name)
def test_every_command_and_program_of_the_document_runs(path, tmp_path):
    with _one_at_a_time(_starts_services(path)):
        _run_document(path, tmp_path)


def _starts_services(path: Path) -> bool:
    return any(_service(command) for block in blocks(path) if block.lang == "sh"
               for command in _commands(block.text))


@contextlib.contextmanager
def _one_at_a_time(needed: bool):
    """Documents that start services run one at a time, across the test
    workers too: their services listen on the default ports."""
    if not needed:
        yield
        return
    with open(Path(tempfile.gettempdir()) / "cacao-docs-services.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_document(path: Path, tmp_path: Path) -> None:
    reader = Reader(path, _scratch(tmp_path))
    shown = _shown_outputs(path)
    try:
        for block in blocks(path):
            if block.lang not in ("sh", "python"):
                continue
            printed = reader.run(block)
            if block.line in shown:
                output = shown[block.line]
                assert _lines(printed) == _lines(output.text), (
                    f"{path.name}:{output.line}: the output shown is not what the block at line "
                    f"{block.line} prints; it prints:\n{printed}")
    finally:
        reader.close()


def _shown_outputs(path: Path) -> dict[int, Block]:
    """The ``text`` blocks shown as the output of the code block just before them,
    by that block's first line."""
    lines = path.read_text().splitlines()
    found = blocks(path)
    return {code.line: shown for code, shown in zip(found, found[1:])
            if code.lang in ("sh", "python") and shown.lang == "text"
            and not any(line.strip() for line in lines[code.end:shown.line - 1])}


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def test_a_text_block_right_after_code_is_its_output_and_one_after_a_sentence_is_not(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
                    "```sh\necho 2\n```\n\nFor example:\n\n```text\n2 or 3\n```\n")
    shown = _shown_outputs(page)
    assert list(shown) == [1] and shown[1].text == "1\n"
