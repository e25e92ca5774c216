"""The service under real traffic, each script run as a user would run it:
moves beside background analyses that fill every slot, the memory under the
load that used to grow it, replicas killed and drained under load, and a
short soak.

Each checks what does not depend on the machine's speed: refusals, failures,
final reports, replicas coming back, the memory within its budget, the
figures written for every interval.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

LOADTEST = Path(__file__).resolve().parents[1] / "loadtest"


def script(name: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(LOADTEST / name), *args], capture_output=True,
                          text=True, timeout=timeout)


def test_moves_beside_analyses_that_fill_every_slot_are_never_refused(tmp_path):
    """Two users asking for 50 ms moves, two analyses holding both slots: a
    move always finds an analysis to pause, so none is refused or fails, and
    every analysis still ends with exactly one final report."""
    out = tmp_path / "run"
    done = script("run.py", "--users", "2", "--duration", "6s", "--analyses", "2", "--analysis-s", "3",
                  "--weights", "suggest_short=1,suggest_normal=0,legal=0,apply=0", "--max-searches", "2",
                  "--warmup", "0", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["load"]["rejections"] == 0 and summary["load"]["failures"] == 0
    assert summary["load"]["rpcs"]["SuggestAction 50ms"]["ok"] > 0
    background = summary["background_analyses"]
    assert background["finished"] >= 2 and background["without_one_final_report"] == 0
    assert background["errors"] == {}


def test_the_memory_under_long_searches_a_cancel_storm_and_mixed_traffic_stays_within_its_budget(tmp_path):
    out = tmp_path / "memory.json"
    done = script("memory.py", "--searches", "2", "--search-s", "2", "--cancels", "40", "--mixed-s", "4",
                  "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["ok"] and figures["long_searches"] == ["OK", "OK"]
    assert figures["peak_mib"] - figures["base_mib"] <= figures["budget_mib"]
    assert figures["peak_mib"] <= figures["pod_memory_mib"]


@pytest.mark.requires_tool("nginx")
def test_no_move_fails_while_replicas_are_killed_and_drained_under_load(tmp_path):
    """nginx before three replicas, locust through the client library: three
    kill -9, a SIGTERM drain and a SIGUSR1/SIGUSR2 drain while it plays."""
    out = tmp_path / "failover"
    done = script("failover.py", "--users", "2", "--duration", "20s", "--kills", "3", "--drains", "1",
                  "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kills"] >= 3 and summary["failed_moves"] == 0 and summary["moves"] > 0
    assert summary["load"]["failures"] == 0
    assert [e["event"] for e in summary["events"]] == ["kill", "kill", "kill", "drain", "pause"]
    assert all(e["left"] and e["back"] for e in summary["events"])
    killed = [e for e in summary["events"] if e["event"] in ("kill", "drain")]
    assert all(e["new_pid"] != e["pid"] for e in killed)  # started again, and taken back by nginx


def test_a_short_soak_writes_a_line_an_interval_and_stays_flat(tmp_path):
    """Without a tree cache or analyses (whose trees would still be filling
    memory in a minute) the server is flat at once; the hour's run in
    BENCHMARKS.md has both."""
    out = tmp_path / "soak"
    done = script("soak.py", "--duration", "45s", "--interval", "5s", "--warmup", "15s", "--analyses", "0",
                  "--server-flag=--tree-cache-mb=0", "--out", str(out))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    with open(out / "soak.csv") as f:
        lines = list(csv.DictReader(f))
    assert 8 <= len(lines) <= 9 and all(int(line["requests"]) > 0 for line in lines)
    summary = json.loads((out / "soak.json").read_text())
    spread = summary["verdict"]["spread"]
    assert summary["verdict"]["failed_requests"] == 0
    # the verdict's figure: the mean over each interval (a peak jumps with the searches in flight)
    assert spread["rss_mean_mib"]["ratio"] <= 1.10 and spread["open_files"]["ratio"] <= 1.10
    assert spread["rss_mean_mib"]["max"] <= spread["rss_mib"]["max"]
    assert summary["verdict"]["peak_rss_mib"] <= summary["verdict"]["rss_limit_mib"]
    assert all(float(line["rss_mean_mib"]) <= float(line["rss_mib"]) for line in lines)
    # a search's threads come and go: a handful, whatever the machine
    assert spread["threads"]["max"] - spread["threads"]["min"] <= 3
