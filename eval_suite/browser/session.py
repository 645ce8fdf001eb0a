"""Browsers for episodes: headless Debian chromium driven by Playwright, never a downloaded browser.

Playwright's sync API belongs to the thread that started it, so each ``BrowserHost`` owns one thread and
one chromium; every call to it waits at most its timeout, and a host that did not answer in time is broken
for good (the episode ends as an infrastructure error, the pool starts a new host). A ``BrowserPool`` keeps
one host per worker thread of a run. Each episode gets its own browser context — its own cookies, storage
and login — and may reach only the org's own origin: every other request is refused in the browser.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from ..errors import InfraError
from .environment import DEFAULT_TIMEOUT, BrowserEnv, browser_failures
from .observation import Observation

CHROMIUM = Path("/usr/bin/chromium")
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
)
VIEWPORT = {"width": 1280, "height": 720}  # BrowserGym's
START_PAGE = "/lightning/page/home"
LAUNCH_TIMEOUT = 60.0
T = TypeVar("T")


def chromium_missing() -> str | None:
    """Why no browser episode can run here, or None."""
    if not CHROMIUM.exists():
        return f"no chromium at {CHROMIUM} (install Debian's chromium package)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


class BrowserHost:
    """One chromium on a thread of its own; ``call(fn)`` runs ``fn(browser)`` there and waits at most ``timeout``."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self.broken: str | None = None
        self._jobs: queue.Queue[tuple[Callable[[Any], Any], Future] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="crmarena-browser", daemon=True)
        self._started: Future = Future()
        self._thread.start()
        try:
            self._started.result(timeout=LAUNCH_TIMEOUT)
        except FutureTimeout:
            self.broken = "chromium did not start"
            raise InfraError(f"chromium did not start within {LAUNCH_TIMEOUT:g} s", source="browser") from None

    def _serve(self) -> None:
        try:
            reason = chromium_missing()
            if reason:
                raise InfraError(reason, source="browser")
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=list(ARGS), timeout=LAUNCH_TIMEOUT * 1000
                )
                self._started.set_result(True)
                while (job := self._jobs.get()) is not None:
                    function, result = job
                    if not result.set_running_or_notify_cancel():
                        continue
                    try:
                        result.set_result(function(browser))
                    except BaseException as error:
                        if not browser.is_connected():  # chromium closed or crashed: the pool starts a new host
                            self.broken = "chromium closed or crashed"
                        result.set_exception(error)
                    if self.broken:
                        break
                with contextlib.suppress(Exception):
                    browser.close()
        except BaseException as error:
            if not self._started.done():
                failed = InfraError(f"chromium failed: {error}", source="browser")
                self._started.set_exception(error if isinstance(error, InfraError) else failed)

    def call(self, function: Callable[[Any], T], timeout: float | None = None) -> T:
        if self.broken:
            raise InfraError(f"the browser is unusable: {self.broken}", source="browser")
        result: Future = Future()
        self._jobs.put((function, result))
        limit = (timeout or self.timeout) * 2 + 5  # the page's own timeouts fire first; this catches a hung browser
        try:
            return result.result(timeout=limit)
        except FutureTimeout:
            self.broken = f"it did not answer within {limit:g} s"
            raise InfraError(f"the browser did not answer within {limit:g} s", source="browser") from None

    def close(self) -> None:
        if self._thread.is_alive() and not self.broken:
            self._jobs.put(None)
            self._thread.join(timeout=30)


class BrowserPool:
    """A host per thread that asks for one (a run's workers), made on first use and replaced once broken."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._hosts: dict[int, BrowserHost] = {}

    def host(self) -> BrowserHost:
        key = threading.get_ident()
        with self._lock:
            host = self._hosts.get(key)
        if host is None or host.broken:
            host = BrowserHost(self.timeout)
            with self._lock:
                self._hosts[key] = host
        return host

    def close(self) -> None:
        with self._lock:
            hosts, self._hosts = list(self._hosts.values()), {}
        for host in hosts:
            host.close()


class BrowserEpisode:
    """One episode's browser context on a host, logged in to the org through ``frontdoor.jsp``: the agent
    never holds the session id, only the page it opens."""

    def __init__(self, host: BrowserHost, instance_url: str, session_id: str, start: str = START_PAGE) -> None:
        self.host = host
        parts = urlsplit(instance_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.env: BrowserEnv | None = None
        self._context: Any = None
        door = f"{self.origin}/secur/frontdoor.jsp?sid={quote(session_id, safe='')}&retURL={quote(start, safe='/')}"
        host.call(lambda browser: self._open(browser, door))

    def _open(self, browser: Any, door: str) -> None:
        with browser_failures():
            # The mock org's certificate is its own CA's; this context only ever talks to that org.
            self._context = browser.new_context(ignore_https_errors=True, viewport=VIEWPORT)
            self._context.route("**/*", self._only_the_org)
            page = self._context.new_page()
            self.env = BrowserEnv(page, self.origin, self.host.timeout)
            page.goto(door, wait_until="load")
            if "/secur/frontdoor.jsp" in page.url or urlsplit(page.url).path == "/":
                raise InfraError("the org refused the front-door login", source="org")

    def _only_the_org(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(self.origin + "/") or url == self.origin:
            route.continue_()
        else:
            route.abort("blockedbyclient")

    def observe(self) -> Observation:
        return self.host.call(lambda _: self._env().observe())

    def step(self, action: str) -> Observation:
        return self.host.call(lambda _: self._env().step(action))

    @property
    def answer(self) -> str | None:
        return self.env.answer if self.env else None

    @property
    def pages_loaded(self) -> int:
        return self.env.pages_loaded if self.env else 0

    def _env(self) -> BrowserEnv:
        assert self.env is not None, "the episode's page opens in __init__"
        return self.env

    def close(self) -> None:
        context, self._context = self._context, None
        if context is not None and not self.host.broken:
            with contextlib.suppress(Exception):  # a context that will not close dies with its browser
                self.host.call(lambda _: context.close(), timeout=10)
