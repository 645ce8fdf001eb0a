"""The inspect tasks: ``crmarena/crmarena`` over the nine CRMArena tasks (``-T tasks=a,b`` keeps some) and one
task per CRMArena task (``crmarena/case_routing`` …), with the same parameters as `crmarena eval`'s flags where
they mean the same: ``sample``/``sample_seed`` (a representative N per task), ``sql`` (the ``fc-sql`` tools and
the schema), ``aided``, ``tools`` (tool categories), ``task_file``, ``db``, ``trials`` (epochs, with pass^k),
``max_turns`` and ``f1_pass``. The org is chosen by CRMARENA_TARGET and its variables, as for `crmarena eval`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import ScoreReducer, mean_score

from fixtures.tasks.model import CANARY, TASKS

from .naming import registered, unprefixed
from .scorer import answer, pass_hat
from .solvers import end_session, function_calling, org_session

ListParameter = str | list[str] | None  # -T tasks=a,b (or a YAML list)


@task(name=registered("crmarena"))
@unprefixed
def crmarena(
    tasks: ListParameter = None,
    sample: int | None = None,
    sample_seed: int = 0,
    sql: bool = False,
    aided: bool = False,
    tools: ListParameter = None,
    task_file: str | None = None,
    db: str | None = None,
    trials: int = 1,
    max_turns: int = 20,
    f1_pass: float = 0.5,
) -> Task:
    """CRMArena: the nine tasks (or those ``tasks`` names) of the committed 1,170 instances, or of ``task_file``."""
    return build(tasks, sample, sample_seed, sql, aided, tools, task_file, db, trials, max_turns, f1_pass)


def build(
    tasks: ListParameter,
    sample: int | None,
    sample_seed: int,
    sql: bool,
    aided: bool,
    tools: ListParameter,
    task_file: str | None,
    db: str | None,
    trials: int,
    max_turns: int,
    f1_pass: float,
) -> Task:
    from fixtures.tasks.task_file import read_task_file

    from ...run.config import RunConfig, coerce
    from ...run.runner import select_instances
    from ...tools.catalog import default_task_file
    from .dataset import sample_of

    for name, value in (("sample", sample), ("trials", trials), ("max_turns", max_turns)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"crmarena: -T {name} must be a whole number of at least 1, not {value!r}")
    if not 0 < f1_pass <= 1:
        raise ValueError(f"crmarena: -T f1_pass must be above 0 and at most 1, not {f1_pass!r}")
    source = read_task_file(Path(task_file).expanduser() if task_file else default_task_file())
    selection = RunConfig(tasks=coerce("tasks", tasks), sample=sample, sample_seed=sample_seed)
    instances = select_instances(source, selection)
    categories = coerce("tools", tools)
    return Task(
        dataset=MemoryDataset([sample_of(each, sql=sql, aided=aided) for each in instances], name=source.path.name),
        setup=org_session(
            sql=sql,
            tools=list(categories) if categories else None,
            db=str(Path(db).expanduser().resolve()) if db else None,
        ),
        solver=function_calling(),
        cleanup=end_session,
        scorer=answer(f1_pass=f1_pass),
        epochs=Epochs(trials, _reducers(trials)),
        turn_limit=max_turns,
        headline_metric=HeadlineMetric(metric="all"),  # the mean of the task means, as the leaderboard's
        version=source.version,
        metadata={"task_file": str(source.path), "task_set": source.task_set, "canary": source.canary or CANARY},
    )


def _reducers(trials: int) -> list[ScoreReducer]:
    """The mean score over epochs, and pass^k for every k up to the number of trials."""
    return [mean_score(), *(pass_hat(k) for k in range(1, trials + 1) if trials > 1)]


def _variant(name: str) -> Callable[..., Task]:
    def variant(
        sample: int | None = None,
        sample_seed: int = 0,
        sql: bool = False,
        aided: bool = False,
        tools: ListParameter = None,
        task_file: str | None = None,
        db: str | None = None,
        trials: int = 1,
        max_turns: int = 20,
        f1_pass: float = 0.5,
    ) -> Task:
        return build([name], sample, sample_seed, sql, aided, tools, task_file, db, trials, max_turns, f1_pass)

    variant.__name__ = variant.__qualname__ = name
    variant.__doc__ = f"CRMArena's {name} task: its instances of the committed set, or of ``task_file``."
    return task(name=registered(name))(unprefixed(variant))


VARIANTS = {spec.name: _variant(spec.name) for spec in TASKS}
