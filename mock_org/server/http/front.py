"""The HTTP front: HTTPS (and plain HTTP) for the WSGI app, each connection on a thread of its own.

A connection's thread does its TLS handshake and reads its requests with deadlines; OpenSSL and the
socket calls run in C without the GIL, so a slow or silent client holds its own thread while it
waits and nothing else: not the GIL, not one of the ``threads`` slots in which requests run the app.
What one client may take is bounded (limits.py, every bound a ``crmarena serve`` flag):

- connections: in total, per client address, and a reserve for clients with a session; when there
  is no room, the connections least worth keeping (silent, idle, reading without a session) are shed
  for the newcomer (connections.py), so silent sockets cannot keep anyone out;
- time: a TLS handshake, the wait for a request, its head, the whole request (head and body), and a
  minimum average body rate after a grace time, so a body trickled a byte at a time is dropped;
- size: a head's bytes (431, a request line alone 414) and lines (431), a body's bytes, decided from
  the headers before it is read (the unauthenticated limit without a session: nobody makes the server
  buffer 150 MB before logging in), trailers like headers; a body past a threshold, or past what all
  bodies may hold in memory together, goes to a temporary file (bodies.py);
- pipelining: at most ``max_pipelined`` requests answered in a row from what a client sent ahead; then
  the connection closes (the client sends the rest again, RFC 9112 §9.3.2).

A client that resets its connection while its request runs has its query abandoned (deadline.py); one
that only closed its sending side (half-close) is still answered.

This replaced an asyncio front (hypercorn) that spent ~60% of the server's CPU on a one-row query:
asyncio's TLS copies every byte through Python, h11 parses in Python, and every request crossed to a
worker thread and back. Here a request costs a few socket calls and one parse of its head. The
cheroot front before that read requests in a fixed pool of threads, so 16 slow clients stopped it.
"""

from __future__ import annotations

import contextlib
import logging
import resource
import select
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

from ... import deadline
from ..limits import ServerLimits
from . import http1, wsgi
from .bodies import Body, MemoryBudget
from .connections import Entry, Phase, Registry

log = logging.getLogger(__name__)

STOP_SECONDS = 10.0  # how long stopping waits for the requests that are running
LINGER_SECONDS = 2.0  # before closing on an error, what the client still sends is read for that long
DRAIN_BYTES = 1024 * 1024  # past its limit, a body is read and dropped this much further, then the connection closes
BACKLOG = 1024
_RECEIVE = 64 * 1024  # per recv: a larger buffer is mmap-allocated and shrunk on every call
_ONE_SEND = 64 * 1024  # a response up to this size goes out in one send with its head (one TLS record)
# A peer that reset the connection (or shut both sides); a half-closed one (POLLRDHUP) still waits for its answer.
_GONE_EVENTS = select.POLLHUP | select.POLLERR
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
    """The connection is over: the client left, went silent past a deadline, was shed, or the server stops."""


class Front:
    """Serves ``app`` on HTTPS at ``port`` (and plain HTTP at ``http_port`` when given; 0 picks a free
    port), or on ``inherited`` listening file descriptors (a worker of ``serve --workers``, workers.py).
    At most ``threads`` requests run the app at once; ``authenticated(environ)`` says from a request's
    headers whether it carries a live session."""

    def __init__(
        self,
        app: wsgi.WsgiApp,
        *,
        host: str,
        port: int,
        http_port: int | None,
        certfile: str,
        keyfile: str,
        threads: int,
        authenticated: Callable[[dict[str, Any]], bool],
        limits: ServerLimits | None = None,
        inherited: tuple[int, int | None] | None = None,
    ) -> None:
        self.app = app
        self.authenticated = authenticated
        self.limits = limits or ServerLimits()
        self.registry = Registry(self.limits)
        self.budget = MemoryBudget(self.limits.bodies_in_memory_bytes)
        self.context = tls_context(certfile, keyfile)
        self.slots = threading.BoundedSemaphore(threads)
        self.date = http1.DateHeader()
        _allow_descriptors(2 * self.limits.max_connections + 256)
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
                    try:
                        raw, peer = key.fileobj.accept()  # type: ignore[union-attr]
                    except OSError as error:  # nobody waiting after all, or out of descriptors for now
                        if not isinstance(error, (BlockingIOError, InterruptedError)):
                            log.warning("accept failed: %s", error)
                            time.sleep(0.1)
                        continue
                    self._start(raw, peer, secure=key.data)

    def _start(self, raw: socket.socket, peer: Any, *, secure: bool) -> None:
        """A thread for a new connection if the registry finds it room (shedding another if need be);
        one without room, or that cannot start (already reset, no threads left), is closed."""
        connection = Connection(self, raw, peer, secure=secure)
        entry = self.registry.admit(connection.client[0], connection.shed)
        if entry is None:
            raw.close()
            return
        connection.entry = entry
        try:
            with self._lock:
                self._connections.add(connection)
            threading.Thread(target=connection.serve, name="mock-org-connection", daemon=True).start()
        except RuntimeError as error:
            log.warning("a connection could not be served: %s", error)
            self.finished(connection)
            raw.close()

    def finished(self, connection: Connection) -> None:
        with self._lock:
            self._connections.discard(connection)
        if connection.entry is not None:
            self.registry.release(connection.entry)

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


def _allow_descriptors(wanted: int) -> None:
    """Raise this process's open-file limit towards ``wanted`` (a socket per connection), within the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _shutdown(sock: socket.socket, how: int) -> None:
    """Shut one direction of the TCP connection itself (of a TLS socket too: no close_notify, and
    safe from another thread); a connection already gone is left alone."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, how)


class Connection:
    """One client connection: its handshake, then requests one after another (pipelined ones too)."""

    def __init__(self, front: Front, raw: socket.socket, peer: Any, *, secure: bool) -> None:
        self.front = front
        self.limits = front.limits
        self.sock: socket.socket = raw
        self.secure = secure
        self.client = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("", 0)
        self.server = raw.getsockname()[:2]
        self.entry: Entry | None = None
        self.buffer = bytearray()
        self.busy = False
        self.authenticated = False  # the last request carried a session
        self.pipelined = 0  # requests in a row that the client had sent before their turn
        self.done = threading.Event()
        self._poll = select.poll()
        self._poll.register(raw.fileno(), _GONE_EVENTS)
        self._gone = False
        self._next_check = 0.0

    def serve(self) -> None:
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.secure:
                self.sock.settimeout(self.limits.handshake_seconds)
                self.sock = self.front.context.wrap_socket(self.sock, server_side=True, do_handshake_on_connect=False)
                self._check_kept()  # shed while the socket changed hands: its shutdown may have missed
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

    def shed(self) -> None:
        """Close to make room for another connection (connections.py); its thread ends at its next read."""
        _shutdown(self.sock, socket.SHUT_RDWR)

    def interrupt(self) -> None:
        """Wake a thread waiting for its client (the server stops); a request running finishes first."""
        if not self.busy:
            _shutdown(self.sock, socket.SHUT_RD)

    def _enter(self, phase: Phase, authenticated: bool | None = None) -> None:
        if self.entry is not None:
            self.front.registry.enter(self.entry, phase, authenticated=authenticated)
        self._check_kept()

    def _check_kept(self) -> None:
        if self.entry is not None and not self.front.registry.holds(self.entry):
            raise Closed()

    # ------------------------------------------------------------------ reading a request

    def _one_request(self) -> bool:
        """Read one request, answer it; whether the connection carries on."""
        ahead = bool(self.buffer.strip(b"\r\n"))
        self.pipelined = self.pipelined + 1 if ahead else 0
        if not ahead:
            self._enter(Phase.IDLE_AUTHENTICATED if self.authenticated else Phase.IDLE)
        head, request_deadline = self._read_head(ahead)
        if head is None:
            return False
        length = http1.body_framing(head)
        environ = wsgi.environ_of(
            head, scheme="https" if self.secure else "http", server=self.server, client=self.client
        )
        self.authenticated = self.front.authenticated(environ)
        self._enter(Phase.BUSY if self.authenticated else Phase.READING, authenticated=self.authenticated)
        limits = self.limits
        limit = limits.max_body_bytes if self.authenticated else limits.unauthenticated_body_bytes
        keep_alive = head.keep_alive
        body: Body | None = None
        if length is not None and length > limit and (head.expects_continue or length > limit + DRAIN_BYTES):
            received = length  # answered without reading it
            keep_alive = False
        else:
            if head.expects_continue and length != 0:
                self._send(b"HTTP/1.1 100 Continue\r\n\r\n")
            body, received = self._read_body(length, limit, request_deadline)
            if received > limit + DRAIN_BYTES:
                keep_alive = False
        try:
            kept = body if body is not None and received <= limit else None
            wsgi.with_body(environ, kept.stream() if kept is not None else None, size=received, received=received)
            self._enter(Phase.BUSY)
            self.busy = True
            try:
                with self.front.slots, deadline.abandoned_when(self._peer_gone):
                    status, headers, content = wsgi.call(self.front.app, environ)
            finally:
                self.busy = False
        finally:
            if body is not None:
                body.close()
        if self._gone:
            raise Closed()
        if self.pipelined >= limits.max_pipelined:
            keep_alive = False  # enough answered from what was sent ahead: the client sends the rest again
        keep_alive = keep_alive and not self.front.stopping.is_set()
        self._respond(head, status, headers, content, keep_alive)
        if not keep_alive:
            self._linger()
        return keep_alive

    def _read_head(self, ahead: bool) -> tuple[http1.Head | None, float]:
        """The next request's head and the deadline of the whole request; (None, …) when the client
        closed or stayed silent for ``idle_seconds``."""
        limits = self.limits
        searched = 0
        now = time.monotonic()
        give_up = now + limits.idle_seconds
        request_deadline = now + limits.request_seconds
        started = False
        while True:
            if not started:
                del self.buffer[: len(self.buffer) - len(self.buffer.lstrip(b"\r\n"))]  # empty lines (§2.2)
            if not started and self.buffer:
                started = True
                now = time.monotonic()
                give_up, request_deadline = now + limits.head_seconds, now + limits.request_seconds
                if not ahead:
                    self._enter(Phase.BUSY if self.authenticated else Phase.READING)
            found = http1.head_end(self.buffer, max(0, searched - 3))
            self._check_head_size(found)
            if found is not None:
                head = http1.parse_head(bytes(self.buffer[: found[0]]), limits.max_header_fields)
                del self.buffer[: found[1]]
                return head, request_deadline
            searched = len(self.buffer)
            chunk = self._receive(give_up)
            if not chunk:
                if self.buffer.strip(b"\r\n"):
                    raise Closed()  # a half-sent request: nobody to answer
                return None, request_deadline
            self.buffer += chunk

    def _check_head_size(self, found: tuple[int, int] | None) -> None:
        """431 past ``max_head_bytes`` or ``max_header_fields``; 414 when the request line alone is too long."""
        limit = self.limits.max_head_bytes
        first = len(self.buffer) - len(self.buffer.lstrip(b"\r\n"))  # empty lines before a request are skipped
        end = found[0] if found is not None else len(self.buffer)
        if end - first > limit:
            line_end = self.buffer.find(b"\n", first, first + limit + 1)
            raise http1.BadRequest(414 if line_end < 0 else 431, "request head too large")
        if found is None and self.buffer.count(b"\n", first) > self.limits.max_header_fields + 1:
            raise http1.BadRequest(431, "too many header fields")

    def _read_body(self, length: int | None, limit: int, request_deadline: float) -> tuple[Body, int]:
        """The body (kept up to ``limit``; past it, read and dropped up to DRAIN_BYTES more) and how many
        bytes came. It must come within the request's deadline, never stall for ``stall_seconds``, and
        average ``min_body_rate`` once it has had ``body_grace_seconds``."""
        limits = self.limits
        body = Body(self.front.budget, limits.body_memory_bytes)
        try:
            received = 0
            chunked = http1.ChunkedReader(limits.max_header_fields, limits.max_head_bytes) if length is None else None
            pending, self.buffer = bytes(self.buffer), bytearray()
            started = time.monotonic()
            while True:
                if chunked is not None:
                    data = chunked.feed(pending)
                else:
                    take = min(len(pending), length - received)  # type: ignore[operator]
                    data, rest = pending[:take], pending[take:]
                    self.buffer += rest
                received += len(data)
                if received <= limit:
                    body.write(data)
                else:
                    body.discard()  # over the limit: the rest is read and dropped, so the client hears the 413
                finished = chunked.done if chunked is not None else received >= length  # type: ignore[operator]
                if finished or received > limit + DRAIN_BYTES:
                    if chunked is not None:
                        self.buffer += chunked.rest
                    return body, received
                now = time.monotonic()
                rate_deadline = started + limits.body_grace_seconds + received / max(1, limits.min_body_rate)
                give_up = min(now + limits.stall_seconds, rate_deadline, request_deadline)
                want = _RECEIVE if chunked is not None else min(_RECEIVE, length - received)  # type: ignore[operator]
                pending = self._receive(give_up, want)
                if not pending:
                    raise Closed()
        except BaseException:
            body.close()
            raise

    def _receive(self, give_up: float, size: int = _RECEIVE) -> bytes:
        left = give_up - time.monotonic()
        if left <= 0:
            raise Closed()
        self.sock.settimeout(left)
        return self.sock.recv(size)

    # ------------------------------------------------------------------ answering

    def _respond(
        self, head: http1.Head, status: str, headers: list[tuple[str, str]], content: bytes, keep_alive: bool
    ) -> None:
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
        self.sock.settimeout(self.limits.stall_seconds)
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
        """Whether the client reset the connection (checked at most every 50 ms while its query runs)."""
        now = time.monotonic()
        if not self._gone and now >= self._next_check:
            self._next_check = now + _GONE_CHECK_SECONDS
            self._gone = any(events & _GONE_EVENTS for _, events in self._poll.poll(0))
        return self._gone
