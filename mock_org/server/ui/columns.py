"""Columns of record tables (list views, related lists, search results, lookup cards): which fields,
and the SOQL paths that fetch a value and, for a lookup, the name of the record it points at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .catalog import SYSTEM_FIELDS, Catalog, ObjectInfo

# The columns of each CRMArena object's "All" list view, as a Salesforce admin would pick them.
# Objects not named here get the title and the first fields of the schema (``default_columns``).
LIST_COLUMNS = {
    "User": ("Name", "Username", "Email", "Title", "ProfileId", "IsActive"),
    "Account": ("Name", "PersonEmail", "Phone", "ShippingCity", "ShippingState", "OwnerId"),
    "Contact": ("Name", "AccountId", "Email", "Phone", "OwnerId"),
    "Case": ("CaseNumber", "Subject", "Status", "Priority", "Origin", "AccountId", "OwnerId", "CreatedDate"),
    "CaseHistory__c": ("Name", "CaseId__c", "Field__c", "OldValue__c", "NewValue__c", "CreatedDate"),
    "Issue__c": ("Name", "OwnerId", "CreatedDate"),
    "Knowledge__kav": ("Title", "ArticleNumber", "UrlName", "PublishStatus", "Language", "LastModifiedDate"),
    "ProductCategory": ("Name", "CatalogId", "CreatedDate"),
    "Product2": ("Name", "ProductCode", "Family", "IsActive", "External_ID__c"),
    "ProductCategoryProduct": ("ProductCategoryId", "ProductId", "CreatedDate"),
    "Pricebook2": ("Name", "IsActive", "IsStandard", "ValidFrom", "ValidTo"),
    "PricebookEntry": ("Name", "Pricebook2Id", "Product2Id", "UnitPrice", "IsActive"),
    "Order": ("OrderNumber", "AccountId", "Status", "EffectiveDate", "Pricebook2Id", "TotalAmount"),
    "OrderItem": ("OrderItemNumber", "OrderId", "Product2Id", "Quantity", "UnitPrice", "TotalPrice"),
    "EmailMessage": ("Subject", "ParentId", "FromAddress", "ToAddress", "MessageDate", "Incoming", "Status"),
    "LiveChatTranscript": ("Name", "CaseId", "AccountId", "ContactId", "StartTime", "Status", "OwnerId"),
    # A B2B org's sales objects (docs/orgs.md), as the standard Sales app's list views show them.
    "Lead": ("Name", "Company", "State", "Status", "LeadSource", "OwnerId", "CreatedDate"),
    "Opportunity": ("Name", "AccountId", "StageName", "Amount", "CloseDate", "OwnerId"),
    "Quote": ("Name", "QuoteNumber", "OpportunityId", "Status", "GrandTotal", "ExpirationDate"),
    "Contract": ("ContractNumber", "AccountId", "Status", "StartDate", "ContractTerm", "CompanySignedDate"),
    "Task": ("Subject", "WhatId", "WhoId", "ActivityDate", "Status", "Priority", "OwnerId"),
    "Territory2": ("Name", "Description", "Territory2ModelId"),
}
DEFAULT_WIDTH = 7


@dataclass(frozen=True)
class Column:
    """One field shown in a table. ``path`` fetches its value; a lookup's ``title_path`` fetches the
    name of the record it points at, which the cell shows as a link."""

    owner: ObjectInfo
    field: dict[str, Any]
    path: str
    title_path: str | None = None

    @property
    def name(self) -> str:
        return self.field["name"]

    @property
    def label(self) -> str:
        """A lookup column is headed by what it shows (``Account``), not by its Id field's label."""
        label = self.field["label"]
        return label[:-3] if self.title_path and label.endswith(" ID") else label

    @property
    def sortable(self) -> bool:
        return bool(self.field["sortable"])

    @property
    def order_path(self) -> str:
        """What ORDER BY sorts this column by: a lookup by the name it shows, not by its Id."""
        return self.title_path or self.path

    def paths(self) -> list[str]:
        return [self.path] + ([self.title_path] if self.title_path else [])


def default_columns(info: ObjectInfo) -> list[str]:
    """The list view's field names: the admin's choice above, else the title and the first plain fields."""
    chosen = [name for name in LIST_COLUMNS.get(info.name, ()) if info.field(name)]
    if chosen:
        return chosen
    plain = [
        entry["name"]
        for entry in info.field_list()
        if entry["name"] not in SYSTEM_FIELDS and entry["type"] != "textarea" and entry["name"] != info.title
    ]
    return [info.title, *plain[: DEFAULT_WIDTH - 1]]


def title_of(catalog: Catalog, field: dict[str, Any]) -> str:
    """The field a lookup's target is named by (``Name`` for a polymorphic one such as Owner)."""
    targets = field["referenceTo"]
    if len(targets) != 1:
        return "Name"
    return catalog.get(targets[0]).title


def column(catalog: Catalog, info: ObjectInfo, name: str, prefix: str = "") -> Column:
    """The column of field ``name`` of ``info``, reached through the relationship path ``prefix``."""
    field = info.field(name)
    if field is None:
        raise KeyError(name)
    title_path = None
    if field["type"] == "reference" and field["relationshipName"]:
        title_path = f"{prefix}{field['relationshipName']}.{title_of(catalog, field)}"
    return Column(info, field, prefix + field["name"], title_path)


def columns(catalog: Catalog, info: ObjectInfo, names: list[str] | tuple[str, ...], prefix: str = "") -> list[Column]:
    """The table's columns; the record's own title comes first, as the link to the record."""
    chosen = [column(catalog, info, name, prefix) for name in names if info.field(name)]
    if not any(entry.name == info.title for entry in chosen):
        chosen.insert(0, column(catalog, info, info.title, prefix))
    else:
        chosen.sort(key=lambda entry: entry.name != info.title)
    return chosen


def select_list(chosen: list[Column], *extra: str) -> str:
    """The SELECT list fetching every column (each path once, ``Id`` first)."""
    paths = ["Id", *extra]
    for entry in chosen:
        paths += [path for path in entry.paths() if path not in paths]
    return ", ".join(paths)


def dig(record: dict[str, Any] | None, path: str) -> Any:
    """The value at a dotted path of a REST record (None when a relationship on the way is empty)."""
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value
