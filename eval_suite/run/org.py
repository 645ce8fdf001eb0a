"""Which org type a run works in, and ``--org TYPE``: the org of that type (built, or taken from the cache by
fixtures/org_cache.py) with its task set, in place of ``--db`` and ``--tasks-file``.

The org type decides the schema the agent's prompt shows (a sales org's has the sales objects) and the
report's org column. It is ``--org`` when given, else what the served dump says (its manifest's ``org``, or
the sales objects' tables), else what the task set says it was made for, else the service org.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from fixtures.dump import dump_org_type
from fixtures.tasks.task_file import TaskFile

from .config import ConfigError, RunConfig

if TYPE_CHECKING:
    from fixtures.org_cache import BuiltOrg

SERVICE = "service"


class OrgWithoutTasks(Exception):
    """An --org build made no task instances (a scale below 1 makes none unless --org-per-task says)."""


def with_org(config: RunConfig, say: Callable[[str], None]) -> RunConfig:
    """``config`` with ``db`` and ``tasks_file`` of its ``--org`` (unchanged without one)."""
    if config.org is None:
        return config
    from fixtures.org_cache import built_org

    _check_target(os.environ)
    seed, scale = build_settings(config)
    org = built_org(
        config.org,
        seed,
        scale,
        config.org_per_task,
        on_build=lambda folder: say(f"building the {config.org} org (seed {seed}, scale {scale:g}) into {folder}"),
    )
    made = f"built in {org.seconds:.0f} s" if org.built else "from the cache"
    say(f"org: {config.org}, seed {seed}, scale {scale:g} ({made}): {org.folder}")
    return _use(config, org)


def _check_target(env: Mapping[str, str]) -> None:
    """--org serves its dump on a private mock: a run aimed at a running mock or a real org cannot use it."""
    if (env.get("CRMARENA_TARGET") or "").strip().lower() == "salesforce" or env.get("CRMARENA_MOCK_URL"):
        raise ConfigError(
            "--org serves the org it builds on a private mock: unset CRMARENA_MOCK_URL and CRMARENA_TARGET=salesforce"
        )


def with_cached_org(config: RunConfig) -> RunConfig | None:
    """``config`` with its ``--org``'s dump and task set when no build is needed, else None (nothing is built)."""
    if config.org is None:
        return config
    from fixtures.org_cache import cached_org

    org = cached_org(config.org, *build_settings(config), config.org_per_task)
    return None if org is None else _use(config, org)


def build_settings(config: RunConfig) -> tuple[int, float]:
    """The seed and scale of the ``--org`` build (fixtures build's defaults)."""
    from fixtures.default import DEFAULT_SCALE, DEFAULT_SEED

    seed = DEFAULT_SEED if config.org_seed is None else config.org_seed
    return seed, DEFAULT_SCALE if config.org_scale is None else config.org_scale


def _use(config: RunConfig, org: BuiltOrg) -> RunConfig:
    if not org.tasks.is_file():
        raise OrgWithoutTasks(
            f"the {config.org} org in {org.folder} has no task instances (a build below scale 1 makes none): "
            "give --org-per-task N"
        )
    return replace(config, db=org.db, tasks_file=org.tasks)


def org_type(config: RunConfig, task_file: TaskFile) -> str:
    """The org type the run's agent works in (see the module's docstring)."""
    if config.org is not None:
        return config.org
    if config.db is not None and (found := dump_org_type(Path(config.db))):
        return found
    for instance in task_file.instances:
        named = ((instance.task_set or {}).get("org") or {}).get("type")
        if named:
            return str(named)
    return SERVICE
