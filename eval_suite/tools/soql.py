"""What every tool needs to talk to an org safely: SOQL and SOSL literals built from arguments,
argument checks with clear errors, and the API's records made plain.

Datetimes always go into SOQL as explicit UTC literals (never TODAY or LAST_N_DAYS), so a tool gives
the same answer on any org clock and on a real org. String values are quoted with SOQL's escapes
(SOQL and SOSL Reference, "Quoted String Escape Sequences"), search words with SOSL's reserved
characters escaped (same reference, "FIND Clause").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime
from typing import Any

from simple_salesforce import Salesforce

ID_CHUNK = 300  # Ids per IN list, well inside SOQL's 100,000-character statement limit
_SOQL_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_SOSL_RESERVED = re.compile(r"""([?&|!{}\[\]()^~:\\'+\-])""")


class ToolError(ValueError):
    """A tool call whose arguments cannot be used; the message says what to fix."""


def quote(value: Any) -> str:
    """A SOQL string literal."""
    if not isinstance(value, str):
        raise ToolError(f"expected a string, got {value!r}")
    return "'" + "".join(_SOQL_ESCAPES.get(char, char) for char in value) + "'"


def in_list(values: Sequence[str]) -> str:
    return "(" + ", ".join(quote(value) for value in values) + ")"


def chunks(values: Sequence[str], size: int = ID_CHUNK) -> Iterator[list[str]]:
    for start in range(0, len(values), size):
        yield list(values[start : start + size])


def parse_moment(value: Any, name: str) -> datetime:
    """A tool's datetime argument ('YYYY-MM-DDTHH:MM:SSZ', any ISO 8601 form, or a bare date) as naive UTC."""
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{name} must be a datetime such as 2024-01-31T00:00:00Z, got {value!r}")
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    if re.search(r"[+-]\d{4}$", text):
        text = f"{text[:-2]}:{text[-2:]}"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{name} must be a datetime such as 2024-01-31T00:00:00Z, got {value!r}") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def format_moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def datetime_literal(value: Any, name: str) -> str:
    """An unquoted SOQL datetime literal in UTC."""
    return format_moment(parse_moment(value, name))


def date_literal(value: Any, name: str) -> str:
    """An unquoted SOQL date literal; a datetime argument gives its UTC date."""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        try:
            return date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    return parse_moment(value, name).date().isoformat()


def api_moment(value: str) -> datetime:
    """A datetime as the REST API prints it ('2020-12-22T11:00:00.000+0000'), as naive UTC."""
    return parse_moment(value, "value")


def ids(value: Any, name: str) -> list[str] | None:
    """An Id-list argument: None stays None, a lone string is a list of one."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return list(dict.fromkeys(value))
    raise ToolError(f"{name} must be a list of Ids, got {value!r}")


def search_words(term: Any) -> str:
    """Search text for FIND {…}: SOSL's reserved characters escaped, except the * and ? wildcards and
    balanced double quotes around phrases."""
    if not isinstance(term, str) or not term.strip():
        raise ToolError(f"search_term must be non-empty text, got {term!r}")
    escaped = _SOSL_RESERVED.sub(r"\\\1", term.strip())
    return escaped if escaped.count('"') % 2 == 0 else escaped.replace('"', '\\"')


def plain(value: Any) -> Any:
    """API records without their 'attributes' entries, at every level."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items() if key != "attributes"}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def query(sf: Salesforce, soql: str) -> list[dict[str, Any]]:
    """Every record of a SOQL query (all pages), made plain."""
    return plain(sf.query_all(soql)["records"])


def search(sf: Salesforce, sosl: str) -> list[dict[str, Any]]:
    return plain(sf.search(sosl).get("searchRecords", []))
