"""``crmarena tls export DIR|-``: hand the mock CA to a client that runs elsewhere (the host of a
container, a sibling container), which must trust it to speak HTTPS to the org."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from mock_org.user_errors import CommandError


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tls",
        help="export the mock org's CA certificate for clients on another machine or container",
        description="The mock org's TLS files: `export` copies the CA certificate (ca.pem) and the CA bundle "
        "(bundle.pem: certifi's CAs plus the mock CA, for REQUESTS_CA_BUNDLE) to a folder, or prints the "
        "CA certificate with `-`.",
    )
    commands = parser.add_subparsers(title="tls commands", metavar="COMMAND", required=True)
    export = commands.add_parser("export", help="write ca.pem and bundle.pem to DIR, or the CA to stdout with -")
    export.add_argument("target", metavar="DIR|-", help="a folder (made if missing), or - for standard output")
    export.add_argument("--tls-dir", type=Path, help="where the server keeps its TLS files (default: the cache)")
    export.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from mock_org.server.http import tls

    files = tls.TlsFiles(args.tls_dir or tls.default_directory())
    if not (files.ca_cert.exists() and files.bundle.exists()):
        raise CommandError(f"no mock CA in {files.directory}: `crmarena serve` makes it on its first start")
    if args.target == "-":
        sys.stdout.write(files.ca_cert.read_text(encoding="ascii"))
        return 0
    target = Path(args.target)
    target.mkdir(parents=True, exist_ok=True)
    for source in (files.ca_cert, files.bundle):
        shutil.copyfile(source, target / source.name)
    print(f"wrote {target / files.ca_cert.name} and {target / files.bundle.name}")
    return 0
