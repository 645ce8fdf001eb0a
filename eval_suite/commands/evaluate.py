"""``crmarena eval`` (run or resume an evaluation) and ``crmarena rescore`` (score saved trajectories
again, without calling a model)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from mock_org.schema import ORG_TYPES
from mock_org.user_errors import BadFile, Unavailable, UsageError

from ..run.config import AGENTS, ConfigError, RunConfig, coerce, from_toml
from .arguments import count, positive_number

_FLAGS: list[tuple[str, dict[str, Any]]] = [
    (
        "--agent",
        {
            "choices": AGENTS,
            "help": "act, react, fc, fc-sql, browser (model agents), oracle, ui-oracle, null or majority "
            "(default oracle)",
        },
    ),
    ("--model", {"help": "the model name the endpoint serves (needed by act, react, fc and fc-sql)"}),
    ("--base-url", {"help": "the OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else api.openai.com)"}),
    ("--tasks", {"help": "all, or task names separated by commas (default all)"}),
    ("--tasks-file", {"help": "a task file in our JSONL layout or the original's JSON (default: the committed set)"}),
    (
        "--limit",
        {
            "type": int,
            "help": "the first N instances of each task, in file order (a smoke test, not a "
            "representative sample: see --sample)",
        },
    ),
    (
        "--sample",
        {
            "type": int,
            "help": "N instances of each task that represent it: stratified by answer kind "
            "(None or not), drawn with --sample-seed",
        },
    ),
    ("--sample-seed", {"type": int, "help": "the seed of --sample (default 0)"}),
    ("--label", {"help": "a name for this run in reports (kept when resuming without it)"}),
    ("--trials", {"type": int, "help": "trials per instance, for pass^k (default 1)"}),
    ("--workers", {"type": int, "help": "attempts run in parallel (default 4)"}),
    ("--out", {"help": "the run directory (default runs/<model>-<agent>); the same directory resumes"}),
    (
        "--shard",
        {
            "metavar": "I/K",
            "help": "run only shard I of K (0-based; auto/K: I from $JOB_COMPLETION_INDEX or $SLURM_ARRAY_TASK_ID), "
            "into OUT/shard-I-of-K; `crmarena report OUT` merges the shards",
        },
    ),
    ("--temperature", {"type": float, "help": "sampling temperature (default 0)"}),
    ("--max-tokens", {"type": int, "help": "completion tokens per model call (default: the endpoint's)"}),
    ("--max-turns", {"type": int, "help": "model turns per attempt before it ends as agent_error (default 20)"}),
    ("--aided", {"action": "store_true", "default": None, "help": "add the domain details to the task context"}),
    (
        "--privacy-aware-prompt",
        {
            "action": "store_true",
            "default": None,
            "help": "tell the agent what is confidential (the confidentiality tasks' second arm)",
        },
    ),
    ("--tools", {"help": "all, or tool categories separated by commas (tool ablations; fc, fc-sql, oracle)"}),
    (
        "--tool-protocol",
        {
            "choices": ("auto", "native", "text"),
            "help": "native tool calls, a text protocol, or "
            "auto: native when the capability probe finds them (default)",
        },
    ),
    (
        "--parallel-calls",
        {
            "choices": ("first", "all"),
            "help": "several tool calls in one message: run the first (the original's behaviour, default) or all",
        },
    ),
    (
        "--judge",
        {"help": "a model that extracts the answer before exact match (the newer original harness); off by default"},
    ),
    ("--cache", {"help": "a directory for the LLM response cache (SQLite)"}),
    (
        "--cache-mode",
        {"choices": ("rw", "replay"), "help": "rw (default) or replay: never call a model, fail on a miss"},
    ),
    ("--seed", {"type": int, "help": "the base of the per-attempt seeds sent to the model (default 0)"}),
    (
        "--max-infra-errors",
        {"type": int, "help": "stop the run after more infrastructure errors than this (default 10)"},
    ),
    ("--retries", {"type": int, "help": "retries of a failed model call, with exponential backoff (default 6)"}),
    ("--retry-base", {"type": float, "help": "seconds before the first retry, doubled each time (default 1)"}),
    ("--timeout", {"type": float, "help": "seconds per model call (default 120)"}),
    (
        "--org-timeout",
        {
            "type": float,
            "help": "seconds per org request, the login included (default: $CRMARENA_ORG_TIMEOUT, else 30)",
        },
    ),
    ("--max-cost", {"type": float, "help": "stop (resumably) once the run directory's attempts cost this many US$"}),
    ("--max-concurrent-requests", {"type": int, "help": "model calls in flight to the endpoint (default: --workers)"}),
    ("--prices", {"help": "a TOML price table (US$ per million tokens) on top of the packaged one"}),
    (
        "--ui-console",
        {
            "choices": ("on", "off"),
            "help": "browser and ui-oracle: the org's query console on (default) or off (the agent must navigate)",
        },
    ),
    (
        "--interactive",
        {
            "action": "store_true",
            "default": None,
            "help": "multi-turn: a simulated user gives the query piece by piece (act, react, fc, fc-sql, oracle); "
            "--max-turns then counts the agent's steps per user turn",
        },
    ),
    (
        "--user",
        {"choices": ("scripted", "model"), "help": "the simulated user: scripted (default) or model (--user-model)"},
    ),
    ("--user-model", {"help": "the user's model name (any OpenAI-compatible endpoint; implies --user model)"}),
    (
        "--user-base-url",
        {"help": "the user model's endpoint (default: $CRMARENA_USER_BASE_URL, else the agent's endpoint)"},
    ),
    ("--max-user-turns", {"type": int, "help": "user messages per conversation, its stop apart (default 10)"}),
    (
        "--user-retries",
        {"type": int, "help": "run a conversation a user failure ended again with another user seed (default 0)"},
    ),
    (
        "--user-judge",
        {"help": "a model (on the user's endpoint) that judges the user's role; its verdict kept beside the rules"},
    ),
    ("--db", {"help": "the org dump the mock serves (default: the default CRMArena org)"}),
    (
        "--org",
        {
            "metavar": "TYPE",
            "help": f"run the task set of an org of this type ({', '.join(ORG_TYPES)}), built on first use and kept "
            "in $CRMARENA_CACHE_DIR/orgs (instead of --db and --tasks-file)",
        },
    ),
    ("--org-seed", {"type": int, "metavar": "N", "help": "the seed of the --org build (default 2025)"}),
    ("--org-scale", {"type": positive_number, "metavar": "X", "help": "the scale of the --org build (default 1)"}),
    (
        "--org-per-task",
        {
            "type": count(1),
            "metavar": "N",
            "help": "task instances per task type of the --org build (default: the build's; none below scale 1)",
        },
    ),
    ("--f1-pass", {"type": float, "help": "token F1 from which a knowledge-QA answer counts as passed (default 0.5)"}),
    (
        "--no-progress",
        {"dest": "progress", "action": "store_false", "default": None, "help": "no progress bar or progress lines"},
    ),
]


def add_run_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of a run (``crmarena eval`` and ``crmarena doctor`` take the same)."""
    parser.add_argument("--config", type=Path, help="a TOML file with the same settings as these flags")
    for flag, options in _FLAGS:
        parser.add_argument(flag, **({"default": None} | options))


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="run (or resume) the benchmark: an agent over the task instances against the org",
        description="Evaluate an agent on the CRMArena tasks. Runs on a private mock org unless "
        "CRMARENA_TARGET=salesforce; the same command again resumes the run directory.",
    )
    add_run_flags(parser)
    parser.set_defaults(handler=_eval)
    rescore = subparsers.add_parser(
        "rescore",
        help="score a run's saved trajectories again, without calling a model",
        description="Re-score every attempt of a run directory with the current scorer (and, with --tasks-file, "
        "the gold answers of that file); the records file is replaced atomically.",
    )
    rescore.add_argument("run_dir", type=Path, help="the run directory (holds run.json and records.jsonl)")
    rescore.add_argument("--tasks-file", type=Path, help="take the gold answers from this task file")
    rescore.set_defaults(handler=_rescore)


def config_from(args: argparse.Namespace) -> RunConfig:
    settings: dict[str, Any] = from_toml(args.config) if args.config else {}
    for item in fields(RunConfig):
        value = getattr(args, item.name, None)
        if value is not None:
            settings[item.name] = coerce(item.name, value)
    return replace(RunConfig(), **settings)


def leaderboard_row(run_dir: Path) -> str:
    """The run's row of ``crmarena report``'s leaderboard, in the same layout."""
    from ..reports.runs import load_run_dir
    from ..reports.table import build_rows, to_terminal

    return to_terminal(build_rows([load_run_dir(run_dir)]))


def say(text: str) -> None:
    """A line about the run on stderr (stdout keeps the results)."""
    print(f"crmarena eval: {text}", file=sys.stderr, flush=True)


@contextmanager
def refusals(command: str) -> Iterator[None]:
    """Turn the reasons a run cannot start into the command line's errors and exit codes."""
    from fixtures.tasks.task_file import TaskFileError

    from ..model.probe import EndpointUnavailable
    from ..run.org import OrgWithoutTasks
    from ..run.runner import RunRefused
    from ..run.target import AmbiguousTarget, TargetUnavailable

    try:
        yield
    except (ConfigError, AmbiguousTarget) as error:
        raise UsageError(f"crmarena {command}: {error}") from None
    except (RunRefused, TaskFileError, FileNotFoundError, OrgWithoutTasks) as error:
        raise BadFile(f"crmarena {command}: {error}") from None
    except (TargetUnavailable, EndpointUnavailable) as error:
        raise Unavailable(f"crmarena {command}: {error}") from None


def _eval(args: argparse.Namespace) -> int:
    from ..reports.leaderboard import format_row
    from ..run.runner import run

    with refusals("eval"):
        result = run(config_from(args), say=say)
    print(format_row(result.summary))
    print()
    print(leaderboard_row(result.out))
    print(f"records: {result.out / 'records.jsonl'}")
    if result.manifest.get("shard"):
        shard = result.manifest["shard"]
        print(
            f"shard {shard['index']}/{shard['count']}: the row above is this shard's alone; "
            f"`crmarena report {result.out.parent}` merges the {shard['count']} shards into one run"
        )
    if result.stopped:
        again = "with a larger --max-cost" if "cost limit" in result.stopped else "again"
        print(f"crmarena eval: {result.stopped}; run the same command {again} to resume", file=sys.stderr)
    elif result.manifest["status"] != "complete":
        print(
            "crmarena eval: some attempts ended in infrastructure or harness errors; run the same command "
            "again to retry them",
            file=sys.stderr,
        )
    return result.exit_code


def _rescore(args: argparse.Namespace) -> int:
    from ..reports.leaderboard import format_row
    from ..run.rescore import rescore

    try:
        summary = rescore(args.run_dir, args.tasks_file)
    except (FileNotFoundError, ValueError) as error:
        raise BadFile(f"crmarena rescore: {error}") from None
    print(format_row(summary))
    return 0
