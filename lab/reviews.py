"""``cacao-review-batch``: many recorded games reviewed at once (a
tournament's, a club's), in this process, in local processes or on Ray.

Each game is reviewed by :func:`cacaoai.search.review.review` at an
iteration budget, with a seed derived from the batch's seed and the game's
place in the input, so a batch gives the same summaries on every run and
on any number of processes. It writes one summary a game (JSONL) and prints
a table per player (or per seat when the records name no players): games,
decisions, accuracy, mean loss and the counts per class.

The input is a JSONL file, one game a line: a cacao-record/1, or
``{"record": {...}, "players": ["alice", "bob"]}`` to name the seats'
players; or a folder of cacao-record/1 ``.json`` files (``cacao-arena``'s
records), read in name order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from cacaoai.engine import CacaoError, derive_seed, parse_record
from cacaoai.engine.cli import add_version_option
from cacaoai.search import Limit
from cacaoai.search.review import CLASSES, DEFAULT_LIMIT, ReviewSummary, review

from .pool import run_tasks

__all__ = ["Game", "PlayerTotals", "main", "read_games", "review_batch", "review_one", "totals"]


@dataclass(frozen=True)
class Game:
    """One game of the batch: its place in the input, where it came from, the
    record, and the seats' players (None: unnamed)."""

    index: int
    source: str
    record: dict[str, Any]
    players: tuple[str, ...] | None = None


@dataclass
class PlayerTotals:
    """A player's (or a seat's) decisions over the batch."""

    name: str
    games: int = 0
    decisions: int = 0
    accuracy_sum: float = 0.0
    loss_sum: float = 0.0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))

    @property
    def accuracy(self) -> float | None:
        return self.accuracy_sum / self.decisions if self.decisions else None

    @property
    def mean_loss(self) -> float | None:
        return self.loss_sum / self.decisions if self.decisions else None


def read_games(path: str) -> list[Game]:
    """The games of a JSONL file or a folder of records; ValueError naming
    the file, line and problem."""
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if n.endswith(".json"))
        games = []
        for i, name in enumerate(names):
            with open(os.path.join(path, name)) as f:
                games.append(_game(i, name, f.read()))
        return games
    with open(path) as f:
        lines = [(n, line) for n, line in enumerate(f, 1) if line.strip()]
    return [_game(i, f"{path}:{n}", line) for i, (n, line) in enumerate(lines)]


def _game(index: int, source: str, text: str) -> Game:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not JSON ({exc})") from None
    players = None
    if isinstance(data, dict) and "record" in data:
        players = data.get("players")
        data = data["record"]
    try:
        record = parse_record(data)
    except CacaoError as exc:
        raise ValueError(f"{source}: {exc}") from None
    if players is not None:
        if (not isinstance(players, list) or len(players) != record["players"]
                or not all(isinstance(p, str) and p for p in players)):
            raise ValueError(f"{source}: players: must be {record['players']} names, got {players!r}")
        players = tuple(players)
    return Game(index, source, record, players)


def review_one(task: tuple[Game, Limit, int]) -> dict[str, Any]:
    """One game reviewed: its summary as a JSON object (a module-level
    function, sent to pool workers and Ray tasks by name)."""
    game, limit, seed = task
    summary = None
    for item in review(game.record, limit, seed=derive_seed(seed, game.index), explanations=False):
        if isinstance(item, ReviewSummary):
            summary = item
    assert summary is not None
    return {"game": game.index, "source": game.source,
            "players": list(game.players) if game.players else None,
            "winners": (game.record.get("result") or {}).get("winners"), **summary.to_json()}


def review_batch(games: Sequence[Game], limit: Limit = DEFAULT_LIMIT, *, seed: int, processes: int = 1,
                 ray_address: str | None = None, progress: TextIO | None = None) -> list[dict[str, Any]]:
    """Every game's summary (review_one), in the games' order."""
    started = time.monotonic()
    done: list[dict[str, Any]] = []
    for summary in run_tasks(review_one, [(g, limit, seed) for g in games], processes, ray_address):
        done.append(summary)
        if progress is not None:
            progress.write(f"\rreviewed {len(done)}/{len(games)} games, {time.monotonic() - started:.0f} s ")
            progress.flush()
    if progress is not None:
        progress.write("\n")
    return sorted(done, key=lambda s: s["game"])


def totals(summaries: Sequence[dict[str, Any]]) -> list[PlayerTotals]:
    """The decisions summed per player (per seat, "seat N", for games that name no players)."""
    table: dict[str, PlayerTotals] = {}
    for summary in summaries:
        for seat in summary["seats"]:
            names = summary["players"]
            name = names[seat["seat"]] if names else f"seat {seat['seat']}"
            row = table.setdefault(name, PlayerTotals(name))
            row.games += 1
            n = seat["decisions"]
            row.decisions += n
            row.accuracy_sum += (seat["accuracy"] or 0.0) * n
            row.loss_sum += (seat["mean_win_loss"] or 0.0) * n
            for c in CLASSES:
                row.counts[c] += seat["counts"].get(c, 0)
    return sorted(table.values(), key=lambda r: r.name)


def table_lines(rows: Sequence[PlayerTotals]) -> Iterator[str]:
    """The per-player table as text."""
    width = max([len("player")] + [len(r.name) for r in rows])
    yield (f"{'player':<{width}} {'games':>6} {'decisions':>9} {'accuracy':>8} {'loss':>6}  "
           + " ".join(f"{c:>10}" for c in CLASSES))
    for r in rows:
        accuracy = f"{r.accuracy:.1f}" if r.accuracy is not None else "-"
        loss = f"{r.mean_loss:.3f}" if r.mean_loss is not None else "-"
        yield (f"{r.name:<{width}} {r.games:>6} {r.decisions:>9} {accuracy:>8} {loss:>6}  "
               + " ".join(f"{r.counts[c]:>10}" for c in CLASSES))


EXAMPLES = """\
examples:
  cacao-review-batch games.jsonl --out summaries.jsonl --processes 2
  cacao-review-batch out/arena-20260101-120000 --iterations 300 --ray local
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``cacao-review-batch``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="cacao-review-batch", description="Review many recorded games: one summary a game "
        "(JSONL) and a table per player.", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("records", help="a JSONL file (a record, or {record, players}, a line) "
                        "or a folder of cacao-record/1 .json files")
    parser.add_argument("--iterations", type=int, default=DEFAULT_LIMIT.iterations,
                        help="search iterations per decision (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="the batch's seed (default: %(default)s)")
    parser.add_argument("--processes", type=int, default=1, help="local worker processes (default: 1)")
    parser.add_argument("--ray", metavar="ADDRESS", help="run on Ray: 'local', 'auto' or ray://host:port")
    parser.add_argument("--out", metavar="FILE", help="write the summaries here, one game a line")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.iterations is None or args.iterations < 1:
        parser.error(f"--iterations: must be at least 1, got {args.iterations}")
    if args.processes < 1:
        parser.error(f"--processes: must be at least 1, got {args.processes}")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed: must be in 0..2**64-1, got {args.seed}")
    try:
        games = read_games(args.records)
    except (OSError, ValueError) as exc:
        parser.error(f"records: {exc}")
    if not games:
        parser.error(f"records: no games in {args.records}")
    summaries = review_batch(games, Limit(iterations=args.iterations), seed=args.seed,
                             processes=args.processes, ray_address=args.ray,
                             progress=None if args.quiet else sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(s) + "\n" for s in summaries)
    print("\n".join(table_lines(totals(summaries))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
