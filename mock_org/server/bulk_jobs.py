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
from dataclasses import dataclass, field
from typing import Any

from ..errors import InsufficientAccessOrReadonly, InvalidOperation, NotFound, SalesforceError
from .bulk_common import (
    DML_OPERATIONS,
    QUERY_OPERATIONS,
    BulkJob,
    JobRegistry,
    csv_text,
    error_text,
    row_data,
    run_query,
    write_record,
)

DELIMITERS = {"COMMA": ",", "TAB": "\t", "PIPE": "|", "SEMICOLON": ";", "CARET": "^", "BACKQUOTE": "`"}
LINE_ENDINGS = {"LF": "\n", "CRLF": "\r\n"}


@dataclass
class Job(BulkJob):
    delimiter: str = "COMMA"
    line_ending: str = "LF"
    error_message: str | None = None
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)  # query results, or the uploaded rows
    successes: list[list[str]] = field(default_factory=list)
    failures: list[list[str]] = field(default_factory=list)

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


class JobStore(JobRegistry[Job]):
    """The Bulk API 2.0 jobs of one server, by Id."""

    KIND = "bulk2"

    def _new(self, **values: Any) -> Job:
        job = Job(id=self.minter.mint("750"), created=self.now(), **values)
        return self._add(job.id, job)

    def get(self, job_id: str, *, query: bool) -> Job:
        job = self.find(job_id)
        if job is None or job.is_query != query:
            raise NotFound("The requested resource does not exist")
        return job

    def list(self, *, query: bool) -> list[Job]:
        return [job for job in self._all() if job.is_query == query]

    def delete(self, job_id: str, *, query: bool) -> None:
        self._remove(self.get(job_id, query=query).id)

    # ------------------------------------------------------------------- query jobs

    def create_query(self, spec: dict[str, Any], *, user_id: str, version: str) -> Job:
        operation = spec.get("operation") or "query"
        if operation not in QUERY_OPERATIONS:
            raise InvalidOperation(f"Invalid operation for a query job: {operation}")
        soql = spec.get("query")
        delimiter, line_ending = _format(spec)
        # A bad query fails here, before any job exists, as it does on a real org.
        result = run_query(self.org, soql, include_deleted=operation == "queryAll", user_id=user_id, version=version)
        header, rows = result.table()
        return self._new(operation=operation, sobject=result.sobject, created_by=user_id, version=version,
                         delimiter=delimiter, line_ending=line_ending, state="JobComplete", header=header,
                         rows=rows)  # fmt: skip

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
        if operation not in DML_OPERATIONS:
            raise InvalidOperation(f"Invalid operation for an ingest job: {operation}")
        sobject = self.org.sobject(str(spec.get("object") or "")).name
        external_id = spec.get("externalIdFieldName")
        if operation == "upsert" and not external_id:
            raise InvalidOperation("External ID was blank for Upsert. Please specify the externalIdFieldName.")
        delimiter, line_ending = _format(spec)
        return self._new(operation=operation, sobject=sobject, created_by=user_id, version=version,
                         delimiter=delimiter, line_ending=line_ending, external_id=external_id)  # fmt: skip

    def upload(self, job_id: str, data: str) -> None:
        with self._lock:
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
            self._save(job)

    def change_state(self, job_id: str, new_state: str, *, query: bool) -> dict[str, Any]:
        """Close (``UploadComplete``, which runs an ingest job) or abort a job; answers the job as it was set."""
        with self._lock:
            job = self.get(job_id, query=query)
            if new_state == "Aborted" and job.state in ("Open", "UploadComplete", "InProgress"):
                job.state = "Aborted"
                job.modstamp = self.now()
                self._save(job)
                return job.info()
            if not (new_state == "UploadComplete" and not query and job.state == "Open"):
                raise InvalidOperation(f"Job's state is {job.state}; it cannot become {new_state}")
            job.state = "UploadComplete"
            self._save(job)
        answer = job.info()
        self._run_ingest(job)  # outside the lock: the writes take as long as they take
        self._save(job)
        return answer

    def _run_ingest(self, job: Job) -> None:
        for row in job.rows:
            data = row_data(job.header, row)
            try:
                record_id, created = write_record(self.org, job.operation, job.sobject, data,
                                                  external_id=job.external_id, user_id=job.created_by)  # fmt: skip
            except SalesforceError as error:
                job.failures.append([str(data.get("Id") or ""), error_text(error), *row])
            else:
                job.successes.append([record_id, "true" if created else "false", *row])
        job.state = "JobComplete"
        job.modstamp = self.now()

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


def _offset(locator: str | None) -> int:
    if not locator or locator == "null":
        return 0
    try:
        return int(base64.b64decode(locator.encode(), validate=True).decode())
    except (ValueError, UnicodeDecodeError):
        raise InvalidOperation(f"Invalid locator: {locator}") from None


def _csv(job: Job, rows: list[list[str]]) -> str:
    return csv_text(rows, delimiter=DELIMITERS[job.delimiter], line_ending=LINE_ENDINGS[job.line_ending])
