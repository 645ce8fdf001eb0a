"""The prompt texts (files beside this module, in our own words) and their assembly.

Templates use ``$name`` placeholders (``string.Template``), so that SOQL, SOSL and JSON examples can
hold braces. ``prompt_hash`` fingerprints everything a model is shown apart from the task itself.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from string import Template

# The one short request that checks a model endpoint before a run of an agent without tools (model/probe.py).
ENDPOINT_CHECK = "Reply OK."
# The prompt file --privacy-aware-prompt adds to every agent's context (docs/confidentiality.md).
PRIVACY_AWARE = "privacy_aware"


@cache
def text(name: str) -> str:
    """A prompt file's text, without its trailing newline."""
    return resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")


def render(name: str, **values: str) -> str:
    return Template(text(name)).substitute(values)


def context_block(schema: str | None, required: str, optional: str | None, privacy_aware: bool = False) -> str:
    """The org's schema (when the agent is shown it) and the task's context; ``optional`` (the
    domain details) is added in aided mode, and the confidentiality notice with --privacy-aware-prompt."""
    sections = [f"# The org\n{schema}"] if schema else []
    sections.append("# Task context\n" + required.strip())
    if optional:
        sections.append(optional.strip())
    if privacy_aware:
        sections.append(text(PRIVACY_AWARE))
    return "\n\n".join(sections)


def prompt_hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()
