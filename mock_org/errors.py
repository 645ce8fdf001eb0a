"""The Salesforce errors the org raises: one class per error code, the real org's wording as templates.

Codes only; HTTP statuses live in the server (server/rest/errors.py). Query errors carry the
caret block a real org adds (``\\n<line>\\n   ^\\nERROR at Row:r:Column:c\\n<reason>``).
"""

from __future__ import annotations

from typing import Self

from soql_parser.errors import caret_block


class SalesforceError(Exception):
    """An error as the REST API reports it: ``[{"message", "errorCode", "fields"?}]``."""

    error_code = "UNKNOWN_EXCEPTION"

    def __init__(self, message: str, fields: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields

    def to_json(self) -> dict[str, object]:
        body: dict[str, object] = {"message": self.message, "errorCode": self.error_code}
        if self.fields is not None:
            body["fields"] = self.fields
        return body

    @classmethod
    def at(cls, query: str, pos: tuple[int, int] | None, reason: str) -> Self:
        """The error with the caret block pointing at ``pos`` in ``query`` (plain reason without a position)."""
        if pos is None:
            return cls(reason)
        return cls(caret_block(query, pos[0], pos[1], reason))


class MalformedQuery(SalesforceError):
    error_code = "MALFORMED_QUERY"


class MalformedSearch(SalesforceError):
    error_code = "MALFORMED_SEARCH"


class InvalidSearch(SalesforceError):
    error_code = "INVALID_SEARCH"


class InvalidField(SalesforceError):
    error_code = "INVALID_FIELD"


class InvalidType(SalesforceError):
    error_code = "INVALID_TYPE"


class InvalidQueryLocator(SalesforceError):
    error_code = "INVALID_QUERY_LOCATOR"


class NumberOutsideValidRange(SalesforceError):
    error_code = "NUMBER_OUTSIDE_VALID_RANGE"


class QueryTimeout(SalesforceError):
    error_code = "QUERY_TIMEOUT"


class QueryTooComplicated(SalesforceError):
    error_code = "QUERY_TOO_COMPLICATED"


class InvalidSessionId(SalesforceError):
    error_code = "INVALID_SESSION_ID"


class NotFound(SalesforceError):
    error_code = "NOT_FOUND"


class InvalidNewPassword(SalesforceError):
    error_code = "INVALID_NEW_PASSWORD"


class MalformedId(SalesforceError):
    error_code = "MALFORMED_ID"


class RequiredFieldMissing(SalesforceError):
    error_code = "REQUIRED_FIELD_MISSING"


class DuplicateValue(SalesforceError):
    error_code = "DUPLICATE_VALUE"


class InvalidCrossReferenceKey(SalesforceError):
    error_code = "INVALID_CROSS_REFERENCE_KEY"


class EntityIsDeleted(SalesforceError):
    error_code = "ENTITY_IS_DELETED"


class FieldIntegrityException(SalesforceError):
    error_code = "FIELD_INTEGRITY_EXCEPTION"


class InvalidOrNullForRestrictedPicklist(SalesforceError):
    error_code = "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST"


class StringTooLong(SalesforceError):
    error_code = "STRING_TOO_LONG"


class InvalidFieldForInsertUpdate(SalesforceError):
    error_code = "INVALID_FIELD_FOR_INSERT_UPDATE"


class JsonParserError(SalesforceError):
    error_code = "JSON_PARSER_ERROR"


class UnsupportedMediaType(SalesforceError):
    error_code = "UNSUPPORTED_MEDIA_TYPE"


class InsufficientAccess(SalesforceError):
    error_code = "INSUFFICIENT_ACCESS"


class InsufficientAccessOrReadonly(SalesforceError):
    error_code = "INSUFFICIENT_ACCESS_OR_READONLY"


class RequestLimitExceeded(SalesforceError):
    error_code = "REQUEST_LIMIT_EXCEEDED"


class LimitExceeded(SalesforceError):
    """A limit of the org's own reached (the Bulk API jobs or job data a user keeps)."""

    error_code = "LIMIT_EXCEEDED"


class MultipleRecords(SalesforceError):
    """An external Id that matches several records (HTTP 300 with the records' URLs)."""

    error_code = "MULTIPLE_CHOICES"

    def __init__(self, ids: list[str]) -> None:
        super().__init__(f"More than one record matches: {', '.join(ids)}")
        self.ids = ids

    def __reduce__(self) -> tuple[type, tuple[list[str]]]:  # a Bulk job's results are pickled (shared.py)
        return (type(self), (self.ids,))


class InvalidOperation(SalesforceError):
    error_code = "INVALID_OPERATION"


class ExceededIdLimit(SalesforceError):
    """More records in one call than it takes (200 for collections and sObject trees)."""

    error_code = "EXCEEDED_ID_LIMIT"


class InvalidReplicationDate(SalesforceError):
    """A bad ``start``/``end`` for ``sobjects/{Object}/deleted`` or ``updated``."""

    error_code = "INVALID_REPLICATION_DATE"


class AsyncApiError(SalesforceError):
    """Bulk API 1.0 (``/services/async``) has exception codes of its own, in CamelCase, sent as
    ``<error><exceptionCode>…`` or ``{"exceptionCode", "exceptionMessage"}`` (salesforce_api.md §5.1).
    The codes are the Bulk API Developer Guide's "Errors" list
    (https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/asynch_api_reference_errors.htm)
    and forcedotcom/wsc's ``AsyncExceptionCode`` (InvalidVersion, UnsupportedContentType)."""


class ClientInputError(AsyncApiError):
    error_code = "ClientInputError"


class ExceededQuota(AsyncApiError):
    error_code = "ExceededQuota"


class InvalidBatch(AsyncApiError):
    error_code = "InvalidBatch"


class InvalidJob(AsyncApiError):
    error_code = "InvalidJob"


class InvalidJobState(AsyncApiError):
    error_code = "InvalidJobState"


class InvalidUrl(AsyncApiError):
    error_code = "InvalidUrl"


class InvalidUser(AsyncApiError):
    error_code = "InvalidUser"


class InvalidVersion(AsyncApiError):
    error_code = "InvalidVersion"


class InvalidXml(AsyncApiError):
    error_code = "InvalidXML"


class UnsupportedContentType(AsyncApiError):
    error_code = "UnsupportedContentType"


# Message templates, worded as real orgs word them (reference/soql_sosl.md §6, salesforce_api.md §5.3).
NO_SUCH_COLUMN = (
    "No such column '{field}' on entity '{sobject}'. If you are attempting to use a custom field, be sure to "
    "append the '__c' after the custom field name. Please reference your WSDL or the describe call for the "
    "appropriate names."
)
NO_SUCH_RELATIONSHIP = (
    "Didn't understand relationship '{name}' in field path. If you are attempting to use a custom "
    "relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL "
    "or the describe call for the appropriate names."
)
NO_SUCH_SOBJECT = (
    "sObject type '{sobject}' is not supported. If you are attempting to use a custom object, be sure to "
    "append the '__c' after the entity name. Please reference your WSDL or the describe call for the "
    "appropriate names."
)
