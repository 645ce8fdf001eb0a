"""The parser's one exception, and the caret block a real org puts around a query error."""

from __future__ import annotations


class QuerySyntaxError(Exception):
    """A query that Salesforce's parser would refuse.

    ``message`` reads like the reason part of a real org's MALFORMED_QUERY / MALFORMED_SEARCH
    error (``unexpected token: 'FORM'``); ``line`` and ``column`` are 1-based and point at the
    offending character. ``token`` is the offending text (None at the end of input) and
    ``expected`` the readable names of what the parser would have accepted there.
    """

    def __init__(
        self,
        message: str,
        line: int,
        column: int,
        *,
        token: str | None = None,
        expected: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, line, column)
        self.message = message
        self.line = line
        self.column = column
        self.token = token
        self.expected = expected

    def __str__(self) -> str:
        # Lexer messages already open with the org's own "line 1:7" (a 0-based column): say it once.
        if self.message.startswith(f"line {self.line}:"):
            return self.message
        return f"{self.message} (line {self.line}, column {self.column})"

    def caret_message(self, query: str) -> str:
        """The message as a real org words it: the line, a caret under the column, the reason."""
        return caret_block(query, self.line, self.column, self.message)


# A real org shows the whole line when it is short and a slice around the error when it is
# long; the exact slicing rule is not documented, so this keeps at most this many characters
# before the error position.
_WINDOW_BEFORE = 60


def caret_block(query: str, line: int, column: int, reason: str) -> str:
    """``\\n<line>\\n<spaces>^\\nERROR at Row:<line>:Column:<column>\\n<reason>``.

    The shape of Salesforce's query errors (reference/salesforce_api.md §5.3): the window is
    the offending line, cut a little before the error when the line is long; Row and Column are
    1-based and count within the full line.
    """
    lines = query.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    text = text.rstrip("\r")
    start = max(0, column - 1 - _WINDOW_BEFORE)
    if start:
        # Start the window at a word boundary so it does not open in the middle of a name.
        boundary = text.rfind(" ", 0, start + 1)
        start = boundary + 1 if boundary >= 0 else start
    window = text[start:]
    caret = " " * max(0, column - 1 - start) + "^"
    return f"\n{window}\n{caret}\nERROR at Row:{line}:Column:{column}\n{reason}"
