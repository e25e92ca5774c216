"""The board as cells (lab/cells.py): the workers each cell shows facing a
temple are the engine's count, a quarter turn keeps the position, and a
self-play run's decisions get the cells of the positions they were made in."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from test_search import played  # a position after seeded random actions

from cacaoai.engine import JUNGLE_TILES, Position
from cacaoai.lab.cells import (
    WIDTH,
    WORKER_CODE,
    board_cells,
    decision_cells,
    rotate_cells,
    workers_facing,
)
from cacaoai.lab.selfplay import SelfPlayConfig, run

TEMPLE = 1 + JUNGLE_TILES.index("temple")


def facing_by_seat(cells: np.ndarray, players: int) -> Counter[tuple[int, ...]]:
    """Per temple cell, the workers each seat (from the viewer on) turns to it."""
    counts: dict[tuple[int, int], list[int]] = {
        (int(r), int(c)): [0] * players for r, c in zip(*np.nonzero(cells == TEMPLE))}
    for row, col in zip(*np.nonzero(cells >= WORKER_CODE)):
        seat = (int(cells[row, col]) - WORKER_CODE) // 16
        one = np.zeros_like(cells)
        one[row, col] = cells[row, col]
        one[cells == TEMPLE] = TEMPLE
        for r, c, code, workers in workers_facing(one):
            if code == TEMPLE:
                counts[(r, c)][seat] += workers
    return Counter(tuple(c) for c in counts.values())


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (4, 4)])
def test_the_workers_the_cells_turn_to_each_temple_are_the_engines(players, seed):
    position = played(players, seed, 60)
    temples = position.temples()
    assert temples, "the deal should have placed a temple by then"
    for viewer in range(players):
        cells = board_cells(position.snapshot()["board"], viewer, players)
        engine = Counter(tuple(t.workers[(viewer + i) % players] for i in range(players)) for t in temples)
        assert facing_by_seat(cells, players) == engine


def test_a_quarter_turn_keeps_every_worker_facing_what_it_faced():
    position = played(4, 7, 70)
    cells = board_cells(position.snapshot()["board"], 1, 4)
    before = Counter((code, workers) for _, _, code, workers in workers_facing(cells))
    assert sum(w for (code, w) in before.elements() if code) > 0
    for k in (1, 2, 3):
        turned = rotate_cells(cells, k)
        assert not np.array_equal(turned, cells)
        assert Counter((code, workers) for _, _, code, workers in workers_facing(turned)) == before
        assert facing_by_seat(turned, 4) == facing_by_seat(cells, 4)
        assert np.array_equal(rotate_cells(turned, 4 - k), cells)
    batch = np.stack([cells] * 4)
    assert all(np.array_equal(g, rotate_cells(cells, k)) for k, g in enumerate(rotate_cells(batch, np.arange(4))))


def test_a_runs_decisions_get_the_cells_of_their_positions(tmp_path):
    config = SelfPlayConfig(spec="mcts:iterations=20", games=3, players=(2, 4), seed=9, games_per_shard=2)
    manifest = run(config, tmp_path, processes=1, progress=False)
    data = decision_cells(tmp_path)
    assert len(data["cells"]) == manifest["decisions"] == len(data["x"])
    assert data["cells"].shape[1:] == (WIDTH, WIDTH)
    row = int(np.flatnonzero(data["players"] == 4)[-1])
    game, ply, seat = int(data["game"][row]), int(data["ply"][row]), int(data["seat"][row])
    record = [line for line in (tmp_path / manifest["shards"][game // 2]["records"]).read_text().splitlines()]
    position = Position.from_record(record[game % 2], upto=ply)
    assert position.to_act == seat
    assert np.array_equal(data["cells"][row], board_cells(position.snapshot()["board"], seat, 4))
    assert np.count_nonzero(data["cells"][row]) == len(position.snapshot()["board"])
    assert np.array_equal(data["x"][row], position.features(seat))
