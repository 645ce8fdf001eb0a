"""The optional extras stay optional: only the inspect extra's package imports inspect_ai, and with inspect-ai
absent every other module of the four packages imports and `crmarena --help` answers."""

from __future__ import annotations

import subprocess
import sys

from tests.meta.test_layers import FLOORS, ROOT, imports_of

EXTRA = "eval_suite.integrations.inspect"
# A child in which inspect_ai cannot be imported, whether or not this environment has it.
WITHOUT_INSPECT = """
import importlib.abc, sys

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "inspect_ai":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Absent())
"""
IMPORT_ALL = """
import importlib, pkgutil
needing = []
for package in ("soql_parser", "mock_org", "fixtures", "eval_suite"):
    for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        if info.name.startswith("eval_suite.integrations.inspect."):
            continue
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as error:  # another extra's package, absent here, is that extra's business
            if (error.name or "").split(".")[0] == "inspect_ai":
                needing.append(info.name)
            continue
        print(info.name)
if needing:
    raise SystemExit("these need inspect_ai: " + ", ".join(needing))
sys.argv = ["crmarena", "--help"]
from eval_suite.commands.cli import main
main()
"""


def test_only_the_inspect_package_imports_inspect_ai() -> None:
    importing = sorted(
        module
        for package in FLOORS
        for module, names in imports_of(package).items()
        if any(name.split(".")[0] == "inspect_ai" for name in names)
    )
    assert importing and all(module.startswith(f"{EXTRA}.") for module in importing), importing


def test_the_core_imports_and_answers_without_inspect_ai() -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_INSPECT + IMPORT_ALL], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    imported = result.stdout.splitlines()
    assert {"eval_suite.run.runner", "eval_suite.integrations.pytest_plugin", "mock_org.server.serve"} <= set(imported)
    assert "usage: crmarena" in result.stdout
    # The child does lack inspect_ai: the extra's own modules fail there.
    extra = subprocess.run(
        [sys.executable, "-c", WITHOUT_INSPECT + f"import {EXTRA}.registry"], cwd=ROOT, capture_output=True, text=True
    )
    assert extra.returncode != 0 and "No module named 'inspect_ai" in extra.stderr
