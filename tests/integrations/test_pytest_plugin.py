"""The pytest plugin as its users meet it: the sample project (a user's suite using only the fixtures) run by a
pytest of its own with each backend, the options' usage errors, and the Docker backend's one-line failure when no
daemon answers."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_suite.integrations.docker_backend import docker_client
from eval_suite.integrations.served_org import OrgUnavailable
from fixtures import default_org

SAMPLE = Path(__file__).resolve().parent / "sample_project"
NO_DAEMON = "unix:///nonexistent/crmarena-test/docker.sock"


def run_pytest(
    folder: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest`` in ``folder``, as a user runs their own suite (the backend chosen by ``args``/``env``
    alone, never by this session's environment)."""
    environment = {name: value for name, value in os.environ.items() if name != "CRMARENA_PYTEST_BACKEND"}
    environment |= env or {}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A copy of the sample project, so its runs write nothing into the checkout."""
    return Path(shutil.copytree(SAMPLE, tmp_path / "sample_project"))


@pytest.fixture
def project(tmp_path: Path):
    """A one-file user project written by the test."""

    def write(source: str) -> Path:
        folder = tmp_path / "project"
        folder.mkdir(exist_ok=True)
        (folder / "pytest.ini").write_text("[pytest]\n")
        (folder / "test_it.py").write_text(source)
        return folder

    return write


def test_the_sample_project_passes_with_the_in_process_backend(sample: Path) -> None:
    result = run_pytest(sample)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed" in result.stdout


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--crm-org-backend", "kubernetes"], {}, "--crm-org-backend: 'kubernetes' is not a backend"),
        ([], {"CRMARENA_PYTEST_BACKEND": "podman"}, "$CRMARENA_PYTEST_BACKEND: 'podman' is not a backend"),
        (["--crm-org-scope", "class"], {}, "--crm-org-scope: 'class' is not a scope"),
        (["--crm-org-seed", "seven"], {}, "--crm-org-seed: 'seven' is not a seed"),
        (["--crm-org-seed", "-1"], {}, "--crm-org-seed: '-1' is not a seed"),
        (["--crm-org-seed", "7", "--crm-org-dump", "org.db"], {}, "--crm-org-seed and --crm-org-dump name two orgs"),
        (["--crm-org-dump", "missing.db"], {}, "--crm-org-dump: missing.db: no such file"),
        (["--crm-org-dump", "pytest.ini"], {}, "--crm-org-dump: pytest.ini is not a SQLite database"),
    ],
)
def test_a_bad_option_is_a_usage_error_in_one_line(
    sample: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    result = run_pytest(sample, *args, env=env, timeout=120)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert f"ERROR: {message}" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_no_docker_daemon_fails_each_test_in_one_line_without_waiting(sample: Path) -> None:
    started = time.monotonic()
    result = run_pytest(sample, "--crm-org-backend", "docker", env={"DOCKER_HOST": NO_DAEMON}, timeout=120)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    assert "5 errors" in result.stdout
    assert "crm_org: no Docker daemon reachable" in result.stdout
    assert "or use --crm-org-backend inprocess" in result.stdout
    assert "Traceback" not in result.stdout and "docker/api/client.py" not in result.stdout
    assert time.monotonic() - started < 60


def test_a_suite_that_asks_for_no_org_starts_none(project) -> None:
    folder = project("def test_plain():\n    assert True\n")
    result = run_pytest(folder, "--crm-org-backend", "docker", env={"DOCKER_HOST": NO_DAEMON}, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_function_scope_gives_each_test_an_org_of_its_own(project) -> None:
    folder = project(
        "def test_write(sf):\n"
        "    sf.Account.create({'Name': 'Scoped'})\n"
        "def test_read(sf):\n"
        "    assert sf.query(\"SELECT COUNT() FROM Account WHERE Name = 'Scoped'\")['totalSize'] == 0\n"
    )
    assert run_pytest(folder, timeout=300).returncode == pytest.ExitCode.TESTS_FAILED  # session scope: shared
    result = run_pytest(folder, "--crm-org-scope", "function", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def first_accounts(db: Path) -> list[str]:
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as connection:
        return [row[0] for row in connection.execute("SELECT Name FROM Account ORDER BY Name LIMIT 3")]


@pytest.mark.parametrize("backend", ["inprocess", "docker"])
def test_seed_and_dump_choose_the_org_served(project, tmp_path: Path, backend: str) -> None:
    if backend == "docker":
        reachable_daemon()
    seen = tmp_path / "seen.txt"
    folder = project(
        "import os\n"
        "def test_names(sf):\n"
        "    names = [r['Name'] for r in sf.query('SELECT Name FROM Account ORDER BY Name LIMIT 3')['records']]\n"
        "    open(os.environ['SEEN'], 'w').write('|'.join(names))\n"
    )
    result = run_pytest(
        folder, "--crm-org-backend", backend, "--crm-org-seed", "7", env={"SEEN": str(seen)}, timeout=1800
    )
    assert result.returncode == 0, result.stdout + result.stderr
    from mock_org.cache import cache_root

    built = cache_root() / "pytest-orgs" / "seed-7"
    assert seen.read_text().split("|") == first_accounts(built / "crmarena.db")
    assert first_accounts(built / "crmarena.db") != first_accounts(default_org())

    seen.unlink()
    result = run_pytest(
        folder, "--crm-org-backend", backend, "--crm-org-dump", str(built), env={"SEEN": str(seen)}, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert seen.read_text().split("|") == first_accounts(built / "crmarena.db")


def reachable_daemon() -> None:
    """Skip unless a Docker daemon answers ($DOCKER_HOST, else the default socket)."""
    try:
        docker_client().close()
    except OrgUnavailable as error:
        pytest.skip(f"the Docker backend needs a daemon: {error}")


def test_the_sample_project_passes_with_the_docker_backend(sample: Path) -> None:
    reachable_daemon()
    result = run_pytest(sample, "--crm-org-backend", "docker", timeout=1800)  # a first run builds the image
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed" in result.stdout


def restore_ctrl_c() -> None:
    """A shell's background job ignores SIGINT, and its children inherit that: the run under test must not."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_no_container_behind(project) -> None:
    reachable_daemon()
    folder = project("import time\ndef test_waits(crm_org):\n    print('org up', flush=True)\n    time.sleep(120)\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "--crm-org-backend", "docker"],
        cwd=folder,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=restore_ctrl_c,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "org up" in line:
                break
        client = docker_client()
        label = f"crmarena.pytest={process.pid}"
        assert len(client.containers.list(all=True, filters={"label": label})) == 1
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=120)
        assert client.containers.list(all=True, filters={"label": label}) == []
    finally:
        process.kill()
