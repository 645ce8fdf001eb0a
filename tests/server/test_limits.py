"""Every limit of the server is a ``crmarena serve`` flag with a documented default (issue 25), and the
defaults that follow a real org hold: a head over 16,384 bytes is 431, a request line that long 414."""

from __future__ import annotations

import argparse
import dataclasses
import re
import socket
from pathlib import Path

from eval_suite.commands import serve
from fixtures import default_org
from mock_org.server.http import tls
from mock_org.server.limits import LIMITS, ServerLimits, from_args
from mock_org.server.serve import serve_org
from tests import documentation

DOCS = documentation.text()  # the Limits table is in docs/serving.md


def test_every_limit_has_a_flag_and_a_row_in_the_docs() -> None:
    assert sorted(limit.field for limit in LIMITS) == sorted(field.name for field in dataclasses.fields(ServerLimits))
    table = DOCS.split("### Limits", 1)[1].split("\n\n#", 1)[0]
    for limit in LIMITS:
        row = re.search(rf"^\| [^|]+ \| {re.escape(limit.shown())} \| `{limit.flag}`[^|]* \|$", table, re.M)
        assert row is not None, f"the docs' Limits table lacks {limit.flag} with its default {limit.shown()}"
        if limit.env:
            assert limit.env in row.group(0)


def test_flags_then_variables_then_defaults_set_the_limits() -> None:
    parser = argparse.ArgumentParser()
    serve.add(parser.add_subparsers(), default_org=default_org)
    args = parser.parse_args(["serve", "--max-connections", "50", "--min-body-rate", "1500", "--lockout-attempts", "3"])
    limits = from_args(args, {"CRMARENA_LOCKOUT_ATTEMPTS": "7", "CRMARENA_SESSION_SECONDS": "60"})
    assert (limits.max_connections, limits.lockout_attempts, limits.session_seconds) == (50, 3, 60.0)
    assert limits.min_body_rate == 1500 and limits.max_head_bytes == ServerLimits().max_head_bytes


def answer_to(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(64)


def test_heads_past_a_real_orgs_size_are_refused(org_dump: Path, tls_files: tls.TlsFiles) -> None:
    with serve_org(org_dump, tls_files=tls_files, http_port=0) as served:
        port = served.server.http_port
        assert port is not None
        long_query = b"GET /services/data/v59.0/query?q=" + b"x" * 16_400 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        assert answer_to(port, long_query).startswith(b"HTTP/1.1 414 ")
        many = b"GET /services/data HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 101 + b"\r\n"
        assert answer_to(port, many).startswith(b"HTTP/1.1 431 ")
        big = b"GET /services/data HTTP/1.1\r\nHost: x\r\n" + b"X-A: " + b"b" * 16_400 + b"\r\n\r\n"
        assert answer_to(port, big).startswith(b"HTTP/1.1 431 ")
        fits = b"GET /services/data HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 99 + b"\r\n"
        assert answer_to(port, fits).startswith(b"HTTP/1.1 200 ")
