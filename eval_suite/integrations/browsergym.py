"""BrowserGym tasks (the ``browsergym`` extra): importing this module registers every instance of the committed
task set as ``browsergym/crmarena.<task>.<idx>``, so an AgentLab agent runs them unchanged::

    import gymnasium as gym
    import eval_suite.integrations.browsergym  # registers the tasks
    env = gym.make("browsergym/crmarena.case_routing.390", pw_chromium_kwargs={"executable_path": "/usr/bin/chromium"})

``setup`` serves a private read-only copy of the default org on a loopback port (once per process), opens a
UI session through ``frontdoor.jsp`` with the instance's "today" as that session's clock, opens the start page
and returns the goal (the task's context and question). ``validate`` scores the last message the agent sent
to the user with the harness's scorer; ``cheat`` runs the UI oracle on the page and sends its answer.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from browsergym.core.registration import register_task
from browsergym.core.task import AbstractBrowserTask

from fixtures.default import default_org, default_tasks
from fixtures.tasks.model import Instance, load_tasks
from mock_org.clock import OrgClock
from mock_org.server.serve import RunningOrg, serve_org
from mock_org.server.settings import Settings

from .. import prompts
from ..agents.base import Episode
from ..agents.ui_oracle import solve
from ..agents.ui_pages import Pages
from ..browser.environment import BrowserEnv
from ..browser.observation import Observation
from ..browser.session import CHROMIUM, START_PAGE
from ..scoring.answers import score

PREFIX = "crmarena"
UNMARK = (
    "() => { document.querySelectorAll('[bid]').forEach(e => e.removeAttribute('bid')); delete window.__crmarenaBid; }"
)
_lock = threading.Lock()
_served: list[tuple[contextlib.ExitStack, RunningOrg]] = []


@cache
def instances() -> dict[int, Instance]:
    return {instance.idx: instance for instance in load_tasks(default_tasks())}


def served_org() -> RunningOrg:
    """The process's org: a read-only copy of the default org over plain HTTP on 127.0.0.1 (no certificate for
    BrowserGym's browser to trust), stopped when the process exits."""
    with _lock:
        if not _served:
            stack = contextlib.ExitStack()
            running = stack.enter_context(serve_org(default_org(), read_only=True, http_port=0, settings=Settings()))
            atexit.register(stack.close)
            _served.append((stack, running))
        return _served[0][1]


class CrmArenaTask(AbstractBrowserTask):
    """One instance of the committed set as a BrowserGym task."""

    @classmethod
    def get_task_id(cls) -> str:
        return PREFIX

    def __init__(self, seed: int, idx: int, **_: Any) -> None:
        super().__init__(seed)
        self.instance = instances()[idx]
        self.origin = ""

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        running = served_org()
        self.origin = str(running.http_url)
        auth = running.app.extensions["crmarena"].auth
        clock = OrgClock.for_date(self.instance.today) if self.instance.today else None
        sid = auth.issue(auth.admin, clock=clock)
        page.goto(f"{self.origin}/secur/frontdoor.jsp?sid={quote(sid, safe='')}&retURL={quote(START_PAGE, safe='/')}")
        goal = f"{prompts.context_block(None, self.instance.required, None)}\n\n# Question\n{self.instance.query}"
        return goal, {"task": self.instance.task, "idx": self.instance.idx, "today": self.instance.today}

    def teardown(self) -> None:
        """Nothing to undo: the org is read-only and the session ends with the browser context."""

    def validate(self, page: Any, chat_messages: list[dict[str, Any]]) -> tuple[float, bool, str, dict[str, Any]]:
        said = [str(message.get("message", "")) for message in chat_messages if message.get("role") == "assistant"]
        if not said:
            return 0.0, False, "", {}
        instance = self.instance
        withheld = instance.params.get("withheld", ())
        result = score(instance.task, instance.reward_metric, instance.answer, said[-1], withheld=withheld)
        return result.reward, True, "", {"score": result.reward, "passed": result.passed, "extracted": result.extracted}

    def cheat(self, page: Any, chat_messages: list[dict[str, Any]]) -> None:
        """The UI oracle, on this page, sends its answer as the agent would."""
        env = BrowserEnv(page, self.origin)
        answer = solve(Pages(_OnPage(env), Episode(messages=[])), self.instance)
        page.evaluate(UNMARK)  # BrowserGym marks the page itself at its next step, and refuses marks it finds
        chat_messages.append({"role": "assistant", "message": str(answer)})


class _OnPage:
    def __init__(self, env: BrowserEnv) -> None:
        self.env = env

    def step(self, action: str) -> Observation:
        return self.env.step(action)


def debian_chromium_for_playwright(folder: Path) -> None:
    """BrowserGym launches two browsers, the page's (``pw_chromium_kwargs`` can name Debian's chromium) and its
    chat's (nothing can), both from Playwright's own download. Where there is none, this puts a launcher of
    Debian's chromium in ``folder`` under the name this Playwright looks for, and points
    PLAYWRIGHT_BROWSERS_PATH there (call it before the first environment is made). Nothing is downloaded."""
    import playwright

    listed = json.loads((Path(playwright.__file__).parent / "driver/package/browsers.json").read_text())
    revision = next(browser["revision"] for browser in listed["browsers"] if browser["name"] == "chromium")
    launcher = folder / f"chromium-{revision}" / "chrome-linux" / "chrome"
    launcher.parent.mkdir(parents=True, exist_ok=True)
    launcher.write_text(f'#!/bin/sh\nexec {CHROMIUM} "$@"\n')
    launcher.chmod(0o755)
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(folder)


def register_all() -> list[str]:
    """Register every instance (again is harmless: a registered id is left as it is); returns the gym ids."""
    import gymnasium as gym

    names = []
    for idx, instance in sorted(instances().items()):
        name = f"{PREFIX}.{instance.task}.{idx}"
        if f"browsergym/{name}" not in gym.envs.registry:
            register_task(name, CrmArenaTask, task_kwargs={"idx": idx})
        names.append(f"browsergym/{name}")
    return names


TASK_IDS = register_all()
