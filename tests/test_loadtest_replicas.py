"""The load test across replicas: nginx + two replicas, locust master + two workers.

Runs ``loadtest/run.py --replicas 2 --workers 2`` as a user would and checks
that the workers made the calls, through nginx, and the summary says so.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.requires_tool("nginx"), pytest.mark.timeout(240)]

LOADTEST = Path(__file__).resolve().parents[1] / "loadtest"


def test_a_distributed_run_through_nginx_to_two_replicas_succeeds(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, str(LOADTEST / "run.py"), "--users", "2", "--duration", "4s",
         "--suggest-normal-ms", "200", "--replicas", "2", "--max-searches", "2",
         "--workers", "2", "--warmup", "0", "--out", str(out)],
        capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ok"] and summary["load"]["failures"] == 0
    assert summary["server"]["replicas"] == 2 and summary["settings"]["locust_workers"] == 2
    # two users, two slots on each replica: nothing to refuse even when a
    # replica still counts a search that has just answered (a loaded machine)
    assert summary["load"]["rejections"] == 0
    rows_per_file = [len(p.read_text().splitlines()) - 1 for p in out.glob("raw.*.csv")]
    assert sum(1 for n in rows_per_file if n > 0) == 2, rows_per_file  # both workers called
    assert summary["server_exit_code"] == 0
    server_log = (out / "server.log").read_text()
    assert "replica 1 pid" in server_log and "nginx pid" in server_log
