"""The floors of the layout (style guide §4): each package imports only the packages below it, and a few
packages keep narrower rules on top of that.

    soql_parser → mock_org (engine, storage, server) → fixtures (org data, generators, ground truth)
                → eval_suite (harness, lane, reports, the crmarena commands)

Imports are read from the source with ``ast``, wherever they are: at module level, inside a function
(the commands' lazy imports), under ``TYPE_CHECKING``. A package named in a string to load it or its
files (``import_module("fixtures")``, ``resources.files("fixtures")``, ``path / "fixtures"``) reaches it
as surely as an import does, and counts as one for the floors.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Lowest first: a package may import the packages before it in this list, never one after it.
FLOORS = ["soql_parser", "mock_org", "fixtures", "eval_suite"]

# Calls whose first argument names a package to load it or read its files.
LOADERS = frozenset({"import_module", "__import__", "files", "find_spec"})


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The package an ``ImportFrom`` reads from, with a relative import resolved."""
    if not node.level:
        return node.module or ""
    package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = ".".join(package_parts[: len(package_parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _modules(package: str, root: Path) -> dict[str, tuple[Path, ast.Module]]:
    return {
        _module_name(path, root): (path, ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted((root / package).rglob("*.py"))
    }


def imports_of(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module path → the absolute names it imports anywhere in its source (relative imports resolved)."""
    found: dict[str, set[str]] = {}
    for module, (path, tree) in _modules(package, root).items():
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, path, node)
                # `from mock_org import org` imports the module mock_org.org.
                names.update(f"{source}.{alias.name}" for alias in node.names)
        found[module] = names
    return found


def references_of(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module path → the packages it names in a string to load them or their files: the first argument of
    ``import_module``/``__import__``/``resources.files``/``find_spec``, or a path segment (``x / "fixtures"``)."""
    found: dict[str, set[str]] = {}
    for module, (_, tree) in _modules(package, root).items():
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                first = node.args[0]
                if called in LOADERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                for side in (node.left, node.right):
                    if isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value in FLOORS:
                        names.add(side.value)
        found[module] = names
    return found


def floor_of(name: str) -> int | None:
    """The floor of the package an imported name belongs to (None: not one of ours)."""
    top = name.split(".")[0]
    return FLOORS.index(top) if top in FLOORS else None


def upward(package: str, root: Path = ROOT) -> list[str]:
    """Every import or reference in ``package`` that reaches a higher floor."""
    own = FLOORS.index(package)
    bad = []
    for kind, found in (("imports", imports_of(package, root)), ("names", references_of(package, root))):
        for module, names in found.items():
            for name in sorted(names):
                floor = floor_of(name)
                if floor is not None and floor > own:
                    bad.append(f"{module} {kind} {name} ({FLOORS[floor]} is above {package})")
    return sorted(bad)


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


# ----------------------------------------------------------------------------- the floors


def test_every_package_stands_on_a_floor() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(pattern.rstrip("*") for pattern in included) == sorted(FLOORS)


def test_no_package_imports_or_names_a_package_above_it() -> None:
    assert [offence for package in FLOORS for offence in upward(package)] == []


# ----------------------------------------------------------------------------- narrower rules


def test_the_parser_needs_no_web_framework_and_no_database() -> None:
    assert offenders("soql_parser", ("flask", "sqlalchemy")) == []


def test_the_engine_never_imports_http() -> None:
    assert (
        offenders(
            "mock_org",
            ("flask", "werkzeug", "waitress", "cheroot", "hypercorn", "h11", "requests"),
            skip=("mock_org.server", "mock_org.client"),
        )
        == []
    )


def test_the_transport_and_the_bulk_jobs_need_no_web_framework() -> None:
    """mock_org/server/http/ serves any WSGI app and bulk/ keeps jobs with no HTTP: Flask stays in rest/ and ui/."""
    wings = ("mock_org.server.http.", "mock_org.server.bulk.")
    found = offenders("mock_org", ("flask", "werkzeug"))
    assert [offence for offence in found if offence.startswith(wings)] == []
    assert any(module.startswith(wings) for module in imports_of("mock_org"))


def test_the_server_stands_in_wings_that_say_why() -> None:
    """At most ten modules at the top of mock_org/server/; each wing's __init__.py says why it exists."""
    server = ROOT / "mock_org" / "server"
    assert len(list(server.glob("*.py"))) <= 10
    for wing in ("http", "bulk", "rest", "ui"):
        assert ast.get_docstring(ast.parse((server / wing / "__init__.py").read_text(encoding="utf-8"))), wing


def test_fixtures_use_only_the_schema_dump_and_id_modules_of_the_org() -> None:
    # Besides the schema, the dump's reading half, the cache folder and Id arithmetic: the errors every
    # crmarena subcommand shares.
    allowed = ("mock_org.schema", "mock_org.dump", "mock_org.cache", "mock_org.ids", "mock_org.user_errors")
    assert offenders("fixtures", ("mock_org",), allowed=allowed) == []


def test_the_user_error_vocabulary_stands_alone() -> None:
    """mock_org/user_errors.py imports nothing of ours."""
    ours = tuple(FLOORS)
    assert [name for name in imports_of("mock_org")["mock_org.user_errors"] if name.startswith(ours)] == []


def test_the_command_tree_lives_in_the_harness_alone() -> None:
    """Every crmarena verb is a module of eval_suite/commands/: no library below builds an argparse parser,
    and no module outside the commands imports one of them (a library user never needs the command line)."""
    parsers = [
        module
        for package in FLOORS
        for module, names in imports_of(package).items()
        if "argparse" in names and not module.startswith("eval_suite.commands")
    ]
    # The server's limits are a table that also makes the `crmarena serve` flags (one source for flags, the
    # ServerLimits and the docs' table).
    assert parsers == ["mock_org.server.limits"]
    reaching = [
        f"{module} imports {name}"
        for package in FLOORS
        for module, names in imports_of(package).items()
        if not module.startswith("eval_suite.commands")
        for name in names
        if name.startswith("eval_suite.commands")
    ]
    assert reaching == []


def test_exit_codes_are_numbered_only_in_the_user_error_module() -> None:
    """A command's exit code is a name from mock_org/user_errors.py, never a number written elsewhere."""
    numbered = []
    for package in FLOORS:
        for module, (_, tree) in _modules(package, ROOT).items():
            if module == "mock_org.user_errors":
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.Assign | ast.AnnAssign):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [
                    target.id if isinstance(target, ast.Name) else getattr(target, "attr", "") for target in targets
                ]
                value = node.value
                literal = isinstance(value, ast.Constant) and type(value.value) is int
                literal |= isinstance(value, ast.Tuple) and any(
                    isinstance(item, ast.Constant) and type(item.value) is int for item in value.elts
                )
                if literal and any(name == "exit_code" or name.startswith("EXIT_") for name in names):
                    numbered.append(f"{module}:{node.lineno}")
    assert numbered == []


def test_the_harness_reaches_an_org_only_through_its_client() -> None:
    assert (
        offenders(
            "eval_suite",
            ("mock_org", "fixtures.tasks.truth", "fixtures.tasks.records"),
            # The errors every crmarena subcommand shares, the Id arithmetic and the objects' description (the
            # schema an agent's prompt shows): no org in any of them.
            allowed=("mock_org.user_errors", "mock_org.ids", "mock_org.schema"),
            # The places that start an org: the commands that open or serve one (query, search, serve, tls), a
            # run's target switch, and the pytest plugin's backends.
            skip=("eval_suite.commands", "eval_suite.run.target", "eval_suite.integrations"),
        )
        == []
    )


# ----------------------------------------------------------------------------- the reader itself


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


def test_the_floors_see_imports_in_functions_and_names_in_strings(tmp_path: Path) -> None:
    package = tmp_path / "mock_org"
    (package / "server").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "server" / "__init__.py").write_text("")
    (package / "server" / "cli.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from pathlib import Path\n"
        "from importlib import import_module, resources\n"
        "from .. import schema\n"
        "import soql_parser\n"
        "if TYPE_CHECKING:\n"
        "    from eval_suite.runner import RunResult\n"
        "def run():\n"
        "    from fixtures.default import default_org\n"
        "    import_module('eval_suite.cli')\n"
        "    resources.files('fixtures').joinpath('x.json')\n"
        "    return Path(__file__).parents[2] / 'fixtures' / 'crmarena_schema.json'\n"
    )
    assert upward("mock_org", root=tmp_path) == [
        "mock_org.server.cli imports eval_suite.runner.RunResult (eval_suite is above mock_org)",
        "mock_org.server.cli imports fixtures.default.default_org (fixtures is above mock_org)",
        "mock_org.server.cli names eval_suite.cli (eval_suite is above mock_org)",
        "mock_org.server.cli names fixtures (fixtures is above mock_org)",
    ]
