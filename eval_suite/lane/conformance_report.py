"""A conformance report as numbers (``summarise``) and as text a person reads (``render_text``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

SHOWN_PER_QUERY = 5


def summarise(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """How many queries were the same, different or skipped, and the differences by kind."""
    entries = list(entries)
    statuses = Counter(entry["status"] for entry in entries)
    kinds: Counter[str] = Counter()
    for entry in entries:
        kinds.update(entry.get("difference_kinds", {}))
    return {
        "queries": len(entries),
        "same": statuses["same"],
        "different": statuses["different"],
        "skipped": statuses["skipped"],
        "differences": sum(kinds.values()),
        "by_kind": dict(sorted(kinds.items())),
    }


def render_text(report: dict[str, Any]) -> str:
    """The sides and settings, every query that differs with its first differences, then the summary."""
    lines = [f"side {label}: {report[label]['kind']} at {report[label]['url']}" for label in ("a", "b")]
    idmap = report["idmap"]
    lines.append(f"Id map: {idmap['path']} ({idmap['ids']:,} Ids)" if idmap else "Id map: none (the same Ids)")
    lines.append(f"not compared: {', '.join(report['not_compared']) or 'nothing'}")
    today = f" ({report['today']})" if report["today"] else ""
    lines.append(f"relative date literals: {report['clock_dependent']}{today}")
    failed = report["suite"]["reference_replays"].get("failed") or []
    if failed:
        shown = ", ".join(str(failure["idx"]) for failure in failed[:10])
        lines.append(f"reference solutions that failed on side a: {len(failed)} (idx {shown})")
    for entry in report["queries"]:
        if entry["status"] != "different":
            continue
        text = entry["text"] if len(entry["text"]) <= 160 else entry["text"][:159] + "…"
        lines += ["", f"DIFFERENT {entry['name']}", f"  {text}"]
        lines += [f"  {describe(difference)}" for difference in entry["differences"][:SHOWN_PER_QUERY]]
        if entry["differences_total"] > SHOWN_PER_QUERY:
            lines.append(f"  … and {entry['differences_total'] - SHOWN_PER_QUERY} more")
    summary = report["summary"]
    kinds = ", ".join(f"{count} {kind}" for kind, count in summary["by_kind"].items())
    found = f" ({summary['differences']:,} differences: {kinds})" if summary["differences"] else ""
    lines += [
        "",
        f"{summary['queries']:,} queries: {summary['same']:,} the same, {summary['different']:,} different"
        f"{found}, {summary['skipped']:,} skipped",
    ]
    return "\n".join(lines)


def describe(difference: dict[str, Any]) -> str:
    """One difference in one line."""
    kind = difference["kind"]
    a: Any = difference.get("a")
    b: Any = difference.get("b")
    if kind == "value" and difference.get("children"):
        return (
            f"child rows differ: {difference['field']}: {_rows(a)} only on a, {_rows(b)} only on b "
            f"({difference['id_a']})"
        )
    if kind == "value":
        ids = dict.fromkeys((difference["id_a"], difference["id_b"]))
        which = " / ".join(ids) if difference["id_a"] else _short(difference.get("group"))
        return f"value differs: {difference['field']} {_short(a)} vs {_short(b)} ({which})"
    if kind in ("missing", "extra"):
        what = f"{difference['object']} {difference['id']}" if difference.get("id") else _short(difference["row"])
        return f"row missing from b: {what}" if kind == "missing" else f"extra row on b: {what}"
    if kind == "order":
        keys = ", ".join(difference["by"])
        return f"order differs at row {difference['position'] + 1} (ORDER BY {keys}): {_short(a)} vs {_short(b)}"
    if kind == "count":
        return f"count differs: {a['totalSize']} ({a['rows']} rows) vs {b['totalSize']} ({b['rows']} rows)"
    if kind == "error_code":
        return f"error code differs: {a['error']} vs {b['error']}"
    return f"error vs success: a {_outcome(a)}, b {_outcome(b)}"


def _rows(rows: list[dict[str, Any]]) -> str:
    return f"{len(rows)}" + (f" ({_short([row.get('Id', row) for row in rows], 60)})" if rows else "")


def _outcome(summary: dict[str, Any]) -> str:
    return f"{summary['error']}: {summary['message'][:100]}" if "error" in summary else f"{summary['rows']} rows"


def _short(value: Any, width: int = 80) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"
