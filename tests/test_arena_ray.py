"""cacao-arena on a Ray cluster plays the same games as on local processes.

Ray 2.x dropped its in-process "local mode", so the test starts a real
one-machine Ray cluster, from a fresh Python process (``ray_address="local"``): the games run as Ray tasks in
Ray's worker processes, and the summary and every record must equal those of
the forked local workers for the same seed.
"""

from __future__ import annotations

import json

import pytest
from support import call_in_fresh_python

from cacaoai.lab import arena
from cacaoai.lab.arena import run

ARENA = arena.__name__

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SPECS = ["mcts:iterations=20", "greedy"]


def records_of(folder) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text()) for path in sorted(folder.iterdir())}


def test_games_on_ray_give_the_same_results_as_local_processes(tmp_path):
    local = run(SPECS, players=2, games=6, seed=5, processes=2, records=str(tmp_path / "local"),
                progress=False)
    on_ray = call_in_fresh_python(ARENA, "run", SPECS, players=2, games=6, seed=5, records=str(tmp_path / "ray"),
                                  progress=False, ray_address="local")
    assert on_ray["bots"] == local["bots"]
    assert sum(b["win_rate"] for b in on_ray["bots"]) > 0
    assert records_of(tmp_path / "ray") == records_of(tmp_path / "local")
    assert len(records_of(tmp_path / "ray")) == 6
    other_seed = run(SPECS, players=2, games=6, seed=6, processes=1, progress=False)
    assert [b["mean_gold"] for b in other_seed["bots"]] != [b["mean_gold"] for b in local["bots"]]
