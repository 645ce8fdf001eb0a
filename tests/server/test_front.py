"""The front over real sockets, with a small WSGI app instead of the org: framing, limits, keep-alive,
clients that leave, and stopping."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mock_org import deadline
from mock_org.server.http import tls
from mock_org.server.http.front import Front
from mock_org.server.http.wsgi import TOO_LARGE
from mock_org.server.limits import ServerLimits

LIMIT = 1000


class Recorder:
    """A WSGI app that answers what it was given; ``/wait`` runs a query-like loop until abandoned."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.abandoned = threading.Event()
        self.running = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read()
        self.seen.append({**environ, "body": body})
        if environ["PATH_INFO"] == "/wait":
            self.running.set()
            with deadline.limited(20):
                while not deadline.expired():
                    time.sleep(0.01)
            self.abandoned.set()
        status = "413 REQUEST ENTITY TOO LARGE" if environ.get(TOO_LARGE) else "200 OK"
        answer = f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']} {len(body)}".encode()
        start_response(status, [("Content-Type", "text/plain"), ("Content-Length", str(len(answer)))])
        return [answer]


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tls.TlsFiles:
    return tls.ensure(tmp_path_factory.mktemp("tls"))


def make_front(app: Any, tls_files: tls.TlsFiles, port: int = 0, **limits: Any) -> Front:
    """A front over ``app`` on free loopback ports, two app slots, no client with a session, a body limit of LIMIT."""
    return Front(
        app,
        host="127.0.0.1",
        port=port,
        http_port=0,
        certfile=str(tls_files.server_cert),
        keyfile=str(tls_files.server_key),
        threads=2,
        authenticated=lambda environ: False,
        limits=ServerLimits(unauthenticated_body_bytes=LIMIT, **limits),
    )


@pytest.fixture
def served(tls_files: tls.TlsFiles) -> Iterator[tuple[Front, Recorder]]:
    app = Recorder()
    front = make_front(app, tls_files)
    front.start()
    try:
        yield front, app
    finally:
        front.stop()


def plain(front: Front) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", front.http_port or 0), timeout=10)
    return sock


def secure(front: Front, tls_files: tls.TlsFiles) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=str(tls_files.bundle))
    return context.wrap_socket(
        socket.create_connection(("127.0.0.1", front.port), timeout=10), server_hostname="localhost"
    )


def responses(sock: socket.socket, count: int, bodiless: tuple[int, ...] = ()) -> list[bytes]:
    """``count`` whole responses (each with a Content-Length, but those at ``bodiless``: HEAD), in order."""
    data, found = b"", []
    while len(found) < count:
        end = data.find(b"\r\n\r\n")
        if end >= 0:
            head = data[:end].decode()
            length = next(
                (int(line.split(":")[1]) for line in head.split("\r\n") if line.lower().startswith("content-length:")),
                0,
            )
            if head.startswith("HTTP/1.1 100") or len(found) in bodiless:
                length = 0
            if len(data) >= end + 4 + length:
                found.append(data[: end + 4 + length])
                data = data[end + 4 + length :]
                continue
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return found


def test_pipelined_requests_are_answered_in_order_on_both_ports(
    served: tuple[Front, Recorder], tls_files: tls.TlsFiles
) -> None:
    front, app = served
    for sock in (plain(front), secure(front, tls_files)):
        with sock:
            sock.sendall(
                b"GET /one HTTP/1.1\r\nHost: x\r\n\r\nPOST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                b"\r\nabcGET /three HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            got = responses(sock, 3)
        assert [answer.rsplit(b"\r\n\r\n", 1)[1] for answer in got] == [b"GET /one 0", b"POST /two 3", b"GET /three 0"]
        assert all(answer.startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\nDate: " in answer for answer in got)
    assert [seen["wsgi.url_scheme"] for seen in app.seen[::3]] == ["http", "https"]


def test_chunked_and_percent_encoded_requests_reach_the_app_whole(served: tuple[Front, Recorder]) -> None:
    front, app = served
    with plain(front) as sock:
        sock.sendall(
            b"POST //a%20b%2Fc?q=%27x%27 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
        )
        assert responses(sock, 1)[0].endswith(b"POST /a b/c 5")
    seen = app.seen[-1]
    assert seen["body"] == b"abcde" and seen["QUERY_STRING"] == "q=%27x%27" and seen["CONTENT_LENGTH"] == "5"
    assert "HTTP_TRANSFER_ENCODING" not in seen


def test_a_body_over_the_limit_is_not_kept(served: tuple[Front, Recorder]) -> None:
    front, app = served
    with plain(front) as sock:
        sock.sendall(b"POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000)
        assert responses(sock, 1)[0].startswith(b"HTTP/1.1 413 Request Entity Too Large\r\n")
        sock.sendall(b"GET /after HTTP/1.1\r\nHost: x\r\n\r\n")  # the dropped body was read: the connection goes on
        assert responses(sock, 1)[0].endswith(b"GET /after 0")
    assert app.seen[0]["body"] == b"" and app.seen[0]["CONTENT_LENGTH"] == "5000" and app.seen[0][TOO_LARGE]


def test_expect_continue_is_honoured_within_the_limit_and_refused_beyond(served: tuple[Front, Recorder]) -> None:
    front, _ = served
    with plain(front) as sock:
        sock.sendall(b"POST /small HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        assert responses(sock, 1) == [b"HTTP/1.1 100 Continue\r\n\r\n"]
        sock.sendall(b"abcd")
        assert responses(sock, 1)[0].endswith(b"POST /small 4")
    with plain(front) as sock:
        sock.sendall(b"POST /big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n")
        answer = responses(sock, 1)[0]
        assert answer.startswith(b"HTTP/1.1 413 ") and b"Connection: close" in answer  # answered without the body
        assert sock.recv(10) == b""


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"NOT HTTP\r\n\r\n", b"400 Bad Request"),
        (b"GET / HTTP/1.1\r\n\r\n", b"400 Bad Request"),
        (b"GET / HTTP/3.0\r\nHost: x\r\n\r\n", b"505 HTTP Version Not Supported"),
        (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", b"400 Bad Request"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * (1024 * 1024 + 1) + b"\r\n\r\n", b"431 Request Header Fields"),
    ],
)
def test_unreadable_requests_are_answered_and_closed(
    served: tuple[Front, Recorder], request_bytes: bytes, status: bytes
) -> None:
    front, app = served
    with plain(front) as sock:
        sock.sendall(request_bytes)
        answer = responses(sock, 1)[0]
        assert answer.startswith(b"HTTP/1.1 " + status) and b"Connection: close" in answer
        assert sock.recv(10) == b""
    assert app.seen == []


def test_http10_head_and_keep_alive(served: tuple[Front, Recorder]) -> None:
    front, _ = served
    with plain(front) as sock:
        sock.sendall(b"HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /g HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        head, kept = responses(sock, 2, bodiless=(0,))
        assert head.endswith(b"\r\n\r\n") and b"Content-Length: 9" in head  # "HEAD /h 0": the app's length, no body
        assert b"Connection: keep-alive" in kept and kept.endswith(b"GET /g 0")
        sock.sendall(b"GET /last HTTP/1.0\r\n\r\n")
        last = responses(sock, 1)[0]
        assert b"Connection: close" in last and sock.recv(10) == b""


def test_the_query_of_a_client_that_resets_its_connection_is_abandoned(served: tuple[Front, Recorder]) -> None:
    front, app = served
    with plain(front) as sock:
        sock.sendall(b"GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        assert app.running.wait(10)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
    assert app.abandoned.wait(5)


def test_slow_and_silent_clients_hold_no_request_slot(served: tuple[Front, Recorder], tls_files: tls.TlsFiles) -> None:
    """The app has two slots; 20 clients that trickle headers or never finish a handshake leave them free."""
    front, _ = served
    idle = [plain(front) for _ in range(10)] + [socket.create_connection(("127.0.0.1", front.port)) for _ in range(10)]
    try:
        for sock in idle[:10]:
            sock.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        with secure(front, tls_files) as sock:
            sock.sendall(b"GET /now HTTP/1.1\r\nHost: x\r\n\r\n")
            assert responses(sock, 1)[0].endswith(b"GET /now 0")
        assert time.monotonic() - started < 2
    finally:
        for sock in idle:
            sock.close()


def test_stopping_closes_idle_connections_and_lets_running_requests_answer(tls_files: tls.TlsFiles) -> None:
    app = Recorder()
    front = make_front(app, tls_files)
    front.start()
    idle = plain(front)
    busy = plain(front)
    busy.sendall(b"GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
    assert app.running.wait(10)
    stopper = threading.Thread(target=front.stop)
    started = time.monotonic()
    stopper.start()
    assert idle.recv(10) == b""  # an idle connection is closed at once
    stopper.join(15)
    assert not stopper.is_alive() and time.monotonic() - started < 12
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", front.port), timeout=2)
    idle.close()
    busy.close()


def test_a_port_in_use_is_a_clear_error(tls_files: tls.TlsFiles, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken, pytest.raises(OSError):
        make_front(Recorder(), tls_files, port=taken.getsockname()[1])
