"""The dependency arrows of the layout (style guide §4): each package imports only what it may."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports_of(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module path → the absolute names it imports (relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for path in (root / package).rglob("*.py"):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                    base = ".".join(package_parts[: len(package_parts) - node.level + 1])
                    source = f"{base}.{node.module}" if node.module else base
                # `from mock_org import org` imports the module mock_org.org.
                names.update(f"{source}.{alias.name}" for alias in node.names)
        found[module] = names
    return found


def offenders(
    package: str,
    forbidden: tuple[str, ...],
    allowed: tuple[str, ...] = (),
    skip: tuple[str, ...] = (),
    root: Path = ROOT,
) -> list[str]:
    bad = []
    for module, names in imports_of(package, root).items():
        if skip and module.startswith(skip):
            continue
        for name in names:
            if name.startswith(forbidden) and not name.startswith(allowed):
                bad.append(f"{module} imports {name}")
    return sorted(bad)


def test_the_parser_depends_on_nothing_of_ours() -> None:
    assert offenders("soql_parser", ("mock_org", "fixtures", "eval_suite", "flask", "sqlalchemy")) == []


def test_the_engine_never_imports_http() -> None:
    assert (
        offenders(
            "mock_org",
            ("flask", "werkzeug", "waitress", "cheroot", "hypercorn", "h11", "requests"),
            skip=("mock_org.server", "mock_org.client"),
        )
        == []
    )


def test_fixtures_use_only_the_schema_and_id_modules_of_the_org() -> None:
    # command_line is the errors and argument types every crmarena subcommand shares; it imports nothing of ours.
    allowed = ("mock_org.schema", "mock_org.ids", "mock_org.command_line")
    assert offenders("fixtures", ("mock_org",), allowed=allowed) == []
    shared = imports_of("mock_org")["mock_org.command_line"]
    assert [name for name in shared if name.startswith(("mock_org", "fixtures", "eval_suite", "soql_parser"))] == []


def test_the_harness_reaches_an_org_only_through_its_client() -> None:
    assert (
        offenders(
            "eval_suite",
            ("mock_org", "fixtures.tasks.truth", "fixtures.tasks.records"),
            # The errors every crmarena subcommand shares, and the Id arithmetic (no org in either).
            allowed=("mock_org.command_line", "mock_org.ids"),
            skip=("eval_suite.cli", "eval_suite.target"),
        )
        == []
    )


def test_ground_truth_never_uses_the_engine_the_server_or_the_tools() -> None:
    assert offenders("fixtures", ("eval_suite",)) == []


def test_the_contract_sees_every_form_of_a_forbidden_import(tmp_path: Path) -> None:
    package = tmp_path / "sample"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "module.py").write_text(
        "from mock_org.query import compile\nimport mock_org.server\nfrom mock_org import org, ids\nfrom . import helper\n"
    )
    found = offenders("sample", ("mock_org",), allowed=("mock_org.ids",), root=tmp_path)
    assert found == [
        "sample.module imports mock_org.org",
        "sample.module imports mock_org.query.compile",
        "sample.module imports mock_org.server",
    ]

