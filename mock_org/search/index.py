"""The SOSL search index: one SQLite FTS5 table per searchable object, kept in step by triggers.

The index is an external-content FTS5 table over the object's own table, so the text is stored
once; insert, update and delete triggers on the object's table update it inside the same
transaction as the write. Tokens are split on whitespace and punctuation and compared without case
or accents, as Salesforce search does (reference/soql_sosl.md §4.5).
"""

from __future__ import annotations

from sqlalchemy import Table, text
from sqlalchemy.engine import Connection

from ..schema import Field, Schema, SObject

SEARCHABLE_TYPES = frozenset({"string", "textarea", "email", "phone", "url"})
TOKENIZER = "unicode61 remove_diacritics 2"

# Fields SOSL's NAME FIELDS group adds to an object's name field (SOSL reference, "IN SearchGroup").
EXTRA_NAME_FIELDS = {"Case": ("Subject",), "Contact": ("AssistantName",), "Account": ("Site", "Website")}


def searchable_fields(sobject: SObject) -> list[Field]:
    """The text fields ALL FIELDS searches (numbers, dates, checkboxes and picklists never are)."""
    return [field for field in sobject.field_list() if field.type in SEARCHABLE_TYPES and field.name != "Id"]


def group_fields(sobject: SObject, group: str) -> list[Field]:
    """The fields of a search group: ALL, NAME, EMAIL, PHONE, or SIDEBAR (the name fields here)."""
    fields = searchable_fields(sobject)
    if group == "EMAIL":
        return [field for field in fields if field.type == "email"]
    if group == "PHONE":
        return [field for field in fields if field.type == "phone"]
    if group in ("NAME", "SIDEBAR"):
        extra = {name.lower() for name in EXTRA_NAME_FIELDS.get(sobject.name, ())}
        return [field for field in fields if field.name_field or field.name.lower() in extra]
    return fields


def index_name(sobject: SObject) -> str:
    return f"_search_{sobject.name}"


def quote(name: str) -> str:
    # Identifiers come from the schema file, never from a query; quoting still keeps names such
    # as "Order" and "Group" from reading as SQL keywords.
    return '"' + name.replace('"', '""') + '"'


def indexed_objects(schema: Schema) -> list[SObject]:
    return [sobject for sobject in schema if sobject.searchable and searchable_fields(sobject)]


def build_search_index(schema: Schema, tables: dict[str, Table], connection: Connection) -> None:
    """Create (once) and fill every object's index, and the triggers that keep it current."""
    for sobject in indexed_objects(schema):
        name = quote(index_name(sobject))
        table = quote(sobject.name)
        columns = [quote(field.name) for field in searchable_fields(sobject)]
        exists = connection.execute(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"), {"name": index_name(sobject)}
        ).first()
        if exists:
            continue
        connection.exec_driver_sql(
            f"CREATE VIRTUAL TABLE {name} USING fts5({', '.join(columns)}, content={table}, "
            f"content_rowid='rowid', tokenize='{TOKENIZER}')"
        )
        connection.exec_driver_sql(f"INSERT INTO {name}({name}) VALUES ('rebuild')")
        new_values = ", ".join(f"new.{column}" for column in columns)
        old_values = ", ".join(f"old.{column}" for column in columns)
        column_list = ", ".join(columns)
        delete_old = f"INSERT INTO {name}({name}, rowid, {column_list}) VALUES ('delete', old.rowid, {old_values});"
        insert_new = f"INSERT INTO {name}(rowid, {column_list}) VALUES (new.rowid, {new_values});"
        for suffix, event, body in (
            ("ai", "INSERT", insert_new),
            ("ad", "DELETE", delete_old),
            ("au", "UPDATE", f"{delete_old} {insert_new}"),
        ):
            trigger = quote(f"{index_name(sobject)}_{suffix}")
            connection.exec_driver_sql(f"CREATE TRIGGER {trigger} AFTER {event} ON {table} BEGIN {body} END")
