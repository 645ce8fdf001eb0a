"""Bulk API 1.0 response documents, in the format each belongs in: XML, JSON or CSV.

Job and batch information is XML (``jobInfo``, ``batchInfo``, ``batchInfoList``, ``result-list``) or, for
JSON jobs, JSON; results take the job's content type. Element order follows the Bulk API Developer
Guide's examples and Salesforce's own Java client (forcedotcom/wsc ``JobInfo``); XML dates end in ``Z``
(``2024-03-05T14:02:11.000Z``), JSON ones in ``+0000`` as REST writes them; JSON job information lists
every field alphabetically, nulls and ``fastPathEnabled`` included, as the guide's JSON example does
(https://developer.salesforce.com/docs/platform/api-asynch/guide/asynch-api-jobs-get-details.html).

Query results in JSON carry dates and datetimes as numbers, milliseconds since the epoch, where REST
has ISO text: ``{"CreatedDate": 1546659665000}`` (simple-salesforce issue #290,
https://github.com/simple-salesforce/simple-salesforce/issues/290, and heroku/salesforce-bulk issue #70,
https://github.com/heroku/salesforce-bulk/issues/70, both quoting real orgs' answers). A date is the
millisecond of its midnight UTC, by the same rule.

Every body goes out with a bare media type, ``application/xml``, ``application/json`` or ``text/csv``, no
charset parameter, as a real org sends them: heroku/salesforce-bulk (and amaxa, which uses it) compares
the header with ``==`` and reads anything else as XML. REST's own JSON carries ``;charset=UTF-8``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from ...errors import SalesforceError
from ...values import UTC, parse_datetime
from ..rest.wire import dumps
from .common import QueryColumns, cell, csv_text, error_text
from .v1_requests import NAMESPACE, XSI

if TYPE_CHECKING:
    from .v1_jobs import Batch, Job, RecordResult

XML_TYPE, JSON_TYPE, CSV_TYPE = "application/xml", "application/json", "text/csv"
MEDIA_TYPES = {"XML": XML_TYPE, "JSON": JSON_TYPE, "CSV": CSV_TYPE}
NO_RECORDS = "Records not found for this query"  # a CSV query result without rows
DATETIME_FIELDS = frozenset({"createdDate", "systemModstamp"})

Document = tuple[str, str]  # the body and its Content-Type


def job_info(job: Job, body_format: str) -> Document:
    counts = {state: job.count(state) for state in ("Queued", "InProgress", "Completed", "Failed")}
    fields: list[tuple[str, Any]] = [
        ("id", job.id),
        ("operation", job.operation),
        ("object", job.sobject),
        ("createdById", job.created_by),
        ("createdDate", job.created),
        ("systemModstamp", job.modstamp or job.created),
        ("state", job.state),
        ("externalIdFieldName", job.external_id),
        ("concurrencyMode", job.concurrency_mode),
        ("contentType", job.content_type),
        ("numberBatchesQueued", counts["Queued"]),
        ("numberBatchesInProgress", counts["InProgress"]),
        ("numberBatchesCompleted", counts["Completed"]),
        ("numberBatchesFailed", counts["Failed"]),
        ("numberBatchesTotal", len(job.batches)),
        ("numberRecordsProcessed", sum(batch.processed for batch in job.batches)),
        ("numberRetries", 0),
        ("apiVersion", float(job.version)),
        ("assignmentRuleId", None),
        ("numberRecordsFailed", sum(batch.failed for batch in job.batches)),
        ("totalProcessingTime", 0),
        ("apiActiveProcessingTime", 0),
        ("apexProcessingTime", 0),
    ]
    if body_format == "JSON":
        return _json(_sorted({**dict(fields), "fastPathEnabled": False}))
    return _xml_document("jobInfo", _xml_fields(fields))


def batch_info(batch: Batch, body_format: str, *, as_queued: bool = False) -> Document:
    """A batch's state; ``as_queued`` answers a batch just added the way a real org does, not yet started."""
    fields = _batch_fields(batch, as_queued)
    if body_format == "JSON":
        return _json(_sorted(dict(fields)))
    return _xml_document("batchInfo", _xml_fields(fields))


def batch_info_list(job: Job, body_format: str) -> Document:
    if body_format == "JSON":
        return _json({"batchInfo": [_sorted(dict(_batch_fields(batch, False))) for batch in job.batches]})
    batches = "".join(f"<batchInfo>{_xml_fields(_batch_fields(batch, False))}</batchInfo>" for batch in job.batches)
    return _xml_document("batchInfoList", batches)


def _batch_fields(batch: Batch, as_queued: bool) -> list[tuple[str, Any]]:
    state = "Queued" if as_queued else batch.state
    return [
        ("id", batch.id),
        ("jobId", batch.job_id),
        ("state", state),
        ("stateMessage", None if as_queued else batch.state_message),
        ("createdDate", batch.created),
        ("systemModstamp", batch.created if as_queued else batch.modstamp or batch.created),
        ("numberRecordsProcessed", 0 if as_queued else batch.processed),
        ("numberRecordsFailed", 0 if as_queued else batch.failed),
        ("totalProcessingTime", 0),
        ("apiActiveProcessingTime", 0),
        ("apexProcessingTime", 0),
    ]


def result_list(batch: Batch, body_format: str) -> Document:
    """A query batch's result Ids (one result here), as ``batch/{id}/result`` lists them."""
    ids = [batch.result_id] if batch.result_id else []
    if body_format == "JSON":
        return _json(ids)
    return _xml_document("result-list", "".join(f"<result>{result_id}</result>" for result_id in ids))


def dml_results(job: Job, results: list[RecordResult]) -> Document:
    """Each record's outcome, in the order the batch sent the records."""
    if job.content_type == "JSON":
        return _json([_json_result(result.id, result.success, result.created, result.errors) for result in results])
    if job.content_type == "CSV":
        rows = [["Id", "Success", "Created", "Error"]]
        for result in results:
            error = "".join(error_text(error) for error in result.errors)
            rows.append([result.id or "", cell(result.success, False), cell(result.created, False), error])
        return csv_text(rows), CSV_TYPE
    items = []
    for result in results:
        errors = "".join(_xml_error(error) for error in result.errors)
        record_id = f"<id>{result.id}</id>" if result.id and result.success else ""
        flags = _xml_fields([("success", result.success), ("created", result.created)])
        items.append(f"<result>{errors}{record_id}{flags}</result>")
    return _xml_document("results", "".join(items))


def _json_result(record_id: str | None, success: bool, created: bool, errors: list[SalesforceError]) -> dict:
    listed = [
        {"statusCode": error.error_code, "message": error.message, "fields": error.fields or []} for error in errors
    ]
    return {"success": success, "created": created, "id": record_id, "errors": listed}


def _xml_error(error: SalesforceError) -> str:
    fields = "".join(f"<fields>{escape(name)}</fields>" for name in error.fields or [])
    message = f"<message>{escape(error.message)}</message>"
    return f"<errors>{fields}{message}<statusCode>{error.error_code}</statusCode></errors>"


def query_result_chunks(
    content_type: str, columns: QueryColumns, pages: Iterable[list[dict[str, Any]]]
) -> Iterator[bytes]:
    """A query batch's result in the job's content type, a page of records at a time: CSV rows, a JSON
    array of records or an XML ``queryResult``."""
    if content_type == "CSV":
        yield from _csv_result(columns, pages)
        return
    dates = {path: "Date" for path in columns.paths_of_type("Date")}
    dates.update({path: "Datetime" for path in columns.paths_of_type("Datetime")})
    if content_type == "JSON":
        first = True
        yield b"["
        for page in pages:
            for record in page:
                yield (b"" if first else b",") + dumps(_epoch_dates(record, dates, "")).encode()
                first = False
        yield b"]"
        return
    datetimes = {path for path, apex_type in dates.items() if apex_type == "Datetime"}
    start, end = _xml_document("queryResult", "\x00", f' xmlns:xsi="{XSI}"')[0].split("\x00")
    yield start.encode()
    for page in pages:
        yield "".join(_xml_record("records", record, datetimes, "") for record in page).encode()
    yield end.encode()


def _csv_result(columns: QueryColumns, pages: Iterable[list[dict[str, Any]]]) -> Iterator[bytes]:
    """The header and rows; without a row, the text a real org answers instead."""
    any_row = False
    for page in pages:
        if not page:
            continue
        rows = [columns.row(record) for record in page]
        yield csv_text([columns.header, *rows] if not any_row else rows).encode()
        any_row = True
    if not any_row:
        yield NO_RECORDS.encode()


def _epoch_dates(record: dict[str, Any], dates: dict[str, str], prefix: str) -> dict[str, Any]:
    converted: dict[str, Any] = {}
    for key, value in record.items():
        path = prefix + key
        if isinstance(value, dict) and key != "attributes":
            converted[key] = _epoch_dates(value, dates, path + ".")
        elif path in dates and isinstance(value, str):
            converted[key] = _epoch_ms(value, dates[path])
        else:
            converted[key] = value
    return converted


def _epoch_ms(value: str, apex_type: str) -> int | str:
    try:
        if apex_type == "Datetime":
            moment = parse_datetime(value)
        else:
            moment = dt.datetime.combine(dt.date.fromisoformat(value[:10]), dt.time(), UTC)
    except ValueError:
        return value  # not a date at all: shown as stored rather than failing the whole result
    return int(moment.timestamp() * 1000)


def _xml_record(tag: str, record: dict[str, Any], datetimes: set[str], prefix: str) -> str:
    """A REST-shaped record as the XML query result writes it: ``<records xsi:type="sObject"><type>…``."""
    sobject = (record.get("attributes") or {}).get("type", "")
    parts = [f'<{tag} xsi:type="sObject"><type>{escape(sobject)}</type>']
    for key, value in record.items():
        if key == "attributes":
            continue
        if isinstance(value, dict):
            parts.append(_xml_record(key, value, datetimes, prefix + key + "."))
        elif value is None:
            parts.append(f'<{key} xsi:nil="true"/>')
        else:
            parts.append(f"<{key}>{escape(cell(value, prefix + key in datetimes))}</{key}>")
    parts.append(f"</{tag}>")
    return "".join(parts)


def error_document(code: str, message: str, body_format: str) -> Document:
    """``{"exceptionCode", "exceptionMessage"}`` or ``<error><exceptionCode>…``, the Bulk API 1.0 error."""
    if body_format == "JSON":
        return _json({"exceptionCode": code, "exceptionMessage": message})
    return _xml_document("error", _xml_fields([("exceptionCode", code), ("exceptionMessage", message)]))


# ----------------------------------------------------------------------------- formatting


def _xml_fields(fields: list[tuple[str, Any]]) -> str:
    """Elements in the given order; a null field is left out, as the Bulk API's XML leaves it out."""
    return "".join(
        f"<{name}>{escape(cell(value, name in DATETIME_FIELDS))}</{name}>"
        for name, value in fields
        if value is not None
    )


def _xml_document(root: str, content: str, attributes: str = "") -> Document:
    body = f'<?xml version="1.0" encoding="UTF-8"?><{root} xmlns="{NAMESPACE}"{attributes}>{content}</{root}>'
    return body, XML_TYPE


def _sorted(fields: dict[str, Any]) -> dict[str, Any]:
    """Job and batch information as JSON lists it: alphabetically."""
    return dict(sorted(fields.items()))


def _json(value: Any) -> Document:
    return dumps(value), JSON_TYPE
