"""Raw SOQL and SOSL: any query or search the agent writes, sent as it is."""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from . import soql
from .base import RAW, define, string


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise soql.ToolError("query must be non-empty text")
    return value.strip()


def issue_soql_query(sf: Salesforce, query: str) -> list[dict[str, Any]]:
    return soql.query(sf, _text(query))


ISSUE_SOQL_QUERY = define(
    issue_soql_query,
    RAW,
    "Run a SOQL query and return every matching record (all pages), without 'attributes'.",
    {"query": string("A SOQL SELECT statement.")},
    ("query",),
)


def issue_sosl_query(sf: Salesforce, query: str) -> list[dict[str, Any]]:
    return soql.search(sf, _text(query))


ISSUE_SOSL_QUERY = define(
    issue_sosl_query,
    RAW,
    "Run a SOSL search (FIND {…} … RETURNING …) and return the matching records, without 'attributes'.",
    {"query": string("A SOSL statement.")},
    ("query",),
)

TOOLS = (ISSUE_SOQL_QUERY, ISSUE_SOSL_QUERY)
