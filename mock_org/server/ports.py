"""The two questions asked before a server starts, with no app loaded: does a server already answer on
this address (``crmarena serve --check``, the Docker HEALTHCHECK), and are these ports free to listen on
(refused before anything is made, so that a busy port never leaves a half-made copy behind)."""

from __future__ import annotations

import errno
import socket
import ssl
import sys
import urllib.request
from pathlib import Path

from ..user_errors import OK, REFUSED, Unavailable


def check(host: str, port: int, tls_dir: Path | None) -> int:
    """Whether a server answers ``GET /services/data`` (the Docker HEALTHCHECK). It trusts the CA the
    server made and never makes one itself: before the server's first start there is nothing to check."""
    from .http import tls

    files = tls.TlsFiles(tls_dir or tls.default_directory())
    target = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    if not files.ca_cert.exists():
        print(f"no mock org at {target}:{port}: no CA in {files.directory} yet", file=sys.stderr)
        return REFUSED
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    try:
        with urllib.request.urlopen(f"https://{target}:{port}/services/data", context=context, timeout=5) as answer:
            return OK if answer.status == 200 else REFUSED
    except OSError as error:
        print(f"no mock org at {target}:{port}: {error}", file=sys.stderr)
        return REFUSED


def claim_ports(host: str, ports: list[int]) -> None:
    """Refuse, before anything is made, ports another process listens on or an address that is not ours."""
    for port in ports:
        if port == 0:
            continue
        try:
            with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
                pass
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise Unavailable(
                    f"port {port} on {host} is in use (another crmarena serve?); pick another with --port "
                    "or --http-port, or 0 for a free one"
                ) from None
            raise Unavailable(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
