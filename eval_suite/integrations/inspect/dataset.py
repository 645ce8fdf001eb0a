"""The task instances as inspect samples.

A sample's input is the opening our function-calling agent is given (eval_suite/agents/function_calling.py): its
system prompt with the schema of the org the instance was made for when the raw query tools are on (``sql``), the
instance's required context (and the optional one when ``aided``), then the query as the user's message. The
target is the gold answer (the text ``None`` where there is none), and the metadata carries the task's name (the
metrics group by it) and the instance itself, which the session, the oracle and the scorer read back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from fixtures.tasks.model import Instance

from ...agents.base import EpisodeContext
from ...agents.function_calling import FunctionCalling
from ...tools.toolbox import Toolbox


def sample_of(instance: Instance, *, sql: bool, aided: bool) -> Sample:
    org = ((instance.task_set or {}).get("org") or {}).get("type") or "service"  # a sales org's set names its type
    context = EpisodeContext(instance, Toolbox(None), None, aided=aided, org=org)
    system, user = FunctionCalling(sql=sql).opening(context)
    return Sample(
        id=instance.idx,
        input=[ChatMessageSystem(content=system["content"]), ChatMessageUser(content=user["content"])],
        target=instance.answer if instance.answer is not None else "None",
        metadata={"task": instance.task, "instance": instance.to_json()},
    )


def instance_of(metadata: Mapping[str, Any]) -> Instance:
    """The instance a sample was made from."""
    return Instance(**metadata["instance"])
