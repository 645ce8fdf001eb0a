"""Wildcard patterns (SOQL LIKE's ``%`` and ``_``, SOSL's ``*`` and ``?``), matched in time linear in
the text, never by backtracking.

A regular expression such as ``.*.*.*qqq`` backtracks exponentially on text without ``qqq`` and, in
CPython, holds the GIL while it does, so one query could stop every thread of the server. Here a
pattern is split at its "any run" wildcards into segments of fixed length, and matching is the
classic greedy glob algorithm: the first segment must start the text, the last must end it, and
each segment between them is taken at its leftmost occurrence after the previous one (taking it
later can never help the rest match). A segment without "any one" wildcards is found with
``str.find``; one with them by the bit-parallel Shift-And algorithm, one step per character.

Patterns travel to SQLite as text (``encode``): ``%`` any run, ``_`` any one character, ``\\``
escaping the next character.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

ANY_RUN = "%"
ANY_ONE = "_"
_ESCAPE = "\\"

# A pattern item: (character, is_wildcard); a wildcard's character is ANY_RUN or ANY_ONE.
Item = tuple[str, bool]


@dataclass(frozen=True)
class _Segment:
    """A run of the pattern between two ANY_RUN wildcards: characters, None standing for "any one"."""

    chars: tuple[str | None, ...]

    def __len__(self) -> int:
        return len(self.chars)

    @property
    def literal(self) -> str | None:
        """The segment as plain text when it has no ANY_ONE wildcard."""
        if any(char is None for char in self.chars):
            return None
        return "".join(char for char in self.chars if char is not None)

    def matches_at(self, text: str, start: int) -> bool:
        if start < 0 or start + len(self.chars) > len(text):
            return False
        return all(char is None or char == text[start + i] for i, char in enumerate(self.chars))

    def find(self, text: str, start: int, end: int) -> int:
        """The leftmost position >= ``start`` where the segment lies wholly before ``end``, or -1."""
        literal = self.literal
        if literal is not None:
            return text.find(literal, start, end)
        return _shift_and(self.chars, text, start, end)


@lru_cache(maxsize=256)
def _masks(chars: tuple[str | None, ...]) -> tuple[dict[str, int], int]:
    by_char: dict[str, int] = {}
    wildcard = 0
    for index, char in enumerate(chars):
        if char is None:
            wildcard |= 1 << index
        else:
            by_char[char] = by_char.get(char, 0) | (1 << index)
    return by_char, wildcard


def _shift_and(chars: tuple[str | None, ...], text: str, start: int, end: int) -> int:
    """Shift-And: bit i of ``state`` says the first i+1 pattern characters end at the current one."""
    by_char, wildcard = _masks(chars)
    final = 1 << (len(chars) - 1)
    state = 0
    for position in range(start, end):
        state = ((state << 1) | 1) & (by_char.get(text[position], 0) | wildcard)
        if state & final:
            return position - len(chars) + 1
    return -1


@dataclass(frozen=True)
class Pattern:
    """A compiled wildcard pattern; ``matches`` is linear in the length of the text."""

    segments: tuple[_Segment, ...]  # one more than the number of ANY_RUN wildcards

    @classmethod
    def of(cls, items: Iterable[Item]) -> Pattern:
        segments: list[_Segment] = []
        current: list[str | None] = []
        for char, wild in items:
            if wild and char == ANY_RUN:
                segments.append(_Segment(tuple(current)))
                current = []
            else:
                current.append(None if wild else char)
        segments.append(_Segment(tuple(current)))
        return cls(tuple(segments))

    def matches(self, text: str) -> bool:
        first, last = self.segments[0], self.segments[-1]
        if len(self.segments) == 1:  # no ANY_RUN: the one segment is the whole text
            return len(first) == len(text) and first.matches_at(text, 0)
        if len(first) + len(last) > len(text) or not first.matches_at(text, 0):
            return False
        end = len(text) - len(last)
        if not last.matches_at(text, end):
            return False
        position = len(first)
        for segment in self.segments[1:-1]:
            if not segment:
                continue
            found = segment.find(text, position, end)
            if found < 0:
                return False
            position = found + len(segment)
        return True

    def encode(self) -> str:
        """The pattern as text for SQL (``decode`` reads it back)."""
        parts = []
        for index, segment in enumerate(self.segments):
            if index:
                parts.append(ANY_RUN)
            for char in segment.chars:
                if char is None:
                    parts.append(ANY_ONE)
                elif char in (ANY_RUN, ANY_ONE, _ESCAPE):
                    parts.append(_ESCAPE + char)
                else:
                    parts.append(char)
        return "".join(parts)


@lru_cache(maxsize=512)
def decode(text: str) -> Pattern:
    """The pattern that ``Pattern.encode`` wrote as ``text``."""
    items: list[Item] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == _ESCAPE and index + 1 < len(text):
            items.append((text[index + 1], False))
            index += 2
            continue
        items.append((char, char in (ANY_RUN, ANY_ONE)))
        index += 1
    return Pattern.of(items)
