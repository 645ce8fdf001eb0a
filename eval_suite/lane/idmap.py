"""The Id map of a push: which record of the target org each record of the dump became.

Written by ``crmarena org push`` and read by ``crmarena tasks remap`` and ``crmarena conformance``.
The file is JSON: ``{"format": "crmarena-idmap/1", "source": {...}, "target": {...},
"objects": {sobject: {source_id: target_id}}}``, every Id in its 18-character form. Lookups accept
either form of a source Id (the 15-character form is the first 15 characters of the 18).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run.records import write_json_atomic

FORMAT = "crmarena-idmap/1"


class IdMapError(ValueError):
    """The file is not an Id map this version can read."""


@dataclass
class IdMap:
    """Source Id → target Id, per object, with where both sides came from."""

    objects: dict[str, dict[str, str]] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    target: dict[str, Any] = field(default_factory=dict)

    def add(self, sobject: str, source_id: str, target_id: str) -> None:
        self.objects.setdefault(sobject, {})[source_id] = target_id

    def flat(self) -> dict[str, str]:
        """Every mapping, keyed by both the 18- and the 15-character source Id."""
        flat: dict[str, str] = {}
        for ids in self.objects.values():
            for source_id, target_id in ids.items():
                flat[source_id] = target_id
                flat[source_id[:15]] = target_id
        return flat

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        for sobject, ids in self.objects.items():
            for source_id, target_id in ids.items():
                yield sobject, source_id, target_id

    def __len__(self) -> int:
        return sum(len(ids) for ids in self.objects.values())

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "source": self.source, "target": self.target, "objects": self.objects}

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> IdMap:
        if not isinstance(document, Mapping) or document.get("format") != FORMAT:
            raise IdMapError(f"not an Id map in the {FORMAT} format")
        objects = document.get("objects")
        if not isinstance(objects, Mapping) or not all(isinstance(ids, Mapping) for ids in objects.values()):
            raise IdMapError("an Id map's 'objects' must map each object to {source Id: target Id}")
        return cls(
            {str(name): {str(k): str(v) for k, v in ids.items()} for name, ids in objects.items()},
            dict(document.get("source") or {}),
            dict(document.get("target") or {}),
        )


def load_idmap(path: Path) -> IdMap:
    """Read an Id map; a missing, unreadable or malformed file raises IdMapError or OSError."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise IdMapError(f"{path} is not JSON: {error}") from error
    return IdMap.from_json(document)


def save_idmap(idmap: IdMap, path: Path) -> None:
    """Write atomically (beside, then rename), so an interrupted write never leaves half a map."""
    write_json_atomic(Path(path), idmap.to_json())
