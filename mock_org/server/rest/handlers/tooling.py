"""The Tooling API (``/services/data/vNN.N/tooling/…``): SOQL over its objects and their describes, as the sf CLI's
``--use-tooling-api`` and the Salesforce MCP server's ``run_soql_query`` with ``useToolingApi`` ask for them."""

from __future__ import annotations

from flask import Response, request

from .... import describe
from ..state import org, user_id
from ..wire import json_response
from .query import batch_size


def query(version: str) -> Response:
    result = org().tooling_query(
        request.args.get("q") or "", batch_size=batch_size(), version=version, user_id=user_id()
    )
    return json_response(result)


def query_more(version: str, locator: str) -> Response:
    return json_response(org().query_more(locator, version=version, resource="tooling/query", user_id=user_id()))


def describe_global(version: str) -> Response:
    return json_response(org().tooling_describe_global(version=version))


def describe_sobject(version: str, sobject: str) -> Response:
    return json_response(describe.describe_sobject(org().tooling_sobject(sobject), version))
