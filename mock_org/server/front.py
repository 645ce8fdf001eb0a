"""The HTTP front: the Flask (WSGI) app behind an asyncio server, so that slow or silent clients cost
a coroutine, never a worker thread.

hypercorn speaks HTTP/1.1 and TLS on an event loop; TLS handshakes, request headers and bodies are
read there, with timeouts, and only a complete request reaches one of the worker threads that run
the app (``WsgiBridge``). The body a request may carry is decided from its headers before it is
read (``body_limit``: 1 MB for logins and anyone without a session), so nobody can make the server
buffer 150 MB before authenticating. A client that hangs up while its request runs has its query
abandoned (deadline.py). The cheroot front this replaced did TLS handshakes in its accept loop and
read requests in its worker threads, so 16 slow clients or 2 silent TLS ones stopped it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hypercorn.asyncio.run import worker_serve
from hypercorn.config import Config
from hypercorn.utils import wrap_app

from .. import deadline

log = logging.getLogger(__name__)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
TOO_LARGE = "crmarena.body_too_large"  # environ key: the body was over the limit and was not read
_LEADING_SLASHES = re.compile(r"^/{2,}")

HANDSHAKE_SECONDS = 10.0  # a TLS client that has not finished its handshake by then is dropped
IDLE_SECONDS = 10.0  # a connection without a complete request header for that long is closed
READ_SECONDS = 30.0  # a body that stalls that long between two reads is given up
MAX_HEADER_BYTES = 1024 * 1024  # request line and headers: a 100,000-character SOQL query fits
MAX_DRAINED_BYTES = 160 * 1024 * 1024  # a body over its limit is read and dropped up to this much


class WsgiBridge:
    """An ASGI application that runs a WSGI application in a pool of ``threads`` threads.

    ``body_limit(environ)`` says how many body bytes a request (known by its headers) may send; past
    that the body is dropped as it arrives (never kept), and the app sees ``environ[TOO_LARGE]`` and a
    Content-Length over its limit, which it answers with 413.
    """

    def __init__(self, app: WsgiApp, *, threads: int, body_limit: Callable[[dict[str, Any]], int]) -> None:
        self.app = app
        self.body_limit = body_limit
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="mock-org-worker")

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        environ = _environ(scope)
        body = bytearray()
        limit = self.body_limit(environ)
        received, more = 0, True
        while more and received <= MAX_DRAINED_BYTES:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            received += len(chunk)
            more = message.get("more_body", False)
            if received <= limit:
                body += chunk
            elif TOO_LARGE not in environ:  # the rest is read and dropped, so the client hears the 413
                environ[TOO_LARGE] = True
                body = bytearray()
        if TOO_LARGE in environ:
            environ["CONTENT_LENGTH"] = str(max(received, int(environ.get("CONTENT_LENGTH") or 0)))
        environ["wsgi.input"] = io.BytesIO(bytes(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)  # the body is whole now, whatever framing it came in
        if TOO_LARGE not in environ:
            environ["CONTENT_LENGTH"] = str(len(body))
        gone = threading.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone)) if not more else None
        try:
            loop = asyncio.get_running_loop()
            status, headers, content = await loop.run_in_executor(self.pool, self._run, environ, gone)
        finally:
            if watcher is not None:
                watcher.cancel()
        if gone.is_set():
            return
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def _run(self, environ: dict[str, Any], gone: threading.Event) -> tuple[int, list, bytes]:
        """Call the app on a worker thread; its query is abandoned once the client is gone."""
        answer: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            answer["status"] = int(status.split(" ", 1)[0])
            # Header names go out as the app spells them (``Content-Type``, ``Sforce-Limit-Info``), as a real
            # org's do over HTTP/1.1: some clients look them up in a plain, case-sensitive dict.
            answer["headers"] = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]

        with deadline.abandoned_when(gone.is_set):
            result = self.app(environ, start_response)
            try:
                content = b"".join(result)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        return answer["status"], answer["headers"], content

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


async def _watch_disconnect(receive: Callable, gone: threading.Event) -> None:
    while True:
        if (await receive())["type"] == "http.disconnect":
            gone.set()
            return


def _environ(scope: dict[str, Any]) -> dict[str, Any]:
    """The WSGI environ of an ASGI request (PEP 3333); a run of leading slashes in the path is one.

    Salesforce answers ``GET //services/data``: the sf CLI stores an instance URL with a trailing
    slash and asks for exactly that.
    """
    path = _LEADING_SLASHES.sub("/", scope["path"])
    server = scope.get("server") or ("127.0.0.1", 0)
    client = scope.get("client") or ("", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": "",
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        name, value = raw_name.decode("latin-1").upper().replace("-", "_"), raw_value.decode("latin-1")
        if name in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            environ[name] = value
            continue
        key = f"HTTP_{name}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


class AsyncioFront:
    """hypercorn serving one ASGI app on HTTPS (and plain HTTP when ``http_port`` is given), in a
    background thread with its own event loop."""

    def __init__(
        self, app: Any, *, host: str, port: int, http_port: int | None, certfile: str, keyfile: str,
        inherited: tuple[int, int | None] | None = None,
    ) -> None:  # fmt: skip
        """``inherited``: the file descriptors of listening sockets to serve (HTTPS, plain HTTP or None)
        instead of binding ``port`` and ``http_port`` (a worker of ``serve --workers``, workers.py)."""
        config = Config()
        config.bind = [f"{host}:{port}"]
        config.insecure_bind = [f"{host}:{http_port}"] if http_port is not None else []
        if inherited is not None:
            config.bind = [f"fd://{inherited[0]}"]
            config.insecure_bind = [f"fd://{inherited[1]}"] if inherited[1] is not None else []
        config.certfile, config.keyfile = certfile, keyfile
        config.ssl_handshake_timeout = HANDSHAKE_SECONDS
        config.keep_alive_timeout = IDLE_SECONDS
        config.read_timeout = READ_SECONDS
        config.h11_max_incomplete_size = MAX_HEADER_BYTES
        config.alpn_protocols = ["http/1.1"]
        config.include_server_header = False
        config.accesslog = None
        config.errorlog = log
        config.backlog = 1024
        self.config = config
        self.sockets = config.create_sockets()  # bound now, so that port 0 is known before start()
        for sock in (*self.sockets.secure_sockets, *self.sockets.insecure_sockets):
            sock.listen(config.backlog)  # and listening: a client may connect as soon as start() returns
        self.app = wrap_app(app, config.wsgi_max_body_size, "asgi")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.sockets.secure_sockets[0].getsockname()[1])

    @property
    def http_port(self) -> int | None:
        insecure = self.sockets.insecure_sockets
        return int(insecure[0].getsockname()[1]) if insecure else None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._serve, name=f"mock-org-{self.port}", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=10)

    def _serve(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._ready.set()
            await worker_serve(self.app, self.config, sockets=self.sockets, shutdown_trigger=self._stop.wait)

        asyncio.run(main())

    def stop(self) -> None:
        """Stop serving; a second stop (an org stopped by hand, then by its context manager) does nothing."""
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        for sock in (*self.sockets.secure_sockets, *self.sockets.insecure_sockets):
            sock.close()
