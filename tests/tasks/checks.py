"""The checks every generated task set must pass, for the committed default set and for a set built
from another seed alike. Each returns the list of problems it found (empty when the set is sound)."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date
from typing import Any

from fixtures.generate.vocab import ISSUE_NAMES
from fixtures.tasks import truth
from fixtures.tasks.drafting import Context
from fixtures.tasks.model import CANARY, TASK_BY_NAME, TASKS, Instance
from fixtures.tasks.policies import WINDOWED
from fixtures.tasks.purchases import kind_of
from fixtures.tasks.records import OrgRecords, parse_datetime
from fixtures.tasks.windows import Window, midnight

NONE_SHARE = (0.25, 0.35)
MAX_SHARE = 0.25


def layout(instances: list[Instance], per_task: int) -> list[str]:
    """Counts, numbering, task order, the fixed fields and the params keys the issue lists."""
    problems = []
    expected = [spec.name for spec in TASKS for _ in range(per_task)]
    if [instance.task for instance in instances] != expected:
        problems.append(f"tasks are not {per_task} each in the original's order")
    if [instance.idx for instance in instances] != list(range(len(instances))):
        problems.append("idx is not 0, 1, 2, …")
    for instance in instances:
        spec = TASK_BY_NAME[instance.task]
        if set(instance.params) != set(spec.params):
            problems.append(f"{instance.idx}: params {sorted(instance.params)} ≠ {sorted(spec.params)}")
        if (instance.persona, instance.reward_metric, instance.canary) != (spec.persona, spec.reward_metric, CANARY):
            problems.append(f"{instance.idx}: persona, reward metric or canary is wrong")
        if f"Today is {instance.params.get('today')}" not in instance.metadata["required"]:
            problems.append(f"{instance.idx}: metadata.required does not give the instance's today")
        if not instance.reference or instance.reference[-1].get("tool") != "respond":
            problems.append(f"{instance.idx}: the reference does not end with respond")
    return problems


def ground_truth(instances: list[Instance], org: OrgRecords) -> list[str]:
    """Every answer is what the rule gives, and never the result of a tie."""
    problems = []
    for instance in instances:
        if instance.task == "knowledge_qa":
            if not instance.answer or not truth.knowledge_answer_stated(
                org, instance.params["article_id"], instance.answer
            ):
                problems.append(f"{instance.idx}: the answer is not stated in article {instance.params['article_id']}")
            continue
        verdict = truth.evaluate(org, instance.task, instance.params)
        if verdict.tied or verdict.answer != instance.answer:
            problems.append(
                f"{instance.idx}: rule gives {verdict.answer!r} (tied {verdict.tied}), file {instance.answer!r}"
            )
    return problems


def shares(instances: list[Instance]) -> list[str]:
    """None share 25–35 % where None is possible and 0 elsewhere; no other answer above 25 %."""
    problems = []
    for spec in TASKS:
        answers = Counter(instance.answer for instance in instances if instance.task == spec.name)
        total = sum(answers.values())
        none_share = answers[None] / total
        if spec.may_be_none and not NONE_SHARE[0] <= none_share <= NONE_SHARE[1]:
            problems.append(f"{spec.name}: None share {none_share:.0%}")
        if not spec.may_be_none and answers[None]:
            problems.append(f"{spec.name}: {answers[None]} None answers")
        top = max((count for answer, count in answers.items() if answer is not None), default=0)
        if top / total > MAX_SHARE:
            problems.append(f"{spec.name}: one answer covers {top / total:.0%}")
    return problems


def _months(params: dict[str, Any]) -> list[tuple[int, int]]:
    start, end = parse_datetime(params["start"]), parse_datetime(params["end"])
    assert start is not None and end is not None
    return Window(start, end, "", (), None, None).calendar_months()


def windows(instances: list[Instance], context: Context) -> list[str]:
    """Windows are half-open and end by today; the day asked on is settled; monthly trends span ≤ 12 months."""
    problems = []
    for instance in instances:
        if instance.task not in WINDOWED:
            continue
        params = instance.params
        today = date.fromisoformat(params["today"])
        start, end = parse_datetime(params["start"]), parse_datetime(params["end"])
        if not (start and end and start < end <= midnight(today)):
            problems.append(f"{instance.idx}: window {params['start']}–{params['end']} does not end by today {today}")
        if not context.settled(today):
            problems.append(f"{instance.idx}: a case opened before {today} still changes after it")
        if instance.task == "monthly_trend_analysis":
            months = _months(params)
            if len({month for _, month in months}) != len(months) or len(months) > 12:
                problems.append(f"{instance.idx}: the window repeats a month name")
    return problems


def wording(instances: list[Instance], org: OrgRecords, original_queries: list[str] | None) -> list[str]:
    """Routing cases never name their issue; descriptions never name the product; no 8-word run of the
    original's queries appears in ours."""
    problems = []
    existing = {case.description for case in org.cases.values()}
    for instance in instances:
        params = instance.params
        if instance.task == "case_routing":
            text = f"{params['subject']} {params['description']}".lower()
            if any(name.lower() in text for name in ISSUE_NAMES) or params["description"] in existing:
                problems.append(f"{instance.idx}: the new case names an issue or copies an existing case")
        if instance.task == "named_entity_disambiguation":
            name = org.products[params["product_id"]][0]
            if name.lower() in instance.query.lower():
                problems.append(f"{instance.idx}: the query names the product")
    if original_queries is not None:
        runs = set()
        for query in original_queries:
            words = re.findall(r"\w+", query.lower())
            runs.update(tuple(words[index : index + 8]) for index in range(len(words) - 7))
        for instance in instances:
            words = re.findall(r"\w+", instance.query.lower())
            copied = [run for run in (tuple(words[i : i + 8]) for i in range(len(words) - 7)) if run in runs]
            if copied:
                problems.append(f"{instance.idx}: copies the original's words {' '.join(copied[0])!r}")
    return problems


def hard_in_the_right_way(instances: list[Instance], org: OrgRecords, latent: dict[str, Any]) -> list[str]:
    """Disambiguation days hold a look-alike of the product; a breached policy is the case issue's article."""
    problems = []
    for instance in instances:
        params = instance.params
        if instance.task == "named_entity_disambiguation" and instance.answer is not None:
            noun = kind_of(org.products[instance.answer][0])[1]
            day = date.fromisoformat(params["purchase_date"])
            others = truth.purchased_products(org, params["contact_id"], day) - {instance.answer}
            if not any(kind_of(org.products[other][0])[1] == noun for other in others):
                problems.append(f"{instance.idx}: no look-alike of the product in that day's orders")
        if instance.task == "policy_violation_identification" and instance.answer is not None:
            issue = org.cases[params["case_id"]].issue_id
            if latent["issues"][issue]["policy_article_id"] != instance.answer:
                problems.append(f"{instance.idx}: the breached article is not the case issue's policy article")
    return problems


def original_queries(shared: Any) -> list[str] | None:
    if shared is None:
        return None
    path = shared / "original" / "crmarena_tasks_natural.json"
    return [record["query"] for record in json.loads(path.read_text())] if path.is_file() else None
