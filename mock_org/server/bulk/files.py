"""The data of Bulk API jobs on disk: uploads, query results and per-record results, a folder per job.

A job's records never stay in the server's memory: they are written here as they are made and read
back a page at a time, so a user who keeps many large jobs costs disk (capped per user, v2_jobs.py),
not memory. Every file is written beside its final name and then renamed, so a reader (another
worker of the same server) never sees half a file. No HTTP here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO

COPY_CHUNK = 1024 * 1024


class JobFiles:
    def __init__(self, root: Path) -> None:
        self.root = root / "bulk"
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)

    def path(self, job_id: str, name: str) -> Path:
        return self.root / job_id / name

    @contextmanager
    def create(self, job_id: str, name: str) -> Iterator[BinaryIO]:
        """A file to write, under its name only once the block ends without an error."""
        target = self.path(job_id, name)
        target.parent.mkdir(mode=0o700, exist_ok=True)
        partial = target.with_name(f".{name}.{os.getpid()}.{id(target)}.partial")
        try:
            with open(partial, "wb") as out:
                yield out
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)

    def write(self, job_id: str, name: str, chunks: Iterable[bytes], limit: int | None = None) -> int:
        """Write a file from ``chunks`` (atomically); its size. Past ``limit`` bytes, OverflowError and nothing kept."""
        size = 0
        with self.create(job_id, name) as out:
            for chunk in chunks:
                size += len(chunk)
                if limit is not None and size > limit:
                    raise OverflowError(size)
                out.write(chunk)
        return size

    def copy_in(self, job_id: str, name: str, source: IO[bytes], limit: int) -> int:
        """Copy a stream into a file; its size. More than ``limit`` bytes raises OverflowError and keeps nothing."""
        return self.write(job_id, name, iter(lambda: source.read(COPY_CHUNK), b""), limit)

    def open(self, job_id: str, name: str) -> BinaryIO:
        return open(self.path(job_id, name), "rb")

    def read(self, job_id: str, name: str, start: int = 0, end: int | None = None) -> bytes:
        with self.open(job_id, name) as handle:
            handle.seek(start)
            return handle.read(-1 if end is None else max(0, end - start))

    def exists(self, job_id: str, name: str) -> bool:
        return self.path(job_id, name).is_file()

    def remove(self, job_id: str, name: str | None = None) -> None:
        """One file of a job, or the whole job's folder."""
        if name is not None:
            self.path(job_id, name).unlink(missing_ok=True)
        else:
            shutil.rmtree(self.root / job_id, ignore_errors=True)
