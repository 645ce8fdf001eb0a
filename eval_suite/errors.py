"""How an attempt can end other than with an answer, kept apart by whose fault it is.

``InfraError``: the LLM endpoint or the org failed (after the retries); the attempt is not scored
and is re-run on resume. ``fatal`` ones (a wrong API key, an unknown model, a replay cache miss)
stop the run, because every other attempt would fail the same way. ``AgentError``: the model's own
failure that ends the episode early (its context window overflowed). ``Cancelled``: the run is
stopping; the attempt leaves no record. A mistake the user can fix (a bad flag, a file that cannot be
used) is none of these: it is raised as one of mock_org/user_errors.py's errors, each with its exit code.
"""

from __future__ import annotations


class InfraError(Exception):
    def __init__(self, message: str, *, fatal: bool = False, source: str = "llm") -> None:
        super().__init__(message)
        self.fatal = fatal
        self.source = source  # "llm", "org", "judge" or "user" (the simulated user's model, --interactive)


class AgentError(Exception):
    pass


class Cancelled(Exception):
    pass
