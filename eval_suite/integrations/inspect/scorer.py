"""Our scorer as an inspect scorer, and pass^k as an epochs reducer.

The answer is the conversation's last ``respond`` (tools.responded); eval_suite/scoring/answers.py scores it as
`crmarena eval` does: exact match on the value read from it, token F1 for knowledge QA (``passed`` from
``f1_pass``). A conversation that never responds scores 0, as an agent out of turns does. The metrics are the
mean per task and their mean (each task weighing the same, as in the leaderboard). pass^k reads each epoch's
``passed`` (eval_suite/scoring/metrics.py's estimator)."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, ScoreReducer, Target, grouped, mean, score_reducer, scorer
from inspect_ai.solver import TaskState

from ...scoring.answers import score as score_answer
from ...scoring.metrics import pass_hat_k
from .dataset import instance_of
from .naming import registered, unprefixed
from .tools import responded

NO_ANSWER = "no answer: the conversation ended without a respond call"


@scorer(name=registered("answer"), metrics=[grouped(mean(), "task", all="groups")])
@unprefixed
def answer(f1_pass: float = 0.5) -> Scorer:
    """The respond call's content scored against the instance's gold answer."""

    async def score(state: TaskState, target: Target) -> Score:
        instance = instance_of(state.metadata)
        given = responded(state.messages)
        result = score_answer(
            instance.task,
            instance.reward_metric,
            instance.answer,
            given,
            f1_pass=f1_pass,
            withheld=instance.params.get("withheld", ()),
        )
        return Score(
            value=result.reward,
            answer=given,
            explanation=NO_ANSWER if given is None else f"{result.reason}: {result.extracted!r}",
            metadata={"passed": result.passed, "extracted": result.extracted, "reason": result.reason, **result.detail},
        )

    return score


@score_reducer(name=registered("pass_hat"))
def pass_hat(k: int) -> ScoreReducer:
    """pass^k of one sample's epochs: the chance that k of them, drawn without replacement, all passed (NaN with
    fewer than k scored epochs)."""

    def reduce(scores: list[Score]) -> Score:
        passed = [bool((each.metadata or {}).get("passed")) for each in scores]
        value = pass_hat_k(len(passed), sum(passed), k) if len(passed) >= k else float("nan")
        return Score(value=value, explanation=f"{sum(passed)} of {len(passed)} epochs passed")

    return reduce
