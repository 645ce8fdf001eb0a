"""Field paths → schema: which fields and parent relationships a path names, with the real errors.

No SQL here. A resolved path is a ``ColumnRef``: the parent hops from the query's object and the
field at the end, spelled as the schema spells them.
"""

from __future__ import annotations

from dataclasses import dataclass

from soql_parser import nodes

from ..errors import NO_SUCH_COLUMN, NO_SUCH_RELATIONSHIP, InvalidField, MalformedQuery
from ..schema import Field, Schema, SObject

MAX_PATH_DEPTH = 5

# A polymorphic lookup (Case.Owner: User or Group) reaches only the fields of Salesforce's "Name"
# object unless TYPEOF is used (SOQL reference, "Understanding Relationship Fields and Polymorphic Fields").
NAME_OBJECT_FIELDS = (
    "Id",
    "Name",
    "Type",
    "Alias",
    "Email",
    "FirstName",
    "LastName",
    "IsActive",
    "Title",
    "Username",
    "Phone",
    "ProfileId",
    "UserRoleId",
    "RecordTypeId",
    "CommunityNickname",
    "LastReferencedDate",
    "LastViewedDate",
)
_NAME_OBJECT = {name.lower(): name for name in NAME_OBJECT_FIELDS}


@dataclass(frozen=True)
class Hop:
    """One step from a record to its parent through a lookup field."""

    field: Field
    name: str
    targets: tuple[SObject, ...]

    @property
    def polymorphic(self) -> bool:
        return len(self.targets) > 1


@dataclass(frozen=True)
class ColumnRef:
    """A value reachable from the query's object: ``hops`` to walk, then ``name``.

    For a plain field ``field`` is its schema entry. After a polymorphic hop ``name`` is a Name-object
    field and ``field`` the entry of the first target that has it (``None`` for the pseudo-field Type).
    """

    hops: tuple[Hop, ...]
    name: str
    field: Field | None

    @property
    def type(self) -> str:
        return self.field.type if self.field is not None else "string"

    @property
    def path(self) -> tuple[str, ...]:
        return (*(hop.name for hop in self.hops), self.name)

    @property
    def text(self) -> str:
        return ".".join(self.path)


class NameResolver:
    """Resolves paths relative to one object (a query's FROM), honouring its alias."""

    def __init__(self, schema: Schema, sobject: SObject, alias: str | None, query: str) -> None:
        self.schema = schema
        self.sobject = sobject
        self.alias = alias
        self.query = query

    def _strip_qualifier(self, parts: tuple[str, ...]) -> tuple[str, ...]:
        """`c.Name` with FROM Contact c, or `Contact.Name` from Contact: the first part names the object."""
        if len(parts) < 2:
            return parts
        head = parts[0].lower()
        if self.alias is not None and head == self.alias.lower():
            return parts[1:]
        if head == self.sobject.name.lower() and self.sobject.relationship(parts[0]) is None:
            return parts[1:]
        return parts

    def column(self, path: nodes.FieldPath) -> ColumnRef:
        parts = self._strip_qualifier(path.parts)
        if len(parts) - 1 > MAX_PATH_DEPTH:
            raise MalformedQuery.at(
                self.query, path.pos, f"Cannot follow relationships more than {MAX_PATH_DEPTH} levels deep: {path.text}"
            )
        current = self.sobject
        hops: list[Hop] = []
        for index, part in enumerate(parts[:-1]):
            field = current.relationship(part) if part else None
            if field is None:
                raise InvalidField.at(self.query, path.pos, NO_SUCH_RELATIONSHIP.format(name=part))
            hop = Hop(field, field.relationship_name or part, tuple(self.schema[t] for t in field.reference_to))
            hops.append(hop)
            if hop.polymorphic:
                return self._name_object_column(tuple(hops), parts[index + 1 :], path)
            current = hop.targets[0]
        field = current.field(parts[-1]) if parts[-1] else None
        if field is None:
            raise InvalidField.at(self.query, path.pos, NO_SUCH_COLUMN.format(field=parts[-1], sobject=current.name))
        return ColumnRef(tuple(hops), field.name, field)

    def _name_object_column(self, hops: tuple[Hop, ...], rest: tuple[str, ...], path: nodes.FieldPath) -> ColumnRef:
        if len(rest) > 1:
            raise InvalidField.at(self.query, path.pos, NO_SUCH_RELATIONSHIP.format(name=rest[0]))
        name = _NAME_OBJECT.get(rest[0].lower())
        field = None
        if name is not None and name != "Type":
            field = next((t.field(name) for t in hops[-1].targets if t.field(name) is not None), None)
        if name is None or (field is None and name != "Type"):
            raise InvalidField.at(self.query, path.pos, NO_SUCH_COLUMN.format(field=rest[0], sobject="Name"))
        return ColumnRef(hops, name, field)

    def relationship(self, path: nodes.FieldPath) -> tuple[tuple[Hop, ...], Hop]:
        """A path that ends in a relationship (TYPEOF's subject): the hops before it and the last hop."""
        parts = self._strip_qualifier(path.parts)
        current = self.sobject
        hops: list[Hop] = []
        for part in parts:
            field = current.relationship(part)
            if field is None:
                raise InvalidField.at(self.query, path.pos, NO_SUCH_RELATIONSHIP.format(name=part))
            hop = Hop(field, field.relationship_name or part, tuple(self.schema[t] for t in field.reference_to))
            hops.append(hop)
            current = hop.targets[0]
        return tuple(hops[:-1]), hops[-1]
