"""`crmarena eval --org TYPE`: the org of that type is built once into the cache (a second run waits for a
build in progress instead of building again) and its task set is run; the agent's prompt shows that org's
schema (the service org's unchanged); run.json and the reports name the org type; mistakes are one line and
an exit code. The org is a small one (scale 0.25, 3 instances per task type) so the build takes seconds."""

from __future__ import annotations

import csv
import hashlib
import json
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from eval_suite.agents.base import EpisodeContext
from eval_suite.agents.react import system_prompt
from eval_suite.commands.cli import main
from eval_suite.prompts.schema import render_schema
from eval_suite.run.config import MODEL_AGENTS, RunConfig
from eval_suite.run.identity import org_of
from eval_suite.run.runner import run
from eval_suite.tools.toolbox import Toolbox
from fixtures import org_cache
from fixtures.tasks.model import TASKS
from fixtures.tasks.task_file import read_task_file
from mock_org.schema import ORG_TYPES
from mock_org.user_errors import BAD_FILE, USAGE

from .scripted import Reply, ScriptedLLM, turns

SMALL = ["--org-seed", "42", "--org-scale", "0.25", "--org-per-task", "3"]
# The service org's schema as its agents read it, before sales orgs existed: it must not change.
SERVICE_SCHEMA_SHA256 = "741130a6a20ed54214e31db81d4d5118a0467d358433ba5531fe2d935df9f975"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("org-cache")


def _oracle_run(org: str, cache_dir: Path, out: Path) -> Path:
    """An oracle run of `eval --org ORG` on a small org of that type (built into ``cache_dir``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRMARENA_CACHE_DIR", str(cache_dir))
        code = main(["eval", "--org", org, *SMALL, "--out", str(out), "--no-progress"])
    assert code == 0
    return out


@pytest.fixture(scope="module")
def b2b_run(cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _oracle_run("b2b", cache_dir, tmp_path_factory.mktemp("runs") / "oracle-b2b")


def _solved_every_task_type(run_dir: Path, org: str) -> None:
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert manifest["org"] == org
    task_file = read_task_file(manifest["tasks_file"])
    assert {spec.name for spec in TASKS} <= set(task_file.task_names)  # the nine service tasks, on the sales org
    assert set(summary["tasks"]) == set(task_file.task_names)
    assert all(task["score"]["value"] == 1.0 and task["complete"] for task in summary["tasks"].values())
    assert summary["overall"]["score"]["value"] == 1.0
    assert all(instance.task_set and instance.task_set["org"]["type"] == org for instance in task_file.instances)


def test_the_oracle_solves_every_task_type_of_the_b2b_org(b2b_run: Path) -> None:
    _solved_every_task_type(b2b_run, "b2b")


def test_the_oracle_solves_every_task_type_of_the_b2c_org(cache_dir: Path, tmp_path: Path) -> None:
    _solved_every_task_type(_oracle_run("b2c", cache_dir, tmp_path / "oracle-b2c"), "b2c")


def test_a_second_run_takes_the_org_from_the_cache(b2b_run: Path, cache_dir: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRMARENA_CACHE_DIR", str(cache_dir))
        capsys.readouterr()
        assert main(["eval", "--org", "b2b", *SMALL, "--tasks", "handle_time", "--out", str(tmp_path / "again")]) == 0
    said = capsys.readouterr().err
    assert "from the cache" in said and "building" not in said
    first = json.loads((b2b_run / "run.json").read_text(encoding="utf-8"))
    second = json.loads((tmp_path / "again" / "run.json").read_text(encoding="utf-8"))
    assert (first["org_sha256"], first["tasks_sha256"]) == (second["org_sha256"], second["tasks_sha256"])


def test_the_report_has_an_org_column(b2b_run: Path, tmp_path: Path) -> None:
    assert main(["report", str(b2b_run), "--out", str(tmp_path / "report")]) == 0
    rows = list(csv.DictReader((tmp_path / "report" / "leaderboard.csv").open(encoding="utf-8")))
    assert [row["org"] for row in rows] == ["b2b"]
    table = (tmp_path / "report" / "leaderboard.md").read_text(encoding="utf-8").splitlines()
    header = next(line for line in table if line.startswith("| run"))
    org_column = [cell.strip() for cell in header.split("|")].index("org")
    row = next(line for line in table if line.startswith("| oracle"))
    assert [cell.strip() for cell in row.split("|")][org_column] == "b2b"


def test_a_manifest_without_the_field_is_the_service_org_or_its_task_sets() -> None:
    assert org_of({}) == "service"
    assert org_of({"task_set": {"version": "2", "org": {"type": "b2b", "seed": 42}}}) == "b2b"
    assert org_of({"org": "b2b", "task_set": {"version": "2"}}) == "b2b"


def test_each_org_type_shows_its_own_schema(b2b_run: Path) -> None:
    manifest = json.loads((b2b_run / "run.json").read_text(encoding="utf-8"))
    instance = read_task_file(manifest["tasks_file"]).instances[0]
    service = render_schema()
    assert render_schema("service") == service
    assert hashlib.sha256(service.encode("utf-8")).hexdigest() == SERVICE_SCHEMA_SHA256
    assert "Opportunity" not in service
    for org in ORG_TYPES:
        if org == "service":
            continue
        sales = render_schema(org)
        assert sales.startswith(service.split("\n", 1)[0].rstrip("."))  # the service objects first, then the sales
        assert "## Opportunity:" in sales and "## Lead:" in sales and "## Territory2:" in sales
        prompt = system_prompt("react", EpisodeContext(instance, Toolbox(None), None, org=org))
        assert sales in prompt and service not in prompt


def test_a_build_in_progress_is_waited_for_not_repeated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs asking for the same org at once: one builds, the other waits and takes its result."""
    import fixtures.build

    builds = []

    def slow_build(seed: int, scale: float, out: Path, per_task: int | None = None, org: str = "service") -> None:
        builds.append(out)
        time.sleep(0.5)
        partial = out.with_name(out.name + ".partial")
        partial.mkdir()
        (partial / "crmarena.db").write_bytes(b"")
        (partial / "manifest.json").write_text("{}", encoding="utf-8")
        partial.rename(out)

    monkeypatch.setattr(fixtures.build, "build", slow_build)
    results: list[org_cache.BuiltOrg] = []
    threads = [
        threading.Thread(target=lambda: results.append(org_cache.built_org("b2b", 5, 0.3, 2, tmp_path)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert sorted(result.built for result in results) == [False, True]
    assert results[0].folder == results[1].folder == org_cache.cache_folder("b2b", 5, 0.3, 2, tmp_path)


@pytest.mark.parametrize(
    ("arguments", "code", "says"),
    [
        (["--org", "retail"], USAGE, "unknown org type 'retail': choose one of"),
        (["--org", "b2b", "--db", "org.db"], USAGE, "--org builds its own org and task file: leave out --db"),
        (["--org", "b2b", "--tasks-file", "t.jsonl"], USAGE, "leave out --tasks-file"),
        (["--org-seed", "7"], USAGE, "--org-seed is a setting of --org TYPE"),
        (["--org", "b2b", "--org-scale", "0"], USAGE, "'0' is not a number above 0"),
        (["--org", "b2b", "--org-per-task", "0"], USAGE, "--org-per-task: must be at least 1"),
    ],
)
def test_a_mistake_is_one_line_and_an_exit_code(arguments, code, says, tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(tmp_path))
    assert main(["eval", *arguments, "--out", str(tmp_path / "run")]) == code
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err
    assert not (tmp_path / "run").exists() and not (tmp_path / org_cache.ORGS_FOLDER).exists()


@pytest.mark.parametrize(("variable", "value"), [("CRMARENA_TARGET", "salesforce"), ("CRMARENA_MOCK_URL", "https://x")])
def test_an_org_is_built_for_a_private_mock_only(variable, value, tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(variable, value)
    assert main(["eval", "--org", "b2b", "--out", str(tmp_path / "run")]) == USAGE
    assert "--org serves the org it builds on a private mock" in capsys.readouterr().err
    assert not (tmp_path / org_cache.ORGS_FOLDER).exists()


def test_an_org_built_without_tasks_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(tmp_path))
    folder = org_cache.cache_folder("b2b", 3, 0.1, None, tmp_path)
    folder.mkdir(parents=True)  # an org built below scale 1: a dump without tasks.jsonl
    (folder / "crmarena.db").write_bytes(b"")
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    args = ["eval", "--org", "b2b", "--org-seed", "3", "--org-scale", "0.1", "--out", str(tmp_path / "run")]
    assert main(args) == BAD_FILE
    err = capsys.readouterr().err.strip().splitlines()
    assert "has no task instances" in err[-1] and "--org-per-task N" in err[-1]


def _sales_policy(body: dict[str, Any]) -> Reply:
    """A model that asks the org for a deal (a sales object) once, then answers None."""
    last = body["messages"][-1].get("content") or ""
    if body.get("tools") and last.startswith("What is the weather"):
        return Reply(tool_calls=[("get_weather", {"city": "Paris"})])  # the capability probe
    query = "SELECT Id, StageName FROM Opportunity ORDER BY Id LIMIT 1"
    native = bool(body.get("tools"))
    names = {tool["function"]["name"] for tool in body.get("tools") or []}
    if turns(body) == 0:
        if native and "issue_soql_query" in names:
            return Reply(tool_calls=[("issue_soql_query", {"query": query})])
        if not native:
            return Reply(f"<thought>Look at a deal.</thought><execute>{query}</execute>")
    if native:
        return Reply(tool_calls=[("respond", {"content": "None"})])
    return Reply("<thought>Done.</thought><respond>None</respond>")


@pytest.mark.parametrize(
    ("agent", "interactive"),
    [
        ("react", False),
        ("act", False),
        ("fc-sql", False),
        ("fc", False),
        ("null", False),
        ("majority", False),
        ("oracle", True),
    ],
)
def test_every_agent_runs_on_the_b2b_dump_by_db(b2b_run: Path, tmp_path: Path, agent: str, interactive: bool) -> None:
    """--db and --tasks-file keep working: a B2B dump named by path is a b2b run, its schema in the prompt."""
    manifest = json.loads((b2b_run / "run.json").read_text(encoding="utf-8"))
    tasks_file = Path(manifest["tasks_file"])
    base = RunConfig(
        agent=agent,
        model="scripted-model" if agent in MODEL_AGENTS else None,
        tasks_file=tasks_file,
        db=tasks_file.with_name("crmarena.db"),
        out=tmp_path / "run",
        tasks=("handle_time",),
        limit=1,
        workers=1,
        retry_base=0.01,
        progress=False,
        interactive=interactive,
    )
    with ScriptedLLM(_sales_policy) as llm:
        result = run(replace(base, base_url=llm.url))
    assert result.manifest["org"] == "b2b"
    assert [record["status"] for record in result.records] in (["passed"], ["failed"])
    if interactive:
        assert result.records[0]["status"] == "passed"
    if agent in ("react", "act", "fc-sql"):
        record = result.records[0]
        assert "## Opportunity:" in record["traj"][0]["content"]
        observed = " ".join(str(message.get("content")) for message in record["traj"][1:])
        assert "'Id': '006" in observed  # the org answered with a deal
