"""A cacao-server in its own process on a free port, for whoever needs one
for a while: cacao-play and cacao-match without ``--server``, the examples,
tests, scripts and the load test.

    from cacaoai.client import CacaoClient
    from cacaoai.client.local import LocalServer

    with LocalServer("--max-searches", "2") as server, CacaoClient(server.address) as client:
        print(client.get_server_info().instance)

:class:`LocalServer` runs ``python -m cacaoai.server.main --port 0 ...``,
waits until its log says ``serving on HOST:PORT`` (and, with ``http=True``,
that its HTTP side listens), reads the rest of its log in a thread so that
the server never blocks on a full pipe, and stops it: SIGTERM, then SIGKILL
after a grace period. Its own process, not a server in the caller's: a
crash of the server is not the caller's crash, and the caller can signal
it as an operator would. :class:`ServiceProcess` does the same for any
command that says in its output when it is ready (such as the replicas
script, nginx in front of several servers).

This module does not import the server: the server's code runs only in the
process started.

Thread-safety: start and stop a process from one thread; ``serving`` may be
called from any.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

__all__ = ["LocalServer", "ServiceProcess", "StartError", "free_port", "serving",
           "stop_process"]

#: The server's log line once it accepts calls: "serving on 127.0.0.1:50051".
SERVING_LINE = re.compile(r"serving on ((?:\[[^\]\s]*\]|[^\s:\[\]]+):\d+)")
#: The server's log line once its HTTP side (Connect API, board page) listens
#: (a server whose HTTP port cannot be bound exits instead).
HTTP_LINE = re.compile(r"board page and Connect API on (https?://\S+?/)")
#: Addresses that listen everywhere, and the loopback address to call them on.
_ANY_HOST = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}


def _callable(address: str) -> str:
    """HOST:PORT to call a server that listens on ``address`` at (loopback
    for one that listens on every address)."""
    host, _, port = address.rpartition(":")
    return f"{_ANY_HOST.get(host, host)}:{port}"


class StartError(RuntimeError):
    """A process that ended, or did not say it was ready in time; the message
    ends with its last log lines."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port on ``host`` that nothing listens on now (bound, then released:
    another process may take it before the caller does)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host.strip("[]"), 0))
        return s.getsockname()[1]


def serving(address: str, timeout: float = 5.0) -> bool:
    """Whether the plaintext server at ``address`` answers a health check
    (service "") with SERVING within ``timeout`` seconds."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING


def stop_process(process: subprocess.Popen, grace: float = 10.0,
                 sig: int = signal.SIGTERM) -> int:
    """Sends ``sig`` (SIGTERM: a server drains, then stops), then SIGKILL after
    ``grace`` seconds; returns the exit status."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


class ServiceProcess:
    """A command run until its output (stdout and stderr together) has a line
    matching ``ready``; then its output goes on being read, to ``log``.

    Args:
        command: the program and its arguments.
        ready: the pattern of the line that says the process is ready.
        name: what to call the process in errors.
        env: the environment (default: this process's), with PYTHONUNBUFFERED set.
        log: called with every line of output (with its newline), before and
            after ready; None: the lines after ready are dropped.
        timeout: most seconds to wait for ``ready``.
        cwd: the working folder.

    Attributes:
        command: the command run.
        process: the ``subprocess.Popen``.
        ready: the match of the ready line.
        startup_log: the lines up to and including the ready line (for a
            LocalServer with ``http``, up to the HTTP side's line).

    Raises:
        StartError: the process ended before it was ready, or was not ready
            within ``timeout`` (it is then killed).
    """

    def __init__(self, command: Sequence[str], ready: re.Pattern[str] | str, *,
                 name: str = "", env: Mapping[str, str] | None = None,
                 log: Callable[[str], object] | None = None, timeout: float = 60.0,
                 cwd: str | None = None):
        self.command = list(command)
        self.name = name or os.path.basename(command[0])
        self.startup_log: list[str] = []
        self._log = log
        self._lines: queue.SimpleQueue[str | None] | None = queue.SimpleQueue()
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            errors="replace", cwd=cwd,
            env=dict(os.environ if env is None else env, PYTHONUNBUFFERED="1"))
        self._reader = threading.Thread(target=self._read, name=f"{self.name}-log", daemon=True)
        self._reader.start()
        try:
            self.ready = self._until_ready(ready, timeout)
        except BaseException:
            self.stop(grace=0)
            raise
        finally:
            self._lines = None  # from now on the output goes to `log` only

    @property
    def pid(self) -> int:
        """The process's id."""
        return self.process.pid

    def _read(self) -> None:
        """Reads the output to its end: into the queue while someone waits for
        a line, and to ``log``."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if self._log is not None:
                self._log(line)
            lines = self._lines
            if lines is not None:
                lines.put(line)
        lines = self._lines
        if lines is not None:
            lines.put(None)

    def _until_ready(self, ready: re.Pattern[str] | str, timeout: float) -> re.Match[str]:
        """Waits until the process is ready; the match of its ready line."""
        return self._wait_for(ready, timeout)

    def _wait_for(self, pattern: re.Pattern[str] | str, timeout: float) -> re.Match[str]:
        """The match of the next line of output that matches ``pattern``
        (the lines read are added to ``startup_log``).

        Raises:
            StartError: the output ended first, or no such line came within
                ``timeout`` seconds.
        """
        assert self._lines is not None, "the output is watched only until ready"
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                raise StartError(self._failure(f"did not say it was ready within {timeout:g} s")) from None
            if line is None:
                raise StartError(self._failure(f"exited with {self.process.wait()}"))
            self.startup_log.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def _failure(self, what: str) -> str:
        tail = "".join(self.startup_log[-20:])
        return f"{self.name} {what}" + (f"; its output:\n{tail}" if tail else "")

    def stop(self, grace: float = 10.0, sig: int = signal.SIGTERM) -> int:
        """Sends ``sig``, then SIGKILL after ``grace`` seconds; returns the exit
        status once the output is read to its end (or ``grace`` has passed)."""
        code = stop_process(self.process, grace, sig)
        self._reader.join(grace)
        return code

    def __enter__(self) -> ServiceProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class LocalServer(ServiceProcess):
    """A cacao-server in its own process, on a free port of ``host``.

    Args:
        flags: more cacao-server flags (``"--max-searches", "2"``); they may
            override the ones this class gives.
        host: the address to listen on.
        http: also serve the HTTP side (Connect API and board page) on a free
            port, and wait until it listens; otherwise ``--http-port off``.
        isolated: leave out the caller's ``CACAO_*`` environment variables,
            so that only the flags given configure the server.
        env: more environment variables for the server.
        log, timeout: as for :class:`ServiceProcess`.
        python: the Python interpreter to run the server with.

    Attributes:
        address: "HOST:PORT" to call the gRPC service on (loopback for a
            server that listens on every address).
        port: its port.
        http_url: "http://HOST:PORT/" of the HTTP side, or None.

    Raises:
        StartError: the server exited (a bad flag, say) or did not serve in time.
    """

    def __init__(self, *flags: str, host: str = "127.0.0.1", http: bool = False,
                 isolated: bool = False, env: Mapping[str, str] | None = None,
                 log: Callable[[str], object] | None = None, timeout: float = 60.0,
                 python: str = sys.executable):
        self._http = http
        self.http_url: str | None = None
        environ = {k: v for k, v in os.environ.items()
                   if not (isolated and k.startswith("CACAO_"))}
        command = [python, "-m", "cacaoai.server.main", "--host", host, "--port", "0",
                   "--http-port", "0" if http else "off", *flags]
        super().__init__(command, SERVING_LINE, name="cacao-server",
                         env={**environ, **(env or {})}, log=log, timeout=timeout)
        self.address = _callable(self.ready.group(1))
        self.port = int(self.address.rpartition(":")[2])

    def _until_ready(self, ready: re.Pattern[str] | str, timeout: float) -> re.Match[str]:
        """Waits for the gRPC side, then (with ``http``) for the HTTP side."""
        serving = super()._until_ready(ready, timeout)
        if self._http:
            line = self._wait_for(HTTP_LINE, timeout)
            scheme, _, rest = line.group(1).partition("://")
            self.http_url = f"{scheme}://{_callable(rest.rstrip('/'))}/"
        return serving

    def serving(self, timeout: float = 5.0) -> bool:
        """Whether the server answers a health check (service "") with SERVING."""
        return serving(self.address, timeout)

    def memory_kib(self, field: str = "VmRSS") -> int:
        """The server's memory in KiB from ``/proc/PID/status`` (Linux): VmRSS
        now, VmHWM its peak; 0 when the process is gone."""
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith(f"{field}:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def __enter__(self) -> LocalServer:
        return self
