"""The Dockerfile and its entrypoint: linted, and a thin wrapper over commands the tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def tool(name: str) -> str:
    """The linter from the test extras: on PATH, or beside this interpreter when the venv is not activated."""
    found = shutil.which(name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]' brings it)")
    return found


def test_hadolint_finds_nothing() -> None:
    result = subprocess.run([tool("hadolint"), str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_finds_nothing_in_the_entrypoint() -> None:
    result = subprocess.run(
        [tool("shellcheck"), str(ROOT / "docker" / "entrypoint.sh")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_serves_trusts_checks_and_drops_root() -> None:
    assert DOCKERFILE.count("FROM python:3.11-slim") == 1
    assert "crmarena serve --prepare-only" in DOCKERFILE and "update-ca-certificates" in DOCKERFILE
    assert 'CMD ["crmarena", "serve", "--check", "--port", "443"]' in DOCKERFILE
    assert "HEALTHCHECK" in DOCKERFILE and "\nUSER 10001:10001\n" in DOCKERFILE
    assert 'CMD ["serve", "--host", "0.0.0.0", "--port", "443", "--http-port", "8080"]' in DOCKERFILE
    assert "--add-host login.salesforce.com:127.0.0.1" in DOCKERFILE
