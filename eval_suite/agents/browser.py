"""The browser agent: the org's web pages are its only tool. The harness logs it in through the front door
(``frontdoor.jsp`` with its API session, which the model never sees) and shows it the page; each reply holds
one BrowserGym-style action (``click("12")``, ``fill("7", "text")`` …, ``send_msg_to_user("answer")``). A reply
without a readable action, or an action on an element the page does not have, comes back as the next page's
``last_action_error``. Older pages are elided from what the model is sent (only the current page is shown in
full, as BrowserGym agents do); the record keeps every one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import prompts
from ..browser.actions import ActionError, parse
from ..browser.session import BrowserEpisode, BrowserPool
from ..errors import AgentError, Cancelled, InfraError
from ..model.llm import Completion
from .base import Episode, EpisodeContext, visible_text

OBSERVATION_LIMIT = 40_000  # characters of the page's tree a model is shown
_FENCE = re.compile(r"```(?:[a-zA-Z]*)\n?(.*?)```", re.DOTALL)
ELIDED = "[an earlier page, elided: the current page is the last message]"


@contextmanager
def browsing(context: EpisodeContext, pool: BrowserPool, episode: Episode) -> Iterator[BrowserEpisode]:
    """A browser context on this worker's chromium, logged in as the run's org session; closed on leaving,
    the pages it loaded kept on the episode."""
    sf = context.toolbox.sf
    browser = BrowserEpisode(pool.host(), f"https://{sf.sf_instance}", sf.session_id)
    try:
        yield browser
    finally:
        episode.pages = browser.pages_loaded
        browser.close()


def action_text(reply: str) -> str:
    """The action of a reply: its last fenced block, else the reply itself."""
    blocks = _FENCE.findall(reply)
    return blocks[-1].strip() if blocks else reply.strip()


class BrowserAgent:
    name = "browser"

    def __init__(self, pool: BrowserPool, observation_limit: int = OBSERVATION_LIMIT) -> None:
        self.pool = pool
        self.observation_limit = observation_limit

    def opening(self, context: EpisodeContext) -> list[dict[str, Any]]:
        instance = context.instance
        block = prompts.context_block(
            None, instance.required, instance.optional if context.aided else None, context.privacy_aware
        )
        return [{"role": "system", "content": f"{prompts.text('browser')}\n\n{block}"}]

    def run(self, context: EpisodeContext) -> Episode:
        if context.llm is None:
            raise ValueError("the browser agent needs a model")
        episode = Episode(messages=self.opening(context))
        try:
            with browsing(context, self.pool, episode) as browser:
                first = browser.observe()
                self._show(episode, f"{context.instance.query}\n\n{first.text(self.observation_limit)}")
                while episode.turns < context.max_turns:
                    if context.cancelled():
                        raise Cancelled()
                    completion = context.llm.complete(
                        self._sent(episode), tools=None, seed=context.seed, scope=context.scope
                    )
                    episode.turns += 1
                    episode.calls.append(completion.call_info())
                    self._act(browser, episode, completion)
                    if episode.end_reason:
                        return episode
            episode.end_reason = {"source": "max_turns", "message": f"no answer after {context.max_turns} turns"}
        except AgentError as error:
            episode.end_reason = {"source": "context", "message": str(error)}
        except InfraError as error:
            error.episode = episode  # type: ignore[attr-defined]
            raise
        return episode

    def _act(self, browser: BrowserEpisode, episode: Episode, completion: Completion) -> None:
        episode.messages.append({"role": "assistant", "content": completion.content or ""})
        action = action_text(visible_text(completion.content))
        try:
            parse(action)
        except ActionError:
            episode.malformed_turns += 1
        observation = browser.step(action)
        if browser.answer is not None:
            episode.answer = browser.answer
            episode.end_reason = {"source": "agent", "message": "responded", "content": episode.answer}
            return
        self._show(episode, observation.text(self.observation_limit))

    def _show(self, episode: Episode, text: str) -> None:
        episode.observation_sizes.append(len(text))
        episode.messages.append({"role": "user", "content": text})

    @staticmethod
    def _sent(episode: Episode) -> list[dict[str, Any]]:
        """What the model is sent: every reply, but only the last page in full."""
        last = max(index for index, message in enumerate(episode.messages) if message["role"] == "user")
        sent = []
        for index, message in enumerate(episode.messages):
            if message["role"] == "user" and index != last and index != 1:
                message = {"role": "user", "content": ELIDED}
            elif message["role"] == "user" and index == 1 and index != last:
                question = message["content"].split("\n\nURL: ", 1)[0]
                message = {"role": "user", "content": f"{question}\n\n{ELIDED}"}
            sent.append(message)
        return sent

    def close(self) -> None:
        self.pool.close()
