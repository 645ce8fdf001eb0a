"""A request read by the front, handed to the WSGI app (PEP 3333), and its answer collected whole."""

from __future__ import annotations

import io
import logging
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO
from urllib.parse import unquote_to_bytes

from ..rest.errors import error_body
from ..rest.wire import dumps
from .http1 import Head

log = logging.getLogger(__name__)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
TOO_LARGE = "crmarena.body_too_large"  # environ key: the body was over the limit and was not kept
_LEADING_SLASHES = re.compile(r"^/{2,}")


def environ_of(
    head: Head,
    *,
    scheme: str,
    server: tuple[str, int],
    client: tuple[str, int],
) -> dict[str, Any]:
    """The WSGI environ of a request, before its body is read; a run of leading slashes in the path is one.

    Salesforce answers ``GET //services/data``: the sf CLI stores an instance URL with a trailing
    slash and asks for exactly that.
    """
    path, _, query = head.target.partition("?")
    path = unquote_to_bytes(path.encode("latin-1")).decode("latin-1")  # PEP 3333: PATH_INFO is bytes as latin-1
    environ: dict[str, Any] = {
        "REQUEST_METHOD": head.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": _LEADING_SLASHES.sub("/", path),
        "QUERY_STRING": query,
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1]),
        "SERVER_PROTOCOL": f"HTTP/{head.version[0]}.{head.version[1]}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scheme,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    fields: dict[str, list[str]] = {}
    for name, value in head.headers:
        key = name.upper().replace("-", "_")
        fields.setdefault(key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}", []).append(value)
    for key, values in fields.items():  # repeated fields joined once (RFC 9110 §5.3), not one by one
        environ[key] = values[-1] if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else ",".join(values)
    environ.pop("HTTP_TRANSFER_ENCODING", None)  # the app gets the body whole, whatever framing it came in
    return environ


def with_body(environ: dict[str, Any], body: BinaryIO | None, *, size: int, received: int) -> None:
    """Give the app its body (a stream from its start; bodies.py); one over the limit is not kept
    (``body`` None), and the app sees ``TOO_LARGE`` and the length that was sent (it answers 413)."""
    if body is None:
        environ["wsgi.input"] = io.BytesIO()
        environ[TOO_LARGE] = True
        environ["CONTENT_LENGTH"] = str(max(received, int(environ.get("CONTENT_LENGTH") or 0)))
    else:
        environ["wsgi.input"] = body
        environ["CONTENT_LENGTH"] = str(size)


def call(app: WsgiApp, environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    """Run the app; its status (``"200 OK"``), headers and whole body. The app answers its own errors
    (rest/errors.py); should anything still escape it, it is logged and answered as UNKNOWN_EXCEPTION."""
    answer: list[Any] = []
    written: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
        answer[:] = [status, headers]
        return written.append

    try:
        result = app(environ, start_response)
        try:
            content = b"".join([*written, *result])
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return answer[0], answer[1], content
    except Exception:
        log.exception("the app failed on %s %s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
        body = dumps(error_body("UNKNOWN_EXCEPTION", "An unexpected error occurred.")).encode()
        return "500 Internal Server Error", [("Content-Type", "application/json;charset=UTF-8")], body
