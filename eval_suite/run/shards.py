"""Sharded runs: ``--shard I/K`` makes this machine run shard I (0-based) of K, so that any batch engine
(a Kubernetes Indexed Job, a Slurm array, a CI matrix) can spread one run over K machines.

An attempt (task, instance, trial) belongs to the shard its stable hash names: SHA-256 of
``task/idx/trial``, modulo K. The split needs nothing but the attempt itself — not the order of the task
file, not the other attempts selected — so it is the same on every machine, the same when a shard is
resumed (even with other ``--tasks`` or ``--trials``), and every attempt is in exactly one shard. The
shards' sizes are even only on average (about n/K ± sqrt(n/K)).

``--shard auto/K`` reads the index from the batch engine: ``JOB_COMPLETION_INDEX`` (a Kubernetes Indexed
Job, 0 to K-1) or, when that is not set, ``SLURM_ARRAY_TASK_ID`` (a Slurm array, which must be numbered
``--array=0-(K-1)``). A shard's run directory is ``<out>/shard-I-of-K``, so the K shards of one run sit
in one folder, which ``crmarena report`` reads as one run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

# Where --shard auto/K finds this machine's index, in the order they are tried.
INDEX_VARIABLES = (
    ("JOB_COMPLETION_INDEX", "a Kubernetes Indexed Job"),
    ("SLURM_ARRAY_TASK_ID", "a Slurm array job"),
)
AUTO = "auto"


class ShardError(ValueError):
    """A ``--shard`` value that cannot be used, said in one line."""


_SPEC = re.compile(r"\s*(?P<index>[^/\s]+)\s*/\s*(?P<count>[^/\s]+)\s*")
_FOLDER = re.compile(r"shard-(?P<index>\d+)-of-(?P<count>\d+)")


class Attempted(Protocol):
    """What identifies an instance: its task and its number in the task file."""

    @property
    def task(self) -> str: ...

    @property
    def idx(self) -> int: ...


AnInstance = TypeVar("AnInstance", bound=Attempted)


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def owns(self, task: str, idx: int, trial: int) -> bool:
        return owner(task, idx, trial, self.count) == self.index

    @property
    def spec(self) -> str:
        """``I/K``, as ``--shard`` takes it."""
        return f"{self.index}/{self.count}"

    @property
    def folder(self) -> str:
        """The shard's run directory inside the run's folder."""
        return f"shard-{self.index}-of-{self.count}"

    def to_json(self) -> dict[str, int]:
        return {"index": self.index, "count": self.count}


def owner(task: str, idx: int, trial: int, count: int) -> int:
    """The shard (0 to ``count``-1) that runs an attempt: a stable hash of the attempt, nothing else."""
    digest = hashlib.sha256(f"{task}/{idx}/{trial}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def attempts(instances: Sequence[AnInstance], trials: int, shard: Shard | None) -> list[tuple[AnInstance, int]]:
    """The attempts (instance, trial) of a run that ``shard`` runs — every one without a shard — trial
    by trial, each trial in the instances' order."""
    return [
        (instance, trial)
        for trial in range(trials)
        for instance in instances
        if shard is None or shard.owns(instance.task, instance.idx, trial)
    ]


def parse(text: Any, environ: Mapping[str, str]) -> tuple[Shard, str | None]:
    """``--shard I/K`` or ``auto/K`` as a Shard, with the variable the index came from (None when given);
    ShardError, in one line, for anything else."""
    spec = str(text)
    match = _SPEC.fullmatch(spec)
    if match is None:
        k = spec.strip() if spec.strip().isdigit() else "K"
        raise ShardError(
            f"--shard {spec!r} names no shard: write I/{k} (this machine's shard I of {k}, from 0) "
            f"or auto/{k} (I from {' or '.join(name for name, _ in INDEX_VARIABLES)})"
        )
    count = _whole(match["count"])
    if count is None or count < 1:
        raise ShardError(f"--shard {spec!r}: the number of shards K must be a whole number of at least 1")
    source: str | None = None
    if match["index"].lower() == AUTO:
        index, source = _index_from(environ, count)
    else:
        given = _whole(match["index"])
        if given is None:
            raise ShardError(f"--shard {spec!r}: the shard index I must be a whole number (0 to {count - 1}) or auto")
        index = given
    if index >= count:
        where = f"{source}={index}" if source else f"the index {index}"
        raise ShardError(f"--shard {spec!r}: {where} is not below the number of shards (indices run 0 to {count - 1})")
    return Shard(index, count), source


def _index_from(environ: Mapping[str, str], count: int) -> tuple[int, str]:
    for name, _ in INDEX_VARIABLES:
        value = environ.get(name, "").strip()
        if value:
            index = _whole(value)
            if index is None:
                raise ShardError(f"--shard auto/{count}: {name}={value!r} is not a shard index (a whole number from 0)")
            return index, name
    engines = " or ".join(f"{name} ({engine})" for name, engine in INDEX_VARIABLES)
    raise ShardError(
        f"--shard auto/{count} takes this machine's shard index from {engines}, and neither is set: "
        f"give it as --shard I/{count}"
    )


def _whole(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def shard_of(manifest: Mapping[str, Any]) -> Shard | None:
    """The shard a run directory's manifest records (None: a run on one machine)."""
    value = manifest.get("shard")
    if not isinstance(value, Mapping):
        return None
    index, count = value.get("index"), value.get("count")
    if not (isinstance(index, int) and isinstance(count, int) and 0 <= index < count):
        return None
    return Shard(index, count)


def is_shard_folder(path: Path) -> bool:
    """Whether ``path`` is named as a shard's run directory (``shard-I-of-K``)."""
    return _FOLDER.fullmatch(path.name) is not None
