"""Reading the org's pages as the UI oracle does: each look at a page is an action string through the browser
environment (kept in the episode's trajectory), and what it reads is the page's accessibility tree — its
tables' rows, a record's fields, an article's text."""

from __future__ import annotations

import ast
import re
from typing import Any, Protocol
from urllib.parse import urlencode

from ..browser.observation import Observation
from .base import Episode
from .oracle import OracleError

KEPT_CHARS = 4_000  # of each page, in the record (its full size is in observation_sizes)
_CELL = re.compile(r"^\s*(?:\[\d+\] )?(rowheader|cell|columnheader) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
_ROW = re.compile(r"^(\s*)\[\d+\] row ")
RECORD_LINK = re.compile(
    r"link ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"), url='[^']*/lightning/r/(\w+)/(\w{15,18})/view'"
)


class Steps(Protocol):
    """What the oracle acts through: a run's browser episode, or a page BrowserGym made
    (eval_suite/integrations/browsergym.py)."""

    def step(self, action: str) -> Observation: ...


class Pages:
    """The oracle's side of an episode: each look at a page is an action string, kept in the trajectory."""

    def __init__(self, browser: Steps, episode: Episode) -> None:
        self.browser = browser
        self.episode = episode

    def act(self, action: str) -> str:
        observation = self.browser.step(action)
        if observation.last_action_error:
            raise OracleError(f"{action}: {observation.last_action_error}")
        self.episode.turns += 1
        self.episode.observation_sizes.append(len(observation.axtree_txt))
        text = observation.text()
        self.episode.messages.append({"role": "assistant", "content": f"```\n{action}\n```"})
        self.episode.messages.append({"role": "user", "content": text[:KEPT_CHARS]})
        return observation.axtree_txt

    def open(self, path: str, **args: Any) -> str:
        query = urlencode([(key, item) for key, value in args.items() for item in listed(value)], doseq=True)
        return self.act(f"goto({(path + ('?' + query if query else ''))!r})")

    def report(self, sobject: str, filters: list[tuple[str, str, str]], **args: Any) -> list[list[str]]:
        """A summary report's rows: [group value, name, count, averages…]."""
        page = self.open(
            f"/lightning/o/{sobject}/report",
            **args,
            field=[item[0] for item in filters],
            op=[item[1] for item in filters],
            value=[item[2] for item in filters],
        )
        if "alert" in page and "report-error" not in page and re.search(r"\n\s*\[\d+\] alert ", page):
            raise OracleError(f"the report refused its filters: {page[page.find('alert') :][:300]}")
        return [row for row in table_rows(page) if len(row) >= 3]


def listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def text_of(quoted: str) -> str:
    return str(ast.literal_eval(quoted))


def table_rows(tree: str) -> list[list[str]]:
    """The body rows of the tables of a page, each as its cells' texts."""
    rows: list[list[str]] = []
    depth = None
    for line in tree.splitlines():
        row = _ROW.match(line)
        if row:
            depth = len(row.group(1)) + 1
            rows.append([])
            continue
        cell = _CELL.match(line)
        if cell and depth is not None and len(line) - len(line.lstrip("\t")) == depth and rows:
            if cell.group(1) == "columnheader":
                rows.pop()
                depth = None
                continue
            rows[-1].append(text_of(cell.group(2)))
    return [row for row in rows if row]


def article_text(tree: str) -> str:
    """The article's body as the page shows it: paragraphs apart by a blank line, lines and items by one."""
    start = tree.find("region 'Article body'")
    if start < 0:
        raise OracleError("the article page shows no article body")
    lines = tree[tree.rfind("\n", 0, start) + 1 :].splitlines()
    depth = len(lines[0]) - len(lines[0].lstrip("\t"))
    blocks: list[list[str]] = []
    for line in lines[1:]:
        level = len(line) - len(line.lstrip("\t"))
        if level <= depth:
            break
        role = line.strip().split("] ", 1)[-1]
        if level == depth + 1:
            blocks.append([])
        if role.startswith(("StaticText ", "listitem ")) and blocks:
            name = text_of(
                role.split(" ", 1)[1].split(", ")[0] if role.startswith("listitem") else role.split(" ", 1)[1]
            )
            if name:
                blocks[-1].append(name)
    return "\n\n".join("\n".join(block) for block in blocks if block)


_QUOTED = r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"


def field(tree: str, label: str) -> str:
    """A record page's field value (the StaticText under its definition)."""
    pattern = rf"term {re.escape(repr(label))}\n\s*\[\d+\] definition [^\n]*\n\s*StaticText {_QUOTED}"
    match = re.search(pattern, tree)
    return text_of(match.group(1)) if match else ""
