"""SOSL search terms → FTS5 MATCH expressions, one per word or phrase.

Salesforce splits text into tokens at whitespace and punctuation and ignores case (reference/
soql_sosl.md §4.5). A word such as ``acme.com`` is therefore the phrase of its tokens; ``*`` matches
any run of characters and ``?`` one character, in the middle or at the end of a word. FTS5 only
knows trailing prefixes, so a term with an inner wildcard is searched by its prefix and then
checked against each token of the record with a wildcard pattern (linear time, wildcards.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from soql_parser import nodes

from ..errors import InvalidSearch
from ..wildcards import ANY_ONE, ANY_RUN, Item, Pattern

_TOKEN = re.compile(r"[^\W_]+")
_ESCAPE = re.compile(r"\\(.)")


def normalise(text: str) -> str:
    """What the index compares: lower case, accents removed (FTS5's unicode61, remove_diacritics 2).
    Lower-casing, not case folding: the index keeps "ß" as it is."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text))


@dataclass(frozen=True)
class Term:
    """One word or phrase: the FTS5 query for it, and for inner wildcards the per-token pattern."""

    text: str
    match: str
    pattern: Pattern | None


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _characters(text: str) -> list[tuple[str, bool]]:
    """The word's characters with escapes resolved, each marked True when it is a wildcard."""
    characters, index = [], 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            characters.append((text[index + 1], False))
            index += 2
        else:
            characters.append((text[index], text[index] in "*?"))
            index += 1
    return characters


def _too_short(text: str) -> InvalidSearch:
    return InvalidSearch(f"search term must be longer than one character: {text}")


def _word(text: str) -> Term:
    """A word: searched as its tokens in order; a trailing * is an FTS5 prefix query."""
    characters = _characters(text)
    plain = "".join(char for char, wild in characters if not wild)
    if len(normalise(plain).strip()) < 2:
        raise _too_short(text)
    first_wild = next((index for index, (_, wild) in enumerate(characters) if wild), None)
    if first_wild is None:
        return Term(text, _quote(" ".join(tokens(plain))), None)
    head = tokens("".join(char for char, _ in characters[:first_wild]))
    if not head:
        raise _too_short(text)
    tail = characters[first_wild:]
    match = f"{_quote(' '.join(head))} *"
    if tail == [("*", True)]:
        return Term(text, match, None)
    # FTS5 narrows the records by the prefix; the pattern then checks the last word token by token.
    items: list[Item] = [(char, False) for char in head[-1]]
    for char, wild in tail:
        if wild:
            items.append((ANY_RUN if char == "*" else ANY_ONE, True))
        else:
            items.extend((folded, False) for folded in normalise(char))
    return Term(text, match, Pattern.of(items))


def _phrase(text: str) -> Term:
    """A quoted phrase: its tokens consecutively (wildcards inside act as trailing prefixes)."""
    literal = _ESCAPE.sub(lambda match: match.group(1), text)
    words = tokens(literal)
    if not words or len(" ".join(words)) < 2:
        raise InvalidSearch(f"search term must be longer than one character: {literal}")
    star = literal.rstrip().endswith("*")
    return Term(text, _quote(" ".join(words)) + (" *" if star else ""), None)


def term(node: nodes.SearchTerm) -> Term:
    return _phrase(node.text) if node.phrase else _word(node.text)


def post_order(expression: nodes.SearchExpression) -> list[nodes.SearchExpression]:
    """Every node of a search expression, children before their parent and left before right
    (without recursion: a chain of hundreds of terms is that deep)."""
    ordered: list[nodes.SearchExpression] = []
    pending: list[tuple[nodes.SearchExpression, bool]] = [(expression, False)]
    while pending:
        node, children_done = pending.pop()
        if isinstance(node, nodes.SearchTerm) or children_done:
            ordered.append(node)
            continue
        pending += [(node, True), (node.right, False), (node.left, False)]
    return ordered


def terms_of(expression: nodes.SearchExpression) -> list[nodes.SearchTerm]:
    """Every word and phrase of a search expression, left to right."""
    return [node for node in post_order(expression) if isinstance(node, nodes.SearchTerm)]


def search_text(query: str) -> str:
    """The SearchQuery of a (parsed) SOSL statement: the text inside ``FIND {…}``, or ``FIND '…'``."""
    start = query.upper().index("FIND") + 4
    while query[start].isspace():
        start += 1
    closing = "}" if query[start] == "{" else query[start]
    index = start + 1
    while index < len(query) and query[index] != closing:
        index += 2 if query[index] == "\\" else 1
    return query[start + 1 : index]
