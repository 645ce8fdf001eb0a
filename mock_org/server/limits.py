"""Every limit a served org keeps, with its default and the ``crmarena serve`` flag that changes it.

One table (``LIMITS``) is the source of the flags (``add_flags``, called by
eval_suite/commands/serve.py), of the ``ServerLimits`` a server runs with, and of the list in
docs/serving.md (tests/server/test_limits.py checks that it names every limit, its default and its
flag). Where Salesforce documents a limit the default is the real org's, and the comment says where;
where it does not (connections, bodies in memory, the mock's own job storage), the default keeps a
server on a small machine answering its other clients while one client misbehaves
(benchmarks/abuse.py measures it).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MB = 1024 * 1024


@dataclass(frozen=True)
class ServerLimits:
    # ------------------------------------------------------------------ connections (http/front.py)
    max_connections: int = 1000  # open connections in all; past it, idle and unauthenticated ones are shed
    max_connections_per_client: int = 200  # open connections from one client address
    authenticated_reserve: int = 100  # of max_connections, kept for connections whose requests carry a session
    shed_after_seconds: float = 1.0  # a connection is shed for a newcomer only once it has waited this long
    handshake_seconds: float = 10.0  # a TLS handshake must be done by then
    idle_seconds: float = 10.0  # a connection may wait that long for the first byte of its next request
    head_seconds: float = 30.0  # a request line and headers must be whole that long after their first byte
    request_seconds: float = 600.0  # a whole request, head and body, must be read within this
    stall_seconds: float = 30.0  # no byte of a body for that long, or a client that takes no byte of its answer
    min_body_rate: int = 10_000  # bytes a second a body must average once it has had body_grace_seconds
    body_grace_seconds: float = 10.0
    max_pipelined: int = 16  # requests answered in a row from what a client sent ahead; then the connection closes
    # ------------------------------------------------------------------ requests (http/http1.py, http/front.py)
    # Salesforce: "the maximum length for the combined URI and headers is 16,384 bytes"; a longer head is
    # 431, a longer URI alone 414 (Salesforce Help, "Maximum number of rows returned by SOQL queries over
    # the REST API", article 000386264).
    max_head_bytes: int = 16_384
    max_header_fields: int = 100  # header lines (and trailer lines) of one request
    max_body_bytes: int = 150 * MB  # with a session: Bulk API 2.0 takes uploads of up to 150 MB ("Limits")
    unauthenticated_body_bytes: int = 1 * MB  # without a session (logins included)
    body_memory_bytes: int = 1 * MB  # a body longer than this is read into a temporary file
    bodies_in_memory_bytes: int = 64 * MB  # bodies held in memory at once, all connections together
    # ------------------------------------------------------------------ Bulk API jobs (bulk/)
    # A real org deletes jobs in a terminal state after 7 days ("Bulk API and Bulk API 2.0 Limits and
    # Allocations": batch and job lifespan).
    bulk_retention_seconds: float = 7 * 24 * 3600.0
    bulk_jobs_per_user: int = 100  # jobs a user keeps; a new one removes the user's oldest finished job
    bulk_storage_per_user: int = 1024 * MB  # bytes of job data (uploads, results) a user keeps on disk
    # Bulk API 1.0: a batch is at most 10 MB and 10,000 records ("Bulk API Limits": batch size).
    bulk1_batch_bytes: int = 10_000_000
    bulk1_batch_records: int = 10_000
    # ------------------------------------------------------------------ logins and sessions (auth.py)
    # A real org's default password policy: 10 invalid attempts lock the user out for 15 minutes.
    lockout_attempts: int = 10
    lockout_seconds: float = 900.0
    session_seconds: float = 7200.0  # a real org's default session timeout (sessionSecondsValid)
    daily_api_requests: int = 100_000
    # ------------------------------------------------------------------ query cursors (query/locators.py)
    cursors_per_user: int = 10  # SOAP API Developer Guide, "queryMore()": 10 open cursors a user
    cursor_idle_seconds: float = 900.0  # and each expires after 15 idle minutes

    def replace(self, **changes: Any) -> ServerLimits:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Limit:
    """How one limit is set from the command line and the environment."""

    field: str
    flag: str
    help: str
    env: str | None = None

    @property
    def default(self) -> Any:
        return getattr(ServerLimits(), self.field)

    def shown(self, value: Any | None = None) -> str:
        """A value of this limit as docs/serving.md and ``--help`` write it: ``30 s``, ``150 MB``, ``16,384 bytes``."""
        value = self.default if value is None else value
        if self.field.endswith("seconds"):
            return f"{value:g} s" if value < 86_400 or value % 86_400 else f"{value / 86_400:g} days"
        if self.field == "min_body_rate":
            return f"{value:,} bytes/s"
        if "bytes" in self.field or "storage" in self.field:
            return f"{value // MB:,} MB" if value % MB == 0 else f"{value:,} bytes"
        return f"{value:,}"


LIMITS: tuple[Limit, ...] = (
    Limit("max_connections", "--max-connections", "open connections in all"),
    Limit("max_connections_per_client", "--max-connections-per-client", "open connections from one address"),
    Limit("authenticated_reserve", "--authenticated-reserve", "connections kept for requests that carry a session"),
    Limit(
        "shed_after_seconds", "--shed-after", "seconds a connection must have waited before it is shed for a newcomer"
    ),
    Limit("handshake_seconds", "--handshake-timeout", "seconds a TLS handshake may take"),
    Limit("idle_seconds", "--idle-timeout", "seconds a connection may wait for the first byte of a request"),
    Limit("head_seconds", "--head-timeout", "seconds a request line and headers may take"),
    Limit("request_seconds", "--request-timeout", "seconds a whole request (head and body) may take to arrive"),
    Limit("stall_seconds", "--stall-timeout", "seconds a body may stall, or a client may take no byte of its answer"),
    Limit("min_body_rate", "--min-body-rate", "bytes per second a body must average after its grace time"),
    Limit("body_grace_seconds", "--body-grace", "seconds a body may take before the minimum rate counts"),
    Limit("max_pipelined", "--max-pipelined", "requests answered in a row from what a client sent ahead"),
    Limit("max_head_bytes", "--max-head-bytes", "bytes of request line and headers (431; a longer URI: 414)"),
    Limit("max_header_fields", "--max-header-fields", "header (and trailer) lines of one request (431)"),
    Limit("max_body_bytes", "--max-body-bytes", "bytes of a request body with a session (413)"),
    Limit(
        "unauthenticated_body_bytes",
        "--unauthenticated-body-bytes",
        "bytes of a request body without a session, logins included (413)",
    ),
    Limit("body_memory_bytes", "--body-memory-bytes", "bytes of one body kept in memory; longer ones go to disk"),
    Limit("bodies_in_memory_bytes", "--bodies-in-memory-bytes", "bytes of all bodies kept in memory at once"),
    Limit("bulk_retention_seconds", "--bulk-retention", "seconds a finished Bulk API job is kept"),
    Limit("bulk_jobs_per_user", "--bulk-jobs-per-user", "Bulk API jobs a user keeps"),
    Limit("bulk_storage_per_user", "--bulk-storage-per-user", "bytes of Bulk API job data a user keeps"),
    Limit("bulk1_batch_bytes", "--bulk1-batch-bytes", "bytes of one Bulk API 1.0 batch"),
    Limit("bulk1_batch_records", "--bulk1-batch-records", "records of one Bulk API 1.0 batch"),
    Limit(
        "lockout_attempts",
        "--lockout-attempts",
        "failed logins in a row that lock a user out (0: never)",
        "CRMARENA_LOCKOUT_ATTEMPTS",
    ),
    Limit("lockout_seconds", "--lockout-seconds", "seconds a lockout lasts", "CRMARENA_LOCKOUT_SECONDS"),
    Limit("session_seconds", "--session-timeout", "idle seconds before a session expires", "CRMARENA_SESSION_SECONDS"),
    Limit("daily_api_requests", "--daily-api-requests", "API requests a day", "CRMARENA_DAILY_API_REQUESTS"),
    Limit("cursors_per_user", "--cursors-per-user", "open query cursors a user has"),
    Limit("cursor_idle_seconds", "--cursor-idle-timeout", "idle seconds before a query cursor expires"),
)


def _parser_of(kind: type) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not (isinstance(value, int) or math.isfinite(value)) or value < 0:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of 0 or more")
        return value

    return parse


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per limit, each defaulting to the environment variable or the built-in default."""
    group = parser.add_argument_group("limits", "what one client may take of the server (docs/serving.md, Limits)")
    types = {f.name: f.type for f in dataclasses.fields(ServerLimits)}
    for limit in LIMITS:
        kind = int if types[limit.field] in (int, "int") else float
        where = f"${limit.env}, else " if limit.env else ""
        group.add_argument(
            limit.flag,
            dest=f"limit_{limit.field}",
            type=_parser_of(kind),
            default=None,
            metavar="N",
            help=f"{limit.help} (default {where}{limit.shown()})",
        )


def from_args(args: argparse.Namespace | None = None, env: Mapping[str, str] = os.environ) -> ServerLimits:
    """The limits the flags (else the environment, else the defaults) set."""
    types = {f.name: f.type for f in dataclasses.fields(ServerLimits)}
    values: dict[str, Any] = {}
    for limit in LIMITS:
        given = getattr(args, f"limit_{limit.field}", None) if args is not None else None
        if given is None and limit.env and env.get(limit.env):
            kind = int if types[limit.field] in (int, "int") else float
            given = kind(env[limit.env])
        if given is not None:
            values[limit.field] = given
    return ServerLimits(**values)


def as_fields(limits: ServerLimits) -> dict[str, Any]:
    """The limits as plain values (a worker's plan carries them)."""
    return dataclasses.asdict(limits)
