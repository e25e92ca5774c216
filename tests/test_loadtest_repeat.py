"""loadtest/repeat.py: one load test run several times, its spread and its marks.

The figures, marks and table are checked on hand-made summaries; one short
real repetition (two runs of a few seconds against real servers) checks the
whole script as a user runs it.
"""

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

LOADTEST = Path(__file__).resolve().parents[1] / "loadtest"


def _repeat():
    spec = importlib.util.spec_from_file_location("loadtest_repeat", LOADTEST / "repeat.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


repeat = _repeat()


def _summary(legal_p99=9.0, refusals=(8.0, 12.0), health_p99=7.0, plain_refusals=6.5):
    short, normal = refusals
    rpc = {"p50_ms": None, "p99_ms": None, "rejected_p99_ms": None}
    return {
        "load": {"rpcs": {
            "ListLegalActions": {**rpc, "p50_ms": 2.0, "p99_ms": legal_p99},
            "SuggestAction 50ms": {**rpc, "p50_ms": 250.0, "p99_ms": 700.0, "rejected_p99_ms": short},
            "SuggestAction 500ms": {**rpc, "rejected_p99_ms": normal},  # every one refused
        }},
        "machine": {"cpus": 2, "steal_percent": 0.4},
        "health_before_load": {"calls": 300, "p50_ms": 0.61, "p99_ms": 0.9},
        "cores_before_load": {"cpus": 2, "kgames_per_s": 410.5, "lowest_kgames_per_s": 402.0},
        "health_during_load": {"p50_ms": 1.2, "p99_ms": health_p99,
                               "legal_actions": {"p50_ms": 2.1, "p99_ms": 8.5},
                               "suggest_resource_exhausted": {"p99_ms": plain_refusals}},
    }


def test_a_runs_figures_name_each_call_the_plain_clients_probes_and_the_machine_and_leave_out_what_is_absent():
    f = repeat.figures(_summary())
    assert f == {
        "ListLegalActions.p50": 2.0, "ListLegalActions.p99": 9.0,
        "SuggestAction 50ms.p50": 250.0, "SuggestAction 50ms.p99": 700.0,
        "SuggestAction 50ms.refusals_p99": 8.0, "SuggestAction 500ms.refusals_p99": 12.0,
        "health.p50": 1.2, "health.p99": 7.0,
        "plain.ListLegalActions.p99": 8.5, "plain.refusals_p99": 6.5,
        # the machine at the time of the run
        "cores_before.kgames_per_s": 410.5, "health_before.p50": 0.61, "steal_percent": 0.4,
    }
    # a run without refusals or probes has none of those figures
    bare = repeat.figures({"load": {"rpcs": {"ApplyAction": {"p50_ms": 2.0, "p99_ms": 5.0}}}})
    assert bare == {"ApplyAction.p50": 2.0, "ApplyAction.p99": 5.0}


@pytest.mark.parametrize("text, pattern, op, bound", [
    ("health.p99<=10", "health.p99", "<=", 10.0),
    (" *.refusals_p99 <= 9.5 ", "*.refusals_p99", "<=", 9.5),
    ("SuggestAction 50ms.p50>=1e1", "SuggestAction 50ms.p50", ">=", 10.0),
])
def test_a_mark_reads_a_name_a_bound_and_its_direction(text, pattern, op, bound):
    assert repeat.parse_mark(text) == repeat.Mark(pattern, op, bound)


@pytest.mark.parametrize("text, says", [
    ("health.p99", "write NAME<=VALUE"),
    ("health.p99<10", "write NAME<=VALUE"),
    ("<=10", "write NAME<=VALUE"),
    ("health.p99<=ten", "write NAME<=VALUE"),
    ("health.p99<=1.2.3", "is not a number"),
    ("health.p99<=1e999", "finite"),
])
def test_a_malformed_mark_is_refused_saying_what_a_mark_looks_like(text, says):
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        repeat.parse_mark(text)


def test_a_wildcard_mark_holds_in_a_run_only_when_every_figure_it_names_does():
    runs = [repeat.figures(_summary(refusals=r)) for r in ((8.0, 9.0), (8.0, 12.0), (11.0, 7.0))]
    verdict = repeat.judge(repeat.parse_mark("*.refusals_p99<=10"), runs)
    assert verdict.values == [9.0, 12.0, 11.0]      # each run's worst refusal class
    assert verdict.met_runs == 1 and verdict.median == 11.0 and not verdict.met
    # two of three within it: the median run meets it
    verdict = repeat.judge(repeat.parse_mark("SuggestAction 50ms.refusals_p99<=10"), runs)
    assert verdict.met_runs == 2 and verdict.met
    # >= takes each run's lowest named figure
    verdict = repeat.judge(repeat.parse_mark("*.p50>=2.0"), runs)
    assert verdict.values == [0.61, 0.61, 0.61] and verdict.met_runs == 0 and not verdict.met  # health_before


def test_locusts_refusals_are_named_apart_from_the_plain_clients():
    runs = [repeat.figures(_summary(refusals=(8.0, 9.0), plain_refusals=11.0))]
    locust = repeat.judge(repeat.parse_mark("SuggestAction*.refusals_p99<=10"), runs)
    assert locust.values == [9.0] and locust.met
    every = repeat.judge(repeat.parse_mark("*.refusals_p99<=10"), runs)   # * crosses the dot
    assert every.values == [11.0] and not every.met


def test_a_mark_that_names_no_figure_is_not_met_and_says_so():
    runs = [repeat.figures(_summary()), repeat.figures(_summary())]
    verdict = repeat.judge(repeat.parse_mark("GetServerInfo.p99<=1"), runs)
    assert verdict.values == [None, None] and not verdict.met
    assert repeat.verdict_lines([verdict]) == ["GetServerInfo.p99<=1: names no figure of any run: not met"]


def test_the_table_gives_each_figures_lowest_median_highest_and_every_run():
    runs = [repeat.figures(_summary(legal_p99=p)) for p in (9.0, 14.0, 10.0)]
    runs[1].pop("health.p99")  # a run whose probes were all lost
    table = repeat.spread_table(runs).splitlines()
    assert table[0] == "| figure (ms) | min | median | max | runs 1..3 |"
    assert "| ListLegalActions.p99 | 9.0 | 10.0 | 14.0 | 9.0, 14.0, 10.0 |" in table
    assert "| health.p99 | 7.0 | 7.0 | 7.0 | 7.0, -, 7.0 |" in table
    assert "| health_before.p50 | 0.61 | 0.61 | 0.61 | 0.61, 0.61, 0.61 |" in table  # below 1 ms: 2 digits


def test_a_run_that_wrote_no_summary_has_no_figures(tmp_path):
    assert repeat.read_run(tmp_path) == {}
    (tmp_path / "summary.json").write_text(json.dumps(_summary()))
    assert repeat.read_run(tmp_path)["health.p99"] == 7.0
    # such a run shows as "-" in the table and meets no mark
    runs = [repeat.read_run(tmp_path), {}]
    assert "| health.p99 | 7.0 | 7.0 | 7.0 | 7.0, - |" in repeat.spread_table(runs)
    verdict = repeat.judge(repeat.parse_mark("health.p99<=10"), runs)
    assert verdict.values == [7.0, None] and verdict.met_runs == 1 and verdict.met


@pytest.mark.parametrize("flags, says", [
    (["--runs", "1"], "--runs: at least 2"),
    (["--wait-quiet", "-1"], "--wait-quiet: must be 0 or more"),
    (["--mark", "health"], "bad mark 'health'"),
    (["--", "--users", "2", "--out", "x"], "--out after --"),
    (["--", "--warmup", "-1"], "--warmup"),        # run.py's own check, before the first run
])
def test_bad_arguments_are_refused_before_any_run(flags, says, capsys):
    with pytest.raises(SystemExit) as stop:
        repeat.main(flags)
    assert stop.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.e2e
@pytest.mark.timeout(240)
def test_two_short_runs_against_real_servers_give_a_spread_and_judge_their_marks(tmp_path):
    out = tmp_path / "repeat"
    done = subprocess.run(
        [sys.executable, str(LOADTEST / "repeat.py"), "--runs", "2", "--wait-quiet", "0",
         "--out", str(out), "--mark", "*.p99>=0", "--mark", "ListLegalActions.p50<=0",
         "--", "--users", "2", "--spawn-rate", "2", "--duration", "3s", "--warmup", "0",
         "--weights", "suggest_short=1,legal=1"],
        capture_output=True, text=True, timeout=200)
    # every run passed, but no call answers in 0 ms: the second mark fails the repetition
    assert done.returncode == 1, done.stdout + done.stderr
    saved = json.loads((out / "repeat.json").read_text())
    assert saved["failed_runs"] == 0 and len(saved["runs"]) == 2
    assert all(run["ListLegalActions.p99"] >= run["ListLegalActions.p50"] > 0 for run in saved["runs"])
    assert [(m["mark"], m["met_runs"], m["met"]) for m in saved["marks"]] == [
        ("*.p99>=0", 2, True), ("ListLegalActions.p50<=0", 0, False)]
    assert (out / "run-1" / "summary.json").exists() and (out / "run-2" / "summary.json").exists()
    assert "| ListLegalActions.p99 |" in done.stdout
    assert "ListLegalActions.p50<=0: within it in 0 of 2 runs" in done.stdout
