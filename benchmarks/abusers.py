"""Careless and hostile clients of a served org, and a well-behaved one that measures what it gets.

Shared by the abuse benchmark (``python -m benchmarks.abuse``) and the load tests of the server
(tests/server/test_abuse.py), which run the same attacks scaled down to what CI can take. Every
attacker runs on loopback until its ``stop`` event is set; ``source`` picks the loopback address it
comes from (127.0.0.2 and up are the machine's own too), so an attack can come from other addresses
than the client it is measured against. ``ServedProcess`` runs ``crmarena serve`` of any source tree
(this one, or an older checkout to compare against) in a process of its own, whose memory is read
from /proc.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import socket
import ssl
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests

V = "/services/data/v59.0"
CHEAP = "SELECT Id, Name FROM Account LIMIT 5"
START_SECONDS = 120


# ----------------------------------------------------------------------------- a server in a process


@dataclass
class ServedProcess:
    process: subprocess.Popen
    port: int
    http_port: int
    username: str
    password: str
    token: str
    ca_bundle: str
    client_secret: str | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def memory_mb(self) -> tuple[float, float]:
        """The server's resident memory now and its peak so far (VmRSS, VmHWM), in MB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        now = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        return now / 1024, peak / 1024

    def session(self, username: str | None = None, password: str | None = None) -> requests.Session:
        """A requests session logged in (the administrator unless another user is named)."""
        from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET

        session = requests.Session()
        session.trust_env = False
        session.verify = self.ca_bundle
        form = {
            "grant_type": "password",
            "client_id": DEFAULT_CLIENT_ID,
            "client_secret": DEFAULT_CLIENT_SECRET,
            "username": username or self.username,
            "password": password or self.password + self.token,
        }
        answer = session.post(f"{self.url}/services/oauth2/token", data=form, timeout=30)
        answer.raise_for_status()
        session.headers["Authorization"] = f"Bearer {answer.json()['access_token']}"
        return session


@contextlib.contextmanager
def serve_process(tree: Path, db: Path, tls_dir: Path, flags: tuple[str, ...] = ()) -> Iterator[ServedProcess]:
    """``crmarena serve --db DB --copy`` of the source tree ``tree`` on free loopback ports (HTTPS and HTTP)."""
    command = [
        sys.executable,
        "-m",
        "eval_suite.commands.cli",
        "serve",
        "--db",
        str(db),
        "--copy",
        "--port",
        "0",
        "--http-port",
        "0",
        "--tls-dir",
        str(tls_dir),
        "--today",
        "2023-05-15",
        *flags,
    ]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONUNBUFFERED": "1"}
    for name in ("CRMARENA_HOST", "CRMARENA_PORT", "CRMARENA_HTTP_PORT", "CRMARENA_WORKERS"):
        env.pop(name, None)
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        served = _read_banner(process)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _read_banner(process: subprocess.Popen) -> ServedProcess:
    lines: list[str] = []
    exports: dict[str, str] = {}
    give_up = time.monotonic() + START_SECONDS
    while time.monotonic() < give_up:
        line = process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"the server stopped while starting: {process.stderr.read()}")  # type: ignore[union-attr]
        lines.append(line)
        if line.startswith("export "):
            name, _, value = line[7:].strip().partition("=")
            exports[name] = shlex.split(value)[0]
        if line.startswith("OAuth client_credentials") or line.startswith("Ctrl-C"):
            break
    ports = re.search(r"https://127\.0\.0\.1:(\d+) and http://127\.0\.0\.1:(\d+)", "".join(lines))
    assert ports is not None, "".join(lines)
    secret = re.search(r" secret (\S+)", "".join(lines))
    threading.Thread(target=process.stdout.read, daemon=True).start()  # type: ignore[union-attr]  # never blocks it
    threading.Thread(target=process.stderr.read, daemon=True).start()  # type: ignore[union-attr]
    return ServedProcess(
        process,
        int(ports.group(1)),
        int(ports.group(2)),
        exports["CRMARENA_USERNAME"],
        exports["CRMARENA_PASSWORD"],
        exports["CRMARENA_SECURITY_TOKEN"],
        exports["CRMARENA_CA_BUNDLE"],
        secret.group(1) if secret else None,
    )


# ----------------------------------------------------------------------------- the client that measures


@dataclass
class Probe:
    """Cheap queries one after another on a kept-alive HTTPS connection; what each took (a failure or a
    timeout counts as ``timeout`` seconds)."""

    session: requests.Session
    url: str
    timeout: float = 10.0
    latencies: list[float] = field(default_factory=list)
    failures: int = 0

    def run(self, stop: threading.Event, pause: float = 0.05) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                answer = self.session.get(f"{self.url}{V}/query", params={"q": CHEAP}, timeout=self.timeout)
                ok = answer.status_code == 200
            except requests.RequestException:
                ok = False
            self.latencies.append(time.perf_counter() - started if ok else self.timeout)
            self.failures += not ok
            stop.wait(pause)

    def summary(self) -> dict[str, float]:
        found = sorted(self.latencies) or [self.timeout]
        return {
            "requests": len(found),
            "failures": self.failures,
            "p50_ms": 1000 * statistics.median(found),
            "p95_ms": 1000 * found[int(0.95 * (len(found) - 1))],
            "max_ms": 1000 * found[-1],
        }


# ----------------------------------------------------------------------------- attackers


def _connect(port: int, source: str, timeout: float = 2.0) -> socket.socket | None:
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    except OSError:
        return None


def trickle_bodies(
    port: int, count: int, stop: threading.Event, *, source: str = "127.0.0.2", interval: float = 20.0
) -> dict[str, int]:
    """``count`` unauthenticated plain-HTTP requests that promise a 1 MB body and send one byte of it
    every ``interval`` seconds; a socket the server drops is opened again. Counts what happened."""
    seen = {"opened": 0, "dropped": 0}
    sockets: list[socket.socket | None] = [None] * count
    due = [0.0] * count
    head = b"POST /services/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n"
    while not stop.is_set():
        now = time.monotonic()
        for index in range(count):
            if stop.is_set():
                break
            sock = sockets[index]
            if sock is None:
                sock = sockets[index] = _connect(port, source)
                if sock is None:
                    continue
                seen["opened"] += 1
                _send_or_drop(sock, head)
                due[index] = now + interval
            elif now >= due[index]:
                if not _send_or_drop(sock, b"x"):
                    seen["dropped"] += 1
                    sock.close()
                    sockets[index] = None
                due[index] = now + interval
        stop.wait(min(1.0, interval / 4))
    for sock in sockets:
        if sock is not None:
            sock.close()
    return seen


def _send_or_drop(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.settimeout(1.0)
        sock.sendall(data)
        sock.setblocking(False)
        try:
            if sock.recv(1) == b"":
                return False  # the server closed it (an answer, if any, would show the close right behind it)
        except BlockingIOError:
            pass
        return True
    except OSError:
        return False


def idle_reconnect(port: int, count: int, stop: threading.Event, *, source: str = "127.0.0.3") -> dict[str, int]:
    """``count`` connections that never send a byte; each one the server closes is opened again."""
    seen = {"opened": 0, "dropped": 0}
    sockets: list[socket.socket | None] = [None] * count
    while not stop.is_set():
        for index in range(count):
            sock = sockets[index]
            if sock is not None:
                sock.setblocking(False)
                try:
                    closed = sock.recv(1) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if not closed:
                    continue
                seen["dropped"] += 1
                sock.close()
            sockets[index] = _connect(port, source, timeout=1.0)
            seen["opened"] += sockets[index] is not None
        stop.wait(0.2)
    for sock in sockets:
        if sock is not None:
            sock.close()
    return seen


def big_heads(port: int, stop: threading.Event, *, lines: int = 209_000, source: str = "127.0.0.4") -> int:
    """One unauthenticated request after another whose head repeats a header ``lines`` times (209,000:
    just under 1 MiB, what a head could be before); how many were sent."""
    head = b"GET /services/data HTTP/1.1\r\nHost: x\r\n" + b"A:b\r\n" * lines + b"\r\n"
    sent = 0
    while not stop.is_set():
        sock = _connect(port, source, timeout=5.0)
        if sock is None:
            continue
        with sock:
            try:
                sock.settimeout(30)
                sock.sendall(head)
                while sock.recv(65536):
                    pass
            except OSError:
                pass
        sent += 1
    return sent


def pipeline_without_reading(
    port: int, stop: threading.Event, *, requests_each: int = 1000, source: str = "127.0.0.5"
) -> int:
    """Connections that each send ``requests_each`` pipelined requests and never read an answer; how
    many connections were made."""
    burst = b"GET /services/data HTTP/1.1\r\nHost: x\r\n\r\n" * requests_each
    made = 0
    while not stop.is_set():
        sock = _connect(port, source)
        if sock is None:
            continue
        made += 1
        with sock:
            try:
                sock.settimeout(1.0)
                sock.sendall(burst)
            except OSError:
                pass
            stop.wait(5.0)  # never reads: the answers pile up in the socket buffers
    return made


def answers_to_pipelined(port: int, count: int) -> int:
    """How many answers a connection that pipelines ``count`` requests (and reads) gets before the server closes it."""
    sock = _connect(port, "127.0.0.1", timeout=10.0)
    assert sock is not None
    with sock:
        sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\n\r\n" * count)
        data = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(1 << 16):
                data += chunk
                if data.count(b"HTTP/1.1 ") >= count:
                    break
    return data.count(b"HTTP/1.1 200")


def tls_socket(port: int, ca_bundle: str) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=ca_bundle)
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="localhost")


def upload(served: ServedProcess, session: requests.Session, megabytes: int) -> float:
    """A Bulk API 2.0 ingest job whose CSV upload is ``megabytes`` MB (generated as it is sent); seconds it took."""
    job = session.post(
        f"{served.url}{V}/jobs/ingest", json={"object": "Account", "operation": "insert"}, timeout=60
    ).json()
    row = b'"Uploaded account ' + b"x" * 80 + b'"\n'
    rows = megabytes * 1024 * 1024 // len(row)

    def body() -> Iterator[bytes]:
        yield b"Name\n"
        chunk = row * 1000
        for _ in range(rows // 1000):
            yield chunk

    started = time.perf_counter()
    answer = session.put(
        f"{served.url}{V}/jobs/ingest/{job['id']}/batches",
        data=body(),
        headers={"Content-Type": "text/csv"},
        timeout=600,
    )  # chunked: never whole in memory here
    assert answer.status_code == 201, answer.text
    return time.perf_counter() - started
