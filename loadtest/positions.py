"""Realistic load-test positions, sampled from recorded self-play games.

    python loadtest/positions.py                 # rewrites loadtest/positions.jsonl
    python loadtest/positions.py --check         # exit 1 if it differs from a fresh one

Plays seeded self-play games between cheap bots of ``cacaoai.search`` (a
200-iteration ISMCTS against the greedy bot, seats rotating), keeps each game's
record, and samples decision points from the opening, the middle and the end of
every game (the plies of a game split in thirds), for 2 and 4 players. Only
decisions with a real choice (at least two legal actions) are kept: a front end
asks for a suggestion when there is something to choose.

Each line of the output is one JSON object:

    {"id": "p2-g03-middle", "players": 2, "stage": "middle", "game": 3,
     "ply": 14, "phase": "turn", "legal_actions": 23,
     "observation": {... cacao-position/1 with "view": to_act ...},
     "position":    {... the complete cacao-position/1 ...},
     "action":      {... the action the game went on with, docs/record-format.md form ...}}

The observation is what SuggestAction and ListLegalActions are sent (a client
never needs the hidden parts); the complete position and the recorded action
are what ApplyAction is sent (it draws tiles, so it needs the hidden parts).
The same seed writes the same file byte for byte with the same version of
the bots; after a change to the search, ``--check`` reports the file stale
(the games differ), which matters only if the new positions are wanted: the
file is a sample of play, not a golden record.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cacaoai.engine import Position, derive_seed
from cacaoai.search.bots import parse_bot

DEFAULT_OUT = Path(__file__).with_name("positions.jsonl")
STAGES = ("opening", "middle", "end")
BOTS = ("mcts:iterations=200", "greedy")
SEED = 20240601


def play(players: int, deal_seed: int, game: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Plays one self-play game; returns its record and one entry per decision.

    Bots alternate by seat, rotated by the game number so that each bot plays
    every seat over the games.
    """
    bots = [parse_bot(BOTS[(seat + game) % len(BOTS)]) for seat in range(players)]
    position = Position.new(players=players, seed=deal_seed)
    decisions = []
    ply = 0
    while not position.is_over:
        seat = position.to_act
        legal = position.legal_actions()
        action = bots[seat].choose(position, derive_seed(deal_seed, ply))
        decisions.append({
            "ply": ply,
            "phase": position.phase,
            "legal_actions": len(legal),
            "observation": position.observation(seat),
            "position": position.snapshot(),
            "action": action.to_json(),
        })
        position.apply(action)
        ply += 1
    return position.record(), decisions


def sample(players: int, games: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """One decision per stage (opening, middle, end) of each of ``games`` games."""
    for game in range(games):
        _, decisions = play(players, rng.randrange(2**32), game)
        n = len(decisions)
        for i, stage in enumerate(STAGES):
            third = [d for d in decisions[i * n // 3:(i + 1) * n // 3] if d["legal_actions"] >= 2]
            if not third:
                continue
            chosen = rng.choice(third)
            yield {"id": f"p{players}-g{game:02d}-{stage}", "players": players, "stage": stage,
                   "game": game, **chosen}


def generate(games_per_count: int = 12, seed: int = SEED) -> list[dict[str, Any]]:
    """The samples for 2 and 4 players, in a fixed order."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for players in (2, 4):
        out.extend(sample(players, games_per_count, rng))
    return out


def dumps(samples: list[dict[str, Any]]) -> str:
    """The JSON-lines text: compact, one sample a line, keys in a stable order."""
    return "".join(json.dumps(s, separators=(",", ":")) + "\n" for s in samples)


def load(path: str | Path = DEFAULT_OUT) -> list[dict[str, Any]]:
    """Reads a positions file written by this module."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--games", type=int, default=12, help="games per player count (default 12)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--check", action="store_true",
                        help="only compare with --out; exit 1 when it differs")
    args = parser.parse_args(argv)
    text = dumps(generate(args.games, args.seed))
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print(f"{args.out}: {'up to date' if same else 'STALE (regenerate it)'}")
        return 0 if same else 1
    args.out.write_text(text)
    samples = load(args.out)
    counts: dict[str, int] = {}
    for s in samples:
        key = f"{s['players']}p {s['stage']}"
        counts[key] = counts.get(key, 0) + 1
    print(f"wrote {len(samples)} positions ({len(text) // 1024} KiB) to {args.out}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
