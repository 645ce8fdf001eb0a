"""The HTTP front: HTTPS (and plain HTTP) for the WSGI app, each connection on a thread of its own.

A connection's thread does its TLS handshake and reads its requests with deadlines; OpenSSL and the
socket calls run in C without the GIL, so a slow or silent client holds its own thread while it
waits and nothing else: not the GIL, not one of the ``threads`` slots in which requests run the app.
The body a request may carry is decided from its headers before it is read (``body_limit``: 1 MB for
logins and anyone without a session), so nobody can make the server buffer 150 MB before
authenticating. A client that hangs up while its request runs has its query abandoned (deadline.py).

This replaced an asyncio front (hypercorn) that spent ~60% of the server's CPU on a one-row query:
asyncio's TLS copies every byte through Python, h11 parses in Python, and every request crossed to a
worker thread and back. Here a request costs a few socket calls and one parse of its head. The
cheroot front before that read requests in a fixed pool of threads, so 16 slow clients stopped it.
"""

from __future__ import annotations

import contextlib
import logging
import select
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import deadline
from . import http1, wsgi

log = logging.getLogger(__name__)

HANDSHAKE_SECONDS = 10.0  # a TLS client that has not finished its handshake by then is dropped
IDLE_SECONDS = 10.0  # a connection without the first byte of a request for that long is closed
READ_SECONDS = 30.0  # a head must be whole that long after its first byte; a body or a reader may stall that long
MAX_HEADER_BYTES = 1024 * 1024  # request line and headers: a 100,000-character SOQL query fits
MAX_DRAINED_BYTES = 160 * 1024 * 1024  # a body over its limit is read and dropped up to this much
MAX_CONNECTIONS = 1000  # open connections (threads); past that, new ones wait in the listen backlog
STOP_SECONDS = 10.0  # how long stopping waits for the requests that are running
LINGER_SECONDS = 2.0  # before closing on an error, what the client still sends is read for that long
BACKLOG = 1024
_RECEIVE = 64 * 1024  # per recv: a larger buffer is mmap-allocated and shrunk on every call
_ONE_SEND = 64 * 1024  # a response up to this size goes out in one send with its head (one TLS record)
_GONE_EVENTS = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR
_GONE_CHECK_SECONDS = 0.05


def tls_context(certfile: str, keyfile: str) -> ssl.SSLContext:
    """TLS 1.2 or later with forward-secret AEAD ciphers, ALPN ``http/1.1``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers("ECDHE+AESGCM:ECDHE+CHACHA20")
    context.set_alpn_protocols(["http/1.1"])
    context.load_cert_chain(certfile, keyfile)
    return context


class Closed(Exception):
    """The connection is over: the client left, went silent past a deadline, or the server stops."""


class Front:
    """Serves ``app`` on HTTPS at ``port`` (and plain HTTP at ``http_port`` when given; 0 picks a free
    port), or on ``inherited`` listening file descriptors (a worker of ``serve --workers``, workers.py).
    At most ``threads`` requests run the app at once."""

    def __init__(
        self, app: wsgi.WsgiApp, *, host: str, port: int, http_port: int | None, certfile: str, keyfile: str,
        threads: int, body_limit: Callable[[dict[str, Any]], int], inherited: tuple[int, int | None] | None = None,
    ) -> None:  # fmt: skip
        self.app = app
        self.body_limit = body_limit
        self.context = tls_context(certfile, keyfile)
        self.slots = threading.BoundedSemaphore(threads)
        self.date = http1.DateHeader()
        if inherited is not None:
            secure = socket.socket(fileno=inherited[0])
            insecure = socket.socket(fileno=inherited[1]) if inherited[1] is not None else None
        else:
            secure = _listen(host, port)
            insecure = _listen(host, http_port) if http_port is not None else None
        self.listeners: list[tuple[socket.socket, bool]] = [(secure, True)]
        if insecure is not None:
            self.listeners.append((insecure, False))
        self.stopping = threading.Event()
        self._open = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.listeners[0][0].getsockname()[1])

    @property
    def http_port(self) -> int | None:
        return int(self.listeners[1][0].getsockname()[1]) if len(self.listeners) > 1 else None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._accept, name=f"mock-org-{self.port}", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        with selectors.DefaultSelector() as selector:
            for listener, secure in self.listeners:
                listener.setblocking(False)
                selector.register(listener, selectors.EVENT_READ, secure)
            selector.register(self._wake_read, selectors.EVENT_READ, None)
            while not self.stopping.is_set():
                for key, _ in selector.select():
                    if key.data is None:
                        return
                    while not self._open.acquire(timeout=0.5):
                        if self.stopping.is_set():
                            return
                    try:
                        raw, peer = key.fileobj.accept()  # type: ignore[union-attr]
                    except OSError as error:  # nobody waiting after all, or out of descriptors for now
                        self._open.release()
                        if not isinstance(error, (BlockingIOError, InterruptedError)):
                            log.warning("accept failed: %s", error)
                            time.sleep(0.1)
                        continue
                    self._start(raw, peer, secure=key.data)

    def _start(self, raw: socket.socket, peer: Any, *, secure: bool) -> None:
        """A thread for a new connection; one that cannot start (the client already reset it, the
        machine is out of threads) is closed, and the server goes on."""
        try:
            connection = Connection(self, raw, peer, secure=secure)
            with self._lock:
                self._connections.add(connection)
            try:
                threading.Thread(target=connection.serve, name="mock-org-connection", daemon=True).start()
            except RuntimeError:
                with self._lock:
                    self._connections.discard(connection)
                raise
        except (OSError, RuntimeError) as error:
            log.warning("a connection could not be served: %s", error)
            raw.close()
            self._open.release()

    def finished(self, connection: Connection) -> None:
        with self._lock:
            self._connections.discard(connection)
        self._open.release()

    def stop(self) -> None:
        """Stop accepting, close idle connections, let running requests answer (up to STOP_SECONDS);
        a second stop (an org stopped by hand, then by its context manager) does nothing."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._wake_write.send(b"x")
        if self._thread is not None:
            self._thread.join(timeout=STOP_SECONDS)
        for listener, _ in self.listeners:
            listener.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.interrupt()
        give_up = time.monotonic() + STOP_SECONDS
        for connection in connections:
            connection.done.wait(max(0.0, give_up - time.monotonic()))
        self._wake_read.close()
        self._wake_write.close()


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # "::1" and "[::1]" too
    return socket.create_server((host.strip("[]"), port), family=family, backlog=BACKLOG)


def _shutdown(sock: socket.socket, how: int) -> None:
    """Shut one direction of the TCP connection itself (of a TLS socket too: no close_notify, and
    safe from another thread); a connection already gone is left alone."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, how)


class Connection:
    """One client connection: its handshake, then requests one after another (pipelined ones too)."""

    def __init__(self, front: Front, raw: socket.socket, peer: Any, *, secure: bool) -> None:
        self.front = front
        self.sock: socket.socket = raw
        self.secure = secure
        self.client = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("", 0)
        self.server = raw.getsockname()[:2]
        self.buffer = bytearray()
        self.busy = False
        self.done = threading.Event()
        self._poll = select.poll()
        self._poll.register(raw.fileno(), _GONE_EVENTS)
        self._gone = False
        self._next_check = 0.0

    def serve(self) -> None:
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.secure:
                self.sock.settimeout(HANDSHAKE_SECONDS)
                self.sock = self.front.context.wrap_socket(self.sock, server_side=True, do_handshake_on_connect=False)
                self.sock.do_handshake()
            while not self.front.stopping.is_set() and self._one_request():
                pass
        except http1.BadRequest as error:
            self._send(http1.error_response(error.status, date=self.front.date()))
            self._linger()
        except (Closed, OSError, ValueError):  # ssl.SSLError and timeouts are OSErrors
            pass
        except Exception:
            log.exception("a connection failed")
        finally:
            self.sock.close()
            self.done.set()
            self.front.finished(self)

    def interrupt(self) -> None:
        """Wake a thread waiting for its client (the server stops); a request running finishes first."""
        if not self.busy:
            _shutdown(self.sock, socket.SHUT_RD)

    # ------------------------------------------------------------------ reading a request

    def _one_request(self) -> bool:
        """Read one request, answer it; whether the connection carries on."""
        head = self._read_head()
        if head is None:
            return False
        length = http1.body_framing(head)
        environ = wsgi.environ_of(head, scheme="https" if self.secure else "http", server=self.server,
                                  client=self.client)  # fmt: skip
        limit = self.front.body_limit(environ)
        keep_alive = head.keep_alive
        if length is not None and length > limit and (head.expects_continue or length > MAX_DRAINED_BYTES):
            body, too_large, received = b"", True, length  # answered without reading it
            keep_alive = False
        else:
            if head.expects_continue and length != 0:
                self._send(b"HTTP/1.1 100 Continue\r\n\r\n")
            body, too_large, received = self._read_body(length, limit)
            if received > MAX_DRAINED_BYTES:
                keep_alive = False
        wsgi.with_body(environ, body, too_large=too_large, received=received)
        self.busy = True
        try:
            with self.front.slots, deadline.abandoned_when(self._peer_gone):
                status, headers, content = wsgi.call(self.front.app, environ)
        finally:
            self.busy = False
        if self._gone:
            raise Closed()
        keep_alive = keep_alive and not self.front.stopping.is_set()
        self._respond(head, status, headers, content, keep_alive)
        if not keep_alive:
            self._linger()
        return keep_alive

    def _read_head(self) -> http1.Head | None:
        """The next request's head, or None when the client closed or stayed silent for IDLE_SECONDS."""
        searched = 0
        give_up = time.monotonic() + IDLE_SECONDS
        started = False
        while True:
            found = http1.head_end(self.buffer, max(0, searched - 3))
            if (found[0] if found is not None else len(self.buffer)) > MAX_HEADER_BYTES:
                raise http1.BadRequest(431, "request head too large")
            if found is not None:
                head = http1.parse_head(bytes(self.buffer[: found[0]]))
                del self.buffer[: found[1]]
                return head
            if not started and self.buffer.strip(b"\r\n"):
                started, give_up = True, time.monotonic() + READ_SECONDS
            searched = len(self.buffer)
            chunk = self._receive(give_up)
            if not chunk:
                if self.buffer.strip(b"\r\n"):
                    raise Closed()  # a half-sent request: nobody to answer
                return None
            self.buffer += chunk

    def _read_body(self, length: int | None, limit: int) -> tuple[bytes, bool, int]:
        """The body (nothing once it is over ``limit``), whether it was, and how many bytes came."""
        body = bytearray()
        received = 0
        chunked = http1.ChunkedReader() if length is None else None
        pending, self.buffer = bytes(self.buffer), bytearray()
        while True:
            if chunked is not None:
                data = chunked.feed(pending)
            else:
                take = min(len(pending), length - received)  # type: ignore[operator]
                data, rest = pending[:take], pending[take:]
                self.buffer += rest
            received += len(data)
            if received <= limit:
                body += data
            elif body:
                body = bytearray()  # over the limit: the rest is read and dropped, so the client hears the 413
            finished = chunked.done if chunked is not None else received >= length  # type: ignore[operator]
            if finished or received > MAX_DRAINED_BYTES:
                if chunked is not None:
                    self.buffer += chunked.rest
                return bytes(body), received > limit, received
            want = _RECEIVE if chunked is not None else min(_RECEIVE, length - received)  # type: ignore[operator]
            pending = self._receive(time.monotonic() + READ_SECONDS, want)
            if not pending:
                raise Closed()

    def _receive(self, give_up: float, size: int = _RECEIVE) -> bytes:
        left = give_up - time.monotonic()
        if left <= 0:
            raise Closed()
        self.sock.settimeout(left)
        return self.sock.recv(size)

    # ------------------------------------------------------------------ answering

    def _respond(self, head: http1.Head, status: str, headers: list[tuple[str, str]], content: bytes,
                 keep_alive: bool) -> None:  # fmt: skip
        code = int(status[:3])
        with_body = http1.has_body(code, head.method)
        connection = None if keep_alive and head.version >= (1, 1) else ("keep-alive" if keep_alive else "close")
        length = len(content) if with_body else None  # HEAD: the Content-Length the app gave, if any
        start = http1.response_head(status, headers, length=length, date=self.front.date(), connection=connection)
        if not with_body:
            self._send(start)
        elif len(content) <= _ONE_SEND:
            self._send(start + content)
        else:
            self._send(start)
            self._send(content)

    def _send(self, data: bytes) -> None:
        self.sock.settimeout(READ_SECONDS)
        self.sock.sendall(data)

    def _linger(self) -> None:
        """Before closing, read what the client still sends for a moment: closing on unread bytes
        resets the connection, and the client could lose the answer it has not read yet."""
        _shutdown(self.sock, socket.SHUT_WR)
        try:
            give_up = time.monotonic() + LINGER_SECONDS
            while self._receive(give_up, 65536):
                pass
        except (Closed, OSError, ValueError):
            pass

    def _peer_gone(self) -> bool:
        """Whether the client hung up (checked at most every 50 ms while its query runs)."""
        now = time.monotonic()
        if not self._gone and now >= self._next_check:
            self._next_check = now + _GONE_CHECK_SECONDS
            self._gone = any(events & _GONE_EVENTS for _, events in self._poll.poll(0))
        return self._gone
