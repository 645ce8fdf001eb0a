"""What makes two runs the same run: the manifest fields a resume must agree on, and the wider
configuration the report keeps rows apart by (and names when two rows differ only there).

A resume may change what is run (``--tasks``, ``--trials``), never how: the model, agent, prompts,
decoding, tools, task file and task set, org, scoring and sampling rule, nor the shard. The report adds the
endpoint, the run's ``--label`` and its number of shards (a run on K machines is a row of its own, its
shards merged; runs.py): runs that differ in any of these are never merged into one row,
and runs on different task sets (``task_set`` version and org build) never share a table.
"""

from __future__ import annotations

import json
from typing import Any

# Manifest fields that make two runs comparable: a resume must agree on every one.
RESUME_IDENTITY = (
    "model",
    "agent",
    "prompt_sha256",
    "tasks_sha256",
    "task_set",
    "tools",
    "tool_protocol",
    "parallel_calls",
    "aided",
    "privacy_aware_prompt",
    "temperature",
    "max_tokens",
    "max_turns",
    "judge",
    "seed",
    "f1_pass",
    "target_kind",
    "org_sha256",
    "sampling",
    "surface",
    "ui_console",
    "shard",
    "interactive",
    "user",
    "max_user_turns",
)

# The configuration a report row stands for, each field with the words a label uses for it.
CONFIGURATION = {
    "source": "results from",
    "label": "label",
    "base_url": "endpoint",
    "temperature": "temperature",
    "max_tokens": "max tokens",
    "max_turns": "max turns",
    "seed": "seed",
    "prompt_sha256": "prompts",
    "tool_protocol": "tool protocol",
    "parallel_calls": "parallel calls",
    "judge": "judge",
    "f1_pass": "F1 pass mark",
    "tasks_sha256": "task file",
    "task_set": "task set",
    "target_kind": "target",
    "org_sha256": "org",
    "sampling": "sampling",
    "ui_console": "query console",
    "privacy_aware_prompt": "privacy-aware prompt",
    "shards": "shards",
    "turns": "turns",  # single, or multi (--interactive: a simulated user)
    "user": "user",
}
ORIGINAL = "original CRMArena harness"
OURS = "crmarena eval"


def configuration(manifest: dict[str, Any]) -> dict[str, Any]:
    """The configuration fields of a manifest (absent ones None; an original results file has only its source)."""
    source = ORIGINAL if manifest.get("source") == "original" else OURS
    values = {name: manifest.get(name) for name in CONFIGURATION}
    values["source"] = source
    values["task_set"] = task_set_of(manifest)
    values["privacy_aware_prompt"] = bool(manifest.get("privacy_aware_prompt"))  # absent before the flag: off
    shard = manifest.get("shard")
    values["shards"] = shard.get("count") if isinstance(shard, dict) and source == OURS else None
    values["turns"] = turns_of(manifest)
    if source == OURS and "sampling" not in manifest:  # a manifest from before --sample: its --limit
        limit = (manifest.get("selection") or {}).get("limit")
        values["sampling"] = {"limit": limit} if limit else {}
    return values


def turns_of(manifest: dict[str, Any]) -> str:
    """``multi`` for a conversation with a simulated user (``--interactive``), else ``single``."""
    return "multi" if manifest.get("interactive") else "single"


def surface_of(manifest: dict[str, Any]) -> str:
    """How the agent reached the org: ``api`` (tools, queries) or ``ui`` (the web pages alone)."""
    return "ui" if manifest.get("surface") == "ui" else "api"


def org_of(manifest: dict[str, Any]) -> str:
    """The org type a run worked in: ``service``, ``b2b``, … (a manifest from before the field: the one its task
    set names, else the service org, the only one there was; the original harness's results: service)."""
    if manifest.get("org"):
        return str(manifest["org"])
    named = ((manifest.get("task_set") or {}).get("org") or {}).get("type")
    return str(named) if named else "service"


def sampling(limit: int | None, sample: int | None, sample_seed: int) -> dict[str, int]:
    """The sampling rule as the manifest keeps it: ``{}`` (every instance), ``{"limit": N}`` (the first N of
    each task) or ``{"sample": N, "seed": S}`` (a stratified sample of N per task)."""
    if sample is not None:
        return {"sample": sample, "seed": sample_seed}
    return {"limit": limit} if limit is not None else {}


def task_set_of(manifest: dict[str, Any]) -> dict[str, Any]:
    """The task set a run was scored on: version and org build (``{"version": "1"}`` for files without one);
    the original harness's results are on the original's own task set."""
    if manifest.get("source") == "original":
        return {"version": "original"}
    task_set = manifest.get("task_set") or {}
    found = {"version": str(task_set.get("version") or "1"), "org": task_set.get("org")}
    if task_set.get("suite"):  # a suite beside the nine tasks (the confidentiality tasks): a table of its own
        found["suite"] = task_set["suite"]
    return found


def task_set_title(task_set: dict[str, Any]) -> str:
    if task_set["version"] == "original":
        return "the original CRMArena task set"
    org = task_set.get("org") or {}
    built = ", ".join(f"{key} {show(org[key])}" for key in ("seed", "scale", "sha256") if key in org)
    suite = f" · {task_set['suite']}" if task_set.get("suite") else ""
    return f"task set v{task_set['version']}{suite}" + (f" (org {built})" if built else "")


def shards_title(count: int | None) -> str:
    """A run's machines as a label says it: ``4 shards``, or ``one machine``."""
    return "one machine" if count is None else f"{count} shard{'s' if count != 1 else ''}"


def key_text(value: Any) -> str:
    """A value as canonical text, so that configurations can be compared and used as keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def show(value: Any) -> str:
    """A configuration value as a label shows it: digests shortened, nothing as "default"."""
    if value is None:
        return "default"
    if isinstance(value, dict):
        return ", ".join(f"{key} {show(item)}" for key, item in value.items() if item is not None) or "all"
    if isinstance(value, str) and len(value) == 64 and all(char in "0123456789abcdef" for char in value):
        return value[:8]
    if isinstance(value, list | tuple):
        return ",".join(map(str, value)) or "none"
    return str(value)


def differences(configurations: list[dict[str, Any]]) -> list[str]:
    """The configuration fields whose values are not the same in every one of ``configurations``."""
    return [name for name in CONFIGURATION if len({key_text(config.get(name)) for config in configurations}) > 1]


def describe(config: dict[str, Any], fields: list[str]) -> str:
    """``fields`` of ``config`` as label words: ``temperature 0.7 · sampling limit 10 · task set v2 (…)``."""
    return " · ".join(
        task_set_title(config[name])
        if name == "task_set"
        else shards_title(config[name])
        if name == "shards"
        else f"{CONFIGURATION[name]} {show(config.get(name))}"
        for name in fields
    )
