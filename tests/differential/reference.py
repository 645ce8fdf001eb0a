"""An independent evaluator for the differential tests: the org's records as plain Python values.

Nothing here uses the engine: records come straight from the dump with sqlite3, and every rule a
query needs (case-insensitive text, null handling, LIKE, date ranges, word matching) is written
again, simply, in this file.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

Record = dict[str, Any]

TODAY = dt.date(2024, 6, 1)
ZONE = ZoneInfo("America/Los_Angeles")


class Records:
    """Every non-deleted record of the dump, by object, and an index by Id."""

    def __init__(self, path: Path) -> None:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        connection.row_factory = sqlite3.Row
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        self.tables: dict[str, list[Record]] = {}
        self.by_id: dict[str, Record] = {}
        for name in names:
            if name.startswith(("_", "sqlite")):
                continue
            rows = [dict(row) for row in connection.execute(f'SELECT * FROM "{name}" ORDER BY rowid')]
            self.tables[name] = [row for row in rows if not row.get("IsDeleted")]
            for row in rows:
                self.by_id[row["Id"]] = row
        connection.close()

    def __getitem__(self, name: str) -> list[Record]:
        return self.tables[name]

    def parent(self, record: Record, field: str) -> Record | None:
        value = record.get(field)
        return self.by_id.get(value) if value else None


# ----------------------------------------------------------------------------- value rules


def same_text(a: Any, b: str) -> bool:
    return a is not None and str(a).casefold() == b.casefold()


def like(value: Any, pattern: str) -> bool:
    """SOQL LIKE: % any run, _ one character, whole value, case-insensitive."""
    if value is None:
        return False
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern.casefold())
    return re.fullmatch(regex, str(value).casefold(), re.DOTALL) is not None


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}+0000"


def local_midnight(day: dt.date) -> str:
    return utc(dt.datetime.combine(day, dt.time(), tzinfo=ZONE))


def last_n_days(n: int) -> tuple[str, str]:
    """LAST_N_DAYS:n as stored datetimes [start, end): n days back and today, in Los Angeles."""
    return local_midnight(TODAY - dt.timedelta(days=n)), local_midnight(TODAY + dt.timedelta(days=1))


def year_range(year: int) -> tuple[str, str]:
    return local_midnight(dt.date(year, 1, 1)), local_midnight(dt.date(year + 1, 1, 1))


def month_of(stored: str) -> int:
    return int(stored[5:7])


def wire(value: Any, boolean: bool = False) -> Any:
    return bool(value) if boolean else value


def project(records: Iterable[Record], fields: list[str]) -> list[tuple]:
    return [tuple(record.get(field) for field in fields) for record in records]


def group_count(records: Iterable[Record], key: Callable[[Record], Any]) -> dict[Any, int]:
    counts: dict[Any, int] = defaultdict(int)
    for record in records:
        counts[key(record)] += 1
    return dict(counts)


# ----------------------------------------------------------------------------- search


def words(text: Any) -> list[str]:
    """Words as Salesforce search sees them: split at anything but letters and digits, no case or accents."""
    if not text:
        return []
    plain = "".join(c for c in unicodedata.normalize("NFKD", str(text).lower()) if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", plain)


def contains_word(record: Record, fields: list[str], word: str, prefix: bool = False) -> bool:
    target = words(word)
    for field in fields:
        tokens = words(record.get(field))
        for start in range(len(tokens) - len(target) + 1):
            window = tokens[start : start + len(target)]
            if window[:-1] == target[:-1] and (
                window[-1].startswith(target[-1]) if prefix else window[-1] == target[-1]
            ):
                return True
    return False
