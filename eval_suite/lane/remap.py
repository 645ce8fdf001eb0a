"""``crmarena tasks remap``: a task file whose Ids are the org's, through the Id map of a push.

Every string of every task (query, answer, params, context, reference solution) is rewritten: a
record Id of the dump, in its 18- or its 15-character form, becomes the org's Id in the same form.
An Id of the dump's objects that the map does not know is refused, with where it is, so that no
task silently names a record the org does not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fixtures.tasks.task_file import read_task_file
from mock_org.ids import to18
from mock_org.user_errors import InvalidData

from ..run.records import write_records_atomic
from .idmap import IdMap

# A word of 15 or 18 letters and digits: a candidate Id (whether it is one is the map's and the prefixes' call).
_CANDIDATE = re.compile(r"(?<![0-9A-Za-z])[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?(?![0-9A-Za-z])")


def map_known_ids(text: str, flat: dict[str, str], unknown: Callable[[str], None] | None = None) -> str:
    """``text`` with every Id the map knows replaced by the org's, in the same form; other words kept,
    each shown to ``unknown`` first (which may refuse it)."""

    def replace(match: re.Match[str]) -> str:
        target = flat.get(match.group(0))
        if target is None:
            if unknown is not None:
                unknown(match.group(0))
            return match.group(0)
        return target if len(match.group(0)) == 18 else target[:15]

    return _CANDIDATE.sub(replace, text)


class UnmappedId(InvalidData):
    """A task names a record of the dump that the Id map does not have."""


class Remapper:
    """Rewrites the dump's Ids through ``idmap``; ``prefixes`` are the key prefixes of the dump's objects."""

    def __init__(self, idmap: IdMap, prefixes: Iterable[str]) -> None:
        self.flat = idmap.flat()
        self.prefixes = tuple(prefixes)

    def _looks_like_ours(self, word: str) -> bool:
        # Our Ids (and a real org's) are prefix + 2-character pod + "0" + serial.
        return word.startswith(self.prefixes) and word[5] == "0" and any(char.isdigit() for char in word[6:])

    def string(self, text: str, where: str) -> str:
        def refuse_ours(word: str) -> None:
            if self._looks_like_ours(word) and (len(word) == 15 or _valid18(word)):
                raise UnmappedId(f"{where}: {word} is a record Id the Id map does not have")

        return map_known_ids(text, self.flat, refuse_ours)

    def value(self, value: Any, where: str) -> Any:
        if isinstance(value, str):
            return self.string(value, where)
        if isinstance(value, list):
            return [self.value(item, f"{where}[{index}]") for index, item in enumerate(value)]
        if isinstance(value, dict):
            return {key: self.value(item, f"{where}.{key}") for key, item in value.items()}
        return value


def _valid18(word: str) -> bool:
    try:
        return to18(word) == word
    except ValueError:
        return False


def remap_file(source: Path, out: Path, remapper: Remapper) -> int:
    """Rewrite the task file ``source`` (read and checked by the one task-file loader) into ``out`` as
    JSON Lines (atomically); the number of tasks. A file the loader refuses is its TaskFileError (exit 3)."""
    task_file = read_task_file(source)
    tasks = [
        remapper.value(instance.to_json(), f"{source} line {line} (idx {instance.idx})")
        for line, instance in zip(task_file.lines, task_file.instances, strict=True)
    ]
    write_records_atomic(Path(out), tasks)
    return len(tasks)
