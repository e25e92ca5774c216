"""cacao-arena: play bots against each other and measure their strength.

    cacao-arena --players 2 --games 400 mcts:iterations=1000 greedy
    cacao-arena --players 4 --games 200 mcts greedy greedy greedy --json
    cacao-arena --players 2 --games 400 --processes 1 mcts:time=0.05,reuse=1 mcts:time=0.05

Seats rotate: game g is played on deal g // players with bot i in seat
(i + g) % players, so every deal is played once in every seating and seat
order favours nobody (first player included, since the deal fixes it). Games
run in local worker processes, or with ``--ray ADDRESS`` as tasks on a Ray
cluster (``pip install 'cacaoai[ray]'``; ``--ray local`` starts a one-machine
cluster); either way a game depends only on its seed and number, and the
summary is taken in game order, so the results are the same. A progress bar
goes to stderr. Every game is written
as a cacao-record/1 file into the records folder. Shared wins count as a
fraction (1 / number of winners); the 95% interval is Wilson's.

Bots see the game's history (the last HISTORY_PLIES positions and the action
played from each), so a bot with ``reuse=1`` continues its search trees from
move to move, and one with ``ponder=1`` also searches for its seat on the
others' turns (before the seat to act chooses, with its own budget); each
starts every game with an empty TreeCache. The summary then gives their mean
root visits and mean reused visits per search for a move.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from cacaoai.engine import Position, derive_seed
from cacaoai.engine.cli import add_version_option
from cacaoai.search.bots import Bot, parse_bot

_BOTS: dict[tuple[str, int], Bot] = {}
HISTORY_PLIES = 16


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _bot(spec: str, index: int) -> Bot:
    """The bot of player `index` (one object per player: a reusing bot's trees are its own)."""
    bot = _BOTS.get((spec, index))
    if bot is None:
        bot = _BOTS[spec, index] = parse_bot(spec)
    return bot


def play_deal(players: int, deal_seed: int, game_seed: int, seating: Sequence[int], bots: Sequence[Bot],
              observe: Callable[[Position, int], None] | None = None) -> Position:
    """Play one game from the deal of `deal_seed` to its end and return the final position.

    `seating[seat]` is the index in `bots` of the bot in that seat. The move
    of ply p is chosen with seed ``derive_seed(game_seed, p)``; bots that
    ponder think for their seats first. `observe(position, ply)`, when given,
    sees each position before its move is chosen (it must not modify it).
    """
    return play_out(Position.new(players, deal_seed), game_seed, seating, bots, observe)


def play_out(position: Position, game_seed: int, seating: Sequence[int], bots: Sequence[Bot],
             observe: Callable[[Position, int], None] | None = None) -> Position:
    """Play `position` on to the game's end as :func:`play_deal` plays a deal
    (plies counted from it) and return the final position; the bots start a
    new game first."""
    for bot in bots:
        bot.new_game()
    history: list[tuple[Position, Any]] = []
    ply = 0
    players = position.players
    while not position.is_over:
        seat = position.to_act
        assert seat is not None
        bot = bots[seating[seat]]
        if observe is not None:
            observe(position, ply)
        move_seed = derive_seed(game_seed, ply)
        for other in range(players):           # bots that ponder think on the others' turns
            if other != seat:
                bots[seating[other]].ponder(position, other, move_seed, history[-HISTORY_PLIES:])
        action = bot.choose(position, move_seed, history[-HISTORY_PLIES:])
        history.append((position.clone(), action))
        position.apply(action)
        ply += 1
    return position


def play_game(task: tuple[int, int, int, Sequence[str]]) -> dict[str, Any]:
    """Play game `g`: returns the seating, the result and the record."""
    g, players, seed, specs = task
    deal_seed = derive_seed(seed, g // players)   # each deal played once from every seat
    game_seed = derive_seed(deal_seed, g)
    seating = [(s - g) % players for s in range(players)]   # seat -> bot index
    bots = [_bot(spec, i) for i, spec in enumerate(specs)]
    position = play_deal(players, deal_seed, game_seed, seating, bots)
    result = position.result()
    assert result is not None
    return {"game": g, "deal_seed": deal_seed, "seating": seating, "gold": result.gold,
            "winners": result.winners, "record": position.record(),
            "search": [dict(getattr(bot, "stats", {})) for bot in bots]}


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = int(width * done / total) if total else width
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games "
                     f"{elapsed:6.0f}s elapsed, {eta:5.0f}s left ")
    sys.stderr.flush()


def _outcomes_local(tasks: list[Any], processes: int) -> Iterator[dict[str, Any]]:
    """Games in this process (one process) or a pool of forked workers, as they finish."""
    if processes == 1:
        yield from map(play_game, tasks)
        return
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ctx.Pool(processes) as pool:
        yield from pool.imap_unordered(play_game, tasks)


def _outcomes_ray(tasks: list[Any], address: str) -> Iterator[dict[str, Any]]:
    """Games as Ray tasks, as they finish.

    ``address`` is a Ray cluster address ("auto": the cluster this machine
    belongs to; "ray://host:10001": a remote one) or "local" (start a
    one-machine cluster, stopped afterwards). Every node needs cacaoai
    installed (the same version).
    """
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'cacaoai[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=None if address == "local" else address, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    try:
        remote_game = ray.remote(play_game)
        pending = [remote_game.remote(task) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()


def run(specs: Sequence[str], players: int, games: int, seed: int = 1, processes: int | None = None,
        records: str | None = None, progress: bool = True,
        ray_address: str | None = None) -> dict[str, Any]:
    """Play `games` games and return the summary (the --json object).

    Args:
        ray_address: run the games as tasks on this Ray cluster ("local",
            "auto" or an address) instead of local processes.
    """
    for spec in specs:
        parse_bot(spec)                       # fail early on a bad spec
    if records:
        os.makedirs(records, exist_ok=True)
    tasks = [(g, players, seed, list(specs)) for g in range(games)]
    wins = [0.0] * len(specs)
    gold = [0.0] * len(specs)
    seats = [0] * len(specs)
    searched = [{"searches": 0, "visits": 0, "reused_visits": 0} for _ in specs]
    started = time.monotonic()
    processes = processes or os.cpu_count() or 1

    def take(outcome: dict[str, Any]) -> None:
        for seat, bot in enumerate(outcome["seating"]):
            seats[bot] += 1
            gold[bot] += outcome["gold"][seat]
            if seat in outcome["winners"]:
                wins[bot] += 1.0 / len(outcome["winners"])
        for bot, stats in enumerate(outcome.get("search", [])):
            for key, value in stats.items():
                searched[bot][key] += value
        if records:
            path = os.path.join(records, f"game-{outcome['game']:05d}.json")
            with open(path, "w") as f:
                json.dump(outcome["record"], f)
                f.write("\n")

    if progress:
        _progress(0, games, started)
    finished: list[dict[str, Any]] = []
    outcomes = (_outcomes_ray(tasks, ray_address) if ray_address
                else _outcomes_local(tasks, processes))
    for outcome in outcomes:
        finished.append(outcome)
        if progress:
            _progress(len(finished), games, started)
    if progress:
        sys.stderr.write("\n")
    for outcome in sorted(finished, key=lambda o: o["game"]):  # sums in one order: same results
        take(outcome)
    bots = []
    for i, spec in enumerate(specs):
        n = seats[i]
        entry = {"spec": spec, "win_rate": wins[i] / n if n else 0.0,
                 "ci95": list(wilson(wins[i], n)), "mean_gold": gold[i] / n if n else 0.0}
        searches = searched[i]["searches"]
        if searches:
            entry["mean_visits"] = searched[i]["visits"] / searches
            entry["mean_reused_visits"] = searched[i]["reused_visits"] / searches
        bots.append(entry)
    return {"games": games, "players": players, "seed": seed,
            "elapsed_s": time.monotonic() - started, "records": records, "bots": bots}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-arena", description="Play Cacao bots against each other and measure their strength.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""\
bots (one spec per seat):
  random              a uniformly random legal action
  greedy              the best one-step value
  mcts[:k=v,...]      information-set MCTS (default 1000 iterations)
  flat[:k=v,...]      flat Monte Carlo: no tree, playouts round-robin over the root's actions
  level:NAME, NAME    a named level: beginner, easy, casual, club, advanced, strong, max
settings of mcts and flat, comma-separated:
  iterations=N, time=SECONDS, threads=N        the budget of each move
  playout=informed|random, samples=N           how playouts choose their actions
  exploration=C                                the tree's UCB constant
  margin_weight=W, margin_scale=GOLD           weight of the gold margin (per GOLD gold) in values
  temperature=T, floor=F                       sample the move by visits (0: the most visited)
  expand_samples=N, widen=W, widen_inner=W     how nodes try new actions (progressive widening)
  max_nodes=N                                  most nodes of a tree (then playouts only)
  reuse=1                                      keep the search trees across the bot's own moves
  ponder=1                                     also search for its seat on the others' turns
  (docs/search.md, "Bots and the arena", has every setting's meaning and default)

examples:
  cacao-arena --games 400 mcts:iterations=1000 greedy
  cacao-arena --players 4 --games 200 strong casual casual casual --json
  cacao-arena --games 40 --processes 1 --no-records mcts:time=0.05,reuse=1 mcts:time=0.05
  cacao-arena --ray local --games 1000 max strong

Game g is played on deal g // players with bot i in seat (i + g) % players, so
each deal is played once from every seat. Prints each bot's win rate (a shared
win counts as a fraction) with its 95% Wilson interval and its mean gold.""")
    add_version_option(parser)
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="one bot spec per seat, in seat order for the first game (see bots "
                             "below)")
    parser.add_argument("--players", type=int,
                        help="2, 3 or 4 (default: the number of bots; give one bot per seat)")
    parser.add_argument("--games", type=int, default=100,
                        help="games to play; a multiple of the players plays every deal from "
                             "every seat (default 100)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the deals and of the bots' searches: with iteration budgets, "
                             "the same seed, bots and games give the same results (default 1)")
    parser.add_argument("--processes", type=int, default=None,
                        help="local worker processes that play the games (default: one per core; "
                             "1: in this process)")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="run the games on a Ray cluster instead: auto, ray://HOST:PORT, "
                             "or local (a one-machine cluster); needs cacaoai[ray]")
    parser.add_argument("--records", default=None, metavar="DIR",
                        help="folder for the game records, game-NNNNN.json (default: "
                             "out/arena-<time>)")
    parser.add_argument("--no-records", action="store_true",
                        help="write no game records")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON summary object instead of the table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args(argv)
    players = args.players or len(args.bots)
    if players not in (2, 3, 4):
        parser.error("--players must be 2, 3 or 4")
    if len(args.bots) != players:
        parser.error(f"give one bot per seat: {players} bots for {players} players")
    if args.games < 1:
        parser.error("--games must be positive")
    records = None if args.no_records else (args.records or time.strftime("out/arena-%Y%m%d-%H%M%S"))
    # Ctrl-C reaches every process of the terminal's group: this one stops the
    # run (the pool's workers are terminated), the forked workers, which
    # inherit the handler, ignore it
    parent = os.getpid()

    def interrupt(signum: int, frame: Any) -> None:
        if os.getpid() == parent:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    try:
        summary = run(args.bots, players, args.games, args.seed, args.processes, records,
                      progress=not args.quiet, ray_address=args.ray)
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        sys.stderr.write(("" if args.quiet else "\n") + "cacao-arena: interrupted\n")
        return 130
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{summary['games']} games, {players} players, {summary['elapsed_s']:.0f} s"
          + (f", records in {records}" if records else ""))
    width = max(len(b["spec"]) for b in summary["bots"])
    for b in summary["bots"]:
        lo, hi = b["ci95"]
        visits = (f"  visits/move {b['mean_visits']:7.0f} (reused {b['mean_reused_visits']:6.0f})"
                  if "mean_visits" in b else "")
        print(f"  {b['spec']:<{width}}  win {100 * b['win_rate']:5.1f}%  "
              f"[{100 * lo:5.1f}, {100 * hi:5.1f}]  mean gold {b['mean_gold']:6.2f}{visits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
