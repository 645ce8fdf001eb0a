"""A stalled peer, as the harness meets one: a socket that accepts connections and never answers
(no TLS handshake, no HTTP reply), holding each connection open until the test ends."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def stalled_peer() -> Iterator[int]:
    """The port of a loopback listener whose connections are accepted, then left silent."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)  # never read, never written: the peer has stalled

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


def free_port() -> int:
    """A loopback port nothing listens on (a peer that is down: connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
