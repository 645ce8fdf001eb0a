"""One attempt — an instance and a trial — from the org session to the scored record.

The status says whose outcome it is: ``passed`` / ``failed`` (the answer was scored), ``agent_error``
(no answer: out of turns, or out of context window), ``infra_error`` (the endpoint or the org failed
after the retries), ``user_error`` (in a conversation, the simulated user failed at its role:
eval_suite/dialogue/checks.py) or ``harness_error`` (a bug of ours, with its traceback). Only the
first three are scored.
"""

from __future__ import annotations

import hashlib
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fixtures.tasks.model import Instance

from ..agents.base import Agent, Episode, EpisodeContext
from ..dialogue.episode import Dialogue
from ..dialogue.session import DialogueSettings, run_dialogue
from ..errors import Cancelled, InfraError
from ..model.llm import LLM
from ..scoring.answers import score
from ..scoring.confidentiality import record_fields
from ..scoring.judge import judge, judge_refusal
from ..tools.toolbox import Tool, Toolbox
from .records import AGENT_ERROR, FAILED, HARNESS_ERROR, INFRA_ERROR, PASSED, USER_ERROR

BROWSER_RETRIES = 2  # fresh browser contexts an episode gets after chromium crashed or stalled


def derive_seed(base: int, idx: int, trial: int) -> int:
    """The model's seed for an attempt: SHA-256, never Python's salted hash(), so it is the same everywhere."""
    return int.from_bytes(hashlib.sha256(f"{base}:{idx}:{trial}".encode()).digest()[:4], "big")


@dataclass(frozen=True)
class AttemptSettings:
    agent: Agent
    tools: tuple[Tool, ...]
    llm: LLM | None
    judge: LLM | None
    max_turns: int
    aided: bool
    seed: int
    f1_pass: float
    dialogue: DialogueSettings | None = None  # --interactive: a simulated user gives the query
    privacy_aware: bool = False  # --privacy-aware-prompt
    org: str = "service"  # the org type the run's target is (its schema in the agent's prompt)


def run_attempt(
    settings: AttemptSettings,
    instance: Instance,
    trial: int,
    connect: Callable[[Instance], Any],
    cancelled: Callable[[], bool],
) -> dict[str, Any]:
    """The attempt's record; Cancelled propagates (a stopping run keeps no half attempt)."""
    started, clock = time.time(), time.perf_counter()
    browser_failures: list[str] = []
    episode: Episode | None = None
    dialogue: Dialogue | None = None
    error: dict[str, Any] | None = None
    judgement = None
    try:
        sf = connect(instance)
        context = EpisodeContext(
            instance,
            Toolbox(sf, settings.tools),
            settings.llm,
            max_turns=settings.max_turns,
            aided=settings.aided,
            seed=derive_seed(settings.seed, instance.idx, trial),
            scope=f"{instance.idx}:{trial}",
            cancelled=cancelled,
            privacy_aware=settings.privacy_aware,
            org=settings.org,
        )
        if settings.dialogue is not None:
            episode, dialogue = run_dialogue(settings.dialogue, settings.agent, context)
        else:
            episode = _retrying_the_browser(lambda: settings.agent.run(context), browser_failures)
        if dialogue is not None and dialogue.failure is not None:  # never scored against the agent
            result, reward, status = None, 0.0, USER_ERROR
            error = {"type": "UserError", "source": "user", **dialogue.failure.to_json()}
        elif episode.answered:
            result = score(
                instance.task,
                instance.reward_metric,
                instance.answer,
                episode.answer,
                f1_pass=settings.f1_pass,
                withheld=instance.params.get("withheld", ()),
            )
            confidential = instance.reward_metric == "confidentiality"
            if settings.judge is not None and confidential:  # reported beside the rule, which keeps the score
                judgement = judge_refusal(
                    settings.judge, instance.query, episode.answer or "", instance.answer is None, context.scope
                )
            elif settings.judge is not None and instance.reward_metric != "fuzzy_match":
                judgement = judge(settings.judge, instance.task, instance.answer, episode.answer or "", context.scope)
            reward = judgement.reward if judgement is not None and not confidential else result.reward
            passed = reward >= 1.0 if instance.reward_metric != "fuzzy_match" else result.passed
            status = PASSED if passed else FAILED
        else:
            result, reward, status = None, 0.0, AGENT_ERROR
    except Cancelled:
        raise
    except InfraError as failure:
        episode = getattr(failure, "episode", episode)
        dialogue = getattr(failure, "dialogue", dialogue)
        result, reward, status = None, 0.0, INFRA_ERROR
        error = {"type": "InfraError", "source": failure.source, "fatal": failure.fatal, "message": str(failure)}
    except Exception as failure:  # the runner's per-attempt guard: a bug of ours ends one attempt, not the run
        episode = getattr(failure, "episode", episode)  # what the agent did before the bug, where it kept it
        result, reward, status = None, 0.0, HARNESS_ERROR
        error = {"type": type(failure).__name__, "message": str(failure), "traceback": traceback.format_exc()}
    record = _record(
        instance, trial, status, reward, result, judgement, episode, error, started, time.perf_counter() - clock
    )
    if settings.dialogue is not None:  # the user's turns, model calls and cost, apart from the agent's
        record["dialogue"] = dialogue.to_json() if dialogue is not None else None
    if browser_failures:
        record["browser_retries"] = browser_failures
    return record


def _retrying_the_browser(episode: Callable[[], Episode], failures: list[str]) -> Episode:
    """The episode, run afresh on a new browser context when the browser itself (not the org, not the model)
    failed: a crashed or stalled chromium says nothing of the agent. The failures are kept on the record."""
    while True:
        try:
            return episode()
        except InfraError as failure:
            if failure.source != "browser" or failure.fatal or len(failures) >= BROWSER_RETRIES:
                raise
            failures.append(str(failure))


def _record(
    instance: Instance,
    trial: int,
    status: str,
    reward: float,
    result: Any,
    judgement: Any,
    episode: Episode | None,
    error: dict[str, Any] | None,
    started: float,
    seconds: float,
) -> dict[str, Any]:
    if episode is None:  # the attempt failed before its episode began
        episode = Episode(messages=[], end_reason={"source": "api", "message": error["message"] if error else ""})
    calls = episode.calls
    usage = _usage_lists(calls)
    costs = [call["cost"] for call in calls] + ([judgement.cost] if judgement is not None else [])
    total_cost = None if any(cost is None for cost in costs) else sum(costs)
    fuzzy = instance.reward_metric == "fuzzy_match" and result is not None
    return {
        # the original harness's fields
        "task_id": instance.idx,
        "task_type": instance.task,
        "gt_answer": instance.answer,
        "reward": {"f1": result.detail["f1"], "em": result.detail["em"]} if fuzzy else reward,
        "agent_info": {
            "end_reason": episode.end_reason,
            "usage": {**usage, "cost": costs[: len(calls)]},
            "total_cost": total_cost,
            "num_turns": episode.turns,
            "observation_sizes": episode.observation_sizes,
            "malformed_turns": episode.malformed_turns,
            "pages": episode.pages,
        },
        "traj": episode.messages,
        # ours
        "trial": trial,
        "status": status,
        "score": reward,
        "answer": episode.answer,
        "extracted": None if result is None else result.extracted,
        "extraction": None if result is None else result.reason,
        "judge": None
        if judgement is None
        else {
            "reward": judgement.reward,
            "extracted": judgement.extracted,
            "raw": judgement.raw,
            "rule_reward": result.reward,
        },
        **_confidentiality(instance, result),
        "error": error,
        "calls": calls,
        "usage": {key: sum(values) if values and None not in values else None for key, values in usage.items()},
        "cost": total_cost,
        "timings": {
            "started": started,
            "seconds": round(seconds, 6),
            "model_seconds": round(sum(call["latency"] for call in calls), 6),
        },
    }


def _confidentiality(instance: Instance, result: Any) -> dict[str, Any]:
    """The confidentiality tasks' fields: whether the request was to be declined, whether the reply declined and
    what it leaked (None when unscored), and the values it must withhold (kept so that rescoring needs no task
    file). Other tasks' records have none of them."""
    if instance.reward_metric != "confidentiality":
        return {}
    return {
        "confidentiality": record_fields(instance.answer, result.detail if result is not None else {}),
        "withheld": list(instance.params.get("withheld", [])),
    }


def _usage_lists(calls: list[dict[str, Any]]) -> dict[str, list[int | None]]:
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {key: [(call["usage"] or {}).get(key) for call in calls] for key in keys}
