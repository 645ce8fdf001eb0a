"""SOSL: find the records whose text matches, then shape each RETURNING object like a SOQL query.

Each word or phrase is looked up in the object's FTS5 index (restricted to the search group's
fields); AND, OR and AND NOT combine the matches; every RETURNING entry's WHERE, ORDER BY and
field list then run through the SOQL compiler on the matched records. Without ORDER BY records
come by relevance (the sum of the terms' BM25 scores, then Id), which is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from soql_parser import QuerySyntaxError, nodes, parse_sosl

from .. import deadline
from ..clock import OrgClock
from ..errors import NO_SUCH_SOBJECT, InvalidType, MalformedSearch
from ..query.compile import compile_query
from ..query.engine import MAX_QUERY_LENGTH, QueryEngine, syntax_error
from ..query.scope import QueryContext
from ..schema import SObject
from ..storage import one_of
from .index import group_fields, index_name, indexed_objects, quote
from .terms import Term, post_order, search_text, term, terms_of, tokens

MAX_ROWS = 2000
MAX_OFFSET = 2000
MAX_SEARCH_TEXT = 10_000
MAX_SEARCH_TEXT_WITH_OPERATORS = 4_000
# Articles and products are searched in all their fields whatever the IN clause says, and their
# words are ORed by default (SOSL reference, "IN SearchGroup" and "FIND {SearchQuery}").
ALL_FIELDS_ALWAYS = frozenset({"knowledge__kav", "product2"})
IMPLICIT_OR = frozenset({"knowledge__kav"})

Scores = dict[str, float]


class SearchEngine:
    def __init__(self, queries: QueryEngine) -> None:
        self.queries = queries
        self.storage = queries.storage
        self.schema = queries.schema

    def search(
        self, query_text: str, *, version: str = "59.0", user_id: str | None = None, clock: OrgClock | None = None
    ) -> dict[str, Any]:
        with deadline.limited(self.queries.timeout):
            return self._search(query_text, version, user_id, clock)

    def _search(self, query_text: str, version: str, user_id: str | None, clock: OrgClock | None) -> dict[str, Any]:
        if not isinstance(query_text, str) or not query_text.strip():
            raise MalformedSearch("No search term found. The search term must be enclosed in braces.")
        if len(query_text) > MAX_QUERY_LENGTH:
            raise MalformedSearch(f"SOSL statements cannot be longer than {MAX_QUERY_LENGTH} characters")
        try:
            tree = parse_sosl(query_text)
        except QuerySyntaxError as error:
            raise syntax_error(query_text, error, MalformedSearch) from None
        self._check_paging(tree)
        # SOSL Reference, "FIND {SearchQuery}": beyond 10,000 characters no rows come back; beyond
        # 4,000 the logical operators are dropped and every term is ORed.
        length = len(search_text(query_text))
        if length > MAX_SEARCH_TEXT:
            return {"searchRecords": []}
        operators_removed = length > MAX_SEARCH_TEXT_WITH_OPERATORS
        terms = {id(node): term(node) for node in terms_of(tree.search)}
        entries = tree.returning or tuple(nodes.ReturningObject(sobject.name) for sobject in self._default_objects())
        clock = clock or self.queries.clock
        context = QueryContext(self.schema, self.storage.tables, clock, query_text, user_id=user_id)
        results: list[tuple[nodes.ReturningObject, list[dict[str, Any]]]] = []
        with self.storage.read() as connection:
            for entry in entries:
                sobject = self._sobject(entry, query_text)
                group = "ALL" if sobject.name.lower() in ALL_FIELDS_ALWAYS else tree.search_group or "ALL"
                fields = [field.name for field in group_fields(sobject, group)]
                if not fields:
                    results.append((entry, []))
                    continue
                scores = self._evaluate(connection, sobject, fields, tree.search, terms, operators_removed)
                results.append((entry, self._records(connection, context, entry, scores, version)))
        records = self._apply_limits(tree, results)
        body: dict[str, Any] = {"searchRecords": records}
        if any(isinstance(c, nodes.WithFilter) and c.name == "METADATA" for c in tree.with_clauses):
            body["metadata"] = self._metadata(entries)
        return body

    # ------------------------------------------------------------------- objects and paging

    def _default_objects(self) -> list[SObject]:
        return [sobject for sobject in indexed_objects(self.schema) if not sobject.supporting]

    def _sobject(self, entry: nodes.ReturningObject, query_text: str) -> SObject:
        sobject = self.schema.get(entry.sobject)
        if sobject is None or sobject not in indexed_objects(self.schema):
            raise InvalidType.at(query_text, entry.pos, NO_SUCH_SOBJECT.format(sobject=entry.sobject))
        return sobject

    @staticmethod
    def _check_paging(tree: nodes.SoslQuery) -> None:
        offsets = [entry.offset for entry in tree.returning if entry.offset is not None]
        if offsets and (len(tree.returning) > 1 or not 0 <= offsets[0] <= MAX_OFFSET):
            raise MalformedSearch(f"SOSL offset should be between 0 to {MAX_OFFSET}")
        limits = [tree.limit] + [entry.limit for entry in tree.returning]
        if any(limit is not None and limit < 0 for limit in limits):
            raise MalformedSearch("SOSL LIMIT must not be negative")

    # ------------------------------------------------------------------- matching

    def _evaluate(
        self,
        connection: Connection,
        sobject: SObject,
        fields: list[str],
        expression: nodes.SearchExpression,
        terms: dict[int, Term],
        operators_removed: bool,
    ) -> Scores:
        """Record Id → relevance for the whole search expression (walked without recursion: a chain of
        hundreds of terms is that deep). With ``operators_removed`` every term is ORed."""
        implicit_or = sobject.name.lower() in IMPLICIT_OR
        memo: dict[str, Scores] = {}

        def matches(node: nodes.SearchTerm) -> Scores:
            found = terms[id(node)]
            if found.match not in memo or found.pattern is not None:
                memo[found.match] = self._term_matches(connection, sobject, fields, found)
            return memo[found.match]

        if operators_removed:
            scores: Scores = {}
            for leaf in terms_of(expression):
                scores = _either(scores, matches(leaf))
            return scores
        done: dict[int, Scores] = {}
        for node in post_order(expression):
            if isinstance(node, nodes.SearchTerm):
                done[id(node)] = matches(node)
                continue
            left, right = done.pop(id(node.left)), done.pop(id(node.right))
            if isinstance(node, nodes.SearchAndNot):
                done[id(node)] = {key: score for key, score in left.items() if key not in right}
            elif isinstance(node, nodes.SearchOr) or (
                isinstance(node, nodes.SearchAnd) and implicit_or and not node.explicit
            ):
                done[id(node)] = _either(left, right)
            else:
                done[id(node)] = {key: score + right[key] for key, score in left.items() if key in right}
        return done[id(expression)]

    def _term_matches(self, connection: Connection, sobject: SObject, fields: list[str], found: Term) -> Scores:
        table = self.storage.table(sobject)
        index = index_name(sobject)
        match = "{" + " ".join(fields) + "} : " + found.match
        # Names come from the schema file; the user's words reach SQLite only as the bound :match.
        rows = connection.execute(
            text(
                f'SELECT t."Id", -bm25({quote(index)}) FROM {quote(index)} JOIN {quote(sobject.name)} AS t '
                f'ON t.rowid = {quote(index)}.rowid WHERE {quote(index)} MATCH :match AND t."IsDeleted" = 0'
            ),
            {"match": match},
        ).all()
        scores = {record_id: float(score) for record_id, score in rows}
        if found.pattern is None or not scores:
            return scores
        pattern = found.pattern
        columns = [table.c.Id, *(table.c[name] for name in fields)]
        kept: Scores = {}
        for row in connection.execute(select(*columns).where(one_of(table.c.Id, list(scores)))).all():
            deadline.check()
            words = (word for value in row[1:] if value for word in tokens(str(value)))
            if any(pattern.matches(word) for word in words):
                kept[row[0]] = scores[row[0]]
        return kept

    # ------------------------------------------------------------------- RETURNING

    def _records(
        self,
        connection: Connection,
        context: QueryContext,
        entry: nodes.ReturningObject,
        scores: Scores,
        version: str,
    ) -> list[dict[str, Any]]:
        if not scores:
            return []
        items = entry.select_items or (nodes.SelectItem(nodes.FieldPath(("Id",))),)
        query = nodes.SoqlQuery(
            select_items=items,
            from_items=(nodes.FromItem(entry.sobject, pos=entry.pos),),
            where=entry.where,
            order_by=entry.order_by,
        )
        matched = list(scores)
        restrict: Callable = lambda scope: one_of(scope.table.c.Id, matched)  # noqa: E731
        plan = compile_query(context, query, restrict=restrict)
        assert plan.template is not None
        rows = list(connection.execute(plan.statement).all())
        if not entry.order_by:
            id_index = plan.template.id_index
            rows.sort(key=lambda row: (-scores[row[id_index]], row[id_index]))
        start = entry.offset or 0
        end = None if entry.limit is None else start + entry.limit
        return self.queries.shape(plan, rows[start:end], connection, version)

    @staticmethod
    def _apply_limits(
        tree: nodes.SoslQuery, results: list[tuple[nodes.ReturningObject, list[dict[str, Any]]]]
    ) -> list[dict[str, Any]]:
        """The overall LIMIT (2,000 at most): filled in RETURNING order when objects have their own
        limits, shared evenly otherwise (SOSL reference, "LIMIT n")."""
        budget = min(tree.limit if tree.limit is not None else MAX_ROWS, MAX_ROWS)
        if any(entry.limit is not None for entry, _ in results) or tree.limit is None:
            taken, out = 0, []
            for _, records in results:
                share = records[: max(0, budget - taken)]
                taken += len(share)
                out.extend(share)
            return out
        shares = [0] * len(results)
        remaining = budget
        while remaining > 0:
            hungry = [i for i, (_, records) in enumerate(results) if shares[i] < len(records)]
            if not hungry:
                break
            for i in hungry:
                if remaining == 0:
                    break
                shares[i] += 1
                remaining -= 1
        return [record for (_, records), share in zip(results, shares, strict=True) for record in records[:share]]

    def _metadata(self, entries: tuple[nodes.ReturningObject, ...]) -> dict[str, Any]:
        """WITH METADATA='LABELS': the labels of the objects and fields returned."""
        entity = []
        for entry in entries:
            sobject = self.schema[entry.sobject]
            names = [
                item.expression.parts[-1] for item in entry.select_items if isinstance(item.expression, nodes.FieldPath)
            ]
            fields = [sobject.field(name) for name in names or ["Id"]]
            entity.append(
                {
                    "entityName": sobject.name,
                    "fieldMetadata": [{"name": f.name, "label": f.label} for f in fields if f is not None],
                }
            )
        return {"entityMetadata": entity}


def _either(left: Scores, right: Scores) -> Scores:
    """OR: the records either side matched, their relevance added."""
    return {key: left.get(key, 0.0) + right.get(key, 0.0) for key in left.keys() | right.keys()}
