"""The abuses of issue 25 against ``crmarena serve`` in a process of its own, scaled to what CI runs in
seconds (benchmarks/abuse.py runs them at full size): other clients keep being answered fast, and the
server's memory stays flat. Loopback only; every attacker stops with its test.

Problem numbers are the issue's: 1 silent and trickling sockets, 5 costly heads, 6 memory per upload,
9 the HTTP reader (pipelining, half-close, RFC 9112 cases).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from benchmarks.abusers import (
    Probe,
    ServedProcess,
    answers_to_pipelined,
    big_heads,
    idle_reconnect,
    serve_process,
    trickle_bodies,
    upload,
)
from mock_org.server.http import tls

ROOT = Path(__file__).resolve().parents[2]
Serve = Callable[..., AbstractContextManager[ServedProcess]]


@pytest.fixture
def serve(org_dump: Path, tls_files: tls.TlsFiles) -> Serve:
    @contextmanager
    def start(*flags: str) -> Iterator[ServedProcess]:
        with serve_process(ROOT, org_dump, tls_files.directory, flags) as served:
            yield served

    return start


@pytest.fixture(scope="module")
def default_server(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[ServedProcess]:
    """One server with the default limits for the tests that do not need a fresh one."""
    with serve_process(ROOT, org_dump, tls_files.directory) as served:
        yield served


def threads_of(served: ServedProcess) -> int:
    status = Path(f"/proc/{served.process.pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


def under(attacks: list[Callable[[threading.Event], object]], seconds: float, probe: Probe) -> list[object]:
    """Run the attacks and the probe together for ``seconds``; what each attack reported."""
    stop = threading.Event()
    results: list[object] = [None] * len(attacks)

    def run(index: int) -> None:
        results[index] = attacks[index](stop)

    threads = [threading.Thread(target=run, args=(index,), daemon=True) for index in range(len(attacks))]
    for thread in threads:
        thread.start()
    time.sleep(min(2.0, seconds / 3))  # let the attacks take hold before measuring
    prober = threading.Thread(target=probe.run, args=(stop,), daemon=True)
    prober.start()
    time.sleep(seconds)
    stop.set()
    for thread in [*threads, prober]:
        thread.join(30)
    return results


def fresh_client_seconds(served: ServedProcess) -> float:
    """How long a new client takes to connect over TLS and be answered ``GET /services/data``."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
            import ssl

            context = ssl.create_default_context(cafile=served.ca_bundle)
            with context.wrap_socket(raw, server_hostname="localhost") as sock:
                sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                assert sock.recv(12).startswith(b"HTTP/1.1 200")
    except OSError:
        return 10.0
    return time.monotonic() - started


# ----------------------------------------------------------------------------- 1. silent and trickling sockets


def test_silent_and_trickling_sockets_do_not_keep_others_out(serve: Serve) -> None:
    """Problem 1, scaled: 120 unauthenticated sockets trickling a body byte a second from two addresses,
    and 60 that connect, say nothing and reconnect when closed, against a server capped at 80
    connections (40 per address, 20 kept for sessions): a client with a session keeps being answered
    at once, new clients get in, the trickling bodies are dropped for their rate, and the server's
    threads stay bounded by its caps."""
    flags = (
        "--max-connections",
        "80",
        "--max-connections-per-client",
        "40",
        "--authenticated-reserve",
        "20",
        "--body-grace",
        "2",
        "--min-body-rate",
        "200",
        "--idle-timeout",
        "3",
    )
    with serve(*flags) as served:
        probe = Probe(served.session(), served.url)
        fresh: list[float] = []
        peak_threads = [0]

        def newcomers(stop: threading.Event) -> None:
            while not stop.wait(0.5):
                fresh.append(fresh_client_seconds(served))
                peak_threads[0] = max(peak_threads[0], threads_of(served))

        port = served.http_port
        seen = under(
            [
                lambda stop: trickle_bodies(port, 60, stop, source="127.0.0.2", interval=1.0),
                lambda stop: trickle_bodies(port, 60, stop, source="127.0.0.3", interval=1.0),
                lambda stop: idle_reconnect(served.port, 60, stop, source="127.0.0.4"),
                newcomers,
            ],
            6.0,
            probe,
        )
    summary = probe.summary()
    assert summary["failures"] == 0 and summary["max_ms"] < 3000, summary
    assert fresh and max(fresh) < 3.0, fresh
    assert seen[0]["dropped"] > 0 and seen[1]["dropped"] > 0, seen  # type: ignore[index]
    assert peak_threads[0] < 80 + 16 + 20, peak_threads  # connections + app slots + the server's own


# ----------------------------------------------------------------------------- 5. costly heads


def test_heads_of_a_hundred_thousand_lines_cost_others_nothing(default_server: ServedProcess) -> None:
    """Problem 5, scaled: four unauthenticated clients sending heads of 209,000 repeated header lines
    (1 MB) one after another: each is answered 431 from its first 16 KB, and cheap queries stay fast."""
    served = default_server
    with socket.create_connection(("127.0.0.1", served.http_port), timeout=10) as sock:
        sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\n" + b"A:b\r\n" * 209_000 + b"\r\n")
        assert sock.recv(64).startswith(b"HTTP/1.1 431 ")
    probe = Probe(served.session(), served.url)
    sent = under(
        [lambda stop, i=i: big_heads(served.http_port, stop, source=f"127.0.0.{5 + i}") for i in range(4)], 2.0, probe
    )
    summary = probe.summary()
    assert sum(sent) > 8, sent  # type: ignore[arg-type]
    assert summary["failures"] == 0 and summary["p95_ms"] < 500, summary


# ----------------------------------------------------------------------------- 6. memory per upload


def test_uploads_go_to_disk_not_memory(serve: Serve) -> None:
    """Problem 6, scaled: four Bulk API 2.0 uploads of 16 MB at once raise the server's peak memory by
    less than their sum (bodies past 1 MB go to a temporary file and are copied onward in chunks; each
    was held about five times over)."""
    with serve() as served:
        session = served.session()
        session.get(f"{served.url}/services/data/v59.0/limits", timeout=30)
        before, _ = served.memory_mb()
        threads = [threading.Thread(target=upload, args=(served, served.session(), 16)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        _, peak = served.memory_mb()
        jobs = session.get(f"{served.url}/services/data/v59.0/jobs/ingest", timeout=30).json()["records"]
    assert len(jobs) == 4
    assert peak - before < 32, (before, peak)


# ----------------------------------------------------------------------------- 9. the HTTP reader


def raw_answer(port: int, request: bytes, *, half_close: bool = False) -> bytes:
    """Everything the server answers to ``request`` on a plain connection, until it closes (or 5 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except OSError:
            pass
    return data


ACCOUNTS = b"POST /services/data/v59.0/sobjects/Account"  # without a session: 401, unless the reader refuses first
CHUNKED = ACCOUNTS + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (CHUNKED + b"GET /services/data HTTP/1.1\r\n\r\n", b"400"),  # a request hidden in the trailers
        (CHUNKED + b"X-T: 1\r\n" * 200 + b"\r\n", b"431"),  # a trailer section that goes on
        (ACCOUNTS + b" HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\nab", b"400"),
        (ACCOUNTS + b" HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n", b"400"),
        (b"GET /services/data HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", b"400"),
    ],
    ids=["trailer-request", "trailer-flood", "superscript-length", "http10-chunked", "http10-two-hosts"],
)
def test_rfc9112_cases_are_refused(default_server: ServedProcess, request_bytes: bytes, status: bytes) -> None:
    """Problem 9: what a strict reader refuses is answered with its status and the connection closes."""
    answer = raw_answer(default_server.http_port, request_bytes)
    assert answer.startswith(b"HTTP/1.1 " + status) and b"Connection: close" in answer, answer[:200]


def test_pipelining_is_bounded_and_half_closed_clients_are_answered(default_server: ServedProcess) -> None:
    """Problem 9: 100 pipelined requests get at most 17 answers before the connection closes (the client
    sends the rest again), and a client that shuts its sending side right after its request still gets
    the answer."""
    served = default_server
    assert 1 <= answers_to_pipelined(served.http_port, 100) <= 17
    soql = "SELECT Id FROM Product2 WHERE Name LIKE '%Item 6%' ORDER BY Name"
    token = served.session().headers["Authorization"]
    request = (
        f"GET /services/data/v59.0/query?q={soql.replace(' ', '+').replace('%', '%25')} HTTP/1.1\r\n"
        f"Host: x\r\nAuthorization: {token}\r\n\r\n"
    ).encode()
    answer = raw_answer(served.http_port, request, half_close=True)
    assert answer.startswith(b"HTTP/1.1 200") and b'"totalSize":' in answer, answer[:300]
