"""The front's HTTP/1.1 reading and writing (mock_org/server/http/http1.py), without sockets."""

from __future__ import annotations

import pytest

from mock_org.server.http import http1

HEAD = b"GET /services/data?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nX-Many: a\r\nx-many: b"


def test_a_request_head_is_read() -> None:
    head = http1.parse_head(HEAD)
    assert (head.method, head.target, head.version) == ("GET", "/services/data?x=1", (1, 1))
    assert head.get("accept") == "*/*" and head.get("x-many") == "a,b" and head.get("missing") is None
    assert head.keep_alive and not head.expects_continue


def test_lenient_where_clients_are() -> None:
    head = http1.parse_head(b"\r\n\r\nPOST /a HTTP/1.0\nContent-Length:  3 \nConnection: Keep-Alive")
    assert head.version == (1, 0) and head.get("content-length") == "3" and head.keep_alive
    assert not http1.parse_head(b"GET / HTTP/1.0").keep_alive
    assert not http1.parse_head(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close").keep_alive


def test_an_absolute_target_keeps_its_path_and_query() -> None:
    assert http1.parse_head(b"GET https://x.my.salesforce.com:443/a/b?q=1 HTTP/1.1\r\nHost: x").target == "/a/b?q=1"
    assert http1.parse_head(b"GET http://x?q=1 HTTP/1.1\r\nHost: x").target == "/?q=1"


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"GARBAGE", 400),
        (b"GET /x HTTP/1.1", 400),  # no Host
        (b"GET /x HTTP/1.1\r\nHost: a\r\nHost: b", 400),
        (b"GET /x HTTP/1.1\r\nHost x", 400),
        (b"GET /x HTTP/1.1\r\nHost : x", 400),  # whitespace before the colon (smuggling)
        (b"GET /x HTTP/1.1\r\nHost: x\r\n folded", 400),  # obs-fold
        (b"GET /x HTTP/1.1\r\nHost: x\r\nX: a\x00b", 400),
        (b"GET /a b HTTP/1.1\r\nHost: x", 400),
        (b"GET /x HTTP/2.0\r\nHost: x", 505),
        (b"", 400),
    ],
)
def test_unreadable_heads_say_why(data: bytes, status: int) -> None:
    with pytest.raises(http1.BadRequest) as raised:
        http1.parse_head(data)
    assert raised.value.status == status


def test_where_a_head_ends() -> None:
    assert http1.head_end(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nbody") == (23, 27)
    assert http1.head_end(b"GET / HTTP/1.1\nHost: x\n\nbody") == (22, 24)
    assert http1.head_end(b"GET / HTTP/1.1\r\nHost: x\r\n") is None


@pytest.mark.parametrize(
    ("headers", "framing"),
    [
        (b"", 0),
        (b"\r\nContent-Length: 12", 12),
        (b"\r\nContent-Length: 5, 5", 5),
        (b"\r\nTransfer-Encoding: Chunked", None),
    ],
)
def test_body_framing(headers: bytes, framing: int | None) -> None:
    assert http1.body_framing(http1.parse_head(b"POST / HTTP/1.1\r\nHost: x" + headers)) == framing


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        (b"\r\nContent-Length: 5\r\nTransfer-Encoding: chunked", 400),
        (b"\r\nContent-Length: 5\r\nContent-Length: 6", 400),
        (b"\r\nContent-Length: -1", 400),
        (b"\r\nContent-Length: 1e3", 400),
        (b"\r\nTransfer-Encoding: gzip, chunked", 501),
    ],
)
def test_ambiguous_framing_is_refused(headers: bytes, status: int) -> None:
    with pytest.raises(http1.BadRequest) as raised:
        http1.body_framing(http1.parse_head(b"POST / HTTP/1.1\r\nHost: x" + headers))
    assert raised.value.status == status


CHUNKED = b"5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nGET /next"


def test_chunked_bodies_are_undone_however_they_arrive() -> None:
    for step in (1, 2, 7, len(CHUNKED)):
        reader = http1.ChunkedReader()
        body = b"".join(reader.feed(CHUNKED[i : i + step]) for i in range(0, len(CHUNKED), step))
        assert body == b"hello world" and reader.done and reader.rest == b"GET /next"


@pytest.mark.parametrize("data", [b"zz\r\n", b"3\r\nabcd\r\n", b"1" * 5000])
def test_bad_chunks_are_refused(data: bytes) -> None:
    with pytest.raises(http1.BadRequest):
        http1.ChunkedReader().feed(data)


def test_responses_carry_standard_phrases_date_length_and_connection() -> None:
    head = http1.response_head(
        "400 BAD REQUEST", [("Content-Type", "application/json")], length=2, date="D", connection="close"
    )
    assert head == (
        b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        b"Date: D\r\nConnection: close\r\n\r\n"
    )
    kept = http1.response_head(
        "299 Odd", [("Content-Length", "9"), ("Connection", "x")], length=2, date="D", connection=None
    )
    assert kept == b"HTTP/1.1 299 Odd\r\nContent-Length: 9\r\nDate: D\r\n\r\n"
    assert b"Content-Length" not in http1.response_head("204 NO CONTENT", [], length=None, date="D", connection=None)
    assert not http1.has_body(200, "HEAD") and not http1.has_body(304, "GET") and http1.has_body(404, "GET")
