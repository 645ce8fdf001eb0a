"""Bulk API 1.0 jobs and batches: the state a real org keeps, and the work it does on each batch.

A job is created Open, takes batches until it is Closed or Aborted, and counts what its batches did.
A batch is processed as soon as it is added, so by the first poll it is ``Completed`` (or ``Failed``,
with the real org's ``stateMessage``); the handlers answer the add itself as ``Queued``, as a real org
does. DML batches run one record at a time (each succeeds or fails alone). A batch's data and its
results (the per-record results, or the query's result document, written a page of the query at a
time) are files of the job (files.py), never kept in memory; a batch is at most 10 MB and 10,000
records, as on a real org. No HTTP here; rest/handlers/bulk1.py speaks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO, Any

from ...errors import (
    ExceededQuota,
    InvalidBatch,
    InvalidJob,
    InvalidJobState,
    InvalidUser,
    NotFound,
    SalesforceError,
)
from ...schema import SObject
from .common import (
    DML_OPERATIONS,
    QUERY_OPERATIONS,
    BulkJob,
    JobRegistry,
    QueryColumns,
    query_columns,
    query_pages,
    write_record,
)
from .v1_documents import MEDIA_TYPES, dml_results, query_result_chunks
from .v1_requests import read_query, read_records

CONTENT_TYPES = frozenset({"CSV", "JSON", "XML"})
CONCURRENCY_MODES = {"0": "Parallel", "1": "Serial", "parallel": "Parallel", "serial": "Serial"}
READ_ONLY_MESSAGE = "This org is read-only; it accepts queries and searches, not writes."


@dataclass
class RecordResult:
    """What one record of a DML batch came to: ``{"success", "created", "id", "errors"}``."""

    id: str | None
    success: bool
    created: bool
    errors: list[SalesforceError] = field(default_factory=list)


@dataclass
class Batch:
    """A batch's state and counts; its data and its results are files of the job (``request_file``,
    ``result_file``)."""

    id: str
    job_id: str
    created: str  # the REST API's datetime format, like a job's
    state: str = "Queued"
    state_message: str | None = None
    modstamp: str | None = None
    processed: int = 0
    failed: int = 0
    result_id: str | None = None  # a query batch's one result

    @property
    def request_file(self) -> str:
        return f"batch-{self.id}.request"

    @property
    def result_file(self) -> str:
        return f"batch-{self.id}.result"


@dataclass
class Job(BulkJob):
    content_type: str = "XML"
    concurrency_mode: str = "Parallel"
    batches: list[Batch] = field(default_factory=list)

    def batch(self, batch_id: str) -> Batch:
        found = next((batch for batch in self.batches if batch.id == batch_id), None)
        if found is None:
            raise InvalidBatch(f"Invalid batch id: {batch_id}")
        return found

    def count(self, state: str) -> int:
        return sum(batch.state == state for batch in self.batches)


class Bulk1Jobs(JobRegistry[Job]):
    """The Bulk API 1.0 jobs of one server, by Id; a job's batches are added under the registry's lock."""

    KIND = "bulk1"
    TERMINAL = frozenset({"Closed", "Aborted", "Failed"})

    def limit_error(self, message: str) -> SalesforceError:
        return ExceededQuota(message)

    def get(self, job_id: str, user_id: str) -> Job:
        job = self.find(job_id, user_id)
        if job is None:
            raise InvalidJob(f"Invalid job id: {job_id}")
        return job

    def create(self, spec: dict[str, Any], *, user_id: str, version: str) -> Job:
        """A new Open job from a ``jobInfo`` document; its data is XML unless it names another content type."""
        operation = str(spec.get("operation") or "")
        if operation not in QUERY_OPERATIONS | DML_OPERATIONS:
            raise InvalidJob(f"Invalid operation: {operation or 'null'}")
        try:
            sobject = self.org.sobject(str(spec.get("object") or ""))
        except NotFound:
            raise InvalidJob(f"Unable to find object: {spec.get('object') or ''}") from None
        if operation in DML_OPERATIONS and self.org.read_only:
            raise InvalidUser(READ_ONLY_MESSAGE)
        external_id = str(spec.get("externalIdFieldName") or "") or None
        if operation == "upsert":
            external_id = _external_id_field(sobject, external_id)
        job_type = str(spec.get("contentType") or "XML").upper()
        if job_type not in CONTENT_TYPES:
            raise InvalidJob(f"Invalid content type: {job_type}; this org takes CSV, JSON and XML batches")
        given_mode = spec.get("concurrencyMode")
        mode = "Parallel" if given_mode in (None, "") else CONCURRENCY_MODES.get(str(given_mode).lower())
        if mode is None:
            raise InvalidJob(f"Invalid concurrency mode: {spec.get('concurrencyMode')}")
        self._make_room(user_id)
        job = Job(
            id=self.new_id("750"),
            operation=operation,
            sobject=sobject.name,
            created_by=user_id,
            created=self.now(),
            version=version,
            content_type=job_type,
            concurrency_mode=mode,
            external_id=external_id,
        )
        return self._add(job.id, job)

    def change_state(self, job_id: str, new_state: str, *, user_id: str) -> Job:
        """Close a job (no more batches) or abort it (batches not yet processed are not processed)."""
        with self._lock:
            job = self.get(job_id, user_id)
            allowed = {"Closed": ("Open",), "Aborted": ("Open", "Closed")}.get(new_state, ())
            if job.state not in allowed:
                raise InvalidJobState(f"Invalid state change from {job.state} to {new_state or 'null'}")
            job.state = new_state
            job.modstamp = self.now()
            self._finished(job)
            if new_state == "Aborted":
                for batch in job.batches:
                    if batch.state in ("Queued", "InProgress"):
                        batch.state = "NotProcessed"
            self._save(job)
        return job

    def add_batch(self, job_id: str, data: IO[bytes], length: int, *, user_id: str) -> Batch:
        """Add a batch to an Open job and process it at once (outside the lock: other batches may come
        meanwhile, so the processed batch goes back into the job as it stands then). A batch is at most
        ``bulk1_batch_bytes`` and ``bulk1_batch_records`` records, as on a real org."""
        job = self.get(job_id, user_id)
        if length > self.limits.bulk1_batch_bytes:
            raise InvalidBatch(
                f"Failed to read the batch: {length:,} bytes is more than a batch may hold "
                f"({self.limits.bulk1_batch_bytes:,})"
            )
        raw = data.read(self.limits.bulk1_batch_bytes + 1)
        batch = Batch(id=self.new_id("751"), job_id=job.id, created=self.now())
        size = self.files.write(job.id, batch.request_file, [raw])
        with self._lock:
            job = self.get(job_id, user_id)
            if job.state != "Open":
                self.files.remove(job.id, batch.request_file)
                raise InvalidJob(f"Job {job.id} is {job.state}; batches can be added to Open jobs only")
            if not self._charge(job, size):
                self.files.remove(job.id, batch.request_file)
                raise self.storage_error()
            job.batches.append(batch)
            self._save(job)
        size = self._process(job, batch, raw)
        with self._lock:
            job = self.get(job_id, user_id)
            job.batches = [batch if kept.id == batch.id else kept for kept in job.batches]
            if not self._charge(job, size):
                self.files.remove(job.id, batch.result_file)
                batch.state, batch.state_message, batch.result_id = "Failed", self.storage_error().message, None
            self._save(job)
        return batch

    def _process(self, job: Job, batch: Batch, raw: bytes) -> int:
        """Run the batch and write its results; their size on disk."""
        size = 0
        try:
            size = self._run_query(job, batch, raw) if job.is_query else self._run_dml(job, batch, raw)
        except SalesforceError as error:
            batch.state, batch.state_message = "Failed", f"{error.error_code} : {error.message}"
        else:
            batch.state = "Completed"
        batch.modstamp = self.now()
        return size

    def _run_query(self, job: Job, batch: Batch, raw: bytes) -> int:
        soql = read_query(raw)
        include_deleted = job.operation == "queryAll"
        try:
            columns = query_columns(self.org, soql, user_id=job.created_by)
            unsupported = _unsupported_in_bulk_query(columns)
            if unsupported:
                raise InvalidBatch(f"Failed to process query: FUNCTIONALITY_NOT_ENABLED: {unsupported}")
            pages = query_pages(
                self.org, soql, include_deleted=include_deleted, user_id=job.created_by, version=job.version
            )
            counted = _Counted(pages)
            size = self.files.write(
                job.id,
                batch.result_file,
                query_result_chunks(job.content_type, columns, counted),
                self.limits.bulk_storage_per_user,
            )
        except InvalidBatch:
            raise
        except OverflowError:
            raise self.storage_error() from None
        except SalesforceError as error:
            raise InvalidBatch(f"Failed to process query: {error.error_code}: {error.message}") from None
        batch.processed, batch.result_id = counted.records, self.new_id("752")
        return size

    def _run_dml(self, job: Job, batch: Batch, raw: bytes) -> int:
        header, records = read_records(job.content_type, raw)
        if len(records) > self.limits.bulk1_batch_records:
            raise InvalidBatch(
                f"Failed to read the batch: {len(records):,} records is more than a batch may hold "
                f"({self.limits.bulk1_batch_records:,})"
            )
        sobject = self.org.sobject(job.sobject)
        unknown = [name for name in header or [] if sobject.field(name) is None]
        if unknown:
            raise InvalidBatch(f"Field name not found : {unknown[0]}")
        results = []
        for data in records:
            given_id = next((str(value) for key, value in data.items() if key.lower() == "id" and value), None)
            try:
                record_id, created = write_record(
                    self.org, job.operation, job.sobject, data, external_id=job.external_id, user_id=job.created_by
                )
            except SalesforceError as error:
                results.append(RecordResult(given_id, False, False, [error]))
            else:
                results.append(RecordResult(record_id, True, created))
        batch.processed, batch.failed = len(results), sum(not result.success for result in results)
        return self.files.write(job.id, batch.result_file, [dml_results(job, results)[0].encode()])

    def batch_request(self, job: Job, batch_id: str) -> tuple[bytes, str]:
        """The batch's data as it was sent, with its media type."""
        return self.files.read(job.id, job.batch(batch_id).request_file), MEDIA_TYPES[job.content_type]

    def batch_result(self, job: Job, batch_id: str) -> bytes:
        """A DML batch's per-record results as they were written."""
        return self.files.read(job.id, job.batch(batch_id).result_file)

    def query_result(self, job_id: str, batch_id: str, result_id: str, *, user_id: str) -> tuple[bytes, str]:
        """A query batch's result in the job's content type."""
        job = self.get(job_id, user_id)
        batch = job.batch(batch_id)
        if batch.result_id is None or batch.result_id != result_id:
            raise InvalidBatch(f"Invalid result id: {result_id}")
        return self.files.read(job.id, batch.result_file), MEDIA_TYPES[job.content_type]


class _Counted:
    """Pages of records that count their records as they pass."""

    def __init__(self, pages: Any) -> None:
        self._pages = pages
        self.records = 0

    def __iter__(self) -> Any:
        for page in self._pages:
            self.records += len(page)
            yield page


def _external_id_field(sobject: SObject, name: str | None) -> str:
    """An upsert job names a field that identifies records: an external Id, or Id itself."""
    if not name:
        raise InvalidJob(f"External ID was blank for {sobject.name}. An External ID must be specified for upsert.")
    field_ = sobject.field(name)
    if field_ is None or not (field_.external_id or field_.name == "Id"):
        raise InvalidJob(
            f"Field name provided, {name} does not match an External ID, Salesforce Id, or indexed field "
            f"for {sobject.name}"
        )
    return field_.name


def _unsupported_in_bulk_query(result: QueryColumns) -> str | None:
    """Bulk query returns flat rows: no child subqueries and no aggregates (Bulk API Developer Guide,
    "Use Bulk Query"). The first message is the real org's; the second follows its pattern."""
    if any(column["aggregate"] and column["joinColumns"] for column in result.columns):
        return "Aggregate Relationships not supported in Bulk Query"
    if result.aggregate or not result.columns:  # GROUP BY, aggregate functions, COUNT()
        return "Aggregate queries are not supported in Bulk Query"
    return None
