"""What both Bulk APIs share: a query's records and CSV rows, CSV text, one DML operation on one record,
and the registry their jobs are kept in.

Bulk API 2.0 (v2_jobs.py) and Bulk API 1.0 (v1_jobs.py) drive jobs differently, but a record is
written, a value printed and a CSV cell read the same way in both, and their jobs are kept, owned,
expired and stored the same way; so that lives here once. No HTTP.
"""

from __future__ import annotations

import csv
import io
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

from ...columns import csv_header
from ...errors import InvalidOperation, LimitExceeded, SalesforceError
from ...ids import make_id
from ...org import Org
from ...shared import LocalState, SharedState
from ...values import format_datetime, java_double
from ..limits import ServerLimits
from .files import JobFiles

QUERY_OPERATIONS = frozenset({"query", "queryAll"})
DML_OPERATIONS = frozenset({"insert", "update", "upsert", "delete", "hardDelete"})
NULL_VALUE = "#N/A"  # how a CSV row sets a field to null (an empty cell leaves it as it is)
CSV_TYPE = "text/csv;charset=UTF-8"  # the media type both APIs give their CSV
ID_SERIALS = 62**9  # the serials an Id's 9 base-62 characters hold


@dataclass
class BulkJob:
    """What a job of either Bulk API is: one operation on one object, by a user, at an API version."""

    id: str
    operation: str
    sobject: str
    created_by: str
    created: str  # the REST API's datetime format, ``…+0000``
    version: str
    external_id: str | None = None  # the field an upsert matches records on
    state: str = "Open"
    modstamp: str | None = None  # when the state last changed; None until it does
    created_at: float = field(default_factory=time.time)  # wall-clock seconds: when it expires
    finished_at: float | None = None  # when it reached a state it never leaves
    size: int = 0  # bytes of its data on disk (files.py)

    @property
    def is_query(self) -> bool:
        return self.operation in QUERY_OPERATIONS


J = TypeVar("J", bound=BulkJob)


def random_id(prefix: str) -> str:
    """A job, batch or result Id whose serial is random: nobody finds another user's job by counting."""
    return make_id(prefix, secrets.randbelow(ID_SERIALS))


class JobRegistry(Generic[J]):
    """One API's jobs by Id, kept in a state (shared.py; this process's memory unless given), their data
    on disk (files.py). Every call names the user who makes it: a job is seen and changed only by
    the user who made it, or by one with View All Data (``visible``).

    A method that changes a job reads it, changes it and writes it back (``_save``) under the
    state's lock, so that with a shared state no worker's change to a job is lost to another's.
    Jobs expire ``bulk_retention_seconds`` after they finish (or are made, if they never do); a user
    keeps at most ``bulk_jobs_per_user`` jobs and ``bulk_storage_per_user`` bytes of their data, the
    oldest finished ones making room for new ones."""

    KIND = "jobs"
    TERMINAL: frozenset[str] = frozenset()

    def __init__(self, org: Org, state: SharedState | None = None, limits: ServerLimits | None = None) -> None:
        self.org = org
        state = state or LocalState()
        self.limits = limits or ServerLimits()
        self.files = JobFiles(state.files())
        self.clock: Callable[[], float] = time.time
        self._jobs: MutableMapping[str, J] = state.table(self.KIND)
        self._lock = state.lock

    def now(self) -> str:
        """The org's time as jobs and batches record it."""
        return format_datetime(self.org.clock.now())

    def new_id(self, prefix: str) -> str:
        with self._lock:
            while (made := random_id(prefix)) in self._jobs:
                pass
        return made

    def limit_error(self, message: str) -> SalesforceError:
        """The error this API answers when a user has no room left for another job or its data."""
        return LimitExceeded(message)

    def _add(self, job_id: str, job: J) -> J:
        with self._lock:
            self._jobs[job_id] = job
        return job

    def _save(self, job: J) -> None:
        """Write a changed job back (in memory it is the same object: nothing to do but to keep it)."""
        with self._lock:
            if job.id in self._jobs:
                self._jobs[job.id] = job

    def find(self, job_id: str, user_id: str) -> J | None:
        """The job, if this user may see it."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and self.visible(job, user_id) else None

    def visible(self, job: J, user_id: str) -> bool:
        return job.created_by == user_id or self.org.views_all_data(user_id)

    def _all(self, user_id: str) -> list[J]:
        self._expire()
        with self._lock:
            jobs = list(self._jobs.values())
        if not jobs or self.org.views_all_data(user_id):
            return jobs
        return [job for job in jobs if job.created_by == user_id]

    def _remove(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)
        self.files.remove(job_id)

    def _finished(self, job: J) -> None:
        """The job reached a state it never leaves: its retention time starts."""
        job.finished_at = self.clock()

    # ------------------------------------------------------------------- retention and room

    def _expire(self) -> None:
        """Drop the jobs past their retention (finished ones counted from then, others from their making)."""
        cutoff = self.clock() - self.limits.bulk_retention_seconds
        with self._lock:
            old = [job.id for job in self._jobs.values() if (job.finished_at or job.created_at) < cutoff]
        for job_id in old:
            self._remove(job_id)

    def _make_room(self, user_id: str) -> None:
        """Before a user's new job: expired jobs go, and the user's oldest finished job if it keeps too many."""
        self._expire()
        with self._lock:
            mine = [job for job in self._jobs.values() if job.created_by == user_id]
        excess = len(mine) - self.limits.bulk_jobs_per_user + 1
        finished = sorted((job for job in mine if job.state in self.TERMINAL), key=lambda job: job.created_at)
        if excess > len(finished):
            raise self.limit_error(
                f"You have {len(mine)} jobs open; a user keeps at most {self.limits.bulk_jobs_per_user}. "
                "Close, abort or delete one first."
            )
        for job in finished[: max(0, excess)]:
            self._remove(job.id)

    def _charge(self, job: J, added: int) -> bool:
        """Count ``added`` bytes of data to the job; the user's oldest finished jobs make room. Whether
        the user's data fits in ``bulk_storage_per_user`` (when not, the caller keeps nothing of it)."""
        with self._lock:
            mine = [kept for kept in self._jobs.values() if kept.created_by == job.created_by]
            used = sum(kept.size for kept in mine if kept.id != job.id) + job.size + added
        cap = self.limits.bulk_storage_per_user
        others = sorted(
            (kept for kept in mine if kept.id != job.id and kept.state in self.TERMINAL),
            key=lambda kept: kept.created_at,
        )
        for kept in others:
            if used <= cap:
                break
            used -= kept.size
            self._remove(kept.id)
        if used > cap:
            return False
        job.size += added
        return True

    def storage_error(self) -> SalesforceError:
        return self.limit_error(
            f"The job's data would take more than the {self.limits.bulk_storage_per_user:,} bytes a user keeps "
            "(--bulk-storage-per-user); delete finished jobs, or send less."
        )


@dataclass
class QueryColumns:
    """A query's columns: the column metadata that names and types its paths, and how a record becomes a row."""

    sobject: str
    columns: list[dict[str, Any]]
    aggregate: bool = False  # GROUP BY or an aggregate function: AggregateResult rows

    def paths_of_type(self, *apex_types: str) -> set[str]:
        """The dotted paths (``Account.CreatedDate``) of the columns of these Apex types."""
        return _typed_paths(self.columns, frozenset(apex_types))

    @cached_property
    def header(self) -> list[str]:
        """The CSV header: the dotted relationship paths."""
        return csv_header(self.columns)

    @cached_property
    def _datetimes(self) -> set[str]:
        return self.paths_of_type("Datetime")

    def row(self, record: dict[str, Any]) -> list[str]:
        """A REST-shaped record as Bulk API CSV cells."""
        return [cell(lookup(record, path), path in self._datetimes) for path in self.header]


def query_columns(org: Org, soql: str, *, user_id: str) -> QueryColumns:
    """Compile the query (a bad one fails here, before any job state changes) and name its columns."""
    columns = org.query_columns(soql, user_id=user_id)
    return QueryColumns(columns["entityName"], columns["columnMetadata"], columns["groupBy"])


def query_pages(
    org: Org, soql: str, *, include_deleted: bool, user_id: str, version: str
) -> Iterator[list[dict[str, Any]]]:
    """Every record of a query, a page at a time: a job never holds all of them at once."""
    page = org.query(soql, include_deleted=include_deleted, version=version, user_id=user_id)
    yield page["records"]
    while not page["done"]:
        page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1], version=version, user_id=user_id)
        yield page["records"]


def _typed_paths(columns: list[dict[str, Any]], apex_types: frozenset[str], prefix: str = "") -> set[str]:
    found = set()
    for column in columns:
        path = prefix + column["columnName"]
        if column["joinColumns"] and not column["aggregate"]:
            found |= _typed_paths(column["joinColumns"], apex_types, path + ".")
        elif column["apexType"] in apex_types:
            found.add(path)
    return found


def lookup(record: dict[str, Any] | None, path: str) -> Any:
    """The value at a dotted path of a REST-shaped record; None when a parent on the way is null."""
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


def cell(value: Any, is_datetime: bool) -> str:
    """A value as Bulk API CSV writes it: empty for null, true/false, Java doubles, datetimes ending in Z."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if is_datetime and isinstance(value, str) and value.endswith("+0000"):
        return value[:-5] + "Z"
    return str(value)


def csv_text(rows: Iterable[list[str]], *, delimiter: str = ",", line_ending: str = "\n") -> str:
    """Rows as the Bulk APIs write CSV: every value quoted."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=line_ending, quoting=csv.QUOTE_ALL).writerows(rows)
    return out.getvalue()


def row_data(header: list[str], row: list[str]) -> dict[str, Any]:
    """One uploaded CSV row as the fields it sets: ``#N/A`` is null, an empty cell sets nothing."""
    data = {name: (None if value == NULL_VALUE else value) for name, value in zip(header, row, strict=False)}
    return {name: value for name, value in data.items() if value != ""}


def error_text(error: SalesforceError) -> str:
    """A record's failure as both Bulk APIs print it in CSV: ``CODE:message:Field,Field --``."""
    return f"{error.error_code}:{error.message}:{','.join(error.fields or [])} --"


def write_record(
    org: Org, operation: str, sobject: str, data: dict[str, Any], *, external_id: str | None, user_id: str
) -> tuple[str, bool]:
    """Run one DML operation on one record; answers its Id and whether it was created, or raises its error."""
    if operation == "insert":
        return org.create(sobject, data, user_id=user_id), True
    if operation == "upsert":
        field_name = str(external_id)
        value = next((v for k, v in data.items() if k.lower() == field_name.lower()), None)
        if value is None:
            raise InvalidOperation(f"Missing value for the external ID field {field_name}", [field_name])
        return org.upsert(sobject, field_name, str(value), data, user_id=user_id)
    record_id = str(next((v for k, v in data.items() if k.lower() == "id"), "") or "")
    if not record_id:
        raise InvalidOperation("Id not specified in an update or delete call", ["Id"])
    if operation == "update":
        org.update(sobject, record_id, {k: v for k, v in data.items() if k.lower() != "id"}, user_id=user_id)
    elif operation == "hardDelete":
        org.purge(sobject, record_id, user_id=user_id)
    else:
        org.delete(sobject, record_id, user_id=user_id)
    return record_id, False
