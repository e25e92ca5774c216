"""cacao-train: the numpy networks' gradients are right, training on real
self-play games learns (held-out losses below the constant predictor's and the
uniform prior's), it is deterministic for a seed, and the model it writes
loads in the search, gives the numpy networks' values and plays legal moves."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cacaoai.engine import Position, features
from cacaoai.lab.arena import run as arena
from cacaoai.lab.mlp import MLP, Adam
from cacaoai.lab.selfplay import SelfPlayConfig
from cacaoai.lab.selfplay import run as selfplay
from cacaoai.lab.train import (
    TINY,
    TINY_PIPELINE,
    PolicyNet,
    PolicyRows,
    load_data,
    main,
    pipeline,
    policy_loss,
    portable_spec,
    train,
    value_loss,
    value_network,
    value_prediction,
    win_target,
)
from cacaoai.search import Limit, SearchSettings, search
from cacaoai.search.model import load_model

# 100 cheap games: a tiny network's held-out loss beats the constant's by a margin over
# 25 held-out games, where over 10 it came down to the games drawn
GAMES = SelfPlayConfig(spec="mcts:iterations=16", games=100, players=(2, 3, 2, 4), seed=11, games_per_shard=25,
                       explore_moves=2, unvisited=4)


#: the search's root values as the value target, as the generation loop trains
CONFIG = replace(TINY, search_target=1.0)


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    selfplay(GAMES, folder, processes=2, progress=False)
    return folder


@pytest.fixture(scope="module")
def trained(games, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "tiny.npz"
    return path, train([games], path, CONFIG, name="tiny", log=lambda line: None)


def numeric_gradient(f, param: np.ndarray, index: tuple[int, ...], h: float = 1e-2) -> float:
    saved = param[index]
    param[index] = saved + h
    up = f()
    param[index] = saved - h
    down = f()
    param[index] = saved
    return (up - down) / (2 * h)


@pytest.mark.parametrize("search_target", [0.0, 0.5])
def test_the_value_loss_gradient_matches_finite_differences(games, search_target):
    config = replace(TINY, search_target=search_target)
    value, _, _ = load_data([games])
    rows = value.take(np.arange(40))
    rows.x = rows.x.astype(np.float64)
    rng = np.random.default_rng(1)
    net = MLP([features.N_FEATURES, 6, 5, 12], rng, last_gain=1.0)
    net.weights = [w.astype(np.float64) for w in net.weights]       # in float64: exact enough to compare
    net.biases = [rng.normal(0, 0.1, b.shape) for b in net.biases]  # no unit sits on its kink at 0
    weight = np.ones(len(rows))

    def loss() -> float:
        return value_loss(net.forward(rows.x)[0], rows, weight, config)[0]

    out, acts = net.forward(rows.x)
    grads = net.backward(acts, value_loss(out, rows, weight, config)[1])
    for param, grad in zip(net.params, grads):
        for _ in range(3):
            index = tuple(int(rng.integers(s)) for s in param.shape)
            assert grad[index] == pytest.approx(numeric_gradient(loss, param, index, 1e-6), rel=1e-3, abs=1e-6)


def test_the_win_target_mixes_the_search_in_only_where_it_searched(games):
    value, _, _ = load_data([games])
    searched = ~np.isnan(value.search_win[:, 0])
    assert searched.any() and not searched.all()        # the seat to act's rows, not the other views
    assert (searched == value.to_act).all()
    assert win_target(value, 0.0) is value.win
    mixed = win_target(value, 0.25)
    assert np.allclose(mixed[searched], 0.75 * value.win[searched] + 0.25 * value.search_win[searched], atol=1e-6)
    assert (mixed[~searched] == value.win[~searched]).all()
    assert np.allclose(mixed.sum(axis=1), 1.0, atol=1e-5)                     # still win shares
    assert not np.allclose(mixed[searched], value.win[searched])


def test_the_policy_loss_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    start = np.array([0, 3, 7, 9])
    logits = rng.normal(size=9)
    visits = np.array([5, 0, 1, 2, 2, 0, 0, 0, 3], float)
    weight = np.array([1, 4, 1, 1, 1, 1, 2.5, 1, 1], float)
    ce, grad = policy_loss(logits, visits, weight, start)
    assert ce.shape == (3,) and (ce > 0).all()
    for i in range(9):
        assert grad[i] == pytest.approx(numeric_gradient(
            lambda: policy_loss(logits, visits, weight, start)[0].mean(), logits, (i,), 1e-4), abs=1e-4)


def test_the_policy_gradient_with_the_position_matches_finite_differences():
    rng = np.random.default_rng(5)
    start = np.array([0, 3, 7])
    rows = PolicyRows(x=rng.normal(size=(7, 4)).astype(np.float32), visits=np.array([5, 1, 0, 2, 2, 1, 3], float),
                      weight=np.ones(7), start=start, players=np.array([2, 3]), deal=np.array([1, 2], np.uint64),
                      position=rng.normal(size=(2, 6)).astype(np.float32))
    net = PolicyNet(MLP([4, 5, 1], rng), (np.zeros(6, np.float32), np.ones(6, np.float32)), rng)

    def loss() -> float:
        return float(policy_loss(net.forward(rows)[0].astype(np.float64), rows.visits, rows.weight, start)[0].mean())

    out, cache = net.forward(rows)
    grads = net.backward(cache, policy_loss(out.astype(np.float64), rows.visits, rows.weight, start)[1], start)
    assert len(grads) == len(net.params) == 5
    for param, grad in zip(net.params, grads):
        for index in [tuple(i % n for n in param.shape) for i in range(3)]:
            assert grad[index] == pytest.approx(numeric_gradient(loss, param, index, 1e-2), abs=2e-3)


def test_adam_fits_a_small_regression():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(256, 3)).astype(np.float32)
    y = (np.abs(x[:, :1]) - x[:, 1:2]).astype(np.float32)
    net = MLP([3, 16, 1], rng)
    adam = Adam(net.params, 1e-2)
    for _ in range(300):
        out, acts = net.forward(x)
        adam.step(net.backward(acts, (out - y) / len(x)))
    assert float(((net(x) - y) ** 2).mean()) < 0.05 * float(y.var())


def test_folding_the_standardisation_keeps_the_outputs():
    rng = np.random.default_rng(4)
    x = rng.normal(2.0, 3.0, size=(50, 7)).astype(np.float32)
    net = MLP([7, 5, 3], rng, x.mean(axis=0), x.std(axis=0))
    w, b = net.folded()
    h = np.maximum(x @ w[0].T + b[0], 0)
    assert np.allclose(h @ w[1].T + b[1], net(x), atol=1e-4)


def test_training_learns_from_real_self_play_games(trained):
    _, manifest = trained
    value, policy = manifest["metrics"]["value"], manifest["metrics"]["policy"]
    assert value["games"] >= 1 and policy["decisions"] > 0
    assert value["log_loss"] < value["log_loss_constant"]
    assert policy["cross_entropy"] < policy["cross_entropy_uniform"]
    assert 0 <= value["ece"] <= 1 and value["margin_mae"] > 0 and 0 <= policy["top1"] <= 1


def test_the_manifest_describes_the_model_and_its_data(trained):
    path, manifest = trained
    assert json.loads(path.with_suffix(".json").read_text()) == manifest
    assert manifest["features_version"] == features.FEATURES_VERSION and manifest["name"] == "tiny"
    assert manifest["data"][0]["spec"] == "mcts:iterations=16" and manifest["data"][0]["games"] == 100
    assert manifest["training"]["games"] + manifest["held_out"]["games"] == 100
    assert manifest["sizes"]["value"] == [features.N_FEATURES, 16, 12]
    assert {"by_players", "by_phase", "brier_skill", "search"} <= set(manifest["metrics"]["value"])
    assert manifest["training"]["time_s"] >= 0 and manifest["seed"] == TINY.seed


def test_a_manifest_names_the_self_play_model_relative_to_its_folder(tmp_path):
    folder = tmp_path / "loop" / "gen2" / "selfplay"
    spec = f"mcts:iterations=1000,model={tmp_path / 'loop' / 'gen1' / 'model.npz'},value=1"
    assert portable_spec(spec, folder) == "mcts:iterations=1000,model=../../gen1/model.npz,value=1"
    assert portable_spec("mcts:iterations=1000,model=cacao", folder) == "mcts:iterations=1000,model=cacao"
    assert portable_spec("greedy", folder) == "greedy"


@pytest.mark.parametrize("manifest", ["search/models/cacao.json", "lab/models/candidate.json"])
def test_the_shipped_manifests_name_no_directory_of_the_machine_that_trained_them(manifest):
    def strings(value):
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            return [s for item in value for s in strings(item)]
        return [value] if isinstance(value, str) else []

    text = json.loads((Path(__file__).parent.parent / manifest).read_text())
    absolute = [s for s in strings(text) if "=/" in s or s.startswith("/")]
    assert absolute == []


def test_training_is_deterministic_for_a_seed(games, trained, tmp_path):
    path, _ = trained
    train([games], tmp_path / "again.npz", CONFIG, name="tiny", log=lambda line: None)
    train([games], tmp_path / "other.npz", replace(CONFIG, seed=2), name="tiny", log=lambda line: None)
    with np.load(path) as a, np.load(tmp_path / "again.npz") as b, np.load(tmp_path / "other.npz") as c:
        assert all((a[k] == b[k]).all() for k in a.files)
        assert not all((a[k] == c[k]).all() for k in a.files)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_saved_model_gives_the_numpy_networks_values_in_the_search(trained, players):
    path, _ = trained
    handle = load_model(str(path)).handle
    position = Position.new(players, 21)
    for _ in range(7):
        position.apply(position.legal_codes()[0])
    net = value_network(path)
    assert net.sizes == [features.N_FEATURES, 16, 12]
    for viewer in range(players):
        win, margin, gold = handle.value(position.core, viewer)
        prob, m, g = value_prediction(net, position.features(viewer)[None, :], np.array([players]), 20.0)
        assert win == pytest.approx([prob[0, (s - viewer) % players] for s in range(players)], abs=1e-5)
        assert margin == pytest.approx([m[0, (s - viewer) % players] for s in range(players)], abs=1e-3)
        assert gold == pytest.approx([g[0, (s - viewer) % players] for s in range(players)], abs=1e-3)


def test_a_policy_that_sees_the_position_gives_the_search_its_logits(games, tmp_path):
    """--policy-position: the model file's p_wx, folded from the standardised
    position part, gives in C the numpy network's logits, and they change with
    the position, not only with the actions' features."""
    path = tmp_path / "seeing.npz"
    manifest = train([games], path, replace(CONFIG, policy_position=True), name="seeing", log=lambda line: None)
    assert "position" in manifest["description"]
    assert manifest["metrics"]["policy"]["cross_entropy"] < manifest["metrics"]["policy"]["cross_entropy_uniform"]
    handle = load_model(str(path)).handle
    arrays = dict(np.load(path))
    assert arrays["p_wx"].shape == (TINY.policy_hidden, features.N_FEATURES)
    for players in (2, 4):
        position = Position.new(players, 31)
        for _ in range(5):
            position.apply(position.legal_codes()[0])
        codes = position.legal_codes()
        seat = position.to_act
        hidden = np.maximum(position.action_features(seat, codes) @ arrays["p_w1"].T + arrays["p_b1"]
                            + position.features(seat) @ arrays["p_wx"].T, 0)
        expected = hidden @ arrays["p_w2"] + arrays["p_b2"][0]
        assert handle.logits(position.core, codes) == pytest.approx(expected.tolist(), abs=1e-4)
    result = search(Position.new(3, 8), Limit(iterations=200), SearchSettings(prior="model", model=str(path)), seed=1)
    assert result.best_action in Position.new(3, 8).legal_actions()


def test_value_from_keeps_a_models_value_network_and_trains_the_policy(trained, games, tmp_path, capsys):
    path, _ = trained
    out = tmp_path / "policy-only.npz"
    assert main([str(games), "--out", str(out), "--tiny", "--value-from", str(path), "--policy-position",
                 "--quiet"]) == 0
    with np.load(path) as kept, np.load(out) as new:
        assert all((kept[k] == new[k]).all() for k in ("w1", "b1", "w_out", "b_out"))
        assert "p_wx" in new.files and "p_wx" not in kept.files
    assert json.loads(out.with_suffix(".json").read_text())["value_from"] == str(path)
    with pytest.raises(SystemExit):
        main([str(games), "--out", str(out), "--value-from", str(tmp_path / "none.npz")])
    assert "--value-from: no model file" in capsys.readouterr().err


def test_the_saved_model_plays_legal_games_in_the_search(trained):
    path, _ = trained
    spec = f"mcts:iterations=60,value=1,prior=model,puct=1.5,model={path}"
    summary = arena([spec, "mcts:iterations=60"], players=2, games=2, seed=3, processes=1, progress=False)
    assert sum(b["win_rate"] for b in summary["bots"]) == pytest.approx(1.0)
    position = Position.new(3, 8)
    result = search(position, Limit(iterations=200), SearchSettings(value=0.5, prior="model", puct=1.5,
                                                                     model=str(path)), seed=1)
    assert result.best_action in position.legal_actions()


def test_the_pipeline_plays_and_trains_generation_after_generation(tmp_path):
    lines: list[str] = []
    manifest = pipeline(tmp_path / "model", tmp_path / "work", TINY_PIPELINE, processes=1, log=lines.append,
                        progress=False)
    assert [d["generation"] for d in manifest["data"]] == [0, 1]
    assert "model=" in manifest["data"][1]["spec"] and (tmp_path / "work" / "model-gen0.npz").exists()
    assert load_model(str(tmp_path / "model.npz")).manifest == manifest
    assert any("held-out value" in line for line in lines)


def test_the_command_line_pipeline_can_stop_after_generation_0(tmp_path, capsys):
    """--generations 1 is how the shipped model's weights (generation 0 alone) retrain from nothing."""
    out, work = tmp_path / "g0", tmp_path / "work"
    assert main(["--pipeline", "--tiny", "--generations", "1", "--out", str(out), "--work", str(work),
                 "--processes", "1", "--quiet"]) == 0
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert [d["generation"] for d in manifest["data"]] == [0]
    assert (work / "gen0").is_dir() and not (work / "gen1").exists()
    with pytest.raises(SystemExit):
        main(["--pipeline", "--tiny", "--generations", "3", "--out", str(out), "--work", str(work)])
    assert "--generations: 3 is not between 1 and 2" in capsys.readouterr().err


def test_the_command_line_trains_on_folders(games, tmp_path, capsys):
    assert main([str(games), "--out", str(tmp_path / "m"), "--tiny", "--quiet"]) == 0
    assert "held-out value" in capsys.readouterr().out
    assert (tmp_path / "m.npz").exists() and (tmp_path / "m.json").exists()
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "none")])
    with pytest.raises(SystemExit):
        main([str(games), "--out", str(tmp_path / "none"), "--search-target", "1.5"])
    assert "--search-target: 1.5 is not between 0 and 1" in capsys.readouterr().err
    assert main([str(games), "--out", str(tmp_path / "s"), "--tiny", "--quiet", "--search-target", "0.3"]) == 0
    manifest = json.loads((tmp_path / "s.json").read_text())
    assert manifest["training"]["search_target"] == 0.3
    assert not np.array_equal(np.load(tmp_path / "s.npz")["w1"], np.load(tmp_path / "m.npz")["w1"])

