"""The learned evaluation inside the search: a model file loads, its networks
run in C from one seat's view and never peek, and the search uses them for leaf
values, priors and PUCT as its settings say, deterministically for a seed."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest
from test_search import played  # a position after seeded random actions

from cacaoai.engine import Position, features
from cacaoai.search import NO_MODEL, Limit, SearchSettings, search
from cacaoai.search.bots import parse_bot
from cacaoai.search.model import load_model, model_path, save_model


def random_model(path, seed: int = 1, hidden: tuple[int, int] = (32, 16), policy: int = 8, position: bool = False):
    """A model of random weights (the plumbing does not care what it learned);
    with `position`, a policy that sees the position too (p_wx)."""
    rng = np.random.default_rng(seed)
    f, a = features.N_FEATURES, features.N_ACTION_FEATURES
    h1, h2 = hidden
    arrays = {"w1": rng.normal(0, 0.2, (h1, f)), "b1": rng.normal(0, 0.1, h1),
              "w2": rng.normal(0, 0.2, (h2, h1)), "b2": rng.normal(0, 0.1, h2),
              "w_out": rng.normal(0, 0.3, (12, h2)), "b_out": rng.normal(0, 0.1, 12),
              "p_w1": rng.normal(0, 0.3, (policy, a)), "p_b1": np.zeros(policy),
              "p_w2": rng.normal(0, 0.3, policy), "p_b2": np.zeros(1)}
    if position:
        arrays["p_wx"] = rng.normal(0, 0.3, (policy, f))
    return save_model(path, arrays, {"name": "random", "version": str(seed), "gold_scale": 20.0})


@pytest.fixture(scope="module", params=[False, True], ids=["action", "position"])
def model_file(tmp_path_factory, request):
    """A model whose policy sees the actions only, and one that sees the position too."""
    return str(random_model(tmp_path_factory.mktemp("models") / "random.npz", position=request.param))


def test_a_saved_model_loads_with_its_manifest(model_file):
    model = load_model(model_file)
    assert model.version == "random-1"
    assert model.manifest["features_version"] == features.FEATURES_VERSION


def test_the_shipped_model_loads_by_name_and_is_small():
    model = load_model(SearchSettings().model)
    manifest = model.manifest
    assert manifest["features_version"] == features.FEATURES_VERSION
    assert manifest["data"] and manifest["seed"] == manifest["training"]["seed"]
    assert {"value", "policy"} <= set(manifest["metrics"])
    path = model_path(SearchSettings().model)
    assert path.stat().st_size < 1 << 20
    result = search(played(2, 5, 10), Limit(iterations=200), SearchSettings(value=0.5, prior="model"), seed=1)
    assert result.best_action is not None


def test_a_model_for_other_features_is_refused(tmp_path, model_file):
    path = random_model(tmp_path / "old.npz")
    manifest = json.loads(path.with_suffix(".json").read_text())
    manifest["features_version"] = features.FEATURES_VERSION + 100
    path.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="features version"):
        load_model(str(path))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_value_network_gives_win_shares_from_a_seats_view_and_never_peeks(model_file, players):
    handle = load_model(model_file).handle
    position = played(players, 3, 12)
    for viewer in range(players):
        win, margin, gold = handle.value(position.core, viewer)
        assert len(win) == players and sum(win) == pytest.approx(1.0)
        assert all(0 <= w <= 1 for w in win) and all(np.isfinite(margin + gold))
        for k in range(4):  # any deal the viewer cannot tell from this one
            other = Position.from_observation(position.observation(viewer), seed=k)
            assert handle.value(other.core, viewer) == (win, margin, gold)


def test_the_policy_network_gives_one_logit_per_legal_action(model_file):
    handle = load_model(model_file).handle
    position = played(2, 5, 6)
    codes = position.legal_codes()
    logits = handle.logits(position.core, codes)
    assert len(logits) == len(codes) and len(set(logits)) > 1
    assert handle.logits(position.core, codes) == logits


def test_a_policy_that_sees_the_position_changes_with_it_and_is_checked(tmp_path):
    blind = load_model(str(random_model(tmp_path / "blind.npz", seed=3))).handle
    seeing = load_model(str(random_model(tmp_path / "seeing.npz", seed=3, position=True))).handle
    position = played(2, 5, 6)
    codes = position.legal_codes()
    assert seeing.logits(position.core, codes) != pytest.approx(blind.logits(position.core, codes))
    path = random_model(tmp_path / "bad.npz", position=True)
    arrays = dict(np.load(path))
    arrays["p_wx"] = arrays["p_wx"][:, :-1]
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="p_wx"):
        load_model(str(path))


def _dense(w: np.ndarray, b: np.ndarray, x: np.ndarray, relu: bool) -> np.ndarray:
    """A layer as the search computes it, in float32: the bias, then each
    input that is not zero times its weights, added in input order."""
    y = b.astype(np.float32)
    for j in np.flatnonzero(x):
        y = y + w[:, j].astype(np.float32) * x[j]
    return np.maximum(y, np.float32(0)) if relu else y


@pytest.mark.parametrize("hidden, policy", [((64, 32), 16), ((8, 12), 32), ((40, 24), 20), ((16, 8), 64)])
def test_the_compiled_networks_add_the_same_products_in_the_same_order_as_numpy(tmp_path, hidden, policy):
    """Every layer width the compiled pass keeps in registers (8, 12, 16, 32,
    64 outputs) and one it does not (20, 24, 40): the same floats, to the bit,
    as NumPy's float32 products and sums in the same order."""
    path = random_model(tmp_path / "m.npz", seed=7, hidden=hidden, policy=policy, position=True)
    arrays = dict(np.load(path))
    handle = load_model(str(path)).handle
    position = played(3, 5, 9)
    for viewer in range(3):
        x = position.features(viewer)
        h = _dense(arrays["w1"], arrays["b1"], x, True)
        h = _dense(arrays["w2"], arrays["b2"], h, True)
        out = _dense(arrays["w_out"], arrays["b_out"], h, False)
        win, margin, gold = handle.value(position.core, viewer)
        rel = [(viewer + k) % 3 for k in range(3)]
        assert [margin[s] for s in rel] == [float(v) * 20.0 for v in out[4:7]]
        assert [gold[s] for s in rel] == [float(v) * 20.0 for v in out[8:11]]
        e = np.exp(out[:3].astype(np.float64) - out[:3].max())
        assert [win[s] for s in rel] == pytest.approx(list(e / e.sum()), rel=1e-12)
    codes = position.legal_codes()
    seat = position.to_act
    bias = _dense(arrays["p_wx"], arrays["p_b1"], position.features(seat), False)
    expected = []
    for a in position.action_features(seat, codes):
        acc = np.float32(arrays["p_b2"][0])
        for w, v in zip(arrays["p_w2"].astype(np.float32), _dense(arrays["p_w1"], bias, a, True)):
            acc = np.float32(acc + w * v)
        expected.append(float(acc))
    assert handle.logits(position.core, codes) == expected


@pytest.mark.parametrize("settings", [
    {"value": 1.0}, {"value": 0.5}, {"prior": "model"}, {"value": 1.0, "prior": "model", "puct": 1.5},
    {"puct": 2.0}, {"late_value": 0.5}, {"value": 0.0, "prior": "greedy", "late_value": 1.0},
])
def test_a_search_with_the_model_is_deterministic_and_never_peeks(model_file, settings):
    position = played(2, 8, 9)
    seat = position.to_act
    chosen = SearchSettings(model=model_file, **settings)
    limit = Limit(iterations=600, threads=2)
    a = search(position, limit, chosen, seed=4)
    assert a.best_action in position.legal_actions()
    assert a.to_json() | {"elapsed_s": 0, "iterations_per_second": 0} == \
        search(position, limit, chosen, seed=4).to_json() | {"elapsed_s": 0, "iterations_per_second": 0}
    other = Position.from_observation(position.observation(seat), seed=11)
    b = search(other, limit, chosen, seed=4)
    assert (a.best_action, a.win_probability, [c.visits for c in a.candidates]) == \
        (b.best_action, b.win_probability, [c.visits for c in b.candidates])


def test_model_priors_are_the_reported_priors_and_sum_to_one(model_file):
    position = played(3, 2, 4)
    result = search(position, Limit(iterations=300), SearchSettings(prior="model", model=model_file), seed=1)
    handle = load_model(model_file).handle
    codes = position.legal_codes()
    logits = np.array(handle.logits(position.core, codes), dtype=float)
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    priors = {c.action: c.prior for c in result.candidates}
    for code, p in zip(codes, expected):
        action = position.decode(code)
        if action in priors:
            assert priors[action] == pytest.approx(p, rel=1e-5)


def test_model_settings_are_checked_and_read_from_bot_specs(model_file):
    for bad in ({"value": 1.5}, {"value": -0.1}, {"late_value": 1.1}, {"late_value": -0.5},
                {"prior": "oracle"}, {"puct": -1}, {"model": ""}):
        with pytest.raises(ValueError):
            SearchSettings(**bad)
    bot = parse_bot(f"mcts:iterations=100,value=1,prior=model,puct=1.5,model={model_file}")
    assert (bot.settings.value, bot.settings.prior, bot.settings.puct) == (1.0, "model", 1.5)
    assert bot.settings.uses_model and not replace(NO_MODEL, puct=1.0).uses_model
    with pytest.raises(ValueError, match="no model file"):
        search(played(2, 1, 0), Limit(iterations=10), SearchSettings(value=1, model="/nowhere/x.npz"),
               seed=1)


def test_late_value_blends_playouts_into_the_leaves_of_the_last_third_only(model_file):
    blend = SearchSettings(model=model_file, late_value=0.5)
    same = SearchSettings(model=model_file, late_value=1.0)
    plain = SearchSettings(model=model_file)

    def answer(position, settings):
        r = search(position, Limit(iterations=300), settings, seed=5)
        return r.best_action, r.win_probability, [c.visits for c in r.candidates]

    # at the deal no leaf of 300 iterations is two thirds into the game
    opening = played(2, 4, 0)
    assert answer(opening, blend) == answer(opening, plain)
    late = played(2, 4, 0)
    rng = random.Random(4)
    while late.progress < 0.75:
        late.apply(rng.choice(late.legal_actions()))
    assert answer(late, same) == answer(late, plain)
    assert answer(late, blend) != answer(late, plain)
    assert replace(NO_MODEL, late_value=0.5).uses_model
    assert not replace(NO_MODEL, late_value=0.0).uses_model


def test_analysis_specs_start_from_the_analysis_settings():
    from cacaoai.search import ANALYSIS
    bot = parse_bot("analysis:iterations=1500")
    assert bot.settings == ANALYSIS and bot.limit == Limit(iterations=1500)
    assert bot.settings != SearchSettings() and ANALYSIS.late_value is not None
    tuned = parse_bot("analysis:time=0.5,puct=1.5,late_value=1")
    assert tuned.settings == replace(ANALYSIS, puct=1.5, late_value=1.0)
    assert parse_bot("mcts:iterations=1500").settings == SearchSettings()


def test_the_search_without_the_model_is_unchanged_by_its_settings(model_file):
    position = played(2, 6, 7)
    without = NO_MODEL
    plain = search(position, Limit(iterations=400), without, seed=2)
    named = search(position, Limit(iterations=400), replace(without, model=model_file), seed=2)
    assert plain.best_action == named.best_action and plain.win_probability == named.win_probability


def test_a_models_calibration_map_corrects_the_reported_win_probabilities(tmp_path):
    path = random_model(tmp_path / "calibrated.npz", seed=3)
    position = played(2, 8, 9)
    settings = SearchSettings(value=1.0, model=str(path))
    raw = search(position, Limit(iterations=500), settings, seed=2)
    manifest = json.loads(path.with_suffix(".json").read_text())
    manifest["calibration"] = {"version": 1, "players": {"2": {"kind": "temperature", "t": 2.0}}}
    path.with_suffix(".json").write_text(json.dumps(manifest))
    calibrated_path = tmp_path / "calibrated-copy.npz"    # a new name: the cache keeps the first
    calibrated_path.write_bytes(path.read_bytes())
    calibrated_path.with_suffix(".json").write_text(json.dumps(manifest))
    fixed = search(position, Limit(iterations=500), replace(settings, model=str(calibrated_path)), seed=2)
    p, q = raw.win_probability, fixed.win_probability
    expected = np.sqrt(np.array(p)) / np.sqrt(np.array(p)).sum()    # p ** (1 / t), normalised
    assert q == pytest.approx(tuple(expected)) and sum(q) == pytest.approx(1.0)
    assert fixed.root.win_probability == pytest.approx(q[position.to_act])
    assert [c.win_probability for c in fixed.candidates] == [c.win_probability for c in raw.candidates]
