"""Literal values as named bind parameters, so that a compiled plan can run with the values of another
query of the same shape (soql_parser/shapes.py) instead of being parsed and compiled again.

While a query is compiled for its shape, each value converted from a lifted literal becomes a bind
parameter named ``~n`` (no SQLAlchemy name has the ``~``: it names its own parameters after columns)
and the conversion is kept. A later query of the same shape gets its values by running the same
conversions on its own literals: the type checks, Id and range checks and LIKE encoding all run again,
and one that fails sends the query down the full path, which raises the error the org reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.engine import Dialect

from soql_parser import nodes
from soql_parser.shapes import LiftedLiteral

from .templates import ChildSlot, QueryPlan

BIND_PREFIX = "~"
_BINDABLE = (str, int, float)


@dataclass(frozen=True, slots=True)
class Rebind:
    """Bind parameter ``key`` holds ``convert`` of the shape's literal number ``slot``."""

    key: str
    slot: int
    convert: Callable[[nodes.Literal], Any]


class LiteralBinds:
    """The lifted literals of the query being compiled (by the position of their node) and the binds made
    of them. Without ``slots`` (a SOSL search, the plan cache off) every value stays an anonymous bind."""

    def __init__(self, slots: Mapping[tuple[int, int], int] | None = None) -> None:
        self.slots = slots or {}
        self.rebinds: list[Rebind] = []

    def bind(self, literal: nodes.Literal, value: Any, convert: Callable[[nodes.Literal], Any]) -> Any:
        """``value`` (converted from ``literal`` by ``convert``) as the SQL expression to compare with."""
        slot = self.slots.get(literal.pos) if self.slots and literal.pos is not None else None
        if slot is None or type(value) not in _BINDABLE:
            return value  # None and date ranges shape the SQL; such a literal is never lifted
        key = f"{BIND_PREFIX}{len(self.rebinds)}"
        self.rebinds.append(Rebind(key, slot, convert))
        return bindparam(key, value)

    def shareable(self, plan: QueryPlan, dialect: Dialect) -> tuple[Rebind, ...] | None:
        """The rebinds, when the plan can serve every query of its shape: each lifted literal went into
        bound values that the statements really use, and nowhere else. None otherwise."""
        covered = {rebind.slot for rebind in self.rebinds}
        if covered != set(range(len(self.slots))):
            return None  # a literal the plan uses some other way (a long IN list, INCLUDES, a WITH value)
        used = set(plan.bind_names(dialect))
        for child in _child_plans(plan):
            used |= set(child.statement.compile(dialect=dialect).binds)
        if any(rebind.key not in used for rebind in self.rebinds):
            return None
        return tuple(self.rebinds)


def rebound(plan: QueryPlan, rebinds: Sequence[Rebind], lifted: Sequence[LiftedLiteral]) -> QueryPlan | None:
    """``plan`` with the values of another query's literals, or None when one of them does not convert
    (the full path then reports the error exactly as the org does)."""
    try:
        literals = [literal.node() for literal in lifted]
        values = {rebind.key: rebind.convert(literals[rebind.slot]) for rebind in rebinds}
    except Exception:  # whatever went wrong, the full path says it properly
        return None
    if any(type(value) not in _BINDABLE for value in values.values()):
        return None
    return plan.with_literals(values)


def _child_plans(plan: QueryPlan) -> list[QueryPlan]:
    found = []
    stack = [plan]
    while stack:
        current = stack.pop()
        for entry in current.template.entries if current.template else ():
            if isinstance(entry, ChildSlot):
                found.append(entry.plan)
                stack.append(entry.plan)
    return found
