"""What the Docker build and its smoke test take from a checkout: the build context leaves out what runs
and reports write (runs/ and report/ grow to tens of MB), keeps everything the Dockerfile copies, and
`.ci/docker-smoke` needs nothing on the host beyond the standard library (run outside the project's venv,
a host-side `import simple_salesforce` failed with ModuleNotFoundError)."""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ignored(path: str) -> bool:
    """Whether the build context leaves ``path`` out (.dockerignore's patterns, matched as Docker does for
    these simple ones: a pattern names a path or any of its parent folders; the last match wins)."""
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    result = False
    for pattern in (line for line in lines if line and not line.startswith("#")):
        negated, pattern = pattern.startswith("!"), pattern.lstrip("!")
        parts = path.split("/")
        if any(fnmatch.fnmatch("/".join(parts[:end]), pattern) for end in range(1, len(parts) + 1)):
            result = not negated
    return result


def test_the_build_context_leaves_out_runs_reports_and_caches() -> None:
    for path in (
        "runs/gpt-4o-fc/records.jsonl",
        "report/index.html",
        "report/data/traj/0.js",
        "results/x.json",
        ".cache-crmarena/default/crmarena.db",
        ".venv/bin/python",
        ".git/HEAD",
        "eval_suite/__pycache__/runner.cpython-311.pyc",
        "tests/conftest.py",
    ):
        assert ignored(path), path


def test_the_build_context_keeps_everything_the_dockerfile_copies() -> None:
    copied = re.findall(r"^COPY (\S+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert "eval_suite" in copied and "fixtures" in copied
    for source in copied:
        assert not ignored(source), source
        for path in (ROOT / source).rglob("*") if (ROOT / source).is_dir() else [ROOT / source]:
            relative = path.relative_to(ROOT).as_posix()
            assert "__pycache__" in relative or not ignored(relative), relative


def host_python_snippets(script: str) -> list[str]:
    """The Python the script hands to a python3 on the host (a heredoc or -c), not to one in a container."""
    snippets = []
    lines = script.splitlines()
    for index, line in enumerate(lines):
        if "python3" not in line or "docker run" in line or "docker exec" in line or line.lstrip().startswith("#"):
            continue
        if "<< 'EOF'" in line:
            end = lines.index("EOF", index + 1)
            snippets.append("\n".join(lines[index + 1 : end]))
        snippets += re.findall(r"python3 -c '([^']*)'", line)
    return snippets


def test_the_docker_smoke_needs_only_the_standard_library_on_the_host() -> None:
    snippets = host_python_snippets((ROOT / ".ci" / "docker-smoke").read_text())
    assert snippets  # it does run python3 on the host (a free port, the base tree's mirror)
    for snippet in snippets:
        for node in ast.walk(ast.parse(snippet.replace("\\n", "\n"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            for name in names:
                assert name.split(".")[0] in sys.stdlib_module_names, f"host python3 imports {name}"


def test_every_file_the_libraries_read_ships_with_them() -> None:
    """A non-Python file inside a library package (the schema, templates, prompts, the default org) is
    package data, so an installed crmarena (the Docker image's ``pip install .``) has it too."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]
    unshipped = []
    for pattern in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = pattern.rstrip("*")
        for path in sorted((ROOT / package).rglob("*")):
            relative = path.relative_to(ROOT / package).as_posix()
            if not path.is_file() or path.suffix in (".py", ".pyc") or path.name == "README.md":
                continue
            if not any(fnmatch.fnmatch(relative, glob) for glob in patterns.get(package, [])):
                unshipped.append(f"{package}/{relative}")
    assert unshipped == []
