"""Runs the LALR parsers and turns every Lark failure into ``QuerySyntaxError``.

The grammars are compiled once per process (on first use) and shared; Lark's LALR parser
keeps no state between calls, so this is safe from several threads.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterator
from typing import cast

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from . import keywords, nodes
from .errors import QuerySyntaxError
from .grammar_cache import open_grammar
from .transformer import SearchTransformer, SoqlTransformer

# Names that are keywords only when their clause really starts here; LALR(1) cannot tell
# `FROM Account ORDER BY Name` from `FROM Account Order` (an alias) by one token alone.
_NAME_TYPES = frozenset({"IDENT"}) | keywords.SOFT_KEYWORDS


class _DemotedKeyword(Token):
    """ORDER, GROUP or OFFSET read as a name because its clause does not follow; if the parser
    cannot take the name either, the error belongs to the token that should have followed."""

    following: Token | None


class _SoqlPostLexer:
    """Looks ahead where LALR(1) cannot, and refuses Apex-only forms as soon as they appear.

    Most tokens pass straight through; only the few kinds below need a look at what follows.
    """

    always_accept = ("HIERARCHICAL", "APEX_BIND", "APEX_ALL_ROWS", "MALFORMED_DATE")
    _SPECIAL = frozenset({"ORDER", "GROUP", "OFFSET", "TYPEOF", "MALFORMED_DATE", *keywords.APEX_ONLY_MESSAGES})

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        buffer: deque[Token] = deque()

        def peek(index: int) -> Token | None:
            while len(buffer) <= index:
                token = next(stream, None)
                if token is None:
                    return None
                buffer.append(token)
            return buffer[index]

        special = self._SPECIAL
        while True:
            token = buffer.popleft() if buffer else next(stream, None)
            if token is None:
                return
            if token.type in special:
                token = self._special(token, peek)
            yield token

    @staticmethod
    def _special(token: Token, peek: Callable[[int], Token | None]) -> Token:
        kind = token.type
        if kind in keywords.APEX_ONLY_MESSAGES:
            raise _error_at(token, keywords.APEX_ONLY_MESSAGES[kind])
        if kind == "MALFORMED_DATE":
            raise _error_at(token, f"unexpected token: '{token}'")
        following = peek(0)
        after = following.type if following is not None else None
        if kind in ("ORDER", "GROUP"):
            starts = after == "BY"
        elif kind == "OFFSET":
            starts = after in ("INT", "SIGN")
        else:  # TYPEOF
            second = peek(1)
            starts = after in _NAME_TYPES and second is not None and second.type == "WHEN"
        if starts:
            return token
        demoted = _DemotedKeyword.new_borrow_pos("IDENT", str(token), token)
        demoted.following = following
        return demoted


class _SearchPostLexer:
    """NOT is an operator only in AND NOT; anywhere else it is a word to search for."""

    always_accept = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        previous = None
        for token in stream:
            if token.type == "NOT" and previous != "AND":
                token = Token.new_borrow_pos("WORD", str(token), token)
            previous = token.type
            yield token


def _error_at(token: Token, message: str) -> QuerySyntaxError:
    return QuerySyntaxError(message, token.line or 1, token.column or 1, token=str(token))


@functools.cache
def _search_parser() -> Lark:
    return open_grammar(
        "search.lark",
        parser="lalr",
        lexer="basic",
        start="search_expression",
        postlex=_SearchPostLexer(),
        transformer=SearchTransformer(),
    )


@functools.cache
def _query_parser() -> Lark:
    return open_grammar(
        "soql.lark",
        parser="lalr",
        lexer="basic",
        start=["soql_query", "sosl_query"],
        postlex=_SoqlPostLexer(),
        transformer=SoqlTransformer(_parse_search_text),
    )


def warm() -> None:
    """Load both parsers (building their cache files if missing) and lex once with each, so that the
    first real query pays neither (a server calls this before it listens)."""
    parse_soql("SELECT Id FROM Account WHERE Name = 'x'")
    parse_sosl("FIND {x} RETURNING Account(Id)")


def _expected(error: UnexpectedInput) -> tuple[str, ...]:
    """What the parser could have taken: LALR's lookahead sets are merged between states, so
    ask the parser itself which terminals it would really accept at the point of failure."""
    names: set[str] = set(getattr(error, "expected", None) or getattr(error, "allowed", None) or ())
    interactive = getattr(error, "interactive_parser", None)
    if interactive is not None:
        names = set(interactive.accepts())
    if "IDENT" in names:
        names -= keywords.SOFT_KEYWORDS  # soft keywords are names too; "a name" says it
    return tuple(sorted({keywords.terminal_name(name) for name in names}))


def _end_position(text: str) -> tuple[int, int]:
    """Line and column just after the last character that is not whitespace."""
    body = text.rstrip()
    line = body.count("\n") + 1
    return line, len(body) - (body.rfind("\n") + 1) + 1


def _unexpected_token(token: Token | None, text: str, expected: tuple[str, ...]) -> QuerySyntaxError:
    if token is None or token.type == "$END":
        line, column = _end_position(text)
        return QuerySyntaxError("unexpected token: <EOF>", line, column, expected=expected)
    return QuerySyntaxError(
        f"unexpected token: '{token}'", token.line or 1, token.column or 1, token=str(token), expected=expected
    )


def _convert(error: LarkError, text: str) -> QuerySyntaxError:
    """A Lark failure as a real org words it (reference/soql_sosl.md §6)."""
    if isinstance(error, UnexpectedToken):
        token = error.token
        expected = _expected(error)
        if isinstance(token, _DemotedKeyword):
            return _unexpected_token(token.following, text, expected)
        if token.type == "COUNT_ALL":
            # Anywhere but right after SELECT, COUNT() is a call that lacks its argument.
            line, column = token.end_line or 1, (token.end_column or 2) - 1
            return QuerySyntaxError("unexpected token: ')'", line, column, token=")", expected=expected)
        if expected == (keywords.terminal_name("FIELDS"),) and token.type != "$END":
            # SOSL's IN clause: the word after the field group is not FIELDS.
            line, column = token.line or 1, token.column or 1
            return QuerySyntaxError(f"Malformed search token: {token}", line, column, token=str(token))
        return _unexpected_token(token, text, expected)
    if isinstance(error, UnexpectedCharacters):
        position = error.pos_in_stream or 0  # always set on UnexpectedCharacters (lark types it optional)
        char = text[position] if position < len(text) else ""
        if char in ("'", "{"):
            # An opening quote or brace that is never closed: the lexer meets the end of the text.
            expecting = "'" if char == "'" else "}"
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
            message = f"line {line}:{column - 1} mismatched character '<EOF>' expecting '{expecting}'"
            return QuerySyntaxError(message, line, column, expected=(f"'{expecting}'",))
        message = f"line {error.line}:{error.column - 1} unexpected token: '{char}'"
        return QuerySyntaxError(message, error.line, error.column, token=char, expected=_expected(error))
    line, column = _end_position(text)
    return QuerySyntaxError("unexpected token: <EOF>", line, column)


def _run(text: str, start: str) -> object:
    if not isinstance(text, str):
        raise QuerySyntaxError("SOQL statements cannot be empty or null", 1, 1)
    if not text.strip():
        kind = "SOQL" if start == "soql_query" else "SOSL"
        raise QuerySyntaxError(f"{kind} statements cannot be empty or null", 1, 1)
    try:
        return _query_parser().parse(text, start=start)
    except QuerySyntaxError:
        raise
    except LarkError as error:
        original = getattr(error, "orig_exc", None)
        if isinstance(original, QuerySyntaxError):
            raise original from None
        raise _convert(error, text) from None


def _parse_search_text(text: str, token: Token, quoted: bool) -> nodes.SearchExpression:
    """Parse the text inside FIND {…} (or FIND '…'); errors point into the whole query."""
    first_line, first_column = token.line or 1, (token.column or 1) + 1

    def absolute(line: int, column: int) -> tuple[int, int]:
        return first_line + line - 1, (first_column + column - 1 if line == 1 else column)

    # Just after the search text stands the closing brace (or quote).
    close_line, close_column = absolute(text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1)
    closing = "<EOF>" if quoted else "'}'"
    if not text.strip():
        raise QuerySyntaxError(f"unexpected token: {closing}", close_line, close_column)
    try:
        # The parser runs its transformer inline, so parse() answers nodes, not lark's Tree.
        result = cast(nodes.SearchExpression, _search_parser().parse(text))
        return result
    except LarkError as error:
        if isinstance(error, UnexpectedToken) and error.token.type == "$END":
            raise QuerySyntaxError(f"unexpected token: {closing}", close_line, close_column) from None
        if isinstance(error, UnexpectedCharacters):
            # A reserved character that is not escaped. Inside braces a real org reports the
            # character it cannot take, expecting the close.
            char = text[error.pos_in_stream or 0]  # always set on UnexpectedCharacters
            line, column = absolute(error.line, error.column)
            expecting = "" if quoted else " expecting '}'"
            message = f"line {line}:{column - 1} mismatched character '{char}'{expecting}"
            raise QuerySyntaxError(message, line, column, token=char) from None
        inner = _convert(error, text)
        line, column = absolute(inner.line, inner.column)
        raise QuerySyntaxError(inner.message, line, column, token=inner.token) from None


def parse_soql(text: str) -> nodes.SoqlQuery:
    """Parse one SOQL statement; raises ``QuerySyntaxError`` and nothing else."""
    result = _run(text, "soql_query")
    assert isinstance(result, nodes.SoqlQuery)
    return result


def parse_sosl(text: str) -> nodes.SoslQuery:
    """Parse one SOSL statement; raises ``QuerySyntaxError`` and nothing else."""
    result = _run(text, "sosl_query")
    assert isinstance(result, nodes.SoslQuery)
    return result


def parse(text: str) -> nodes.SoqlQuery | nodes.SoslQuery:
    """Parse SOSL when the text begins with FIND (in any case), SOQL otherwise."""
    if isinstance(text, str) and text.lstrip()[:4].upper() == "FIND" and not text.lstrip()[4:5].isalnum():
        return parse_sosl(text)
    return parse_soql(text)
