"""Which tools an agent gets, from the tool registry: ``fc`` the 25 task tools, ``fc-sql`` those
plus raw SOQL and SOSL, the oracle every registered tool (it calls them as a model does, so an
ablation fails the tasks that need a tool it removes); ``--tools`` keeps only the named categories
(the paper's tool ablations). Also where the default task set lives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..run.config import ConfigError
from .registry import Tool
from .toolbox import RESPOND

RAW_QUERY_TOOLS = frozenset({"issue_soql_query", "issue_sosl_query"})


def registry_tools() -> list[Tool]:
    """Every registered tool (the registry lists ``respond`` too; agents handle that one themselves)."""
    from . import registry

    return [tool for tool in registry.TOOLS.values() if tool.name != RESPOND]


def agent_tools(
    agent: str, categories: Sequence[str] | None, available: Sequence[Tool] | None = None
) -> tuple[Tool, ...]:
    if agent not in ("fc", "fc-sql", "oracle"):
        return ()
    tools = list(available) if available is not None else registry_tools()
    if agent == "fc":
        tools = [tool for tool in tools if tool.name not in RAW_QUERY_TOOLS]
    if categories:
        known = {tool.category for tool in tools}
        unknown = sorted(set(categories) - known)
        if unknown:
            raise ConfigError(
                f"unknown tool categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)} "
                f"(the {agent} agent's: {', '.join(sorted(known))})"
            )
        tools = [tool for tool in tools if tool.category in categories]
    return tuple(tools)


def default_task_file() -> Path:
    """The committed 1,170 instances over the default org."""
    from fixtures.default import default_tasks

    return default_tasks()
