"""Another seed builds a fresh org and a fresh, equally valid set of 1,170 instances: the same checks
as the committed set, and its references replayed (a sample of each task here; all with --run-slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faker import Faker

from eval_suite.reference import run_reference
from fixtures.build import BuildResult, build
from fixtures.dump import LATENT_FILE, TASKS_FILE
from fixtures.tasks.drafting import Context
from fixtures.tasks.model import load_tasks
from fixtures.tasks.records import load_records
from mock_org.server.serve import serve_org
from tests.shared import shared_dir
from tests.tasks import checks

OTHER_SEED = 2026
SAMPLE = 12


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build(OTHER_SEED, 1.0, tmp_path_factory.mktemp("other") / "org")


def test_another_seed_gives_a_fresh_set_that_passes_every_check(other, instances) -> None:
    fresh = load_tasks(other.out_dir / TASKS_FILE)
    org = load_records(other.db_path)
    latent = json.loads((other.out_dir / LATENT_FILE).read_text(encoding="utf-8"))
    assert checks.layout(fresh, 130) == []
    assert checks.ground_truth(fresh, org) == []
    assert checks.shares(fresh) == []
    assert checks.windows(fresh, Context(org, latent, Faker())) == []
    assert checks.wording(fresh, org, checks.original_queries(shared_dir())) == []
    assert checks.hard_in_the_right_way(fresh, org, latent) == []
    assert len({i.query for i in fresh} & {i.query for i in instances}) < 0.25 * len(fresh)  # mostly new wording


@pytest.mark.parametrize("sample", [SAMPLE, pytest.param(None, marks=pytest.mark.slow)], ids=["sample", "all"])
def test_another_seeds_references_reach_its_ground_truth(other, sample) -> None:
    fresh = load_tasks(other.out_dir / TASKS_FILE)
    chosen = [i for i in fresh if sample is None or i.idx % 130 < sample]
    with serve_org(Path(other.db_path), read_only=True) as org:
        sf = org.connect()
        wrong = [(i.idx, i.answer, answer) for i in chosen if (answer := run_reference(sf, i.reference)) != i.answer]
    assert wrong == []
