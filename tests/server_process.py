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


def start(*flags: str, env: dict[str, str] | None = None,
          log: list[str] | None = None) -> tuple[subprocess.Popen, int]:
    """A cacao-server process on a free port (no HTTP side unless the flags ask
    for one); returns it and its port. Its log lines up to "serving on" are
    appended to ``log`` when given; the rest are read and dropped."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cacaoai.server.main", "--port", "0", "--http-port", "off", *flags],
        stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})))
    seen = []
    for line in process.stderr:
        seen.append(line)
        match = re.search(r"serving on \S+:(\d+)", line)
        if match:
            if log is not None:
                log.extend(seen)
            threading.Thread(target=process.stderr.read, daemon=True).start()  # drain the log
            return process, int(match.group(1))
    process.kill()
    raise RuntimeError("the server did not start: " + "".join(seen))


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
