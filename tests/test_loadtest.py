"""The load test: its sampled positions, its summary, and a short real run.

The smoke test runs ``loadtest/run.py`` as a user would: it starts a real
cacao-server subprocess, drives it with locust for a few seconds and checks the
summary it writes.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

LOADTEST = Path(__file__).resolve().parents[1] / "loadtest"


def _module(name):
    spec = importlib.util.spec_from_file_location(f"loadtest_{name}", LOADTEST / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _positions():
    with open(LOADTEST / "positions.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_positions_cover_both_player_counts_and_every_stage_of_the_game():
    samples = _positions()
    assert {(s["players"], s["stage"]) for s in samples} == {
        (p, stage) for p in (2, 4) for stage in ("opening", "middle", "end")}
    assert len({s["id"] for s in samples}) == len(samples)
    assert (LOADTEST / "positions.jsonl").stat().st_size < 400_000


def test_positions_are_observations_of_their_complete_position_with_the_recorded_move_legal():
    from cacaoai.engine import Action, Position

    for s in _positions():
        position = Position.from_snapshot(s["position"])
        seat = position.to_act
        assert s["observation"]["view"] == seat
        assert position.observation(seat) == s["observation"]
        legal = position.legal_actions()
        assert len(legal) == s["legal_actions"] >= 2
        assert Action.from_json(s["action"]) in legal


def test_summary_counts_rejections_apart_from_failures_and_takes_exact_percentiles():
    run = _module("run")
    rows = [{"start_unix_s": str(100.0 + i / 100), "name": "SuggestAction 50ms",
             "latency_us": str(50_000 + i), "status": "OK", "response_bytes": "10",
             "iterations": "1000"} for i in range(100)]
    rows += [{"start_unix_s": "100.5", "name": "SuggestAction 50ms", "latency_us": "1500",
              "status": "RESOURCE_EXHAUSTED", "response_bytes": "0", "iterations": ""},
             {"start_unix_s": "100.6", "name": "ApplyAction", "latency_us": "900",
              "status": "DEADLINE_EXCEEDED", "response_bytes": "0", "iterations": ""}]
    allowed = run.summarise(rows, allow_rejections=True)
    suggest = allowed["rpcs"]["SuggestAction 50ms"]
    assert (suggest["ok"], suggest["rejected"], suggest["failed"]) == (100, 1, 0)
    assert suggest["p50_ms"] == pytest.approx(50.0495, abs=1e-3)  # not rounded to whole ms
    assert suggest["rejected_max_ms"] == 1.5
    assert (allowed["failures"], allowed["rejections"], allowed["timeouts"]) == (1, 1, 1)
    assert run.summarise(rows, allow_rejections=False)["failures"] == 2


def test_the_warm_up_is_left_out_of_the_latencies_but_its_failures_still_count():
    run = _module("run")
    rows = [{"start_unix_s": str(100.0 + i / 10), "name": "ListLegalActions",
             "latency_us": str(90_000 if i < 5 else 1_000), "status": "OK", "response_bytes": "10",
             "iterations": ""} for i in range(50)]  # the first half second: connections opening
    rows.append({"start_unix_s": "100.1", "name": "ListLegalActions", "latency_us": "800",
                 "status": "UNAVAILABLE", "response_bytes": "0", "iterations": ""})
    cold = run.summarise(rows, allow_rejections=False)
    warm = run.summarise(rows, allow_rejections=False, warmup_s=1.0)
    assert cold["rpcs"]["ListLegalActions"]["max_ms"] == 90.0
    legal = warm["rpcs"]["ListLegalActions"]
    assert (legal["ok"], legal["max_ms"], legal["p99_ms"]) == (40, 1.0, 1.0)
    assert warm["warmup"] == {"s": 1.0, "requests": 11, "failures": 1, "max_ms": 90.0}
    assert warm["failures"] == cold["failures"] == 1
    # a run shorter than its warm-up keeps every call
    assert run.summarise(rows, allow_rejections=False, warmup_s=60.0)["rpcs"]["ListLegalActions"]["ok"] == 50


def test_a_negative_warm_up_is_refused_naming_the_flag(capsys):
    run = _module("run")
    with pytest.raises(SystemExit):
        run.parse_args(["--warmup", "-1"])
    assert "--warmup: -1 seconds is negative" in capsys.readouterr().err


def test_client_cpus_read_in_tasksets_form_and_bad_lists_are_refused_naming_the_flag(capsys):
    run = _module("run")
    assert [run.parse_cpus(t) for t in ("1", "0,2", "2-3", "0, 4-5")] == [
        {1}, {0, 2}, {2, 3}, {0, 4, 5}]
    assert run.format_cpus({3, 0, 1}) == "0,1,3"
    usable = os.sched_getaffinity(0)
    for flag, problem in (("x", "not a CPU list"), ("3-1", "not a CPU or a rising range"),
                          (str(max(usable) + 1), "is not one this process may use"),
                          (run.format_cpus(usable), "is every CPU this process may use")):
        with pytest.raises(SystemExit):
            run.parse_args(["--client-cpus", flag])
        err = capsys.readouterr().err
        assert "--client-cpus" in err and problem in err, err


def test_confined_puts_every_thread_and_every_process_started_meanwhile_on_the_cpus_then_restores():
    run = _module("run")
    before = os.sched_getaffinity(0)
    target = {max(before)}
    started, go = threading.Event(), threading.Event()
    seen = {}

    def older_thread():  # a thread that was running before: Linux pins threads one by one
        started.set()
        go.wait(10)
        seen["thread"] = os.sched_getaffinity(0)

    thread = threading.Thread(target=older_thread)
    thread.start()
    started.wait(10)
    with run.confined(target):
        go.set()
        thread.join(10)
        child = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                               capture_output=True, text=True, timeout=60)
        assert os.sched_getaffinity(0) == target
    assert seen["thread"] == target and json.loads(child.stdout) == sorted(target)
    assert os.sched_getaffinity(0) == before
    with run.confined(None):  # the default: nothing changes
        assert os.sched_getaffinity(0) == before


def test_the_results_table_has_a_legend_of_its_columns_under_it(capsys):
    run = _module("run")
    row = {"requests": 10, "per_s": 2.0, "p50_ms": 55.1, "p95_ms": 60.0, "p99_ms": 61.0,
           "max_ms": 62.0, "failed": 0, "rejected": 1, "rejected_p99_ms": 1.5,
           "mean_iterations": 1200}
    run.print_table({
        "load": {"rpcs": {"SuggestAction 50ms": row}, "requests": 10, "requests_per_s": 2.0,
                 "window_s": 5.0, "failures": 0, "rejections": 1, "timeouts": 0},
        "health_during_load": {"serving": 5, "probes": 5, "p50_ms": 1.0, "max_ms": 2.0},
        "after_load": {"health": "SERVING", "health_ms": 1.0, "suggest": "OK", "suggest_ms": 55.0},
        "machine": {"loadavg_before": 0.1, "loadavg_after": 0.2, "cpus": 2},
        "ok": True, "verdict": ["all requests succeeded"]})
    lines = capsys.readouterr().out.splitlines()
    columns = re.findall(r"p\d\d ms|max ms|rej p99|\S+", lines[0])
    assert columns[0] == "RPC" and "rej" in columns and "iters" in columns, columns
    below = lines[[line.split()[0] for line in lines].index("all") + 1:]
    explained = []
    for line in below[:len(run.LEGEND)]:
        name, meaning = re.fullmatch(r"  (\S.*?)  +(\S.*)", line).groups()
        explained += ["p50 ms", "p95 ms", "p99 ms", "max ms"] if name == "p50 .. max ms" else [name]
        assert meaning.strip(), line
    assert explained == columns[1:]  # each column after RPC, in order
    assert "RESOURCE_EXHAUSTED" in dict(run.LEGEND)["rej"]


def test_durations_read_as_locust_writes_them():
    run = _module("run")
    assert [run.parse_duration(t) for t in ("45", "30s", "2m", "1h30m")] == [45, 30, 120, 5400]


def run_load(out, *flags):
    """loadtest/run.py with these flags, as a user runs it: (its output, the summary it wrote).
    locust is not imported here: its gevent monkey patching would deadlock this
    process's gRPC threads; run.py runs it apart. Every call counts (no
    warm-up left out): the runs are short."""
    done = subprocess.run([sys.executable, str(LOADTEST / "run.py"), "--warmup", "0", *flags,
                           "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads((out / "summary.json").read_text())


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_a_short_run_against_a_real_server_succeeds_and_writes_its_summary(tmp_path):
    out = tmp_path / "run"
    stdout, summary = run_load(out, "--users", "3", "--spawn-rate", "3", "--duration", "4s",
                               "--suggest-normal-ms", "200",
                               "--weights", "suggest_short=3,suggest_normal=1,legal=4,apply=4")
    load = summary["load"]
    assert summary["ok"] and load["failures"] == 0 and load["requests"] > 20
    assert set(load["rpcs"]) == {"SuggestAction 50ms", "SuggestAction 200ms",
                                 "ListLegalActions", "ApplyAction"}
    assert all(r["ok"] > 0 and r["p99_ms"] >= r["p50_ms"] > 0 for r in load["rpcs"].values())
    assert summary["after_load"] == {**summary["after_load"], "health": "SERVING", "suggest": "OK"}
    # the plain client beside locust timed legal actions too, and the run says so
    legal = summary["health_during_load"]["legal_actions"]
    assert legal["n"] > 0 and legal["max_ms"] >= legal["p99_ms"] >= legal["p50_ms"] > 0
    assert "ListLegalActions from outside locust" in stdout
    # the machine before the load (the cores' throughput, the quiet server's latency) and the steal during it
    quiet = summary["health_before_load"]
    assert quiet["calls"] == 300 and quiet["p99_ms"] >= quiet["p50_ms"] > 0
    assert summary["machine"]["steal_percent"] >= 0
    cores = summary["cores_before_load"]
    assert cores["cpus"] == len(os.sched_getaffinity(0)) and cores["kgames_per_s"] >= cores["lowest_kgames_per_s"] > 0
    assert "health before load, one call at a time" in stdout and "steal: " in stdout
    assert "cores before load" in stdout
    assert summary["server_exit_code"] == 0
    assert (out / "locust_stats.csv").exists() and "PASS" in stdout


@pytest.mark.e2e
@pytest.mark.timeout(180)
def test_the_review_task_reads_each_review_to_its_summary(tmp_path):
    _, summary = run_load(tmp_path / "run", "--users", "2", "--spawn-rate", "2", "--duration", "3s",
                          "--weights", "review=1")
    load = summary["load"]
    assert set(load["rpcs"]) == {"ReviewGame"} and load["failures"] == 0
    review = load["rpcs"]["ReviewGame"]
    assert review["ok"] > 0 and review["mean_iterations"] >= 4 * 100 / 2   # 4 decisions at 100


@pytest.mark.e2e
@pytest.mark.timeout(120)
def test_the_plain_probe_times_quick_calls_while_searches_run():
    done = subprocess.run(
        [sys.executable, str(LOADTEST / "plain_probe.py"), "--searches", "1", "--seconds", "3"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("1 searches at idle: "), line
    count = int(line.split(": ")[1].split()[0])
    assert count > 0  # how many fit in its second of calls depends on the machine's load
    assert re.search(r"ListLegalActions, p50 [\d.]+ ms, p90 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms$",
                     line), line
