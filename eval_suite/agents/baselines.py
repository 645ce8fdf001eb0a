"""Two trivial strategies that show how much the benchmark gives away: ``null`` always answers None;
``majority`` answers each task's most common gold answer over the instances being run (the best
constant answer there is). Both must score low; a test bounds them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from fixtures.tasks.model import Instance

from .base import Episode, EpisodeContext


class NullAgent:
    name = "null"

    def run(self, context: EpisodeContext) -> Episode:
        return _answer("None")


class MajorityAgent:
    name = "majority"

    def __init__(self, instances: Iterable[Instance]) -> None:
        by_task: dict[str, Counter[str]] = {}
        for instance in instances:
            by_task.setdefault(instance.task, Counter())[str(instance.answer)] += 1
        # most_common keeps first-seen order among equal counts, so the choice is deterministic
        self.answers = {task: counts.most_common(1)[0][0] for task, counts in by_task.items()}

    def run(self, context: EpisodeContext) -> Episode:
        return _answer(self.answers[context.instance.task])


def _answer(answer: str) -> Episode:
    return Episode(
        messages=[{"role": "assistant", "content": answer}],
        answer=answer,
        end_reason={"source": "baseline", "message": "constant answer", "content": answer},
    )
