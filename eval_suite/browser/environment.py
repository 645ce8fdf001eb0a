"""One episode's page: look at it (``observe``) and act on it (``step``). Runs on the thread that owns the
page (session.py sees to that), and works as well on a page BrowserGym made.

A mistake of the agent — a malformed action, an element id the page does not have, a field that cannot be
filled — never raises: it becomes the next observation's ``last_action_error``. A browser that closed or
crashed, or a page of the org that does not load in time, is the infrastructure's failure (InfraError).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..errors import InfraError
from .actions import ActionError, Call, parse
from .observation import Observation, axtree_text, mark

DEFAULT_TIMEOUT = 15.0  # seconds for a page to load or an element to be ready
CLOSED = ("has been closed", "Target closed", "crashed", "Browser closed", "Connection closed")


class BrowserEnv:
    """``page``: a Playwright (sync) page already showing the org; ``origin`` (scheme://host:port) is the only
    site ``goto`` may open."""

    def __init__(self, page: Any, origin: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.page = page
        self.origin = origin.rstrip("/")
        self.timeout_ms = timeout * 1000
        self.chat_messages: list[dict[str, str]] = []
        self.answer: str | None = None
        self.pages_loaded = 0
        self._cdp: Any = None
        page.set_default_timeout(self.timeout_ms)
        page.set_default_navigation_timeout(self.timeout_ms)
        page.on("load", self._loaded)

    def _loaded(self, *_: Any) -> None:
        self.pages_loaded += 1

    def observe(self, last_action_error: str = "") -> Observation:
        with browser_failures():
            mark(self.page)
            if self._cdp is None:
                self._cdp = self.page.context.new_cdp_session(self.page)
            tree = axtree_text(self.page, self._cdp)
            return Observation(self.page.url, self.page.title(), tree, last_action_error, list(self.chat_messages))

    def step(self, action: str) -> Observation:
        """Carry out an action string; the page after it, with the agent's mistake (if any) as its error."""
        try:
            for call in parse(action):
                self._do(call)
        except ActionError as error:
            return self.observe(str(error))
        return self.observe()

    def _do(self, call: Call) -> None:
        name, args = call.name, call.args
        if name == "send_msg_to_user":
            self.answer = str(args[0])
            self.chat_messages.append({"role": "assistant", "message": self.answer})
            return
        if name == "noop":
            return
        with browser_failures():
            if name == "goto":
                self._goto(str(args[0]))
            elif name == "go_back":
                self.page.go_back(wait_until="load")
            elif name == "go_forward":
                self.page.go_forward(wait_until="load")
            elif name == "scroll":
                self.page.mouse.wheel(_number(name, args[0]), _number(name, args[1]))
            else:
                self._on_element(call)
            self.page.wait_for_load_state("load")

    def _goto(self, url: str) -> None:
        target = urljoin(self.page.url, url)
        parts = urlsplit(target)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            raise ActionError(f"goto: only pages of the org ({self.origin}) can be opened, not {url!r}")
        try:
            self.page.goto(target, wait_until="load")
        except Exception as error:
            if "net::ERR" in str(error) and not _timed_out(error):
                raise ActionError(f"goto: the page could not be opened ({_first_line(error)})") from None
            raise

    def _on_element(self, call: Call) -> None:
        bid = str(call.args[0])
        element = self.page.locator(f'[bid="{_css_string(bid)}"]')
        if element.count() == 0:
            raise ActionError(f'{call.name}: no element has bid "{bid}" on this page')
        element = element.first
        short = min(self.timeout_ms, 5000.0)  # an element that cannot be used says so soon
        try:
            if call.name == "click":
                element.click(timeout=short)
            elif call.name == "fill":
                element.fill(str(call.args[1]), timeout=short)
            elif call.name == "clear":
                element.clear(timeout=short)
            elif call.name == "press":
                element.press(str(call.args[1]), timeout=short)
            elif call.name == "select_option":
                options = call.args[1]
                choices = [str(option) for option in options] if isinstance(options, list) else [str(options)]
                _select(element, choices, short)
        except ActionError:
            raise
        except Exception as error:
            if _closed(error):
                raise
            raise ActionError(f'{call.name}("{bid}"): {_first_line(error)}') from None


def _select(element: Any, choices: list[str], timeout: float) -> None:
    """By value, else by the label a person reads."""
    try:
        element.select_option(value=choices, timeout=timeout)
    except Exception as error:
        if _closed(error):
            raise
        element.select_option(label=choices, timeout=timeout)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ActionError(f"{name}: {value!r} is not a number")
    return float(value)


def _css_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:300]


def _timed_out(error: BaseException) -> bool:
    return type(error).__name__ == "TimeoutError" or "Timeout" in _first_line(error)


def _closed(error: BaseException) -> bool:
    return any(marker in str(error) for marker in CLOSED)


@contextmanager
def browser_failures() -> Iterator[None]:
    """Turn the browser's own failures (closed, crashed, a page of the org that never loads) into InfraError."""
    try:
        yield
    except (ActionError, InfraError):
        raise
    except Exception as error:
        if _closed(error):
            raise InfraError(f"the browser closed or crashed: {_first_line(error)}", source="browser") from error
        if _timed_out(error):
            message = f"a page of the org did not load in time: {_first_line(error)}"
            raise InfraError(message, source="browser") from error
        if type(error).__module__.startswith("playwright"):
            raise InfraError(f"the browser failed: {_first_line(error)}", source="browser") from error
        raise
