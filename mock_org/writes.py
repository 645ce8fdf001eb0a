"""Create, update, upsert, delete, undelete and purge (hard delete), with the checks and errors of a real org.

Every operation validates the whole record first and then writes it; a batch of operations runs in
one transaction, so it lands entirely or not at all (composite allOrNone). Audit fields, calculated
fields and auto numbers are maintained here; the search index follows through its triggers.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from .clock import OrgClock
from .errors import (
    DuplicateValue,
    EntityIsDeleted,
    FieldIntegrityException,
    InvalidCrossReferenceKey,
    InvalidField,
    InvalidFieldForInsertUpdate,
    InvalidOrNullForRestrictedPicklist,
    InvalidType,
    JsonParserError,
    MalformedId,
    MultipleRecords,
    NotFound,
    RequiredFieldMissing,
    SalesforceError,
    StringTooLong,
)
from .ids import POD, IdMinter, serial_of, to18
from .permissions import AUDIT_FIELDS, Permissions
from .platform import has_person_accounts, person_contact
from .sales_rules import calculate as sales_calculate
from .sales_rules import check_create as sales_check_create
from .sales_rules import opportunity_history
from .schema import TEXT_TYPES, Field, Schema, SObject
from .storage import Storage
from .values import format_datetime, parse_datetime

NOT_FOUND_MESSAGE = "The requested resource does not exist"


@dataclass
class Writer:
    """Writes to one org as one user."""

    storage: Storage
    schema: Schema
    clock: OrgClock
    minter: IdMinter
    permissions: Permissions

    @classmethod
    def open(
        cls, storage: Storage, schema: Schema, clock: OrgClock, permissions: Permissions | None = None, pod: str = POD
    ) -> Writer:
        """A writer whose new Ids (in ``pod``) continue after the highest serial already used for each object."""
        start: dict[str, int] = {}
        with storage.read() as connection:
            for sobject in schema:
                if not sobject.flags.get("createable", True):
                    continue  # the platform's metadata rows are keyed by name, not minted Ids
                table = storage.table(sobject)
                highest = connection.execute(select(func.max(table.c.Id))).scalar()
                ids = [highest] if highest else []
                start[sobject.key_prefix] = max((serial_of(i) for i in ids), default=0) + 1
        return cls(storage, schema, clock, IdMinter(start, pod), permissions or Permissions(storage, schema))

    # ------------------------------------------------------------------- lookups

    def sobject(self, name: str) -> SObject:
        sobject = self.schema.get(name)
        if sobject is None:
            raise NotFound(NOT_FOUND_MESSAGE)
        return sobject

    def _row(self, connection: Connection, sobject: SObject, record_id: str) -> dict[str, Any] | None:
        table = self.storage.table(sobject)
        row = connection.execute(select(table).where(table.c.Id == record_id)).mappings().first()
        return dict(row) if row else None

    def existing(self, connection: Connection, sobject: SObject, record_id: str) -> dict[str, Any]:
        return find_row(self.storage, connection, sobject, record_id)

    def _mint(self, connection: Connection, sobject: SObject) -> str:
        """A new Id for ``sobject``, past the highest the file holds: another process (a worker of the
        same server) may have written since this one counted, and the write transaction that asks
        holds the file's write lock, so no two processes mint the same Id."""
        ids, start = self.storage.table(sobject).c.Id, sobject.key_prefix + self.minter.pod + "0"
        mine = (ids >= start) & (ids < start[:-1] + "1")  # this org's pod only (an empty org's differs)
        highest = connection.execute(select(func.max(ids)).where(mine)).scalar()
        if highest:
            self.minter.skip_to(sobject.key_prefix, serial_of(highest) + 1)
        return self.minter.mint(sobject.key_prefix)

    # ------------------------------------------------------------------- operations

    def create(self, connection: Connection, sobject: SObject, data: dict[str, Any], user_id: str) -> str:
        self.permissions.check_write(connection, sobject, user_id)
        values = self._values(connection, sobject, data, user_id, creating=True)
        record_id = self._mint(connection, sobject)
        now = format_datetime(self.clock.now())
        row: dict[str, Any] = {field.name: field_default(field) for field in sobject.field_list()}
        row.update(Id=record_id, IsDeleted=0, CreatedDate=now, LastModifiedDate=now, SystemModstamp=now)
        row.update(CreatedById=user_id, LastModifiedById=user_id)
        row.update(values)  # after the audit defaults: a user allowed to set them gives their own
        if sobject.field("OwnerId") is not None and not row.get("OwnerId"):
            row["OwnerId"] = user_id
        self._auto_numbers(connection, sobject, row)
        person = self._person_account(connection, sobject, row)
        self._calculate(connection, sobject, row)
        sales_check_create(sobject, row)
        self._check_required(sobject, row)
        self._check_unique(connection, sobject, row)
        self._check_assignment(connection, sobject, row)
        connection.execute(self.storage.table(sobject).insert().values(**row))
        if person:
            contacts = self.storage.table(self.schema["Contact"])
            connection.execute(contacts.insert().values(**person_contact(row), Id=row["PersonContactId"]))
        self._roll_up(connection, sobject, row)
        self._history(connection, sobject, None, row, user_id)
        return record_id

    def update(
        self, connection: Connection, sobject: SObject, record_id: str, data: dict[str, Any], user_id: str
    ) -> None:
        row = self.existing(connection, sobject, record_id)
        if row["IsDeleted"]:
            raise EntityIsDeleted("entity is deleted")
        values = self._values(connection, sobject, data, user_id, creating=False)
        changed = tuple(name for name, value in values.items() if row.get(name) != value)
        self.permissions.check_write(connection, sobject, user_id, row["Id"], changed)
        before = dict(row)
        row.update(values)
        now = format_datetime(self.clock.now())
        row.update(LastModifiedDate=now, SystemModstamp=now, LastModifiedById=user_id)
        self._calculate(connection, sobject, row)
        self._check_required(sobject, row)
        self._check_unique(connection, sobject, row)
        table = self.storage.table(sobject)
        connection.execute(table.update().where(table.c.Id == row["Id"]).values(**row))
        self._roll_up(connection, sobject, row)
        self._history(connection, sobject, before, row, user_id)
        if row.get("IsPersonAccount") and row.get("PersonContactId") and sobject.name == "Account":
            contacts = self.storage.table(self.schema["Contact"])
            synced = {key: value for key, value in person_contact(row).items() if key != "CreatedDate"}
            connection.execute(contacts.update().where(contacts.c.Id == row["PersonContactId"]).values(**synced))

    def upsert(
        self, connection: Connection, sobject: SObject, field_name: str, value: str, data: dict[str, Any], user_id: str
    ) -> tuple[str, bool]:
        """Update the record whose external Id ``field_name`` equals ``value``, or create it."""
        field = sobject.field(field_name)
        if field is None or not (field.external_id or field.name == "Id"):
            raise NotFound(f"Provided external ID field does not exist or is not accessible: {field_name}")
        table = self.storage.table(sobject)
        if field.name == "Id":
            matches = [to18(value)] if self._row(connection, sobject, to18(value)) else []
        else:
            column = table.c[field.name]
            matches = list(
                connection.execute(
                    select(table.c.Id).where(func.sf_fold(column) == value.casefold(), table.c.IsDeleted == 0)
                ).scalars()
            )
        if len(matches) > 1:
            raise MultipleRecords(matches)
        if matches:
            self.update(
                connection,
                sobject,
                matches[0],
                {k: v for k, v in data.items() if k.lower() != field.name.lower()},
                user_id,
            )
            return matches[0], False
        if field.name == "Id":
            raise NotFound(NOT_FOUND_MESSAGE)
        return self.create(connection, sobject, {**data, field.name: value}, user_id), True

    def delete(self, connection: Connection, sobject: SObject, record_id: str, user_id: str) -> None:
        self.permissions.check_write(connection, sobject, user_id)
        row = self.existing(connection, sobject, record_id)
        if row["IsDeleted"]:
            raise EntityIsDeleted("entity is deleted")
        self._set_deleted(connection, sobject, row["Id"], True, user_id)
        self._roll_up(connection, sobject, row)
        for contact in self._person_contacts(sobject, row):
            self._set_deleted(connection, contact, row["PersonContactId"], True, user_id)
        # Master-detail children go to the recycle bin with their parent.
        for child, child_id in self._detail_rows(connection, sobject, row["Id"]):
            self.delete(connection, child, child_id, user_id)

    def purge(self, connection: Connection, sobject: SObject, record_id: str, user_id: str) -> None:
        """Hard delete: the row is gone for good, not in the recycle bin (Bulk API ``hardDelete``).

        Master-detail children go with it, as they do to the recycle bin on a delete. Lookups that
        point at the record keep its Id, as they do after a delete.
        """
        self.permissions.check_write(connection, sobject, user_id)
        row = self.existing(connection, sobject, record_id)
        if row["IsDeleted"]:
            raise EntityIsDeleted("entity is deleted")
        for child, child_id in self._detail_rows(connection, sobject, row["Id"]):
            self.purge(connection, child, child_id, user_id)
        table = self.storage.table(sobject)
        connection.execute(table.delete().where(table.c.Id == row["Id"]))
        self._roll_up(connection, sobject, row)
        for contact in self._person_contacts(sobject, row):
            contacts = self.storage.table(contact)
            connection.execute(contacts.delete().where(contacts.c.Id == row["PersonContactId"]))

    def _detail_rows(self, connection: Connection, sobject: SObject, record_id: str) -> list[tuple[SObject, str]]:
        """The live master-detail children of a record: they share its fate on delete and purge."""
        found = []
        for relationship in sobject.child_relationships.values():
            if relationship.cascade_delete:
                child = self.schema[relationship.child_sobject]
                table = self.storage.table(child)
                child_ids = connection.execute(
                    select(table.c.Id).where(table.c[relationship.field] == record_id, table.c.IsDeleted == 0)
                ).scalars()
                found += [(child, child_id) for child_id in child_ids]
        return found

    def undelete(self, connection: Connection, sobject: SObject, record_id: str, user_id: str) -> None:
        self.permissions.check_write(connection, sobject, user_id)
        row = self.existing(connection, sobject, record_id)
        if not row["IsDeleted"]:
            raise SalesforceError("Entity is not in the recycle bin")
        self._set_deleted(connection, sobject, row["Id"], False, user_id)
        self._roll_up(connection, sobject, row)
        for contact in self._person_contacts(sobject, row):
            self._set_deleted(connection, contact, row["PersonContactId"], False, user_id)

    def _roll_up(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> None:
        """An order line's change re-sums its order: Order.TotalAmount is the roll-up of its live
        lines' TotalPrice, kept by the org, never written by a client (Object Reference, Order)."""
        order = self.schema.get("Order")
        if sobject.name != "OrderItem" or not row.get("OrderId") or order is None or order.field("TotalAmount") is None:
            return
        lines, orders = self.storage.table(sobject), self.storage.table(order)
        total = connection.execute(
            select(func.coalesce(func.sum(lines.c.TotalPrice), 0)).where(
                lines.c.OrderId == row["OrderId"], lines.c.IsDeleted == 0
            )
        ).scalar_one()
        connection.execute(orders.update().where(orders.c.Id == row["OrderId"]).values(TotalAmount=round(total, 2)))

    def _history(
        self, connection: Connection, sobject: SObject, before: dict[str, Any] | None, row: dict[str, Any], user_id: str
    ) -> None:
        """The org's own OpportunityHistory row for an opportunity made or changed (sales_rules.py)."""
        history = self.schema.get("OpportunityHistory")
        values = opportunity_history(before, row) if sobject.name == "Opportunity" and history else None
        if history is None or values is None:
            return
        now = format_datetime(self.clock.now())
        record = {field.name: field_default(field) for field in history.field_list()}
        record.update(values, Id=self._mint(connection, history), IsDeleted=0, CreatedDate=now)
        record.update(LastModifiedDate=now, SystemModstamp=now, CreatedById=user_id, LastModifiedById=user_id)
        connection.execute(self.storage.table(history).insert().values(**record))

    def _person_contacts(self, sobject: SObject, row: dict[str, Any]) -> list[SObject]:
        """The Contact object when ``row`` is a person account with its contact: the two share their fate."""
        if sobject.name == "Account" and row.get("IsPersonAccount") and row.get("PersonContactId"):
            return [self.schema["Contact"]]
        return []

    def _person_account(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> bool:
        """A new account of a person record type is a person account: named after its person, with the person
        contact Salesforce makes for it (Object Reference, "Person Account Fields")."""
        if sobject.name != "Account" or not has_person_accounts(self.schema) or not row.get("RecordTypeId"):
            return False
        types = self.storage.table(self.schema["RecordType"])
        person_type = connection.execute(select(types.c.IsPersonType).where(types.c.Id == row["RecordTypeId"])).scalar()
        row["IsPersonAccount"] = 1 if person_type else 0
        if not person_type:
            return False
        if not row.get("LastName"):
            raise RequiredFieldMissing("Required fields are missing: [LastName]", ["LastName"])
        row["PersonContactId"] = self._mint(connection, self.schema["Contact"])
        return True

    def _check_assignment(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> None:
        """A user holds a permission set once, and a profile's own permission set comes only with the profile."""
        if sobject.name != "PermissionSetAssignment":
            return
        sets = self.storage.table(self.schema["PermissionSet"])
        owned = connection.execute(select(sets.c.IsOwnedByProfile).where(sets.c.Id == row["PermissionSetId"])).scalar()
        if owned:
            raise InvalidCrossReferenceKey(
                "You can't assign or unassign this permission set because it's associated with a profile.",
                ["PermissionSetId"],
            )
        table = self.storage.table(sobject)
        clash = connection.execute(
            select(table.c.Id).where(
                table.c.AssigneeId == row["AssigneeId"],
                table.c.PermissionSetId == row["PermissionSetId"],
                table.c.IsDeleted == 0,
            )
        ).scalar()
        if clash:
            raise DuplicateValue(
                f"Duplicate PermissionSetAssignment. Assignee: {row['AssigneeId']}; "
                f"Permission Set: {row['PermissionSetId']}",
                [],
            )

    def _set_deleted(
        self, connection: Connection, sobject: SObject, record_id: str, deleted: bool, user_id: str
    ) -> None:
        table = self.storage.table(sobject)
        now = format_datetime(self.clock.now())
        connection.execute(
            table.update()
            .where(table.c.Id == record_id)
            .values(IsDeleted=1 if deleted else 0, SystemModstamp=now, LastModifiedDate=now, LastModifiedById=user_id)
        )

    # ------------------------------------------------------------------- checks and conversions

    def _values(
        self, connection: Connection, sobject: SObject, data: dict[str, Any], user_id: str, *, creating: bool
    ) -> dict[str, Any]:
        """``data`` in stored form; fields the user may not set are refused together (audit fields are
        createable, on insert only, for a user with "Set Audit Fields upon Record Creation")."""
        if not isinstance(data, dict):
            raise JsonParserError("Cannot deserialize the request body: a JSON object was expected")
        values: dict[str, Any] = {}
        given: list[tuple[Field, Any]] = []
        for name, value in data.items():
            if name == "attributes":
                continue
            field = sobject.field(name)
            if field is None:
                raise InvalidField(f"No such column '{name}' on sobject of type {sobject.name}", [name])
            given.append((field, value))
        refused = [field.name for field, _ in given if not (field.createable if creating else field.updateable)]
        audit = creating and any(name.lower() in AUDIT_FIELDS for name in refused)
        if audit and self.permissions.sets_audit_fields(connection, user_id):
            refused = [name for name in refused if name.lower() not in AUDIT_FIELDS]
        if refused:
            # One error names every refused field, as a real org's does.
            raise InvalidFieldForInsertUpdate(
                f"Unable to create/update fields: {', '.join(refused)}. Please check the security settings of this "
                "field and verify that it is read/write for your profile or permission set.",
                refused,
            )
        for field, value in given:
            stored = stored_value(field, value)
            if field.is_reference and stored is not None:
                self._check_reference(connection, field, stored)
            values[field.name] = stored
        return values

    def _check_reference(self, connection: Connection, field: Field, record_id: str) -> None:
        for target_name in field.reference_to:
            target = self.schema[target_name]
            if record_id.startswith(target.key_prefix) and self._row(connection, target, record_id):
                return
        label = field.label
        raise InvalidCrossReferenceKey(f"{label}: id value of incorrect type: {record_id}", [field.name])

    @staticmethod
    def _check_required(sobject: SObject, row: dict[str, Any]) -> None:
        missing = [
            field.name
            for field in sobject.field_list()
            if not field.nillable and field.type != "boolean" and row.get(field.name) in (None, "")
        ]
        if missing:
            raise RequiredFieldMissing(f"Required fields are missing: [{', '.join(missing)}]", missing)

    def _check_unique(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> None:
        table = self.storage.table(sobject)
        for field in sobject.field_list():
            value = row.get(field.name)
            if not (field.unique or field.external_id) or field.name == "Id" or value is None:
                continue
            clash = connection.execute(
                select(table.c.Id).where(
                    func.sf_fold(table.c[field.name]) == str(value).casefold(), table.c.Id != row.get("Id")
                )
            ).scalar()
            if clash:
                raise DuplicateValue(
                    f"duplicate value found: {field.name} duplicates value on record with id: {clash}", [field.name]
                )

    def _auto_numbers(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> None:
        table = self.storage.table(sobject)
        for field in sobject.field_list():
            if field.auto_number:
                highest = connection.execute(select(func.max(table.c[field.name]))).scalar()
                digits = "".join(char for char in (highest or "") if char.isdigit())
                prefix = (highest or "")[: len(highest or "") - len(digits)] if highest else ""
                width = len(digits) or 8
                row[field.name] = f"{prefix}{int(digits or 0) + 1:0{width}d}"

    def _calculate(self, connection: Connection, sobject: SObject, row: dict[str, Any]) -> None:
        """Formula-like fields that the org computes: full names, IsClosed, totals, entry names."""
        fields = sobject.fields
        name = sobject.field("Name")
        if (
            name is not None
            and "firstname" in fields
            and (name.calculated or row.get("IsPersonAccount") or not row.get("Name"))
        ):
            parts = (row.get("FirstName"), row.get("LastName"))
            row["Name"] = " ".join(part for part in parts if part) or row.get("Name")
        if "isclosed" in fields:
            row["IsClosed"] = 1 if (row.get("Status") or "").casefold() == "closed" else 0
        if sobject.name == "OrderItem":
            self._order_item(connection, row)
        sales_calculate(sobject, row)
        if sobject.name == "PricebookEntry" and row.get("Product2Id"):
            product = self._row(connection, self.schema["Product2"], row["Product2Id"])
            row["Name"] = product["Name"] if product else None

    def _order_item(self, connection: Connection, row: dict[str, Any]) -> None:
        """An order line takes its product and price from a price book entry of the order's price book."""
        order_id, entry_id = row.get("OrderId"), row.get("PricebookEntryId")
        order = self._row(connection, self.schema["Order"], order_id) if order_id else None
        entry = self._row(connection, self.schema["PricebookEntry"], entry_id) if entry_id else None
        if order is None or entry is None:
            return  # the required-field check reports what is missing
        if order["Pricebook2Id"] is None or order["Pricebook2Id"] != entry["Pricebook2Id"]:
            raise FieldIntegrityException(
                "field integrity exception: PricebookEntryId (pricebook entry is in a different pricebook than the "
                "one assigned to the Order, or Order has no pricebook assigned)",
                ["PricebookEntryId"],
            )
        if row.get("Product2Id") not in (None, entry["Product2Id"]):
            raise FieldIntegrityException(
                "field integrity exception: Product2Id (the product must be the price book entry's product)",
                ["Product2Id"],
            )
        row["Product2Id"] = entry["Product2Id"]
        quantity, price = row.get("Quantity"), row.get("UnitPrice")
        # A currency field holds its scale's digits (2 here): 6.9 × 101 is 696.9, not 696.9000000000001.
        row["TotalPrice"] = None if quantity is None or price is None else round(quantity * price, 2)


def find_row(storage: Storage, connection: Connection, sobject: SObject, record_id: str) -> dict[str, Any]:
    """The stored row of ``record_id`` (15 or 18 characters, deleted or not), or the real org's error."""
    try:
        full = to18(record_id)
    except ValueError:
        raise NotFound(f"Provided external ID field does not exist or is not accessible: {record_id}") from None
    table = storage.table(sobject)
    row = None
    if full.startswith(sobject.key_prefix):
        row = connection.execute(select(table).where(table.c.Id == full)).mappings().first()
    if row is None:
        raise NotFound(NOT_FOUND_MESSAGE)
    return dict(row)


def field_default(field: Field) -> Any:
    """What a new record holds in a field nobody set: the describe default, false for checkboxes."""
    if field.type == "boolean":
        return 1 if field.default_value else 0
    if field.default_value is not None:
        return field.default_value
    default = next((entry.value for entry in field.picklist_values if entry.default_value), None)
    return default


def _parse_error(field: Field, value: Any, kind: str) -> JsonParserError:
    token = "VALUE_STRING" if isinstance(value, str) else "VALUE_NUMBER_INT" if isinstance(value, int) else "VALUE"
    return JsonParserError(
        f"Cannot deserialize instance of {kind} from {token} value {value} or request may be missing a required field",
        [field.name],
    )


def stored_value(field: Field, value: Any) -> Any:
    """A JSON value written to ``field`` in stored form, or the error a real org gives for it."""
    kind = field.type
    if value is None:
        if kind == "boolean":
            return 0
        return None
    if kind == "boolean":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return int(value.lower() == "true")
        raise _parse_error(field, value, "boolean")
    if kind in ("double", "currency", "percent", "int"):
        try:
            number = float(value) if not isinstance(value, bool) else None
        except (TypeError, ValueError):
            number = None
        if number is None:
            raise _parse_error(field, value, "double" if kind != "int" else "int")
        return int(number) if kind == "int" else number
    if kind == "date":
        try:
            return dt.date.fromisoformat(str(value)[:10]).isoformat()
        except ValueError:
            raise _parse_error(field, value, "date") from None
    if kind == "datetime":
        try:
            return format_datetime(parse_datetime(str(value)))
        except ValueError:
            raise _parse_error(field, value, "datetime") from None
    if kind in ("id", "reference"):
        try:
            return to18(str(value))
        except ValueError:
            raise MalformedId(f"{field.label}: id value of incorrect type: {value}", [field.name]) from None
    if kind in TEXT_TYPES:
        if isinstance(value, list) and kind == "multipicklist":
            value = ";".join(str(part) for part in value)
        if isinstance(value, (dict, list)):
            raise _parse_error(field, json.dumps(value), "String")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if field.length is not None and len(text) > field.length:
            raise StringTooLong(
                f"{field.label}: data value too large: {text[:40]}{'...' if len(text) > 40 else ''} "
                f"(max length={field.length})",
                [field.name],
            )
        if kind == "picklist" and field.restricted_picklist and field.picklist_value(text) is None:
            raise InvalidOrNullForRestrictedPicklist(
                f"{field.label}: bad value for restricted picklist field: {text}", [field.name]
            )
        return text
    raise InvalidType(f"unsupported field type {kind}")
