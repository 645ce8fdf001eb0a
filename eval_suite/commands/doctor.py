"""``crmarena doctor``: before a run, with the run's own flags, check everything it needs — the task
file, the org (a login and a query), the model endpoint and model name (one short request, or the
capability probe for agents that call tools) — each with a short timeout, and say what the run would
do: its target, its instances, about how many model calls and what they would cost.

Nothing is written and no attempt is run. The exit code is the run's: 0 when it could start, 5 when
the org or the endpoint cannot be used, 2 or 3 for a setting or file a run would refuse.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import Any

from ..run.config import MODEL_AGENTS, RunConfig
from .evaluate import add_run_flags, config_from, refusals

CHECK_TIMEOUT = 10.0  # seconds: each check's timeout, unless the run's own is shorter
ASSUMED_TURNS = 5  # model calls per attempt when no attempt of this run has been made yet
ASSUMED_COMPLETION_TOKENS = 150  # per call, for the estimate
CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and JSON


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check what a run needs (task file, org, endpoint, model, tool calling) and estimate its calls and cost",
        description="Check, with the same flags as `crmarena eval` and short timeouts, that the run could start: "
        "the task file, the org, the model endpoint, the model name and tool calling. Prints the target, the "
        "instances, the expected number of model calls and a cost estimate. Runs nothing and writes nothing.",
    )
    add_run_flags(parser)
    parser.set_defaults(handler=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from mock_org.user_errors import UNAVAILABLE

    with refusals("doctor"):
        config = config_from(args).check()
        ok = diagnose(config, lambda label, text: print(f"  {label:<9} {text}", flush=True))
    print(
        "doctor: ready: `crmarena eval` with the same flags can start"
        if ok
        else "doctor: not ready: fix what is marked above"
    )
    return 0 if ok else UNAVAILABLE


def diagnose(config: RunConfig, show: Any) -> bool:
    """Check and describe the run ``config`` would make; whether it could start. ``show(label, text)``
    prints one finding."""
    from fixtures.tasks.task_file import read_task_file

    from ..model.llm import LLM, EndpointConfig, PriceTable
    from ..model.probe import EndpointUnavailable, check_endpoint
    from ..run.org import build_settings, org_type, with_cached_org
    from ..run.runner import describe_selection, describe_shard, select_instances
    from ..run.target import TargetSettings, TargetUnavailable, open_target
    from ..tools.catalog import agent_tools, default_task_file

    resolved = with_cached_org(config)
    if resolved is None:  # nothing is built here: the run builds its org first
        seed, scale = build_settings(config)
        show(
            "org",
            f"the {config.org} org (seed {seed}, scale {scale:g}) is not built yet: `crmarena eval` builds it "
            "first and keeps it in $CRMARENA_CACHE_DIR/orgs; its tasks and target are checked once it is there",
        )
    else:
        config = resolved
    instances: list[Any] = []
    org = config.org or "service"
    if resolved is not None:
        task_file = read_task_file(config.tasks_file or default_task_file())
        instances = select_instances(task_file, config)
        org = org_type(config, task_file)
        show("tasks", describe_selection(task_file, config, len(instances)))
        if org != "service":
            show("org", f"a {org} org: the agent's prompt shows its schema")
        if config.shard is not None:
            show("shard", describe_shard(config, instances))
    settings = TargetSettings.from_env(db=config.db, timeout=config.org_timeout)
    settings = replace(settings, timeout=min(settings.timeout, CHECK_TIMEOUT))
    ready = True
    try:
        if resolved is not None:
            with open_target(settings) as target:
                started = time.perf_counter()
                target.preflight()
                took = time.perf_counter() - started
                show("target", f"the {target.name}: login and query answered in {took:.2f} s")
    except TargetUnavailable as error:
        show("target", f"NOT USABLE: {error}")
        ready = False
    prices = PriceTable.load(config.prices)
    if config.agent not in MODEL_AGENTS:
        show("model", f"none: the {config.agent} agent calls no model, so a run costs nothing")
        return ready
    endpoint = EndpointConfig(
        model=config.model or "",
        base_url=config.base_url,
        timeout=min(config.timeout, CHECK_TIMEOUT),
        retries=1,
        retry_base=0.5,
    )
    llm = LLM(endpoint, prices=prices)
    started = time.perf_counter()
    try:
        capabilities = check_endpoint(llm, tools=config.agent in ("fc", "fc-sql"))
        took = time.perf_counter() - started
        found = f"answered in {took:.2f} s"
        if capabilities is not None:
            found += "; " + ", ".join(
                f"{name} {'yes' if value else 'no'}"
                for name, value in (
                    ("native tool calls", capabilities.native_tools),
                    ("tool_choice=required", capabilities.tool_choice_required),
                    ("parallel calls", capabilities.parallel_calls),
                    ("usage", capabilities.usage),
                )
            )
            if not capabilities.native_tools and config.tool_protocol == "native":
                found += " — NATIVE TOOL CALLS MISSING: use --tool-protocol text or auto"
                ready = False
        show("endpoint", f"{llm.endpoint} serves model {config.model!r}: {found}")
    except EndpointUnavailable as error:
        show("endpoint", f"NOT USABLE: {error}")
        ready = False
    tools = agent_tools(config.agent, config.tools)
    for label, text in estimate(config, instances, tools, prices, org) if instances else []:
        show(label, text)
    if config.max_cost is not None and prices.find(config.model) is None:
        show("budget", f"NOT USABLE: --max-cost needs a price for model {config.model!r} (--prices FILE)")
        ready = False
    return ready


def estimate(
    config: RunConfig, instances: list[Any], tools: Any, prices: Any, org: str = "service"
) -> list[tuple[str, str]]:
    """The model calls and cost to expect: measured on the run directory's earlier attempts when there
    are some, else from the size of each first request and ASSUMED_TURNS turns per attempt."""
    from ..run.records import RECORDS_FILE, SCORED, latest, read_records
    from ..run.shards import attempts as planned

    out = config.run_dir
    records = list(latest(read_records(out / RECORDS_FILE)).values()) if (out / RECORDS_FILE).exists() else []
    done = {(record["task_id"], record["trial"]) for record in records if record["status"] in SCORED}
    sharding = config.sharding()
    mine = planned(instances, config.trials, sharding[0] if sharding else None)
    attempts = sum((instance.idx, trial) not in done for instance, trial in mine)
    most = attempts * config.max_turns
    measured = [record for record in records if record.get("calls")]
    if measured:
        per_attempt = sum(len(record["calls"]) for record in measured) / len(measured)
        calls = round(attempts * per_attempt)
        basis = f"{per_attempt:.1f} per attempt, measured on {len(measured)} attempts of {out}"
        costs = [spent for record in measured if (spent := record.get("cost")) is not None]
        cost = attempts * sum(costs) / len(costs) if len(costs) == len(measured) else None
        cost_basis = f"measured on {len(measured)} earlier attempts"
    else:
        calls = attempts * ASSUMED_TURNS
        basis = f"{ASSUMED_TURNS} per attempt assumed"
        prompt = sum(_first_request_tokens(config, instance, tools, org) for instance in instances) / len(instances)
        price = prices.find(config.model)
        cost = (
            None if price is None else calls * (prompt * price.input + ASSUMED_COMPLETION_TOKENS * price.output) / 1e6
        )
        cost_basis = (
            f"~{prompt:,.0f} prompt tokens per call (each first request's size; conversations grow, so "
            f"expect more) and ~{ASSUMED_COMPLETION_TOKENS} completion tokens"
        )
    lines = [
        (
            "calls",
            f"about {calls:,} model calls for {attempts:,} attempts to run ({basis}); at most {most:,} "
            f"(--max-turns {config.max_turns})",
        )
    ]
    if cost is None:
        lines.append(("cost", f"unknown: no price for model {config.model!r} (add one with --prices FILE)"))
    else:
        cap = f"; --max-cost ${config.max_cost:.2f} stops it there" if config.max_cost is not None else ""
        lines.append(("cost", f"about ${cost:,.2f} ({cost_basis}){cap}"))
    return lines


def _first_request_tokens(config: RunConfig, instance: Any, tools: Any, org: str = "service") -> float:
    """The size of an attempt's first request in tokens (its messages and tool schemas, 4 characters a token)."""
    import json

    from ..agents.base import EpisodeContext
    from ..run.runner import make_agent
    from ..tools.toolbox import Toolbox

    protocol = (
        None
        if config.agent not in ("fc", "fc-sql")
        else "native"
        if config.tool_protocol == "auto"
        else config.tool_protocol
    )
    agent = make_agent(config, protocol, [instance])
    context = EpisodeContext(instance, Toolbox(None, tools), None, aided=config.aided, org=org)
    text = json.dumps(agent.opening(context)) + json.dumps(agent.tools(context) or [])  # type: ignore[attr-defined]
    return len(text) / CHARS_PER_TOKEN
