"""The Dockerfile and its entrypoint: linted, and a thin wrapper over commands the tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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


@pytest.mark.parametrize("script", ["docker/entrypoint.sh", ".ci/docker-smoke", ".ci/run"])
def test_shellcheck_finds_nothing(script: str) -> None:
    result = subprocess.run([tool("shellcheck"), str(ROOT / script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_serves_checks_and_drops_root_with_no_secret_inside() -> None:
    assert DOCKERFILE.count("FROM python:3.11-slim") == 1
    assert "REQUESTS_CA_BUNDLE" not in DOCKERFILE  # pip honours it, and the bundle exists only after first start
    assert 'CMD ["crmarena", "serve", "--check"]' in DOCKERFILE and "HEALTHCHECK" in DOCKERFILE
    assert "\nUSER 10001:10001\n" in DOCKERFILE and "CRMARENA_PORT=8443" in DOCKERFILE
    prepare = DOCKERFILE.index("crmarena serve --prepare-only")
    assert DOCKERFILE.index("USER 10001:10001") < prepare  # the cache belongs to the user who serves it
    # Dependencies install from pyproject.toml alone, before the source is copied in.
    assert (
        DOCKERFILE.index("COPY pyproject.toml")
        < DOCKERFILE.index("-r /tmp/requirements.txt")
        < DOCKERFILE.index("COPY mock_org")
    )


def test_ci_builds_and_runs_the_image() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "docker-smoke" in run
    smoke = (ROOT / ".ci" / "docker-smoke").read_text(encoding="utf-8")
    assert "--bridge=none --iptables=false --ip-forward=false" in smoke and "debootstrap --variant=minbase" in smoke
    assert "docker build --network host" in smoke and "python:3.11-slim" in smoke


def test_compose_runs_the_benchmark_against_the_org_by_service_name() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    org, evaluation = compose["services"]["crmarena"], compose["services"]["eval"]
    assert org["environment"]["CRMARENA_TLS_NAMES"] == "crmarena"
    assert evaluation["environment"]["CRMARENA_MOCK_URL"] == "https://crmarena:8443"
    assert evaluation["depends_on"]["crmarena"]["condition"] == "service_healthy"
    assert evaluation["command"][0] == "eval"
    shared = {volume.split(":")[0] for volume in org["volumes"]} & {
        volume.split(":")[0] for volume in evaluation["volumes"]
    }
    assert shared == {"tls"}
