"""Tests never reach beyond this machine: a name lookup or a connection to anything but the loopback is refused
and recorded, so a test can assert that nothing tried (a refused attempt inside a library may otherwise end as a
quiet fallback or a sample error). Installed by a fixture in this process, and by ``sitecustomize`` in a child
(``child_environment``)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost", "ip6-localhost"})
ROOT = Path(__file__).resolve().parents[2]


def _remote(host: Any) -> bool:
    return isinstance(host, str | bytes) and (host.decode() if isinstance(host, bytes) else host) not in LOOPBACK


def guarded_getaddrinfo(real: Callable[..., Any], record: Callable[[str], None]) -> Callable[..., Any]:
    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if _remote(host):
            record(f"lookup {host}")
            raise socket.gaierror(socket.EAI_NONAME, f"tests never reach {host}")
        return real(host, *args, **kwargs)

    return getaddrinfo


def guarded_connect(real: Callable[..., Any], record: Callable[[str], None]) -> Callable[..., Any]:
    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and _remote(address[0]):
            record(f"connect {address[0]}:{address[1]}")
            raise ConnectionRefusedError(f"tests never reach {address[0]}")
        return real(self, address)

    return connect


def install(record: Callable[[str], None]) -> None:
    """Guard this process for good (a child's sitecustomize)."""
    socket.getaddrinfo = guarded_getaddrinfo(socket.getaddrinfo, record)  # type: ignore[assignment]
    socket.socket.connect = guarded_connect(socket.socket.connect, record)  # type: ignore[method-assign]


def child_environment(folder: Path, attempts: Path) -> dict[str, str]:
    """The variables that make a child Python guard itself (a sitecustomize in ``folder``), writing each attempt
    as a line of ``attempts``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.integrations.offline import install\n"
        f"install(lambda line: open({str(attempts)!r}, 'a').write(line + '\\n'))\n"
    )
    return {"PYTHONPATH": str(folder)}
