"""A record page: the record as ``Org.retrieve`` returns it, plus one SOQL query for the names of the
records its lookups point at, the parent records worth a card (a case's order item and product) and
the first rows of each related list; emails and chat transcripts are fetched whole and read as a
conversation, knowledge articles as articles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import NotFound
from ...ids import to18
from ...org import Org
from ...writes import NOT_FOUND_MESSAGE
from .catalog import SYSTEM_FIELDS, Catalog, ObjectInfo
from .columns import Column, columns, default_columns, dig, select_list, title_of
from .conversation import Block, Turn, article_paragraphs, chat_turns
from .listing import rows

RELATED_ROWS = 10
CARD_WIDTH = 5
CONVERSATION_LIMIT = 200
# The objects read as a conversation: the fields a message shows, the one it is ordered by, its body.
CONVERSATIONS = {
    "EmailMessage": (
        ("Subject", "FromName", "FromAddress", "ToAddress", "MessageDate", "Incoming", "TextBody"),
        "MessageDate",
        "TextBody",
    ),
    "LiveChatTranscript": (("Name", "StartTime", "EndTime", "Status", "Body"), "StartTime", "Body"),
}
# The lookup that makes a message part of its parent's thread (a case's). Other parents (an account, a
# contact: hundreds of messages) list them as a related list, as Lightning's record pages do.
THREAD_LOOKUPS = {"EmailMessage": "ParentId", "LiveChatTranscript": "CaseId"}
SUMMARY_FIELD = "Summary"
TEXT_TYPES = frozenset({"string", "textarea"})  # fields whose value may be a record Id kept as text


@dataclass
class Lookup:
    object_name: str | None
    record_id: str
    title: str | None


@dataclass
class Item:
    """One field of the record with its value, and for a lookup where it points."""

    field: dict[str, Any]
    value: Any
    lookup: Lookup | None = None


@dataclass
class Related:
    relationship: dict[str, Any]
    info: ObjectInfo
    columns: list[Column]
    rows: list[dict[str, Any]]
    more: bool


@dataclass
class Card:
    """A parent record shown beside this one (the lookup's label, the parent's key fields)."""

    field: dict[str, Any]
    info: ObjectInfo
    record_id: str
    title: Any
    cells: list[tuple[Column, Any, Any]]


@dataclass
class Chat:
    record: dict[str, Any]
    turns: list[Turn]


@dataclass
class RecordPage:
    info: ObjectInfo
    record: dict[str, Any]
    title: str
    details: list[Item] = field(default_factory=list)
    system: list[Item] = field(default_factory=list)
    highlights: list[Item] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    emails: list[dict[str, Any]] = field(default_factory=list)
    chats: list[Chat] = field(default_factory=list)
    article: list[list[Block]] | None = None  # paragraphs of blocks
    summary: str | None = None


def quoted_id(record_id: str) -> str:
    """A record Id for a SOQL literal: only a well-formed Id gets there (NOT_FOUND otherwise)."""
    try:
        return f"'{to18(record_id)}'"
    except ValueError:
        raise NotFound(NOT_FOUND_MESSAGE) from None


def record_page(org: Org, catalog: Catalog, info: ObjectInfo, record_id: str) -> RecordPage:
    record = org.retrieve(info.name, record_id)
    lookups = [entry for entry in info.field_list() if entry["type"] == "reference" and entry["relationshipName"]]
    cards = _card_columns(catalog, info, record, lookups)
    related = [
        (child, catalog.get(child["childSObject"])) for child in info.children if child["childSObject"] in catalog.main
    ]
    related_columns = [_related_columns(catalog, child, child_info) for child, child_info in related]
    name_paths = [f"{entry['relationshipName']}.{title_of(catalog, entry)}" for entry in lookups]
    card_paths = [path for _, chosen in cards for entry in chosen for path in entry.paths()]
    subqueries = [
        f"(SELECT {select_list(chosen)} FROM {child['relationshipName']} ORDER BY CreatedDate DESC, Id DESC "
        f"LIMIT {RELATED_ROWS + 1})"
        for (child, _), chosen in zip(related, related_columns, strict=True)
    ]
    items = ", ".join(dict.fromkeys(["Id", *name_paths, *card_paths, *subqueries]))
    found = org.query(f"SELECT {items} FROM {info.name} WHERE Id = {quoted_id(record['Id'])}")["records"]
    extra = found[0] if found else {}

    page = RecordPage(info, record, str(record.get(info.title) or record["Id"]))
    names = {entry["name"]: dig(extra, f"{entry['relationshipName']}.{title_of(catalog, entry)}") for entry in lookups}
    hidden = _shown_elsewhere(info)
    for entry in info.field_list():
        value = record.get(entry["name"])
        lookup = None
        if entry["type"] == "reference" and value:
            lookup = Lookup(catalog.object_of(value), value, names.get(entry["name"]))
        item = Item(entry, value, lookup)
        if entry["name"] in SYSTEM_FIELDS:
            if entry["name"] != "IsDeleted":
                page.system.append(item)
        elif entry["name"] not in hidden:
            page.details.append(item)
    _name_id_items(org, catalog, page.details)
    shown = set(default_columns(info)[1:CARD_WIDTH])
    page.highlights = [item for item in page.details if item.field["name"] in shown]
    for (child, child_info), chosen in zip(related, related_columns, strict=True):
        records = (extra.get(child["relationshipName"]) or {}).get("records") or []
        related_rows = rows(records[:RELATED_ROWS], chosen)
        name_ids(org, catalog, related_rows)
        page.related.append(Related(child, child_info, chosen, related_rows, len(records) > RELATED_ROWS))
    for lookup_field, chosen in cards:
        cells = rows([extra], chosen)[0]["cells"]
        page.cards.append(
            Card(
                lookup_field,
                catalog.get(lookup_field["referenceTo"][0]),
                record[lookup_field["name"]],
                cells[0][1],
                cells[1:],
            )
        )
    _conversation(org, catalog, info, record, page)
    if info.name.endswith("__kav"):  # a knowledge article version
        page.summary = record.get(SUMMARY_FIELD)
        page.article = [
            paragraph
            for entry in info.field_list()
            if entry["htmlFormatted"]
            for paragraph in article_paragraphs(record.get(entry["name"]))
        ]
    return page


def name_ids(org: Org, catalog: Catalog, table: list[dict[str, Any]]) -> None:
    """Give the text cells of ``table`` that hold a record Id the record's name, so that they show as a
    link named like a lookup: Case History's Old and New Value hold the User Ids of an owner change, and
    a person reads "Jane Doe", not 005…. Only Ids of records that exist are named."""
    spots = [
        (row, index)
        for row in table
        for index, (column, value, _) in enumerate(row["cells"])
        if not column.title_path and column.field["type"] in TEXT_TYPES and catalog.object_of(value)
    ]
    names = names_of(org, catalog, [row["cells"][index][1] for row, index in spots])
    for row, index in spots:
        column, value, _ = row["cells"][index]
        if to18(value) in names:
            row["cells"][index] = (column, value, names[to18(value)])


def _name_id_items(org: Org, catalog: Catalog, items: list[Item]) -> None:
    """The record's own text fields that hold a record Id, shown as a link to it (see name_ids)."""
    held = [item for item in items if item.field["type"] in TEXT_TYPES and catalog.object_of(item.value)]
    names = names_of(org, catalog, [item.value for item in held])
    for item in held:
        if to18(item.value) in names:
            item.lookup = Lookup(catalog.object_of(item.value), item.value, names[to18(item.value)])


def names_of(org: Org, catalog: Catalog, ids: list[str]) -> dict[str, str]:
    """18-character Id → the record's title, one query per object."""
    by_object: dict[str, set[str]] = {}
    for record_id in ids:
        by_object.setdefault(catalog.object_of(record_id) or "", set()).add(to18(record_id))
    names: dict[str, str] = {}
    for name, wanted in by_object.items():
        info = catalog.get(name)
        listed = ", ".join(quoted_id(record_id) for record_id in sorted(wanted))
        for record in org.query(f"SELECT Id, {info.title} FROM {name} WHERE Id IN ({listed})")["records"]:
            names[record["Id"]] = str(record.get(info.title) or record["Id"])
    return names


def _shown_elsewhere(info: ObjectInfo) -> set[str]:
    """Fields the page renders on their own (a chat's body, an article's answer), not among the details."""
    if info.name in CONVERSATIONS:
        return {CONVERSATIONS[info.name][2]}
    if info.name.endswith("__kav"):
        return {SUMMARY_FIELD, *(entry["name"] for entry in info.field_list() if entry["htmlFormatted"])}
    return set()


def _card_columns(
    catalog: Catalog, info: ObjectInfo, record: dict[str, Any], lookups: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], list[Column]]]:
    """The lookups to a business record (not a user, a group or a setup object) that are filled in."""
    chosen = []
    for entry in lookups:
        targets = entry["referenceTo"]
        if len(targets) != 1 or targets[0] not in catalog.main or targets[0] == "User" or not record.get(entry["name"]):
            continue
        parent = catalog.get(targets[0])
        names = default_columns(parent)[:CARD_WIDTH]
        chosen.append((entry, columns(catalog, parent, names, prefix=entry["relationshipName"] + ".")))
    return chosen


def _related_columns(catalog: Catalog, child: dict[str, Any], info: ObjectInfo) -> list[Column]:
    """A related list's columns: the child's list columns but the lookup back to this record."""
    names = [name for name in default_columns(info) if name.lower() != child["field"].lower()]
    return columns(catalog, info, names[:CARD_WIDTH])


def _conversation(org: Org, catalog: Catalog, info: ObjectInfo, record: dict[str, Any], page: RecordPage) -> None:
    """Emails and chats in full: the record itself when it is one, else the messages of its thread."""
    if info.name in CONVERSATIONS:
        found = {info.name: [record]}
    else:
        found = {}
        for child in info.children:
            kind = child["childSObject"]
            if kind not in CONVERSATIONS or child["field"] != THREAD_LOOKUPS[kind]:
                continue
            fields, order, _ = CONVERSATIONS[kind]
            child_info = catalog.get(kind)
            if not all(child_info.field(name) for name in fields):
                continue
            soql = (
                f"SELECT Id, {', '.join(fields)} FROM {kind} WHERE {child['field']} = {quoted_id(record['Id'])} "
                f"ORDER BY {order} ASC NULLS LAST, Id LIMIT {CONVERSATION_LIMIT}"
            )
            found.setdefault(kind, []).extend(org.query(soql)["records"])
    page.emails = found.get("EmailMessage", [])
    page.chats = [Chat(chat, chat_turns(chat.get("Body"))) for chat in found.get("LiveChatTranscript", [])]
