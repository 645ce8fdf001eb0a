"""What both Bulk APIs share: a query's records and CSV rows, CSV text, one DML operation on one record,
and the registry their jobs are kept in.

Bulk API 2.0 (bulk_jobs.py) and Bulk API 1.0 (bulk1_jobs.py) drive jobs differently, but a record is
written, a value printed and a CSV cell read the same way in both, and their jobs' Ids (750…) come from
one sequence, as on a real org; so that lives here once. No HTTP.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..columns import csv_header
from ..errors import InvalidOperation, SalesforceError
from ..ids import make_id
from ..org import Org
from ..shared import LocalState, SharedState
from ..values import format_datetime, java_double

QUERY_OPERATIONS = frozenset({"query", "queryAll"})
DML_OPERATIONS = frozenset({"insert", "update", "upsert", "delete", "hardDelete"})
NULL_VALUE = "#N/A"  # how a CSV row sets a field to null (an empty cell leaves it as it is)
CSV_TYPE = "text/csv;charset=UTF-8"  # the media type both APIs give their CSV
J = TypeVar("J")


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

    @property
    def is_query(self) -> bool:
        return self.operation in QUERY_OPERATIONS


class SerialMinter:
    """Ids from the serials of a state (shared.py): both APIs' registries on one state draw from one
    sequence per key prefix (jobs 750, batches 751, results 752), whichever worker mints."""

    def __init__(self, state: SharedState) -> None:
        self.state = state

    def mint(self, prefix: str) -> str:
        return make_id(prefix, self.state.next_serial(f"id:{prefix}"))


class JobRegistry(Generic[J]):
    """One API's jobs by Id, kept in a state (shared.py; this process's memory unless given).

    A method that changes a job reads it, changes it and writes it back (``_save``) under the
    state's lock, so that with a shared state no worker's change to a job is lost to another's."""

    KIND = "jobs"

    def __init__(self, org: Org, state: SharedState | None = None) -> None:
        self.org = org
        state = state or LocalState()
        self.minter = SerialMinter(state)
        self._jobs: MutableMapping[str, J] = state.table(self.KIND)
        self._lock = state.lock

    def now(self) -> str:
        """The org's time as jobs and batches record it."""
        return format_datetime(self.org.clock.now())

    def _add(self, job_id: str, job: J) -> J:
        with self._lock:
            self._jobs[job_id] = job
        return job

    def _save(self, job: J) -> None:
        """Write a changed job back (in memory it is the same object: nothing to do but to keep it)."""
        with self._lock:
            self._jobs[job.id] = job  # type: ignore[attr-defined]

    def find(self, job_id: str) -> J | None:
        with self._lock:
            return self._jobs.get(job_id)

    def _all(self) -> list[J]:
        with self._lock:
            return list(self._jobs.values())

    def _remove(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)


@dataclass
class QueryResult:
    """Every record of a query (all pages), with the column metadata that names and types its paths."""

    sobject: str
    columns: list[dict[str, Any]]
    records: list[dict[str, Any]]
    aggregate: bool = False  # GROUP BY or an aggregate function: AggregateResult rows

    def paths_of_type(self, *apex_types: str) -> set[str]:
        """The dotted paths (``Account.CreatedDate``) of the columns of these Apex types."""
        return _typed_paths(self.columns, frozenset(apex_types))

    def table(self) -> tuple[list[str], list[list[str]]]:
        """The header (dotted relationship paths) and the rows as Bulk API CSV cells."""
        header = csv_header(self.columns)
        datetimes = self.paths_of_type("Datetime")
        rows = [[cell(lookup(record, path), path in datetimes) for path in header] for record in self.records]
        return header, rows


def run_query(org: Org, soql: str, *, include_deleted: bool, user_id: str, version: str) -> QueryResult:
    """Compile first (a bad query fails here, before any job state changes), then read every page."""
    columns = org.query_columns(soql, user_id=user_id)
    page = org.query(soql, include_deleted=include_deleted, version=version, user_id=user_id)
    records = list(page["records"])
    while not page["done"]:
        page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1], version=version, user_id=user_id)
        records += page["records"]
    return QueryResult(columns["entityName"], columns["columnMetadata"], records, columns["groupBy"])


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
