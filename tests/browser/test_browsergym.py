"""With the ``browsergym`` extra: each instance is a BrowserGym task; an episode of one instance per task runs
the cheat (the UI oracle on BrowserGym's own page) to reward 1, and a wrong answer scores 0. Skipped, saying
why, where the extra is not installed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from eval_suite.browser.session import CHROMIUM

gym = pytest.importorskip("gymnasium", reason="the browsergym extra is not installed (pip install '.[browsergym]')")
pytest.importorskip("browsergym.core", reason="the browsergym extra is not installed (pip install '.[browsergym]')")
crmarena_gym = pytest.importorskip("eval_suite.integrations.browsergym")

FIRST_OF_EACH_TASK = sorted({name.rsplit(".", 1)[0]: name for name in reversed(crmarena_gym.TASK_IDS)}.values())


@pytest.fixture(scope="module", autouse=True)
def debian_chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    crmarena_gym.debian_chromium_for_playwright(tmp_path_factory.mktemp("browsers"))
    yield
    if before is None:
        os.environ.pop("PLAYWRIGHT_BROWSERS_PATH", None)
    else:
        os.environ["PLAYWRIGHT_BROWSERS_PATH"] = before


def make(name: str) -> Any:
    return gym.make(
        name,
        headless=True,
        pw_chromium_kwargs={"executable_path": str(CHROMIUM)},  # Debian's chromium; BrowserGym sets the args
    )


def test_every_instance_is_registered() -> None:
    assert len(crmarena_gym.TASK_IDS) == len(crmarena_gym.instances()) == 1170
    assert "browsergym/crmarena.case_routing.390" in gym.envs.registry
    assert len(FIRST_OF_EACH_TASK) == 9


@pytest.mark.parametrize("name", FIRST_OF_EACH_TASK)
def test_the_cheat_scores_one(name: str) -> None:
    env = make(name)
    try:
        observation, _ = env.reset()
        assert "# Question" in observation["goal"] and "/lightning/page/home" in observation["url"]
        task = env.unwrapped.task
        task.cheat(env.unwrapped.page, env.unwrapped.chat.messages)
        _, reward, terminated, _, _ = env.step("noop()")
        assert (reward, terminated) == (1.0, True)
    finally:
        env.close()


def test_a_wrong_answer_scores_zero() -> None:
    env = make("browsergym/crmarena.case_routing.390")
    try:
        env.reset()
        _, reward, terminated, _, _ = env.step('send_msg_to_user("005000000000000AAA")')
        assert (reward, terminated) == (0.0, True)
    finally:
        env.close()
