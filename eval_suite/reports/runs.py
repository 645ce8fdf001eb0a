"""What a report reads: our run directories (``run.json`` + ``records.jsonl``) and the original
harness's ``results_{model}_{strategy}_{category}.json`` files, brought to one record shape.

Each loaded run carries its key — model × agent framework × aided mode × tool selection, and the rest
of its configuration (identity.CONFIGURATION: endpoint, decoding, prompts, task file and task set,
org, sampling, label, number of shards …) — and the latest record of every attempt. Only runs with the
same key (the shards of a sharded run, a run split over several directories, one task category per
original results file) are merged into one leaderboard row; runs that differ anywhere stay apart, each
labelled by what differs from the runs like it. What a merged row's reader must know — shards missing
or unfinished, attempts read from two directories — is in its ``notes`` (sweeps.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..run.identity import configuration, describe, differences, key_text
from ..run.records import FAILED, INFRA_ERROR, MANIFEST_FILE, PASSED, RECORDS_FILE, latest, read_records
from ..run.shards import Shard, is_shard_folder
from . import sweeps

# results_{model}_{agent_strategy}_{task_category}.json (crmarena.md §3.4); the model's name may hold "_".
_ORIGINAL_NAME = re.compile(
    r"^results_(?P<model>.+?)_(?P<agent>tool_call_flex|tool_call|react|act)_(?P<category>.+)\.json$"
)
F1_PASS = 0.5  # a knowledge-QA answer passes from this token F1 on (crmarena eval's default --f1-pass)
_ORIGINAL_AGENT = {"tool_call": "fc", "tool_call_flex": "fc-sql", "react": "react", "act": "act"}


class ReportInputError(Exception):
    """A path that is neither a run directory nor an original results file, or one that cannot be read."""


@dataclass(frozen=True)
class RunKey:
    model: str
    agent: str
    aided: bool
    tools: tuple[str, ...] = ()
    config: str = ""  # the rest of the configuration, as canonical JSON text

    @property
    def label(self) -> str:
        """Model · agent (· aided · tools): the part of the name every run has."""
        parts = [self.model, self.agent] if self.model else [self.agent]
        if self.aided:
            parts.append("aided")
        if self.tools:
            parts.append("tools " + ",".join(self.tools))
        return " · ".join(parts)


@dataclass
class Run:
    key: RunKey
    manifest: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    name: str = ""  # the label reports show: the key's, the run's --label, and what differs from runs like it
    shard: Shard | None = None  # the shard a run directory holds (None: a whole run, or merged shards)
    notes: list[str] = field(default_factory=list)  # what the row's reader must know: missing shards, duplicates
    shards_missing: bool = False  # a shard of this row is absent or unfinished

    @property
    def label(self) -> str:
        return self.name or self.key.label

    @property
    def trials(self) -> int:
        return max((int(record["trial"]) for record in self.records), default=-1) + 1

    @property
    def config(self) -> dict[str, Any]:
        return configuration(self.manifest)


def key_of(manifest: dict[str, Any], tools: tuple[str, ...]) -> RunKey:
    config = configuration(manifest)
    return RunKey(manifest.get("model") or "", manifest["agent"], bool(manifest.get("aided")), tools, key_text(config))


def load_runs(paths: Sequence[Path | str]) -> list[Run]:
    """Every path loaded and runs of the same key merged, in the order their keys first appear, each
    named by what sets it apart; the shards of a sharded run are checked (sweeps.py) and merged into one."""
    loaded = [run for path in map(Path, paths) for run in _load(path)]
    try:
        sweeps.check_folders((run.sources[0], run.manifest, run.key) for run in loaded if run.shard)
    except sweeps.MixedShards as error:
        raise ReportInputError(str(error)) from None
    merged: dict[RunKey, list[Run]] = {}
    for run in loaded:
        merged.setdefault(run.key, []).append(run)
    runs = [_merge(parts) for parts in merged.values()]
    name_runs(runs)
    return runs


def _merge(parts: Sequence[Run]) -> Run:
    """One row of runs with the same key: the first record of each attempt (in the order read), every
    source, and the notes on duplicates and, for shards, on what is missing."""
    first = parts[0]
    manifest = dict(first.manifest)
    if first.shard is not None:
        manifest["shard"] = {"index": None, "count": first.shard.count}
    row = Run(first.key, manifest)
    kept: dict[tuple[int, int], tuple[dict[str, Any], Path]] = {}
    duplicates, differ, pairs = 0, 0, []
    for part in parts:
        row.sources.extend(part.sources)
        for record in part.records:
            unit = (record["task_id"], record["trial"])
            if unit not in kept:
                kept[unit] = (record, part.sources[0])
                continue
            duplicates += 1
            earlier, where = kept[unit]
            differ += (earlier["status"], earlier.get("score")) != (record["status"], record.get("score"))
            pairs.append((where, part.sources[0]))
    row.records = sorted((record for record, _ in kept.values()), key=lambda item: (item["task_id"], item["trial"]))
    if first.shard is not None:
        covered = sweeps.coverage([(part.sources[0], part.manifest, part.shard) for part in parts if part.shard])
        row.notes.extend(covered.notes())
        row.shards_missing = not covered.complete
    if duplicates:
        row.notes.append(sweeps.duplicate_note(duplicates, differ, pairs))
    return row


def name_runs(runs: Sequence[Run]) -> None:
    """Name each run: its ``--label`` first, then model · agent …, then every configuration field in which
    it differs from the other runs with the same model · agent … (the task set included)."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.key.label, []).append(run)
    for group in groups.values():
        differ = [name for name in differences([run.config for run in group]) if name != "label"]
        for run in group:
            parts = [run.config.get("label"), run.key.label, describe(run.config, differ)]
            run.name = " · ".join(part for part in parts if part)


def _load(path: Path) -> Iterable[Run]:
    if path.is_dir() and (path / MANIFEST_FILE).exists():
        return [load_run_dir(path)]
    if path.is_dir():
        found = sorted(path.glob("results_*.json")) + sorted(p.parent for p in path.glob("*/" + MANIFEST_FILE))
        # A folder of sharded runs: each one's shard directories, a level further down.
        found += sorted(
            p.parent
            for p in path.glob("*/*/" + MANIFEST_FILE)
            if is_shard_folder(p.parent) and not (p.parent.parent / MANIFEST_FILE).exists()
        )
        if not found:
            raise ReportInputError(f"{path}: no run.json and no results_*.json inside")
        return [run for inner in found for run in _load(inner)]
    if path.is_file() and _ORIGINAL_NAME.match(path.name):
        return [load_original_results(path)]
    if not path.exists():
        raise ReportInputError(f"{path}: no such file or directory")
    raise ReportInputError(f"{path}: not a run directory (run.json) nor an original results_*.json file")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportInputError(f"{path}: cannot be read as JSON ({error})") from error


def load_run_dir(path: Path) -> Run:
    manifest = _read_json(path / MANIFEST_FILE)
    if not isinstance(manifest, dict) or "agent" not in manifest:
        raise ReportInputError(f"{path / MANIFEST_FILE}: not a crmarena eval manifest")
    records = list(latest(read_records(path / RECORDS_FILE)).values())
    try:
        shard = sweeps.shard_in(manifest, path)
    except ValueError as error:
        raise ReportInputError(str(error)) from None
    return Run(key_of(manifest, _ablation(manifest)), manifest, records, [path], shard=shard)


def _ablation(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The tool categories of a run that used fewer than its agent's full set (a row of its own), else ()."""
    used = tuple(manifest.get("tools") or ())
    if manifest["agent"] not in ("fc", "fc-sql") or not used:
        return ()
    try:
        from ..tools.catalog import agent_tools

        full = {tool.category for tool in agent_tools(manifest["agent"], None)}
    except ImportError:  # no tool registry in this installation: every run shows its categories
        return used
    return () if set(used) >= full else used


def load_original_results(path: Path) -> Run:
    """An original harness results file: reward 0/1 (or a metrics dict for knowledge QA) per task; an
    entry whose end came from the API (the harness's exception path) is an infrastructure error here."""
    match = _ORIGINAL_NAME.match(path.name)
    assert match is not None
    entries = _read_json(path)
    if not isinstance(entries, list):
        raise ReportInputError(f"{path}: an original results file holds a JSON list")
    records = [_original_record(entry, path) for entry in entries]
    agent = _ORIGINAL_AGENT[match["agent"]]
    manifest: dict[str, Any] = {
        "model": match["model"],
        "agent": agent,
        "aided": None,
        "source": "original",
        "tools": [],
    }
    return Run(key_of(manifest, ()), manifest, records, [path])


def _original_record(entry: Any, path: Path) -> dict[str, Any]:
    if not isinstance(entry, dict) or "task_id" not in entry or "task_type" not in entry:
        raise ReportInputError(f"{path}: an entry without task_id and task_type")
    info = entry.get("agent_info") or {}
    end = info.get("end_reason") if isinstance(info.get("end_reason"), dict) else info
    reward = entry.get("reward", 0)
    score = float(reward.get("f1", 0.0)) if isinstance(reward, dict) else float(reward or 0)
    failed_in_api = isinstance(end, dict) and end.get("source") == "api"
    usage = info.get("usage") or {}
    costs = usage.get("cost") or []
    if failed_in_api:
        status = INFRA_ERROR
    else:
        status = PASSED if score >= (F1_PASS if isinstance(reward, dict) else 1.0) else FAILED
    tokens = {
        key: sum(value for value in usage.get(key) or [] if value is not None) or None
        for key in ("prompt_tokens", "completion_tokens")
    }
    return {
        "task_id": int(entry["task_id"]),
        "task_type": entry["task_type"],
        "gt_answer": entry.get("gt_answer"),
        "reward": reward,
        "agent_info": info,
        "traj": entry.get("traj") or [],
        "trial": 0,
        "status": status,
        "score": 0.0 if failed_in_api else score,
        "answer": None if failed_in_api or not isinstance(end, dict) else end.get("content"),
        "cost": info.get("total_cost") if info.get("total_cost") is not None else (sum(costs) if costs else None),
        "usage": tokens,
        "error": {"message": (end or {}).get("content")} if failed_in_api else None,
    }
