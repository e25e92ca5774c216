"""The board as cells: a grid of tile codes around the board's middle, seat
by seat relative to a viewer, for networks that read where tiles lie rather
than the counts and summaries of ``Position.features``
(docs/decisions/network.md, "The board as cells").

A cell's code is 0 when empty, ``1 + kind`` for a jungle tile (kind in
the engine's ``JUNGLE_TILES`` order) and ``WORKER_CODE + 16 * seat + 4 * type
+ rot`` for a worker tile (seat counted from the viewer on, type in
``WORKER_TILES`` order). The grid is ``width`` x ``width`` cells, row y and column x, north
up; the board's bounding box is centred in it. Self-play keeps its games
whole (``shard-NNNNN.records.jsonl``), so the cells of every recorded
decision can be rebuilt from a run without playing it again
(``decision_cells``).

The rules do not know north: turning the board a quarter turn clockwise
(``rotate_cells``) turns every worker tile's rotation one step on, and the
position is worth the same. A network over the cells may learn from all four
turns of each position.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cacaoai.engine import JUNGLE_TILES, WORKER_TILES, Position
from cacaoai.engine.rules import DIRECTIONS, ROTATIONS, WORKER_FACES, WORKER_TYPE

from .selfplay import SHARD_ARRAYS, load_shards

__all__ = ["CODES", "WIDTH", "WORKER_CODE", "board_cells", "decision_cells", "rotate_cells", "workers_facing"]

WORKER_CODE = 1 + len(JUNGLE_TILES)
CODES = WORKER_CODE + 4 * 16             # 4 seats x 4 types x 4 rotations
WIDTH = 15                               # boards reach 13 x 13 cells at most in self-play

_KIND = {k: i for i, k in enumerate(JUNGLE_TILES)}
_STEPS = tuple((dy, dx) for dx, dy in DIRECTIONS)    # (row, column) steps: N, E, S, W


def board_cells(board: Sequence[Mapping[str, Any]], viewer: int, players: int, width: int = WIDTH) -> np.ndarray:
    """The cells of a snapshot's ``board`` as `viewer` sees them
    (width x width uint8 codes); tiles beyond the window are left out."""
    out = np.zeros((width, width), np.uint8)
    if not board:
        return out
    xs = [t["x"] for t in board]
    ys = [t["y"] for t in board]
    cx, cy = (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2
    for tile in board:
        row, col = tile["y"] - cy + width // 2, tile["x"] - cx + width // 2
        if not (0 <= row < width and 0 <= col < width):
            continue
        if "seat" in tile:
            seat = (tile["seat"] - viewer) % players
            out[row, col] = WORKER_CODE + 16 * seat + 4 * WORKER_TYPE[tile["tile"]] + tile["rot"]
        else:
            out[row, col] = 1 + _KIND[tile["tile"]]
    return out


def _turned_codes(quarter_turns: int) -> np.ndarray:
    """Code -> its code after `quarter_turns` clockwise turns of the board."""
    table = np.arange(CODES, dtype=np.uint8)
    for code in range(WORKER_CODE, CODES):
        base, rot = code - (code - WORKER_CODE) % 4, (code - WORKER_CODE) % 4
        plain = ROTATIONS[WORKER_TILES[(code - WORKER_CODE) // 4 % 4]] == 1   # a 1111 is always rot 0
        table[code] = base + (0 if plain else (rot + quarter_turns) % 4)
    return table


_TURNED = np.stack([_turned_codes(k) for k in range(4)])


def rotate_cells(cells: np.ndarray, quarter_turns: np.ndarray | int) -> np.ndarray:
    """The cells (... x width x width) turned clockwise by `quarter_turns`
    (one per grid, or one for all): the same position, north elsewhere."""
    cells = np.asarray(cells)
    turns = np.broadcast_to(np.asarray(quarter_turns) % 4, cells.shape[:-2])
    out = cells.copy()
    for k in (1, 2, 3):
        mask = turns == k
        if mask.any():
            out[mask] = _TURNED[k][np.rot90(cells[mask], -k, axes=(-2, -1))]
    return out


def workers_facing(cells: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Every worker tile's workers facing a neighbouring cell:
    (row, column, the neighbour's code, workers), for checks and debugging."""
    out = []
    for row, col in zip(*np.nonzero(cells >= WORKER_CODE)):
        code = int(cells[row, col]) - WORKER_CODE
        sides, rot = WORKER_FACES[WORKER_TILES[code // 4 % 4]], code % 4
        for d, (dr, dc) in enumerate(_STEPS):
            r, c = row + dr, col + dc
            if 0 <= r < cells.shape[0] and 0 <= c < cells.shape[1]:
                out.append((int(r), int(c), int(cells[r, c]), int(sides[(d - rot) % 4])))
    return out


_PER_DECISION = [name for name, (_, rows) in SHARD_ARRAYS.items() if rows.startswith(("D:", "D x"))]


def decision_cells(folder: Path | str, width: int = WIDTH) -> dict[str, np.ndarray]:
    """A self-play run's decisions with their cells: the shards' arrays that
    have one row per decision (``x``, ``game``, ``ply``, ``players``,
    ``seat``, ``win``, ``search_win``, ...) and ``cells`` (D x width x width,
    from the seat to act's view), rebuilt by replaying each shard's records."""
    folder = Path(folder)
    data, (manifest,) = load_shards([folder], _PER_DECISION)
    cells = np.zeros((len(data["x"]), width, width), np.uint8)
    wanted: dict[int, dict[int, int]] = {}
    for row, (game, ply) in enumerate(zip(data["game"], data["ply"])):
        wanted.setdefault(int(game), {})[int(ply)] = row
    for shard in manifest["shards"]:
        lines = (folder / shard["records"]).read_text().splitlines()
        for game, line in zip(range(*shard["games"]), lines):
            plies = wanted.get(game, {})
            record = json.loads(line)
            position = Position.from_record(record, upto=0)
            for ply, action in enumerate(record["actions"]):
                if ply in plies:
                    seat = int(data["seat"][plies[ply]])
                    assert position.to_act == seat, (game, ply)
                    cells[plies[ply]] = board_cells(position.snapshot()["board"], seat, position.players, width)
                position.apply(action)
    return {**data, "cells": cells}
