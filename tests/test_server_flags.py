"""cacao-server's flags as a person at a terminal meets them, through the
installed program: a value out of range is refused with the flag (or the
environment variable) as they typed it, never the field inside; and a port of
0 means any free port for every side (gRPC and HTTP alike), the log saying
which, while ``--http-port off`` turns the HTTP side off.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support import GUARD_S

from cacaoai.client.local import HTTP_LINE, SERVING_LINE, ServiceProcess

BIN = Path(sys.executable).parent
SERVER = str(BIN / "cacao-server")
#: this test's environment without the caller's CACAO_* settings
ENV = {k: v for k, v in os.environ.items() if not k.startswith("CACAO_")}
#: flags that keep a server started by mistake off the usual ports
QUIET = ("--port", "0", "--http-port", "off")


def refused(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SERVER, *QUIET, *args], capture_output=True, text=True, timeout=GUARD_S,
                          stdin=subprocess.DEVNULL, env={**ENV, **(env or {})})


@pytest.mark.parametrize(("args", "said"), [
    (["--max-searches", "0"], "--max-searches must be at least 1, got 0"),
    (["--search-threads", "0"], "--search-threads must be at least 1, got 0"),
    (["--max-time", "0"], "--max-time must be positive, got 0.0"),
    (["--grace", "-1"], "--grace must not be negative, got -1.0"),
    (["--max-queue", "-1"], "--max-queue must not be negative, got -1"),
    (["--http-port", "70000"], "--http-port must be 0-65535, got 70000"),
    (["--port", "70000"], "--port must be 0-65535, got 70000"),
    (["--search-priority", "fast"], "--search-priority must be one of normal, reduced, low, idle, got 'fast'"),
    (["--tls-cert", "cert.pem"], "--tls-cert and --tls-key go together: give both or neither"),
    (["--max-searches", "2", "--memory-budget-mb", "1"],
     "--memory-budget-mb (1) is too small for 2 searches at once (--max-searches)"),
])
def test_a_value_out_of_range_is_refused_naming_the_flag_as_typed(args, said):
    done = refused(args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"cacao-server: error: {said}"), last
    assert "_" not in last.partition(" got ")[0], last  # no field name (max_searches, tls_cert...)


def test_a_value_out_of_range_from_the_environment_names_the_variable():
    done = refused([], env={"CACAO_MAX_SEARCHES": "0"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == "cacao-server: error: CACAO_MAX_SEARCHES must be at least 1, got 0"
    typed = refused(["--max-searches", "0"], env={"CACAO_MAX_SEARCHES": "3"})  # the flag wins, and is named
    assert typed.stderr.splitlines()[-1] == "cacao-server: error: --max-searches must be at least 1, got 0"


def test_a_puzzle_file_it_cannot_read_is_named_not_the_port(tmp_path):
    missing = tmp_path / "missing.jsonl"
    done = refused(["--puzzles", str(missing)])
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stderr.splitlines()[-1]
    assert f"--puzzles {missing}: cannot read it" in last and "--port" not in last, last


@pytest.mark.integration
def test_http_port_0_serves_on_a_free_port_and_the_log_says_which():
    """--http-port 0 as --port 0: any free port, named in the log line that
    tools wait for, where the HTTP side answers."""
    lines: list[str] = []
    with ServiceProcess([SERVER, "--port", "0", "--http-port", "0", "--drain", "0", "--grace", "0"],
                        HTTP_LINE, env=ENV, log=lines.append, timeout=GUARD_S) as server:
        url = server.ready.group(1)
        port = int(re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", url).group(1))
        grpc_port = int(SERVING_LINE.search("".join(server.startup_log)).group(1).rpartition(":")[2])
        assert port not in (0, 8080) and grpc_port not in (0, 50051) and port != grpc_port
        with urllib.request.urlopen(f"{url}healthz", timeout=GUARD_S) as reply:
            assert reply.status == 200
    assert "Traceback" not in "".join(lines)


@pytest.mark.integration
def test_http_port_off_serves_no_http_side():
    lines: list[str] = []
    server = ServiceProcess([SERVER, "--port", "0", "--http-port", "off", "--drain", "0", "--grace", "0"],
                            SERVING_LINE, env=ENV, log=lines.append, timeout=GUARD_S)
    server.stop()
    said = "".join(lines)
    assert "serving on 127.0.0.1:" in said and "stopped" in said, said
    assert "board page" not in said and "http://" not in said, said
