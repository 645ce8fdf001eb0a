"""Bulk API 2.0 jobs: query jobs whose results come back as CSV pages, and ingest jobs that load CSV.

A job runs as soon as it has everything it needs (a query job when it is created, an ingest job when
its upload is complete), so by the first poll it is ``JobComplete``. Ingest rows are written one
transaction each, as Bulk API 2.0 reports success and failure per record. No HTTP here; the
handlers in handlers/bulk2.py translate requests into these calls.
"""

from __future__ import annotations

import base64
import csv
import io
import threading
from dataclasses import dataclass, field
from typing import Any

from ..columns import csv_header
from ..errors import InsufficientAccessOrReadonly, InvalidOperation, NotFound, SalesforceError
from ..ids import IdMinter
from ..org import Org
from ..values import format_datetime, java_double

DELIMITERS = {"COMMA": ",", "TAB": "\t", "PIPE": "|", "SEMICOLON": ";", "CARET": "^", "BACKQUOTE": "`"}
LINE_ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
QUERY_OPERATIONS = frozenset({"query", "queryAll"})
INGEST_OPERATIONS = frozenset({"insert", "update", "upsert", "delete", "hardDelete"})
NULL_VALUE = "#N/A"  # how a CSV row sets a field to null (an empty cell leaves it as it is)


@dataclass
class Job:
    id: str
    operation: str
    sobject: str
    created_by: str
    created: str
    version: str
    delimiter: str = "COMMA"
    line_ending: str = "LF"
    external_id: str | None = None
    state: str = "Open"
    error_message: str | None = None
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)  # query results, or the uploaded rows
    successes: list[list[str]] = field(default_factory=list)
    failures: list[list[str]] = field(default_factory=list)
    modstamp: str = ""

    @property
    def is_query(self) -> bool:
        return self.operation in QUERY_OPERATIONS

    def info(self) -> dict[str, Any]:
        """The job as ``GET jobs/{query|ingest}/{id}`` shows it."""
        body: dict[str, Any] = {
            "id": self.id,
            "operation": self.operation,
            "object": self.sobject,
            "createdById": self.created_by,
            "createdDate": self.created,
            "systemModstamp": self.modstamp or self.created,
            "state": self.state,
        }
        if self.external_id:
            body["externalIdFieldName"] = self.external_id
        body.update(concurrencyMode="Parallel", contentType="CSV", apiVersion=float(self.version))
        if not self.is_query:
            body["contentUrl"] = f"services/data/v{self.version}/jobs/ingest/{self.id}/batches"
        body.update(jobType="V2Query" if self.is_query else "V2Ingest", lineEnding=self.line_ending)
        body["columnDelimiter"] = self.delimiter
        processed = len(self.rows) if self.is_query else len(self.successes) + len(self.failures)
        body.update(numberRecordsProcessed=processed, retries=0, totalProcessingTime=0)
        if not self.is_query:
            body.update(numberRecordsFailed=len(self.failures), apiActiveProcessingTime=0, apexProcessingTime=0)
        if self.error_message:
            body["errorMessage"] = self.error_message
        return body


class JobStore:
    """The jobs of one server, by Id. Thread-safe."""

    def __init__(self, org: Org) -> None:
        self.org = org
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._minter = IdMinter()

    def _new(self, **values: Any) -> Job:
        job = Job(id=self._minter.mint("750"), created=format_datetime(self.org.clock.now()), **values)
        with self._lock:
            self._jobs[job.id] = job
        return job

    def get(self, job_id: str, *, query: bool) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None or job.is_query != query:
            raise NotFound("The requested resource does not exist")
        return job

    def list(self, *, query: bool) -> list[Job]:
        with self._lock:
            return [job for job in self._jobs.values() if job.is_query == query]

    def delete(self, job_id: str, *, query: bool) -> None:
        job = self.get(job_id, query=query)
        with self._lock:
            self._jobs.pop(job.id, None)

    # ------------------------------------------------------------------- query jobs

    def create_query(self, spec: dict[str, Any], *, user_id: str, version: str) -> Job:
        operation = spec.get("operation") or "query"
        if operation not in QUERY_OPERATIONS:
            raise InvalidOperation(f"Invalid operation for a query job: {operation}")
        soql = spec.get("query")
        delimiter, line_ending = _format(spec)
        columns = self.org.query_columns(soql, user_id=user_id)  # a bad query fails here, as it does on a real org
        job = self._new(operation=operation, sobject=columns["entityName"], created_by=user_id, version=version,
                        delimiter=delimiter, line_ending=line_ending, state="UploadComplete")  # fmt: skip
        job.header = csv_header(columns["columnMetadata"])
        datetimes = _datetime_columns(columns["columnMetadata"])
        for record in self._all_records(soql, operation == "queryAll", user_id, version):
            job.rows.append([_cell(_lookup(record, path), path in datetimes) for path in job.header])
        job.state = "JobComplete"
        return job

    def _all_records(self, soql: str, include_deleted: bool, user_id: str, version: str) -> list[dict[str, Any]]:
        page = self.org.query(soql, include_deleted=include_deleted, version=version, user_id=user_id)
        records = list(page["records"])
        while not page["done"]:
            page = self.org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1], version=version)
            records += page["records"]
        return records

    def results(self, job_id: str, *, locator: str | None, max_records: int | None) -> tuple[str, int, str]:
        """One page of a query job's CSV: the text, its number of records, and the next locator (or "null")."""
        job = self.get(job_id, query=True)
        if job.state != "JobComplete":
            raise InvalidOperation(f"Job is not complete: {job.state}")
        start = _offset(locator)
        end = len(job.rows) if not max_records or max_records <= 0 else min(len(job.rows), start + max_records)
        following = base64.b64encode(str(end).encode()).decode() if end < len(job.rows) else "null"
        return _csv(job, [job.header, *job.rows[start:end]]), end - start, following

    # ------------------------------------------------------------------- ingest jobs

    def create_ingest(self, spec: dict[str, Any], *, user_id: str, version: str) -> Job:
        if self.org.read_only:
            raise InsufficientAccessOrReadonly("This org is read-only; it accepts queries and searches, not writes.")
        operation = spec.get("operation")
        if operation not in INGEST_OPERATIONS:
            raise InvalidOperation(f"Invalid operation for an ingest job: {operation}")
        sobject = self.org.sobject(str(spec.get("object") or "")).name
        external_id = spec.get("externalIdFieldName")
        if operation == "upsert" and not external_id:
            raise InvalidOperation("External ID was blank for Upsert. Please specify the externalIdFieldName.")
        delimiter, line_ending = _format(spec)
        return self._new(operation=operation, sobject=sobject, created_by=user_id, version=version,
                         delimiter=delimiter, line_ending=line_ending, external_id=external_id)  # fmt: skip

    def upload(self, job_id: str, data: str) -> None:
        job = self.get(job_id, query=False)
        if job.state != "Open":
            raise InvalidOperation(f"Job's state is {job.state}; data can only be uploaded to an Open job")
        rows = list(csv.reader(io.StringIO(data), delimiter=DELIMITERS[job.delimiter]))
        if not rows:
            return
        if not job.header:
            job.header = rows[0]
        elif rows[0] != job.header:
            raise InvalidOperation("All uploads of a job must have the same CSV header")
        job.rows += [row for row in rows[1:] if row]

    def change_state(self, job_id: str, new_state: str, *, query: bool) -> dict[str, Any]:
        """Close (``UploadComplete``, which runs an ingest job) or abort a job; answers the job as it was set."""
        job = self.get(job_id, query=query)
        if new_state == "UploadComplete" and not query and job.state == "Open":
            job.state = "UploadComplete"
            answer = job.info()
            self._run_ingest(job)
            return answer
        if new_state == "Aborted" and job.state in ("Open", "UploadComplete", "InProgress"):
            job.state = "Aborted"
            job.modstamp = format_datetime(self.org.clock.now())
            return job.info()
        raise InvalidOperation(f"Job's state is {job.state}; it cannot become {new_state}")

    def _run_ingest(self, job: Job) -> None:
        for row in job.rows:
            data = {
                name: (None if value == NULL_VALUE else value) for name, value in zip(job.header, row, strict=False)
            }
            data = {name: value for name, value in data.items() if value != ""}
            try:
                record_id, created = self._write(job, data)
            except SalesforceError as error:
                fields = ",".join(error.fields or [])
                job.failures.append(
                    [str(data.get("Id") or ""), f"{error.error_code}:{error.message}:{fields} --", *row]
                )
            else:
                job.successes.append([record_id, "true" if created else "false", *row])
        job.state = "JobComplete"
        job.modstamp = format_datetime(self.org.clock.now())

    def _write(self, job: Job, data: dict[str, Any]) -> tuple[str, bool]:
        org, user = self.org, job.created_by
        if job.operation == "insert":
            return org.create(job.sobject, data, user_id=user), True
        if job.operation == "upsert":
            field_name = str(job.external_id)
            value = next((v for k, v in data.items() if k.lower() == field_name.lower()), None)
            if value is None:
                raise InvalidOperation(f"Missing value for the external ID field {field_name}", [field_name])
            return org.upsert(job.sobject, field_name, str(value), data, user_id=user)
        record_id = str(next((v for k, v in data.items() if k.lower() == "id"), "") or "")
        if not record_id:
            raise InvalidOperation("Id not specified in an update or delete call", ["Id"])
        if job.operation == "update":
            org.update(job.sobject, record_id, {k: v for k, v in data.items() if k.lower() != "id"}, user_id=user)
        else:
            org.delete(job.sobject, record_id, user_id=user)
        return record_id, False

    def ingest_results(self, job_id: str, kind: str) -> str:
        """``successfulResults``, ``failedResults`` or ``unprocessedrecords`` of an ingest job as CSV."""
        job = self.get(job_id, query=False)
        if kind == "successfulResults":
            return _csv(job, [["sf__Id", "sf__Created", *job.header], *job.successes])
        if kind == "failedResults":
            return _csv(job, [["sf__Id", "sf__Error", *job.header], *job.failures])
        unprocessed = job.rows if job.state in ("Open", "Aborted") else []
        return _csv(job, [job.header, *unprocessed])


def _format(spec: dict[str, Any]) -> tuple[str, str]:
    delimiter = spec.get("columnDelimiter") or "COMMA"
    line_ending = spec.get("lineEnding") or "LF"
    if delimiter not in DELIMITERS or line_ending not in LINE_ENDINGS:
        raise InvalidOperation(f"Invalid columnDelimiter or lineEnding: {delimiter}, {line_ending}")
    if (spec.get("contentType") or "CSV") != "CSV":
        raise InvalidOperation(f"Invalid content type: {spec.get('contentType')}; Bulk API 2.0 uses CSV")
    return delimiter, line_ending


def _datetime_columns(columns: list[dict[str, Any]], prefix: str = "") -> set[str]:
    found = set()
    for column in columns:
        path = prefix + column["columnName"]
        if column["joinColumns"] and not column["aggregate"]:
            found |= _datetime_columns(column["joinColumns"], path + ".")
        elif column["apexType"] == "Datetime":
            found.add(path)
    return found


def _lookup(record: dict[str, Any] | None, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


def _cell(value: Any, is_datetime: bool) -> str:
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


def _offset(locator: str | None) -> int:
    if not locator or locator == "null":
        return 0
    try:
        return int(base64.b64decode(locator.encode(), validate=True).decode())
    except (ValueError, UnicodeDecodeError):
        raise InvalidOperation(f"Invalid locator: {locator}") from None


def _csv(job: Job, rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(
        out, delimiter=DELIMITERS[job.delimiter], lineterminator=LINE_ENDINGS[job.line_ending], quoting=csv.QUOTE_ALL
    )
    writer.writerows(rows)
    return out.getvalue()
