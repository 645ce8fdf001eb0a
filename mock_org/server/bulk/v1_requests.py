"""Bulk API 1.0 request bodies: job documents (``jobInfo``) in XML or JSON, and batch data in CSV, JSON or XML.

No HTTP here: the handlers pass the raw bytes and the Content-Type's media type. XML is parsed with the
standard library after refusing any document type declaration, so that no entity can be defined, let
alone expanded (defusedxml is not a dependency of this project).
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from typing import Any

from ...errors import ClientInputError, InvalidBatch, InvalidXml, JsonParserError, UnsupportedContentType
from ..rest.body import parse_json
from .common import row_data

NAMESPACE = "http://www.force.com/2009/06/asyncapi/dataload"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
# The formats a job's data comes in, by the media type of the request that carries them.
FORMAT_BY_MEDIA_TYPE = {"application/xml": "XML", "text/xml": "XML", "application/json": "JSON", "text/csv": "CSV"}
_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def media_format(mimetype: str | None) -> str | None:
    """``XML``, ``JSON`` or ``CSV`` for a request's media type; None when there is none or it is another."""
    return FORMAT_BY_MEDIA_TYPE.get((mimetype or "").lower())


def read_job_document(raw: bytes, mimetype: str | None) -> tuple[str, dict[str, Any]]:
    """A ``jobInfo`` sent to create or change a job: its format (XML or JSON) and its fields by name.

    Without a Content-Type the document is read as XML, the Bulk API's own format.
    """
    body_format = media_format(mimetype) if mimetype else "XML"
    if body_format == "XML":
        root = parse_xml(raw)
        if _local(root.tag) != "jobInfo":
            raise InvalidXml(f"Expected a jobInfo element, found {_local(root.tag)}")
        return "XML", {_local(child.tag): (child.text or "").strip() for child in root}
    if body_format == "JSON":
        try:
            document = parse_json(raw)
        except JsonParserError as error:
            raise ClientInputError(f"Failed to parse the job: {error.message}") from None
        if not isinstance(document, dict):
            raise ClientInputError("Failed to parse the job: a JSON object was expected")
        return "JSON", document
    raise UnsupportedContentType(f"Unsupported content type: {mimetype}")


def parse_xml(raw: bytes) -> ET.Element:
    """A UTF-8 XML document without a DOCTYPE (so without entities), or InvalidXML."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidXml(f"Failed to parse XML: invalid UTF-8 byte at offset {error.start}") from None
    if _DECLARATION.search(text):
        raise InvalidXml("Failed to parse XML: DOCTYPE and ENTITY declarations are not allowed")
    if not text.strip():
        raise InvalidXml("Failed to parse XML: the request body is empty")
    try:
        return ET.fromstring(text.strip().encode("utf-8"))
    except ET.ParseError as error:
        line, column = error.position
        raise InvalidXml(f"Failed to parse XML: {_reason(error)} at [row,col]:[{line},{column + 1}]") from None


def _reason(error: ET.ParseError) -> str:
    return str(error).split(":", 1)[0]


def _local(tag: str) -> str:
    """An element's name without its namespace (clients differ on whether they send one)."""
    return tag.rsplit("}", 1)[-1]


def read_records(body_format: str, raw: bytes) -> tuple[list[str] | None, list[dict[str, Any]]]:
    """A DML batch's records as the fields each sets, with the CSV header when the batch is CSV.

    Raises InvalidBatch for data that cannot be read; the batch then fails with that message.
    """
    if body_format == "CSV":
        return _csv_records(raw)
    if body_format == "JSON":
        try:
            records = parse_json(raw)
        except JsonParserError as error:
            raise InvalidBatch(f"Failed to parse JSON: {error.message}") from None
        if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
            raise InvalidBatch("Failed to parse JSON: a batch is an array of records (JSON objects)")
        return None, records
    try:
        root = parse_xml(raw)
    except InvalidXml as error:
        raise InvalidBatch(error.message) from None
    return None, [_xml_record(element) for element in root if _local(element.tag) == "sObject"]


def _csv_records(raw: bytes) -> tuple[list[str], list[dict[str, Any]]]:
    try:
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    except (UnicodeDecodeError, csv.Error) as error:
        raise InvalidBatch(f"Failed to parse CSV: {error}") from None
    rows = [row for row in rows if row]
    if not rows:
        raise InvalidBatch("Failed to parse CSV: the batch has no header row")
    header = [name.strip() for name in rows[0]]
    return header, [row_data(header, row) for row in rows[1:]]


def _xml_record(element: ET.Element) -> dict[str, Any]:
    """``<sObject><Name>Acme</Name><Phone xsi:nil="true"/></sObject>``: nil sets null, like ``#N/A`` in CSV."""
    record: dict[str, Any] = {}
    for child in element:
        nil = child.get(f"{{{XSI}}}nil") == "true"
        record[_local(child.tag)] = None if nil else (child.text or "")
    return record


def read_query(raw: bytes) -> str:
    """A query batch: the SOQL statement as plain text, whatever the job's content type."""
    try:
        return raw.decode("utf-8-sig").strip()
    except UnicodeDecodeError as error:
        raise InvalidBatch(f"Failed to read the query: invalid UTF-8 byte at offset {error.start}") from None
