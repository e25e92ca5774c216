"""cacao-selfplay: shards are the same for a seed however the games are spread,
hold the documented arrays, and record only what each seat may see."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from support import call_in_fresh_python

from cacaoai.engine import Position, features
from cacaoai.lab import selfplay
from cacaoai.lab.selfplay import SHARD_ARRAYS, SelfPlayConfig, deal_seed, load_shards, main, read_shard, run

CONFIG = SelfPlayConfig(spec="mcts:iterations=30", games=6, players=(2, 3, 4), seed=5, games_per_shard=2,
                        explore_moves=2, unvisited=3)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    return folder, run(CONFIG, folder, processes=1, progress=False)


def test_shards_are_the_same_for_a_seed_on_one_process_or_several(played, tmp_path):
    folder, manifest = played
    again = run(CONFIG, tmp_path / "again", processes=2, progress=False)
    assert [s["sha256"] for s in again["shards"]] == [s["sha256"] for s in manifest["shards"]]
    for shard in manifest["shards"]:
        assert (folder / shard["file"]).read_bytes() == (tmp_path / "again" / shard["file"]).read_bytes()
    other = run(SelfPlayConfig(**{**CONFIG.to_json(), "players": (2, 3, 4), "seed": 6}), tmp_path / "other",
                processes=1, progress=False)
    assert [s["sha256"] for s in other["shards"]] != [s["sha256"] for s in manifest["shards"]]


def test_each_shard_keeps_its_games_records_which_replay_to_the_results_it_holds(played, tmp_path):
    folder, manifest = played
    data, _ = load_shards([folder])
    for shard in manifest["shards"]:
        lines = (folder / shard["records"]).read_text().splitlines()
        assert hashlib.sha256((folder / shard["records"]).read_bytes()).hexdigest() == shard["records_sha256"]
        assert len(lines) == shard["games"][1] - shard["games"][0]
        for game, line in zip(range(*shard["games"]), lines):
            record = json.loads(line)
            assert record["format"] == "cacao-record/1" and record["players"] == CONFIG.players[game % 3]
            dealt = Position.new(record["players"], deal_seed(CONFIG.seed, game)).record()
            assert {k: v for k, v in record.items() if k not in ("actions", "result")} == \
                {k: v for k, v in dealt.items() if k not in ("actions", "result")}
            final = Position.from_record(record)
            assert final.is_over
            rows = data["game"] == game
            seats = data["seat"][rows]
            result = final.result()
            # the shard's win share of each decision's seat is the record's (none is proved at 30 iterations
            # with 3-4 players; 2-player rows may hold the solver's exact value instead)
            for seat, win, exact in zip(seats, data["win"][rows][:, 0], data["exact"][rows]):
                if not exact:
                    assert win == pytest.approx(1.0 / len(result.winners) if seat in result.winners else 0.0)
    again = run(CONFIG, tmp_path, processes=2, progress=False)
    assert [s["records_sha256"] for s in again["shards"]] == [s["records_sha256"] for s in manifest["shards"]]


def test_the_manifest_describes_the_run(played):
    folder, manifest = played
    assert json.loads((folder / "selfplay.json").read_text()) == manifest
    assert manifest["complete"] and manifest["games"] == 6 and len(manifest["shards"]) == 3
    assert manifest["config"]["spec"] == "mcts:iterations=30" and manifest["config"]["seed"] == 5
    assert manifest["features_version"] == features.FEATURES_VERSION
    assert set(manifest["arrays"]) == set(SHARD_ARRAYS)
    data, _ = load_shards([folder])
    assert manifest["decisions"] == len(data["x"]) and manifest["views"] == len(data["v_x"])
    assert manifest["actions"] == len(data["a_x"])


def test_shards_hold_the_documented_arrays(played):
    folder, manifest = played
    shard = read_shard(folder / manifest["shards"][0]["file"])
    assert set(shard) == set(SHARD_ARRAYS)
    for name, (dtype, _) in SHARD_ARRAYS.items():
        assert shard[name].dtype == np.dtype(dtype), name
    data, _ = load_shards([folder])
    d, a, v = len(data["x"]), len(data["a_x"]), len(data["v_x"])
    assert data["x"].shape == (d, features.N_FEATURES) and data["v_x"].shape == (v, features.N_FEATURES)
    assert data["a_x"].shape == (a, features.N_ACTION_FEATURES)
    assert data["a_start"][0] == 0 and data["a_start"][-1] == a and (np.diff(data["a_start"]) >= 2).all()
    for name in ("win", "gold", "margin", "search_win"):
        assert data[name].shape == (d, 4)
    present = np.arange(4)[None, :] < data["players"][:, None]
    assert np.allclose(data["win"].sum(axis=1), 1) and (data["win"][~present] == 0).all()
    assert np.allclose(data["search_win"].sum(axis=1), 1)
    for row in range(d):     # the margin is the gold over the best other seat's, from the seat to act on
        n = data["players"][row]
        gold = data["gold"][row, :n]
        assert data["margin"][row, 0] == gold[0] - gold[1:].max()
    first = data["a_start"][:-1]
    assert (np.add.reduceat(data["a_visits"], first) == 30).all()        # every recorded search ran its budget
    assert (np.add.reduceat(data["a_played"].astype(int), first) == 1).all()
    assert (data["a_weight"] >= 1).all() and (data["a_weight"][data["a_visits"] > 0] == 1).all()
    assert np.allclose(np.add.reduceat(data["a_weight"], first), data["n_legal"])
    assert (data["v_decision"] >= 0).all() and not data["v_to_act"].any()
    assert (data["players"][data["v_decision"]] == data["v_players"]).all()
    assert (data["seat"][data["v_decision"]] != data["v_viewer"]).all()
    assert sorted(set(data["game"].tolist())) == list(range(6))
    assert all(data["deal"][data["game"] == g][0] == deal_seed(5, g) for g in range(6))
    assert data["explored"].any()


def test_the_recorded_features_are_those_every_determinization_of_the_seats_view_gives(played):
    folder, _ = played
    data, _ = load_shards([folder])
    views = {(int(data["v_decision"][i]), int(data["v_viewer"][i])): i for i in range(len(data["v_x"]))}
    for game in (0, 1, 2):                                 # replay the games from the recorded actions
        rows = np.flatnonzero(data["game"] == game)
        position = Position.new(int(data["players"][rows[0]]), deal_seed(5, game))
        for row in rows:
            while len(position.legal_codes()) == 1:
                position.apply(position.legal_codes()[0])
            seat = position.to_act
            assert (seat, position.history.__len__()) == (data["seat"][row], data["ply"][row])
            guess = Position.from_observation(position.observation(seat), seed=int(row))
            assert (guess.features(seat) == data["x"][row]).all()
            actions = slice(data["a_start"][row], data["a_start"][row + 1])
            codes = data["a_code"][actions].tolist()
            assert (guess.action_features(seat, codes) == data["a_x"][actions]).all()
            for viewer in range(position.players):
                if viewer != seat:
                    other = Position.from_observation(position.observation(viewer), seed=int(row) + 1)
                    assert (other.features(viewer) == data["v_x"][views[row, viewer]]).all()
            position.apply(codes[int(np.flatnonzero(data["a_played"][actions])[0])])
        while not position.is_over:
            position.apply(position.legal_codes()[0])
        result = position.result()
        assert result is not None
        seat = int(data["seat"][rows[0]])
        share = 1 / len(result.winners) if seat in result.winners else 0.0
        assert data["win"][rows[0], 0] == pytest.approx(share) and data["gold"][rows[0], 0] == result.gold[seat]


def test_fast_moves_give_value_rows_only(tmp_path):
    config = SelfPlayConfig(spec="mcts:iterations=30", games=2, players=(2,), seed=3, games_per_shard=2,
                            explore_moves=1, fast_share=0.5, fast_iterations=5)
    run(config, tmp_path, processes=1, progress=False)
    data, _ = load_shards([tmp_path])
    fast = data["v_decision"] < 0
    assert fast.any() and not data["v_to_act"][~fast].any()
    assert 2 * data["v_to_act"].sum() == fast.sum()        # a fast move's position from both views
    assert (np.add.reduceat(data["a_visits"], data["a_start"][:-1]) == 30).all()


def test_an_interrupted_run_keeps_its_shards_and_a_longer_run_adds_to_them(tmp_path, played):
    folder, manifest = played
    short = SelfPlayConfig(**{**CONFIG.to_json(), "players": (2, 3, 4), "games": 4})
    first = run(short, tmp_path, processes=1, progress=False)
    (tmp_path / first["shards"][1]["file"]).unlink()       # as if it stopped before this one
    longer = run(CONFIG, tmp_path, processes=1, progress=False)
    assert [s["sha256"] for s in longer["shards"]] == [s["sha256"] for s in manifest["shards"]]
    assert longer["shards"][0]["cpu_s"] == first["shards"][0]["cpu_s"]    # kept, not played again


def test_the_command_line_plays_and_checks_its_spec(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--games", "2", "--players", "2", "--spec", "mcts:iterations=10",
                 "--processes", "1", "--quiet"]) == 0
    assert "2 games" in capsys.readouterr().out
    assert json.loads((tmp_path / "selfplay.json").read_text())["games"] == 2
    for bad in (["--spec", "greedy"], ["--players", "5"], ["--games", "0"]):
        with pytest.raises(SystemExit):
            main(["--out", str(tmp_path / "bad"), *bad])


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_shards_played_on_ray_are_those_of_local_processes(played, tmp_path):
    folder, manifest = played
    on_ray = call_in_fresh_python(selfplay.__name__, "run", CONFIG, tmp_path, ray_address="local", progress=False)
    assert [s["sha256"] for s in on_ray["shards"]] == [s["sha256"] for s in manifest["shards"]]


def test_a_proved_2_player_position_has_the_solvers_exact_values_as_its_value_targets(tmp_path):
    config = SelfPlayConfig(spec="mcts:iterations=200", games=2, players=(2,), seed=3, games_per_shard=2,
                            explore_moves=1)
    run(config, tmp_path, processes=1, progress=False)
    data, _ = load_shards([tmp_path])
    exact, views = data["exact"], data["v_exact"]
    assert exact.any() and not exact.all() and views.any()
    # the seat to act's target is the solver's value, which the search answered with
    assert np.allclose(data["win"][exact], data["search_win"][exact])
    assert np.allclose(data["win"][exact].sum(axis=1), 1.0)
    assert np.allclose(data["margin"][exact][:, 0], -data["margin"][exact][:, 1])
    # the other seat's view of a proved position has the same values, from its side
    for row in np.flatnonzero(views & (data["v_decision"] >= 0)):
        decision = data["v_decision"][row]
        assert exact[decision]
        assert np.allclose(data["v_win"][row][:2], data["win"][decision][1::-1])
    # an unproved position keeps the game's result: a win, a loss or a shared win
    assert set(np.round(data["win"][~exact][:, 0], 3)) <= {0.0, 0.5, 1.0}
