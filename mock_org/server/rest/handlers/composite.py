"""``/composite`` (subrequests with reference Ids) and ``/composite/sobjects`` (record collections).

With ``allOrNone`` every write runs inside one org transaction, so either all of them land or none
does; reads inside it see the earlier subrequests' writes (Storage joins nested transactions on the
same thread). Subrequests are dispatched through the app's own URL map and handlers, so they answer
exactly what the same request sent alone would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import Any

from flask import Response, current_app, request
from werkzeug.exceptions import HTTPException

from ....errors import ExceededIdLimit, InvalidOperation, JsonParserError, SalesforceError
from .. import errors
from ..body import read_object
from ..state import org, user_id
from ..wire import json_response

MAX_SUBREQUESTS = 25
MAX_RECORDS = 200
_REFERENCE = re.compile(r"@\{([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_]+|\[\d+\])*)\}")
_STEP = re.compile(r"\.([A-Za-z0-9_]+)|\[(\d+)\]")
HALTED = "The transaction was rolled back since another operation in the same transaction failed."
ROLLED_BACK = "Record rolled back because not all records were valid and the request was using AllOrNone header"


class RollBack(Exception):
    """Raised inside an all-or-nothing transaction to undo it."""


def check_record_count(count: int) -> None:
    """Collections and sObject trees take at most 200 records a call."""
    if count > MAX_RECORDS:
        raise ExceededIdLimit(f"record limit reached. cannot submit more than {MAX_RECORDS} records into this call")


@contextmanager
def _all_or_none(enabled: bool) -> Iterator[None]:
    """One transaction around the block when ``enabled`` (a read-only org has no writes to undo)."""
    transaction = org().transaction() if enabled and not org().read_only else nullcontext()
    try:
        with transaction:
            yield
    except RollBack:
        pass


# ----------------------------------------------------------------------------- /composite


class _Unresolved(Exception):
    pass


def _resolve(value: Any, results: dict[str, Any]) -> Any:
    """Replace ``@{referenceId.path}`` in strings (anywhere in the body) with earlier results' values."""
    if isinstance(value, dict):
        return {key: _resolve(item, results) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolve(item, results) for item in value]
    if not isinstance(value, str) or "@{" not in value:
        return value
    whole = _REFERENCE.fullmatch(value)
    if whole:
        return _lookup(whole, results)
    return _REFERENCE.sub(lambda match: str(_lookup(match, results)), value)


def _lookup(match: re.Match[str], results: dict[str, Any]) -> Any:
    name, path = match.groups()
    if name not in results:
        raise _Unresolved(match.group(0))
    current = results[name]
    for key, index in _STEP.findall(path):
        try:
            current = current[key] if key else current[int(index)]
        except (KeyError, IndexError, TypeError):
            raise _Unresolved(match.group(0)) from None
    if current is None:
        raise _Unresolved(match.group(0))
    return current


def _dispatch(method: str, url: str, body: Any) -> tuple[int, Any, dict[str, str]]:
    """Run one subrequest through the app's own routes; its status, parsed body and headers."""
    path, _, query = url.partition("?")
    if not path.startswith("/services/data/") or "/composite" in path:
        return 400, errors.error_body("INVALID_API_INPUT", f"Invalid subrequest URL: {url}"), {}
    headers = {"Authorization": request.headers.get("Authorization", ""), "Content-Type": "application/json"}
    data = json.dumps(body) if body is not None else None
    with current_app.test_request_context(path, method=method, query_string=query, data=data, headers=headers):
        try:
            endpoint, arguments = current_app.url_map.bind_to_environ(request.environ).match()
            response = current_app.make_response(
                current_app.ensure_sync(current_app.view_functions[endpoint])(**arguments)
            )
        except SalesforceError as error:
            response = errors.salesforce_error(error)
        except HTTPException as error:
            response = errors.http_error(error)
        text = response.get_data(as_text=True)
    parsed = json.loads(text) if text else None
    extra: dict[str, str] = {}
    if response.status_code == 201 and isinstance(parsed, dict) and parsed.get("id"):
        extra["Location"] = f"{path.rstrip('/')}/{parsed['id']}"
    return response.status_code, parsed, extra


def _subrequests(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The request's ``compositeRequest`` or ``batchRequests``: 1 to 25 subrequest objects."""
    subrequests = spec.get(key)
    if not isinstance(subrequests, list) or not subrequests or not all(isinstance(sub, dict) for sub in subrequests):
        raise JsonParserError(f"{key} must be a non-empty array of subrequest objects")
    if len(subrequests) > MAX_SUBREQUESTS:
        raise InvalidOperation(f"A {key} may have at most {MAX_SUBREQUESTS} subrequests")
    return subrequests


def composite(version: str) -> Response:
    spec = read_object()
    subrequests = _subrequests(spec, "compositeRequest")
    all_or_none = bool(spec.get("allOrNone"))
    answers: list[dict[str, Any]] = []
    results: dict[str, Any] = {}
    failed = False
    with _all_or_none(all_or_none):
        for sub in subrequests:
            reference = str(sub.get("referenceId") or "")
            headers: dict[str, str]
            if failed and all_or_none:
                answers.append(_answer(reference, 400, errors.error_body("PROCESSING_HALTED", HALTED)))
                continue
            try:
                url = _resolve(str(sub.get("url") or ""), results)
                body = _resolve(sub.get("body"), results)
            except _Unresolved as missing:
                message = (
                    f"Invalid reference specified. No value for {missing} found. Provided referenceId ({reference})"
                )
                status, parsed, headers = 400, errors.error_body("PROCESSING_HALTED", message), {}
            else:
                status, parsed, headers = _dispatch(str(sub.get("method") or "GET").upper(), url, body)
            if status < 300:
                results[reference] = parsed
            else:
                failed = True
            answers.append(_answer(reference, status, parsed, headers))
        if failed and all_or_none:
            for answer in answers:
                if answer["httpStatusCode"] < 300:
                    answer.update(
                        body=errors.error_body("PROCESSING_HALTED", HALTED), httpHeaders={}, httpStatusCode=400
                    )
            raise RollBack
    return json_response({"compositeResponse": answers})


BATCH_HALTED = "Batch processing halted per request"
_BATCH_URL = re.compile(r"/?(?:services/data/)?(v\d+\.\d/.*)")


def batch(version: str) -> Response:
    """``/composite/batch``: up to 25 independent subrequests, each committed on its own; with
    ``haltOnError`` the ones after a failure answer 412 BATCH_PROCESSING_HALTED (REST API Developer
    Guide, "Batch Request Body"). A malformed batch fails whole, before any subrequest runs."""
    spec = read_object()
    calls = []
    for sub in _subrequests(spec, "batchRequests"):
        match = _BATCH_URL.fullmatch(str(sub.get("url") or ""))
        method = str(sub.get("method") or "").upper()
        if match is None or method not in ("GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"):
            raise InvalidOperation(f"Invalid subrequest: {sub.get('method')} {sub.get('url')}")
        calls.append((method, "/services/data/" + match.group(1), sub.get("richInput")))
    results: list[dict[str, Any]] = []
    halted = False
    for method, url, body in calls:
        if halted:
            results.append({"statusCode": 412, "result": errors.error_body("BATCH_PROCESSING_HALTED", BATCH_HALTED)})
            continue
        status, parsed, _headers = _dispatch(method, url, body)
        results.append({"statusCode": status, "result": parsed})
        halted = status >= 400 and bool(spec.get("haltOnError"))
    return json_response({"hasErrors": any(result["statusCode"] >= 400 for result in results), "results": results})


def _answer(reference: str, status: int, body: Any, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return {"body": body, "httpHeaders": headers or {}, "httpStatusCode": status, "referenceId": reference}


# ----------------------------------------------------------------------------- /composite/sobjects


def _outcome(operation: Callable[[], str], record_id: str | None = None) -> dict[str, Any]:
    try:
        record_id = operation()
    except SalesforceError as error:
        entry = {"statusCode": error.error_code, "message": error.message, "fields": error.fields or []}
        result: dict[str, Any] = {"success": False, "errors": [entry]}
        return {"id": record_id, **result} if record_id else result
    return {"id": record_id, "success": True, "errors": []}


def _collection(operations: list[tuple[Callable[[], str], str | None]], all_or_none: bool) -> Response:
    check_record_count(len(operations))
    outcomes: list[dict[str, Any]] = []
    with _all_or_none(all_or_none):
        outcomes = [_outcome(operation, record_id) for operation, record_id in operations]
        if all_or_none and not all(outcome["success"] for outcome in outcomes):
            for outcome in outcomes:
                if outcome["success"]:
                    entry = {"statusCode": "ALL_OR_NONE_OPERATION_ROLLED_BACK", "message": ROLLED_BACK, "fields": []}
                    outcome.update(success=False, errors=[entry])
            raise RollBack
    return json_response(outcomes)


def _records(spec: dict[str, Any]) -> list[dict[str, Any]]:
    records = spec.get("records")
    if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
        raise JsonParserError("records must be an array of sObjects")
    return records


def _type_of(record: dict[str, Any]) -> str:
    attributes = record.get("attributes")
    kind = attributes.get("type") if isinstance(attributes, dict) else None
    if not kind:
        raise InvalidOperation("Each record must have attributes.type")
    return str(kind)


def create_records(version: str) -> Response:
    spec = read_object()
    me = user_id()

    def create(record: dict[str, Any]) -> str:
        return org().create(_type_of(record), record, user_id=me)

    operations: list[tuple[Callable[[], str], str | None]] = [
        (partial(create, record), None) for record in _records(spec)
    ]
    return _collection(operations, bool(spec.get("allOrNone")))


def _update(record: dict[str, Any], me: str) -> str:
    record_id = str(record.get("Id") or record.get("id") or "")
    data = {key: value for key, value in record.items() if key.lower() != "id"}
    org().update(_type_of(record), record_id, data, user_id=me)
    return record_id


def update_records(version: str) -> Response:
    spec = read_object()
    me = user_id()
    operations: list[tuple[Callable[[], str], str | None]] = [
        (partial(_update, record, me), str(record.get("Id") or "") or None) for record in _records(spec)
    ]
    return _collection(operations, bool(spec.get("allOrNone")))


def upsert_records(version: str, sobject: str, field: str) -> Response:
    spec = read_object()
    me = user_id()

    def upsert(record: dict[str, Any]) -> str:
        value = next((v for k, v in record.items() if k.lower() == field.lower()), None)
        if value is None:
            raise InvalidOperation(f"Missing value for the external ID field {field}", [field])
        return org().upsert(sobject, field, str(value), record, user_id=me)[0]

    operations: list[tuple[Callable[[], str], str | None]] = [
        (partial(upsert, record), None) for record in _records(spec)
    ]
    return _collection(operations, bool(spec.get("allOrNone")))


def _delete(record_id: str, me: str) -> str:
    sobject = org().schema.by_prefix(record_id[:3])
    if sobject is None:
        raise InvalidOperation(f"invalid record id: {record_id}")
    org().delete(sobject.name, record_id, user_id=me)
    return record_id


def delete_records(version: str) -> Response:
    ids = [value for value in request.args.get("ids", "").split(",") if value]
    me = user_id()
    operations: list[tuple[Callable[[], str], str | None]] = [
        (partial(_delete, record_id, me), record_id) for record_id in ids
    ]
    return _collection(operations, request.args.get("allOrNone", "").lower() == "true")


def retrieve_records(version: str, sobject: str) -> Response:
    """``GET ?ids=…&fields=…`` or ``POST {"ids", "fields"}``: the records in the order asked, null if missing."""
    if request.method == "POST":
        spec = read_object()
        ids, fields = spec.get("ids") or [], spec.get("fields") or []
        if not (isinstance(ids, list) and isinstance(fields, list)):
            raise JsonParserError("ids and fields must be arrays of strings")
        ids, fields = [str(value) for value in ids], [str(value) for value in fields]
    else:
        ids = [value for value in request.args.get("ids", "").split(",") if value]
        fields = [value for value in request.args.get("fields", "").split(",") if value]
    found: list[Any] = []
    for record_id in ids:
        try:
            found.append(org().retrieve(sobject, record_id, fields=fields or None, version=version))
        except SalesforceError as error:
            if error.error_code != "NOT_FOUND":
                raise
            found.append(None)
    return json_response(found)
