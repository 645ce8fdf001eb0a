"""The LLM response cache: one SQLite file, keyed by the SHA-256 of the whole request (model,
messages, tools, tool choice, decoding parameters, seed) and a scope (the instance and trial, so
that trials at a temperature above 0 stay independent). ``replay`` mode never calls a model: a miss
is a fatal error, so a re-run reproduces a recorded run exactly or says why it cannot.
The endpoint's address is not part of the key, so a cache made on one machine replays on another.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from ..errors import InfraError

CACHE_FILE = "llm_cache.sqlite"
MODES = ("rw", "replay")


def request_key(body: dict[str, Any], scope: str) -> str:
    canonical = json.dumps({"request": body, "scope": scope}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, directory: Path, mode: str = "rw") -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.path = Path(directory) / CACHE_FILE
        if mode == "replay" and not self.path.exists():
            raise FileNotFoundError(f"no response cache to replay at {self.path}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL)"
        )
        self.hits = self.misses = 0

    def get(self, body: dict[str, Any], scope: str) -> dict[str, Any] | None:
        key = request_key(body, scope)
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
            if row is not None:
                self.hits += 1
                return json.loads(row[0])
            self.misses += 1
        if self.mode == "replay":
            raise InfraError(f"replay-only cache {self.path} has no response for request {key[:12]}", fatal=True)
        return None

    def put(self, body: dict[str, Any], scope: str, response: dict[str, Any]) -> None:
        key = request_key(body, scope)
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO responses (key, request, response) VALUES (?, ?, ?)",
                (key, json.dumps({"request": body, "scope": scope}, ensure_ascii=False), json.dumps(response)),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
