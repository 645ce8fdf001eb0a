"""Drives unmodified salesforce-bulk (heroku/salesforce-bulk) as its README shows: query jobs in CSV, JSON
and XML, and insert, update, upsert and delete jobs in each format. Prints what it saw as one JSON object.

Environment: INSTANCE_URL, SESSION_ID, REQUESTS_CA_BUNDLE.
"""

from __future__ import annotations

import io
import json
import os
import sys
from xml.etree import ElementTree as ET

import unicodecsv
from salesforce_bulk import CsvDictsAdapter, SalesforceBulk
from salesforce_bulk.salesforce_bulk import BulkBatchFailed

NS = "http://www.force.com/2009/06/asyncapi/dataload"
QUERY = "SELECT Id, Name, Account.Name FROM Contact WHERE CreatedDate = 2024-01-01T00:00:00Z ORDER BY Name"  # the fixed ones

bulk = SalesforceBulk(sessionId=os.environ["SESSION_ID"], host=os.environ["INSTANCE_URL"], API_version="59.0")
seen: dict = {}


def finish(job: str, batch: str) -> None:
    bulk.close_job(job)
    bulk.wait_for_batch(job, batch, timeout=60, sleep_interval=0.2)


def xml_record(element: ET.Element) -> dict:
    """``<records><Id>…</Id><Account><Name>…</Name></Account></records>`` as nested dicts."""
    return {child.tag.split("}")[-1]: xml_record(child) if len(child) else child.text for child in element}


def query(content_type: str, soql: str = QUERY) -> list:
    job = bulk.create_query_job(soql.split(" FROM ")[1].split()[0], contentType=content_type)
    batch = bulk.query(job, soql)
    finish(job, batch)
    rows = []
    for result in bulk.get_all_results_for_query_batch(batch, job):
        if content_type == "CSV":
            rows += [dict(row) for row in unicodecsv.DictReader(result, encoding="utf-8")]
        elif content_type == "JSON":
            rows += json.load(io.TextIOWrapper(result, "utf-8"))
        else:
            tree = ET.parse(result)
            rows += [xml_record(record) for record in tree.getroot()]
    return rows


def load(operation: str, content_type: str, records: list[dict], sobject: str = "Issue__c", **options: str) -> list:
    job = bulk.create_job(sobject, operation, contentType=content_type, **options)
    if content_type == "CSV":
        data = CsvDictsAdapter(iter(records))
    elif content_type == "JSON":
        data = json.dumps(records).encode("utf-8")
    else:
        root = ET.Element("sObjects", xmlns=NS)
        for record in records:
            element = ET.SubElement(root, "sObject")
            for name, value in record.items():
                ET.SubElement(element, name).text = value
        data = ET.tostring(root, encoding="UTF-8")
    batch = bulk.post_batch(job, data)
    finish(job, batch)
    return [list(result) for result in bulk.get_batch_results(batch, job)]


for kind in ("CSV", "JSON", "XML"):
    seen[f"query{kind}"] = query(kind)
    records = [{"Name": f"Bulk {kind} {n}", "Description__c": kind} for n in ("one", "two")]
    inserted = load("insert", kind, [*records, {"Name": "", "Description__c": "no name"}])
    seen[f"insert{kind}"] = inserted
    ids = [row[0] for row in inserted[:2]]
    if kind == "XML":  # salesforce-bulk drops the Id of XML results (its getid has no return): read them back
        ids = [
            row["Id"] for row in query("CSV", f"SELECT Id FROM Issue__c WHERE Name LIKE 'Bulk {kind}%' ORDER BY Name")
        ]
    seen[f"update{kind}"] = load("update", kind, [{"Id": ids[0], "Description__c": f"updated in {kind}"}])
    seen[f"upsert{kind}"] = load(
        "upsert",
        kind,
        [{"External_ID__c": f"SB_{kind}", "Name": f"salesforce-bulk {kind}"}],
        "Product2",
        external_id_name="External_ID__c",
    )
    seen[f"delete{kind}"] = load("delete", kind, [{"Id": record_id} for record_id in ids])

job = bulk.create_query_job("Contact", contentType="CSV")
batch = bulk.query(job, "SELECT Nope FROM Contact")
bulk.close_job(job)
try:
    bulk.wait_for_batch(job, batch, timeout=30, sleep_interval=0.2)
except BulkBatchFailed as error:
    seen["failed"] = {"state": error.state, "message": error.state_message}
seen["batchList"] = [info["state"] for info in bulk.get_batch_list(job)]
seen["jobState"] = bulk.job_status(job)["state"]
aborted = bulk.create_insert_job("Issue__c", contentType="CSV")
bulk.abort_job(aborted)
seen["aborted"] = bulk.job_state(aborted)
json.dump(seen, sys.stdout)
