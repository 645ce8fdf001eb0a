"""Bulk API 1.0 (``/services/async/{version}/job…``) as simple-salesforce's ``bulk`` and jsforce's ``bulk`` drive it.

simple-salesforce sends everything as JSON (a JSON job); jsforce controls its jobs in XML and sends and
reads its data as CSV. A response is in the format the request names (XML or JSON), or else the job's:
a JSON job answers in JSON, every other job in XML. Creating a job and adding a batch answer 201.
"""

from __future__ import annotations

from flask import Response, request

from ....errors import InvalidBatch, InvalidVersion
from ...bulk.v1_documents import (
    MEDIA_TYPES,
    Document,
    batch_info,
    batch_info_list,
    job_info,
    result_list,
)
from ...bulk.v1_jobs import Bulk1Jobs, Job
from ...bulk.v1_requests import media_format, read_job_document
from ...settings import OLDEST_VERSION
from ..state import state, user_id


def _jobs() -> Bulk1Jobs:
    return state().bulk1


def reply_format(job: Job | None) -> str:
    """``XML`` or ``JSON``: the request's own media type when it is one of them, else the job's."""
    requested = media_format(request.mimetype)
    if requested in ("XML", "JSON"):
        return requested
    return "JSON" if job is not None and job.content_type == "JSON" else "XML"


def _send(document: Document, status: int = 200) -> Response:
    body, content_type = document
    return Response(body, status=status, content_type=content_type)


def _job(version: str, job_id: str) -> Job:
    """The job, if the caller made it or has View All Data (else InvalidJob, as for no job at all)."""
    _check_version(version)
    return _jobs().get(job_id, user_id())


def _check_version(version: str) -> None:
    if not OLDEST_VERSION <= float(version) <= state().settings.newest_version:
        raise InvalidVersion(f"Invalid api version specified on URL: {version}")


def create_job(version: str) -> Response:
    _check_version(version)
    body_format, spec = read_job_document(request.get_data(), request.mimetype)
    job = _jobs().create(spec, user_id=user_id(), version=version)
    return _send(job_info(job, body_format), 201)


def job(version: str, job_id: str) -> Response:
    """``GET`` the job's information; ``POST`` a ``jobInfo`` with a ``state`` to close or abort it."""
    found = _job(version, job_id)
    if request.method == "GET":
        return _send(job_info(found, reply_format(found)))
    body_format, spec = read_job_document(request.get_data(), request.mimetype)
    changed = _jobs().change_state(found.id, str(spec.get("state") or ""), user_id=user_id())
    return _send(job_info(changed, body_format))


def batches(version: str, job_id: str) -> Response:
    """``GET`` the job's batches; ``POST`` data (or a query) in the job's content type to add one."""
    found = _job(version, job_id)
    if request.method == "GET":
        return _send(batch_info_list(found, reply_format(found)))
    if media_format(request.mimetype) != found.content_type:
        raise InvalidBatch(
            f"The batch's content type ({request.mimetype or 'none'}) does not match the job's "
            f"({MEDIA_TYPES[found.content_type]}, for contentType {found.content_type})"
        )
    added = _jobs().add_batch(found.id, request.stream, request.content_length or 0, user_id=user_id())
    return _send(batch_info(added, reply_format(found), as_queued=True), 201)


def batch(version: str, job_id: str, batch_id: str) -> Response:
    found = _job(version, job_id)
    return _send(batch_info(found.batch(batch_id), reply_format(found)))


def batch_request(version: str, job_id: str, batch_id: str) -> Response:
    """The batch's data as it was sent (simple-salesforce reads it for ``include_detailed_results``)."""
    body, content_type = _jobs().batch_request(_job(version, job_id), batch_id)
    return Response(body, content_type=content_type)


def batch_result(version: str, job_id: str, batch_id: str) -> Response:
    """A DML batch's per-record results, or a query batch's list of result Ids."""
    found = _job(version, job_id)
    added = found.batch(batch_id)
    if added.state != "Completed":
        raise InvalidBatch(f"Batch {added.id} is {added.state}; its results are not available")
    if found.is_query:
        return _send(result_list(added, reply_format(found)))
    return Response(_jobs().batch_result(found, batch_id), content_type=MEDIA_TYPES[found.content_type])


def query_result(version: str, job_id: str, batch_id: str, result_id: str) -> Response:
    _check_version(version)
    body, content_type = _jobs().query_result(job_id, batch_id, result_id, user_id=user_id())
    return Response(body, content_type=content_type)
