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
from fixtures.tasks.drafting import CAPS as DEFAULT_CAPS
from fixtures.tasks.drafting import Context
from fixtures.tasks.generate import CAPS
from fixtures.tasks.model import CANARY, TASK_BY_NAME, TASKS, Instance
from fixtures.tasks.policies import WINDOWED
from fixtures.tasks.purchases import kind_of
from fixtures.tasks.records import OrgRecords, parse_datetime
from fixtures.tasks.windows import Window, midnight


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
    """None is exactly the task's ``none_share`` of its instances (0 for a task never None); no other answer
    covers more than the loosest cap of the task's steps (docs/tasks.md)."""
    problems = []
    for spec in TASKS:
        answers = Counter(instance.answer for instance in instances if instance.task == spec.name)
        total = sum(answers.values())
        if answers[None] != round(spec.none_share * total):
            problems.append(f"{spec.name}: None share {answers[None] / total:.0%}, not {spec.none_share:.0%}")
        cap = max(1, int(CAPS.get(spec.name, DEFAULT_CAPS)[-1] * total))
        top = max((count for answer, count in answers.items() if answer is not None), default=0)
        if top > cap:
            problems.append(f"{spec.name}: one answer covers {top / total:.0%}")
    return problems


def _months(params: dict[str, Any]) -> list[tuple[int, int]]:
    start, end = parse_datetime(params["start"]), parse_datetime(params["end"])
    assert start is not None and end is not None
    return Window(start, end, "", (), None, None).calendar_months()


# The rules that read closures or hand-overs: every case of their window has settled by the day asked on
# (the others read only what happened inside the window, so later events cannot change their answer).
SETTLED = frozenset({"handle_time", "best_region_identification"})


def windows(instances: list[Instance], context: Context) -> list[str]:
    """Windows are half-open and end by today; the window of a rule reading closures is settled by today;
    monthly trends span ≤ 12 months."""
    problems = []
    for instance in instances:
        if instance.task not in WINDOWED:
            continue
        params = instance.params
        today = date.fromisoformat(params["today"])
        start, end = parse_datetime(params["start"]), parse_datetime(params["end"])
        if not (start and end and start < end <= midnight(today)):
            problems.append(f"{instance.idx}: window {params['start']}–{params['end']} does not end by today {today}")
        if instance.task in SETTLED and start and end and not context.settled(start, end, today):
            problems.append(f"{instance.idx}: a case of the window still changes after {today}")
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
    """A disambiguation's answer is never the customer's only candidate: that day's orders hold another product,
    or their purchases (any day, any status) hold another of the same kind. A breached policy is the article the
    case's hidden plan breached: the case issue's own policy article, or a gesture policy's."""
    problems = []
    articles = {policy["article_id"]: policy for policy in latent["policies"].values()}
    for instance in instances:
        params = instance.params
        if instance.task == "named_entity_disambiguation" and instance.answer is not None:
            noun = kind_of(org.products[instance.answer][0])[1]
            day = date.fromisoformat(params["purchase_date"])
            that_day = truth.purchased_products(org, params["contact_id"], day) - {instance.answer}
            ever = truth.purchased_products(org, params["contact_id"], None, any_status=True) - {instance.answer}
            if not that_day and not any(kind_of(org.products[other][0])[1] == noun for other in ever):
                problems.append(f"{instance.idx}: the product is the customer's only candidate")
        if instance.task == "policy_violation_identification" and instance.answer is not None:
            issue = org.cases[params["case_id"]].issue_id or ""
            own = latent["policies"][latent["issues"][issue]["policy"]]["article_id"]
            if latent["cases"][params["case_id"]]["breached_article_id"] != instance.answer:
                problems.append(f"{instance.idx}: the answer is not the article the case's plan breached")
            if instance.answer != own and not articles.get(instance.answer, {}).get("general"):
                problems.append(f"{instance.idx}: the breached article is neither the issue's policy nor a gesture's")
    return problems


def original_queries(shared: Any) -> list[str] | None:
    if shared is None:
        return None
    path = shared / "original" / "crmarena_tasks_natural.json"
    return [record["query"] for record in json.loads(path.read_text())] if path.is_file() else None
