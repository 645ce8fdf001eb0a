"""What a web agent sees of a page, as BrowserGym shows it: every element marked with a ``bid`` attribute,
and the accessibility tree flattened to one line per node — ``[bid] role 'name', property=value`` — indented by
depth, with the URL and the error of the last action beside it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BID = "bid"
# Marks each element not yet marked, numbering on from the page's last mark (ids stay put while the page lives).
MARK_ELEMENTS = """() => {
  let next = window.__crmarenaBid || 0;
  for (const element of document.querySelectorAll('*')) {
    if (!element.hasAttribute('bid')) element.setAttribute('bid', String(next++));
  }
  window.__crmarenaBid = next;
  return next;
}"""
HIDDEN_ROLES = frozenset({"InlineTextBox", "LineBreak"})
PLAIN_ROLES = frozenset(
    {"generic", "none", "presentation", "Section", "LayoutTable", "LayoutTableRow", "LayoutTableCell"}
)
SHOWN_PROPERTIES = ("url", "checked", "selected", "expanded", "disabled", "required", "focused", "level")


@dataclass
class Observation:
    """One look at the page (and the chat), the fields BrowserGym's observation has under the same names."""

    url: str
    title: str
    axtree_txt: str
    last_action_error: str = ""
    chat_messages: list[dict[str, str]] = field(default_factory=list)

    def text(self, limit: int | None = None) -> str:
        """The observation as a model is shown it; ``limit`` cuts a long tree, saying so."""
        tree = self.axtree_txt
        if limit is not None and len(tree) > limit:
            tree = tree[:limit] + f"\n[… the page's tree was cut at {limit:,} of {len(self.axtree_txt):,} characters]"
        error = self.last_action_error or "none"
        return f"URL: {self.url}\nTitle: {self.title}\nLast action error: {error}\n\nAccessibility tree:\n{tree}"


def mark(page: Any) -> None:
    page.evaluate(MARK_ELEMENTS)


def axtree_text(page: Any, cdp: Any) -> str:
    """The page's accessibility tree (Chrome's, through the DevTools protocol), flattened with element bids."""
    document = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    bids: dict[int, str] = {}
    _collect_bids(document["root"], bids)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    return flatten(nodes, bids)


def _collect_bids(node: dict[str, Any], bids: dict[int, str]) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        attributes = current.get("attributes") or []
        for index in range(0, len(attributes) - 1, 2):
            if attributes[index] == BID:
                bids[current["backendNodeId"]] = attributes[index + 1]
        stack.extend(current.get("children") or [])
        stack.extend(current.get("shadowRoots") or [])
        if current.get("contentDocument"):
            stack.append(current["contentDocument"])


def flatten(nodes: list[dict[str, Any]], bids: dict[int, str]) -> str:
    """One line per meaningful node: ignored and nameless generic nodes are skipped (their children are not),
    and a text equal to its parent's name is not repeated."""
    if not nodes:
        return ""
    by_id = {node["nodeId"]: node for node in nodes}
    lines: list[str] = []
    stack: list[tuple[dict[str, Any], int, str]] = [(nodes[0], 0, "")]
    while stack:
        node, depth, parent_name = stack.pop()
        role = _value(node.get("role"))
        name = " ".join(str(_value(node.get("name")) or "").split())
        if role in HIDDEN_ROLES:
            continue
        shown = not node.get("ignored") and not (role in PLAIN_ROLES and not name)
        if role == "StaticText" and (not name or name in parent_name):
            shown = False
        child_depth, child_parent = depth, parent_name
        if shown:
            lines.append("\t" * depth + _line(node, role, name, bids))
            child_depth, child_parent = depth + 1, name
        children = [by_id[child] for child in node.get("childIds") or [] if child in by_id]
        stack.extend((child, child_depth, child_parent) for child in reversed(children))
    return "\n".join(lines)


def _line(node: dict[str, Any], role: str, name: str, bids: dict[int, str]) -> str:
    bid = bids.get(node.get("backendDOMNodeId", -1))
    parts = [f"[{bid}] " if bid is not None and role != "StaticText" else "", f"{role} {name!r}"]
    value = _value(node.get("value"))
    if value not in (None, ""):
        parts.append(f", value={value!r}")
    for entry in node.get("properties") or []:
        if entry["name"] in SHOWN_PROPERTIES:
            shown = _value(entry.get("value"))
            if shown not in (None, False, "false", ""):
                parts.append(f", {entry['name']}={shown!r}" if entry["name"] == "url" else f", {entry['name']}={shown}")
    return "".join(parts)


def _value(holder: Any) -> Any:
    return holder.get("value") if isinstance(holder, dict) else None
