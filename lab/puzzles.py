"""``cacao-puzzles``: puzzles found in self-play, rated by the levels
(:mod:`cacaoai.search.puzzles` holds the puzzles and the shipped set).

    cacao-puzzles generate --players 2 3 4 --levels club advanced strong --games 40 \\
        --seed 1 --processes 2 --out puzzles.jsonl

Game g of a player count and level is dealt from a seed of its own (the run's
seed, STREAM, the player count, the level and g) and played by that level in
every seat, the move of ply p chosen with ``derive_seed(deal, p)``. Every
decision where the seat to act has at least two legal actions is examined
(:func:`examine`), from that seat's view only:

1. **Exact** (the endgame solver): once nothing is hidden
   (``endgame.fully_known``) and at most ``Budget.exact_placements``
   placements are left, every root action is solved exactly
   (``solve(values=None)``, within ``Budget.exact_nodes``); a puzzle when
   proved and the best action's win share is at least MIN_GAP above the
   best other action's (with 3-4 players the values are what the seat gets
   against all the others together). The solutions are every action with
   the best (share, margin), a placement first (the themes are read from
   the first: an overbuild is the point only when no placement is as
   good). An unproved position goes on to 2.
2. **Searched**: a cheap pre-filter first, the ``strong`` level's search
   (without the endgame solver, as every search of this step, so that the
   values compared are all the trees', on one scale): its best candidate's
   win probability at least ``Budget.prefilter_gap`` above every other
   candidate with at least PREFILTER_VISITS visits. Then :func:`deep_check`
   at two seeds, the first with ``Budget.deep_iterations``, the second with
   twice as many (a gap that melts as the search looks deeper is caught).
   Each is a search with the analysis settings (DEEP) of TREES trees whose
   root figures are summed, then the best alternative's value, from a
   search of ALT_SHARE of that budget which gives it most of its visits:

   - with three legal actions or more, the same trees continued while
     avoiding the best action; the best alternative is the highest win
     probability among its candidates with at least ALT_VISITS of its most
     visited one's visits (so every other action had the chance to show
     its worth, and a handful of visits is not read as a value);
   - with two (avoiding one leaves nothing to search), the other action is
     played in a determinization of the seat's view and the position it
     leads to is searched for the seat.

   A puzzle when both seeds choose the same best action and at both its
   win probability is at least ``Budget.deep_gap`` (0.25: MIN_GAP and a
   margin) above the best alternative's; the gap is the smaller of the
   two. The only solution is that action.

**Themes**: :func:`cacaoai.search.puzzles.themes_of` on the explanation
(:func:`cacaoai.search.explain.explain`) of the best line against the best
other line: the searches' principal variations, or for an exact puzzle the
lines the solver plays from each action (every seat its own best, in a
determinization of the seat's view, the one the explanation replays first).
A puzzle whose explanation shows no theme is left out.

**Rating**: the levels, weakest first, play the puzzle from its view at two
seeds (:func:`~cacaoai.search.puzzles.solves`); the first that finds a
solution at both gives the rating (``rating_for``: beginner 600, 200 more a
level, max 1800; 2200 when even max misses it).

The puzzles are the same for a seed and budget however many processes run.
With ``--journal FILE`` each finished game's puzzles are appended there and
a run started again with the same seed and budget skips those games: it
resumes, or adds games, levels or player counts to what was played.
Progress goes to stderr; the puzzles to ``--out``, one a line, sorted by id.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from cacaoai.engine import Action, Position, derive_seed
from cacaoai.engine.cli import add_version_option
from cacaoai.search import ANALYSIS, Candidate, Limit, Question, Reuse, SearchResult, TreeCache, endgame, search
from cacaoai.search.bots import LEVELS, levels, parse_bot
from cacaoai.search.explain import explain, sentence
from cacaoai.search.puzzles import LEVEL_ORDER, MIN_GAP, THEMES, Puzzle, load, rating_for, solves, themes_of

from .pool import run_tasks

__all__ = ["ALT_SHARE", "ALT_VISITS", "PREFILTER_VISITS", "Budget", "DeepCheck", "deep_check", "examine",
           "exact_check", "generate", "main", "play_game", "rate"]

STREAM = 0x9022     # the deals of puzzle self-play: their own stream of seeds
JOURNAL_FORMAT = "cacao-puzzles-journal/1"
#: The share of the deep search's budget its search of the alternatives gets.
ALT_SHARE = 0.5
#: A candidate of the alternatives' search counts when it has at least this
#: share of the most visited one's visits (fewer: its value is noise).
ALT_VISITS = 0.1
#: The fewest visits of a pre-filter candidate that counts against the best.
PREFILTER_VISITS = 3
#: Seeds each deep check and each level's attempt is run at.
SEEDS = 2
#: Most plies of an exact puzzle's lines, for its explanation.
LINE_PLIES = 8
#: The nodes each step of an exact puzzle's line may spend.
LINE_NODES = 200_000
CACHE_BYTES = 256 * 2**20
#: The trees of each deep search (root parallelism: their root figures are
#: summed). One tree's values of an action vary a lot from seed to seed late
#: in 3-4 player games (the lines its opponents settle on differ); the sum
#: of several independent trees varies less.
TREES = 4
#: The deep searches' settings: the analysis settings without the endgame
#: solver, so that every value compared is the tree's (a solved result's
#: values, paranoid with 3-4 players, are on another scale than a restricted
#: search's tree values; exact puzzles are step 1's).
DEEP = replace(ANALYSIS, endgame=0.0)


@dataclass(frozen=True)
class Budget:
    """How hard :func:`examine` looks.

    Attributes:
        exact_placements: the most placements left where the solver is tried.
        exact_nodes: the solver's node budget.
        prefilter: the level whose search pre-filters the searched puzzles.
        prefilter_gap: the win probability by which its best candidate must lead.
        deep_iterations: the first deep search's iterations (analysis
            settings); the second, at another seed, searches twice as many.
        deep_gap: the gap both deep searches must find (MIN_GAP and a margin:
            a gap found near MIN_GAP is often below it at a larger budget).
        rate: rate the puzzles found (False: rating 0, for quick runs and tests).
    """

    exact_placements: int = 4
    exact_nodes: int = 5_000_000
    prefilter: str = "strong"
    prefilter_gap: float = 0.25
    deep_iterations: int = 4000
    deep_gap: float = 0.25
    rate: bool = True


@dataclass(frozen=True)
class DeepCheck:
    """What the deep searches found: the best action, the smallest gap over
    the seeds, and (at the first seed) the best line and the best
    alternative's line."""

    best: Action
    gap: float
    line: tuple[Action, ...]
    other_line: tuple[Action, ...]


def exact_check(position: Position, nodes: int) -> tuple[tuple[int, ...], int, float] | None:
    """The endgame solver's verdict for the seat to act: (the codes of every
    best action, the best other action's code, the gap in win share), or
    None when not proved or no other action is worse."""
    solved = endgame.solve(position, max_nodes=nodes)
    if not solved.proved:
        return None
    best = solved.best
    others = [a for a in solved.actions if a.code not in best]
    if not others:
        return None
    return best, others[0].code, solved.actions[0].share - others[0].share


def deep_check(position: Position, checks: Sequence[tuple[int, int]], min_gap: float = MIN_GAP,
               trees: int = TREES) -> DeepCheck | None:
    """The deep searches of the module's step 2, one (iterations, seed) of
    `checks` after the other, each search `trees` trees sharing its
    iterations; None unless they all choose one best action at least
    `min_gap` above the best alternative."""
    codes = position.legal_codes()
    found: list[DeepCheck] = []
    for iterations, seed in checks:
        cache = TreeCache(CACHE_BYTES)
        first = search(position, Limit(iterations=iterations, threads=trees), DEEP, seed=seed, reuse=Reuse(cache),
                       question=Question(multipv=1, calibrated=False))
        best = first.best_action
        assert best is not None
        others = [position.decode(c) for c in codes if position.decode(c) != best]
        more = Limit(iterations=max(trees, round(iterations * ALT_SHARE)), threads=trees)
        top = _candidate(first, best).win_probability
        other_line: tuple[Action, ...]
        if len(others) == 1:
            runner, other_line = _after(position, others[0], more, seed), (others[0],)
        else:
            alt = search(position, more, DEEP, seed=seed, reuse=Reuse(cache),
                         question=Question(avoid=[best], multipv=1, calibrated=False))
            most = max(c.visits for c in alt.candidates)
            counted = [c for c in alt.candidates if c.win_probability is not None
                       and (c.order == 0 or c.visits >= ALT_VISITS * most)]
            second = max(counted, key=lambda c: c.win_probability or 0.0)
            runner, other_line = second.win_probability, _line(alt, second.action)
        if top is None or runner is None:
            return None
        gap = top - runner
        if gap < min_gap or (found and best != found[0].best):
            return None
        found.append(DeepCheck(best, gap, _line(first, best), other_line))
    return replace(found[0], gap=min(f.gap for f in found))


def _after(position: Position, action: Action, limit: Limit, seed: int) -> float | None:
    """The win probability of the seat to act after `action`: a search for
    that seat of the position it leads to, in a determinization of the
    seat's view (seeded `seed`: the draws the action makes are a guess, not
    the game's), its own forced actions played; the exact share once the
    game is over."""
    seat = position.to_act
    assert seat is not None
    game = Position.from_observation(position.observation(seat), seed)
    game.apply(action)
    while not game.is_over and game.to_act == seat and len(game.legal_codes()) == 1:
        game.apply(game.legal_codes()[0])
    result = game.result()
    if result is not None:
        return 1.0 / len(result.winners) if seat in result.winners else 0.0
    found = search(game, limit, DEEP, seed=seed, question=Question(seat=seat, multipv=0, calibrated=False))
    return None if found.win_probability is None else found.win_probability[seat]


def _candidate(result: SearchResult, action: Action) -> Candidate:
    found = next((c for c in result.candidates if c.action == action), None)
    if found is None:
        raise RuntimeError(f"the search never tried {action}")
    return found


def _line(result: SearchResult, action: Action) -> tuple[Action, ...]:
    """The expected line from `action`: its candidate's, the result's when it starts with it, or the action alone."""
    found = next((c for c in result.candidates if c.action == action), None)
    if found is not None and found.principal_variation:
        return found.principal_variation
    if result.principal_variation[:1] == (action,):
        return result.principal_variation
    return (action,)


def _solver_line(view: dict[str, Any], first: Action, seed: int) -> tuple[Action, ...]:
    """`first`, then each seat's solved best action, in the determinization of
    `view` that explain(..., seed=seed) replays first (up to LINE_PLIES)."""
    game = Position.from_observation(view, derive_seed(seed, 0))
    line = [first]
    game.apply(first)
    while not game.is_over and len(line) < LINE_PLIES:
        solved = endgame.solve(game, max_nodes=LINE_NODES, values=0)
        if not solved.proved:
            break
        action = game.decode(solved.actions[0].code)
        line.append(action)
        game.apply(action)
    return tuple(line)


def prefilter(position: Position, level: str, gap: float, seed: int) -> bool:
    """Whether the level's search leads with one candidate by `gap` (see the module's step 2)."""
    chosen = levels()[level]
    result = search(position, chosen.limit, replace(chosen.settings, endgame=0.0), seed=seed,
                    question=Question(multipv=0, calibrated=False))
    best = result.best_action
    top = next((c for c in result.candidates if c.action == best), None)
    if top is None or top.win_probability is None:
        return False
    rivals = [c.win_probability for c in result.candidates
              if c.action != best and c.win_probability is not None and c.visits >= PREFILTER_VISITS]
    return not rivals or top.win_probability - max(rivals) >= gap


def examine(position: Position, budget: Budget, seed: int, id: str, source: str) -> Puzzle | None:
    """The puzzle of the seat to act in `position`, or None (the module's
    steps 1 and 2, the themes and the rating)."""
    seat = position.to_act
    codes = position.legal_codes()
    if seat is None or len(codes) < 2:
        return None
    view = position.observation(seat)
    seeds = [derive_seed(seed, k) for k in range(SEEDS)]
    explain_seed = derive_seed(seed, SEEDS)
    exact = None
    if endgame.fully_known(position) and endgame.placements_left(position) <= budget.exact_placements:
        exact = exact_check(position, budget.exact_nodes)
    if exact is not None:
        best_codes, other, gap = exact
        if gap < MIN_GAP:
            return None
        # an overbuild (or a resolution) is the point only when no other kind of action is as good
        solutions = tuple(sorted((position.decode(c) for c in best_codes),
                                 key=lambda a: (a.type in ("overbuild", "resolve"), a.canonical())))
        line = _solver_line(view, solutions[0], explain_seed)
        other_line = _solver_line(view, position.decode(other), explain_seed)
    else:
        if not prefilter(position, budget.prefilter, budget.prefilter_gap, derive_seed(seed, SEEDS + 1)):
            return None
        found = deep_check(position, [(budget.deep_iterations, seeds[0]), (2 * budget.deep_iterations, seeds[1])],
                           budget.deep_gap)
        if found is None:
            return None
        solutions, gap, line, other_line = (found.best,), found.gap, found.line, found.other_line
    explanation = explain(position, seat, line, other_line, seed=explain_seed)
    themes = themes_of(explanation, solutions[0], exact is not None)
    if not themes:
        return None
    puzzle = Puzzle(id, position.players, seat, view, solutions, themes, 0, round(gap, 4), exact is not None,
                    sentence(explanation), source)
    return replace(puzzle, rating=rate(puzzle, seed)) if budget.rate else puzzle


def rate(puzzle: Puzzle, seed: int) -> int:
    """The puzzle's rating: the weakest level (LEVEL_ORDER) that solves it
    at SEEDS seeds derived from `seed` (module docstring)."""
    for level in LEVEL_ORDER:
        if all(solves(puzzle, level, derive_seed(seed, 100 + k)) for k in range(SEEDS)):
            return rating_for(level)
    return rating_for(None)


def rate_seed(seed: int, puzzle_id: str) -> int:
    """The seed a puzzle is rated with by ``cacao-puzzles rate``: from the
    run's seed and the puzzle's id, so not from its place in a file."""
    return derive_seed(seed, int.from_bytes(hashlib.sha256(puzzle_id.encode()).digest()[:8], "little"))


def _rate_task(task: tuple[dict[str, Any], int]) -> dict[str, Any]:
    data, seed = task
    puzzle = Puzzle.from_json(data)
    return {**data, "rating": rate(puzzle, rate_seed(seed, puzzle.id))}


def rerate(puzzles: Sequence[dict[str, Any]], seed: int, processes: int = 1,
           progress: Any = None) -> list[dict[str, Any]]:
    """The puzzles (JSON) rated again by today's levels, in their order: after
    a level or the model the levels search with changes, a puzzle's
    solutions and themes stand, but which level solves it may not."""
    rated: dict[str, dict[str, Any]] = {}
    for data in run_tasks(_rate_task, [(p, seed) for p in puzzles], processes):
        rated[data["id"]] = data
        if progress is not None:
            progress.write(f"\r{len(rated)}/{len(puzzles)} puzzles rated ")
            progress.flush()
    if progress is not None:
        progress.write("\n")
    return [rated[p["id"]] for p in puzzles]


# --- games ---

def deal_seed(seed: int, players: int, level: str, game: int) -> int:
    """The deal of game `game` of `level` self-play with `players` seats."""
    return derive_seed(derive_seed(derive_seed(seed, STREAM), players), list(LEVELS).index(level) << 32 | game)


def play_game(task: tuple[int, str, int, int, Budget]) -> dict[str, Any]:
    """One game of the level's self-play, every decision examined: the
    task's key, its decisions and its puzzles' JSON (a module-level
    function, sent to pool workers by name)."""
    players, level, game, seed, budget = task
    deal = deal_seed(seed, players, level, game)
    bot = parse_bot(f"level:{level}")
    position = Position.new(players, deal)
    puzzles, decisions, ply = [], 0, 0
    while not position.is_over:
        if len(position.legal_codes()) >= 2:
            decisions += 1
            puzzle = examine(position, budget, derive_seed(derive_seed(deal, ply), 1),
                             f"{players}p-{level}-{game:04d}-{ply:03d}",
                             f"{level} self-play, {players} players, game {game}, decision {ply}")
            if puzzle is not None:
                puzzles.append(puzzle.to_json())
        position.apply(bot.choose(position, derive_seed(deal, ply)))
        ply += 1
    return {"task": [players, level, game], "decisions": decisions, "puzzles": puzzles}


def generate(players: Sequence[int], level_names: Sequence[str], games: int, seed: int, budget: Budget = Budget(),
             processes: int = 1, journal: str | Path | None = None, progress: Any = None) -> list[dict[str, Any]]:
    """Every game's puzzles (JSON), sorted by id. With `journal`, the games
    it holds (from runs with the same seed and budget: a game depends on
    nothing else) are read, not played again, and each new one is appended
    as it finishes; so a run may be resumed, or given more games, levels or
    player counts."""
    header = {"format": JOURNAL_FORMAT, "seed": seed, "budget": asdict(budget)}
    wanted = [(p, level, g) for p in players for level in level_names for g in range(games)]
    kept = _read_journal(journal, header) if journal else {}
    done = {key: kept[key] for key in wanted if key in kept}
    tasks = [(*key, seed, budget) for key in wanted if key not in done]
    started, found = time.monotonic(), sum(len(r["puzzles"]) for r in done.values())
    finished = len(done)
    out = None
    if journal:
        fresh = not os.path.exists(journal) or os.path.getsize(journal) == 0
        if not fresh:
            _trim(journal)
        out = open(journal, "a", encoding="utf-8")
        if fresh:
            out.write(json.dumps(header) + "\n")
    try:
        for result in run_tasks(play_game, tasks, processes):
            done[tuple(result["task"])] = result
            finished += 1
            found += len(result["puzzles"])
            if out is not None:
                out.write(json.dumps(result) + "\n")
                out.flush()
            if progress is not None:
                progress.write(f"\r{finished}/{len(wanted)} games, {found} puzzles, "
                               f"{time.monotonic() - started:.0f} s ")
                progress.flush()
    finally:
        if out is not None:
            out.close()
    if progress is not None:
        progress.write("\n")
    return sorted((p for r in done.values() for p in r["puzzles"]), key=lambda p: p["id"])


def _trim(path: str | Path) -> None:
    """Cut a last line that was never finished off the file."""
    with open(path, "rb+") as f:
        data = f.read()
        if not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def _read_journal(path: str | Path, header: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The games a journal holds, by (players, level, game); ValueError when
    it is of another seed or budget. A last line cut short (a run killed
    while writing it) is left out: that game is played again."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    try:
        first = json.loads(lines[0])
    except ValueError:
        first = None
    if first != header:
        raise ValueError(f"--journal: {path} is of a run with another seed or budget; "
                         "give another file or remove it")
    games = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            result = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise ValueError(f"--journal: {path}:{number} is not JSON") from None
        games[tuple(result["task"])] = result
    return games


def summary_lines(puzzles: Sequence[dict[str, Any]]) -> list[str]:
    """Counts by player count, source level, theme and rating."""
    lines = [f"{len(puzzles)} puzzles, {sum(p['exact'] for p in puzzles)} exact"]
    for name, key in (("players", lambda p: [p["players"]]), ("level", lambda p: [p["id"].split("-")[1]]),
                      ("theme", lambda p: p["themes"]), ("rating", lambda p: [p["rating"]])):
        counts = Counter(k for p in puzzles for k in key(p))
        order = THEMES if name == "theme" else sorted(counts)
        lines.append(f"  {name}: " + (", ".join(f"{k} {counts[k]}" for k in order) or "none"))
    return lines


EXAMPLES = """\
examples:
  cacao-puzzles generate --players 2 --levels club --games 2 --out /tmp/puzzles.jsonl
  cacao-puzzles generate --players 2 3 4 --levels club advanced strong --games 40 --seed 1 \\
      --processes 2 --journal /tmp/journal.jsonl --out search/puzzle_set/puzzles.jsonl
  cacao-puzzles rate --in search/puzzle_set/puzzles.jsonl --out /tmp/rated.jsonl --processes 2
"""


def _rate_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.processes < 1:
        parser.error(f"--processes: must be at least 1, got {args.processes}")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed: must be in 0..2**64-1, got {args.seed}")
    try:
        puzzles = [p.to_json() for p in load(args.source)]
    except (OSError, ValueError) as exc:
        parser.error(f"--in: {exc}")
    started = time.monotonic()
    rated = rerate(puzzles, args.seed, args.processes, None if args.quiet else sys.stderr)
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(p, separators=(",", ":")) + "\n" for p in rated)
    except OSError as exc:
        parser.error(f"--out: {exc}")
    moved = sum(a["rating"] != b["rating"] for a, b in zip(puzzles, rated))
    print("\n".join(summary_lines(rated)))
    print(f"{moved} of {len(rated)} ratings changed; {time.monotonic() - started:.0f} s; written to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``cacao-puzzles``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="cacao-puzzles", description="Find puzzles (one clearly best action) in self-play and rate "
        "them by the levels that solve them.", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    gen = sub.add_parser("generate", help="play self-play games and write the puzzles found",
                         description="Play self-play games at each level and player count, examine every "
                         "decision, and write the puzzles found (JSONL, sorted by id).")
    default = Budget()
    gen.add_argument("--players", type=int, nargs="+", default=[2], help="player counts (default: 2)")
    gen.add_argument("--levels", nargs="+", default=["strong"], metavar="LEVEL",
                     help=f"the levels that play the games: {', '.join(LEVELS)} (default: strong)")
    gen.add_argument("--games", type=int, default=10, help="games per level and player count (default: 10)")
    gen.add_argument("--seed", type=int, default=1, help="the run's seed (default: %(default)s)")
    gen.add_argument("--processes", type=int, default=1, help="local worker processes (default: 1)")
    gen.add_argument("--out", metavar="FILE", required=True, help="write the puzzles here, one a line")
    gen.add_argument("--journal", metavar="FILE",
                     help="append each finished game here, and skip the games it holds (resume a run)")
    gen.add_argument("--deep-iterations", type=int, default=default.deep_iterations,
                     help="iterations of each deep search (default: %(default)s)")
    gen.add_argument("--exact-nodes", type=int, default=default.exact_nodes,
                     help="the endgame solver's node budget (default: %(default)s)")
    gen.add_argument("--exact-placements", type=int, default=default.exact_placements,
                     help="the most placements left where the solver is tried (default: %(default)s)")
    gen.add_argument("--no-rating", action="store_true", help="do not rate the puzzles (rating 0)")
    gen.add_argument("--quiet", action="store_true", help="no progress on stderr")
    rat = sub.add_parser("rate", help="rate puzzles again by today's levels",
                         description="Rate the puzzles of a file again by the levels as they are now (after a "
                         "level or the model changed), at seeds from --seed and each puzzle's id; "
                         "everything else of a puzzle is kept.")
    rat.add_argument("--in", dest="source", metavar="FILE", required=True, help="the puzzles, one a line")
    rat.add_argument("--out", metavar="FILE", required=True, help="write the rated puzzles here (may be --in)")
    rat.add_argument("--seed", type=int, default=1, help="the run's seed (default: %(default)s)")
    rat.add_argument("--processes", type=int, default=1, help="local worker processes (default: 1)")
    rat.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.command == "rate":
        return _rate_command(parser, args)
    if any(p not in (2, 3, 4) for p in args.players):
        parser.error(f"--players: must be 2, 3 or 4, got {args.players}")
    unknown = [name for name in args.levels if name not in LEVELS]
    if unknown:
        parser.error(f"--levels: unknown level {unknown[0]!r}; levels: {', '.join(LEVELS)}")
    for name in ("games", "processes", "deep_iterations", "exact_nodes"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: must be at least 1, got {getattr(args, name)}")
    if args.exact_placements < 0:
        parser.error(f"--exact-placements: must be at least 0, got {args.exact_placements}")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed: must be in 0..2**64-1, got {args.seed}")
    budget = Budget(exact_placements=args.exact_placements, exact_nodes=args.exact_nodes,
                    deep_iterations=args.deep_iterations, rate=not args.no_rating)
    parent = os.getpid()

    def interrupt(signum: int, frame: Any) -> None:   # the pool's forked workers ignore it
        if os.getpid() == parent:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    started = time.monotonic()
    try:
        puzzles = generate(args.players, args.levels, args.games, args.seed, budget, args.processes,
                           args.journal, None if args.quiet else sys.stderr)
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        sys.stderr.write(("" if args.quiet else "\n") + "cacao-puzzles: interrupted\n")
        return 130
    with open(args.out, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(p, separators=(",", ":")) + "\n" for p in puzzles)
    try:
        print("\n".join(summary_lines(puzzles)))
        print(f"{time.monotonic() - started:.0f} s; written to {args.out}", flush=True)
    except BrokenPipeError:     # the reader went away: the puzzles are written; no more output
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    return 0


if __name__ == "__main__":
    sys.exit(main())
