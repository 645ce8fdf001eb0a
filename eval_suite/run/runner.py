"""A run: the work units (instance, trial) of a task set, run by parallel workers against one
target, each finished attempt appended to the run directory as it ends.

Resumable: the same command again skips every attempt that already has a scored record and re-runs
the rest (infrastructure and harness errors included); it refuses a directory whose manifest was made
with another model, agent, prompts, task file, sampling or scoring (identity.RESUME_IDENTITY). A run
stops early — instead of burning money — when more than ``max_infra_errors`` attempts fail for
infrastructure reasons, at once on a fatal one (a refused API key, a replay cache miss), or when the
directory's attempts have cost ``max_cost``. Ctrl-C or a kill loses only the attempts in flight.

Before any attempt the org (one login and one query) and the model endpoint (check_endpoint) are
checked, each within its timeout: a peer that is down or silent stops the run there, as unavailable.
``summary.json`` always covers every attempt of the directory, so a resume of a few tasks never
shrinks it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import TaskFile, read_task_file
from mock_org import user_errors

from .. import prompts
from ..agents.act import Act
from ..agents.base import Agent
from ..agents.baselines import MajorityAgent, NullAgent
from ..agents.function_calling import FunctionCalling
from ..agents.react import ReAct
from ..browser.session import chromium_missing
from ..dialogue.session import SCRIPTED, DialogueSettings
from ..errors import Cancelled
from ..model.cache import ResponseCache
from ..model.llm import LLM, EndpointConfig, PriceTable
from ..model.probe import Capabilities, check_endpoint
from ..prompts.schema import render_schema
from ..reports.leaderboard import summarize
from ..tools.catalog import agent_tools, default_task_file
from .attempt import AttemptSettings, run_attempt
from .config import MODEL_AGENTS, UI_AGENTS, ConfigError, RunConfig
from .identity import RESUME_IDENTITY, sampling
from .org import SERVICE, org_type, with_org
from .progress import Progress
from .records import (
    INFRA_ERROR,
    MANIFEST_FILE,
    PASSED,
    RECORDS_FILE,
    SCORED,
    SUMMARY_FILE,
    USER_ERROR,
    RecordLog,
    latest,
    read_json,
    read_records,
    write_json_atomic,
)
from .selection import plan, sample, select
from .shards import Shard, attempts, is_shard_folder
from .target import TargetSettings, TargetUnavailable, open_target

PROMPT_FILES = {
    "act": ["act", "reminder_tags"],
    "react": ["react", "reminder_tags"],
    "fc": ["function_calling", "text_tools", "reminder_tools"],
    "fc-sql": ["function_calling", "function_calling_sql", "text_tools", "reminder_tools"],
    "browser": ["browser"],
}
# The command line's exit codes (mock_org/user_errors.py): an incomplete run waits for something unavailable.
EXIT_COMPLETE, EXIT_INCOMPLETE, EXIT_INTERRUPTED = user_errors.OK, user_errors.UNAVAILABLE, user_errors.INTERRUPTED
INTERRUPTED = "interrupted"


class RunRefused(Exception):
    """The run cannot start: its directory belongs to another run, or the task selection is empty."""


@dataclass
class RunResult:
    out: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    records: list[dict[str, Any]] = field(repr=False)
    stopped: str | None = None

    @property
    def exit_code(self) -> int:
        if self.stopped == INTERRUPTED:
            return EXIT_INTERRUPTED
        return EXIT_COMPLETE if self.manifest["status"] == "complete" else EXIT_INCOMPLETE


def run(
    config: RunConfig, *, tools: Sequence[Any] | None = None, say: Callable[[str], None] | None = None
) -> RunResult:
    """Run (or resume) the evaluation ``config`` describes; ``tools`` replaces the tool registry; ``say``
    is told, in a line each, what the run is about to do (the instances, the target, the endpoint)."""
    config = config.check()
    say = say or (lambda text: None)
    config = with_org(config, say)
    task_file = read_task_file(config.tasks_file or default_task_file())
    instances = select_instances(task_file, config)
    org = org_type(config, task_file)
    chosen_tools = tuple(tools) if tools is not None else agent_tools(config.agent, config.tools)
    prices = PriceTable.load(config.prices)
    if config.max_cost is not None and config.agent in MODEL_AGENTS and prices.find(config.model) is None:
        raise ConfigError(f"--max-cost needs a price for model {config.model!r}: add one with --prices FILE")
    target_settings = TargetSettings.from_env(db=config.db, timeout=config.org_timeout)
    target_settings = replace(target_settings, ui_console=config.ui_console == "on")
    if config.agent in UI_AGENTS and (reason := chromium_missing()):
        raise TargetUnavailable(f"the {config.agent} agent drives a browser: {reason}")
    sharding = config.sharding()
    shard = sharding[0] if sharding else None
    _check_folders(Path(config.out), shard)  # type: ignore[arg-type]
    out = config.run_dir
    out.mkdir(parents=True, exist_ok=True)
    previous = read_json(out / MANIFEST_FILE) if (out / MANIFEST_FILE).exists() else None
    cache = ResponseCache(config.cache, config.cache_mode) if config.cache else None
    say(describe_selection(task_file, config, len(instances)))
    if sharding:
        say(describe_shard(config, instances))
    try:
        with open_target(target_settings) as target:
            say(f"target: the {target.name}")
            session = target.preflight()
            if config.agent in UI_AGENTS:
                _check_console(target, session, config.ui_console)
            llm = _llm(config, config.model, cache, prices) if config.agent in MODEL_AGENTS else None
            capabilities = None
            if llm is not None:
                say(f"model: {config.model} at {llm.endpoint}")
                capabilities = check_endpoint(
                    llm,
                    tools=config.agent in ("fc", "fc-sql"),
                    on_retry=lambda text: say(f"retrying the endpoint check: {text}"),
                )
            protocol = _protocol(config, capabilities)
            agent = make_agent(config, protocol, instances)
            manifest = _manifest(
                config, task_file, chosen_tools, protocol, capabilities, target.describe(), previous, shard, org
            )
            _check_resume(previous, manifest)
            write_json_atomic(out / MANIFEST_FILE, manifest)
            judge = _llm(config, config.judge, cache, prices, temperature=0.0) if config.judge else None
            dialogue = _dialogue(config, cache, prices, say)
            settings = AttemptSettings(
                agent,
                chosen_tools,
                llm,
                judge,
                config.max_turns,
                config.aided,
                config.seed,
                config.f1_pass,
                dialogue,
                config.privacy_aware_prompt,
                org,
            )
            try:
                stopped = _work(config, settings, attempts(instances, config.trials, shard), target, out)
            finally:
                close = getattr(agent, "close", None)  # the UI agents' browsers
                if close is not None:
                    close()
    finally:
        if cache is not None:
            cache.close()
    return _finish(out, manifest, attempts(instances, config.trials, shard), config.trials, stopped)


def _check_console(target: Any, session: Any, wanted: str) -> None:
    """The org's pages must match --ui-console (a running mock has its own setting: crmarena serve --ui-console)."""
    served = target.ui_console_served(session)
    if served != (wanted == "on"):
        have = "serves its query console" if served else "serves no query console"
        raise TargetUnavailable(
            f"the {target.name} {have}, but the run asked for --ui-console {wanted} "
            f"(serve it with crmarena serve --ui-console {wanted})"
        )


def describe_selection(task_file: TaskFile, config: RunConfig, count: int) -> str:
    """One line: how many attempts of which instances, from which task file and task set."""
    if config.sample is not None:
        rule = f"a sample of {config.sample} per task (stratified by answer kind, seed {config.sample_seed})"
    elif config.limit is not None:
        rule = f"the first {config.limit} of each task in file order (not a representative sample: --sample is)"
    else:
        rule = "every instance"
    trials = f"{config.trials} trial{'s' if config.trials != 1 else ''}"
    return (
        f"{count:,} instances × {trials} = {count * config.trials:,} attempts: {rule} of {task_file.path} "
        f"(task set v{task_file.version})"
    )


def describe_shard(config: RunConfig, instances: list[Instance]) -> str:
    """One line: which shard this machine runs, where its index came from, how many attempts it holds."""
    sharding = config.sharding()
    assert sharding is not None
    shard, source = sharding
    mine = len(attempts(instances, config.trials, shard))
    origin = f" (the index from {source})" if source else ""
    return (
        f"shard {shard.spec}{origin}: {mine:,} of the {len(instances) * config.trials:,} attempts, in {config.run_dir}"
    )


def _check_folders(out: Path, shard: Shard | None) -> None:
    """Keep shards and whole runs apart: a shard's folder (``--out``) must not be a run directory, nor may
    a run on one machine write its run directory over a folder of shards."""
    if shard is not None and (out / MANIFEST_FILE).exists():
        raise RunRefused(
            f"{out} is a run directory; with --shard, --out names the folder that holds the shards' "
            "directories: use another --out"
        )
    if shard is None and any(is_shard_folder(path.parent) for path in out.glob(f"*/{MANIFEST_FILE}")):
        raise RunRefused(f"{out} holds the shards of a sharded run: resume them with --shard, or use another --out")


def select_instances(task_file: TaskFile, config: RunConfig) -> list[Instance]:
    if config.tasks:
        unknown = sorted(set(config.tasks) - set(task_file.task_names))
        if unknown:
            raise ConfigError(
                f"no task named {', '.join(unknown)} in {task_file.path} (its tasks: {', '.join(task_file.task_names)})"
            )
    tasks = list(config.tasks) if config.tasks else None
    if config.sample is not None:
        instances = sample(task_file, tasks, config.sample, config.sample_seed)
    else:
        instances = select(task_file, tasks, config.limit)
    if not instances:
        raise RunRefused(f"{task_file.path} has no instance to run")
    return instances


def _llm(
    config: RunConfig,
    model: str | None,
    cache: ResponseCache | None,
    prices: PriceTable,
    temperature: float | None = None,
    *,
    user: bool = False,
) -> LLM:
    """A model on the agent's endpoint; with ``user``, on the simulated user's (its own URL and key, no token
    cap)."""
    endpoint = EndpointConfig(
        model=model or "",
        base_url=config.user_base_url if user else config.base_url,
        temperature=config.temperature if temperature is None else temperature,
        max_tokens=None if user else config.max_tokens,
        timeout=config.timeout,
        retries=config.retries,
        retry_base=config.retry_base,
        max_concurrency=config.max_concurrent_requests or config.workers,
        api_key=(os.environ.get("CRMARENA_USER_API_KEY") if user else None) or os.environ.get("OPENAI_API_KEY"),
    )
    return LLM(endpoint, cache=cache, prices=prices)


def _dialogue(
    config: RunConfig, cache: ResponseCache | None, prices: PriceTable, say: Callable[[str], None]
) -> DialogueSettings | None:
    """The simulated user of an interactive run, its endpoint checked like the agent's."""
    if not config.interactive:
        return None
    user_llm = _user_llm(config, config.user_model, cache, prices, say) if config.user_model else None
    judge = _user_llm(config, config.user_judge, cache, prices, say, 0.0) if config.user_judge else None
    return DialogueSettings(config.user_model or SCRIPTED, user_llm, config.max_user_turns, config.user_retries, judge)


def _user_llm(
    config: RunConfig,
    model: str,
    cache: ResponseCache | None,
    prices: PriceTable,
    say: Callable[[str], None],
    temperature: float | None = None,
) -> LLM:
    """A model on the user's endpoint (the user, or its judge at temperature 0), checked like the agent's."""
    llm = _llm(config, model, cache, prices, temperature, user=True)
    say(f"user: {model} at {llm.endpoint}")
    check_endpoint(llm, tools=False, on_retry=lambda text: say(f"retrying the user endpoint check: {text}"))
    return llm


def _protocol(config: RunConfig, capabilities: Capabilities | None) -> str | None:
    if config.agent not in ("fc", "fc-sql"):
        return None
    if config.tool_protocol != "auto":
        return config.tool_protocol
    return "native" if capabilities is not None and capabilities.native_tools else "text"


def make_agent(config: RunConfig, protocol: str | None, instances: list[Instance]) -> Agent:
    if config.agent == "act":
        return Act()
    if config.agent == "react":
        return ReAct()
    if config.agent in ("fc", "fc-sql"):
        return FunctionCalling(
            sql=config.agent == "fc-sql", protocol=protocol or "native", parallel=config.parallel_calls
        )
    if config.agent == "browser":
        from ..agents.browser import BrowserAgent
        from ..browser.session import BrowserPool

        return BrowserAgent(BrowserPool())
    if config.agent == "ui-oracle":
        from ..agents.ui_oracle import UiOracle
        from ..browser.session import BrowserPool

        return UiOracle(BrowserPool())
    if config.agent == "null":
        return NullAgent()
    if config.agent == "majority":
        return MajorityAgent(instances)
    from ..agents.oracle import Oracle

    return Oracle()


# ----------------------------------------------------------------------------- the manifest


def prompt_fingerprint(
    agent: str, tools: Sequence[Any], interactive: bool = False, privacy_aware: bool = False, org: str = SERVICE
) -> str:
    """SHA-256 over every text the agent is shown apart from the task: its prompt files, the schema
    rendering of its org and the tool schemas (and, in a conversation, the agent's note on it and the user's
    prompt; with --privacy-aware-prompt, its notice)."""
    names = PROMPT_FILES.get(agent, []) + (["interactive", "user"] if interactive else [])
    names += [prompts.PRIVACY_AWARE] if privacy_aware else []
    parts = [prompts.text(name) for name in names] + [render_schema(org)]
    parts += [json.dumps(tool.schema, sort_keys=True) for tool in tools]
    return prompts.prompt_hash(agent, *parts)


def _manifest(
    config: RunConfig,
    task_file: TaskFile,
    tools: Sequence[Any],
    protocol: str | None,
    capabilities: Capabilities | None,
    target: dict[str, Any],
    previous: dict[str, Any] | None,
    shard: Shard | None = None,
    org: str = SERVICE,
) -> dict[str, Any]:
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return {
        "model": config.model,
        "agent": config.agent,
        "label": config.label if config.label is not None else (previous or {}).get("label"),
        "prompt_sha256": prompt_fingerprint(config.agent, tools, config.interactive, config.privacy_aware_prompt, org),
        "org": org,
        "tasks_file": str(task_file.path),
        "tasks_sha256": task_file.sha256,
        "tasks_layout": task_file.layout,
        "task_set": task_file.task_set,
        "canary": task_file.canary,
        "tools": sorted({tool.category for tool in tools}) if tools else [],
        "tool_names": [tool.name for tool in tools],
        "tool_protocol": protocol,
        "parallel_calls": config.parallel_calls if protocol else None,
        "capabilities": capabilities.to_json() if capabilities is not None else None,
        "aided": config.aided,
        "privacy_aware_prompt": config.privacy_aware_prompt,
        "temperature": config.temperature if config.agent in MODEL_AGENTS else None,
        "max_tokens": config.max_tokens,
        "max_turns": config.max_turns,
        "judge": config.judge,
        "seed": config.seed,
        "f1_pass": config.f1_pass,
        "base_url": config.base_url if config.agent in MODEL_AGENTS else None,
        "target_kind": target["kind"],
        "org_sha256": target["org_sha256"],
        "target": target,
        "sampling": sampling(config.limit, config.sample, config.sample_seed),
        "surface": "ui" if config.agent in UI_AGENTS else "api",
        "ui_console": config.ui_console if config.agent in UI_AGENTS else None,
        "plan": plan(task_file, config.limit, config.sample),
        "shard": shard.to_json() if shard is not None else None,
        "interactive": config.interactive,
        "user": (config.user_model or SCRIPTED) if config.interactive else None,
        "user_base_url": config.user_base_url if config.user_model else None,
        "max_user_turns": config.max_user_turns if config.interactive else None,
        "user_retries": config.user_retries if config.interactive else None,
        "user_judge": config.user_judge,
        "selection": {
            "tasks": list(config.tasks) if config.tasks else "all",
            "limit": config.limit,
            "sample": config.sample,
            "sample_seed": config.sample_seed if config.sample is not None else None,
            "trials": config.trials,
        },
        "package_version": metadata.version("crmarena-selfhosted"),
        "git": _git(),
        "python": platform.python_version(),
        "started": previous["started"] if previous else now,
        "sessions": [
            *(previous or {}).get("sessions", []),
            {"started": now, "ended": None, "workers": config.workers, "max_cost": config.max_cost},
        ],
        "status": "running",
    }


def _check_resume(previous: dict[str, Any] | None, manifest: dict[str, Any]) -> None:
    if previous is None:
        return
    # A field an older manifest did not record yet is not held against it.
    differ = [name for name in RESUME_IDENTITY if name in previous and previous.get(name) != manifest.get(name)]
    if differ:
        details = "; ".join(f"{name}: {previous.get(name)!r} then, {manifest.get(name)!r} now" for name in differ)
        raise RunRefused(
            f"this directory holds another run ({details}); resume it with the same settings or use another --out"
        )


def _git() -> dict[str, Any] | None:
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if commit.returncode != 0:
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


# ----------------------------------------------------------------------------- the workers


def _work(
    config: RunConfig, settings: AttemptSettings, planned: list[tuple[Instance, int]], target: Any, out: Path
) -> str | None:
    """Run every unfinished attempt of ``planned``; the reason the run stopped early, if it did."""
    log = RecordLog(out / RECORDS_FILE)
    history = read_records(log.path)
    done = {unit for unit, record in latest(history).items() if record["status"] in SCORED}
    units = [(instance, trial) for instance, trial in planned if (instance.idx, trial) not in done]
    stop = threading.Event()
    stopped: list[str] = []
    sessions = threading.local()
    # every attempt ever paid for, superseded ones too, the simulated user's calls included
    spent = [record.get("cost") for record in history]
    spent += [cost for record in history for cost in (record.get("dialogue") or {}).get("extra_costs", [])]
    counts = {
        "passed": 0,
        "scored": 0,
        "infra": 0,
        "user": 0,
        "harness": 0,
        "cost": sum(cost for cost in spent if cost is not None),
        "unpriced": 0,
    }

    def connect(instance: Instance) -> Any:
        if getattr(sessions, "sf", None) is None:
            sessions.sf = target.connect()
        target.set_today(sessions.sf, instance.today)
        return sessions.sf

    def attempt(instance: Instance, trial: int) -> dict[str, Any] | None:
        if stop.is_set():
            return None
        try:
            return run_attempt(settings, instance, trial, connect, stop.is_set)
        except Cancelled:
            return None

    total = len(planned)
    progress = Progress(total, total - len(units), enabled=config.progress)
    for llm in (settings.llm, settings.judge):
        if llm is not None:
            llm.on_retry = progress.retry
    executor = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="crmarena-worker")
    pending: set[Future] = set()
    queue = iter(units)
    budget = _budget_reason(counts, config.max_cost)
    if budget:
        stopped.append(budget)
        stop.set()
    try:
        # No more attempts in flight than workers: an attempt queued behind a running one would start
        # the moment that one ends, before its record can stop the run.
        for instance, trial in _take(queue, 0 if stop.is_set() else config.workers):
            pending.add(executor.submit(attempt, instance, trial))
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                record = future.result()
                if record is None:
                    continue
                log.append(record)
                reason = _tally(record, counts, config.max_infra_errors, config.max_cost)
                if reason and not stop.is_set():
                    stopped.append(reason)
                    stop.set()
                progress.update(counts)
            progress.tick()
            if not stop.is_set():
                for instance, trial in _take(queue, len(finished)):
                    pending.add(executor.submit(attempt, instance, trial))
    except KeyboardInterrupt:
        stopped.insert(0, INTERRUPTED)
    finally:
        stop.set()
        executor.shutdown(wait=True, cancel_futures=True)
        progress.close()
        log.close()
    return stopped[0] if stopped else None


def _take(queue: Any, count: int) -> list[tuple[Instance, int]]:
    taken = []
    for _ in range(count):
        unit = next(queue, None)
        if unit is None:
            break
        taken.append(unit)
    return taken


def _tally(
    record: dict[str, Any], counts: dict[str, Any], max_infra_errors: int, max_cost: float | None = None
) -> str | None:
    """Count a finished attempt; a reason to stop the run, if there now is one."""
    status = record["status"]
    if record.get("cost") is not None:
        counts["cost"] += record["cost"]
    elif record.get("calls"):
        counts["unpriced"] += 1
    # the simulated user's calls are paid for too, and so are the conversations --user-retries ran again
    extra = (record.get("dialogue") or {}).get("extra_costs") or []
    if any(cost is None for cost in extra):
        counts["unpriced"] += 1
    counts["cost"] += sum(cost for cost in extra if cost is not None)
    if status in SCORED:
        counts["scored"] += 1
        counts["passed"] += status == PASSED
    elif status == USER_ERROR:
        counts["user"] += 1
    elif status == INFRA_ERROR:
        counts["infra"] += 1
        if record["error"].get("fatal"):
            return f"stopped at a fatal error: {record['error']['message']}"
        if counts["infra"] > max_infra_errors:
            return f"stopped after {counts['infra']} infrastructure errors (last: {record['error']['message']})"
    else:
        counts["harness"] += 1
    return _budget_reason(counts, max_cost)


def _budget_reason(counts: dict[str, Any], max_cost: float | None) -> str | None:
    """Why ``--max-cost`` stops the run now, if it does: the money is spent, or can no longer be counted."""
    if max_cost is None:
        return None
    if counts["unpriced"]:
        return "stopped: an attempt's cost is unknown (no token usage reported), so --max-cost cannot be kept"
    if counts["cost"] >= max_cost:
        return f"stopped at the cost limit: ${counts['cost']:.4f} spent of --max-cost ${max_cost:.2f}"
    return None


def _finish(
    out: Path, manifest: dict[str, Any], planned: list[tuple[Instance, int]], trials: int, stopped: str | None
) -> RunResult:
    records = latest(read_records(out / RECORDS_FILE))
    wanted = {(instance.idx, trial) for instance, trial in planned}
    complete = all(unit in records and records[unit]["status"] in SCORED for unit in wanted)
    # The summary is the whole directory's, as `crmarena report` reads it: a resume of a subset never shrinks it.
    chosen = [records[unit] for unit in sorted(records)]
    trials = max([trials, *(trial + 1 for _, trial in records)])
    manifest["status"] = "complete" if complete else "incomplete"
    manifest["stopped"] = stopped
    manifest["sessions"][-1]["ended"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    manifest["ended"] = manifest["sessions"][-1]["ended"]
    summary = summarize(chosen, manifest, trials)
    write_json_atomic(out / MANIFEST_FILE, manifest)
    write_json_atomic(out / SUMMARY_FILE, summary)
    return RunResult(out, manifest, summary, chosen, stopped)
