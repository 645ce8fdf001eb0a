"""Bulk API 1.0 jobs and batches: the state a real org keeps, and the work it does on each batch.

A job is created Open, takes batches until it is Closed or Aborted, and counts what its batches did.
A batch is processed as soon as it is added, so by the first poll it is ``Completed`` (or ``Failed``,
with the real org's ``stateMessage``); the handlers answer the add itself as ``Queued``, as a real org
does. DML batches run one record at a time (each succeeds or fails alone), query batches keep their
records for the result documents. No HTTP here; handlers/bulk1.py speaks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidBatch, InvalidJob, InvalidJobState, InvalidUser, NotFound, SalesforceError
from ..schema import SObject
from .bulk1_requests import read_query, read_records
from .bulk_common import (
    DML_OPERATIONS,
    QUERY_OPERATIONS,
    BulkJob,
    JobRegistry,
    QueryResult,
    run_query,
    write_record,
)

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
    id: str
    job_id: str
    created: str  # the REST API's datetime format, like a job's
    request: bytes  # the data as it was sent, for ``batch/{id}/request``
    state: str = "Queued"
    state_message: str | None = None
    modstamp: str | None = None
    results: list[RecordResult] = field(default_factory=list)
    query: QueryResult | None = None
    result_id: str | None = None

    @property
    def processed(self) -> int:
        return len(self.query.records) if self.query else len(self.results)

    @property
    def failed(self) -> int:
        return sum(not result.success for result in self.results)


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

    def get(self, job_id: str) -> Job:
        job = self.find(job_id)
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
        job = Job(id=self.minter.mint("750"), operation=operation, sobject=sobject.name, created_by=user_id,
                  created=self.now(), version=version, content_type=job_type, concurrency_mode=mode,
                  external_id=external_id)  # fmt: skip
        return self._add(job.id, job)

    def change_state(self, job_id: str, new_state: str) -> Job:
        """Close a job (no more batches) or abort it (batches not yet processed are not processed)."""
        with self._lock:
            job = self.get(job_id)
            allowed = {"Closed": ("Open",), "Aborted": ("Open", "Closed")}.get(new_state, ())
            if job.state not in allowed:
                raise InvalidJobState(f"Invalid state change from {job.state} to {new_state or 'null'}")
            job.state = new_state
            job.modstamp = self.now()
            if new_state == "Aborted":
                for batch in job.batches:
                    if batch.state in ("Queued", "InProgress"):
                        batch.state = "NotProcessed"
            self._save(job)
        return job

    def add_batch(self, job_id: str, data: bytes) -> Batch:
        """Add a batch to an Open job and process it at once (outside the lock: other batches may come
        meanwhile, so the processed batch goes back into the job as it stands then)."""
        with self._lock:
            job = self.get(job_id)
            if job.state != "Open":
                raise InvalidJob(f"Job {job.id} is {job.state}; batches can be added to Open jobs only")
            batch = Batch(id=self.minter.mint("751"), job_id=job.id, created=self.now(), request=data)
            job.batches.append(batch)
            self._save(job)
        self._process(job, batch)
        with self._lock:
            job = self.get(job_id)
            job.batches = [batch if kept.id == batch.id else kept for kept in job.batches]
            self._save(job)
        return batch

    def _process(self, job: Job, batch: Batch) -> None:
        try:
            if job.is_query:
                self._run_query(job, batch)
            else:
                self._run_dml(job, batch)
        except SalesforceError as error:
            batch.state, batch.state_message = "Failed", f"{error.error_code} : {error.message}"
        else:
            batch.state = "Completed"
        batch.modstamp = self.now()

    def _run_query(self, job: Job, batch: Batch) -> None:
        soql = read_query(batch.request)
        try:
            result = run_query(self.org, soql, include_deleted=job.operation == "queryAll", user_id=job.created_by,
                               version=job.version)  # fmt: skip
        except SalesforceError as error:
            raise InvalidBatch(f"Failed to process query: {error.error_code}: {error.message}") from None
        unsupported = _unsupported_in_bulk_query(result)
        if unsupported:
            raise InvalidBatch(f"Failed to process query: FUNCTIONALITY_NOT_ENABLED: {unsupported}")
        batch.query, batch.result_id = result, self.minter.mint("752")

    def _run_dml(self, job: Job, batch: Batch) -> None:
        header, records = read_records(job.content_type, batch.request)
        sobject = self.org.sobject(job.sobject)
        unknown = [name for name in header or [] if sobject.field(name) is None]
        if unknown:
            raise InvalidBatch(f"Field name not found : {unknown[0]}")
        for data in records:
            given_id = next((str(value) for key, value in data.items() if key.lower() == "id" and value), None)
            try:
                record_id, created = write_record(self.org, job.operation, job.sobject, data,
                                                  external_id=job.external_id, user_id=job.created_by)  # fmt: skip
            except SalesforceError as error:
                batch.results.append(RecordResult(given_id, False, False, [error]))
            else:
                batch.results.append(RecordResult(record_id, True, created))

    def query_result(self, job_id: str, batch_id: str, result_id: str) -> tuple[Job, QueryResult]:
        job = self.get(job_id)
        batch = job.batch(batch_id)
        if batch.query is None or batch.result_id != result_id:
            raise InvalidBatch(f"Invalid result id: {result_id}")
        return job, batch.query


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


def _unsupported_in_bulk_query(result: QueryResult) -> str | None:
    """Bulk query returns flat rows: no child subqueries and no aggregates (Bulk API Developer Guide,
    "Use Bulk Query"). The first message is the real org's; the second follows its pattern."""
    if any(column["aggregate"] and column["joinColumns"] for column in result.columns):
        return "Aggregate Relationships not supported in Bulk Query"
    if result.aggregate or not result.columns:  # GROUP BY, aggregate functions, COUNT()
        return "Aggregate queries are not supported in Bulk Query"
    return None
