"""Bulk API 2.0 (``/jobs/query``, ``/jobs/ingest``) as simple-salesforce's ``bulk2`` drives it.

Job specs and job info are JSON; data goes up and comes down as CSV. Query results carry
``Sforce-NumberOfRecords`` (the client fails without it) and ``Sforce-Locator`` (``null`` on the last page).
"""

from __future__ import annotations

from flask import Response, request

from ....errors import UnsupportedMediaType
from ...bulk.common import CSV_TYPE
from ...bulk.v2_jobs import JobStore
from ..body import read_object
from ..state import state, user_id
from ..wire import json_response, no_content


def _jobs() -> JobStore:
    return state().jobs


def _list(query: bool) -> Response:
    """The jobs the caller may see: its own, or everyone's with View All Data."""
    records = [job.info() for job in _jobs().list(query=query, user_id=user_id())]
    return json_response({"done": True, "records": records, "nextRecordsUrl": None})


def create_query_job(version: str) -> Response:
    if request.method == "GET":
        return _list(True)
    job = _jobs().create_query(read_object(), user_id=user_id(), version=version)
    info = job.info()
    info["state"] = "UploadComplete"  # what a real org answers at creation; the first poll sees JobComplete
    return json_response(info)


def create_ingest_job(version: str) -> Response:
    if request.method == "GET":
        return _list(False)
    return json_response(_jobs().create_ingest(read_object(), user_id=user_id(), version=version).info())


def _job(job_id: str, query: bool) -> Response:
    if request.method == "DELETE":
        _jobs().delete(job_id, query=query, user_id=user_id())
        return no_content()
    if request.method == "PATCH":
        new_state = str(read_object().get("state"))
        return json_response(_jobs().change_state(job_id, new_state, query=query, user_id=user_id()))
    return json_response(_jobs().get(job_id, query=query, user_id=user_id()).info())


def query_job(version: str, job_id: str) -> Response:
    return _job(job_id, True)


def ingest_job(version: str, job_id: str) -> Response:
    return _job(job_id, False)


def query_results(version: str, job_id: str) -> Response:
    max_records = request.args.get("maxRecords", type=int)
    text, count, locator = _jobs().results(
        job_id, locator=request.args.get("locator"), max_records=max_records, user_id=user_id()
    )
    headers = {"Sforce-NumberOfRecords": str(count), "Sforce-Locator": locator}
    return Response(text, status=200, headers=headers, content_type=CSV_TYPE)


def upload(version: str, job_id: str) -> Response:
    if (request.mimetype or "text/csv").lower() != "text/csv":
        raise UnsupportedMediaType(f"Content type '{request.content_type}' not supported; upload CSV (text/csv)")
    _jobs().upload(job_id, request.stream, user_id=user_id())  # read as it is copied, never whole into memory
    response = Response(status=201)
    response.headers.pop("Content-Type", None)
    return response


def ingest_results(version: str, job_id: str, kind: str) -> Response:
    return Response(_jobs().ingest_results(job_id, kind, user_id=user_id()), status=200, content_type=CSV_TYPE)
