"""Bulk API 2.0 jobs: query jobs whose results come back as CSV pages, and ingest jobs that load CSV.

A job runs as soon as it has everything it needs (a query job when it is created, an ingest job when
its upload is complete), so by the first poll it is ``JobComplete``. Ingest rows are written one
transaction each, as Bulk API 2.0 reports success and failure per record. Every record goes through
disk (files.py), never all into memory: a query's results are written a page of the query at a
time with the offset of every row, and read back a page of the job at a time; an upload is copied
from the request's body as it comes, and its rows are written and their results recorded one by one.
No HTTP here; the handlers in rest/handlers/bulk2.py translate requests into these calls.
"""

from __future__ import annotations

import base64
import bisect
import builtins
import csv
import io
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

from ...errors import InsufficientAccessOrReadonly, InvalidOperation, MalformedQuery, NotFound, SalesforceError
from .common import (
    DML_OPERATIONS,
    QUERY_OPERATIONS,
    BulkJob,
    JobRegistry,
    error_text,
    query_columns,
    query_pages,
    row_data,
    write_record,
)

DELIMITERS = {"COMMA": ",", "TAB": "\t", "PIPE": "|", "SEMICOLON": ";", "CARET": "^", "BACKQUOTE": "`"}
LINE_ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
RESULTS, OFFSETS, SUCCESSES, FAILURES = "results.csv", "offsets", "successes.csv", "failures.csv"
# A page of results without ``maxRecords`` stops at about this much CSV; ``Sforce-Locator`` names the rest.
PAGE_BYTES = 32 * 1024 * 1024


@dataclass
class Job(BulkJob):
    delimiter: str = "COMMA"
    line_ending: str = "LF"
    error_message: str | None = None
    header: list[str] = field(default_factory=list)
    records: int = 0  # a query's rows, or the rows uploaded to an ingest job
    uploads: list[str] = field(default_factory=list)  # the ingest job's upload files, in order
    succeeded: int = 0
    failed: int = 0

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
        processed = self.records if self.is_query else self.succeeded + self.failed
        body.update(numberRecordsProcessed=processed, retries=0, totalProcessingTime=0)
        if not self.is_query:
            body.update(numberRecordsFailed=self.failed, apiActiveProcessingTime=0, apexProcessingTime=0)
        if self.error_message:
            body["errorMessage"] = self.error_message
        return body

    def csv_writer(self, out: io.StringIO) -> Any:
        return csv.writer(
            out,
            delimiter=DELIMITERS[self.delimiter],
            lineterminator=LINE_ENDINGS[self.line_ending],
            quoting=csv.QUOTE_ALL,
        )


class JobStore(JobRegistry[Job]):
    """The Bulk API 2.0 jobs of one server, by Id."""

    KIND = "bulk2"
    TERMINAL = frozenset({"JobComplete", "Failed", "Aborted"})

    def _new(self, user_id: str, **values: Any) -> Job:
        self._make_room(user_id)
        job = Job(id=self.new_id("750"), created=self.now(), created_by=user_id, **values)
        return self._add(job.id, job)

    def get(self, job_id: str, *, query: bool, user_id: str) -> Job:
        job = self.find(job_id, user_id)
        if job is None or job.is_query != query:
            raise NotFound("The requested resource does not exist")
        return job

    def list(self, *, query: bool, user_id: str) -> list[Job]:
        return [job for job in self._all(user_id) if job.is_query == query]

    def delete(self, job_id: str, *, query: bool, user_id: str) -> None:
        self._remove(self.get(job_id, query=query, user_id=user_id).id)

    # ------------------------------------------------------------------- query jobs

    def create_query(self, spec: dict[str, Any], *, user_id: str, version: str) -> Job:
        operation = spec.get("operation") or "query"
        if operation not in QUERY_OPERATIONS:
            raise InvalidOperation(f"Invalid operation for a query job: {operation}")
        soql = spec.get("query")
        if not isinstance(soql, str):  # missing, a number, an array or an object: what an empty query gets
            raise MalformedQuery("SOQL statements cannot be empty or null")
        delimiter, line_ending = _format(spec)
        # A bad query fails here, before any job exists, as it does on a real org.
        columns = query_columns(self.org, soql, user_id=user_id)
        job = self._new(
            user_id,
            operation=operation,
            sobject=columns.sobject,
            version=version,
            delimiter=delimiter,
            line_ending=line_ending,
            state="InProgress",
            header=columns.header,
        )
        pages = query_pages(self.org, soql, include_deleted=operation == "queryAll", user_id=user_id, version=version)
        offsets = array("Q")
        try:
            rows = _result_rows(job, (map(columns.row, page) for page in pages), offsets)
            size = self.files.write(job.id, RESULTS, rows, self.limits.bulk_storage_per_user)
            size += self.files.write(job.id, OFFSETS, [offsets.tobytes()])
        except SalesforceError:
            self._remove(job.id)  # a query that fails while it runs (its deadline) leaves no job behind
            raise
        except OverflowError:
            size = self.limits.bulk_storage_per_user + 1  # more than a user may keep: the job fails below
        with self._lock:
            job.records = max(0, len(offsets) - 2)
            if self._charge(job, size):
                job.state = "JobComplete"
            else:
                self.files.remove(job.id)
                job.state, job.error_message = "Failed", self.storage_error().message
            job.modstamp = self.now()
            self._finished(job)
            self._save(job)
        return job

    def results(
        self, job_id: str, *, locator: str | None, max_records: int | None, user_id: str
    ) -> tuple[bytes, int, str]:
        """One page of a query job's CSV: the text, its number of records, and the next locator (or "null")."""
        job = self.get(job_id, query=True, user_id=user_id)
        if job.state != "JobComplete":
            raise InvalidOperation(f"Job is not complete: {job.state}")
        offsets = array("Q")
        offsets.frombytes(self.files.read(job.id, OFFSETS))
        total = len(offsets) - 2  # offsets: the header's start, each row's start, the end
        start = _offset(locator)
        if start > total:
            raise InvalidOperation(f"Invalid locator: {locator}")
        if max_records and max_records > 0:
            end = min(total, start + max_records)
        else:  # at least one row, then as many as fit in a page
            fitting = bisect.bisect_right(offsets, offsets[start + 1] + PAGE_BYTES, start + 1) - 2
            end = max(min(total, start + 1), fitting)
        header = self.files.read(job.id, RESULTS, offsets[0], offsets[1])
        rows = self.files.read(job.id, RESULTS, offsets[start + 1], offsets[end + 1])
        following = base64.b64encode(str(end).encode()).decode() if end < total else "null"
        return header + rows, end - start, following

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
        return self._new(
            user_id,
            operation=operation,
            sobject=sobject,
            version=version,
            delimiter=delimiter,
            line_ending=line_ending,
            external_id=external_id,
        )

    def upload(self, job_id: str, data: IO[bytes], *, user_id: str) -> None:
        """Copy an upload's CSV to the job's files as it is read; every upload must have the same header."""
        job = self.get(job_id, query=False, user_id=user_id)
        if job.state != "Open":
            raise InvalidOperation(f"Job's state is {job.state}; data can only be uploaded to an Open job")
        name = f"upload-{self.new_id('751')}.csv"
        try:
            size = self.files.copy_in(job.id, name, data, self.limits.bulk_storage_per_user)
        except OverflowError:
            raise self.storage_error() from None
        with self.files.open(job.id, name) as handle:
            header = next(_csv_rows(handle, job.delimiter), None)
        with self._lock:
            job = self.get(job_id, query=False, user_id=user_id)  # as it stands now, with other uploads
            if header is None or job.state != "Open" or (job.header and header != job.header):
                self.files.remove(job.id, name)
                if header is None:
                    return
                if job.state != "Open":
                    raise InvalidOperation(f"Job's state is {job.state}; data can only be uploaded to an Open job")
                raise InvalidOperation("All uploads of a job must have the same CSV header")
            if not self._charge(job, size):
                self.files.remove(job.id, name)
                raise self.storage_error()
            job.header = header
            job.uploads.append(name)
            self._save(job)

    def change_state(self, job_id: str, new_state: str, *, query: bool, user_id: str) -> dict[str, Any]:
        """Close (``UploadComplete``, which runs an ingest job) or abort a job; answers the job as it was set."""
        with self._lock:
            job = self.get(job_id, query=query, user_id=user_id)
            if new_state == "Aborted" and job.state in ("Open", "UploadComplete", "InProgress"):
                job.state = "Aborted"
                job.modstamp = self.now()
                self._finished(job)
                self._save(job)
                return job.info()
            if not (new_state == "UploadComplete" and not query and job.state == "Open"):
                raise InvalidOperation(f"Job's state is {job.state}; it cannot become {new_state}")
            job.state = "UploadComplete"
            self._save(job)
        answer = job.info()
        self._run_ingest(job)  # outside the lock: the writes take as long as they take
        return answer

    def _run_ingest(self, job: Job) -> None:
        """Write the uploaded rows one by one (as the job's owner), their results straight to disk."""
        with self.files.create(job.id, SUCCESSES) as good, self.files.create(job.id, FAILURES) as bad:
            successes, failures = _ResultFile(job, good, "sf__Created"), _ResultFile(job, bad, "sf__Error")
            for row in self._uploaded_rows(job):
                data = row_data(job.header, row)
                try:
                    record_id, created = write_record(
                        self.org, job.operation, job.sobject, data, external_id=job.external_id, user_id=job.created_by
                    )
                except SalesforceError as error:
                    failures.add([str(data.get("Id") or ""), error_text(error), *row])
                else:
                    successes.add([record_id, "true" if created else "false", *row])
            successes.close()
            failures.close()
        with self._lock:
            job.succeeded, job.failed = successes.count, failures.count
            self._charge(job, successes.size + failures.size)  # kept even past the cap: the records are written
            job.state = "JobComplete"
            job.modstamp = self.now()
            self._finished(job)
            self._save(job)

    def _uploaded_rows(self, job: Job) -> Iterator[builtins.list[str]]:  # ``list`` here is JobStore.list
        for name in job.uploads:
            with self.files.open(job.id, name) as handle:
                rows = _csv_rows(handle, job.delimiter)
                next(rows, None)  # the header
                yield from (row for row in rows if row)

    def ingest_results(self, job_id: str, kind: str, *, user_id: str) -> bytes:
        """``successfulResults``, ``failedResults`` or ``unprocessedrecords`` of an ingest job as CSV."""
        job = self.get(job_id, query=False, user_id=user_id)
        if kind in ("successfulResults", "failedResults"):
            name = SUCCESSES if kind == "successfulResults" else FAILURES
            if self.files.exists(job.id, name):
                return self.files.read(job.id, name)
            first = ["sf__Id", "sf__Created" if kind == "successfulResults" else "sf__Error"]
            return _text(job, [[*first, *job.header]])
        unprocessed = self._uploaded_rows(job) if job.state in ("Open", "Aborted") else iter(())
        return b"".join(_encoded_rows(job, [job.header] if job.header else [], unprocessed))


class _ResultFile:
    """Per-record results written to a file as they come, a few hundred rows at a time."""

    def __init__(self, job: Job, out: BinaryIO, second_column: str) -> None:
        self.count = 0
        self.size = 0
        self._file = out
        self._text = io.StringIO()
        self._writer = job.csv_writer(self._text)
        self._writer.writerow(["sf__Id", second_column, *job.header])

    def add(self, row: list[str]) -> None:
        self._writer.writerow(row)
        self.count += 1
        if self.count % 500 == 0:
            self._flush()

    def _flush(self) -> None:
        data = self._text.getvalue().encode()
        self._text.seek(0)
        self._text.truncate()
        self._file.write(data)
        self.size += len(data)

    def close(self) -> None:
        self._flush()


def _result_rows(job: Job, pages: Iterable[Iterable[list[str]]], offsets: array) -> Iterator[bytes]:
    """The header and every row as encoded CSV, a page at a time, noting where each row starts."""
    out = io.StringIO()
    writer = job.csv_writer(out)
    position = 0

    def take() -> bytes:
        data = out.getvalue().encode()
        out.seek(0)
        out.truncate()
        return data

    offsets.append(0)
    writer.writerow(job.header)
    header = take()
    position = len(header)
    yield header
    for page in pages:
        chunk = []
        for row in page:
            offsets.append(position)
            writer.writerow(row)
            data = take()
            position += len(data)
            chunk.append(data)
        yield b"".join(chunk)
    offsets.append(position)


def _encoded_rows(job: Job, first: list[list[str]], rows: Iterable[list[str]]) -> Iterator[bytes]:
    out = io.StringIO()
    writer = job.csv_writer(out)
    for row in (*first, *rows):
        writer.writerow(row)
    yield out.getvalue().encode()


def _text(job: Job, rows: list[list[str]]) -> bytes:
    return b"".join(_encoded_rows(job, rows, ()))


def _csv_rows(handle: BinaryIO, delimiter: str) -> Iterator[list[str]]:
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="replace", newline="")
    return csv.reader(text, delimiter=DELIMITERS[delimiter])


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
        text = base64.b64decode(locator.encode(), validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        text = ""
    if not (text.isascii() and text.isdigit()):
        raise InvalidOperation(f"Invalid locator: {locator}")
    return int(text)
