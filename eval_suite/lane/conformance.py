"""The conformance check behind ``crmarena conformance`` (eval_suite/commands/conformance.py): one query
suite on two orgs, and every place where their answers differ.

Side A is normally the mock (the org the tasks were written for), side B the org under test; each
side is opened by eval_suite.run.target from its own settings, so CRMARENA_TARGET plays no part. The
suite (eval_suite.lane.query_suite) runs on both sides, side B's statements with their Ids
translated through the push's Id map; eval_suite.lane.compare says what differs. Statements with a
relative date literal are compared only when both sides' "today" can be pinned (two mocks); a real
org's clock cannot move.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceError
from tqdm import tqdm

from fixtures.default import DEFAULT_DIR
from fixtures.dump import MANIFEST_FILE, reference_date
from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import read_task_file

from ..errors import InfraError
from ..reference import run_reference
from ..run.target import Target, TargetSettings, open_target
from ..tools.toolbox import org_failure
from .compare import IdTranslation, NotCompared, Outcome, compare, plan_of
from .conformance_report import summarise
from .idmap import load_idmap
from .query_suite import PARTS, REFERENCE, SAMPLE, RecordingClient, SuiteQuery, chosen, reference_queries
from .query_suite import sample_queries as sample_part

FORMAT = "crmarena-conformance/1"
# Set by each org itself: SystemModstamp can never be written, the others change with every write
# the push makes after an insert (and CreatedById names the pushing user unless the users are
# mapped); auto-numbers (CaseNumber …) are counted by each org; a person account's contact is made
# with the account and takes its CreatedDate (the generated dump has it a second later).
DEFAULT_NOT_COMPARED = (
    "SystemModstamp",
    "LastModifiedDate",
    "LastModifiedById",
    "CreatedById",
    "Contact.CreatedDate",
    "Case.CaseNumber",
    "CaseHistory__c.Name",
    "Knowledge__kav.ArticleNumber",
    "Order.OrderNumber",
    "OrderItem.OrderItemNumber",
    "LiveChatTranscript.Name",
    # A sales org's auto numbers, and the day a lead was converted (the day of the push: real-org-lane.md).
    "Quote.QuoteNumber",
    "QuoteLineItem.LineNumber",
    "Contract.ContractNumber",
    "VoiceCallTranscript__c.Name",
    "Lead.ConvertedDate",
)
DETAILS_KEPT = 100  # differences listed per query; the count is always complete
# An org that answers these for one statement still works (the statement failed, not the org).
_STATEMENT_FAILURES = frozenset({"UNKNOWN_EXCEPTION", "QUERY_TIMEOUT"})


@dataclass(frozen=True)
class ConformanceConfig:
    a: TargetSettings
    b: TargetSettings
    idmap: Path | None = None
    parts: tuple[str, ...] = PARTS
    only: tuple[str, ...] = ()
    tasks_file: Path = DEFAULT_DIR / "tasks.jsonl"
    not_compared: tuple[str, ...] = DEFAULT_NOT_COMPARED
    today: str | None = None  # the day both clocks are pinned to (default: side A's dump's)
    workers: int = 4
    progress: bool = True


@dataclass
class Side:
    """One org of the comparison, one session per worker thread, each pinned to the day asked for."""

    label: str
    target: Target
    _local: threading.local = field(default_factory=threading.local)
    _clients: list[Any] = field(default_factory=list)

    def client(self, today: str | None) -> Any:
        local = self._local
        if getattr(local, "sf", None) is None:
            local.sf, local.today = self.target.connect(), None
            self._clients.append(local.sf)
        if today and local.today != today:
            self.target.set_today(local.sf, today)
            local.today = today
        return local.sf

    def close(self) -> None:
        """End every session's connections (a server stopping would otherwise wait for idle keep-alives)."""
        for sf in self._clients:
            sf.session.close()
        self._clients.clear()

    def answer(self, query: SuiteQuery, text: str, today: str | None) -> Outcome:
        sf = self.client(today)
        try:
            if query.language == "sosl":
                records = (sf.search(text) or {}).get("searchRecords") or []
                return Outcome(tuple(records), len(records))
            result = sf.query_all(text)
        except Exception as error:  # the org client's errors: the statement's, or the org's failure
            raise_if_unusable(error, self.label)
            if not isinstance(error, SalesforceError):
                raise
            return Outcome(error_code=_error_code(error), message=_error_message(error))
        return Outcome(tuple(result.get("records") or ()), int(result.get("totalSize") or 0))


class SideFailed(InfraError):
    """A side stopped answering (login, network, session, API limits): the comparison cannot go on."""


def raise_if_unusable(error: BaseException, label: str) -> None:
    failure = org_failure(error)
    if failure is None:
        return
    if isinstance(error, SalesforceError) and (error.status == 500 or _error_code(error) in _STATEMENT_FAILURES):
        return
    raise SideFailed(f"side {label}: {failure}", source="org") from error


def _first_error(error: SalesforceError) -> dict[str, Any]:
    content = error.content
    if isinstance(content, bytes | str):
        try:
            content = json.loads(content)
        except ValueError:
            return {}
    if isinstance(content, list) and content and isinstance(content[0], dict):
        return content[0]
    return content if isinstance(content, dict) else {}


def _error_code(error: SalesforceError) -> str:
    return str(_first_error(error).get("errorCode") or f"HTTP {error.status}")


def _error_message(error: SalesforceError) -> str:
    return str(_first_error(error).get("message") or "")


# ----------------------------------------------------------------------------- running


def run_conformance(config: ConformanceConfig) -> dict[str, Any]:
    """The report of one comparison (conformance_report.render_text says how it reads). The Id map and
    the task file are read before either org is opened."""
    idmap = load_idmap(config.idmap) if config.idmap else None
    instances = read_task_file(config.tasks_file).instances if REFERENCE in config.parts else ()
    ids = IdTranslation(idmap.flat() if idmap else None)
    skip = NotCompared(config.not_compared)
    today = config.today or _default_today(config.a)
    with open_target(config.a) as target_a, open_target(config.b) as target_b:
        sides = Side("a", target_a), Side("b", target_b)
        pinned = target_a.has_clock and target_b.has_clock
        try:
            for side in sides:
                side.target.preflight().session.close()
            queries, replays = _suite(config, instances, sides[0])
            entries = _parallel(
                [partial(_entry, query, sides, ids, skip, today if pinned else None) for query in queries],
                config.workers,
                "conformance",
                "query",
                config.progress,
            )
        finally:
            for side in sides:
                side.close()
        described = [side.target.describe() for side in sides]
    return {
        "format": FORMAT,
        "a": described[0],
        "b": described[1],
        "idmap": {"path": str(config.idmap), "ids": len(idmap)} if idmap else None,
        "today": today if pinned else None,
        "clock_dependent": "compared: both sides pinned to the same today"
        if pinned
        else "skipped: a side's today cannot be pinned (a real org's clock cannot move)",
        "not_compared": list(config.not_compared),
        "suite": {"parts": list(config.parts), "only": list(config.only), "reference_replays": replays},
        "summary": summarise(entries),
        "queries": entries,
    }


def _default_today(settings: TargetSettings) -> str:
    if settings.db is not None and Path(settings.db).is_file():
        return reference_date(Path(settings.db)).isoformat()
    return json.loads((DEFAULT_DIR / MANIFEST_FILE).read_text(encoding="utf-8"))["as_of_date"]


def _suite(
    config: ConformanceConfig, instances: tuple[Instance, ...], side_a: Side
) -> tuple[list[SuiteQuery], dict[str, Any]]:
    """The queries of the chosen parts, and how the replay of the references on side A went."""
    queries: list[SuiteQuery] = []
    replays: dict[str, Any] = {}
    if REFERENCE in config.parts:
        recorded = _parallel(
            [partial(_replay, side_a, instance) for instance in instances],
            config.workers,
            "references",
            "task",
            config.progress,
        )
        pairs = list(zip(instances, recorded, strict=True))
        failed = [{"idx": instance.idx, "error": error} for instance, (_, error) in pairs if error]
        statements = [(instance.task, text) for instance, (texts, _) in pairs for text in texts]
        queries += reference_queries(statements)
        side_a.close()  # the replay's threads are gone: their idle connections would only time out
        replays = {"tasks_file": str(config.tasks_file), "instances": len(instances), "failed": failed}
    if SAMPLE in config.parts:
        queries += sample_part()
    return list(chosen(queries, list(config.only))), replays


def _replay(side: Side, instance: Instance) -> tuple[list[str], str | None]:
    """The statements one reference solution issues on side A (and its error, if it failed there)."""
    texts: list[str] = []
    client = RecordingClient(side.client(instance.today), texts.append)
    try:
        run_reference(cast(Salesforce, client), list(instance.reference))  # it forwards every other attribute
    except Exception as error:  # a reference that fails on side A is reported, its statements so far kept
        raise_if_unusable(error, side.label)
        return texts, f"{type(error).__name__}: {error}"
    return texts, None


def _entry(
    query: SuiteQuery, sides: tuple[Side, Side], ids: IdTranslation, skip: NotCompared, today: str | None
) -> dict[str, Any]:
    plan = plan_of(query.text)
    entry: dict[str, Any] = {"name": query.name, "part": query.part, "language": query.language, "text": query.text}
    text_b = ids.query(query.text)
    if text_b != query.text:
        entry["text_b"] = text_b
    if plan.clock and today is None:
        return entry | {
            "status": "skipped",
            "reason": "a relative date literal: side a and side b have different "
            "todays, and a real org's cannot be pinned",
        }
    a, b = sides[0].answer(query, query.text, today), sides[1].answer(query, text_b, today)
    differences, notes = compare(plan, a, b, skip, ids)
    entry |= {"status": "different" if differences else "same", "a": a.summary(), "b": b.summary()}
    if differences:
        kinds = Counter(difference["kind"] for difference in differences)
        entry |= {
            "differences_total": len(differences),
            "difference_kinds": dict(sorted(kinds.items())),
            "differences": differences[:DETAILS_KEPT],
        }
    if notes:
        entry["notes"] = notes
    return entry


def _parallel(jobs: list[Callable[[], Any]], workers: int, label: str, unit: str, progress: bool) -> list[Any]:
    """Each job's result in job order, ``workers`` at a time; the first failure stops the rest and is raised."""
    results: list[Any] = [None] * len(jobs)
    bar = tqdm(
        total=len(jobs), desc=label, unit=unit, file=sys.stderr, disable=not progress or None, dynamic_ncols=True
    )
    executor = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=f"crmarena-{label}")
    try:
        futures: dict[Future, int] = {executor.submit(job): index for index, job in enumerate(jobs)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in done:
                results[futures[future]] = future.result()  # raises the first failure
                bar.update()
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return results
