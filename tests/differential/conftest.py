"""The generated CRMArena org for the differential tests: its records for the reference, and a
prepared, read-only copy for the engine (the committed default org itself is never touched)."""

from __future__ import annotations

import shutil

import pytest

from fixtures import default_org
from mock_org.clock import OrgClock
from mock_org.org import Org
from mock_org.schema import default_schema
from mock_org.storage import Storage

from . import reference as ref

RECORDS = ref.Records(default_org())


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Org:
    path = tmp_path_factory.mktemp("differential") / "org.db"
    shutil.copyfile(default_org(), path)
    storage = Storage(path, default_schema())
    storage.prepare()
    storage.dispose()
    org = Org(path, clock=OrgClock.for_date(ref.TODAY), read_only=True)
    yield org
    org.close()
