"""Serves a test org on port 443 of this network namespace's loopback as ``mock.my.salesforce.com`` (the only
host form aiosalesforce accepts) and drives unmodified aiosalesforce against it as its README shows: SOAP
login, query, sObject CRUD and upsert, limits, composite batch and Bulk API 2.0 ingest. Prints what it saw.

Run by tests/server/test_aiosalesforce.py inside ``unshare --net --mount``, with a private /etc/hosts
bind-mounted over the namespace's view (the machine's own file is never touched).
Environment: ORG_DUMP, TLS_DIR, HOST_NAME.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
from pathlib import Path

import httpx
from aiosalesforce import Salesforce, SoapLogin
from aiosalesforce.exceptions import SalesforceError

from mock_org.server.http import tls
from mock_org.server.serve import serve_org

HOST = os.environ["HOST_NAME"]


async def drive(username: str, password: str, token: str, context: ssl.SSLContext) -> dict:
    seen: dict = {}
    async with httpx.AsyncClient(verify=context) as http:
        sf = Salesforce(http, base_url=f"https://{HOST}", auth=SoapLogin(username, password, token), version="59.0")
        seen["products"] = len([record async for record in sf.query("SELECT Id FROM Product2")])
        seen["limits"] = (await sf.get_limits())["DailyApiRequests"]["Max"]
        issue_id = await sf.sobject.create("Issue__c", {"Name": "From aiosalesforce"})
        await sf.sobject.update("Issue__c", issue_id, {"Description__c": "updated"})
        seen["issue"] = await sf.sobject.get("Issue__c", issue_id, fields=["Name", "Description__c"])
        await sf.sobject.delete("Issue__c", issue_id)
        try:
            await sf.sobject.get("Issue__c", issue_id)
        except SalesforceError as error:
            seen["deleted"] = type(error).__name__
        upserted = await sf.sobject.upsert(
            "Product2", "AIO_1", external_id_field="External_ID__c", data={"Name": "aio"}
        )
        seen["upsert"] = {"created": upserted.created, "id": upserted.id}
        async with sf.composite.batch(halt_on_error=True) as batch:
            query = batch.query("SELECT Name FROM Account WHERE Name = 'kim lee'")
            created = batch.sobject.create("Issue__c", {"Name": "From a batch"})
        seen["batch"] = {"records": [record["Name"] for record in query.records], "created": created.id[:3]}
        ingest = await sf.bulk_v2.insert("Issue__c", [{"Name": f"Bulk aio {n}"} for n in range(3)] + [{"Name": ""}])
        seen["bulk"] = {"ok": len(ingest.successful_results), "failed": len(ingest.failed_results)}
    return seen


def main() -> None:
    files = tls.ensure(Path(os.environ["TLS_DIR"]), extra_names=(HOST,))
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    with serve_org(Path(os.environ["ORG_DUMP"]), today="2023-05-15", port=443, tls_files=files) as running:
        seen = asyncio.run(drive(running.username, running.password, running.security_token, context))
    json.dump(seen, sys.stdout)


main()
