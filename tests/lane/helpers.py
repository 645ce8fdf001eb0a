"""Shared by the lane's tests: a small, self-contained dump cut from the default org, an empty org served
with the audit-field permission, and a per-object content digest of a pushed org."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from eval_suite.lane.idmap import IdMap
from eval_suite.lane.push import MATCHED, normalised
from eval_suite.lane.remap import map_known_ids
from eval_suite.lane.source import AUDIT_FIELDS, Dump
from fixtures import default_org
from mock_org.server.serve import RunningOrg, serve_org

# Children that come with a kept parent (the rest of the cut is the closure over references).
CHILDREN = {
    "CaseHistory__c": "CaseId__c",
    "EmailMessage": "ParentId",
    "LiveChatTranscript": "CaseId",
    "Contact": "AccountId",
    "ProductCategoryProduct": "ProductId",
}
UPDATED_AFTER_CREATE = frozenset({"Contract", "Lead"})
ORG_COMPUTED = {"Name", "IsPersonAccount", "IsClosed", "TotalPrice", "TotalAmount", "IsStandard"}


def cut_dump(target: Path, cases: int = 4, articles: int = 3) -> Path:
    """A copy of the default org holding ``cases`` cases with everything they name and their children."""
    dump = Dump(default_org())
    rows = {name: {row["Id"]: row for row in dump.rows(name)} for name in dump.objects}
    kept: dict[str, set[str]] = {name: set() for name in dump.objects}
    for name in (*MATCHED, "Issue__c", "ProductCatalog"):
        kept[name] = set(rows[name])
    kept["Case"] = set(sorted(rows["Case"])[:cases])
    kept["Knowledge__kav"] = set(sorted(rows["Knowledge__kav"])[:articles])
    kept["Pricebook2"] = {key for key, row in rows["Pricebook2"].items() if row["IsStandard"]}
    return cut(dump, target, kept, rows, CHILDREN)


# A sales org's children that come with a kept parent: a deal's lines, quotes, history, activities and calls.
SALES_CHILDREN: dict[str, str | tuple[str, ...]] = {
    **CHILDREN,
    "OpportunityLineItem": "OpportunityId",
    "OpportunityHistory": "OpportunityId",
    "Quote": "OpportunityId",
    "QuoteLineItem": "QuoteId",
    "Task": "WhatId",
    "Event": "WhatId",
    "VoiceCallTranscript__c": ("OpportunityId__c", "LeadId__c"),
    "UserTerritory2Association": "Territory2Id",
}


def cut_sales_dump(source: Path, target: Path, deals: int = 3, leads: int = 4) -> Path:
    """A copy of a sales org (B2B or B2C) holding ``deals`` opportunities with contracts, ``leads`` leads
    (half of them converted, with what they were converted into), the territories, and all they name."""
    dump = Dump(source)
    rows = {name: {row["Id"]: row for row in dump.rows(name)} for name in dump.objects}
    kept: dict[str, set[str]] = {name: set() for name in dump.objects}
    for name in (*MATCHED, "Territory2Model", "Territory2Type", "Territory2"):
        if name in rows:  # a sales org without territories has none
            kept[name] = set(rows[name])
    kept["Pricebook2"] = {key for key, row in rows["Pricebook2"].items() if row["IsStandard"]}
    lead_rows = sorted(rows["Lead"].values(), key=lambda row: row["Id"])
    converted = [row for row in lead_rows if row["IsConverted"]][: leads // 2]
    kept["Lead"] = {row["Id"] for row in converted + [row for row in lead_rows if not row["IsConverted"]][: leads // 2]}
    with_contract = sorted(key for key, row in rows["Opportunity"].items() if row["ContractId"])
    kept["Opportunity"] = set(with_contract[:deals]) | {row["ConvertedOpportunityId"] for row in converted}
    # A kept product brings its price in every book (a price needs the product's standard price first).
    children = {**SALES_CHILDREN, "PricebookEntry": "Product2Id"}
    return cut(dump, target, kept, rows, children)


def cut(
    dump: Dump,
    target: Path,
    kept: dict[str, set[str]],
    rows: dict[str, dict[str, dict[str, Any]]],
    children: Mapping[str, str | tuple[str, ...]],
) -> Path:
    """Copy ``dump`` to ``target`` keeping ``kept``, what they name (closed over references) and their
    ``children`` (child object → its reference to the parent, polymorphic or not)."""
    with closing(sqlite3.connect(dump.path)) as origin, closing(sqlite3.connect(target)) as copy:
        origin.backup(copy)
    owner = {prefix: name for name, sobject in dump.objects.items() for prefix in [sobject.key_prefix]}
    changed = True
    while changed:
        changed = False
        for name, sobject in dump.objects.items():
            for row_id in list(kept[name]):
                for field in sobject.references:
                    value = rows[name][row_id].get(field.name)
                    target_name = owner.get((value or "")[:3])
                    if value and target_name and value in rows[target_name] and value not in kept[target_name]:
                        kept[target_name].add(value)
                        changed = True
        for child, field_names in children.items():
            if child not in dump.objects:
                continue
            for field_name in (field_names,) if isinstance(field_names, str) else field_names:
                parents = dump.objects[child].field(field_name).reference_to
                for row_id, row in rows[child].items():
                    if row_id not in kept[child] and any(row[field_name] in kept[parent] for parent in parents):
                        kept[child].add(row_id)
                        changed = True
    with closing(sqlite3.connect(target)) as connection:
        for name, ids in kept.items():
            doomed = [(row_id,) for row_id in rows[name] if row_id not in ids]
            connection.executemany(f'DELETE FROM "{name}" WHERE "Id" = ?', doomed)
        connection.commit()
        connection.execute("VACUUM")
    schema = Path(dump.schema_path)
    if schema.parent == dump.path.parent:  # a dump's own layout goes with it
        (Path(target).parent / schema.name).write_bytes(schema.read_bytes())
    return target


class EmptyOrg:
    """A served empty org whose client sessions are closed when it stops (an open keep-alive connection
    would hold the server's shutdown)."""

    def __init__(self, org: RunningOrg) -> None:
        self.org, self.url, self.ca_bundle, self.username = org, org.url, org.ca_bundle, org.username
        self.sessions: list[Any] = []

    def connect(self) -> Any:
        sf = self.org.connect()
        self.sessions.append(sf)
        return sf

    def env(self) -> dict[str, str]:
        """The environment of a crmarena command that targets this org as a real one."""
        return {
            "CRMARENA_TARGET": "salesforce",
            "SALESFORCE_INSTANCE_URL": self.url,
            "SALESFORCE_SESSION_ID": self.connect().session_id,
            "REQUESTS_CA_BUNDLE": str(self.ca_bundle),
        }


@contextmanager
def empty_org(source: Path | None = None, *, audit: bool = True) -> Iterator[EmptyOrg]:
    """An empty org (made from ``source``, the default org unless given); with ``audit`` its administrator holds
    "Set Audit Fields upon Record Creation"."""
    with serve_org(source if source is not None else default_org(), empty=True) as running:
        org = EmptyOrg(running)
        try:
            if audit:
                grant_audit_fields(org)
            yield org
        finally:
            for sf in org.sessions:
                sf.session.close()


def grant_audit_fields(org: EmptyOrg) -> None:
    """What the recipe of docs/real-org-lane.md does in a real org: a permission set with the permission, assigned."""
    sf = org.connect()
    me = sf.query(f"SELECT Id FROM User WHERE Username = '{org.username}'")["records"][0]["Id"]
    permission_set = sf.PermissionSet.create(
        {"Name": "CRMArena_Lane", "Label": "CRMArena Lane", "PermissionsCreateAuditFields": True}
    )["id"]
    sf.PermissionSetAssignment.create({"AssigneeId": me, "PermissionSetId": permission_set})


def compared_fields(dump: Dump, name: str) -> list[str]:
    """What a push sets, less what the org computes; a person contact's audit fields are its account's,
    so Contact is compared without them, and a record the push updates after making it (a contract
    activated, a lead converted) was last modified by the push."""
    audit = () if name == "Contact" else AUDIT_FIELDS[:2] if name in UPDATED_AFTER_CREATE else AUDIT_FIELDS
    sobject = dump.objects[name]
    return [f.name for f in sobject.fields if (f.createable or f.name in audit) and f.name not in ORG_COMPUTED]


def source_digest(dump: Dump, name: str) -> tuple[int, str]:
    """Row count and content hash of an object in the dump (Ids as they are)."""
    fields = compared_fields(dump, name)
    lines = sorted(
        repr((row["Id"], *(normalised(_bool(dump, name, f, row[f])) for f in fields))) for row in dump.rows(name)
    )
    return len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()


def org_digest(sf: Any, dump: Dump, idmap: IdMap, name: str) -> tuple[int, str]:
    """Row count and content hash of an object in a pushed org, every Id turned back into the dump's."""
    back = {target: source for _, source, target in idmap}
    back |= {target[:15]: source for target, source in back.items()}
    fields = compared_fields(dump, name)
    lines = []
    for record in sf.query_all_iter(f"SELECT Id, {', '.join(fields)} FROM {name}"):
        # Ids inside text too (EmailMessage.ToIds is a list of them).
        values = [map_known_ids(record[f], back) if isinstance(record[f], str) else record[f] for f in fields]
        lines.append(repr((back.get(record["Id"], "unmapped " + record["Id"]), *map(normalised, values))))
    return len(lines), hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def _bool(dump: Dump, name: str, field: str, value: Any) -> Any:
    return bool(value) if dump.objects[name].field(field).type == "boolean" and value is not None else value
