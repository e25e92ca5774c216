"""A cacao-server in its own process, for tests and scripts that must survive
(and detect) a server crash: a test process cannot outlive a SIGSEGV in its own
in-process server.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def start(*flags: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, int]:
    """A cacao-server process on a free port; returns it and its port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cacaoai.server.main", "--port", "0", *flags],
        stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})))
    line = process.stderr.readline()
    match = re.search(r"serving on 127\.0\.0\.1:(\d+)", line)
    if not match:
        process.kill()
        raise RuntimeError(f"the server did not start: {line}{process.stderr.read()}")
    threading.Thread(target=process.stderr.read, daemon=True).start()  # drain the log
    return process, int(match.group(1))


@contextmanager
def running(*flags: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """A server process for the with-block: (process, "127.0.0.1:PORT")."""
    process, port = start(*flags, env=env)
    try:
        yield process, f"127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serving(address: str, timeout: float = 5.0) -> bool:
    """Whether the server at `address` answers a health check with SERVING."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        return reply.status == health_pb2.HealthCheckResponse.SERVING


def rss_kib(pid: int) -> int:
    """Resident set size of a process, KiB (Linux)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
