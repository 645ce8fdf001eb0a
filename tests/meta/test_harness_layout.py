"""The harness's street plan: `eval_suite/` keeps at most ten modules at its top level, the rest grouped in
subpackages whose ``__init__.py`` says why each exists, and a public import that moved keeps working for
one release (docs/architecture.md lists the subpackages)."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "eval_suite"


def test_the_harness_keeps_at_most_ten_top_level_modules() -> None:
    modules = sorted(path.name for path in HARNESS.glob("*.py"))
    assert len(modules) <= 10, modules


def test_every_subpackage_says_why_it_exists() -> None:
    packages = sorted(path.parent for path in HARNESS.glob("*/__init__.py"))
    assert {"commands", "model", "run", "scoring", "tools"} <= {package.name for package in packages}
    for package in packages:
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        assert docstring, f"{package.relative_to(ROOT)}/__init__.py has no docstring"


def test_the_architecture_page_names_every_subpackage() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for package in sorted(path.parent.name for path in HARNESS.glob("*/__init__.py")):
        assert f"`{package}/`" in page, package


def test_the_old_reference_module_re_exports_the_executor_with_a_warning() -> None:
    from eval_suite.tools import reference

    sys.modules.pop("eval_suite.reference", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("eval_suite.reference")
    assert old.run_reference is reference.run_reference
    assert old.ReferenceError is reference.ReferenceError
    assert [warning.category for warning in caught] == [DeprecationWarning]
    assert "eval_suite.tools.reference" in str(caught[0].message)
