"""The mock's own certificate authority and server certificate, made on first use and kept.

simple-salesforce only speaks https (reference/salesforce_api.md §1.1), so the mock needs a
certificate the clients trust. The CA and a server certificate for localhost, 127.0.0.1,
login.salesforce.com and test.salesforce.com are written once to the TLS directory; clients trust
``bundle.pem``, which is certifi's list plus the mock CA, so that pointing ``REQUESTS_CA_BUNDLE`` at
it does not break the client's other HTTPS traffic (an LLM API, for example).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

import certifi
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ...cache import cache_root

HOST_NAMES = ("localhost", "login.salesforce.com", "test.salesforce.com")
IP_ADDRESSES = ("127.0.0.1", "::1")
CA_DAYS, SERVER_DAYS, RENEW_DAYS = 3650, 397, 30


@dataclass(frozen=True)
class TlsFiles:
    directory: Path

    @property
    def ca_cert(self) -> Path:
        return self.directory / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.directory / "ca-key.pem"

    @property
    def server_cert(self) -> Path:
        return self.directory / "server.pem"

    @property
    def server_key(self) -> Path:
        return self.directory / "server-key.pem"

    @property
    def bundle(self) -> Path:
        """certifi's CAs plus the mock CA: what REQUESTS_CA_BUNDLE should name."""
        return self.directory / "bundle.pem"


def default_directory() -> Path:
    """``$CRMARENA_TLS_DIR``, else ``tls`` in the project's cache (``$CRMARENA_CACHE_DIR`` or ~/.cache/crmarena)."""
    if os.environ.get("CRMARENA_TLS_DIR"):
        return Path(os.environ["CRMARENA_TLS_DIR"])
    return cache_root() / "tls"


def ensure(directory: Path | None = None, extra_names: tuple[str, ...] = ()) -> TlsFiles:
    """The TLS files in ``directory``, made if missing; the server certificate is renewed when it is near
    expiry or does not cover every name (``extra_names`` adds host names or IP addresses)."""
    files = TlsFiles(Path(directory) if directory else default_directory())
    files.directory.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC)
    if not (files.ca_cert.exists() and files.ca_key.exists()):
        _make_ca(files, now)
    names = (*HOST_NAMES, *IP_ADDRESSES, *extra_names)
    if _needs_server_cert(files, names, now):
        _make_server_cert(files, names, now)
    bundle = certifi.contents() + "\n" + files.ca_cert.read_text(encoding="ascii")
    if not files.bundle.exists() or files.bundle.read_text(encoding="ascii") != bundle:
        _write(files.bundle, bundle.encode("ascii"))
    return files


def _write(path: Path, data: bytes, *, secret: bool = False) -> None:
    """Write atomically, so that two processes making the files at once never leave half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    if secret:
        partial.chmod(0o600)
    os.replace(partial, path)


def _key_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _make_ca(files: TlsFiles, now: dt.datetime) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "CRMArena mock org"),
            x509.NameAttribute(NameOID.COMMON_NAME, "CRMArena mock org local CA"),
        ]
    )
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # keyCertSign and cRLSign only
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write(files.ca_key, _key_bytes(key), secret=True)
    _write(files.ca_cert, certificate.public_bytes(serialization.Encoding.PEM))
    files.server_cert.unlink(missing_ok=True)  # a new CA invalidates the old server certificate


def _alternative_names(names: tuple[str, ...]) -> list[x509.GeneralName]:
    entries: list[x509.GeneralName] = []
    for name in dict.fromkeys(names):
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return entries


def _needs_server_cert(files: TlsFiles, names: tuple[str, ...], now: dt.datetime) -> bool:
    if not (files.server_cert.exists() and files.server_key.exists()):
        return True
    certificate = x509.load_pem_x509_certificate(files.server_cert.read_bytes())
    if certificate.not_valid_after_utc - now < dt.timedelta(days=RENEW_DAYS):
        return True
    covered = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return not set(_alternative_names(names)) <= set(covered)


def _make_server_cert(files: TlsFiles, names: tuple[str, ...], now: dt.datetime) -> None:
    ca_key = serialization.load_pem_private_key(files.ca_key.read_bytes(), password=None)
    ca_cert = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
        .add_extension(x509.SubjectAlternativeName(_alternative_names(names)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()),  # type: ignore[arg-type]
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    _write(files.server_key, _key_bytes(key), secret=True)
    _write(files.server_cert, certificate.public_bytes(serialization.Encoding.PEM))
