"""Loading mutated snapshots and observations gives exactly the recorded outcome:
the same position (by its hash) when accepted, the same field and reason when
refused. The outcomes in data/snapshot_outcomes.jsonl were recorded from the
loader before it was compiled; any change to what it accepts or how it names
a problem shows here. After a deliberate change to the checks, write them
again with ``python tests/test_snapshot_outcomes.py --write`` and review the diff.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

from support import json_places, json_replaced

from cacaoai.engine import Position, SnapshotError

DATA = Path(__file__).parent / "data"
OUTCOMES = DATA / "snapshot_outcomes.jsonl"
CASES = 3000
TILES = ["1111", "2101", "3001", "3100", "market-2", "temple", "water", "sun", "plantation-1", "gold-2"]


def _bases() -> list[tuple[str, dict]]:
    """Positions from the recorded games at points that exercise every check:
    the start, mid-game, resolutions, overbuilds, the end; and observations."""
    bases: list[tuple[str, dict]] = []
    records = (DATA / "records.jsonl").read_text().splitlines()
    for index in (0, 7, 19, 33, 47):
        record = json.loads(records[index])
        plies = len(record["actions"])
        for upto in sorted({min(k, plies) for k in (0, 1, 2, plies // 3, plies // 2, plies - 25, plies - 7,
                                                     plies - 1, plies) if k >= 0}):
            position = Position.from_record(record, upto=upto)
            bases.append(("snapshot", position.snapshot()))
            bases.append(("observation", position.observation(upto % position.players)))
    return bases


def _value(rng: random.Random, old: Any, places: list[tuple], document: dict) -> Any:
    pick = rng.randrange(12)
    if pick < 4 and type(old) is int:
        return old + rng.choice([-2, -1, 1, 2])
    if pick < 6:
        return copy.deepcopy(_at(document, rng.choice(places)))  # a value from elsewhere
    return rng.choice([-1, 0, 29, -29, 2**70, None, True, 3.0, "x", rng.choice(TILES), [], {}, "turn"])


def _at(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


def _mutate(rng: random.Random, document: dict) -> dict:
    """`document` with one change; an earlier change may have left no room for this one."""
    try:
        return _change(rng, document)
    except (TypeError, KeyError, IndexError, AttributeError):
        return document


def _change(rng: random.Random, document: Any) -> Any:
    places = [p for p in json_places(document) if p]
    op = rng.randrange(10)
    board = document["board"]
    if op < 3:  # any value anywhere
        where = rng.choice(places)
        return json_replaced(document, where, _value(rng, _at(document, where), places, document))
    out = copy.deepcopy(document)
    board = out["board"]
    if op == 3:  # a key removed or added
        containers = [p for p in places if isinstance(_at(out, p), dict)] + [()]
        target = _at(out, rng.choice(containers))
        if target and rng.random() < 0.6:
            del target[rng.choice(sorted(target))]
        else:
            target[rng.choice(["covers", "seat", "rot", "tile", "x", "hand", "pile", "view", "extra"])] = \
                rng.choice([0, 1, "1111", {"tile": "2101", "rot": 1}, []])
    elif op == 4 and board:  # a board tile removed, moved, doubled or changed
        i = rng.randrange(len(board))
        kind = rng.randrange(5)
        if kind == 0:
            del board[i]
        elif kind == 1:
            board[i]["x"] += rng.choice([-2, -1, 0, 1, 2])
            board[i]["y"] += rng.choice([-2, -1, 1, 2])
        elif kind == 2:
            board.insert(rng.randrange(len(board) + 1), copy.deepcopy(board[i]))
        elif kind == 3:
            board[i]["tile"] = rng.choice(TILES)
        else:
            j = rng.randrange(len(board))
            board[i]["x"], board[i]["y"], board[j]["x"], board[j]["y"] = \
                board[j]["x"], board[j]["y"], board[i]["x"], board[i]["y"]
    elif op == 5 and board:  # a jungle tile taken back into the deck (an empty cell between workers)
        jungle = [i for i, t in enumerate(board) if "seat" not in t]
        i = rng.choice(jungle)
        name = board.pop(i)["tile"]
        if "jungle_deck" in out:
            out["jungle_deck"].insert(0, name)
        out["jungle_deck_count"] += 1
    elif op == 6 and board:  # a worker tile's owner, rotation or cover changed
        workers = [t for t in board if "seat" in t]
        if workers:
            tile = rng.choice(workers)
            key = rng.choice(["seat", "rot", "covers", "covers"])
            if key == "covers" and "covers" in tile:
                del tile["covers"]
            elif key == "covers":
                tile["covers"] = {"tile": rng.choice(TILES[:4]), "rot": rng.randrange(4)}
            else:
                tile[key] = rng.randrange(4)
    elif op == 7:  # a list of tile names changed
        lists = [p for p in places if isinstance(_at(out, p), list) and p[-1] != "board" and p[-1] != "pending"
                 and "results" not in p]
        if lists:
            items = _at(out, rng.choice(lists))
            if items and rng.random() < 0.5:
                del items[rng.randrange(len(items))]
            else:
                items.insert(rng.randrange(len(items) + 1), rng.choice(TILES))
    elif op == 8:  # a seat's counts or tokens changed
        seat = rng.choice(out["seats"])
        key = rng.choice(["gold", "cacao", "sun", "water", "hand_count", "pile_count"])
        seat[key] = seat[key] + rng.choice([-1, 1, 16, 100])
    else:  # the header: turn, mover, phase, to_act, pending
        key = rng.choice(["turn", "mover", "first_player", "phase", "to_act", "pending", "jungle_deck_count"])
        out[key] = rng.choice([0, 1, 2, 3, -1, None, "resolve", "over", [], out[key]])
    return out


def cases() -> list[tuple[str, dict, bool]]:
    """(kind, document, reachable): the same list on every run."""
    rng = random.Random(41)
    bases = _bases()
    out = []
    for _ in range(CASES):
        kind, document = rng.choice(bases)
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            document = _mutate(rng, document)
        reachable = kind == "observation" or rng.random() < 0.8
        out.append((kind, document, reachable))
    return out


def outcome(kind: str, document: dict, reachable: bool) -> list:
    """["ok", hash] for an accepted document, ["error", field, reason] otherwise."""
    try:
        if kind == "snapshot":
            position = Position.from_snapshot(document, reachable=reachable)
        else:
            position = Position.from_observation(document, seed=7)
    except SnapshotError as error:
        return ["error", error.field, error.reason]
    return ["ok", position.hash()]


def test_mutated_positions_load_or_fail_exactly_as_recorded():
    recorded = [json.loads(line) for line in OUTCOMES.read_text().splitlines()]
    got = [outcome(*case) for case in cases()]
    assert len(got) == len(recorded) == CASES
    differing = [(i, want, have) for i, (want, have) in enumerate(zip(recorded, got)) if want != have]
    assert not differing, differing[:5]
    kinds = {o[0] for o in got}
    fields = {o[1].split("[")[0].split(".")[0] for o in got if o[0] == "error"}
    assert kinds == {"ok", "error"} and {"board", "seats", "to_act", "pending"} <= fields


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    OUTCOMES.write_text("".join(json.dumps(outcome(*case)) + "\n" for case in cases()))
