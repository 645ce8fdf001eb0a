"""The pytest plugin (entry point ``pytest11``): fixtures ``crm_org`` (a served mock org) and ``sf`` (a logged-in
simple-salesforce client), and the marker ``crm_org_fresh`` (that test gets an org of its own).

Options: ``--crm-org-backend inprocess|docker`` (else $CRMARENA_PYTEST_BACKEND, else inprocess), ``--crm-org-scope
session|module|function`` (how long one org is shared; default session), ``--crm-org-seed N`` (an org built from
seed N, cached) or ``--crm-org-dump PATH`` (an org database or dump folder). Nothing starts until a test asks for
a fixture, so the plugin costs other test suites nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .served_org import OrgUnavailable, ServedOrg, seeded_org

if TYPE_CHECKING:
    from simple_salesforce import Salesforce

BACKENDS = ("inprocess", "docker")
SCOPES = ("session", "module", "function")
BACKEND_VARIABLE = "CRMARENA_PYTEST_BACKEND"
FRESH_MARKER = "crm_org_fresh"
_backend_key = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crmarena", "CRMArena mock Salesforce org (fixtures crm_org and sf)")
    group.addoption(
        "--crm-org-backend",
        metavar="inprocess|docker",
        help=f"where the org is served: in this process or in the project's Docker image "
        f"(default ${BACKEND_VARIABLE} or inprocess)",
    )
    group.addoption(
        "--crm-org-scope",
        default="session",
        metavar="session|module|function",
        help="how long tests share one org (default session); @pytest.mark.crm_org_fresh gives a "
        "test an org of its own",
    )
    group.addoption("--crm-org-seed", metavar="N", help="serve the org built from seed N (built once, cached)")
    group.addoption("--crm-org-dump", metavar="PATH", help="serve a copy of this org database or dump folder")


def pytest_configure(config: pytest.Config) -> None:
    """Check the options before any test runs: a bad value is a usage error, never a traceback."""
    config.addinivalue_line("markers", f"{FRESH_MARKER}: the test gets a freshly served org of its own (crmarena)")
    option, variable = config.getoption("crm_org_backend"), os.environ.get(BACKEND_VARIABLE)
    backend = option or variable or "inprocess"
    if backend not in BACKENDS:
        given = "--crm-org-backend" if option else f"${BACKEND_VARIABLE}"
        raise pytest.UsageError(f"{given}: {backend!r} is not a backend; use one of {', '.join(BACKENDS)}")
    config.stash[_backend_key] = backend
    scope = config.getoption("crm_org_scope")
    if scope not in SCOPES:
        raise pytest.UsageError(f"--crm-org-scope: {scope!r} is not a scope; use one of {', '.join(SCOPES)}")
    seed, dump = config.getoption("crm_org_seed"), config.getoption("crm_org_dump")
    if seed is not None and dump is not None:
        raise pytest.UsageError("--crm-org-seed and --crm-org-dump name two orgs; give one")
    if seed is not None and not (seed.isdigit() and int(seed) < 2**32):
        raise pytest.UsageError(f"--crm-org-seed: {seed!r} is not a seed (a whole number from 0 to 2**32-1)")
    if dump is not None:
        from mock_org.copies import NotAnOrg, check_org_file

        try:
            check_org_file(Path(dump).expanduser())
        except NotAnOrg as error:
            raise pytest.UsageError(f"--crm-org-dump: {error}") from None


def _org_source(config: pytest.Config) -> Path | None:
    """The database to serve, or None for the default org."""
    from mock_org.copies import check_org_file

    seed, dump = config.getoption("crm_org_seed"), config.getoption("crm_org_dump")
    if seed is not None:
        return seeded_org(int(seed))
    if dump is not None:
        return check_org_file(Path(dump).expanduser()).resolve()
    return None


@contextmanager
def serving(config: pytest.Config) -> Iterator[ServedOrg]:
    """An org served by the chosen backend for as long as the block runs; a failure to serve it ends the
    test as an error with one line saying why."""
    org: ServedOrg
    try:
        if config.stash[_backend_key] == "docker":
            from .docker_backend import DockerOrg

            org = DockerOrg(_org_source(config))
        else:
            from fixtures import default_org

            from .inprocess_backend import InProcessOrg

            org = InProcessOrg(_org_source(config) or default_org())
    except OrgUnavailable as error:
        pytest.fail(f"crm_org: {error}", pytrace=False)
    try:
        yield org
    finally:
        org.close()


def _chosen_scope(fixture_name: str, config: pytest.Config) -> str:
    return str(config.getoption("crm_org_scope"))


@pytest.fixture(scope=_chosen_scope)  # type: ignore[arg-type]
def _crm_org_shared(request: pytest.FixtureRequest) -> Iterator[ServedOrg]:
    with serving(request.config) as org:
        yield org


@pytest.fixture
def crm_org(request: pytest.FixtureRequest) -> Iterator[ServedOrg]:
    """A served org (url, username, password, security_token, ca_bundle, environment, connect(), reset()),
    shared for --crm-org-scope, or the test's own under @pytest.mark.crm_org_fresh."""
    if request.node.get_closest_marker(FRESH_MARKER):
        with serving(request.config) as org:
            yield org
    else:
        yield request.getfixturevalue("_crm_org_shared")


@pytest.fixture
def sf(crm_org: ServedOrg) -> Salesforce:
    """A simple-salesforce client logged in to ``crm_org`` as its administrator."""
    return crm_org.connect()
