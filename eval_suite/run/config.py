"""A run's settings: the same names on the command line (``--max-turns``) and in a TOML config
file (``max-turns = 20`` or ``max_turns = 20``), so that a run can be one committed file.
Command-line flags override the file."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from mock_org.schema import ORG_TYPES

from .shards import Shard, ShardError
from .shards import parse as parse_shard

AGENTS = ("act", "react", "fc", "fc-sql", "browser", "oracle", "ui-oracle", "null", "majority")
MODEL_AGENTS = frozenset({"act", "react", "fc", "fc-sql", "browser"})
UI_AGENTS = frozenset({"browser", "ui-oracle"})  # the org's web pages are their only tool
TOOL_AGENTS = frozenset({"fc", "fc-sql", "oracle"})
INTERACTIVE_AGENTS = frozenset({"act", "react", "fc", "fc-sql", "oracle"})  # --interactive: they hold a conversation
USERS = ("scripted", "model")


class ConfigError(ValueError):
    """A setting that cannot be used, said in one line."""


@dataclass(frozen=True)
class RunConfig:
    agent: str = "oracle"
    model: str | None = None
    base_url: str | None = None  # default: OPENAI_BASE_URL, else the openai package's
    tasks: tuple[str, ...] | None = None  # None: every task of the task file
    tasks_file: Path | None = None  # default: the committed task set of the default org
    limit: int | None = None  # the first N instances of each task, in file order
    sample: int | None = None  # N instances of each task, stratified by answer kind (None or not)
    sample_seed: int = 0
    label: str | None = None  # the run's name in reports (kept from the run directory when not given)
    trials: int = 1
    workers: int = 4
    out: Path | None = None  # default: runs/<model or agent>-<agent>; with a shard, the folder of the shards
    shard: str | None = None  # "I/K" or "auto/K" (shards.py): run only shard I of K
    temperature: float = 0.0
    max_tokens: int | None = None
    max_turns: int = 20
    aided: bool = False
    privacy_aware_prompt: bool = False  # the confidentiality notice in every agent's context (the second arm)
    tools: tuple[str, ...] | None = None  # tool categories; None: all the agent's tools
    tool_protocol: str = "auto"
    parallel_calls: str = "first"
    judge: str | None = None
    cache: Path | None = None
    cache_mode: str = "rw"
    seed: int = 0
    max_infra_errors: int = 10
    retries: int = 6
    retry_base: float = 1.0
    timeout: float = 120.0
    org_timeout: float | None = None  # seconds per org request (default: CRMARENA_ORG_TIMEOUT, else 30)
    max_cost: float | None = None  # US$: stop (resumably) once the run directory's attempts cost this much
    max_concurrent_requests: int | None = None  # default: the number of workers
    prices: Path | None = None
    db: Path | None = None
    # --org (fixtures/org_cache.py): build, or take from the cache, an org of this type and run its task set
    org: str | None = None
    org_seed: int | None = None  # default: fixtures build's (2025)
    org_scale: float | None = None  # default 1
    org_per_task: int | None = None  # default: the build's (from scale 1 up; none below)
    f1_pass: float = 0.5
    progress: bool = True
    ui_console: str = "on"  # the UI agents: the org's query console served (on) or taken away (off)
    # --interactive (eval_suite/dialogue): a simulated user gives the query piece by piece
    interactive: bool = False
    user: str | None = None  # scripted, or model (a user model: --user-model); default model when one is named
    user_model: str | None = None
    user_base_url: str | None = None  # default: CRMARENA_USER_BASE_URL, else the agent's endpoint
    max_user_turns: int = 10
    user_retries: int = 0  # a conversation a user failure ended is run again with another user seed, this often
    user_judge: str | None = None  # a model judging the user (on the user's endpoint), reported beside the rules

    def check(self) -> RunConfig:
        """The config with its defaults filled in, or ConfigError naming what is wrong."""
        if self.agent not in AGENTS:
            raise ConfigError(f"unknown agent {self.agent!r}: choose one of {', '.join(AGENTS)}")
        if self.agent in MODEL_AGENTS and not self.model:
            raise ConfigError(f"the {self.agent} agent needs --model (and OPENAI_API_KEY / OPENAI_BASE_URL)")
        for name, low in (("trials", 1), ("workers", 1), ("max_turns", 1), ("retries", 0), ("max_infra_errors", 0)):
            if getattr(self, name) < low:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least {low}")
        for name in ("limit", "sample"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ConfigError(f"--{name} must be at least 1")
        if self.limit is not None and self.sample is not None:
            raise ConfigError("--limit (the first N of each task) and --sample (a representative N) exclude each other")
        for name in ("timeout", "org_timeout", "max_cost"):
            value = getattr(self, name)
            if value is not None and not 0 < value < float("inf"):
                raise ConfigError(f"--{name.replace('_', '-')} must be a number above 0")
        if self.label is not None and not self.label.strip():
            raise ConfigError("--label must not be empty")
        if self.tool_protocol not in ("auto", "native", "text"):
            raise ConfigError("--tool-protocol must be auto, native or text")
        if self.parallel_calls not in ("first", "all"):
            raise ConfigError("--parallel-calls must be first or all")
        if self.cache_mode not in ("rw", "replay"):
            raise ConfigError("--cache-mode must be rw or replay")
        if self.cache_mode == "replay" and self.cache is None:
            raise ConfigError("--cache-mode replay needs --cache DIR")
        if self.ui_console not in ("on", "off"):
            raise ConfigError("--ui-console must be on or off")
        if self.ui_console == "off" and self.agent not in UI_AGENTS:
            raise ConfigError(f"--ui-console is a setting of the browser and ui-oracle agents, not {self.agent}")
        self.sharding()
        self._check_org()
        user = self._check_dialogue()
        if self.tools is not None and self.agent not in TOOL_AGENTS:
            raise ConfigError(f"--tools selects tool categories of the fc, fc-sql and oracle agents, not {self.agent}")
        console = "noconsole" if self.ui_console == "off" else None
        mode = f"interactive-{self.user_model or 'scripted'}" if self.interactive else None
        out = self.out or Path("runs") / _slug(
            "-".join(
                filter(
                    None,
                    (self.model, self.agent, self._org_name(), console, mode, self._sampling_name(), self.label),
                )
            )
        )
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        user_base_url = (self.user_base_url or os.environ.get("CRMARENA_USER_BASE_URL") or base_url) if user else None
        return replace(self, out=Path(out), base_url=base_url, user=user, user_base_url=user_base_url)

    def _check_org(self) -> None:
        """--org names an org type the build knows and replaces --db and --tasks-file; its settings need it."""
        if self.org is None:
            named = [name for name in ("org_seed", "org_scale", "org_per_task") if getattr(self, name) is not None]
            if named:
                raise ConfigError(f"--{named[0].replace('_', '-')} is a setting of --org TYPE")
            return
        if self.org not in ORG_TYPES:
            raise ConfigError(f"unknown org type {self.org!r}: choose one of {', '.join(ORG_TYPES)}")
        for name in ("db", "tasks_file"):
            if getattr(self, name) is not None:
                flag = name.replace("_", "-")
                raise ConfigError(f"--org builds its own org and task file: leave out --{flag} (or --org)")
        if self.org_scale is not None and not 0 < self.org_scale < float("inf"):
            raise ConfigError("--org-scale must be a number above 0")
        if self.org_per_task is not None and self.org_per_task < 1:
            raise ConfigError("--org-per-task must be at least 1")

    def _org_name(self) -> str | None:
        """The --org part of the default run directory: ``b2b``, ``b2b-seed7`` (none for the default org)."""
        if self.org is None:
            return None
        settings = [("seed", self.org_seed), ("scale", self.org_scale), ("tasks", self.org_per_task)]
        parts = [f"{name}{value:g}" for name, value in settings if value is not None]
        return "-".join([self.org, *parts]) if parts or self.org != "service" else None

    def _check_dialogue(self) -> str | None:
        """The user of an interactive run (``scripted`` or ``model``), or None for a single-turn one."""
        if not self.interactive:
            names = ("user", "user_model", "user_base_url", "user_judge")
            named = [name for name in names if getattr(self, name) is not None]
            if named:
                raise ConfigError(f"--{named[0].replace('_', '-')} is a setting of --interactive runs")
            return None
        if self.agent not in INTERACTIVE_AGENTS:
            raise ConfigError(
                f"--interactive works with the {', '.join(sorted(INTERACTIVE_AGENTS))} agents, not {self.agent}"
            )
        user = self.user or ("model" if self.user_model else "scripted")
        if user not in USERS:
            raise ConfigError("--user must be scripted or model")
        if user == "model" and not self.user_model:
            raise ConfigError("--user model needs --user-model (and CRMARENA_USER_API_KEY or OPENAI_API_KEY)")
        if user == "scripted" and self.user_model:
            raise ConfigError("--user scripted takes no --user-model")
        if self.max_user_turns < 1:
            raise ConfigError("--max-user-turns must be at least 1")
        if self.user_retries < 0:
            raise ConfigError("--user-retries must be at least 0")
        return user

    def sharding(self) -> tuple[Shard, str | None] | None:
        """The shard this machine runs and the variable its index came from (None: the whole run)."""
        if self.shard is None:
            return None
        try:
            return parse_shard(self.shard, os.environ)
        except ShardError as error:
            raise ConfigError(str(error)) from None

    @property
    def run_dir(self) -> Path:
        """Where this machine's attempts go: ``out``, or the shard's folder inside it (after ``check``)."""
        if self.out is None:
            raise ValueError("run_dir is known once check() has filled in the default --out")
        out = Path(self.out)
        sharding = self.sharding()
        return out / sharding[0].folder if sharding else out

    def _sampling_name(self) -> str | None:
        if self.sample is not None:
            return f"sample{self.sample}" + (f"s{self.sample_seed}" if self.sample_seed else "")
        return f"limit{self.limit}" if self.limit is not None else None


def _slug(text: str) -> str:
    return "".join(char if char.isalnum() or char in "-_." else "_" for char in text)


_PATHS = {"tasks_file", "out", "cache", "prices", "db"}
_LISTS = {"tasks", "tools"}


def from_toml(path: Path) -> dict[str, Any]:
    """The settings of a TOML config file, keyed by field name; unknown keys are an error."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read config file {path}: {error}") from None
    known = {item.name for item in fields(RunConfig)}
    settings: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in known:
            raise ConfigError(f"{path}: unknown setting {key!r}")
        settings[name] = coerce(name, value)
    return settings


def coerce(name: str, value: Any) -> Any:
    """A setting from text or TOML into its field's type (comma lists, paths, ``all``)."""
    if value is None:
        return None
    if name in _LISTS:
        items = value.split(",") if isinstance(value, str) else list(value)
        items = [str(item).strip() for item in items if str(item).strip()]
        return None if not items or items == ["all"] else tuple(items)
    if name in _PATHS:
        return Path(value)
    return value
