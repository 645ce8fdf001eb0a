"""The tools of one episode bound to the org client it runs with, and the line between an agent's
mistake and a failure of the org.

A query the org refuses (MALFORMED_QUERY, INVALID_FIELD …) or a tool the agent calls with bad
arguments is an observation the agent reads and can recover from. An org that cannot be reached,
answers 5xx, ends the session or runs out of API allowance is an InfraError: the attempt is not the
agent's fault, is not scored, and is re-run on resume.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import requests
from simple_salesforce.exceptions import SalesforceAuthenticationFailed, SalesforceError

from ..errors import InfraError
from .observe import render, render_org_error
from .registry import RESPOND_SCHEMA, Tool

RESPOND = "respond"
RESPOND_TOOL = {"type": "function", "function": RESPOND_SCHEMA}
# Errors with which the org itself is unusable, whatever the agent asked (Salesforce error codes).
ORG_DOWN_CODES = frozenset(
    {
        "REQUEST_LIMIT_EXCEEDED",
        "API_DISABLED_FOR_ORG",
        "API_CURRENTLY_DISABLED",
        "INVALID_SESSION_ID",
        "INVALID_OPERATION_WITH_EXPIRED_PASSWORD",
        "SERVER_UNAVAILABLE",
        "UNKNOWN_EXCEPTION",
        "QUERY_TIMEOUT",
    }
)
_FENCE = re.compile(r"^```[A-Za-z]*\s*|\s*```$")


@dataclass(frozen=True)
class Observation:
    text: str
    error: bool = False


def org_failure(error: BaseException) -> InfraError | None:
    """The InfraError an exception from the org client stands for, or None if it is the agent's doing."""
    if isinstance(error, SalesforceAuthenticationFailed):
        return InfraError(f"the org refused the login: {error}", fatal=True, source="org")
    if isinstance(error, requests.RequestException):
        return InfraError(f"the org could not be reached: {type(error).__name__}: {error}", source="org")
    if isinstance(error, SalesforceError):
        text = render_org_error(error.content, f"HTTP {error.status}")
        if error.status >= 500 or error.status == 401 or text.split(":", 1)[0] in ORG_DOWN_CODES:
            return InfraError(f"the org failed (HTTP {error.status}): {text}", source="org")
    return None


class Toolbox:
    """The tools an episode may call, on one org client."""

    def __init__(self, sf: Any, tools: Iterable[Tool] = ()) -> None:
        self.sf = sf
        self.tools: dict[str, Tool] = {tool.name: tool for tool in tools}

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI's ``tools`` shape, respond last."""
        return [tool.openai_tool for tool in self.tools.values()] + [RESPOND_TOOL]

    def call(self, name: str, arguments: Mapping[str, Any]) -> Observation:
        """Run a tool. The agent's mistakes come back as observations; org failures raise InfraError."""
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join([*self.tools, RESPOND])
            return Observation(f"Error: there is no tool named {name!r}. The tools are: {known}.", error=True)
        try:
            result = tool.function(self.sf, **arguments)
        except Exception as error:  # the tool boundary: an agent's arguments can make a tool fail in any way
            return self._failed(error)
        return Observation(render(result))

    def run_query(self, text: str) -> Observation:
        """An <execute> action: SOSL when it starts with FIND, else SOQL (fences and line breaks removed)."""
        query = " ".join(_FENCE.sub("", text.strip()).split())
        try:
            result = self.sf.search(query) if query[:4].upper() == "FIND" else self.sf.query_all(query)
        except Exception as error:  # the org client's errors: the agent's query, or the org's failure
            return self._failed(error)
        return Observation(render(result))

    @staticmethod
    def _failed(error: Exception) -> Observation:
        failure = org_failure(error)
        if failure is not None:
            raise failure from error
        if isinstance(error, SalesforceError):
            return Observation(render_org_error(error.content, str(error)), error=True)
        return Observation(f"Error: {type(error).__name__}: {error}", error=True)
