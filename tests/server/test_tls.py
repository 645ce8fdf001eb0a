"""The local CA and server certificate: made once, kept, covering the names clients connect to."""

from __future__ import annotations

import ipaddress
import ssl
import stat
from pathlib import Path

import certifi
from cryptography import x509

from mock_org.server.http import tls


def names(path: Path) -> set[str]:
    certificate = x509.load_pem_x509_certificate(path.read_bytes())
    alternative = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(entry.value) for entry in alternative}


def test_made_on_first_use_and_kept(tmp_path: Path) -> None:
    files = tls.ensure(tmp_path)
    first = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert set(first) == {"ca.pem", "ca-key.pem", "server.pem", "server-key.pem", "bundle.pem"}
    tls.ensure(tmp_path)
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == first
    for key in (files.ca_key, files.server_key):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_the_certificate_covers_local_and_salesforce_names(tmp_path: Path) -> None:
    files = tls.ensure(tmp_path)
    covered = names(files.server_cert)
    assert {"localhost", "login.salesforce.com", "test.salesforce.com", "127.0.0.1"} <= covered
    assert str(ipaddress.ip_address("::1")) in covered
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    context.load_verify_locations(cafile=str(files.ca_cert))  # the CA parses and is a CA


def test_extra_names_renew_the_server_certificate_only(tmp_path: Path) -> None:
    files = tls.ensure(tmp_path)
    ca = files.ca_cert.read_bytes()
    tls.ensure(tmp_path, extra_names=("mock.internal",))
    assert "mock.internal" in names(files.server_cert) and files.ca_cert.read_bytes() == ca


def test_the_bundle_is_certifi_plus_the_mock_ca(tmp_path: Path) -> None:
    files = tls.ensure(tmp_path)
    bundle = files.bundle.read_text()
    assert bundle.startswith(certifi.contents()) and bundle.rstrip().endswith(files.ca_cert.read_text().rstrip())
