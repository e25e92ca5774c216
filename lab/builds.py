"""Bots of another build of cacaoai, each in a worker process of its own.

A :class:`Worker` is a Python process that imports cacaoai from a folder put
first on its PYTHONPATH (another build, e.g. an earlier commit installed with
``pip install --no-deps --target DIR``) and answers positions with the action
code its bot chooses; the game itself is kept by this build, and codes are the
same in both builds. :class:`BuildBot` puts such a worker behind the
:class:`~cacaoai.search.bots.Bot` interface, so that the ladder and
``benchmarks/compare_builds.py`` can seat another build's bot like any other.

A worker only chooses moves: it never ponders. A bot whose spec keeps its trees
(``reuse=1`` or ``ponder=1``) gets the game's last positions and actions with
each move, as the arena gives them, so it continues its trees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from cacaoai.engine import Action, Position
from cacaoai.search.bots import Bot, History

__all__ = ["OLD_PREFIX", "WORKER", "BuildBot", "Worker", "keeps_trees"]

OLD_PREFIX = "old:"     # a bot spec that starts with this plays on the other build

# The worker's program: the same text runs against either build, so it uses
# only what every build has (parse_bot, snapshots, action codes).
WORKER = r"""
import json, os, sys, time
import cacaoai.search
from cacaoai.engine import Position
from cacaoai.search.bots import parse_bot
bot = parse_bot(sys.argv[1])
print(json.dumps({"module": cacaoai.search.__file__}), flush=True)
game = None
try:
    for line in sys.stdin:
        job = json.loads(line)
        position = Position.from_snapshot(job["snapshot"])
        if "history" not in job:
            start = time.perf_counter()
            action = bot.choose(position, job["seed"])
        else:                   # a bot that keeps its trees: the game so far, as the arena gives it
            if job["game"] != game:
                game = job["game"]
                bot.new_game()
            history = [(Position.from_snapshot(s), code) for s, code in job["history"]]
            start = time.perf_counter()
            action = bot.choose(position, job["seed"], history)
        spent = time.perf_counter() - start
        print(json.dumps({"code": position.encode(action), "seconds": spent}), flush=True)
except (BrokenPipeError, KeyboardInterrupt):   # the games ended early (an SPRT decided): leave quietly
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
"""


class Worker:
    """A process that answers positions with its build's bot.

    `path` is the folder holding the build's cacaoai (put first on
    PYTHONPATH); None: this interpreter's installed cacaoai (PYTHONPATH
    cleared). Raises RuntimeError when the worker does not start (a spec its
    build does not know) or imports another build than the one asked for.
    """

    def __init__(self, spec: str, path: str | None):
        env = dict(os.environ)
        if path:
            env["PYTHONPATH"] = path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        else:
            env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, spec], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")
        self.seconds = 0.0
        self.moves = 0
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise RuntimeError(f"the worker for {spec!r} (build {path or 'installed'}) did not start; "
                               "its error is above")
        self.module = json.loads(line)["module"]
        inside = bool(path) and os.path.abspath(self.module).startswith(os.path.abspath(path or "") + os.sep)
        if inside != bool(path):
            raise RuntimeError(f"the worker imported {self.module}, not the build asked for")

    def choose(self, snapshot: dict[str, Any], seed: int, game: int,
               history: list[tuple[dict[str, Any], int]] | None = None) -> int:
        """The worker's action code; `history` (snapshots and codes, oldest
        first) only for a bot that keeps its trees (its spec says reuse)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        job: dict[str, Any] = {"snapshot": snapshot, "seed": seed}
        if history is not None:
            job.update(history=history, game=game)
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("a worker died")
        answer = json.loads(line)
        self.seconds += answer["seconds"]
        self.moves += 1
        return int(answer["code"])

    def close(self) -> None:
        """End the worker (it ends by itself when this process does)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def keeps_trees(spec: str) -> bool:
    """Whether a bot spec keeps its search trees across moves (reuse or ponder)."""
    _, _, settings = spec.partition(":")
    return any(part.replace(" ", "") in ("reuse=1", "ponder=1") for part in settings.split(","))


class BuildBot(Bot):
    """The bot of `spec` as another build plays it, from a worker process.

    The worker starts at the first move (so a bot may be made in one process
    and play in a forked one). Its `spec` is ``old:`` + the inner spec.
    """

    def __init__(self, spec: str, path: str):
        if not path:
            raise ValueError(f"{OLD_PREFIX}{spec}: give the other build's folder (--old-path)")
        self.inner = spec
        self.path = path
        self.spec = OLD_PREFIX + spec
        self.history = keeps_trees(spec)
        self.worker: Worker | None = None
        self.games = 0

    def choose(self, position: Position, rng_seed: int, history: History = ()) -> Action:
        if self.worker is None:
            self.worker = Worker(self.inner, self.path)
        past = None
        if self.history:
            past = [(p.snapshot(), p.encode(a)) for p, a in history]
        code = self.worker.choose(position.snapshot(), rng_seed, self.games, past)
        return position.decode(code)

    def new_game(self) -> None:
        self.games += 1

    def close(self) -> None:
        """End the worker."""
        if self.worker is not None:
            self.worker.close()
            self.worker = None
