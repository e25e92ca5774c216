"""The benchmarks behind BENCHMARKS.md run and print their figures."""

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cacaoai.engine import Position

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SCRIPTS = Path(__file__).resolve().parents[1] / "benchmarks"


def run_script(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPTS / name), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.requires_tool("nginx")
def test_bench_nginx_times_calls_direct_and_through_nginx():
    out = run_script("bench_nginx.py", "--calls", "20")
    for call in ("GetServerInfo", "SuggestAction 1 iteration"):
        for route in ("direct", "nginx", "+nginx"):
            assert re.search(rf"^{re.escape(call)}\s+{re.escape(route)}\s", out, re.M), out


def test_bench_observe_times_both_hooks():
    out = run_script("bench_observe.py", "--calls", "200")
    assert re.search(r"^metrics hook\s+[\d.]+ µs/call$", out, re.M), out
    assert re.search(r"^JSON call log\s+[\d.]+ µs/call$", out, re.M), out


def test_bench_server_times_calls_and_the_raw_search():
    out = run_script("bench_server.py", "--quick")
    for row in ("GetServerInfo (transport only)", "SuggestAction, 1 iteration",
                "raw search in-process, 100 ms", "RPC overhead (per-call difference)"):
        assert re.search(rf"^{re.escape(row)}\s+\d+\s+[\d.]+\s+[\d.]+$", out, re.M), out


def test_overhead_times_every_call_unloaded_and_loaded_against_the_floor():
    out = run_script("overhead.py", "--quick")
    for loaders in ("0", "2"):
        for row in ("floor: bare grpc.aio Health.Check", "GetServerInfo", "ListLegalActions",
                    "ApplyAction", "SuggestAction, 1 iteration", "AnalyzePosition, 1 iteration",
                    "ListLegalActions through CacaoClient", "ApplyAction through CacaoClient"):
            assert re.search(rf"^\| {loaders} \| {re.escape(row)} \| [1-9]\d* \| \d+ \| [\d.]+ \| [\d.]+ "
                             rf"\| [\d.-]+ \| [\d.-]+ \| - \| - \|$", out, re.M), out
        assert re.search(rf"^\| {loaders} \| SuggestAction, 50 ms \|( \d+ \|){{2}}( -?[\d.]+ \|){{6}}$",
                         out, re.M), out
    assert re.search(r"loaders' calls \{\"answered\": [1-9]", out), out


def test_sizing_check_compares_a_real_servers_waits_with_the_model():
    out = run_script("sizing_check.py", "--quick")
    assert re.search(r"^\| 5 \| [1-9]\d* \| [\d.]+ \| \d+% \|( [\d.]+ \([\d.]+\) \|){3} [\d.]+ / [\d.]+ \|$",
                     out, re.M), out


def test_bench_search_measures_the_play_and_the_analysis_settings_side_by_side():
    out = run_script("bench_search.py", "--seconds", "0.05", "--evaluations", "model,analysis")
    for players in (2, 4):
        for position in ("opening", "mid-game"):
            for leaves in ("model", "analysis"):
                assert re.search(rf"^\s+{players} {position}\s+{leaves}\s+\d+\s+[\d,]+\s+[\d,]+\s+[\d.]+x$",
                                 out, re.M), out
    assert " informed " not in out
    bad = subprocess.run([sys.executable, str(SCRIPTS / "bench_search.py"), "--evaluations", "oracle"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--evaluations: unknown oracle" in bad.stderr


def _decomposition(*args: str) -> dict[str, list[float]]:
    out = run_script("replay_decomposition.py", "--games", "12", "--replays", "3", "--player", "mcts:iterations=20",
                     "--evaluator", "mcts:iterations=30", *args)
    rows = {m[1]: [float(x) for x in m[2].split()]
            for m in re.finditer(r"^  (all|first third|middle third|last third)\s+((?:\S+\s*){6})$", out, re.M)}
    assert list(rows) == ["all", "first third", "middle third", "last third"], out
    return rows


def test_replay_decomposition_scores_both_players_replays_of_the_same_positions():
    same = _decomposition("--replayer", "mcts:iterations=20")
    for figures in same.values():       # the same player and seeds: the same replays
        assert figures[2] == figures[3] and figures[1] == figures[5]
    other = _decomposition("--replayer", "mcts:iterations=5")
    assert [f[0] for f in other.values()] == [f[0] for f in same.values()]    # the evaluator's, untouched
    assert [f[3] for f in other.values()] != [f[3] for f in same.values()]


def test_calibration_probes_score_every_reading():
    out = run_script("calibration_probes.py", "--games", "24", "--player", "mcts:iterations=20",
                     "--evaluator", "mcts:iterations=40")
    for reading in ("tree", "best", "network", "blend 0.8", "blend 0.6"):
        assert re.search(rf"^  {re.escape(reading)}\s+(-?[\d.]+\s+){{6}}-?[\d.]+$", out, re.M), out


def test_calibration_regret_compares_the_players_moves_with_the_evaluators_best():
    out = run_script("calibration_regret.py", "--games", "6", "--player", "mcts:iterations=10",
                     "--player", "random", "--evaluator", "mcts:iterations=60")
    rows = {line.split(" | ")[0]: line.split(" | ")[1:] for line in out.splitlines()[1:]}
    assert set(rows) == {"mcts:iterations=10", "random"}, out
    for positions, _root, _won, best, played, regret, _same, _unvalued in rows.values():
        assert int(positions) > 0
        assert abs(float(best) - float(played) - float(regret)) < 2e-3
    # a random player's moves fall further short of the evaluator's best than a search's
    assert float(rows["random"][5]) > float(rows["mcts:iterations=10"][5]), out


def test_review_thresholds_prints_the_losses_by_level_and_the_planted_blunders(tmp_path):
    plants = tmp_path / "plants.jsonl"
    out = run_script("review_thresholds.py", "--games", "1", "--pair", "club,advanced", "--iterations", "20",
                     "--planted", "2", "--judge", "40", "--untouched", "1", "--plants", str(plants))
    rows = {line.split(" | ")[0]: line.split(" | ")[1:] for line in out.splitlines() if " | " in line}
    for level in ("club", "advanced"):
        decisions, *_, classes = rows[level]
        assert int(decisions) > 0 and sum(int(n) for n in classes.split(" / ")) == int(decisions), out
    had = re.search(r"^planted blunders .*: (\d+) of 2 games had one", out, re.M)
    assert had, out
    untouched = re.search(r"^untouched strong moves of 1 games .*: (\d+) decisions, blunder (\d+)", out, re.M)
    assert untouched and int(untouched[1]) > int(untouched[2]), out
    # the plants are kept: a second run reviews the same ones; each plant's loss held on a fresh tree too
    assert len(plants.read_text().splitlines()) == 2
    for line in plants.read_text().splitlines():
        plant = json.loads(line)["plant"]
        assert plant is None or min(plant["judge_loss"], plant["verify_loss"]) >= 0.20, plant
    again = run_script("review_thresholds.py", "--games", "0", "--iterations", "20", "--planted", "2",
                       "--plants", str(plants))
    assert f"{had[1]} of 2 games had one" in again, again
    # --misses names each plant the review does not mark (every legal action of a
    # position planted, so some are good moves: at least one is missed)
    game = json.loads(plants.read_text().splitlines()[0])
    position = Position.from_record(game["record"], 6)
    every = plants.with_name("every.jsonl")
    every.write_text("".join(json.dumps({**game, "game": i, "plant": {
        "index": 6, "action": action.to_json(), "judge_loss": 0.5, "verify_loss": 0.5, "judge_visits": 0,
        "judge": 40}}) + "\n"
        for i, action in enumerate(position.legal_actions())))
    count = len(position.legal_actions())
    out = run_script("review_thresholds.py", "--games", "0", "--iterations", "20", "--planted", str(count),
                     "--plants", str(every), "--misses")
    caught = re.search(r"mistake or blunder (\d+) of (\d+)", out)
    missed = re.findall(r"^missed: game \d+, \d+% into it, judge's loss 0.500", out, re.M)
    assert caught and int(caught[2]) == count and len(missed) == count - int(caught[1]) > 0, out


def test_one_answer_counts_the_differences_between_sources():
    out = run_script("one_answer.py", "--positions", "12", "--service", "2")
    assert re.search(r"^search\(\)\s+12 positions\s+0 differences", out, re.M), out
    assert re.search(r"^SuggestAction, AnalyzePosition\s+2 positions\s+0 differences", out, re.M), out


def test_calibration_table_measures_each_population_and_draws_its_diagram(tmp_path):
    samples = tmp_path / "samples.json"
    subprocess.run([sys.executable, "-m", "cacaoai.lab.calibration", "--games", "2", "--player",
                    "mcts:iterations=10", "--opponent", "greedy", "--evaluator", "analysis:iterations=30",
                    "--every", "6", "--raw", "--processes", "1", "--quiet", "--bootstrap", "0",
                    "--out", str(samples)], check=True, capture_output=True, timeout=120)
    diagram = tmp_path / "diagram.svg"
    out = run_script("calibration_table.py", str(samples), "--bootstrap", "5", "--svg", str(diagram))
    assert re.search(r"^\| mcts:iterations=10 against greedy \| 2 \| 2 \| \d+ \| strong self-play \| "
                     r"0\.\d{3} \(0\.\d{3}\) \|", out, re.M), out
    import xml.etree.ElementTree as ET
    circles = ET.parse(diagram).getroot().findall(".//{http://www.w3.org/2000/svg}circle")
    assert circles, diagram.read_text()
    # the same samples as a population's: its map goes into a manifest's populations
    manifest = tmp_path / "cacao.json"
    manifest.write_text(json.dumps({"name": "cacao", "calibration": {"play": {}, "analysis": {}}}))
    run_script("fit_populations.py", "--manifest", str(manifest), f"strong-vs-easy={samples}")
    fitted = json.loads(manifest.read_text())["calibration"]["analysis"]["populations"]["strong vs easy"]
    assert fitted["version"] == 1 and set(fitted["players"]["2"]) == {"kind", "t", "one"}
    run_script("fit_populations.py", "--manifest", str(manifest), "--map", "play", f"casual={samples}")
    play = json.loads(manifest.read_text())["calibration"]["play"]["populations"]
    assert set(play) == {"casual"} and set(play["casual"]["players"]["2"]) == {"kind", "t"}
    # --keep adds a population beside the map's others; without it the named ones replace them all
    run_script("fit_populations.py", "--manifest", str(manifest), "--map", "play", "--keep", f"max={samples}")
    assert set(json.loads(manifest.read_text())["calibration"]["play"]["populations"]) == {"casual", "max"}
    run_script("fit_populations.py", "--manifest", str(manifest), "--map", "play", f"max={samples}")
    assert set(json.loads(manifest.read_text())["calibration"]["play"]["populations"]) == {"max"}


def test_adaptive_prints_each_levels_win_rate_against_it_and_the_fitted_ladder():
    out = run_script("adaptive.py", "--games", "1", "--levels", "beginner,easy,casual,club,advanced,strong")
    rows = [line.split(" | ") for line in out.splitlines() if " | " in line]
    games = [r for r in rows if len(r) == 6 and r[:2] == ["club", "1"]]     # ..., win rate, interval, placed, rungs
    assert games and games[0][2].endswith("%") and "-" in games[0][3] and "(own 4)" in games[0][4], out
    ladder = re.search(r"^the ladder .*: beginner ([\d.]+), easy ([\d.]+), casual ([\d.]+), club ([\d.]+), "
                       r"advanced ([\d.]+), strong ([\d.]+)$", out, re.M)
    assert ladder, out
    values = [float(v) for v in ladder.groups()]
    assert values == sorted(values) and 1 <= values[0] and values[-1] <= 6, out


def test_adaptive_runs_some_levels_with_a_setting_tuned_and_fits_no_ladder():
    out = run_script("adaptive.py", "--games", "1", "--levels", "strong", "--tune", "PRIOR_TILT=0")
    assert "{'PRIOR_TILT': 0.0}" in out and re.search(r"^strong \| 1 \| ", out, re.M), out
    assert "the ladder" not in out, out


def test_same_games_finds_no_difference_between_a_build_and_itself(tmp_path):
    # an empty folder first on the path: the "other" build is this one
    out = run_script("same_games.py", "--old-path", str(tmp_path), "--games", "20", "--searches", "3")
    assert re.search(r"^60 random games .* 12 searches: 0 differences against 1 other build", out, re.M), out


def test_bench_search_games_only_compares_the_random_games_rows(tmp_path):
    out = run_script("bench_search.py", "--old-path", str(tmp_path), "--games-only", "--seconds", "0.05")
    assert re.findall(r"^games,(\d)\s+[\d,]+\s+[\d,]+\s+[\d.]+x$", out, re.M) == ["2", "3", "4"], out


def test_bench_endgame_prints_the_reach_and_the_fit():
    out = run_script("bench_endgame.py", "reach", "--games", "2", "--players", "2", "--max-nodes", "300000")
    for limit in ("0.05", "1"):
        assert re.search(rf"^2 players, within {limit} s CPU: placements left proved median \d", out, re.M), out
    assert re.search(r"^    2: \{0: 1, 1: \d", out, re.M), out


def test_puzzles_prints_the_share_each_level_solves_and_the_uniqueness_recheck():
    out = run_script("puzzles.py", "--limit", "12", "--sample", "2", "--levels", "beginner", "club")
    assert out.startswith("12 puzzles ("), out
    for level in ("beginner", "club"):
        assert re.search(rf"^\| {level} \| [\d.]+% \(\d+/12\) \| [\d.]+–[\d.]+% \|", out, re.M), out
    assert re.search(r"^\| 16,000 iterations, a new seed \| 2 \| [\d.]+% \(\d/2\) \|", out, re.M), out
    greedy = re.search(r"^The greedy bot .* solves [\d.]+% \((\d+)/12\); on the (\d+) puzzles it misses: beginner ",
                       out, re.M)
    assert greedy and int(greedy[1]) + int(greedy[2]) == 12, out


def test_practice_offers_the_planted_mistakes_and_accepts_the_best_action(tmp_path):
    out = run_script("practice.py", "--planted", "4", "--judge", "4000", "--plants", str(tmp_path / "plants.jsonl"))
    planted = re.search(r"^(\d+) planted games of 4", out, re.M)
    offered = re.search(r"^\| planted mistakes offered .* \| (\d+) of (\d+)", out, re.M)
    accepted = re.search(r"^\| the review's best action, tried: accepted \| (\d+) of (\d+)", out, re.M)
    refused = re.search(r"^\| the planted action, tried again: refused \| (\d+) of (\d+)", out, re.M)
    assert planted and offered and accepted and refused, out
    assert int(offered[2]) == int(planted[1]) > 0, out
    assert int(accepted[2]) == int(refused[2]) == int(offered[1]), out
    assert accepted[1] == accepted[2] and refused[1] == refused[2], out


def test_forecast_calibration_fits_flat_ended_maps_and_measures_them(tmp_path):
    raw = tmp_path / "raw.json"
    out = run_script("forecast_calibration.py", "--players", "2", "--games", "3", "--playouts", "16",
                     "--seed", "5", "--fit", "--raw", str(raw))
    maps = ast.literal_eval(out.split("MAPS = ", 1)[1])
    pairs = json.loads(raw.read_text())["2"]
    assert len(pairs["first"]) == len(pairs["second"]) > 0
    for knots in maps[2]:
        assert knots[0][0] == 0.0 and knots[-1][0] == 1.0       # the whole range, flat beyond the data
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(knots, knots[1:]))
    row = run_script("forecast_calibration.py", "--players", "2", "--games", "2", "--playouts", "16")
    cells = row.strip().split(" | ")
    assert cells[0] == "| 2" and cells[1] == "2" and 0.0 <= float(cells[4]) <= 1.0, row


def test_forecast_maps_are_written_into_a_copy_of_the_module_and_read_back(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("forecast_calibration", SCRIPTS / "forecast_calibration.py")
    script = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "forecast_calibration", script)
    spec.loader.exec_module(script)
    copy = tmp_path / "forecast.py"
    copy.write_text(script.FORECAST_PY.read_text())
    maps = {n: (tuple((i / 40, 0.01 + i / 41) for i in range(41)), ((0.0, 0.1), (1.0, 0.9))) for n in (2, 3, 4)}
    script.write_maps(copy, maps)
    text = copy.read_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    namespace: dict = {}
    exec(text[text.index("MAPS: dict"):text.index("\n}\n") + 2], namespace)
    assert namespace["MAPS"] == maps
    with pytest.raises(SystemExit):
        script.main(["--write", "--games", "1"])          # nothing fitted to write
    untouched = script.FORECAST_PY.read_text()
    assert text[:text.index("MAPS: dict")] == untouched[:untouched.index("MAPS: dict")]
    assert text[text.index("\n}\n"):] == untouched[untouched.index("\n}\n", untouched.index("MAPS: dict")):]


def test_model_speed_times_each_model_on_the_same_positions():
    out = run_script("model_speed.py", "cacao", "cacao", "--seconds", "0.05", "--repeat", "1")
    rows = [line.split(" | ") for line in out.splitlines() if line.startswith("| 2 ") or line.startswith("| 4 ")]
    assert len(rows) == 8, out                                   # 4 positions x 2 models
    assert all("148-64-32-12" in row[2] for row in rows), out
    assert all(float(row[3].replace(",", "")) > 0 for row in rows), out
    assert {row[5].rstrip(" |") for row in rows[::2]} == {"1.00"}, out   # the first model against itself
    loads = [line.split(" | ") for line in out.splitlines() if line.startswith("| cacao (")]
    assert len(loads) == 2 and all(row[1] == "12,429" and row[2].endswith(" KB") for row in loads), out
    assert all(float(row[3].removesuffix(" ms |")) > 0 for row in loads), out


def test_fit_populations_fits_the_settings_maps_and_only_the_populations_they_miss(tmp_path):
    samples = tmp_path / "strong.json"
    subprocess.run([sys.executable, "-m", "cacaoai.lab.calibration", "--games", "10", "--player",
                    "mcts:iterations=8", "--evaluator", "analysis:iterations=20", "--every", "6", "--raw",
                    "--processes", "1", "--quiet", "--bootstrap", "0", "--out", str(samples)],
                   check=True, capture_output=True, timeout=120)
    manifest = tmp_path / "cacao.json"
    manifest.write_text(json.dumps({"name": "cacao", "calibration": {
        "play": {}, "analysis": {"population": "strong", "players": {}, "populations": {"old": {}}}}}))
    run_script("fit_populations.py", "--manifest", str(manifest), "--settings", f"analysis={samples}")
    analysis = json.loads(manifest.read_text())["calibration"]["analysis"]
    assert "populations" not in analysis and analysis["population"] == "strong"
    assert analysis["held_out"]["2"]["games"] == 3 and len(analysis["held_out"]["2"]["ece"]) == 2
    assert "10 games of mcts:iterations=8" in analysis["fitted_on"]
    # a population the settings' map misses by more than --missed gets a map; one it fits does not
    run_script("fit_populations.py", "--manifest", str(manifest), "--missed", "0", f"casual={samples}")
    assert set(json.loads(manifest.read_text())["calibration"]["analysis"]["populations"]) == {"casual"}
    run_script("fit_populations.py", "--manifest", str(manifest), "--missed", "1", f"casual={samples}")
    assert json.loads(manifest.read_text())["calibration"]["analysis"]["populations"] == {}


def test_remeasure_lists_its_steps_and_keeps_a_run_to_one_model(tmp_path):
    work = tmp_path / "work"
    listed = run_script("remeasure.py", "--work", str(work), "--list").splitlines()
    names = [line.split()[0] for line in listed]
    assert names[:2] == ["calibration-fit-games", "calibration-maps"] and names[-1] == "calibration-table-play"
    assert len(names) == len(set(names)) and "pop111-max-4" in names
    work.mkdir()
    (work / "fit-play.json").write_text("{}")
    assert run_script("remeasure.py", "--work", str(work), "--list").splitlines()[0].startswith("done")
    (work / "model.sha256").write_text("another model\n")
    done = subprocess.run([sys.executable, str(SCRIPTS / "remeasure.py"), "--work", str(work), "--only", "ladder"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "holds the run of another model" in done.stderr
    done = subprocess.run([sys.executable, str(SCRIPTS / "remeasure.py"), "--only", "nothing"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--only: no step nothing" in done.stderr


def test_remeasure_does_not_time_the_model_against_itself(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shipped = SCRIPTS.parent / "search" / "models" / "cacao"
    for suffix in (".npz", ".json"):
        (work / f"previous{suffix}").write_bytes(shipped.with_suffix(suffix).read_bytes())
    done = subprocess.run([sys.executable, str(SCRIPTS / "remeasure.py"), "--work", str(work), "--only", "model-speed"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "model-speed: skipped" in done.stderr
    assert not (work / "model-speed.txt").exists() and not (work / "model-speed.partial").exists()


def test_remeasure_installs_a_model_with_the_shipped_maps(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("remeasure", SCRIPTS / "remeasure.py")
    remeasure = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "remeasure", remeasure)     # its dataclass looks its module up
    spec.loader.exec_module(remeasure)
    shipped, model = tmp_path / "models" / "cacao.json", tmp_path / "gen3" / "model.npz"
    shipped.parent.mkdir()
    model.parent.mkdir()
    shipped.write_text(json.dumps({"name": "cacao", "version": "1.4", "calibration": {"play": {"players": {}}}}))
    shipped.with_suffix(".npz").write_bytes(b"old")
    model.write_bytes(b"new")
    model.with_suffix(".json").write_text(json.dumps({"name": "cacao", "version": "gen3", "sizes": {}}))
    remeasure.install(model, "2.0", shipped)
    assert json.loads(shipped.read_text()) == {"name": "cacao", "version": "2.0", "sizes": {},
                                               "source": "gen3/model.npz", "calibration": {"play": {"players": {}}}}
    assert shipped.with_suffix(".npz").read_bytes() == b"new"


def test_win_share_counts_shared_wins_and_resamples_the_deals(tmp_path):
    games = [{"players": 4, "seed": 1, "deal": deal, "rotation": r, "match": ["greedy", "random"],
              "seats": ["greedy", "random"] if r == 0 else ["random", "greedy"],
              "gold": [1, 1], "cacao": [0, 0], "winners": winners}
             for deal, r, winners in [(0, 0, [0]), (0, 1, [0, 1]), (1, 0, [1]), (1, 1, [1])]]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games))
    # greedy: won alone, shared a win, lost, won alone: (1 + 0.5 + 0 + 1) / 4
    out = run_script("win_share.py", str(path), "greedy", "--resamples", "200")
    low, high = map(float, re.search(r"62\.5% of the games won \[([\d.]+), ([\d.]+)\]", out).groups())
    assert low == 50.0 and high == 75.0, out
    assert "4 games (2 players)" in out, out
    done = subprocess.run([sys.executable, str(SCRIPTS / "win_share.py"), str(path), "max"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "bot:" in done.stderr


def test_win_share_pools_seeds_and_keeps_one_pair_of_a_ladder_of_three(tmp_path):
    def game(seed, deal, seats, winner):
        rotation = int(seats != sorted(seats))
        return {"players": 2, "seed": seed, "deal": deal, "rotation": rotation, "match": sorted(seats), "seats": seats,
                "gold": [1, 1], "cacao": [0, 0], "winners": [winner]}
    # two seeds share deal numbers; greedy beats random every time and loses every time to flat
    first = [game(1, 0, ["greedy", "random"], 0), game(1, 0, ["random", "greedy"], 1),
             game(1, 0, ["greedy", "flat"], 1), game(1, 0, ["flat", "greedy"], 0)]
    second = [game(2, 0, ["greedy", "random"], 0), game(2, 0, ["random", "greedy"], 0),
              game(2, 0, ["greedy", "flat"], 1), game(2, 0, ["flat", "greedy"], 0)]
    paths = []
    for name, games in (("one.jsonl", first), ("two.jsonl", second)):
        paths.append(tmp_path / name)
        paths[-1].write_text("".join(json.dumps(g) + "\n" for g in games))
    out = run_script("win_share.py", *map(str, paths), "greedy", "--against", "random", "--resamples", "200")
    # 3 wins of 4 against random, over 2 deals (one a seed), and its Elo: 400 log10(0.75 / 0.25)
    assert "4 games (2 players), greedy: 75.0% of the games won" in out and "2 deals" in out, out
    assert "Elo +191" in out, out
    everything = run_script("win_share.py", *map(str, paths), "greedy", "--resamples", "200")
    assert "8 games (2 players), greedy: 37.5%" in everything and "Elo" not in everything, everything
