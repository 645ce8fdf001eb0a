"""Reading a sharded run (``crmarena eval --shard I/K``) as one run: the checks ``load_runs`` makes
before and after it merges the shards' directories into one row.

- Refused (ReportInputError, exit 3): shards in one folder that differ in anything but their index — the
  model, agent, prompts, task file or task set, any setting of the row's configuration, or the number
  of shards. One folder holds one sharded run (``crmarena eval --out``); shards of another run go in
  a folder of their own.
- Reported, and the report still written: a shard missing (no directory for an index) or unfinished
  (its ``run.json`` does not say complete: still running, stopped, or errors left to re-run) — the
  row is then partial, and ``crmarena report`` exits 5, as ``crmarena eval`` does for an incomplete
  run; and attempts found in more than one directory (the same shard twice), of which the first
  directory's record is kept — a warning only.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run.identity import CONFIGURATION, configuration, differences, key_text, show
from ..run.shards import Shard, shard_of

KEY_FIELDS = {"model": "model", "agent": "agent", "aided": "aided", "tools": "tools"}


class MixedShards(Exception):
    """Shards of different runs in one folder."""


@dataclass
class Coverage:
    """Which shards of a K-shard run were read, and what is missing or unfinished."""

    count: int
    folders: dict[int, list[Path]] = field(default_factory=dict)  # index → the directories that hold it
    unfinished: dict[int, str] = field(default_factory=dict)  # index → why its run is not complete

    @property
    def missing(self) -> list[int]:
        return [index for index in range(self.count) if index not in self.folders]

    @property
    def complete(self) -> bool:
        return not self.missing and not self.unfinished

    def notes(self) -> list[str]:
        notes = []
        if self.missing:
            several = len(self.missing) > 1
            notes.append(
                f"shard{'s' if several else ''} {_indices(self.missing)} of {self.count} {'are' if several else 'is'} "
                f"missing (no directory read): {'their' if several else 'its'} attempts are not in this row, so it "
                "is partial"
            )
        for index, why in sorted(self.unfinished.items()):
            notes.append(f"shard {index}/{self.count} ({_names(self.folders[index])}) is not complete: {why}")
        for index, folders in sorted(self.folders.items()):
            if len(folders) > 1:
                notes.append(f"shard {index}/{self.count} was read from {len(folders)} directories: {_names(folders)}")
        return notes


def shard_in(manifest: dict[str, Any], path: Path) -> Shard | None:
    """The shard a run directory holds (None: a run on one machine); ValueError for a manifest whose
    ``shard`` is not an index below a count."""
    if manifest.get("shard") is None:
        return None
    shard = shard_of(manifest)
    if shard is None:
        raise ValueError(f"{path}: its run.json has a shard that is not an index below a count: {manifest['shard']!r}")
    return shard


def check_folders(shards: Iterable[tuple[Path, dict[str, Any], Hashable]]) -> None:
    """Refuse (MixedShards) shards that share a folder but not their run: ``shards`` are (run directory,
    manifest, the report's key of its row)."""
    by_folder: dict[Path, list[tuple[Path, dict[str, Any], Hashable]]] = {}
    for item in shards:
        by_folder.setdefault(item[0].resolve().parent, []).append(item)
    for folder, items in by_folder.items():
        first = items[0]
        for other in items[1:]:
            if other[2] != first[2]:
                raise MixedShards(
                    f"{folder} holds shards of different runs, which one report cannot merge: {first[0].name} and "
                    f"{other[0].name} differ in {_difference(first[1], other[1])}; the shards of one run share every "
                    "setting but the index: put another run's shards in a folder of their own"
                )


def _difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    changed = [
        f"{word} ({show(a.get(name))} vs {show(b.get(name))})"
        for name, word in KEY_FIELDS.items()
        if key_text(a.get(name)) != key_text(b.get(name))
    ]
    first, second = configuration(a), configuration(b)
    changed += [
        f"{CONFIGURATION[name]} ({show(first.get(name))} vs {show(second.get(name))})"
        for name in differences([first, second])
    ]
    return ", ".join(changed) or "their configuration"


def coverage(parts: Sequence[tuple[Path, dict[str, Any], Shard]]) -> Coverage:
    """What the shards ``parts`` (run directory, manifest, shard) of one row cover."""
    result = Coverage(parts[0][2].count)
    for path, manifest, shard in parts:
        result.folders.setdefault(shard.index, []).append(path)
        status = manifest.get("status")
        if status != "complete":
            result.unfinished[shard.index] = _why(status, manifest.get("stopped"))
    return result


def _why(status: Any, stopped: Any) -> str:
    if status == "running":
        return "its run.json says running (still running, or killed): run the same command again to finish it"
    if stopped:
        return f"{stopped}; run the same command again to resume it"
    return "some attempts ended in infrastructure or harness errors: run the same command again to retry them"


def duplicate_note(seen: int, differ: int, folders: Sequence[tuple[Path, Path]]) -> str:
    """The warning for attempts read from more than one directory."""
    pairs = sorted({f"{a} and {b}" for a, b in folders})
    where = "; ".join(pairs[:3]) + (f"; and {len(pairs) - 3} more pairs" if len(pairs) > 3 else "")
    disagree = f" ({differ} of them differ in status or score)" if differ else " (all of them agree)"
    return (
        f"{seen} attempt{'s are' if seen != 1 else ' is'} in more than one directory ({where}): "
        f"the report keeps the first directory's record{disagree}"
    )


def _indices(indices: Sequence[int]) -> str:
    return ", ".join(map(str, indices))


def _names(paths: Sequence[Path]) -> str:
    return ", ".join(str(path) for path in paths)
