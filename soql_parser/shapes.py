"""A query's shape: its text with the literal values lifted out, found by a fast scan instead of a parse.

Tool calls embed fresh Ids and dates in otherwise identical queries; a cache keyed by the shape lets an
engine parse and compile each shape once and only bind the new values. The scan mirrors the lexer's
terminals (soql.lark, same patterns, same priorities) so that two texts with the same shape lex to the
same tokens except for the lifted literals. A literal is lifted only where it is a value that a
condition compares with: after a comparison operator or LIKE, or inside the list of IN, NOT IN,
INCLUDES and EXCLUDES. LIMIT and OFFSET counts, relative date literals (with their ``:n``), NULL, TRUE,
FALSE and currency literals stay in the shape, because they change the plan, not only a bound value.

Whether a lifted literal really ends up as a bound value is for the compiler to say; a shape whose
literals do not all end up so must not be shared (the engine checks).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import literals, nodes

# The lexer's terminals in the order its scanner tries them (priority first): soql.lark. Each match
# takes the whitespace before its token along (the lexer ignores it).
_TOKENS = re.compile(
    r"""[ \t\r\n]*(?:
    (?P<DATETIME>[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:?[0-9]{2}))
    |(?P<DATE>[0-9]{4}-[0-9]{2}-[0-9]{2}(?![0-9A-Za-z_.:]))
    |(?P<TIME>[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:?[0-9]{2}))
    |(?P<NEGATIVE_CURRENCY>[A-Za-z]{3}-(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?![A-Za-z0-9_.\u0080-\uFFFE]))
    |(?P<COUNT_ALL>(?i:count[ \t\r\n]*\([ \t\r\n]*\)))
    |(?P<APEX_BIND>:[ \t\r\n]*[A-Za-z_][A-Za-z0-9_]*)
    |(?P<APEX_ALL_ROWS>(?i:all[ \t\r\n]+rows)(?![A-Za-z0-9_.\u0080-\uFFFE]))
    |(?P<MALFORMED_DATE>[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt][0-9:.+\-Zz]*)?)
    |(?P<DECIMAL>[0-9]*\.[0-9]+)
    |(?P<IDENT>[A-Za-z][A-Za-z0-9_.\u0080-\uFFFE]*)
    |(?P<STRING>'[^'\\\r\n]*(?:\\[^\r\n][^'\\\r\n]*)*')
    |(?P<INT>[0-9]+)
    |(?P<SIGN>[+-])
    |(?P<OPERATOR><=|>=|!=|<>|[=<>])
    |(?P<PUNCTUATION>[(),:])
    |(?P<END>\Z)
    )""",
    re.VERBOSE,
)
# The placeholder of a lifted literal in the shape key: a character no query may contain, then the kind.
_MARK = "\x00"
_KIND = {"STRING": "s", "INT": "i", "DECIMAL": "d", "DATE": "D", "DATETIME": "T", "TIME": "t"}
_STRING_PATTERN = r"'[^'\\\r\n]*(?:\\[^\r\n][^'\\\r\n]*)*'"  # the lexer's STRING, its loop unrolled
_STRING = re.compile(_STRING_PATTERN)
# A list of strings only, up to its closing parenthesis: the strings, commas and spaces the scan
# below would meet one by one.
_STRING_LIST = re.compile(rf"(?:[ \t\r\n]*{_STRING_PATTERN}[ \t\r\n]*,)*[ \t\r\n]*{_STRING_PATTERN}(?=[ \t\r\n]*\))")
_STRING_MARK = "\x00s"
_NUMBERS = frozenset({"INT", "DECIMAL"})
_LIST_KEYWORDS = frozenset({"IN", "INCLUDES", "EXCLUDES"})
_LIKE = "LIKE"
_OPEN, _COMMA = "(", ","


class LiftedLiteral(NamedTuple):
    """A literal taken out of the text: its terminal, its text (a number without its sign), and where
    its node starts (line, column), as the parser records it."""

    kind: str
    text: str
    pos: tuple[int, int]
    sign: str = ""

    def node(self) -> nodes.Literal:
        """The syntax-tree node the parser builds for this literal (literals.LiteralError when it has none)."""
        kind, text = self.kind, self.text
        if kind == "STRING":
            if "\\" not in text:  # no escapes: what read_string would give, without building it twice
                return nodes.StringLiteral(text[1:-1], pos=self.pos)
            read = literals.read_string(text)
            return nodes.StringLiteral(read.value, read.escaped_wildcards, pos=self.pos)
        if kind in _NUMBERS:
            return nodes.NumberLiteral(literals.read_number(self.sign, text), pos=self.pos)
        if kind == "DATE":
            return nodes.DateLiteral(literals.read_date(text), pos=self.pos)
        if kind == "DATETIME":
            return nodes.DateTimeLiteral(literals.read_datetime(text), pos=self.pos)
        return nodes.TimeLiteral(literals.read_time(text), pos=self.pos)


_new = tuple.__new__  # builds a LiftedLiteral without the Python-level __new__ of a NamedTuple: per Id, it shows


class Shape(NamedTuple):
    key: str
    literals: tuple[LiftedLiteral, ...]


def query_shape(text: str) -> Shape | None:
    """The shape of a SOQL text, or None when the scan meets something it does not lex (SOSL's braces,
    a character the grammar has no token for): such a text takes the parser's path, errors and all."""
    if not isinstance(text, str) or _MARK in text:
        return None
    one_line = "\n" not in text
    parts: list[str] = []
    lifted: list[LiftedLiteral] = []
    done = 0  # text up to here is in ``parts``
    # The last token: the keyword (upper case) or punctuation it spells, or the terminal's name in
    # angle brackets (no keyword or punctuation looks like that).
    previous = ""
    value_next = False  # the last token puts a value next: an operator, LIKE, or ( or , of a list
    in_list = False  # inside the parentheses of IN (…), INCLUDES (…), EXCLUDES (…)
    sign: tuple[str, int] | None = None  # a sign in value position, waiting for its number
    position = 0
    match = _TOKENS.match
    while True:
        found = match(text, position)
        if found is None:
            return None  # a character no terminal takes: the lexer's error, on the full path
        kind = found.lastgroup
        if kind is None:
            return None  # unreachable: every alternative of _TOKENS is a named group
        position = found.end()
        if kind == "END":
            break
        if kind in _KIND and (value_next or (sign is not None and kind in _NUMBERS)):
            begin = found.start(kind)
            sign_text = ""
            if sign is not None:
                sign_text, begin = sign
                sign = None
            parts.append(text[done:begin])
            parts.append(_MARK + _KIND[kind])
            done = position
            pos = (1, begin + 1) if one_line else _line_column(text, begin)
            lifted.append(_new(LiftedLiteral, (kind, found.group(kind), pos, sign_text)))
            previous, value_next = "<value>", False
            continue
        token = found.group(kind)
        sign = (token, found.start(kind)) if kind == "SIGN" and value_next else None
        if kind == "IDENT":
            word = token.upper()
            value_next = word == _LIKE
        elif kind == "PUNCTUATION":
            word = token
            if token == _OPEN:
                in_list = previous in _LIST_KEYWORDS
                strings = _STRING_LIST.match(text, position) if in_list else None
                if strings is not None:  # the usual list, Ids: all its strings at once
                    for string in _STRING.finditer(text, position, strings.end()):
                        begin = string.start()
                        parts.append(text[done:begin])
                        parts.append(_STRING_MARK)
                        done = string.end()
                        pos = (1, begin + 1) if one_line else _line_column(text, begin)
                        lifted.append(_new(LiftedLiteral, ("STRING", string.group(), pos, "")))
                    position = strings.end()
                    previous, value_next = "<value>", False
                    continue
            elif token == ")":
                in_list = False
            value_next = in_list and token in (_OPEN, _COMMA)
        else:
            word = f"<{kind}>"
            value_next = kind == "OPERATOR"
        previous = word
    parts.append(text[done:])
    return Shape("".join(parts), tuple(lifted))


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset``, as the lexer counts them."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1
