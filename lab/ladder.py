"""cacao-ladder: Bradley-Terry Elo ratings of many bots, and an SPRT mode for A/B tests.

    cacao-ladder greedy random level:beginner level:casual --deals 20
    cacao-ladder level:beginner level:casual level:strong level:max --pairing adjacent --deals 50
    cacao-ladder --players 4 greedy random level:beginner level:casual level:strong --deals 10
    cacao-ladder --results out/ladder.jsonl                # fit and print again, playing nothing
    cacao-ladder --sprt mcts:time=0.05,samples=12 mcts:time=0.05 --elo0 0 --elo1 5
    cacao-ladder --sprt mcts:time=0.05 mcts:time=0.05 --old-path /tmp/old-site

**Games.** Bots are specs as cacao-arena takes them (``greedy``, ``random``,
``level:strong``, ``mcts:iterations=250,temperature=0.5``, any spec the build
knows); ``old:SPEC`` is SPEC as the build in ``--old-path`` plays it, from a
worker process (:mod:`cacaoai.lab.builds`). A *match* is a set of as many
bots as there are players: round robin plays every such set, ``adjacent`` only
sets of neighbours in the order given (a ladder: list the bots from weakest to
strongest; ``--width 2`` also links the next but one). Every match plays the
same deals: deal d is dealt from ``derive_seed(seed, d)``, as cacao-arena
deals, and played once in every rotation of the seats (bot i of the match,
in sorted order of the specs, in seat ``(i + r) % players``), so every bot
plays every seat of every deal once. The moves of rotation r are seeded as
cacao-arena's game ``d * players + r``: a two-bot match plays exactly the
games ``cacao-arena`` plays for the two specs in sorted order. With iteration
budgets a seed gives the same games and the same ratings, on local processes
(default) or on Ray (``--ray``).

**Results.** Every game is appended to the results file (``--results``, JSON
lines) as it ends. A game is known by its player count, seed, deal, rotation
and match: games already in the results file, or in the files given to
``--merge``, are not played again. So a long run can be stopped and resumed,
or split over machines by ``--first-deal`` and ``--deals`` and merged. The fit
reads every game of the player count in those files.

**Ratings** (:mod:`cacaoai.lab.ratings`). Every two seats of a game give one
pairwise result, by the rules' order (more gold, then more cacao left; a full
tie counts half to each). Bradley-Terry ratings on the Elo scale are fitted by
maximum likelihood, anchored (``--anchor``, default ``greedy`` when it plays,
at ``--anchor-elo``, 0), with one virtual draw between every two bots that
met. Pairs of one game, and games of one deal, are correlated: the ratings are
those of a composite likelihood, which treats them as independent (consistent
for the ratings), and the 95% intervals come from a bootstrap over deals,
which keeps every game of a deal together and so accounts for both.

**SPRT** (``--sprt A B``, 2 players): Fishtest's generalised SPRT on game pairs
(the two games of a deal, seats swapped: the pentanomial model; ``--model
trinomial`` treats the games as independent instead), H0: A is ``--elo0``
stronger than B, H1: ``--elo1`` (logistic Elo), error rates ``--alpha`` and
``--beta``. Deals are played in order; the test reads the pairs in deal order
and stops at the first whose log-likelihood ratio crosses a bound, so the
answer does not depend on which game finished first. With ``--old-path`` B is
the other build's (unless A or B already says ``old:``).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from cacaoai.engine import derive_seed
from cacaoai.engine.cli import add_version_option
from cacaoai.search.bots import Bot, parse_bot

from .arena import play_deal
from .builds import OLD_PREFIX, BuildBot, Worker
from .pool import run_tasks
from .ratings import SPRT, bootstrap_samples, percentile_interval, score_estimate

__all__ = ["game_key", "match_list", "normalise_spec", "pair_results", "play_ladder_game", "rate",
           "read_results", "run_ladder", "run_sprt", "main"]

Game = dict[str, Any]
Key = tuple[int, int, int, int, tuple[str, ...]]
_BOTS: dict[tuple[str, str | None], Bot] = {}


# --- bots and games -------------------------------------------------------------------------


def normalise_spec(spec: str) -> str:
    """The spec a bot is known by (a level's name becomes ``level:NAME``); ``old:`` specs are kept."""
    text = spec.strip()
    if text.startswith(OLD_PREFIX):
        return OLD_PREFIX + text[len(OLD_PREFIX):].strip()
    return parse_bot(text).spec


def _make_bot(spec: str, old_path: str | None) -> Bot:
    if spec.startswith(OLD_PREFIX):
        if not old_path:
            raise ValueError(f"{spec}: give the other build's folder with --old-path")
        return BuildBot(spec[len(OLD_PREFIX):], old_path)
    return parse_bot(spec)


def _bot(spec: str, old_path: str | None) -> Bot:
    """This process's bot of `spec` (the bots of one match are distinct, so one object a spec will do)."""
    bot = _BOTS.get((spec, old_path))
    if bot is None:
        bot = _BOTS[spec, old_path] = _make_bot(spec, old_path)
    return bot


def _close_bots() -> None:
    """End the workers of other builds' bots made in this process."""
    for bot in _BOTS.values():
        if isinstance(bot, BuildBot):
            bot.close()


def check_specs(specs: Sequence[str], old_path: str | None) -> None:
    """Raise ValueError for a spec this build (or, for ``old:``, the other build) does not know."""
    for spec in specs:
        if spec.startswith(OLD_PREFIX):
            if not old_path:
                raise ValueError(f"{spec}: give the other build's folder with --old-path")
            try:
                Worker(spec[len(OLD_PREFIX):], old_path).close()
            except RuntimeError as exc:
                raise ValueError(str(exc)) from None
        else:
            parse_bot(spec)


def match_list(bots: Sequence[str], players: int, pairing: str = "round-robin",
               width: int = 1) -> list[tuple[str, ...]]:
    """The matches (sets of `players` bots, each sorted) a ladder plays.

    round-robin: every set; adjacent: sets of bots at most ``players - 2 +
    width`` places apart in the order given.
    """
    if pairing not in ("round-robin", "adjacent"):
        raise ValueError(f"pairing: round-robin or adjacent, got {pairing!r}")
    if len(set(bots)) != len(bots):
        raise ValueError("each bot must be given once")
    if len(bots) < players:
        raise ValueError(f"{players} players need at least {players} bots, got {len(bots)}")
    span = players - 2 + width
    return [tuple(sorted(bots[i] for i in combo)) for combo in itertools.combinations(range(len(bots)), players)
            if pairing == "round-robin" or combo[-1] - combo[0] <= span]


def game_key(game: Game) -> Key:
    """What identifies a game: players, seed, deal, rotation and match."""
    return (game["players"], game["seed"], game["deal"], game["rotation"], tuple(game["match"]))


def play_ladder_game(task: dict[str, Any]) -> Game:
    """Play one game of a match: deal `deal` in rotation `rotation`."""
    players, seed, deal, rotation = task["players"], task["seed"], task["deal"], task["rotation"]
    match = task["match"]
    deal_seed = derive_seed(seed, deal)
    game_seed = derive_seed(deal_seed, deal * players + rotation)      # cacao-arena's game number
    seating = [(s - rotation) % players for s in range(players)]      # seat -> bot of the match
    bots = [_bot(spec, task.get("old_path")) for spec in match]
    position = play_deal(players, deal_seed, game_seed, seating, bots)
    result = position.result()
    assert result is not None
    game: Game = {"players": players, "seed": seed, "deal": deal, "rotation": rotation, "match": list(match),
                  "seats": [match[i] for i in seating], "deal_seed": deal_seed, "gold": list(result.gold),
                  "cacao": list(result.cacao), "winners": list(result.winners)}
    if task.get("record"):
        game["record"] = position.record()
    return game


def pair_results(game: Game) -> list[tuple[str, str, float]]:
    """Every two seats of a game: (bot, other bot, the first's score): by gold, then cacao; a tie is half."""
    out = []
    seats = game["seats"]
    for i, j in itertools.combinations(range(len(seats)), 2):
        a = (game["gold"][i], game["cacao"][i])
        b = (game["gold"][j], game["cacao"][j])
        out.append((seats[i], seats[j], 1.0 if a > b else 0.5 if a == b else 0.0))
    return out


# --- result files ---------------------------------------------------------------------------


def read_results(paths: Sequence[str]) -> tuple[list[Game], list[str]]:
    """The games of results files (JSON lines; missing files are empty), each game once,
    and warnings (unreadable lines, a game found twice with different results)."""
    games: dict[Key, Game] = {}
    warnings = []
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    game = json.loads(line)
                    key = game_key(game)
                except (ValueError, KeyError, TypeError):
                    warnings.append(f"{path}:{number}: not a game, skipped (a run stopped while writing?)")
                    continue
                game.pop("record", None)
                kept = games.setdefault(key, game)
                if kept is not game and (kept["gold"], kept["cacao"]) != (game["gold"], game["cacao"]):
                    warnings.append(f"{path}:{number}: deal {key[2]} rotation {key[3]} of {' vs '.join(key[4])} "
                                    "played again with another result (time budgets?); the first is kept")
    return sorted(games.values(), key=game_key), warnings


class _Writer:
    """Appends games to the results file and writes their records."""

    def __init__(self, path: str | None, records: str | None):
        self.file = None
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self.file = open(path, "a")
        self.records = records
        if records:
            os.makedirs(records, exist_ok=True)

    def add(self, game: Game) -> None:
        record = game.pop("record", None)
        if self.file is not None:
            self.file.write(json.dumps(game) + "\n")
            self.file.flush()
        if self.records and record is not None:
            digest = hashlib.sha256("\n".join(game["match"]).encode()).hexdigest()[:10]
            name = f"{game['players']}p-s{game['seed']}-d{game['deal']:05d}-r{game['rotation']}-{digest}.json"
            with open(os.path.join(self.records, name), "w") as f:
                json.dump(record, f)
                f.write("\n")

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


# --- ratings --------------------------------------------------------------------------------


def rate(games: Sequence[Game], anchor: str | None = None, anchor_elo: float = 0.0, resamples: int = 1000,
         seed: int = 1, prior_draws: float = 1.0) -> dict[str, Any]:
    """Bradley-Terry Elo of every bot of `games` (one player count), with bootstrap intervals over deals.

    Returns the summary: per bot (strongest first) its Elo, 95% interval,
    games, pairwise results and score (their mean), and the pairwise table.
    """
    if not games:
        raise ValueError("no games to rate")
    if len({g["players"] for g in games}) != 1:
        raise ValueError("games of one player count only")
    bots = sorted({spec for g in games for spec in g["seats"]})
    index = {spec: i for i, spec in enumerate(bots)}
    clusters = sorted({(g["seed"], g["deal"]) for g in games})
    cluster = {c: k for k, c in enumerate(clusters)}
    n = len(bots)
    wins = np.zeros((len(clusters), n, n))
    played = np.zeros((len(clusters), n, n))
    game_count = [0] * n
    for g in games:
        k = cluster[g["seed"], g["deal"]]
        for spec in g["seats"]:
            game_count[index[spec]] += 1
        for a, b, score in pair_results(g):
            i, j = index[a], index[b]
            wins[k, i, j] += score
            wins[k, j, i] += 1.0 - score
            played[k, i, j] += 1
            played[k, j, i] += 1
    if anchor is None:
        anchor = "greedy" if "greedy" in index else bots[0]
    if anchor not in index:
        raise ValueError(f"the anchor {anchor!r} played no game; bots: {', '.join(bots)}")
    if n == 1:
        raise ValueError("one bot only: nothing to rate")
    elo, samples = bootstrap_samples(wins, played, index[anchor], anchor_elo, resamples, seed, prior_draws)
    low, high = percentile_interval(samples) if samples is not None else (elo, elo)
    total_w, total_g = wins.sum(axis=0), played.sum(axis=0)
    rows = []
    for i, spec in enumerate(bots):
        pairs = float(total_g[i].sum())
        rows.append({"bot": spec, "elo": float(elo[i]), "ci95": [float(low[i]), float(high[i])],
                     "games": game_count[i], "pairs": int(pairs),
                     "score": float(total_w[i].sum() / pairs) if pairs else math.nan})
    rows.sort(key=lambda r: (-r["elo"], r["bot"]))
    # each bot's lead over the next weaker one, with the interval of that difference
    # (not of two anchored intervals, which the anchor's distance widens)
    for above, below in zip(rows, rows[1:]):
        i, j = index[above["bot"]], index[below["bot"]]
        lead = samples[:, i] - samples[:, j] if samples is not None else np.array([elo[i] - elo[j]])
        lo, hi = percentile_interval(lead)
        above["lead"] = float(elo[i] - elo[j])
        above["lead_ci95"] = [float(lo), float(hi)]
    table = {a: {b: {"score": float(total_w[i, j] / total_g[i, j]), "pairs": int(total_g[i, j])}
                 for j, b in enumerate(bots) if total_g[i, j] > 0} for i, a in enumerate(bots)}
    return {"players": games[0]["players"], "games": len(games), "deals": len(clusters), "anchor": anchor,
            "anchor_elo": anchor_elo, "resamples": resamples, "prior_draws": prior_draws, "bots": rows,
            "pairwise": table}


def _progress(done: int, total: int, started: float, extra: str = "") -> None:
    elapsed = time.monotonic() - started
    sys.stderr.write(f"\r{done}/{total} games, {elapsed:.0f} s{extra} ")
    sys.stderr.flush()


def run_ladder(bots: Sequence[str], players: int = 2, deals: int = 10, first_deal: int = 0, seed: int = 1,
               pairing: str = "round-robin", width: int = 1, results: str | None = None,
               merge: Sequence[str] = (), records: str | None = None, processes: int = 1,
               ray_address: str | None = None, old_path: str | None = None, anchor: str | None = None,
               anchor_elo: float = 0.0, resamples: int = 1000, prior_draws: float = 1.0,
               progress: bool = False) -> dict[str, Any]:
    """Play the ladder's games not yet in the result files, then rate every bot of them.

    Returns the summary of :func:`rate`, with the games played now and the warnings.
    """
    specs = [normalise_spec(b) for b in bots]
    anchor = normalise_spec(anchor) if anchor else None
    matches = match_list(specs, players, pairing, width) if specs else []
    if specs:
        check_specs(specs, old_path)
    known, warnings = read_results([p for p in [results, *merge] if p])
    have = {game_key(g) for g in known}
    tasks = [{"players": players, "seed": seed, "deal": d, "rotation": r, "match": m, "old_path": old_path,
              "record": bool(records)}
             for d in range(first_deal, first_deal + deals) for m in matches for r in range(players)
             if (players, seed, d, r, m) not in have]
    writer = _Writer(results, records)
    new: list[Game] = []
    started = time.monotonic()
    try:
        for game in run_tasks(play_ladder_game, tasks, processes, ray_address) if tasks else ():
            writer.add(game)
            new.append(game)
            if progress:
                _progress(len(new), len(tasks), started)
    finally:
        writer.close()
        _close_bots()
    if progress and tasks:
        sys.stderr.write("\n")
    games = [g for g in known + new if g["players"] == players]
    games.sort(key=game_key)
    summary = rate(games, anchor, anchor_elo, resamples, seed, prior_draws)
    summary.update(played=len(new), seed=seed, results=results, warnings=warnings,
                   elapsed_s=time.monotonic() - started)
    return summary


# --- SPRT -----------------------------------------------------------------------------------


def _score_of(game: Game, spec: str) -> float:
    """The win share of `spec` in a 2-player game (gold, then cacao; a tie is half)."""
    seat = game["seats"].index(spec)
    (_, _, score), = pair_results(game)
    return score if seat == 0 else 1.0 - score


def run_sprt(a: str, b: str, test: SPRT, seed: int = 1, first_deal: int = 0, max_games: int = 20000,
             results: str | None = None, merge: Sequence[str] = (), records: str | None = None,
             processes: int = 1, ray_address: str | None = None, old_path: str | None = None,
             progress: bool = False) -> dict[str, Any]:
    """Play deals of A against B in order until the SPRT decides (or `max_games`), and report."""
    a, b = normalise_spec(a), normalise_spec(b)
    if old_path and not (a.startswith(OLD_PREFIX) or b.startswith(OLD_PREFIX)):
        b = OLD_PREFIX + b
    if a == b:
        raise ValueError("A and B are the same bot (to test builds, give --old-path)")
    check_specs([a, b], old_path)
    match = tuple(sorted((a, b)))
    known, warnings = read_results([p for p in [results, *merge] if p])
    by_key = {game_key(g): g for g in known}
    last_deal = first_deal + max(max_games // 2, 1)

    def tasks() -> Iterator[dict[str, Any]]:
        for d in range(first_deal, last_deal):
            for r in (0, 1):
                if (2, seed, d, r, match) not in by_key:
                    yield {"players": 2, "seed": seed, "deal": d, "rotation": r, "match": match,
                           "old_path": old_path, "record": bool(records)}

    counts = [0] * len(test.scores)
    outcomes: list[Game] = []
    deal, llr, decision = first_deal, 0.0, ""

    def advance() -> bool:
        """Take the complete deals in order; True once the test has decided or run out."""
        nonlocal deal, llr, decision
        while deal < last_deal and not decision:
            pair = [by_key.get((2, seed, deal, r, match)) for r in (0, 1)]
            if pair[0] is None or pair[1] is None:
                return False
            scores = [_score_of(g, a) for g in pair if g is not None]
            if test.model == "pentanomial":
                counts[round(2 * sum(scores))] += 1
            else:
                for score in scores:
                    counts[round(2 * score)] += 1
            outcomes.extend(g for g in pair if g is not None)
            llr = test.llr(counts)
            decision = test.decide(llr)
            deal += 1
        return True

    writer = _Writer(results, records)
    started = time.monotonic()
    played = 0
    try:
        if not advance():
            stream = run_tasks(play_ladder_game, tasks(), processes, ray_address)
            try:
                for game in stream:
                    writer.add(game)
                    by_key[game_key(game)] = game
                    played += 1
                    if progress:
                        _progress(len(outcomes), max_games, started, f", LLR {llr:+.2f}")
                    if advance():
                        break
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
    finally:
        writer.close()
        _close_bots()
    if progress:
        sys.stderr.write("\n")
    elo, low, high = score_estimate(counts, test.scores)
    pairs = len(outcomes) // 2
    return {"a": a, "b": b, "old_path": old_path, "model": test.model, "elo0": test.elo0, "elo1": test.elo1,
            "alpha": test.alpha, "beta": test.beta, "llr": llr, "lower": test.lower,
            "upper": test.upper, "result": decision, "games": len(outcomes), "pairs": pairs,
            "counts": counts, "elo": elo, "ci95": [low, high],
            "a_score": sum(_score_of(g, a) for g in outcomes) / len(outcomes) if outcomes else math.nan,
            "played": played, "seed": seed, "first_deal": first_deal, "results": results,
            "warnings": warnings, "elapsed_s": time.monotonic() - started}


# --- command line ---------------------------------------------------------------------------


def _elo(value: float) -> str:
    return f"{round(value, 1) + 0.0:+7.1f}" if math.isfinite(value) else ("   +inf" if value > 0 else "   -inf")


def print_table(summary: dict[str, Any]) -> None:
    """The ratings as a table, strongest first."""
    print(f"{summary['games']} games ({summary.get('played', 0)} played now), {summary['players']} players, "
          f"{summary['deals']} deals; Elo anchored at {summary['anchor']} = {summary['anchor_elo']:g}; "
          f"95% intervals: bootstrap over deals ({summary['resamples']} resamples)")
    width = max(len("bot"), *(len(r["bot"]) for r in summary["bots"]))
    print(f"  {'bot':<{width}}  {'Elo':>7}  {'95% interval':>17}  {'games':>6}  {'score':>6}  "
          f"{'lead over next':>7}  {'95% interval':>17}")
    for r in summary["bots"]:
        lo, hi = r["ci95"]
        lead = ""
        if "lead" in r:
            llo, lhi = r["lead_ci95"]
            lead = f"  {_elo(r['lead']):>14}  [{_elo(llo)}, {_elo(lhi)}]"
        print(f"  {r['bot']:<{width}}  {_elo(r['elo'])}  [{_elo(lo)}, {_elo(hi)}]  {r['games']:>6}  "
              f"{100 * r['score']:5.1f}%{lead}")


def print_sprt(s: dict[str, Any]) -> None:
    """The SPRT's outcome."""
    print(f"SPRT {s['a']} (A) vs {s['b']} (B): H0 Elo {s['elo0']:g}, H1 Elo {s['elo1']:g}, "
          f"alpha {s['alpha']:g}, beta {s['beta']:g}, {s['model']} model")
    if s["model"] == "pentanomial":
        detail = "pairs by A's score 0, 0.5, 1, 1.5, 2: " + " ".join(str(c) for c in s["counts"])
    else:
        detail = "games lost, drawn, won by A: " + " ".join(str(c) for c in s["counts"])
    print(f"  {s['games']} games ({s['pairs']} deals, {s['played']} played now); {detail}")
    verdict = {"H1": f"H1 accepted: A is stronger (Elo {s['elo1']:g} rather than {s['elo0']:g})",
               "H0": f"H0 accepted, H1 rejected: A is not {s['elo1']:g} Elo stronger",
               "": "no decision: the game limit came first"}[s["result"]]
    print(f"  LLR {s['llr']:+.3f}, bounds [{s['lower']:+.3f}, {s['upper']:+.3f}]: {verdict}")
    lo, hi = s["ci95"]
    print(f"  A scores {100 * s['a_score']:.1f}%: Elo {_elo(s['elo']).strip()} [{_elo(lo).strip()}, "
          f"{_elo(hi).strip()}] (95%; not corrected for the early stop)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cacao-ladder", description="Elo ratings of Cacao bots from paired deals, or an SPRT between two.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Bots: random, greedy, flat[:k=v,...], mcts[:k=v,...], level:NAME, and old:SPEC (SPEC on the\n"
               "build in --old-path).\n\n"
               "examples:\n"
               "  cacao-ladder greedy level:casual level:strong --deals 50 --results ladder.jsonl\n"
               "  cacao-ladder --merge ladder.jsonl more.jsonl --anchor level:casual   # re-rate, play nothing\n"
               "  cacao-ladder --sprt mcts:time=0.05,value=1 mcts:time=0.05 --elo0 0 --elo1 10")
    add_version_option(parser)
    parser.add_argument("bots", nargs="*", help="bot specs (none: rate the games of the result files)")
    parser.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    parser.add_argument("--deals", type=int, default=10, help="deals each match plays (default 10)")
    parser.add_argument("--first-deal", type=int, default=0, help="the first deal's number (default 0)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots' moves (default 1)")
    parser.add_argument("--pairing", choices=("round-robin", "adjacent"), default="round-robin",
                        help="every bot against every other, or each against its neighbours in the "
                             "order given (default round-robin)")
    parser.add_argument("--width", type=int, default=1, help="adjacent: how far apart matched bots may be")
    parser.add_argument("--results", default=None,
                        help="the games, one JSON line each: read, and appended to (default: "
                             "out/ladder-<time>.jsonl)")
    parser.add_argument("--merge", nargs="+", default=[], metavar="FILE", help="more results files to read")
    parser.add_argument("--records", default=None, help="also write each game's record into this folder")
    parser.add_argument("--json", default=None, metavar="FILE", help="write the summary here ('-': stdout)")
    parser.add_argument("--anchor", default=None, help="the bot held at --anchor-elo (default greedy if "
                        "it plays, else the first bot in sorted order)")
    parser.add_argument("--anchor-elo", type=float, default=0.0, help="the anchor's rating (default 0)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples of the deals")
    parser.add_argument("--prior-draws", type=float, default=1.0,
                        help="virtual draws between every two bots that met (default 1)")
    parser.add_argument("--processes", type=int, default=None, help="default: one per core")
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help="run the games on a Ray cluster: auto, ray://HOST:PORT or local")
    parser.add_argument("--old-path", default=None, help="folder holding another build's cacaoai (old: bots)")
    parser.add_argument("--sprt", nargs=2, metavar=("A", "B"), default=None,
                        help="test A against B (2 players) until the SPRT decides")
    parser.add_argument("--elo0", type=float, default=0.0, help="SPRT: Elo of A over B under H0 (default 0)")
    parser.add_argument("--elo1", type=float, default=5.0, help="SPRT: Elo of A over B under H1 (default 5)")
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT: false positive rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT: false negative rate (default 0.05)")
    parser.add_argument("--model", choices=("pentanomial", "trinomial"), default="pentanomial",
                        help="SPRT: the game pairs' outcome model (default pentanomial)")
    parser.add_argument("--max-games", type=int, default=20000, help="SPRT: stop undecided after this many")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.players not in (2, 3, 4):
        parser.error("--players must be 2, 3 or 4")
    if args.deals < 0 or args.first_deal < 0 or args.width < 1:
        parser.error("--deals and --first-deal must not be negative, --width must be at least 1")
    processes = args.processes or os.cpu_count() or 1
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        if args.sprt:
            if args.bots:
                parser.error("--sprt takes its two bots itself")
            if args.players != 2:
                parser.error("--sprt plays 2 players")
            test = SPRT(args.elo0, args.elo1, args.alpha, args.beta, args.model)
            summary = run_sprt(args.sprt[0], args.sprt[1], test, args.seed, args.first_deal, args.max_games,
                               args.results or f"out/sprt-{stamp}.jsonl", args.merge, args.records, processes,
                               args.ray, args.old_path, progress=not args.quiet)
        else:
            results = args.results or (f"out/ladder-{stamp}.jsonl" if args.bots else None)
            if not args.bots and not (args.results or args.merge):
                parser.error("give bots, or results files to rate")
            summary = run_ladder(args.bots, args.players, args.deals, args.first_deal, args.seed, args.pairing,
                                 args.width, results, args.merge, args.records, processes, args.ray,
                                 args.old_path, args.anchor, args.anchor_elo, args.bootstrap, args.prior_draws,
                                 progress=not args.quiet)
    except ValueError as exc:
        parser.error(str(exc))
    for warning in summary["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json == "-":
        print(json.dumps(summary))
        return 0
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    if args.sprt:
        print_sprt(summary)
    else:
        print_table(summary)
    if summary.get("results"):
        print(f"games in {summary['results']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
