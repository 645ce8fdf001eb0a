"""How ``crmarena query`` and ``search`` print an answer: the REST API's JSON, a CSV, or a table for
people; and ``--all``, which follows every page of a large result.

CSV and table columns are the records' fields in SELECT order, parents flattened to dotted paths
(``Owner.Name``); a child subquery's records become one JSON cell in a CSV and a count in a table.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

CELL_WIDTH = 40  # a table column is cut to this many characters; the CSV and JSON keep every one


def every_page(org: Any, body: dict[str, Any], on_page: Callable[[int], None] = lambda fetched: None) -> dict:
    """The whole result: ``body`` and each page after it (``query_more``), as one page with ``done``;
    ``on_page`` is told how many records have been fetched after each page."""
    records = list(body["records"])
    page = body
    while not page["done"]:
        on_page(len(records))
        page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1])
        records += page["records"]
    on_page(len(records))
    return {"totalSize": body["totalSize"], "done": True, "records": records}


@contextmanager
def progress_bar(total: int, page: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for a result of more than one page, when stderr is a terminal."""
    if total <= page or not sys.stderr.isatty():
        yield lambda fetched: None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit=" records", desc="fetching", leave=False, file=sys.stderr) as bar:

        def advance(fetched: int) -> None:
            bar.update(fetched - bar.n)

        yield advance


def print_result(body: dict[str, Any], key: str, fmt: str | None) -> None:
    """Print ``body`` (its records under ``key``) as ``fmt``: JSON, CSV or a table (default: a table on a
    terminal, JSON when the output goes to a file or a pipe)."""
    fmt = fmt or ("table" if sys.stdout.isatty() else "json")
    if fmt == "json":
        print(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        columns, rows = flatten(body[key], with_type=key == "searchRecords")
        if fmt == "csv":
            _write_csv(columns, rows)
        else:
            _print_table(columns, rows)
    _summary(body, key, fmt)


def _summary(body: dict[str, Any], key: str, fmt: str) -> None:
    """How many records there are, and how to get the ones not shown: on stdout under a table, else on stderr."""
    shown = len(body[key])
    total = body.get("totalSize", shown)
    line = f"{total} record{'s' * (total != 1)}"
    if not body.get("done", True):
        line = f"the first {shown} of {total} records (--all prints every page)"
    if fmt == "table":
        print(line)
    elif fmt == "csv" or not body.get("done", True):
        print(line, file=sys.stderr)


def flatten(records: list[dict[str, Any]], *, with_type: bool = False) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns (in first-seen order) and one flat row per record."""
    rows = []
    for record in records:
        row = {"sObject": record.get("attributes", {}).get("type")} if with_type else {}
        _flatten_into(row, record, "")
        rows.append(row)
    columns = list(dict.fromkeys(name for row in rows for name in row))
    # A parent that is null in one record keeps a column of its own name; its fields' columns say more.
    columns = [name for name in columns if not any(other.startswith(name + ".") for other in columns)]
    return columns, rows


def _flatten_into(row: dict[str, Any], record: dict[str, Any], prefix: str) -> None:
    for name, value in record.items():
        if name == "attributes":
            continue
        if isinstance(value, dict) and "records" in value:  # a child subquery's result
            row[prefix + name] = ChildRecords(value["records"])
        elif isinstance(value, dict):  # a parent record, or a compound field such as an address
            _flatten_into(row, value, f"{prefix}{name}.")
        else:
            row[prefix + name] = value


class ChildRecords(list):
    """A child subquery's records inside one row."""


def cell(value: Any) -> str:
    """A value as CSV text: empty for null, JSON's true/false, a child subquery's records as JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ChildRecords):
        return json.dumps([flatten([record])[1][0] for record in value], ensure_ascii=False)
    return str(value)


def _write_csv(columns: list[str], rows: list[dict[str, Any]]) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    if columns:
        writer.writerow(columns)
    writer.writerows([cell(row.get(name)) for name in columns] for row in rows)


def _table_cell(value: Any) -> str:
    if isinstance(value, ChildRecords):
        return f"[{len(value)} record{'s' * (len(value) != 1)}]"
    return " ".join(cell(value).split())  # one line per record


def _print_table(columns: list[str], rows: list[dict[str, Any]]) -> None:
    """Aligned columns, numbers to the right, long text cut to fit (a terminal's width, or CELL_WIDTH)."""
    if not columns:
        return
    cells = [[_table_cell(row.get(name)) for name in columns] for row in rows]
    numeric = [all(_is_number(row.get(name)) for row in rows if row.get(name) is not None) for name in columns]
    widths = [max([len(name), *(len(line[index]) for line in cells)]) for index, name in enumerate(columns)]
    widths = _fit(widths, shutil.get_terminal_size().columns if sys.stdout.isatty() else None)
    for line in [columns, ["-" * width for width in widths], *cells]:
        texts = [_cut(text, width) for text, width in zip(line, widths, strict=True)]
        padded = [
            text.rjust(width) if number else text.ljust(width)
            for text, width, number in zip(texts, widths, numeric, strict=True)
        ]
        print("  ".join(padded).rstrip())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fit(widths: list[int], room: int | None) -> list[int]:
    """Column widths cut to CELL_WIDTH, then the widest narrowed until the line fits ``room``."""
    widths = [min(width, CELL_WIDTH) for width in widths]
    while room is not None and sum(widths) + 2 * (len(widths) - 1) > room and max(widths) > 8:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    return widths


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
