"""cacao-generations: a candidate that loses its gate is not promoted, a run
stopped at any step goes on where it stopped (a finished step is never done
again, a half-done one is), a candidate trains on exactly the last W
generations' self-play, and bad arguments are refused naming the flag.

Most tests stand cacao-selfplay, cacao-train and the SPRT gate in with
recording fakes (the loop takes them as arguments); one plays a real tiny
generation end to end."""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from cacaoai.lab import generations
from cacaoai.lab.generations import LoopConfig, chained_elo, data_window, main, markdown, read_state, run
from cacaoai.lab.ladder import read_results, run_sprt
from cacaoai.lab.train import TINY

NETWORK_FLAGS = r"other settings \(--tiny, --hidden, --policy-hidden, --policy-position, --search-target\)"
FAST = LoopConfig(games=4, window=2, players=(2,), selfplay_budget=8, explore_moves=1, fast_share=0.0,
                  fast_iterations=4, gate_games=4, gate_time=None, gate_iterations=4, seed=3, train=TINY)


class Interrupted(Exception):
    """A run killed in the middle of a step."""


class Fakes:
    """Self-play, training and gate that record their calls; `verdicts` gives
    each generation's SPRT result; `crash` = (step, generation) stops the run
    half-way through that step, once."""

    def __init__(self, verdicts: dict[int, str] | None = None, crash: tuple[str, int] | None = None):
        self.verdicts = verdicts or {}
        self.crash = crash
        self.calls: list[tuple[str, int]] = []
        self.seen: dict[str, Any] = {}

    def _enter(self, step: str, generation: int) -> None:
        self.calls.append((step, generation))
        if self.crash == (step, generation):
            self.crash = None
            raise Interrupted(step)

    def play(self, config, out, processes, ray_address, progress) -> dict[str, Any]:
        k = config.extra["generation"]
        Path(out).mkdir(parents=True, exist_ok=True)
        self.seen[f"spec{k}"] = config.spec
        (Path(out) / "selfplay.json").write_text(json.dumps({"complete": False}))
        self._enter("selfplay", k)
        (Path(out) / "selfplay.json").write_text(json.dumps({"complete": True}))
        return {"games": config.games, "decisions": 10, "views": 10, "cpu_s": 1.0}

    def fit(self, folders, out, config, name, version, log) -> dict[str, Any]:
        k = int(version.removeprefix("gen"))
        self.seen[f"window{k}"] = [Path(f) for f in folders]
        Path(out).write_bytes(b"half a model")
        self._enter("train", k)
        Path(out).write_bytes(f"model of generation {k}".encode())
        Path(out).with_suffix(".json").write_text(json.dumps({"name": name, "version": version}))
        return {"metrics": {}}

    def gate(self, a, b, test, *, seed, max_games, results, processes, ray_address, progress) -> dict[str, Any]:
        k = int(Path(results).parent.name.removeprefix("gen"))
        self.seen[f"gate{k}"] = (a, b)
        self._enter("gate", k)
        verdict = self.verdicts.get(k, "H0")
        score = {"H1": 0.75, "H0": 0.25, "": 0.5}[verdict]
        elo = -400 * math.log10(1 / score - 1)
        return {"result": verdict, "games": max_games, "pairs": max_games // 2, "a_score": score, "llr": 0.0,
                "lower": test.lower, "upper": test.upper, "counts": [0, 0, 0, 0, 0], "elo": elo,
                "ci95": [elo - 50, elo + 50]}

    def run(self, work: Path, n: int, config: LoopConfig = FAST) -> dict[str, Any]:
        return run(work, config, n, processes=1, play=self.play, fit=self.fit, gate=self.gate, log=lambda _: None)


def test_a_candidate_that_loses_its_gate_is_not_promoted(tmp_path):
    fakes = Fakes({1: "H0", 2: "H1", 3: ""})
    state = fakes.run(tmp_path, 3)
    work = tmp_path.resolve()
    assert [g["promoted"] for g in state["generations"]] == [False, True, False]
    assert state["current"]["generation"] == 2
    # generation 2 still plays with generation 0's model (1 lost its gate); 3 with 2's
    assert fakes.seen["spec2"].endswith("model=cacao")
    assert fakes.seen["spec3"].endswith(f"model={work / 'gen2' / 'model.npz'}")
    # every gate pits the candidate against the current model, at the same budget
    assert fakes.seen["gate1"] == (f"mcts:iterations=4,model={work / 'gen1' / 'model.npz'}",
                                   "mcts:iterations=4,model=cacao")
    assert fakes.seen["gate3"][1] == f"mcts:iterations=4,model={work / 'gen2' / 'model.npz'}"
    assert [g["gate"]["result"] for g in state["generations"]] == ["H0", "H1", "undecided"]
    # Elo against generation 0 chains along the promoted models
    gen2, gen3 = state["generations"][1], state["generations"][2]
    assert gen2["elo"] == pytest.approx(gen2["gate"]["elo"])
    assert gen3["elo"] == pytest.approx(gen2["elo"] + gen3["gate"]["elo"])
    assert gen3["ci95"][1] - gen3["elo"] == pytest.approx(math.hypot(50, 50))
    assert read_state(tmp_path) == state


def test_chained_elo_adds_the_estimates_and_the_half_widths_in_quadrature():
    elo, ci95 = chained_elo({"elo": 30.0, "ci95": [0.0, 60.0]}, {"elo": 40.0, "ci95": [0.0, 80.0]})
    assert elo == 70.0 and ci95 == [pytest.approx(20.0), pytest.approx(120.0)]
    assert chained_elo({"elo": 0.0, "ci95": [0.0, 0.0]}, {"elo": None, "ci95": [None, None]}) == (None, [None, None])


@pytest.mark.parametrize("step", ["selfplay", "train", "gate"])
def test_a_run_stopped_in_a_step_goes_on_where_it_stopped(tmp_path, step):
    first = Fakes({1: "H1", 2: "H1", 3: "H1"}, crash=(step, 2))
    with pytest.raises(Interrupted):
        first.run(tmp_path, 3)
    steps = ["selfplay", "train", "gate"]
    done_before = steps[:steps.index(step)]
    state = read_state(tmp_path)
    assert state["current"]["generation"] == 1
    second = state["generations"][1] if len(state["generations"]) > 1 else {}
    assert [key for key in ("selfplay", "trained", "gate") if key in second] == \
        [{"selfplay": "selfplay", "train": "trained"}[s] for s in done_before]
    again = Fakes({1: "H1", 2: "H1", 3: "H1"})
    state = again.run(tmp_path, 3)
    # nothing of generation 1 again, generation 2 from the step that was under way, then generation 3
    assert again.calls == [(s, 2) for s in steps[len(done_before):]] + [(s, 3) for s in steps]
    assert state["current"]["generation"] == 3
    assert (tmp_path / "gen2" / "model.npz").read_bytes() == b"model of generation 2"
    assert again.run(tmp_path, 3)["generations"] == state["generations"]      # all done: nothing runs
    assert again.calls[-1] == ("gate", 3)


def test_a_finished_step_whose_files_changed_is_not_built_on(tmp_path):
    Fakes().run(tmp_path, 1)
    (tmp_path / "gen1" / "model.npz").write_bytes(b"another model")
    with pytest.raises(ValueError, match="gen1/model.npz.*changed since it was trained"):
        Fakes().run(tmp_path, 2)


def test_two_loops_never_run_in_one_folder(tmp_path):
    fakes = Fakes()

    def play_while_another_starts(*args: Any) -> dict[str, Any]:
        with pytest.raises(ValueError, match="--work: another cacao-generations is running"):
            Fakes().run(tmp_path, 1)
        return fakes.play(*args)

    state = run(tmp_path, FAST, 1, play=play_while_another_starts, fit=fakes.fit, gate=fakes.gate, log=lambda _: None)
    assert fakes.calls == [("selfplay", 1), ("train", 1), ("gate", 1)] and len(state["generations"]) == 1
    assert Fakes().run(tmp_path, 1) == state          # the lock went with the run that held it


def test_the_data_window_is_the_last_w_generations(tmp_path):
    assert data_window(1, 3) == [1]
    assert data_window(5, 3) == [3, 4, 5]
    assert data_window(2, 3, gen0_data="gen0") == [0, 1, 2]
    assert data_window(5, 3, gen0_data="gen0") == [3, 4, 5]
    fakes = Fakes()
    gen0 = tmp_path / "gen0-games"
    config = LoopConfig(**{**FAST.__dict__, "window": 2, "gen0_data": str(gen0)})
    fakes.run(tmp_path / "loop", 3, config)
    work = (tmp_path / "loop").resolve()
    assert fakes.seen["window1"] == [gen0, work / "gen1" / "selfplay"]
    assert fakes.seen["window3"] == [work / "gen2" / "selfplay", work / "gen3" / "selfplay"]



def test_generation_0_may_bring_several_folders_of_games(tmp_path):
    folders = [tmp_path / "trial", tmp_path / "earlier"]
    for folder in folders:
        folder.mkdir()
        (folder / "selfplay.json").write_text("{}")
    config = LoopConfig(**{**FAST.__dict__, "window": 2, "gen0_data": os.pathsep.join(map(str, folders))})
    fakes = Fakes()
    fakes.run(tmp_path / "loop", 1, config)
    assert fakes.seen["window1"] == [*folders, (tmp_path / "loop").resolve() / "gen1" / "selfplay"]


def test_a_resumed_run_with_other_settings_is_refused_naming_the_flags(tmp_path):
    Fakes().run(tmp_path, 1)
    other = LoopConfig(**{**FAST.__dict__, "games": 8, "window": 3})
    with pytest.raises(ValueError, match=r"other settings \(--games, --window\)"):
        Fakes().run(tmp_path, 2, other)


@pytest.mark.parametrize(("args", "flag"), [
    (["--games", "0"], "--games"),
    (["--window", "0"], "--window"),
    (["--generations", "0"], "--generations"),
    (["--gate-games", "1"], "--gate-games"),
    (["--gate-time", "-1"], "--gate-time"),
    (["--gate-time", "0.1", "--gate-iterations", "5"], "--gate-iterations"),
    (["--sprt", "0,35,0.05"], "--sprt"),
    (["--sprt", "35,0,0.05,0.05"], "--sprt"),
    (["--players", "2,5"], "--players"),
    (["--seed", "-1"], "--seed"),
    (["--processes", "0"], "--processes"),
    (["--gen0-data", "/nonexistent/games"], "--gen0-data"),
    (["--gen0-data", ".", "/nonexistent/games"], "--gen0-data"),
    (["--initial", "no-such-model"], "--initial"),
    (["--hidden", "64,0"], "--hidden"),
    (["--hidden", "wide"], "--hidden"),
    (["--policy-hidden", "0"], "--policy-hidden"),
    (["--search-target", "1.5"], "--search-target"),
    (["--markdown"], "--work"),
])
def test_bad_arguments_are_refused_naming_the_flag(tmp_path, capsys, args, flag):
    with pytest.raises(SystemExit) as exit_:
        main(["--work", str(tmp_path / "w"), *args])
    assert exit_.value.code == 2
    assert flag in capsys.readouterr().err
    assert not (tmp_path / "w" / "state.json").exists()


def test_markdown_prints_a_row_a_generation(tmp_path, capsys):
    Fakes({1: "H0", 2: "H1"}).run(tmp_path, 2)
    assert main(["--work", str(tmp_path), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out == markdown(read_state(tmp_path)) + "\n"
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[2].startswith("| 1 | 4 (gen 0) | 1 | H0, 4 games, 25.0% vs gen 0 |") and rows[2].endswith("| no |")
    assert rows[3].startswith("| 2 | 4 (gen 0) | 1-2 | H1, 4 games, 75.0% vs gen 0 |")
    assert rows[3].endswith("| yes |")
    assert "Current model: generation 2" in out


def test_the_elo_curve_is_a_picture_with_a_dot_a_generation(tmp_path):
    Fakes({1: "H0", 2: "H1"}).run(tmp_path, 2)
    picture = tmp_path / "elo.svg"
    assert main(["--work", str(tmp_path), "--svg", str(picture)]) == 0
    root = ElementTree.parse(picture).getroot()
    dots = root.findall("{http://www.w3.org/2000/svg}circle")
    assert len(dots) == 3                                          # generation 0 and the two gated
    filled = [d.get("fill") != "white" for d in dots]
    assert filled == [True, False, True]                           # generation 1 lost its gate
    titles = [d.find("{http://www.w3.org/2000/svg}title").text for d in dots]
    state = read_state(tmp_path)
    assert titles[2] == f"generation 2: {state['generations'][1]['elo']:+.0f} Elo"


def test_a_run_goes_on_from_an_exported_model_numbering_and_chaining_on(tmp_path, capsys):
    """A run's folder dies with its machine; its exported model carries the
    generations, so the next run continues the count and the Elo curve."""
    Fakes({1: "H1", 2: "H0"}).run(tmp_path / "run1", 2)
    exported = tmp_path / "kept" / "candidate.npz"
    assert main(["--work", str(tmp_path / "run1"), "--export", str(exported)]) == 0
    first = read_state(tmp_path / "run1")
    loop = json.loads(exported.with_suffix(".json").read_text())["loop"]
    assert exported.read_bytes() == b"model of generation 1"
    assert (loop["generation"], loop["elo"], loop["initial"]) == (1, first["generations"][0]["elo"], "cacao")
    assert [g["generation"] for g in loop["generations"]] == [1, 2]

    second = Fakes({1: "H1"}).run(tmp_path / "run2", 1, replace(FAST, initial=str(exported)))
    assert second["lineage"] == loop
    start, entries = generations.history(second)
    assert len(start["commands"]) == 2 and [e["generation"] for e in entries] == [1, 2, 3]
    third = entries[2]            # run 2's generation 1: after run 1's last, played by the exported generation 1
    assert third["selfplay"]["generation"] == 1 and third["gate"]["against"] == 1
    assert third["trained"]["window"] == [3]           # no --gen0-data: its own games only
    gate = second["generations"][0]["gate"]
    assert third["elo"] == pytest.approx(loop["elo"] + gate["elo"])
    assert third["ci95"][1] - third["elo"] == pytest.approx(math.hypot(loop["ci95"][1] - loop["elo"], 50))

    picture = tmp_path / "elo.svg"
    assert main(["--work", str(tmp_path / "run2"), "--markdown", "--svg", str(picture)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| 0", "| 1", "| 2", "| 3"]
    assert rows[4].startswith("| 3 | 4 (gen 1) | 3 | H1, 4 games, 75.0% vs gen 1 |")
    dots = ElementTree.parse(picture).getroot().findall("{http://www.w3.org/2000/svg}circle")
    assert [d.get("fill") != "white" for d in dots] == [True, True, False, True]

    again = tmp_path / "kept" / "next.npz"
    assert main(["--work", str(tmp_path / "run2"), "--export", str(again)]) == 0
    loop2 = json.loads(again.with_suffix(".json").read_text())["loop"]
    assert loop2["generation"] == 3 and len(loop2["commands"]) == 2
    assert [g["generation"] for g in loop2["generations"]] == [1, 2, 3] and loop2["elo"] == third["elo"]


def test_an_export_that_is_not_a_model_file_is_refused_naming_the_flag(tmp_path, capsys):
    Fakes({1: "H1"}).run(tmp_path, 1)
    with pytest.raises(SystemExit) as exit_:
        main(["--work", str(tmp_path), "--export", str(tmp_path / "model.txt")])
    assert exit_.value.code == 2 and "--export: a .npz path" in capsys.readouterr().err
    assert not (tmp_path / "model.txt").exists()


def test_real_tiny_generations_end_to_end_and_a_gate_resumed_from_its_games(tmp_path):
    """Real self-play, training and SPRT games; generation 1's verdict is
    forced to H1 (after its real match) so that generation 2 plays with a
    model the loop trained."""
    summaries: list[dict[str, Any]] = []

    def gate(*args: Any, **kwargs: Any) -> dict[str, Any]:
        summaries.append(run_sprt(*args, **kwargs))
        forced = "gen1" in kwargs["results"]
        return {**summaries[-1], "result": "H1"} if forced else summaries[-1]

    work = tmp_path / "loop"
    state = run(work, FAST, 2, processes=1, gate=gate, log=lambda _: None)
    gen1, gen2 = state["generations"]
    manifest = json.loads((work / "gen1" / "selfplay" / "selfplay.json").read_text())
    assert manifest["complete"] and manifest["games"] == 4 and gen1["selfplay"]["games"] == 4
    assert manifest["config"]["spec"] == "mcts:iterations=8,model=cacao"
    model = json.loads((work / "gen1" / "model.json").read_text())
    assert model["training"]["games"] >= 1 and gen1["trained"]["window"] == [1]
    games, _ = read_results([str(work / "gen1" / "gate.jsonl")])
    assert len(games) == gen1["gate"]["games"] == summaries[0]["played"] >= 2
    assert gen1["promoted"] and gen1["gate"]["result"] == "H1"
    # generation 2 played with generation 1's model, trained on both, and met it in its gate
    gen1_model = str(work.resolve() / "gen1" / "model.npz")
    second = json.loads((work / "gen2" / "selfplay" / "selfplay.json").read_text())
    assert second["config"]["spec"] == f"mcts:iterations=8,model={gen1_model}"
    assert json.loads((work / "gen2" / "model.json").read_text())["training"]["games"] > model["training"]["games"]
    assert gen2["trained"]["window"] == [1, 2] and summaries[1]["b"] == f"mcts:iterations=4,model={gen1_model}"
    assert gen2["promoted"] == (gen2["gate"]["result"] == "H1")
    assert state["current"]["generation"] == (2 if gen2["promoted"] else 1)
    # generation 2's gate stopped after its first game pair: the pair is kept, the rest played, the same answer
    results = work / "gen2" / "gate.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])
    state_now = read_state(work)
    for key in ("gate", "elo", "ci95", "promoted"):
        del state_now["generations"][1][key]
    state_now["current"] = {"generation": 1, "model": "gen1/model.npz", "elo": gen1["elo"], "ci95": gen1["ci95"]}
    generations._write_state(work.resolve(), state_now)
    again = run(work, FAST, 2, processes=1, gate=gate, log=lambda _: None)
    assert summaries[2]["played"] == summaries[1]["played"] - 2
    assert again["generations"][1] == gen2 and again["current"] == state["current"]


def test_the_command_runs_a_tiny_generation_and_run_again_goes_on(tmp_path, capsys):
    work = tmp_path / "loop"
    args = ["--work", str(work), "--tiny", "--games", "2", "--players", "2", "--selfplay-budget", "8",
            "--fast-iterations", "4", "--gate-iterations", "4", "--gate-games", "2", "--processes", "1", "--quiet"]
    assert main([*args, "--generations", "1", "--markdown"]) == 0
    table = capsys.readouterr().out
    assert table.startswith(f"`cacao-generations {' '.join(args)} --generations 1 --markdown`")
    assert "| 1 | 2 (gen 0) | 1 | " in table and "| 2 |" not in table
    first = read_state(work)["generations"][0]
    assert main([*args, "--generations", "2"]) == 0
    state = read_state(work)
    assert state["generations"][0] == first and "gate" in state["generations"][1]
    assert state["command"] == f"cacao-generations {' '.join(args)} --generations 2"
    with pytest.raises(SystemExit):
        main([*args[:-1], "--games", "3", "--generations", "3"])
    assert "other settings (--games)" in capsys.readouterr().err



def test_the_networks_shape_is_a_setting_of_the_run(tmp_path):
    Fakes().run(tmp_path, 1)
    wider = LoopConfig(**{**FAST.__dict__, "train": replace(FAST.train, hidden=(12, 6), search_target=0.5)})
    with pytest.raises(ValueError, match=NETWORK_FLAGS):
        Fakes().run(tmp_path, 2, wider)


def test_a_run_recorded_before_a_setting_existed_resumes_with_its_default(tmp_path):
    Fakes().run(tmp_path, 1)
    state = read_state(tmp_path)
    del state["config"]["train"]["policy_position"], state["config"]["fast_iterations"]
    (tmp_path / "state.json").write_text(json.dumps(state))
    Fakes().run(tmp_path, 2, replace(FAST, fast_iterations=LoopConfig.fast_iterations))
    assert [entry["generation"] for entry in read_state(tmp_path)["generations"]] == [1, 2]
    with pytest.raises(ValueError, match=NETWORK_FLAGS):
        Fakes().run(tmp_path, 3, replace(FAST, fast_iterations=LoopConfig.fast_iterations,
                                         train=replace(FAST.train, policy_position=True)))


def test_the_default_gate_is_better_than_not_and_its_negative_elo0_parses(tmp_path):
    """`--sprt=-10,...` is how a negative ELO0 is written; the default gate is that one."""
    assert LoopConfig().sprt == (-10.0, 10.0, 0.05, 0.05) and LoopConfig().gate_games == 600
    assert generations._sprt_arg("-10,10,0.05,0.05") == LoopConfig().sprt


CANDIDATE = Path(__file__).resolve().parents[1] / "lab" / "models" / "candidate.npz"


def test_the_loops_current_model_kept_in_the_repository_loads_and_searches():
    """lab/models/candidate.npz, the promoted model a later run starts from
    (`--initial`), is for today's features and plays a search."""
    from cacaoai.engine import Position, features
    from cacaoai.search import Limit, SearchSettings, search
    from cacaoai.search.model import load_model

    manifest = load_model(str(CANDIDATE)).manifest
    assert manifest["features_version"] == features.FEATURES_VERSION
    assert sum(block["games"] for block in manifest["data"]) >= 9000
    result = search(Position.new(2, 5), Limit(iterations=200), SearchSettings(model=str(CANDIDATE)), seed=1)
    assert result.best_action is not None and result.stopped_by == "iterations"
