"""Keyword classes, the names allowed in keyword-like positions, and readable terminal names.

Salesforce's grammar has hard keywords (never a bare name), soft keywords (keywords that are
also accepted as names) and plain identifiers that are only checked after parsing
(reference/soql_sosl.md §1.3).
"""

from __future__ import annotations

HARD_KEYWORDS = frozenset(
    [
        "AND",
        "AS",
        "ASC",
        "BIND",
        "BY",
        "CUBE",
        "DESC",
        "ELSE",
        "EXCLUDES",
        "FALSE",
        "FIRST",
        "FOR",
        "FROM",
        "HAVING",
        "HIERARCHICAL",
        "IN",
        "INCLUDES",
        "LAST",
        "LIKE",
        "LIMIT",
        "LOOKUP",
        "NOT",
        "NULL",
        "NULLS",
        "OR",
        "ROLLUP",
        "SELECT",
        "TRUE",
        "UPDATE",
        "USING",
        "WHERE",
        "WITH",
    ]
)

SOFT_KEYWORDS = frozenset(
    [
        "ABOVE",
        "ABOVE_OR_BELOW",
        "AT",
        "BELOW",
        "CATEGORY",
        "COUNT",
        "DATA",
        "DISTANCE",
        "END",
        "FIELDS",
        "FIND",
        "GEOLOCATION",
        "GROUP",
        "OFFSET",
        "ORDER",
        "REFERENCE",
        "RETURNING",
        "SCOPE",
        "THEN",
        "TYPEOF",
        "VIEW",
        "WHEN",
    ]
)

# Functions of the SELECT list and of conditions, spelled as the reference spells them.
FUNCTION_SPELLINGS = {
    name.upper(): name
    for name in [
        "AVG",
        "COUNT",
        "COUNT_DISTINCT",
        "MAX",
        "MIN",
        "SUM",
        "GROUPING",
        "FORMAT",
        "toLabel",
        "convertCurrency",
        "convertTimezone",
        "CALENDAR_MONTH",
        "CALENDAR_QUARTER",
        "CALENDAR_YEAR",
        "DAY_IN_MONTH",
        "DAY_IN_WEEK",
        "DAY_IN_YEAR",
        "DAY_ONLY",
        "FISCAL_MONTH",
        "FISCAL_QUARTER",
        "FISCAL_YEAR",
        "HOUR_IN_DAY",
        "WEEK_IN_MONTH",
        "WEEK_IN_YEAR",
    ]
}

FIELDS_CATEGORIES = frozenset({"ALL", "STANDARD", "CUSTOM"})

# `WITH name` in SOQL and its one parameterised form.
SOQL_WITH_IDENTIFIERS = {
    "SECURITY_ENFORCED": "SECURITY_ENFORCED",
    "USER_MODE": "USER_MODE",
    "SYSTEM_MODE": "SYSTEM_MODE",
    "RECORDVISIBILITYCONTEXT": "RecordVisibilityContext",
}

# `WITH name` / `WITH name = value` / `WITH name IN (…)` in SOSL.
SOSL_WITH_IDENTIFIERS = {
    "HIGHLIGHT": "HIGHLIGHT",
    "SNIPPET": "SNIPPET",
    "SECURITY_ENFORCED": "SECURITY_ENFORCED",
    "USER_MODE": "USER_MODE",
    "SYSTEM_MODE": "SYSTEM_MODE",
}
SOSL_WITH_FILTERS = {
    "DIVISION": "DIVISION",
    "NETWORK": "NETWORK",
    "PRICEBOOKID": "PricebookId",
    "METADATA": "METADATA",
    "SPELL_CORRECTION": "SPELL_CORRECTION",
}

# The kind of value each SOSL WITH filter takes, which of them accept an IN list, and the options of
# the parameterised WITH clauses (SOQL and SOSL Reference, "WITH … " sections).
SOSL_WITH_FILTERS_VALUE_KIND = {
    "DIVISION": "string",
    "NETWORK": "string",
    "PricebookId": "string",
    "METADATA": "string",
    "SPELL_CORRECTION": "boolean",
}
SOSL_WITH_LIST_FILTERS = frozenset({"NETWORK"})
SOSL_WITH_OPTIONS = {"SNIPPET": {"target_length": "integer"}}

SEARCH_GROUPS = frozenset({"ALL", "NAME", "EMAIL", "PHONE", "SIDEBAR"})
SEARCH_MODES = frozenset({"PHRASE", "ADVANCED"})
UPDATE_OPTIONS = frozenset({"TRACKING", "VIEWSTAT"})

# Forms that only Apex accepts; over the API a real org refuses them.
APEX_ONLY_MESSAGES = {
    "APEX_BIND": "Bind variables only allowed in Apex code",
    "APEX_ALL_ROWS": "ALL ROWS is only allowed in Apex code; use the queryAll resource instead",
    "FOR_UPDATE": "FOR UPDATE is only allowed in Apex code",
}

# Readable names for the grammar's terminals, for the `expected` list of an error.
TERMINAL_NAMES = {
    "IDENT": "a name",
    "STRING": "a string",
    "BRACED_TEXT": "{search text}",
    "INT": "an integer",
    "DECIMAL": "a number",
    "DATE": "a date",
    "DATETIME": "a datetime",
    "TIME": "a time",
    "NEGATIVE_CURRENCY": "a currency amount",
    "SIGN": "'+' or '-'",
    "COUNT_ALL": "COUNT()",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "COLON": "':'",
    "EQ": "'='",
    "NE": "'!='",
    "LTGT": "'<>'",
    "LE": "'<='",
    "GE": "'>='",
    "LT": "'<'",
    "GT": "'>'",
    "WORD": "a search word",
    "PHRASE": "a quoted phrase",
    "$END": "<EOF>",
}


def terminal_name(terminal: str) -> str:
    """What a grammar terminal looks like to a user: keywords by their text, others by kind."""
    return TERMINAL_NAMES.get(terminal, terminal)
