"""The indexes of a prepared org, chosen from the schema so that the CRMArena tools' lookups stay flat
as the org grows.

* ``ix_<Object>_<Field>``: a plain index on every reference field (parent paths, child subqueries,
  ``ParentId = ?``, Id lists) but the audit fields ``CreatedById`` and ``LastModifiedById``: one user
  made every record of a CRMArena org, so their index matched every row, served no tool's query and
  cost every write and prepare. ``Id`` has none of its own: as the primary key it already has
  SQLite's unique index, and a second one only costs every write.
* ``fold_<Object>_<Field>``: an index on ``sf_fold(field)`` for the selective text fields whose
  equality the query compiler case-folds (``sf_fold(col) = ?``, conditions.py): every unique,
  external-Id or name field (uniqueness checks on every write, upsert, login by Username, agents'
  ``Name = '…'``) and the Id-holding text fields the tools filter on. SQLite serves
  ``sf_fold(col) = ?`` from such an index with the compiled SQL unchanged.
* ``fold_<Object>_<Field>_<Field>`` (``ix_`` when no field is folded): the filters the tools
  (eval_suite/tools/) combine, picklists after the date or reference they come with.

A picklist never leads an index. SQLite plans without statistics here, and then takes any equality
on an index's first column for a selective one: an index on Case.Status or Order.Status drove
``Status = 'Closed' AND Id IN (…)`` from the status and read every closed case. Measured at scale 10
with an index on every picklist: get_purchase_history went from 0.6 to 5.7 ms (every activated
order), get_non_transferred_case_ids to 6× its scale-1 time (each case's child histories through
every Owner Assignment). Statistics do not save it: SQLite's ANALYZE (built without STAT4) knows no
date ranges, and preferred a three-year CreatedDate range to a list of 165 order items, besides
costing a scan of every index at each prepare.

An index on ``sf_fold`` needs the function in every connection that writes the table or checks it
(storage.register_functions registers it, deterministic, as SQLite requires): another SQLite tool
reads a prepared file freely, but its writes to those tables, VACUUM and ``PRAGMA integrity_check``
fail with "unknown function: sf_fold()". The pristine dumps never get them; docs/cli.md, "Prepared
files", says how to drop them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Index, Table, func
from sqlalchemy.engine import Connection
from sqlalchemy.schema import CreateIndex

from .schema import TEXT_TYPES, Field, Schema, SObject

FOLD_PREFIX = "fold_"
# The field types conditions.py compares through sf_fold (ids and references compare exactly,
# multi-select picklists as sets).
FOLDED_TYPES = TEXT_TYPES - {"id", "reference", "multipicklist"}
# Text fields holding Ids that the CRMArena tools filter on (eval_suite/tools/cases.py: transfers by
# the agent who gave the case away, OldValue__c IN (…); handled cases by the agent who got it).
TOOL_FILTERED_TEXT = {"CaseHistory__c": ("OldValue__c", "NewValue__c")}
# References every record of an org has the same value in (above).
UNINDEXED_REFERENCES = frozenset({"CreatedById", "LastModifiedById"})
# The tools' filters that go together: picklists after the column that selects first, periods after
# the agent.
COMPOUND = (
    # handled, transferred and non-transferred cases: Field__c = 'Owner Assignment' in a period
    ("CaseHistory__c", ("CreatedDate", "Field__c")),
    # transfers by the qualified agents in a period
    ("CaseHistory__c", ("OldValue__c", "CreatedDate")),
    # get_cases of agents in a period (handle_time)
    ("Case", ("OwnerId", "CreatedDate")),
    # get_cases in a period, with or without statuses (handle_time, best_region_identification)
    ("Case", ("CreatedDate", "Status")),
    # get_cases with issue_ids and statuses (case_routing)
    ("Case", ("IssueId__c", "Status")),
)


@dataclass(frozen=True)
class IndexSpec:
    name: str
    table: str
    fields: tuple[str, ...]
    folded: tuple[bool, ...]  # which fields are indexed as sf_fold(field)

    def index(self, tables: dict[str, Table]) -> Index:
        table = tables[self.table.lower()]
        columns = [table.c[field] for field in self.fields]
        expressions = [
            func.sf_fold(column) if fold else column for column, fold in zip(columns, self.folded, strict=True)
        ]
        return Index(self.name, *expressions)


def _spec(sobject: SObject, fields: tuple[str, ...]) -> IndexSpec:
    folded = tuple(sobject.field(field).type in FOLDED_TYPES for field in fields)  # type: ignore[union-attr]
    prefix = FOLD_PREFIX if any(folded) else "ix_"
    return IndexSpec(f"{prefix}{sobject.name}_{'_'.join(fields)}", sobject.name, fields, folded)


def is_folded_filter(sobject: SObject, field: Field) -> bool:
    """A selective field filtered on with case-folded equality, so worth an index on sf_fold(field)."""
    if field.type not in FOLDED_TYPES or field.type == "picklist" or not field.filterable:
        return False
    return (
        field.unique or field.external_id or field.name_field or field.name in TOOL_FILTERED_TEXT.get(sobject.name, ())
    )


def _indexed_reference(field: Field) -> bool:
    return field.is_reference and field.name not in UNINDEXED_REFERENCES


def planned_indexes(schema: Schema) -> list[IndexSpec]:
    """Every index a prepared org has. A single-field index that a compound one starts with is left
    out: the compound one serves its lookups too."""
    compound = [_spec(schema[name], fields) for name, fields in COMPOUND if schema.get(name) is not None]
    leading = {(spec.table, spec.fields[0]) for spec in compound}
    single = [
        _spec(sobject, (field.name,))
        for sobject in schema
        for field in sobject.field_list()
        if (_indexed_reference(field) or is_folded_filter(sobject, field)) and (sobject.name, field.name) not in leading
    ]
    return single + compound


def retired_indexes(schema: Schema) -> set[str]:
    """Indexes earlier versions made that are no longer planned: the duplicate ``ix_*_Id``, plain
    indexes on text fields (which no case-folded comparison can use), the audit fields' and those a
    compound one serves."""
    earlier = {
        f"ix_{sobject.name}_{field.name}"
        for sobject in schema
        for field in sobject.field_list()
        if field.is_reference or field.unique or field.external_id
    }
    return earlier - {spec.name for spec in planned_indexes(schema)}


def create_indexes(schema: Schema, tables: dict[str, Table], connection: Connection) -> None:
    """Create the planned indexes that are missing and drop the retired ones (inside the caller's
    write transaction; the connection must have sf_fold registered)."""
    for name in sorted(retired_indexes(schema)):
        connection.exec_driver_sql(f'DROP INDEX IF EXISTS "{name}"')
    for spec in planned_indexes(schema):
        connection.execute(CreateIndex(spec.index(tables), if_not_exists=True))
