"""Calibration of the search's win probabilities (cacaoai.lab.calibration and
calibration_map): the measures on hand-made samples, the maps and their fit on
synthetic miscalibrated data, the map file, and a small real run that repeats
exactly for a seed.
"""

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from support import call_in_fresh_python

from cacaoai.engine import Position
from cacaoai.lab import calibration
from cacaoai.search import calibration_map as cm
from cacaoai.search.model import load_model

# --- measures -----------------------------------------------------------------------------


def test_ece_and_brier_of_hand_made_samples_are_exact():
    p = [0.05, 0.15, 0.95, 0.92, 1.0, 0.5]
    y = [0.0, 1.0, 1.0, 0.0, 1.0, 0.5]
    # bins: [0, .1): .05 -> 0; [.1, .2): .15 -> 1; [.5, .6): .5 -> .5; [.9, 1]: .95, .92, 1.0 -> 1, 0, 1
    expected_ece = (1 * 0.05 + 1 * 0.85 + 1 * 0.0 + 3 * abs((0.95 + 0.92 + 1.0) / 3 - 2 / 3)) / 6
    assert cm.ece(p, y) == pytest.approx(expected_ece, abs=1e-12)
    expected_brier = (0.05**2 + 0.85**2 + 0.05**2 + 0.92**2 + 0.0 + 0.0) / 6
    assert cm.brier(p, y) == pytest.approx(expected_brier, abs=1e-12)
    m = cm.measures(p, y, players=2)
    base = (0.25 * 5 + 0.0) / 6                       # (1/2 - y)^2: 0.25 five times, 0 once
    assert m["base_brier"] == pytest.approx(base) and m["samples"] == 6
    assert m["skill"] == pytest.approx(1 - expected_brier / base)


def test_weights_count_a_sample_that_many_times():
    p, y = [0.1, 0.7, 0.45], [0.0, 1.0, 1.0]
    twice = ([0.1, 0.7, 0.7, 0.45], [0.0, 1.0, 1.0, 1.0])
    assert cm.ece(p, y, weights=[1, 2, 1]) == pytest.approx(cm.ece(*twice))
    assert cm.brier(p, y, weights=[1, 2, 1]) == pytest.approx(cm.brier(*twice))
    assert cm.measures(p, y, 2, weights=[0, 1, 1])["skill"] == pytest.approx(cm.measures(p[1:], y[1:], 2)["skill"])


def test_the_reliability_table_has_ten_equal_bins_and_the_last_holds_one():
    rows = cm.reliability([0.0, 0.1, 0.19, 0.95, 1.0], [0, 1, 0, 1, 1])
    assert [(r["low"], r["high"]) for r in rows][:2] == [(0.0, 0.1), (0.1, 0.2)]
    assert [r["count"] for r in rows] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert rows[1]["predicted"] == pytest.approx(0.145) and rows[1]["observed"] == 0.5
    assert rows[2]["predicted"] is None and rows[9]["observed"] == 1.0


def test_perfect_predictions_score_zero_and_the_base_rate_no_skill():
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    assert cm.ece(y, y) == 0.0 and cm.brier(y, y) == 0.0
    m = cm.measures(np.full(6, 1 / 3), y, players=3)
    assert m["skill"] == pytest.approx(0.0) and m["brier"] == pytest.approx(m["base_brier"])


def test_the_phase_is_the_third_of_the_games_decisions():
    assert [calibration.phase_of(d, 30) for d in (0, 9, 10, 19, 20, 29)] == [0, 0, 1, 1, 2, 2]
    assert calibration.phase_of(4, 5) == 2


# --- maps ---------------------------------------------------------------------------------


def test_temperature_with_two_players_divides_the_logit():
    p = np.array([[0.8, 0.2], [0.3, 0.7]])
    q = cm.apply_entry({"kind": "temperature", "t": 2.0}, p)
    logit = np.log(p[:, 0] / p[:, 1])
    np.testing.assert_allclose(q[:, 0], 1 / (1 + np.exp(-logit / 2)))
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    np.testing.assert_allclose(cm.apply_entry({"kind": "temperature", "t": 1.0}, p), p)


def test_isotonic_regression_pools_violators_and_the_map_renormalises():
    x, y = cm.fit_isotonic([0.1, 0.2, 0.3, 0.3, 0.9], [0, 1, 0, 0, 1])
    assert x == [0.1, 0.2, 0.3, 0.9]
    assert y == pytest.approx([0.0, 1 / 3, 1 / 3, 1.0])
    q = cm.apply_entry({"kind": "isotonic", "x": x, "y": y}, np.array([[0.25, 0.1, 0.65]]))
    assert q.sum() == pytest.approx(1.0)
    assert q[0, 1] == 0.0                             # mapped to 0 before the renormalisation


def miscalibrated_games(n_games, rng, shrink=0.5, per_game=1):
    """Synthetic 2-player games: seat 0 wins with a chance q drawn per game, and each of the
    game's evaluated positions predicts sigmoid(shrink * logit q): underconfident for
    shrink < 1."""
    games = []
    for g in range(n_games):
        q = rng.uniform(0.03, 0.97)
        winner = 0 if rng.random() < q else 1
        p0 = 1 / (1 + math.exp(-shrink * math.log(q / (1 - q))))
        samples = [{"decision": 4 * d, "to_act": d % 2, "p": [p0, 1 - p0]} for d in range(per_game)]
        games.append({"players": 2, "seed": 1, "game": g, "decisions": 16, "skipped": 0, "raw": True,
                      "outcome": [1.0 - winner, float(winner)], "samples": samples})
    return games


def test_a_map_fitted_on_miscalibrated_data_reduces_the_held_out_ece():
    games = miscalibrated_games(3000, np.random.default_rng(8))
    fitted, details = calibration.fit(games, holdout=0.3)
    d = details["2"]
    assert d["held_out_games"] == 900 and d["fit_games"] == 2100
    before, after = d["held_out"]["none"], d["held_out"][d["chosen"]]
    assert after["ece"] < before["ece"] / 2
    assert after["brier"] < before["brier"]
    assert 0.4 < d["temperature"] < 0.65               # underconfident by 1/2: the map sharpens
    assert d["chosen"] != "none" and d["cv_brier"][d["chosen"]] < d["cv_brier"]["none"]
    cm.validate_map(fitted)
    # the map applied by the report gives the chosen kind's held-out figures on those games
    held = [g for g, out in zip(games, calibration._held_out(len(games), 0.3)) if out]
    assert calibration.report(held, fitted)["2"]["all"]["ece"] == pytest.approx(after["ece"])


def test_a_temperature_that_beats_no_map_by_less_than_its_standard_error_is_still_kept():
    # mildly underconfident: the temperature's gain is real but within the folds' noise,
    # where a map of many knots would be fitting noise; one number is not
    d = calibration.fit(miscalibrated_games(600, np.random.default_rng(2), shrink=0.85))[1]["2"]
    gain = d["cv_brier"]["none"] - d["cv_brier"]["temperature"]
    assert 0 < gain < d["cv_margin"]["temperature"]
    assert d["chosen"] == "temperature" and d["temperature"] < 1
    # and one that does not beat no map is not kept
    d = calibration.fit(miscalibrated_games(600, np.random.default_rng(4), shrink=0.9))[1]["2"]
    assert d["cv_brier"]["temperature"] > d["cv_brier"]["none"] and d["chosen"] == "none"


def staged_games(n_games, rng, shrinks=(2.0, 1.0, 0.4)):
    """Synthetic 2-player games with a position in each third of the game: overconfident
    early (shrink 2), calibrated in the middle, underconfident late (shrink 0.4)."""
    games = miscalibrated_games(n_games, rng, per_game=3)
    for g in games:
        q = rng.uniform(0.03, 0.97)
        winner = 0 if rng.random() < q else 1
        g["outcome"] = [1.0 - winner, float(winner)]
        for stage, (sample, shrink) in enumerate(zip(g["samples"], shrinks)):
            p0 = 1 / (1 + math.exp(-shrink * math.log(q / (1 - q))))
            sample["p"], sample["progress"] = [p0, 1 - p0], (stage + 0.5) / 3
    return games


def test_a_staged_map_corrects_each_third_of_the_game_with_its_own_temperature():
    entry = {"kind": "staged", "t": [2.0, 1.0, 0.5]}
    p = np.array([[0.8, 0.2], [0.8, 0.2], [0.8, 0.2]])
    q = cm.apply_entry(entry, p, progress=[0.1, 0.5, 0.9])
    for row, t in zip(q, entry["t"]):
        np.testing.assert_allclose(row, cm.apply_entry({"kind": "temperature", "t": t}, p[:1])[0])
    assert cm.stage_of([0.0, 0.333, 1 - 20 / 30, 10 / 30, 0.34, 0.99, 1.0]).tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert cm.apply_map({"version": 1, "players": {"2": entry}}, [0.8, 0.2], progress=1.0) == \
        pytest.approx(q[2])
    with pytest.raises(ValueError, match="progress"):
        cm.apply_map({"version": 1, "players": {"2": entry}}, [0.8, 0.2])
    for bad in ([1.0, 2.0], [1.0, 0.0, 1.0], "1"):
        with pytest.raises(ValueError, match="3 positive numbers"):
            cm.validate_map({"version": 1, "players": {"2": {"kind": "staged", "t": bad}}})


def test_a_to_act_offset_moves_the_seat_to_act_after_the_temperature():
    entry = {"kind": "staged", "t": [2.0, 1.0, 0.5], "to_act": [0.5, 0.0, -1.0]}
    p = np.array([[0.8, 0.2], [0.8, 0.2], [0.8, 0.2]])
    q = cm.apply_entry(entry, p, progress=[0.1, 0.5, 0.9], to_act=[0, 1, 1])

    def sigmoid(x):
        return 1 / (1 + math.exp(-x))
    logit = math.log(0.8 / 0.2)
    assert q[0][0] == pytest.approx(sigmoid(logit / 2.0 + 0.5))       # seat 0 to act, pushed up
    assert q[1][0] == pytest.approx(0.8)                                # offset 0: the temperature alone
    assert q[2][1] == pytest.approx(sigmoid(-logit / 0.5 - 1.0))       # seat 1 to act, pulled down
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    three = {"kind": "staged", "t": [1.0, 1.0, 2.0], "to_act": [0.0, 0.0, 0.7]}
    r = cm.apply_map({"version": 1, "players": {"3": three}}, [0.5, 0.3, 0.2], progress=0.9, to_act=2)
    w = np.sqrt([0.5, 0.3, 0.2]) * [1.0, 1.0, math.exp(0.7)]
    assert r == pytest.approx(list(w / w.sum()))
    with pytest.raises(ValueError, match="seat to act"):
        cm.apply_map({"version": 1, "players": {"3": three}}, [0.5, 0.3, 0.2], progress=0.9)
    for bad in ([0.0, math.nan, 0.0], [1.0, 2.0], "0"):
        with pytest.raises(ValueError, match="to_act must be a list of 3 finite numbers"):
            cm.validate_map({"version": 1, "players": {"2": dict(three, to_act=bad)}})


@pytest.mark.timeout(180)  # two fits of 1,500 games: 6 s alone, 27 s with the CPU shared five ways
def test_the_fit_finds_and_corrects_an_optimism_for_the_seat_to_act():
    """Predictions that favour the seat to act by 0.6 logits at every stage: the fit
    chooses the to-act offsets, finds about -0.6, and beats the plain staged map."""
    games = staged_games(1500, np.random.default_rng(12), shrinks=(1.0, 1.0, 1.0))
    for g in games:
        for sample in g["samples"]:
            seat = sample["to_act"]
            logit = math.log(sample["p"][seat] / (1 - sample["p"][seat])) + 0.6
            sample["p"][seat] = 1 / (1 + math.exp(-logit))
            sample["p"][1 - seat] = 1 - sample["p"][seat]
    fitted, details = calibration.fit(games)
    d = details["2"]
    assert d["chosen"] == "staged-to-act" and fitted["players"]["2"]["kind"] == "staged"
    assert all(-0.8 < b < -0.4 for b in fitted["players"]["2"]["to_act"])
    assert all(0.8 < t < 1.25 for t in fitted["players"]["2"]["t"])
    assert d["held_out"]["staged-to-act"]["brier"] < d["held_out"]["staged"]["brier"]
    held = [g for g, out in zip(games, calibration._held_out(len(games), 0.3)) if out]
    assert calibration.report(held, fitted, resamples=0)["2"]["all"]["ece"] == \
        pytest.approx(d["held_out"]["staged-to-act"]["ece"])
    for g in games:                                  # samples without the seat to act
        for sample in g["samples"]:
            del sample["to_act"]
    assert "staged-to-act" not in calibration.fit(games)[1]["2"]["held_out"]


def test_the_fit_takes_a_temperature_per_stage_when_calibration_changes_as_the_game_goes_on():
    games = staged_games(3000, np.random.default_rng(11))
    fitted, details = calibration.fit(games)
    d = details["2"]
    assert d["chosen"] == "staged" and fitted["players"]["2"]["kind"] == "staged"
    early, middle, late = fitted["players"]["2"]["t"]
    assert early > 1.5 and 0.8 < middle < 1.25 and late < 0.6
    assert d["held_out"]["staged"]["brier"] < d["held_out"]["temperature"]["brier"]
    # the report applies it stage by stage: the held-out games' ECE as the fit measured it
    held = [g for g, out in zip(games, calibration._held_out(len(games), 0.3)) if out]
    assert calibration.report(held, fitted, resamples=0)["2"]["all"]["ece"] == \
        pytest.approx(d["held_out"]["staged"]["ece"])
    for g in held:                                  # samples of older runs carry no progress
        for sample in g["samples"]:
            del sample["progress"]
    with pytest.raises(ValueError, match="progress"):
        calibration.report(held, fitted)
    assert "staged" not in calibration.fit(held)[1]["2"]["held_out"]


def test_a_map_is_fitted_only_to_the_trees_own_probabilities():
    games = miscalibrated_games(40, np.random.default_rng(8))
    games[3]["raw"] = False                       # evaluated through the model's map already
    with pytest.raises(ValueError, match="--raw"):
        calibration.fit(games)


def test_well_calibrated_data_gets_no_map():
    games = miscalibrated_games(3000, np.random.default_rng(9), shrink=1.0)
    fitted, details = calibration.fit(games)
    assert details["2"]["chosen"] == "none" and fitted == {"version": 1, "players": {}}


def test_the_report_gives_intervals_and_the_floor_of_ece_from_a_bootstrap_over_games():
    calibrated = miscalibrated_games(300, np.random.default_rng(10), shrink=1.0, per_game=3)
    rep = calibration.report(calibrated, resamples=100)["2"]["all"]
    lo, hi = rep["ci95"]["skill"]
    assert lo < rep["skill"] < hi and rep["ci95"]["brier"][0] < rep["brier"] < rep["ci95"]["brier"][1]
    assert 0 < rep["ece_floor"] < 0.1
    assert rep["ece"] < 2 * rep["ece_floor"]            # calibrated: what ECE shows is noise
    off = calibration.report(miscalibrated_games(300, np.random.default_rng(10), per_game=3), resamples=100)
    assert off["2"]["all"]["ece"] > 2 * off["2"]["all"]["ece_floor"]
    assert "ci95" not in calibration.report(calibrated, resamples=0)["2"]["all"]


def test_the_map_file_round_trips_and_corrects_a_position(tmp_path):
    data = {"version": 1, "players": {"2": {"kind": "temperature", "t": 0.5},
                                      "4": {"kind": "isotonic", "x": [0.0, 1.0], "y": [0.0, 1.0]}}}
    path = tmp_path / "map.json"
    path.write_text(json.dumps(data))
    loaded = cm.load_map(str(path))
    assert cm.apply_map(loaded, [0.6, 0.4]) == pytest.approx([0.6**2 / (0.6**2 + 0.4**2), 0.4**2 / (0.6**2 + 0.4**2)])
    assert cm.apply_map(loaded, [0.5, 0.3, 0.2]) == [0.5, 0.3, 0.2]                # no entry for 3
    assert cm.apply_map(loaded, [0.4, 0.3, 0.2, 0.1]) == pytest.approx([0.4, 0.3, 0.2, 0.1])
    for bad in ({"version": 2, "players": {}},
                {"version": 1, "players": {"2": {"kind": "temperature", "t": 0}}},
                {"version": 1, "players": {"5": {"kind": "temperature", "t": 1}}},
                {"version": 1, "players": {"2": {"kind": "isotonic", "x": [0.5, 0.1], "y": [0, 1]}}},
                {"version": 1, "players": {"2": {"kind": "platt"}}}):
        with pytest.raises(ValueError):
            cm.validate_map(bad)


# --- real games ---------------------------------------------------------------------------


def test_a_tiny_calibration_run_repeats_exactly_for_a_seed():
    kwargs = {"player": "mcts:iterations=20", "evaluator": "mcts:iterations=40", "every": 6, "processes": 1}
    first = calibration.run([2, 3], 2, seed=4, **kwargs)
    again = calibration.run([2, 3], 2, seed=4, **kwargs)
    assert first == again
    assert [(g["players"], g["game"]) for g in first] == [(2, 0), (2, 1), (3, 0), (3, 1)]
    for g in first:
        assert sum(g["outcome"]) == pytest.approx(1.0)
        assert [s["decision"] for s in g["samples"]] == sorted(s["decision"] for s in g["samples"])
        assert all(s["decision"] % 6 == 0 and s["decision"] < g["decisions"] for s in g["samples"])
        assert all(sum(s["p"]) == pytest.approx(1.0, abs=1e-5) for s in g["samples"])
        assert len(g["samples"]) + g["skipped"] == math.ceil(g["decisions"] / 6)
    rep = calibration.report(first)
    assert set(rep) == {"2", "3"} and set(rep["2"]["phases"]) == {"first", "middle", "last"}
    assert rep["2"]["all"]["base_brier"] == pytest.approx(cm.brier(np.full(rep["2"]["all"]["samples"], 0.5),
                                                                   [o for g in first[:2] for _ in g["samples"]
                                                                    for o in g["outcome"]]))
    # games already there are not played again
    more = calibration.run([2], 3, seed=4, have=first, **kwargs)
    assert len(more) == 5 and more[:2] == first[:2]


def test_several_evaluators_judge_the_positions_of_games_played_once_as_each_alone_would(tmp_path, capsys):
    kwargs = {"player": "mcts:iterations=20", "every": 6, "processes": 1, "raw": True}
    both = calibration.run([2], 2, seed=4, evaluator=["mcts:iterations=40", "mcts:iterations=25"], **kwargs)
    first = calibration.run([2], 2, seed=4, evaluator="mcts:iterations=40", **kwargs)
    second = calibration.run([2], 2, seed=4, evaluator="mcts:iterations=25", **kwargs)
    assert both == [first[0], second[0], first[1], second[1]]
    assert any(a["p"] != b["p"] for a, b in zip(first[0]["samples"], second[0]["samples"]))
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    args = ["--games", "2", "--player", "mcts:iterations=20", "--every", "6", "--raw", "--processes", "1",
            "--quiet", "--seed", "4", "--evaluator", "mcts:iterations=40", "--out", str(outs[0]),
            "--evaluator", "mcts:iterations=25", "--out", str(outs[1])]
    assert calibration.main(args) == 0
    assert [json.loads(out.read_text())["games"] for out in outs] == [first, second]
    assert capsys.readouterr().out.count("2 players: 2 games") == 2
    with pytest.raises(SystemExit):     # each evaluator needs its own file
        calibration.main(args[:-2])
    assert "give an --out for each" in capsys.readouterr().err
    # a run continued from both files plays only the games they lack
    more = [tmp_path / "a3.json", tmp_path / "b3.json"]
    args = [*args[:1], "3", *args[2:-8], "--input", *map(str, outs), "--evaluator", "mcts:iterations=40",
            "--out", str(more[0]), "--evaluator", "mcts:iterations=25", "--out", str(more[1])]
    assert calibration.main(args) == 0
    assert "3 games (1 played" in capsys.readouterr().out
    continued = [json.loads(out.read_text())["games"] for out in more]
    assert continued[0][:2] == first and continued[1][:2] == second
    assert continued[0][2]["outcome"] == continued[1][2]["outcome"]


def test_a_run_stopped_part_way_resumes_from_its_journal_at_the_games_it_lacks(tmp_path, capsys):
    journal = tmp_path / "run.journal"

    def arguments(out: str, player: str = "mcts:iterations=20") -> list[str]:
        return ["--games", "3", "--player", player, "--every", "6", "--raw", "--processes", "1", "--quiet",
                "--seed", "4", "--evaluator", "mcts:iterations=40", "--out", str(tmp_path / f"{out}-a.json"),
                "--evaluator", "mcts:iterations=25", "--out", str(tmp_path / f"{out}-b.json")]

    args = arguments("run")
    assert calibration.main([*args, "--journal", str(journal)]) == 0
    lines = journal.read_text().splitlines()
    assert len(lines) == 6 and "3 games (3 played" in capsys.readouterr().out
    # stopped after the first game and in the middle of writing the second one's first entry
    journal.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    assert calibration.main([*args, "--journal", str(journal)]) == 0
    assert "3 games (2 played" in capsys.readouterr().out
    assert [json.loads(line) for line in journal.read_text().splitlines()] == [json.loads(x) for x in lines]
    assert calibration.main(arguments("whole")) == 0      # the same run, never stopped
    for part in ("a", "b"):
        resumed, whole = (json.loads((tmp_path / f"{run}-{part}.json").read_text())["games"]
                          for run in ("run", "whole"))
        assert resumed == whole and len(whole) == 3
    # a journal of other settings is refused, naming them
    with pytest.raises(SystemExit):
        calibration.main([*arguments("other", player="mcts:iterations=21"), "--journal", str(journal)])
    assert "give the same to add games" in capsys.readouterr().err
    journal.write_text("not json\n" + lines[0] + "\n")
    with pytest.raises(SystemExit):
        calibration.main([*args, "--journal", str(journal)])
    assert "line 1 is not a game" in capsys.readouterr().err


def test_raw_samples_are_the_trees_own_and_the_others_go_through_the_models_map():
    kwargs = {"player": "mcts:iterations=20", "evaluator": "mcts:iterations=40", "every": 6, "processes": 1}
    mapped = calibration.run([2], 2, seed=4, **kwargs)
    raw = calibration.run([2], 2, seed=4, raw=True, **kwargs)
    assert [g["raw"] for g in mapped + raw] == [False, False, True, True]
    calibration_map = cm.select_map(load_model().manifest["calibration"], "play")   # mcts: plays
    for m, r in zip(mapped, raw):
        assert m["outcome"] == r["outcome"] and len(m["samples"]) == len(r["samples"]) > 0
        for ms, rs in zip(m["samples"], r["samples"]):
            assert ms["p"] == pytest.approx(cm.apply_map(calibration_map, rs["p"], rs["progress"], rs["to_act"]),
                                           abs=2e-6)
        assert any(ms["p"] != rs["p"] for ms, rs in zip(m["samples"], r["samples"]))
    with pytest.raises(ValueError, match="--raw"):   # a run is not continued the other way
        calibration.run([2], 3, seed=4, have=raw, **kwargs)


def test_a_model_has_a_map_for_play_and_one_for_analysis_and_each_search_reports_through_its_own():
    from cacaoai.search import ANALYSIS, Limit, Question, SearchSettings, search

    maps = load_model().manifest["calibration"]
    assert set(maps) == {"play", "analysis"} and maps["play"] != maps["analysis"]
    position = Position.new(2, seed=8)
    for settings, name in ((SearchSettings(), "play"), (ANALYSIS, "analysis")):
        raw = search(position, Limit(iterations=60), settings, seed=3, question=Question(calibrated=False))
        reported = search(position, Limit(iterations=60), settings, seed=3)
        expected = cm.apply_map(maps[name], raw.win_probability, position.progress, raw.to_act)
        assert reported.win_probability == pytest.approx(tuple(expected), abs=1e-12)
        assert reported.root.win_probability == pytest.approx(expected[position.to_act], abs=1e-12)
        assert reported.population == cm.DEFAULT_POPULATION and raw.population == ""
    # an analysis told who plays takes the population's map: the one seat is `strong`'s
    levels = ["easy", "strong"]
    raw = search(position, Limit(iterations=60), ANALYSIS, seed=3, question=Question(calibrated=False))
    told = search(position, Limit(iterations=60), ANALYSIS, seed=3, question=Question(levels=levels))
    expected = cm.apply_map(maps["analysis"]["populations"]["strong vs easy"], raw.win_probability,
                            position.progress, raw.to_act, one=1)
    assert told.population == "strong vs easy" and told.win_probability == pytest.approx(tuple(expected))
    assert told.win_probability[1] > raw.win_probability[1]
    assert told.best_action == raw.best_action and told.candidates == raw.candidates
    with pytest.raises(ValueError, match="levels: must be a sequence of level names"):
        Question(levels="strong")


def test_a_suggestion_told_who_plays_takes_the_play_maps_population_and_an_analysis_its_own(tmp_path):
    from pathlib import Path

    from cacaoai.search import ANALYSIS, Limit, Question, SearchSettings, search

    shipped = Path(cm.__file__).parent / "models" / "cacao"
    manifest = json.loads(shipped.with_suffix(".json").read_text())
    casual = {"version": 1, "players": {"2": {"kind": "staged", "t": [4.0, 4.0, 4.0]}}}
    manifest["calibration"]["play"]["populations"] = {"casual": casual}
    model = tmp_path / "with-play-populations.npz"
    model.write_bytes(shipped.with_suffix(".npz").read_bytes())
    model.with_suffix(".json").write_text(json.dumps(manifest))
    position, limit = Position.new(2, seed=8), Limit(iterations=60)
    play = SearchSettings(model=str(model))
    raw = search(position, limit, play, seed=3, question=Question(calibrated=False))
    told = search(position, limit, play, seed=3, question=Question(levels=["casual", "casual"]))
    assert told.population == "casual"
    assert told.win_probability == pytest.approx(tuple(cm.apply_map(casual, raw.win_probability,
                                                                    position.progress)))
    assert told.best_action == raw.best_action and told.candidates == raw.candidates
    # players the play map has no population for: the play map itself
    other = search(position, limit, play, seed=3, question=Question(levels=["club", "club"]))
    assert other.population == cm.DEFAULT_POPULATION
    assert other.win_probability == search(position, limit, play, seed=3).win_probability
    # an analysis of casual players takes the analysis map's population, not the play map's
    analyses = replace(ANALYSIS, model=str(model))
    raw = search(position, limit, analyses, seed=3, question=Question(calibrated=False))
    analysis = search(position, limit, analyses, seed=3, question=Question(levels=["casual", "casual"]))
    own = manifest["calibration"]["analysis"]["populations"]["casual"]
    assert analysis.population == "casual" and own != casual
    assert analysis.win_probability == pytest.approx(tuple(cm.apply_map(own, raw.win_probability,
                                                                        position.progress)))


def test_a_single_map_serves_every_search_and_a_map_by_settings_each_its_own():
    single = {"version": 1, "players": {"2": {"kind": "temperature", "t": 2.0}}}
    assert cm.select_map(single, "play") is single and cm.select_map(single, "analysis") is single
    both = {"play": single, "analysis": {"version": 1, "players": {}}}
    assert cm.select_map(both, "analysis") == {"version": 1, "players": {}}
    assert cm.select_map({"play": single}, "analysis") is None and cm.select_map(None, "play") is None
    with pytest.raises(ValueError, match="calibration: must be one of play, analysis"):
        from cacaoai.search import SearchSettings
        SearchSettings(calibration="chess")


def test_an_opponent_sits_in_every_seat_but_one_and_the_players_seat_rotates_by_game():
    assert calibration.seat_specs("a", 3, 5) == ["a", "a", "a"]
    assert [calibration.seat_specs("a vs b", 3, g) for g in range(4)] == [
        ["a", "b", "b"], ["b", "a", "b"], ["b", "b", "a"], ["a", "b", "b"]]
    games = calibration.run([2], 2, seed=4, player="greedy vs random", evaluator="mcts:iterations=20",
                            every=8, processes=1)
    assert [g["player"] for g in games] == ["greedy vs random"] * 2
    with pytest.raises(ValueError, match="--replays"):
        calibration.run([2], 1, player="greedy vs random", evaluator="mcts:iterations=20", replays=2)
    with pytest.raises(ValueError):
        calibration.run([2], 1, player="greedy vs nonsense:1", evaluator="mcts:iterations=20")


def test_the_ceiling_is_the_mean_variance_of_the_replays_against_the_base_rate():
    outcomes = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    assert calibration._ceiling(np.zeros((3, 2)), outcomes, 2) == {"brier": 0.0, "skill": 1.0}
    base = float(((outcomes - 0.5) ** 2).mean())
    found = calibration._ceiling(np.full((3, 2), 0.1), outcomes, 2)
    assert found["brier"] == pytest.approx(0.1) and found["skill"] == pytest.approx(1 - 0.1 / base)
    # a game's weight counts its positions that many times
    weighted = calibration._ceiling(np.array([[0.2, 0.2], [0.0, 0.0], [0.0, 0.0]]), outcomes, 2,
                                    weights=np.array([2.0, 1.0, 0.0]))
    assert weighted["brier"] == pytest.approx(0.4 / 3)


def test_replays_play_each_position_on_from_its_view_and_bound_the_skill():
    kwargs = {"player": "mcts:iterations=20", "evaluator": "mcts:iterations=40", "every": 8, "processes": 1}
    plain = calibration.run([2], 2, seed=4, **kwargs)
    first = calibration.run([2], 2, seed=4, replays=3, **kwargs)
    assert first == calibration.run([2], 2, seed=4, replays=3, **kwargs)
    for p, g in zip(plain, first):      # the same games and predictions, with the replays beside them
        assert g["replays"] == 3 and g["outcome"] == p["outcome"]
        assert [s["p"] for s in g["samples"]] == [s["p"] for s in p["samples"]]
        for s in g["samples"]:
            mean, var = s["replay"]["mean"], s["replay"]["var"]
            assert sum(mean) == pytest.approx(1.0, abs=1e-5)
            assert all(0 <= v <= 1 / 3 + 1e-6 for v in var)       # three shares in [0, 1]
    rep = calibration.report(first, resamples=20)
    for m in [rep["2"]["all"], *rep["2"]["phases"].values()]:
        assert m["ceiling"]["brier"] >= 0 and m["ceiling"]["skill"] <= 1
        lo, hi = m["ci95"]["ceiling"]
        assert lo <= hi
    assert "ceiling" not in calibration.report(plain, resamples=0)["2"]["all"]
    with pytest.raises(ValueError, match="--replays 3"):      # a run is continued only the same way
        calibration.run([2], 3, seed=4, have=first, **kwargs)


def test_a_replay_never_reads_what_the_seat_to_act_cannot_see():
    position = Position.new(2, 11)
    for _ in range(9):
        position.apply(position.legal_actions()[0])
    seat = position.to_act
    found = calibration.replay(position, "mcts:iterations=15", 4, seed=5)
    assert found == calibration.replay(position, "mcts:iterations=15", 4, seed=5)
    for k in range(3):          # the others' hands, the piles and the deck shuffled again
        other = position.clone()
        other.core.determinize(seat, 1 << seat, 100 + k)
        assert calibration.replay(other, "mcts:iterations=15", 4, seed=5) == found


def test_the_command_writes_samples_and_measures_them_again(tmp_path, capsys):
    out = tmp_path / "cal.json"
    args = ["--games", "2", "--player", "mcts:iterations=20", "--evaluator", "mcts:iterations=40",
            "--every", "5", "--processes", "1", "--quiet", "--out", str(out)]
    assert calibration.main(args) == 0
    printed = capsys.readouterr().out
    assert "2 players: 2 games" in printed and "first third" in printed
    saved = json.loads(out.read_text())
    assert saved["format"] == "cacao-calibration/1" and len(saved["games"]) == 2
    assert calibration.main(["--input", str(out), "--games", "0", "--json", "--quiet"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["report"] == saved["report"] and again["every"] == 5
    with pytest.raises(SystemExit):
        calibration.main(["--evaluator", "greedy", "--games", "1", "--quiet", "--out", str(out)])


def test_apply_takes_the_shipped_models_map_by_its_settings_name(tmp_path, capsys):
    out = tmp_path / "raw.json"
    assert calibration.main(["--games", "2", "--player", "mcts:iterations=20", "--evaluator", "mcts:iterations=40",
                             "--every", "5", "--raw", "--processes", "1", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    shipped = load_model().manifest["calibration"]["play"]
    map_file = tmp_path / "play.json"
    map_file.write_text(json.dumps({"version": shipped["version"], "players": shipped["players"]}))
    reports = []
    for applied in ("play", str(map_file), None):
        extra = ["--apply", applied] if applied else []
        assert calibration.main(["--input", str(out), "--games", "0", "--json", "--quiet", *extra]) == 0
        reports.append(json.loads(capsys.readouterr().out)["report"])
    assert reports[0] == reports[1] and reports[0] != reports[2]
    with pytest.raises(SystemExit):
        calibration.main(["--input", str(out), "--games", "0", "--quiet", "--apply", "nothing.json"])


def test_games_between_different_players_are_measured_and_fitted_together(tmp_path, capsys):
    """Two populations evaluated alike, one underconfident and one overconfident
    (as games between strong and between weak players can be): with --games 0
    the command keeps both files' games, even under the same seeds, and fits one
    map to the mix; samples of two different evaluations are refused."""
    rng = np.random.default_rng(3)
    paths = []
    for player, shrink in (("mcts:iterations=300", 0.5), ("greedy", 2.0)):
        games = miscalibrated_games(400, rng, shrink=shrink)
        for g in games:
            g.update(player=player, evaluator="mcts:iterations=1500", every=4)
        paths.append(tmp_path / f"{player.split(':')[0]}.json")
        paths[-1].write_text(json.dumps({"format": "cacao-calibration/1", "games": games}))
    fitted = tmp_path / "map.json"
    assert calibration.main(["--input", *map(str, paths), "--games", "0", "--fit", str(fitted), "--json",
                             "--quiet", "--bootstrap", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["player"] == "mcts:iterations=300 + greedy"
    assert out["report"]["2"]["games"] == 800
    assert out["fit"]["2"]["held_out_games"] == 240
    # one temperature between the two populations' own (2 and 1/2)
    assert 0.6 < out["fit"]["2"]["temperature"] < 1.6
    cm.validate_map(json.loads(fitted.read_text()))
    other = json.loads(paths[1].read_text())
    for g in other["games"]:
        g["evaluator"] = "mcts:iterations=6000"
    paths[1].write_text(json.dumps(other))
    with pytest.raises(SystemExit):
        calibration.main(["--input", *map(str, paths), "--games", "0", "--quiet"])
    assert "different evaluations" in capsys.readouterr().err


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_a_calibration_run_on_ray_gives_the_same_samples_as_local_processes():
    kwargs = {"player": "mcts:iterations=20", "evaluator": "mcts:iterations=40", "every": 6}
    local = calibration.run([2], 3, seed=4, processes=2, **kwargs)
    on_ray = call_in_fresh_python(calibration.__name__, "run", [2], 3, seed=4, ray_address="local", **kwargs)
    assert on_ray == local


def test_a_population_is_read_from_each_seats_level():
    assert cm.population(["casual", "casual", "casual"]) == ("casual", None)
    assert cm.population(["easy", "strong", "easy"]) == ("strong vs easy", 1)
    assert cm.population(["strong", "easy"]) == ("easy vs strong", 1)
    for unknown in ([], ["strong", ""], ["club", "easy", "strong"], ["easy", "easy", "strong", "strong"]):
        assert cm.population(unknown) == (cm.DEFAULT_POPULATION, None)


def test_a_search_takes_its_settings_populations_map_where_the_model_has_one():
    entry = {"kind": "staged", "t": [1.0, 1.0, 1.0], "one": [1.0, 1.0, 1.0]}
    casual = {"version": 1, "players": {"3": {"kind": "staged", "t": [2.0, 2.0, 2.0]}}}
    maps = {"play": {"version": 1, "players": {}, "populations": {"casual": casual}},
            "analysis": {"version": 1, "players": {},
                         "populations": {"strong vs easy": {"version": 1, "players": {"2": entry}}}}}
    # in a 2-player game "easy vs strong" is "strong vs easy" seen from the other seat
    chosen = cm.choose_map(maps, "analysis", ["easy", "strong"], 2)
    assert chosen == cm.Choice(maps["analysis"]["populations"]["strong vs easy"], "strong vs easy", 1)
    # the one seat's offset raises its chances, and only it
    raw = [0.5, 0.5]
    corrected = cm.apply_map(chosen.map, raw, progress=0.5, one=chosen.one)
    assert corrected[1] == pytest.approx(1 / (1 + math.exp(-1.0))) and sum(corrected) == pytest.approx(1.0)
    # no entry for the player count, the play settings, or players not named: the settings' map
    assert cm.choose_map(maps, "analysis", ["strong", "easy", "easy"], 3) == \
        cm.Choice(maps["analysis"], cm.DEFAULT_POPULATION, None)
    assert cm.choose_map(maps, "play", ["easy", "strong"], 2).map is maps["play"]
    # each settings' map has its own populations: a suggestion between casual players takes the play map's
    assert cm.choose_map(maps, "play", ["casual"] * 3, 3) == cm.Choice(casual, "casual", None)
    assert cm.choose_map(maps, "analysis", ["casual"] * 3, 3).map is maps["analysis"]
    assert cm.choose_map(maps, "play", ["casual"] * 2, 2).map is maps["play"]
    cm.validate_map(maps["play"])
    with pytest.raises(ValueError, match="t must be a list of 3 positive numbers.*in populations 'casual'"):
        cm.validate_map(dict(maps["play"], populations={"casual": {"version": 1, "players": {"2": {
            "kind": "staged", "t": [0.0, 1.0, 1.0]}}}}))
    assert cm.choose_map(maps, "analysis", (), 2).population == cm.DEFAULT_POPULATION
    with pytest.raises(ValueError, match="one offsets needs its one seat"):
        cm.apply_map(chosen.map, raw, progress=0.5)
    with pytest.raises(ValueError, match="one must be a list of 3 finite numbers"):
        cm.validate_map({"version": 1, "players": {"2": dict(entry, one=[0.0])}})


def test_the_fit_finds_the_one_seats_edge_in_games_between_a_stronger_and_weaker_players():
    """Predictions blind to who plays: the one seat (seat game % players) wins more
    than they say by 1 logit; the fit of the population's map finds about +1."""
    rng = np.random.default_rng(5)
    games = []
    for game in range(600):
        samples, truth = [], rng.normal(0, 1.5, size=3)
        one = game % 2
        for k, progress in enumerate((0.1, 0.5, 0.9)):
            logit = truth[k] + (1.0 if one == 0 else -1.0)
            samples.append({"decision": k, "to_act": k % 2, "progress": progress,
                            "p": [1 / (1 + math.exp(-truth[k])), 1 - 1 / (1 + math.exp(-truth[k]))]})
        won = rng.random() < 1 / (1 + math.exp(-logit))
        games.append({"players": 2, "seed": 1, "game": game, "player": "level:strong vs level:easy",
                      "evaluator": "analysis:iterations=1500", "every": 8, "raw": True, "decisions": 3,
                      "outcome": [1.0, 0.0] if won else [0.0, 1.0], "samples": samples})
    fitted = calibration.fit_kind(games, "staged-one")["players"]["2"]
    assert fitted["kind"] == "staged" and fitted["one"][2] == pytest.approx(1.0, abs=0.45)
    with pytest.raises(ValueError, match="kind: must be one of"):
        calibration.fit_kind(games, "none")
