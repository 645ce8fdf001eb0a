"""The harness's street plan: `eval_suite/` keeps at most ten modules at its top level, the rest grouped in
subpackages whose ``__init__.py`` says why each exists (docs/architecture.md lists them), and the public
imports the docs name still work."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "eval_suite"


def test_the_harness_keeps_at_most_ten_top_level_modules() -> None:
    modules = sorted(path.name for path in HARNESS.glob("*.py"))
    assert len(modules) <= 10, modules


def test_every_subpackage_says_why_it_exists() -> None:
    packages = sorted(path.parent for path in HARNESS.glob("*/__init__.py"))
    assert {"commands", "model", "reference", "run", "scoring", "tools"} <= {package.name for package in packages}
    for package in packages:
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        assert docstring, f"{package.relative_to(ROOT)}/__init__.py has no docstring"


def test_the_architecture_page_names_every_subpackage() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for package in sorted(path.parent.name for path in HARNESS.glob("*/__init__.py")):
        assert f"`{package}/`" in page, package


def test_the_public_imports_the_docs_name_still_work() -> None:
    from eval_suite.reference import run_reference
    from eval_suite.reference.executor import run_reference as executor_run_reference
    from eval_suite.tools.registry import TOOLS, schemas

    assert run_reference is executor_run_reference
    assert TOOLS and schemas()
