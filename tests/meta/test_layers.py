"""The dependency arrows of the layout (style guide §4): each package imports only what it may."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports_of(package: str) -> dict[str, set[str]]:
    """Module path → the absolute names it imports (relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level:
                package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join(package_parts[: len(package_parts) - node.level + 1])
                names.add(f"{base}.{node.module}" if node.module else base)
            elif isinstance(node, ast.ImportFrom):
                names.add(node.module or "")
        found[module] = names
    return found


def offenders(
    package: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = (), skip: tuple[str, ...] = ()
) -> list[str]:
    bad = []
    for module, names in imports_of(package).items():
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
            ("flask", "werkzeug", "waitress", "cheroot", "requests"),
            skip=("mock_org.server", "mock_org.client"),
        )
        == []
    )


def test_fixtures_use_only_the_schema_and_id_modules_of_the_org() -> None:
    assert offenders("fixtures", ("mock_org",), allowed=("mock_org.schema", "mock_org.ids")) == []
