"""Start nginx in front of N cacao-server replicas on loopback, and keep it in step with their health.

    cacao-replicas --replicas 2                       # nginx on 127.0.0.1:50050
    cacao-replicas --replicas 2 --port 0 -- --max-searches 1 --metrics-port 0
    cacao-replicas --replicas 2 --http-port 8080      # and the replicas' HTTP sides on :8080

Everything after ``--`` is passed to every ``cacao-server``. The script prints
one line per event on stdout (tests and scripts read them):

    replica 0 pid 1234 on 127.0.0.1:40001
    nginx pid 1240 on 127.0.0.1:50050 (config in /tmp/cacao-nginx-xxxx)
    nginx http on http://127.0.0.1:8080/              (with --http-port)
    upstream serving 0,1 down -
    ready

Health-check driven draining: open-source nginx has no active gRPC health
checks, so this script is the health checker. Every ``--poll`` seconds it asks
each replica's ``grpc.health.v1`` (service "") with a short deadline; when the
set of SERVING replicas changes it rewrites ``upstream.conf`` (a replica that
is not SERVING, or does not answer, is marked ``down``), reloads nginx with
SIGHUP, waits until nginx's old worker has exited (so no new call reaches a
drained replica; at most 30 s, as long streams may hold it), and prints the
new ``upstream`` line. A replica is drained by ``kill -USR1 PID`` (health
NOT_SERVING, calls in flight go on) and taken back by ``kill -USR2 PID``;
SIGTERM drains it the same way before it stops.

With ``--restart``, a replica whose process ended (``kill -9``, a crash, an
out-of-memory kill, a SIGTERM) is started again on the same port, as a process
supervisor or Kubernetes would: the script prints ``replica N exited with
CODE``, then ``replica N pid PID on ADDRESS`` once it serves, and the health
checks put it back into nginx's upstreams.

SIGTERM or SIGINT stops nginx and the replicas, removes nginx's folder (unless
``--keep``: it holds the access log, with each call's replica and grpc-status)
and exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cacaoai.client.local import LocalServer, free_port, stop_process
from cacaoai.engine.cli import add_version_option

TEMPLATE = Path(__file__).resolve().parent / "nginx" / "nginx.conf"  # package data
SERVING = health_pb2.HealthCheckResponse.SERVING


_WRITING = threading.Lock()  # our lines and the replicas' logs share one pipe: whole lines only


def say(line: str) -> None:
    """One line to stdout, whole: a program reading our output (the failover
    script) matches lines, and a replica's log line written in the middle of
    one made it miss an upstream change."""
    _write(sys.stdout, line + "\n")


def _write(stream: TextIO, text: str) -> None:
    with _WRITING:
        stream.write(text)
        stream.flush()


class Replica:
    """One cacao-server process on a free loopback port; its log goes to our stderr.

    Raises:
        StartError: the server exited or did not serve within ``timeout`` seconds.
    """

    def __init__(self, index: int, flags: list[str], timeout: float = 60.0, http: bool = False,
                 port: int | None = None, http_port: int | None = None):
        self.index = index
        self.flags = flags
        self.http = http
        again = ["--port", str(port)] if port else []  # a restart keeps the addresses nginx knows
        again += ["--http-port", str(http_port)] if http_port else []
        self.server = LocalServer(*flags, *again, log=self._copy_log, timeout=timeout, http=http)
        self.process = self.server.process
        self.address = self.server.address
        # host:port of its HTTP side (the Connect API and the page), or ""
        self.http_address = (self.server.http_url or "").partition("://")[2].rstrip("/")
        self.channel = grpc.insecure_channel(self.address)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def _copy_log(self, line: str) -> None:
        _write(sys.stderr, f"[replica {self.index}] {line}")

    def serving(self, timeout: float) -> bool:
        """Whether the replica answers its health check with SERVING."""
        try:
            reply = self.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except (grpc.RpcError, ValueError):  # ValueError: its channel closed by a restart
            return False
        return reply.status == SERVING

    def stop(self, grace: float = 10.0) -> None:
        self.channel.close()
        self.server.stop(grace)


def children_of(pid: int) -> set[int]:
    """Live child processes of ``pid`` (nginx's workers), from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry))
    return found


BALANCES = ("least_conn", "round_robin")


def upstream_lines(replicas: list[Replica], serving: set[int], balance: str = "least_conn",
                   http: bool = False) -> str:
    """upstream.conf (or with ``http``, http_upstream.conf: the replicas' HTTP
    sides): the balancing method and one server line per replica."""
    method = "least_conn;\n" if balance == "least_conn" else ""  # round robin: nginx's default
    return method + "".join(f"server {r.http_address if http else r.address} max_fails=1 "
                            f"fail_timeout=2s{'' if r.index in serving else ' down'};\n"
                            for r in replicas)


def http_port(text: str) -> int | None:
    """--http-port: a port (0: a free one), or "off"."""
    return None if text.strip().lower() == "off" else int(text)


HTTP_BLOCK = re.compile(r"\n *# --- HTTP: .*?# --- end of HTTP ---\n", re.DOTALL)


class Nginx:
    """nginx (master + one worker) in its own working folder, config from the template."""

    def __init__(self, listen: str, replicas: list[Replica], binary: str = "nginx",
                 balance: str = "least_conn", http_listen: str | None = None):
        self.balance = balance
        self.http = http_listen is not None
        self.prefix = Path(tempfile.mkdtemp(prefix="cacao-nginx-"))
        self.prefix.chmod(0o755)  # workers may run as nobody
        config = TEMPLATE.read_text().replace("@PREFIX@", str(self.prefix))
        if http_listen is None:
            config = HTTP_BLOCK.sub("\n", config)
        else:
            config = config.replace("@HTTP_LISTEN@", http_listen)
        (self.prefix / "nginx.conf").write_text(config.replace("@LISTEN@", listen))
        self.write_upstream(replicas, {r.index for r in replicas})
        command = [binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                   "-e", str(self.prefix / "error.log"), "-g", "daemon off;"]
        check = subprocess.run([*command[:-2], "-t"], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx -t failed: {check.stderr}")
        self.process = subprocess.Popen(command)

    def write_upstream(self, replicas: list[Replica], serving: set[int]) -> None:
        """upstream.conf (and http_upstream.conf) with the replicas not in ``serving`` down."""
        files = {"upstream.conf": upstream_lines(replicas, serving, self.balance)}
        if self.http:
            files["http_upstream.conf"] = upstream_lines(replicas, serving, self.balance, http=True)
        for name, text in files.items():
            path = self.prefix / name
            path.with_suffix(".tmp").write_text(text)
            path.with_suffix(".tmp").replace(path)

    def workers(self, timeout: float = 10.0) -> set[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = children_of(self.process.pid)
            if found:
                return found
            time.sleep(0.02)
        raise RuntimeError("nginx started no worker")

    def reload(self, replicas: list[Replica], serving: set[int], timeout: float = 30.0) -> None:
        """New upstreams; returns once every old worker has exited."""
        old = self.workers()
        self.write_upstream(replicas, serving)
        self.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = children_of(self.process.pid)
            if now and not now & old:
                return
            time.sleep(0.02)
        _write(sys.stderr, "nginx: an old worker still holds connections after the reload\n")

    def stop(self, keep: bool = False) -> None:
        """Stops nginx gracefully; removes its working folder unless ``keep``."""
        stop_process(self.process, 10.0, signal.SIGQUIT)  # QUIT: nginx's graceful stop
        if not keep:
            shutil.rmtree(self.prefix, ignore_errors=True)


class Restarter:
    """Starts a replica that ended again, on its port, on a thread of its own
    (a start takes a second or two; the health checks of the others go on)."""

    def __init__(self, replicas: list[Replica]):
        self.replicas = replicas
        self.starting: set[int] = set()
        self.lock = threading.Lock()
        self.closed = False  # the script stops: a replica started now is stopped at once

    def check(self) -> None:
        for i, replica in enumerate(self.replicas):
            code = replica.process.poll()
            if code is None or i in self.starting:
                continue
            say(f"replica {i} exited with {code}")
            self.starting.add(i)
            threading.Thread(target=self._start, args=(i, replica), daemon=True).start()

    def _start(self, i: int, old: Replica) -> None:
        old.stop(grace=0)
        port = int(old.address.rpartition(":")[2])
        http_port = int(old.http_address.rpartition(":")[2]) if old.http_address else None
        try:
            new = Replica(i, old.flags, http=old.http, port=port, http_port=http_port)
        except RuntimeError as error:  # the port taken meanwhile, a bad flag: try again next poll
            _write(sys.stderr, f"replica {i} did not start again: {error}\n")
        else:
            with self.lock:
                if not self.closed:
                    self.replicas[i] = new
                    say(f"replica {i} pid {new.process.pid} on {new.address}")
            if self.closed:
                new.stop()
        finally:
            self.starting.discard(i)

    def close(self) -> None:
        with self.lock:
            self.closed = True


def supervise(nginx: Nginx, replicas: list[Replica], poll: float, stop: threading.Event,
              restart: bool = False) -> None:
    """Polls every replica's health and keeps nginx's upstreams equal to the
    SERVING ones; with ``restart``, starts replicas that ended again."""
    serving = {r.index for r in replicas}
    restarter = Restarter(replicas) if restart else None
    try:
        _supervise(nginx, replicas, poll, stop, restarter, serving)
    finally:
        if restarter is not None:
            restarter.close()


def _supervise(nginx: Nginx, replicas: list[Replica], poll: float, stop: threading.Event,
               restarter: Restarter | None, serving: set[int]) -> None:
    while not stop.wait(poll):
        if nginx.process.poll() is not None:
            raise RuntimeError(f"nginx exited with {nginx.process.returncode} "
                               f"(see {nginx.prefix / 'error.log'})")
        if restarter is not None:
            restarter.check()
        now = {r.index for r in list(replicas) if r.serving(timeout=max(poll, 0.2))}
        if now != serving:
            serving = now
            nginx.reload(replicas, serving)
            down = sorted({r.index for r in replicas} - serving)
            say(f"upstream serving {','.join(map(str, sorted(serving))) or '-'} "
                f"down {','.join(map(str, down)) or '-'}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    own, server_flags = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) \
        if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(
        prog="cacao-replicas", usage="%(prog)s [options] [-- cacao-server flags]",
        description="Start nginx in front of N cacao-server replicas on loopback, and keep it in\n"
                    "step with their health.", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""\
Everything after -- goes to every cacao-server replica. One line per event on
stdout: each replica's pid and address, nginx's (and its HTTP address with
--http-port), the upstream's serving and down replicas after each change, and
"ready". Drain a replica with
kill -USR1 PID, take it back with kill -USR2 PID. SIGTERM or Ctrl-C stops
nginx and the replicas.

examples:
  cacao-replicas                                   2 replicas behind nginx on 127.0.0.1:50050
  cacao-replicas --replicas 4 --balance round_robin
  cacao-replicas --http-port 8080                  and the replicas' HTTP sides on :8080
  cacao-replicas --port 0 --keep -- --max-searches 1 --metrics-port 0
""")
    add_version_option(parser)
    parser.add_argument("--replicas", type=int, default=2,
                        help="cacao-server processes to start, each on a free loopback port "
                             "(default 2)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="nginx's listening address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=50050,
                        help="nginx's port, 0 for a free one (default 50050)")
    parser.add_argument("--http-port", type=http_port, default=None, metavar="PORT",
                        help="nginx's port for the replicas' HTTP sides (the Connect API and the "
                             "board page; 0: a free one); default: off, the replicas serve no HTTP")
    parser.add_argument("--poll", type=float, default=0.5,
                        help="seconds between two health checks of the replicas (default 0.5)")
    parser.add_argument("--nginx", default="nginx", help="the nginx program (default: nginx on PATH)")
    parser.add_argument("--keep", action="store_true",
                        help="keep nginx's folder (config, access and error logs) after the stop")
    parser.add_argument("--restart", action="store_true",
                        help="start a replica whose process ended again, on the same port")
    parser.add_argument("--balance", choices=BALANCES, default="least_conn",
                        help="least_conn: a call goes to the replica with the fewest calls in "
                             "flight (a search lands on a free search slot); round_robin: in turn "
                             "(default least_conn)")
    args = parser.parse_args(own)
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    replicas: list[Replica] = []
    nginx = None
    try:
        http = args.http_port is not None
        for i in range(args.replicas):
            replicas.append(Replica(i, server_flags, http=http))
            say(f"replica {i} pid {replicas[-1].process.pid} on {replicas[-1].address}")
        listen = f"{args.host}:{args.port or free_port(args.host)}"
        http_listen = f"{args.host}:{args.http_port or free_port(args.host)}" if http else None
        nginx = Nginx(listen, replicas, args.nginx, args.balance, http_listen)
        nginx.workers()
        say(f"nginx pid {nginx.process.pid} on {listen} (config in {nginx.prefix})")
        if http_listen:
            say(f"nginx http on http://{http_listen}/")
        say(f"upstream serving {','.join(str(r.index) for r in replicas)} down -")
        say("ready")
        supervise(nginx, replicas, args.poll, stop, args.restart)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        if nginx:
            nginx.stop(keep=args.keep)
        for replica in replicas:
            replica.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
