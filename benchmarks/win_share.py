#!/usr/bin/env python3
"""A bot's share of the games won in cacao-ladder results, with a bootstrap interval.

With 3 or 4 players the ladder's pairwise scores say how a bot fares against
each other bot; the issue's 4-player target is another figure: the share of
the games a bot wins against three copies of another (fair: 1 in 4). A game
won alone counts 1, a shared win 1 divided by the number of winners, a loss
0. The interval is a bootstrap over the deals (the games of one deal share its
tiles, as in the ladder's own intervals).

    cacao-ladder mcts:time=0.05 old:mcts:time=0.05 old:mcts:time=0.050 old:mcts:time=0.0500 --players 4 \
        --old-path BASE_BUILD --deals 75 --results four.jsonl
    python benchmarks/win_share.py four.jsonl mcts:time=0.05 [--resamples 2000]

Several results files pool their games (a deal is one seed's deal).
``--against`` keeps only the games in which every other seat is one of the
specs named (a pair's games out of a ladder of three), and with 2 players the
share is also given in Elo:

    python benchmarks/win_share.py seed1.jsonl seed33.jsonl mcts:time=0.05 --against old:mcts:time=0.05
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from cacaoai.lab.ladder import normalise_spec, read_results
from cacaoai.lab.ratings import percentile_interval, score_to_elo

Deal = tuple[int, int]


def seat_of(game: dict, bot: str, against: set[str] | None = None) -> int | None:
    """The bot's seat in a game it counts in (None: not its game, or, with `against`,
    another seat is not one of those)."""
    if bot not in game["seats"]:
        return None
    seat = game["seats"].index(bot)
    if against is not None and any(spec not in against for i, spec in enumerate(game["seats"]) if i != seat):
        return None
    return seat


def win_shares(games: Sequence[dict], bot: str, against: set[str] | None = None) -> dict[Deal, list[float]]:
    """Per deal (seed, deal), the bot's win share in each of its games (1 / winners, or 0);
    with `against`, only the games whose other seats are all in it."""
    by_deal: dict[Deal, list[float]] = {}
    for game in games:
        seat = seat_of(game, bot, against)
        if seat is None:
            continue
        share = 1.0 / len(game["winners"]) if seat in game["winners"] else 0.0
        by_deal.setdefault((game.get("seed", 0), game["deal"]), []).append(share)
    return by_deal


def share_interval(by_deal: dict[Deal, list[float]], resamples: int = 2000,
                   seed: int = 1) -> tuple[float, float, float, int]:
    """(mean share, low, high, games): the 95% interval resamples the deals."""
    deals = list(by_deal.values())
    sums = np.array([sum(d) for d in deals])
    counts = np.array([len(d) for d in deals])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(deals), size=(resamples, len(deals)))
    samples = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = percentile_interval(samples)
    return float(sums.sum() / counts.sum()), float(low), float(high), int(counts.sum())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cacao-ladder results files (JSON lines)")
    parser.add_argument("bot", help="the bot's spec, as the ladder names it")
    parser.add_argument("--against", action="append", default=None, metavar="SPEC",
                        help="only games in which every other seat is one of these specs")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples of the deals")
    args = parser.parse_args(argv)
    games, warnings = read_results(args.results)
    for warning in warnings:
        print(warning, file=sys.stderr)
    try:
        bot = normalise_spec(args.bot)
    except ValueError as error:
        parser.error(f"bot: {error}")
    try:
        against = {normalise_spec(spec) for spec in args.against} if args.against else None
    except ValueError as error:
        parser.error(f"--against: {error}")
    by_deal = win_shares(games, bot, against)
    if not by_deal:
        parser.error(f"bot: {args.bot!r} played none of the {len(games)} games"
                     + (" against those --against names" if against else ""))
    mean, low, high, n = share_interval(by_deal, args.resamples)
    players = {len(g["seats"]) for g in games if seat_of(g, bot, against) is not None}
    line = (f"{n} games ({', '.join(map(str, sorted(players)))} players), {bot}: "
            f"{100 * mean:.1f}% of the games won [{100 * low:.1f}, {100 * high:.1f}] (ties shared; "
            f"95%, bootstrap over {len(by_deal)} deals)")
    if against and players == {2}:
        line += f"; Elo {score_to_elo(mean):+.0f} [{score_to_elo(low):+.0f}, {score_to_elo(high):+.0f}]"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
