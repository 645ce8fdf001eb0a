"""The URL table: one line per pattern, the handler, its methods, and whether it needs a session.

Rules ending in ``/`` are also bound without it (app.py): simple-salesforce
sends ``query/?q=`` and ``sobjects/Account/``, jsforce and the sf CLI ``query?q=`` and ``sobjects``
(and Salesforce's Java client ``async/59.0/job/``, jsforce ``async/59.0/job``).
Login endpoints match on any path prefix, because simple-salesforce pastes its ``domain`` argument
(``127.0.0.1:8443/login``) in front of ``.salesforce.com/services/…``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from werkzeug.routing import BaseConverter

from .handlers import bulk1, bulk2, clock, composite, login, meta, query, search, sobjects, tooling, tree, users


class VersionConverter(BaseConverter):
    """``v59.0`` in a path; handlers receive ``"59.0"`` and echo it in every URL they return."""

    regex = r"v\d+\.\d"

    def to_python(self, value: str) -> str:
        return value[1:]

    def to_url(self, value: str) -> str:
        return f"v{value}"


class AsyncVersionConverter(BaseConverter):
    """``59.0`` in a Bulk API 1.0 path (``/services/async/59.0/job``), which has no ``v``."""

    regex = r"\d+\.\d"


CONVERTERS: dict[str, type[BaseConverter]] = {"version": VersionConverter, "async_version": AsyncVersionConverter}


class Route(NamedTuple):
    rule: str
    view: Callable
    methods: tuple[str, ...] = ("GET",)
    protected: bool = True


D = "/services/data/<version:version>"
A = "/services/async/<async_version:version>"
RESULTS = "<any(successfulResults, failedResults, unprocessedrecords, unprocessedRecords):kind>"

ROUTES = [
    Route("/services/data/", meta.versions, protected=False),
    Route(D + "/", meta.resources),
    Route(D + "/query/", query.query),
    Route(D + "/query/<locator>", query.query_more),
    Route(D + "/queryAll/", query.query_all),
    Route(D + "/queryAll/<locator>", query.query_more),
    Route(D + "/search/", search.search),
    Route(D + "/tooling/query/", tooling.query),
    Route(D + "/tooling/query/<locator>", tooling.query_more),
    Route(D + "/tooling/sobjects/", tooling.describe_global),
    Route(D + "/tooling/sobjects/<sobject>/describe/", tooling.describe_sobject),
    Route(D + "/limits/", meta.limits),
    Route(D + "/limits/recordCount/", meta.record_count),
    Route(D + "/recent/", meta.recent),
    Route(D + "/sobjects/", sobjects.describe_global),
    Route(D + "/sobjects/<sobject>/", sobjects.metadata),
    Route(D + "/sobjects/<sobject>/", sobjects.create, ("POST",)),
    Route(D + "/sobjects/<sobject>/describe/", sobjects.describe),
    Route(D + "/sobjects/<sobject>/describe/<path:part>", sobjects.describe_part),
    Route(D + "/sobjects/<sobject>/deleted/", sobjects.deleted),
    Route(D + "/sobjects/<sobject>/updated/", sobjects.updated),
    Route(D + "/sobjects/<sobject>/<record_id>", sobjects.retrieve),
    Route(D + "/sobjects/<sobject>/<record_id>", sobjects.update, ("PATCH",)),
    Route(D + "/sobjects/<sobject>/<record_id>", sobjects.delete, ("DELETE",)),
    Route(D + "/sobjects/User/<user_ref>/password", users.password, ("GET", "POST", "DELETE")),
    Route(D + "/sobjects/<sobject>/<field>/<path:value>", sobjects.retrieve_by_external_id),
    Route(D + "/sobjects/<sobject>/<field>/<path:value>", sobjects.upsert, ("PATCH",)),
    Route(D + "/sobjects/<sobject>/<field>/<path:value>", sobjects.delete_by_external_id, ("DELETE",)),
    Route(D + "/crmarena/clock", clock.clock, ("GET", "PUT", "DELETE")),  # mock-only: this session's "today"
    Route(D + "/composite/", composite.composite, ("POST",)),
    Route(D + "/composite/batch/", composite.batch, ("POST",)),
    Route(D + "/composite/sobjects/", composite.create_records, ("POST",)),
    Route(D + "/composite/sobjects/", composite.update_records, ("PATCH",)),
    Route(D + "/composite/sobjects/", composite.delete_records, ("DELETE",)),
    Route(D + "/composite/sobjects/<sobject>", composite.retrieve_records, ("GET", "POST")),
    Route(D + "/composite/sobjects/<sobject>/<field>", composite.upsert_records, ("PATCH",)),
    Route(D + "/composite/tree/<sobject>", tree.tree, ("POST",)),
    Route(D + "/jobs/query/", bulk2.create_query_job, ("GET", "POST")),
    Route(D + "/jobs/ingest/", bulk2.create_ingest_job, ("GET", "POST")),
    Route(D + "/jobs/query/<job_id>/", bulk2.query_job, ("GET", "PATCH", "DELETE")),
    Route(D + "/jobs/ingest/<job_id>/", bulk2.ingest_job, ("GET", "PATCH", "DELETE")),
    Route(D + "/jobs/query/<job_id>/results/", bulk2.query_results),
    Route(D + "/jobs/ingest/<job_id>/batches/", bulk2.upload, ("PUT",)),
    Route(D + f"/jobs/ingest/<job_id>/{RESULTS}/", bulk2.ingest_results),
    Route(A + "/job/", bulk1.create_job, ("POST",)),
    Route(A + "/job/<job_id>/", bulk1.job, ("GET", "POST")),
    Route(A + "/job/<job_id>/batch/", bulk1.batches, ("GET", "POST")),
    Route(A + "/job/<job_id>/batch/<batch_id>/", bulk1.batch),
    Route(A + "/job/<job_id>/batch/<batch_id>/request/", bulk1.batch_request),
    Route(A + "/job/<job_id>/batch/<batch_id>/result/", bulk1.batch_result),
    Route(A + "/job/<job_id>/batch/<batch_id>/result/<result_id>/", bulk1.query_result),
    Route("/services/oauth2/userinfo", meta.userinfo),
    Route("/id/<org_id>/<user_id>", meta.identity, protected=False),
    Route("/services/Soap/u/<soap_version>", login.soap, ("POST",), protected=False),
    Route("/<path:prefix>/services/Soap/u/<soap_version>", login.soap, ("POST",), protected=False),
    Route("/services/oauth2/token", login.token, ("POST",), protected=False),
    Route("/<path:prefix>/services/oauth2/token", login.token, ("POST",), protected=False),
    Route("/services/oauth2/revoke", login.revoke, ("GET", "POST"), protected=False),
    Route("/<path:prefix>/services/oauth2/revoke", login.revoke, ("GET", "POST"), protected=False),
]


def endpoint(route: Route) -> str:
    """One endpoint name per handler; a handler served on several rules keeps its name."""
    return f"{route.view.__module__.rsplit('.', 1)[-1]}.{route.view.__name__}"
