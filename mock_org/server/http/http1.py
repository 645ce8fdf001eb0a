"""HTTP/1.1 messages as the front reads and writes them (RFC 9112), with no I/O of their own.

``parse_head`` turns a request's line and headers into a ``Head`` or raises ``BadRequest`` with the
status to answer; ``body_framing`` says how its body is delimited; ``ChunkedReader`` undoes chunked
transfer coding, its trailer fields checked and bounded like header fields; ``response_head`` writes a
status line and headers. Strict where leniency lets two parties read one message differently (request
smuggling: RFC 9112 §6.1, §6.3, §11.2; one Host, §3.2), lenient where clients are (a bare LF ends a
line, empty lines may precede a request: §2.2). tests/server/test_http1_differential.py holds every
verdict against h11's.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from time import time

MAX_CHUNK_LINE = 4096  # a chunk-size line (with extensions) or a trailer line longer than this is refused
MAX_FIELDS = 100  # header lines of a head, and trailer lines of a chunked body (server/limits.py)
MAX_TRAILER_BYTES = 16_384

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


def parse_head(data: bytes, max_fields: int = MAX_FIELDS) -> Head:
    lines = data.split(b"\n")
    while lines and lines[0] in (b"", b"\r"):  # empty lines before a request are ignored (§2.2)
        lines.pop(0)
    if not lines:
        raise BadRequest(400, "empty request")
    if len(lines) - 1 > max_fields:
        raise BadRequest(431, "too many header fields")
    request_line = _REQUEST_LINE.fullmatch(lines[0].rstrip(b"\r"))
    if request_line is None:
        raise BadRequest(400, "malformed request line")
    method, target, major, minor = request_line.groups()
    if major != b"1":
        raise BadRequest(505, "HTTP version not supported")
    headers = [_field(raw) for raw in lines[1:]]
    head = Head(method.decode("ascii"), _origin_form(target.decode("latin-1")), (1, int(minor)), headers)
    hosts = sum(1 for key, _ in headers if key == "host")
    if hosts > 1 or (hosts == 0 and head.version >= (1, 1)):
        raise BadRequest(400, "a request needs exactly one Host header")  # RFC 9112 §3.2, any version for two
    return head


def _field(raw: bytes) -> tuple[str, str]:
    """One header (or trailer) line as (lower-cased name, value), or BadRequest."""
    line = raw[:-1] if raw.endswith(b"\r") else raw
    name, colon, value = line.partition(b":")
    if not colon or _FIELD_NAME.fullmatch(name) is None:  # obs-fold and "Name : x" included (§5.1, §5.2)
        raise BadRequest(400, "malformed header field")
    value = value.strip(b" \t")
    if _BAD_VALUE.search(value):
        raise BadRequest(400, "malformed header value")
    return name.decode("ascii").lower(), value.decode("latin-1")


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
        if head.version < (1, 1):  # an HTTP/1.0 message with it has faulty framing (§6.1)
            raise BadRequest(400, "Transfer-Encoding in an HTTP/1.0 request")
        if [token.strip().lower() for token in coding.split(",")] != ["chunked"]:
            raise BadRequest(501, "unsupported transfer coding")
        return None
    if length is None:
        return 0
    values = {value.strip() for value in length.split(",")}
    value = next(iter(values))
    if len(values) != 1 or not (value.isascii() and value.isdigit()) or len(value) > 18:  # "²" is a digit too
        raise BadRequest(400, "invalid Content-Length")
    return int(value)


class ChunkedReader:
    """Chunked transfer coding undone incrementally: ``feed`` takes bytes as they arrive and returns
    the body bytes they complete; ``done`` once the last chunk and trailers are in; ``rest`` holds
    what followed the body (a pipelined request). Trailer lines must be header fields (a request
    cannot hide in them), at most ``max_fields`` of them and ``max_bytes`` in all (431)."""

    def __init__(self, max_fields: int = MAX_FIELDS, max_bytes: int = MAX_TRAILER_BYTES) -> None:
        self.pending = bytearray()
        self.left = 0  # bytes of the current chunk still to come, then its CRLF
        self.state = "size"  # size, data, data-end, trailer, done
        self.done = False
        self.rest = b""
        self.max_fields, self.max_bytes = max_fields, max_bytes
        self.trailers = 0
        self.trailer_bytes = 0

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
                size = _HEX.fullmatch(line.split(b";", 1)[0].rstrip(b" \t"))  # BWS only before an extension
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
            else:
                self._trailer(line)
        return bytes(out)

    def _trailer(self, line: bytes) -> None:
        self.trailers += 1
        self.trailer_bytes += len(line) + 2
        if self.trailers > self.max_fields or self.trailer_bytes > self.max_bytes:
            raise BadRequest(431, "trailer section too large")
        _field(line)

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
    status: str,
    headers: list[tuple[str, str]],
    *,
    length: int | None,
    date: str,
    connection: str | None,
) -> bytes:
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
