"""``crmarena serve`` as a user runs it: a real process, the printed connection details, --check,
plain HTTP beside HTTPS, --copy leaving the source untouched, --read-only, and a clean Ctrl-C."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from cryptography import x509
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceRefusedRequest

from mock_org.server.http import tls

ROOT = Path(__file__).resolve().parents[2]
BANNER = re.compile(r"Mock Salesforce org on https://127\.0\.0\.1:(\d+)(?: and http://127\.0\.0\.1:(\d+))?")


def crmarena(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "eval_suite.commands.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def started(process: subprocess.Popen, timeout: float = 60) -> tuple[int, int | None, dict[str, str]]:
    """Read the banner and the exported variables the server prints."""
    deadline = time.monotonic() + timeout
    ports: tuple[int, int | None] | None = None
    exports: dict[str, str] = {}
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"serve exited: {process.stderr.read() if process.stderr else ''}")
        if match := BANNER.search(line):
            ports = int(match.group(1)), int(match.group(2)) if match.group(2) else None
        if line.startswith("export "):
            name, _, value = line[7:].strip().partition("=")
            exports[name] = value.strip("'")
        if line.startswith("Ctrl-C"):
            assert ports is not None
            return ports[0], ports[1], exports
    raise AssertionError("serve did not start in time")


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()


@pytest.fixture
def served(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[tuple[subprocess.Popen, int, int | None, dict]]:
    process = crmarena(
        "serve",
        "--db",
        str(org_dump),
        "--copy",
        "--port",
        "0",
        "--http-port",
        "0",
        "--tls-dir",
        str(tls_files.directory),
        "--today",
        "2023-05-15",
    )
    try:
        port, http_port, exports = started(process)
        yield process, port, http_port, exports
    finally:
        if process.poll() is None:
            stop(process)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_serve_prints_how_to_connect_and_the_snippet_works(served, org_dump: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    process, port, http_port, exports = served
    before = sha(org_dump)
    assert set(exports) >= {
        "REQUESTS_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "CRMARENA_USERNAME",
        "CRMARENA_PASSWORD",
        "CRMARENA_SECURITY_TOKEN",
        "CRMARENA_URL",
    }
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", exports["REQUESTS_CA_BUNDLE"])
    sf = Salesforce(
        username=exports["CRMARENA_USERNAME"],
        password=exports["CRMARENA_PASSWORD"],
        security_token=exports["CRMARENA_SECURITY_TOKEN"],
        domain=f"127.0.0.1:{port}/login",
    )
    assert sf.query("SELECT COUNT() FROM Case")["totalSize"] == 7
    sf.Issue__c.create({"Name": "Written to the copy"})
    assert sha(org_dump) == before  # --copy: the source never changes

    for name, value in exports.items():
        monkeypatch.setenv(name, value)
    from mock_org.client import connect

    assert connect().query("SELECT Id FROM Issue__c WHERE Name = 'Written to the copy'")["totalSize"] == 1

    assert requests.get(f"http://127.0.0.1:{http_port}/services/data", timeout=10).status_code == 200
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "serve",
            "--check",
            "--port",
            str(port),
            "--tls-dir",
            str(Path(exports["NODE_EXTRA_CA_CERTS"]).parent),
        ],
        cwd=ROOT,
        capture_output=True,
    )
    assert check.returncode == 0
    assert stop(process) == 0


def test_check_fails_when_nothing_listens(tls_files: tls.TlsFiles) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "serve",
            "--check",
            "--port",
            "9",
            "--tls-dir",
            str(tls_files.directory),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "no mock org" in result.stderr


def test_read_only_server_refuses_writes(org_dump: Path, tls_files: tls.TlsFiles, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "org.db"
    copy.write_bytes(org_dump.read_bytes())
    process = crmarena("serve", "--db", str(copy), "--read-only", "--port", "0", "--tls-dir", str(tls_files.directory))
    try:
        port, _, exports = started(process)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", exports["REQUESTS_CA_BUNDLE"])
        sf = Salesforce(
            username=exports["CRMARENA_USERNAME"],
            password=exports["CRMARENA_PASSWORD"],
            security_token=exports["CRMARENA_SECURITY_TOKEN"],
            domain=f"127.0.0.1:{port}/login",
        )
        assert sf.query("SELECT COUNT() FROM Account")["totalSize"] == 4
        with pytest.raises(SalesforceRefusedRequest):
            sf.Account.create({"Name": "Refused"})
    finally:
        assert stop(process) == 0


def test_prepare_only_readies_the_org_and_makes_no_tls_files(org_dump: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "serve",
            "--db",
            str(org_dump),
            "--copy",
            "--prepare-only",
            "--tls-dir",
            str(tmp_path / "tls"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "ready:" in result.stdout and not (tmp_path / "tls").exists()


def test_check_makes_no_ca_before_the_server_has(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "serve",
            "--check",
            "--port",
            "9",
            "--tls-dir",
            str(tmp_path / "tls"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "no CA" in result.stderr and not (tmp_path / "tls").exists()


def test_ports_and_certificate_names_come_from_the_environment(org_dump: Path, tmp_path: Path) -> None:
    """The Docker image's configuration: CRMARENA_PORT, CRMARENA_HTTP_PORT and CRMARENA_TLS_NAMES."""
    copy = tmp_path / "org.db"
    copy.write_bytes(org_dump.read_bytes())
    tls_dir = tmp_path / "tls"
    env = {"CRMARENA_PORT": "0", "CRMARENA_HTTP_PORT": "0", "CRMARENA_TLS_NAMES": "crmarena, org.example.test"}
    process = crmarena("serve", "--db", str(copy), "--tls-dir", str(tls_dir), env=env)
    try:
        port, http_port, _ = started(process)
        assert http_port is not None
        certificate = x509.load_pem_x509_certificate((tls_dir / "server.pem").read_bytes())
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert {"crmarena", "org.example.test", "localhost"} <= set(names.get_values_for_type(x509.DNSName))
        check = subprocess.run(
            [sys.executable, "-m", "eval_suite.commands.cli", "serve", "--check", "--tls-dir", str(tls_dir)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "CRMARENA_PORT": str(port)},
        )
        assert check.returncode == 0, check.stderr
    finally:
        assert stop(process) == 0


def test_a_bad_port_in_the_environment_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "serve", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "CRMARENA_PORT": "http"},
    )
    assert (
        result.returncode == 2 and "'http' is not a port number" in result.stderr and "Traceback" not in result.stderr
    )


def test_tls_export_hands_out_the_ca_the_server_made(tls_files: tls.TlsFiles, tmp_path: Path) -> None:
    exported = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "tls",
            "export",
            str(tmp_path / "out"),
            "--tls-dir",
            str(tls_files.directory),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "out" / "ca.pem").read_bytes() == tls_files.ca_cert.read_bytes()
    assert (tmp_path / "out" / "bundle.pem").read_bytes() == tls_files.bundle.read_bytes()
    printed = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "tls", "export", "-", "--tls-dir", str(tls_files.directory)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert printed.returncode == 0 and printed.stdout == tls_files.ca_cert.read_text(encoding="ascii")
    assert "PRIVATE KEY" not in printed.stdout


def test_tls_export_before_any_server_says_so(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "tls", "export", "-", "--tls-dir", str(tmp_path / "none")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "no mock CA" in result.stderr and not (tmp_path / "none").exists()


def test_serve_starts_at_the_org_reference_date_and_its_clock_runs(
    org_dump: Path, tls_files: tls.TlsFiles, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from mock_org.dump import reference_date

    process = crmarena("serve", "--db", str(org_dump), "--copy", "--port", "0", "--tls-dir", str(tls_files.directory))
    try:
        port, _, exports = started(process)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", exports["REQUESTS_CA_BUNDLE"])
        sf = Salesforce(
            username=exports["CRMARENA_USERNAME"],
            password=exports["CRMARENA_PASSWORD"],
            security_token=exports["CRMARENA_SECURITY_TOKEN"],
            domain=f"127.0.0.1:{port}/login",
        )
        first, second = (sf.Issue__c.create({"Name": f"Issue {i}"})["id"] for i in (1, 2))
        stamps = [sf.Issue__c.get(record)["CreatedDate"] for record in (first, second)]
        assert stamps[0] < stamps[1]  # the clock runs: each write gets its own moment
        assert all(stamp.startswith(reference_date(org_dump).isoformat()) for stamp in stamps)
        assert sf.query("SELECT COUNT() FROM Issue__c WHERE CreatedDate = TODAY")["totalSize"] == 2
    finally:
        assert stop(process) == 0
