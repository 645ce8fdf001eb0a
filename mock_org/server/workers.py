"""``crmarena serve --workers N``: N processes behind one port, so that the org uses more than one core.

One process runs its Python on one core at a time, whatever its threads. Here the parent binds N
listening sockets to the same port with ``SO_REUSEPORT`` (the kernel spreads new connections over
them), starts N worker processes that each serve one of them with the whole app, waits until every
worker is ready, and then only supervises: Ctrl-C or SIGTERM stops every worker, and a worker that
dies stops the rest (exit 5). A worker whose parent is gone stops itself, so none is orphaned.

The workers open one org file (SQLite's own locking: WAL, a busy timeout; each write transaction
holds the file's write lock, which is also what keeps two workers from minting one Id) and one
state file (shared.py) in a private temporary directory, where sessions, passwords, lockouts,
query cursors, Bulk API jobs, the API request count and the UI's CSRF key live, so a client may
land on any worker with every request. The state file is deleted when the server stops.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..clock import OrgClock
from ..shared import StateFile
from ..user_errors import Unavailable
from .http import tls

READY_SECONDS = 120.0  # how long a worker may take to open the org and start listening
STOP_SECONDS = 30.0  # how long a worker may take to finish its requests once told to stop
BACKLOG = 1024


@dataclass(frozen=True)
class Listening:
    """Where the workers listen, as the banner prints it (the same attributes as a ``Server``)."""

    host: str
    port: int
    http_port: int | None
    tls: tls.TlsFiles


@dataclass(frozen=True)
class WorkerPlan:
    """What every worker is told: the same org, clock, limits and state file."""

    db: str
    read_only: bool
    query_timeout: float | None
    threads: int
    tls_dir: str
    state_dir: str
    clock: dict[str, Any]
    pod: str  # the pod of the Ids the org mints (an empty org's differs)
    limits: dict[str, Any]  # the serve flags' limits (limits.py), the same for every worker
    ui_console: bool = True  # --ui-console

    @staticmethod
    def clock_fields(clock: OrgClock) -> dict[str, Any]:
        fields = asdict(clock)
        for name in ("now_fixed", "running_since"):
            fields[name] = fields[name].isoformat() if fields[name] is not None else None
        return fields

    def org_clock(self) -> OrgClock:
        fields = dict(self.clock)
        for name in ("now_fixed", "running_since"):
            fields[name] = dt.datetime.fromisoformat(fields[name]) if fields[name] is not None else None
        return OrgClock(**fields)


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on one port (0: a free one, the same for all)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
            sock.listen(BACKLOG)
            sock.set_inheritable(True)
    except OSError as error:
        for sock in sockets:
            sock.close()
        raise Unavailable(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sockets


class Supervisor:
    """The parent: starts the workers, waits until all are ready, stops them all."""

    def __init__(self, plan: WorkerPlan, secure: list[socket.socket], insecure: list[socket.socket]) -> None:
        self.plan = plan
        self.processes: list[subprocess.Popen] = []
        self._ready: list[int] = []
        plan_path = Path(plan.state_dir) / "plan.json"
        plan_path.write_text(json.dumps(asdict(plan)), encoding="utf-8")
        for index, sock in enumerate(secure):
            http = insecure[index].fileno() if insecure else None
            read_end, write_end = os.pipe()
            fds = [sock.fileno(), write_end, *([http] if http is not None else [])]
            command = [
                sys.executable,
                "-m",
                "mock_org.server.workers",
                str(plan_path),
                str(sock.fileno()),
                str(http if http is not None else "-"),
                str(write_end),
            ]
            self.processes.append(subprocess.Popen(command, pass_fds=fds, stdin=subprocess.DEVNULL))
            os.close(write_end)
            self._ready.append(read_end)

    def wait_ready(self, stop: threading.Event) -> tuple[str, str, str, str] | None:
        """Every worker's "ready" (the first sends the administrator's credentials for the banner);
        None when ``stop`` is set first (Ctrl-C while the workers start)."""
        deadline = time.monotonic() + READY_SECONDS
        answers: dict[int, bytes] = {fd: b"" for fd in self._ready}
        waiting = set(self._ready)
        try:
            while waiting:
                if stop.is_set():
                    return None
                if time.monotonic() > deadline:
                    raise Unavailable(f"the workers did not start within {READY_SECONDS:.0f} s")
                readable, _, _ = select.select(list(waiting), [], [], 0.5)
                for fd in readable:
                    chunk = os.read(fd, 4096)
                    answers[fd] += chunk
                    if not chunk or answers[fd].endswith(b"\n"):
                        waiting.discard(fd)
        finally:
            for fd in self._ready:
                os.close(fd)
        for index, fd in enumerate(self._ready):
            if not answers[fd].endswith(b"\n"):
                code = self.processes[index].wait()
                raise Unavailable(f"worker {index + 1} stopped while starting (exit code {code})")
        username, password, token, app_secret = json.loads(answers[self._ready[0]])
        return username, password, token, app_secret

    def supervise(self, stop: threading.Event) -> None:
        """Return once ``stop`` is set; a worker that exits first is a failure."""
        while not stop.wait(0.5):
            for index, process in enumerate(self.processes):
                if process.poll() is not None:
                    code = process.returncode
                    raise Unavailable(f"worker {index + 1} stopped (exit code {code}); the server stopped")

    def stop(self) -> None:
        """SIGTERM to every worker, then wait; one that does not finish in time is killed."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve(
    *,
    host: str,
    port: int,
    http_port: int | None,
    workers: int,
    plan_fields: dict[str, Any],
    banner: Any,
    stop: threading.Event,
) -> int:
    """Serve with ``workers`` processes until ``stop`` is set; ``banner(credentials, listening)`` prints
    the connection details once every worker is ready."""
    secure = listening_sockets(host, port, workers)
    insecure = listening_sockets(host, http_port, workers) if http_port is not None else []
    with tempfile.TemporaryDirectory(prefix="crmarena-state-") as state_dir:  # mode 0700
        StateFile(Path(state_dir))  # its tables exist before any worker opens it
        plan = WorkerPlan(state_dir=state_dir, **plan_fields)
        supervisor = Supervisor(plan, secure, insecure)
        listening = Listening(
            host,
            secure[0].getsockname()[1],
            insecure[0].getsockname()[1] if insecure else None,
            tls.TlsFiles(Path(plan.tls_dir)),
        )
        for sock in (*secure, *insecure):
            sock.close()  # the workers hold them now: one that dies takes its socket with it
        try:
            credentials = supervisor.wait_ready(stop)
            if credentials is not None:
                banner(credentials, listening)
                supervisor.supervise(stop)
        finally:
            supervisor.stop()
    return 0


# ----------------------------------------------------------------------------- a worker


def _worker(plan_path: str, secure_fd: int, http_fd: int | None, ready_fd: int) -> int:
    from ..org import Org
    from .app import create_app
    from .limits import ServerLimits
    from .serve import Server, banner_credentials
    from .settings import Settings

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides
    parent = os.getppid()
    plan = WorkerPlan(**json.loads(Path(plan_path).read_text(encoding="utf-8")))
    org = Org(plan.db, clock=plan.org_clock(), read_only=plan.read_only, query_timeout=plan.query_timeout, pod=plan.pod)
    settings = Settings.from_env(limits=ServerLimits(**plan.limits), ui_console=plan.ui_console)
    app = create_app(org, settings, shared=StateFile(Path(plan.state_dir)))
    server = Server(
        app, tls_files=tls.TlsFiles(Path(plan.tls_dir)), threads=plan.threads, inherited=(secure_fd, http_fd)
    ).start()
    os.write(ready_fd, (json.dumps(banner_credentials(app)) + "\n").encode())
    os.close(ready_fd)
    while not stop.wait(1.0):
        if os.getppid() != parent:
            break  # the parent is gone (killed): stop rather than serve on as an orphan
    server.stop()
    org.close()
    return 0


if __name__ == "__main__":
    plan_arg, secure_arg, http_arg, ready_arg = sys.argv[1:5]
    sys.exit(_worker(plan_arg, int(secure_arg), None if http_arg == "-" else int(http_arg), int(ready_arg)))
