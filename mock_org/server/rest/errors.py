"""The one place where errors become HTTP: status by error code, and the bodies clients parse.

REST errors are the JSON array ``[{"message", "errorCode", "fields"?}]`` (reference/salesforce_api.md
§5); CRMArena's harness ``ast.literal_eval``s what simple-salesforce prints of it, so it must stay a
list of plain dicts. Routing errors (unknown URL, wrong verb) get the same array; anything
unexpected is logged and answered as UNKNOWN_EXCEPTION, never as an HTML page or a traceback. The
login endpoints speak their own protocols: a SOAP fault, or an OAuth error object; Bulk API 1.0
(``/services/async``) its own error document, ``exceptionCode`` and ``exceptionMessage`` in XML or JSON,
with status 400 for all but a server fault (Bulk API Developer Guide, "HTTP Status Codes").
"""

from __future__ import annotations

import logging
import secrets
from html import escape

from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from ...errors import AsyncApiError, MultipleRecords, SalesforceError
from ..bulk.v1_documents import error_document
from .handlers.bulk1 import reply_format
from .state import state
from .wire import json_response

log = logging.getLogger(__name__)

STATUS_BY_CODE = {
    "INVALID_SESSION_ID": 401,
    "REQUEST_LIMIT_EXCEEDED": 403,
    "INSUFFICIENT_ACCESS": 403,
    "INSUFFICIENT_ACCESS_OR_READONLY": 403,  # the server's --read-only mode refuses writes
    "API_DISABLED_FOR_ORG": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "UNKNOWN_EXCEPTION": 500,
}
# Errors raised by the router or werkzeug itself, by HTTP status.
CODE_BY_HTTP_STATUS = {
    400: "JSON_PARSER_ERROR",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}
NOT_FOUND_MESSAGE = "The requested resource does not exist"
# REST errors that can reach a Bulk API 1.0 request (the session check, the allowance), as its codes.
ASYNC_CODE_BY_REST_CODE = {
    "INVALID_SESSION_ID": "InvalidSessionId",
    "REQUEST_LIMIT_EXCEEDED": "ExceededQuota",
    "INSUFFICIENT_ACCESS_OR_READONLY": "InvalidUser",
}
# Bulk API 1.0 says "Invalid session id" whatever the reason (simple-salesforce issue #619, apache/camel #826).
ASYNC_SESSION_MESSAGE = "Invalid session id"


def status_of(error: SalesforceError) -> int:
    return STATUS_BY_CODE.get(error.error_code, 400)


def error_body(code: str, message: str, fields: list[str] | None = None) -> list[dict[str, object]]:
    entry: dict[str, object] = {"message": message, "errorCode": code}
    if fields is not None:
        entry["fields"] = fields
    return [entry]


def salesforce_error(error: SalesforceError) -> Response:
    if _is_async():
        code = error.error_code if isinstance(error, AsyncApiError) else ASYNC_CODE_BY_REST_CODE.get(error.error_code)
        if code == "InvalidSessionId":
            return async_error(code, ASYNC_SESSION_MESSAGE)
        return async_error(code or "ClientInputError", error.message)
    if isinstance(error, MultipleRecords):
        # 300 Multiple Choices with the matching records' URLs, as get_by_custom_id and upsert see it.
        version = (request.view_args or {}).get("version", "59.0")
        sobject = (request.view_args or {}).get("sobject", "")
        return json_response([f"/services/data/v{version}/sobjects/{sobject}/{record}" for record in error.ids], 300)
    return json_response([error.to_json()], status_of(error))


def http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if _is_async():
        if status == 405:
            return async_error("InvalidUrl", f"HTTP Method '{request.method}' not allowed for {request.path}", 405)
        if status == 404:
            return async_error("InvalidUrl", f"Invalid URL: {request.path}")
        return async_error("ClientInputError", error.description or error.name)
    if status == 404:
        message = NOT_FOUND_MESSAGE
    elif status == 405:
        allowed = ",".join(sorted(error.valid_methods or [])) if hasattr(error, "valid_methods") else ""
        message = f"HTTP Method '{request.method}' not allowed. Allowed are {allowed}"
    else:
        message = error.description or error.name
    return json_response(error_body(CODE_BY_HTTP_STATUS.get(status, "UNKNOWN_EXCEPTION"), message), status)


def unexpected_error(error: Exception) -> Response:
    error_id = f"{secrets.randbelow(10**9)}-{secrets.randbelow(10**5)} ({-secrets.randbelow(10**9)})"
    log.exception("unexpected error %s on %s %s", error_id, request.method, request.path, exc_info=error)
    message = f"An unexpected error occurred. Please include this ErrorId if you contact support: {error_id}"
    if _is_async():
        return async_error("Unknown", message, 500)
    return json_response(error_body("UNKNOWN_EXCEPTION", message), 500)


def _is_async() -> bool:
    return request.path.lstrip("/").startswith("services/async/")


def async_error(code: str, message: str, status: int = 400) -> Response:
    """A Bulk API 1.0 error, in the format of the request, or else of the job it names (XML by default)."""
    job_id = (request.view_args or {}).get("job_id")
    session = getattr(g, "session", None)  # a job answers in its format only to those who may see it
    job = state().bulk1.find(job_id, session.user.id) if job_id and session is not None else None
    body, content_type = error_document(code, message, reply_format(job))
    return Response(body, status=status, content_type=content_type)


def register(app: Flask) -> None:
    app.register_error_handler(SalesforceError, salesforce_error)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, unexpected_error)


# ----------------------------------------------------------------------------- login protocols

SOAP_XML = "text/xml;charset=UTF-8"


def soap_fault(code: str, message: str) -> Response:
    """The partner API's login fault: HTTP 500 and ``sf:exceptionCode`` / ``sf:exceptionMessage``
    with the ``sf:`` prefix, which simple-salesforce matches literally (salesforce_api.md §2.3)."""
    code, message = escape(code), escape(message)
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
        'xmlns:sf="urn:fault.partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        "<soapenv:Body><soapenv:Fault>"
        f"<faultcode>sf:{code}</faultcode><faultstring>{code}: {message}</faultstring>"
        '<detail><sf:LoginFault xsi:type="sf:LoginFault">'
        f"<sf:exceptionCode>{code}</sf:exceptionCode><sf:exceptionMessage>{message}</sf:exceptionMessage>"
        "</sf:LoginFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>"
    )
    return Response(body, status=500, content_type=SOAP_XML)


def oauth_error(error: str, description: str, status: int = 400) -> Response:
    """The token endpoint's failure: ``{"error", "error_description"}`` (simple-salesforce raises
    SalesforceAuthenticationFailed with both)."""
    return json_response({"error": error, "error_description": description}, status)
