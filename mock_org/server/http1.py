"""HTTP/1.1 messages as the front reads and writes them (RFC 9112), with no I/O of their own.

``parse_head`` turns a request's line and headers into a ``Head`` or raises ``BadRequest`` with the
status to answer; ``body_framing`` says how its body is delimited; ``ChunkedReader`` undoes chunked
transfer coding; ``response_head`` writes a status line and headers. Strict where leniency lets two
parties read one message differently (request smuggling: RFC 9112 §6.3, §11.2), lenient where
clients are (a bare LF ends a line, empty lines may precede a request: §2.2).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from time import time

MAX_CHUNK_LINE = 4096  # a chunk-size line (with extensions) or a trailer line longer than this is refused

_REQUEST_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([^\x00-\x20\x7f]+) HTTP/(\d)\.(\d)")
_FIELD_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_VALUE = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")


class BadRequest(Exception):
    """A request that cannot be read; the connection is answered ``status`` and closed."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass
class Head:
    method: str
    target: str  # as sent: origin form, or the path of an absolute form
    version: tuple[int, int]
    headers: list[tuple[str, str]]  # names lower-cased, values stripped, in order

    def get(self, name: str) -> str | None:
        """The field's values joined by commas (RFC 9110 §5.3), or None."""
        values = [value for key, value in self.headers if key == name]
        return ",".join(values) if values else None

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection carry another request (RFC 9112 §9.3)."""
        tokens = {token.strip().lower() for token in (self.get("connection") or "").split(",")}
        if "close" in tokens:
            return False
        return self.version >= (1, 1) or "keep-alive" in tokens

    @property
    def expects_continue(self) -> bool:
        return self.version >= (1, 1) and (self.get("expect") or "").strip().lower() == "100-continue"


def head_end(buffer: bytes | bytearray, start: int = 0) -> tuple[int, int] | None:
    """Where the head in ``buffer`` ends: (end of its last line, start of the body), or None yet."""
    found = _HEAD_END.search(buffer, start)
    return (found.start(), found.end()) if found else None


def parse_head(data: bytes) -> Head:
    lines = data.split(b"\n")
    while lines and lines[0] in (b"", b"\r"):  # empty lines before a request are ignored (§2.2)
        lines.pop(0)
    if not lines:
        raise BadRequest(400, "empty request")
    request_line = _REQUEST_LINE.fullmatch(lines[0].rstrip(b"\r"))
    if request_line is None:
        raise BadRequest(400, "malformed request line")
    method, target, major, minor = request_line.groups()
    if major != b"1":
        raise BadRequest(505, "HTTP version not supported")
    headers: list[tuple[str, str]] = []
    for raw in lines[1:]:
        line = raw[:-1] if raw.endswith(b"\r") else raw
        name, colon, value = line.partition(b":")
        if not colon or _FIELD_NAME.fullmatch(name) is None:  # obs-fold and "Name : x" included (§5.1, §5.2)
            raise BadRequest(400, "malformed header field")
        value = value.strip(b" \t")
        if _BAD_VALUE.search(value):
            raise BadRequest(400, "malformed header value")
        headers.append((name.decode("ascii").lower(), value.decode("latin-1")))
    head = Head(method.decode("ascii"), _origin_form(target.decode("latin-1")), (1, int(minor)), headers)
    if head.version >= (1, 1) and sum(1 for key, _ in headers if key == "host") != 1:
        raise BadRequest(400, "a request needs exactly one Host header")  # RFC 9112 §3.2
    return head


def _origin_form(target: str) -> str:
    """The path and query of an absolute-form target (``http://host/path?q``); others as sent."""
    lowered = target[:8].lower()
    if lowered.startswith("http://") or lowered.startswith("https://"):
        rest = target.split("//", 1)[1]
        slash = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
        path = rest[slash:]
        return path if path.startswith("/") else "/" + path
    return target


def body_framing(head: Head) -> int | None:
    """The body's length, or None for chunked transfer coding (RFC 9112 §6.3); 0 when there is none."""
    coding = head.get("transfer-encoding")
    length = head.get("content-length")
    if coding is not None:
        if length is not None:
            raise BadRequest(400, "both Transfer-Encoding and Content-Length")
        if [token.strip().lower() for token in coding.split(",")] != ["chunked"]:
            raise BadRequest(501, "unsupported transfer coding")
        return None
    if length is None:
        return 0
    values = {value.strip() for value in length.split(",")}
    if len(values) != 1 or not next(iter(values)).isdigit() or len(next(iter(values))) > 18:
        raise BadRequest(400, "invalid Content-Length")
    return int(next(iter(values)))


class ChunkedReader:
    """Chunked transfer coding undone incrementally: ``feed`` takes bytes as they arrive and returns
    the body bytes they complete; ``done`` once the last chunk and trailers are in; ``rest`` holds
    what followed the body (a pipelined request)."""

    def __init__(self) -> None:
        self.pending = bytearray()
        self.left = 0  # bytes of the current chunk still to come, then its CRLF
        self.state = "size"  # size, data, data-end, trailer, done
        self.done = False
        self.rest = b""

    def feed(self, data: bytes) -> bytes:
        if self.done:
            self.rest += data
            return b""
        self.pending += data
        out = bytearray()
        while not self.done:
            if self.state == "data":
                taken = bytes(self.pending[: self.left])
                del self.pending[: len(taken)]
                self.left -= len(taken)
                out += taken
                if self.left:
                    break
                self.state = "data-end"
                continue
            line = self._line()
            if line is None:
                break
            if self.state == "size":
                size = _HEX.fullmatch(line.split(b";", 1)[0].strip(b" \t"))
                if size is None:
                    raise BadRequest(400, "malformed chunk size")
                self.left = int(size.group(), 16)
                self.state = "data" if self.left else "trailer"
            elif self.state == "data-end":
                if line:
                    raise BadRequest(400, "chunk data longer than its size")
                self.state = "size"
            elif not line:  # the empty line after the trailers
                self.done, self.rest = True, bytes(self.pending)
                self.pending.clear()
        return bytes(out)

    def _line(self) -> bytes | None:
        end = self.pending.find(b"\n")
        if end < 0:
            if len(self.pending) > MAX_CHUNK_LINE:
                raise BadRequest(400, "chunk line too long")
            return None
        line = bytes(self.pending[:end])
        del self.pending[: end + 1]
        return line[:-1] if line.endswith(b"\r") else line


def status_line(status: str) -> bytes:
    """``HTTP/1.1 200 OK`` from a WSGI status: the standard phrase of its code (RFC 9110 §15), else its own."""
    code, _, phrase = status.partition(" ")
    with contextlib.suppress(ValueError):
        phrase = HTTPStatus(int(code)).phrase  # Werkzeug's are upper-cased ("400 BAD REQUEST")
    return f"HTTP/1.1 {code} {phrase}\r\n".encode("latin-1")


class DateHeader:
    """The ``Date`` value (RFC 9110 §6.6.1), formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._value = ""

    def __call__(self) -> str:
        now = int(time())
        if now != self._second:
            self._second, self._value = now, formatdate(now, usegmt=True)
        return self._value


def has_body(status: int, method: str) -> bool:
    """Whether a response carries a body (RFC 9110 §6.4.1): not to HEAD, nor 1xx, 204 or 304."""
    return method != "HEAD" and not (100 <= status < 200 or status in (204, 304))


def response_head(
    status: str, headers: list[tuple[str, str]], *, length: int | None, date: str, connection: str | None,
) -> bytes:  # fmt: skip
    """The status line and headers of a response, as the app named them (some clients look names up
    case-sensitively), plus ``Date``, ``Content-Length`` (unless ``length`` is None: no body allowed) and
    ``Connection`` (``close``, or ``keep-alive`` for an HTTP/1.0 client) unless the app set them."""
    named = {name.lower() for name, _ in headers}
    lines = [status_line(status)]
    lines += [f"{name}: {value}\r\n".encode("latin-1") for name, value in headers if name.lower() != "connection"]
    if length is not None and "content-length" not in named and "transfer-encoding" not in named:
        lines.append(f"Content-Length: {length}\r\n".encode())
    if "date" not in named:
        lines.append(f"Date: {date}\r\n".encode())
    if connection:
        lines.append(f"Connection: {connection}\r\n".encode())
    lines.append(b"\r\n")
    return b"".join(lines)


def error_response(status: int, *, date: str) -> bytes:
    """The answer to a request that could not be read: an empty body, and the connection closes."""
    return response_head(str(status), [], length=0, date=date, connection="close")
