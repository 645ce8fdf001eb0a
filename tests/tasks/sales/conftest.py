"""One B2B and one B2C org for the sales task types' tests, each built once per session (about ten seconds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.build import build
from fixtures.dump import DB_FILE

SEED = 42


@pytest.fixture(scope="session")
def b2b_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a full-size B2B org of seed 42, without task instances (each test generates its own)."""
    out = tmp_path_factory.mktemp("b2b") / "org"
    build(SEED, 1.0, out, org="b2b", per_task=0)
    return out


@pytest.fixture(scope="session")
def b2b_db(b2b_dump: Path) -> Path:
    return b2b_dump / DB_FILE


@pytest.fixture(scope="session")
def b2b_latent(b2b_dump: Path) -> dict:
    return json.loads((b2b_dump / "latent.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def b2c_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a full-size B2C org of seed 42, without task instances (each test generates its own)."""
    out = tmp_path_factory.mktemp("b2c") / "org"
    build(SEED, 1.0, out, org="b2c", per_task=0)
    return out


@pytest.fixture(scope="session")
def b2c_db(b2c_dump: Path) -> Path:
    return b2c_dump / DB_FILE


@pytest.fixture(scope="session")
def b2c_latent(b2c_dump: Path) -> dict:
    return json.loads((b2c_dump / "latent.json").read_text(encoding="utf-8"))
